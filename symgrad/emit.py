"""Derivative Program → ``ast.FunctionDef`` → Python source (printed by ``astor``).

Names temporaries, and asks its backend (``backends``, printed through ``printer.Printer``) for
what differs per library: the conversion of the arguments, a constant result, the ``errstate`` of
NumPy. Steps:

1. keep the assignments the outputs need (dead primal code is dropped), and every ``Check`` (an
   ``assert`` or ``raise`` of the primal, printed as ``if not c: raise AssertionError(m)`` where
   the primal runs it) with what its conditions need;
2. lower functions a backend cannot print (``sign``, ``Heaviside``) through their ``rules`` row;
3. give every ``Piecewise`` and every ``StopGradient`` not already a whole right-hand side its own
   line (``entries.Lines``): a ``Piecewise`` prints as ``a if c else b``, or as an ``if``
   statement whose sides are blocks of their own lines when a side computes something twice, so
   the branch not taken is never evaluated and no common sub-expression is ever hoisted out of a
   branch; a stop point is marked with a ``# stop_gradient`` comment;
4. hoist common sub-expressions (SymPy ``cse``) into ``_t0, _t1 ...``, each emitted just before its
   first use, in program order (deterministic: no set or hash order anywhere), in every block;
5. name results ``d<out>_d<wrt>``, print with ``astor`` wrapping lines at 100 columns.

Steps 1-3 are ``lowering``, step 4 ``cse``.
"""
import ast
import os

import sympy

from .array_backends_api import numpy_indices_on_dask
from .array_backends_dask import data_indices, index_names
from .array_indexing import ARANGE, TRI_INDICES
from .array_emit import conversions, distinct_results, expand_statements, in_place, size_lines
from .array_library import lazy_names
from .array_torch import integer_names, torch_in_place
from .backends import backend as backend_spec, prologue as backend_prologue
from .errors import OptionError
from .fence import dotted
from .lowering import _entries, _factored, _lower
from .program import fresh_name
from .printer import Printer, dotted_name
from .cse import assign, cse_body
from .linewrap import LINE_WIDTH, to_source
from .untaken import GUARDED, name_conditions
from .cache import BACKENDS  # noqa: F401 - backend name → the one import its code needs

STOP_COMMENT = "# stop_gradient: treated as a constant when differentiating"


def emit(program, kind="grad", backend="math", wrt=(), layout=None, lazy=False):
    """Print a derivative Program as a Python function.

    Args:
        program: a ``Program`` whose outputs are the results to return, in order (None allowed).
        kind: the prefix of the function name and the docstring's verb ("grad", "value_and_grad").
        backend: "math" (scalars, ``math.*``), "numpy" (``np.*``, elementwise on arrays), or
            another name of ``backends.BACKENDS`` ("jax", "torch", "array_api").
        wrt: the names differentiated with respect to, for the docstring.
        layout: what the function returns, as output indices: an int returns that output, a
            (nested) tuple of them returns a (nested) tuple. None: the one output, or a tuple of
            all. Outputs the layout does not name are not computed.
        lazy: array code, numpy backend: print the lazy specialisation (arguments of a library
            NumPy dispatches to, a Dask array, kept lazy: ``array_emit``), not the NumPy one.

    Returns:
        ``(function_name, source)``: the source is one ``def`` ending in a newline.

    Raises:
        OptionError: an unknown backend.
        SymgradError: an expression with no printed form in this backend.
    """
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {tuple(BACKENDS)}, not {backend!r}")
    if layout is None:
        layout = 0 if len(program.outputs) == 1 else tuple(range(len(program.outputs)))
    used = sorted(set(_flatten(layout)))
    names = set(program.names)
    given = set(names)
    converted = [p.name for p in program.params if p.name not in program.static]
    positional = [p.name for p in program.positional]
    defaulted = set(positional[len(positional) - len(program.defaults):]) | {
        name for name, value in program.kwonly.items() if value is not None}
    data = [name for name in converted if name not in defaulted]
    reference = data[0] if data else converted[0] if converted else None
    printer = Printer(backend, reference=reference, lazy=lazy and backend == "numpy",
                      constants=program.arrays.constants if program.arrays is not None else None,
                      arrays=program.arrays is not None)
    printer.names = names  # fresh names a printed row takes (array_linalg_lazy's lambda)
    printer.shapes = program.arrays.shapes if program.arrays is not None else None
    if printer.lazy:  # the indices computed from the data: Dask arrays (array_backends_dask)
        printer.data_indices = data_indices(program)  # the arrays constants take the library of
        lazy_names(printer, program, converted, names)  # the arguments' library (array_library)
    if backend == "torch" and program.arrays is not None:
        printer.integer_names = integer_names(program)
    if backend == "array_api" and program.arrays is not None:  # NumPy's, where they index
        found = index_names(program, (TRI_INDICES, ARANGE))  # one walk for both
        printer.numpy_aranges, names_, printer.numpy_data = index_aranges(program, found[ARANGE])
        printer.triangles = found[TRI_INDICES] | names_
    results, values = {}, {}
    for index in used:
        out = program.outputs[index]
        results[index] = fresh_name(program.output_names[index], names)
        value = out if out is None else _factored(_lower(out, backend), None, backend, printer.shapes)
        values[index] = sympy.Float(value) if value is not None and value.is_Integer else value
    entries = _entries(program, backend, names, [
        (sympy.Symbol(results[i], real=True), values[i]) for i in used if values[i] is not None])
    body, stops = cse_body(entries, printer, names)
    if backend in GUARDED:  # the condition the guard copies into each side, named once
        body = name_conditions(body, names, dotted(printer.name("np.where")))
    ints = _int_names(body, {p.name for p in program.params})
    arrays = program.arrays
    if arrays is not None:  # statements for index adjoints; results are already shaped
        body = expand_statements(body, names)
    for index in used:
        if values[index] is None:
            body.append(assign(results[index], ast.Constant(None)))
        elif arrays is not None:
            continue
        elif backend == "math" and results[index] in ints:  # x*y, round(x): floats
            body = [_float_result(line, results[index]) for line in body]
        elif backend == "numpy" and values[index].is_Number and 0 < len(program.params) <= 32:
            body = [_broadcast_result(line, results[index], program.params) for line in body]
        elif printer.vectorised and values[index].is_Number and converted:
            body = [_full_result(line, results[index], converted, printer) for line in body]
    body.append(ast.Return(_returned(layout, results)))
    function_name = f"{kind}_{program.name}"
    prelude = [ast.Expr(ast.Constant(_docstring(program, kind, wrt)))]
    for name, value in program.static.items():
        prelude.append(_static_guard(function_name, name, value))
    if backend == "numpy" and arrays is not None:  # float arrays (lazy code: a Dask array kept)
        prelude.extend(conversions([p.name for p in program.params if p.name not in program.static],
                                   printer.lazy, printer))
    elif backend == "numpy":  # float arrays: 1.0 / x at x = 0 is then inf under np.where, not a raise
        for p in program.params:
            if p.name not in program.static:
                prelude.append(assign(p.name, ast.Call(
                    printer.name("np.asarray"), [ast.Name(p.name, ast.Load())],
                    [ast.keyword("dtype", ast.Name("float", ast.Load()))])))
    prelude.extend(backend_prologue(backend, data or converted, [
        name for name in converted if name not in data], [
        p.name for p in program.params if arrays is not None and arrays.shapes.of(p)],
        getattr(printer, "dask_flag", None)))
    if arrays is not None:
        prelude.extend(size_lines(arrays, body, [p for p in program.params
                                                 if p.name not in program.static], function_name,
                                  getattr(program, "cotangent_outputs", None),
                                  printer.lazy or backend_spec(backend).dask))
        invented = names - given - set(results.values())  # common terms, index adjoint buffers
        if backend == "numpy":
            primal = {results[i] for i in used if i < getattr(program, "primal_outputs", 0)}
            body = in_place(program, body, prelude, set(results.values()), stops, invented,
                            primal, printer.lazy)
        elif backend == "torch":
            body = torch_in_place(program, body, [p.name for p in program.params if p.name in data
                                                  and arrays.shapes.of(p)],
                                  set(results.values()), stops, invented)
        body = distinct_results(body, {results[i] for i in used if values[i] is not None
                                       and arrays.shapes.of(program.outputs[i])},
                                _copier(printer))
        if backend == "array_api":  # NumPy's index arrays left NumPy's on Dask
            body, lines = numpy_indices_on_dask(body, printer.reference, names)
            prelude.extend(lines)
    params = [ast.arg(p.name) for p in program.positional]
    array_defaults = getattr(arrays, "defaults", {}) if arrays is not None else {}

    def default(name, value):  # an array default is the constant holding it
        return ast.Name(array_defaults[name], ast.Load()) if name in array_defaults else \
            ast.Constant(value)
    positional = [p.name for p in program.positional]
    defaults = [default(n, v) for n, v in zip(positional[len(positional) - len(
        program.defaults):], program.defaults)]
    kwonly = [ast.arg(name) for name in program.kwonly]
    kw_defaults = [None if v is None else default(k, v) for k, v in program.kwonly.items()]
    node = ast.FunctionDef(
        name=function_name, args=ast.arguments(posonlyargs=params[:program.posonly],
                                               args=params[program.posonly:], vararg=None,
                                               kwonlyargs=kwonly, kw_defaults=kw_defaults,
                                               kwarg=None, defaults=defaults),
        body=prelude + body, decorator_list=[], returns=None, type_params=[])
    ast.fix_missing_locations(node)
    return function_name, _mark_stops(to_source(node), stops)


def index_aranges(program, names):
    """(the ``np.arange`` nodes, the names bound to them, those of the names also read as data)
    that ``program`` uses as index arrays (``A[steps, steps]``, ``Z[np.arange(n), LABELS]``), of
    ``names``, those bound to an arange (``index_names``): NumPy's on the Array API, as its
    triangle indices are (``compat_numpy.arange``, ints), numbered with NumPy where they index
    and scattered by gathers; an arange read as data is converted to the data's dtype there."""
    if not names:
        return set(), set(), set()
    exprs = [getattr(a, "expr", None) for a in program.assignments] + list(program.outputs)
    read, inline = set(), set()
    for e in exprs:
        if e is None or not isinstance(e, sympy.Basic):
            continue
        for node in sympy.preorder_traversal(e):
            if isinstance(node, sympy.Symbol):
                read.add(node.name)
            elif isinstance(node, ARANGE.node) and node is not e:
                inline.add(node)
    bound = {a.target.name: a.expr for a in program.assignments if a.target.name in names}
    data = {bound[n] for n in names if n in read} | inline
    index_only = {n for n in names if n not in read and bound[n] not in data}
    # read as data too (np.arange(k) * 0.25 beside np.trace's A[steps, steps], 64-261): NumPy's
    # ints still, each read as data converted (printer.numpy_data), if no other line has the node
    others = {a.expr for a in program.assignments if isinstance(a.expr, ARANGE.node) and
              a.target.name not in names} | inline
    both = {n for n in names if n in read and bound[n] not in others and all(
        bound[m] != bound[n] for m in names if m != n)}
    return {bound[n] for n in index_only | both}, index_only | both, both


_INT_CALLS = frozenset({"round", "math.floor", "math.ceil"})  # return an int for a float
_INT_IF_ARGS = frozenset({"abs", "sum"})  # return an int for int arguments
_INT_IF_ANY = frozenset({"max", "min"})  # return one of the arguments: an int if any may be


def _copier(printer):
    """How a returned result is copied (``distinct_results``): ``x.clone()`` on PyTorch,
    ``xp.asarray(x, copy=True)`` on the Array API (neither has ``.copy()``), else ``x.copy()``."""
    if printer.backend not in ("torch", "array_api"):
        return None
    from .array_backends import _copy
    return lambda value: _copy(printer, value)


def _int_names(body, ints):
    """The names assigned in ``body`` (printed lines, in order) that may hold an int when the
    arguments in ``ints`` are ints: read from the printed code itself, so the printer's choices
    (``1.0 * z`` printed as ``z``) cannot hide an int."""
    ints = set(ints)
    for line in body:
        if isinstance(line, ast.Assign) and _may_be_int(line.value, ints):
            ints.add(line.targets[0].id)
        elif isinstance(line, ast.If):  # a branch: an int on either side may reach later lines
            ints |= _int_names(line.body, ints) | _int_names(line.orelse, ints)
    return ints


def _may_be_int(node, ints):
    """Whether the printed expression ``node`` may compute a Python int (``x * y`` for int
    arguments, ``round(x)``, ``math.floor(x)``); a float literal or ``/`` anywhere on the path
    makes it a float."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return node.id in ints
    if isinstance(node, ast.BinOp):
        return not isinstance(node.op, ast.Div) and _may_be_int(node.left, ints) and \
            _may_be_int(node.right, ints)
    if isinstance(node, ast.UnaryOp):
        return _may_be_int(node.operand, ints)
    if isinstance(node, ast.IfExp):
        return _may_be_int(node.body, ints) or _may_be_int(node.orelse, ints)
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        if name in _INT_CALLS:
            return True
        if name in _INT_IF_ANY:
            return any(_may_be_int(a, ints) for a in node.args)
        if name in _INT_IF_ARGS:
            args = node.args[0].elts if name == "sum" and isinstance(node.args[0], ast.Tuple) \
                else node.args
            return all(_may_be_int(a, ints) for a in args)
    return False


def _float_result(line, name):
    if isinstance(line, ast.Assign) and line.targets[0].id == name:
        line.value = ast.Call(ast.Name("float", ast.Load()), [line.value], [])
    elif isinstance(line, ast.If):  # assigned in the branches
        line.body = [_float_result(inner, name) for inner in line.body]
        line.orelse = [_float_result(inner, name) for inner in line.orelse]
    return line


def _broadcast_result(line, name, params):
    """A constant result of the numpy backend takes the arguments' broadcast shape, as in JAX."""
    if isinstance(line, ast.Assign) and line.targets[0].id == name:
        shape = ast.Attribute(ast.Call(dotted_name("np.broadcast"), [
            ast.Name(p.name, ast.Load()) for p in params], []), "shape", ast.Load())
        line.value = ast.Call(dotted_name("np.full"), [shape, line.value], [])
    return line


def _full_result(line, name, params, printer):
    """A constant result of the other array backends: the arguments' broadcast shape, their
    dtype and device."""
    from .array_backend_values import broadcast_shape, full
    if isinstance(line, ast.Assign) and line.targets[0].id == name:
        line.value = full(printer, broadcast_shape(printer, params), line.value)
    return line


def _flatten(layout):
    if isinstance(layout, tuple):
        for item in layout:
            yield from _flatten(item)
    else:
        yield layout


def _returned(layout, results):
    if isinstance(layout, tuple):
        return ast.Tuple([_returned(item, results) for item in layout], ast.Load())
    return ast.Name(results[layout], ast.Load())


def _docstring(program, kind, wrt):
    what = {"grad": "Gradient", "value_and_grad": "Value and gradient", "jacobian": "Jacobian",
            "hessian": "Hessian", "vjp": "Vector-Jacobian product"}.get(kind, kind)
    file, _, line = program.origin.rpartition(", line ")
    where = f"{what} of {program.name} ({os.path.basename(file)}, line {line})"
    candidates = [f"{where} with respect to {', '.join(wrt)}.",
                  f"{where} with respect to {len(wrt)} parameters {wrt[0]}, ..., {wrt[-1]}.",
                  f"{where}.", f"{what} of {program.name}."]
    fitting = [c for c in candidates if len(c) <= LINE_WIDTH - 10]  # 4 spaces and 6 quotes
    return fitting[0] if fitting else candidates[-1]


def _static_guard(function_name, name, value):
    message = f"{function_name} was built for {name}={value}, a range() bound or an index"
    return ast.If(
        test=ast.Compare(ast.Name(name, ast.Load()), [ast.NotEq()], [ast.Constant(value)]),
        body=[ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []),
                        None)],
        orelse=[])


def _mark_stops(source, stops):
    if not stops:
        return source
    lines = source.splitlines(keepends=True)
    out = []
    for line in lines:
        stripped = line.lstrip()
        if any(stripped.startswith(f"{name} = ") for name in stops):
            out.append(line[: len(line) - len(stripped)] + STOP_COMMENT + "\n")
        out.append(line)
    return "".join(out)

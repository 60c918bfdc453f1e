"""The array parts of printing a derivative Program (``emit`` calls these for array programs).

- ``conversions``: each parameter as a float array, ``np.asarray(X, dtype=float)``; in the *lazy*
  specialisation (``specialise.library_kind``), a *lazy array* (an array of another library that
  implements NumPy's dispatch protocols, such as a Dask array) is kept as it is
  (``X.astype(float)``), so every ``np.*`` call dispatches to its library and a Dask gradient
  stays a graph computed chunk by chunk;
- ``scalar_result_statements``: in lazy code, a scalar gradient as a ``float``, or as a 0-d lazy
  array (NumPy code prints ``float(...)``);
- ``expand_statements``: a value printed as statements (the adjoint of an index: a zero buffer and
  one ``+=`` or ``np.add.at`` per piece) gets them before the line that uses it;
- ``size_lines``: ``n = X.shape[0]`` for each size the code reads, after the parameters'
  conversion to float arrays, a refusal of unknown (Dask ``nan``) sizes in lazy code, and a check
  of each other axis that must have that size;
- ``in_place``: the body rewritten to reuse dead buffers (``array_buffers``), with what the
  program knows of its names.
"""
import ast
import copy

from .array_buffers import reuse_buffers
from .array_library import library_lines
from .program import fresh_name
from .size_denominators import of_sizes, size_names, zero_points


def _np(attribute):
    return ast.Attribute(ast.Name("np", ast.Load()), attribute, ast.Load())


def numpy_input_test(name):
    """``isinstance(X, np.ndarray) or not hasattr(X, '__array_function__')``: whether the value of
    ``name`` is something ``np.asarray`` should make a NumPy array of (a NumPy array or subclass, a
    NumPy scalar, a float, a list), rather than a *lazy array*: an array of another library that
    NumPy functions dispatch to (NEP 18's ``__array_function__``: Dask, CuPy), kept as it is."""
    value = ast.Name(name, ast.Load())
    numpy = ast.Call(ast.Name("isinstance", ast.Load()), [value, _np("ndarray")], [])
    has = ast.Call(ast.Name("hasattr", ast.Load()), [value, ast.Constant("__array_function__")], [])
    return ast.BoolOp(ast.Or(), [numpy, ast.UnaryOp(ast.Not(), has)])


def conversions(names, lazy=False, printer=None):
    """``X = np.asarray(X, dtype=float)`` for each name: float64 NumPy arrays, as the numpy
    gradient computes with (integers, lists, float32 converted). In lazy code, ``X =
    np.asarray(X, dtype=float) if <NumPy input X> else X.astype(float)``: a lazy array (a Dask
    array) is kept lazy, its ``astype`` adds a task to the graph (none when it is float64
    already) and computes nothing.

    ``printer.library`` (lazy code with several parameters, ``printer.lazy_arrays`` of them
    array ones: ``array_library``): then
    ``library = np.zeros_like(X, shape=(0,)) + np.zeros_like(w, shape=(0,))``, an empty array of
    every parameter's library (a Dask one when any argument is Dask; empty, not 0-d: NumPy's
    sum of 0-d arrays is a NumPy scalar, which ``like=`` does not take), and each array
    parameter that is a NumPy array is made an array of that library (``np.asarray(w,
    like=library)``, NEP 35: a Dask array, as Dask makes of a NumPy operand; nothing for NumPy
    arguments). Every
    array the code computes from an array parameter is then of the arguments' library: a
    gradient of Dask data whose value reads only a NumPy ``w`` (``np.sum(X[:, 0] * w)``'s d/dX,
    ``w`` stored into a buffer) is a Dask graph, not a NumPy array of the data's size."""
    lines = []
    for name in names:
        value = ast.Call(_np("asarray"), [ast.Name(name, ast.Load())],
                         [ast.keyword("dtype", ast.Name("float", ast.Load()))])
        if lazy:
            kept = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "astype", ast.Load()),
                            [ast.Name("float", ast.Load())], [])
            value = ast.IfExp(numpy_input_test(name), value, kept)
        lines.append(ast.Assign([ast.Name(name, ast.Store())], value, lineno=None))
    library = getattr(printer, "library", None)
    if lazy and library is not None and library not in names:
        lines.extend(library_lines(names, printer.lazy_arrays, library))
    return lines


def scalar_result_statements(target, value):
    """``target = value`` then ``float(target)`` unless it is a 0-d lazy array: a scalar gradient
    is a ``float`` for NumPy inputs and stays a 0-d Dask array (computed with the rest of the graph,
    ``dask.compute(*gradient)``) for Dask inputs, where ``float()`` would compute it at once."""
    name = ast.Name(target, ast.Load())
    return [ast.Assign([ast.Name(target, ast.Store())], value, lineno=None),
            ast.If(numpy_input_test(target), [ast.Assign(
                [ast.Name(target, ast.Store())], ast.Call(ast.Name("float", ast.Load()), [name], []),
                lineno=None)], [])]


def _statements(marker, target, names):
    """A marker's statements into ``target``: ``marker.symgrad_statements(target)``, or
    ``(target, names)`` when the marker takes the names in use (``symgrad_takes_names``), to make
    fresh ones."""
    if getattr(marker, "symgrad_takes_names", False):
        return marker.symgrad_statements(target, names)
    return marker.symgrad_statements(target)


def expand_statements(body, names):
    """``body`` with every statement marker (``symgrad_statements``) expanded in place, also
    those inside the lines a marker expands to (a gather inside a scatter-add's operand)."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.With):
            stmt.body = expand_statements(stmt.body, names)
            out.append(stmt)
            continue
        if isinstance(stmt, ast.Assign) and hasattr(stmt.value, "symgrad_statements"):
            out.extend(expand_statements(_statements(stmt.value, stmt.targets[0].id, names),
                                         names))  # a marker's lines may hold markers
            continue
        before = []

        class Hoist(ast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if not hasattr(node, "symgrad_statements"):
                    return node
                name = fresh_name("scattered", names)
                before.extend(expand_statements(_statements(node, name, names), names))
                return ast.Name(name, ast.Load())

        Hoist().visit(stmt)
        out.extend(before)
        out.append(stmt)
    return out


def size_lines(info, body, params, function_name, cotangents=None, lazy=False):
    """``n = X.shape[0]`` for each size the code reads (when ``lazy``, code that may meet Dask
    arrays: the lazy specialisation and the "array_api" backend, then a refusal of unknown
    sizes), then a check of every other axis that the build takes to be that size (``if
    y.shape[0] != n: raise ValueError(...)``): where the primal would raise for sizes that do not
    match, the gradient must not return numbers.

    ``cotangents`` (a vjp's): cotangent parameter name → the name of its output; each cotangent
    must have exactly its output's shape, rank included (``tuple(dy.shape) != (n,)``: a (n, 1)
    cotangent would broadcast to an (n, n) result), else the code raises ``ValueError`` naming it.
    """
    from .array_nodes import int_ast
    from .shapes import show
    import sympy
    cotangents = cotangents or {}
    read = {n.id for stmt in body for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    labels = {d: sympy.Symbol(f"{param}.shape[{axis}]") for d, (param, axis) in info.dims.items()}
    size_checks, cotangent_checks, ranked = [], [], []
    for p in params:
        if p.name in cotangents:
            shape = info.shapes.resolve(info.shapes.table.get(p, ()))
            message = (f"{function_name}: the cotangent {p.name} must have the shape "
                       f"{show(shape)} of the output {cotangents[p.name]}")
            shape_of = ast.Call(ast.Name("tuple", ast.Load()), [ast.Attribute(  # any backend
                ast.Name(p.name, ast.Load()), "shape", ast.Load())], [])
            test = ast.Compare(shape_of,
                               [ast.NotEq()], [ast.Tuple([int_ast(d) for d in shape], ast.Load())])
            given = ast.Call(ast.Name("str", ast.Load()), [shape_of], [])
            cotangent_checks.append(ast.If(test, [ast.Raise(ast.Call(
                ast.Name("ValueError", ast.Load()), [ast.BinOp(
                    ast.Constant(message + ", not "), ast.Add(), given)], []), None)], []))
            for d in shape:
                read.update(s.name for s in d.free_symbols)
            continue
        shape = info.shapes.table.get(p, ())
        ranked.append((p.name, info.shapes.resolve(shape)))
        for axis, dim in enumerate(shape):
            if info.dims.get(dim) == (p.name, axis):
                continue
            given = ast.Subscript(ast.Attribute(ast.Name(p.name, ast.Load()), "shape",
                                                ast.Load()), ast.Constant(axis), ast.Load())
            size_checks.append((given, dim, [ast.Constant(f"{p.name}.shape[{axis}] is "),
                                             ast.FormattedValue(copy.deepcopy(given), -1, None)]))
            read.update(s.name for s in dim.free_symbols)
    for replaced, kept in getattr(info.shapes, "equal", {}).items():
        if replaced != kept:  # two size expressions unified at build (x[1:] * y[1:])
            size_checks.append((int_ast(replaced), kept, _size_text(replaced, labels)))
            read.update(s.name for s in replaced.free_symbols | kept.free_symbols)
    checks = cotangent_checks + _size_checks(size_checks, labels, function_name)
    lines, sources = _size_reads(info, read)
    sized = {dim.name: f"{param}.shape[{axis}]" for dim, (param, axis) in info.dims.items()
             if dim.name in read}
    unknown = _unknown_size_check(list(sized), sources, function_name) if lazy else []
    return _rank_check(ranked, function_name) + lines + unknown + checks + _zero_size_checks(body, sized, function_name)


def _rank_check(ranked, function_name):
    """One ``if`` refusing arguments of another rank than the code was built for: ``if X.ndim !=
    2:`` for one parameter, ``if (w.ndim, X.ndim, y.ndim) != (1, 2, 1):`` for several, raising
    ``ValueError`` with the shapes given and those built for (``(n, d)``; ``()``: a number). Code
    built for a rank computes another function at another rank (a (4, 1) ``y`` broadcasts ``X @
    w - y`` to (4, 4); an array where a number was built is summed away).

    ``ranked``: (parameter name, its shape) for each parameter checked."""
    from .shapes import show
    if not ranked:
        return []
    def ndim(name):
        return ast.Attribute(ast.Name(name, ast.Load()), "ndim", ast.Load())
    if len(ranked) == 1:
        (name, shape), = ranked
        test = ast.Compare(ndim(name), [ast.NotEq()], [ast.Constant(len(shape))])
        parts = [ast.Constant(f"{function_name}: {name}.shape is "), _shape_value(name),
                 ast.Constant(f"; it must be {show(shape)}")]
    else:
        test = ast.Compare(ast.Tuple([ndim(name) for name, _ in ranked], ast.Load()),
                           [ast.NotEq()], [ast.Tuple([ast.Constant(len(shape)) for _, shape
                                                      in ranked], ast.Load())])
        parts = [ast.Constant(f"{function_name}: the arguments' shapes must be " + ", ".join(
            f"{name} {show(shape)}" for name, shape in ranked) + "; they are ")]
        for k, (name, _) in enumerate(ranked):
            parts += [ast.Constant(f"{', ' if k else ''}{name} "), _shape_value(name)]
    return [ast.If(test, [ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()),
                                             [_message(parts)], []), None)], [])]


def _shape_value(name):
    return ast.FormattedValue(ast.Attribute(ast.Name(name, ast.Load()), "shape", ast.Load()),
                              -1, None)


def _size_reads(info, read):
    """``n = X.shape[0]`` for each size in ``read`` (the sizes as the contract shows them), and
    the name of the parameter each line reads."""
    lines, sources = [], []
    for dim, (param, axis) in info.dims.items():
        if dim.name in read:
            value = ast.Subscript(ast.Attribute(ast.Name(param, ast.Load()), "shape", ast.Load()),
                                  ast.Constant(axis), ast.Load())
            lines.append(ast.Assign([ast.Name(dim.name, ast.Store())], value, lineno=None))
            sources.append(param)
    return lines, sources


def _zero_size_checks(body, sized, function_name):
    """``if n == 0: raise ValueError(...)`` for each size the code divides by (``2.0 / n``):
    with 0 rows the primal's NumPy division gives nan, and Python's ``2.0 / 0`` would raise
    ZeroDivisionError from inside the gradient; the error says which size is 0 instead.

    ``sized``: size name → where it is read (``"X.shape[0]"``). A name the code binds to an
    expression of sizes (``_t0 = n - 1.0``, a common term) stands for that expression.

    Only a size the gradient divides by on every path is checked: outside every ``where``, or on
    both sides of one (``np.where(c, a / (n - 3.0), b / (n - 3.0))``), or guarded on each side of
    the same condition by two lines (``_t0 = np.where(c, 0.0, x / np.where(c, 1.0, n - 3.0))``,
    ``_t1 = np.where(c, x / np.where(c, n - 3.0, 1.0), 0.0)``: the pieces of one branch). One
    guarded on one side only (``untaken.guard``) is not: the primal does not divide by it where
    the other side is taken, and where its side is taken the gradient computes float64's
    ``x / 0.0`` as the primal's NumPy division does."""
    found, derived = {}, {}

    class Resolve(ast.NodeTransformer):
        def visit_Name(self, node):
            return copy.deepcopy(derived[node.id]) if node.id in derived else node

    bound, sides = {}, {}  # sides: denominator -> condition -> the sides that divide by it
    for stmt in body:
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv,
                                                                        ast.Mod))):
                continue
            denominator = Resolve().visit(copy.deepcopy(node.right))
            if of_sizes(denominator, sized):
                found.setdefault(ast.unparse(denominator), (denominator, size_names(denominator)))
            guarded = _guarded(denominator)
            if guarded is not None and of_sizes(guarded[1], sized):
                condition = guarded[0]  # a named one (`_t0 = total > 0.0`) as its value
                condition = ast.dump(bound.get(condition.id, condition) if isinstance(
                    condition, ast.Name) else condition)
                entry = sides.setdefault(ast.unparse(guarded[1]), (guarded[1], {}))
                entry[1].setdefault(condition, set()).add(guarded[2])
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], ast.Name):
            value = Resolve().visit(copy.deepcopy(stmt.value))
            if of_sizes(value, sized):
                derived[stmt.targets[0].id] = value
            bound[stmt.targets[0].id] = stmt.value
    for text, (denominator, conditions) in sides.items():  # both sides of one condition
        if any(len(taken) == 2 for taken in conditions.values()):  # divide: every path does
            found.setdefault(text, (denominator, size_names(denominator)))
    checks, covered = [], set()
    zeros = {text: zero_points(denominator) for text, (denominator, _) in found.items()}
    for text, (denominator, names) in sorted(found.items(), key=lambda item: (
            zeros[item[0]] is None, len(zeros[item[0]] or ()), len(item[0]), item[0])):
        if zeros[text] is not None:
            if zeros[text] <= covered:  # never 0 at a size this build is called with, or
                continue  # only where an earlier check raised
            covered |= zeros[text]
        where = ", ".join(f"{n} = {sized[n]}" for n in dict.fromkeys(names))
        what = f"{sized[names[0]]} is 0" if text == names[0] else f"{text} is 0 ({where})"
        message = (f"{function_name}: {what}, and the gradient divides by it (the primal's "
                   "NumPy value is nan or inf there)")
        checks.append(ast.If(ast.Compare(copy.deepcopy(denominator), [ast.Eq()],
                                         [ast.Constant(0)]),
                             [ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()),
                                                 [ast.Constant(message)], []), None)], []))
    return checks


def _guarded(node):
    """``(condition, denominator, taken)`` of a denominator of the sizes guarded on one side of a
    ``where`` (``untaken.guard``: ``np.where(c, n - 3.0, 1.0)``, taken where ``c`` holds; ``xp.where(c,
    1.0, xp.full((), n - 3.0, ...))`` where it does not), else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            node.func.attr == "where" and len(node.args) == 3 and not node.keywords):
        return None
    condition, left, right = node.args
    for taken, (value, other) in ((True, (left, right)), (False, (right, left))):
        if isinstance(other, ast.Constant) and other.value == 1.0:
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    value.func.attr == "full" and len(value.args) == 2:  # a 0-d array of it
                value = value.args[1]
            return condition, value, taken
    return None


def _clamped(size):
    """Whether a size has Python's clamping or rounding of a slice in it (``min``, ``ceiling``)."""
    import sympy
    return size.has(sympy.Min, sympy.Max, sympy.ceiling, sympy.floor, sympy.Mod)


def _size_text(size, labels):
    """The start of the message of a size expression that differs: ``X.shape[1] is 2, so a slice
    of it has size 0`` (one size with a slice's clamping), else ``y.shape[0] - 1 is 3``."""
    from .array_nodes import int_ast
    dims = [d for d in size.free_symbols if d in labels]
    value = ast.FormattedValue(int_ast(size), -1, None)
    if len(dims) == 1 and size.free_symbols == set(dims) and _clamped(size):
        return [ast.Constant(f"{labels[dims[0]]} is "), ast.FormattedValue(int_ast(dims[0]), -1, None),
                ast.Constant(", so a slice has size "), value]
    return [ast.Constant(f"{size.xreplace(labels)} is "), value]


def _message(parts):
    """The message of a check from f-string parts: an f-string when every value in it is a name
    or a size read (``f'grad_f: y.shape[0] is {y.shape[0]}; ...'``: ``linewrap`` cuts its text
    between replacement fields), else ``'a' + str(x) + 'b'`` (a line it can break at ``+``)."""
    merged = []
    for part in parts:
        if isinstance(part, ast.Constant) and merged and isinstance(merged[-1], ast.Constant):
            merged[-1] = ast.Constant(merged[-1].value + part.value)
        elif not isinstance(part, ast.Constant) or part.value:
            merged.append(part)
    if all(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load))
           for part in merged if isinstance(part, ast.FormattedValue)
           for n in ast.walk(part.value)):
        return ast.JoinedStr(merged)
    merged = [ast.Call(ast.Name("str", ast.Load()), [p.value], [])
              if isinstance(p, ast.FormattedValue) else p for p in merged]
    node = merged[0]
    for part in merged[1:]:
        node = ast.BinOp(node, ast.Add(), part)
    return node


def _size_checks(size_checks, labels, function_name):
    """One ``if`` per size the build takes to be another, raising ``ValueError`` with the argument
    whose size differs and both sizes (``grad_f: y.shape[0] is 4; it must be w.shape[0] = 3``).
    Separate tests: cheaper per call than one comparison of two tuples (no tuple is built), and
    each names only its own size."""
    from .array_nodes import int_ast
    raises = []
    for actual, dim, text in size_checks:
        parts = [ast.Constant(f"{function_name}: ")] + text
        if dim.is_Integer:
            parts.append(ast.Constant(f"; it must be {dim}"))
        else:
            dims = [d for d in dim.free_symbols if d in labels]
            if len(dims) == 1 and _clamped(dim) and dim.free_symbols == set(dims):
                parts += [ast.Constant("; it must be "), ast.FormattedValue(
                    int_ast(dim), -1, None), ast.Constant(f", as a slice of {labels[dims[0]]}")]
            else:
                parts += [ast.Constant(f"; it must be {dim.xreplace(labels)} = "),
                          ast.FormattedValue(int_ast(dim), -1, None)]
        raises.append(ast.If(ast.Compare(copy.deepcopy(actual), [ast.NotEq()], [int_ast(dim)]), [
            ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [_message(parts)], []),
                      None)], []))
    return raises


def _unknown_size_check(sizes, sources, function_name):
    """``if isinstance(n, float) or ...: raise ValueError(...)``: a Dask array whose chunk sizes
    are unknown (after a boolean mask) has ``nan`` in its shape, and ``1.0 / n`` would make every
    number of the gradient nan. Sizes are ints for every other array; the test is one isinstance
    per size read."""
    if not sizes:
        return []
    tests = [ast.Call(ast.Name("isinstance", ast.Load()), [ast.Name(size, ast.Load()),
                                                           ast.Name("float", ast.Load())], [])
             for size in sizes]
    names = list(dict.fromkeys(sources))
    how = f"{names[0]}.compute_chunk_sizes()" if len(names) == 1 else ".compute_chunk_sizes() on each"
    message = f"{function_name}: the sizes of {', '.join(names)} are unknown (nan): call {how} first"
    test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests)
    return [ast.If(test, [ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()),
                                             [ast.Constant(message)], []), None)], [])]


def in_place(program, body, prelude, results, stops, invented, values=(), lazy=False,
             elides=True):
    """``body`` (ending with its ``return``) rewritten by ``array_buffers.reuse_buffers`` (with
    its rule for lazy code when ``lazy``).

    ``results``: the names returned; ``stops``: names of stopped values (never inlined, so their
    comment stays); ``invented``: names ``emit`` made up (common terms, index adjoint buffers);
    ``values``: the results that are the primal's value (``value_and_grad``): worked in place in
    the printed order only, never regrouped as a derivative line may be (``a + (b + c)`` is
    another float than ``a + b + c``).
    Inlinable: those, the adjoints, and the names the frontend gave to anonymous array nodes
    (``product = X @ w``); never a parameter, a primal variable or a result. ``elides``: as
    ``array_buffers.reuse_buffers`` (False for PyTorch).
    """
    info = program.arrays
    shapes = {s.name: info.shapes.resolve(shape) for s, shape in info.shapes.table.items()}
    adjoints = set(getattr(program, "adjoint_names", ()))
    variables = getattr(program, "variables", {}) or {}
    # a variable's value is its symbol, or a number when the body bound it to one (a loop
    # index, `total = 0.0` before a loop): only a symbol names an assignment
    primal = set(variables) | {s.name for s in variables.values()
                               if s is not None and s.is_Symbol}
    anonymous = {a.target.name for a in program.bindings if getattr(a.expr, "rule", None)
                 is not None and a.target.name not in primal}
    keep = set(results) | set(stops) | set(program.param_names)
    return reuse_buffers(body, prelude, shapes, [d.name for d in info.dims], info.constants,
                         inlinable=(invented | adjoints | anonymous) - keep,
                         derivative=adjoints | (set(results) - set(values)), results=results,
                         lazy=lazy, elides=elides)


def distinct_results(body, arrays, copied=None):
    """``body`` with each array result returned as an object of its own: where the code makes a
    result another one's name (``df_dy = df_dx``, equal gradients) or returns one name twice, the
    later one is returned as ``.copy()``. A caller updating one gradient in place (``g *= 0.5``,
    an optimiser's buffer) must not change another.

    ``arrays``: the names of the results that are arrays (a float result needs no copy);
    ``copied``: ``ast`` -> the ``ast`` of its copy in the backend (``x.clone()`` for PyTorch,
    whose tensors have no ``.copy``); None: ``x.copy()``.
    """
    alias = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], ast.Name):
            value = stmt.value
            alias[stmt.targets[0].id] = value.id if isinstance(value, ast.Name) else None
    def root(name):
        seen = set()
        while alias.get(name) is not None and name not in seen:
            seen.add(name)
            name = alias[name]
        return name
    returned = body[-1]
    if not isinstance(returned, ast.Return):
        return body
    roots = set()
    def distinct(node):
        if isinstance(node, ast.Tuple):
            return ast.Tuple([distinct(e) for e in node.elts], ast.Load())
        if not isinstance(node, ast.Name) or node.id not in arrays:
            return node
        origin = root(node.id)
        if origin in roots:
            if copied is not None:
                return copied(ast.Name(node.id, ast.Load()))
            return ast.Call(ast.Attribute(ast.Name(node.id, ast.Load()), "copy", ast.Load()),
                            [], [])
        roots.add(origin)
        return node
    return body[:-1] + [ast.Return(distinct(returned.value))]

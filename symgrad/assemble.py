"""One derivative built from a ``Program``: the pipeline after reading (differentiate, emit,
compile), for scalar code (``build_derivative``) and for one specialisation of array code
(``build_arrays``), and the ``wrt`` names it is built for (``normalize_wrt``).

Importing this module does not import SymPy: the pipeline is imported inside the functions that
use it (``api`` imports this module at ``import symgrad``).
"""
import contextlib

from .cache import compile_gradient
from .errors import OptionError, OutputShapeError
from .function import ArrayGradientFunction, GradientFunction


def array_gradient(f, kind, arguments):
    """The ``ArrayGradientFunction`` of array code ``f``: each pattern is read with the shapes of
    its arguments and built by ``build_derivative`` for each library kind called.

    Args:
        f: the user's function.
        kind: "grad", "value_and_grad" or "vjp".
        arguments: ``(kind, f, wrt, stop_gradients, unconnected, backend, strategy)``, as
            ``build_derivative`` takes them.
    """
    def read(shapes):
        from .array_frontend import to_program
        with sympy_settings():
            return to_program(f, arguments[3], nodes=wrt_variables(arguments[2]), shapes=shapes)

    def build(program, library):
        with sympy_settings():
            return build_derivative(*arguments, program=program, library=library)
    return ArrayGradientFunction(f, kind, read, build, arguments[5] or "numpy")


@contextlib.contextmanager
def sympy_settings():
    """SymPy's default evaluation settings for every build, whatever the caller's (``check_grad``
    works under ``distribute(False)``): the generated code depends on them, the cache key does not."""
    from sympy.core.parameters import distribute, evaluate
    with evaluate(True), distribute(True):
        yield


def _vjp_of_one_number(program):
    """The refusal of ``vjp`` for scalar code returning one number: what was read (no array
    construct, no shapes=) and both ways on (``grad`` for numbers, ``shapes=`` for arrays)."""
    first = program.param_names[0] if program.param_names else "x"
    return (f"vjp is for functions returning a tuple or an array; `{program.name}` has no array "
            "construct and no shapes= was given, so it is read as scalar code returning one "
            f"number: for a function of numbers use symgrad.grad; if `{first}` is an array, pass "
            f"shapes= (shapes={{{first!r}: ('n',)}}) and vjp gives the derivative of the array "
            "result")


def build_derivative(kind, f, wrt, stop_gradients, unconnected, backend, strategy, program=None,
                     library="numpy"):
    """The ``GradientFunction`` of ``kind`` for ``f`` (read now unless ``program`` is given);
    array code is printed for ``library`` ("numpy", or "lazy": ``build_arrays``).

    Raises:
        OutputShapeError: the output does not suit ``kind`` (see ``api.grad``).
        OptionError: an option that does not apply (see ``api.grad``, ``normalize_wrt``).
        UnsupportedSyntaxError, SourceUnavailableError: reading ``f``.
    """
    from .differentiate import differentiate
    from .emit import emit
    from .realpower import real_results
    program = program or primal_program(f, stop_gradients, wrt)
    if program.arrays is not None:
        return build_arrays(kind, f, program, wrt, unconnected, backend, library)
    backend = backend or "math"
    names, single = normalize_wrt(program, wrt)
    outputs = len(program.outputs)
    if kind in ("grad", "value_and_grad", "hessian") and outputs != 1:
        raise OutputShapeError(
            f"{kind} needs a function returning one number; `{program.name}` returns {outputs}: "
            "use symgrad.jacobian, or symgrad.vjp with cotangents")
    if kind == "vjp":
        if outputs == 1:
            raise OutputShapeError(_vjp_of_one_number(program))
        program = seeded(program)
    k = len(names)
    grad_layout = 0 if single else tuple(range(k))
    if kind == "hessian":
        first = differentiate(program, names, strategy=strategy, unconnected="zero",
                              keep_perturbations=True)
        derivative = differentiate(first, names, strategy=strategy, unconnected=unconnected)
        derivative.output_names = tuple(
            f"d2{program.name}_d{a}_d{b}" for a in names for b in names)
        # the upper triangle is computed once and mirrored, so the result is exactly symmetric
        layout = 0 if single else tuple(
            tuple(min(i, j) * k + max(i, j) for j in range(k)) for i in range(k))
    else:
        derivative = differentiate(program, names, strategy=strategy, unconnected=unconnected)
        layout = grad_layout
        if kind == "jacobian" and outputs > 1:
            layout = tuple(shift(grad_layout, i * k) for i in range(outputs))
        if kind == "value_and_grad":
            derivative.outputs = (program.written_outputs or program.outputs) + derivative.outputs
            derivative.output_names = ("value",) + derivative.output_names
            layout = (0, shift(grad_layout, 1))
    real_results(derivative, len(program.assignments))  # no complex number reaches a result
    name, source = emit(derivative, kind=kind, backend=backend, wrt=names, layout=layout)
    derivative.name = name
    function = compile_gradient(source, name, backend)
    return GradientFunction(function, primal=f, source=source, wrt=names, program=derivative,
                            kind=kind, backend=backend)


def build_arrays(kind, f, program, wrt, unconnected, backend, library="numpy"):
    """A specialisation of array code: reverse accumulation, printed for NumPy (or ``backend``).

    ``library`` (numpy backend only): "numpy" prints the plain NumPy code (arguments made float64
    NumPy arrays, worked in place, a scalar result a ``float``); "lazy" code that keeps arrays of
    another library NumPy dispatches to (a Dask array) as they are and computes nothing
    (``array_emit`` says what differs)."""
    from .adjoint import differentiate_arrays
    from .array_ops import as_result
    from .emit import emit
    from .program import Program, fresh_name, real_symbol
    from .shapes import show

    if backend == "math":
        raise OptionError("array code cannot be printed for backend 'math' (floats): use "
                          "'numpy', 'jax', 'torch' or 'array_api'")
    backend = backend or "numpy"
    if kind in ("jacobian", "hessian"):
        raise OptionError(f"{kind} of array code is not supported yet: use symgrad.grad, or "
                          "symgrad.vjp with a cotangent per output")
    names, single = normalize_wrt(program, wrt)
    info = program.arrays
    outputs = program.outputs
    shapes = [info.shapes.of(out) for out in outputs]
    if kind in ("grad", "value_and_grad") and (len(outputs) != 1 or shapes[0]):
        what = f"an array of shape {show(shapes[0])}" if len(outputs) == 1 else \
            f"{len(outputs)} values"
        raise OutputShapeError(f"{kind} needs a function returning one number (a 0-d value); "
                               f"`{program.name}` returns {what}: use symgrad.vjp with a "
                               "cotangent (symgrad.jacobian of array code is not supported yet)")
    cotangents = None
    if kind == "vjp":
        used = set(program.names)
        cotangents = tuple(real_symbol(fresh_name(f"d{n}", used)) for n in program.output_names)
        program = Program(name=program.name, params=program.params + cotangents, defaults=(),
                          assignments=program.assignments, outputs=outputs,
                          output_names=program.output_names, origin=program.origin,
                          static=dict(program.static), names=used, posonly=program.posonly)
        table = info.shapes.copy()
        table.table.update(zip(cotangents, shapes))
        program.arrays = info.with_shapes(table)
    derivative = differentiate_arrays(program, names, unconnected, cotangents)
    if cotangents is not None:  # each checked against its output's shape (array_emit.size_lines)
        derivative.cotangent_outputs = {c.name: o for c, o in zip(cotangents, program.output_names)}
    layout = 0 if single else tuple(range(len(names)))
    if kind == "value_and_grad":
        value = (program.written_outputs or outputs)[0]  # the primal's float, as written
        derivative.outputs = (as_result(value, ()),) + derivative.outputs
        derivative.output_names = ("value",) + derivative.output_names
        derivative.primal_outputs = 1  # the value: worked in place in its own order (emit)
        layout = (0, shift(layout, 1))
    name, source = emit(derivative, kind=kind, backend=backend, wrt=names, layout=layout,
                        lazy=library == "lazy")
    derivative.name = name
    function = compile_gradient(source, name, backend, info.constants)
    return GradientFunction(function, primal=f, source=source, wrt=names, program=derivative,
                            kind=kind, backend=backend)


def primal_program(f, stop_gradients, wrt):
    """The ``Program`` to differentiate: ``f`` read, or the program of a ``GradientFunction``.

    Raises:
        OptionError: ``f`` is an array gradient, or a ``GradientFunction`` with stop_gradients,
            with ``unconnected='none'``, or with ``wrt`` naming other than its parameters.
    """
    if isinstance(f, GradientFunction):
        if isinstance(f, ArrayGradientFunction):
            raise OptionError("derivatives of array gradients are not supported yet")
        if stop_gradients:
            raise OptionError("stop_gradients cannot be applied to a GradientFunction: pass them "
                              "when building the first derivative")
        if None in f.program.outputs:
            raise OptionError("cannot differentiate a gradient built with unconnected='none'")
        others = [n for n in wrt_variables(wrt) if n not in f.program.param_names]
        if others:
            raise OptionError(f"wrt names {others[0]!r}, which is not a parameter of "
                              f"`{f.func.__name__}` {f.program.param_names}: a gradient is "
                              "differentiated with respect to its parameters only; for second "
                              "derivatives with respect to an intermediate use "
                              "symgrad.hessian(f, wrt=...)")
        return f.program
    from .array_frontend import to_program
    return to_program(f, stop_gradients, nodes=wrt_variables(wrt))


def seeded(program):
    """The program of ``sum_i d<out_i> * out_i``: one cotangent parameter per output (``grad_ys``).

    Parameter defaults are dropped: the cotangents follow the primal's parameters.
    """
    import sympy

    from .program import Program, fresh_name, real_symbol
    names = set(program.names)
    cotangents = tuple(real_symbol(fresh_name(f"d{n}", names)) for n in program.output_names)
    seeded = sympy.Add(*[c * out for c, out in zip(cotangents, program.outputs)])
    return Program(name=program.name, params=program.positional + cotangents + program.params[
        len(program.positional):], defaults=(), assignments=program.assignments, outputs=(seeded,),
                   output_names=(program.name,), origin=program.origin,
                   static=dict(program.static), names=names, kwonly=dict(program.kwonly),
                   variables=dict(program.variables), posonly=program.posonly)


def shift(layout, offset):
    if isinstance(layout, tuple):
        return tuple(shift(item, offset) for item in layout)
    return layout + offset


def normalize_wrt(program, wrt):
    """``wrt`` as a tuple of names, and whether one value (not a tuple) is returned.

    ``None`` is every positional parameter without a default (a parameter with a default is a
    hyperparameter, held constant unless named) and not fixed at build time; a name is a parameter
    (always, even if the body reassigns it) or else an intermediate variable of ``program.variables``
    (its last top-level binding); an index is a parameter's position.

    Raises:
        OptionError: an unknown name (the message lists the parameters and the intermediates), a
            variable with no single number value, an index out of range, a parameter fixed at build
            time, a repeated name, a type other than str, int or a tuple of them, or ``None`` when
            no parameter lacks a default.
    """
    params = program.param_names
    if wrt is None:
        positional = tuple(p.name for p in program.positional)
        free = positional[:len(positional) - len(program.defaults)] + tuple(
            name for name, default in program.kwonly.items() if default is None)
        names = tuple(p for p in free if p not in program.static)
        if not names:
            if not params:
                raise OptionError(f"`{program.name}` has no parameter to differentiate with "
                                  "respect to")
            raise OptionError(
                f"every parameter of `{program.name}` {params} has a default, and wrt=None "
                "differentiates only those without one (a parameter with a default is a "
                f"hyperparameter): name them, e.g. wrt={params[0]!r} or wrt={params!r}")
        return names, len(names) == 1
    if isinstance(wrt, (tuple, list)) and not wrt:
        raise OptionError("wrt is empty: name at least one parameter")
    single = not isinstance(wrt, (tuple, list))
    items = (wrt,) if single else tuple(wrt)
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise OptionError(f"wrt items must be parameter or intermediate names, or parameter "
                              f"indices, not {item!r}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise OptionError(f"wrt index {item} is out of range for {len(params)} parameters "
                                  f"{params}")
            item = params[item]
        if item not in params:
            _check_intermediate(program, item)
        if item in program.static:
            raise OptionError(f"`{item}` sets a range() bound or an index, so it is fixed at "
                              "build time and cannot be differentiated")
        if item in names:
            raise OptionError(f"wrt names {item!r} twice")
        names.append(item)
    return tuple(names), single


def _check_intermediate(program, name):
    """Raise the ``OptionError`` of ``normalize_wrt`` unless ``name`` is a usable intermediate."""
    if name in program.variables and program.variables[name] is None:
        raise OptionError(
            f"wrt names {name!r}, which has no single number value at the end of "
            f"`{program.name}`: it is bound only inside a branch of an `if` (or after an `if` that "
            "returns), or to a tuple; assign it at the top level of the function")
    if name not in program.variables:
        intermediates = tuple(n for n, s in program.variables.items() if s is not None)
        raise OptionError(f"wrt names {name!r}, which is neither a parameter of `{program.name}` "
                          f"{program.param_names} nor one of its intermediates {intermediates}")


def wrt_variables(wrt):
    """The names in ``wrt`` (its str items): what ``to_program(nodes=...)`` must make nodes of."""
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    return tuple(item for item in items if isinstance(item, str))

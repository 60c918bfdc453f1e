"""The public entry points: ``grad`` and the family, all built by ``build``.

Importing this module does not import SymPy: ``build`` looks in the memory cache, then in the disk
cache (``diskcache``), whose gradients are compiled from their stored source; only a build imports
the pipeline (frontend, differentiate, emit), inside the functions that use it.
"""
import contextlib

from . import dependencies, diskcache
from .cache import BuildCache, compile_gradient
from .errors import OptionError, OutputShapeError, public_entry
import functools

from .function import GradientFunction

_CACHE = BuildCache()


def grad(f=None, *, wrt=None, stop_gradients=(), unconnected="zero", backend=None,
         strategy="auto", shapes=None, cache=True):
    """Differentiate a Python function symbolically; return its compiled gradient.

    Usable as ``@grad``, ``@grad(wrt="x")`` and ``grad(f, wrt=("x", 1))``.

    Args:
        f: a plain Python function of float parameters returning one float, or a
            ``GradientFunction`` with one result (for second and higher derivatives).
        wrt: a parameter name or index, an intermediate variable's name, or a tuple of them.
            None: every positional parameter without a default (a parameter with a default, such
            as ``delta=1.0``, is a hyperparameter: held constant unless named; a ``range`` bound
            is fixed at build time). An intermediate (a name the body assigns) gives
            TensorFlow's ``tf.gradients`` answer for a graph tensor: the derivative of the output
            with respect to that value, holding what it was computed from fixed; a name assigned
            more than once means its last top-level value (after an ``if``, the merged value;
            after a loop, the last iteration's); a parameter's name always means the parameter.
            The generated function takes ``f``'s parameters either way.
        stop_gradients: names of parameters or intermediate variables of ``f`` to treat as
            constants (TF's ``tf.gradients(stop_gradients=...)``, PyTensor's ``consider_constant``).
        unconnected: "zero" returns 0.0 for a ``wrt`` the output does not depend on (through
            unstopped paths); "none" returns None there (TF's ``UnconnectedGradients.NONE``).
        backend: "math" (floats), "numpy" (elementwise on arrays), "jax" (``jax.numpy``,
            traceable by ``jax.jit``), "torch" (tensors of any device and dtype, no autograd
            tape) or "array_api" (any Array API library, through ``array_api_compat``); None:
            "math" for scalar code, "numpy" for array code (docs/backends.md).
        strategy: "auto", "symbolic" or "reverse" (see ``symgrad.differentiate``); array code is
            always differentiated by reverse accumulation.
        shapes: for array code, parameter name → tuple of dimension names or ints
            (``{"X": ("n", "d"), "w": ("d",)}``; scalars left out): the gradient is built at once.
            None: built at the first call, and again for each new pattern of argument ranks
            (and size-1 axes), never per size.
        cache: keep the built gradient in the disk cache and look for it there (docs/cache.md);
            False builds it in this process only (so does ``SYMGRAD_CACHE_DIR=""``).
            Array gradients are kept in memory only.

    Returns:
        A ``GradientFunction``: called with ``f``'s arguments it returns a float when ``wrt`` is one
        name or index (or None with one parameter without a default), else a tuple of floats in
        ``wrt`` order.

    Raises:
        UnsupportedSyntaxError: ``f`` uses a construct not in docs/language.md (file, line, column).
        SourceUnavailableError: the source of ``f`` or of a helper it calls cannot be read.
        OptionError: an unknown ``wrt`` name (the message lists the parameters and the
            intermediates), a variable bound only inside a branch or to a tuple, an index out of
            range, ``wrt=None`` when every parameter has a default, an intermediate of a
            ``GradientFunction`` (use ``hessian``), a bad option value, a backend whose library
            is not installed (naming the extra) or that cannot print a construct (naming it).
        OutputShapeError: ``f`` returns a tuple (use ``jacobian``), or an array (use ``vjp``).

    >>> import symgrad
    >>> from symgrad import stop_gradient
    >>> def energy(x, y):
    ...     r = (x * x + y * y) ** 0.5
    ...     return r ** 2 + stop_gradient(r)
    >>> symgrad.grad(energy)(3.0, 4.0)
    (6.0, 8.0)
    >>> def huber(r, delta=1.0):
    ...     a = abs(r)
    ...     return 0.5 * r * r if a <= delta else delta * (a - 0.5 * delta)
    >>> symgrad.grad(huber)(-3.0)            # delta has a default: held constant
    -1.0
    >>> def sum_of_paths(a):
    ...     b = 2 * a
    ...     return a + b
    >>> symgrad.grad(sum_of_paths, wrt=("a", "b"))(1.0)   # b is an intermediate
    (3.0, 1.0)
    """
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy, shapes=shapes,
                   cache=cache)
    return _entry("grad", f, options)


def value_and_grad(f=None, *, wrt=None, stop_gradients=(), unconnected="zero", backend=None,
                   strategy="auto", shapes=None, cache=True):
    """The value of ``f`` and its gradient, from one generated function that shares their work.

    Same arguments, options and errors as ``grad``.

    Returns:
        A ``GradientFunction`` returning ``(value, gradient)``: ``value`` a float, ``gradient``
        shaped as ``grad`` would return it (a float, or a tuple in ``wrt`` order).

    >>> import symgrad
    >>> def f(x, y):
    ...     return x * x * y
    >>> symgrad.value_and_grad(f)(3.0, 2.0)
    (18.0, (12.0, 9.0))
    """
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy, shapes=shapes,
                   cache=cache)
    return _entry("value_and_grad", f, options)


def jacobian(f=None, *, wrt=None, stop_gradients=(), unconnected="zero", backend=None,
             strategy="auto", shapes=None, cache=True):
    """The Jacobian of a function returning a tuple of numbers.

    Same arguments, options and errors as ``grad`` (``OutputShapeError`` is not raised).

    Returns:
        A ``GradientFunction`` returning a tuple of rows, one per output of ``f``, each row shaped
        as ``grad`` returns (a float for one ``wrt`` name, else a tuple in ``wrt`` order). For a
        function returning one number it returns that one row (the gradient), as JAX's jacfwd.

    >>> import math, symgrad
    >>> def polar(r, theta):
    ...     return r * math.cos(theta), r * math.sin(theta)
    >>> symgrad.jacobian(polar)(2.0, 0.0)
    ((1.0, -0.0), (0.0, 2.0))
    """
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy, shapes=shapes,
                   cache=cache)
    return _entry("jacobian", f, options)


def hessian(f=None, *, wrt=None, stop_gradients=(), unconnected="zero", backend=None,
            strategy="auto", shapes=None, cache=True):
    """The Hessian of a function returning one number, from one generated function.

    Same arguments, options and errors as ``grad``. The upper triangle is computed once and
    mirrored, so the result is exactly symmetric. With an intermediate ``u`` in ``wrt``, its row
    and column are second derivatives with respect to a perturbation added to ``u``'s value
    (what ``u`` is computed from held fixed), so mixed entries commute as for parameters.

    Returns:
        A ``GradientFunction`` returning a tuple of tuples (row i, column j = ∂²f/∂wrt_i∂wrt_j), or
        one float when ``wrt`` is one name or index.

    >>> import symgrad
    >>> def bilinear(x, y):
    ...     return x * y + x ** 2
    >>> symgrad.hessian(bilinear)(1.5, -2.0)
    ((2.0, 1.0), (1.0, 0.0))
    """
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy, shapes=shapes,
                   cache=cache)
    return _entry("hessian", f, options)


def vjp(f=None, *, wrt=None, stop_gradients=(), unconnected="zero", backend=None,
        strategy="auto", shapes=None, cache=True):
    """The vector-Jacobian product of a function returning a tuple: reverse mode with a seed.

    Same options as ``grad``; ``wrt`` names parameters or intermediates of ``f`` (never the
    cotangents).

    Returns:
        A ``GradientFunction`` taking ``f``'s arguments followed by one cotangent per output
        (parameters named ``d<out>``, TF's ``grad_ys``) and returning the gradient of
        ``sum_i d<out_i> * out_i``, shaped as ``grad`` returns it.

    Raises:
        OutputShapeError: ``f`` returns one number (use ``grad``).
        The other errors of ``grad``.

    >>> import math, symgrad
    >>> def polar(r, theta):
    ...     return r * math.cos(theta), r * math.sin(theta)
    >>> symgrad.vjp(polar)(2.0, 0.0, 1.0, 0.0)
    (1.0, 0.0)
    """
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy, shapes=shapes,
                   cache=cache)
    return _entry("vjp", f, options)


def _entry(kind, f, options):
    """``build`` now, or a decorator that will, when used as ``@grad(wrt=...)``.

    A ``SymgradError`` leaves with a traceback trimmed to the caller's frame (``grad`` ...), see
    ``errors.public_entry``.
    """
    if f is None:
        return lambda function: _entry(kind, function, options)
    with public_entry(own_frame=False):
        return build(kind, f, **options)


def build(kind, f, *, wrt, stop_gradients, unconnected, backend, strategy, shapes=None,
          cache=True):
    """Build (or fetch from the memory or disk cache) the ``GradientFunction`` of ``kind`` for ``f``."""
    stop_gradients = (stop_gradients,) if isinstance(stop_gradients, str) else tuple(
        stop_gradients or ())
    key = (kind, _freeze(wrt), stop_gradients, unconnected, backend, strategy,
           _freeze_shapes(shapes))
    cached = _CACHE.get(f, key)
    if cached is not None:
        return cached
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy)
    if backend is not None:  # before the disk cache, whose entry would not compile
        from .backends import backend as backend_named
        backend_named(backend).require()  # OptionError naming the extra to install
    entry = diskcache.entry_for(kind, f, {**options, "shapes": _freeze_shapes(shapes)}) \
        if cache else None
    stored = None if entry is None else entry.load(lambda: _rebuild(kind, f, options))
    if stored is not None:
        return _CACHE.put(f, key, stored)
    from .differentiate import STRATEGIES
    if strategy not in STRATEGIES:
        raise OptionError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")
    if shapes is not None and not isinstance(shapes, dict):
        raise OptionError(f"shapes must be a dict of parameter name → tuple, not {shapes!r}")
    arguments = (kind, f, wrt, stop_gradients, unconnected, backend, strategy)
    from .array_frontend import NeedsShapes, to_program
    from .specialise import shapes_pattern
    with dependencies.recording() as read, _sympy_settings():
        if isinstance(f, GradientFunction):
            built = _build(*arguments)
        else:
            try:
                program = to_program(f, stop_gradients, nodes=wrt_variables(wrt), shapes=shapes)
            except NeedsShapes:  # array code without shapes: built per pattern, at each call
                built = ArrayGradientFunction(f, kind, arguments)
            else:
                if program.arrays is None:
                    built = _build(*arguments, program=program)
                else:
                    built = ArrayGradientFunction(f, kind, arguments)
                    built.specialisations.add(shapes_pattern(shapes, built.specialisations.params),
                                              None, program)
    if entry is not None and not isinstance(built, ArrayGradientFunction):
        entry.store(built, read)
    return _CACHE.put(f, key, built)


class ArrayGradientFunction(GradientFunction):
    """The derivative of array code: one build per pattern of argument ranks and size-1 axes.

    Called, it finds (or builds, once) the specialisation for its arguments' pattern and calls it;
    sizes never matter, so one build serves every size. ``source``, ``program`` and ``wrt`` are
    those of the latest specialisation built (``source`` is None before the first; the others
    raise ``OptionError`` then); ``specialisations.by_pattern`` maps each pattern (per parameter,
    a size-1 flag per axis) to its ``GradientFunction``.
    """

    def __new__(cls, primal, kind, options):
        from .array_frontend import to_program
        from .specialise import Specialisations

        def build_one(shapes, program=None):
            with _sympy_settings():
                if program is None:
                    program = to_program(primal, options[3], nodes=wrt_variables(options[2]),
                                         shapes=shapes)
                return _build(*options, program=program)
        state = Specialisations(primal, build_one)
        self = functools.partial.__new__(cls, state)
        self.primal, self.kind, self._derivatives = primal, kind, None
        self.backend = options[5] or "numpy"
        self.specialisations = state
        return self

    def _latest(self, attribute):
        latest = self.specialisations.latest
        if latest is None:
            raise OptionError(f"the gradient of `{self.primal.__name__}` is built at its first "
                              "call (array code without shapes=): call it once, or pass shapes=")
        return getattr(latest, attribute)

    source = property(lambda self: self._latest("source") if self.specialisations.latest
                      else None)
    program = property(lambda self: self._latest("program"))
    wrt = property(lambda self: self._latest("wrt"))
    function = property(lambda self: self._latest("function"))

    def __repr__(self):
        return f"<ArrayGradientFunction {self.kind} of {self.primal.__name__}, " \
               f"{len(self.specialisations.by_pattern)} specialisation(s)>"


def _rebuild(kind, f, options):
    """The gradient of a disk cache entry built again (for its ``program``), recording nothing."""
    with dependencies.recording(), _sympy_settings():
        return _build(kind, f, **options)


@contextlib.contextmanager
def _sympy_settings():
    """SymPy's default evaluation settings for every build, whatever the caller's (``check_grad``
    works under ``distribute(False)``): the generated code depends on them, the cache key does not."""
    from sympy.core.parameters import distribute, evaluate
    with evaluate(True), distribute(True):
        yield


def _build(kind, f, wrt, stop_gradients, unconnected, backend, strategy, program=None):
    from .differentiate import differentiate
    from .emit import emit
    program = program or _primal_program(f, stop_gradients, wrt)
    if program.arrays is not None:
        return _build_arrays(kind, f, program, wrt, unconnected, backend)
    backend = backend or "math"
    names, single = normalize_wrt(program, wrt)
    outputs = len(program.outputs)
    if kind in ("grad", "value_and_grad", "hessian") and outputs != 1:
        raise OutputShapeError(
            f"{kind} needs a function returning one number; `{program.name}` returns {outputs}: "
            "use symgrad.jacobian, or symgrad.vjp with cotangents")
    if kind == "vjp":
        if outputs == 1:
            raise OutputShapeError(f"vjp is for functions returning a tuple; `{program.name}` "
                                   "returns one number: use symgrad.grad")
        program = _seeded(program)
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
            layout = tuple(_shift(grad_layout, i * k) for i in range(outputs))
        if kind == "value_and_grad":
            derivative.outputs = (program.written_outputs or program.outputs) + derivative.outputs
            derivative.output_names = ("value",) + derivative.output_names
            layout = (0, _shift(grad_layout, 1))
    name, source = emit(derivative, kind=kind, backend=backend, wrt=names, layout=layout)
    derivative.name = name
    function = compile_gradient(source, name, backend)
    return GradientFunction(function, primal=f, source=source, wrt=names, program=derivative,
                            kind=kind, backend=backend)


def _build_arrays(kind, f, program, wrt, unconnected, backend):
    """A specialisation of array code: reverse accumulation, printed for NumPy (or ``backend``)."""
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
                          static=dict(program.static), names=used)
        table = info.shapes.copy()
        table.table.update(zip(cotangents, shapes))
        program.arrays = info.with_shapes(table)
    derivative = differentiate_arrays(program, names, unconnected, cotangents)
    layout = 0 if single else tuple(range(len(names)))
    if kind == "value_and_grad":
        derivative.outputs = (as_result(outputs[0], ()),) + derivative.outputs
        derivative.output_names = ("value",) + derivative.output_names
        layout = (0, _shift(layout, 1))
    name, source = emit(derivative, kind=kind, backend=backend, wrt=names, layout=layout)
    derivative.name = name
    function = compile_gradient(source, name, backend, info.constants)
    return GradientFunction(function, primal=f, source=source, wrt=names, program=derivative,
                            kind=kind, backend=backend)


def _freeze_shapes(shapes):
    if not isinstance(shapes, dict):
        return shapes
    return tuple(sorted((k, tuple(v) if isinstance(v, (tuple, list)) else v)
                        for k, v in shapes.items()))


def _primal_program(f, stop_gradients, wrt):
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


def _seeded(program):
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
                   variables=dict(program.variables))


def _shift(layout, offset):
    if isinstance(layout, tuple):
        return tuple(_shift(item, offset) for item in layout)
    return layout + offset


def clear_cache():
    """Forget every built gradient, in memory and on disk (the entries of the disk cache folder).

    Module and closure constants are read when a gradient is built (as JAX traces once per
    shape), and a gradient built in this process is kept in memory as long as its function lives;
    after changing a constant, call this, or build with other options. (The disk cache checks the
    constants it recorded, so a later process never gets a gradient of other values.)
    """
    _CACHE.clear()
    diskcache.clear()


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
            raise OptionError(f"`{item}` sets a range() bound, so it is fixed at build time and "
                              "cannot be differentiated")
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


def _freeze(value):
    """A cache key for ``wrt`` that tells 1, 1.0 and True apart (they are equal in Python)."""
    if isinstance(value, (tuple, list)):
        return tuple(_freeze(v) for v in value)
    return (type(value).__name__, value)

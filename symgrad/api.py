"""The public entry points: ``grad`` and the family, all built by ``build``.

Importing this module does not import SymPy: ``build`` looks in the memory cache, then in the disk
cache (``diskcache``), whose gradients are compiled from their stored source; only a build imports
the pipeline (frontend, differentiate, emit), inside the functions that use it; the build itself is
``assemble``'s.
"""

from . import dependencies, diskcache
from .assemble import (array_gradient, build_derivative, normalize_wrt, sympy_settings,
                       wrt_variables)
from .cache import BuildCache
from .errors import OptionError, public_entry
from .function import ArrayGradientFunction, GradientFunction

__all__ = ["ArrayGradientFunction", "GradientFunction", "build", "clear_cache", "grad", "hessian",
           "jacobian", "normalize_wrt", "value_and_grad", "vjp"]

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
            differentiated by reverse accumulation ("auto" and "reverse"; "symbolic" is an
            ``OptionError`` there, docs/arrays.md).
        shapes: for array code, parameter name → tuple of dimension names or ints
            (``{"X": ("n", "d"), "w": ("d",)}``; scalars left out): the gradient is built at once.
            None: built at the first call, and again for each new pattern of argument ranks
            (and size-1 axes), never per size. With backend "numpy", arguments of a library
            NumPy dispatches to (Dask arrays) get a lazy specialisation of their own
            (``ArrayGradientFunction.specialisation``).
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
            is not installed (naming the extra) or that cannot print a construct (naming it),
            ``strategy="symbolic"`` for array code.
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
        OutputShapeError: ``f`` is scalar code (no array construct, no ``shapes``) returning
            one number (use ``grad``; for an array argument pass ``shapes``).
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
    stop_gradients = _names(stop_gradients)
    key = (kind, _freeze(wrt), stop_gradients, unconnected, backend, strategy,
           _freeze_shapes(shapes))
    cached = _CACHE.get(f, key)
    if cached is not None and cached._stale() is None:
        return cached  # else a name it read changed: build again (the new build replaces it)
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy)
    if backend is not None:  # before the disk cache, whose entry would not compile
        from .backends import backend as backend_named
        backend_named(backend).require()  # OptionError naming the extra to install
    entry = diskcache.entry_for(kind, f, {**options, "shapes": _freeze_shapes(shapes)}) \
        if cache else None
    stored = None if entry is None else entry.load(lambda: _rebuild(kind, f, options))
    if stored is not None:
        stored.options = options
        return _CACHE.put(f, key, stored._watching(
            dependencies.Watch.of_described(entry.described, f) | _watch_of(f)))
    from .differentiate import STRATEGIES
    if strategy not in STRATEGIES:
        raise OptionError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")
    if shapes is not None and not isinstance(shapes, dict):
        raise OptionError(f"shapes must be a dict of parameter name → tuple, not {shapes!r}")
    arguments = (kind, f, wrt, stop_gradients, unconnected, backend, strategy)
    from .array_frontend import NeedsShapes, to_program
    from .specialise import shapes_pattern
    with dependencies.recording() as read, sympy_settings():
        if isinstance(f, GradientFunction):
            built = build_derivative(*arguments)
        else:
            try:
                program = to_program(f, stop_gradients, nodes=wrt_variables(wrt), shapes=shapes)
            except NeedsShapes:  # array code without shapes: built per pattern, at each call
                _array_strategy(f, strategy)
                built = array_gradient(f, kind, arguments)
            else:
                if program.arrays is None:
                    built = build_derivative(*arguments, program=program)
                else:
                    _array_strategy(f, strategy)
                    built = array_gradient(f, kind, arguments)
                    built.specialisations.add(shapes_pattern(shapes, built.specialisations.params),
                                              program)
    if entry is not None and not isinstance(built, ArrayGradientFunction):
        entry.store(built, read)
    built.options = options
    return _CACHE.put(f, key, built._watching(dependencies.Watch.of_record(read) | _watch_of(f)))


def _watch_of(f):
    """What a derivative of ``f`` watches besides its own build's reads: ``f``'s watch when ``f``
    is a gradient (its program holds the values its build read)."""
    watch = f._watch if isinstance(f, GradientFunction) else None  # array ones too
    return watch or dependencies.Watch()


def _names(stop_gradients):
    """``stop_gradients`` as a tuple of names (one name, or an iterable of them).

    Raises:
        OptionError: it is neither a str nor an iterable of str.
    """
    if isinstance(stop_gradients, str):
        return (stop_gradients,)
    try:
        names = tuple(stop_gradients or ())
    except TypeError:
        names = None
    if names is None or not all(isinstance(name, str) for name in names):
        raise OptionError("stop_gradients must be a name or a tuple of names of parameters or "
                          f"intermediate variables, not {stop_gradients!r}")
    return names


def _array_strategy(f, strategy):
    """Array code is differentiated by reverse accumulation over its assignments (as
    ``jax.grad``): ``"auto"`` and ``"reverse"`` mean that; ``"symbolic"`` (one substituted
    expression per result) would unroll every array primitive, so it is refused.

    Raises:
        OptionError: ``strategy="symbolic"`` for array code.
    """
    if strategy == "symbolic":
        name = getattr(f, "__name__", "f")
        raise OptionError(f"strategy='symbolic' is for scalar code; `{name}` is array code, "
                          "differentiated by reverse accumulation over its assignments: pass "
                          "strategy='auto' or 'reverse'")


def _rebuild(kind, f, options):
    """The gradient of a disk cache entry built again (for its ``program``), recording nothing."""
    with dependencies.recording(), sympy_settings():
        return build_derivative(kind, f, **options)


def _freeze_shapes(shapes):
    if not isinstance(shapes, dict):
        return shapes
    return tuple(sorted((k, tuple(v) if isinstance(v, (tuple, list)) else v)
                        for k, v in shapes.items()))


def clear_cache():
    """Forget every built gradient, in memory and on disk (the entries of the disk cache folder).

    Module and closure constants are read when a gradient is built (as JAX traces once per
    shape), and a gradient built in this process is kept in memory as long as its function lives
    and every name it read gives the same value (a call after such a name changed raises
    ``StaleGradientError``; building again reads it anew). The disk cache checks the constants it
    recorded too, so a later process never gets a gradient of other values.
    """
    _CACHE.clear()
    diskcache.clear()


def _freeze(value):
    """A cache key for ``wrt`` that tells 1, 1.0 and True apart (they are equal in Python)."""
    if isinstance(value, (tuple, list)):
        return tuple(_freeze(v) for v in value)
    return (type(value).__name__, value)

"""The public entry points: ``grad`` and ``GradientFunction``; the family builds on ``build``."""
import functools

from sympy.core.parameters import distribute

from .cache import BuildCache, compile_gradient
from .differentiate import STRATEGIES, differentiate
from .emit import BACKENDS, emit
from .errors import OptionError, OutputShapeError
from .frontend import to_program
from .program import substituted_outputs

_CACHE = BuildCache()


class GradientFunction(functools.partial):
    """A compiled derivative of a Python function: call it like the primal.

    Calls go straight to the generated function (``functools.partial``'s C-level call, no Python
    wrapper in the hot path).

    Attributes:
        primal: the function differentiated (the user's function, or a ``GradientFunction``).
        source: the generated Python source (str), one ``def``.
        wrt: tuple of the parameter names differentiated with respect to, in result order.
        program: the derivative ``Program`` (what ``grad`` of this object differentiates again).
        function: the generated Python function itself.
        derivatives: tuple of SymPy expressions in the parameters, one per result (computed on
            first access; can be large for deep programs).
    """

    def __new__(cls, function, *, primal, source, wrt, program, kind):
        self = super().__new__(cls, function)
        self.primal, self.source, self.wrt, self.program, self.kind = (
            primal, source, wrt, program, kind)
        self._derivatives = None
        return self

    @property
    def function(self):
        return self.func

    @property
    def derivatives(self):
        if self._derivatives is None:
            self._derivatives = tuple(substituted_outputs(self.program))
        return self._derivatives

    def __repr__(self):
        return f"<GradientFunction {self.func.__name__} wrt {self.wrt}>"

    def __reduce__(self):
        raise TypeError("a GradientFunction cannot be pickled: pickle the primal and rebuild it")


def grad(f=None, *, wrt=None, stop_gradients=(), unconnected="zero", backend="math",
         strategy="auto"):
    """Differentiate a Python function symbolically; return its compiled gradient.

    Usable as ``@grad``, ``@grad(wrt="x")`` and ``grad(f, wrt=("x", 1))``.

    Args:
        f: a plain Python function of float parameters returning one float, or a
            ``GradientFunction`` with one result (for second and higher derivatives).
        wrt: a parameter name or index, or a tuple of them. None: every positional parameter
            (except those fixed at build time as ``range`` bounds).
        stop_gradients: names of parameters or intermediate variables of ``f`` to treat as
            constants (TF's ``tf.gradients(stop_gradients=...)``, PyTensor's ``consider_constant``).
        unconnected: "zero" returns 0.0 for a ``wrt`` the output does not depend on (through
            unstopped paths); "none" returns None there (TF's ``UnconnectedGradients.NONE``).
        backend: "math" (floats) or "numpy" (elementwise on arrays).
        strategy: "auto", "symbolic" or "reverse" (see ``symgrad.differentiate``).

    Returns:
        A ``GradientFunction``: called with ``f``'s arguments it returns a float when ``wrt`` is one
        name or index (or None with one parameter), else a tuple of floats in ``wrt`` order.

    Raises:
        UnsupportedSyntaxError: ``f`` uses a construct outside SPEC section 4 (file, line, column).
        SourceUnavailableError: the source of ``f`` or of a helper it calls cannot be read.
        OptionError: an unknown ``wrt`` name, an index out of range, a bad option value.
        OutputShapeError: ``f`` returns a tuple (use ``jacobian``).

    >>> import symgrad
    >>> from symgrad import stop_gradient
    >>> def energy(x, y):
    ...     r = (x * x + y * y) ** 0.5
    ...     return r ** 2 + stop_gradient(r)
    >>> symgrad.grad(energy)(3.0, 4.0)
    (6.0, 8.0)
    """
    options = dict(wrt=wrt, stop_gradients=stop_gradients, unconnected=unconnected,
                   backend=backend, strategy=strategy)
    if f is None:
        return lambda function: grad(function, **options)
    return build("grad", f, **options)


def build(kind, f, *, wrt, stop_gradients, unconnected, backend, strategy):
    """Build (or fetch from the cache) the ``GradientFunction`` of kind ``kind`` for ``f``."""
    stop_gradients = (stop_gradients,) if isinstance(stop_gradients, str) else tuple(
        stop_gradients)
    key = (kind, _freeze(wrt), stop_gradients, unconnected, backend, strategy)
    cached = _CACHE.get(f, key)
    if cached is not None:
        return cached
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {tuple(BACKENDS)}, not {backend!r}")
    if strategy not in STRATEGIES:
        raise OptionError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")
    with distribute(False):  # keep 2*(x - y) as written: SymPy would expand it to 2*x - 2*y
        built = _build(kind, f, wrt, stop_gradients, unconnected, backend, strategy)
    return _CACHE.put(f, key, built)


def _build(kind, f, wrt, stop_gradients, unconnected, backend, strategy):
    if isinstance(f, GradientFunction):
        if stop_gradients:
            raise OptionError("stop_gradients cannot be applied to a GradientFunction: pass them "
                              "when building the first derivative")
        program = f.program
        if None in program.outputs:
            raise OptionError("cannot differentiate a gradient built with unconnected='none'")
    else:
        program = to_program(f, stop_gradients)
    names, single = normalize_wrt(program, wrt)
    if kind == "grad" and len(program.outputs) != 1:
        raise OutputShapeError(
            f"grad needs a function returning one number; `{program.name}` returns "
            f"{len(program.outputs)}: use symgrad.jacobian, or symgrad.vjp with cotangents")
    derivative = differentiate(program, names, strategy=strategy, unconnected=unconnected)
    name, source = emit(derivative, kind=kind, backend=backend, wrt=names,
                        as_tuple=not single)
    derivative.name = name
    function = compile_gradient(source, name, backend)
    return GradientFunction(function, primal=f, source=source, wrt=names, program=derivative,
                            kind=kind)


def normalize_wrt(program, wrt):
    """``wrt`` as a tuple of parameter names, and whether one value (not a tuple) is returned.

    Raises:
        OptionError: an unknown name, an index out of range, a parameter fixed at build time, a
            repeated name, or a type other than str, int or a tuple of them.
    """
    params = program.param_names
    if wrt is None:
        names = tuple(p for p in params if p not in program.static)
        return names, len(names) == 1
    single = not isinstance(wrt, (tuple, list))
    items = (wrt,) if single else tuple(wrt)
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise OptionError(f"wrt items must be parameter names or indices, not {item!r}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise OptionError(f"wrt index {item} is out of range for {len(params)} parameters "
                                  f"{params}")
            item = params[item]
        if item not in params:
            raise OptionError(f"wrt names {item!r}, which is not a parameter of "
                              f"`{program.name}` {params}")
        if item in program.static:
            raise OptionError(f"`{item}` sets a range() bound, so it is fixed at build time and "
                              "cannot be differentiated")
        if item in names:
            raise OptionError(f"wrt names {item!r} twice")
        names.append(item)
    return tuple(names), single


def _freeze(value):
    return tuple(value) if isinstance(value, list) else value

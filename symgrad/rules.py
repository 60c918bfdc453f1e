"""THE table: every primitive function symgrad knows, one row each, and the derivatives SymPy lacks.

A row says how a Python callable (``math.exp``, ``np.exp``, ``abs``, ``max`` ...) becomes a SymPy
expression, how that SymPy function is printed for each backend, and its derivative when SymPy's own
``fdiff`` is not the one we want (``derivative=None`` means "SymPy knows"; ``ZERO`` means the
derivative is 0 everywhere it is defined, our convention at the jumps). Adding a supported function
means adding one row here; ``tests/test_rules.py`` checks every row with no new test code.
"""
import builtins
import importlib
import sys
from dataclasses import dataclass

import sympy
from mpmath.libmp import prec_to_dps
from sympy import Function, Piecewise, S

from .extrema import LargeMax, LargeMin, _at_least_two, _extremum_partial
from .extrema import FOLDED_MAX_NODES, rebuilt, repeated  # noqa: F401 - tests read them here
from .functions import (Ceiling, Expm1, Floor, Literal, Log1p, NotComputable, Round,
                        StopGradient, Undefined, Value, as_python, fold)
from .kept import Atan2, Exp, atan2_kept, exp_kept
from .special import Cbrt, Digamma, Expit, GammaLn, Logit, Polygamma, XLogY, cbrt_lower
from .stop import stop_gradient  # noqa: F401 - resolve matches calls against rules.stop_gradient

ZERO = "zero"  # marker: the derivative is 0 (round, floor, ceil, stop_gradient, sign)


_WRITTEN_PYTHON = (lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
                   lambda a, b: a / b, lambda a, b: a ** b, lambda a, b: a // b, lambda a, b: a % b)


class Written(Function):
    """``a <op> b`` exactly as the source writes it, inside a comparison operand: ``Written(k, a,
    b)`` is the k-th of ``+ - * / ** // %``, ``Written(-1, a)`` is ``-a`` and ``Written(100 + i,
    *args)`` a call of ``RULES[i]``. SymPy never rewrites it, and it prints as written (``x ** 2``
    stays ``x ** 2``, not ``x * x``; ``x / math.sqrt(2.0)`` stays a division), so the comparison
    sees the very float the primal computes."""

    @classmethod
    def eval(cls, code, *args):
        if not all(a.is_Number for a in args):
            return None
        try:
            value = fold(cls._python(int(code)), lambda *a: None, args)
        except NotComputable as exc:  # the primal raises here
            if exc.complex:  # (-4) ** 0.3: kept, so a truth test or == sees Python's complex
                return None
            return Undefined(sympy.Integer(exc.kind))
        return value if value.is_Number else None

    @classmethod
    def python_value(cls, expr):
        """A constant ``expr`` (numbers under ``Written`` operators) as Python computes it,
        complex numbers included: ``(-4) ** 0.3`` is ``(0.76+1.05j)``, truthy, and ``abs`` of it
        is the float 1.5157165665103982.

        Raises:
            ArithmeticError, ValueError, TypeError: where Python raises (``(-4) ** 0.5 < 1``);
                TypeError also for a value that is neither a number nor ``Written``.
        """
        if isinstance(expr, Written):
            return cls._python(int(expr.args[0]))(*[cls.python_value(a) for a in expr.args[1:]])
        if isinstance(expr, sympy.Expr) and (expr.is_Number or isinstance(expr, Literal)):
            return as_python(expr)
        raise TypeError(f"not a constant written value: {expr}")

    @staticmethod
    def _python(code):
        if code == -1:
            return lambda a: -a
        if code >= 100:
            return _resolve(RULES[code - 100].python[0])
        return _WRITTEN_PYTHON[code]

    def _eval_is_real(self):
        return True

    def _eval_is_extended_real(self):
        return True

    def fdiff(self, argindex=1):
        """``a // b``: 0 (docs/conventions.md); ``a % b``: 1 in ``a``, ``-(a // b)`` in ``b`` (the
        quotient held constant). Other operators are read as SymPy's own, never differentiated."""
        code = int(self.args[0])
        if code == 5:
            return S.Zero
        if code == 6 and argindex in (2, 3):
            return S.One if argindex == 2 else -Written(sympy.Integer(5), *self.args[1:])
        return super().fdiff(argindex)

    def _eval_evalf(self, prec):
        code, args = int(self.args[0]), self.args[1:]
        if code in (5, 6):  # numbers first: SymPy's floor and Mod of a Written do not evaluate
            evaluated = [a.evalf(prec_to_dps(prec)) for a in args]
            args = evaluated if all(a.is_Number for a in evaluated) else args
        if code == -1:
            return (-args[0]).evalf(prec_to_dps(prec))
        if code >= 100:
            rule = RULES[code - 100]
            return (rule.build or rule.sympy)(*args).evalf(prec_to_dps(prec))
        return _BINARY_SYMPY[code](*args).evalf(prec_to_dps(prec))

    def _latex(self, printer):
        return printer._print(self.evaluated())

    def _sympystr(self, printer):
        return printer._print(self.evaluated())

    def evaluated(self):
        """The same value as an ordinary SymPy expression."""
        code, args = int(self.args[0]), [a.evaluated() if isinstance(a, Written) else a
                                         for a in self.args[1:]]
        if code == -1:
            return -args[0]
        if code >= 100:
            rule = RULES[code - 100]
            return (rule.build or rule.sympy)(*args)
        return _BINARY_SYMPY[code](*args)


_BINARY_SYMPY = (lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
                 lambda a, b: power(a, b), lambda a, b: sympy.floor(a / b), sympy.Mod)


# --------------------------------------------------------------------------------------------
# Derivatives SymPy gets wrong for us or does not know
def _mod_partial(expr, i):
    """a % b = a - b*floor(a/b), the quotient counted as constant: ∂/∂a = 1, ∂/∂b = -floor(a/b)."""
    a, b = expr.args
    return S.One if i == 0 else -sympy.floor(a / b)


def _sign_lower(d):
    d = Value(d)
    return Piecewise((1, d > 0), (-1, d < 0), (0, True))


_NOT_REAL = (sympy.re, sympy.im, sympy.conjugate)


def real_abs(arg):
    """``abs(arg)`` as SymPy, for a real ``arg``: SymPy's ``Abs`` writes ``re``/``im`` where it
    cannot prove its argument real (``Abs(0.5**atanh(x))`` is ``0.5**re(atanh(x))``), but every
    value the primal computes is real (``math.atanh`` raises outside (-1, 1)), so ``re(z)`` is
    ``z``, ``im(z)`` is 0 and ``conjugate(z)`` is ``z``."""
    value = sympy.Abs(arg)
    if not value.has(*_NOT_REAL):
        return value
    return value.replace(lambda n: isinstance(n, _NOT_REAL),
                         lambda n: S.Zero if isinstance(n, sympy.im) else n.args[0])


def power(base, exponent):
    """``base ** exponent`` as SymPy; a float exponent that is a whole or half number becomes exact
    (``x ** 2.0`` → ``x**2``, ``x ** 0.5`` → ``sqrt(x)``), so derivatives simplify as by hand."""
    if isinstance(exponent, sympy.Float) and float(2 * exponent).is_integer():
        exponent = sympy.Rational(int(2 * exponent), 2)
    return sympy.Pow(base, exponent)


def _log(x, base=None):
    return sympy.log(x) if base is None else sympy.log(x) / sympy.log(base)


# --------------------------------------------------------------------------------------------
AS_NUMPY = "as numpy"
"""A backend column printing the ``numpy`` column's function from that backend's library."""


@dataclass(frozen=True)
class Rule:
    """One primitive function.

    Attributes:
        python: dotted names of the Python callables it stands for ("math.exp", "numpy.exp").
        sympy: the SymPy class the expression has (for printing and derivatives).
        build: callable(*sympy_args) → SymPy expression; defaults to ``sympy``.
        math: name printed for backend "math" ("math.exp", or a builtin "abs"); None = ``lower``.
        numpy: name printed for backend "numpy" ("np.exp"); None = ``lower``.
        jax, torch, array_api: the name printed for those backends; ``AS_NUMPY`` (the default):
            the ``numpy`` name in that library (``jnp.exp``, ``torch.exp``, ``xp.exp``).
        derivative: None (SymPy's fdiff), ZERO, or callable(expr, i) → ∂expr/∂(args[i]).
        lower: callable(*args) → an equivalent SymPy expression printable without this function.
        domain: where tests sample each argument, ("real", "positive", "unit" = (-1, 1), ">1",
            "probability" = (0, 1)).
        nargs: the numbers of arguments accepted from Python.
        compares: its value jumps (round, floor, ceil, sign) or its derivative compares its
            arguments (max, min, abs): the frontend reads each argument as the source computes
            it (``written.AsWritten``), so the float that decides is the primal's.
    """

    python: tuple
    sympy: type
    build: object = None
    math: str = None
    numpy: str = None
    jax: str = AS_NUMPY
    torch: str = AS_NUMPY
    array_api: str = AS_NUMPY
    derivative: object = None
    lower: object = None
    domain: str = "real"
    nargs: tuple = (1,)
    compares: bool = False


RULES = (
    # --- arithmetic spelled as calls ---------------------------------------------------------
    Rule(("abs", "math.fabs", "numpy.abs", "numpy.absolute", "numpy.fabs"), sympy.Abs,
         build=real_abs, math="abs", numpy="np.abs", compares=True),
    Rule(("pow", "math.pow", "numpy.power"), sympy.Pow, build=power, domain="positive",
         nargs=(2,)),
    Rule(("float",), sympy.Expr, build=lambda x: x, nargs=(1,)),
    Rule(("max",), sympy.Max, build=_at_least_two(sympy.Max, LargeMax), math="max", numpy="np.maximum",
         derivative=_extremum_partial, nargs=(2, 3, 4, 5, 6, 7, 8), compares=True),
    Rule(("numpy.maximum", "numpy.fmax"), sympy.Max, derivative=_extremum_partial, nargs=(2,),
         compares=True),
    Rule(("min",), sympy.Min, build=_at_least_two(sympy.Min, LargeMin), math="min", numpy="np.minimum",
         derivative=_extremum_partial, nargs=(2, 3, 4, 5, 6, 7, 8), compares=True),
    Rule(("numpy.minimum", "numpy.fmin"), sympy.Min, derivative=_extremum_partial, nargs=(2,),
         compares=True),
    Rule(("math.hypot", "numpy.hypot"), sympy.Pow,
         build=lambda x, y: sympy.sqrt(x ** 2 + y ** 2), nargs=(2,)),
    Rule(("numpy.square",), sympy.Pow, build=lambda x: x ** 2),
    Rule(("math.cbrt", "numpy.cbrt"), Cbrt, math="math.cbrt", numpy="np.cbrt", torch=None,
         array_api=None, lower=cbrt_lower),  # the standard and PyTorch have no cbrt
    Rule(("math.sqrt", "numpy.sqrt"), sympy.Pow, build=sympy.sqrt, domain="positive"),
    # --- exponentials and logarithms ---------------------------------------------------------
    Rule(("math.exp", "numpy.exp"), sympy.exp, build=exp_kept, math="math.exp", numpy="np.exp"),
    Rule(("math.log",), sympy.log, build=_log, math="math.log", numpy="np.log",
         domain="positive", nargs=(1, 2)),
    Rule(("numpy.log",), sympy.log, domain="positive"),
    Rule(("math.log2", "numpy.log2"), sympy.log, build=lambda x: _log(x, 2), domain="positive"),
    Rule(("math.log10", "numpy.log10"), sympy.log, build=lambda x: _log(x, 10),
         domain="positive"),
    Rule(("math.log1p", "numpy.log1p"), Log1p, math="math.log1p", numpy="np.log1p",
         domain="positive"),
    Rule(("math.expm1", "numpy.expm1"), Expm1, math="math.expm1", numpy="np.expm1"),
    # --- trigonometric and hyperbolic --------------------------------------------------------
    Rule(("math.sin", "numpy.sin"), sympy.sin, math="math.sin", numpy="np.sin"),
    Rule(("math.cos", "numpy.cos"), sympy.cos, math="math.cos", numpy="np.cos"),
    Rule(("math.tan", "numpy.tan"), sympy.tan, math="math.tan", numpy="np.tan", domain="unit"),
    Rule(("math.asin", "numpy.arcsin"), sympy.asin, math="math.asin", numpy="np.arcsin",
         torch="torch.asin", array_api="xp.asin",
         domain="unit"),
    Rule(("math.acos", "numpy.arccos"), sympy.acos, math="math.acos", numpy="np.arccos",
         torch="torch.acos", array_api="xp.acos",
         domain="unit"),
    Rule(("math.atan", "numpy.arctan"), sympy.atan, math="math.atan", numpy="np.arctan",
         torch="torch.atan", array_api="xp.atan"),
    Rule(("math.atan2", "numpy.arctan2"), sympy.atan2, build=atan2_kept, math="math.atan2",
         numpy="np.arctan2",
         torch="torch.atan2", array_api="xp.atan2",
         domain="positive", nargs=(2,)),
    Rule(("math.sinh", "numpy.sinh"), sympy.sinh, math="math.sinh", numpy="np.sinh"),
    Rule(("math.cosh", "numpy.cosh"), sympy.cosh, math="math.cosh", numpy="np.cosh"),
    Rule(("math.tanh", "numpy.tanh"), sympy.tanh, math="math.tanh", numpy="np.tanh"),
    Rule(("math.asinh", "numpy.arcsinh"), sympy.asinh, math="math.asinh", numpy="np.arcsinh",
         torch="torch.asinh", array_api="xp.asinh"),
    Rule(("math.acosh", "numpy.arccosh"), sympy.acosh, math="math.acosh", numpy="np.arccosh",
         torch="torch.acosh", array_api="xp.acosh",
         domain=">1"),
    Rule(("math.atanh", "numpy.arctanh"), sympy.atanh, math="math.atanh", numpy="np.arctanh",
         torch="torch.atanh", array_api="xp.atanh",
         domain="unit"),
    Rule(("math.erf",), sympy.erf, math="math.erf", numpy="scipy.special.erf",
         jax="jax.scipy.special.erf", torch="torch.special.erf", array_api=None),
    Rule(("math.erfc",), sympy.erfc, math="math.erfc", numpy="scipy.special.erfc",
         jax="jax.scipy.special.erfc", torch="torch.special.erfc", array_api=None),
    # --- scipy.special (when SciPy is installed): printed as SciPy's own, on both backends ------
    Rule(("scipy.special.erf",), sympy.erf, math="scipy.special.erf", numpy="scipy.special.erf",
         jax="jax.scipy.special.erf", torch="torch.special.erf", array_api=None),
    Rule(("scipy.special.erfc",), sympy.erfc, math="scipy.special.erfc",
         numpy="scipy.special.erfc",
         jax="jax.scipy.special.erfc", torch="torch.special.erfc", array_api=None),
    Rule(("scipy.special.expit",), Expit, math="scipy.special.expit",
         numpy="scipy.special.expit",
         jax="jax.scipy.special.expit", torch="torch.special.expit", array_api=None),
    Rule(("scipy.special.logit",), Logit, math="scipy.special.logit", numpy="scipy.special.logit",
         jax="jax.scipy.special.logit", torch="torch.special.logit", array_api=None,
         domain="probability"),
    Rule(("scipy.special.xlogy",), XLogY, math="scipy.special.xlogy", numpy="scipy.special.xlogy",
         jax="jax.scipy.special.xlogy", torch="torch.special.xlogy", array_api=None,
         domain="positive", nargs=(2,)),
    Rule(("scipy.special.gammaln",), GammaLn, math="scipy.special.gammaln",
         numpy="scipy.special.gammaln",
         jax="jax.scipy.special.gammaln", torch="torch.special.gammaln", array_api=None,
         domain="positive"),
    Rule(("scipy.special.digamma", "scipy.special.psi"), Digamma, math="scipy.special.digamma",
         numpy="scipy.special.digamma",
         jax="jax.scipy.special.digamma", torch="torch.special.digamma", array_api=None,
         domain="positive"),
    # --- derivative 0 (docs/conventions.md) --------------------------------------------------
    Rule(("round",), Round, math="round", numpy="np.round", derivative=ZERO, compares=True),
    Rule(("math.floor", "numpy.floor"), Floor, math="math.floor", numpy="np.floor",
         derivative=ZERO, compares=True),
    Rule(("math.ceil", "numpy.ceil"), Ceiling, math="math.ceil", numpy="np.ceil",
         derivative=ZERO, compares=True),
    # --- output only: appear in derivatives, never called by name ----------------------------
    Rule((), sympy.Mod, derivative=_mod_partial, nargs=(2,)),
    Rule(("numpy.sign",), sympy.sign, numpy="np.sign", derivative=ZERO, lower=_sign_lower,
         compares=True),
    Rule((), StopGradient, derivative=ZERO),
    Rule((), Polygamma, math="scipy.special.polygamma", numpy="scipy.special.polygamma",
         jax="jax.scipy.special.polygamma", torch="torch.special.polygamma", array_api=None,
         nargs=(2,)),
)

STOP_GRADIENT_SPELLINGS = frozenset(
    {"tf.stop_gradient", "jax.lax.stop_gradient", "lax.stop_gradient", "K.stop_gradient"})
"""Calls spelled like this in the source are ``stop_gradient`` whatever the name is bound to."""


def _resolve(dotted):
    module, _, attr = dotted.rpartition(".")
    try:
        owner = importlib.import_module(module) if module else builtins
    except ImportError:  # numpy is optional at run time
        return None
    return getattr(owner, attr, None)


LAZY_MODULES = ("scipy.",)
"""Spellings under these modules are looked up only once the module is imported (by the user's
code: a function can only call ``scipy.special.erf`` if something imported it), so a build never
pays for importing SciPy itself."""


def _by_callable():
    table, pending = {}, []
    for rule in RULES:
        for dotted in rule.python:
            if dotted.startswith(LAZY_MODULES):
                pending.append((dotted, rule))
                continue
            obj = _resolve(dotted)
            if obj is not None:
                table[id(obj)] = (obj, rule)
    return table, pending


_CALLABLES, _PENDING = _by_callable()


def resolve_pending(pending, table):
    """Move each ``(dotted, row)`` of the list ``pending`` whose module is imported now into
    ``table`` (``id(obj)`` → ``(obj, row)``); True if any was."""
    found = False
    for item in list(pending):
        dotted, rule = item
        if dotted.rpartition(".")[0] in sys.modules:
            pending.remove(item)
            obj = _resolve(dotted)
            if obj is not None:
                table[id(obj)] = (obj, rule)
                found = True
    return found
_BY_CLASS = {}
for _rule in RULES:
    if _rule.math or _rule.numpy or _rule.derivative or _rule.lower:
        _BY_CLASS.setdefault(_rule.sympy, _rule)
_BY_CLASS[LargeMax], _BY_CLASS[LargeMin] = _BY_CLASS[sympy.Max], _BY_CLASS[sympy.Min]
_BY_CLASS[Exp], _BY_CLASS[Atan2] = _BY_CLASS[sympy.exp], _BY_CLASS[sympy.atan2]


def rule_for_callable(obj):
    """The ``Rule`` whose Python spelling is the object ``obj`` (any alias), or None."""
    found = _CALLABLES.get(id(obj))
    if found is None and _PENDING and resolve_pending(_PENDING, _CALLABLES):
        found = _CALLABLES.get(id(obj))
    return found[1] if found is not None and found[0] is obj else None


def spelling(rule, backend):
    """The name ``rule``'s SymPy class prints as for ``backend`` (its column; ``AS_NUMPY`` gives
    the ``numpy`` column, which the printer spells in the backend's library), or None."""
    printed = getattr(rule, backend)
    return rule.numpy if printed == AS_NUMPY else printed


def written_spelling(rule, backend):
    """How a call of ``rule`` written in the source is printed for ``backend`` (``math.sqrt``,
    ``np.sqrt``, ``abs``), or None."""
    printed = spelling(rule, backend)
    if printed:
        return printed
    if getattr(rule, backend) == AS_NUMPY:
        backend = "numpy"
    prefix = "math." if backend == "math" else "numpy."
    for dotted in rule.python:
        if dotted.startswith(prefix):
            return dotted if backend == "math" else "np." + dotted[len(prefix):]
    return None


def rule_for_class(cls):
    """The ``Rule`` printing / differentiating SymPy class ``cls``, or None (SymPy defaults)."""
    return _BY_CLASS.get(cls)


"""The SymPy functions of our own that programs are made of: ``StopGradient``, the value-only
wrappers the printer reads (``Value``, ``Branch``, ``Copy``), Python's short-circuit ``and``/``or``
(``AndThen``/``OrElse``), ``Undefined`` points, exact ``Literal`` floats, and ``fold`` (a constant
computed as the primal computes it). ``rules`` maps Python callables onto these and SymPy's own.
"""
import builtins
import fractions
import math
import warnings

import mpmath
import sympy
from mpmath.libmp import prec_to_dps
from sympy import Function, Piecewise, S

class StopGradient(Function):
    """``stop_gradient(e)`` in a program: value ``e``, derivative 0 with respect to everything.

    Never evaluated away except on numbers, so nothing inside it is ever differentiated.
    """

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.is_Number:
            return arg
        if isinstance(arg, StopGradient):
            return arg
        return None

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_evalf(self, prec):
        return self.args[0].evalf(prec_to_dps(prec))

    def _eval_derivative(self, symbol):
        return S.Zero

    def fdiff(self, argindex=1):
        return S.Zero

    def _latex(self, printer):
        return r"\operatorname{stop\_gradient}\left(%s\right)" % printer._print(self.args[0])


class Round(Function):
    """Python's ``round(x)``: round half to even, derivative 0 (docs/conventions.md)."""

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.is_Number:
            return sympy.Integer(builtins.round(float(arg)))
        return None

    def _eval_is_real(self):
        return True

    def _eval_is_integer(self):
        return True

    def _eval_evalf(self, prec):
        value = self.args[0].evalf(prec_to_dps(prec))
        return sympy.Float(builtins.round(float(value)), precision=prec) if value.is_Number \
            else None

    def _latex(self, printer):
        return r"\operatorname{round}\left(%s\right)" % printer._print(self.args[0])


class _Unsplit:
    """``math.floor``/``math.ceil`` of a float as Python computes it: evaluated on constants only.
    SymPy's own split an integer off (``floor(2 + e)`` is ``2 + floor(e)``), exact on the reals
    but not in float: at ``e = -1e-44``, ``math.floor(2.0 + e)`` is 2 and ``2 + floor(e)`` 1."""

    @classmethod
    def eval(cls, arg):
        return cls.__mro__[2](arg) if arg.is_number else None


class Floor(_Unsplit, sympy.floor):
    """``math.floor(x)`` (see ``_Unsplit``); printed and differentiated as SymPy's ``floor``."""


class Ceiling(_Unsplit, sympy.ceiling):
    """``math.ceil(x)`` (see ``_Unsplit``); printed and differentiated as SymPy's ``ceiling``."""


class _ZeroAtZero(Function):
    """A one-argument function with 0 at 0, evaluated numerically by its mpmath ``reference``."""

    nargs = 1
    reference = None  # the mpmath function

    @classmethod
    def eval(cls, arg):
        if arg.is_zero:
            return S.Zero
        return None

    def _eval_evalf(self, prec):
        return _numeric(self.reference, self.args[0], prec)

    def _eval_mpmath(self):  # so evalf (check_grad's 50-digit evaluation) gives a number
        return self.reference, self.args


class Log1p(_ZeroAtZero):
    """``log(1 + x)`` computed without cancellation near 0, as ``math.log1p``."""

    reference = staticmethod(mpmath.log1p)

    def _eval_is_real(self):
        arg = self.args[0]
        return arg.is_real and (arg + 1).is_positive

    def fdiff(self, argindex=1):
        return 1 / (1 + self.args[0])


class Expm1(_ZeroAtZero):
    """``exp(x) - 1`` computed without cancellation near 0, as ``math.expm1``."""

    reference = staticmethod(mpmath.expm1)

    def _eval_is_real(self):
        return self.args[0].is_real

    def fdiff(self, argindex=1):
        return sympy.exp(self.args[0])


class Value(Function):
    """An operand of a comparison exactly as the primal computes it: ``Value(u + 1) > t``.

    Opaque to SymPy, so no canonicalisation rearranges ``u + 1 > t`` into ``u > t - 1`` (another
    float value, another branch); printed as its argument. Numbers are unwrapped; symbols are
    kept wrapped, so that substituting an assignment into a condition keeps the operand whole.
    """

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.has(Piecewise):  # a branch inside a condition: SymPy would simplify it (slow)
            return cls(_branches(arg))
        if arg.is_Number and arg.is_finite is False:  # x < np.inf: False at x = inf, kept
            return None
        if arg.is_Number or isinstance(arg, (Value, Undefined)) or isinstance(arg, sympy.logic.boolalg.Boolean) \
                and not isinstance(arg, sympy.Expr):
            return arg
        if arg.is_number and not arg.has(sympy.Symbol):
            return arg
        return None

    def _eval_is_real(self):  # a kept infinity (Value(oo)): extended real, not known finite
        return None if self.args[0].is_infinite else self.args[0].is_real

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    def _eval_evalf(self, prec):
        return self.args[0].evalf(prec_to_dps(prec))

    def fdiff(self, argindex=1):
        return S.One

    def _latex(self, printer):
        return printer._print(self.args[0])

    def _sympystr(self, printer):
        return printer._print(self.args[0])


def compared(relation, left, right):
    """``relation(Value(left), Value(right))`` (``sympy.Lt`` ... ``sympy.Ne``) as floats compare.
    SymPy decides a comparison of one operand with itself, ``x >= x`` True, ``x != x`` False: at
    nan the floats give False and True. ``<`` and ``>`` of it stay decided (False at every float),
    and so does any comparison of an integer; ``<=``, ``>=`` are ``x >= -inf`` (False at nan only)
    and ``==``, ``!=`` are ``x == 1.0*x``, ``x != 1.0*x`` (printed ``x == x``: a complex Python
    value equals itself, and is not ordered)."""
    a, b = Value(left), Value(right)
    if a != b or a.is_Number or relation in (sympy.Lt, sympy.Gt) or left.is_integer:
        return relation(a, b)
    if relation in (sympy.Eq, sympy.Ne):
        return relation(a, Value(sympy.Float(1.0) * left))
    return sympy.Ge(a, Value(-sympy.oo))


class Branch(Function):
    """``a if cond else b`` inside a comparison operand (``Value``): a ``Piecewise`` there would make
    SymPy rewrite the condition through ``simplify``, seconds for a few lines. Printed as a
    conditional expression (``np.where`` for numpy), so the branch not taken is not evaluated."""

    nargs = 3

    @classmethod
    def eval(cls, cond, a, b):
        if cond is S.true:
            return a
        if cond is S.false:
            return b
        return None

    def _eval_is_real(self):  # symgrad's values are real (an argument of max/min must say so)
        return True

    def _eval_is_extended_real(self):
        return True


class FirstArgument(Function):
    """A real function whose value, derivative and text are those of its first argument (the
    others only tell the printer how it is computed): ``Copy`` and ``written.AsWritten``."""

    def _eval_is_real(self):
        return True

    def _eval_is_extended_real(self):
        return True

    def _eval_evalf(self, prec):
        return self.args[0].evalf(prec_to_dps(prec))

    def fdiff(self, argindex=1):
        return S.One if argindex == 1 else S.Zero

    def _latex(self, printer):
        return printer._print(self.args[0])

    def _sympystr(self, printer):
        return printer._print(self.args[0])


class Copy(FirstArgument):
    """A repeated argument of ``max``/``min`` (``min(t, z, z)``), ``Copy(z, k)`` for the k-th
    repeat: value and derivative those of ``z``, printed as ``z``. SymPy's ``Max``/``Min`` would
    drop the repeat, and a tie of k arguments gives each 1/k (docs/conventions.md), so ``z`` gets
    2/3 of a three-way tie."""

    nargs = 2
    is_number = False  # never folded or compared as a number: Max keeps it


def repeats_kept(args):
    """``args`` of ``max``/``min`` with each repeat (equal to an earlier one) as a ``Copy``, and
    each inner ``max``/``min`` (or a name that may be substituted by one) as ``Copy(a, 0)``: SymPy
    flattens ``Max(Max(2, t), 2)`` into ``Max(2, t)``, and a tie's share is decided per call
    (docs/conventions.md), so the inner call must stay a call of its own."""
    kept = []
    for i, arg in enumerate(args):
        k = sum(1 for a in args[:i] if a == arg or (a.is_Number and arg.is_Number and
                                                     float(a) == float(arg)))
        opaque = isinstance(arg, (sympy.Max, sympy.Min)) or arg.is_Symbol
        kept.append(Copy(arg, sympy.Integer(k)) if k or opaque else arg)
    return kept


class _InOrder(sympy.logic.boolalg.BooleanFunction):
    """Python's ``a and b`` / ``a or b``: operands kept in source order (SymPy's ``And``/``Or``
    sort them), so an operand that raises (``math.log(x) > 1`` after ``x > 0``) is evaluated only
    where the primal evaluates it. Decided operands fold as Python's short circuit does."""

    stop = neutral = None

    @classmethod
    def eval(cls, *args):
        kept = []
        for arg in args:
            if arg is cls.stop:
                return cls.stop
            if arg is not cls.neutral:
                kept.append(arg)
        if not kept:
            return cls.neutral
        if len(kept) == 1:
            return kept[0]
        return cls(*kept) if len(kept) != len(args) else None


class AndThen(_InOrder):
    """``a and b`` in source order."""

    stop, neutral = S.false, S.true

    def _latex(self, printer):
        return r" \wedge ".join(printer._print(a) for a in self.args)


class OrElse(_InOrder):
    """``a or b`` in source order."""

    stop, neutral = S.true, S.false

    def _latex(self, printer):
        return r" \vee ".join(printer._print(a) for a in self.args)


def _branches(expr, memo=None):
    """``expr`` with each ``Piecewise`` written as nested ``Branch``es (the last piece is the
    default, as every ``Piecewise`` the frontend builds); each distinct node is rewritten once
    (``memo``), and a node without a ``Piecewise`` below is kept, not rebuilt."""
    memo = {} if memo is None else memo
    if expr.is_Atom:
        return expr
    found = memo.get(expr)
    if found is None:
        if isinstance(expr, Piecewise):
            found = _branches(expr.args[-1].expr, memo)
            for pair in reversed(expr.args[:-1]):
                found = Branch(_branches(pair.cond, memo), _branches(pair.expr, memo), found)
        else:
            args = [_branches(a, memo) for a in expr.args]
            found = expr.func(*args) if args != list(expr.args) else expr
        memo[expr] = found
    return found


def _numeric(function, arg, prec):
    """``function`` (an mpmath function) of a numeric ``arg`` at ``prec`` bits, or None."""
    work = prec + 30  # guard bits, so the result is correctly rounded to prec
    value = arg.evalf(prec_to_dps(work))
    if not value.is_Number:
        return None
    with mpmath.workprec(work):
        return sympy.Float(function(value._to_mpmath(work)), precision=prec)


class Undefined(Function):
    """A value the primal cannot compute (``x / 0.0``, ``math.log(0.0)``) on a path that may not
    run: printed as an expression raising the primal's exception (``0.0 / 0.0``, ``math.log(0.0)``,
    ``math.exp(1000.0)`` by ``kind``), and its own derivative, so a gradient raises where the primal
    raises. ``kind`` is 0 (division by zero), 1 (domain error) or 2 (overflow)."""

    nargs = 1
    is_number = False  # never evaluated numerically: it has no value

    def _eval_is_real(self):
        return True

    def _eval_derivative(self, symbol):
        return self

    def fdiff(self, argindex=1):
        return self


class ComplexPower(Undefined):
    """A power Python computes as a complex number for every input: ``ComplexPower(1, base,
    exponent)`` stands for ``base ** exponent`` with a negative constant base and a fractional
    constant exponent (``math.log10(0.5) ** 0.3``; a varying exponent is a
    ``realpower.RealPower``, real where it is whole). symgrad differentiates real values, so it
    is read as undefined (docs/conventions.md, "Complex powers"): a live value computed on every
    call is refused at build time (``expressions``), a dead one is dropped, one on a path that
    may not run is printed as code raising ``ValueError`` (``math.log(0.0)``; ``nan`` with
    ``numpy``), as ``math.pow`` raises where ``**`` gives a complex number; the primal's own
    lines, truth tests and ``abs`` compute it as Python does (from the source as written)."""

    nargs = 3


def complex_power(base, exponent):
    """Whether ``base ** exponent`` (SymPy numbers or expressions) is a power Python computes as a
    complex number at every point where the exponent is not whole: a negative number base with
    a non-integer constant exponent (``ComplexPower``) or a varying one (``RealPower``)."""
    return base.is_number and not base.has(Undefined) and base.is_negative is True and \
        exponent.is_integer is not True  # a whole exponent on every path: (3.0 if c else 1.0)


class NotComputable(Exception):
    """Raised by ``fold`` when Python raises (or gives inf, nan or a complex) on the constants;
    ``complex`` is True for a complex value (the primal does not raise there)."""

    def __init__(self, kind, complex=False):  # noqa: A002 - the field's word
        super().__init__(kind)
        self.kind, self.complex = kind, complex


class Literal(sympy.AtomicExpr):
    """An inexact float (``1e-12``, ``0.1``) added to a variable: an opaque constant, so SymPy does
    not fold it into another number of the sum (``1 - p + 1e-12`` stays as written, not
    ``1.000000000001 - p``, another float value: off by 1e-4 relatively at p = 1); printed as its
    repr. Products keep plain Floats (``2*0.1*x`` is ``0.2*x``: a relative rounding only)."""

    is_number = True
    is_real = True
    is_extended_real = True
    is_finite = True
    is_commutative = True
    is_comparable = True
    __slots__ = ("value",)

    def __new__(cls, value):
        obj = sympy.AtomicExpr.__new__(cls)
        obj.value = float(value)
        return obj

    def __getnewargs__(self):
        return (self.value,)

    def _hashable_content(self):
        return (self.value,)

    def _eval_is_positive(self):
        return self.value > 0

    def _eval_is_negative(self):
        return self.value < 0

    def _eval_is_zero(self):
        return self.value == 0

    def _eval_is_integer(self):
        return False

    def _eval_evalf(self, prec):
        return sympy.Float(self.value, precision=max(prec, 53))

    def _as_mpf_val(self, prec):
        return mpmath.mpf(self.value)._mpf_

    def __float__(self):
        return self.value

    def _sympystr(self, printer):
        return repr(self.value)

    def _latex(self, printer):
        return repr(self.value)


def number(value):
    """A Python int or float as a SymPy number: an int is an ``Integer``; a float whose shortest
    repr is exact (0.5, 2.0, 0.25) is that ``Rational``; any other float a 53-bit ``Float``."""
    if isinstance(value, int):
        return sympy.Integer(value)
    exact = fractions.Fraction(value)
    if fractions.Fraction(repr(value)) == exact:
        return sympy.Rational(exact.numerator, exact.denominator)
    return sympy.Float(value)


def as_python(value):
    """A constant SymPy expression as the Python number the primal holds (int or float)."""
    return int(value) if value.is_Integer else float(value)


def fold(python, build, args):
    """``python(*args)`` on constant SymPy ``args``, computed as the primal computes it (Python
    floats and ints), so a constant folded at build time is the primal's value: SymPy's own
    ``build(*args)`` is kept only where it has that float value (``sqrt(2)`` for ``math.sqrt(2.0)``,
    exact; but ``atan2(0.0, 0.0)`` is Python's 0.0, not SymPy's nan).

    Raises:
        NotComputable: Python raises (``ZeroDivisionError`` → kind 0, ``ValueError`` → 1,
            ``OverflowError`` → 2) or gives an infinite, nan or complex value.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # NumPy's divide-by-zero warning: undefined too
            value = python(*[as_python(a) for a in args])
    except ZeroDivisionError:
        raise NotComputable(0) from None
    except OverflowError:
        raise NotComputable(2) from None
    except (ValueError, ArithmeticError, RuntimeWarning):
        raise NotComputable(1) from None
    if hasattr(value, "item") and hasattr(value, "dtype"):
        value = value.item()  # a NumPy scalar
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise NotComputable(1 if isinstance(value, complex) or value != value else 2,
                            complex=isinstance(value, complex))
    try:
        exact = build(*args)
        if isinstance(exact, sympy.Expr) and exact.is_number and not exact.has(
                sympy.zoo, sympy.nan, sympy.oo, sympy.I, Literal) and float(exact) == value and (
                exact.is_Integer or not exact.is_Number or not isinstance(value, int)):
            return exact
    except (TypeError, ValueError, ArithmeticError):
        pass
    return number(value)



"""SymPy functions for the ``scipy.special`` functions symgrad reads (their rows are in ``rules``).

``erf`` and ``erfc`` are SymPy's own; SymPy has no ``expit``, ``logit`` or ``xlogy``, and its
``loggamma`` and ``digamma`` differentiate into ``polygamma(0, x)``, which has no SciPy spelling of
its own, so each is a function here, printed as the SciPy function of the same name and
differentiated as autograd's ``scipy/special.py`` does (``expit' = expit (1 - expit)``,
``logit' = 1 / (x (1 - x))``, ``gammaln' = digamma``, ``digamma' = polygamma(1, .)``, and for
``xlogy(x, y) = x log(y)``: ``log(y)`` and ``x / y``, as ``jax.scipy.special.xlogy``).
Each evaluates numerically with mpmath (``check_grad``'s 50-digit evaluation). ``np.cbrt``, the
real cube root, is here too, as SymPy's ``cbrt`` is complex for a negative argument.
"""
import mpmath
import sympy
from mpmath.libmp import prec_to_dps


def _mp(function, args, prec):
    """``function`` of the numeric SymPy ``args`` in mpmath at ``prec`` bits, or None."""
    work = prec + 30  # guard bits, so the result is correctly rounded to prec
    values = [a.evalf(prec_to_dps(work)) for a in args]
    if not all(v.is_Number for v in values):
        return None
    with mpmath.workprec(work):
        return sympy.Float(function(*[v._to_mpmath(work) for v in values]), precision=prec)


class _Special(sympy.Function):
    """A real function of real arguments with an mpmath value (``mpmath_value``)."""

    latex_name = None

    def _eval_is_real(self):
        return True

    def _eval_is_extended_real(self):
        return True

    def _eval_evalf(self, prec):
        return _mp(type(self).mpmath_value, self.args, prec)

    def _latex(self, printer):
        inner = ", ".join(printer._print(a) for a in self.args)
        return rf"{self.latex_name}\left({inner}\right)"


class Expit(_Special):
    """``scipy.special.expit(x) = 1 / (1 + exp(-x))``, the logistic sigmoid."""

    nargs = 1
    latex_name = r"\sigma"

    @staticmethod
    def mpmath_value(x):
        return 1 / (1 + mpmath.exp(-x))

    def fdiff(self, argindex=1):
        return self * (1 - self)


class Cbrt(_Special):
    """``np.cbrt(x)``, the real cube root (negative for negative ``x``; SymPy's ``cbrt`` is the
    principal complex root there). Its derivative is autograd's and JAX's, ``1 / (3 cbrt(x)^2)``:
    inf at 0."""

    nargs = 1
    latex_name = r"\sqrt[3]"

    @classmethod
    def eval(cls, x):
        if x.is_zero:
            return sympy.S.Zero
        return None

    @staticmethod
    def mpmath_value(x):
        return mpmath.sign(x) * mpmath.cbrt(abs(x))

    def fdiff(self, argindex=1):
        return 1 / (3 * self ** 2)

    def _latex(self, printer):
        return rf"\sqrt[3]{{{printer._print(self.args[0])}}}"


def cbrt_lower(x):
    """``cbrt`` for a library without one (PyTorch, the Array API): ``sign(x) |x|^(1/3)``."""
    return sympy.sign(x) * sympy.Abs(x) ** sympy.Rational(1, 3)


class Logit(_Special):
    """``scipy.special.logit(p) = log(p / (1 - p))``, the inverse of ``expit``."""

    nargs = 1
    latex_name = r"\operatorname{logit}"

    @staticmethod
    def mpmath_value(p):
        return mpmath.log(p / (1 - p))

    def fdiff(self, argindex=1):
        p = self.args[0]
        return 1 / (p * (1 - p))


class XLogY(_Special):
    """``scipy.special.xlogy(x, y) = x log(y)``, 0 where ``x`` is 0."""

    nargs = 2
    latex_name = r"\operatorname{xlogy}"

    @staticmethod
    def mpmath_value(x, y):
        return mpmath.mpf(0) if x == 0 else x * mpmath.log(y)

    def fdiff(self, argindex=1):
        x, y = self.args
        return sympy.log(y) if argindex == 1 else x / y


class GammaLn(_Special):
    """``scipy.special.gammaln(x) = log|Γ(x)|``."""

    nargs = 1
    latex_name = r"\ln\Gamma"

    @staticmethod
    def mpmath_value(x):
        return mpmath.log(abs(mpmath.gamma(x)))

    def fdiff(self, argindex=1):
        return Digamma(self.args[0])


class Digamma(_Special):
    """``scipy.special.digamma(x) = Γ'(x) / Γ(x)`` (``scipy.special.psi``)."""

    nargs = 1
    latex_name = r"\psi"

    @staticmethod
    def mpmath_value(x):
        return mpmath.digamma(x)

    def fdiff(self, argindex=1):
        return Polygamma(sympy.Integer(1), self.args[0])


class Polygamma(_Special):
    """``scipy.special.polygamma(n, x)``, the n-th derivative of ``digamma`` (n >= 1 here: only
    derivatives make it; ``n`` is a constant integer)."""

    nargs = 2
    integer_arguments = (0,)  # printed as an int literal

    @staticmethod
    def mpmath_value(n, x):
        return mpmath.polygamma(int(n), x)

    def fdiff(self, argindex=2):
        if argindex == 1:
            return sympy.S.Zero  # the order is a constant integer
        return Polygamma(self.args[0] + 1, self.args[1])

    def _latex(self, printer):
        n, x = self.args
        return rf"\psi^{{({printer._print(n)})}}\left({printer._print(x)}\right)"

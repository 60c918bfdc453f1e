"""``math.exp`` and ``math.atan2`` kept in the form the source writes, so no derivative overflows.

SymPy rewrites these as it builds expressions, into forms that are equal as real numbers but
not as floats: ``exp(a)**2`` becomes ``exp(2*a)``, ``1/exp(a)`` becomes ``exp(-a)`` and
``atan2(y, x)`` with ``x > 0`` becomes ``atan(y/x)``. Where ``exp(a)`` is tiny (4e-157) the
rewritten ``exp(-a)`` or ``exp(2*(-a))`` overflows (``math.exp`` raises ``OverflowError``) and
``y/x`` may divide by an underflowed 0.0, though the primal and its derivative, written from the
source's factors (``x / (x*x + y*y)``), are finite. ``Exp`` and ``Atan2`` are SymPy's own
functions with those rewrites left out (numbers still evaluate, ``exp(log(x))`` is still ``x``,
``Exp(a)*Exp(b)`` was never combined); the rules build them for ``math.exp`` and
``math.atan2`` (their spellings, derivatives and printing are those of ``sympy.exp`` and
``sympy.atan2``).
"""
import sympy
from sympy import S


class exp(sympy.exp):  # noqa: N801 - SymPy's name: its printers and evalf find it by name
    """``exp(a)`` that SymPy keeps as one factor: ``Exp(a)**2`` and ``1/Exp(a)`` are powers of
    it (printed ``_t0 * _t0``, ``1.0 / math.exp(a)``), never ``exp(2*a)`` or ``exp(-a)``."""

    def _eval_power(self, other):
        return None

    def as_base_exp(self):
        return self, S.One

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise sympy.ArgumentIndexError(self, argindex)
        return self


class atan2(sympy.atan2):  # noqa: N801 - SymPy's name, as ``exp``
    """``atan2(y, x)`` that SymPy keeps as written: numbers evaluate, but a positive ``x`` does
    not turn it into ``atan(y/x)``; its derivatives are ``x/(x**2 + y**2)`` and
    ``-y/(x**2 + y**2)``."""

    @classmethod
    def eval(cls, y, x):
        if y.is_Number and x.is_Number:
            return sympy.atan2(y, x)
        return None


Exp, Atan2 = exp, atan2


def exp_kept(arg):
    """``math.exp(arg)`` as ``Exp`` (a number argument gives SymPy's exact value)."""
    return sympy.exp(arg) if arg.is_Number else Exp(arg)


def atan2_kept(y, x):
    """``math.atan2(y, x)`` as ``Atan2``."""
    return Atan2(y, x)

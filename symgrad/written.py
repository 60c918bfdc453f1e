"""A value with two forms: SymPy's, to differentiate, and the primal's, to print.

SymPy keeps a value in its own canonical form: ``0.4 - x - y`` is ``-x - y + 0.4`` and
``(x + 0.1) - 0.1`` is ``x``. In float those are other numbers: ``(0.4 - x) - y`` and
``(-x - y) + 0.4`` differ in the last bit for some points, and ``(x + 0.1) - 0.1`` is not always
``x``. A comparison the generated code makes (a tie test of ``max``/``min``, the sign of an
``abs``, a truth test) must compare the primal's floats, so the frontend wraps such an operand
in ``AsWritten(value, StopGradient(written))``: ``value`` is SymPy's form (differentiated: the
derivative is SymPy's), ``written`` the source's form (``rules.Written`` operators over the
primal's names, printed: the generated code computes the primal's float).
"""
import sympy
from sympy import S

from .functions import FirstArgument, StopGradient
from .rules import Written


class AsWritten(FirstArgument):
    """``AsWritten(value, StopGradient(written))``: the derivative of ``value``, printed (by
    ``emit``) as ``written``. The second argument is stopped, so that no derivative is taken of
    it, no assignment is substituted into it (its names are the primal's own lines) and it adds
    no dependency (``unconnected``)."""

    nargs = 2

    @classmethod
    def eval(cls, value, written):
        if isinstance(written, StopGradient):
            written = written.args[0]
        if written.is_Number:  # the primal's constant (folded as Python computes it)
            return written
        if written == value or isinstance(value, AsWritten):
            return value
        return None

    @property
    def written(self):
        """The source's form (``rules.Written`` operators over names)."""
        written = self.args[1]
        return written.args[0] if isinstance(written, StopGradient) else written


def as_written(value, written):
    """``value`` computed as ``written`` (``AsWritten``), or ``value`` itself where ``written``
    is unknown (None) or the same expression.

    Args:
        value: a SymPy expression, SymPy's form of the value.
        written: the same value as the source computes it (``rules.Written`` operators), or None.

    Returns:
        A SymPy expression.
    """
    if written is None or not isinstance(value, sympy.Expr) or \
            isinstance(value, (StopGradient, AsWritten)) or not isinstance(written, sympy.Expr) \
            or _exact(written) == value:
        return value
    return AsWritten(value, StopGradient(written))


def _exact(written):
    """``written`` with the operations that are exact in float taken out (``x * 1``, ``x + 0``,
    ``x / 1``, ``-(-x)``; ``x * 0`` is 0, up to its sign): equal to SymPy's form, it is the
    primal's float too."""
    if not isinstance(written, Written):
        return written
    code, args = int(written.args[0]), [_exact(a) for a in written.args[1:]]
    if code == -1 and isinstance(args[0], Written) and int(args[0].args[0]) == -1:
        return args[0].args[1]
    if code == 2 and any(a.is_zero for a in args):
        return S.Zero
    if code == 2 and args[0] == 1 or code == 0 and args[0].is_zero:
        return args[1]
    if code in (0, 1) and args[1].is_zero or code in (2, 3) and args[1] == 1:
        return args[0]
    return Written(*written.args[:1], *args)

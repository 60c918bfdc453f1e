"""The report of ``check_grad``: ``GradientCheck``, its fields and its printed text.

The layout follows autograd's ``check_grads``: the analytic and the reference value side by side;
differences are shown only for the components that differ, each cut to ``SHOWN_CHARS``
characters. Array code's lines are ``array_check.array_lines``.
"""
import math
from dataclasses import dataclass, field

import sympy

from .array_check import array_lines
from .check_numeric import DIGITS
from .functions import Literal

SHOWN_CHARS = 200  # a difference shown in the report is cut to this many characters
SHOWN_COMPONENTS = 10  # at most this many differing components are listed in the report
SHOWN_RAISED = 3  # at most this many points where a gradient raised are listed in the report
SHOWN_NOTE = 120  # an error message quoted in a note (why df is not read) is cut to this length


@dataclass
class GradientCheck:
    """The report of ``check_grad``.

    Attributes:
        verdict: "equal", "different" or "undecided" (only when no point could be evaluated and
            the difference was not proved 0).
        basis: how the verdict was reached: "symbolic" (every difference simplifies to 0),
            "numeric" (decided by the 50-digit values at the points), None for "undecided".
        wrt: the names (parameters or intermediates), in the order of ``df``'s results.
        names: the component names ``d<out>_d<wrt>``.
        differences: per component, the difference symgrad − df after the symbolic attempt: 0
            where proved equal, else the (partly) simplified SymPy expression, or None where an
            expression was too large to try.
        differing: the names of the components that differ at some point (empty unless
            "different"; empty too when the only difference is that ``df`` raises somewhere).
        points: the points asked for (tuples of floats, in parameter order).
        evaluated: how many of them were evaluated (symgrad's gradient did not raise there).
        worst_point: the point with the largest relative error (a differing one when there is
            one; None without points).
        worst_component: the name of the component that differs most there.
        worst_error: that relative error in floats, |df − symgrad| / max(1, |symgrad|) (a float
            error not confirmed at 50 digits does not make the verdict "different").
        expected: symgrad's value of that component at the worst point.
        got: ``df``'s value there.
        kinks: notes of the points where a component sits on a kink.
        rtol: the tolerance used.
        raised: notes of the given points where symgrad's gradient raises (such a point is
            skipped: the derivative is not defined there) or ``df`` raises (a difference).
        floats_only: notes of the values compared in floats because they have no 50-digit value.
        arrays: True for array code (``shapes=``, see ``array_check``): ``points`` holds the
            sizes of each random trial (compared in float64), ``differences`` per component the
            first element's difference not proved 0 on the concrete shape (0 when all are).
        sizes: array code: the concrete shape of the symbolic half (dimension name → size), None
            when it did not run (``symbolic_note`` says why).
        elements: array code: component name → the indices (tuples) of its elements that differ
            on the concrete shape (or a one-item tuple naming a shape mismatch).
        symbolic_note: why the symbolic half did not run or decide, else None: array code's
            ``df`` cannot run on symbolic arrays; scalar code's ``df`` is not read as source
            (outside the language, or no source: its floats decide alone).
        precise_points: array code: the points of the concrete shape evaluated at 50 digits.
        skipped: scalar code: per component, why SymPy was not tried on its difference (an
            expression over the size budget of ``check_symbolic``, named with its size), or None
            where it was (or the difference was 0 at once); the numbers decide those components.
            Array code: a note per element of the concrete shape skipped so (``"dX[0,1]: ..."``).
        shapes_differ: array code: component name → (the first random size where ``df``'s
            result has another shape than symgrad's, ``"shape (2,) by df, (5,) by symgrad"``).
    """

    verdict: str
    wrt: tuple
    names: tuple
    differences: tuple
    points: list
    basis: str = None
    differing: tuple = ()
    evaluated: int = 0
    worst_point: tuple = None
    worst_component: str = None
    worst_error: float = 0.0
    expected: float = None
    got: float = None
    kinks: list = field(default_factory=list)
    rtol: float = 1e-9
    raised: list = field(default_factory=list)
    floats_only: list = field(default_factory=list)
    arrays: bool = False
    sizes: dict = None
    elements: dict = field(default_factory=dict)
    symbolic_note: str = None
    precise_points: int = 0
    skipped: tuple = ()
    shapes_differ: dict = field(default_factory=dict)

    def __bool__(self):
        """True only for the verdict "equal" (so ``assert check_grad(f, df)`` fails for
        "different" and for "undecided", where nothing was proved or evaluated; ``assert_grad``
        passes "undecided")."""
        return self.verdict == "equal"

    def __str__(self):
        basis = f", basis {self.basis}" if self.basis else ""
        lines = [f"check_grad: {self.verdict}{basis} (wrt {', '.join(self.wrt)}, "
                 f"{len(self.points)} point{'s' * (len(self.points) != 1)}, rtol {self.rtol:g})"]
        if self.arrays:
            return "\n".join(lines + array_lines(self, _shown, SHOWN_COMPONENTS))
        n, proved = len(self.names), sum(1 for d in self.differences if _is_zero(d))
        skipped = self.skipped or (None,) * n
        if self.verdict == "different":
            shown = [name for name in self.names if name in self.differing]
            for name in shown[:SHOWN_COMPONENTS]:
                k = self.names.index(name)
                why = f" (not simplified: {skipped[k]})" if skipped[k] else ""
                lines.append(f"  {name} differs" if self.symbolic_note else
                             f"  {name} differs: symgrad - df = {_shown(self.differences[k])}"
                             f"{why}")
            if len(shown) > SHOWN_COMPONENTS:
                lines.append(f"  ... and {len(shown) - SHOWN_COMPONENTS} more differing")
            if not shown:
                pass  # only df raised (see the raised: lines)
            elif n - len(shown) == 1:
                lines.append("  the other component agrees")
            elif len(shown) < n:
                lines.append(f"  the other {n - len(shown)} of {n} components agree")
        elif self.basis == "symbolic":
            lines.append("  symgrad - df simplifies to 0" + (" in every component" * (n > 1)))
        elif self.basis == "numeric":
            every = f"all {n} components agree" if n > 1 else "it agrees"
            how = ", in floats" if self.symbolic_note else \
                f", at {DIGITS} digits{_how(self.names, proved, skipped)}"
            lines.append(f"  {every} within rtol at the {self.evaluated} point"
                         f"{'s' * (self.evaluated != 1)} evaluated{how}")
        else:
            lines.append("  no point could be evaluated: pass points= where the function and "
                         "its gradient are defined")
            unproved = [] if self.symbolic_note else [
                (name, d, why) for name, d, why in zip(self.names, self.differences, skipped)
                if not _is_zero(d)]
            for name, d, why in unproved[:SHOWN_COMPONENTS]:
                why = f": the symbolic comparison was skipped by size, {why}" if why else ""
                lines.append(f"  {name}: symgrad - df = {_shown(d)} (not proved 0{why})")
        if self.symbolic_note:
            lines.append(f"  not symbolic: {self.symbolic_note}")
        if self.worst_point is not None:
            lines.append(f"  worst point {self.worst_point}: {self.worst_component} is "
                         f"{self.got!r} by df, {self.expected!r} by symgrad "
                         f"(relative error {self.worst_error:.3g})")
        lines.extend(f"  kink: {note}" for note in self.kinks)
        lines.extend(f"  raised: {note}" for note in self.raised[:SHOWN_RAISED])
        if len(self.raised) > SHOWN_RAISED:
            lines.append(f"  raised: ... and {len(self.raised) - SHOWN_RAISED} more (in .raised)")
        lines.extend(f"  floats only: {note}" for note in self.floats_only)
        return "\n".join(lines)


def _is_zero(difference):
    return difference is not None and difference == 0


def _how(names, proved, skipped):
    """The end of the line of a numeric "equal": what the symbolic half did, and that the
    numbers decided where it was skipped."""
    n, count = len(names), sum(1 for why in skipped if why)
    if not count:
        return f" (symgrad - df simplifies to 0 in {proved} of {n})" if n > 1 else \
            " (SymPy did not simplify symgrad - df to 0)"
    first = next(k for k, why in enumerate(skipped) if why)
    if n == 1:
        return f": the numbers decided (the symbolic comparison was skipped by size: " \
            f"{skipped[first]})"
    which = f"all {n} components" if count == n else f"{count} of {n} components"
    tried = f"symgrad - df simplifies to 0 in {proved} of {n}; " if count < n else ""
    return f": the numbers decided ({tried}the symbolic comparison was skipped by size in " \
        f"{which}; in {names[first]}, {skipped[first]})"


def _shown(difference):
    """A difference as the report prints it, cut to ``SHOWN_CHARS``: its numeric factors
    multiplied out (``_folded``; the printing only, the compared values are not changed)."""
    if difference is None:
        return "(too large to simplify)"
    try:
        text = str(_folded(difference))
    except Exception:  # noqa: BLE001 - the printing only: an exotic tree is shown unfolded
        text = str(difference)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


def _folded(expr):
    """``expr`` with the numbers of each product (and a number's integer power) multiplied out
    in float as Python computes them, for printing: ``8*1.9`` is ``15.2``. SymPy folds exact
    numbers itself; a ``Literal`` (a float kept opaque so that SymPy does not fold it into a
    sum: ``mu - 1.9``) stays a factor once the sum is multiplied out (``8*mu - 8*1.9``)."""
    def numeric(e):
        return e.is_Number or isinstance(e, Literal)

    def fold(e):
        if e.is_Pow:
            return Literal(float(e.base) ** int(e.exp))
        value = math.prod(float(a) for a in e.args if numeric(a))
        rest = [a for a in e.args if not numeric(a)]
        if not rest:
            return Literal(value)
        factors = [sympy.S.NegativeOne, Literal(-value)] if value < 0 else [Literal(value)]
        return sympy.Mul(*factors, *rest, evaluate=False)

    def unfolded(e):
        return (e.is_Mul and sum(1 for a in e.args if numeric(a)) > 1 or e.is_Pow and isinstance(
            e.base, Literal) and e.exp.is_Integer) and any(isinstance(a, Literal) for a in e.args)
    return expr.replace(unfolded, fold)

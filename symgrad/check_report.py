"""The report of ``check_grad``: ``GradientCheck``, its fields and its printed text.

The layout follows autograd's ``check_grads``: the analytic and the reference value side by side;
differences are shown only for the components that differ, each cut to ``SHOWN_CHARS``
characters. Array code's lines are ``array_check.array_lines``.
"""
from dataclasses import dataclass, field

from .array_check import array_lines
from .check_numeric import DIGITS

SHOWN_CHARS = 200  # a difference shown in the report is cut to this many characters
SHOWN_COMPONENTS = 10  # at most this many differing components are listed in the report


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
        symbolic_note: array code: why the symbolic half did not run or decide, else None.
        precise_points: array code: the points of the concrete shape evaluated at 50 digits.
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

    def __str__(self):
        basis = f", basis {self.basis}" if self.basis else ""
        lines = [f"check_grad: {self.verdict}{basis} (wrt {', '.join(self.wrt)}, "
                 f"{len(self.points)} point{'s' * (len(self.points) != 1)}, rtol {self.rtol:g})"]
        if self.arrays:
            return "\n".join(lines + array_lines(self, _shown, SHOWN_COMPONENTS))
        n, proved = len(self.names), sum(1 for d in self.differences if _is_zero(d))
        if self.verdict == "different":
            shown = [name for name in self.names if name in self.differing]
            for name in shown[:SHOWN_COMPONENTS]:
                difference = self.differences[self.names.index(name)]
                lines.append(f"  {name} differs: symgrad - df = {_shown(difference)}")
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
            how = (f"symgrad - df simplifies to 0 in {proved} of {n}" if n > 1 else
                   "SymPy did not simplify symgrad - df to 0")
            lines.append(f"  {every} within rtol at the {self.evaluated} point"
                         f"{'s' * (self.evaluated != 1)} evaluated, at {DIGITS} digits ({how})")
        else:
            lines.append("  no point could be evaluated: pass points= where the function and "
                         "its gradient are defined")
            unproved = [(name, d) for name, d in zip(self.names, self.differences)
                        if not _is_zero(d)]
            for name, d in unproved[:SHOWN_COMPONENTS]:
                lines.append(f"  {name}: symgrad - df = {_shown(d)} (not proved 0)")
        if self.worst_point is not None:
            lines.append(f"  worst point {self.worst_point}: {self.worst_component} is "
                         f"{self.got!r} by df, {self.expected!r} by symgrad "
                         f"(relative error {self.worst_error:.3g})")
        lines.extend(f"  kink: {note}" for note in self.kinks)
        lines.extend(f"  raised: {note}" for note in self.raised)
        lines.extend(f"  floats only: {note}" for note in self.floats_only)
        return "\n".join(lines)


def _is_zero(difference):
    return difference is not None and difference == 0


def _shown(difference):
    if difference is None:
        return "(too large to simplify)"
    text = str(difference)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."

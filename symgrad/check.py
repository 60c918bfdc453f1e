"""Checking a hand-derived gradient: a symbolic verdict first, then numbers at points.

``check_grad(f, df)`` reads both functions the way ``grad`` reads ``f``, compares ``df`` with
symgrad's derivative symbolically (SymPy ``simplify`` of the difference), then evaluates both at
points. A numeric disagreement is confirmed at 50 significant digits (mpmath, through SymPy's
``evalf``) before it is reported, so cancellation in floating point never raises a false alarm.
At a kink (the one-sided slopes differ, e.g. ``abs`` at 0) any value between the one-sided slopes
is accepted, and the report says so. The report layout follows autograd's ``check_grads``: the
analytic and the reference value side by side.
"""
import math
import random
from dataclasses import dataclass, field

import sympy
from sympy.core.parameters import distribute

from .api import grad, normalize_wrt
from .differentiate import differentiate
from .errors import OutputShapeError
from .frontend import to_program
from .program import substituted_outputs, tree_size
from .rules import StopGradient

DIGITS = 50
SYMBOLIC_MAX_NODES = 2000  # larger derivatives skip the symbolic comparison (verdict from numbers)


@dataclass
class GradientCheck:
    """The report of ``check_grad``.

    Attributes:
        verdict: "equal" (the difference simplifies to 0), "different" (some point differs by more
            than ``rtol``, confirmed at 50 digits) or "undecided" (not proved equal, no point
            differs).
        wrt: the parameter names, in the order of ``df``'s results.
        names: the component names ``d<out>_d<wrt>``.
        differences: per component, the simplified SymPy difference (symgrad − df), or None where
            the expression was too large to simplify.
        points: the points evaluated (tuples of floats, in parameter order).
        worst_point: the point with the largest relative error (None without points).
        worst_component: the name of the component that differs most there.
        worst_error: that relative error in floats, |df − symgrad| / max(1, |symgrad|) (a float
            error not confirmed at 50 digits does not make the verdict "different").
        expected: symgrad's value of that component at the worst point.
        got: ``df``'s value there.
        kinks: notes of the points where a component sits on a kink.
        rtol: the tolerance used.
        raised: notes of the given points where symgrad's gradient raises (such a point is
            skipped: the derivative is not defined there) or ``df`` raises (a difference).
    """

    verdict: str
    wrt: tuple
    names: tuple
    differences: tuple
    points: list
    worst_point: tuple = None
    worst_component: str = None
    worst_error: float = 0.0
    expected: float = None
    got: float = None
    kinks: list = field(default_factory=list)
    rtol: float = 1e-9
    raised: list = field(default_factory=list)

    def __str__(self):
        lines = [f"check_grad: {self.verdict} (wrt {', '.join(self.wrt)}, "
                 f"{len(self.points)} points, rtol {self.rtol:g})"]
        for name, difference in zip(self.names, self.differences):
            shown = "not simplified (too large)" if difference is None else str(difference)
            lines.append(f"  {name}: symgrad - df simplifies to {shown}")
        if self.worst_point is not None:
            lines.append(f"  worst point {self.worst_point}: {self.worst_component} is "
                         f"{self.got!r} by df, {self.expected!r} by symgrad "
                         f"(relative error {self.worst_error:.3g})")
        lines.extend(f"  kink: {note}" for note in self.kinks)
        lines.extend(f"  raised: {note}" for note in self.raised)
        return "\n".join(lines)


def check_grad(f, df, wrt=None, points=None, rtol=1e-9, seed=0):
    """Check a hand-derived gradient ``df`` of ``f``.

    Args:
        f: the primal, a function symgrad can read (docs/language.md), returning one number.
        df: the hand-derived gradient: same parameters (matched by position), returning one number
            for one ``wrt`` and a tuple in ``wrt`` order otherwise. Read from source like ``f``.
        wrt: as for ``grad``.
        points: tuples of floats (or floats, for one parameter) to evaluate at; a point where
            symgrad's gradient raises is skipped and noted; None draws 10 random points (seeded by ``seed``,
            reproducible) in [-2, 2] where ``f``, its gradient and ``df`` all evaluate.
        rtol: relative tolerance, on |df − symgrad| / max(1, |symgrad|).
        seed: the random seed for the points.

    Returns:
        A ``GradientCheck`` report (``str()`` of it is readable).

    Raises:
        OutputShapeError: ``df`` returns a different number of values than there are ``wrt``.
        The errors of ``grad`` for ``f`` or ``df``.
    """
    with distribute(False):
        return _check(f, df, wrt, points, rtol, seed)


def assert_grad(f, df, wrt=None, points=None, rtol=1e-9, seed=0):
    """Like ``check_grad``, for tests: raise ``AssertionError`` with the report when "different".

    Returns:
        The ``GradientCheck`` report when the verdict is "equal" or "undecided".

    Raises:
        AssertionError: the verdict is "different"; the message is the report.
    """
    report = check_grad(f, df, wrt=wrt, points=points, rtol=rtol, seed=seed)
    if report.verdict == "different":
        raise AssertionError(str(report))
    return report


def _check(f, df, wrt, points, rtol, seed):
    primal = to_program(f)
    wrt_names, _single = normalize_wrt(primal, wrt)
    hand = to_program(df)
    if len(hand.outputs) != len(wrt_names):
        count = len(hand.outputs)
        raise OutputShapeError(f"`{hand.name}` returns {count} value{'s' * (count != 1)} for "
                               f"{len(wrt_names)} wrt {wrt_names}")
    if len(hand.params) != len(primal.params):
        raise OutputShapeError(f"`{hand.name}` takes {len(hand.params)} parameters, "
                               f"`{primal.name}` takes {len(primal.params)}")
    derivative = differentiate(primal, wrt_names)
    names = derivative.output_names
    theirs = _in_primal_symbols(hand, primal)
    differences = tuple(_difference(ours, mine) for ours, mine in zip(
        _symbolic(derivative), theirs))
    gradient = grad(f, wrt=wrt_names)
    if points is None:
        points = _random_points(f, gradient, df, primal, seed)
    else:
        points = [tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in points]
    worst = dict(error=0.0, point=None, component=None, expected=None, got=None)
    kinks, different, raised = [], False, []
    for point in points:
        try:
            ours = _as_tuple(gradient(*point))
        except (ArithmeticError, ValueError) as exc:
            raised.append(f"symgrad's gradient raises {type(exc).__name__} at {point}: {exc}")
            continue
        try:
            mine = _as_tuple(df(*point))
        except (ArithmeticError, ValueError) as exc:
            raised.append(f"df raises {type(exc).__name__} at {point} where symgrad gives {ours}")
            different = True
            continue
        for i, (a, b) in enumerate(zip(ours, mine)):
            error = abs(b - a) / max(1.0, abs(a))
            if error > rtol and _differs_precisely(derivative, hand, i, point, rtol):
                bounds = _one_sided(primal, wrt_names[i], point)
                if bounds is not None:
                    low, high = bounds
                    kinks.append(f"{names[i]} at {point}: one-sided slopes {float(low):.17g} "
                                 f"and {float(high):.17g}; df gives {b!r}")
                    if low - rtol <= b <= high + rtol:
                        continue
                different = True
            if error > worst["error"] or worst["point"] is None:
                worst.update(error=error, point=tuple(point), component=names[i],
                             expected=a, got=b)
    if different:
        verdict = "different"
    elif all(d is not None and d == 0 for d in differences):
        verdict = "equal"
    else:
        verdict = "undecided"
    return GradientCheck(verdict=verdict, wrt=wrt_names, names=names, differences=differences,
                         points=[tuple(p) for p in points], worst_point=worst["point"],
                         worst_component=worst["component"], worst_error=worst["error"],
                         expected=worst["expected"], got=worst["got"], kinks=kinks, rtol=rtol,
                         raised=raised)


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _symbolic(program):
    """The outputs as expressions of the parameters, or None where too large to simplify."""
    return [out if tree_size(out, SYMBOLIC_MAX_NODES + 1) <= SYMBOLIC_MAX_NODES else None
            for out in substituted_outputs(program)]


def _in_primal_symbols(hand, primal):
    rename = dict(zip(hand.params, primal.params))
    return [None if e is None else e.xreplace(rename) for e in _symbolic(hand)]


def _difference(ours, theirs):
    if ours is None or theirs is None:
        return None
    difference = _unstop(ours - theirs)
    try:
        return sympy.simplify(difference)
    except Exception:  # noqa: BLE001 - simplify can fail on exotic input; then undecided
        return None


def _unstop(expr):
    """StopGradient(e) is e in value: remove the markers before comparing values."""
    return expr.replace(lambda e: isinstance(e, StopGradient), lambda e: e.args[0])


def _random_points(f, gradient, hand, primal, seed, wanted=10, tries=200):
    """Points in [-2, 2] where f, its gradient and df all give finite numbers; a parameter fixed
    at build time (a range() bound) keeps its default."""
    rng = random.Random(seed)
    points = []
    for _ in range(tries):
        point = tuple(primal.static[name] if name in primal.static else
                      round(rng.uniform(-2.0, 2.0), 6) for name in primal.param_names)
        try:
            values = [f(*point), *_as_tuple(gradient(*point)), *_as_tuple(hand(*point))]
        except (ArithmeticError, ValueError):
            continue
        if all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            points.append(point)
            if len(points) == wanted:
                break
    return points


def evaluate(program, point, digits=DIGITS):
    """Every output of ``program`` at ``point``, as SymPy Floats of ``digits`` significant digits.

    Assignment by assignment (linear in the program), each value rounded to ``digits``.
    """
    values = {p: v if isinstance(v, sympy.Float) else sympy.Float(float(v), digits)
              for p, v in zip(program.params, point)}
    for a in program.assignments:
        values[a.target] = _unstop(a.expr.xreplace(values)).evalf(digits)
    return [None if out is None else _unstop(out.xreplace(values)).evalf(digits)
            for out in program.outputs]


def _differs_precisely(derivative, hand, index, point, rtol):
    """Whether component ``index`` still differs by more than ``rtol`` at 50 digits (so float
    cancellation in either function is never reported as a difference)."""
    ours, theirs = evaluate(derivative, point)[index], evaluate(hand, point)[index]
    return float(abs(theirs - ours) / max(1, abs(ours))) > rtol


def _one_sided(primal, name, point, digits=DIGITS):
    """The one-sided slopes (low, high) of the primal along ``name`` when they differ, else None."""
    position = primal.param_names.index(name)
    h = sympy.Float(10, digits) ** -20

    def value(shift):
        moved = [sympy.Float(float(v), digits) for v in point]
        moved[position] += shift
        return evaluate(primal, moved, digits)[0]

    try:
        centre = value(0)
        left = (centre - value(-h)) / h
        right = (value(h) - centre) / h
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if abs(left - right) <= sympy.Float(10, digits) ** -10 * max(1, abs(left)):
        return None
    return (min(left, right), max(left, right))

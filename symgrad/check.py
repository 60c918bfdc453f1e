"""Checking a hand-derived gradient: a bounded symbolic attempt, then 50-digit numbers decide.

``check_grad(f, df)`` reads both functions the way ``grad`` reads ``f`` (or takes ``df``'s program
when it is a ``GradientFunction``) and compares ``df`` with symgrad's derivative, component by
component:

1. symbolically, within a budget: the difference ``symgrad - df`` is normalised cheaply
   (``cancel``) and, when it is small, ``simplify``-d; a difference that becomes 0 is proved
   equal (basis ``"symbolic"``). The budget is by size (``_normalising_cost``), checked before
   SymPy is called, never by time: the report is the same on every machine;
2. numerically: both are evaluated at the points in floats and again at 50 significant digits
   (mpmath, through SymPy's ``evalf``); the 50-digit values decide, so cancellation in floating
   point never raises a false alarm, and a correct gradient SymPy cannot simplify is still
   ``"equal"`` (basis ``"numeric"``).

At a kink (the one-sided slopes differ, e.g. ``abs`` at 0) any value between the one-sided slopes
is accepted, and the report says so. The report layout follows autograd's ``check_grads``: the
analytic and the reference value side by side.
"""
import math
import random
from dataclasses import dataclass, field

import sympy
from sympy.core.parameters import distribute

from .api import GradientFunction, _primal_program, grad, normalize_wrt
from .array_check import array_lines, check_arrays
from .differentiate import _substituted_size, differentiate
from .errors import OptionError, OutputShapeError, public_entry
from .frontend import to_program
from .program import substituted_outputs, tree_size
from .functions import StopGradient

DIGITS = 50
RANDOM_POINTS = 10  # points drawn when none are given
SYMBOLIC_MAX_NODES = 2000  # larger expressions skip the symbolic comparison (numbers decide)
CHEAP_MAX_NODES = 600  # larger differences are not normalised (numbers decide)
SIMPLIFY_MAX_NODES = 80  # smaller differences not normalised to 0 get SymPy's full `simplify`
NORMALISE_MAX_COST = 1000  # nodes x terms of the common denominator: above it no cancel/simplify
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


def check_grad(f, df, wrt=None, points=None, rtol=1e-9, seed=0, strategy="auto", shapes=None):
    """Check a hand-derived gradient ``df`` of ``f``.

    The verdict is "equal" with basis "symbolic" when every difference symgrad − df simplifies
    to 0 (within a size budget, so the check stays fast); otherwise the points decide at 50
    digits: "different" when some component differs by more than ``rtol`` at some point (or
    ``df`` raises where symgrad's gradient does not), else "equal" with basis "numeric".
    "undecided" only when no point could be evaluated.

    Args:
        f: the primal, a function symgrad can read (see docs/language.md) returning one number,
            or a ``GradientFunction`` with one result (its derivative is then checked).
        df: the hand-derived gradient: same parameters (matched by position), returning one number
            for one ``wrt`` and a tuple in ``wrt`` order otherwise. Read from source like ``f``;
            a ``GradientFunction`` from ``symgrad.grad`` is taken as it is (its program).
        wrt: as for ``grad``.
        points: tuples of floats (or floats, for one parameter) to evaluate at, where a point at
            which symgrad's gradient raises is skipped and noted; or an int N (N >= 1) to draw N
            random points; None draws 10. Random points are drawn in [-2, 2] (seeded by
            ``seed``, reproducible) where ``f``, its gradient and ``df`` all evaluate; a
            parameter with a default that is not in ``wrt`` keeps its default.
        rtol: relative tolerance (>= 0), on |df − symgrad| / max(1, |symgrad|).
        seed: the random seed for the points.
        strategy: how symgrad's gradient is built, as for ``grad``.
        shapes: for array code, as for ``grad``: the check is then symbolic on one small
            concrete shape (each named dimension 3, 2, 4 ...; 50-digit values at points decide
            the elements not proved equal) and numeric, in float64, at ``points`` (an int,
            default 5) random sizes of every named dimension (2 to 6); see ``array_check``.

    Returns:
        A ``GradientCheck`` report (``str()`` of it is readable: differences are shown only for
        the components that differ, each cut to 200 characters).

    Raises:
        OutputShapeError: ``df`` returns a different number of values than there are ``wrt``,
            or takes a different number of parameters than ``f``.
        OptionError: ``points`` is an int below 1 (or, with ``shapes``, not an int), ``rtol``
            is negative or not a number, or
            ``df`` is a ``GradientFunction`` other than a gradient (``symgrad.grad``) or built
            with ``unconnected="none"``.
        The errors of ``grad`` for ``f`` or ``df``.
    """
    with public_entry(), distribute(False):
        if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not rtol >= 0:
            raise OptionError(f"rtol must be a number >= 0, not {rtol!r}")
        if shapes is not None:  # array code: a concrete shape, then random sizes (array_check)
            if isinstance(points, bool) or not (points is None or isinstance(points, int)
                                                and points >= 1):
                raise OptionError(f"with shapes=, points is a number of random sizes >= 1, not "
                                  f"{points!r}")
            return check_arrays(GradientCheck, grad(f, wrt=wrt, shapes=shapes), f, df, shapes,
                                points, rtol, seed, _difference)
        return _check(f, df, wrt, points, rtol, seed, strategy)


def assert_grad(f, df, wrt=None, points=None, rtol=1e-9, seed=0, strategy="auto", shapes=None):
    """Like ``check_grad``, for tests: raise ``AssertionError`` with the report when "different".

    Returns:
        The ``GradientCheck`` report when the verdict is "equal" or "undecided".

    Raises:
        AssertionError: the verdict is "different"; the message is the report.
        The errors of ``check_grad``.
    """
    with public_entry():
        report = check_grad(f, df, wrt=wrt, points=points, rtol=rtol, seed=seed,
                            strategy=strategy, shapes=shapes)
    if report.verdict == "different":
        raise AssertionError(str(report))
    return report


def _check(f, df, wrt, points, rtol, seed, strategy):
    if isinstance(points, bool) or (isinstance(points, int) and points < 1):
        raise OptionError(f"points must be point tuples or a number of points >= 1, not "
                          f"{points!r}")
    primal = _primal_program(f, (), wrt)
    wrt_names, _single = normalize_wrt(primal, wrt)
    hand = _hand_program(df)
    if len(hand.outputs) != len(wrt_names):
        count = len(hand.outputs)
        raise OutputShapeError(f"`{hand.name}` returns {count} value{'s' * (count != 1)} for "
                               f"{len(wrt_names)} wrt {wrt_names}")
    if len(hand.params) != len(primal.params):
        raise OutputShapeError(f"`{hand.name}` takes {len(hand.params)} parameters, "
                               f"`{primal.name}` takes {len(primal.params)}")
    derivative = differentiate(primal, wrt_names, strategy=strategy)
    names = derivative.output_names
    theirs = _in_primal_symbols(hand, primal)
    differences = tuple(_difference(ours, mine) for ours, mine in zip(
        _symbolic(derivative), theirs))
    gradient = grad(f, wrt=wrt_names, strategy=strategy)
    if points is None or isinstance(points, int):
        points = _random_points(f, gradient, df, primal, wrt_names, seed,
                                points or RANDOM_POINTS)
    else:
        points = [tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in points]
    numbers = _Numbers(primal, derivative, hand, wrt_names, rtol)
    for point in points:
        numbers.compare(point, gradient, df)
    differing = tuple(name for i, name in enumerate(names) if i in numbers.differing)
    if differing or numbers.df_raised:
        verdict, basis = "different", "numeric"
    elif all(_is_zero(d) for d in differences):
        verdict, basis = "equal", "symbolic"
    elif numbers.evaluated:
        verdict, basis = "equal", "numeric"
    else:
        verdict, basis = "undecided", None
    worst = numbers.worst
    return GradientCheck(verdict=verdict, basis=basis, wrt=wrt_names, names=names,
                         differences=differences, differing=differing,
                         points=[tuple(p) for p in points], evaluated=numbers.evaluated,
                         worst_point=worst["point"], worst_component=worst["component"],
                         worst_error=worst["error"], expected=worst["expected"],
                         got=worst["got"], kinks=numbers.kinks, rtol=rtol,
                         raised=numbers.raised, floats_only=numbers.floats_only)


def _hand_program(df):
    """The ``Program`` of ``df``: read from source, or a ``GradientFunction``'s own."""
    if not isinstance(df, GradientFunction):
        return to_program(df)
    if df.kind != "grad":
        raise OptionError(f"df is a symgrad {df.kind}; check_grad compares gradients: pass "
                          "symgrad.grad(...) or a hand-derived function")
    if None in df.program.outputs:
        raise OptionError("df was built with unconnected='none'; build it with 'zero' to check it")
    return df.program


class _Numbers:
    """The numeric half: every point compared in floats and at 50 digits, the findings kept."""

    def __init__(self, primal, derivative, hand, wrt_names, rtol):
        self.primal, self.derivative, self.hand = primal, derivative, hand
        self.wrt_names, self.rtol = wrt_names, rtol
        self.names = derivative.output_names
        self.evaluated, self.differing, self.df_raised = 0, set(), False
        self.kinks, self.raised, self.floats_only = [], [], []
        self.worst = dict(error=0.0, point=None, component=None, expected=None, got=None,
                          differs=False)

    def compare(self, point, gradient, df):
        try:
            ours = _as_tuple(_call(gradient, self.primal, point))
        except _FAILURES as exc:
            self.raised.append(f"symgrad's gradient raises {type(exc).__name__} at {point}: "
                               f"{exc}")
            return
        self.evaluated += 1
        try:
            mine = _as_tuple(_call(df, self.primal, point))
        except _FAILURES as exc:
            self.raised.append(f"df raises {type(exc).__name__} at {point} where symgrad gives "
                               f"{ours}")
            self.df_raised = True
            return
        precise_ours, precise_mine = _precise(self.derivative, point), _precise(self.hand, point)
        for i, (a, b) in enumerate(zip(ours, mine)):
            error = _relative_error(a, b)
            if precise_ours[i] is None or precise_mine[i] is None:
                self.floats_only.append(f"{self.names[i]} at {point}")
                decisive = error
            else:
                decisive = float(abs(precise_mine[i] - precise_ours[i])
                                 / max(1, abs(precise_ours[i])))
            differs = decisive > self.rtol and not self._at_kink(i, point, b)
            if differs:
                self.differing.add(i)
            if (differs, error) > (self.worst["differs"], self.worst["error"]) or (
                    self.worst["point"] is None):
                self.worst.update(error=error, point=tuple(point), component=self.names[i],
                                  expected=a, got=b, differs=differs)

    def _at_kink(self, i, point, value):
        """Whether ``value`` lies between the one-sided slopes at a kink (noted either way)."""
        bounds = _one_sided(self.primal, self.wrt_names[i], point)
        if bounds is None:
            return False
        low, high = bounds
        self.kinks.append(f"{self.names[i]} at {point}: one-sided slopes {float(low):.17g} "
                          f"and {float(high):.17g}; df gives {value!r}")
        return low - self.rtol <= value <= high + self.rtol


def _relative_error(ours, theirs):
    """|theirs − ours| / max(1, |ours|) in floats; 0 for the same infinity or two NaNs."""
    if math.isfinite(ours) and math.isfinite(theirs):
        return abs(theirs - ours) / max(1.0, abs(ours))
    same = ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    return 0.0 if same else math.inf


def _precise(program, point):
    """The outputs at 50 digits, None for each one without a finite real value there."""
    try:
        values = evaluate(program, point)
    except (ArithmeticError, TypeError, ValueError):
        return [None] * len(program.outputs)
    return [v if isinstance(v, sympy.Number) and v.is_finite else None for v in values]


_FAILURES = (ArithmeticError, ValueError, AssertionError)
"""What a function raises at a point outside its domain (an ``assert`` of the primal included)."""


def _call(function, primal, point):
    """``function`` at ``point`` (a value per parameter of ``primal``), its keyword-only
    parameters passed by keyword."""
    split = len(primal.positional)
    return function(*point[:split], **dict(zip(primal.kwonly, point[split:])))


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _is_zero(difference):
    return difference is not None and difference == 0


def _shown(difference):
    if difference is None:
        return "(too large to simplify)"
    text = str(difference)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


def _symbolic(program):
    """The outputs as expressions of the parameters; all None when one would have more than
    SYMBOLIC_MAX_NODES nodes (measured without substituting: an unrolled loop can be
    exponentially large as a tree)."""
    if _substituted_size(program) > SYMBOLIC_MAX_NODES:
        return [None] * len(program.outputs)
    return list(substituted_outputs(program))


def _in_primal_symbols(hand, primal):
    rename = dict(zip(hand.params, primal.params))
    return [None if e is None else e.xreplace(rename) for e in _symbolic(hand)]


def _difference(ours, theirs):
    """symgrad − df simplified within the budget: 0 when proved equal, else the smallest form
    reached (fewest nodes), which the report shows."""
    if ours is None or theirs is None:
        return None
    difference = _unstop(ours - theirs)
    size = tree_size(difference, CHEAP_MAX_NODES + 1)
    if difference == 0 or size > CHEAP_MAX_NODES or (
            _normalising_cost(difference) > NORMALISE_MAX_COST):
        return difference
    forms = [difference]
    for attempt in (sympy.cancel, sympy.simplify):  # one fraction (functions as variables)
        if attempt is sympy.simplify and size > SIMPLIFY_MAX_NODES:
            break
        try:
            forms.append(attempt(difference))
        except Exception:  # noqa: BLE001 - SymPy can fail on exotic input; the numbers decide
            continue
        if forms[-1] == 0:
            return forms[-1]
    return min(forms, key=lambda form: tree_size(form, CHEAP_MAX_NODES * 4))


def _normalising_cost(expr):
    """The work of putting ``expr`` over one denominator, from its tree alone (no SymPy algebra,
    no timer): its nodes times the terms of the common denominator once expanded, the product
    over the distinct bases of negative integer powers of (the base's terms) ** (largest power).
    A loss over N data points, each with its own ``exp(-z)``, costs 2 ** N times its nodes."""
    largest = {}
    for power in expr.atoms(sympy.Pow):
        if power.exp.is_Integer and power.exp < 0 and not power.base.is_Number:
            largest[power.base] = max(largest.get(power.base, 0), -int(power.exp))
    terms = math.prod((len(b.args) if b.is_Add else 1) ** k for b, k in largest.items())
    return tree_size(expr, CHEAP_MAX_NODES + 1) * terms


def _unstop(expr):
    """StopGradient(e) is e in value: remove the markers before comparing values."""
    return expr.replace(lambda e: isinstance(e, StopGradient), lambda e: e.args[0])


def _random_points(f, gradient, hand, primal, wrt_names, seed, wanted, tries_per_point=20):
    """Points in [-2, 2] where f, its gradient and df all give finite numbers; a parameter fixed
    at build time (a range() bound), or with a default and not in ``wrt`` (a hyperparameter),
    keeps its default."""
    names = primal.param_names
    positional = [p.name for p in primal.positional]
    fixed = dict(zip(positional[len(positional) - len(primal.defaults):], primal.defaults))
    fixed.update((name, value) for name, value in primal.kwonly.items() if value is not None)
    fixed = {name: value for name, value in fixed.items() if name not in wrt_names}
    fixed.update(primal.static)
    rng = random.Random(seed)
    points = []
    for _ in range(max(200, tries_per_point * wanted)):
        point = tuple(fixed[name] if name in fixed else round(rng.uniform(-2.0, 2.0), 6)
                      for name in names)
        try:
            values = [_call(f, primal, point), *_as_tuple(_call(gradient, primal, point)),
                      *_as_tuple(_call(hand, primal, point))]
        except _FAILURES:
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
    for a in program.bindings:
        values[a.target] = _unstop(a.expr.xreplace(values)).evalf(digits)
    return [None if out is None else _unstop(out.xreplace(values)).evalf(digits)
            for out in program.outputs]


def _one_sided(primal, name, point, digits=DIGITS):
    """The one-sided slopes (low, high) of the primal along ``name`` when they differ, else None
    (also for an intermediate variable, which has no argument to move)."""
    if name not in primal.param_names:
        return None
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
    if not all(isinstance(v, sympy.Number) and v.is_finite for v in (left, right)):
        return None
    if abs(left - right) <= sympy.Float(10, digits) ** -10 * max(1, abs(left)):
        return None
    return (min(left, right), max(left, right))

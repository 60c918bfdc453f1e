"""The numeric half of ``check_grad``: both gradients at points, in floats and at 50 digits.

``_Numbers.compare`` evaluates symgrad's gradient and ``df`` at a point in floats and both programs
again at ``DIGITS`` significant digits (mpmath, through SymPy's ``evalf``, assignment by
assignment: ``evaluate``); the 50-digit values decide, so cancellation in floating point never
raises a false alarm. At a kink (``_one_sided``: the one-sided slopes differ) any value between
the slopes is accepted. ``_random_points`` draws the points where none are given.
"""
import math
import numbers
import random

import sympy

from .check_symbolic import _unstop
from .functions import FirstArgument, Value

DIGITS = 50
RANDOM_POINTS = 10  # points drawn when none are given


class _Numbers:
    """The numeric half: every point compared in floats and at 50 digits, the findings kept."""

    def __init__(self, primal, derivative, hand, wrt_names, rtol):
        self.primal, self.derivative, self.hand = primal, derivative, hand
        self.wrt_names, self.rtol = wrt_names, rtol
        self.names = derivative.output_names
        self.evaluated, self.differing, self.df_raised = 0, set(), False
        self.counts = None  # the number of values df returned when it is not len(wrt_names)
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
        except Exception as exc:  # noqa: BLE001 - df is the code under test: any error counts
            detail = " ".join(str(exc).split())
            self.raised.append(f"df raises {type(exc).__name__} at {point} where symgrad gives "
                               f"{ours}" + (f": {detail}" if detail else ""))
            self.df_raised = True
            return
        if len(mine) != len(ours):  # df not read from source: its count is known only now
            self.counts = len(mine)
            return
        returned, mine = mine, tuple(_number(value) for value in mine)
        if None in mine:
            value = returned[mine.index(None)]
            shape = getattr(value, "shape", None)
            what = f"an array of shape {shape}" if isinstance(shape, tuple) else \
                f"{_a(type(value).__name__)}: {value!r}"
            self.raised.append(f"df returns {what} at {point}, not a number")
            self.df_raised = True
            return
        precise_ours = _precise(self.derivative, point)
        precise_mine = [None] * len(mine) if self.hand is None else _precise(self.hand, point)
        for i, (a, b) in enumerate(zip(ours, mine)):
            error = _relative_error(a, b)
            if self.hand is None:
                decisive = error  # floats only, for every value (the report says so once)
            elif precise_ours[i] is None or precise_mine[i] is None:
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


def _number(value):
    """``value`` as a float when it is a real number (a 0-d NumPy array included), else None."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return value
    if getattr(value, "shape", None) == () and getattr(value, "dtype", None) is not None and \
            value.dtype.kind in "iuf":
        return float(value)
    return None


def _a(noun):
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


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


def _random_points(f, gradient, primal, wrt_names, seed, wanted, tries_per_point=20):
    """Points in [-2, 2] where f and its gradient give finite numbers (``df`` is not called: a
    point where it raises or is not finite is a difference); a parameter fixed at build time (a
    range() bound), or with a default and not in ``wrt`` (a hyperparameter), keeps its
    default."""
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
        if _finite_at(f, gradient, primal, point):
            points.append(point)
            if len(points) == wanted:
                break
    return points


def _boundary_points(wrt_names, differences, base, names, max_degree=4):
    """Points on both sides of every boundary of a branch of the unsimplified differences
    (``Piecewise((exp(x), x > 3), (0, True))``: x = 3 -/+ 0.001, where no point in [-2, 2] goes):
    for each comparison and each parameter it names, the real roots in that parameter of its
    ``lhs - rhs`` with the other parameters at ``base`` (a polynomial of degree <= 4 after that
    substitution; others are skipped), each moved by 0.001 * max(1, |root|) either way, as
    (name, value) pairs. Only parameters in ``wrt`` move, the others keep their value from
    ``base`` (a build-time bound, a hyperparameter)."""
    fixed = set(names) - set(wrt_names)
    at_base = dict(zip(names, base))
    for d in differences:
        if d is None:
            continue
        for rel in sympy.Tuple(d).atoms(sympy.core.relational.Relational):
            side = _unstop(rel.lhs - rel.rhs).replace(  # Value(x) - 3: x - 3
                lambda e: isinstance(e, (Value, FirstArgument)), lambda e: e.args[0])
            symbols = {s.name: s for s in side.free_symbols if s.name in at_base}
            yield from _roots(side, symbols, at_base, fixed, max_degree)


def _roots(side, symbols, at_base, fixed, max_degree):
    for name, symbol in symbols.items():
        if name in fixed:
            continue
        rest = {s: at_base[s.name] for s in side.free_symbols if s is not symbol and
                s.name in at_base}
        expr = side.subs(rest)
        if expr.free_symbols != {symbol} or not expr.is_polynomial(symbol):
            continue
        try:
            poly = sympy.Poly(expr, symbol)
            if poly.degree() > max_degree:
                continue
            roots = poly.nroots()
        except (sympy.PolynomialError, TypeError, ValueError):
            continue
        for root in roots:
            if not root.is_real:
                continue
            r = float(root)
            for shift in (-1e-3, 1e-3):
                yield name, r + shift * max(1.0, abs(r))


def boundary_points(f, gradient, primal, wrt_names, differences, base):
    """``_boundary_points`` as point tuples in ``primal.param_names`` order, finite ones only,
    without repeats."""
    names = primal.param_names
    points = []
    for name, value in _boundary_points(wrt_names, differences, base, names):
        point = tuple(value if n == name else b for n, b in zip(names, base))
        if point not in points and _finite_at(f, gradient, primal, point):
            points.append(point)
    return points


def _finite_at(f, gradient, primal, point):
    """Whether ``f`` and symgrad's gradient give finite numbers at ``point``."""
    try:
        values = [_call(f, primal, point), *_as_tuple(_call(gradient, primal, point))]
    except _FAILURES:
        return False
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in values)


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

"""A name whose written form is another float than its SymPy form never stands for that form.

``t = min(t, t, 4.0) * 1.5 / 1.5`` is ``Min(t, 4.0)`` to SymPy, but the primal's ``t`` is
``-0.4000000000000001`` at ``t = -0.4``: the tie test of that ``min`` must compare the ``min``'s
own float (``min(t, 4.0)``), not the name (issue 6, fuzz). Each program below names a value whose
written form SymPy rewrites (``* k / k``, ``+ c - c``, ``/ 3 * 3``, products reordered, through a
helper, through ``+=`` in a loop) and then compares something with it or with its SymPy form (a
tie of 2 to 6 ``max``/``min`` arguments, ``abs``, ``if s > u``, ``min(s, u)``). The reference is
the primal itself run on dual numbers (``_Dual``: every branch and tie decided on the primal's
own floats, a tie of k occurrences giving each 1/k, ``abs'(0) = 0``: docs/conventions.md), checked
against a 50-digit mpmath central difference where no tie or branch boundary is near.
"""
import math

import mpmath
import pytest

import symgrad
from symgrad import stop_gradient
from source_modules import load_module
from test_rules import _central_difference

STRATEGIES = ("symbolic", "reverse", "auto")


class _Dual:
    """``value + tangent * eps``: the primal's float ``value`` and its derivative ``tangent``."""

    __slots__ = ("value", "tangent")

    def __init__(self, value, tangent=0.0):
        self.value, self.tangent = float(value), float(tangent)

    @staticmethod
    def of(x):
        return x if isinstance(x, _Dual) else _Dual(x)

    def __add__(self, other):
        other = _Dual.of(other)
        return _Dual(self.value + other.value, self.tangent + other.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        other = _Dual.of(other)
        return _Dual(self.value - other.value, self.tangent - other.tangent)

    def __rsub__(self, other):
        return _Dual.of(other) - self

    def __mul__(self, other):
        other = _Dual.of(other)
        return _Dual(self.value * other.value,
                     self.tangent * other.value + self.value * other.tangent)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = _Dual.of(other)
        return _Dual(self.value / other.value,
                     (self.tangent * other.value - self.value * other.tangent) / other.value ** 2)

    def __rtruediv__(self, other):
        return _Dual.of(other) / self

    def __pow__(self, k):  # a constant whole exponent only
        assert isinstance(k, int)
        return _Dual(self.value ** k, k * self.value ** (k - 1) * self.tangent)

    def __neg__(self):
        return _Dual(-self.value, -self.tangent)

    def __abs__(self):
        sign = 1.0 if self.value > 0 else -1.0 if self.value < 0 else 0.0
        return _Dual(abs(self.value), sign * self.tangent)

    def __lt__(self, other):
        return self.value < _Dual.of(other).value

    def __le__(self, other):
        return self.value <= _Dual.of(other).value

    def __gt__(self, other):
        return self.value > _Dual.of(other).value

    def __ge__(self, other):
        return self.value >= _Dual.of(other).value

    def __eq__(self, other):
        return self.value == _Dual.of(other).value

    def __ne__(self, other):
        return self.value != _Dual.of(other).value

    __hash__ = None

    def __bool__(self):
        return self.value != 0.0


def _extremum(pick):
    def call(*args):
        args = [_Dual.of(a) for a in args]
        best = pick(a.value for a in args)
        tied = [a.tangent for a in args if a.value == best]  # each occurrence shares the tie
        return _Dual(best, sum(tied) / len(tied))
    return call


class _DualMath:
    """The ``math`` functions the programs below call, on ``_Dual``."""

    @staticmethod
    def exp(x):
        x = _Dual.of(x)
        return _Dual(math.exp(x.value), math.exp(x.value) * x.tangent)

    @staticmethod
    def sin(x):
        x = _Dual.of(x)
        return _Dual(math.sin(x.value), math.cos(x.value) * x.tangent)

    @staticmethod
    def atan(x):
        x = _Dual.of(x)
        return _Dual(math.atan(x.value), x.tangent / (1.0 + x.value ** 2))


_DUAL_NAMES = {"math": _DualMath, "max": _extremum(max), "min": _extremum(min)}
_MPMATH_NAMES = {"math": mpmath, "max": max, "min": min}


def _run(source, names):
    """The function ``f`` of ``source`` run with ``names`` for ``math``, ``max`` and ``min``."""
    namespace = dict(names)
    exec(compile(source, "<reference>", "exec"), namespace)  # noqa: S102 - the test's own text
    return namespace["f"]


def _dual_gradient(source, point):
    """The gradient of ``f`` at ``point`` on dual numbers: the primal's floats, its branches."""
    f = _run(source, _DUAL_NAMES)
    grads = []
    for i in range(len(point)):
        args = [_Dual(v, 1.0 if j == i else 0.0) for j, v in enumerate(point)]
        grads.append(_Dual.of(f(*args)).tangent)
    return tuple(grads)


def _module(tmp_path, source):
    return load_module(tmp_path, "import math\n\n\n" + source, "symgrad_names")


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


# (id, source of f, points, a predicate of the point true where the named value is another float
# than its SymPy form: at least one point of each case must be such a point)
CASES = [
    ("min-times-k-over-k", "def f(t):\n    t = min(t, t, 4.0) * 1.5 / 1.5\n    return t\n",
     [(-0.4,), (5.0,), (4.0,), (0.7,)], lambda t: t * 1.5 / 1.5 != t),
]
K_POINTS = {3.0: 0.7, 0.1: 0.75, 0.3: 0.85, 1.1: 0.95, 1.5: 1.35}  # v * k / k != v


def _k_over_k(k):
    return f"def f(x, y):\n    s = max(x, y, 0.5) * {k} / {k}\n    return s\n"


for _k, _v in K_POINTS.items():
    CASES.append((f"max-times-{_k}-over-{_k}", _k_over_k(_k),
                  [(_v, _v), (_v, 0.35), (0.35, _v), (0.5, 0.1), (0.5, 0.5), (1.3, 2.9)],
                  lambda x, y, k=_k: max(x, y, 0.5) * k / k != max(x, y, 0.5)))

CASES += [
    ("plus-c-minus-c", "def f(x, y):\n    s = min(x, y) + 0.1 - 0.1\n    return s * 2.0\n",
     [(0.2, 0.2), (0.45, 0.8), (0.95, 0.95), (-0.45, 1.0)],
     lambda x, y: min(x, y) + 0.1 - 0.1 != min(x, y)),
    ("over-3-times-3", "def f(x):\n    s = min(x, 2.0, x) / 3 * 3\n    return s\n",
     [(0.45,), (0.9,), (2.0,), (2.9,), (1.55,)], lambda x: x / 3 * 3 != x),
    # products reordered: the name and the argument SymPy reads as the same product
    ("product-reordered", "def f(x, y):\n    s = x * 0.1 * y * 10.0\n    return max(s, x * y)\n",
     [(0.7, 0.3), (0.3, 0.7), (1.1, 0.9), (-0.35, 2.0)],
     lambda x, y: x * 0.1 * y * 10.0 != x * y),
    ("sum-named-then-min", "def f(x, y):\n    s = (x + y) * 3.0 / 3.0\n    return min(s, x + y)\n",
     [(0.05, 0.05), (0.1, 0.25), (0.1, 0.6), (0.3, 0.6), (-0.4, 1.3)],
     lambda x, y: (x + y) * 3.0 / 3.0 != x + y),
    ("through-a-helper",
     "def h(a):\n    b = a * 1.5 / 1.5\n    return b\n\n\n"
     "def f(x, y):\n    s = h(min(x, y, 4.0))\n    return s\n",
     [(-0.4, 0.3), (0.7, 0.7), (5.0, 6.0), (0.7, -0.4)],
     lambda x, y: min(x, y, 4.0) * 1.5 / 1.5 != min(x, y, 4.0)),
    ("helper-returns-as-written",
     "def h(a, b):\n    return max(a, b) * 0.3 / 0.3\n\n\n"
     "def f(x, y):\n    s = h(x, y)\n    return s + x\n",
     [(0.85, 0.85), (0.9, 0.1), (-0.45, -0.45), (0.2, 0.3)],
     lambda x, y: max(x, y) * 0.3 / 0.3 != max(x, y)),
    ("plus-equals-in-loops",
     "def f(x, y):\n    s = min(x, y)\n    for _ in range(3):\n        s += 0.1\n"
     "    for _ in range(3):\n        s -= 0.1\n    return max(s, min(x, y))\n",
     [(0.15, 0.15), (0.45, 0.8), (0.2, 0.2), (-0.4, 1.0), (0.75, 0.9)],
     lambda x, y: min(x, y) + 0.1 + 0.1 + 0.1 - 0.1 - 0.1 - 0.1 != min(x, y)),
    ("abs-named", "def f(x, y):\n    s = abs(x - y) * 3.0 / 3.0\n    return max(s, abs(x - y))\n",
     [(0.8, 0.1), (0.1, 0.8), (0.75, 0.05), (0.5, 0.5)],
     lambda x, y: abs(x - y) * 3.0 / 3.0 != abs(x - y)),
    ("abs-of-named", "def f(x):\n    s = min(x, 1.0) * 0.3 / 0.3\n    return abs(s) + s\n",
     [(0.85,), (-0.45,), (1.0,), (0.0,)], lambda x: min(x, 1.0) * 0.3 / 0.3 != min(x, 1.0)),
    ("if-named-greater", "def f(x, y):\n    s = (x + y) * 3.0 / 3.0\n    if s > x + y:\n"
     "        return 2.0 * x\n    return 3.0 * y\n",
     [(0.05, 0.05), (0.1, 0.25), (0.1, 0.6), (-0.4, 1.3)],
     lambda x, y: (x + y) * 3.0 / 3.0 != x + y),
    ("if-named-equal", "def f(x, y):\n    s = max(x, y) * 1.5 / 1.5\n    if s == max(x, y):\n"
     "        return 2.0 * x\n    return 3.0 * y\n",
     [(0.7, 0.35), (-0.4, -0.5), (0.35, 0.7)],
     lambda x, y: max(x, y) * 1.5 / 1.5 != max(x, y)),
    ("named-in-min", "def f(x, u):\n    s = min(x, x, 4.0) * 1.5 / 1.5\n    return min(s, u)\n",
     [(-0.4, 0.0), (-0.4, -0.4), (-0.4, -0.4000000000000001), (0.7, 0.7)],
     lambda x, u: min(x, 4.0) * 1.5 / 1.5 != min(x, 4.0)),
    # `a if c else b` as written: each side's form, also where the condition is decided at
    # build time or where SymPy reads both sides as the same value
    ("ifexp-named", "def f(x, y):\n    s = (0.5 if x > y else x * 2.0) / 3 * 3\n"
     "    if s > (0.5 if x > y else x * 2.0):\n        return 2.0 * x + s\n    return 3.0 * y - s\n",
     [(-0.45, 0.85), (0.45, 0.1), (0.9, 1.0), (-0.45, 0.1)],
     lambda x, y: (0.5 if x > y else x * 2.0) / 3 * 3 != (0.5 if x > y else x * 2.0)),
    ("ifexp-decided", "def f(x, y):\n    s = (0.5 if x > x else x * 2.0) / 3 * 3\n"
     "    if s > (0.5 if x > x else x * 2.0):\n        return 2.0 * x + s\n    return 3.0 * y - s\n",
     [(-0.45, 0.85), (0.45, 0.1), (0.9, 1.0)], lambda x, y: x * 2.0 / 3 * 3 != x * 2.0),
    ("ifexp-same-sides", "def f(x, y):\n    s = (x + y) * 3.0 / 3.0 if x > 0.5 else x + y\n"
     "    if s > x + y:\n        return 2.0 * x\n    return min(s, x + y) * 3.0\n",
     [(0.55, 0.25), (0.6, 0.35), (0.3, 0.6), (0.05, 0.05)],
     lambda x, y: x > 0.5 and (x + y) * 3.0 / 3.0 != x + y),
    # bound on the sides of an `if`: the same SymPy value, another float on one side
    ("branch-sides", "def f(x, y):\n    if x > y:\n        s = min(y, x) * 3.0 / 3.0\n"
     "    else:\n        s = min(y, x)\n    if s > min(y, x):\n        return 2.0 * x + s\n"
     "    return 3.0 * y - s\n",
     [(0.8, 0.7), (0.75, 0.7), (0.7, 0.7), (0.3, 0.5), (0.9, 0.45)],
     lambda x, y: x > y and min(y, x) * 3.0 / 3.0 != min(y, x)),
    ("branch-returns", "def f(x, y):\n    if x > y:\n"
     "        return max(max(y, 0.5) * 0.3 / 0.3, 0.85) + x\n    return max(max(y, 0.5), 0.85) + x\n",
     [(0.9, 0.85), (0.9, 0.5), (0.3, 0.85), (0.95, 0.9)],
     lambda x, y: x > y and max(y, 0.5) * 0.3 / 0.3 != max(y, 0.5)),
    ("helper-called-twice", "def h(a):\n    return max(a, 0.7)\n\n\n"
     "def f(x, y):\n    s = h(min(x, y) * 3.0 / 3.0)\n    t = h(min(x, y))\n    return s + t * 2.0\n",
     [(0.7, 0.7), (0.8, 0.8), (0.95, 1.0), (1.0, 0.95)],
     lambda x, y: min(x, y) * 3.0 / 3.0 != min(x, y)),
    # fuzz (fuzz-findings Z1): a repeat makes SymPy's form `Max(-u, u)` differ from the line
    ("one-plus-max-minus-one", "def f(u, t):\n    u = 1.0 + max(u, u, -u) - 1.0\n    return u\n",
     [(-0.6, 0.2), (0.6, 0.2), (0.35, -0.4), (-0.35, 0.0)],
     lambda u, t: 1.0 + max(u, -u) - 1.0 != max(u, -u)),
    # fuzz (Z5): the side a constant condition selects, compared as written, before code that
    # raises on every call
    ("decided-ternary-early-return", "def f(t):\n    if t > (1.0 + t - 1.0 if True else t):\n"
     "        return t\n    return math.sqrt(-1.0)\n",
     [(1.55,), (0.15,), (0.45,), (1.3,)], lambda t: 1.0 + t - 1.0 != t),
    ("smooth-of-named", "def f(x, y):\n    s = max(x, y) * 1.5 / 1.5\n"
     "    return math.exp(s) + math.sin(max(x, y))\n",
     [(-0.4, -0.4), (0.7, 0.35), (0.35, 0.7)], lambda x, y: max(x, y) * 1.5 / 1.5 != max(x, y)),
]


def _ties(count):
    """``s = max(<count args>) * 0.3 / 0.3`` (ties at the points), then the name compared with
    the same ``max`` and with a constant."""
    args = ", ".join(["x", "y", "x", "0.5", "y * 1.0", "x + 0.0"][:count])
    return (f"def f(x, y):\n    s = max({args}) * 0.3 / 0.3\n"
            f"    return min(s, max({args}), 2.0) + s\n")


for _count in range(2, 7):
    CASES.append((f"tie-of-{_count}", _ties(_count),
                  [(0.85, 0.85), (0.9, 0.9), (-0.45, 0.85), (0.85, -0.45), (1.7, 1.7)],
                  lambda x, y: max(x, y, 0.5) * 0.3 / 0.3 != max(x, y, 0.5)))


def test_every_case_has_a_point_where_the_name_is_another_float():
    """Otherwise the case could not fail: the name would be its SymPy form's float."""
    for name, _, points, differs in CASES:
        assert any(differs(*p) for p in points), name


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name, source, points", [c[:3] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_named_value_against_the_primal_on_dual_numbers(tmp_path, name, source, points,
                                                        strategy):
    """The gradient is the primal's on dual numbers, and value_and_grad's value is the primal's
    very float."""
    f = _module(tmp_path, source).f
    g = symgrad.grad(f, strategy=strategy)
    both = symgrad.value_and_grad(f, strategy=strategy)
    for point in points:
        expected = _dual_gradient(source, point)
        assert _as_tuple(g(*point)) == pytest.approx(expected, rel=1e-13, abs=1e-15), (
            name, point, g.source)
        value, _ = both(*point)
        assert value == f(*point), (name, point, both.source)


def test_the_reproducer_gives_the_primal_value_and_slope(tmp_path):
    """fuzz: at t = -0.4 the slope of ``min(t, t, 4.0) * 1.5 / 1.5`` is 1 (it was 0), at 5 it is
    0, and value_and_grad's value is the primal's float."""
    source = CASES[0][1]
    f = _module(tmp_path, source).f
    for strategy in STRATEGIES:
        assert symgrad.grad(f, strategy=strategy)(-0.4) == 1.0
        assert symgrad.grad(f, strategy=strategy)(5.0) == 0.0
        value, slope = symgrad.value_and_grad(f, strategy=strategy)(-0.4)
        assert value == f(-0.4) == -0.4000000000000001 and slope == 1.0


def test_the_dual_reference_agrees_with_central_differences():
    """Off ties and branch boundaries the dual-number reference is the 50-digit mpmath central
    difference of the same source (the reference is checked, not trusted)."""
    points = {"min-times-k-over-k": [(0.7,), (5.0,)], "plus-c-minus-c": [(0.35, 0.8)],
              "product-reordered": [(1.1, 0.9)], "through-a-helper": [(0.7, -0.4)],
              "plus-equals-in-loops": [(-0.4, 1.0)], "abs-of-named": [(-0.4,)],
              "smooth-of-named": [(0.7, 0.35)], "tie-of-4": [(-0.4, 0.7)],
              "max-times-3.0-over-3.0": [(1.3, 2.9)]}
    sources = {c[0]: c[1] for c in CASES}
    for name, at in points.items():
        exact = _run(sources[name], _MPMATH_NAMES)
        for point in at:
            expected = [float(_central_difference(exact, point, i)) for i in range(len(point))]
            assert _dual_gradient(sources[name], point) == pytest.approx(expected, rel=1e-12), \
                name


@pytest.mark.parametrize("call, at, expected", [
    ("max(x, -1.0)", (2.0, -3.0), (4.0, -1.0)), ("min(x, 1.0)", (0.5, 3.0), (1.0, 1.0)),
    ("max(x, -1.0, 0.25)", (2.0, -3.0), (4.0, 0.25))])
def test_a_line_with_a_constant_max_argument_prints_for_torch(tmp_path, call, at, expected):
    """A primal line printed as written (``t = max(x, -1.0)``) with a number among a max's
    arguments: torch's ``maximum`` takes tensors only, so it is a ``torch.clamp`` (the build
    printed ``torch.maximum(x, -1.0)``, a TypeError on every call)."""
    torch = pytest.importorskip("torch")
    f = _module(tmp_path, f"def f(x):\n    t = {call}\n    return t * x\n").f
    g = symgrad.grad(f, backend="torch")
    assert "torch.clamp" in g.source
    for x, slope in zip(at, expected):
        assert float(g(torch.tensor(x, dtype=torch.float64))) == slope == _dual_gradient(
            f"def f(x):\n    t = {call}\n    return t * x\n", (x,))[0]


def _float_call_in_jump(u):  # fuzz 11001-0-380: float(...) dropped the whole written form
    u = -(stop_gradient(u + 0.7) - (u + 0.7) + u * float(-0.5) // 1.5)
    return math.floor(u)


def _float_call_of_name(u):
    a = u * float(3) / 3.0
    return math.floor(a * 10.0) + float(a) * u


@pytest.mark.parametrize("strategy", ["auto", "reverse", "symbolic"])
def test_float_of_a_value_keeps_the_written_form(strategy):
    """``float(x)`` is x's float: it no longer drops the source's form of the line around it, so
    a jump of the line reads the primal's float (at u = 1.5 the primal's value is 1; SymPy's
    reordered form computes 0.9999999999999998 and floors to 0)."""
    vg = symgrad.value_and_grad(_float_call_in_jump, strategy=strategy)
    assert vg(1.5) == (float(_float_call_in_jump(1.5)), 0.0) == (1.0, 0.0)
    vg = symgrad.value_and_grad(_float_call_of_name, strategy=strategy)
    for u in (0.7, 1.3, -2.9):
        value, slope = vg(u)
        assert value == _float_call_of_name(u)
        a = u * 3.0 / 3.0
        assert slope == pytest.approx(2 * a, rel=1e-12)


# --- every RULES row keeps the written form of the line around it ------------------------------
UNSPELLED = {  # a row with no `math` spelling, inside a jump of a value SymPy reorders
    "square": "np.square(u)", "sign": "np.sign(u - 0.2)", "log": "np.log(u * u + 0.1)",
    "fmin": "np.fmin(u, 0.3)", "fmax": "np.fmax(u, 0.3)", "maximum": "np.maximum(0.3, u)",
    "minimum": "np.minimum(u, 0.3)"}
_MP_UNSPELLED = {"square": lambda u: u * u, "sign": lambda u: mpmath.sign(u - mpmath.mpf(0.2)),
                 "log": lambda u: mpmath.log(u * u + mpmath.mpf(0.1)),
                 "fmin": lambda u: min(u, mpmath.mpf(0.3)),
                 "fmax": lambda u: max(u, mpmath.mpf(0.3)),
                 "maximum": lambda u: max(u, mpmath.mpf(0.3)),
                 "minimum": lambda u: min(u, mpmath.mpf(0.3))}
POINTS = (1.5, -2.9, 0.7, 2.3, -1.1, 0.45, 2.75)


@pytest.mark.parametrize("strategy", ["auto", "reverse"])
@pytest.mark.parametrize("row", sorted(UNSPELLED))
def test_a_row_without_a_math_spelling_keeps_the_written_form(tmp_path, row, strategy):
    """``floor(-(stop_gradient(u + 0.7) - (u + 0.7) + u * np.f(u) // 1.5)) + u * np.f(u)``:
    the stopped difference is 0.0 in float, a few ulps in SymPy's reordering; the call had no
    written form, so the line's was dropped and the floor jumped (value_and_grad's value off by
    one at 1.5 for np.square). The value is the primal's at every point; the gradient (the
    floor's is 0) is the central difference of ``u * f(u)``."""
    call = UNSPELLED[row]
    f = load_module(tmp_path, "import math\n\nimport numpy as np\nfrom symgrad import "
                    f"stop_gradient\n\n\ndef f(u):\n    t = -(stop_gradient(u + 0.7) - (u + 0.7) "
                    f"+ u * {call} // 1.5)\n    return math.floor(t) + u * {call}\n",
                    f"symgrad_row_{row}_{strategy}").f
    vg = symgrad.value_and_grad(f, strategy=strategy)
    twin = _MP_UNSPELLED[row]
    for u in POINTS:
        value, slope = vg(u)
        assert value == f(u), (u, value, f(u))
        with mpmath.workdps(50):
            step, x = mpmath.mpf(10) ** -20, mpmath.mpf(u)
            expected = ((x + step) * twin(x + step) - (x - step) * twin(x - step)) / (2 * step)
        assert slope == pytest.approx(float(expected), rel=1e-12, abs=1e-15), (u, slope)

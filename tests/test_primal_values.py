"""Regression tests, round 2 of issue 6's kinds: primal values computed as the primal computes
them (``value_and_grad``'s value), nested ``max``/``min`` at a tie, build-time zero factors, and
numpy lines that must not warn where the primal short-circuits.

Each expected value is the primal's own float (the function called on the same point) or a tie
share derived by hand from docs/conventions.md's per-call rule (JAX's ``jnp.maximum``).
"""
import warnings

import pytest

import symgrad
from source_modules import load_module

STRATEGIES = ("symbolic", "reverse", "auto")


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\n\n\n" + body, "symgrad_primal_values")


# --- W6: the value value_and_grad returns is the primal's float ------------------------------
VALUES = [  # (body of f(t), points): Python's float // and % are not floor(a / b) nor a - b*floor
    ("    return t // 0.7\n", (-2.1, 2.1, 1.4, -0.7)),
    ("    return 1.0 // t\n", (0.1, -0.1, 0.7)),
    ("    return t % 0.1\n", (1.0, -1.0, 0.3)),
    ("    return (t + 0.1) // 0.1 + t\n", (0.2, 0.7)),
    ("    a = t // 0.1\n    return a\n", (1.0, -2.1)),
    ("    if t > 0:\n        return t // 0.1\n    return t % 0.7\n", (1.0, -2.1)),
    ("    if t > 0:\n        a = t // 0.1\n    else:\n        a = t // 0.7\n    return a\n",
     (1.0, -2.1)),
    ("    if t > 0:\n        a = t // 0.1\n        return a\n    return t\n", (1.0, -2.1)),
    ("    return h(t)\n", (-2.1, 1.0)),
    ("    return h(t) + t\n", (-2.1, 1.0)),
    ("    return t / math.sqrt(2.0)\n", (1.3, 0.7071067811865475)),
    ("    return t * 0.1 * 0.2 + t ** 2\n", (10.54862188045661, 0.3)),
]
HELPER = "def h(a):\n    return a // 0.7\n\n\n"


@pytest.mark.parametrize("backend", ("math", "numpy"))
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, points", VALUES)
def test_value_and_grad_value_is_the_primal_float(tmp_path, body, points, strategy, backend):
    f = _module(tmp_path, HELPER + "def f(t):\n" + body).f
    v = symgrad.value_and_grad(f, strategy=strategy, backend=backend)
    for t in points:
        assert float(v(t)[0]) == f(t), (body, t, v.source)


def test_reproducer_w6(tmp_path):
    f = _module(tmp_path, "def g(t):\n    return t // 0.7\n").g
    assert symgrad.value_and_grad(f)(-2.1) == (-4.0, 0.0)  # -2.1 // 0.7 in Python
    assert symgrad.value_and_grad(f)(1.0)[0] == 1.0


# --- W4: nested max/min: each call splits its own tie, the chain rule composes them ----------
NESTED = [  # (body of f(t, u), point, gradient derived by hand per docs/conventions.md)
    ("max(max(2, t), 2)", (2.0, 0.0), (0.25, 0.0)),
    ("max(u, max(2.0, u))", (0.0, 2.0), (0.0, 0.75)),
    ("min(min(t, 1.0), t, 1.0)", (1.0, 0.0), (0.5, 0.0)),  # 1/3 * 1/2 + 1/3
    ("max(min(t, u), u)", (1.0, 1.0), (0.25, 0.75)),
    ("max(max(t, u), max(u, t))", (1.0, 1.0), (0.5, 0.5)),
    ("min(t, min(t, min(t, u)))", (1.0, 1.0), (0.875, 0.125)),
    ("max(max(2, t), 2)", (2.5, 0.0), (1.0, 0.0)),
    ("max(max(2, t), 2)", (1.5, 0.0), (0.0, 0.0)),
    ("h0(1.0, max(2, t))", (2.0, 0.0), (0.25, 0.0)),
    ("a", (2.0, 0.0), (0.25, 0.0)),  # a = max(2, t); a = max(a, 2): substituted by symbolic
]
NESTED_HELPERS = "def h0(a, b):\n    return max(b, 2)\n\n\n"


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, expected", NESTED)
def test_nested_max_min_split_each_call(tmp_path, body, point, expected, strategy):
    f = _module(tmp_path, NESTED_HELPERS + "def f(t, u):\n    a = max(2, t)\n    a = max(a, 2)\n"
                          f"    return {body}\n").f
    assert symgrad.grad(f, strategy=strategy)(*point) == pytest.approx(expected, rel=1e-15)


# --- numpy: no warning from an operand the primal does not run -------------------------------
LAZY = ["x <= 0 or math.log(x) < y", "x > 0 and math.sqrt(x) > y", "x != 0 and 1 / x > y",
        "y > 0 and math.log(x) > 1 or x < -1", "-1 < x < 1 and math.acos(x) > y"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("test", LAZY)
def test_numpy_operands_the_primal_skips_do_not_warn(tmp_path, test, strategy):
    f = _module(tmp_path, f"def f(x, y):\n    if {test}:\n        return x * y\n"
                          f"    return 3.0 * x\n    \n").f
    g = symgrad.grad(f, strategy=strategy, backend="numpy")
    points = [(-2.0, -1.0), (0.0, 1.0), (3.0, 1.0), (-0.5, 2.0), (4.0, 0.5)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x, y in points:
            try:
                expected = symgrad.grad(f, strategy=strategy)(x, y)
            except (ValueError, ZeroDivisionError):
                continue  # the primal raises: numpy may warn there
            assert tuple(map(float, g(x, y))) == expected, (test, x, y, g.source)
    xs, ys = zip(*points[1:4])  # arrays, where some elements take each side
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(list(xs), list(ys))


# --- W7: undefined once a name's constant value is known: refused, or raising where it may not run
W7_REFUSED = [
    "def h0(a, b=0.5):\n    return (a, math.cos(1.5))\n\n\n"
    "def f(u, t):\n    a, b = h0(u)\n    a = math.floor(b)\n    return (t * a) ** (-2)\n",
    "def f(u, t):\n    b = math.cos(1.5)\n    a = math.floor(b)\n    return (t * a) ** (-2)\n",
    "def f(u, t):\n    a = math.floor(math.cos(1.5))\n    c = t * a\n    return u + c ** -2\n",
    "def f(u, t):\n    a = math.floor(math.cos(1.5))\n    return u + math.log(t * a)\n",
    "def f(u, t):\n    a = math.cos(1.5) - math.cos(1.5)\n    return u / (a * t)\n",
]


@pytest.mark.parametrize("kind", ("grad", "value_and_grad"))
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("source", W7_REFUSED)
def test_undefined_for_every_input_once_constants_are_known(tmp_path, source, strategy, kind):
    f = _module(tmp_path, source).f
    with pytest.raises((ZeroDivisionError, ValueError)):
        f(1.0, 1.0)  # the primal raises on every call
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="undefined .* for every input"):
        getattr(symgrad, kind)(f, strategy=strategy)


W7_RAISES = [  # the undefined line runs on one branch only: the gradient raises there, as f does
    ("def f(u, t):\n    a = math.floor(math.cos(1.5))\n    if u > 0:\n"
     "        return (t * a) ** -2\n    return u * t\n", ZeroDivisionError),
    ("def f(u, t):\n    a = u - t\n    b = t - u\n    return (a + b) ** -2 + u\n",
     ZeroDivisionError),  # zero only once SymPy substitutes a and b (symbolic)
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("source, error", W7_RAISES)
def test_undefined_where_it_may_not_run_raises_like_the_primal(tmp_path, source, error, strategy):
    f = _module(tmp_path, source).f
    v = symgrad.value_and_grad(f, strategy=strategy)
    if "if u > 0" in source:
        assert v(-1.0, 2.0) == (f(-1.0, 2.0), (2.0, -1.0))
    for point in ((1.0, 2.0), (0.5, 0.5)):
        with pytest.raises(error):
            f(*point)
        with pytest.raises(error):
            v(*point)


# --- tie tests in a loop: the recomputed max/min has the floats its tie tests compare -------
LOOP_TIES = [  # the fuzzer's reproducers (seed 11); expected: its 50-digit mpmath central
    # difference, matched by a float central difference (h = 1e-7) to 1e-8: no tie, no kink near
    ("def f(x, y):\n    for k in range(4):\n        y *= min(y - x + 0.1, x, 0.3)\n    return y\n",
     (1.0, -0.504554028821278), (-0.5489798147189736, -0.7162203334161822)),
    ("def f(y):\n    a = y\n    b = math.tan(y)\n    for i in range(3):\n"
     "        a += min(0.4 - a - b, y, y)\n    return a\n", (2.23,), (-2.665664248345122,)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("source, point, expected", LOOP_TIES)
def test_loop_of_min_ties_compare_the_floats_of_the_min(tmp_path, source, point, expected,
                                                        strategy):
    f = _module(tmp_path, source).f
    got = symgrad.grad(f, strategy=strategy)(*point)
    assert (got if isinstance(got, tuple) else (got,)) == pytest.approx(expected, rel=1e-12)


# --- // and % inside derivatives and stopped values: Python's floats, not SymPy's floor / Mod --
FLOOR_IN_DERIVATIVES = [  # (source, point, gradient): each factor is the primal's own float
    ("def f(x, y, u):\n    u *= y // 0.7\n    return u\n", (-0.6, -2.1, -1.05),
     (0.0, 0.0, -2.1 // 0.7)),
    ("def f(t, z):\n    z /= 1.0 + -(t + 3.0) % 0.7\n    return z\n", (-0.2, 1.0),
     (1.0 / (1.0 + -(-0.2 + 3.0) % 0.7) ** 2, 1.0 / (1.0 + -(-0.2 + 3.0) % 0.7))),
    ("def f(t, z):\n    return t % z\n", (1.0, 0.1), (1.0, -(1.0 // 0.1))),  # 9, not 10
    ("def f(t, z):\n    return stop_gradient(t // 0.7) * t\n", (-2.1, 0.0), (-2.1 // 0.7, 0.0)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("source, point, expected", FLOOR_IN_DERIVATIVES)
def test_floor_division_and_mod_in_a_derivative_are_pythons(tmp_path, source, point, expected,
                                                            strategy):
    f = _module(tmp_path, "from symgrad import stop_gradient\n\n\n" + source).f
    value, grad = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point)
    assert grad == expected, symgrad.grad(f, strategy=strategy).source


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_stopped_value_is_the_primal_float(tmp_path, strategy):
    f = _module(tmp_path, "from symgrad import stop_gradient\n\n\n"
                          "def f(t):\n    a = stop_gradient((0.5 - t - t) // 0.7)\n    return a\n").f
    assert symgrad.value_and_grad(f, strategy=strategy)(1.3) == (-4.0, 0.0)  # Python's value


# --- a max/min is never replaced by a rearranged name (a - 1 for a = 1 + max, 1 / u for u = m**-1)
REARRANGED = [  # fuzz seed 12's reproducers; strict winners, so the hand derivative is exact
    ("def f(u):\n    a = 1.0 + max(1.5 - u, u, u)\n    return min(a - 1, a)\n",
     (-1.7493594622299198,), (-1.0,)),
    ("def f(y, u):\n    u = min(2.0, y, y) ** (-1)\n    return u\n", (-1.8, -2.1),
     (-1 / 1.8 ** 2, 0.0)),  # y, y tie: 1/2 each of d(1/y) = -1/y**2
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("source, point, expected", REARRANGED)
def test_max_min_never_printed_as_a_rearranged_name(tmp_path, source, point, expected, strategy):
    f = _module(tmp_path, source).f
    got = symgrad.grad(f, strategy=strategy)(*point)
    assert (got if isinstance(got, tuple) else (got,)) == pytest.approx(expected, rel=1e-15)


# --- float() of a value computed in float: the value is the primal's float (fuzz 183-0-191,
# 183-0-1432); before, float() of anything but a constant dropped the written form and the value
# was SymPy's (0.30000000000000004 * t, t * 0.1 * 3.0 being 0.20999999999999996 at 0.7)
FLOAT_OF = [  # (body of f(t), its derivative by hand)
    ("    return float(t * 0.1 * 3.0)\n", lambda t: 0.1 * 3.0),
    ("    return float(math.hypot(t, t))\n", lambda t: 2 ** 0.5 * (1.0 if t > 0 else -1.0)),
    ("    a, b = (t, float(math.hypot(t, t)))\n    return b\n",
     lambda t: 2 ** 0.5 * (1.0 if t > 0 else -1.0)),
    ("    return float((t - 4.0) * math.sin(0.1))\n", lambda t: 0.09983341664682815),
    ("    return float(t / 3.0 * 3.0) - t\n", lambda t: 0.0),
]


@pytest.mark.parametrize("body, derivative", FLOAT_OF)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_float_of_a_float_value_keeps_the_primal_float(tmp_path, body, derivative, strategy):
    f = _module(tmp_path, "def f(t):\n" + body).f
    vg = symgrad.value_and_grad(f, strategy=strategy)
    for t in (0.7, -0.5300738947047816, 0.9, 2.1, -2.25):
        value, grad = vg(t)
        assert value == f(t), (body, t, vg.source)
        assert grad == pytest.approx(derivative(t), rel=1e-12, abs=1e-12)
        h = 1e-6
        assert grad == pytest.approx((f(t + h) - f(t - h)) / (2 * h), rel=1e-6, abs=1e-6)

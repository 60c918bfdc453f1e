"""Issue 6: the code after an ``if`` that returns early, read as named lines.

An ``if`` one side of which returns leaves the rest of the function to the other side. That tail
was read as one expression (nothing named), so a loop in it repeated each step's value in the
next one: 4 steps of a branch on a 6-argument ``max`` made a 160000-node tree, and the build
took 20 s. The tail's assignments are now lines of their own, each computed only where the tail
runs (``0 if c else v``): no line raises where the primal returned early, and the values and
gradients are the primal's on both sides.

Reference values: the primal in float; gradients by a 50-digit mpmath central difference of the
same function (``test_reliability_complex._central``), all strategies.
"""
import math

import mpmath
import pytest

import symgrad
from source_modules import load_module
from symgrad.frontend import to_program
from symgrad.program import tree_size
from test_reliability_complex import _assert_close, _central

STRATEGIES = ("auto", "reverse", "symbolic")

LOOP_TAIL = """
def h0(a, b):
    if b - 0.1 < a:
        return 3.0 * a
    return a - 1


def f(u, t):
    if t > 1.5:
        return -t * u
    a = round(t + 1.5) * u
    for k in range(4):
        if -0.5 <= h0(max(u, t, a + 1, 0.5 + a, -1.0, 0.3), 3) <= 2.0:
            u -= max(h0(k, 3) - 3.0, h0(k, 3) - 3.0, 0.5 * u)
        else:
            u -= h0(math.tan(math.atan(a)), 2 ** t)
    return math.sin(u - a + 0.5)
"""


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\nfrom symgrad import stop_gradient\n\n\n" + body,
                       "symgrad_tails")


def _mp_h0(a, b):
    return 3 * a if b - mpmath.mpf(0.1) < a else a - 1


def _mp_loop_tail(u, t):
    if t > 1.5:
        return -t * u
    a = mpmath.nint(t + mpmath.mpf(1.5)) * u  # round() at points off the half-integers
    for k in range(4):
        if -0.5 <= _mp_h0(max(u, t, a + 1, 0.5 + a, -1, mpmath.mpf(0.3)), 3) <= 2:
            u -= max(_mp_h0(k, 3) - 3, _mp_h0(k, 3) - 3, u / 2)
        else:
            u -= _mp_h0(mpmath.tan(mpmath.atan(a)), 2 ** t)
    return mpmath.sin(u - a + mpmath.mpf(0.5))


def test_a_loop_after_an_early_return_reads_as_named_lines(tmp_path):
    """Every expression of the program is small: each step's value is a name in the next (the
    output was one tree of 100000 nodes), and so are the derivative's."""
    f = _module(tmp_path, LOOP_TAIL).f
    program = to_program(f)
    sizes = [tree_size(e, 10 ** 6) for e in [a.expr for a in program.bindings] + list(
        program.outputs)]
    assert len(program.bindings) == 5 and max(sizes) < 200, sizes
    derivative = symgrad.grad(f).program
    assert max(tree_size(o, 10 ** 6) for o in derivative.outputs) < 1000


@pytest.mark.parametrize("strategy", ("auto", "reverse"))  # (symbolic: exponential, minutes)
@pytest.mark.parametrize("point", [(0.3, 0.2), (0.7, -0.9), (-1.3, 0.6), (0.4, 2.0)])
def test_a_loop_after_an_early_return_has_the_primal_gradient(tmp_path, point, strategy):
    f = _module(tmp_path, LOOP_TAIL).f
    value, got = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point)
    _assert_close(got, _central(_mp_loop_tail, point), rtol=1e-9)


GUARDED = [  # (body, point, mpmath twin): the tail would raise at the point if it ran there
    ("def f(x, y):\n    if x <= 0:\n        return x * y\n    t = math.log(x)\n"
     "    s = math.sqrt(t + 1.0)\n    return s * y\n", (-1.0, 2.0), lambda x, y: x * y),
    ("def f(x, y):\n    if x <= 0:\n        return x * y\n    t = math.log(x)\n"
     "    s = math.sqrt(t + 1.0)\n    return s * y\n", (2.0, 3.0),
     lambda x, y: mpmath.sqrt(mpmath.log(x) + 1) * y),
    ("def f(x, y):\n    if x > 0:\n        t = 1.0 / x\n    else:\n        return -x * y\n"
     "    u = t * t + y\n    return u * x\n", (-0.5, 1.5), lambda x, y: -x * y),
    ("def f(x, y):\n    if x > 0:\n        t = 1.0 / x\n    else:\n        return -x * y\n"
     "    u = t * t + y\n    return u * x\n", (0.5, 1.5), lambda x, y: (1 / x ** 2 + y) * x),
    ("def f(x, y):\n    if x < -1:\n        return y\n    a = math.acos(x / 2 - 0.5)\n"
     "    if x > 2:\n        return a * y\n    b = math.log(2.5 - x)\n"
     "    assert b > -10.0\n    return a * b + y\n", (2.4, 1.5),
     lambda x, y: mpmath.acos(x / 2 - mpmath.mpf(0.5)) * y),
    ("def f(x, y):\n    if x < -1:\n        return y\n    a = math.acos(x / 2 - 0.5)\n"
     "    if x > 2:\n        return a * y\n    b = math.log(2.5 - x)\n"
     "    assert b > -10.0\n    return a * b + y\n", (-3.0, 1.5), lambda x, y: y),
    ("def f(x, y):\n    if x < -1:\n        return y\n    a = math.acos(x / 2 - 0.5)\n"
     "    if x > 2:\n        return a * y\n    b = math.log(2.5 - x)\n"
     "    assert b > -10.0\n    return a * b + y\n", (0.5, 1.5),
     lambda x, y: mpmath.acos(x / 2 - mpmath.mpf(0.5)) * mpmath.log(mpmath.mpf(2.5) - x) + y),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, twin", GUARDED)
def test_the_tail_runs_only_where_the_primal_runs_it(tmp_path, body, point, twin, strategy):
    """Where the primal returns early its tail (log of a negative, 1/0, acos outside [-1, 1])
    is not computed: no raise; where it runs, its value and gradient are the primal's."""
    f = _module(tmp_path, body).f
    value, got = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point) and type(value) is float
    _assert_close(got, _central(twin, point), rtol=1e-9)
    for backend in ("numpy",):
        numpy_got = symgrad.grad(f, strategy=strategy, backend=backend)(*point)
        assert all(math.isfinite(float(g)) for g in numpy_got)


def test_a_check_in_the_tail_runs_only_with_the_tail(tmp_path):
    """``assert`` after an early return raises exactly where the primal does."""
    f = _module(tmp_path, "def f(x):\n    if x < 0:\n        return x\n"
                          "    assert x != 1.0\n    return x * x\n").f
    g = symgrad.grad(f)
    assert g(-1.0) == 1.0 and g(2.0) == 4.0
    with pytest.raises(AssertionError):
        f(1.0)
    with pytest.raises(AssertionError):
        g(1.0)

"""Issue 6: gradients that raised or crashed where the primal and its derivative are real.

1. ``abs`` of a stopped complex constant is a real constant (``abs(stop_gradient((-4) ** 0.3))``
   is Python's 1.5157...: derivative 0), of a stopped product holding a complex power the
   stopped modulus, and of ``a + b * c`` with a complex constant ``c`` (``abs(x + (-4) ** 0.3)``)
   the real ``sqrt((a + b re c)**2 + (b im c)**2)``: the gradient does not raise, and the build
   does not refuse it.
2. A moving complex power whose adjoint is 0 at the point (``max(z * (-0.5) ** z, 3)`` where 3
   wins) has no effect on the output there: the reverse strategy gives 0, as the symbolic one,
   never the power's undefined derivative (``ValueError``); where the adjoint is not 0 it raises.
3. SymPy writes ``I`` into a real program's derivative (``sqrt(-y**2) = I*Abs(y)``, from
   ``math.acos(math.hypot(y, 1))``): the gradient builds, computes the formula as Python does,
   and raises where that formula does (``ValueError``/``ZeroDivisionError``), never at build.

Reference values: the primal in float, derivatives by hand, cross-checked with the 50-digit
mpmath central difference of ``test_reliability_complex`` wherever the function is real near the
point (and shown not real where the gradient raises).
"""
import math

import mpmath
import pytest

import symgrad
from source_modules import load_module
from test_reliability_complex import _assert_close, _central

STRATEGIES = ("auto", "reverse", "symbolic")


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\nfrom symgrad import stop_gradient\n\n\n" + body,
                       "symgrad_raising")


Z = mpmath.mpf(-4) ** mpmath.mpf(0.3)  # (-4) ** 0.3 (0.3 the float, as Python's), complex
C = abs(Z)

# --- 1. abs of a stopped complex value ----------------------------------------------------------
STOPPED = [  # (body, point, mpmath twin)
    ("def f(x, y):\n    if -1.0 < y:\n        return abs(stop_gradient((-4) ** 0.3))\n"
     "    return x\n", (0.4, 0.6), lambda x, y: C if y > -1 else x),
    ("def f(x, y):\n    if -1.0 < y:\n        return abs(stop_gradient((-4) ** 0.3))\n"
     "    return x\n", (0.4, -2.0), lambda x, y: C if y > -1 else x),
    ("def f(x):\n    return abs(stop_gradient((-4) ** 0.3)) * x\n", (1.5,), lambda x: C * x),
    ("def f(x):\n    return abs(stop_gradient(-(-4) ** 0.3)) * x\n", (1.5,), lambda x: C * x),
    ("def f(x):\n    return abs(stop_gradient((-4) ** 0.3) + 1) * x\n", (1.5,),
     lambda x: abs(mpmath.mpf(-4) ** mpmath.mpf(0.3) + 1) * x),
    ("def f(x, z):\n    return abs(stop_gradient(x * (-0.5) ** z)) * x\n", (1.5, 0.3),
     lambda x, z: abs(mpmath.mpf(1.5) * mpmath.mpf(-0.5) ** mpmath.mpf(0.3)) * x),
    # a variable times or plus a complex constant (refused before: `(-4) ** 0.3` "complex")
    ("def f(x):\n    return abs(stop_gradient((-4) ** 0.3) * x)\n", (1.5,), lambda x: C * x),
    ("def f(x):\n    return abs(x * (-4) ** 0.3)\n", (-1.5,), lambda x: -C * x),
    ("def f(x):\n    return abs(x + (-4) ** 0.3)\n", (1.5,), lambda x: abs(x + Z)),
    ("def f(x, y):\n    return abs(x * y + (-4) ** 0.3 * y)\n", (1.5, 0.3),
     lambda x, y: abs(x * y + Z * y)),
    ("def f(x):\n    t = x * 2.0\n    return abs(t - (-0.5) ** 0.3) * x\n", (1.5,),
     lambda x: abs(2 * x - mpmath.mpf(-0.5) ** mpmath.mpf(0.3)) * x),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, twin", STOPPED)
def test_abs_of_a_complex_value_is_real(tmp_path, body, point, twin, strategy):
    """The primal's float value and the central difference's gradient, no ValueError: a
    stopped value's modulus is a constant (a stopped factor frozen at the point, as its twin
    freezes it), a complex constant's is Python's, and abs(a + b c) has a real derivative."""
    f = _module(tmp_path, body).f
    value, got = symgrad.value_and_grad(f, strategy=strategy)(*point)
    got = got if isinstance(got, tuple) else (got,)
    assert value == f(*point) and type(value) is float
    expected = _central(twin, point)
    assert all(mpmath.im(g) == 0 for g in expected)
    _assert_close(got, [mpmath.re(g) for g in expected], rtol=1e-12)
    assert symgrad.grad(f, strategy=strategy)(*point) == (got if len(got) > 1 else got[0])


# --- 2. a moving complex power whose adjoint is 0 ---------------------------------------------
MAX_BODY = "def f(z, w):\n    z *= (-0.5) ** z\n    return max(z, z, {k})\n"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_complex_power_a_max_does_not_pick_has_gradient_zero(tmp_path, strategy):
    """At (-1, -4), z * (-0.5) ** z is 2.0 < 3: the max is 3 near the point whatever the power
    does (its modulus, 2, stays below 3), so the gradient is 0 under every strategy."""
    f = _module(tmp_path, MAX_BODY.format(k=3)).f
    assert symgrad.value_and_grad(f, strategy=strategy)(-1.0, -4.0) == (3.0, (0.0, 0.0))
    twin = _central(lambda z, w: max(abs(z * mpmath.mpf(-0.5) ** z), 3), (-1.0, -4.0))
    assert twin == [0, 0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_complex_power_a_max_picks_has_no_real_derivative(tmp_path, strategy):
    """Where the power wins (2.0 > 1), the output follows it, complex arbitrarily near:
    ValueError, as the central difference is not real."""
    f = _module(tmp_path, MAX_BODY.format(k=1)).f
    assert f(-1.0, -4.0) == 2.0
    with pytest.raises(ValueError, match="math domain error"):
        symgrad.grad(f, strategy=strategy)(-1.0, -4.0)
    twin = _central(lambda z, w: z * mpmath.mpf(-0.5) ** z, (-1.0, -4.0))
    assert mpmath.im(twin[0]) != 0


# --- 3. SymPy's I in a derivative -------------------------------------------------------------
IMAGINARY = [  # (body, point where the other branch runs, its gradient, point on the formula)
    ("def f(y, u):\n    if y:\n        return 1.0\n    return math.acos(math.hypot(y, 1))\n",
     (2.0, -3.0), (0.0, 0.0), (0.0, -3.0)),
    ("def f(y, x):\n    if x > 0:\n        return x * y\n    return math.asin(math.hypot(y, 1))\n",
     (2.0, 3.0), (3.0, 2.0), (-1.0, -1.0)),
    ("def f(y, x):\n    t = y * y + 1\n    if x > 0:\n        return x * y\n"
     "    return math.acos(math.sqrt(t))\n", (2.0, 3.0), (3.0, 2.0), (-1.0, -1.0)),
    ("def f(y, x):\n    t = -y * y\n    if x > 0:\n        return x * y\n"
     "    return math.sqrt(t) + x\n", (2.0, 3.0), (3.0, 2.0), (-1.0, -1.0)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, gradient, on_formula", IMAGINARY)
def test_a_derivative_sympy_writes_with_i_builds_and_raises_as_python(
        tmp_path, body, point, gradient, on_formula, strategy):
    """Builds under every strategy and backend; the other branch's gradient is exact; on the
    formula, where the primal raises or is real only at the point (acos(1) at y = 0), the
    gradient raises as Python's formula does (sqrt of a negative float, or 1 / sqrt(0.0))."""
    f = _module(tmp_path, body).f
    assert symgrad.grad(f, strategy=strategy)(*point) == gradient
    with pytest.raises((ValueError, ZeroDivisionError)):
        symgrad.grad(f, strategy=strategy)(*on_formula)
    numpy_grads = symgrad.grad(f, strategy=strategy, backend="numpy")(*on_formula)
    assert any(not math.isfinite(float(g)) for g in numpy_grads)


def test_imaginary_gradients_match_a_central_difference():
    """The other branch's gradients of ``IMAGINARY`` by central difference, and the formula is
    complex arbitrarily near the points where the gradient raises (acos(sqrt(1 + h**2)) is
    about i*|h|: its central difference at 0 is 0, its one-sided ones are +-i)."""
    twins = [
        (lambda y, u: 1, lambda y, u: mpmath.acos(mpmath.sqrt(y * y + 1))),
        (lambda y, x: x * y, lambda y, x: mpmath.asin(mpmath.sqrt(y * y + 1))),
        (lambda y, x: x * y, lambda y, x: mpmath.acos(mpmath.sqrt(y * y + 1))),
        (lambda y, x: x * y, lambda y, x: mpmath.sqrt(-y * y) + x),
    ]
    for (branch, formula), (_, point, gradient, on_formula) in zip(twins, IMAGINARY):
        assert [float(g) for g in _central(branch, point)] == list(gradient)
        with mpmath.workdps(50):
            y, other = (mpmath.mpf(p) for p in on_formula)
            assert mpmath.im(formula(y + mpmath.mpf(10) ** -20, other)) != 0

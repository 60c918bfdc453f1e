"""Issue 6, powers Python computes as complex numbers, and SymPy's rewrites of ``exp``/``atan2``.

docs/conventions.md, "Complex powers": a negative constant base to a varying exponent is a float
where the exponent is whole and a complex number elsewhere. Only what is complex for every input
(a constant fractional exponent, on a path every call takes) is refused; otherwise the primal's
lines compute the power as Python does (a complex value carried, tested for truth or compared
with ``==`` as Python does), and the gradient raises ``ValueError`` exactly where it needs a
complex value as a real number, or where the exponent moves (no real derivative there). No
complex number reaches a result.

The reference values are derived by hand and checked against a 50-digit central difference of
the same function written with mpmath (``_central``), wherever the function is real near the
point. The last part: ``math.atan2`` of a tiny ``math.exp`` (SymPy's ``atan(y*exp(a))`` and
``exp(2*a)`` overflow where the source's formula does not).
"""
import math

import mpmath
import pytest

import symgrad
from source_modules import load_module

STRATEGIES = ("auto", "reverse", "symbolic")


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\nfrom symgrad import stop_gradient\n\n\n" + body,
                       "symgrad_complex")


def _central(function, point, dps=50):
    """The ``dps``-digit central difference of ``function`` (of mpf arguments) at ``point``, with
    a step of 10 ** (-dps // 2.5)."""
    with mpmath.workdps(dps):
        step = mpmath.mpf(10) ** (-int(dps / 2.5))
        point = [mpmath.mpf(p) for p in point]
        grads = []
        for i in range(len(point)):
            up, down = list(point), list(point)
            up[i] += step
            down[i] -= step
            grads.append((function(*up) - function(*down)) / (2 * step))
        return grads


def _assert_close(got, expected, rtol=1e-12):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert type(g) is float
        assert abs(g - float(e)) <= rtol * max(abs(float(e)), 1e-300), (got, expected)


# --- 1. not refused: an exponent whole at some inputs -----------------------------------------
WHOLE_SOMEWHERE = [  # (body, point, value, gradient) where the power is real, its exponent still
    ("def f(a, b):\n    return math.floor(-0.5) ** (math.floor(a) * b)\n",  # (-1) ** (0 * b)
     (0.5, 2.0), 1.0, (0.0, 0.0)),
    ("def f(a, b):\n    return math.floor(-0.5) ** (math.floor(a) * b) * b\n",
     (0.25, 3.0), 3.0, (0.0, 1.0)),
    ("def f(t, c, b):\n    return (-0.5) ** (3.0 if 0 <= t - c + 1 <= 0.25 else b)\n",
     (0.0, 0.875, 2.5), -0.125, (0.0, 0.0, 0.0)),
    ("def f(a, b):\n    return math.tanh(-0.5) ** min(a, 1, b)\n",  # min is 1: constant
     (1.5, 2.0), math.tanh(-0.5), (0.0, 0.0)),
    ("def f(x, t):\n    return x * (-4) ** (t // 1)\n",  # t // 1 has derivative 0
     (1.5, 2.5), 24.0, (16.0, 0.0)),
    ("def f(x, t):\n    e = math.floor(t) * x\n    return pow(-2, e) + x\n",
     (1.25, 0.5), 2.25, (1.0, 0.0)),
    ("def f(x, t):\n    k = math.floor(t)\n    return math.pow(-2.0, k * x) * 3.0 + t\n",
     (0.75, 0.5), 3.5, (0.0, 1.0)),
    ("def h0(e):\n    return math.cos(2) ** e\n\n\ndef f(x, t):\n"
     "    return h0(math.floor(t) * x) * x\n", (1.5, 0.25), 1.5, (1.0, 0.0)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, value, gradient", WHOLE_SOMEWHERE)
def test_a_power_real_where_its_exponent_is_whole_is_not_refused(tmp_path, body, point, value,
                                                                 gradient, strategy):
    """The exponent is whole and constant near the point: the power is a real constant there,
    its derivative 0 (the primal's float value, and its gradient, as by hand)."""
    f = _module(tmp_path, body).f
    got_value, got = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert got_value == f(*point) == value and type(got_value) is float
    assert symgrad.grad(f, strategy=strategy)(*point) == got == gradient
    assert all(type(g) is float for g in got)


def test_whole_somewhere_gradients_match_a_central_difference():
    """The hand values of ``WHOLE_SOMEWHERE``, cross-checked: the function is real near each
    point (its exponent constant there), so the 50-digit central difference is the gradient."""
    functions = [
        lambda a, b: mpmath.mpf(-1) ** (mpmath.floor(a) * b),
        lambda a, b: mpmath.mpf(-1) ** (mpmath.floor(a) * b) * b,
        lambda t, c, b: mpmath.mpf(-0.5) ** (3 if 0 <= t - c + 1 <= 0.25 else b),
        lambda a, b: mpmath.mpf(math.tanh(-0.5)) ** min(a, 1, b),
        lambda x, t: x * mpmath.mpf(-4) ** mpmath.floor(t),
        lambda x, t: mpmath.mpf(-2) ** (mpmath.floor(t) * x) + x,
        lambda x, t: mpmath.mpf(-2) ** (mpmath.floor(t) * x) * 3 + t,
        lambda x, t: mpmath.mpf(math.cos(2)) ** (mpmath.floor(t) * x) * x,
    ]
    for function, (_, point, value, gradient) in zip(functions, WHOLE_SOMEWHERE):
        grads = _central(function, point)
        assert all(mpmath.im(g) == 0 for g in grads)
        _assert_close(tuple(gradient), grads, rtol=1e-15) if any(gradient) else None
        assert [float(mpmath.re(g)) for g in grads] == list(gradient)


NO_REAL_DERIVATIVE = [  # (body, point): the power is real at the point, but its exponent moves
    ("def f(a, b):\n    return math.floor(-0.5) ** (math.floor(a) * b)\n", (1.5, 2.0)),
    ("def f(a):\n    return math.cos(2) ** (-(a - 1.0))\n", (2.0,)),
    ("def f(t, c, b):\n    return (-0.5) ** (3.0 if 0 <= t - c + 1 <= 0.25 else b)\n",
     (5.0, 1.0, 2.0)),
    ("def f(a, b):\n    return math.tanh(-0.5) ** min(a, 1, b)\n", (0.5, 2.0)),
    ("def f(x, y):\n    return (-4) ** y * x\n", (1.0, 2.0)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point", NO_REAL_DERIVATIVE)
def test_a_power_whose_exponent_moves_has_no_real_derivative(tmp_path, body, point, strategy):
    """Real at the point (or complex there), complex arbitrarily near: no real derivative, so
    the gradient raises ValueError (numpy: nan), never a number."""
    f = _module(tmp_path, body).f
    g = symgrad.grad(f, strategy=strategy)
    with pytest.raises(ValueError, match="math domain error"):
        g(*point)
    numpy_g = symgrad.grad(f, strategy=strategy, backend="numpy")
    grads = numpy_g(*point)
    assert any(math.isnan(float(d)) for d in (grads if isinstance(grads, tuple) else (grads,)))


def test_no_real_derivative_is_what_a_central_difference_finds():
    """At the points of ``NO_REAL_DERIVATIVE`` the 50-digit central difference is not real."""
    functions = [
        lambda a, b: mpmath.mpf(-1) ** (mpmath.floor(a) * b),
        lambda a: mpmath.mpf(math.cos(2)) ** (-(a - 1)),
        lambda t, c, b: mpmath.mpf(-0.5) ** (3 if 0 <= t - c + 1 <= 0.25 else b),
        lambda a, b: mpmath.mpf(math.tanh(-0.5)) ** min(a, 1, b),
        lambda x, y: mpmath.mpf(-4) ** y * x,
    ]
    for function, (_, point) in zip(functions, NO_REAL_DERIVATIVE):
        assert any(mpmath.im(g) != 0 for g in _central(function, point))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_value_is_computed_as_python_does_and_raises_where_complex(tmp_path, strategy):
    """value_and_grad's value is the primal's float where the power is real; where the primal
    computes a complex number, ValueError (no complex result)."""
    f = _module(tmp_path, "def f(a, b):\n    return math.floor(-0.5) ** (math.floor(a) * b) "
                          "+ 0.0 * b\n").f
    vg = symgrad.value_and_grad(f, strategy=strategy)
    assert vg(0.5, 2.5) == (1.0, (0.0, 0.0))
    assert f(1.5, 2.5).imag != 0  # (-1) ** 2.5
    with pytest.raises(ValueError, match="math domain error"):
        vg(1.5, 2.5)


COMPLEX_EVERYWHERE = [  # (line, the power as written, its base): complex for every input
    ("math.log10(0.5) ** 0.3 * t", "math.log10(0.5) ** 0.3", "-0.3010299956639812"),
    ("pow(-8, 1 / 3) * x", "pow(-8, 1 / 3)", "-8"),
    ("(-4) ** 0.5 + x", "(-4) ** 0.5", "-4"),
    ("x * stop_gradient((-2.0) ** 1.5)", "(-2.0) ** 1.5", "-2"),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("line, power, base", COMPLEX_EVERYWHERE)
def test_a_constant_fractional_power_of_a_negative_base_is_refused(tmp_path, line, power, base,
                                                                   strategy):
    """Complex for every input, on a path every call takes: refused at the power's line."""
    f = _module(tmp_path, f"def f(x, t):\n    u = {line}\n    return u + x\n").f
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f, strategy=strategy)
    assert caught.value.lineno == 6 and caught.value.text.strip() == f"u = {line}"
    assert caught.value.what == (f"`{power}` is a complex number in Python (a negative base, "
                                 f"{base}, to a fractional power), and symgrad differentiates "
                                 "real values only")


# --- 2. no raise where the primal only carries a complex constant -------------------------------
CARRIED = [  # (body, point, gradient): the complex value is never needed as a real number
    ("def f(u):\n    if (-4) ** 0.3:\n        return 1.5 * u\n    return u\n", (1.0,), 1.5),
    ("def f(u):\n    if (-4) ** 0.3 - (-4) ** 0.3:\n        return 1.5 * u\n    return u * u\n",
     (3.0,), 6.0),
    ("def f(u):\n    a = (-4) ** 0.5\n    if a == a:\n        return u * 3.0\n    return u\n",
     (1.0,), 3.0),
    ("def f(u):\n    a = (-4) ** 0.5\n    if a != 2.0:\n        return u * 3.0\n    return u\n",
     (1.0,), 3.0),
    ("def f(u, y):\n    a = stop_gradient((-4) ** 0.5)\n    return a if u // 3 else y\n",
     (1.0, 2.0), (0.0, 1.0)),
    ("def f(u, y):\n    if u > 0 and (-4) ** 0.5:\n        return y * u\n    return y\n",
     (2.0, 3.0), (3.0, 2.0)),
    ("def f(u, y):\n    if not math.cos(2) ** 0.5:\n        return y\n    return y * u\n",
     (2.0, 3.0), (3.0, 2.0)),
    ("def f(u):\n    return abs((-4) ** 0.5) * u\n", (1.25,), 2.0),  # abs of complex: 2.0
    ("def f(u):\n    return abs(1.5 * (-4) ** 0.5) * u\n", (1.25,), 3.0),
    # an exponent whose operands fold to a number (y - y is 0): the power is a complex constant
    # (the scalar fuzzer's 50-0-938 crashed here with AttributeError), |(-0.5) ** 0.5| = 0.5 ** 0.5
    ("def f(u, y):\n    return abs((-0.5) ** (y - y + 0.5)) * u\n", (1.25, 0.7),
     (0.5 ** 0.5, 0.0)),
    ("def f(u, y):\n    return abs(u * (-0.5) ** (y - y + 0.5))\n", (-1.25, 0.7),
     (-0.5 ** 0.5, 0.0)),
    ("def f(u, y):\n    return abs((-0.5) ** (y * 0 + 3.0)) * u\n", (1.25, 0.7),  # real: -1/8
     (0.125, 0.0)),
    ("def f(u, e):\n    return abs((-0.5) ** e) * u\n", (1.0, 0.3),  # abs: 0.5 ** e, real
     (0.5 ** 0.3, math.log(0.5) * 0.5 ** 0.3)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, gradient", CARRIED)
def test_a_complex_value_the_primal_only_carries_does_not_raise(tmp_path, body, point, gradient,
                                                                strategy):
    f = _module(tmp_path, body).f
    gradient = gradient if isinstance(gradient, tuple) else (gradient,)
    got = symgrad.grad(f, strategy=strategy)(*point)
    _assert_close(got if isinstance(got, tuple) else (got,), gradient)
    value, _ = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point) and type(value) is float


def test_carried_gradients_match_a_central_difference():
    """The last row's gradient (abs of a complex power is 0.5 ** e for every e), cross-checked
    at 50 digits through mpmath's complex power; the others are linear in the parameters."""
    grads = _central(lambda u, e: abs(mpmath.power(mpmath.mpf(-0.5), e)) * u, (1.0, 0.3))
    _assert_close(CARRIED[-1][2], [mpmath.re(g) for g in grads], rtol=1e-15)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_comparing_a_complex_constant_raises_as_python_does(tmp_path, strategy):
    """``(-4) ** 0.5 > 1`` raises TypeError in Python: refused where it always runs, ValueError
    in the gradient where it may not."""
    f = _module(tmp_path, "def f(u):\n    if (-4) ** 0.5 > 1:\n        return u\n"
                          "    return 2.0 * u\n").f
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="undefined"):
        symgrad.grad(f, strategy=strategy)
    g = _module(tmp_path, "def f(u):\n    if u > 0:\n        if (-4) ** 0.5 > 1:\n"
                          "            return u\n    return 2.0 * u\n").f
    grad = symgrad.grad(g, strategy=strategy)
    assert grad(-1.0) == 2.0
    with pytest.raises(ValueError, match="math domain error"):
        grad(1.0)


# --- 3. no complex number reaches a result -----------------------------------------------------
TRUTH_OF_A_POWER = [  # (body, points and gradients): a varying power tested for truth
    ("def f(u):\n    a = -(-0.5) ** u\n    if a:\n        return 0.5\n    return a\n",
     [((1.5,), 0.0), ((1.0,), 0.0), ((2.0,), 0.0)]),
    ("def f(u, x):\n    a = (-2.0) ** u * x\n    if a:\n        return x * x\n    return a\n",
     [((1.5, 3.0), (0.0, 6.0)), ((2.0, 0.5), (0.0, 1.0))]),
    ("def f(u, x):\n    b = stop_gradient((-0.5) ** u)\n    return x if b else b\n",
     [((0.5, 2.0), (0.0, 1.0)), ((3.0, 2.0), (0.0, 1.0))]),
    ("def f(u, x):\n    a = (-0.5) ** u\n    b = a * 0.0 + x\n    if a == a:\n"
     "        return x * 2.0\n    return b\n", [((0.5, 2.0), (0.0, 2.0))]),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, cases", TRUTH_OF_A_POWER)
def test_a_power_tested_for_truth_gives_float_results(tmp_path, body, cases, strategy):
    """Python's complex values are truthy and equal to themselves: the primal returns a float
    there, and so do the gradient and value_and_grad (never ``0j``)."""
    f = _module(tmp_path, body).f
    g, vg = symgrad.grad(f, strategy=strategy), symgrad.value_and_grad(f, strategy=strategy)
    for point, gradient in cases:
        got = g(*point)
        value, also = vg(*point)
        assert got == also == gradient
        assert all(type(d) is float for d in (got if isinstance(got, tuple) else (got,)))
        assert value == f(*point) and type(value) is float


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_complex_value_needed_as_a_real_raises_value_error(tmp_path, strategy):
    """``a`` complex (u = 1.5) and used by the gradient (``a * x``): ValueError, no ``0j``;
    real at whole u, with no real derivative in u there (the exponent moves)."""
    f = _module(tmp_path, "def f(u, x):\n    a = (-0.5) ** u\n    return a * x\n").f
    for backend_value in (symgrad.grad(f, strategy=strategy),
                          symgrad.value_and_grad(f, strategy=strategy)):
        for point in ((1.5, 2.0), (2.0, 2.0)):
            with pytest.raises(ValueError, match="math domain error"):
                backend_value(*point)
    h = _module(tmp_path, "def f(u, x):\n    a = stop_gradient((-0.5) ** u)\n"
                          "    return a * x\n").f
    grad = symgrad.grad(h, strategy=strategy)
    assert grad(2.0, 3.0) == (0.0, 0.25)  # a stopped power: real at whole u, derivative in x
    with pytest.raises(ValueError, match="math domain error"):
        grad(1.5, 3.0)  # needs the complex a as a real number


# --- 4. exp and atan2 as written: no overflow SymPy's rewriting introduces ----------------------
def _r1(u, t):
    t = t + (5 + t) ** 3
    return mpmath.atan2(u, mpmath.exp(-t))


def _r2(u, t):
    for _ in range(3):
        u = u * (u + 1)
    return mpmath.atan2(t, mpmath.exp(mpmath.mpf("0.4") - u))


def _r3(u, t):
    return mpmath.atan2(u, mpmath.exp(-t * t * 100))


def _r4(u, t):
    return mpmath.atan2(u * u + 1, 3 * mpmath.exp(-(t * t) * 400)) + u


EXP_FORMS = [  # (body, mpmath twin, point): exp(-a) tiny; SymPy's exp(a) or exp(2a) overflows
    ("def f(u, t):\n    t += (5 + t) ** 3\n    return math.atan2(u, math.exp(-t))\n",
     _r1, (1.45, 2.1)),
    ("def f(u, t):\n    u *= u + 1.0\n    u *= u + 1.0\n    u *= u + 1.0\n"
     "    return math.atan2(t, math.exp(0.4 - u))\n", _r2, (2.5, 0.3)),
    ("def f(u, t):\n    return math.atan2(u, math.exp(-t * t * 100.0))\n", _r3, (0.5, 2.0)),
    ("def f(u, t):\n    w = math.exp(-(t * t) * 400)\n    return math.atan2(u * u + 1, 3 * w) + u\n",
     _r4, (0.5, 1.2)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, twin, point", EXP_FORMS)
def test_a_tiny_exp_under_atan2_does_not_overflow(tmp_path, body, twin, point, strategy):
    """The gradient of the source's formula is finite (``x / (x*x + y*y)``, x = exp(-a) tiny,
    the derivative as small as 1e-247): a 1000-digit central difference of the same function,
    to 1e-12 relatively."""
    f = _module(tmp_path, body).f
    got = symgrad.grad(f, strategy=strategy)(*point)
    _assert_close(got, _central(twin, point, dps=1000))
    value, also = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point) and also == got


def test_exp_and_atan2_stay_as_written():
    """The kept forms: no exp(2a) from exp(a)**2, no exp(-a) from 1/exp(a), no atan(y/x); exp
    of a log is still its argument and numbers still evaluate."""
    import sympy
    from symgrad.kept import Atan2, Exp
    x, y = sympy.symbols("x y", real=True)
    assert Exp(x) ** 2 == sympy.Pow(Exp(x), 2, evaluate=False) and (1 / Exp(x)).exp == -1
    assert Exp(x) * Exp(y) != Exp(x + y) and Exp(x) * Exp(x) == Exp(x) ** 2
    assert Exp(sympy.log(y)) == y and Exp(x).diff(x) == Exp(x)
    assert isinstance(Atan2(y, Exp(x)), Atan2) and Atan2(1, 1) == sympy.pi / 4


def rounds_a_complex_constant(x, y):
    a = y * round((-4) ** 0.3)
    return x if 0.5 != a else a


def test_round_of_a_complex_constant_raises_as_the_primal():
    """``round`` of a complex number is Python's TypeError on every call: the gradient raises the
    same error at the same line instead of crashing the build (fuzz seed 9501)."""
    with pytest.raises(TypeError, match="complex"):
        rounds_a_complex_constant(1.0, 2.0)
    gradient = symgrad.grad(rounds_a_complex_constant, cache=False)
    with pytest.raises(TypeError, match="complex"):
        gradient(1.0, 2.0)

"""Issue 6: false refusals, crashes and raises the fuzzer found around build-time decisions.

1. A power of a negative constant base whose exponent is chosen by a condition on constants
   (``math.floor(-0.5) ** (2 if math.sin(a) else u)`` with ``a = math.tan(0.5)``): the exponent
   is the primal's float (the condition decided as Python decides it), so a whole exponent is a
   real power, not "a fractional power" refused; a fractional one chosen on every call is.
2. A conditional expression decided at build time (``t + 1.0 - 1.0 if True else z``), or
   either side of one, keeps the form the source computes: a comparison of it compares the
   primal's float (0.17 + 1.0 - 1.0 < 0.17 in float), never SymPy's ``t < t``.
3. A large ``max``/``min`` (``rules.LargeMax``) of constants evaluates to a number: no SymPy
   recursion escapes from its ``evalf``.
4. ``abs`` of a product holding a complex-valued power is real for every exponent:
   ``|k * c ** e| = |k| * |c| ** e``.
5. ``np.power`` of a negative constant base to an array exponent follows the scalar decision
   with NumPy's values (nan off whole exponents), never a crash.

Reference values: the primal in float (the branch it takes at the point), derivatives by hand,
cross-checked with a 50-digit mpmath central difference where the function is smooth there.
"""
import math

import mpmath
import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_reliability_complex import _central

STRATEGIES = ("auto", "reverse", "symbolic")


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\n\nimport numpy as np\n\n\n" + body,
                       "symgrad_refusals")




def _gradient(result):
    return result if isinstance(result, tuple) else (result,)


def _assert_close(got, expected, rtol=1e-12):
    got = _gradient(got)
    assert len(got) == len(expected), (got, expected)
    for g, e in zip(got, expected):
        assert type(g) is float
        assert abs(g - float(e)) <= rtol * max(abs(float(e)), 1e-300), (got, expected)


# --- 1. a conditional exponent decided by constants -------------------------------------------
WHOLE_CHOSEN = [  # (body, point, gradient): the constant condition picks a whole exponent
    ("def f(u):\n    a = math.tan(0.5)\n"  # the fuzzer's reproducer, 9601-1-806
     "    return math.floor(-0.5) ** (2 if math.sin(a) else u) * u\n", (0.7,), (1.0,)),
    ("def f(x):\n    a = math.expm1(0.5)\n"  # 9601-1-6241
     "    return (-4) ** (0.0 if math.log(abs(a - a + 2) + 1.0) != math.expm1(0) else x) * x\n",
     (0.7,), (1.0,)),
    ("def f(x):\n    a = math.cos(1.0)\n"  # and: 0.5 < 0.5403 < 0.6
     "    e = 3 if a > 0.5 and a < 0.6 else x\n    return (-2) ** e + x\n", (0.3,), (1.0,)),
    ("def f(x):\n    a = math.cos(1.0)\n"  # an if statement, not
     "    if not a < 0.5:\n        e = 2.0\n    else:\n        e = x\n"
     "    return x * (-0.5) ** e\n", (0.3,), (0.25,)),
    ("def f(x):\n    a = math.sin(1.0)\n"  # or, decided by its first operand (pow)
     "    return pow(-3, 2 if a or x > 0 else x) * x\n", (-0.3,), (9.0,)),
    ("def f(x):\n    a = math.log10(0.5)\n"  # math.pow, the base a name
     "    return math.pow(a, 2 if a < 0 else x) * x\n", (1.5,), (math.log10(0.5) ** 2,)),
    ("def f(x):\n    a = math.atan(1.0)\n"  # a chained comparison
     "    return (-1.5) ** (2 if 0 < a < 1 else 0.5) * x\n", (1.5,), (2.25,)),
    ("def h0(b, e):\n    c = math.exp(e)\n    return b ** (2 if c > 1 else 0.5)\n\n\n"
     "def f(x):\n    return h0(-2.0, 0.3) * x\n", (1.5,), (4.0,)),  # in a helper
    ("def f(x):\n    a = math.tan(0.5)\n"  # a truth test in an if, the exponent 3 (odd)
     "    e = x\n    if math.sin(a):\n        e = 3\n    return math.floor(-0.5) ** e * x\n",
     (0.7,), (-1.0,)),
    ("def f(x):\n    a = math.tan(0.5)\n"  # jumps of constants decide: floor
     "    return math.floor(-0.5) ** (2 if math.floor(a) == 0 else x) * x\n", (0.5,), (1.0,)),
    ("def f(x):\n    a = math.tan(0.5)\n"  # round and %
     "    return (-3.0) ** (2 if round(a * 3) % 2 == 0 else x) * x\n", (0.5,), (9.0,)),
    ("def f(x):\n    a = math.tan(0.5)\n"  # //
     "    return (-3.0) ** (2 if a // 0.25 >= 2 else x) * x\n", (0.5,), (9.0,)),
    ("def f(x):\n    a = math.log(4.0)\n"  # no condition: the exponent's float is 2.0
     "    return (-2) ** (a / math.log(2.0)) * x\n", (0.7,), (4.0,)),
    ("def f(x, y):\n    a = math.cos(2.0)\n"  # a whole exponent on one side, y on the other
     "    return x * a ** (2 if y > 1 else 4)\n", (1.5, 0.5), (math.cos(2.0) ** 4, 0.0)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, gradient", WHOLE_CHOSEN)
def test_a_whole_exponent_chosen_by_constants_is_not_refused(tmp_path, body, point, gradient,
                                                             strategy):
    """The primal's power is real (the exponent is whole): the value is the primal's float and
    the gradient the one by hand (the power is constant in the variables)."""
    f = _module(tmp_path, body).f
    value, grad = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point) and type(value) is float
    _assert_close(grad, gradient)


def test_whole_chosen_gradients_match_a_central_difference():
    a = math.log10(0.5)
    functions = [lambda u: u, lambda x: x, lambda x: -8 + x, lambda x: x * 0.25,
                 lambda x: 9 * x, lambda x: a ** 2 * x, lambda x: 2.25 * x, lambda x: 4 * x,
                 lambda x: -x, lambda x: x, lambda x: 9 * x, lambda x: 9 * x, lambda x: 4 * x,
                 lambda x, y: x * mpmath.cos(2) ** 4]
    for function, (_, point, gradient) in zip(functions, WHOLE_CHOSEN):
        _assert_close(tuple(float(g) for g in _central(function, point)), gradient, rtol=1e-9)


FRACTIONAL_CHOSEN = [  # the constant condition picks a fractional exponent: complex every call
    ("def f(u):\n    a = math.tan(0.5)\n"
     "    return math.floor(-0.5) ** (0.5 if math.sin(a) else u) * u\n",
     "math.floor(-0.5) ** (0.5 if math.sin(a) else u)"),
    ("def f(x):\n    a = math.cos(1.0)\n    e = 1.5 if a > 0.5 else x\n"
     "    return (-2) ** e + x\n", "(-2) ** e"),
    ("def f(x):\n    a = math.cos(1.0)\n    return pow(-2, x if a < 0.5 else 0.25) + x\n",
     "pow(-2, x if a < 0.5 else 0.25)"),
    ("def f(x):\n    a = math.cos(1.0)\n    return (-2) ** (a * 2) * x\n", "(-2) ** (a * 2)"),
    ("def f(x):\n    a = 0.1\n    return (-2) ** ((a + 0.2) * 10) * x\n",  # 3.0000000000000004
     "(-2) ** ((a + 0.2) * 10)"),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, power", FRACTIONAL_CHOSEN)
def test_a_fractional_exponent_chosen_by_constants_is_refused(tmp_path, body, power, strategy):
    """Complex on every call (Python's value is a complex number): refused at the power."""
    f = _module(tmp_path, body).f
    assert isinstance(f(0.7), complex)
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f, strategy=strategy)
    assert caught.value.what.startswith(f"`{power}` is a complex number in Python")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_varying_condition_between_whole_and_fractional_is_not_refused(tmp_path, strategy):
    """``math.atanh(-0.25) ** (3 if 4 >= y else 0.001)`` is real for y <= 4 (fuzz 9304): the
    gradient there, and ValueError where the primal's value is complex (y > 4)."""
    f = _module(tmp_path, "def f(y, u):\n    return math.atanh(-0.25) ** (3 if 4 >= y else "
                          "0.001) * u\n").f
    g = symgrad.grad(f, strategy=strategy)
    _assert_close(g(0.5, -0.4), (0.0, math.atanh(-0.25) ** 3))
    with pytest.raises(ValueError, match="math domain error"):
        g(5.0, -0.4)


# --- 2. a conditional expression keeps the form the source computes ---------------------------
T, Z = 0.17, 0.5  # 0.17 + 1.0 - 1.0 is 0.16999999999999993 < 0.17 in float
KEPT_AS_WRITTEN = [  # (body, gradient at (T, Z)) in float; SymPy's form would give another
    ("def f(t, z):\n    if (t + 1.0 - 1.0 if True else z) < t:\n        return 0.5 * t\n"
     "    return math.log(0.0)\n", (0.5, 0.0)),  # the fuzzer's reproducer: not refused
    ("def f(t, z):\n    if (t + 1.0 - 1.0 if z < 100 else z) < t:\n        return 2 * t\n"
     "    return 3 * t\n", (2.0, 0.0)),  # a side of an undecided one
    ("def f(t, z):\n    s = t + 1.0 - 1.0 if not False else z\n    if s < t:\n"
     "        return 2 * t\n    return 3 * t\n", (2.0, 0.0)),  # named first
    ("def f(t, z):\n    if (t + 1.0 - 1.0 - t if 1 > 0 else z):\n        return 2 * t\n"
     "    return 3 * t\n", (2.0, 0.0)),  # a truth test: -5.55e-17 is true
    ("def f(t, z):\n    return 2 * t if (t + 1.0 - 1.0 if True else z) < t else 3 * t\n",
     (2.0, 0.0)),  # a conditional expression's test
    ("def f(t, z):\n    if z > 0 and (t + 1.0 - 1.0 if True else z) < t:\n        return 2 * t\n"
     "    return 3 * t\n", (2.0, 0.0)),  # after `and`
    ("def f(t, z):\n    if t > (z if False else t + 1.0 - 1.0):\n        return 2 * t\n"
     "    return 3 * t\n", (2.0, 0.0)),  # the right operand, the orelse side
    ("def h0(a):\n    return a + 1.0 - 1.0 if True else a\n\n\n"
     "def f(t, z):\n    if h0(t) < t:\n        return 2 * t\n    return 3 * t\n", (2.0, 0.0)),
    ("def f(t, z):\n    if True:\n        s = t + 1.0 - 1.0\n    else:\n        s = z\n"
     "    if s < t:\n        return 2 * t\n    return 3 * t\n", (2.0, 0.0)),  # if statements
    ("def f(t, z):\n    if z < 100:\n        s = t + 1.0 - 1.0\n    else:\n        s = z\n"
     "    if s < t:\n        return 2 * t\n    return 3 * t\n", (2.0, 0.0)),
    ("def f(t, z):\n    return math.floor((t + 1.0 - 1.0 - t if True else z) * 1e17) * z\n",
     (0.0, math.floor((T + 1.0 - 1.0 - T) * 1e17))),  # a jump's argument: -9, not 0
    ("def f(t, z):\n    return math.floor((t + 1.0 - 1.0 - t if z < 10 else z) * 1e17) * z\n",
     (0.0, math.floor((T + 1.0 - 1.0 - T) * 1e17))),
    ("def f(t, z):\n    for k in range(2):\n        if (t + 1.0 - 1.0 if k < 5 else z) < t:\n"
     "            z = z + t\n    return z\n", (2.0, 1.0)),  # in a loop
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, gradient", KEPT_AS_WRITTEN)
def test_a_conditional_expression_is_compared_as_the_primal_computes_it(tmp_path, body,
                                                                        gradient, strategy):
    """The generated code takes the primal's branch at (0.17, 0.5): its value is the primal's
    and the gradient that branch's, by hand."""
    assert T + 1.0 - 1.0 < T
    f = _module(tmp_path, body).f
    value, grad = symgrad.value_and_grad(f, strategy=strategy)(T, Z)
    assert value == f(T, Z)
    _assert_close(grad, gradient)


# --- 3. a large max/min of constants ----------------------------------------------------------
LARGE_EXTREMA = [  # (body, point, gradient): 6-argument max/min over a name with a constant
    ("def h0(a):\n    a = math.exp(a) % 2\n    if max(a - a + 0.5, a, 2, a, a, -a - 2):\n"
     "        return 0.3\n    return a\n\n\ndef f(u):\n    b = h0(0.25)\n    return 4\n",
     (0.3,), (0.0,)),  # the fuzzer's reproducer (9501), the helper's result dead
    ("def h0(a):\n    a = math.exp(a) % 2\n    if max(a - a + 0.5, a, 2, a, a, -a - 2):\n"
     "        return 0.3\n    return a\n\n\ndef f(u):\n    b = h0(0.25)\n    return b * u\n",
     (0.3,), (0.3,)),
    ("def f(u):\n    a = math.exp(0.25) % 2\n"
     "    if min(a - a + 0.5, a, 2, a, a, -a - 2) > -4:\n        return u * u\n    return u\n",
     (0.3,), (0.6,)),
    ("def f(u):\n    a = math.exp(0.25) % 2\n"
     "    return u * max(a - a + 0.5, a, 2, a, math.sin(a), -a - 2, math.cos(a), a * a)\n",
     (0.3,), (2.0,)),
    ("def f(u):\n    a = math.exp(0.25) % 2\n"
     "    return u * min(a - a + 0.5, a, 2, a, math.sin(a), -a - 2, math.cos(a), a * a)\n",
     (0.3,), (-(math.exp(0.25) % 2) - 2,)),
    ("def f(u):\n    a = math.exp(0.25) % 2\n"
     "    return max(a - a + 0.5, a, 2, a, a, -a - 2, u)\n", (0.3,), (0.0,)),
    ("def f(y):\n    a = 0.5 ** 0.5\n"  # fuzz 10404-0-1135: three arguments, no helper
     "    if max(a - a, 1.0 - a - a, a - a + 1.5) >= 0.0:\n        return y\n    return 1.0\n",
     (0.3,), (1.0,)),
    ("def h0(a):\n    a = math.sin(a)\n    if max(-a, a - a + 1, a - a + 1, -a - 0.5):\n"
     "        return 4.0\n    return a\n\n\ndef f(y):\n    return h0(1.5 - 2) * y\n",
     (0.3,), (4.0,)),  # the helper's value used
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, gradient", LARGE_EXTREMA)
def test_a_large_extremum_of_constants_builds(tmp_path, body, point, gradient, strategy):
    f = _module(tmp_path, body).f
    value, grad = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == f(*point)
    _assert_close(grad, gradient)


def test_large_extrema_and_written_operators_of_constants_evaluate_to_numbers():
    """``LargeMax``/``LargeMin`` of numbers is the winning number, and of constants evaluates
    to it (SymPy's own evalf rebuilt the max, recursing for ever); a written ``%`` of a written
    call evaluates (fuzz: ``(-3.0) ** (2 if round(a * 3) % 2 else z)`` crashed the build)."""
    import sympy
    from symgrad.rules import RULES, LargeMax, LargeMin, Written, rule_for_callable
    half = sympy.Rational(1, 2)
    assert LargeMax(sympy.Float(1.0), sympy.Integer(2), half) == 2
    assert LargeMin(sympy.Float(1.0), sympy.Integer(2), half) == half
    sin_code = 100 + RULES.index(rule_for_callable(math.sin))
    args = (Written(sympy.Integer(sin_code), sympy.cos(1)), sympy.sin(1), sympy.cos(3),
            sympy.exp(-1), sympy.Integer(2))
    assert float(LargeMax(*args).evalf()) == 2.0
    assert float(LargeMin(*args).evalf()) == pytest.approx(math.cos(3), rel=1e-15)
    round_code = 100 + RULES.index(rule_for_callable(round))
    remainder = Written(sympy.Integer(6), Written(sympy.Integer(round_code), Written(
        sympy.Integer(2), sympy.tan(half), sympy.Integer(3))), sympy.Integer(2))
    assert remainder.evalf() == 0  # round(1.64) % 2: SymPy's Mod of a Written did not evaluate


# --- 4. abs of a product of a complex-valued power --------------------------------------------
ABS_PRODUCTS = [  # (body, twin with mpmath, point)
    ("def f(e):\n    return abs(2 * (-0.5) ** e)\n",
     lambda e: abs(2 * mpmath.power(-0.5, e)), (2.3,)),  # the fuzzer's
    ("def f(e):\n    return abs((-0.5) ** e / 3)\n",
     lambda e: abs(mpmath.power(-0.5, e) / 3), (2.3,)),
    ("def f(e):\n    return abs(-(-0.5) ** e)\n", lambda e: abs(mpmath.power(-0.5, e)), (0.7,)),
    ("def f(x, e):\n    return abs(x * pow(-2, e))\n",
     lambda x, e: abs(x * mpmath.power(-2, e)), (-1.5, 0.3)),
    ("def f(x, e):\n    return abs(((-2.0) ** e) ** 2 * x)\n",
     lambda x, e: abs(mpmath.power(-2, e) ** 2 * x), (1.5, 0.3)),
    ("def f(x, e):\n    a = math.cos(2)\n    return abs(x * a ** e) + x\n",
     lambda x, e: abs(x * mpmath.power(mpmath.cos(2), e)) + x, (1.5, 1.3)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, twin, point", ABS_PRODUCTS)
def test_abs_of_a_product_of_a_complex_power_is_real(tmp_path, body, twin, point, strategy):
    """``abs(k * c ** e) = |k| * |c| ** e`` for every e: value and gradient real, the gradient
    the 50-digit central difference of the same function (Python's abs of the complex power)."""
    f = _module(tmp_path, body).f
    value, grad = symgrad.value_and_grad(f, strategy=strategy)(*point)
    assert value == pytest.approx(f(*point), rel=1e-14)
    _assert_close(grad, tuple(float(g) for g in _central(twin, point)), rtol=1e-10)


# --- 5. arrays: a negative constant base to an array exponent ---------------------------------
POWERS_OF_ARRAYS = ["np.power(-2.0, y)", "(-2.0) ** y", "np.power(math.cos(2.0), y)"]


@pytest.mark.parametrize("power", POWERS_OF_ARRAYS)
def test_a_negative_base_to_an_array_exponent_follows_numpy(tmp_path, power):
    """NumPy's value (nan where the exponent is fractional), d/dx the power as NumPy computes
    it, d/dy nan (the exponent moves: no real derivative, the array form of the ValueError)."""
    f = _module(tmp_path, f"def f(x, y):\n    return np.sum({power} * x)\n").f
    vg = symgrad.value_and_grad(f, shapes={"x": ("n",), "y": ("n",)})
    x = np.array([1.0, 2.0])
    base = -2.0 if power != POWERS_OF_ARRAYS[2] else math.cos(2.0)
    for y in (np.array([2.0, 3.0]), np.array([2.0, 0.5])):
        with np.errstate(invalid="ignore"):
            expected = f(x, y)
            value, (dx, dy) = vg(x, y)
            powers = np.power(base, y)
        assert value == expected or (math.isnan(value) and math.isnan(expected))
        np.testing.assert_array_equal(dx, powers)
        assert np.isnan(dy).all()
    assert value != value and np.isnan(dx[1])  # (-2) ** 0.5: NumPy's nan


def test_a_negative_base_to_a_whole_array_exponent_has_the_numpy_values(tmp_path):
    """The whole exponents: d/dx is (-2) ** y, exactly NumPy's, and a stopped exponent has a
    real gradient."""
    f = _module(tmp_path, "from symgrad import stop_gradient\n\n\ndef f(x, y):\n"
                          "    return np.sum(np.power(-2.0, stop_gradient(y)) * x)\n").f
    g = symgrad.grad(f, shapes={"x": ("n",), "y": ("n",)}, wrt="x")
    np.testing.assert_array_equal(g(np.array([1.0, 2.0]), np.array([2.0, 3.0])), [4.0, -8.0])


# --- a complex constant compared by max/min ---------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_max_of_a_complex_constant_raises_as_python_does(tmp_path, strategy):
    """``min(a, a)`` of a complex ``a`` raises TypeError in Python: refused where it runs on
    every call (fuzz Z7 crashed the build in SymPy: "not comparable"), ValueError in the
    gradient where it may not run, the gradient elsewhere."""
    f = _module(tmp_path, "def h0(a):\n    if min(a, a):\n        return 0.001\n    return a\n\n\n"
                          "def f(y, u, t):\n    return h0((-0.5) ** 0.3)\n").f
    with pytest.raises(TypeError):
        f(0.1, 0.2, 0.3)
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="for every input"):
        symgrad.grad(f, strategy=strategy)
    g = _module(tmp_path, "def f(y):\n    if y > 0:\n        return min((-0.5) ** 0.3, y)\n"
                          "    return y\n").f
    vg = symgrad.value_and_grad(g, strategy=strategy)
    assert vg(-0.5) == (-0.5, 1.0)
    with pytest.raises(TypeError):
        g(0.5)
    with pytest.raises(ValueError):
        vg(0.5)


# --- a substitution rebuilding a max/min with large arguments ---------------------------------
def test_a_substituted_small_extremum_with_large_arguments_is_a_large_one():
    """The reverse pass's substitution (and ``realpower.differentiable``'s) rebuilds
    ``Min(x, 1)`` with ``x``'s substituted value: over ``FOLDED_MAX_NODES`` tree nodes it is a
    ``LargeMin``, as the rules build one (fuzz 10301-0-741: SymPy's pairwise simplification of
    the rebuilt min took most of a 6.8 s build); a small one stays SymPy's."""
    import sympy
    from symgrad.rules import FOLDED_MAX_NODES, LargeMax, LargeMin, rebuilt
    x, y = sympy.symbols("x y", real=True)
    big = sum(sympy.sin(x + k) * y for k in range(FOLDED_MAX_NODES))
    assert type(rebuilt(sympy.Min(x, y), [big, sympy.Integer(1)])) is LargeMin
    assert type(rebuilt(sympy.Max(x, y), [big, y])) is LargeMax
    assert type(rebuilt(sympy.Max(x, y), [x + 1, y])) is sympy.Max
    assert rebuilt(sympy.sin(x), [y]) == sympy.sin(y)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_loop_of_extrema_under_a_moving_power(tmp_path, strategy):
    """10301-0-741's loop, a gradient by hand at (0.3, 0.2), c = -cos(2) - 1 = -0.58: the min
    is c twice (x = 0.3 + 2c = -0.87), then x itself (x = 2 (0.3 + 2c)); the output
    x * y + max(x, y, 1.0) is x * y + 1, gradient (2 y, x)."""
    f = _module(tmp_path, "def f(x, y):\n    for i in range(3):\n"
                          "        x += min(x, x, -math.cos(2) - 1.0, x, y)\n"
                          "    return x * y + max(x, y, 1.0)\n").f
    c = -math.cos(2) - 1.0
    _assert_close(symgrad.grad(f, strategy=strategy)(0.3, 0.2), (0.4, 2 * (0.3 + 2 * c)))


def _lists_append(x, y):
    vals = []
    vals.append(x * y)
    return vals[0]


def _tuple_concatenated(x, y):
    t = (x,)
    t = t + (y,)
    t += (x * y,)
    u = (y,) * 2
    return t[0] * t[1] + t[2] * u[1]


def _tuple_subtracted(x, y):
    t = (x,) - (y,)
    return t[0]


def _list_and_tuple(x, y):
    t = [x] + (y,)
    return t[0]


def _shape_extended(X):
    return np.sum(X.reshape(X.shape + (1,)) * X[:, :, None])


def _condition_as_number(x):
    return np.sum((x > 0) * x)


def _condition_sliced(x):
    mask = x > 0
    return np.sum(x[1:] * mask[1:])


@pytest.mark.parametrize("f, args, message", [
    (_lists_append, (2.0, 3.0), "`.append` of a tuple or list is not supported"),
    (_tuple_subtracted, (2.0, 3.0), r"arithmetic \(`\+`, `\*`\) of a tuple or list"),
    (_list_and_tuple, (2.0, 3.0), "`\\+` of a list and a tuple raises TypeError"),
    (_condition_as_number, (np.array([1.0, -2.0]),), "np.where\\(x > 0, x, 0.0\\)"),
    (_condition_sliced, (np.array([1.0, -2.0, 3.0]),), "index the operands, then compare"),
])
def test_newcomer_refusals_say_what_to_write_instead(f, args, message):
    with pytest.raises(symgrad.UnsupportedSyntaxError, match=message) as caught:
        symgrad.grad(f)(*args)
    assert caught.value.filename.endswith(".py") and caught.value.lineno and caught.value.offset


def test_tuples_concatenate_and_repeat_as_python_computes_them():
    # (x,) + (y,) + (x * y,), (y,) * 2: x * y + x * y * y; d/dx = y + y^2, d/dy = x + 2 x y
    assert symgrad.grad(_tuple_concatenated)(2.0, 3.0) == pytest.approx((12.0, 14.0), rel=1e-15)
    X = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])  # sum(X * X): 2 X
    g = symgrad.grad(_shape_extended, wrt="X", shapes={"X": ("n", "k")})
    np.testing.assert_allclose(g(X), 2.0 * X, rtol=1e-15)

"""``symgrad.grad``, its options, errors, the ``GradientFunction`` attributes,
caching and higher derivatives. Expected values are exact derivatives worked by hand."""
import math

import numpy as np
import pytest
import sympy

import symgrad
from symgrad import stop_gradient

X, Y, Z = sympy.symbols("x y z", real=True)


def energy(x, y):
    r = (x * x + y * y) ** 0.5
    return r ** 2 + stop_gradient(r)


def three(x, y, z):
    return x * y * y + z * z * z


def never_built(x, y, z):
    return x * y * z


def three_cached(x, y, z):
    return x * y * y + z * z * z


def only_x(x, y):
    return x * x


def one_param(x):
    return x * x * x


def returns_tuple(x, y):
    return x * y, x + y


# --- the three call forms --------------------------------------------------------------------
@symgrad.grad
def decorated(x, y):
    return x * x * y


@symgrad.grad(wrt="x")
def decorated_wrt(x, y):
    return x * x * y


def test_decorator_plain():
    assert isinstance(decorated, symgrad.GradientFunction)
    # d/dx x^2 y = 2xy = 12, d/dy = x^2 = 4 at (2, 3)
    assert decorated(2.0, 3.0) == (12.0, 4.0)
    assert decorated.wrt == ("x", "y")
    assert decorated.primal(2.0, 3.0) == 12.0


def test_decorator_with_options():
    assert isinstance(decorated_wrt, symgrad.GradientFunction)
    assert decorated_wrt(2.0, 3.0) == 12.0
    assert decorated_wrt.wrt == ("x",)


def test_call_form_with_wrt_tuple():
    gf = symgrad.grad(three, wrt=("x", 1))
    # d/dx = y^2 = 9, d/dy = 2xy = 12 at (2, 3, 5)
    assert gf(2.0, 3.0, 5.0) == (9.0, 12.0)
    assert gf.wrt == ("x", "y")


def test_energy_example():
    gf = symgrad.grad(energy)
    assert gf(3.0, 4.0) == (6.0, 8.0)
    assert gf.primal(3.0, 4.0) == 30.0
    assert isinstance(gf.source, str)


# --- wrt ----------------------------------------------------------------------------------------
# at (2, 3, 5): d/dx = y^2 = 9, d/dy = 2xy = 12, d/dz = 3 z^2 = 75
@pytest.mark.parametrize("wrt, expected, names", [
    (None, (9.0, 12.0, 75.0), ("x", "y", "z")),
    ("x", 9.0, ("x",)),
    ("z", 75.0, ("z",)),
    (0, 9.0, ("x",)),
    (1, 12.0, ("y",)),
    (-1, 75.0, ("z",)),
    (-3, 9.0, ("x",)),
    (("z", "x"), (75.0, 9.0), ("z", "x")),
    ((2, 0, 1), (75.0, 9.0, 12.0), ("z", "x", "y")),
    ((1, "x"), (12.0, 9.0), ("y", "x")),
    (("x", -1), (9.0, 75.0), ("x", "z")),
    (("y",), (12.0,), ("y",)),
    ((2,), (75.0,), ("z",)),
])
def test_wrt_forms(wrt, expected, names):
    gf = symgrad.grad(three, wrt=wrt)
    result = gf(2.0, 3.0, 5.0)
    assert result == expected
    assert type(result) is type(expected)
    assert gf.wrt == names
    assert isinstance(gf.wrt, tuple)


def test_wrt_none_one_parameter_gives_one_value():
    result = symgrad.grad(one_param)(2.0)
    assert result == 12.0
    assert isinstance(result, float)


def test_wrt_one_tuple_one_parameter_gives_tuple():
    assert symgrad.grad(one_param, wrt=("x",))(2.0) == (12.0,)
    assert symgrad.grad(one_param, wrt=(0,))(2.0) == (12.0,)


@pytest.mark.parametrize("wrt", [
    "w",            # unknown name
    ("x", "w"),     # unknown name in a tuple
    3,              # index out of range
    -4,             # negative index out of range
    ("x", 7),
    ("x", "x"),     # repeated name
    (0, "x"),       # repeated through an index
    (-1, 2),        # repeated: both are z
    1.5,            # bad type
    True,           # a bool is not an index
    (None,),
    ("x", 1.0),
    b"x",
])
def test_wrt_errors(wrt):
    with pytest.raises(symgrad.OptionError) as info:
        symgrad.grad(never_built, wrt=wrt)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("good, bad", [(1, True), (0, False), (1, 1.0), (("x", 1), ("x", 1.0)),
                                       ((0,), (False,))])
def test_wrt_errors_after_an_equal_valid_wrt_was_cached(good, bad):
    # True == 1 and 1.0 == 1 (same hash): the cache must not answer for an invalid wrt
    symgrad.grad(three_cached, wrt=good)
    with pytest.raises(symgrad.OptionError):
        symgrad.grad(three_cached, wrt=bad)


@pytest.mark.parametrize("options", [
    dict(unconnected="nan"),
    dict(unconnected=None),
    dict(unconnected="None"),
    dict(backend="tensorflow"),
    dict(strategy="forward"),
    dict(strategy=None),
])
def test_bad_options(options):
    with pytest.raises(symgrad.OptionError) as info:
        symgrad.grad(three, **options)
    assert isinstance(info.value, ValueError)


def test_option_error_is_a_symgrad_error():
    with pytest.raises(symgrad.SymgradError):
        symgrad.grad(three, wrt="nope")


# --- unconnected ----------------------------------------------------------------------------
def test_unconnected_zero():
    result = symgrad.grad(only_x)(3.0, 4.0)
    assert result == (6.0, 0.0)
    assert isinstance(result[1], float)
    assert symgrad.grad(only_x, wrt="y")(3.0, 4.0) == 0.0
    assert isinstance(symgrad.grad(only_x, wrt="y")(3.0, 4.0), float)


def test_unconnected_none():
    assert symgrad.grad(only_x, unconnected="none")(3.0, 4.0) == (6.0, None)
    assert symgrad.grad(only_x, wrt="y", unconnected="none")(3.0, 4.0) is None
    assert symgrad.grad(only_x, wrt=("y", "x"), unconnected="none")(3.0, 4.0) == (None, 6.0)


def test_unconnected_none_still_gives_connected_zero():
    # d/dx x^2 at 0 is 0.0, a connected zero: not None
    assert symgrad.grad(only_x, unconnected="none")(0.0, 4.0) == (0.0, None)


# --- attributes -----------------------------------------------------------------------------
def test_primal_is_the_original_function():
    gf = symgrad.grad(three)
    assert gf.primal is three
    assert gf.primal(2.0, 3.0, 5.0) == three(2.0, 3.0, 5.0) == 143.0
    assert decorated.primal(1.0, 2.0) == 2.0


def test_wrt_is_tuple_of_names():
    assert symgrad.grad(three).wrt == ("x", "y", "z")
    assert symgrad.grad(three, wrt=(2, "y")).wrt == ("z", "y")
    assert symgrad.grad(three, wrt=1).wrt == ("y",)


def _assert_same(expression, by_hand):
    assert isinstance(expression, sympy.Expr)
    assert sympy.simplify(expression - by_hand) == 0


def test_derivatives_are_sympy_expressions():
    derivatives = symgrad.grad(three).derivatives
    assert isinstance(derivatives, tuple) and len(derivatives) == 3
    for got, by_hand in zip(derivatives, (Y ** 2, 2 * X * Y, 3 * Z ** 2)):
        _assert_same(got, by_hand)


def test_derivatives_of_energy():
    # r = sqrt(x^2 + y^2); d(r^2)/dx = 2x, the stopped r contributes nothing
    dx, dy = symgrad.grad(energy).derivatives
    _assert_same(dx, 2 * X)
    _assert_same(dy, 2 * Y)


def test_derivatives_order_follows_wrt():
    dz, dx = symgrad.grad(three, wrt=("z", "x")).derivatives
    _assert_same(dz, 3 * Z ** 2)
    _assert_same(dx, Y ** 2)


def logistic(w, x):
    z = w * x
    return math.log(1.0 + math.exp(-z))


def test_derivatives_in_parameters_only():
    # d/dw log(1 + exp(-wx)) = -x exp(-wx) / (1 + exp(-wx)); no intermediate symbol left
    W = sympy.Symbol("w", real=True)
    for strategy in ("symbolic", "reverse"):
        dw, dx = symgrad.grad(logistic, strategy=strategy).derivatives
        assert dw.free_symbols <= {W, X}
        _assert_same(dw, -X * sympy.exp(-W * X) / (1 + sympy.exp(-W * X)))
        _assert_same(dx, -W * sympy.exp(-W * X) / (1 + sympy.exp(-W * X)))


# --- caching --------------------------------------------------------------------------------
def cached_target(x, y):
    return x * y


def test_cache_same_options_same_object():
    a = symgrad.grad(cached_target)
    assert symgrad.grad(cached_target) is a
    b = symgrad.grad(cached_target, wrt=("x", "y"), strategy="reverse")
    assert symgrad.grad(cached_target, wrt=("x", "y"), strategy="reverse") is b


@pytest.mark.parametrize("options", [
    dict(wrt="x"), dict(wrt=("y", "x")), dict(unconnected="none"), dict(strategy="reverse"),
    dict(strategy="symbolic"), dict(stop_gradients=("y",)),
])
def test_cache_different_options_different_object(options):
    base = symgrad.grad(cached_target)
    other = symgrad.grad(cached_target, **options)
    assert other is not base
    assert symgrad.grad(cached_target, **options) is other


def test_cache_keeps_results_apart():
    assert symgrad.grad(cached_target, wrt="x")(2.0, 5.0) == 5.0
    assert symgrad.grad(cached_target, wrt="y")(2.0, 5.0) == 2.0
    assert symgrad.grad(cached_target, stop_gradients=("y",))(2.0, 5.0) == (5.0, 0.0)


# --- higher derivatives -----------------------------------------------------------------------
def quartic(x):
    return x ** 4


def sine(x):
    return math.sin(x)


def exp_times_x(x):
    return math.exp(x) * x


def branchy(x):
    if x > 0:
        y = x ** 3
    else:
        y = -x * x
    return y


@pytest.mark.parametrize("x", [2.0, -1.5, 0.5])
def test_higher_derivatives_quartic(x):
    g1 = symgrad.grad(quartic)
    g2 = symgrad.grad(g1)
    g3 = symgrad.grad(g2)
    assert g1(x) == 4 * x ** 3
    assert g2(x) == 12 * x ** 2
    assert g3(x) == 24 * x
    assert symgrad.grad(g3)(x) == 24.0


@pytest.mark.parametrize("x", [0.0, 0.7, 2.0, -1.3])
def test_higher_derivatives_sine(x):
    g2 = symgrad.grad(symgrad.grad(sine))
    g3 = symgrad.grad(g2)
    assert g2(x) == pytest.approx(-math.sin(x), rel=1e-15, abs=1e-300)
    assert g3(x) == pytest.approx(-math.cos(x), rel=1e-15)


@pytest.mark.parametrize("x", [0.0, 1.0, -2.0])
def test_higher_derivatives_exp_times_x(x):
    # (x e^x)' = e^x (x + 1), '' = e^x (x + 2), ''' = e^x (x + 3)
    g1 = symgrad.grad(exp_times_x)
    g2 = symgrad.grad(g1)
    g3 = symgrad.grad(g2)
    e = math.exp(x)
    assert g1(x) == pytest.approx(e * (x + 1), rel=1e-14)
    assert g2(x) == pytest.approx(e * (x + 2), rel=1e-14)
    assert g3(x) == pytest.approx(e * (x + 3), rel=1e-14)


@pytest.mark.parametrize("x, d1, d2, d3", [(2.0, 12.0, 12.0, 6.0), (-1.5, 3.0, -2.0, 0.0),
                                           (0.5, 0.75, 3.0, 6.0)])
def test_higher_derivatives_with_branch(x, d1, d2, d3):
    # x > 0: x^3 -> 3x^2, 6x, 6; x <= 0: -x^2 -> -2x, -2, 0
    g1 = symgrad.grad(branchy)
    g2 = symgrad.grad(g1)
    g3 = symgrad.grad(g2)
    assert (g1(x), g2(x), g3(x)) == (d1, d2, d3)


@pytest.mark.parametrize("strategy", ["symbolic", "reverse"])
def test_higher_derivative_with_intermediates(strategy):
    # energy: d/dx = 2x, d2/dx2 = 2, d2/dydx = 0
    gx = symgrad.grad(energy, wrt="x", strategy=strategy)
    assert symgrad.grad(gx, strategy=strategy)(3.0, 4.0) == pytest.approx((2.0, 0.0), abs=1e-15)
    # logistic in w: d2/dw2 = x^2 s (1 - s), s = sigmoid(-wx)
    gw = symgrad.grad(logistic, wrt="w", strategy=strategy)
    w, x = 0.3, 1.7
    s = 1.0 / (1.0 + math.exp(w * x))
    got = symgrad.grad(gw, wrt="w", strategy=strategy)(w, x)
    assert got == pytest.approx(x * x * s * (1 - s), rel=1e-13)


def test_mixed_second_derivative():
    gy = symgrad.grad(three, wrt="y")        # 2xy
    assert symgrad.grad(gy)(2.0, 3.0, 5.0) == (6.0, 4.0, 0.0)
    assert symgrad.grad(gy).derivatives[0] - 2 * Y == 0


# --- output shape ---------------------------------------------------------------------------
def test_tuple_output_raises_output_shape_error():
    with pytest.raises(symgrad.OutputShapeError) as info:
        symgrad.grad(returns_tuple)
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, symgrad.SymgradError)


def test_grad_of_a_multi_result_gradient_raises_output_shape_error():
    with pytest.raises(symgrad.OutputShapeError):
        symgrad.grad(symgrad.grad(three))


# --- results are Python floats -------------------------------------------------------------------
def constant_slope(x):
    return 3 * x + 1


def rounded(x):
    return round(x) + x * 0


def integers(x, y):
    return x * x * y + 2 * y


def larger(x, y):
    return max(x, y)


def magnitude(x):
    return abs(x)


def guarded(x):
    return x * x if x > 1 else 2


@pytest.mark.parametrize("function, args", [
    (constant_slope, (2.0,)), (constant_slope, (2,)), (rounded, (1.3,)), (integers, (2, 3)),
    (larger, (1, 2)), (larger, (2.0, 2.0)), (magnitude, (0,)), (magnitude, (-3,)),
    (guarded, (0,)), (guarded, (3,)), (only_x, (1, 2)), (quartic, (0,)), (three, (1, 1, 1)),
], ids=lambda v: getattr(v, "__name__", repr(v)))
@pytest.mark.parametrize("strategy", ["symbolic", "reverse"])
def test_results_are_python_floats(function, args, strategy):
    result = symgrad.grad(function, strategy=strategy)(*args)
    values = result if isinstance(result, tuple) else (result,)
    for value in values:
        assert type(value) is float, (function.__name__, args, result)


def test_float_result_values():
    assert symgrad.grad(constant_slope)(2) == 3.0
    assert symgrad.grad(integers)(2, 3) == (12.0, 6.0)
    assert symgrad.grad(larger)(2.0, 2.0) == (0.5, 0.5)
    assert symgrad.grad(magnitude)(0) == 0.0
    assert symgrad.grad(magnitude)(-3) == -1.0
    assert symgrad.grad(guarded)(3) == 6.0
    assert symgrad.grad(guarded)(0) == 0.0
    assert symgrad.grad(rounded)(1.3) == 0.0


def above_minus_infinity(v):
    return max(-math.inf, v) * 2.0


@pytest.mark.parametrize("strategy", ["symbolic", "reverse"])
def test_a_nan_argument_of_max_gives_zero_derivatives(strategy):
    """docs/conventions.md ("A nan argument"): max/min is one symmetric function, so at a nan
    argument no win or tie test holds and every derivative is 0, as jax.grad of jnp.maximum gives;
    SymPy drops max's -inf, so the value is nan where Python's max(-inf, nan) is -inf."""
    assert symgrad.grad(larger, strategy=strategy)(math.nan, 1.0) == (0.0, 0.0)
    assert symgrad.grad(larger, strategy=strategy)(1.0, math.nan) == (0.0, 0.0)
    assert symgrad.grad(above_minus_infinity, strategy=strategy)(1.5) == 2.0
    value, slope = symgrad.value_and_grad(above_minus_infinity, strategy=strategy)(math.nan)
    assert math.isnan(value) and slope == 2.0 and above_minus_infinity(math.nan) == -math.inf


# --- array code without shapes=: every entry point builds at the call or refuses with an OptionError
def sum_of_squares(x):
    return np.sum(x ** 2)


def scaled_squares(x):
    return 2.0 * x ** 2 + np.zeros_like(x)


BUILT_AT_THE_CALL = ("the gradient of `sum_of_squares` is built at its first call (array code "
                     "without shapes=): call it once, or pass shapes=")


@pytest.mark.parametrize("use", ["latex", "export"])
def test_latex_and_export_before_the_first_call_ask_for_it(use, tmp_path):
    symgrad.clear_cache()
    gradient = symgrad.grad(sum_of_squares)
    write = (lambda: symgrad.latex(gradient)) if use == "latex" else (
        lambda: symgrad.export(gradient, tmp_path / "out.py"))
    with pytest.raises(symgrad.OptionError) as caught:
        write()
    assert str(caught.value) == BUILT_AT_THE_CALL
    np.testing.assert_array_equal(gradient(np.array([1.0, -2.0])), [2.0, -4.0])
    assert write()  # built for the pattern of the call: it has a program now


def test_each_member_on_array_code_without_shapes():
    x = np.array([1.0, -2.0, 0.5])
    value, gradient = symgrad.value_and_grad(sum_of_squares)(x)
    assert value == 5.25
    np.testing.assert_array_equal(gradient, 2 * x)
    # vjp of an array result: the cotangent-weighted sum's gradient, 4 x * dout
    dout = np.array([1.0, 0.5, -1.0])
    np.testing.assert_array_equal(symgrad.vjp(scaled_squares)(x, dout), 4.0 * x * dout)
    for member in (symgrad.jacobian, symgrad.hessian):
        with pytest.raises(symgrad.OptionError) as caught:
            member(sum_of_squares)(x)
        assert str(caught.value) == (f"{member.__name__} of array code is not supported yet: "
                                     "use symgrad.grad, or symgrad.vjp with a cotangent per output")

"""The ``stop_gradient`` primitive, its spellings, the ``stop_gradients=`` option.

Every consequence listed in the SPEC is an exact test here, run with both differentiation
strategies. Expected values are derived by hand in the comment next to each one.
"""
import math
import types

import pytest

import symgrad
from acceptance.cases_public import softmax0_stable
from acceptance.cases_public import tf_stopped_product as stopped_product
from acceptance.cases_public import tf_sum_of_paths as sum_of_paths
from acceptance.cases_public import tf_two_routes as two_routes
from symgrad import stop_gradient
from symgrad import stop_gradient as sg

# Stand-ins for code written against TensorFlow / JAX / Keras: symgrad recognises the spelling.
tf = types.SimpleNamespace(stop_gradient=lambda v: v)
lax = types.SimpleNamespace(stop_gradient=lambda v: v)
jax = types.SimpleNamespace(lax=lax)
K = types.SimpleNamespace(stop_gradient=lambda v: v)

STRATEGIES = ("symbolic", "reverse")


@pytest.fixture(params=STRATEGIES)
def strategy(request):
    return request.param


# --- straight-through estimators ---------------------------------------------------------------
def ste_round(x):
    t = x
    y = t + stop_gradient(round(x) - t)
    return y


def ste_floor_cube(x):
    # g(x) = x**3 forward-replaced by f(x) = floor(x)
    t = x ** 3
    y = t + stop_gradient(math.floor(x) - t)
    return y


def ste_tanh_sign(x):
    # g(x) = tanh(x) forward-replaced by f(x) = sign(x)
    t = math.tanh(x)
    hard = 1.0 if x > 0 else -1.0
    return t + stop_gradient(hard - t)


@pytest.mark.parametrize("x, expected_value", [(1.25, 1.0), (2.75, 3.0), (-0.25, 0.0),
                                               (-1.75, -2.0)])
def test_straight_through_round_value_is_round_and_derivative_one(strategy, x, expected_value):
    # dyadic points: t + (round(x) - t) is exact in floating point
    assert ste_round(x) == expected_value == round(x)
    assert symgrad.grad(ste_round, strategy=strategy)(x) == 1.0


@pytest.mark.parametrize("x", [1.5, -0.5, 2.25])
def test_straight_through_general_g_f(strategy, x):
    # forward value floor(x); derivative d/dx x**3 = 3 x**2 (exact for these dyadic x)
    assert ste_floor_cube(x) == math.floor(x)
    assert symgrad.grad(ste_floor_cube, strategy=strategy)(x) == 3.0 * x * x


@pytest.mark.parametrize("x", [0.5, -1.2, 2.0])
def test_straight_through_tanh_sign(strategy, x):
    # forward value sign(x); derivative tanh'(x) = 1 - tanh(x)**2
    assert ste_tanh_sign(x) == pytest.approx(math.copysign(1.0, x), abs=1e-15)
    expected = 1.0 - math.tanh(x) ** 2
    assert symgrad.grad(ste_tanh_sign, strategy=strategy)(x) == pytest.approx(expected, rel=1e-14)


# --- x * stop_gradient(x) --------------------------------------------------------------------
def self_times_stopped(x):
    return x * stop_gradient(x)


def test_self_times_stopped(strategy):
    assert self_times_stopped(3.0) == 9.0
    assert symgrad.grad(self_times_stopped, strategy=strategy)(3.0) == 3.0
    assert symgrad.grad(self_times_stopped, strategy=strategy)(-2.5) == -2.5


def sine_times_stopped_sine(x):
    # the same sub-expression inside and outside stop_gradient: only the outer one is differentiated
    return math.sin(x) * stop_gradient(math.sin(x))


def square_plus_stopped_square(x):
    y = x * x
    return y + stop_gradient(y)


def test_same_subexpression_inside_and_outside(strategy):
    x = 0.8
    d = symgrad.grad(sine_times_stopped_sine, strategy=strategy)(x)
    assert d == pytest.approx(math.cos(x) * math.sin(x), rel=1e-14)
    assert symgrad.grad(square_plus_stopped_square, strategy=strategy)(3.0) == 6.0


# --- stable softmax (softmax0_stable: the acceptance case's, imported above) -----------------
def softmax0_plain(x0, x1, x2):
    e0 = math.exp(x0)
    e1 = math.exp(x1)
    e2 = math.exp(x2)
    return e0 / (e0 + e1 + e2)


SOFTMAX_POINTS = [(1.0, 2.0, 3.0), (0.3, -1.2, 0.7), (-2.0, -2.5, -0.1), (4.0, 1.0, 1.0),
                  (0.5, 0.5, 0.5)]


@pytest.mark.parametrize("point", SOFTMAX_POINTS)
def test_stable_softmax_gradient_equals_plain(strategy, point):
    stable = symgrad.grad(softmax0_stable, strategy=strategy)(*point)
    plain = symgrad.grad(softmax0_plain, strategy=strategy)(*point)
    # by hand: ds0/dx0 = s0 (1 - s0), ds0/dxj = -s0 sj
    exps = [math.exp(v) for v in point]
    s = [e / sum(exps) for e in exps]
    by_hand = (s[0] * (1 - s[0]), -s[0] * s[1], -s[0] * s[2])
    assert stable == pytest.approx(plain, rel=1e-12, abs=1e-15)
    assert stable == pytest.approx(by_hand, rel=1e-12, abs=1e-15)


def test_stable_softmax_value_unchanged():
    assert softmax0_stable(1.0, 2.0, 3.0) == pytest.approx(softmax0_plain(1.0, 2.0, 3.0), rel=1e-15)


# --- the tf.gradients examples (the acceptance cases' functions, imported above) ----------------


def test_stopped_product_zero(strategy):
    result = symgrad.grad(stopped_product, strategy=strategy)(2.0, 2.0)
    assert result == (0.0, 6.0)


def test_stopped_product_none(strategy):
    result = symgrad.grad(stopped_product, strategy=strategy, unconnected="none")(2.0, 2.0)
    assert result[0] is None
    assert result[1] == 6.0


def test_two_routes(strategy):
    assert symgrad.grad(two_routes, strategy=strategy)(1.0, 1.0) == (1.0, 1.0)
    # the value is counted twice, the gradient once
    assert two_routes(1.0, 2.0) == 6.0
    assert symgrad.grad(two_routes, strategy=strategy)(1.0, 2.0) == (1.0, 1.0)


def test_sum_of_paths(strategy):
    assert symgrad.grad(sum_of_paths, strategy=strategy)(0.0) == 3.0
    assert symgrad.grad(sum_of_paths, strategy=strategy)(5.0) == 3.0


# --- every spelling ------------------------------------------------------------------------
# each is x * stop(x*x) + stop(x): at x = 3 the value is 30, the derivative x*x = 9
def spelled_plain(x):
    return x * stop_gradient(x * x) + stop_gradient(x)


def spelled_alias(x):
    return x * sg(x * x) + sg(x)


def spelled_module(x):
    return x * symgrad.stop_gradient(x * x) + symgrad.stop_gradient(x)


def spelled_tf(x):
    return x * tf.stop_gradient(x * x) + tf.stop_gradient(x)


def spelled_jax(x):
    return x * jax.lax.stop_gradient(x * x) + jax.lax.stop_gradient(x)


def spelled_lax(x):
    return x * lax.stop_gradient(x * x) + lax.stop_gradient(x)


def spelled_keras(x):
    return x * K.stop_gradient(x * x) + K.stop_gradient(x)


def not_stopped(x):
    return x * (x * x) + x


@pytest.mark.parametrize("function", [spelled_plain, spelled_alias, spelled_module, spelled_tf,
                                      spelled_jax, spelled_lax, spelled_keras],
                         ids=lambda f: f.__name__)
def test_spelling(strategy, function):
    assert function(3.0) == 30.0
    assert symgrad.grad(function, strategy=strategy)(3.0) == 9.0
    assert symgrad.grad(function, strategy=strategy)(-2.0) == 4.0


def test_without_stop_the_gradient_differs(strategy):
    # the control for test_spelling: d/dx (x**3 + x) = 3 x**2 + 1 = 28 at 3
    assert symgrad.grad(not_stopped, strategy=strategy)(3.0) == 28.0


# --- the stop_gradients= option -------------------------------------------------------------
def cube_with_square(x):
    h = x * x
    return h * x


def product(x, y):
    return x * y + y * y


def chained(x, y):
    u = x * y
    v = u * u
    return v + u


def test_stop_gradients_on_intermediate(strategy):
    # h constant: d/dx (h * x) = h = 9 at 3; without the option d/dx x**3 = 27
    assert symgrad.grad(cube_with_square, strategy=strategy, stop_gradients=("h",))(3.0) == 9.0
    assert symgrad.grad(cube_with_square, strategy=strategy, stop_gradients="h")(3.0) == 9.0
    assert symgrad.grad(cube_with_square, strategy=strategy)(3.0) == 27.0


def test_stop_gradients_on_intermediate_two_params(strategy):
    # u constant: d(v + u) = 0 through u; v = u*u is also reached only through u -> (0, 0)
    # stopping v instead: d/dx u = y, d/dy u = x
    x, y = 2.0, 3.0
    assert symgrad.grad(chained, strategy=strategy, stop_gradients=("v",))(x, y) == (3.0, 2.0)
    assert symgrad.grad(chained, strategy=strategy, stop_gradients=("u",))(x, y) == (0.0, 0.0)
    # no option: d/dx (u**2 + u) = (2u + 1) y = 13 * 3, d/dy = 13 * 2
    assert symgrad.grad(chained, strategy=strategy)(x, y) == (39.0, 26.0)


def test_stop_gradients_on_parameter(strategy):
    # x constant: d/dx = 0, d/dy = x + 2y = 8 at (2, 3)
    assert symgrad.grad(product, strategy=strategy, stop_gradients=("x",))(2.0, 3.0) == (0.0, 8.0)
    gf = symgrad.grad(product, strategy=strategy, stop_gradients=("x",), unconnected="none")
    assert gf(2.0, 3.0) == (None, 8.0)
    assert symgrad.grad(product, strategy=strategy)(2.0, 3.0) == (3.0, 8.0)


def test_stop_gradients_leaves_primal_alone():
    gf = symgrad.grad(cube_with_square, stop_gradients=("h",))
    assert gf.primal is cube_with_square
    assert gf.primal(3.0) == 27.0


@pytest.mark.parametrize("names", [("nope",), ("h", "nope"), "nope"])
def test_stop_gradients_unknown_name(names):
    with pytest.raises(symgrad.OptionError):
        symgrad.grad(cube_with_square, stop_gradients=names)


# --- run time: the identity -------------------------------------------------------------------
@pytest.mark.parametrize("value", [1.5, -3, 0, 2 ** 80, float("inf")])
def test_identity_on_numbers(value):
    assert stop_gradient(value) is value


def test_identity_on_numpy_array():
    np = pytest.importorskip("numpy")
    array = np.array([1.0, -2.0, 3.5])
    result = stop_gradient(array)
    assert result is array
    assert symgrad.stop_gradient(array) is array


def test_identity_on_other_objects():
    thing = object()
    assert stop_gradient(thing) is thing

"""A gradient never gives the derivative at an old value of a name its build read.

Each case: build, call (the right value), rebind the name, then the call raises
``StaleGradientError`` naming it, and building again gives the derivative at the new value (hand
derivations). An equal value bound again is not a change.
"""
import math
import types

import numpy as np
import pytest

import symgrad

A = 2.0
X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
Y = np.array([1.0, 0.0, -1.0])
PARAMS = types.SimpleNamespace(K=3.0)


def helper(x):
    return A * math.sin(x)


def scaled(x):
    return helper(x) ** 2


def loss(w):
    r = X @ w - Y
    return np.sum(r * r)


def spring(x):
    return 0.5 * PARAMS.K * x * x


def plain(x):
    return math.exp(x) * np.sin(x) * math.pi


@pytest.fixture(autouse=True)
def _restore():
    global A, X, helper
    saved = A, X, helper, PARAMS.K
    yield
    A, X, helper, PARAMS.K = saved


def _d_scaled(a, x):  # d/dx (a sin x)^2
    return 2 * a * a * math.sin(x) * math.cos(x)


def test_a_rebound_module_constant_refuses_the_old_gradient_and_a_new_build_reads_it():
    global A
    g = symgrad.grad(scaled)
    assert g(0.3) == pytest.approx(_d_scaled(2.0, 0.3), rel=1e-14)
    A = 3.0
    with pytest.raises(symgrad.StaleGradientError, match="`A`") as caught:
        g(0.3)
    assert caught.value.path == "A"
    again = symgrad.grad(scaled)
    assert again is not g
    assert again(0.3) == pytest.approx(_d_scaled(3.0, 0.3), rel=1e-14)


def test_an_equal_value_bound_again_is_no_change():
    global A
    g = symgrad.grad(scaled)
    g(0.3)
    A = float("2.0")  # another object, equal
    assert g(0.3) == pytest.approx(_d_scaled(2.0, 0.3), rel=1e-14)
    assert symgrad.grad(scaled) is g


def test_a_redefined_helper_is_a_change():
    global helper
    g = symgrad.grad(scaled)
    g(0.3)

    def helper(x):  # noqa: F811 - the redefinition is the point
        return A * math.cos(x)
    with pytest.raises(symgrad.StaleGradientError, match="helper"):
        g(0.3)
    assert symgrad.grad(scaled)(0.3) == pytest.approx(-8 * math.cos(0.3) * math.sin(0.3),
                                                      rel=1e-14)


def test_derivatives_of_a_gradient_watch_what_it_read():
    global A
    h = symgrad.hessian(scaled)
    assert h(0.3) == pytest.approx(2 * 4.0 * math.cos(0.6), rel=1e-13)  # d/dx 4 sin(2x)/... = 8 cos 2x
    A = 1.0
    with pytest.raises(symgrad.StaleGradientError):
        h(0.3)
    assert symgrad.hessian(scaled)(0.3) == pytest.approx(2 * math.cos(0.6), rel=1e-13)


def test_an_attribute_of_a_config_object_is_watched():
    g = symgrad.grad(spring)
    assert g(2.0) == pytest.approx(6.0)
    PARAMS.K = 5.0
    with pytest.raises(symgrad.StaleGradientError, match="PARAMS.K"):
        g(2.0)
    assert symgrad.grad(spring)(2.0) == pytest.approx(10.0)


def test_array_code_rebinding_its_data_is_refused_every_call_not_only_the_first():
    global X
    g = symgrad.grad(loss)
    w = np.array([0.5, -1.0])
    for _ in range(3):  # the repeated-call fast path too
        np.testing.assert_allclose(g(w), 2 * X.T @ (X @ w - Y), rtol=1e-14)
    X = X[::-1].copy()
    with pytest.raises(symgrad.StaleGradientError, match="`X`"):
        g(w)
    np.testing.assert_allclose(symgrad.grad(loss)(w), 2 * X.T @ (X @ w - Y), rtol=1e-14)


def test_library_names_are_not_watched_so_the_call_is_direct():
    g = symgrad.grad(plain)
    g(0.5)
    assert type(g) is symgrad.GradientFunction
    x = 0.5
    assert g(0.5) == pytest.approx(math.pi * math.exp(x) * (math.sin(x) + math.cos(x)), rel=1e-14)


def test_a_closure_variable_rebound_is_a_change():
    scale = 2.0

    def f(x):
        return scale * x ** 3
    g = symgrad.grad(f)
    assert g(1.5) == pytest.approx(2.0 * 3 * 2.25)
    scale = 4.0  # noqa: F841 - read by f through its cell
    with pytest.raises(symgrad.StaleGradientError, match="scale"):
        g(1.5)
    assert symgrad.grad(f)(1.5) == pytest.approx(4.0 * 3 * 2.25)


def test_joined_watches_keep_each_name_once_and_an_array_gradient_exposes_its_watch():
    h = symgrad.hessian(scaled)  # its own build and its gradient's both read A and helper
    h(0.3)
    both = h._watch | h._watch  # a derivative of a derivative joins watches that overlap
    paths = [entry[3] for entry in both.entries]
    assert sorted(paths) == sorted(set(paths)) and "A" in paths
    g = symgrad.grad(loss)
    g(np.array([0.5, -1.0]))
    assert "X" in [entry[3] for entry in g._watch.entries]
    assert g._watch is g.specialisations.watch

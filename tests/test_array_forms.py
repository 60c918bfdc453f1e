"""Array code computes the primal's floats and returns what the contract says (the hostile
tester's findings of 2026-12-01): results are distinct arrays, a vjp's cotangent has its output's
shape, size names do not hide the generated code's names, and a branch on an array expression is
never decided on SymPy's rearranged form of it.

Reference values: the primal itself in float64, and central differences along random directions.
"""
import numpy as np
import pytest

import symgrad
from array_differences import assert_directional, central, reordered_maximum, reordered_points

RNG = np.random.default_rng(20261202)


# --- results are distinct arrays (equal gradients of two parameters) -------------------------

def exp_sum(x, y):
    return np.sum(np.exp(x + y))


def plain_sum(x, y, z):
    return np.sum(x + y + z)


def test_equal_gradients_are_distinct_arrays():
    x, y = np.zeros(3), np.ones(3)
    gx, gy = symgrad.grad(exp_sum)(x, y)
    assert gx is not gy and not np.shares_memory(gx, gy)
    gx *= 0.5  # an in-place update of one gradient leaves the other
    np.testing.assert_allclose(gy, np.exp(x + y), rtol=1e-15)
    np.testing.assert_allclose(gx, 0.5 * np.exp(x + y), rtol=1e-15)
    assert_directional(exp_sum, symgrad.grad(exp_sum)(x, y), (x, y), RNG)
    grads = symgrad.grad(plain_sum)(x, y, np.full(3, 2.0))
    assert len({id(g) for g in grads}) == 3
    for g in grads:
        np.testing.assert_array_equal(g, np.ones(3))


# --- a vjp's cotangent has the shape of its output --------------------------------------------

def exp_elementwise(x):
    return np.exp(x)


def tanh_layer(W, x):
    return np.tanh(W @ x)


@pytest.mark.parametrize("cotangent", [np.ones((3, 1)), np.ones((3, 3)), 1.0, np.ones(2)])
def test_vjp_refuses_a_cotangent_of_another_shape(cotangent):
    v = symgrad.vjp(exp_elementwise, shapes={"x": ("n",)})
    with pytest.raises(ValueError, match=r"cotangent dexp_elementwise must have the shape "
                       r"\(n,\) of the output exp_elementwise"):
        v(np.array([0.0, 1.0, 2.0]), cotangent)


def test_vjp_cotangent_of_the_right_shape():
    x, u = np.array([0.0, 1.0, 2.0]), np.array([0.5, -1.0, 2.0])
    v = symgrad.vjp(exp_elementwise, shapes={"x": ("n",)})
    np.testing.assert_allclose(v(x, u), u * np.exp(x), rtol=1e-15)
    v = symgrad.vjp(tanh_layer)
    for cotangent in (np.ones((2, 1)), 1.0, np.ones(3)):
        with pytest.raises(ValueError, match=r"cotangent dtanh_layer must have the shape"):
            v(np.ones((2, 3)), np.ones(3), cotangent)
    W, x, u = RNG.standard_normal((2, 3)), RNG.standard_normal(3), RNG.standard_normal(2)
    gW, gx = v(W, x, u)
    assert_directional(lambda W, x: np.dot(u, tanh_layer(W, x)), (gW, gx), (W, x), RNG)


# --- size names in shapes= ----------------------------------------------------------------------

def least_squares(X, w, y):
    r = X @ w - y
    return np.sum(r ** 2) / X.shape[0]


@pytest.mark.parametrize("size, what", [("np", "generated code"), ("float", "generated code"),
                                        ("w", "parameter"), ("X", "parameter"),
                                        ("isinstance", "generated code")])
def test_a_size_name_that_hides_a_name_is_refused(size, what):
    with pytest.raises(symgrad.OptionError, match=f"size '{size}', which is .*{what}"):
        symgrad.grad(least_squares, shapes={"X": ("n", size), "w": (size,), "y": ("n",)})


def test_a_size_named_like_a_primal_variable_is_fine():
    X, w, y = RNG.standard_normal((4, 3)), RNG.standard_normal(3), RNG.standard_normal(4)
    g = symgrad.grad(least_squares, shapes={"X": ("n", "r"), "w": ("r",), "y": ("n",)})
    grads = g(X, w, y)
    np.testing.assert_allclose(grads[1], 2 * X.T @ (X @ w - y) / 4, rtol=1e-12)
    assert_directional(least_squares, grads, (X, w, y), RNG)


# --- a branch on an array expression is decided on the primal's float --------------------------

def branch_on_rearranged_sum(x):
    if np.sum(x / 3.0 * 3.0) > np.sum(x):
        return np.sum(x ** 2)
    return -np.sum(x)


def branch_on_rearranged_method(x):
    if (x * 0.1 * 3.0).sum() > 0.9 or np.max(x / 3.0 * 3.0) > np.max(x):
        return np.sum(x ** 3)
    return np.sum(x)


def rearranged_choice(x):
    return np.sum(x ** 2) if np.sum((x + 1e16) - 1e16) > np.sum(x) else np.sum(x ** 3)


CASES = [  # function, its condition in float, the gradients of its two branches
    (branch_on_rearranged_sum, lambda x: np.sum(x / 3.0 * 3.0) > np.sum(x),
     lambda x: 2 * x, lambda x: -np.ones_like(x)),
    (branch_on_rearranged_method,
     lambda x: (x * 0.1 * 3.0).sum() > 0.9 or np.max(x / 3.0 * 3.0) > np.max(x),
     lambda x: 3 * x ** 2, lambda x: np.ones_like(x)),
    (rearranged_choice, lambda x: np.sum((x + 1e16) - 1e16) > np.sum(x),
     lambda x: 2 * x, lambda x: 3 * x ** 2),
]


@pytest.mark.parametrize("f, cond, taken, other", CASES)
def test_a_branch_on_an_array_expression_follows_the_primal(f, cond, taken, other):
    # the points where float decides otherwise than SymPy's simplified condition: in float
    # 0.10990990990990991 / 3.0 * 3.0 > 0.10990990990990991, (1.0 * 0.1) * 3.0 > 0.3, and
    # (0.7 + 1e16) - 1e16 is 0.0; the branches are checked by central differences of their own
    points = [np.array([0.10990990990990991]), np.array([1.0]), np.array([0.7, 1.3, -0.4]),
              np.array([0.5, 1.0]), np.array([3.0])]
    g, vg = symgrad.grad(f), symgrad.value_and_grad(f)
    decided = set()
    for x in points:
        expected = taken(x) if cond(x) else other(x)
        decided.add(bool(cond(x)))
        np.testing.assert_allclose(g(x), expected, rtol=1e-14)
        value, gx = vg(x)
        assert value == pytest.approx(f(x), rel=1e-15)
        np.testing.assert_allclose(gx, expected, rtol=1e-14)
    assert decided == {True, False}  # both branches are taken by some point
    for branch in (taken, other):  # the hand-derived branch gradients, against differences
        x = np.array([0.3, 1.7])
        v = RNG.standard_normal(2)
        assert np.sum(branch(x) * v) == pytest.approx(
            central(_branch_primal(f, branch is taken), (x,), 0, v), rel=1e-6)


def _branch_primal(f, first):
    """The primal of one branch of a CASES function (smooth: for central differences)."""
    return {
        (branch_on_rearranged_sum, True): lambda x: np.sum(x ** 2),
        (branch_on_rearranged_sum, False): lambda x: -np.sum(x),
        (branch_on_rearranged_method, True): lambda x: np.sum(x ** 3),
        (branch_on_rearranged_method, False): lambda x: np.sum(x),
        (rearranged_choice, True): lambda x: np.sum(x ** 2),
        (rearranged_choice, False): lambda x: np.sum(x ** 3),
    }[f, first]


# --- value_and_grad's value is the primal's float -------------------------------------------------

def cancelled_offset(x):
    return np.sum((x + 1e16) - 1e16)


def cancelled_difference(x):
    return np.sum(x / 3.0 * 3.0) - np.sum(x)


def folded_constants(x):
    return np.sum(x * 0.1 * 3.0)


def chosen_value(x):
    if np.sum(x) > 1.0:
        return np.sum((x + 1e16) - 1e16)
    return np.sum(x * 0.1 * 3.0)


@pytest.mark.parametrize("f, gradient", [
    (cancelled_offset, lambda x: np.ones_like(x)),
    (cancelled_difference, lambda x: np.zeros_like(x)),
    (folded_constants, lambda x: np.full_like(x, 0.1 * 3.0)),
    (chosen_value, lambda x: np.ones_like(x) if np.sum(x) > 1.0 else np.full_like(x, 0.3)),
])
def test_value_and_grad_returns_the_primal_value(f, gradient):
    # (0.7 + 1e16) - 1e16 is 0.0 and 1.0 * 0.1 * 3.0 is 0.30000000000000004 in float: the
    # primal's sums are 2.0 and 0.9 where SymPy's forms (sum(x), 0.30000000000000004 * x) give
    # 1.6 and 0.9000000000000001
    for x in (np.array([0.7, 1.3, -0.4]), np.array([1.0, 0.7, 1.3]), np.array([0.1, 0.7, 1.3]),
              np.array([0.2, 0.3])):
        value, gx = symgrad.value_and_grad(f)(x)
        assert value == f(x) and type(value) is float
        np.testing.assert_allclose(gx, gradient(x), rtol=1e-14, atol=1e-300)
    if f in (folded_constants, cancelled_difference):  # (x + 1e16) - 1e16 is a step in float
        x = np.array([0.3, 1.1, 0.5])
        v = RNG.standard_normal(3)
        assert np.sum(gradient(x) * v) == pytest.approx(central(f, (x,), 0, v), rel=1e-6,
                                                        abs=1e-9)


def test_maximum_tie_tests_compare_the_primal_float_of_a_reordered_product():
    gf = symgrad.grad(reordered_maximum, wrt=("X", "v"))
    worst = 0.0
    for rng, X, v in reordered_points():
        dX = rng.normal(size=X.size)
        h = 1e-6
        fd = (reordered_maximum(X + h * dX, v) - reordered_maximum(X - h * dX, v)) / (2 * h)
        worst = max(worst, abs(fd - np.dot(gf(X, v)[0], dX)) / max(1.0, abs(fd)))
    assert worst < 1e-5

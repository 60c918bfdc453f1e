"""Array code computes, compares and returns the primal's floats (written.kept_as_written).

SymPy keeps a value in its own form: ``x / 3.0 * 3.0 - x`` is 0, ``(X * v) * (X + v)`` is a
product of three factors that cse may regroup, ``np.sum(x * 0.1 * 3.0)`` multiplies by the folded
``0.30000000000000004``. In float those are other numbers. Every operand of an array node (a
reduction, an ``argmax``, ``@``), of an elementwise tie test (``np.maximum``, ``np.abs``,
``np.sign``, ``np.clip``, a ``np.where`` condition) and every named line the primal computes is
printed as written, so a branch, a tie and a returned value are the primal's. The derivative
stays SymPy's (``x * ((x + 1e16) - 1e16)`` gives ``2x``, as scalar code: docs/arrays.md).

Each expected gradient is derived by hand from the branch or winner the primal's floats choose
(each point is checked to hold the float effect it is about, so the test can fail), and the
hand formula is cross-checked by central differences of the smooth piece it differentiates.
"""
import numpy as np
import pytest

import symgrad
from array_differences import elementwise, reordered_maximum, reordered_points
from symgrad import stop_gradient

POINT = np.array([0.10990990990990991, 1.0])  # x / 3.0 * 3.0 - x is 1.4e-17 at 0, 0.0 at 1


def test_the_points_hold_the_float_effects():
    u = POINT / 3.0 * 3.0 - POINT
    assert u[0] > 0.0 and u[1] == 0.0
    x = np.array([0.7, 1.3])
    assert list((x + 1e16) - 1e16) == [0.0, 2.0]
    a = 0.10990990990990991
    assert a / 3.0 * 3.0 == np.nextafter(a, 1.0) / 3.0 * 3.0  # a tie in float, not in SymPy


def where_cancelled(x):
    return np.sum(np.where(x / 3.0 * 3.0 - x > 0.0, x ** 2, x))


def where_named(x):
    u = x / 3.0 * 3.0 - x
    return np.sum(np.where(u > 0.0, x ** 2, x))


def max_named(x):
    d = np.max(x / 3.0 * 3.0 - x)
    if d > 0.0:
        return np.sum(x ** 3)
    return np.sum(x)


def sum_named(x):
    d = np.sum(x) / 3.0 * 3.0
    if d > np.sum(x):
        return np.sum(x ** 2)
    return np.sum(x)


def mean_named(x):
    m = np.mean(x)
    if m * 3.0 > np.sum(x):
        return np.sum(x ** 2)
    return np.sum(x)


def sign_cancelled(x):
    return np.sum(np.sign(x / 3.0 * 3.0 - x) * x)


def sign_named(x):
    u = x / 3.0 * 3.0 - x
    return np.sum(np.sign(u) * x)


def argmax_cancelled(x):
    return x[np.argmax(stop_gradient(x / 3.0 * 3.0 - x))]


def abs_folded(x):
    return np.sum(np.abs((x + 1e16) - 1e16))


def max_tied(x):
    return np.max(x / 3.0 * 3.0) * 2.0


def folded_product(x):
    return np.sum(x * ((x + 1e16) - 1e16))


TIE = np.array([0.10990990990990991, np.nextafter(0.10990990990990991, 1.0)])
MEAN_POINT = np.array([1.2739233746429086, 0.5395734275277406, 0.08194704787238938])


def _squares(x):
    return np.sum(x ** 2)


def _cubes(x):
    return np.sum(x ** 3)


def _plain(x):
    return np.sum(x)


# (function, point, the hand gradient, the smooth piece it differentiates or None)
CASES = [
    # the primal takes x ** 2 where x / 3 * 3 - x > 0 (element 0) and x elsewhere
    (where_cancelled, POINT, np.array([2 * POINT[0], 1.0]), None),
    (where_named, POINT, np.array([2 * POINT[0], 1.0]), None),
    # d = 1.4e-17 > 0: the x ** 3 branch, 3 x ** 2 (SymPy's d is 0: the other branch, [1, 1])
    (max_named, POINT, 3 * POINT ** 2, _cubes),
    # sum(x) / 3 * 3 > sum(x) at 0.1099...: the x ** 2 branch (SymPy cancels the condition)
    (sum_named, POINT[:1], 2 * POINT[:1], _squares),
    # np.mean(x) * 3.0 > np.sum(x) here (mean is sum / 3: SymPy's 3 * (sum / 3) is sum)
    (mean_named, MEAN_POINT, 2 * MEAN_POINT, _squares),
    # sign(1.4e-17) = 1, sign(0) = 0: d/dx sum(sign(u) * x) = sign(u) (SymPy: sign(0) = [0, 0])
    (sign_cancelled, POINT, np.array([1.0, 0.0]), None),
    (sign_named, POINT, np.array([1.0, 0.0]), None),
    # the argmax of [0, 1.4e-17] is 1 (SymPy's argmax of zeros, 0)
    (argmax_cancelled, POINT[::-1].copy(), np.array([0.0, 1.0]), None),
    # |(x + 1e16) - 1e16| is |0| at 0.7 (abs'(0) = 0) and |2| at 1.3
    (abs_folded, np.array([0.7, 1.3]), np.array([0.0, 1.0]), None),
    # a tie of the two elements in float: 1/2 each of 2.0 (SymPy's max(x) has one winner)
    (max_tied, TIE, np.array([1.0, 1.0]), None),
    # the derivative is SymPy's (2x), as for scalar code; the value is the primal's
    (folded_product, np.array([0.7, 1.3]), np.array([1.4, 2.6]), lambda x: np.sum(x * x)),
]


@pytest.mark.parametrize("f, x, expected, piece", CASES, ids=[c[0].__name__ for c in CASES])
def test_branches_ties_and_values_are_the_primal_floats(f, x, expected, piece):
    value, gradient = symgrad.value_and_grad(f)(x)
    assert value == f(x)  # bit for bit
    np.testing.assert_allclose(gradient, expected, rtol=1e-15, atol=0.0)
    if piece is not None:  # the hand formula against central differences of its piece
        np.testing.assert_allclose(elementwise(piece, x), expected, rtol=1e-8, atol=1e-9)


def _reordered_maximum_hand(X, v):
    """The gradient of ``reordered_maximum`` by hand, winners chosen on the primal's floats."""
    a, c = (X * v) * (X + v), X * X[::-1]
    m = np.maximum(a, np.maximum(X, c))
    gX, gv = np.zeros_like(X), 0.0
    for i in range(X.size):
        j = X.size - 1 - i
        if m[i] == a[i]:
            gX[i] += 2 * m[i] * v * (2 * X[i] + v)
            gv += 2 * m[i] * X[i] * (X[i] + 2 * v)
        elif m[i] == X[i]:
            gX[i] += 2 * m[i]
        else:
            gX[i] += 2 * m[i] * X[j]
            gX[j] += 2 * m[i] * X[i]
    return gX, gv


def test_maximum_of_a_reordered_product_against_the_hand_gradient():
    """F18: the tie tests of np.maximum compare the product the primal computed, so the winner's
    derivative is kept at generic points (the points include products SymPy's order rounds
    differently, so the test can fail)."""
    gf = symgrad.grad(reordered_maximum, wrt=("X", "v"))
    reordered = 0
    for _, X, v in reordered_points():
        reordered += np.sum((X * v) * (X + v) != (X * (X + v)) * v)
        gX, gv = gf(X, v)
        hX, hv = _reordered_maximum_hand(X, v)
        np.testing.assert_allclose(gX, hX, rtol=1e-12, atol=1e-12)
        assert gv == pytest.approx(hv, rel=1e-12, abs=1e-12)
        h = 1e-6  # the hand gradient against central differences
        np.testing.assert_allclose(
            elementwise(lambda Y: reordered_maximum(Y, v), X, h), hX, rtol=1e-5, atol=1e-6)
        fdv = (reordered_maximum(X, v + h) - reordered_maximum(X, v - h)) / (2 * h)
        assert fdv == pytest.approx(hv, rel=1e-5, abs=1e-6)
    assert reordered > 0


def two_orders(X, v):
    return np.sum(np.minimum(X * (X + v) * v, (X * v) * (X + v)) + np.maximum(
        v * X * X, X * (X * v)))


def test_products_in_two_orders_inside_maximum_and_minimum():
    """Two floats of one real value meet in np.minimum/np.maximum: whichever the primal picks
    (both, at a tie), the derivative is the product's, d/dX = v (2X + v) + 2 v X, and
    d/dv = X (X + 2v) + X ** 2."""
    rng = np.random.default_rng(5)
    gf = symgrad.grad(two_orders, wrt=("X", "v"))
    for n in (3, 7):
        X, v = rng.normal(size=n), rng.normal()
        gX, gv = gf(X, v)
        np.testing.assert_allclose(gX, v * (2 * X + v) + 2 * v * X, rtol=1e-13, atol=1e-14)
        assert gv == pytest.approx(np.sum(X * (X + 2 * v) + X ** 2), rel=1e-13)
        np.testing.assert_allclose(elementwise(lambda Y: two_orders(Y, v), X), gX, rtol=1e-6, atol=1e-7)


def named_value(x):
    u = np.sum(x * 0.1 * 3.0)
    w = x * 0.1 * 3.0 - x * 0.3
    return u * u + np.max(w) + np.mean(x * x)


def test_values_through_names_are_the_primal_floats():
    """value_and_grad's value is the primal's float bit for bit through named lines, np.mean
    (the sum divided by the count, as NumPy) and a reduction of a cancellation, and the
    gradient is SymPy's: 2 u 0.30000000000000004 + (0.30000000000000004 - 0.3) at the max of w
    (shared at a tie) + 2 x / n."""
    rng = np.random.default_rng(11)
    vg = symgrad.value_and_grad(named_value)
    checked = 0
    for n in (3, 5, 8):
        for _ in range(20):
            x = rng.uniform(0.0, 2.0, n)
            value, gradient = vg(x)
            assert value == named_value(x)
            w = x * 0.1 * 3.0 - x * 0.3
            winner = (w == np.max(w)) / np.sum(w == np.max(w))
            u = np.sum(x * 0.1 * 3.0)
            hand = 2 * u * (0.1 * 3.0) + winner * (0.1 * 3.0 - 0.3) + 2 * x / n
            np.testing.assert_allclose(gradient, hand, rtol=1e-14, atol=1e-15)
            checked += np.sum(x * x) * (1 / n) != np.mean(x * x)  # sum * (1/n) would differ
    assert checked > 0


def test_generated_code_reads_as_written():
    """The primal's lines are printed as the source wrote them, with no dead SymPy-form line."""
    shapes = {"x": ("n",)}
    source = symgrad.grad(max_named, shapes=shapes).source
    assert "largest = (x / 3.0 * 3 - x).max()" in source and "broadcast" not in source
    source = symgrad.value_and_grad(named_value, shapes=shapes).source
    assert "0.1 * x * 3" in source and "(x * x).sum()" in source and "1.0 / n" not in source
    assert "0.30000000000000004 * x" not in source  # the derivative's factor is one number

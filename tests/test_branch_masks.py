"""A branch's adjoint is the 0/1 mask of the side taken; a product with it is printed as a where
(an ``if`` in ``math`` code) of the product, so the side not taken is exactly 0 however the other
side's derivative evaluates there (array fuzzer 35-407: ``where(c, 1.0, 0.0) * d`` was nan where
``d`` is the undefined derivative of ``np.std`` at zero spread, 0 * nan)."""
import math

import numpy as np
import pytest

import symgrad


def branch_of_a_spread(X, v):
    c = X[-1]
    if c > 0.1:
        r = np.einsum('ij,ij->', v, np.std((X[..., None, None] * X[None, :, None])
                                           * np.full((1, 1, X.shape[0]), 0.5), axis=2))
    else:
        r = 0.5
    return r + 0.5


def branch_of_a_root(x, y):
    if x > 0.0:
        r = math.sqrt(y) * x
    else:
        r = 0.5
    return r


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "array_api"])
def test_the_side_not_taken_is_exactly_zero(backend):
    if backend != "numpy":
        pytest.importorskip({"jax": "jax", "torch": "torch", "array_api": "array_api_compat"}[
            backend], reason=f"pip install -e '.[{backend.replace('_', '-')}]'")
    X = np.array([-0.5749987924583171, -0.7932942786317674])  # c = X[-1] <= 0.1: r = 0.5
    v = np.array([[0.9965160696693756, 0.49027401224507505],
                  [0.7163553551640149, -0.45746696128103403]])
    g = symgrad.grad(branch_of_a_spread, shapes={"X": ("n",), "v": ("n", "n")}, backend=backend)
    with np.errstate(all="ignore"):
        dX, dv = (np.asarray(a) for a in g(X, v))
    np.testing.assert_array_equal(dX, np.zeros(2))  # f is 1.0 near X: d/dX = 0 (was nan)
    np.testing.assert_array_equal(dv, np.zeros((2, 2)))


def test_math_code_does_not_compute_the_side_not_taken():
    g = symgrad.grad(branch_of_a_root)
    assert g(-1.0, 0.0) == (0.0, 0.0)  # f = 0.5 for x <= 0
    assert g(2.0, 4.0) == (2.0, 0.5)  # sqrt(y), x / (2 sqrt(y)) by hand

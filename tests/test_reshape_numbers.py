"""A derivative that folds to a number and is then reshaped (the variance over an axis of one
element has derivative 0.0 everywhere) is an array of the parameter's shape: the NumPy code
printed ``np.reshape(0.0, (2, 2))``, which raised ValueError (array fuzzer 107-9); the factored
operand keeps its shape (``np.broadcast_to(0.0, ...)``), and on Dask inputs is a Dask array."""
import numpy as np
import pytest

import symgrad


def spread_of_one(X, v):  # fuzz 107-9
    t0 = np.sum(np.diag(np.var(X[:, :, None, 1], axis=2)) ** 2)
    return np.subtract(np.where(t0 > 0.2, t0, 0.3 * t0), t0)


@pytest.mark.parametrize("shapes", [{"X": (2, 2, 2), "v": (2,)},
                                    {"X": ("n", "n", 2), "v": ("n",)}], ids=["fixed", "named"])
def test_a_number_reshaped_is_an_array_of_zeros(shapes):
    X = np.random.default_rng(0).uniform(-1.0, 1.0, (2, 2, 2))
    g = symgrad.grad(spread_of_one, shapes=shapes)
    dX, dv = g(X, np.ones(2))  # t0 is 0 for every X: f is 0, its gradient 0 (by hand)
    np.testing.assert_array_equal(dX, np.zeros((2, 2, 2)))
    np.testing.assert_array_equal(dv, np.zeros(2))


def test_a_number_reshaped_on_dask_is_lazy():
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    g = symgrad.grad(spread_of_one, shapes={"X": (2, 2, 2), "v": (2,)})
    dX, dv = g(da.ones((2, 2, 2), chunks=1), da.ones(2, chunks=1))
    assert isinstance(dX, da.Array)
    np.testing.assert_array_equal(dX.compute(), np.zeros((2, 2, 2)))

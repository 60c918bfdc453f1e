"""Cases the array fuzzer found on Dask (``tests/benchmarks/fuzz_arrays.py --backends dask
array_api-dask``), each holding the NumPy gradient's numbers (rel 1e-12), the gradient built
under a scheduler that raises on any compute: the lazy NumPy code and ``backend="array_api"``
on Dask arrays of one chunk and of several. Skipped when Dask is not installed."""
import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient

da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e '.[dask]'")
import dask  # noqa: E402 - after the skip


def refuse(*args, **kwargs):
    raise AssertionError("the gradient computed a Dask value inside")


def on_dask(f, X, backends=("numpy", "array_api"), chunks=(1, 2, -1), **options):
    """The gradient of ``f`` at ``X`` by the NumPy backend, and the same numbers on Dask."""
    want = symgrad.grad(f, **options)(X)
    for backend in backends:
        if backend == "array_api":
            pytest.importorskip("array_api_compat")
        g = symgrad.grad(f, backend=backend, **options)
        for c in chunks:
            with dask.config.set(scheduler=refuse):
                got = g(da.from_array(X, chunks=c))
            assert isinstance(got, da.Array), (backend, c, type(got))
            np.testing.assert_allclose(got.compute(), want, rtol=1e-12, atol=1e-15,
                                       err_msg=f"{backend}, chunks={c}")
    return want


# --- 17-83: a gradient that is the number 0.0, reshaped ------------------------------------------
def var_of_one_norm(X):  # fuzz 17-83
    return np.tanh(np.var(np.linalg.norm(X[..., None, None, None, 1] * X[None, :, None, None, 1],
                                         axis=-1)[None, -1, 1, -1]))


def test_a_number_reshaped_is_an_array_of_the_library():
    """The variance of one element has derivative 0.0, a Python number the code then reshaped:
    ``xp.reshape(0.0, ())`` raised AttributeError on Dask ('float' object has no attribute
    'shape'); it is ``xp.full((), 0.0, ...)``. The gradient is 0 everywhere (by hand)."""
    X = np.random.default_rng(3).uniform(-1.0, 1.0, (3, 3))
    want = on_dask(var_of_one_norm, X, shapes={"X": (3, 3)})
    np.testing.assert_array_equal(want, np.zeros((3, 3)))


# --- 17-29: ties of max / min / argmax / where, broken as NumPy breaks them -----------------------
def maxes(X):
    return (np.max(X) * np.sum(X) + np.sum(np.max(X, axis=0) ** 2) + np.sum(np.min(X, axis=1) * 3.0)
            + np.sum(X.max(axis=1, keepdims=True) * X) + np.amin(X))


def picks(X):
    return (X[stop_gradient(np.argmax(X[:, 0])), 1] + X[stop_gradient(np.argmin(X[:, 1])), 0]
            + np.reshape(X, (-1,))[stop_gradient(np.argmax(X))] * 2.0)


def pairs(X):
    return (np.sum(np.maximum(X, X[::-1]) + np.minimum(X, 0.5) ** 2)
            + np.sum(np.clip(X, -0.5, 0.5) ** 2) + np.sum(np.fmax(X, 0.5)))


def kinks(X):
    return (np.sum(np.abs(X - 0.5) + np.where(X > 0.5, X ** 2, 3.0 * X))
            + np.sum(np.sign(X - 0.5) * X) + np.sum(np.where(X == np.max(X), X, 0.0))
            + np.sum(np.where(X >= 0.5, X, -X)))


def log_sum_exp(X):
    m = np.max(X, axis=0)
    return np.sum(m + np.log(np.sum(np.exp(X - m), axis=0)))


TIED = np.array([[0.5, 0.5, -0.5], [0.5, 0.2, 0.5], [-0.5, 0.5, 0.1], [0.5, -0.5, 0.5]])


@pytest.mark.parametrize("f", [maxes, picks, pairs, kinks, log_sum_exp])
def test_exact_ties_are_broken_on_dask_as_on_numpy(f):
    """At exact ties (the maximum 0.5 in several chunks, clip bounds, abs and sign at their
    kink, ``where`` on its boundary), the lazy NumPy code and the Array API code on Dask give the
    NumPy gradient's numbers: a max's cotangent shared among its ties, the first ``argmax``,
    half of it to each side of ``maximum``. (Fuzz 17-29 was a tie in real arithmetic only: two
    products equal up to rounding, which Dask's chunked sums round otherwise than NumPy: a
    different, equally right, subgradient; docs/backends.md, Dask.)"""
    on_dask(f, TIED, chunks=(1, 2, 3, -1))

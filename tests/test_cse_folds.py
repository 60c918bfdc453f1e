"""A line of an array adjoint that SymPy's ``cse`` folds to a number: its two terms are one term
once their common part is named (``sum(g * a) - sum(a * g)``: 0), while the lines reading it
index, reshape and sum an array. Found writing the straight-through form ``A + stop_gradient(
np.round(A)) - A`` (the array fuzzer's 61-373 family) with the sizes read at the call: the numpy
gradient raised ``ValueError: cannot reshape array of size 1 into shape (2,)``
(``np.reshape(0.0, (n,))``); now the line is ``np.full((1, n), 0.0)`` on every backend."""
import importlib.util

import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient


def rounded_through(X, W):
    return np.sum(np.amax(((W[:, None] * W[None, :]) * X[:, 0, None]) + stop_gradient(np.round(
        ((W[:, None] * W[None, :]) * X[:, 0, None]))) - ((W[:, None] * W[None, :]) * X[:, 0, None]),
        axis=1) * W)


X = np.array([[0.8, 0.3], [1.7, 0.72]])
W = np.array([1.3, -2.1])
A = W[:, None] * W[None, :] * X[:, 0, None]
WANT = (np.zeros((2, 2)), np.round(A).max(axis=1))  # A + (round(A) - A): d/dA is 0


def _numpy(value):
    if hasattr(value, "compute"):
        value = value.compute()
    if type(value).__module__.startswith("torch"):
        return value.numpy()
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    return np.asarray(value)


def _convert(run):
    if run in ("numpy", "array_api-numpy"):
        return lambda a: a
    if run.endswith("torch"):
        import torch
        return torch.from_numpy
    if run == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        return jax.numpy.asarray
    if run.endswith("dask"):
        import dask.array as da
        return lambda a: da.from_array(a, chunks=1)
    import array_api_strict
    return array_api_strict.asarray


RUNS = {"numpy": (None, ()), "torch": ("torch", ("torch",)), "jax": ("jax", ("jax",)),
        "array_api-numpy": ("array_api", ("array_api_compat",)),
        "array_api-strict": ("array_api", ("array_api_compat", "array_api_strict")),
        "array_api-torch": ("array_api", ("array_api_compat", "torch")),
        "dask": (None, ("dask",)), "array_api-dask": ("array_api", ("array_api_compat", "dask"))}


@pytest.mark.parametrize("shapes", [None, {"X": ("n", "d"), "W": ("n",)}, {"X": (2, 2), "W": (2,)}],
                         ids=["call-time", "named", "fixed"])
@pytest.mark.parametrize("run", list(RUNS))
def test_a_cancelled_adjoint_line_is_an_array(run, shapes):
    backend, needs = RUNS[run]
    for package in needs:
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} not installed")
    convert = _convert(run)
    got = symgrad.grad(rounded_through, wrt=("X", "W"), shapes=shapes, backend=backend)(
        convert(X), convert(W))
    for g, w in zip(got, WANT):
        np.testing.assert_allclose(_numpy(g), w, rtol=1e-12, atol=1e-12)

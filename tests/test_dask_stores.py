"""Stores Dask's ``__setitem__`` gets wrong, and reads its ``__getitem__`` gets wrong, in the lazy
specialisation (the numpy gradient called with Dask arrays): an int index with a slice of
negative step (``z[0, ::-1] = g`` raised ``IndexError``; ``z[1, ::-2, 1:] = g`` stored ``g`` in
the wrong places, no error) or with an index array (``z[2, INDEX] = g``: ``TypeError``), and the
read ``x[0, :, INDEX]`` (Dask puts the index array's axis where it stands, NumPy first). Each
gradient is held against the sum by hand (``2 c x`` where ``c x[spec] ** 2`` picks) and computed
from Dask arrays of several chunks under a scheduler that refuses to compute inside the gradient.
Skipped, with the reason, when Dask is not installed (``pip install -e '.[dask]'``).
"""
import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient

da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e '.[dask]'")
import dask  # noqa: E402 - after the skip

INDEX = np.array([2, 0])
SHAPE = (5, 6, 3)  # n, d, k: 3 x 3 x 2 chunks of 2


def refuse(*args, **kwargs):
    raise AssertionError("the gradient computed a Dask value inside")


def reversed_rows(v):
    return (np.sum(v[0, ::-1] ** 2) + 2.0 * np.sum(v[1, ::-2, 1:] ** 2)
            + 3.0 * np.sum(v[-1, ::-1, -1] ** 2) + 4.0 * np.sum(v[v.shape[0] // 2, 4:0:-3] ** 2))


def index_beside_int(v):
    return np.sum(v[2, INDEX] ** 2) + 2.0 * np.sum(v[0, :, INDEX] ** 2) \
        + 3.0 * np.sum(v[3, ::-1, INDEX] ** 2)


def picked_reversed(v):
    return np.sum(v[np.argmax(stop_gradient(v[:, 0, 0])), 1, ::-1] ** 2)


def by_hand(v, terms):
    """The gradient of sum_j c_j sum(v[spec_j] ** 2): 2 c_j v where each spec picks."""
    want = np.zeros_like(v)
    for c, spec in terms:
        want[spec] += 2.0 * c * v[spec]
    return want


CASES = {
    reversed_rows: lambda v: [(1.0, (0, slice(None, None, -1))),
                              (2.0, (1, slice(None, None, -2), slice(1, None))),
                              (3.0, (-1, slice(None, None, -1), -1)),
                              (4.0, (v.shape[0] // 2, slice(4, 0, -3)))],
    index_beside_int: lambda v: [(1.0, (2, INDEX)), (2.0, (0, slice(None), INDEX)),
                                 (3.0, (3, slice(None, None, -1), INDEX))],
    picked_reversed: lambda v: [(1.0, (int(np.argmax(v[:, 0, 0])), 1, slice(None, None, -1)))],
}


@pytest.mark.parametrize("f", list(CASES), ids=[f.__name__ for f in CASES])
def test_an_int_beside_a_reversed_slice_or_an_index_array_stores_as_numpy_on_dask(f):
    g = symgrad.grad(f, wrt="v", shapes={"v": ("n", "d", "k")})
    v = np.random.default_rng(3).standard_normal(SHAPE)
    want = by_hand(v, CASES[f](v))
    np.testing.assert_allclose(g(v), want, rtol=1e-14, atol=0)
    dv = da.from_array(v, chunks=2)
    with dask.config.set(scheduler=refuse):
        got = g(dv)
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-14, atol=0)
    lazy = g.specialisation("lazy")
    np.testing.assert_allclose(lazy(v), want, rtol=1e-14, atol=0)  # and on NumPy arguments


def test_the_numpy_code_keeps_numpy_s_store():
    """Only the lazy code spells the store otherwise: the NumPy code is unchanged."""
    g = symgrad.grad(reversed_rows, wrt="v", shapes={"v": ("n", "d", "k")})
    assert "_dv[0, ::-1] +=" in g.source and "expand_dims" not in g.source
    assert "[0:1, ::-1] += np.expand_dims(" in g.specialisation("lazy").source


# --- a buffer whose first piece is computed from NumPy values only --------------------------
def first_piece_constant(X):  # fuzz 13-122: d/dX[0, 1] is a NumPy 0.0/1.0, d/dX[:, 0] Dask
    c = np.mean(np.full((X.shape[1], X.shape[1]), 0.5)[..., -1][-2:], axis=0)
    if c > 0.1:
        r = np.inner(X[::-1, 1], np.cos(np.logaddexp(X[1, 0], X[..., 0])))
    else:
        r = X[0, 1]
    return r + 0.5


def numpy_then_dask(w, x):  # w's pieces: w[1:] * 2.0 from NumPy, w[:-1] * x from Dask
    return np.sum(2.0 * w[1:]) + np.sum(w[:-1] * x)


def test_a_buffer_takes_every_piece_s_library_not_the_first_one_s():
    """The zero buffer of an index adjoint is a Dask array when any piece is one (it was the
    first piece's library: a NumPy buffer, and NumPy cannot add a Dask piece into it:
    ``NotImplementedError: The out parameter is not fully supported``)."""
    X = np.random.default_rng(5).uniform(-1.0, 1.0, (5, 5))
    g = symgrad.grad(first_piece_constant, shapes={"X": ("n", "n")})
    with dask.config.set(scheduler=refuse):
        got = g(da.from_array(X, chunks=2))
    np.testing.assert_allclose(got.compute(), g(X), rtol=1e-14, atol=0)
    w, x = np.array([0.5, -1.0, 2.0, 0.25]), np.array([1.5, -0.5, 3.0])
    want = np.array([1.5, 1.5, 5.0, 2.0])  # 2.0 on w[1:], x on w[:-1], by hand
    h = symgrad.grad(numpy_then_dask, wrt=["w", "x"])
    np.testing.assert_allclose(h(w, x)[0], want, rtol=1e-15, atol=0)
    for args in ((w, da.from_array(x, chunks=2)), (da.from_array(w, chunks=2), x)):
        with dask.config.set(scheduler=refuse):
            dw, dx = h(*args)
        np.testing.assert_allclose(np.asarray(dask.compute(dw)[0]), want, rtol=1e-15, atol=0)
        np.testing.assert_allclose(np.asarray(dask.compute(dx)[0]), w[:-1], rtol=1e-15, atol=0)


def inner_columns(X):  # fuzz 130-329
    return np.min(np.sum(X[:, 1:X.shape[1] - 1], axis=1))


def of_a_product(X):  # fuzz 130-34, X of fixed shape (2, 2): the slice 1:1 is empty
    return np.min(np.sum((X[:, None, None, -1] * X[None, :, None, 1])[:, :, 1:X.shape[1] - 1],
                         axis=2))


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
def test_a_store_into_an_empty_selection_on_dask_stores_nothing(backend):
    """Dask's __setitem__ raised ValueError (shape mismatch) for any array stored into an empty
    selection of an array of rank 2 or more (the adjoint of a sum over X[:, 1:d - 1] at d = 2);
    NumPy stores nothing. By hand: at d = 2 every row sums nothing, d/dX = 0; at d = 3 and 4
    d/dX is 1 on columns 1 .. d - 2 of the row of the smallest sum, 0 elsewhere."""
    if backend == "array_api":
        pytest.importorskip("array_api_compat")
    g = symgrad.grad(inner_columns, shapes={"X": ("n", "d")}, backend=backend)
    for d in (2, 3, 4):
        X = np.random.default_rng(d).uniform(-1.0, 1.0, (3, d))
        want = np.zeros((3, d))
        if d > 2:
            want[np.argmin(X[:, 1:d - 1].sum(axis=1)), 1:d - 1] = 1.0
        np.testing.assert_array_equal(g(X), want)
        with dask.config.set(scheduler=refuse):
            got = g(da.from_array(X, chunks=1))
        np.testing.assert_array_equal(got.compute(), want)
    g = symgrad.grad(of_a_product, shapes={"X": (2, 2)}, backend=backend)
    X = np.array([[0.5, -1.0], [2.0, 0.25]])
    with dask.config.set(scheduler=refuse):
        got = g(da.from_array(X, chunks=1))
    np.testing.assert_array_equal(got.compute(), np.zeros((2, 2)))  # nothing is summed
    np.testing.assert_array_equal(g(X), np.zeros((2, 2)))

"""A NumPy parameter beside Dask data: the gradient of every Dask parameter is a lazy Dask array,
whatever its value reads (a NumPy parameter, a NumPy constant, a scalar, sizes only). The lazy
code makes each NumPy array parameter an array of the arguments' library (``np.asarray(w,
like=library)``), and what reads no array parameter takes that library too; before, d/dX of
``np.sum(X[:, 0] * w)`` with a NumPy ``w`` was a NumPy array of ``X``'s size made in memory.

Each gradient is called under a scheduler that refuses to compute, at two shapes, with
``backend="numpy"`` and ``"array_api"``; its numbers are held by hand and against the same
gradient on NumPy arrays (rel 1e-12), and a call on 3 * 10^6 elements must allocate under a
tenth of the data's bytes. Skipped when Dask is not installed."""
import tracemalloc

import numpy as np
import pytest

import symgrad

da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e '.[dask]'")
import dask  # noqa: E402 - after the skip

CONSTANT = np.linspace(-2.0, 3.0, 64)  # X has 64 columns


def refuse(*args, **kwargs):
    raise AssertionError("the gradient computed a Dask value inside")


def first_column(X, w):
    return np.sum(X[:, 0] * w)


def outer(X, u, v):
    return np.sum(X * np.outer(u, v))


def left_product(X, A):
    return np.sum(A @ X)


def by_a_constant(X, w):
    return np.sum(X * CONSTANT) + np.sum(w)


def by_a_scalar(X, x):
    return np.sum(X) * x ** 2


def by_row_numbers(X, w):
    weights = np.arange(X.shape[0]) * 0.25  # of sizes only: a NumPy array
    return np.sum(X * weights[:, None]) + np.sum(w)


def but_the_first_row(X, x):
    return np.sum(X[1:] * x)


def by_hand(f, X, others):
    """The gradient of each function above in (X, *others), by hand."""
    n, d = X.shape
    if f is first_column:  # d/dX[i, 0] = w[i]; d/dw = X[:, 0]
        (w,) = others
        dX = np.zeros((n, d))
        dX[:, 0] = w
        return dX, X[:, 0]
    if f is outer:  # sum_ij X_ij u_i v_j
        u, v = others
        return np.outer(u, v), X @ v, X.T @ u
    if f is left_product:  # sum_kij A_ki X_ij: d/dX_ij = sum_k A_ki; d/dA_ki = sum_j X_ij
        (A,) = others
        return np.broadcast_to(A.sum(axis=0)[:, None], (n, d)), np.broadcast_to(
            X.sum(axis=1), A.shape)
    if f is by_a_constant:
        (w,) = others
        return np.broadcast_to(CONSTANT, (n, d)), np.ones(w.shape)
    if f is by_a_scalar:
        (x,) = others
        return np.full((n, d), x ** 2), 2.0 * x * X.sum()
    if f is by_row_numbers:
        (w,) = others
        return np.broadcast_to(0.25 * np.arange(n)[:, None], (n, d)), np.ones(w.shape)
    if f is but_the_first_row:
        (x,) = others
        dX = np.full((n, d), x)
        dX[0] = 0.0
        return dX, X[1:].sum()
    raise AssertionError(f)


def numpy_arguments(f, n, d, rng):
    """X (n, d) and the other arguments of ``f``, all NumPy."""
    X = rng.uniform(-1.0, 1.0, (n, d))
    others = {first_column: [rng.uniform(-1.0, 1.0, n)],
              outer: [rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, d)],
              left_product: [rng.uniform(-1.0, 1.0, (3, n))],
              by_a_constant: [rng.uniform(-1.0, 1.0, 2)],
              by_a_scalar: [0.7],
              by_row_numbers: [rng.uniform(-1.0, 1.0, 3)],
              but_the_first_row: [-1.3]}[f]
    return X, others


SHAPES = {"X": ("n", "d"), "w": ("k",), "u": ("n",), "v": ("d",), "A": ("m", "n")}
FUNCTIONS = [first_column, outer, left_product, by_a_constant, by_a_scalar, by_row_numbers,
             but_the_first_row]
SIZES = [((6, 64), (2, 16)), ((7, 64), ((3, 4), (1, 63)))]  # (shape, X's chunks)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["numpy", "array_api"])
def test_a_dask_parameter_s_gradient_is_lazy_beside_numpy_ones(f, backend):
    if backend == "array_api":
        pytest.importorskip("array_api_compat")
    if f is first_column:
        shapes = {"X": ("n", "d"), "w": ("n",)}
    else:
        shapes = {k: v for k, v in SHAPES.items() if k in f.__code__.co_varnames[
            :f.__code__.co_argcount]}
    count = f.__code__.co_argcount
    g = symgrad.grad(f, wrt=tuple(range(count)), shapes=shapes, backend=backend)
    reference = symgrad.grad(f, wrt=tuple(range(count)), shapes=shapes)
    rng = np.random.default_rng(0)
    for (n, d), chunks in SIZES:
        X, others = numpy_arguments(f, n, d, rng)
        want = by_hand(f, X, others)
        for w_, r in zip(want, reference(X, *others)):
            np.testing.assert_allclose(r, w_, rtol=1e-12, atol=1e-15)
        with dask.config.set(scheduler=refuse):
            got = g(da.from_array(X, chunks=chunks), *others)
        assert isinstance(got[0], da.Array), (n, d, type(got[0]))  # was a NumPy array (numpy)
        if backend == "numpy" and f not in (left_product, outer):  # in X's chunks (A @ X's
            # and np.outer(u, v)'s, of NumPy u and v only, are Dask's)
            assert got[0].chunks == da.from_array(X, chunks=chunks).chunks, got[0].chunks
        for w_, value in zip(want, dask.compute(*got)):
            np.testing.assert_allclose(value, w_, rtol=1e-12, atol=1e-15)


def test_the_value_and_gradient_beside_a_numpy_parameter_are_lazy():
    """value_and_grad: the value a 0-d Dask array, each gradient a Dask array. By hand: the sum
    of X[:, 0] * w, and w, X[:, 0]."""
    X, w = np.arange(12.0).reshape(6, 2), np.linspace(-1.0, 1.0, 6)
    vg = symgrad.value_and_grad(first_column, wrt=(0, 1), shapes={"X": ("n", "d"), "w": ("n",)})
    with dask.config.set(scheduler=refuse):
        value, (dX, dw) = vg(da.from_array(X, chunks=(4, 1)), w)
    assert isinstance(value, da.Array) and isinstance(dX, da.Array) and isinstance(dw, da.Array)
    value, dX, dw = dask.compute(value, dX, dw)
    assert abs(float(value) - float(X[:, 0] @ w)) < 1e-12
    want = np.zeros((6, 2))
    want[:, 0] = w
    np.testing.assert_array_equal(dX, want)
    np.testing.assert_array_equal(dw, X[:, 0])


def test_a_numpy_parameter_s_gradient_of_dask_data_stays_lazy():
    """The other way round: d/dw of np.sum(X[:, 0] * w) reads Dask X, a Dask array as before;
    d/dX with X NumPy beside a Dask w is a Dask array too (every array of the code is of the
    arguments' library)."""
    X, w = np.ones((5, 3)), np.arange(5.0)
    g = symgrad.grad(first_column, wrt=(0, 1), shapes={"X": ("n", "d"), "w": ("n",)})
    with dask.config.set(scheduler=refuse):
        dX, dw = g(X, da.from_array(w, chunks=2))
    assert isinstance(dX, da.Array) and isinstance(dw, da.Array)
    np.testing.assert_array_equal(dw.compute(), np.ones(5))
    np.testing.assert_array_equal(dX.compute()[:, 0], w)


@pytest.mark.parametrize("f", [first_column, by_a_constant, by_a_scalar, by_row_numbers],
                         ids=lambda f: f.__name__)
def test_a_gradient_beside_numpy_parameters_allocates_no_array_of_the_data_s_size(f):
    """Dask copies a NumPy operand (the parameter's size, here n = X's rows / 64): what is
    allocated must be far below the data's size (a NumPy d/dX of X's size was all of it)."""
    n, d = 250_000, 64
    rng = np.random.default_rng(1)
    _, others = numpy_arguments(f, n, d, rng)
    shapes = {"X": ("n", "d"), "w": ("n",) if f is first_column else ("k",)}
    if f is by_a_scalar:
        shapes = {"X": ("n", "d")}
    g = symgrad.grad(f, wrt=(0, 1), shapes=shapes)
    g(da.zeros((4, d), chunks=2), *numpy_arguments(f, 4, d, rng)[1])  # built before measuring
    X = da.zeros((n, d), chunks=(25_000, d))  # 128 MB when computed; none in memory here
    tracemalloc.start()
    try:
        with dask.config.set(scheduler=refuse):
            got = g(X, *others)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(got[0], da.Array)
    assert peak < X.nbytes / 10, peak  # a NumPy gradient of X's size was 128 MB

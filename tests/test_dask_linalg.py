"""The linear algebra of ``np.linalg`` on Dask arrays (``symgrad/array_linalg_lazy.py``): the
numpy gradient's lazy specialisation and ``backend="array_api"`` called with Dask matrices in
uneven chunks (2 by 2 of a 5 by 5 matrix: Dask's own LU refuses them, its SVD takes
tall-and-skinny arrays only, it has no ``det`` nor ``slogdet``), and with a NumPy constant matrix
beside a Dask right-hand side (Dask's ``solve`` takes no NumPy matrix). Each gradient is built
under a scheduler that refuses to compute, then computed and held to the numpy gradient on the
NumPy arrays (rel 1e-12): NumPy's own function runs on one chunk, so the numbers are NumPy's.
"""
import numpy as np
import pytest

import symgrad

da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e '.[dask]'")
import dask  # noqa: E402 - after the skip

C = np.array([[2.0, 0.3, -0.1, 0.0, 0.2], [0.1, 1.5, 0.2, -0.3, 0.0], [0.0, -0.2, 1.8, 0.4, 0.1],
              [0.3, 0.0, 0.1, 2.2, -0.5], [-0.1, 0.2, 0.0, 0.3, 1.7]])


def inverse(A):
    return np.sum(np.linalg.inv(A) ** 2)


def determinant(A):
    return np.linalg.det(A)


def singular(A):  # at a singular matrix: the adjoint is the cofactor matrix (by the SVD)
    return np.linalg.det(A) * 2.0


def log_determinant(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet ** 2


def solved(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


def solved_matrix(A, B):
    return np.sum(np.linalg.solve(A, B) * B)


def constant_matrix(b):
    return np.sum(np.linalg.solve(C, b) ** 3)


def constant_matrix_rows(B):
    return np.sum(np.linalg.solve(C, B[:, 1:]) ** 2) + np.linalg.det(C + B[:, :5])


RNG = np.random.default_rng(4)
A = C + 0.1 * RNG.uniform(-1.0, 1.0, (5, 5))
CASES = [(inverse, (A,)), (determinant, (A,)), (singular, (np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [1.3, 1.0, 2.5]]),)),
         (log_determinant, (A,)), (solved, (A, RNG.uniform(-1, 1, 5))),
         (solved_matrix, (A, RNG.uniform(-1, 1, (5, 3)))),
         (constant_matrix, (RNG.uniform(-1, 1, 5),)),
         (constant_matrix_rows, (RNG.uniform(-1, 1, (5, 6)),))]


def _refusing(*args, **kwargs):
    raise AssertionError("the gradient computed a Dask value inside")


def _runs():
    runs = ["numpy"]
    try:
        import array_api_compat  # noqa: F401
        runs.append("array_api")
    except ImportError:
        pass
    return runs


@pytest.mark.parametrize("backend", _runs())
@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_linear_algebra_on_dask_chunks_is_lazy_and_gives_numpys_numbers(f, args, backend):
    want = symgrad.grad(f)(*args)
    want = want if isinstance(want, tuple) else (want,)
    g = symgrad.grad(f, backend=backend)
    for chunks in (2, -1):
        with dask.config.set(scheduler=_refusing):
            got = g(*[da.from_array(a, chunks=chunks) for a in args])
        got = dask.compute(*(got if isinstance(got, tuple) else (got,)))
        for x, w in zip(got, want):
            assert np.shape(x) == np.shape(w)
            np.testing.assert_allclose(np.asarray(x), w, rtol=1e-12,
                                       atol=1e-14 * np.max(np.abs(w)))


@pytest.mark.parametrize("f, args", [(solved, CASES[4][1]), (solved_matrix, CASES[5][1])])
def test_a_numpy_matrix_beside_a_dask_right_hand_side_and_back(f, args):
    """Dask and NumPy arguments mixed: either operand of solve may be the Dask one."""
    want = symgrad.grad(f)(*args)
    g = symgrad.grad(f)
    for k in range(2):
        mixed = list(args)
        mixed[k] = da.from_array(args[k], chunks=2)
        with dask.config.set(scheduler=_refusing):
            got = g(*mixed)
        for x, w in zip(dask.compute(*got), want):
            np.testing.assert_allclose(x, w, rtol=1e-12, atol=1e-14 * np.max(np.abs(w)))


def test_the_numpy_code_keeps_numpys_calls():
    """Only the code that may meet Dask arrays takes the one-chunk form."""
    g = symgrad.grad(solved, shapes={"A": ("n", "n"), "b": ("n",)})
    assert "map_blocks" not in g.source and "np.linalg.solve(A, b)" in g.source
    assert "map_blocks" in g.specialisation("lazy").source


# --- a square NumPy constant and its transpose in one Dask graph --------------------------------
Z = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]])


def both_ways(X):
    return np.sum(np.sin(Z * X)) + np.sum(np.cos(Z.T * X))


def test_a_transposed_constant_is_not_read_as_the_constant_on_dask():
    """Dask (2026.8) names a NumPy operand by its bytes in memory order and its shape: ``X * Z``
    and ``X * Z.T`` got one name, and the lazy gradient read ``Z`` for ``Z.T`` (2.76 off); the
    lazy code copies a transposed constant (``np.ascontiguousarray(Z.T)``)."""
    X = np.random.default_rng(1).uniform(-1.0, 1.0, (3, 3))
    want = Z * np.cos(Z * X) - Z.T * np.sin(Z.T * X)  # by hand
    g = symgrad.grad(both_ways, shapes={"X": (3, 3)})
    np.testing.assert_allclose(g(X), want, rtol=1e-14, atol=1e-15)
    for chunks in (2, -1):
        with dask.config.set(scheduler=_refusing):
            got = g(da.from_array(X, chunks=chunks))
        np.testing.assert_allclose(got.compute(), want, rtol=1e-14, atol=1e-15)
    assert "np.ascontiguousarray(Z.T)" in g.specialisation("lazy").source
    assert "ascontiguousarray" not in g.source


def upper_pairs(X):  # fuzz 16-27
    i_d, j_d = np.triu_indices(X.shape[0], 1)
    return np.sum(X[i_d] * X[j_d])


def test_array_api_on_dask_takes_an_index_of_one_zero():
    """Dask (2026.8) names a Dask index array by its data: ``[0]`` got the name of the
    chunk-offset array Dask makes for a Dask index of a one-chunk array, and the gradient read
    ``[-0.7, 0.0]``; the Array API code leaves NumPy's index arrays NumPy's on Dask (``_index``)."""
    pytest.importorskip("array_api_compat")
    X = np.array([0.3, -0.7])
    g = symgrad.grad(upper_pairs, backend="array_api")
    got = g(da.from_array(X, chunks=2)).compute()
    np.testing.assert_allclose(np.asarray(got), [-0.7, 0.3], rtol=1e-15)  # d/dX of X0 X1


FIRST = np.array([0])


def first_rows(X):
    return np.sum(np.sin(X[FIRST]) * X[1:2]) + np.sum(X[np.triu_indices(X.shape[0], 1)[0]] ** 2)


def test_array_api_on_dask_keeps_numpy_index_arrays():
    """Constant and computed index arrays of one zero, on one chunk and on several: the numbers
    of the NumPy backend, a graph built without computing, and NumPy's index arrays left
    NumPy's on Dask (``_index``; the same text makes them the library's elsewhere)."""
    pytest.importorskip("array_api_compat")
    X = np.array([0.3, -0.7])
    want = symgrad.grad(first_rows)(X)
    g = symgrad.grad(first_rows, backend="array_api")
    np.testing.assert_allclose(g(X), want, rtol=1e-15)
    assert "_index(" in g.source and "hasattr(X, '__dask_graph__')" in g.source
    for chunks in (2, 1):
        with dask.config.set(scheduler=_refusing):
            got = g(da.from_array(X, chunks=chunks))
        np.testing.assert_allclose(got.compute(), want, rtol=1e-12, atol=1e-15)

"""The printed linear algebra: each decomposition computed once per call, and on the Array API the
Dask test made once, at the top (``symgrad/array_linalg_lazy.py``)."""
import re

import numpy as np
import pytest

import symgrad


def determinant(A):
    return np.linalg.det(A)


A = np.array([[2.0, 0.3, -0.1], [0.1, 1.5, 0.2], [0.0, -0.2, 1.8]])
WANT = np.linalg.det(A) * np.linalg.inv(A).T  # d det(A) / dA, by hand


def _backends():
    found = ["numpy"]
    for backend, module in (("jax", "jax"), ("torch", "torch"), ("array_api", "array_api_compat")):
        try:
            __import__(module)
            found.append(backend)
        except ImportError:
            pass
    return found


@pytest.fixture
def x64():
    try:
        import jax
    except ImportError:
        yield
        return
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


@pytest.mark.parametrize("backend", _backends())
def test_the_determinants_adjoint_computes_one_svd(backend, x64):
    """The adjoint of ``np.linalg.det`` read each of U, s and Vh from its own
    ``np.linalg.svd(A)``: three O(n^3) SVDs per call. The SVD is one node, printed once
    (``_t0 = np.linalg.svd(A)``) and indexed; the numbers are those of before."""
    g = symgrad.grad(determinant, shapes={"A": (3, 3)}, backend=backend)
    assert len(re.findall(r"linalg\.svd\(", g.source)) == (2 if backend == "array_api" else 1), \
        g.source  # the Array API's: one call, of one chunk on Dask, else of A
    assert g.source.count("_t0[") == 3
    convert = np.asarray
    if backend == "torch":
        import torch
        convert = torch.from_numpy
    got = np.asarray(g(convert(A)))
    np.testing.assert_allclose(got, WANT, rtol=1e-12, atol=1e-15)


def _counted_svd(monkeypatch):
    calls = []
    svd = np.linalg.svd

    def counted(*args, **kwargs):
        calls.append(np.shape(args[0]))
        return svd(*args, **kwargs)
    monkeypatch.setattr(np.linalg, "svd", counted)
    return calls


def test_the_lazy_determinant_computes_one_svd_task(monkeypatch):
    """The numpy code, its lazy specialisation and the Array API on Dask (Dask's SVD of the one
    chunk: one task) call NumPy's SVD once per gradient (three times before), with NumPy's
    numbers, lazily."""
    da = pytest.importorskip("dask.array")
    import dask
    runs = [symgrad.grad(determinant, shapes={"A": (3, 3)})]
    try:
        import array_api_compat  # noqa: F401
        runs.append(symgrad.grad(determinant, shapes={"A": (3, 3)}, backend="array_api"))
    except ImportError:
        pass
    assert runs[0].specialisation("lazy").source.count("linalg.svd(") == 2  # Dask's, NumPy's
    calls = _counted_svd(monkeypatch)
    for g in runs:
        del calls[:]
        np.testing.assert_allclose(g(A), WANT, rtol=1e-12, atol=1e-15)
        assert calls == [(3, 3)]
        got = g(da.from_array(A, chunks=2))
        del calls[:]  # Dask calls it on a (1, 1) array for its types when it builds the graph
        np.testing.assert_allclose(dask.compute(got)[0], WANT, rtol=1e-12, atol=1e-15)
        assert calls == [(3, 3)]


def inverse_and_solve(A, b):
    return np.sum(np.linalg.inv(A)) + np.sum(np.linalg.solve(A, b) ** 2) + np.linalg.det(A)


def test_the_array_api_tests_for_dask_once():
    """``backend="array_api"`` tested ``hasattr(X, 'map_blocks')`` at every linear-algebra call,
    evaluating its argument (``_t1 @ _t2``) twice; the namespace is tested once, at the top
    (``on_dask = hasattr(A, 'map_blocks')``, A an array of ``xp`` by then)."""
    pytest.importorskip("array_api_compat")
    g = symgrad.grad(inverse_and_solve, shapes={"A": (3, 3), "b": (3,)}, backend="array_api")
    assert g.source.count("hasattr(") == 1
    assert re.search(r"^    b = xp.asarray\(b\)\n    on_dask = hasattr\(A, 'map_blocks'\)$",
                     g.source, re.M), g.source
    b = np.array([0.5, -1.0, 2.0])
    want = symgrad.grad(inverse_and_solve)(A, b)
    for got, w in zip(g(A, b), want):
        np.testing.assert_allclose(np.asarray(got), w, rtol=1e-12, atol=1e-15)
    plain = symgrad.grad(lambda x: np.sum(x ** 2), shapes={"x": (3,)}, backend="array_api")
    assert "on_dask" not in plain.source  # no linear algebra: no test


def summed_algebra(A, B, b):
    return (np.sum(np.linalg.inv(A + B)) + np.linalg.det(A * B)
            + np.sum(np.linalg.solve(A - B, b) ** 2) + np.linalg.slogdet(A + 2.0 * B)[1])


def test_the_lazy_code_evaluates_each_linear_algebra_argument_once():
    """The lazy NumPy code tests each value (``hasattr(x, 'map_blocks')``: a NumPy constant may
    sit beside a Dask array); an argument that is not a name was evaluated by the test and again
    by the branch taken (``hasattr(A + B, ...) ... np.linalg.inv(A + B)``): it is bound in the
    test (``_m := A + B``) and read by its name; NumPy's numbers, lazily, Dask and NumPy mixed."""
    da = pytest.importorskip("dask.array")
    import dask
    shapes = {"A": ("n", "n"), "B": ("n", "n"), "b": ("n",)}
    g = symgrad.grad(summed_algebra, wrt=["A", "B"], shapes=shapes)
    lazy = g.specialisation("lazy").source
    for argument in ("A + B", "A * B", "A + 2.0 * B"):
        assert lazy.count(argument) == 1, (argument, lazy)
    assert "(_m := A + B), 'map_blocks')" in lazy
    rng = np.random.default_rng(3)
    A, B = 4.0 * np.eye(4) + rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    b = rng.normal(size=4)
    want = g(A, B, b)
    for args in ((da.from_array(A, chunks=2), da.from_array(B, chunks=2), da.from_array(b, 2)),
                 (da.from_array(A, chunks=2), B, b), (A, B, da.from_array(b, chunks=2))):
        for got, w in zip(dask.compute(*g(*args)), want):
            np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-14)


# --- einsum subscripts: one reading ---------------------------------------------------------------
def test_einsum_subscripts_are_read_in_one_place():
    """The implicit output (no ``->``) was computed twice, by the reader (before the diagonals
    are taken) and by ``parse_subscripts``; ``split_subscripts`` holds NumPy's rule, and the
    Array API's einsum by ``matmul`` reads ``parse_subscripts`` too."""
    from symgrad.array_linalg import parse_subscripts, split_subscripts
    assert split_subscripts("ij,jk") == (["ij", "jk"], "ik")
    assert split_subscripts(" b a ") == (["ba"], "ab")
    assert split_subscripts("ii") == (["ii"], "")
    assert split_subscripts("ij,j->i") == (["ij", "j"], "i")
    assert parse_subscripts("kj,ji", 2) == (["kj", "ji"], "ik")  # alphabetical, as NumPy's


def implicit_einsums(A, B, T):
    return (np.sum(np.sin(np.einsum("kj,ji", A, B))) + np.sum(np.einsum("ba", A) * B)
            + np.einsum("ii", A) ** 2 + np.sum(np.einsum("iij", T) ** 2))


@pytest.mark.parametrize("library", ["numpy", "strict", "torch"])
def test_implicit_einsum_outputs_on_every_library(library):
    """NumPy's implicit outputs (``"kj,ji"`` is ``->ik``, ``"ba"`` a transpose, ``"ii"`` a trace,
    ``"iij"`` the diagonal summed, ``j`` kept) on the numpy backend (by hand) and by ``matmul``
    on the Array API's libraries (the numpy backend's numbers)."""
    from test_array_api_gaps import _agree
    rng = np.random.default_rng(8)
    A, B, T = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 3, 2))
    dA, dB, dT = symgrad.grad(implicit_einsums)(A, B, T)
    C = np.cos((A @ B).T)  # "kj,ji" is (A @ B).T: the adjoint of its sum of sines
    np.testing.assert_allclose(dA, C.T @ B.T + B.T + 2.0 * np.trace(A) * np.eye(3), rtol=1e-12)
    np.testing.assert_allclose(dB, A.T @ C.T + A.T, rtol=1e-12)
    want_T = np.zeros_like(T)
    for i in range(3):
        want_T[i, i] = 2.0 * sum(T[k, k] for k in range(3))
    np.testing.assert_allclose(dT, want_T, rtol=1e-12)
    _agree(implicit_einsums, (A, B, T), library)


def signed_log_determinant(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet ** 2


@pytest.mark.parametrize("backend", _backends())
def test_slogdet_read_whole_is_computed_once(backend, x64):
    """Code reading both items of ``np.linalg.slogdet(A)`` called it twice (a node per item);
    the pair is one node, printed once (``_t0 = np.linalg.slogdet(A)``), with the same numbers."""
    g = symgrad.grad(signed_log_determinant, shapes={"A": (3, 3)}, backend=backend)
    assert g.source.count("linalg.slogdet(") == (2 if backend == "array_api" else 1), g.source
    assert "sign = _t0[0]" in g.source and "logdet = _t0[1]" in g.source
    sign, logdet = np.linalg.slogdet(A)
    convert = np.asarray
    if backend == "torch":
        import torch
        convert = torch.from_numpy
    np.testing.assert_allclose(np.asarray(g(convert(A))), 2.0 * sign * logdet
                               * np.linalg.inv(A).T, rtol=1e-12, atol=1e-15)


def test_slogdet_on_dask_is_one_task(monkeypatch):
    """On Dask (the lazy specialisation, the Array API) the pair is one chunk's ``np.stack`` of
    NumPy's slogdet: one call per gradient, lazily."""
    da = pytest.importorskip("dask.array")
    import dask
    runs = [symgrad.grad(signed_log_determinant, shapes={"A": (3, 3)})]
    try:
        import array_api_compat  # noqa: F401
        runs.append(symgrad.grad(signed_log_determinant, shapes={"A": (3, 3)},
                                 backend="array_api"))
    except ImportError:
        pass
    want = symgrad.grad(signed_log_determinant)(A)
    calls = []
    slogdet = np.linalg.slogdet
    monkeypatch.setattr(np.linalg, "slogdet", lambda a: calls.append(1) or slogdet(a))
    for g in runs:
        got = g(da.from_array(A, chunks=2))
        del calls[:]
        np.testing.assert_allclose(dask.compute(got)[0], want, rtol=1e-12, atol=1e-15)
        assert calls == [1]

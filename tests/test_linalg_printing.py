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

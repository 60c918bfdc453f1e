"""A check of the primal's (an ``assert``, a ``raise`` under an ``if`` on the values) on every
backend: the numbers of the numpy gradient where it holds, the primal's exception where it fails
(on JAX, PyTorch, ``array_api_strict`` and Dask arrays: Dask computes the condition), and under
``jax.jit`` JAX's refusal with a note naming the check."""
import importlib.util

import numpy as np
import pytest

import symgrad

HAS = {name: importlib.util.find_spec(name) is not None
       for name in ("jax", "torch", "array_api_compat", "array_api_strict", "dask")}


def _needs(*packages):
    missing = [p for p in packages if not HAS[p]]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not installed: "
                              "pip install -e '.[test]'")


def checked(x, w):
    if np.max(x) > 100.0:
        raise ValueError("x too large")
    assert np.sum(w) > -10.0, "w too small"
    total = np.sum(x * w)
    if total > 0.0:
        return np.sum(np.sin(x) * w) + total ** 2
    return np.sum(np.sin(x) * w)


SHAPES = {"x": ("n",), "w": ("n",)}
X, W = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])


def by_hand(x, w):
    """d checked / d w: sin(x), and 2 total x where total > 0."""
    total = np.sum(x * w)
    return np.sin(x) + (2.0 * total * x if total > 0.0 else 0.0)


def _library(run):
    if run == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        return "jax", jnp.asarray, np.asarray
    if run == "torch":
        import torch
        return "torch", torch.from_numpy, lambda a: a.numpy()
    if run == "array_api-strict":
        import array_api_strict as xp
        return "array_api", xp.asarray, np.from_dlpack
    import dask.array as da
    backend = "numpy" if run == "dask" else "array_api"
    return backend, lambda a: da.from_array(a, chunks=2), lambda a: np.asarray(a.compute())


RUNS = [pytest.param("jax", marks=_needs("jax")), pytest.param("torch", marks=_needs("torch")),
        pytest.param("array_api-strict", marks=_needs("array_api_compat", "array_api_strict")),
        pytest.param("dask", marks=_needs("dask")),
        pytest.param("array_api-dask", marks=_needs("array_api_compat", "dask"))]


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("x, w", [(X, W), (-X, W)], ids=["taken", "not-taken"])
def test_a_check_gives_the_numpy_numbers_and_raises_where_the_primal_raises(run, x, w):
    backend, make, back = _library(run)
    want = symgrad.grad(checked, wrt="w", shapes=SHAPES)(x, w)
    assert np.allclose(want, by_hand(x, w), rtol=1e-12, atol=0.0)
    gf = symgrad.grad(checked, wrt="w", backend=backend, shapes=SHAPES)
    got = back(gf(make(x), make(w)))
    assert got.dtype == np.float64 and np.allclose(got, want, rtol=1e-12, atol=0.0)
    with pytest.raises(ValueError, match="x too large"):
        gf(make(np.abs(x) * 100.0 + 1.0), make(w))
    with pytest.raises(AssertionError, match="w too small"):
        gf(make(x), make(w - 10.0))


@_needs("jax", "array_api_compat")
@pytest.mark.parametrize("backend", ["jax", "array_api"])
def test_jax_jit_of_an_array_check_names_the_check(backend):
    """The branch is a ``where`` (traced); the checks are Python tests, which ``jax.jit``
    refuses as it refuses the primal's, and the error carries a note naming the first."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    gf = symgrad.grad(checked, wrt="w", backend=backend, shapes=SHAPES)
    with pytest.raises(jax.errors.TracerBoolConversionError) as raised:
        jax.jit(gf)(jnp.asarray(X), jnp.asarray(W))
    spelling = "jnp" if backend == "jax" else "xp"
    note = raised.value.__notes__[0]
    assert f"`if {spelling}.any(largest > 100.0): raise ValueError('x too large')`" in note
    assert "a check the gradient keeps from the primal" in note
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(checked)(jnp.asarray(X), jnp.asarray(W))  # the primal, with jax.numpy's np

"""A division by an expression of the sizes (``len(x) - 3``) on one side of a branch only: the
gradient raised ``ValueError: grad_f: n - 3.0 is 0 ...`` at 3 elements on every backend, where the
primal takes the other side and returns a number (the check scanned the whole body; without it,
Python's ``1.0 / (n - 3.0)`` raised ZeroDivisionError inside the side thrown away). Such a
denominator is guarded where its side is not taken (``1.0 / np.where(c, n - 3.0, 1.0)``); where
its side is taken at that size the gradient is float64 arithmetic's ``x / 0.0``, inf, as the
primal's NumPy division and JAX's ``jax.grad`` give. A size divided by on every path stays
checked. Values by hand, cross-checked with central differences of the primal."""
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found import HAS, _central
from test_backends import RUNS, _library, _to_numpy

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_size_denominators_"))

SOURCE = """import numpy as np


def returned(x, w):
    if np.sum(w) > 0.0:
        return np.sum(x * w) / (len(x) - 3)
    return np.sum(x * w)


def selected(x, w):
    return np.where(np.sum(w) > 0.0, np.sum(x * w) / (len(x) - 3), np.sum(x * w))


def ternary(x, w):
    return np.sum(x * w) / (len(x) - 3) if np.sum(w) > 0.0 else np.sum(x * w)


def elementwise(x, w):
    return np.sum(np.where(w > 0.0, x * w / (len(x) - 3), x * w))


def spread(x, w):
    if np.sum(w) > 0.0:
        return np.var(x * w, ddof=3)
    return np.sum(x * w)


def everywhere(x, w):
    if np.sum(w) > 0.0:
        return np.sum(x * w) / (len(x) - 3)
    return np.sum(x * x * w) / (len(x) - 3)
"""
MODULE = load_module(DIRECTORY, SOURCE, "size_denominators")
BRANCHES = ("returned", "selected", "ternary", "elementwise", "spread")


def _want(name, x, w):
    """By hand: sum(x * w) has gradient x; divided by n - 3, x / (n - 3); the elementwise where
    gives x_i / (n - 3) where w_i > 0, x_i elsewhere; np.var(u, ddof=3) of u = x * w has
    gradient 2 x (u - mean(u)) / (n - 3)."""
    n = len(x)
    if name == "elementwise":
        return np.where(w > 0.0, x / (n - 3.0), x)
    if np.sum(w) <= 0.0:
        return x
    if name == "spread":
        u = x * w
        return 2.0 * x * (u - np.mean(u)) / (n - 3.0)
    return x / (n - 3.0)


def _run(run):
    """(backend, convert an argument, wrap the gradient, lazy) for each run."""
    if run.endswith("dask"):
        da = pytest.importorskip("dask.array", reason="dask is not installed")
        if run == "array_api-dask" and not HAS["array_api_compat"]:
            pytest.skip("array_api_compat is not installed")
        return run.split("-")[0], lambda a: da.from_array(a, chunks=2), lambda g: g, True
    if run == "jax.jit":
        jax = pytest.importorskip("jax", reason="jax is not installed")
        jax.config.update("jax_enable_x64", True)
        return "jax", jax.numpy.asarray, jax.jit, False
    if run.startswith("jax") or run.endswith("jax"):
        import jax
        jax.config.update("jax_enable_x64", True)
    if run == "numpy":
        return "numpy", lambda a: a, lambda g: g, False
    backend, convert = _library(run)
    return backend, convert, lambda g: g, False


def _gradient(gf, x, w, convert, lazy):
    got = gf(convert(x), convert(w))
    if lazy:
        got = got.compute()
    return np.asarray(_to_numpy(got), dtype=float)


POINTS = [  # (x, w): the branch not taken at 3 elements, then taken at 5 (and 3 again)
    (np.array([0.5, 0.7, 0.1]), -np.array([1.0, 2.0, 3.0])),
    (np.array([0.5, 0.7, 0.1, 0.9, 0.3]), np.array([1.0, -2.0, 3.0, 0.5, 1.5])),
    (np.array([0.4, 0.2, 0.8]), np.array([-0.5, -0.1, -2.0])),
]


@pytest.mark.parametrize("run", ["numpy", "numpy-dask", "jax.jit", "array_api-dask"] + RUNS)
@pytest.mark.parametrize("name", BRANCHES)
def test_a_size_divided_by_on_a_side_not_taken_does_not_raise(name, run):
    """At 3 elements with the division's side not taken, the gradient is the other side's, x;
    at 5 elements with it taken, x / 2 (and np.var's with ddof=3), as central differences of the
    primal give. With the sizes as names and built at the call."""
    backend, convert, wrap, lazy = _run(run)
    f = getattr(MODULE, name)
    for shapes in ({"x": ("n",), "w": ("n",)}, None):
        gf = wrap(symgrad.grad(f, wrt="w", shapes=shapes, backend=backend))
        for x, w in POINTS:
            got = _gradient(gf, x, w, convert, lazy)
            np.testing.assert_allclose(got, _want(name, x, w), rtol=1e-13, atol=1e-15)
            with np.errstate(divide="ignore", invalid="ignore"):  # np.where's other side
                central = _central(lambda a: f(x, a), w)
            np.testing.assert_allclose(got, central, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("run", ["numpy", "jax.jit"] + RUNS)
@pytest.mark.parametrize("name", ("returned", "selected", "ternary", "elementwise"))
def test_a_size_divided_by_on_the_side_taken_gives_floats_inf(name, run):
    """At 3 elements with the division's side taken the primal is NumPy's sum / 0, inf (with a
    warning), and its derivative x / 0.0 is inf for x > 0, as ``jax.grad`` of the primal gives:
    the gradient computes it so (no raise, no ZeroDivisionError)."""
    backend, convert, wrap, lazy = _run(run)
    f = getattr(MODULE, name)
    x, w = np.array([0.5, 0.7, 0.1]), np.array([1.0, 2.0, 3.0])
    with np.errstate(divide="ignore"):
        assert f(x, w) == np.inf
    gf = wrap(symgrad.grad(f, wrt="w", shapes={"x": ("n",), "w": ("n",)}, backend=backend))
    with np.errstate(divide="ignore", invalid="ignore"):
        got = _gradient(gf, x, w, convert, lazy)
    np.testing.assert_array_equal(got, np.full(3, np.inf))


def test_the_value_of_a_branch_dividing_by_a_size_is_the_primals():
    """``value_and_grad``: the value too is the primal's, sum(x * w) where the division's side is
    not taken at 3 elements, sum(x * w) / 2 at 5 elements."""
    for name in ("returned", "selected", "ternary"):
        f = getattr(MODULE, name)
        vg = symgrad.value_and_grad(f, wrt="w", shapes={"x": ("n",), "w": ("n",)})
        for x, w in POINTS:
            value, gradient = vg(x, w)
            with np.errstate(divide="ignore"):
                assert value == f(x, w), name
            np.testing.assert_allclose(gradient, _want(name, x, w), rtol=1e-13)


@pytest.mark.parametrize("run", ["numpy", "jax.jit"] + RUNS)
def test_a_size_divided_by_on_every_path_is_still_checked(run):
    """Both sides divide by n - 3: at 3 elements the primal is inf or nan whichever is taken, and
    no gradient of it exists, so the gradient raises the size's ValueError before any arithmetic;
    at 5 elements it is x / 2 where sum(w) > 0, x * x / 2 elsewhere."""
    backend, convert, wrap, lazy = _run(run)
    gf = wrap(symgrad.grad(MODULE.everywhere, wrt="w", shapes={"x": ("n",), "w": ("n",)},
                           backend=backend))
    x, w = POINTS[1]
    np.testing.assert_allclose(_gradient(gf, x, w, convert, lazy), x / 2.0, rtol=1e-13)
    np.testing.assert_allclose(_gradient(gf, x, -w, convert, lazy), x * x / 2.0, rtol=1e-13)
    for x, w in (POINTS[0], (POINTS[0][0], -POINTS[0][1])):
        with pytest.raises(ValueError, match=r"n - 3\.0 is 0 .*the gradient divides by it"):
            _gradient(gf, x, w, convert, lazy)


PYTHON_SOURCE = """import numpy as np


def returned(x, w):
    if np.sum(w) > 0.0:
        return np.sum(x * w) * (2.0 / (len(x) - 3))
    return np.sum(x * w)


def ternary(x, w):
    return np.sum(x * w) * (2.0 / (len(x) - 3)) if np.sum(w) > 0.0 else np.sum(x * w)


def floored(x, w):
    if np.sum(w) > 0.0:
        return np.sum(x * w) * (len(x) // (len(x) - 3))
    return np.sum(x * w)
"""
PYTHON = load_module(DIRECTORY, PYTHON_SOURCE, "size_denominators_python")


def _want_python(name, x, w):
    """By hand: x times the Python number 2 / (n - 3) (n // (n - 3)) where sum(w) > 0, else x."""
    n = len(x)
    if np.sum(w) <= 0.0:
        return x
    return x * (n // (n - 3) if name == "floored" else 2.0 / (n - 3))


@pytest.mark.parametrize("run", ["numpy", "numpy-dask", "jax.jit", "array_api-dask"] + RUNS)
@pytest.mark.parametrize("name", ("returned", "ternary", "floored"))
def test_a_python_number_divided_by_a_size_raises_where_the_primal_does(name, run):
    """``2.0 / (len(x) - 3)`` is Python's division (NumPy's ``np.sum(x) / 0`` is inf): at 3
    elements the primal raises ZeroDivisionError where its side is taken, and so does the
    gradient, with Python's message; where the other side is taken, and at 5 elements, the
    gradient is the one by hand and central differences'. Under ``jax.jit`` at 3 elements the
    side cannot be told from the traced values: the call raises JAX's error naming the check."""
    backend, convert, wrap, lazy = _run(run)
    f = getattr(PYTHON, name)
    x3, w3 = np.array([0.5, 0.7, 0.1]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(ZeroDivisionError) as primal:
        f(x3, w3)
    for shapes in ({"x": ("n",), "w": ("n",)}, None):
        gf = wrap(symgrad.grad(f, wrt="w", shapes=shapes, backend=backend))
        for x, w in POINTS[1:2] + [(x3, -w3)]:
            if run == "jax.jit" and len(x) == 3:
                with pytest.raises(Exception, match="is a check the gradient keeps"):
                    _gradient(gf, x, w, convert, lazy)
                continue
            got = _gradient(gf, x, w, convert, lazy)
            np.testing.assert_allclose(got, _want_python(name, x, w), rtol=1e-13, atol=1e-15)
            central = _central(lambda a: f(x, a), w)
            np.testing.assert_allclose(got, central, rtol=1e-6, atol=1e-8)
        if run != "jax.jit":
            with pytest.raises(ZeroDivisionError, match=f"^{primal.value}$"):
                _gradient(gf, x3, w3, convert, lazy)

"""Bugs the array fuzzer (``tests/benchmarks/fuzz_arrays.py``) found with the rows of
``array_program_wide`` drawn (its default), each held at its right value: derived by hand,
cross-checked with a central difference of the primal."""
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found import BACKENDS, HAS, _central, _numbers
from test_backends import RUNS, _library, _to_numpy

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_array_found_wide_"))


def _convert(backend, x):
    if backend == "torch":
        import torch
        return torch.from_numpy(x)
    if backend == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        return jax.numpy.asarray(x)
    return x


SIZED_SLICES = """import numpy as np

C = np.array([1.0, 2.0, 3.0, 4.0])


def f(x):
    return (np.sum(C[:len(x) - 1] ** 2) * x[0] + np.sum(C[1:x.shape[0] - 1]) * x[1]
            + np.sum(C[len(x) - 1::-1]) * x[-1] * x[0] + np.sum(C[len(x) // 2:] ** 2) * x[-1])
"""


def _sized_slices_by_hand(x):
    """C[:n - 1] (clamped to C's 4 elements), C[1:n - 1], C[n - 1::-1] (from min(n - 1, 3) down),
    C[n // 2:] summed: each a number for one n."""
    n, C = len(x), np.array([1.0, 2.0, 3.0, 4.0])
    a, b = np.sum(C[:n - 1] ** 2), np.sum(C[1:n - 1])
    r, q = np.sum(C[n - 1::-1]), np.sum(C[n // 2:] ** 2)
    g = np.zeros(n)
    g[0] += a + r * x[-1]
    g[1] += b
    g[-1] += r * x[0] + q
    return g


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_constant_sliced_by_bounds_of_sizes(backend):
    """A constant array (its size a number) sliced by bounds computed from a parameter's size,
    ``C[:len(x) - 1]``, crashed the build (``TypeError: slice indices must be integers``: the
    slice's length was taken with ``range(4)[:n - 1]``; array fuzzer 80-920). The bound is
    clamped to the constant's size as Python clamps it: at n = 6, C[:5] is C."""
    module = load_module(DIRECTORY, SIZED_SLICES, "sized_slices")
    assert np.allclose(_sized_slices_by_hand(np.array([0.3, -0.2, 0.5])), [5.0 + 6.0 * 0.5, 2.0,
                                                                            6.0 * 0.3 + 29.0])
    for shapes in ({"x": ("n",)}, None):
        gf = symgrad.grad(module.f, shapes=shapes, backend=backend)
        for n in (2, 3, 4, 5, 6):
            x = np.linspace(-0.7, 0.9, n)
            want = _sized_slices_by_hand(x)
            assert np.allclose(_central(module.f, x), want, atol=1e-8)
            np.testing.assert_allclose(_numbers(gf(_convert(backend, x))), want, rtol=1e-13,
                                       atol=1e-13)


RANGE_IN_A_CONDITION = """import numpy as np

C = np.array([0.722, 0.962, 0.837, 0.531])


def f(X):
    return np.sqrt(np.sum(X * np.where(np.arange(len(X)) != 1, C, 0.0)))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_range_of_a_size_in_a_condition(backend):
    """``np.arange(len(X))`` in a condition, ``len(X)`` fixed to 4 by ``X * C``: the size is read
    as written there (``AsWritten``), and np.arange refused it ("takes numbers or sizes known
    when the gradient is built") under ``shapes={"X": ("n",)}`` and at the call, where
    ``shapes={"X": (4,)}`` built (array fuzzer 82-514). The gradient is w / (2 sqrt(X . w)),
    w = C with w[1] = 0."""
    module = load_module(DIRECTORY, RANGE_IN_A_CONDITION, "range_in_a_condition")
    X = np.array([0.1, 0.2, 0.3, 0.4])
    w = np.array([0.722, 0.0, 0.837, 0.531])
    want = w / (2.0 * np.sqrt(X @ w))
    assert np.allclose(_central(module.f, X), want, atol=1e-8)
    for shapes in ({"X": (4,)}, {"X": ("n",)}, None):
        gf = symgrad.grad(module.f, shapes=shapes, backend=backend)
        np.testing.assert_allclose(_numbers(gf(_convert(backend, X))), want, rtol=1e-13)


OF_SIZES_ONLY = """import numpy as np


def f(X, v):
    return np.mean(v[len(X) // 2:] ** 2) + np.logaddexp(1.5 / (1.0 + X.size), 2.0) * np.sum(v)
"""


def _of_sizes_by_hand(X, v):
    """2 v_i / (d - d // 2) on the last d - d // 2 elements, plus logaddexp(1.5 / (1 + 2 d), 2)
    on every one; nothing for X (only its sizes are read)."""
    d = len(v)
    gv = np.full(d, np.logaddexp(1.5 / (1.0 + X.size), 2.0))
    gv[d // 2:] += 2.0 * v[d // 2:] / (d - d // 2)
    return np.zeros_like(X), gv


@pytest.mark.parametrize("run", ["numpy"] + RUNS)
def test_functions_of_sizes_only_on_every_backend(run):
    """Values of the sizes only are Python numbers in the generated code: the slice's clamped
    length max(0, d - d // 2) was printed torch.clamp(0.0, min=...) and xp.maximum(0.0, ...),
    and logaddexp(1.5 / (1 + X.size), 2) as torch.exp / xp.exp of a float; PyTorch's and the
    Array API's functions take arrays (TypeError: array fuzzer 83-2, 83-213). Now Python's
    max / min, and the function of a 0-d array of the reference dtype."""
    _check_at_sizes(run, OF_SIZES_ONLY, "of_sizes_only", _of_sizes_by_hand, seed=83)


def _check_at_sizes(run, source, name, by_hand, seed):
    """``f(X, v)`` of ``source``, built for X (d, 2) and v (d,) on ``run``: its gradient at d =
    2, 3, 5 is ``by_hand(X, v)`` (rtol 1e-13), whose v part central differences confirm."""
    module = load_module(DIRECTORY, source, name)
    rng = np.random.default_rng(seed)
    backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
    gf = symgrad.grad(module.f, wrt=("X", "v"), shapes={"X": ("d", 2), "v": ("d",)},
                      backend=backend)
    for d in (2, 3, 5):
        X, v = rng.uniform(-1.0, 1.0, (d, 2)), rng.uniform(-1.0, 1.0, d)
        want = by_hand(X, v)
        assert np.allclose(_central(lambda a: module.f(X, a), v), want[1], atol=1e-8)
        for g, w in zip(gf(convert(X), convert(v)), want):
            np.testing.assert_allclose(_to_numpy(g), w, rtol=1e-13, atol=1e-13)


ROOT_OF_SIZES = """import numpy as np


def f(X, v):
    return np.sum(v) * np.sqrt(X.shape[0]) + np.sum(X * v[:, None]) / np.sqrt(X.size * 1.0)
"""


@pytest.mark.parametrize("run", ["numpy"] + RUNS)
def test_a_root_of_sizes_on_every_backend(run):
    """A square root of sizes only (``np.sqrt(X.shape[0])``, SymPy's ``sqrt(d)``, and ``1 /
    sqrt(2 d)`` in the derivative) was printed ``torch.sqrt(d)`` of a Python int (TypeError);
    now of a 0-d array of the reference dtype, as the other functions of sizes. By hand:
    d/dv_i = sqrt(d) + sum_j X_ij / sqrt(2 d), d/dX_ij = v_i / sqrt(2 d)."""
    _check_at_sizes(run, ROOT_OF_SIZES, "root_of_sizes", _root_of_sizes_by_hand, seed=84)


def _root_of_sizes_by_hand(X, v):
    d = len(v)
    return (np.broadcast_to(v[:, None], (d, 2)) / np.sqrt(2.0 * d),
            np.sqrt(d) + X.sum(axis=1) / np.sqrt(2.0 * d))


CBRT_COMPARED = """import numpy as np


def f(X):
    return np.sum(np.where(0.7 > np.cbrt(X ** 2 + 0.5) * X, 1.4, np.cbrt(X ** 2 + 0.5) * X - 1.0))
"""


@pytest.mark.parametrize("run", ["numpy"] + RUNS)
def test_cbrt_in_a_comparison_on_every_backend(run):
    """``np.cbrt`` in a comparison operand is printed as written, and PyTorch and the Array API
    have no cbrt: the written call printed ``torch.cbrt`` / ``xp.cbrt`` (AttributeError: array
    fuzzer 83-604, 83-652); it is lowered as the derivative's ``cbrt`` is, sign(x) |x|^(1/3).
    Where c(x) = cbrt(x^2 + 0.5) x is at least 0.7 the derivative is cbrt(x^2 + 0.5) +
    2 x^2 / (3 cbrt(x^2 + 0.5)^2), elsewhere 0."""
    module = load_module(DIRECTORY, CBRT_COMPARED, "cbrt_compared")
    X = np.array([0.2, 0.9, -0.5, 1.2])
    r = np.cbrt(X ** 2 + 0.5)
    want = np.where(r * X >= 0.7, r + 2.0 * X ** 2 / (3.0 * r ** 2), 0.0)
    assert np.allclose(_central(module.f, X), want, atol=1e-8)
    backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
    got = symgrad.grad(module.f, shapes={"X": ("n",)}, backend=backend)(convert(X))
    np.testing.assert_allclose(_to_numpy(got), want, rtol=1e-13)


VARIANCE_OF_ONE = """import numpy as np


def f(X):
    return np.logaddexp(0.5, np.var(np.mean(X[None, None, :, -1], axis=2))) + np.sum(X * X)
"""


@pytest.mark.parametrize("run", ["numpy", "numpy-dask"] + RUNS + [
    pytest.param("array_api-dask", marks=pytest.mark.skipif(
        not HAS["array_api_compat"], reason="array_api_compat not installed: pip install -e "
        "'.[array-api]'"))])
def test_a_derivative_line_factored_to_a_number_keeps_its_shape(run):
    """The variance of one element (``np.var`` of a (1, 1) array) has derivative 0: its two
    terms d*(a - b) + d*(b - a) factored to the number 0, printed ``df_dtotal = 0.0``, and the
    next line ``df_dtotal[:, :, None]`` raised TypeError (array fuzzer 83-857). The line keeps
    its (1, 1) shape, so the gradient is 2 X from the sum of squares alone, at every size."""
    module = load_module(DIRECTORY, VARIANCE_OF_ONE, "variance_of_one")
    if run in ("numpy-dask", "array_api-dask"):
        da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e "
                                 "'.[dask]'")
        backend, convert = run.split("-")[0], lambda a: da.from_array(a, chunks=1)
    else:
        backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
    rng = np.random.default_rng(857)
    for shapes in ({"X": (1, 1)}, {"X": ("n", "d")}, None):
        gf = symgrad.grad(module.f, shapes=shapes, backend=backend)
        for size in ((1, 1),) if shapes == {"X": (1, 1)} else ((1, 1), (3, 2), (2, 4)):
            X = rng.uniform(-1.0, 1.0, size)
            assert np.allclose(_central(module.f, X), 2.0 * X, atol=1e-8)
            got = gf(convert(X))
            if run.endswith("dask"):  # lazy: a Dask array of the gradient
                assert hasattr(got, "dask"), type(got)
                got = got.compute()
            np.testing.assert_allclose(_to_numpy(got), 2.0 * X, rtol=1e-14, atol=1e-15)


NEW_AXIS_OF_A_NUMBER = """import numpy as np


def f(X, v):
    return (np.dot(np.expand_dims(-0.4, 0), v[None, -1])
            + np.sum(np.expand_dims(X.shape[0] - 1.0, 0) * v[:1]))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_axis_of_a_negative_number_or_of_sizes(backend):
    """``np.expand_dims(-0.4, 0)`` was printed ``(-0.4)[None]`` (a number printed as a negation,
    not a constant, so not made an array first): TypeError: 'float' object is not subscriptable
    on every backend (array fuzzer 133-108); likewise a value of sizes, ``d - 1.0``. By hand: f =
    -0.4 v[-1] + (d - 1) v[0], so d/dv = (d - 1, 0, ..., -0.4), d/dX = 0."""
    module = load_module(DIRECTORY, NEW_AXIS_OF_A_NUMBER, "new_axis_of_a_number")
    for d, n in ((3, 4), (5, 2)):
        X, v = np.ones((d, n)), np.linspace(-0.5, 0.8, n)
        want = np.zeros(n)
        want[0] += d - 1.0
        want[-1] += -0.4
        assert np.allclose(_central(lambda u: module.f(X, u), v), want, atol=1e-8)
        gf = symgrad.grad(module.f, wrt=(0, 1), shapes={"X": ("d", "n"), "v": ("n",)},
                          backend=backend)
        dX, dv = gf(_convert(backend, X), _convert(backend, v))
        np.testing.assert_allclose(_numbers(dv), want, rtol=1e-13, atol=1e-15)
        np.testing.assert_array_equal(_numbers(dX), np.zeros((d, n)))

"""Bugs the array fuzzer (``tests/benchmarks/fuzz_arrays.py``) found, each held at its right
value: derived by hand, cross-checked with a central difference of the primal."""
import importlib.util
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_array_found_"))
HAS = {name: importlib.util.find_spec(name) is not None for name in ("jax", "torch",
                                                                    "array_api_compat")}
BACKENDS = ["numpy"] + [pytest.param(b, marks=pytest.mark.skipif(
    not HAS[lib], reason=f"{lib} not installed: pip install -e '.[{extra}]'"))
    for b, lib, extra in (("jax", "jax", "jax"), ("torch", "torch", "torch"),
                          ("array_api", "array_api_compat", "array-api"))]


def _numbers(value):
    if type(value).__module__.startswith("torch"):
        return value.numpy()
    return np.asarray(value, dtype=float)


def _central(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.fixture(scope="module")
def x64():
    if HAS["jax"]:
        import jax
        jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("step, taken_slice", [("::2", slice(None, None, 2)),
                                               ("::-2", slice(None, None, -2)),
                                               ("1::2", slice(1, None, 2))])
def test_mean_of_a_stepped_slice_of_a_named_size(step, taken_slice, backend, x64):
    """``np.mean(W[::2])`` with W's size a name (``shapes={"W": ("n",)}`` or built at the call)
    divides by ceil(n / 2): it was refused (``ceiling has no spelling for backend 'numpy'``).
    Its gradient is 1 / len(W[step]) on the elements the slice takes, 0 elsewhere."""
    module = load_module(DIRECTORY, f"import numpy as np\n\n\ndef f(W):\n    return np.mean("
                                    f"W[{step}] ** 2) * 0.5\n", "stepped_mean")
    for shapes in ({"W": ("n",)}, None):
        gf = symgrad.grad(module.f, shapes=shapes, backend=backend)
        for n in (2, 3, 4, 5):
            W = np.linspace(-1.0, 2.0, n)
            taken = np.zeros(n)
            taken[taken_slice] = 1.0
            want = taken * W / taken.sum()
            got = _numbers(gf(W))
            assert np.allclose(got, want, rtol=1e-12, atol=0.0), (step, backend, n, got)
            assert np.allclose(got, _central(module.f, W), rtol=1e-7, atol=1e-9)


PIECEWISE_FACTOR = '''import numpy as np


def helper(u):
    w = -u
    return w + u * 0.5


def clipped(v):
    return np.maximum(helper(v[1]), 0.5)


def branch(X, v):
    if v > 0.1:
        r = v
    else:
        r = np.var(X[..., 1])
    return r + v
'''


def test_a_shared_piecewise_factor_of_two_contributions_is_not_divided_out():
    """Two contributions to one adjoint with a branch factor ``p`` in common (``p / 2`` and
    ``-p``: the two uses of ``u`` in a helper under ``np.maximum``, or ``np.var`` under an
    ``if``) shared ``p`` by dividing each by it; SymPy folds ``1 / p`` into its pieces, ``zoo``
    where ``p`` is 0, so the gradient was nan where the maximum takes 0.5 (or the branch not
    taken). d/dv of max(-v1/2, 0.5) is -1/2 at v1 < -1, 0 at v1 > -1; of the branch, 2/3 (x -
    mean(x)) for the column X[:, 1] when v <= 0.1, else 0."""
    module = load_module(DIRECTORY, PIECEWISE_FACTOR, "piecewise_factor")
    gf = symgrad.grad(module.clipped, shapes={"v": ("n",)})
    for v1, slope in ((-0.6, 0.0), (-1.6, -0.5)):
        v = np.array([0.3, v1, 0.2])
        got = gf(v)
        assert np.array_equal(got, [0.0, slope, 0.0]), got
        assert np.allclose(got, _central(module.clipped, v), atol=1e-9)
    X = np.array([[0.5, -0.25, 1.0], [0.0, 0.75, 2.0], [1.0, 1.5, -1.0]])
    for shapes in ({"X": (3, 3)}, {"X": ("n", "d")}, None):
        gb = symgrad.grad(module.branch, shapes=shapes)
        for v, taken in ((0.9, False), (0.0, True)):
            dX, dv = gb(X, v)
            column = X[:, 1]
            want = np.zeros((3, 3))
            if taken:
                want[:, 1] = 2.0 / 3.0 * (column - column.mean())
            assert np.allclose(dX, want, rtol=1e-12, atol=1e-15), (shapes, v, dX)
            assert dv == (1.0 if taken else 2.0)
            assert np.allclose(dX, _central(lambda Y: module.branch(Y, v), X), atol=1e-8)


TRIANGLES = '''import numpy as np


def upper(X):
    i, j = np.triu_indices(len(X), 1)
    return np.sum(X[i, j] ** 2)


def lower(X):
    return np.sum(X[np.tril_indices(len(X), -1)] ** 3) + np.sum(X[np.triu_indices(len(X))])
'''


@pytest.mark.parametrize("backend", BACKENDS[:3])
def test_triangle_indices_of_a_call_time_size(backend, x64):
    """``np.triu_indices(len(X), 1)`` printed for torch was ``torch.triu_indices(n, 1)``, the
    triangle of an n x 1 matrix (torch's arguments are rows, columns, offset): the gradient was
    wrong (2 X[0, 1] landed on X[0, 0]). d/dX of sum(X[i, j]^2) over i < j is 2 X above the
    diagonal; of the lower one, 3 X^2 below it plus 1 on and above it."""
    module = load_module(DIRECTORY, TRIANGLES, "triangles")
    for n in (2, 3, 5):
        X = np.arange(n * n, dtype=float).reshape(n, n) / 7.0 - 1.0
        above = np.triu(np.ones((n, n)), 1)
        below = np.tril(np.ones((n, n)), -1)
        for f, want in ((module.upper, 2.0 * X * above),
                        (module.lower, 3.0 * X ** 2 * below + (1.0 - below))):
            gf = symgrad.grad(f, shapes={"X": ("n", "n")}, backend=backend)
            arg = X
            if backend == "torch":
                import torch
                arg = torch.from_numpy(X)
            got = _numbers(gf(arg))
            assert np.allclose(got, want, rtol=1e-12, atol=1e-15), (f.__name__, backend, got)
            assert np.allclose(got, _central(f, X), rtol=1e-7, atol=1e-8)

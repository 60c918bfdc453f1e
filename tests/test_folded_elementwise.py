"""Elementwise values SymPy folds, and comparisons it decides, keep NumPy's shape and floats.

``np.where(c, 1.0, 1.0)`` and ``np.clip(W, 1.0, 1.0)`` are the number 1.0 to SymPy, and
``np.where(c, W[0], W[0])`` is the row ``W[0]``: ``np.sum`` of them counted one element, or one
row, not NumPy's array (wrong values and gradients). A comparison of one node with itself (``W > W``,
or ``z[:, 1:] > z[:, :-1]`` of an array of zeros: its two slices are one node) was the boolean
False, so ``np.where`` of it was the number 2.0; and ``W >= W``, ``W == W`` were True and ``W != W``
False, which floats give only where ``W`` is not nan. Each value and gradient by hand, cross-checked
with float64 central differences of the primal (away from nan), at the call-time build, with
symbolic ``shapes=`` and on the array backends."""
import math
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found import _central
from test_backends import RUNS, _library, _to_numpy

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_folded_elementwise_"))

_MODULE = load_module(DIRECTORY, '''import numpy as np


def where_same(W):
    return np.sum(np.where(W > 1.0, 1.0, 1.0)) * np.sum(W)


def where_row(W):
    return np.sum(np.where(W > 1.0, W[0], W[0])) + np.sum(W ** 2)


def clip_fixed(W):
    return np.sum(np.clip(W, 1.0, 1.0)) * np.sum(W)


def clip_row(W):
    return np.sum(np.clip(W, W[0], W[0])) + np.sum(W ** 2)


def maximum_same(W):
    return np.sum(np.maximum(W - W, W * 0.0) + np.minimum(1.0, 0 * W + 1)) * np.sum(W)


def arithmetic(W):
    return np.sum(W * 0) + np.sum(W - W + 1.0) * np.sum(W)


def greater(W):
    return np.sum(np.where(W > W, 1.0, 2.0)) * np.sum(W)


def less(W):
    return np.sum(np.where(W < W, 1.0, 2.0)) * np.sum(W)


def greater_equal(W):
    return np.sum(np.where(W >= W, 1.0, 2.0)) * np.sum(W)


def less_equal(W):
    return np.sum(np.where(W <= W, 1.0, 2.0)) * np.sum(W)


def equal(W):
    return np.sum(np.where(W == W, 1.0, 2.0)) * np.sum(W)


def not_equal(W):
    return np.sum(np.where(W != W, 1.0, 2.0)) * np.sum(W)


def slices(W):
    z = np.zeros_like(W)
    return np.sum(np.where(z[:, 1:] > z[:, :-1], 1.0, 2.0)) * np.sum(W)


def slices_equal(W):
    z = np.zeros_like(W)
    return np.sum(np.where(z[:, 1:] >= z[:, :-1], W[:, 1:], 2.0))


def kept_greater_equal(W):
    return np.sum(np.where(W >= W, W, 0.0))


def kept_less_equal(W):
    return np.sum(np.where(W <= W, W, 0.0))


def kept_equal(W):
    return np.sum(np.where(W == W, W, 0.0))


def kept_not_equal(W):
    return np.sum(np.where(W != W, 0.0, W))


def kept_greater(W):
    return np.sum(np.where(W > W, W, 0.0) + np.where(W < W, W, 0.0))


def scalar_greater_equal(x):
    return x if x >= x else 2.0 * x


def scalar_not_equal(x):
    if x != x:
        return 3.0 * x
    return x * x
''', "folded_elementwise")


def _row(W, scale=1.0):
    """The gradient of ``scale * np.sum(of W[0] broadcast over the rows)``."""
    out = np.zeros(W.shape)
    out[0] = scale * len(W)
    return out


def _scaled(count):
    """(value, gradient) of ``count(W) * np.sum(W)``."""
    return lambda W: (count(W) * np.sum(W), np.full(W.shape, float(count(W))))


def _slices_equal(W):
    gradient = np.zeros(W.shape)
    gradient[:, 1:] = 1.0
    return np.sum(W[:, 1:]), gradient


BY_HAND = {  # name -> W -> (value, gradient), W of numbers (no nan)
    "where_same": _scaled(lambda W: W.size),
    "where_row": lambda W: (len(W) * np.sum(W[0]) + np.sum(W ** 2), _row(W) + 2.0 * W),
    "clip_fixed": _scaled(lambda W: W.size),
    "clip_row": lambda W: (len(W) * np.sum(W[0]) + np.sum(W ** 2), _row(W) + 2.0 * W),
    "maximum_same": _scaled(lambda W: W.size),
    "arithmetic": _scaled(lambda W: W.size),
    "greater": _scaled(lambda W: 2 * W.size),
    "less": _scaled(lambda W: 2 * W.size),
    "greater_equal": _scaled(lambda W: W.size),
    "less_equal": _scaled(lambda W: W.size),
    "equal": _scaled(lambda W: W.size),
    "not_equal": _scaled(lambda W: 2 * W.size),
    "slices": _scaled(lambda W: 2 * W.shape[0] * (W.shape[1] - 1)),
    "slices_equal": _slices_equal,
}

KEPT = {  # name -> where W is nan: (value, gradient) by hand, W's numbers kept, its nan dropped
    "kept_greater_equal": lambda W: (np.nansum(W), np.where(np.isnan(W), 0.0, 1.0)),
    "kept_less_equal": lambda W: (np.nansum(W), np.where(np.isnan(W), 0.0, 1.0)),
    "kept_equal": lambda W: (np.nansum(W), np.where(np.isnan(W), 0.0, 1.0)),
    "kept_not_equal": lambda W: (np.nansum(W), np.where(np.isnan(W), 0.0, 1.0)),
    "kept_greater": lambda W: (0.0, np.zeros(W.shape)),
}


def _point(shape, seed):
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape)


def _with_nan(shape, seed):
    W = _point(shape, seed)
    W[0, 1] = W[-1, -1] = math.nan
    return W


@pytest.mark.parametrize("name", sorted(BY_HAND))
@pytest.mark.parametrize("shape", [(3, 4), (1, 5)])
@pytest.mark.parametrize("shapes", [None, "symbolic"])
def test_folded_value_keeps_its_shape(name, shape, shapes):
    f = getattr(_MODULE, name)
    W = _point(shape, len(name) + shape[0])
    given = None if shapes is None else {"W": (shape[0], "n")}
    value, gradient = symgrad.value_and_grad(f, shapes=given)(W)
    want_value, want_gradient = BY_HAND[name](W)
    assert np.shape(gradient) == W.shape
    np.testing.assert_allclose(value, want_value, rtol=1e-13, atol=0.0)
    np.testing.assert_allclose(gradient, want_gradient, rtol=1e-13, atol=0.0)
    np.testing.assert_allclose(_central(f, W), want_gradient, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(KEPT))
@pytest.mark.parametrize("shapes", [None, "symbolic"])
def test_comparison_with_itself_at_nan(name, shapes):
    """``W >= W``, ``W <= W``, ``W == W`` are False and ``W != W`` True where W is nan; ``W > W``
    and ``W < W`` are False at every float. Away from nan the central differences agree."""
    f = getattr(_MODULE, name)
    W = _with_nan((3, 4), len(name))
    given = None if shapes is None else {"W": (3, "n")}
    value, gradient = symgrad.value_and_grad(f, shapes=given)(W)
    want_value, want_gradient = KEPT[name](W)
    np.testing.assert_allclose(f(W), want_value, rtol=1e-13, atol=0.0)  # the primal's own
    np.testing.assert_allclose(value, want_value, rtol=1e-13, atol=0.0)
    np.testing.assert_array_equal(gradient, want_gradient)
    numbers = _point((3, 4), len(name))
    np.testing.assert_allclose(_central(f, numbers), KEPT[name](numbers)[1], rtol=1e-6,
                               atol=1e-6)


@pytest.mark.parametrize("x, want", [(1.5, (1.5, 1.0)), (math.nan, (math.nan, 2.0)),
                                     (-math.inf, (-math.inf, 1.0))])
def test_scalar_greater_equal_with_itself(x, want):
    """``x if x >= x else 2.0 * x``: the second branch at nan only (SymPy's True took the first)."""
    got = symgrad.value_and_grad(_MODULE.scalar_greater_equal)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_MODULE.scalar_greater_equal(x), want[0])  # the primal's


@pytest.mark.parametrize("x, want", [(1.5, (2.25, 3.0)), (math.nan, (math.nan, 3.0))])
def test_scalar_not_equal_with_itself(x, want):
    """``x != x`` is True at nan only (SymPy's False never took the first branch)."""
    got = symgrad.value_and_grad(_MODULE.scalar_not_equal)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_MODULE.scalar_not_equal(x), want[0])


@pytest.mark.parametrize("name", sorted(BY_HAND) + sorted(KEPT))
@pytest.mark.parametrize("run", RUNS)
def test_folded_value_on_backends(name, run):
    """Each backend's gradient, the by-hand one (the folded arrays printed as its own arrays, the
    comparisons with themselves nan-exact)."""
    backend, convert = _library(run)
    W = _with_nan((3, 4), len(name)) if name in KEPT else _point((3, 4), len(name))
    gradient = symgrad.grad(getattr(_MODULE, name), backend=backend)(convert(W))
    want = (KEPT.get(name) or BY_HAND[name])(W)[1]
    np.testing.assert_allclose(_to_numpy(gradient), want, rtol=1e-12, atol=0.0)

"""Elementwise values SymPy folds to a number: ``np.subtract(W, W)`` is 0, and so are the two
slices ``np.diff`` subtracts of an array of zeros (one node, one name), so the difference bound
inside a row lost its array shape (array fuzzer 134-413: ``np.max(np.diff(np.subtract(W, W),
axis=1), axis=1)`` was refused as a max over axis 1 "of an array of rank 0", and ``np.sum`` of such
a difference plus 1.0 raised in the generated code). Each value by hand; the gradient by hand (its
shape the argument's), cross-checked with float64 central differences of the primal, at the
call-time build and with symbolic ``shapes=``."""
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found import _central

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_folded_shapes_"))

_MODULE = load_module(DIRECTORY, '''import numpy as np


def diff_max(W):
    return np.max(np.diff(np.subtract(W, W), axis=1), axis=1).sum() + np.sum(W ** 2)


def diff_ones(W):
    return np.sum(np.diff(np.multiply(W, 0.0)) + 1.0) * np.sum(W)


def diff_twice(W):
    return np.sum(np.diff(np.diff(np.multiply(W, 0.0), axis=1), axis=0) + 1.0) * np.sum(W)


def var_ones(W):
    return np.sum(np.var(np.subtract(W, W), axis=1) + 1.0) * np.sum(W)
''', "folded")


def _by_hand(name, W):
    """(value, gradient) by hand: every folded part is an array of zeros of NumPy's shape."""
    rows, columns = W.shape
    count = {"diff_ones": rows * (columns - 1), "diff_twice": (rows - 1) * (columns - 1),
             "var_ones": rows}.get(name)
    if count is None:  # diff_max: the maxima are 0
        return np.sum(W ** 2), 2.0 * W
    return count * np.sum(W), np.full(W.shape, float(count))


CASES = [("diff_max", (1, 4)), ("diff_max", (3, 4)), ("diff_ones", (1, 4)),
         ("diff_ones", (3, 4)), ("diff_twice", (3, 4)), ("diff_twice", (2, 5)),
         ("var_ones", (3, 1)), ("var_ones", (2, 1))]


@pytest.mark.parametrize("name, shape", CASES)
@pytest.mark.parametrize("shapes", [None, "symbolic"])
def test_folded_difference_keeps_its_shape(name, shape, shapes):
    f = getattr(_MODULE, name)
    W = np.random.default_rng(len(name) + shape[0]).uniform(0.5, 1.5, shape)
    given = None if shapes is None else {"W": (shape[0], "n")}
    value, gradient = symgrad.value_and_grad(f, shapes=given)(W)
    want_value, want_gradient = _by_hand(name, W)
    assert np.shape(gradient) == W.shape
    np.testing.assert_allclose(value, want_value, rtol=1e-13, atol=0.0)
    np.testing.assert_allclose(gradient, want_gradient, rtol=1e-13, atol=0.0)
    np.testing.assert_allclose(_central(f, W), want_gradient, rtol=1e-6, atol=1e-6)

"""Sizes that meet without ``shapes=`` (the hostile tester's findings F3, F5, F11, F15f, F17):
slices of two parameters unify (``x[1:] * y[1:]``), a slice of size 1 broadcasts (``X *
X[:, 1:2]``), the generated code checks at call time every size the build took to be another,
naming the argument whose size differs and both sizes, and a call-time refusal's traceback is
the user's line, the call and the message.

Reference values: central differences along random directions in float64, and hand-derived
gradients where they are short.
"""
import re
import traceback

import numpy as np
import pytest

import symgrad
from array_differences import assert_directional

RNG = np.random.default_rng(20261211)


def assert_gradient(f, args):
    """The gradient of every argument, built at the call, along one random direction each."""
    gradients = symgrad.grad(f)(*args)
    gradients = gradients if isinstance(gradients, tuple) else (gradients,)
    for k, g in enumerate(gradients):
        assert np.shape(g) == np.shape(args[k])
    assert_directional(f, gradients, args, RNG, rel=1e-7, abs=1e-9)
    return gradients


def shifted(x, y):
    return np.sum(x[1:] * y[1:])


def strided(x, y):
    return np.sum(np.sin(x[::2]) * y[::2])


def scores(Q, K):
    return np.sum(np.tanh(Q[:, 1:] @ K[:, 1:].T))


def heads(Q, K):
    total = 0.0
    for h in range(2):  # attention scores of two heads taking every other column
        total = total + np.sum(np.tanh(Q[:, h::2] @ K[:, h::2].T) ** 2)
    return total


def offset(x, y):
    return np.sum(x[1:] * y)


def test_slices_of_two_parameters_meet():
    x, y = RNG.standard_normal(5), RNG.standard_normal(5)
    gx, gy = assert_gradient(shifted, (x, y))
    assert np.array_equal(gx, np.r_[0.0, y[1:]]) and np.array_equal(gy, np.r_[0.0, x[1:]])
    for n in (4, 7):
        assert_gradient(shifted, (RNG.standard_normal(n), RNG.standard_normal(n)))
    assert_gradient(strided, (RNG.standard_normal(6), RNG.standard_normal(6)))
    assert_gradient(strided, (RNG.standard_normal(6), RNG.standard_normal(5)))  # 3 and 3
    gx, gy = assert_gradient(offset, (RNG.standard_normal(5), RNG.standard_normal(4)))
    assert gx[0] == 0.0
    for make in ((3, 5), (4, 5)), ((2, 6), (3, 6)):
        Q, K = (RNG.standard_normal(s) for s in make)
        assert_gradient(scores, (Q, K))
        assert_gradient(heads, (Q, K))


def test_sizes_that_differ_raise_naming_the_argument_and_the_sizes():
    cases = [
        (shifted, (np.ones(4), np.ones(5)), "grad_shifted: y.shape[0] is 5; it must be "
         "x.shape[0] = 4"),
        (strided, (np.ones(4), np.ones(5)), "grad_strided: y.shape[0] is 5, so a slice has "
         "size 3; it must be 2, as a slice of x.shape[0]"),
        (scores, (np.ones((2, 4)), np.ones((3, 5))), "grad_scores: K.shape[1] is 5; it must be "
         "Q.shape[1] = 4"),
        (offset, (np.ones(4), np.ones(4)), "grad_offset: y.shape[0] is 4; it must be "
         "x.shape[0] - 1 = 3"),
    ]
    for f, args, message in cases:
        with pytest.raises(ValueError):
            f(*args)  # the primal raises too
        with pytest.raises(ValueError, match=re.escape(message)):
            symgrad.grad(f)(*args)


def column(X):
    return np.sum(X * X[:, 1:2])


def column_squared(X):
    return np.sum(X * X[:, 2:3] ** 2)


def first_of_odd(x):
    return np.sum(x[::2] * x[1::2][:1])


def test_a_slice_of_size_one_broadcasts():
    X = RNG.standard_normal((3, 4))
    (g,) = assert_gradient(column, (X,))
    hand = np.broadcast_to(X[:, 1:2], X.shape).copy()  # d/dX sum_ij X_ij X_i1
    hand[:, 1] += X.sum(axis=1)
    assert np.allclose(g, hand, rtol=1e-14)
    assert_gradient(column, (RNG.standard_normal((2, 2)),))
    assert_gradient(column_squared, (X,))
    assert_gradient(first_of_odd, (RNG.standard_normal(5),))
    assert "X[:, 1:2]" in symgrad.grad(column, shapes={"X": ("n", "d")}).source
    with pytest.raises(ValueError):
        column_squared(np.ones((2, 2)))  # X[:, 2:3] is empty: the primal raises, so does grad
    with pytest.raises(ValueError, match=re.escape(
            "grad_column_squared: X.shape[1] is 2, so a slice has size 0; it must be 1")):
        symgrad.grad(column_squared)(np.ones((2, 2)))


def doubled(x):
    return np.sum(np.concatenate((x, x)) ** 2 * np.arange(8.0))


def test_a_size_met_with_a_concrete_one_is_that_size():
    x = RNG.standard_normal(4)
    (g,) = assert_gradient(doubled, (x,))
    assert np.allclose(g, 2.0 * x * (np.arange(4.0) + np.arange(4.0, 8.0)), rtol=1e-14)
    with pytest.raises(ValueError, match=re.escape("grad_doubled: x.shape[0] is 3; it must be 4")):
        symgrad.grad(doubled)(np.ones(3))


def rank_three(X, w):
    return np.sum(np.tanh(X @ w) ** 2)


def test_a_refusal_at_the_call_has_no_internal_frames():
    gradient = symgrad.grad(rank_three)
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        gradient(np.ones((2, 4, 3)), np.ones(3))
    error = info.value
    assert error.lineno == rank_three.__code__.co_firstlineno + 1 and error.filename == __file__
    assert error.offset == len("    return np.sum(np.tanh(X") and "`@` of ranks 3 and 1" in str(
        error)
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if "symgrad" in f.filename and "tests" not in f.filename]
    assert len(inside) <= 1 and error.__context__ is None and error.__cause__ is None

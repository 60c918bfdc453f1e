"""Rows of small accepted idioms: ``np.linalg.norm(x, 2)`` / ``ord=2`` and ``ord=1`` of vectors,
``ord="fro"`` of matrices,
``x.astype(float)`` / ``x.astype(np.float64)`` and ``np.float64(c)`` of a constant.

Each: central differences along random directions at two sizes (``test_arrays.check``), a value
worked by hand, and the refusal of what is not the same (another ``ord`` of a matrix, another
dtype).
"""
import numpy as np
import pytest

import symgrad
from test_arrays import check, mat, vec

WEIGHTS = np.array([1, 2, 3])
KEEP = np.array([True, False, True])


def norm_two(x):
    return np.linalg.norm(x, 2) * np.linalg.norm(x, ord=2.0) + np.linalg.norm(x) * x[0]


def norm_one(x):
    return np.linalg.norm(x, 1) ** 2 + np.linalg.norm(x, ord=1)


def norm_one_rows(X):
    return np.sum(np.linalg.norm(X, ord=1, axis=1) ** 2)


def norm_two_columns(X):
    return np.sum(np.linalg.norm(X, 2, axis=0, keepdims=True) * X)


def norm_frobenius(X):
    return np.linalg.norm(X, "fro") * np.sum(np.linalg.norm(X[None], ord="fro", axis=(1, 2)))


def norm_frobenius_vector(x):
    return np.linalg.norm(x, "fro")


def as_float(x):
    return np.sum(np.sin(x.astype(float)) * x.astype(np.float64))


def as_float_constants(x):
    return np.sum(x * WEIGHTS.astype(float) * KEEP.astype(np.float64))


def float64_of_constants(X):
    return np.sum(X * np.float64(2.5)) + np.float64(3) * np.sum(X ** 2)


@pytest.mark.parametrize("f, make", [
    (norm_two, vec), (norm_one, vec), (norm_one_rows, mat), (norm_two_columns, mat),
    (norm_frobenius, mat), (as_float, vec), (float64_of_constants, mat)])
def test_against_central_differences_at_two_sizes(f, make):
    check(f, lambda n: (make(n),), (f.__code__.co_varnames[0],))


def test_hand_values():
    x = np.array([3.0, -4.0, 0.0])
    # |x|^2 + |x| x0: 2x + x0 x / |x| + |x| e0, |x| = 5
    np.testing.assert_allclose(symgrad.grad(norm_two)(x), [6 + 9 / 5 + 5, -8 - 12 / 5, 0.0],
                               rtol=1e-15)
    # s^2 + s with s = sum|x| = 7: (2s + 1) sign(x), and 0 at x = 0 (abs's convention)
    np.testing.assert_array_equal(symgrad.grad(norm_one)(x), [15.0, -15.0, 0.0])
    X = np.array([[-2.0, -1.0, 0.0], [1.0, 2.0, 3.0]])  # row sums of |X|: 3, 6
    np.testing.assert_array_equal(symgrad.grad(norm_one_rows)(X), [[-6, -6, 0], [12, 12, 12]])
    # |X|_F^2: 2 X
    np.testing.assert_allclose(symgrad.grad(norm_frobenius)(X), 2 * X, rtol=1e-15)
    np.testing.assert_array_equal(symgrad.grad(as_float_constants)(np.ones(3)), [1.0, 0.0, 3.0])
    np.testing.assert_allclose(symgrad.grad(float64_of_constants)(X), 2.5 + 6.0 * X, rtol=1e-15)


def norm_one_matrix(X):
    return np.linalg.norm(X, 1)


def norm_three(x):
    return np.linalg.norm(x, 3)


def as_float32(x):
    return np.sum(x.astype(np.float32))


def as_int(x):
    return np.sum(x.astype(int))


def float64_of_array(x):
    return np.sum(np.float64(x))


NORM_REFUSED = ("np.linalg.norm is supported without ord, of an array, with ord=1 or 2 of vectors "
                "and ord='fro' of matrices: write np.sqrt(np.sum(x * x, axis=...)) for other norms")


@pytest.mark.parametrize("f, what", [
    (norm_one_matrix, NORM_REFUSED),
    (norm_three, NORM_REFUSED), (norm_frobenius_vector, NORM_REFUSED),
    (as_float32, ".astype is supported to float64 only (float, np.float64): symgrad computes in "
     "float64: drop it, or convert the result outside the function"),
    (as_int, ".astype is supported to float64 only (float, np.float64): symgrad computes in "
     "float64: drop it, or convert the result outside the function"),
    (float64_of_array, "np.float64 is supported of a constant number: drop it: every value "
     "symgrad computes is a float64")])
def test_what_is_not_the_same_is_refused(f, what):
    # a matrix's 1-norm is its largest column sum, not sum(abs(X)): refused, not misread
    shape = (2, 3) if f is norm_one_matrix else (3,)
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f)(np.ones(shape))
    assert caught.value.msg == what
    assert caught.value.lineno == f.__code__.co_firstlineno + 1

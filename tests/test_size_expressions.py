"""Integer expressions of sizes (``X.shape[0] // 2``, ``len(x) % 3``, ``-(-n // 2)``, ``min`` of
sizes) used where an int is needed: a slice bound, a reshape, ``range()``, ``ddof``, ``np.diff``'s
``n``. Built at the call, the sizes are call-time symbols until an operand of fixed size makes
one a number (``C0 * X`` makes ``len(X)`` 4): the call-time build refused ``C0[X.shape[0] // 2:]
* X`` (array fuzzer 134-2374), its ``floor(4/2)`` kept as written over the size read before it
was fixed; a size expression bound to a name (``k = len(x) - 1``) was a variable, refused as a
slice bound at the call; and ``len(x) % 3`` of a call-time size could not be printed. Each is
built at the call and with ``shapes=``, on every backend, and its gradient is compared with the
one by hand and with central differences of the primal."""
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found import _central
from test_backends import RUNS
from test_size_denominators import _run, _to_numpy

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_size_expressions_"))

SOURCE = """import numpy as np

C0 = np.arange(16.0).reshape((4, 4)) / 10.0 - 0.7
C1 = np.array([0.3, -0.2, 0.5, 0.9])


def halved(X):
    return np.exp(0.1 * np.sum(C0[X.shape[0] // 2:] * X))


def named_before(X):
    k = X.shape[0] // 2
    y = C1 * X
    return np.sum(y[k:] ** 2)


def named(x):
    k = len(x) - 1
    return np.sum(x[:k] ** 2)


def remainder(x):
    return np.sum(x[len(x) % 3:] ** 2)


def remainder_fixed(X):
    y = C1 * X
    return np.sum(y[len(X) % 3:] ** 2)


def rounded_up(x):
    n = len(x)
    return np.sum(x[:-(-n // 2)] ** 2)


def smallest(X):
    y = C1 * X
    return np.sum(y[min(len(X), 3) // 2:] ** 2)


def reshaped(X):
    y = C1 * X
    return np.sum(np.sin(y.reshape(X.shape[0] // 2, 2)) * np.array([1.0, 2.0]))


def counted(X):
    k = X.shape[0] // 2
    y = C1 * X
    total = 0.0
    for i in range(k):
        total = total + y[i] ** 2
    return total


def differenced(X):
    k = X.shape[0] // 2 - 1
    y = C1 * X
    return np.sum(np.diff(y, n=k) ** 2)


def spread(X):
    y = C1 * X
    return np.var(y, ddof=X.shape[0] % 3)
"""
MODULE = load_module(DIRECTORY, SOURCE, "size_expressions")
C0, C1 = MODULE.C0, MODULE.C1


def _want(name, x):
    """By hand, for x of n elements (4 where a constant fixes it)."""
    n = len(x)
    if name == "halved":  # exp(0.1 s), s = sum of rows 2, 3 of C0 times x
        s = np.sum(C0[2:] * x)
        return np.exp(0.1 * s) * 0.1 * (C0[2] + C0[3])
    if name == "reshaped":  # sum_j w_j sin(C1_j x_j), w = (1, 2, 1, 2)
        return np.cos(C1 * x) * C1 * np.array([1.0, 2.0, 1.0, 2.0])
    if name == "differenced":  # np.diff(y, n=1): d = y[1:] - y[:-1], sum d ** 2
        d = np.diff(C1 * x)
        return C1 * (np.concatenate([[0.0], 2 * d]) - np.concatenate([2 * d, [0.0]]))
    if name == "spread":  # np.var(y, ddof=1) of y = C1 x: 2 (y - mean(y)) C1 / (n - 1)
        y = C1 * x
        return 2.0 * (y - np.mean(y)) * C1 / (n - 1.0)
    kept = {"named_before": np.arange(n) >= 2, "named": np.arange(n) < n - 1,
            "remainder": np.arange(n) >= n % 3, "remainder_fixed": np.arange(n) >= 1,
            "rounded_up": np.arange(n) < -(-n // 2), "smallest": np.arange(n) >= 1,
            "counted": np.arange(n) < 2}[name]
    scale = 1.0 if name in ("named", "remainder", "rounded_up") else C1 * C1
    return np.where(kept, 2.0 * scale * x, 0.0)


FREE = ("named", "remainder", "rounded_up")  # any size; the others' constants fix it at 4
NAMES = ("halved", "named_before", "remainder_fixed", "smallest", "reshaped", "counted",
         "differenced", "spread") + FREE


def _points(name):
    rng = np.random.default_rng(7)
    sizes = (4, 5, 6, 7) if name in FREE else (4,)
    return [rng.uniform(-1.0, 1.0, n) for n in sizes]


def test_the_hand_gradients_are_the_primals():
    """The gradients by hand are those of central differences of the primal (so that a wrong
    hand value cannot pass below)."""
    for name in NAMES:
        f = getattr(MODULE, name)
        for x in _points(name):
            np.testing.assert_allclose(_want(name, x), _central(f, x), rtol=1e-6, atol=1e-8,
                                       err_msg=name)


@pytest.mark.parametrize("run", ["numpy", "numpy-dask", "jax.jit", "array_api-dask"] + RUNS)
@pytest.mark.parametrize("name", NAMES)
def test_a_size_expression_where_an_int_is_needed(name, run):
    """Built at the call and with the sizes named (``shapes=``), the gradient is the one by hand
    at every size tried."""
    backend, convert, wrap, lazy = _run(run)
    f = getattr(MODULE, name)
    for shapes in (None, {f.__code__.co_varnames[0]: ("n",)}):
        gf = wrap(symgrad.grad(f, shapes=shapes, backend=backend))
        for x in _points(name):
            got = gf(convert(x))
            if lazy:
                got = got.compute()
            got = np.asarray(_to_numpy(got), dtype=float)
            np.testing.assert_allclose(got, _want(name, x), rtol=1e-12, atol=1e-15,
                                       err_msg=f"{name} shapes={shapes} n={len(x)}")

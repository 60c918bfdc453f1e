"""The fast path of a repeated call (``symgrad.dispatch``): the guard of the last call's argument
types and shapes, and the build's code without the conversions of float64 arrays and the size
checks it runs then. Every value is the least-squares gradient derived by hand:
d/dw sum((X w + b - y)^2) / (2 n) = X^T r / n, d/db = sum(r) / n with r = X w + b - y."""
import functools
import traceback

import numpy as np
import pytest

import symgrad


def least_squares(w, b, X, y):
    n = X.shape[0]
    return np.sum((X @ w + b - y) ** 2) / (2 * n)


def inverse_trace(A):
    return np.trace(np.linalg.inv(A))


def by_hand(w, b, X, y):
    r = np.asarray(X, float) @ np.asarray(w, float) + b - np.asarray(y, float)
    return np.asarray(X, float).T @ r / len(r), float(np.sum(r) / len(r))


def target(gradient):
    """What the ``ArrayGradientFunction`` calls: its ``Specialisations`` or a guard."""
    return functools.partial.func.__get__(gradient)


def data(n=5, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(d), 0.25, rng.standard_normal((n, d)), rng.standard_normal(n)


def assert_gradient(got, args):
    want = by_hand(*args)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13, atol=1e-15)
    assert isinstance(got[1], float) and got[1] == pytest.approx(want[1], rel=1e-13)


def test_a_repeated_call_takes_the_guard_and_gives_the_same_numbers():
    g = symgrad.grad(least_squares, wrt=("w", "b"), shapes={"w": ("d",), "X": ("n", "d"),
                                                           "y": ("n",)})
    args = data()
    assert target(g) is g.specialisations  # no call yet
    first = g(*args)
    assert target(g) is not g.specialisations  # the guard of this call
    assert_gradient(first, args)
    for _ in range(3):
        again = g(*args)
        assert_gradient(again, args)
        np.testing.assert_array_equal(again[0], g.function(*args)[0])  # the build's own floats
    other = data(seed=1)  # other values, same types and shapes: the guard still
    assert_gradient(g(*other), other)
    assert g.func is g.specialisations  # what export and the CLI read (its name and docstring)


def test_every_other_kind_of_argument_gives_its_own_numbers():
    """Ints, float32, a non-native byte order, lists, other sizes, a keyword call, in turn: each
    call's guard tests types, shapes and the float64 dtype, so none takes another's code."""
    g = symgrad.grad(least_squares, wrt=("w", "b"))
    w, b, X, y = data()
    calls = [(w, b, X, y), (w.astype(np.float32), b, X.astype(np.float32), y),
             (w, 1, np.round(X * 4).astype(int), y), (w, b, X.astype(">f8"), y.astype(">f8")),
             (list(w), b, X.tolist(), list(y)), data(n=7, d=2), (w, b, X, y)]
    for args in calls + calls[::-1]:
        for _ in range(2):  # the second call goes through the guard of the first
            assert_gradient(g(*args), args)
    got = g(w, b, X=X, y=y)
    assert_gradient(got, (w, b, X, y))
    assert target(g) is g.specialisations  # a keyword call: the next one takes the long way


def test_a_size_that_differs_after_a_good_call_is_still_refused():
    """The size checks are left out only for the shapes of a call that passed them."""
    g = symgrad.grad(least_squares, wrt=("w", "b"))
    w, b, X, y = data()
    g(w, b, X, y)
    g(w, b, X, y)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"y.shape\[0\] is 4; it must be X.shape\[0\] = 5"):
            g(w, b, X, y[:4])
        with pytest.raises(ValueError, match=r"w.shape\[0\] is 2; it must be X.shape\[1\] = 3"):
            g(w[:2], b, X, y)
        with pytest.raises(ValueError, match=r"X.shape\[0\] is 0"):
            g(w, b, X[:0], y[:0])
    assert_gradient(g(w, b, X, y), (w, b, X, y))


def test_a_call_that_raises_leaves_the_next_call_the_long_way():
    g = symgrad.grad(least_squares, wrt=("w", "b"))
    w, b, X, y = data()
    for _ in range(2):
        with pytest.raises(ValueError, match="y.shape"):
            g(w, b, X, y[:4])
        assert target(g) is g.specialisations


def test_the_fast_code_has_the_lines_of_the_source():
    """The build's code without its conversion line, compiled from ``.source`` again: a
    traceback through the fast path shows the line of ``.source`` that raised."""
    g = symgrad.grad(inverse_trace)
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(g(A), -(np.linalg.inv(A) @ np.linalg.inv(A)).T, rtol=1e-14)
    g(A)
    assert target(g) is not g.specialisations
    with pytest.raises(np.linalg.LinAlgError) as raised:
        g(np.ones((2, 2)))  # singular: same type and shape, the guard's code raises
    frames = [f for f in traceback.extract_tb(raised.tb) if f.filename.startswith("<symgrad-")]
    assert frames and "np.linalg.inv(A)" in frames[-1].line
    assert frames[-1].lineno == g.source.splitlines().index(f"    {frames[-1].line}") + 1


def test_a_dask_array_of_the_same_shape_takes_the_lazy_code():
    da = pytest.importorskip("dask.array")
    g = symgrad.grad(least_squares, wrt=("w", "b"))
    args = data()
    g(*args)
    g(*args)
    lazy = g(args[0], args[1], da.from_array(args[2], chunks=2), args[3])
    assert hasattr(lazy[0], "compute")
    assert_gradient((lazy[0].compute(), float(lazy[1])), args)
    assert_gradient(g(*args), args)


def default_row(X, i=1):
    return np.sum(X[i] ** 2)


def test_the_check_of_a_fixed_index_stays_on_the_fast_path():
    """An int default used as an index is fixed when the gradient is built; its check reads the
    argument's value, not its shape, so the code a repeated call runs keeps it."""
    g = symgrad.grad(default_row, wrt="X")
    X = np.arange(6.0).reshape(3, 2)
    want = np.zeros_like(X)
    want[1] = 2 * X[1]
    for _ in range(2):
        np.testing.assert_array_equal(g(X, 1), want)
    assert target(g) is not g.specialisations
    with pytest.raises(ValueError, match="grad_default_row was built for i=1, a range"):
        g(X, 2)  # same types and shapes as the last call: the guard's code

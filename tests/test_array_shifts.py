"""The rows np.flip, np.roll, np.mod / np.remainder (and ``%``), np.reciprocal, np.cbrt and
scipy.special.softmax / log_softmax: against float64 directional central differences (two sizes,
one build), on every installed backend (the numbers of "numpy", rel 1e-12), lazily on Dask
(numpy's lazy code and the Array API), with the derivatives autograd and JAX define (by hand)."""
import math

import numpy as np
import pytest
import scipy.special

import symgrad
from test_arrays import check, mat, vec
from test_backends import RUNS, _close, _library, _to_numpy


def s_flip(X, v):
    return (np.sum(np.flip(X) * np.sin(X)) + np.sum(np.flip(X, axis=1) * X ** 2)
            + np.sum(np.flip(v, 0) * v ** 3) + np.sum(np.flip(X, (0, 1))[0] * X[-1]))


def s_roll(X, v):
    return (np.sum(np.roll(v, 1) * v ** 2) + np.sum(np.roll(X, -2, axis=0) * np.sin(X))
            + np.sum(np.roll(X, (1, 5), axis=(1, 0)) * X ** 3) + np.sum(np.roll(v, 0) * v))


def s_mod(x, y):
    return (np.sum(np.mod(x * 3.0, y) ** 2) + np.sum((x % y) * y) + np.sum(np.remainder(x, 1.5) * x)
            + np.sum(np.mod(2.5, y) * x))


def s_reciprocal(x, y):
    return np.sum(np.reciprocal(y) * x) + np.sum(np.reciprocal(x * x + 1.0))


def s_softmax(X):
    return (np.sum(scipy.special.softmax(X, axis=1) * np.sin(X))
            + np.sum(scipy.special.log_softmax(X, axis=0) ** 2)
            + np.sum(scipy.special.softmax(X) * X) + np.sum(scipy.special.log_softmax(X, axis=-1)))


def s_cbrt(x):
    return np.sum(np.cbrt(x) * x) + np.sum(np.cbrt(x * x + 1.0))


CASES = [
    (s_flip, lambda n: (mat(n), vec(n)), ("X", "v")),
    (s_roll, lambda n: (mat(n), vec(n)), ("X", "v")),
    (s_mod, lambda n: (vec(n, -3.0, 3.0), vec(n, 0.5, 2.0)), ("x", "y")),
    (s_reciprocal, lambda n: (vec(n), vec(n, 0.5, 2.0)), ("x", "y")),
    (s_softmax, lambda n: (mat(n),), ("X",)),
    (s_cbrt, lambda n: (vec(n, 0.2, 2.0) * np.where(np.arange(n) % 2, 1.0, -1.0),), ("x",)),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_row_against_central_differences(f, make, wrt):
    gf = check(f, make, wrt)
    assert "for " not in gf.source


def agrees_through_backend(f, args, wrt, run):
    """The gradient for ``run``'s backend and arrays gives the numbers of "numpy"."""
    backend, convert = _library(run)
    want = _to_numpy(symgrad.grad(f, wrt=wrt)(*args))
    got = symgrad.grad(f, wrt=wrt, backend=backend)(*[convert(a) for a in args])
    assert _close(_to_numpy(got), want)


def agrees_lazily(f, args, wrt, backend, rows):
    """The gradient for ``backend`` on Dask arrays of the ``rows``-row arguments: lazy, and the
    numbers of "numpy" on the NumPy arrays."""
    pytest.importorskip("dask.array")
    if backend == "array_api":
        pytest.importorskip("array_api_compat")
    from test_dask import assert_agrees, chunked, lazily
    want = symgrad.grad(f, wrt=wrt)(*args)
    got = lazily(symgrad.grad(f, wrt=wrt, backend=backend), *[chunked(a, rows) for a in args])
    assert_agrees(got, want if isinstance(want, tuple) else (want,))


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_row_through_backend(f, make, wrt, run):
    agrees_through_backend(f, make(4), wrt, run)


@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_row_under_jax_jit(f, make, wrt):
    jax = pytest.importorskip("jax")
    args = make(4)
    shapes = {name: ("n", "d")[:np.ndim(a)] for name, a in zip(f.__code__.co_varnames, args)}
    gf = symgrad.grad(f, wrt=wrt, backend="jax", shapes=shapes)
    want = symgrad.grad(f, wrt=wrt)(*args)
    assert _close(_to_numpy(jax.jit(gf)(*args)), _to_numpy(want))


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_row_is_lazy_on_dask(f, make, wrt, backend):
    agrees_lazily(f, make(40), wrt, backend, 40)


def test_derivatives_by_hand():
    """roll's adjoint rolls back; a % b: 1 and -floor(a / b) (JAX, autograd); cbrt:
    1 / (3 cbrt(x)^2), inf at 0 as JAX and autograd give; softmax's gradient sums to 0."""
    v = np.array([1.0, 2.0, 3.0, 4.0])
    g = symgrad.grad(lambda x: np.sum(np.roll(x, 1) * v), wrt="x")
    np.testing.assert_array_equal(g(np.zeros(4)), np.roll(v, -1))
    a, b = np.array([7.5, -7.5, 2.0]), np.array([2.0, 2.0, -3.0])
    ga, gb = symgrad.grad(lambda a, b: np.sum(a % b), wrt=("a", "b"))(a, b)
    np.testing.assert_array_equal(ga, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(gb, -np.floor(a / b))
    with np.errstate(divide="ignore"):  # 1 / 0 at 0, as the primal's derivative is there
        got = symgrad.grad(lambda x: np.sum(np.cbrt(x)), wrt="x")(np.array([8.0, -27.0, 0.0]))
    np.testing.assert_allclose(got[:2], [1.0 / 12.0, 1.0 / 27.0], rtol=1e-15)
    assert got[2] == np.inf
    gs = symgrad.grad(lambda X: np.sum(scipy.special.softmax(X, axis=1)[:, 0]), wrt="X")
    assert np.allclose(gs(np.array([[1.0, 2.0], [3.0, -1.0]])).sum(axis=1), 0.0, atol=1e-16)


def _roll_no_axis(X):
    return np.sum(np.roll(X, 1))


def _roll_unknown_shift(x, k):
    return np.sum(np.roll(x, k))


@pytest.mark.parametrize("f, shapes, message", [
    (_roll_no_axis, {"X": ("n", "d")}, "np.roll without an axis flattens the array first"),
    (_roll_unknown_shift, {"x": ("n",), "k": ()}, "must be an int known when the gradient"),
])
def test_refusals_are_clear(f, shapes, message):
    with pytest.raises(symgrad.UnsupportedSyntaxError, match=message) as caught:
        symgrad.grad(f, wrt=list(shapes)[0], shapes=shapes)
    assert caught.value.lineno and caught.value.offset


def _cbrt_after_a_loop(x, y):
    for _ in range(1, 4):
        x += -2
    return math.cbrt(x)


def test_scalar_cbrt_of_a_negative_number_is_the_real_root():
    """Property test build(1822923) (test_value_and_grad_auto_matches_reference): its reference
    read math.cbrt as mpmath's principal (complex) root, so it expected a refusal; the real root
    and its derivative 1 / (3 cbrt(x)^2) are NumPy's, Python's and symgrad's."""
    import mpmath
    from program_ref import _unary_m
    x = 1.3682800343844042
    value, (dx, dy) = symgrad.value_and_grad(_cbrt_after_a_loop, strategy="auto")(x, -2.4659)
    root = math.cbrt(x - 6.0)
    assert value == pytest.approx(root, rel=1e-15) and dy == 0.0
    assert dx == pytest.approx(1.0 / (3.0 * root * root), rel=1e-14)
    assert float(_unary_m("cbrt", [mpmath.mpf(x - 6.0)])) == pytest.approx(root, rel=1e-15)

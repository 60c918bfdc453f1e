"""A branch's adjoint is the 0/1 mask of the side taken; a product with it is printed as a where
(an ``if`` in ``math`` code) of the product, so the side not taken is exactly 0 however the other
side's derivative evaluates there (array fuzzer 35-407: ``where(c, 1.0, 0.0) * d`` was nan where
``d`` is the undefined derivative of ``np.std`` at zero spread, 0 * nan)."""
import math

import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient
from test_array_found_wide import _convert as _as


def branch_of_a_spread(X, v):
    c = X[-1]
    if c > 0.1:
        r = np.einsum('ij,ij->', v, np.std((X[..., None, None] * X[None, :, None])
                                           * np.full((1, 1, X.shape[0]), 0.5), axis=2))
    else:
        r = 0.5
    return r + 0.5


def branch_of_a_root(x, y):
    if x > 0.0:
        r = math.sqrt(y) * x
    else:
        r = 0.5
    return r


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "array_api"])
def test_the_side_not_taken_is_exactly_zero(backend):
    if backend != "numpy":
        pytest.importorskip({"jax": "jax", "torch": "torch", "array_api": "array_api_compat"}[
            backend], reason=f"pip install -e '.[{backend.replace('_', '-')}]'")
    X = np.array([-0.5749987924583171, -0.7932942786317674])  # c = X[-1] <= 0.1: r = 0.5
    v = np.array([[0.9965160696693756, 0.49027401224507505],
                  [0.7163553551640149, -0.45746696128103403]])
    g = symgrad.grad(branch_of_a_spread, shapes={"X": ("n",), "v": ("n", "n")}, backend=backend)
    with np.errstate(all="ignore"):
        dX, dv = (np.asarray(a) for a in g(X, v))
    np.testing.assert_array_equal(dX, np.zeros(2))  # f is 1.0 near X: d/dX = 0 (was nan)
    np.testing.assert_array_equal(dv, np.zeros((2, 2)))


def test_math_code_does_not_compute_the_side_not_taken():
    g = symgrad.grad(branch_of_a_root)
    assert g(-1.0, 0.0) == (0.0, 0.0)  # f = 0.5 for x <= 0
    assert g(2.0, 4.0) == (2.0, 0.5)  # sqrt(y), x / (2 sqrt(y)) by hand


def branch_of_mean_norms(x, s):
    if s > 0.0:
        r = np.log(np.mean(np.linalg.norm(x, axis=1)))
    else:
        r = 0.5
    return r + s


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "array_api"])
def test_a_mask_of_a_derivative_is_applied_to_the_whole_product(backend):
    """The branch's adjoint is ``where(s > 0, 1 / total, 0)`` here (not a 0/1 mask): its product
    with the norm's derivative ``x / norm`` is the where of the product too. At s = -1 (r = 0.5,
    d/dx = 0 by hand) and x = 0 (norm 0, the side not taken's derivative 0/0) it was
    ``where(...) * x * (1 / norm)``, nan in every entry (array fuzzer 100-196, wide)."""
    if backend != "numpy":
        pytest.importorskip({"jax": "jax", "torch": "torch", "array_api": "array_api_compat"}[
            backend], reason=f"pip install -e '.[{backend.replace('_', '-')}]'")
    g = symgrad.grad(branch_of_mean_norms, shapes={"x": ("n", "d")}, backend=backend)
    with np.errstate(all="ignore"):
        dx, ds = (np.asarray(a) for a in g(_as(backend, np.zeros((2, 3))), -1.0))
    np.testing.assert_array_equal(dx, np.zeros((2, 3)))
    assert float(ds) == 1.0
    x = np.array([[0.3, -0.4, 1.2], [0.5, 0.0, -1.2]])  # the side taken: norms 1.3, 1.3
    dx, ds = (np.asarray(a) for a in g(_as(backend, x), 0.5))
    np.testing.assert_allclose(dx, x / (2 * 1.3 * 1.3), rtol=1e-12)  # x_i / (n |x_i| mean)
    assert float(ds) == 1.0


def spread_of_a_column(v):
    return np.std(v[:, 1] - stop_gradient(v[:, 1]))  # zero spread at every point


@pytest.mark.parametrize("shapes", [None, {"v": ("n", "n")}, {"v": (3, 3)}],
                         ids=["call-time", "named", "fixed"])
@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "array_api"])
def test_entries_never_read_are_zero_at_an_undefined_point(backend, shapes):
    """29-260: at zero spread the derivative of np.std is 0 * inf = nan for the entries read; an
    entry of v the code never reads has derivative 0 (as JAX's scatter gives). The factor
    ``1 / np.sqrt(...)`` (inf) multiplied the whole scattered gradient in the shapes= builds,
    nan in every entry of v; it is applied to the scattered pieces now, as at the call."""
    if backend != "numpy":
        pytest.importorskip({"jax": "jax", "torch": "torch", "array_api": "array_api_compat"}[
            backend], reason=f"pip install -e '.[{backend.replace('_', '-')}]'")
    v = np.arange(9.0).reshape(3, 3) / 10
    g = symgrad.grad(spread_of_a_column, shapes=shapes, backend=backend)
    with np.errstate(all="ignore"):
        got = np.asarray(g(_as(backend, v)))
    assert np.all(np.isnan(got[:, 1]))
    assert np.array_equal(np.delete(got, 1, axis=1), np.zeros((3, 2)))




def spread_of_a_where(X, v):
    return np.std(np.where(v[:, 1, 1] <= 0.1, np.exp(0.2 * X), v[:, 1, 1] * X), ddof=1)


def spread_of_a_product_of_wheres(X, v):
    w = v[:, 1, 1]
    return np.std(np.where(w <= 0.1, np.exp(0.2 * X), w * X) * np.where(w <= 0.1, 1.0, w),
                  ddof=1)


@pytest.mark.parametrize("f", [spread_of_a_where, spread_of_a_product_of_wheres])
@pytest.mark.parametrize("shapes", [None, {"X": (), "v": ("n", 2, 4)}, {"X": (), "v": (2, 2, 4)}],
                         ids=["call-time", "named", "fixed"])
@pytest.mark.parametrize("backend", ["numpy", "jax", "torch"])
def test_a_factor_of_values_goes_into_the_branch(backend, shapes, f):
    """78-762: both elements take exp(0.2 X) (v[:, 1, 1] <= 0.1), so the spread is 0 and
    np.std's factor 1 / sqrt(squares) is inf. The side not taken (``v[:, 1, 1] * X``) has
    derivative ``where(c, 0.0, X)``; the factor multiplied it from outside in the build with
    fixed shapes (2 - 1 = 1 made the two terms' factors one): 0 * inf = nan in dv[:, 1, 1],
    where the build at the call and JAX give 0. d/dX is nan (no derivative at zero spread)."""
    if backend != "numpy":
        pytest.importorskip(backend)
    X = -0.1
    v = np.zeros((2, 2, 4))
    v[:, 1, 1] = [-0.5, 0.05]
    g = symgrad.grad(f, shapes=shapes, backend=backend)
    with np.errstate(all="ignore"):
        dX, dv = (np.asarray(a) for a in g(X, _as(backend, v)))
    assert np.isnan(dX)
    np.testing.assert_array_equal(dv, np.zeros((2, 2, 4)))
    if f is spread_of_a_where:  # one element on each side: std = |a - b| / sqrt(2)
        v[:, 1, 1] = [-0.5, 0.3]  # a = exp(0.2 X) > b = 0.3 X
        dX, dv = (np.asarray(a) for a in g(X, _as(backend, v)))
        a = math.exp(0.2 * X)
        assert math.isclose(float(dX), (0.2 * a - 0.3) / math.sqrt(2), rel_tol=1e-12)
        want = np.zeros((2, 2, 4))
        want[1, 1, 1] = -X / math.sqrt(2)
        np.testing.assert_allclose(dv, want, rtol=1e-12, atol=0)
        step = 1e-6
        up, down = v.copy(), v.copy()
        up[1, 1, 1] += step
        down[1, 1, 1] -= step
        assert math.isclose((f(X, up) - f(X, down)) / (2 * step), want[1, 1, 1], rel_tol=1e-7)


def reversed_spread(X, v):
    w = v[:, 1, 1]
    return np.std(np.where(w <= 0.1, np.exp(0.2 * X), w * X)[::-1], ddof=1)


def tail_spread(X, v):
    w = v[:, 1, 1]
    return np.std(np.where(w <= 0.1, np.exp(0.2 * X), w * X)[1:])


def gathered_spread(X, v):
    w = v[:, 1, 1]
    return np.std(np.where(w <= 0.1, np.exp(0.2 * X), w * X)[np.array([1, 0, 1])])


def column_spreads(X, v):
    w = v[:, 1, :2]
    return np.sum(np.std(np.where(w <= 0.1, np.exp(0.2 * X), w * X)[::-1], axis=0))


def transposed_spread(X, v):
    w = v[:, 1, :2]
    return np.std(np.where(w <= 0.1, np.exp(0.2 * X), w * X).T[::-1])


def joined_spread(X, v):
    w = v[:, 1, 1]
    e = np.where(w <= 0.1, np.exp(0.2 * X), w * X)
    return np.std(np.concatenate([e[:, None], e[::-1, None]]).reshape(-1))


def branch_spread(X, v):
    w = v[:, 1, 1]
    if X > 0.0:
        e = w * X
    else:
        e = np.exp(0.2 * X) * np.ones(w.shape[0])
    return np.std(e[::-1], ddof=1)


def _jax_gradient(f, X, v):
    """JAX's gradient of ``f`` (its source run with jax.numpy; ``if X > 0.0`` as a where)."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    if f is branch_spread:
        def jf(X, v):
            e = jnp.where(X > 0.0, v[:, 1, 1] * X, jnp.exp(0.2 * X) * jnp.ones(v.shape[0]))
            return jnp.std(e[::-1], ddof=1)
    else:
        jf = lambda X, v: f.__wrapped_jax__(X, v, jnp)  # noqa: E731
    return [np.asarray(a) for a in jax.grad(jf, argnums=(0, 1))(X, jnp.asarray(v))]


def _with_numpy_of(f):
    """``f``'s body with ``np`` bound to another module (JAX's numpy), for the reference."""
    import types
    code = f.__code__

    def run(X, v, module):
        scope = dict(f.__globals__, np=module)
        return types.FunctionType(code, scope)(X, v)
    f.__wrapped_jax__ = run
    return f


VIEWED = [_with_numpy_of(f) for f in (reversed_spread, tail_spread, gathered_spread,
                                      column_spreads, transposed_spread, joined_spread)] + [
    branch_spread]
BUILDS = [("numpy", None), ("numpy", {"X": (), "v": ("n", 2, 4)}),
          ("numpy", {"X": (), "v": (3, 2, 4)}), ("jax", {"X": (), "v": ("n", 2, 4)}),
          ("torch", {"X": (), "v": ("n", 2, 4)}), ("array_api", {"X": (), "v": ("n", 2, 4)})]


@pytest.mark.parametrize("backend,shapes", BUILDS,
                         ids=["numpy-call-time", "numpy-named", "numpy-fixed", "jax", "torch",
                              "array_api"])
@pytest.mark.parametrize("f", VIEWED, ids=lambda f: f.__name__)
def test_a_where_seen_through_a_view_selects_its_cotangent(f, backend, shapes):
    """The cotangent of np.where is selected, as JAX's ``select(c, g, 0)``, whatever view lies
    between it and the reduction (a reversal, a slice, a gather, a transpose, a concatenation, a
    reshape) or when an ``if`` chooses the array. Every element takes ``exp(0.2 X)`` at ``v0``:
    zero spread, np.std's cotangent is nan (d/dX nan), and the side not taken (``w * X``) has
    derivative 0 in v. It was ``g * where(w <= 0.1, 0.0, X)[::-1]`` (the where indexed to the
    scatter's piece), nan * 0 = nan in dv; now ``where(w[::-1] <= 0.1, 0.0, X * g)``. At ``v1``
    the spread is not 0: JAX's values and central differences."""
    if backend != "numpy":
        pytest.importorskip({"jax": "jax", "torch": "torch", "array_api": "array_api_compat"}[
            backend], reason=f"pip install -e '.[{backend.replace('_', '-')}]'")
    X = -0.1
    v0 = np.zeros((3, 2, 4))
    v0[:, 1, :2] = [[0.02, -0.5], [-0.3, 0.05], [0.1, -0.2]]
    g = symgrad.grad(f, wrt=("X", "v"), shapes=shapes, backend=backend)
    with np.errstate(all="ignore"):
        dX, dv = (np.asarray(a) for a in g(X, _as(backend, v0)))
        jX, jv = _jax_gradient(f, X, v0)
    if f in (reversed_spread, tail_spread):  # NumPy's spread is exactly 0 (JAX's mean of 3
        assert f(X, v0) == 0.0 and np.isnan(dX)  # equal floats is not: 1e-16, d/dX finite)
    np.testing.assert_array_equal(dv, np.zeros((3, 2, 4)))
    np.testing.assert_array_equal(jv, np.zeros((3, 2, 4)))
    v1 = v0.copy()
    v1[:, 1, :2] = [[0.4, -0.5], [-0.3, 0.35], [0.15, 0.7]]
    if f is branch_spread:
        X = 0.3  # the side w * X
    dX, dv = (np.asarray(a) for a in g(X, _as(backend, v1)))
    jX, jv = _jax_gradient(f, X, v1)
    np.testing.assert_allclose(dX, jX, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dv, jv, rtol=1e-12, atol=1e-15)
    step = 1e-6
    for k in np.ndindex(3, 2):
        up, down = v1.copy(), v1.copy()
        up[k[0], 1, k[1]] += step
        down[k[0], 1, k[1]] -= step
        assert math.isclose((f(X, up) - f(X, down)) / (2 * step), dv[k[0], 1, k[1]],
                            rel_tol=1e-6, abs_tol=1e-9)
    assert math.isclose((f(X + step, v1) - f(X - step, v1)) / (2 * step), dX, rel_tol=1e-6,
                        abs_tol=1e-9)

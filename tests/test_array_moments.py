"""np.mean, np.var, np.std and np.linalg.norm return the primal's floats, at every kind of shape.

NumPy's std is ``sqrt(squares / divisor)``; SymPy keeps ``sqrt(squares / 3)`` as
``sqrt(3)*sqrt(squares)/3``, another float for about a third of the points. Printed so, equal
inner stds came out bit-equal where NumPy's are not, and ``np.std(np.std(X, axis=0))`` was 0.0
(gradient nan) where the primal is 5.6e-17 (JAX's gradient ~1e-16). The value of
``value_and_grad`` is compared with the primal bit for bit (np.linalg.norm of a whole array: to
4 ulp, NumPy's ``x.dot(x)`` sums in another order than its ``np.sum``); the gradients with
JAX's and with central differences.
"""
import math

import numpy as np
import pytest

import symgrad


def std_columns(X):
    return np.std(X, axis=0)[0]


def std_rows_ddof(X):
    return np.std(X, axis=1, ddof=1)[1]


def std_all(X):
    return np.std(X)


def std_method_kept(X):
    return X.std(axis=0, keepdims=True)[0, 2]


def var_columns(X):
    return np.var(X, axis=0)[0]


def var_ddof(X):
    return np.var(X, ddof=1)


def mean_rows(X):
    return np.mean(X, axis=1)[1]


def norm_rows(X):
    return np.linalg.norm(X, axis=1)[1]


def norm_all(X):
    return np.linalg.norm(X)


def std_of_std(X):
    return np.std(np.std(X, axis=0))


PROGRAMS = [std_columns, std_rows_ddof, std_all, std_method_kept, var_columns, var_ddof,
            mean_rows, norm_rows, norm_all, std_of_std]
SHAPES = [None, {"X": ("n", "d")}, {"X": (3, 5)}, {"X": (7, 3)}]
POINTS = 60


def _points(shape):
    rng = np.random.default_rng(131)
    return [rng.normal(size=shape) * rng.choice([1.0, 3.0, 0.1]) for _ in range(POINTS)]


def test_sympys_root_of_a_third_is_another_float():
    """The float effect the tests are about: the two forms differ at some of the points."""
    squares = np.array([np.sum((x - np.mean(x, axis=0)) ** 2, axis=0) for x in _points((3, 5))])
    assert np.any(np.sqrt(3.0) * np.sqrt(squares) / 3.0 != np.sqrt(squares / 3.0))


@pytest.mark.parametrize("shapes", SHAPES, ids=["call-time", "named", "fixed-3x5", "fixed-7x3"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_the_value_is_the_primal_float(f, shapes):
    shape = (7, 3) if shapes == {"X": (7, 3)} else (3, 5)
    g = symgrad.value_and_grad(f, shapes=shapes)
    for X in _points(shape):
        value, _ = g(X)
        want = f(X)
        if f is norm_all:  # NumPy: x.dot(x), summed in another order than np.sum's
            assert abs(value - want) <= 4 * np.spacing(want), (X, value, want)
        else:
            assert value == want, (X, value, want)


def _with_module(f, module):
    import types
    return types.FunctionType(f.__code__, dict(f.__globals__, np=module))


# the inner stds of 131-3416's program: equal in exact arithmetic, not in float
NEARLY_EQUAL = np.array([[0.44947348611096016, 0.9357881385297089, -0.26794181318691823],
                         [-0.9912377080336261, 0.28803838979200336, 0.5704447524718022],
                         [-0.3456113729716739, -0.16102882086605774, -0.5183725314362331]])


def nested_spread(X):
    return np.std(np.std(X[:, ::-1, None] + X[None, None, :, -1], axis=2))


BUILDS = [("numpy", None), ("numpy", {"X": ("n", "n")}), ("numpy", {"X": (3, 3)}),
          ("jax", {"X": (3, 3)}), ("torch", {"X": (3, 3)}), ("array_api", {"X": (3, 3)}),
          ("jax", {"X": ("n", "n")}), ("torch", {"X": ("n", "n")})]


@pytest.mark.parametrize("backend,shapes", BUILDS, ids=[
    "numpy-call-time", "numpy-named", "numpy-fixed", "jax-fixed", "torch-fixed",
    "array_api-fixed", "jax-named", "torch-named"])
def test_equal_stds_up_to_rounding_keep_their_spread(backend, shapes):
    """NumPy's inner stds differ in the last bit: the outer std is 5.6e-17, not 0, on every
    backend (three elements: each library sums them in NumPy's order), and its gradient is
    rounding noise (JAX's is ~1e-16), not ``0 * inf = nan``."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    pytest.importorskip({"numpy": "numpy", "jax": "jax", "torch": "torch",
                         "array_api": "array_api_compat"}[backend])
    primal = nested_spread(NEARLY_EQUAL)
    assert primal == 5.551115123125783e-17
    X = NEARLY_EQUAL
    if backend == "torch":
        X = pytest.importorskip("torch").tensor(NEARLY_EQUAL)
    value, dX = symgrad.value_and_grad(nested_spread, shapes=shapes, backend=backend)(X)
    assert float(value) == primal
    want = np.asarray(jax.grad(_with_module(nested_spread, jax.numpy))(NEARLY_EQUAL))
    assert np.all(np.abs(want) < 1e-15)
    dX = np.asarray(dX)
    assert np.all(np.isfinite(dX)) and np.all(np.abs(dX) < 1e-15), dX


@pytest.mark.parametrize("shapes", SHAPES, ids=["call-time", "named", "fixed-3x5", "fixed-7x3"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_the_gradient_is_jaxs(f, shapes):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    shape = (7, 3) if shapes == {"X": (7, 3)} else (3, 5)
    X = _points(shape)[0]
    _, dX = symgrad.value_and_grad(f, shapes=shapes)(X)
    want = np.asarray(jax.grad(_with_module(f, jax.numpy))(X))
    np.testing.assert_allclose(dX, want, rtol=1e-12, atol=1e-14)
    step = 1e-6
    for k in [(0, 0), (1, 2), (2, 1)]:
        up, down = X.copy(), X.copy()
        up[k] += step
        down[k] -= step
        assert math.isclose((f(up) - f(down)) / (2 * step), dX[k], rel_tol=1e-6, abs_tol=1e-9)

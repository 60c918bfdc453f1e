"""``np.inf``, ``-np.inf`` and ``math.inf`` as constants (they were refused: "infinite or nan
constants are not supported"): where they are selected away (``np.where(mask, x, -np.inf)``
before ``logsumexp``, ``softmax``, ``np.max``), taken the extremum of (``np.clip(x, -np.inf, hi)``,
``max(-math.inf, v)``) or compared (``x < np.inf``), against float64 directional central
differences, on every installed backend (the numbers of "numpy"), and lazily on Dask; arithmetic
with one (``x * np.inf``: inf or nan for every input) and nan constants are refused, clearly."""
import math

import numpy as np
import pytest
import scipy.special

import symgrad
from test_arrays import check, mat, vec
from test_array_shifts import agrees_lazily, agrees_through_backend
from test_backends import RUNS, _library, _to_numpy

MASK = np.array([True, False, True, True, False])


def masked_logsumexp(x):
    return scipy.special.logsumexp(np.where(MASK, x, -np.inf)) + np.sum(x * x)


def masked_max(x):
    return np.max(np.where(x > 0.0, x, -np.inf)) + np.sum(x ** 2)


def bounds(x):
    return (np.sum(np.clip(x, -np.inf, 0.5) ** 2) + np.sum(np.minimum(x, np.inf) * x)
            + np.sum(np.maximum(x, -math.inf)) + np.sum(np.where(x < np.inf, x * 2.0, 0.0)))


def masked_softmax(X):
    return np.sum(scipy.special.softmax(np.where(X > -0.5, X, -np.inf), axis=1) * X)


def masked_exp(x):
    return np.sum(np.exp(np.where(x > 0.0, x, -np.inf)) * x)


def running_best(x, y):
    best = -math.inf
    for v in (x * y, x + y, x - y):
        best = max(best, v)
    return best


CASES = [
    (masked_logsumexp, lambda n: (vec(5),), ("x",)),
    (masked_max, lambda n: (vec(n) + 0.2,), ("x",)),
    (bounds, lambda n: (vec(n),), ("x",)),
    (masked_softmax, lambda n: (mat(n) + 0.3,), ("X",)),
    (masked_exp, lambda n: (vec(n),), ("x",)),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_against_central_differences(f, make, wrt):
    check(f, make, wrt)


def test_a_running_maximum_from_minus_infinity():
    # max(x y, x + y, x - y) at (0.7, -0.4): x - y = 1.1 is the largest: (1, -1)
    assert symgrad.grad(running_best)(0.7, -0.4) == (1.0, -1.0)
    assert symgrad.grad(running_best)(2.0, 3.0) == (3.0, 2.0)  # x y = 6


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_through_backend(f, make, wrt, run):
    agrees_through_backend(f, make(5), wrt, run)


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
@pytest.mark.parametrize("f, make, wrt", CASES, ids=IDS)
def test_lazy_on_dask(f, make, wrt, backend):
    agrees_lazily(f, make(5), wrt, backend, 5)


def below_infinity(x):
    if x < math.inf:
        return x * x
    return 3.0 * x


def compared_with_infinities(x):
    return np.sum(np.where(x < np.inf, x * x, 3.0 * x) + np.where(x != -np.inf, x, 5.0 * x)
                  + np.where(np.inf > x, 0.0, x))


AT_INFINITIES = np.array([1.0, np.inf, -np.inf])


def test_a_comparison_with_infinity_takes_the_primals_branch_at_infinity():
    """``x < math.inf`` is False at x = inf: SymPy folded it True (real symbols are finite), so
    the gradient took the other branch than the primal (2 x = inf where the primal's branch
    3 x has derivative 3). The infinity is kept in the comparison, printed as written."""
    g = symgrad.grad(below_infinity)
    assert (g(2.0), g(math.inf), g(-math.inf)) == (4.0, 3.0, -math.inf)
    assert "math.inf" in g.source
    # per entry: [2 + 1 + 0, 3 + 1 + 1, -inf + 5 + 0]
    np.testing.assert_array_equal(symgrad.grad(compared_with_infinities)(AT_INFINITIES),
                                  [3.0, 5.0, -np.inf])


@pytest.mark.parametrize("run", RUNS)
def test_a_comparison_with_infinity_at_infinity_through_backend(run):
    backend, convert = _library(run)
    got = symgrad.grad(compared_with_infinities, backend=backend)(convert(AT_INFINITIES))
    np.testing.assert_array_equal(_to_numpy(got), [3.0, 5.0, -np.inf])


def times_infinity(x):
    return np.sum(x * np.inf)


def shifted_infinity(x):
    return x - math.inf


def nan_constant(x):
    return np.sum(np.where(x > 0.0, x, np.nan))


@pytest.mark.parametrize("f, message", [
    (times_infinity, "arithmetic with an infinite constant is not supported"),
    (shifted_infinity, "arithmetic with an infinite constant is not supported"),
    (nan_constant, "nan constants are not supported"),
])
def test_refusals_name_the_constant(f, message):
    with pytest.raises(symgrad.UnsupportedSyntaxError, match=message) as caught:
        symgrad.grad(f, wrt="x", shapes={"x": ("n",)} if f is not shifted_infinity else None)(
            np.ones(3) if f is not shifted_infinity else 1.0)
    assert caught.value.lineno and caught.value.offset


def emptied_rows(X, y):
    """Row 0 of X_EMPTIED has no element below 0: SciPy's logsumexp of it is -inf, its maximum
    with -1 is -1."""
    z = np.where(X < 0.0, X, -np.inf)
    return np.sum(np.maximum(scipy.special.logsumexp(z, axis=1), -1.0) * y) + np.sum(y * y)


def emptied_vector(x, y):
    return np.exp(scipy.special.logsumexp(np.where(x < -5.0, x, -np.inf))) * y + y * y


def branch_on_emptied(x, y):
    c = scipy.special.logsumexp(np.where(x < -5.0, x, -np.inf))  # -inf: the first branch
    if c < 0.0:
        return np.sum(x * x) * y
    return y


def emptied_product(X):
    """Nothing below -5: every row's logsumexp is -inf, tanh of it -1: the gradient is 2 X."""
    z = np.where(X < -5.0, X[:, :1] * X, -np.inf)
    return np.sum(np.tanh(scipy.special.logsumexp(z, axis=1))) + np.sum(X * X)


def emptied_roll(v):
    """logaddexp(-inf, v . v) = v . v: the gradient is 2 v."""
    return np.logaddexp(scipy.special.logsumexp(np.where(v < -5.0, np.roll(v, 1), -np.inf)),
                        np.sum(v * v))


X_EMPTIED, Y_EMPTIED = np.array([[0.1, 0.5], [-0.3, 0.2]]), np.array([0.7, 0.2])
# d/dy = [max(-inf, -1) + 2 y0, max(-0.3, -1) + 2 y1]; d/dX: y1 times the softmax of row 1's
# one element kept (1) at X[1, 0], 0 elsewhere. exp(-inf) = 0, so d/dy of the second is 2 y
EMPTIED = [(emptied_rows, (X_EMPTIED, Y_EMPTIED), ([[0.0, 0.0], [0.2, 0.0]], [0.4, 0.1])),
           (emptied_vector, (np.array([0.1, 0.5]), 0.7), ([0.0, 0.0], 1.4)),
           # (2 x y, x . x): the gradient took the other branch, (0, 1) (array fuzzer 81-720)
           (branch_on_emptied, (np.array([0.1, 0.5]), 0.7), ([0.14, 0.7], 0.26)),
           # a factor of the kept side (X[:, :1]) or a roll of it: 1 / total * 0 was 0 / 0
           (emptied_product, (X_EMPTIED,), (2.0 * X_EMPTIED,)),
           (emptied_roll, (np.array([0.3, -0.2, 0.5]),), ([0.6, -0.4, 1.0],))]
WRT = {emptied_rows: ("X", "y"), emptied_product: ("X",), emptied_roll: ("v",)}


def _central(f, args, k, h=1e-6):
    a = np.asarray(args[k], dtype=float)
    out = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        up, down = list(args), list(args)
        up[k], down[k] = a + e, a - e
        out[i] = (f(*up) - f(*down)) / (2 * h)
    return out


@pytest.mark.parametrize("run", ["numpy"] + RUNS)
@pytest.mark.parametrize("f, args, want", EMPTIED, ids=[c[0].__name__ for c in EMPTIED])
def test_logsumexp_of_only_minus_infinity_is_minus_infinity(f, args, want, run):
    """A slice of ``np.where(mask, x, -np.inf)`` with no element kept: SciPy shifts it by 0
    (its largest is not finite), so its logsumexp is log(0) = -inf. The gradient shifted it by
    -inf, -inf - -inf = nan: every derivative through its value was nan (d/dy of
    ``max(logsumexp(z), -1) * y`` nan where it is -1), and a branch on it took the side the
    primal does not (nan < 0 is False, -inf < 0 True: array fuzzer 81-720). Its derivative
    there, exp(x - shift) / total, is 0 / 0: taken as 0 (nan through a factor of the kept side,
    ``np.where(c, a * X, -np.inf)``, or a roll, where the mask is not around the product: 80-35,
    81-627)."""
    with np.errstate(all="ignore"):
        for k, w in enumerate(want):
            np.testing.assert_allclose(_central(f, args, k), w, atol=1e-8)
    backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
    with np.errstate(all="ignore"):
        got = symgrad.grad(f, wrt=WRT.get(f, ("x", "y")), backend=backend)(
            *[convert(a) for a in args])
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(_to_numpy(g), w, rtol=1e-13, atol=1e-13)


def rounded_self_comparison(z):
    """Scalar fuzzer 183-0-419: ``z >= z`` is read as ``z >= -inf`` (False at nan only), whose
    infinity is compared, not computed with: it was refused as "arithmetic with an infinite
    constant". round(0.25) is 0: the value is z, the derivative 1."""
    return round(0.25 if z >= z else 0) + z


def scaled_self_comparison(z):
    """``z <= z`` True at every float but nan: 2 z^2, derivative 4 z."""
    return (2.0 if z <= z else 3.0) * z * z


@pytest.mark.parametrize("f, derivative", [
    (rounded_self_comparison, lambda z: 1.0),
    (scaled_self_comparison, lambda z: 4.0 * z),
])
@pytest.mark.parametrize("z", [-1.3, 0.0, 0.7, 2.5])
def test_an_infinity_only_compared_is_not_refused(f, derivative, z):
    value, grad = symgrad.value_and_grad(f)(z)
    assert value == f(z)
    assert grad == derivative(z)
    h = 1e-6
    assert math.isclose(grad, (f(z + h) - f(z - h)) / (2 * h), rel_tol=1e-6, abs_tol=1e-8)

"""The rows added to the array table after the core: ``scipy.special`` functions, ``np.linalg.solve``,
``np.triu_indices`` / ``np.tril_indices``, and the value-only functions (``np.argmax``, ``np.sort``
...) accepted where only their value is needed.

Each row: central differences along random directions in float64 at two sizes (autograd's
``check_grads`` model, ``test_arrays.check``), the gradient's shape and dtype asserted there, and a
hand-derived value where the formula is short.
"""
import math

import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient
from test_arrays import check, mat, vec

scipy_special = pytest.importorskip("scipy.special")
from scipy import special  # noqa: E402
from scipy.special import expit, logsumexp  # noqa: E402

RNG = np.random.default_rng(8)
UPPER = np.triu_indices(3, 1)
SHIFT = np.array([0, 1, 1, 2])


# --- scipy.special, elementwise ----------------------------------------------------------------
def s_erf(x):
    return np.sum(scipy_special.erf(x) * x)


def s_erfc(x):
    return np.sum(special.erfc(2.0 * x) ** 2)


def s_expit(x):
    return np.sum(expit(x) * x)


def s_logit(p):
    return np.sum(scipy_special.logit(p) ** 2)


def s_xlogy(x, y):
    return np.sum(scipy_special.xlogy(x, y))


def s_gammaln(x):
    return np.sum(special.gammaln(x) * x)


def s_digamma(x):
    return np.sum(scipy_special.digamma(x) + special.psi(2.0 * x))


def s_matrix(X, w):
    return np.mean(special.expit(X @ w) + special.erf(X).sum(axis=1))


SPECIAL = [
    (s_erf, lambda n: (vec(n),), ("x",)),
    (s_erfc, lambda n: (vec(n),), ("x",)),
    (s_expit, lambda n: (vec(n, -4.0, 4.0),), ("x",)),
    (s_logit, lambda n: (vec(n, 0.1, 0.9),), ("p",)),
    (s_xlogy, lambda n: (vec(n), vec(n, 0.5, 2.0)), ("x", "y")),
    (s_gammaln, lambda n: (vec(n, 0.5, 3.0),), ("x",)),
    (s_digamma, lambda n: (vec(n, 0.5, 3.0),), ("x",)),
    (s_matrix, lambda n: (mat(n), vec(4)), ("X", "w")),
]


@pytest.mark.parametrize("f, make, wrt", SPECIAL, ids=[c[0].__name__ for c in SPECIAL])
def test_special_row_against_central_differences(f, make, wrt):
    gf = check(f, make, wrt)
    assert "for " not in gf.source


def test_special_hand_values():
    x = np.array([-1.5, 0.0, 0.5, 2.0])
    s = expit(x)
    assert np.allclose(symgrad.grad(lambda_free_expit)(x), s * (1.0 - s), rtol=1e-14)
    p = np.array([0.2, 0.5, 0.9])
    assert np.allclose(symgrad.grad(logit_sum)(p), 1.0 / (p * (1.0 - p)), rtol=1e-14)
    y = np.array([0.5, 1.0, 3.0])
    dx, dy = symgrad.grad(s_xlogy)(p, y)
    assert np.allclose(dx, np.log(y), rtol=1e-14) and np.allclose(dy, p / y, rtol=1e-14)
    g = symgrad.grad(gammaln_sum)(y)
    assert np.allclose(g, scipy_special.digamma(y), rtol=1e-14)
    assert np.allclose(symgrad.grad(digamma_sum)(y), scipy_special.polygamma(1, y), rtol=1e-14)
    assert np.allclose(symgrad.grad(erf_sum)(x), 2.0 / math.sqrt(math.pi) * np.exp(-x * x),
                       rtol=1e-14)
    # trigamma(1) = pi^2 / 6 (the Basel sum), by hand
    assert symgrad.grad(digamma_sum)(np.array([1.0]))[0] == pytest.approx(math.pi ** 2 / 6,
                                                                          rel=1e-14)


def lambda_free_expit(x):
    return np.sum(expit(x))


def logit_sum(p):
    return np.sum(scipy_special.logit(p))


def gammaln_sum(x):
    return np.sum(scipy_special.gammaln(x))


def digamma_sum(x):
    return np.sum(scipy_special.digamma(x))


def erf_sum(x):
    return np.sum(scipy_special.erf(x))


def scalar_erf(x):
    return math.erf(x) * x


def scalar_special(x, y):
    return scipy_special.xlogy(x, y) + scipy_special.expit(x) + special.gammaln(y)


def test_scalar_code_with_scipy_special():
    g = symgrad.grad(scalar_special)
    x, y = 0.7, 1.9
    dx, dy = g(x, y)
    s = expit(x)
    assert dx == pytest.approx(math.log(y) + s * (1 - s), rel=1e-14)
    assert dy == pytest.approx(x / y + scipy_special.digamma(y), rel=1e-14)
    assert "float(scipy.special.digamma(y))" in g.source  # float code returns floats
    value, grads = symgrad.value_and_grad(scalar_special)(x, y)
    assert type(value) is float and all(type(v) is float for v in grads)
    assert value == scalar_special(x, y)


def test_numpy_backend_spells_erf_with_scipy(tmp_path):
    g = symgrad.grad(scalar_erf, backend="numpy")
    assert "scipy.special.erf(x)" in g.source
    x = np.array([-0.5, 0.25, 1.5])
    expected = 2.0 / math.sqrt(math.pi) * np.exp(-x * x) * x + scipy_special.erf(x)
    assert np.allclose(g(x), expected, rtol=1e-14)
    path = tmp_path / "erf_grad.py"
    symgrad.export(g, path)
    text = path.read_text()
    assert "import numpy as np\nimport scipy.special\n" in text
    # SciPy is imported only by code that calls it
    plain = tmp_path / "plain.py"
    symgrad.export(symgrad.grad(lambda_free_expit_free, backend="numpy"), plain)
    assert "scipy" not in plain.read_text()


def scalar_erf_again(x):
    return math.erf(x) * x * 2.0


def lambda_free_expit_free(x):
    return x * x


def test_without_scipy_the_error_names_the_package(monkeypatch):
    import importlib.util

    from symgrad import cache
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "scipy" else real(name, *a))
    with pytest.raises(symgrad.OptionError, match=r"scipy.special.erf.*SciPy: pip install scipy"):
        symgrad.grad(scalar_erf_again, backend="numpy", cache=False)
    # a stored gradient compiled where SciPy is missing: the same package named
    source = "def g(x):\n    return scipy.special.erf(x)\n"
    monkeypatch.setitem(cache.OPTIONAL_IMPORTS, "scipy",
                        ("import scipy_missing.special", "scipy_missing.special", "SciPy",
                         "scipy"))
    with pytest.raises(symgrad.OptionError, match="need SciPy: pip install scipy"):
        cache.compile_gradient(source, "g", "numpy")


# --- scipy.special.logsumexp ---------------------------------------------------------------------
def lse_all(x):
    return logsumexp(x)


def lse_rows(X):
    return np.sum(logsumexp(X, axis=1) ** 2)


def lse_keep(X):
    return np.sum(logsumexp(X, axis=0, keepdims=True) * X)


def lse_tuple(X):
    return special.logsumexp(X * 2.0, axis=(0, 1)) + np.sum(X)


LSE = [
    (lse_all, lambda n: (vec(n, -3.0, 3.0),), ("x",)),
    (lse_rows, lambda n: (mat(n),), ("X",)),
    (lse_keep, lambda n: (mat(n),), ("X",)),
    (lse_tuple, lambda n: (mat(n),), ("X",)),
]


@pytest.mark.parametrize("f, make, wrt", LSE, ids=[c[0].__name__ for c in LSE])
def test_logsumexp_against_central_differences(f, make, wrt):
    check(f, make, wrt)


def test_logsumexp_is_the_softmax_and_never_overflows():
    x = np.array([1000.0, 1001.0, 999.0])
    g = symgrad.value_and_grad(lse_all)
    value, grad = g(x)
    e = np.exp(x - 1001.0)
    assert value == pytest.approx(logsumexp(x), rel=1e-15)
    assert np.allclose(grad, e / e.sum(), rtol=1e-14) and np.all(np.isfinite(grad))


def test_logsumexp_options_refused():
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="b= or return_sign="):
        symgrad.grad(lse_weighted, shapes={"x": ("n",)})


def lse_weighted(x):
    return logsumexp(x, b=2.0)


# --- np.linalg.solve -----------------------------------------------------------------------------
def solve_vector(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


def solve_matrix(A, B):
    x = np.linalg.solve(A, B)
    return np.sum(x * x) + np.sum(np.tanh(x))


def well_posed(n):
    return RNG.uniform(-1.0, 1.0, (n, n)) + n * np.eye(n)


def test_solve_against_central_differences():
    check(solve_vector, lambda n: (well_posed(n), vec(n)), ("A", "b"))
    check(solve_matrix, lambda n: (well_posed(n), mat(n, 2)), ("A", "B"))
    gf = symgrad.grad(solve_matrix, shapes={"A": ("n", "n"), "B": ("n", "k")})
    assert "np.linalg.solve(A.T," in gf.source


def solve_sum(A, b):
    return np.sum(np.linalg.solve(A, b))


def test_solve_hand_value():
    # x = A^-1 b, f = sum(x): b̄ = A^-T 1, Ā = -b̄ x^T
    A = np.array([[2.0, 1.0], [0.0, 4.0]])
    b = np.array([1.0, 2.0])
    dA, db = symgrad.grad(solve_sum)(A, b)
    x = np.array([0.25, 0.5])
    bbar = np.array([0.5, 0.125])  # solve([[2, 0], [1, 4]], [1, 1])
    assert np.allclose(db, bbar, rtol=1e-15) and np.allclose(dA, -np.outer(bbar, x), rtol=1e-15)


# --- np.triu_indices / np.tril_indices -------------------------------------------------------
def upper_constant(L):
    return np.sum(L[np.triu_indices(3)] ** 2)


def upper_strict(L):
    return np.sum(np.exp(L[np.triu_indices(len(L), 1)]))


def lower_unpacked(L):
    rows, cols = np.tril_indices(L.shape[0])
    return np.sum(L[rows, cols] * np.sin(L[rows, cols]))


def lower_strict(L):
    return np.sum(L[np.tril_indices(L.shape[0], -1)] ** 3)


def pairwise(x):
    i, j = np.triu_indices(x.shape[0], 1)
    return np.sum((x[i] - x[j]) ** 2)


def module_pairs(L):
    return np.sum(L[UPPER] * 2.0)


def square(n):
    return (RNG.uniform(-1.0, 1.0, (n, n)),)


@pytest.mark.parametrize("f", [upper_strict, lower_unpacked, lower_strict, pairwise])
def test_triangle_indices_against_central_differences(f):
    make = (lambda n: (vec(n),)) if f is pairwise else square
    gf = check(f, make, (f.__code__.co_varnames[0],))
    assert "np.tri" in gf.source  # computed by the code: n is known only when called


def test_triangle_indices_of_a_constant_size():
    L = np.arange(9.0).reshape(3, 3)
    g = symgrad.grad(upper_constant, shapes={"L": (3, 3)})
    assert np.array_equal(g(L), 2.0 * np.triu(L)) and "np.triu_indices" not in g.source
    assert np.array_equal(symgrad.grad(module_pairs)(L), 2.0 * np.triu(np.ones((3, 3)), 1))
    gp = symgrad.grad(pairwise)
    x = np.array([1.0, 2.0, 4.0])
    # d/dx_k sum_{i<j} (x_i - x_j)^2 = 2 sum_j (x_k - x_j) = 2 (n x_k - sum x)
    assert np.allclose(gp(x), 2.0 * (3 * x - x.sum()), rtol=1e-15)


def upper_offset(L):
    return np.sum(L[np.triu_indices(len(L), 2)])


def test_triangle_indices_refusals():
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="k = 0 or 1") as info:
        symgrad.grad(upper_offset, shapes={"L": ("n", "n")})
    assert info.value.lineno == upper_offset.__code__.co_firstlineno + 1


# --- value-only functions: accepted where only the value is needed ---------------------------
def largest_squared(x):
    return x[np.argmax(stop_gradient(x))] ** 2


def smallest_row(X):
    return np.sum(X[np.argmin(stop_gradient(X[:, 0]))] ** 2)


def stopped_index(x):
    i = stop_gradient(np.argmax(x))
    return x[i] * 3.0


def method_index(X):
    return np.sum(X[:, stop_gradient(X).sum(axis=0).argmax()])


def sorted_weights(x, w):
    return np.sum(np.sort(stop_gradient(x)) * w) + np.sum(stop_gradient(np.sort(x, axis=0)))


def permuted(x):
    return np.sum(x[np.argsort(stop_gradient(x))] * np.arange(len(x)))


def per_row_max(X):
    k = np.argmax(stop_gradient(X), axis=1)
    return np.sum(np.take(X, SHIFT, axis=1) * X) + np.sum(k * 0.0)


def sign_weighted(x):
    return np.sum(np.sign(x) * x)


VALUE_ONLY = [
    (largest_squared, lambda n: (vec(n),), ("x",)),
    (smallest_row, lambda n: (mat(n),), ("X",)),
    (stopped_index, lambda n: (vec(n),), ("x",)),
    (method_index, lambda n: (mat(n),), ("X",)),
    (sorted_weights, lambda n: (vec(n), vec(n)), ("w",)),  # the primal's x is not stopped
    (permuted, lambda n: (vec(n),), ("x",)),
    (per_row_max, lambda n: (mat(n),), ("X",)),
    (sign_weighted, lambda n: (vec(n),), ("x",)),
]


@pytest.mark.parametrize("f, make, wrt", VALUE_ONLY, ids=[c[0].__name__ for c in VALUE_ONLY])
def test_value_only_against_central_differences(f, make, wrt):
    check(f, make, wrt)


def test_value_only_hand_values():
    x = np.array([0.5, -3.0, 2.0, 1.0])
    assert np.array_equal(symgrad.grad(largest_squared)(x), [0.0, 0.0, 4.0, 0.0])
    assert np.array_equal(symgrad.grad(stopped_index)(x), [0.0, 0.0, 3.0, 0.0])
    # the sorted values of a stopped x weigh w: d/dw = sort(x), d/dx = 0
    dx, dw = symgrad.grad(sorted_weights)(x, x)
    assert np.array_equal(dw, np.sort(x)) and np.array_equal(dx, np.zeros(4))
    # x[argsort(x)] * [0, 1, 2, 3]: element k gets its rank
    assert np.array_equal(symgrad.grad(permuted)(x), [1.0, 0.0, 3.0, 2.0])
    assert np.array_equal(symgrad.grad(sign_weighted)(x), np.sign(x))  # sign' = 0


def bad_argmax_index(x):
    return x[np.argmax(x)]


def bad_sort(x):
    return np.sum(np.sort(x) * x)


def bad_method(X):
    return np.sum(X.argmax(axis=1) * X[:, 0])


def bad_argsort(x):
    return np.sum(x * np.argsort(x))


REFUSED = [
    (bad_argmax_index, 1, "`np.argmax` has no derivative", "np.argmax(stop_gradient(x))"),
    (bad_sort, 1, "`np.sort` has no derivative", "np.sort(stop_gradient(x))"),
    (bad_method, 1, "`.argmax` has no derivative", "stop_gradient(x).argmax()"),
    (bad_argsort, 1, "`np.argsort` has no derivative", "np.argsort(stop_gradient(x))"),
]


@pytest.mark.parametrize("f, k, what, hint", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_value_only_refused_where_its_derivative_is_needed(f, k, what, hint):
    param = f.__code__.co_varnames[0]
    shapes = {param: ("n", "d") if param == "X" else ("n",)}
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(f, shapes=shapes)
    error = info.value
    assert error.filename == __file__ and error.lineno == f.__code__.co_firstlineno + k
    assert error.offset > 1 and error.text.strip().startswith("return")
    assert what in str(error) and hint in error.hint


def no_row(x):
    return np.sum(np.median(x))


def test_a_function_without_any_row_is_still_named():
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="`np.median` is not supported"):
        symgrad.grad(no_row, shapes={"x": ("n",)})


# --- index arrays: NumPy's placement rule, slices beside an index array ---------------------
def columns(X):
    return np.sum(X[:, SHIFT] ** 2)


def split_advanced(T):
    return np.sum(T[0, :, SHIFT] * np.arange(1.0, 5.0)[:, None])


def test_index_arrays_beside_slices():
    X = RNG.uniform(-1.0, 1.0, (3, 3))
    g = symgrad.grad(columns)(X)
    expected = np.zeros((3, 3))
    np.add.at(expected, (slice(None), SHIFT), 2.0 * X[:, SHIFT])
    assert np.allclose(g, expected, rtol=1e-15)
    # T[0, :, idx]: the int and the index array are split by a slice, so NumPy puts the index
    # axis first (shape (4, 3)): the weights [1, 2, 3, 4] go along it
    check(split_advanced, lambda n: (RNG.uniform(-1.0, 1.0, (2, n, 3)),), ("T",))


# --- scalar code called with arrays ----------------------------------------------------------
def squared(x):
    return x ** 2


def scaled(x, y):
    return x * y + 1.0


def test_scalar_code_called_with_an_array_is_refused_on_its_first_call():
    g = symgrad.grad(squared)
    with pytest.raises(symgrad.OptionError) as info:
        g(np.array([1.0, 2.0]))
    message = str(info.value)
    assert "`x` is an array of shape (2,)" in message and "shapes={'x': ('n',)}" in message
    assert "jax.grad" in message and "symgrad.vjp" in message
    assert g(3.0) == 6.0 and type(g) is symgrad.GradientFunction  # numbers: the plain path
    # a NumPy scalar, a 0-d array, an int are numbers
    assert symgrad.grad(scaled)(np.float64(2.0), np.array(3.0)) == (3.0, 2.0)
    with pytest.raises(symgrad.OptionError, match="`y` is an array of shape"):
        symgrad.grad(shifted)(2.0, y=np.ones((2, 2)))


def shifted(x, y):
    return x * y - 1.0


def test_scalar_code_as_array_code_with_shapes():
    with pytest.raises(symgrad.OutputShapeError, match="returns an array of shape"):
        symgrad.grad(squared, shapes={"x": ("n",)})
    v = symgrad.vjp(squared, shapes={"x": ("n",)})
    x = np.array([1.0, -2.0, 0.5])
    assert np.array_equal(v(x, np.ones(3)), 2.0 * x)  # the elementwise derivative
    # backend="numpy" evaluates the scalar gradient element by element, as documented
    assert np.array_equal(symgrad.grad(squared, backend="numpy")(x), 2.0 * x)


def shifted_index(x):
    return x[np.argmax(stop_gradient(x)) - 1]


def test_arithmetic_on_a_computed_index_is_refused():
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="arithmetic on it") as info:
        symgrad.grad(shifted_index, shapes={"x": ("n",)})
    assert info.value.lineno == shifted_index.__code__.co_firstlineno + 1

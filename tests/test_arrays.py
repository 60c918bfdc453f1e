"""Array code: every row of the array table against central differences, broadcasting under every
pattern, hand-derived values, call-time specialisation, results' shapes, and the rejections.

The numeric check is autograd's ``check_grads`` model: for a random direction v per parameter,
the directional derivative <grad f(x), v> must match (f(x + h v) - f(x - h v)) / 2h in float64,
at two sizes (one build serving both).
"""
import re
import types

import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient

RNG = np.random.default_rng(20261201)
tf = types.SimpleNamespace(exp=np.exp, reduce_sum=np.sum, reduce_max=np.max, reduce_mean=np.mean,
                           matmul=np.matmul, square=np.square, multiply=np.multiply,
                           add=np.add, pow=np.power, stop_gradient=lambda v: v)
jnp = types.SimpleNamespace(exp=np.exp, sum=np.sum, max=np.max, log=np.log, tanh=np.tanh)
WEIGHTS = np.array([1.0, -2.0, 0.5])
ROWS = np.array([0, 2, 0, 1])


def directional_error(f, gf, args, wrt, h=1e-6):
    """max over wrt of |<g, v> - central difference| / max(1, |<g, v>|), one random v each."""
    grads = gf(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    names = f.__code__.co_varnames[:f.__code__.co_argcount]
    worst = 0.0
    for name, g in zip(wrt, grads):
        k = names.index(name)
        x = np.asarray(args[k], dtype=float)
        assert np.shape(g) == x.shape, (name, np.shape(g), x.shape)
        if x.shape:
            assert isinstance(g, np.ndarray) and g.dtype == np.float64
        else:
            assert type(g) is float
        v = RNG.standard_normal(x.shape)
        plus = list(args)
        minus = list(args)
        plus[k], minus[k] = x + h * v, x - h * v
        numeric = (f(*plus) - f(*minus)) / (2 * h)
        exact = float(np.sum(np.asarray(g) * v))
        worst = max(worst, abs(exact - numeric) / max(1.0, abs(exact)))
    return worst


def check(f, make, wrt, sizes=(3, 5), shapes=None, tol=1e-6):
    """Build once, then check at every size; returns the gradient object."""
    gf = symgrad.grad(f, wrt=wrt, shapes=shapes)
    for n in sizes:
        args = make(n)
        assert directional_error(f, gf, args, wrt) < tol, (f.__name__, n, gf.source)
    return gf


def vec(n, low=-1.0, high=1.0):
    return RNG.uniform(low, high, n)


def mat(n, d=4, low=-1.0, high=1.0):
    return RNG.uniform(low, high, (n, d))


# --- rows: reductions ---------------------------------------------------------------------------
def r_sum_all(X):
    return np.sum(np.sin(X))


def r_sum_axis0(X):
    return np.sum(np.sum(X * X, axis=0) * np.arange(1.0, 5.0))


def r_sum_axis1_keep(X):
    return np.sum(np.exp(X) / np.sum(np.exp(X), axis=1, keepdims=True) * X)


def r_sum_tuple(X):
    return np.sum(np.cos(X), axis=(0, 1)) + X.sum()


def r_method_forms(X):
    return (X * X).sum(axis=1).mean() + X.max(axis=0).sum() + X.min() * X.mean()


def r_mean_axis(X):
    return np.sum(np.mean(X ** 2, axis=0) * np.mean(X, axis=1, keepdims=True).sum())


def r_max_axis(X):
    return np.sum(np.max(X, axis=1) ** 2) + np.sum(np.min(X, axis=0, keepdims=True))


def r_prod(X):
    return np.sum(np.prod(X, axis=1)) + np.prod(X[0])


def r_negative_axis(X):
    return np.sum(np.sum(np.tanh(X), axis=-1) * np.max(X, axis=-2).sum())


# --- rows: contractions and layout --------------------------------------------------------------
def r_matmul_21(X, w):
    return np.sum(np.tanh(X @ w))


def r_matmul_12(X, v):
    return np.sum(np.sin(v @ X))


def r_matmul_22(X, W):
    return np.sum((X @ W) ** 2)


def r_matmul_11(v, u):
    return np.dot(v, u) ** 2 + np.matmul(v, v)


def r_transpose(X, W):
    return np.sum(np.exp(X.T) * np.transpose(W)) + np.sum(X.T @ X)


def r_reshape(X):
    return np.sum(np.sin(X.reshape(-1)) * np.arange(X.size)) + np.sum(np.reshape(X, (2, -1)) ** 3)


def r_expand_squeeze(v):
    return np.sum(np.sin(v[:, None] * v[None, :])) + np.sum(np.squeeze(np.expand_dims(v, 0)) ** 2)


def r_index(X):
    return X[0, 1] * X[-1, 0] + np.sum(X[1] ** 2) + np.sum(X[:, 2] * X[::2, 1].sum())


def r_slices(v):
    return np.sum(v[1:] * v[:-1]) + np.sum(v[::2] ** 2) + np.sum(v[::-1] * v) + np.sum(v[1:-1:2])


def r_ellipsis_newaxis(X):
    return np.sum(X[..., 0] ** 2) + np.sum(X[:, np.newaxis, :] * X[None])


def r_gather(X):
    return np.sum(X[ROWS] ** 2) + np.sum(np.take(X, ROWS, axis=0) * 3.0) + np.sum(X[[1, 1], 0])


def r_concatenate(X, v):
    joined = np.concatenate([np.sin(v), X[0] * v, v[1:]])
    wide = np.concatenate((X, np.exp(X), X[:, :1] * 2.0), axis=1)
    stacked = np.stack([v, np.sin(v), v * v]) * np.stack((X[0], X[1]), axis=1)[:, :1].sum()
    return (np.sum(joined ** 2) + np.sum(wide * np.tanh(wide)) + np.sum(np.concatenate([X, X]))
            + np.sum(stacked ** 2))


def r_linalg(A):
    sign, logdet = np.linalg.slogdet(A)
    return logdet * sign + np.sum(np.linalg.inv(A) * A.T) + np.linalg.det(A) * 0.1


def r_einsum(X, W, v):
    return (np.sum(np.einsum("ij,j->i", X, v) ** 2) + np.sum(np.sin(np.einsum("ij,jk->ik", X, W)))
            + np.einsum("ij->", X * X) + np.sum(np.einsum("ij,ij->i", X, X) * 0.5)
            + np.sum(np.einsum("ij,jk", X, W) * 2.0) + np.sum(np.einsum("ij->ji", X) ** 3)
            + np.sum(np.einsum("ij,k->k", X, v) ** 2))


def r_running(X, v):
    return (np.sum(np.cumsum(v) ** 2) + np.sum(np.sin(np.cumsum(X, axis=1))) + np.sum(
        X.cumsum(axis=0) * X) + np.sum(np.logaddexp(X, v * 3.0)) + np.linalg.norm(v) * 2.0)


def r_outer_inner_eye(X, v):
    return (np.sum(np.outer(v, np.sin(v)) * X[:1]) + np.inner(v, v) + np.sum(np.inner(X, X))
            + np.sum(np.eye(len(v)) * np.outer(v, v)) + np.sum(np.eye(X.shape[0], 4) * X))


def r_dims(X):
    n, d = X.shape
    return np.sum(X ** 2) / (n * d) + np.sum(X) / X.size + len(X) * X.ndim * np.sum(X[0])


def r_constructors(x):
    z = np.zeros_like(x) + np.ones(len(x)) * 2.0 + np.full(x.shape, 0.5) + np.ones_like(x)
    a = np.array([np.sum(x), np.max(x), 3.0])
    return np.sum(z * x) + np.sum(a * WEIGHTS) + np.sum(np.zeros((2, 3)))


def r_where(x):
    return np.sum(np.where(x > 0.0, np.log(np.abs(x) + 1e-3), -x ** 2))


def r_maximum_clip(x, y):
    return np.sum(np.maximum(x, y) * np.minimum(x, 0.3) + np.clip(x * y, -0.2, 0.2))


def r_elementwise_rules(x):
    p = np.abs(x) + 0.5
    return np.sum(np.exp(x) * np.sin(x) + np.log(p) + np.sqrt(p) + np.tanh(x) + np.arctan(x)
                  + np.cos(x) + np.log1p(p) + np.expm1(x) + np.arcsinh(x) + np.square(x)
                  + np.power(p, 1.5) + np.hypot(x, p) + np.arctan2(x, p) + np.log2(p)
                  + np.log10(p) + np.sinh(x) + np.cosh(x) + np.tan(x * 0.5) + np.fabs(x))


def r_spellings(x):
    return tf.reduce_sum(tf.multiply(tf.exp(x), tf.pow(x, 2.0))) + tf.reduce_max(
        tf.add(x, tf.square(x))) + tf.reduce_mean(tf.matmul(x, x)) + jnp.log(jnp.sum(jnp.exp(x)))


def r_stop(x):
    m = stop_gradient(np.max(x))
    q = x + stop_gradient(np.round(x * 4.0) / 4.0 - x)
    return m + np.log(np.sum(np.exp(x - m))) + np.sum(q * q) + tf.stop_gradient(np.sum(x)) * 2.0


def r_constant_array(x):
    return np.sum((x - WEIGHTS) ** 2 * WEIGHTS)


def r_scalar_param(x, s):
    return np.sum(np.sin(s * x) + s) * s


def r_branch_on_scalar(x):
    if np.sum(x) > 0.0:
        t = x * 2.0
    else:
        t = x ** 3
    return np.sum(t * x)


def _helper(z):
    return np.sum(z * z)


def r_helper(x):
    return _helper(x - 1.0) + _helper(x[1:])


ROWS_CASES = [
    (r_sum_all, lambda n: (mat(n),), ("X",)),
    (r_sum_axis0, lambda n: (mat(n),), ("X",)),
    (r_sum_axis1_keep, lambda n: (mat(n),), ("X",)),
    (r_sum_tuple, lambda n: (mat(n),), ("X",)),
    (r_method_forms, lambda n: (mat(n),), ("X",)),
    (r_mean_axis, lambda n: (mat(n),), ("X",)),
    (r_max_axis, lambda n: (mat(n),), ("X",)),
    (r_prod, lambda n: (mat(n, low=0.5, high=1.5),), ("X",)),
    (r_negative_axis, lambda n: (mat(n),), ("X",)),
    (r_matmul_21, lambda n: (mat(n), vec(4)), ("X", "w")),
    (r_matmul_12, lambda n: (mat(n), vec(n)), ("X", "v")),
    (r_matmul_22, lambda n: (mat(n), mat(4, 2)), ("X", "W")),
    (r_matmul_11, lambda n: (vec(n), vec(n)), ("v", "u")),
    (r_transpose, lambda n: (mat(n), mat(n)), ("X", "W")),
    (r_reshape, lambda n: (mat(2 * n),), ("X",)),
    (r_expand_squeeze, lambda n: (vec(n),), ("v",)),
    (r_index, lambda n: (mat(n),), ("X",)),
    (r_slices, lambda n: (vec(n + 2),), ("v",)),
    (r_ellipsis_newaxis, lambda n: (mat(n),), ("X",)),
    (r_gather, lambda n: (mat(n),), ("X",)),
    (r_dims, lambda n: (mat(n),), ("X",)),
    (r_concatenate, lambda n: (mat(n), vec(4)), ("X", "v")),
    (r_linalg, lambda n: (3.0 * np.eye(n) + mat(n, n),), ("A",)),
    (r_einsum, lambda n: (mat(n), mat(4, 2), vec(4)), ("X", "W", "v")),
    (r_running, lambda n: (mat(n), vec(4)), ("X", "v")),
    (r_outer_inner_eye, lambda n: (mat(n), vec(4)), ("X", "v")),
    (r_constructors, lambda n: (vec(n),), ("x",)),
    (r_where, lambda n: (vec(n) + 0.05,), ("x",)),
    (r_maximum_clip, lambda n: (vec(n), vec(n)), ("x", "y")),
    (r_elementwise_rules, lambda n: (vec(n),), ("x",)),
    (r_spellings, lambda n: (vec(n),), ("x",)),
    (r_constant_array, lambda n: (vec(3),), ("x",)),
    (r_scalar_param, lambda n: (vec(n), 0.7), ("x", "s")),
    (r_branch_on_scalar, lambda n: (vec(n) + 0.3,), ("x",)),
    (r_helper, lambda n: (vec(n),), ("x",)),
]


@pytest.mark.parametrize("f, make, wrt", ROWS_CASES, ids=[c[0].__name__ for c in ROWS_CASES])
def test_row_against_central_differences(f, make, wrt):
    gf = check(f, make, wrt)
    assert "for " not in gf.source  # nothing unrolled over the elements


# --- broadcasting: every binary operator under every pattern ----------------------------------
def b_add(a, b):
    return np.sum(np.sin(a + b) * WEIGHTS_4)


def b_sub(a, b):
    return np.sum(np.sin(a - b) * WEIGHTS_4)


def b_mul(a, b):
    return np.sum(np.sin(a * b) * WEIGHTS_4)


def b_div(a, b):
    return np.sum(np.sin(a / b) * WEIGHTS_4)


def b_pow(a, b):
    return np.sum(np.sin(a ** b) * WEIGHTS_4)


OPERATORS = {"+": b_add, "-": b_sub, "*": b_mul, "/": b_div, "**": b_pow}
PATTERNS = [  # (shape of a, shape of b) with n = 3 or 5 rows, d = 4 columns
    ((), ("n", "d")), (("n", "d"), ()), (("d",), ("n", "d")), (("n", "d"), ("d",)),
    ((1, "d"), ("n", "d")), (("n", "d"), (1, "d")), (("n", 1), ("n", "d")),
    (("n", "d"), ("n", 1)), ((1, "d"), ("n", 1)), (("n", "d"), ("n", "d")), (("d",), (1, "d")),
    ((1, 1), ("d",)),
]


def _concrete(shape, n):
    return tuple({"n": n, "d": 4}.get(s, s) for s in shape)


def _value(shape, n):
    dims = _concrete(shape, n)
    return RNG.uniform(0.5, 1.5, dims) if dims else float(RNG.uniform(0.5, 1.5))


@pytest.mark.parametrize("op", list(OPERATORS))
@pytest.mark.parametrize("pattern", PATTERNS, ids=[f"{a}-{b}" for a, b in PATTERNS])
def test_binary_operator_broadcasting(op, pattern):
    f = OPERATORS[op]
    shape_a, shape_b = pattern
    shapes = {k: s for k, s in (("a", shape_a), ("b", shape_b)) if s}
    gf = symgrad.grad(f, wrt=("a", "b"), shapes=shapes)
    for n in (3, 5):
        args = (_value(shape_a, n), _value(shape_b, n))
        ga, gb = gf(*args)
        assert np.shape(ga) == np.shape(args[0]) and np.shape(gb) == np.shape(args[1])
        assert directional_error(f, gf, args, ("a", "b")) < 1e-6, gf.source
    # the same at call time, without shapes=
    lazy = symgrad.grad(f, wrt=("a", "b"))
    args = (_value(shape_a, 3), _value(shape_b, 3))
    assert all(np.allclose(x, y, rtol=1e-12) for x, y in zip(lazy(*args), gf(*args)))


WEIGHTS_4 = np.array([0.5, -1.0, 2.0, 0.25])


# --- hand-derived values ---------------------------------------------------------------------
def least_squares(X, w, y):
    r = X @ w - y
    return np.sum(r ** 2) / X.shape[0]


def softmax_xent(X, W, Y):
    Z = X @ W
    Z = Z - stop_gradient(np.max(Z, axis=1, keepdims=True))
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * logp, axis=1))


def test_least_squares_hand_value_and_code():
    X, w, y = mat(6, 3), vec(3), vec(6)
    gf = symgrad.grad(least_squares, wrt="w", shapes=dict(X=("n", "d"), w=("d",), y=("n",)))
    assert np.allclose(gf(X, w, y), 2.0 * X.T @ (X @ w - y) / 6, rtol=1e-13)
    assert "2.0 * (X.T @ r) / n" in gf.source  # the scalar factor on the small result
    assert "n = X.shape[0]" in gf.source


def test_softmax_cross_entropy_hand_value():
    X, W = mat(7, 3), mat(3, 4)
    Y = np.eye(4)[RNG.integers(0, 4, 7)]
    gf = symgrad.grad(softmax_xent, wrt="W")
    Z = X @ W
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    assert np.allclose(gf(X, W, Y), X.T @ (P - Y) / 7, rtol=1e-12)


def max_of(x):
    return np.max(x)


def prod_of(x):
    return np.prod(x)


def where_sqrt(x):
    return np.sum(np.where(x > 0.0, np.sqrt(x), 0.0))


def clamped_slices(x, s):
    return np.sum(x[2:5] + s) + np.sum(x[::3] * s) + np.sum(x[-3:] * x[:-2:-1])


def test_slices_clamp_as_python_does():
    gf = symgrad.grad(clamped_slices)
    for n in (1, 2, 4, 7):  # x[2:5] has 0, 0, 2, 3 elements
        x = vec(n)
        assert directional_error(clamped_slices, gf, (x, 0.5), ("x", "s")) < 1e-6, gf.source
        assert gf(x, 0.5)[1] == pytest.approx(len(x[2:5]) + np.sum(x[::3]), rel=1e-14)


def test_conventions_by_hand():
    assert np.array_equal(symgrad.grad(max_of)(np.array([1.0, 3.0, 3.0])), [0.0, 0.5, 0.5])
    assert np.array_equal(symgrad.grad(max_of)(np.array([3.0, 3.0, 3.0, 3.0])), [0.25] * 4)
    # the product of the others, at zeros too
    assert np.allclose(symgrad.grad(prod_of)(np.array([2.0, 3.0, 4.0])), [12.0, 8.0, 6.0])
    assert np.array_equal(symgrad.grad(prod_of)(np.array([2.0, 0.0, 4.0])), [0.0, 8.0, 0.0])
    assert np.array_equal(symgrad.grad(prod_of)(np.array([0.0, 0.0, 4.0])), [0.0, 0.0, 0.0])
    with np.errstate(all="raise"):  # the untaken branch is silent and never reaches the result
        got = symgrad.grad(where_sqrt)(np.array([0.0, 4.0, -1.0, 0.25]))
    assert np.array_equal(got, [0.0, 0.25, 0.0, 1.0])


def test_stop_gradient_of_arrays_by_hand():
    x = vec(5)
    softmax = np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))
    # the stopped max shifts nothing, q passes straight through, the stopped sum adds nothing
    assert np.allclose(symgrad.grad(r_stop)(x), softmax + 2.0 * np.round(x * 4.0) / 4.0,
                       rtol=1e-13)


def gather_sq(E):
    return np.sum(E[ROWS] ** 2)


def test_gather_accumulates_repeated_rows():
    E = mat(3, 2)
    expected = np.zeros_like(E)
    for i in ROWS:
        expected[i] += 2.0 * E[i]
    assert np.allclose(symgrad.grad(gather_sq)(E), expected, rtol=1e-14)
    assert "np.add.at" in symgrad.grad(gather_sq).source


# --- specialisation and results --------------------------------------------------------------
def centred(X):
    return np.sum((X - np.mean(X, axis=1, keepdims=True)) ** 2)


def test_one_build_serves_every_size_and_ranks_specialise():
    gf = symgrad.grad(centred)
    assert gf.source is None  # nothing is built before a call
    for n in (2, 5, 40):
        X = mat(n)
        assert np.allclose(gf(X), 2.0 * (X - X.mean(axis=1, keepdims=True)), rtol=1e-12)
    assert len(gf.specialisations.by_pattern) == 1 and "def grad_centred" in gf.source
    one_row = mat(1)
    assert np.allclose(gf(one_row), 2.0 * (one_row - one_row.mean(axis=1, keepdims=True)))
    assert len(gf.specialisations.by_pattern) == 2  # a size-1 axis is a pattern of its own
    assert symgrad.grad(centred) is gf


def pair(x, y):
    return np.sum(x * y)


def test_sizes_that_do_not_match_raise_as_the_primal_does():
    with pytest.raises(ValueError):
        pair(vec(3), vec(4))
    with pytest.raises(ValueError, match=re.escape(  # never a gradient of mismatched arrays
            "grad_pair: y.shape[0] is 4; it must be x.shape[0] = 3")):
        symgrad.grad(pair)(vec(3), vec(4))
    # only the argument whose size differs is named, with both sizes (arrbreak F3: the message
    # named w and y, and y was right)
    with pytest.raises(ValueError, match=re.escape(
            "grad_least_squares: w.shape[0] is 2; it must be X.shape[1] = 3")):
        symgrad.grad(least_squares, wrt="w")(mat(4, 3), vec(2), vec(4))
    with pytest.raises(ValueError, match=re.escape(
            "grad_least_squares: y.shape[0] is 5; it must be X.shape[0] = 4")):
        symgrad.grad(least_squares, wrt="w")(mat(4, 3), vec(3), vec(5))


def test_results_are_fresh_float_arrays_of_the_parameter_shape():
    x, y = np.array([1, 2, 3]), np.array([4.0, 5.0, 6.0])
    gx, gy = symgrad.grad(pair)(x, y)
    assert gx.dtype == np.float64 and np.array_equal(gx, y) and gx is not y
    gx[0] = 99.0
    assert y[0] == 4.0  # not a view of the argument
    g = symgrad.grad(r_scalar_param, wrt="s")(vec(3), 0.5)
    assert type(g) is float


def scalar_only(x, y):
    return np.exp(x) * y


def test_scalar_code_keeps_its_plain_gradient():
    gf = symgrad.grad(scalar_only)
    assert gf(0.0, 2.0) == (2.0, 1.0)
    assert type(gf) is symgrad.GradientFunction  # after its first call: no wrapper
    assert "math.exp" in gf.source and "np." not in gf.source
    assert np.allclose(symgrad.grad(scalar_only, backend="numpy")(np.array([0.0, 1.0]), 2.0)[0],
                       2.0 * np.exp([0.0, 1.0]))


def tanh_layer(W, x):
    return np.tanh(W @ x)


def test_vjp_and_value_and_grad():
    W, x, g = mat(2, 3), vec(3), vec(2)
    dW, dx = symgrad.vjp(tanh_layer)(W, x, g)
    s = (1.0 - np.tanh(W @ x) ** 2) * g
    assert np.allclose(dW, np.outer(s, x), rtol=1e-13) and np.allclose(dx, W.T @ s, rtol=1e-13)
    value, grad = symgrad.value_and_grad(least_squares, wrt="w")(mat(5, 3), vec(3), vec(5))
    assert type(value) is float and grad.shape == (3,)


def penalised(X, w, lam=0.1):
    r = X @ w
    p = np.tanh(r)
    return np.sum(p ** 2) + lam * np.sum(w * w)


def test_keywords_defaults_intermediates_and_stops():
    X, w = mat(5, 3), vec(3)
    p = np.tanh(X @ w)
    dr = 2.0 * p * (1.0 - p * p)
    gw, glam, gr = symgrad.grad(penalised, wrt=("w", "lam", "r"))(X, w)
    assert np.allclose(gw, X.T @ dr + 0.2 * w, rtol=1e-13) and np.allclose(gr, dr, rtol=1e-13)
    assert type(glam) is float and glam == pytest.approx(np.sum(w * w), rel=1e-14)
    assert np.allclose(symgrad.grad(penalised, wrt="w")(X, w=w, lam=0.1), gw, rtol=1e-14)
    assert np.allclose(symgrad.grad(penalised, wrt="w", stop_gradients=("p",))(X, w), 0.2 * w)
    assert symgrad.grad(pair, wrt=("x", "y"), unconnected="none")(w, w)[0] is not None


def least_squares_grad_right(X, w, y):
    return 2.0 * (X.T @ (X @ w - y)) / X.shape[0]


def least_squares_grad_wrong(X, w, y):
    return (X.T @ (X @ w - y)) / X.shape[0]


def test_check_grad_on_arrays_at_random_sizes():
    shapes = dict(X=("n", "d"), w=("d",), y=("n",))
    right = symgrad.check_grad(least_squares, least_squares_grad_right, wrt="w", shapes=shapes)
    assert right.verdict == "equal" and right.evaluated == 5 and right.worst_error < 1e-12
    assert len({p for p in right.points}) > 1  # several sizes
    wrong = symgrad.check_grad(least_squares, least_squares_grad_wrong, wrt="w", shapes=shapes)
    assert wrong.verdict == "different" and wrong.differing == ("dleast_squares_dw",)
    assert wrong.worst_error == pytest.approx(0.5, rel=1e-12)
    assert "differs at [0]" in str(wrong) and "float64" in str(right)


# --- rejections ----------------------------------------------------------------------------
def if_array(x):
    if x > 0.0:
        return np.sum(x)
    return 0.0


def and_array(x):
    return np.sum(np.where((x > 0.0) and (x < 1.0), x, 0.0))


def not_array(x):
    return np.sum(x) if not x else 0.0


def item_assign(x):
    y = x * 2.0
    y[0] = 1.0
    return np.sum(y)


def slice_added(x):
    y = x * 2.0
    y[1:] += x[:-1]
    return np.sum(y)


def mask_index(x):
    return np.sum(x[x > 0.0])


def loop_over_size(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i]
    return total


def loop_over_rows(x):
    total = 0.0
    for v in x:
        total = total + v
    return total


def unknown_function(x):
    return np.sum(np.sort(x))


def math_of_array(x):
    import_free = np.sum(x)
    return import_free + np.sum(np.asarray(x) * 0.0) + np.sum(max(x, 0.0))


def chained(x):
    return np.sum(np.where(0.0 < x < 1.0, x, 0.0))


def branch_shapes(x):
    if np.sum(x) > 0.0:
        y = x * 2.0
    else:
        y = 1.0
    return np.sum(y)


REJECTED = [
    (branch_shapes, 1, "different shapes (", "np.full"),
    (if_array, 1, "truth value of an array", "np.where"),
    (and_array, 1, "truth value of an array", "np.where"),
    (not_array, 1, "truth value of an array", "np.where"),
    (item_assign, 2, "item or slice assignment", "np.where"),
    (mask_index, 1, "boolean-mask", "np.where"),
    (loop_over_size, 2, "array's size", "vectorise"),
    (loop_over_rows, 2, "loop over the elements", "vectorise"),
    (unknown_function, 1, "`np.sort`", None),
    (math_of_array, 2, "`max` of an array", None),
    (chained, 1, "chained comparison", "np.where"),
]


@pytest.mark.parametrize("f, k, what, hint", REJECTED, ids=[r[0].__name__ for r in REJECTED])
def test_rejected_with_location(f, k, what, hint):
    x = np.array([0.5, -1.0, 2.0])
    builds = [lambda: symgrad.grad(f, shapes={"x": ("n",)})]
    if f is not loop_over_rows:  # read as scalar code first, that one is refused as such
        builds.append(lambda: symgrad.grad(f)(x))
    for build in builds:
        with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
            build()
        error = info.value
        assert error.lineno == f.__code__.co_firstlineno + k and error.filename == __file__
        assert what in str(error) and error.text.strip()
        assert hint is None or hint in error.hint
        assert "does not know the derivative" not in str(error)


@pytest.mark.parametrize("f, hint", [
    (item_assign, "y = np.where(np.arange(len(y)) == 0, 1.0, y)"),
    (slice_added, "np.concatenate((y[:i], y[1:] + x[:-1], y[j:])) for y[i:j] = y[1:] + x[:-1]")])
def test_an_item_assignment_hint_writes_the_statement_as_a_new_array(f, hint):
    """The hint for ``y[0] = 1.0`` is that statement as a new array, with its own names and
    value (it was a fixed template writing 0.0 whatever was assigned)."""
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(f, shapes={"x": ("n",)})
    assert hint in info.value.hint


def array_output(x):
    return x * 2.0


def test_grad_of_an_array_output_names_jacobian_and_vjp():
    with pytest.raises(symgrad.OutputShapeError) as info:
        symgrad.grad(array_output, shapes={"x": ("n",)})
    assert "symgrad.vjp" in str(info.value) and "symgrad.jacobian" in str(info.value)


def only_here(x, y):
    return np.sum(x * y + x)


def test_a_gradient_built_at_call_says_so_before_its_first_call():
    gf = symgrad.grad(only_here)
    assert gf.source is None
    with pytest.raises(symgrad.OptionError, match="first call"):
        gf.program  # noqa: B018 - the property raises
    with pytest.raises(symgrad.OptionError, match="first call"):
        symgrad.latex(gf)
    gf(vec(2), vec(2))
    assert symgrad.latex(gf) == ("y + 1", "x")  # the latest specialisation's


def test_shapes_option_errors():
    with pytest.raises(symgrad.OptionError, match="not a parameter"):
        symgrad.grad(pair, shapes={"z": ("n",)})
    with pytest.raises(symgrad.OptionError, match="names"):
        symgrad.grad(pair, shapes={"x": ("n", -1)})  # 0 is a size: an array of no element
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="do not broadcast"):
        symgrad.grad(pair, shapes={"x": ("n",), "y": ("m",)})


def test_jax_numpy_imported_as_np_reads_as_numpy():
    """``import jax.numpy as np``: ``np.sum`` is ``jax.numpy.sum`` (a decorated function, once
    refused as "a helper with a decorator"), read by the object as ``numpy.sum``."""
    xnp = pytest.importorskip("jax.numpy")

    def f(a, x):
        return np.sum(xnp.sin(x) ** 2) + xnp.sum(xnp.linalg.inv(a)) + xnp.linalg.det(a)
    a, x = np.array([[2.0, 0.5], [0.3, 1.5]]), np.array([1.0, 2.0])
    da, dx = symgrad.grad(f)(a, x)
    inv = np.linalg.inv(a)
    np.testing.assert_allclose(dx, np.sin(2 * x), rtol=1e-14)  # d sin^2 = sin 2x
    np.testing.assert_allclose(da, -inv.T @ np.ones((2, 2)) @ inv.T + np.linalg.det(a) * inv.T,
                               rtol=1e-13)

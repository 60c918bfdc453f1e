"""The forms the array backends print for speed and for safety, beyond their numbers
(``tests/test_backends.py`` holds those): PyTorch works in place on fresh buffers, never on an
argument or an overlapping view, with mixed dtypes computed in the widest; on JAX and the Array API
the side of a ``where`` not taken computes on safe arguments, so ``jax.grad`` of a gradient has no
nan from it and NumPy arrays raise no warning. A library that is not installed skips its tests,
saying which.
"""
import ast
import math
import warnings

import numpy as np
import pytest

import symgrad
from symgrad.array_torch import _overlapping
from test_backends import HAS, _needs

if HAS["torch"]:
    import torch
if HAS["jax"]:
    import jax
    import jax.numpy as jnp


def mlp(W1, b1, w2, X, y):
    H = np.tanh(X @ W1 + b1)
    return np.mean((H @ w2 - y) ** 2)


MLP_SHAPES = {"W1": ("d", "h"), "b1": ("h",), "w2": ("h",), "X": ("n", "d"), "y": ("n",)}


def _mlp_args(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal(5),
            rng.standard_normal((7, 3)), rng.standard_normal(7))


def _mlp_by_hand(W1, b1, w2, X, y):
    """d mean((tanh(X W1 + b1) w2 - y)^2): r = 2 (p - y) / n, dH = r w2^T (1 - H^2)."""
    H = np.tanh(X @ W1 + b1)
    r = 2.0 * (H @ w2 - y) / X.shape[0]
    dZ = np.outer(r, w2) * (1.0 - H * H)
    return X.T @ dZ, dZ.sum(axis=0), H.T @ r


def _close(got, want):
    return all(np.allclose(np.asarray(g), w, rtol=1e-12, atol=1e-15) for g, w in zip(got, want))


@_needs("torch")
def test_torch_works_in_place_and_leaves_the_arguments():
    """The tanh layer is computed in its product's buffer (``torch.tanh(H, out=H)``), the numbers
    are the hand-derived gradient's, and no argument is written."""
    gf = symgrad.grad(mlp, wrt=["W1", "b1", "w2"], shapes=MLP_SHAPES, backend="torch")
    assert "torch.tanh(H, out=H)" in gf.source
    args = _mlp_args()
    tensors = [torch.from_numpy(a.copy()) for a in args]
    got = [g.numpy() for g in gf(*tensors)]
    assert _close(got, _mlp_by_hand(*args))
    assert all(np.array_equal(t.numpy(), a) for t, a in zip(tensors, args))
    results = gf(*tensors)
    assert len({r.data_ptr() for r in results} | {t.data_ptr() for t in tensors}) == 8


@_needs("torch")
def test_torch_mixed_dtypes_compute_in_the_widest():
    """float32 X with float64 weights: computed in float64 (X converted exactly), the numbers of
    the float64 gradient; all float32 stays float32."""
    gf = symgrad.grad(mlp, wrt=["W1", "b1", "w2"], shapes=MLP_SHAPES, backend="torch")
    W1, b1, w2, X, y = _mlp_args(1)
    X32 = X.astype(np.float32)
    got = gf(*(torch.from_numpy(a) for a in (W1, b1, w2, X32, y)))
    assert {g.dtype for g in got} == {torch.float64}
    assert _close([g.numpy() for g in got], _mlp_by_hand(W1, b1, w2, X32.astype(float), y))
    single = gf(*(torch.from_numpy(a.astype(np.float32)) for a in (W1, b1, w2, X, y)))
    assert {g.dtype for g in single} == {torch.float32}
    assert all(np.allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)
               for g, w in zip(single, _mlp_by_hand(W1, b1, w2, X, y)))


def square_product(A):
    E = np.exp(A)
    return np.sum(E * E.T)


@_needs("torch")
def test_torch_in_place_with_a_transpose_of_the_buffer():
    """d sum(E * E^T) / dA = 2 E * E^T (E = exp(A)): the transpose is read into a new tensor
    before the buffer is updated, so PyTorch's overlap check has nothing to refuse."""
    gf = symgrad.grad(square_product, shapes={"A": ("n", "n")}, backend="torch")
    A = np.random.default_rng(2).standard_normal((4, 4))
    E = np.exp(A)
    assert np.allclose(gf(torch.from_numpy(A)).numpy(), 2.0 * E * E.T, rtol=1e-12)


@pytest.mark.parametrize("code, overlaps", [
    ("t = x * 2.0\nt *= t.T", True),
    ("t = x * 2.0\nu = t.T\nt *= u", True),
    ("t = x * 2.0\ntorch.exp(t.T, out=t)", True),
    ("t = x * 2.0\nu = t\nt *= u[1:]", True),
    ("t = x * 2.0\nt *= t", False),
    ("t = x * 2.0\nu = t\nt *= u", False),
    ("t = x * 2.0\nt *= 2.0 * t.T", False),
    ("t = x * 2.0\nt *= t.sum(axis=0)", False),
    ("t = x * 2.0\ntorch.sub(1.0, t, out=t)", False),
])
def test_torch_in_place_never_updates_with_an_overlapping_view(code, overlaps):
    """PyTorch refuses ``t *= t.T`` (NumPy copies): such a body is left as printed. The tensor
    itself (``t *= t``) and a new tensor computed from a view are allowed."""
    assert _overlapping(ast.parse(code).body) is overlaps


# --- the double-where guard ------------------------------------------------------------------
def where_sqrt(x):
    return np.sum(np.where(x > 0.0, np.sqrt(x), 0.0))


def guarded_log(x):
    return x * math.log(x) if x > 0.0 else 0.0


def where_reciprocal(x):
    return np.sum(np.where(x != 0.0, 1.0 / x, x))


def softplus_hinge(x, y):
    if x > y:
        return math.log1p(math.exp(y - x)) + x
    return max(x * y, 0.0)


SECOND = [  # (function, shapes, points, d/dx of the gradient there, by hand)
    # d/dx 0.5 x^(-1/2) = -0.25 x^(-3/2): -1/32 at 4; 0 where x <= 0 (the gradient is 0 there)
    (where_sqrt, {"x": ("n",)}, [0.0, -1.0, 4.0], [0.0, 0.0, -0.03125]),
    # d/dx (log x + 1) = 1/x: 0.5 at 2; log(0), log(-2) untaken
    (guarded_log, None, [0.0, -2.0, 2.0], [0.0, 0.0, 0.5]),
    # d/dx (-1/x^2) = 2/x^3: 0.25 at 2, -16 at -0.5; 1/0 untaken at 0 (gradient 1 there)
    (where_reciprocal, {"x": ("n",)}, [0.0, 2.0, -0.5], [0.0, 0.25, -16.0]),
]


@_needs("jax")
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("function, shapes, points, expected", SECOND,
                         ids=[f.__name__ for f, *_ in SECOND])
def test_jax_grad_of_a_gradient_has_no_nan_from_the_untaken_branch(function, shapes, points,
                                                                   expected, jit):
    """``jax.grad`` through symgrad's jax gradient, at points where the side not taken is inf or
    nan (``0.5 / sqrt(0)``, ``log(-2)``, ``1 / 0``): the second derivative by hand, finite."""
    options = {"shapes": shapes} if shapes else {}
    gf = symgrad.grad(function, backend="jax", **options)
    if shapes:
        second = jax.grad(lambda x: jnp.sum(gf(x)))
        got = (jax.jit(second) if jit else second)(jnp.asarray(points))
    else:
        second = jax.jit(jax.grad(gf)) if jit else jax.grad(gf)
        got = [second(jnp.float64(p)) for p in points]
    got = np.asarray(got)
    assert np.all(np.isfinite(got)) and np.allclose(got, expected, rtol=1e-12, atol=0.0)


@_needs("jax")
def test_jax_grad_through_an_overflowing_untaken_branch():
    """softplus_hinge at x = 1, y = 800 takes max(x y, 0) = x y: the gradient is (y, x), its
    derivatives d(dx)/dx = 0, d(dx)/dy = 1; the untaken log1p(exp(y - x)) overflows (exp(799))."""
    gf = symgrad.grad(softplus_hinge, backend="jax")
    dxx, dxy = jax.grad(lambda x, y: gf(x, y)[0], argnums=(0, 1))(jnp.float64(1.0),
                                                                  jnp.float64(800.0))
    assert (float(dxx), float(dxy)) == (0.0, 1.0)


@_needs("jax")
def test_jax_grad_of_a_primal_value_has_no_nan_from_the_untaken_branch():
    """The value printed with the gradient (``value_and_grad``) is guarded too: d/dx of
    x log x where x > 0 is log x + 1 (1 + log 2 at 2), and 0 where x <= 0 (log(-2) untaken)."""
    vg = symgrad.value_and_grad(guarded_log, backend="jax")
    got = [float(jax.grad(lambda x: vg(x)[0])(jnp.float64(p))) for p in (-2.0, 0.0, 2.0)]
    assert got == [0.0, 0.0, pytest.approx(1.0 + math.log(2.0), rel=1e-12)]


@_needs("array_api_compat")
@pytest.mark.parametrize("function, point, expected", [
    (where_sqrt, [0.0, -1.0, 4.0], [0.0, 0.0, 0.25]),
    (where_reciprocal, [0.0, 2.0, -0.5], [1.0, -0.25, -4.0])])
def test_array_api_on_numpy_warns_of_no_untaken_branch(function, point, expected):
    """The Array API code on NumPy arrays computes no inf in the branch not taken: no warning
    (it has no ``errstate``), and the numbers by hand (0.5 / sqrt(4), -1 / x^2)."""
    gf = symgrad.grad(function, backend="array_api", shapes={"x": ("n",)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = gf(np.array(point))
    assert np.allclose(got, expected, rtol=1e-12, atol=0.0)


@_needs("array_api_compat")
def test_array_api_takes_numbers_alone():
    """Python numbers only (ints too): the Array API code computes with NumPy (0-d arrays), the
    numbers of the math backend: at (1, 2) the tie-free side x y > 0 gives (y, x) = (2, 1)."""
    gf = symgrad.grad(softplus_hinge, backend="array_api")
    assert [float(v) for v in gf(1, 2)] == [2.0, 1.0]
    want = symgrad.grad(softplus_hinge)(0.5, 0.25)
    assert [float(v) for v in gf(0.5, 0.25)] == pytest.approx(want, rel=1e-12)


def product_over_two_axes(X):
    return np.sum(np.prod(X, axis=(0, 2)) ** 2)


@_needs("torch")
def test_torch_takes_a_product_over_several_axes_one_axis_at_a_time():
    """``torch.prod`` reduces one axis: ``x.prod(axis=2).prod(axis=0)``. With P the product over
    axes 0 and 2 (no zero), d sum(P^2) / dX = 2 P^2 / X (by hand)."""
    gf = symgrad.grad(product_over_two_axes, shapes={"X": ("a", "b", "c")}, backend="torch")
    X = np.random.default_rng(3).uniform(0.5, 1.5, (2, 3, 4))
    P = X.prod(axis=(0, 2))
    assert np.allclose(gf(torch.from_numpy(X)).numpy(), 2.0 * P[None, :, None] ** 2 / X,
                       rtol=1e-12, atol=0.0)


REPEATED = np.array([0, 2, 0])


def gather_rows_from_column_one(X):
    return np.sum(X[REPEATED, 1:] ** 2)


def gather_columns_below_row_one(X):
    return np.sum(X[1:, REPEATED] ** 2)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("torch", marks=_needs("torch")),
                                     pytest.param("jax", marks=_needs("jax"))])
@pytest.mark.parametrize("d", [2, 4])
def test_index_array_with_a_partial_slice_adds_where_it_read(backend, d):
    """X[REPEATED, 1:]: rows 0 (twice) and 2 from column 1 on, so the gradient is 2 X there, twice
    on row 0, and 0 in column 0 (by hand). NumPy printed the slice of np.add.at as ``slice(1)``
    (that is ``:1``): column 0, a wrong number when d = 2. PyTorch adds into the view
    ``z[:, 1:]`` with ``index_add_``. The same for columns: X[1:, REPEATED]."""
    X = np.arange(3.0 * d).reshape(3, d)
    weight = np.zeros((3, d))
    weight[0, 1:], weight[2, 1:] = 2.0, 1.0
    columns = np.zeros((3, 3))
    columns[1:, 0], columns[1:, 2] = 2.0, 1.0
    Xc = np.arange(9.0).reshape(3, 3)
    for f, x, want in ((gather_rows_from_column_one, X, 2.0 * X * weight),
                       (gather_columns_below_row_one, Xc, 2.0 * Xc * columns)):
        gf = symgrad.grad(f, shapes={"X": ("n", "d")}, backend=backend)
        arg = {"numpy": lambda a: a, "torch": lambda a: torch.from_numpy(a),
               "jax": lambda a: jnp.asarray(a)}[backend](x)
        np.testing.assert_array_equal(np.asarray(gf(arg)), want)

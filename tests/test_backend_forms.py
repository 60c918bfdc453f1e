"""The forms the array backends print for speed and for safety, beyond their numbers
(``tests/test_backends.py`` holds those): PyTorch works in place on fresh buffers, never on an
argument or an overlapping view, with mixed dtypes computed in the widest; on JAX and the Array API
the side of a ``where`` not taken computes on safe arguments, so ``jax.grad`` of a gradient has no
nan from it and NumPy arrays raise no warning. A library that is not installed skips its tests,
saying which.
"""
import ast
import importlib.util
import math
import warnings

import numpy as np
import pytest

import symgrad
from symgrad.array_torch import _overlapping
from test_backends import HAS, _needs, install_hint

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


def every_other_reversed(x):
    return np.sum(x[::-2] ** 2)


def reversed_inner_columns(X):
    return np.sum(X[:, -2:-5:-1] ** 3)


def reversed_from_five(x):
    return np.sum(x[5::-1] ** 2)


@_needs("torch")
def test_torch_takes_negative_steps_with_negative_bounds():
    """x[::-2] is flip(x)[::2]: d sum(x[::-2]^2) = 2 x on the last, third-last ... elements, 0
    between; X[:, -2:-5:-1] reads columns d-2, d-3, d-4: 3 X^2 there (by hand); x[5::-1] reads
    elements 5 down to 0: 2 x there."""
    x = np.arange(1.0, 8.0)
    gf = symgrad.grad(every_other_reversed, shapes={"x": ("n",)}, backend="torch")
    want = np.where(np.arange(7) % 2 == 0, 2.0 * x, 0.0)  # n = 7: elements 6, 4, 2, 0
    np.testing.assert_array_equal(gf(torch.from_numpy(x)).numpy(), want)
    X = np.arange(18.0).reshape(3, 6)
    gf = symgrad.grad(reversed_inner_columns, shapes={"X": ("n", "d")}, backend="torch")
    columns = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gf(torch.from_numpy(X)).numpy(), 3.0 * X ** 2 * columns)
    gf = symgrad.grad(reversed_from_five, shapes={"x": ("n",)}, backend="torch")
    np.testing.assert_array_equal(gf(torch.from_numpy(x)).numpy(),
                                  np.where(np.arange(7) <= 5, 2.0 * x, 0.0))  # elements 5 ... 0


# --- what the readable forms print -------------------------------------------------------------
def logistic(X, w, y):
    margin = y * (X @ w)
    loss = np.where(margin > 0.0, np.log1p(np.exp(-margin)), np.log1p(np.exp(margin)) - margin)
    return np.mean(loss)


LOGISTIC_SHAPES = {"X": ("n", "d"), "w": ("d",), "y": ("n",)}


@pytest.mark.parametrize("backend, where", [pytest.param("jax", "jnp.where", marks=_needs("jax")),
                                            pytest.param("array_api", "xp.where",
                                                         marks=_needs("array_api_compat"))])
def test_the_guard_names_its_condition_once(backend, where):
    """The condition the guard copies into each side is computed once, on a line of its own, and
    every where reads it; the numbers are the numpy backend's."""
    gf = symgrad.grad(logistic, wrt="w", backend=backend, shapes=LOGISTIC_SHAPES)
    assert gf.source.count("margin > 0.0") == 1
    assert "    _t0 = margin > 0.0\n" in gf.source
    assert gf.source.count(f"{where}(_t0, ") == 5, gf.source
    rng = np.random.default_rng(2)
    args = (rng.standard_normal((9, 3)), rng.standard_normal(3), rng.standard_normal(9))
    want = symgrad.grad(logistic, wrt="w", shapes=LOGISTIC_SHAPES)(*args)
    np.testing.assert_allclose(np.asarray(gf(*args)), want, rtol=1e-12)


def test_a_named_condition_is_not_read_after_what_it_reads_is_assigned_again():
    from symgrad.untaken import name_conditions
    body = ast.parse("a = w(x > 0.0, f(w(x > 0.0, x, 1.0)), 0.0)\n"
                     "b = w(x > 0.0, f(w(x > 0.0, x, 1.0)), 0.0)\n"
                     "x = x + 1.0\n"
                     "c = w(x > 0.0, 1.0, 0.0)\n"
                     "if x:\n    raise ValueError\n"
                     "d = w(x > 0.0, f(w(x > 0.0, x, 1.0)), 0.0)\n"
                     "x[1:] += 1.0\n"
                     "e = w(x > 0.0, f(w(x > 0.0, x, 1.0)), 0.0)\n").body
    names = {"_t0"}
    out = ast.unparse(ast.Module(name_conditions(body, names, "w"), []))
    assert out.splitlines() == [
        "_t1 = x > 0.0", "a = w(_t1, f(w(_t1, x, 1.0)), 0.0)", "b = w(_t1, f(w(_t1, x, 1.0)), 0.0)",
        "x = x + 1.0", "c = w(x > 0.0, 1.0, 0.0)", "if x:", "    raise ValueError",
        "_t2 = x > 0.0", "d = w(_t2, f(w(_t2, x, 1.0)), 0.0)", "x[1:] += 1.0",
        "_t3 = x > 0.0", "e = w(_t3, f(w(_t3, x, 1.0)), 0.0)"]
    assert names == {"_t0", "_t1", "_t2", "_t3"}


@_needs("array_api_compat")
def test_the_array_api_prologue_converts_each_array_in_one_line():
    gf = symgrad.grad(logistic, wrt="w", backend="array_api", shapes=LOGISTIC_SHAPES)
    lines = gf.source.splitlines()
    assert lines[2:6] == [
        "    xp = array_namespace(*([a for a in (X, w, y) if not is_numpy_array(a)] or [X]))",
        "    X = xp.asarray(X)", "    w = xp.asarray(w)", "    y = xp.asarray(y)"]


@_needs("torch")
def test_torch_gives_the_arrays_one_dtype_with_no_test_of_the_dtypes():
    """``.to`` of a tensor's own dtype is the tensor: no test of the dtypes is needed. Three
    arrays: one promote_types line; five: a loop."""
    gf = symgrad.grad(mlp, wrt=["W1", "b1", "w2"], shapes=MLP_SHAPES, backend="torch")
    assert "    dtype = W1.dtype\n    for array in (b1, w2, X, y):\n        dtype = " \
        "torch.promote_types(dtype, array.dtype)\n    W1, b1, w2, X, y = W1.to(dtype), " \
        "b1.to(dtype), w2.to(dtype), X.to(dtype), y.to(dtype)\n" in gf.source
    assert "if not" not in gf.source
    W1, b1, w2, X, y = (torch.from_numpy(a) for a in _mlp_args(3))
    assert W1.to(W1.dtype) is W1
    three = symgrad.grad(logistic, wrt="w", backend="torch", shapes=LOGISTIC_SHAPES)
    assert "    dtype = torch.promote_types(torch.promote_types(X.dtype, w.dtype), y.dtype)\n" \
        "    X, w, y = X.to(dtype), w.to(dtype), y.to(dtype)\n" in three.source
    rng = np.random.default_rng(4)
    args = (rng.standard_normal((9, 3)).astype(np.float32), rng.standard_normal(3),
            rng.standard_normal(9))
    got = three(*(torch.from_numpy(a) for a in args))
    assert got.dtype == torch.float64
    want = symgrad.grad(logistic, wrt="w", shapes=LOGISTIC_SHAPES)(*args)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


# --- negative steps, index arrays with slices: the numpy backend's numbers on each library ------
def _libraries():
    runs = []
    if HAS["torch"]:
        runs.append(("torch", torch.from_numpy))
    if HAS["array_api_compat"]:
        runs.append(("array_api", lambda a: a))
        if HAS["torch"]:
            runs.append(("array_api", torch.from_numpy))
        if HAS["jax"]:
            runs.append(("array_api", jnp.asarray))
        if HAS["array_api_strict"]:
            import array_api_strict
            runs.append(("array_api", array_api_strict.asarray))
        if importlib.util.find_spec("dask") is not None:
            import dask.array

            def dask_array(a):
                return dask.array.from_array(a, chunks=2)
            runs.append(("array_api", dask_array))
    return runs


def _as_numpy(value):
    if hasattr(value, "compute"):  # a Dask array
        return value.compute()
    if HAS["torch"] and isinstance(value, torch.Tensor):
        return value.numpy()
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    return np.asarray(value)


NEGATIVE_STEPS = ["x[5::-1]", "x[5:1:-2]", "x[:2:-1]", "x[-2:1:-1]", "x[5:-8:-1]", "x[3:-1:-1]",
                  "x[::-3]", "x[-2::-2]", "x[1::-1]", "x[n // 2::-1]", "x[:n // 2:-2]"]


def _negative_step_function(text):
    """``f(x, X) = sum(text ** 3) + sum(sin(2 X[:, <the same slice>]))``, written to a module."""
    import importlib.util
    import os
    import tempfile
    name = "negative_step_%d" % NEGATIVE_STEPS.index(text)
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w") as f:
        f.write("import numpy as np\n\n\ndef f(x, X):\n    n = x.shape[0]\n"
                f"    return np.sum({text} ** 3) + np.sum(np.sin(X[:, {text[2:-1]}] * 2.0))\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@pytest.mark.skipif(not _libraries(), reason=install_hint("torch", "array_api_compat"))
@pytest.mark.parametrize("text", NEGATIVE_STEPS)
def test_negative_steps_from_any_bound_agree_with_numpy(text):
    """PyTorch has no negative slice steps: a bound that is not negative is taken first,
    ``flip(x[b + 1:a + 1])[::c]``, and its adjoint is added through the reversed buffer at
    ``max(n - 1 - a, 0)``; the Array API the same, through ``.at`` on JAX arrays. At sizes 12,
    7 and 3 (where 5 and -8 are past the end: clamped as NumPy clamps; ``array_api_strict``
    refuses an out-of-range bound, as in the primal)."""
    f = _negative_step_function(text)
    shapes = {"x": ("n",), "X": ("m", "n")}
    rng = np.random.default_rng(len(text))
    for n in (12, 7, 3):
        x, X = rng.standard_normal(n), rng.standard_normal((2, n))
        want = symgrad.grad(f, wrt=["x", "X"], shapes=shapes)(x, X)
        for backend, convert in _libraries():
            gf = symgrad.grad(f, wrt=["x", "X"], shapes=shapes, backend=backend)
            if "strict" in convert.__module__ and n < 12 and ("5" in text or "8" in text):
                continue
            if convert.__name__ == "dask_array" and not np.any(want[0]):
                continue  # an empty slice: Dask's setitem refuses an empty value (its bug)
            got = gf(convert(x), convert(X))
            assert _close([_as_numpy(g) for g in got], want), (backend, convert, n)


I = np.array([0, 2, 2, -1])
J = np.array([1, 0, 1, 1])
I2 = np.array([[0, 2], [2, -1]])
J2 = np.array([[1, 0], [1, 1]])
Q = np.array([3, 0, 2, 1])
W = np.arange(16.0).reshape(4, 4)


def put_apart(X):
    return np.sum(X[I, :, J] ** 3)


def put_together(X):
    return np.sum(X[:, I, J] ** 3)


def put_then_slice(X):
    return np.sum(np.sin(X[I, J, 1:]))


def put_between(X):
    return np.sum(X[I, 1::2, J] ** 3)


def put_of_matrices(X):
    return np.sum(X[I2, :, J2] ** 3)


def negative_with_int_and_slice(X):
    return np.sum(X[I, 0, 1:] ** 3)


def int_apart_from_array(X):
    return np.sum(np.sin(X[1, :, Q]) * W)


PUTS = [put_apart, put_together, put_then_slice, put_between, put_of_matrices,
        negative_with_int_and_slice, int_apart_from_array]


@_needs("torch")
@pytest.mark.parametrize("f", PUTS, ids=[f.__name__ for f in PUTS])
def test_torch_index_arrays_with_slices_and_ints_agree_with_numpy(f):
    """Several index arrays with a slice: ``index_put_`` with each slice an ``arange``, every index
    placed where NumPy puts its axes. An int apart from the index array (``X[1, :, Q]``): NumPy
    puts Q's axis first, PyTorch read the int first and left it last (a transposed value, a wrong
    number before), so the int is printed as a one-element index array. A negative index with an
    int and a slice: ``index_put_`` (``index_add_`` raised on -1)."""
    X = np.random.default_rng(12).standard_normal((4, 4, 4))
    shapes = {"X": ("a", "b", "c")}
    want = symgrad.grad(f, wrt=["X"], shapes=shapes)(X)
    got = symgrad.grad(f, wrt=["X"], shapes=shapes, backend="torch")(torch.from_numpy(X))
    assert _close([got[0].numpy()], want)
    if HAS["array_api_compat"]:  # one index array, an int apart: xp.take, then xp.moveaxis
        gf = symgrad.grad(f, wrt=["X"], shapes=shapes, backend="array_api")
        assert _close([gf(torch.from_numpy(X))[0].numpy()], want)


@_needs("torch")
def test_torch_put_with_a_slice_by_hand():
    """X[I, :, J] with I = [0, 2, 2, -1], J = [1, 0, 1, 1]: 3 X^2 on (0, :, 1), twice on (2, :, 1),
    on (2, :, 0) and (3, :, 1); 0 elsewhere."""
    X = np.random.default_rng(13).standard_normal((4, 3, 2))
    want = np.zeros_like(X)
    for i, j in zip(I, J):
        want[i, :, j] += 3.0 * X[i, :, j] ** 2
    gf = symgrad.grad(put_apart, wrt=["X"], shapes={"X": ("a", "b", "c")}, backend="torch")
    assert "index_put_" in gf.source and "torch.arange(b" in gf.source
    np.testing.assert_allclose(gf(torch.from_numpy(X))[0].numpy(), want, rtol=1e-14)


def _written_max(x):  # 1.0 + max(x, -1.0) - 1.0: printed as written (SymPy's form is max(x, -1))
    t = 1.0 + max(x, -1.0) - 1.0
    if t > 0.5:
        return t * x
    return x


def _decided_max(x, i=1):  # a side chosen at build time, kept as written before a comparison
    t = max(x, -1.0) if i < 2 else x
    if t > 0.5:
        return t * x
    return x


@pytest.mark.parametrize("backend", ["torch", "jax", "array_api"])
@pytest.mark.parametrize("f", [_written_max, _decided_max])
def test_a_max_with_a_number_printed_as_written_runs_on_every_backend(f, backend):
    """torch.maximum takes tensors only: a number in a written max/min is a torch.clamp bound
    (it crashed with TypeError on torch). d(t * x)/dx = 2x above 0.5 (t = x), 1 below."""
    needed = {"torch": "torch", "jax": "jax", "array_api": "array_api_compat"}[backend]
    if not HAS[needed]:
        pytest.skip(f"{needed} not installed")
    gf = symgrad.grad(f, backend=backend)
    if backend == "torch":
        convert = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
    elif backend == "jax":
        convert = lambda v: jnp.asarray(v, dtype=jnp.float64)  # noqa: E731
    else:
        convert = lambda v: np.asarray(v, dtype=np.float64)  # noqa: E731
    for x, expected in ((2.0, 4.0), (0.3, 1.0), (-3.0, 1.0)):
        assert float(gf(convert(x))) == expected, (x, gf.source)


@pytest.mark.parametrize("backend", [pytest.param("jax", marks=_needs("jax")),
                                     pytest.param("torch", marks=_needs("torch")),
                                     pytest.param("array_api", marks=_needs("array_api_compat"))])
def test_only_code_that_may_meet_dask_arrays_refuses_unknown_sizes(backend):
    """JAX and PyTorch sizes are ints: their code has no test of a Dask array's unknown (nan)
    sizes; the Array API's runs on Dask arrays too, and keeps it (as the lazy numpy code)."""
    source = symgrad.grad(mlp, wrt="W1", shapes=MLP_SHAPES, backend=backend).source
    tested = "isinstance(n, float)" in source and "compute_chunk_sizes" in source
    assert tested == (backend == "array_api")
    assert "if W1.shape[0] != d:" in source  # the size checks stay on every backend

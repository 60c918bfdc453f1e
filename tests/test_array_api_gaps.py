"""What the Array API standard lacks and ``backend="array_api"`` prints with standard operations
instead, checked against the numpy backend's numbers (rel 1e-12) on NumPy, ``array_api_strict``
and PyTorch arrays: ``np.einsum`` and ``@`` of stacks of matrices by ``xp.matmul``; copies by
``xp.asarray(x, copy=True)`` (the standard's arrays have no ``.copy()``); the scatter-add of an
index array the code computes by a one-hot product; numbers where a ``where`` and its guard meet
the standard's rule that an operation takes at least one array. Array fuzzer cases by seed-id.
"""
import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_backend_forms import _as_numpy
from test_backends import HAS, install_hint

LIBRARIES = ["numpy", "strict", "torch"]


def _convert(library):
    if library == "numpy":
        return np.asarray
    if library == "strict":
        if not HAS["array_api_strict"]:
            pytest.skip(install_hint("array_api_strict"))
        import array_api_strict
        return array_api_strict.asarray
    if not HAS["torch"]:
        pytest.skip(install_hint("torch"))
    import torch
    return lambda a: torch.from_numpy(np.asarray(a))


def _agree(f, args, library, shapes=None):
    """The array_api gradient of ``f`` on ``library``'s arrays equals the numpy backend's."""
    if not HAS["array_api_compat"]:
        pytest.skip(install_hint("array_api_compat"))
    convert = _convert(library)
    want = symgrad.grad(f, shapes=shapes)(*args)
    got = symgrad.grad(f, shapes=shapes, backend="array_api")(*[convert(a) for a in args])
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = _as_numpy(g)
        assert g.shape == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)


def _module(tmp_path, source, name):
    return load_module(tmp_path, "import numpy as np\n\n\n" + source, name)


EINSUMS = '''def pairs(A, B, v):
    return (np.sum(np.sin(np.einsum("ij,jk->ik", A, B))) + np.sum(np.einsum("ij,j->i", A, v) ** 2)
            + np.sum(np.einsum("ij,ij->i", A, A) * v[0]) + np.einsum("ij->", A * A)
            + np.sum(np.einsum("ij->ji", A) ** 3) + np.sum(np.einsum("ij,k->k", A, v) ** 2)
            + np.sum(np.einsum("ij,jk,k->i", A, B, np.cos(v)) ** 2)
            + np.einsum("i,i->", v, v * 2.0))


def stacks(T, S):
    return (np.sum(np.tanh(T @ S)) + np.sum(np.einsum("bij,bjk->bik", T, S) ** 2)
            + np.sum(np.einsum("bij,bkl->ik", T, S) ** 2)
            + np.sum(np.einsum("bij,bjk->kib", T, S) * 0.5)
            + np.sum(np.einsum("bij,bik->jk", T, T) ** 2))
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_einsum_and_stacks_of_matrices_by_matmul(tmp_path, library):
    """``np.einsum`` (and ``@`` of rank 3, read as one) was refused on the Array API ("the Array
    API standard has no einsum"): each pair of operands is one ``xp.matmul`` (permuted, a missing
    axis made of size 1), or a broadcast product summed where several letters share a role."""
    module = _module(tmp_path, EINSUMS, "einsums")
    rng = np.random.default_rng(5)
    n, d = 4, 3
    _agree(module.pairs, (rng.normal(size=(n, d)), rng.normal(size=(d, d)),
                          rng.normal(size=d)), library)
    _agree(module.stacks, (rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3))), library)
    source = symgrad.grad(module.stacks, backend="array_api",
                          shapes={"T": ("b", "n", "n"), "S": ("b", "n", "n")}).source
    assert "xp.matmul(" in source and "xp.einsum" not in source


SIZES = '''def mean_of_sizes(X, v):
    return ((v - np.logaddexp(v[None, -1], v[None, -1]))).mean()
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_value_of_the_sizes_broadcast_is_an_array(tmp_path, library):
    """Array fuzzer 21-52: the adjoint broadcast a size, ``xp.broadcast_to(d, (1, n))``, and
    the standard broadcasts arrays only (AttributeError on array_api_strict, TypeError on
    torch): a value of the sizes alone is ``xp.full`` of the data's dtype."""
    module = _module(tmp_path, SIZES, "sizes")
    rng = np.random.default_rng(2)
    _agree(module.mean_of_sizes, (rng.normal(size=(2, 2)), rng.normal(size=(5, 2))), library,
           shapes={"X": ("n", "n"), "v": ("d", "n")})


COPIES = '''def equal_gradients(x, y):
    return np.sum((x + y) ** 2) + np.sum(x.copy() * 0.5) + np.sum(y * 0.5)
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_equal_gradients_are_returned_as_copies_the_standard_has(tmp_path, library):
    """Two equal gradients (``df_dy = df_dx``) were returned as ``df_dy.copy()``: the standard's
    arrays have no ``.copy()`` (AttributeError on array_api_strict). It is
    ``xp.asarray(df_dy, copy=True)``, an array of its own: writing one leaves the other."""
    module = _module(tmp_path, COPIES, "copies")
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.75])
    _agree(module.equal_gradients, (x, y), library, shapes={"x": ("n",), "y": ("n",)})
    gf = symgrad.grad(module.equal_gradients, shapes={"x": ("n",), "y": ("n",)},
                      backend="array_api")
    assert "copy=True" in gf.source and ".copy()" not in gf.source
    dx, dy = gf(_convert(library)(x), _convert(library)(y))
    dx[0] = 7.0
    assert float(dy[0]) == 2.0 * (x[0] + y[0]) + 0.5


GUARD_IN_EINSUM = '''def helper0(u, scale=2.0):
    return scale * np.clip(u, -0.5, 0.5)


def helper1(u, scale=2.0):
    return scale * np.maximum(u, 0.1)


def f(X, v):
    return np.einsum('ij,ij->', helper0(np.amax(np.full((v.shape[0], 1, 1, 1), 0.5)
                                               * X[None, :, None, None] * v[None, None, :, None, 1, -1]
                                               * X[None, None, None, ::-1], axis=2)).sum(axis=-3),
                     helper1(np.amax(np.minimum(v[1, :, None, 0] * v[None, :, 1, 0],
                                                np.ones((v.shape[2], len(X))) * 0.3), axis=None,
                                     keepdims=True)
                             + np.logaddexp(v[::-1, None, -1, -1] * v[None, ::-1, 1, -1],
                                            np.eye(len(X)))))
'''


@pytest.mark.parametrize("backend", ["jax", "numpy", "strict", "torch"])
def test_the_guard_keeps_the_shape_inside_a_contraction(tmp_path, backend):
    """Array fuzzer 13-114: the guard of a ``where`` side put its safe argument inside an
    ``einsum`` operand (``jnp.einsum(',ij->ij', 1.0, ... jnp.log(jnp.where(c, u, 1.0)))``) with
    a condition ``c`` of rank 3, which broadcast the operand (ValueError: subscript 'ij' does not
    contain the correct number of indices); the guard looks inside elementwise functions only."""
    module = _module(tmp_path, GUARD_IN_EINSUM, "guard_in_einsum")
    rng = np.random.default_rng(114)
    X, v = rng.uniform(-1.0, 1.0, 4), rng.uniform(-1.0, 1.0, (4, 3, 3))
    shapes = {"X": ("n",), "v": ("n", "d", "d")}
    if backend != "jax":
        _agree(module.f, (X, v), backend, shapes=shapes)
        return
    if not HAS["jax"]:
        pytest.skip(install_hint("jax"))
    import jax
    jax.config.update("jax_enable_x64", True)
    want = symgrad.grad(module.f, shapes=shapes)(X, v)
    gf = symgrad.grad(module.f, shapes=shapes, backend="jax")
    for got in (gf(X, v), jax.jit(gf)(X, v)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-13)


SIZES_GUARDED = '''def var_branch(X, v):
    t0 = (np.ones((X.shape[0], 1)) * 0.3) * (X[None])
    return np.where(v > np.var(t0), v * 2.0, np.var(t0) - 1.0)


def helper0(u):
    w = np.maximum(u, 0.1)
    return w + u * 0.5


def scaled_branch(X, v, W):
    r = X[-1, ::-1, None, None, -1] * X[..., ::-1, None, 1] * X[None, :, 0, ::-1] / (1.0 + X.size)
    m = helper0(np.ones((X.shape[1], 1, 1, 1)) * 0.3 * X[:, :, None, None, 0]
                * X[:, None, -1, :, None] * X[:, None, None, :, -1]).min(axis=3)
    return np.sum(np.linalg.inv(3.0 * np.eye(X.shape[1]) + 0.3 * np.tanh(
        np.where(r <= 0.1, np.exp(0.2 * m), r * m)[:, :, 0])))
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_guarded_denominator_of_the_sizes_is_an_array(tmp_path, library):
    """Array fuzzer 22-18 and 22-20: the guard of a denominator of the sizes alone printed
    ``xp.where(_t4, 1.0, n * n)``, a ``where`` of two Python numbers (array_api_strict: TypeError
    "Two scalars not allowed"); the size is a 0-d array of the data's dtype there."""
    module = _module(tmp_path, SIZES_GUARDED, "sizes_guarded")
    rng = np.random.default_rng(22)
    for v in (-0.2859832455751963, 0.5):
        _agree(module.var_branch, (np.array([0.3176, -0.5528]), np.float64(v)), library,
               shapes={"X": ("n",), "v": ()})
    _agree(module.scaled_branch, (rng.uniform(-1.0, 1.0, (1, 4, 5)), np.float64(0.66),
                                  np.float64(-0.86)), library,
           shapes={"X": (1, "d", "n"), "v": (), "W": ()})


COMPUTED = '''from symgrad import stop_gradient

LABELS = np.array([1, 0, 2, 1])


def permuted(x):
    return np.sum(x[np.argsort(stop_gradient(x))] * np.arange(len(x)))


def largest_rows(X):
    return np.sum(X[np.argmax(stop_gradient(X[:, 0]))] ** 2) + X[1, np.argmin(stop_gradient(X[1]))] * 3.0


def picked(Z):
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(Z.shape[0]), LABELS]) + np.trace(Z[:3, :3] @ Z[:3, :3].T)
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_index_the_code_computes_is_scattered(tmp_path, library):
    """The adjoint of indexing with an index the code computes was refused on the Array API
    ("the Array API standard has no scatter-add"): ``np.argsort``'s and ``np.argmax``'s by a
    one-hot product (the cells numbered and indexed as the primal indexes, ``==``, ``@``); a 0-d
    one as ``xp.take`` (array_api_strict takes no 0-d index array beside ``...``); an
    ``np.arange`` used only to index (``np.trace``, ``Z[np.arange(n), LABELS]``) as NumPy's ints,
    scattered by gathers (it was an arange of the data's float dtype: IndexError)."""
    module = _module(tmp_path, COMPUTED, "computed")
    rng = np.random.default_rng(9)
    _agree(module.permuted, (rng.normal(size=6),), library, shapes={"x": ("n",)})
    _agree(module.largest_rows, (rng.normal(size=(5, 3)),), library, shapes={"X": ("n", "d")})
    _agree(module.picked, (rng.normal(size=(4, 3)),), library, shapes={"Z": ("n", 3)})


STD_BRANCH = '''def std_branch(X, v):
    if v > 0.1:
        r = v
    else:
        r = np.std(X)
    return r + v
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_guarded_denominator_named_by_cse_is_an_array(tmp_path, library):
    """Array fuzzer 21-244 (also 21-409, 22-24, 22-389): the size term ``d * d`` of ``np.std``
    named by cse (``_t0 = d * d``) and then guarded as a denominator printed
    ``xp.where(_t3, 1.0, _t0)``, a ``where`` of two Python numbers (array_api_strict: TypeError
    "Two scalars not allowed"); the named term is a 0-d array of the data's dtype there too."""
    module = _module(tmp_path, STD_BRANCH, "std_branch")
    X = np.random.default_rng(244).uniform(-1.0, 1.0, (4, 4))
    shapes = {"X": ("d", "d"), "v": ()}
    for v in (0.05, 0.78):
        _agree(module.std_branch, (X, np.float64(v)), library, shapes=shapes)
    if library == "strict":  # by hand: d std(X) / dX = (X - mean) / (N std), and d/dv = 1
        import array_api_strict
        gX, gv = symgrad.grad(module.std_branch, shapes=shapes, backend="array_api")(
            array_api_strict.asarray(X), array_api_strict.asarray(0.05))
        np.testing.assert_allclose(np.asarray(gX), (X - X.mean()) / (X.size * X.std()),
                                   rtol=1e-12)
        assert float(gv) == 1.0


POSITIVE_PRODUCT = '''def positive_product(X, v):
    return np.einsum('i,i->', np.prod(np.tanh(v[None, :, 0] ** 2) * 0.5 + 1.0, axis=0), X)
'''


@pytest.mark.parametrize("library", ["torch-backend"] + LIBRARIES)
def test_the_product_of_values_sympy_knows_nonzero(tmp_path, library):
    """Array fuzzer 22-391: the adjoint of ``np.prod`` counts the zeros (``where(x == 0, 1,
    0)``); of ``1 + tanh(v) ** 2 / 2`` SymPy decides ``x == 0`` is False, and the count printed
    ``torch.where(False, ...)`` (torch and array_api on PyTorch: TypeError, a bool condition);
    such a product's adjoint is ``q / x``, no count. By hand: d/dX = p, d/dv[:, 0] = X (1 -
    tanh(v0 ** 2) ** 2) v0 with p = 1 + tanh(v0 ** 2) / 2."""
    module = _module(tmp_path, POSITIVE_PRODUCT, "positive_product")
    rng = np.random.default_rng(391)
    X, v = rng.uniform(-1.0, 1.0, 4), rng.uniform(-1.0, 1.0, (4, 4))
    shapes = {"X": ("d",), "v": ("d", "d")}
    v0 = v[:, 0]
    want_v = np.zeros((4, 4))
    want_v[:, 0] = X * (1.0 - np.tanh(v0 ** 2) ** 2) * v0
    want = (1.0 + 0.5 * np.tanh(v0 ** 2), want_v)
    if library == "torch-backend":
        if not HAS["torch"]:
            pytest.skip(install_hint("torch"))
        import torch
        got = symgrad.grad(module.positive_product, shapes=shapes, backend="torch")(
            torch.from_numpy(X), torch.from_numpy(v))
    else:
        _agree(module.positive_product, (X, v), library, shapes=shapes)
        got = symgrad.grad(module.positive_product, shapes=shapes)(X, v)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-15)


def picked_by_its_smallest(v):
    return (v[None, 1] / (1.5 + (v / (1.0 + len(v))) ** 2))[np.argmin(symgrad.stop_gradient(
        v[None, 1] / (1.5 + (v / (1.0 + len(v))) ** 2)))] * 1.5


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("shapes", [None, {"v": (4,)}], ids=["call-time", "fixed"])
def test_a_negated_scattered_value_is_not_made_a_number(library, shapes):
    """65-31: the one-hot scatter's value ``-(3.0 * xp.take(...) / 25.0)`` (a negation, an array)
    was taken for a Python number and passed to ``xp.full((), ...)``: ``array_api_strict`` raised
    TypeError (fill_value must be a Python scalar). d/dv = [0, 0.977.., -0.035.., 0]."""
    v = np.array([-0.7073933394007943, 0.7371762946012168, 0.9338412036759485,
                  -0.24097345221817568])
    _agree(picked_by_its_smallest, (v,), library, shapes)
    np.testing.assert_allclose(symgrad.grad(picked_by_its_smallest)(v),
                               [0.0, 0.97727358, -0.03506513, 0.0], atol=1e-8)


def trace_beside_steps(X, v):
    c = (np.arange(X.shape[1]) * 0.25).max()
    if c > 0.1:
        r = ((X[1, :, None]) * (X[None, 1])).trace()
    else:
        r = v
    return r + v


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_arange_read_as_data_and_as_an_index(library):
    """64-261: ``np.arange(k) * 0.25`` and ``np.trace``'s diagonal ``A[steps, steps]`` share one
    ``np.arange(k)``, printed in the data's dtype (float64) and then used as an index: every Array
    API library raised IndexError. Now NumPy's ints, converted where read as data. d/dX[1] =
    2 X[1], d/dv = 1."""
    X = np.array([[0.05, -0.56, -0.72, 0.2, -0.02], [-0.6, -0.9, -0.7, -0.27, -0.5]])
    _agree(trace_beside_steps, (X, np.array(-0.21)), library, {"X": (2, "k"), "v": ()})
    dX, dv = symgrad.grad(trace_beside_steps, shapes={"X": (2, "k"), "v": ()})(X, -0.21)
    np.testing.assert_allclose(dX, [np.zeros(5), 2 * X[1]])
    assert dv == 1.0


TRIANGLE_AND_STEPS = '''LABELS = np.array([1, 0, 2])


def triangle_and_steps(L, y):
    n = len(L)
    return (np.sum(L[np.triu_indices(n, 1)] ** 2) + np.trace(L) * 2.0
            + np.sum(L[np.arange(n), LABELS] * y))
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_triangle_indices_and_index_aranges_found_in_one_walk(tmp_path, library):
    """The names of ``np.triu_indices(n)`` and of an ``np.arange`` that only indexes are found
    in one walk of the program (``array_backends_dask.index_names``): both NumPy's ints, the
    numbers of the numpy backend."""
    module = _module(tmp_path, TRIANGLE_AND_STEPS, "triangle_and_steps")
    shapes = {"L": ("n", "n"), "y": ("n",)}
    source = symgrad.grad(module.triangle_and_steps, shapes=shapes, backend="array_api").source
    assert "compat_numpy.triu_indices(" in source and "compat_numpy.arange(3)" in source
    rng = np.random.default_rng(4)
    _agree(module.triangle_and_steps, (rng.normal(size=(3, 3)), rng.normal(size=3)), library,
           shapes=shapes)


STEPS_AS_DATA = '''LABELS = np.array([1, 0, 2])


def steps_as_data(L, y):
    n = len(L)
    return np.sum(L[np.arange(n), LABELS] * y) + np.sum(np.arange(n) * y)
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_arange_that_indexes_and_is_data(tmp_path, library):
    """One np.arange(n) both indexes (L[np.arange(n), LABELS]) and is data (np.arange(n) * y):
    NumPy's ints where it indexes, converted to the data's dtype where read (was IndexError)."""
    module = _module(tmp_path, STEPS_AS_DATA, "steps_as_data")
    rng = np.random.default_rng(6)
    _agree(module.steps_as_data, (rng.normal(size=(3, 3)), rng.normal(size=3)), library,
           shapes={"L": ("n", "n"), "y": ("n",)})


SLICE_COUNT = '''def half_mean(X):
    return np.where(np.sum(X) <= 0.1, 1.0,
                    np.sum(np.mean(X[:, X.shape[1] // 2:], axis=1) * X[:, 0]))
'''


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_guarded_count_of_a_slice_is_an_array(tmp_path, library):
    """Array fuzzer 171-1504 and 171-1310: the guard of the mean over a slice of a size known
    when called divides by its count, ``max(0.0, n - n // 2)``, Python's ``max`` of the sizes,
    which printed ``xp.where(_t3, 1.0, max(0.0, n - n // 2))``, a ``where`` of two Python numbers
    (array_api_strict: TypeError "Two scalars not allowed"); it is a 0-d array there too."""
    module = _module(tmp_path, SLICE_COUNT, "slice_count")
    X = np.array([[0.3, 0.6, -0.1], [0.2, 0.5, 0.4], [0.9, -0.3, 0.2]])
    # by hand (sum > 0.1), k = n // 2 = 1: d/dX_i0 = mean(X_i1, X_i2), d/dX_ij = X_i0 / 2 (j >= 1)
    want = np.column_stack([X[:, 1:].mean(axis=1), X[:, 0] / 2.0, X[:, 0] / 2.0])
    np.testing.assert_allclose(symgrad.grad(module.half_mean, shapes={"X": ("n", "n")})(X), want,
                               rtol=1e-12)
    for point in (X, X[:2, :2], -X):
        _agree(module.half_mean, (point,), library, shapes={"X": ("n", "n")})

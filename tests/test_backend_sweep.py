"""Every accepted indexing, reduction and linear-algebra construct of ``tests/test_array_accepted.py``
and ``tests/test_array_rows.py`` through the backends that run on other arrays: the numpy gradient
on Dask arrays (its lazy specialisation, called under a scheduler that refuses to compute: the
gradient must build a graph and compute nothing), ``backend="torch"`` (60-4: ``np.sort`` printed
as ``torch.sort``, which returns values and indices), and ``backend="array_api"`` with NumPy,
``array_api_strict``, PyTorch, JAX and Dask arrays. Each gives the numbers of the numpy gradient on
NumPy arrays (float64, relative 1e-12), which the two files hold against central differences and
hand values, or a refusal (``OptionError``) listed in ``REFUSED`` naming what the library lacks.
Hand values on Dask for each kind of index the lazy code prints differently (pointwise
``vindex``, scatter by ``np.bincount``, a one-hot for an ``np.argmax`` index) are below the sweep.

A library that is not installed skips its runs, saying which extra installs it.
"""
import importlib.util

import numpy as np
import pytest

import symgrad
import test_array_accepted as A
import test_array_rows as R
from test_backend_forms import _as_numpy
from symgrad import stop_gradient

HAS = {name: importlib.util.find_spec(name) is not None
       for name in ("dask", "jax", "torch", "array_api_compat", "array_api_strict")}
EXTRA = {"dask": "dask", "jax": "jax", "torch": "torch", "array_api_compat": "array-api",
         "array_api_strict": "array-api"}


def _needs(*packages):
    missing = [p for p in packages if not HAS[p]]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not installed: pip "
                              f"install -e '.[{','.join(EXTRA[m] for m in missing)}]'")


if HAS["dask"]:
    import dask
    import dask.array as da
if HAS["jax"]:
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
if HAS["torch"]:
    import torch
if HAS["array_api_strict"]:
    import array_api_strict


class Computed(AssertionError):
    pass


def _refusing(*args, **kwargs):
    raise Computed("the gradient computed a Dask value inside")


RNG = np.random.default_rng(90)


def v(n, low=-1.0, high=1.0):
    return RNG.uniform(low, high, n)


def m(*shape):
    return RNG.uniform(-1.0, 1.0, shape)


CASES = [(f, (v(6),)) for f in (
    A.inside, A.outside, A.negated, A.logical, A.either_side, A.clipped_above, A.clipped_below,
    A.copy_only, A.unbiased_variance, A.middle_times_first, A.from_the_end_by_half,
    A.second_differences)]
CASES += [(f, (v(4),)) for f in (A.tail_gather, A.taken, A.named_slice, A.int_list_array,
                                  A.masked)]
CASES += [
    (A.column_of_constant, (m(3, 4),)), (A.default_row, (m(5, 3),)), (A.transposed, (m(5, 3),)),
    (A.last_row, (m(5, 3),)), (A.second_half, (m(5, 3),)), (A.weighted, (m(4, 3), v(3))),
    (A.mask_cubes, (m(2, 3, 4),)), (A.mask_where, (m(2, 3),)), (A.mask_negated, (m(2, 3),)),
    (A.mask_beside_an_int, (m(2, 3, 4),)), (A.mask_after_ellipsis, (m(4, 2, 3),)),
    (A.literal_mask, (m(2, 3, 4),)), (A.mask_of_rank_three, (m(2, 3, 2, 4),)),
    (A.row_before_middle, (m(5, 6),)), (A.picked_by_constant_rows, (m(6, 3),)),
    (A.picked_by_sized_rows, (m(4, 3),)), (A.diagonal_by_steps, (m(4, 4),)),
    (A.spread, (m(5, 3),)), (A.trace_terms, (m(4, 4),)), (A.row_norms, (m(5, 3),)),
    (A.diagonal_squares, (m(3, 5),)), (A.taken_along_rows, (m(4, 3),)),
    (A.einsum_trace, (m(4, 4),)), (A.einsum_scaled_diagonal, (m(4, 4), v(4))),
    (A.einsum_apart, (m(3, 2, 3),)), (A.mean_square, (m(5, 3), v(3), v(5)))]
CASES += [(f, make(5)) for f, make, _ in R.SPECIAL + R.LSE + R.VALUE_ONLY]
CASES += [(R.solve_vector, (R.well_posed(4), v(4))), (R.solve_matrix, (R.well_posed(4), m(4, 2))),
          (R.upper_constant, (m(3, 3),)), (R.module_pairs, (m(3, 3),)),
          (R.upper_strict, (m(4, 4),)), (R.lower_unpacked, (m(4, 4),)),
          (R.lower_strict, (m(4, 4),)), (R.pairwise, (v(5),)), (R.columns, (m(3, 3),)),
          (R.split_advanced, (m(2, 4, 3),))]
assert len({f.__name__ for f, _ in CASES}) == len(CASES)

SPECIAL = "has no spelling for backend 'array_api'"
COMPUTED = "the adjoint of indexing with an index array the code computes"
ARRAY_API = ("array_api-numpy", "array_api-strict", "array_api-torch", "array_api-jax",
             "array_api-dask")
REFUSED = {  # (case, run) -> what the refusal says the library lacks
    **{(f.__name__, run): SPECIAL for f, _, _ in R.SPECIAL for run in ARRAY_API
       if f is not R.s_xlogy},
    ("sorted_weights", "dask"): "np.sort cannot be printed for Dask arrays",
    ("permuted", "dask"): "np.argsort cannot be printed for Dask arrays",
}


KNOWN = {  # (case, run): known broken (a crash, never a wrong number), strict: fixed is news
}


def _chunked(a):
    """A Dask array of ``a`` in two chunks along every axis (one where the axis has one element)."""
    return da.from_array(a, chunks=tuple(max(1, -(-s // 2)) for s in a.shape))


def _library(run):
    """(backend, convert an argument) of a run."""
    if run == "dask":
        return "numpy", _chunked
    if run == "torch":
        return "torch", torch.from_numpy
    library = run.split("-")[1]
    return "array_api", {
        "numpy": lambda a: a,
        "strict": lambda a: array_api_strict.asarray(a),
        "torch": lambda a: torch.from_numpy(a),
        "jax": lambda a: jnp.asarray(a),
        "dask": _chunked}[library]


def _to_numpy(value):
    """A result (a tuple of them, or one array of any library) as NumPy."""
    if isinstance(value, tuple):
        return tuple(_to_numpy(x) for x in value)
    return _as_numpy(value)


def _close(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w, dtype=float)
        assert g.shape == w.shape and g.dtype == np.float64, (g.shape, w.shape, g.dtype)
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14 * scale)


BUILT = {}


def _gradient(f, backend):
    """One build per function and backend, shared by the runs of the backend."""
    key = (f, backend)
    if key not in BUILT:
        BUILT[key] = symgrad.grad(f, backend=backend)
    return BUILT[key]


RUNS = [pytest.param("dask", marks=_needs("dask")),
        pytest.param("torch", marks=_needs("torch")),
        pytest.param("array_api-numpy", marks=_needs("array_api_compat")),
        pytest.param("array_api-strict", marks=_needs("array_api_compat", "array_api_strict")),
        pytest.param("array_api-torch", marks=_needs("array_api_compat", "torch")),
        pytest.param("array_api-jax", marks=_needs("array_api_compat", "jax")),
        pytest.param("array_api-dask", marks=_needs("array_api_compat", "dask"))]


INDEXING = {f.__name__ for f in (  # JAX, slow op by op, runs the index constructs only (the
    # others run through it in test_backends.py's array programs)
    A.tail_gather, A.taken, A.masked, A.column_of_constant, A.mask_cubes, A.mask_negated,
    A.mask_beside_an_int, A.mask_after_ellipsis, A.mask_of_rank_three, A.row_before_middle,
    A.picked_by_constant_rows, A.taken_along_rows, R.upper_constant, R.columns,
    R.split_advanced)}


@pytest.mark.parametrize("f, args, run", [
    pytest.param(f, args, run.values[0], marks=run.marks, id=f"{f.__name__}-{run.values[0]}")
    for f, args in CASES for run in RUNS
    if run.values[0] != "array_api-jax" or f.__name__ in INDEXING])
def test_construct_through_backend_gives_the_numpy_numbers(f, args, run, request):
    if (f.__name__, run) in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[f.__name__, run], strict=True))
    backend, convert = _library(run)
    want = _gradient(f, "numpy")(*args)
    converted = [convert(a) for a in args]
    refused = REFUSED.get((f.__name__, run))
    if refused is not None:
        with pytest.raises(symgrad.OptionError, match=refused):
            _gradient(f, backend)(*converted)
        return
    if run.endswith("dask"):  # lazy: a gradient that computed anything inside fails here
        with dask.config.set(scheduler=_refusing):
            got = _gradient(f, backend)(*converted)
    else:
        got = _gradient(f, backend)(*converted)
    _close(_to_numpy(got), want)


# --- hand values on Dask, one per kind of index the lazy code prints differently --------------
pytestmark_dask = _needs("dask")


def lazily(g, *args):
    with dask.config.set(scheduler=_refusing):
        out = g(*args)
    return out if isinstance(out, tuple) else (out,)


@pytestmark_dask
def test_pointwise_gathers_are_vindex_and_their_scatters_bincount_on_dask():
    """X[GRID] (two index arrays), np.trace / np.diag (A[steps, steps]), a triangle: Dask's
    x[...] takes one index array; by hand d/dX sum(X[GRID] ** 3) = 3 X^2 on the mask, d/dA of
    tr(A)^2 + tr(A A^T) + tr(A) = 2 tr(A) I + 2 A + I, d/dL sum(L[triu] ** 2) = 2 triu(L)."""
    X = np.arange(24.0).reshape(2, 3, 4) / 10.0
    g = symgrad.grad(A.mask_cubes)
    (got,) = lazily(g, _chunked(X))
    lazy = g.specialisation("lazy").source
    assert "X.vindex[GRID_rows, GRID_columns] if hasattr(X, 'vindex') else" in lazy
    assert "X[GRID_rows, GRID_columns]" in g.source and "vindex" not in g.source
    np.testing.assert_allclose(got.compute(), np.where(A.GRID[:, :, None], 3 * X ** 2, 0.0),
                               rtol=1e-15)
    M = np.array([[1.0, 2.0, 0.5], [-1.0, 3.0, 2.0], [0.25, 4.0, -2.0]])
    (got,) = lazily(symgrad.grad(A.trace_terms), _chunked(M))
    np.testing.assert_allclose(got.compute(), 2 * 2.0 * np.eye(3) + 2 * M + np.eye(3), rtol=1e-15)
    W = np.arange(15.0).reshape(3, 5)  # a wide matrix: its 3 diagonal elements
    hand = np.zeros_like(W)
    hand[[0, 1, 2], [0, 1, 2]] = 2 * np.array([0.0, 6.0, 12.0])
    (got,) = lazily(symgrad.grad(A.diagonal_squares), _chunked(W))
    np.testing.assert_array_equal(got.compute(), hand)
    L = np.arange(9.0).reshape(3, 3)
    (got,) = lazily(symgrad.grad(R.upper_constant, shapes={"L": (3, 3)}), _chunked(L))
    np.testing.assert_array_equal(got.compute(), 2.0 * np.triu(L))


@pytestmark_dask
def test_index_arrays_after_a_slice_keep_numpys_axes_on_dask():
    """X[..., GRID]: NumPy puts the picked axis after the leading one, vindex first (moved back);
    d/dY sum(Y[..., GRID] ** 2) = 2 Y on the mask."""
    Y = np.arange(24.0).reshape(4, 2, 3)
    g = symgrad.grad(A.mask_after_ellipsis)
    (got,) = lazily(g, _chunked(Y))
    assert "np.moveaxis(X.vindex[:, GRID_rows, GRID_columns], 0, 1)" in \
        g.specialisation("lazy").source
    np.testing.assert_array_equal(got.compute(), np.where(A.GRID, 2 * Y, 0.0))


def cubes_at_argmax(x):
    return x[np.argmax(stop_gradient(x))] ** 3


def picked_by_argmax_rows(x, X):
    return np.sum(x[np.argmax(stop_gradient(X), axis=1)] ** 2)


def row_and_argmax(X):
    return np.sum(X[np.arange(X.shape[0]), np.argmax(stop_gradient(X), axis=1)] ** 2)


@pytestmark_dask
def test_an_argmax_index_scatters_lazily_on_dask():
    """A 0-d np.argmax (a Dask value) as an index: a one-hot np.where; along an axis, np.bincount
    over the whole axis. By hand: 3 x_k^2 at the largest element; x[argmax(X, axis=1)] picks
    x[2] twice and x[0] once, so 2 * 2 x_2 and 2 x_0."""
    x = np.array([0.5, -3.0, 2.0, 1.0])
    g = symgrad.grad(cubes_at_argmax)
    (got,) = lazily(g, _chunked(x))
    assert "np.arange(n) == position" in g.specialisation("lazy").source
    np.testing.assert_array_equal(got.compute(), [0.0, 0.0, 12.0, 0.0])
    (got,) = lazily(symgrad.grad(R.smallest_row), _chunked(np.arange(12.0).reshape(4, 3)))
    np.testing.assert_array_equal(got.compute(), [[0.0, 2.0, 4.0], [0.0] * 3, [0.0] * 3,
                                                  [0.0] * 3])
    X = np.array([[0.0, 0.0, 1.0], [3.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    g = symgrad.grad(picked_by_argmax_rows, wrt="x")
    x = np.array([1.5, -1.0, 0.25])
    (got,) = lazily(g, _chunked(x), _chunked(X))
    assert "np.bincount" in g.specialisation("lazy").source
    np.testing.assert_array_equal(got.compute(), [2 * 1.5, 0.0, 4 * 0.25])
    np.testing.assert_array_equal(g(x, X), [2 * 1.5, 0.0, 4 * 0.25])


@pytestmark_dask
def test_what_dask_cannot_index_or_sort_is_refused_naming_it():
    X = np.arange(12.0).reshape(4, 3)
    with pytest.raises(symgrad.OptionError, match=r"index the code computes from the data .* "
                       r"together with other index arrays .*'jax' and 'torch' have it"):
        lazily(symgrad.grad(row_and_argmax), _chunked(X))
    np.testing.assert_array_equal(symgrad.grad(row_and_argmax)(X),
                                  np.where(np.arange(3) == 2, 2 * X, 0.0))  # NumPy runs it
    with pytest.raises(symgrad.OptionError, match="np.argsort cannot be printed for Dask arrays "
                       ".*Dask has no sort"):
        lazily(symgrad.grad(R.permuted), _chunked(np.array([0.5, -3.0, 2.0, 1.0])))


# --- the Array API scatter-add: rounds over the rows picked, the floats of np.add.at -----------
HEAVY = np.array([3, 0, 3, 3, -1, 3, 0, 3])  # row 3 five times, row 0 twice, the last row once


def sliced_and_heavy(E):
    return np.sum(E[1:] ** 2) + np.sum(E[HEAVY] ** 3)


@pytest.mark.parametrize("run", [r for r in RUNS if r.values[0].startswith("array_api")])
def test_the_array_api_scatter_add_keeps_the_floats_of_np_add_at(run):
    """A buffer already holding a slice's adjoint (rows 1 on: 2 E), then E[HEAVY]'s, row by row in
    the order of the index: the same floats as np.add.at on that buffer, and by hand 2 E + 3 E^2
    times how often each row is picked."""
    E = np.random.default_rng(4).standard_normal((6, 3)) * 10.0 ** np.arange(-3, 3)[:, None]
    buffer = np.zeros_like(E)
    buffer[1:] += 2 * E[1:]
    np.add.at(buffer, HEAVY, 3 * E[HEAVY] ** 2)
    times = np.bincount(HEAVY % 6, minlength=6)[:, None]
    np.testing.assert_allclose(buffer, 2 * E * (np.arange(6) >= 1)[:, None] + 3 * times * E ** 2,
                               rtol=1e-14)
    backend, convert = _library(run)
    g = symgrad.grad(sliced_and_heavy, backend=backend, shapes={"E": ("n", "k")})
    assert "for _round in range(" in g.source and "while" not in g.source
    if run.endswith("dask"):
        with dask.config.set(scheduler=_refusing):
            got = g(convert(E))
    else:
        got = g(convert(E))
    np.testing.assert_array_equal(_to_numpy(got), buffer)
    np.testing.assert_array_equal(symgrad.grad(sliced_and_heavy)(E), buffer)  # numpy: np.add.at


# --- triangles of a call-time size (the differential fuzzer's AB4, AB10, AB11, AB12) -----------
def triangle_products(X):
    i, j = np.triu_indices(X.shape[0], 0)
    return np.sum(X[:, -1][i] * X[:, -1][j])


def triangle_if(X):
    i, j = np.triu_indices(X.shape[0], 1)
    if X[-1, -1] > 0.1:
        r = np.sum(((X * X[None, :, -1])[i, j]) ** 2)
    else:
        r = 0.5
    return r + 0.5


def triangle_of_a_product(v):
    i, j = np.triu_indices(len(v), 0)
    return np.sum(((v[..., None, 1] * v[None, :, 1])[i, j]) ** 2)


def _run(g, run, *args):
    convert = _library(run)[1]
    if run.endswith("dask"):
        with dask.config.set(scheduler=_refusing):
            got = g(*[convert(a) for a in args])
        return _to_numpy(got)
    return _to_numpy(g(*[convert(a) for a in args]))


@pytest.mark.parametrize("run", [r for r in RUNS if r.values[0] != "array_api-jax"])
def test_triangles_of_a_call_time_size_index_and_scatter_on_every_library(run):
    """np.triu_indices(n) is NumPy's on the Array API (which has none), indexing as a constant.
    By hand: sum_{i <= j} x_i x_j = (S^2 + sum x^2) / 2, so d/dx_k = S + x_k on the last column;
    sum_{i < j} (x_i x_j)^2 gives 2 x_k sum_{j != k} x_j^2 where the branch is taken, 0 where
    not; sum_{i <= j} (v_i v_j)^2 of v's second column gives 2 v_k (S2 + v_k^2), S2 = sum v^2."""
    backend = _library(run)[0]
    X = np.arange(1.0, 17.0).reshape(4, 4) / 8.0
    x = X[:, -1]
    hand = np.zeros_like(X)
    hand[:, -1] = x.sum() + x
    np.testing.assert_allclose(
        _run(symgrad.grad(triangle_products, backend=backend, shapes={"X": ("n", "d")}), run, X),
        hand, rtol=1e-14)
    g = symgrad.grad(triangle_if, backend=backend, shapes={"X": (3, 1)})
    for last in (0.5, 0.05):
        Y = np.array([[1.0], [2.0], [last]])
        y = Y[:, 0]
        hand = 2 * y * (np.sum(y ** 2) - y ** 2) if last > 0.1 else np.zeros(3)
        np.testing.assert_allclose(_run(g, run, Y), hand[:, None], rtol=1e-14)
    V = np.array([[0.0, 1.0], [5.0, -2.0], [7.0, 0.5]])
    s = V[:, 1]
    hand = np.zeros_like(V)
    hand[:, 1] = 2 * s * (np.sum(s ** 2) + s ** 2)
    np.testing.assert_allclose(_run(symgrad.grad(triangle_of_a_product, backend=backend,
                                                 shapes={"v": (3, 2)}), run, V), hand, rtol=1e-14)

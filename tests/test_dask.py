"""The numpy gradient of array code run on Dask arrays: a lazy graph, computed chunk by chunk.

Every gradient here is called under a scheduler that raises on any compute, so a gradient that
computes anything inside (``float()`` of a 0-d array, ``np.asarray`` of an input, a NumPy buffer
updated from a Dask value) fails; its results are then computed with the default scheduler and
compared with the same gradient on the NumPy arrays (rel 1e-12). Skipped, with the reason, when
Dask is not installed (``pip install -e '.[dask]'``).
"""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special

import symgrad

da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e '.[dask]'")
import dask  # noqa: E402 - after the skip

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmarks"))
import array_workloads as aw  # noqa: E402

ROWS, CHUNKS = 10**6, 10
INDEX = np.array([0, 2, 0])
PERMUTED = np.array([3, 0, 2])  # each row at most once
WRAPPED = np.array([0, -3])  # row 0 twice (of 3 rows)


class Computed(AssertionError):
    pass


def refuse(*args, **kwargs):
    """A Dask scheduler that computes nothing: any compute inside a gradient fails the test."""
    raise Computed("the gradient computed a Dask value inside")


def lazily(g, *args):
    """``g(*args)`` under the refusing scheduler, as a tuple of its results."""
    with dask.config.set(scheduler=refuse):
        out = g(*args)
    return out if isinstance(out, tuple) else (out,)


def chunked(value, rows):
    """A Dask array of ``value`` in ``CHUNKS`` chunks along its first axis, if it has ``rows``
    rows; else ``value`` itself (a small parameter stays NumPy: mixing is allowed)."""
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == rows:
        return da.from_array(value, chunks=(-(-rows // CHUNKS),) + value.shape[1:])
    return value


def assert_agrees(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, da.Array), type(g)
    computed = dask.compute(*got)
    for g, w in zip(computed, want):
        assert np.shape(g) == np.shape(w)
        assert aw.max_rel_err([g], [w]) <= 1e-12


def test_the_refusing_scheduler_refuses():
    with dask.config.set(scheduler=refuse), pytest.raises(Computed):
        da.ones(4, chunks=2).sum().compute()


@pytest.mark.parametrize("key", ["A1", "A2"])
def test_least_squares_and_logistic_gradients_at_a_million_rows_are_lazy_and_agree(key):
    wl = aw.WORKLOADS[key]
    rng = np.random.default_rng([aw.SEED, int(key[1:]), 7])
    args = wl.make(rng, n=ROWS, d=wl.sizes["large"]["d"])
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES[key])
    want = g(*args)
    dask_args = [chunked(a, ROWS) for a in args]
    assert dask_args[aw.param_names(wl.f).index("X")].numblocks[0] == CHUNKS
    got = lazily(g, *dask_args)
    assert_agrees(got, want)
    if key == "A1":  # the gradient for the scalar b: a 0-d Dask array, a float from NumPy
        assert got[1].shape == () and type(want[1]) is float


def test_value_and_grad_gives_a_lazy_value_too():
    wl = aw.WORKLOADS["A2"]
    w, X, y = aw.make_args("A2", "small")
    g = symgrad.value_and_grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A2"])
    with dask.config.set(scheduler=refuse):
        value, (dw,) = g(w, da.from_array(X, chunks=(100, 20)), da.from_array(y, chunks=100))
    want_value, want = g(w, X, y)
    assert type(want_value) is float and value.shape == ()
    assert_agrees((value, dw), (want_value, want[0]))


@pytest.mark.parametrize("key", ["A3", "A4", "A5", "A6", "A7", "A8"])
def test_the_other_workloads_are_lazy_and_agree(key):
    wl = aw.WORKLOADS[key]
    args = aw.make_args(key, "small")
    rows = max(np.shape(a)[0] for a in args if np.ndim(a))
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES[key])
    assert_agrees(lazily(g, *[chunked(a, rows) for a in args]), g(*args))


@pytest.mark.parametrize("key", sorted(aw.WORKLOADS))
def test_any_one_argument_may_be_the_dask_one(key):
    """Dask and NumPy arguments mixed any way: a buffer the gradient updates in place is never a
    NumPy array meeting a Dask operand (NumPy cannot write a Dask value into it)."""
    wl = aw.WORKLOADS[key]
    args = aw.make_args(key, "small")
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES[key])
    want = g(*args)
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray):
            mixed = list(args)
            mixed[k] = da.from_array(a, chunks=tuple(-(-n // 2) for n in a.shape))
            got = lazily(g, *mixed)
            assert aw.max_rel_err(dask.compute(*got), want) <= 1e-12


# --- one specialisation per library kind ------------------------------------------------------
DASK_PROLOGUE = ("__array_function__", "compute_chunk_sizes", "isinstance(")


@pytest.mark.parametrize("key", sorted(aw.WORKLOADS))
def test_numpy_and_dask_calls_get_specialisations_of_their_own_with_equal_numbers(key):
    """The same gradient object called with NumPy and then with Dask arguments: two builds of
    one pattern, the NumPy one plain (no Dask prologue: one np.asarray line per parameter, no
    unknown-size test, a scalar result a float), the lazy one lazy; equal numbers; each later
    call (NumPy, Dask, NumPy at the same shapes) goes to its own."""
    wl = aw.WORKLOADS[key]
    args = aw.make_args(key, "small")
    rows = max(np.shape(a)[0] for a in args if np.ndim(a))
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES[key])
    want = g(*args)
    plain = g.source
    got = lazily(g, *[chunked(a, rows) for a in args])
    assert_agrees(got, want if isinstance(want, tuple) else (want,))
    assert {library for library, _ in g.specialisations.by_pattern} == {"numpy", "lazy"}
    assert len(g.specialisations.by_pattern) == 2
    lazy = g.specialisation("lazy").source
    assert g.source == plain == g.specialisation("numpy").source  # .source: the NumPy one
    assert not any(text in plain for text in DASK_PROLOGUE), plain
    assert "__array_function__" in lazy and ".astype(float)" in lazy, lazy
    for p in aw.param_names(wl.f):
        assert f"    {p} = np.asarray({p}, dtype=float)\n" in plain
    again = g(*args)
    for a, b in zip(again if isinstance(again, tuple) else (again,),
                    want if isinstance(want, tuple) else (want,)):
        assert type(a) is type(b) and np.array_equal(a, b)
    assert all(isinstance(r, da.Array) for r in lazily(g, *[chunked(a, rows) for a in args]))


def test_a_scalar_result_is_a_plain_float_in_numpy_code_and_lazy_in_dask_code():
    wl = aw.WORKLOADS["A1"]
    w, b, X, y = aw.make_args("A1", "small")
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A1"])
    assert "    dleast_squares_db = float(" in g.source
    dw, db = g(w, b, X, y)
    assert type(db) is float
    lazy_dw, lazy_db = lazily(g, w, b, da.from_array(X, chunks=(100, 10)),
                              da.from_array(y, chunks=100))
    assert isinstance(lazy_db, da.Array) and lazy_db.shape == ()
    assert abs(float(lazy_db.compute()) - db) <= 1e-12 * abs(db)
    assert "    if (isinstance(dleast_squares_db, np.ndarray)" in g.specialisation("lazy").source


def test_without_shapes_each_library_is_built_at_its_first_call():
    """No shapes=: the pattern is read once, at the NumPy call; the Dask call of the same pattern
    builds the lazy specialisation from that reading."""
    def centred_square(X):
        return np.sum((X - np.mean(X, axis=0)) ** 2) / X.shape[0]

    g = symgrad.grad(centred_square)
    X = np.random.default_rng(3).standard_normal((40, 3))
    want = g(X)
    (got,) = lazily(g, da.from_array(X, chunks=(10, 3)))
    np.testing.assert_allclose(got.compute(), want, rtol=1e-12)
    np.testing.assert_allclose(want, 2.0 * (X - X.mean(axis=0)) / 40, rtol=1e-12)
    assert sorted(library for library, _ in g.specialisations.by_pattern) == ["lazy", "numpy"]
    assert len(g.specialisations.programs) == 1
    assert "__array_function__" not in g.source


def test_the_lazy_specialisation_of_numpy_arguments_gives_the_same_numbers():
    """What export writes for Dask users on request (``g.specialisation("lazy")``) still takes
    NumPy arrays: it converts them as the NumPy code does."""
    wl = aw.WORKLOADS["A6"]
    args = aw.make_args("A6", "small")
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A6"])
    lazy = g.specialisation("lazy")
    assert aw.max_rel_err(lazy(*args), g(*args)) <= 1e-12
    with pytest.raises(symgrad.OptionError, match="library must be one of"):
        g.specialisation("dask")


# --- more rows of the array table ----------------------------------------------------------------
def where_sqrt(x):
    return np.sum(np.where(x > 0.0, np.sqrt(np.abs(x)), 0.0))


def row_scale(X, s):
    return np.sum(np.tanh(X * s[:, None]))


def centred(X):
    return np.sum((X - np.mean(X, axis=1, keepdims=True)) ** 2)


def table_reads(X):
    return X.sum(axis=0).max() + X.mean() + X.T[0].min() + np.max(X, axis=1).sum()


def einsum_square(X, w):
    return np.sum(np.einsum("ij,j->i", X, w) ** 2)


def pairs(x):
    return np.sum(np.reshape(x, (-1, 2)) ** 3) + np.sum(x[::2] ** 2) + np.sum(x[1:] * x[:-1])


def clipped_cumsum(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2) + np.sum(np.cumsum(x) ** 2) / 1e6


def joined(x, y):
    return np.sum(np.concatenate([x, y]) ** 2) + np.sum(np.stack([x, y]) ** 3)


def products(x, y):
    return x.dot(y) + np.inner(x, y) + np.logaddexp(x, 0.0).sum() + np.linalg.norm(x) \
        + np.prod(x[:20] * 0.01 + 1.0) + np.sum(np.maximum(x, y))


def aliased(x, y):
    return np.sum(x * y)  # d/dx is y itself: returned as a copy


ROWS_SHAPES = [
    (where_sqrt, {"x": ("n",)}, ("x",)),
    (row_scale, {"X": ("n", "d"), "s": ("n",)}, ("X", "s")),
    (centred, {"X": ("n", "d")}, ("X",)),
    (table_reads, {"X": ("n", "d")}, ("X",)),
    (einsum_square, {"X": ("n", "d"), "w": ("d",)}, ("X", "w")),
    (pairs, {"x": ("n",)}, ("x",)),
    (clipped_cumsum, {"x": ("n",)}, ("x",)),
    (joined, {"x": ("n",), "y": ("n",)}, ("x", "y")),
    (products, {"x": ("n",), "y": ("n",)}, ("x", "y")),
    (aliased, {"x": ("n",), "y": ("n",)}, ("x",)),
]


@pytest.mark.parametrize("f, shapes, wrt", ROWS_SHAPES, ids=[r[0].__name__ for r in ROWS_SHAPES])
def test_array_rows_are_lazy_and_agree(f, shapes, wrt):
    rng = np.random.default_rng(11)
    n = 10_000
    sizes = {"n": n, "d": 4}
    args = [rng.standard_normal(tuple(sizes[s] for s in shapes[p])) for p in shapes]
    g = symgrad.grad(f, wrt=list(wrt), shapes=shapes)
    assert_agrees(lazily(g, *[chunked(a, n) for a in args]), g(*args))


def test_a_dask_array_of_unknown_size_is_refused_not_a_nan_gradient():
    wl = aw.WORKLOADS["A1"]
    w, b, X, y = aw.make_args("A1", "small")
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A1"])
    dX = da.from_array(X, chunks=(100, 10))
    keep = dX[:, 0] > -np.inf  # every row, but Dask cannot know how many
    masked = dX[keep]
    assert np.isnan(masked.shape[0])
    with pytest.raises(ValueError, match=r"sizes of X are unknown \(nan\): call "
                                         r"X\.compute_chunk_sizes\(\) first"):
        lazily(g, w, b, masked, da.from_array(y, chunks=100)[keep])
    masked_y = da.from_array(y, chunks=100)[keep]
    masked.compute_chunk_sizes()
    masked_y.compute_chunk_sizes()
    assert_agrees(lazily(g, w, b, masked, masked_y), g(w, b, X, y))


def test_integer_and_float32_dask_inputs_compute_in_float64_as_numpy_ones_do():
    g = symgrad.grad(aliased, wrt=["x"], shapes={"x": ("n",), "y": ("n",)})
    for dtype in (np.int64, np.float32):
        y = np.arange(1, 1001).astype(dtype) * dtype(3)
        (got,) = lazily(g, da.ones(1000, chunks=100, dtype=dtype), da.from_array(y, chunks=100))
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got.compute(), np.asarray(y, dtype=float))
        assert g(np.ones(1000, dtype=dtype), y)[0].dtype == np.float64


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_numpy_inputs_are_still_converted_a_matrix_to_an_ndarray():
    # np.matrix implements __array_function__ but `*` on it is a matrix product: it must be an
    # ndarray in the gradient (d/dX sum(X * X * Y) = 2 X Y elementwise)
    def_shapes = {"X": ("n", "d"), "Y": ("n", "d")}
    g = symgrad.grad(square_weighted, wrt=["X"], shapes=def_shapes)
    X, Y = np.arange(4.0).reshape(2, 2), np.array([[1.0, 2.0], [3.0, 4.0]])
    (got,) = g(np.matrix(X), np.matrix(Y))
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, 2.0 * X * Y)


def square_weighted(X, Y):
    return np.sum(X * X * Y)


def gather(E):
    return np.sum(E[INDEX] ** 2)


REPEATED = np.array([0, 2, 2, -1])  # row 2 twice, and the last row


def cubes_picked(x):
    return np.sum(x[REPEATED] ** 3)


def rows_picked(E):
    return np.sum(E[REPEATED] ** 2)


@pytest.mark.parametrize("f, shape", [(cubes_picked, (10**5,)), (rows_picked, (10**5, 3))],
                         ids=["1-D", "rows of 2-D"])
def test_a_scatter_through_repeated_and_negative_indices_is_lazy_on_dask(f, shape):
    """REPEATED picks row 2 twice and row n - 1 as -1: the lazy code sums what each row gets by
    np.bincount (Dask has no np.add.at), chunk by chunk. By hand: f' = k x^(k-1) per pick, so
    row 0 gets it once, row 2 twice, row n - 1 once, every other row 0."""
    name = f.__code__.co_varnames[0]
    g = symgrad.grad(f, wrt=[name], shapes={name: ("n", "d")[:len(shape)]})
    x = np.random.default_rng(5).standard_normal(shape)
    power = 3 if f is cubes_picked else 2
    want = np.zeros(shape)
    for row, times in ((0, 1), (2, 2), (-1, 1)):
        want[row] = times * power * x[row] ** (power - 1)
    (plain,) = g(x)
    assert aw.max_rel_err([plain], [want]) <= 1e-15
    dx = da.from_array(x, chunks=(-(-shape[0] // 7),) + shape[1:])
    assert dx.numblocks[0] == 7
    got = lazily(g, dx)
    assert "np.bincount" in g.specialisation("lazy").source and "np.add.at" not in \
        g.specialisation("lazy").source
    assert "np.add.at" in g.source  # the NumPy code keeps np.add.at
    assert_agrees(got, (plain,))
    np.testing.assert_allclose(got[0].compute(), want, rtol=1e-12, atol=0)


def test_a_negative_index_on_dask_is_one_element_with_its_positive_twin():
    """WRAPPED picks row 0 as 0 and as -3 of 3 rows: one element, 2 * 2 E[0] by hand."""
    g = symgrad.grad(gather_wrapped, wrt=["E"], shapes={"E": ("n", "d")})
    E = np.arange(9.0).reshape(3, 3)
    (got,) = lazily(g, da.from_array(E, chunks=(2, 3)))
    np.testing.assert_array_equal(got.compute(), 4.0 * E * np.array([[1.0], [0.0], [0.0]]))


def sliced_rows_picked(L):
    return np.sum(L[REPEATED, 1:] ** 3) + np.sum(L[1:] ** 2)


def test_a_scatter_through_an_index_array_and_a_slice_is_lazy_and_agrees():
    """Two indexed axes (an index array, a slice) numbered together, the buffer reshaped to one
    axis for the store; a slice's adjoint added to the same buffer."""
    g = symgrad.grad(sliced_rows_picked, wrt=["L"], shapes={"L": ("n", "d")})
    L = np.random.default_rng(6).standard_normal((10**5, 4))
    (plain,) = g(L)
    want = np.zeros_like(L)
    want[1:] = 2.0 * L[1:]
    for row, times in ((0, 1), (2, 2), (-1, 1)):
        want[row, 1:] += times * 3.0 * L[row, 1:] ** 2
    np.testing.assert_allclose(plain, want, rtol=1e-14)
    assert_agrees(lazily(g, da.from_array(L, chunks=(10**4, 4))), (plain,))


def test_an_index_out_of_range_on_dask_is_an_index_error_never_a_number():
    """n is known only when called: the lazy code's np.arange(n)[INDEX] raises as NumPy does."""
    g = symgrad.grad(gather_far, wrt=["E"], shapes={"E": ("n", "d")})
    with pytest.raises(IndexError):
        g(np.ones((4, 3)))
    with pytest.raises(IndexError):
        dask.compute(*lazily(g, da.ones((4, 3), chunks=2)))


FAR = np.array([0, 5, 5])


def gather_far(E):
    return np.sum(E[FAR] ** 2)


def gather_distinct(E):
    return np.sum(E[PERMUTED] ** 2)


def gather_wrapped(E):
    return np.sum(E[WRAPPED] ** 2)


def test_a_scatter_through_distinct_indices_is_lazy_on_dask():
    """Rows picked at most once: ``z[PERMUTED] = g`` (no accumulation: the same numbers as
    np.add.at), which Dask runs lazily. By hand: 2 E on rows 3, 0, 2 and 0 on row 1."""
    g = symgrad.grad(gather_distinct, wrt=["E"], shapes={"E": ("n", "d")})
    assert "np.add.at" not in g.source
    E = np.arange(12.0).reshape(4, 3)
    want = 2.0 * E * np.array([[1.0], [0.0], [1.0], [1.0]])
    np.testing.assert_array_equal(g(E)[0], want)
    (got,) = lazily(g, da.from_array(E, chunks=(2, 3)))
    assert isinstance(got, da.Array)
    np.testing.assert_array_equal(got.compute(), want)


def test_a_negative_index_is_one_element_with_its_positive_twin():
    """WRAPPED picks row 0 as 0 and as -3: it accumulates (np.add.at), 2 * 2 E[0] by hand."""
    g = symgrad.grad(gather_wrapped, wrt=["E"], shapes={"E": ("n", "d")})
    assert "np.add.at" in g.source
    E = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(g(E)[0], 4.0 * E * np.array([[1.0], [0.0], [0.0]]))


def test_array_api_takes_numpy_and_dask_arguments_mixed():
    """A1 with w a NumPy array and X, y Dask arrays through the Array API: the NumPy ones are
    converted to Dask (``xp.asarray``), lazily; the numbers of the NumPy gradient."""
    pytest.importorskip("array_api_compat", reason="pip install -e '.[array-api]'")
    wl = aw.WORKLOADS["A1"]
    args = aw.make_args("A1", "small")
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A1"], backend="array_api")
    want = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A1"])(*args)
    assert_agrees(lazily(g, *[chunked(a, 1000) for a in args]), want)


def test_importing_symgrad_imports_no_dask():
    code = "import sys, symgrad; print(sorted(m for m in sys.modules if m.split('.')[0] == 'dask'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_source_follows_the_latest_pattern_called_whatever_its_library():
    """.source is the NumPy code of the latest pattern called, also after calls by keyword or with
    Dask arguments of another pattern (built then for NumPy when .source is read)."""
    def scaled(x, s):
        return np.sum(np.exp(x * s))

    g = symgrad.grad(scaled, wrt="x")
    x = np.linspace(-1.0, 1.0, 6)
    g(x, 0.5)                                      # s a number
    assert "s = np.asarray(s, dtype=float)" in g.source and "s.shape[0]" not in g.source
    g(x=x, s=np.full(6, 0.5))                      # s an array, by keyword
    assert "s.shape[0]" in g.source
    g(x, 0.5)                                      # back to the first pattern, positionally
    assert "s.shape[0]" not in g.source
    (got,) = lazily(g, da.from_array(x, chunks=3), np.full(6, 0.5))  # Dask, the array pattern
    np.testing.assert_allclose(got.compute(), 0.5 * np.exp(0.5 * x), rtol=1e-12)
    assert "s.shape[0]" in g.source and "__array_function__" not in g.source


def test_the_array_api_backend_still_refuses_unknown_sizes():
    """The unknown-size test is left out of the NumPy specialisation only: array_api code runs on
    Dask arrays through array_api_compat, and needs it."""
    pytest.importorskip("array_api_compat", reason="pip install -e '.[array-api]'")
    wl = aw.WORKLOADS["A1"]
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES["A1"], backend="array_api")
    assert "compute_chunk_sizes" in g.source


def test_scalar_code_on_dask_is_lazy_through_array_api():
    """Scalar code has no lazy specialisation: its numpy gradient converts with ``np.asarray``
    (which computes a Dask array); ``backend="array_api"`` keeps it lazy (docs/backends.md)."""
    pytest.importorskip("array_api_compat", reason="pip install -e '.[array-api]'")
    import math

    def f(x, y):
        return math.sin(x) * y + x * x if x > 0.5 else math.exp(x) * y

    x, y = np.linspace(-1.0, 2.0, 40), np.linspace(0.5, 1.5, 40)
    want = symgrad.grad(f, backend="numpy")(x, y)
    got = lazily(symgrad.grad(f, backend="array_api"), da.from_array(x, chunks=10),
                 da.from_array(y, chunks=10))
    assert_agrees(got, want)
    with pytest.raises(Computed):  # the numpy code's np.asarray computes
        lazily(symgrad.grad(f, backend="numpy"), da.from_array(x, chunks=10), y)
    exact = np.where(x > 0.5, np.cos(x) * y + 2 * x, np.exp(x) * y)  # by hand
    np.testing.assert_allclose(want[0], exact, rtol=1e-14)


def digammas(x):
    return np.sum(scipy.special.digamma(x) * x)


def test_digamma_s_derivative_is_lazy_on_dask_with_scipy_s_floats():
    """``digamma' = polygamma(1, x)``: SciPy's ``polygamma`` is a Python function that calls
    ``np.asarray`` (it computed the Dask array inside the gradient); the lazy code prints SciPy's
    own formula, the ufunc ``scipy.special.zeta(2.0, x)``, which gives the same floats."""
    x = np.array([0.5, 3.0, -1.5, 1e-3, 40.0, -0.25, 7.5])
    g = symgrad.grad(digammas, shapes={"x": ("n",)})
    want = scipy.special.digamma(x) + x * scipy.special.polygamma(1, x)  # by hand
    np.testing.assert_allclose(g(x), want, rtol=1e-15, atol=0)
    with dask.config.set(scheduler=refuse):
        got = g(da.from_array(x, chunks=3))
    np.testing.assert_array_equal(got.compute(), g(x))
    assert "scipy.special.zeta(2.0, x)" in g.specialisation("lazy").source
    assert "scipy.special.polygamma(1, x)" in g.source  # the NumPy code keeps SciPy's name

"""Reductions over an axis of no element (an empty slice: ``x[1:len(x) - 1]`` of 2 elements,
``X[:, 2:]`` of 2 columns) are constants that do not depend on their operand, so everything
downstream through them has derivative 0 (array fuzzer 124-1454: ``cbrt`` of a sum over nothing
had gradient nan, cbrt's inf at 0 times an adjoint of no element); and a reshape's element
counts that meet through an equality found before (array fuzzer 124-747). Each value by hand,
cross-checked with central differences of the primal."""
import pathlib
import tempfile
import warnings

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found import HAS, _central
from test_backends import RUNS, _library, _to_numpy

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_array_empties_"))

REDUCTIONS = {  # each 0 where v has 2 elements (the slices v[2:], X[:, 2:], X[2:, 2:] empty)
    "prod": "np.prod(v[2:]) - 1.0",
    "dot": "np.dot(v[2:], v[2:])",
    "matmul": "np.sum(X[:, 2:] @ v[2:])",
    "einsum": "np.einsum('ij,j->', X[:, 2:], v[2:])",
    "norm": "np.linalg.norm(v[2:])",
    "cumsum": "np.sum(np.cumsum(v[2:]))",
    "trace": "np.trace(X[2:, 2:])",
    "det": "np.linalg.det(X[2:, 2:]) - 1.0",
    "slogdet": "np.linalg.slogdet(X[2:, 2:])[1]",
    "sum_of_sums": "np.mean(np.sum(2.0 * X[:, 2:], axis=1))",
    "zeros": "np.sum(np.zeros(len(v)) * v)",  # 0 at every size: an array of zeros, summed
}
PARTS = {name: f"np.cbrt(({r}) * np.sum(v))" for name, r in REDUCTIONS.items()}
PARTS["sum"] = "np.cbrt(np.mean(np.sum(v[None, ::-1][:, 1:len(v) - 1], axis=1)))"  # 124-1454


def _module(parts, name):
    body = " + ".join(parts)
    return load_module(DIRECTORY, "import numpy as np\n\n\ndef f(X, v):\n    return "
                       f"{body} + np.sum(v * v) + 0.5 * np.sum(X * X)\n", name)


def _points(n, rng):
    """X of shape (n, n) and v of n elements where every part has a finite derivative: each
    reduction away from 0 (the products and determinants of v[2:] and X[2:, 2:] away from 1)."""
    X = 2.0 * np.eye(n) + rng.uniform(0.0, 0.3, (n, n))
    v = rng.uniform(1.2, 1.8, n)
    return X, v


def _check(module, gf, X, v, convert=lambda a: a, lazy=False):
    got = gf(convert(X), convert(v))
    if lazy:
        assert all(hasattr(g, "dask") for g in got), [type(g) for g in got]
        got = tuple(g.compute() for g in got)
    gX, gv = _to_numpy(got)
    if len(v) == 2:  # every part is a constant: only the sums of squares vary
        np.testing.assert_allclose(gv, 2.0 * v, rtol=1e-14, atol=0.0)
        np.testing.assert_allclose(gX, X, rtol=1e-14, atol=0.0)
    want_X = _central(lambda a: module.f(a, v), X)
    want_v = _central(lambda a: module.f(X, a), v)
    assert np.all(np.isfinite(gX)) and np.all(np.isfinite(gv)), (gX, gv)
    np.testing.assert_allclose(gX, want_X, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gv, want_v, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("part", sorted(PARTS))
def test_a_reduction_over_nothing_has_derivative_zero(part):
    """At 2 elements the slice ``v[2:]`` (and ``v[1:len(v) - 1]``, ``X[:, 2:]``) is empty: the
    sum over it is 0, the product 1, ``np.dot``/``@``/``np.einsum`` of length 0 are 0 (an array
    of zeros, summed: 0), the determinant of a 0 by 0 matrix 1, so each part, ``cbrt`` of 0,
    is 0 whatever v and X are, and the gradient is that of the sums of squares alone, (X, 2 v).
    It was nan (``cbrt``'s inf at 0 times 0, the reduction's value or the slice's adjoint of no
    element). Built with the sizes as numbers, as names and at the call, called at 2 elements
    and then at 3 and 4 (and back), where the parts count (central differences)."""
    module = _module([PARTS[part]], f"empty_{part}")
    rng = np.random.default_rng(1454)
    for shapes in ({"X": (2, 2), "v": (2,)}, {"X": ("n", "n"), "v": ("n",)}, None):
        gf = symgrad.grad(module.f, wrt=("X", "v"), shapes=shapes)
        for n in (2,) if shapes and shapes["v"] == (2,) else (2, 3, 4, 2, 3):
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no division by zero, no nan on the way
                _check(module, gf, *_points(n, rng))


@pytest.mark.parametrize("run", ["numpy", "numpy-dask", "jax.jit", "array_api-dask"] + RUNS)
def test_every_backend_empties(run):
    """Every part together, on each backend (and ``jax.jit`` of the gradient object, and Dask
    inputs, whose gradient stays a graph): at 2 elements the gradient is (X, 2 v) exactly, at 3
    the central differences."""
    lazy = run.endswith("dask")
    if lazy:
        da = pytest.importorskip("dask.array", reason="dask is not installed")
        if run == "array_api-dask" and not HAS["array_api_compat"]:
            pytest.skip("array_api_compat is not installed")
        backend, convert = run.split("-")[0], lambda a: da.from_array(a, chunks=2)
    elif run == "jax.jit":
        jax = pytest.importorskip("jax", reason="jax is not installed")
        jax.config.update("jax_enable_x64", True)
        backend, convert = "jax", jax.numpy.asarray
    else:
        if run.startswith("jax") or run.endswith("jax"):
            import jax
            jax.config.update("jax_enable_x64", True)
        backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
    module = _module(list(PARTS.values()), "empty_all")
    rng = np.random.default_rng(14)
    gf = symgrad.grad(module.f, wrt=("X", "v"), backend=backend)
    run_gf = jax.jit(gf) if run == "jax.jit" else gf
    for n in (2, 3, 2):
        _check(module, run_gf, *_points(n, rng), convert=convert, lazy=lazy)


MEAN_AND_MAX = """import numpy as np


def mean(v):
    return np.mean(v[2:]) + np.sum(v * v)


def largest(v):
    return np.max(v[2:]) + np.sum(v * v)
"""


def test_a_mean_over_nothing_raises_and_so_does_a_max():
    """As the primal: the mean of no element is nan (NumPy warns), and no gradient of a nan
    exists, so at 2 elements the gradient raises ValueError (the size it divides by is 0: it
    raised ZeroDivisionError, ``1.0 / max(0.0, n - 2.0)``), and with that size a number in
    shapes= the build refuses; at 3 elements it is 2 v + [0, 0, 1]. The max of no element
    raises NumPy's ValueError, in the primal and in the gradient alike."""
    module = load_module(DIRECTORY, MEAN_AND_MAX, "empty_mean")
    v2, v3 = np.array([0.3, -0.7]), np.array([0.3, -0.7, 1.1])
    with pytest.warns(RuntimeWarning):
        assert np.isnan(module.mean(v2))
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="a mean over no element"):
        symgrad.grad(module.mean, shapes={"v": (2,)})
    for shapes in ({"v": ("n",)}, None):
        vg = symgrad.value_and_grad(module.mean, shapes=shapes)
        with pytest.raises(ValueError, match=r"n - 2.0\) is 0 \(n = v.shape\[0\]\), and the "
                           "gradient divides by it"):
            vg(v2)
        value, g = vg(v3)
        assert value == pytest.approx(module.mean(v3), rel=1e-15)
        np.testing.assert_allclose(g, 2.0 * v3 + [0.0, 0.0, 1.0], rtol=1e-15, atol=0.0)
        np.testing.assert_allclose(g, _central(module.mean, v3), rtol=1e-7)
        with pytest.raises(ValueError, match="zero-size array"):
            module.largest(v2)
        with pytest.raises(ValueError, match="zero-size array"):
            symgrad.grad(module.largest, shapes=shapes)(v2)
        g = symgrad.grad(module.largest, shapes=shapes)(v3)
        np.testing.assert_allclose(g, 2.0 * v3 + [0.0, 0.0, 1.0], rtol=1e-15, atol=0.0)


LOGSUMEXP = """import numpy as np
import scipy.special


def softened(v):
    return np.exp(scipy.special.logsumexp(v[2:])) + np.sum(v * v)


def rows(X):
    return np.sum(scipy.special.logsumexp(X[:, 2:], axis=1, keepdims=True))


def alone(v):
    return scipy.special.logsumexp(v)


def spread(v):
    return np.sum(scipy.special.softmax(v[2:]) * 2.0) + np.sum(v * v)
"""


def test_a_logsumexp_over_nothing_is_minus_infinity_and_a_softmax_raises():
    """SciPy's logsumexp of no element is -inf (log of an empty sum), a constant: its
    exponential is 0, so at 2 elements ``softened``'s gradient is 2 v, and at 3 it is
    2 v + [0, 0, exp(v[2])]. It was a ValueError from the shift's np.max of nothing, or nan as
    the value (log of the folded sum 0, SymPy's complex infinity)."""
    scipy = pytest.importorskip("scipy", reason="scipy is not installed")
    module = load_module(DIRECTORY, LOGSUMEXP, "empty_logsumexp")
    v2, v3 = np.array([0.3, -0.7]), np.array([0.3, -0.7, 1.1])
    X = np.arange(6.0).reshape(3, 2)
    for shapes in ({"v": (2,)}, {"v": ("n",)}, None):
        value, g = symgrad.value_and_grad(module.softened, shapes=shapes)(v2)
        assert value == module.softened(v2) == pytest.approx(0.58, rel=1e-15)
        np.testing.assert_array_equal(g, 2.0 * v2)
    value, g = symgrad.value_and_grad(module.softened)(v3)
    np.testing.assert_allclose(g, 2.0 * v3 + [0.0, 0.0, np.exp(1.1)], rtol=1e-15, atol=0.0)
    np.testing.assert_allclose(g, _central(module.softened, v3), rtol=1e-7)
    for f, x in ((module.rows, X), (module.alone, np.zeros(0))):
        assert f(x) == -np.inf
        for shapes in ({f.__code__.co_varnames[0]: x.shape}, None):
            value, g = symgrad.value_and_grad(f, shapes=shapes)(x)
            assert value == -np.inf and g.shape == x.shape and (
                f is module.alone or np.all(g == 0.0)), (value, g)
    # SciPy's softmax of no element raises (its shift, np.max of nothing): so does the gradient
    with pytest.raises(ValueError, match="zero-size array"):
        module.spread(v2)
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="softmax over no element"):
        symgrad.grad(module.spread, shapes={"v": (2,)})
    with pytest.raises(ValueError, match="zero-size array"):
        symgrad.grad(module.spread)(v2)
    # the softmax of one element is 1, of derivative 0
    np.testing.assert_array_equal(symgrad.grad(module.spread)(v3), 2.0 * v3)


RESHAPED_TWICE = """import numpy as np


def f(X, v):
    return np.linalg.det(3.0 * np.eye(v.shape[0]) + 0.3 * np.tanh((np.reshape((
        v[::-1, None, ::-1, None, 0]).clip(-0.4, 0.6), (X.shape[0], X.shape[1], 1))).reshape(
            (v.shape[2], v.shape[0]))))
"""


def _reshaped_twice_by_hand(X, v):
    """d/dv of det(3 I + 0.3 tanh(R)), R = the reversed v[:, :, 0] clipped, reshaped: the
    determinant's adjugate (det A inv(A).T) through tanh' and the clip's mask, put back where
    each element of R came from (v[::-1, ::-1, 0] read row by row into R's shape)."""
    n, d = v.shape[0], v.shape[1]
    item = v[::-1, ::-1, 0]
    clipped = np.clip(item, -0.4, 0.6)
    R = clipped.reshape((v.shape[2], n))
    A = 3.0 * np.eye(n) + 0.3 * np.tanh(R)
    dA = np.linalg.det(A) * np.linalg.inv(A).T
    dR = dA * 0.3 * (1.0 - np.tanh(R) ** 2)
    ditem = dR.reshape((n, d)) * ((item >= -0.4) & (item <= 0.6))
    g = np.zeros_like(v)
    g[::-1, ::-1, 0] = ditem
    return g


def test_a_reshape_whose_counts_met_before():
    """``v[::-1, None, ::-1, None, 0]`` (v0 v1 elements) reshaped into (X0, X1, 1), then into
    (v2, v0): the first reshape records that X0 X1 is v0 v1, and the second met v0 v1 against
    v0 v2 without it (the build at the call refused, "keep the number of elements", where
    shapes= built: array fuzzer 124-747). They meet where v1 = v2, checked when called. The
    gradient with respect to v by hand and by central differences; X's is 0 (only its shape
    is read)."""
    module = load_module(DIRECTORY, RESHAPED_TWICE, "reshaped_twice")
    rng = np.random.default_rng(747)
    for shapes in (None, {"X": ("n", "n"), "v": ("n", "n", "n")}):
        gf = symgrad.grad(module.f, wrt=("X", "v"), shapes=shapes)
        sizes = [((2, 2), (2, 2, 2)), ((3, 3), (3, 3, 3))]
        if shapes is None:  # the counts meet with X's sizes not v's
            sizes += [((2, 8), (4, 4, 4)), ((8, 2), (4, 4, 4))]
        for xs, vs in sizes:
            X, v = rng.uniform(-1.0, 1.0, xs), rng.uniform(-1.0, 1.0, vs)
            gX, gv = gf(X, v)
            np.testing.assert_array_equal(gX, np.zeros(xs))
            np.testing.assert_allclose(gv, _reshaped_twice_by_hand(X, v), rtol=1e-12,
                                       atol=1e-14)
            np.testing.assert_allclose(gv, _central(lambda a: module.f(X, a), v), rtol=1e-6,
                                       atol=1e-9)
    gf = symgrad.grad(module.f, wrt="v")
    with pytest.raises(ValueError, match="cannot reshape"):
        module.f(np.ones((2, 2)), np.ones((2, 2, 3)))
    with pytest.raises(ValueError):  # v1 and v2 differ: NumPy's second reshape raises
        gf(np.ones((2, 2)), np.ones((2, 2, 3)))


EMPTY_ARGUMENT = """import numpy as np


def f(X, v, w):
    return (np.cbrt(np.sum(v) * np.sum(w)) + np.cbrt(np.sum(X @ v) * np.sum(w))
            + np.sum(w * w))


def mean(v, w):
    return np.mean(v) + np.sum(w * w)
"""


@pytest.mark.parametrize("run", ["numpy", "numpy-dask"] + RUNS)
def test_an_argument_of_no_element(run):
    """An argument with an axis of size 0: the sums over it are 0 and ``X @ v`` of length 0 is
    zeros, so both ``cbrt`` terms are 0 whatever w is, and the gradient with respect to w is 2 w
    (it was nan: cbrt's inf at 0 times 0); v's and X's have no element. Built at the call, with
    0 in shapes=, and at a call after a build of a general size. The mean of no element is nan
    in NumPy: the gradient raises ValueError."""
    if run == "numpy-dask":
        da = pytest.importorskip("dask.array", reason="dask is not installed")
        backend, convert = "numpy", lambda a: da.from_array(a, chunks=2)
    else:
        if run.startswith("jax") or run.endswith("jax"):
            import jax
            jax.config.update("jax_enable_x64", True)
        backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
    module = load_module(DIRECTORY, EMPTY_ARGUMENT, "empty_argument")
    X, v, w = np.ones((3, 0)), np.zeros(0), np.array([0.5, -1.5])
    assert module.f(X, v, w) == pytest.approx(2.5, rel=1e-15)
    for shapes in (None, {"X": (3, 0), "v": (0,), "w": (2,)}):
        if shapes is not None and run != "numpy":
            continue
        gf = symgrad.grad(module.f, wrt=("X", "v", "w"), shapes=shapes, backend=backend)
        if shapes is None:  # a general build first, then the empty call
            X3, v3 = np.full((3, 2), 0.5), np.array([0.5, 1.5])
            got = [np.asarray(_to_numpy(g)) for g in gf(*map(convert, (X3, v3, w)))]
            np.testing.assert_allclose(got[2], _central(lambda a: module.f(X3, v3, a), w),
                                       rtol=1e-6)
        got = gf(*map(convert, (X, v, w)))
        if run == "numpy-dask":
            got = tuple(g.compute() for g in got)
        gX, gv, gw = (np.asarray(_to_numpy(g)) for g in got)
        assert gX.shape == (3, 0) and gv.shape == (0,)
        np.testing.assert_allclose(gw, 2.0 * w, rtol=1e-15, atol=0.0)
        np.testing.assert_allclose(gw, _central(lambda a: module.f(X, v, a), w), rtol=1e-7)
    if run == "numpy":
        with pytest.raises(ValueError, match="is 0"):
            symgrad.grad(module.mean)(v, w)


REVERSED_TWICE = """import numpy as np


def f(X, v):
    return np.sum(X * v.reshape(-1)[::-1].reshape(X.shape)) + np.sum(
        v.reshape(-1)[::-1].reshape(X.shape) ** 2)
"""


def test_the_same_reshape_read_twice():
    """``v.reshape(-1)[::-1].reshape(X.shape)`` twice: the second read met v0 v1 against X0 X1
    once the first had made them one, and was refused ("keep the number of elements", array
    fuzzer 133-3326). With R that reshape, df/dX = R and df/dv = X read back + 2 v."""
    module = load_module(DIRECTORY, REVERSED_TWICE, "reversed_twice")
    rng = np.random.default_rng(3326)
    gf = symgrad.grad(module.f, wrt=("X", "v"))
    for xs, vs in (((2, 3), (3, 2)), ((3, 3), (3, 3)), ((2, 6), (4, 3))):
        X, v = rng.uniform(-1.0, 1.0, xs), rng.uniform(-1.0, 1.0, vs)
        gX, gv = gf(X, v)
        np.testing.assert_allclose(gX, v.reshape(-1)[::-1].reshape(xs), rtol=1e-15)
        np.testing.assert_allclose(gv, X.reshape(-1)[::-1].reshape(vs) + 2.0 * v, rtol=1e-15)
        np.testing.assert_allclose(gv, _central(lambda a: module.f(X, a), v), rtol=1e-7)


COMPUTED_WITH = """import numpy as np
import scipy.special


def plus(v, w):
    return scipy.special.logsumexp(v[2:]) + w


def shifted(v, w):
    return np.sum(np.exp(scipy.special.logsumexp(v[2:]) + w * v))


def added(v, w):
    return np.logaddexp(scipy.special.logsumexp(v[2:]), w) + np.sum(v * v)


def rows(X, w):
    return np.sum(np.exp(scipy.special.logsumexp(X[:, 2:], axis=1) + X[:, 0] * w))


def scaled(v, w):
    return scipy.special.logsumexp(v[2:]) * w
"""


@pytest.mark.parametrize("run", ["numpy", "jax.jit"] + RUNS)
def test_arithmetic_with_a_logsumexp_over_nothing(run):
    """``logsumexp(v[2:]) + w`` at 2 elements: SciPy's -inf plus w, -inf. Read as SymPy's -oo
    every arithmetic with it was refused at those sizes, so the call ran the general build and
    raised NumPy's ValueError (np.max over nothing). It is a constant array of -inf now, computed
    with as NumPy does and differentiated through as ``jax.grad`` is: d/dw (-inf + w) = 1,
    exp(-inf + w * v) is 0 of derivative 0, logaddexp(-inf, w) is w, d/dw (-inf * w) = -inf; the
    derivative in v is 0 (nothing of v is read). At 3 elements, central differences."""
    pytest.importorskip("scipy", reason="scipy is not installed")
    if run == "jax.jit":
        jax = pytest.importorskip("jax", reason="jax is not installed")
        jax.config.update("jax_enable_x64", True)
        backend, convert, wrap = "jax", jax.numpy.asarray, jax.jit
    else:
        if run.startswith("jax") or run.endswith("jax"):
            import jax
            jax.config.update("jax_enable_x64", True)
        backend, convert = ("numpy", lambda a: a) if run == "numpy" else _library(run)
        wrap = lambda g: g  # noqa: E731
    module = load_module(DIRECTORY, COMPUTED_WITH, "empty_computed_with")
    v, X, w = np.array([0.3, -0.7]), np.array([[0.3, -0.7], [1.2, 0.5], [0.1, 0.2]]), 0.4
    want = {"plus": (np.zeros(2), 1.0), "shifted": (np.zeros(2), 0.0), "added": (2.0 * v, 1.0),
            "rows": (np.zeros((3, 2)), 0.0), "scaled": (np.zeros(2), -np.inf)}
    values = {"plus": -np.inf, "shifted": 0.0, "added": w + np.sum(v * v), "rows": 0.0,
              "scaled": -np.inf}
    for name, (want_first, want_w) in want.items():
        f = getattr(module, name)
        first = X if name == "rows" else v
        assert f(first, w) == pytest.approx(values[name], rel=1e-15)
        for shapes in ({f.__code__.co_varnames[0]: first.shape}, None):
            gf = wrap(symgrad.grad(f, wrt=(f.__code__.co_varnames[0], "w"), shapes=shapes,
                                   backend=backend))
            got_first, got_w = _to_numpy(gf(convert(first), convert(np.float64(w))))
            np.testing.assert_array_equal(got_first, want_first, err_msg=name)
            assert float(got_w) == want_w, (name, got_w)
        wider = np.column_stack([X, [0.5, -0.2, 0.9]]) if name == "rows" else np.append(v, 1.1)
        gf = wrap(symgrad.grad(f, wrt=(f.__code__.co_varnames[0], "w"), backend=backend))
        got_first, got_w = _to_numpy(gf(convert(wider), convert(np.float64(w))))
        np.testing.assert_allclose(got_first, _central(lambda a: f(a, w), wider), rtol=1e-7,
                                   atol=1e-9)
        np.testing.assert_allclose(got_w, _central(lambda a: f(wider, a[0]), np.array([w]))[0],
                                   rtol=1e-7)

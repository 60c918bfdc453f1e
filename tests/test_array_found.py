"""Bugs the array fuzzer (``tests/benchmarks/fuzz_arrays.py``) found, each held at its right
value: derived by hand, cross-checked with a central difference of the primal."""
import importlib.util
import math
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_array_found_"))
HAS = {name: importlib.util.find_spec(name) is not None for name in ("jax", "torch",
                                                                    "array_api_compat")}
BACKENDS = ["numpy"] + [pytest.param(b, marks=pytest.mark.skipif(
    not HAS[lib], reason=f"{lib} not installed: pip install -e '.[{extra}]'"))
    for b, lib, extra in (("jax", "jax", "jax"), ("torch", "torch", "torch"),
                          ("array_api", "array_api_compat", "array-api"))]


def _numbers(value):
    if type(value).__module__.startswith("torch"):
        return value.numpy()
    return np.asarray(value, dtype=float)


def _central(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.fixture(scope="module")
def x64():
    if HAS["jax"]:
        import jax
        jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("step, taken_slice", [("::2", slice(None, None, 2)),
                                               ("::-2", slice(None, None, -2)),
                                               ("1::2", slice(1, None, 2))])
def test_mean_of_a_stepped_slice_of_a_named_size(step, taken_slice, backend, x64):
    """``np.mean(W[::2])`` with W's size a name (``shapes={"W": ("n",)}`` or built at the call)
    divides by ceil(n / 2): it was refused (``ceiling has no spelling for backend 'numpy'``).
    Its gradient is 1 / len(W[step]) on the elements the slice takes, 0 elsewhere."""
    module = load_module(DIRECTORY, f"import numpy as np\n\n\ndef f(W):\n    return np.mean("
                                    f"W[{step}] ** 2) * 0.5\n", "stepped_mean")
    for shapes in ({"W": ("n",)}, None):
        gf = symgrad.grad(module.f, shapes=shapes, backend=backend)
        for n in (2, 3, 4, 5):
            W = np.linspace(-1.0, 2.0, n)
            taken = np.zeros(n)
            taken[taken_slice] = 1.0
            want = taken * W / taken.sum()
            got = _numbers(gf(W))
            assert np.allclose(got, want, rtol=1e-12, atol=0.0), (step, backend, n, got)
            assert np.allclose(got, _central(module.f, W), rtol=1e-7, atol=1e-9)


PIECEWISE_FACTOR = '''import numpy as np


def helper(u):
    w = -u
    return w + u * 0.5


def clipped(v):
    return np.maximum(helper(v[1]), 0.5)


def branch(X, v):
    if v > 0.1:
        r = v
    else:
        r = np.var(X[..., 1])
    return r + v
'''


def test_a_shared_piecewise_factor_of_two_contributions_is_not_divided_out():
    """Two contributions to one adjoint with a branch factor ``p`` in common (``p / 2`` and
    ``-p``: the two uses of ``u`` in a helper under ``np.maximum``, or ``np.var`` under an
    ``if``) shared ``p`` by dividing each by it; SymPy folds ``1 / p`` into its pieces, ``zoo``
    where ``p`` is 0, so the gradient was nan where the maximum takes 0.5 (or the branch not
    taken). d/dv of max(-v1/2, 0.5) is -1/2 at v1 < -1, 0 at v1 > -1; of the branch, 2/3 (x -
    mean(x)) for the column X[:, 1] when v <= 0.1, else 0."""
    module = load_module(DIRECTORY, PIECEWISE_FACTOR, "piecewise_factor")
    gf = symgrad.grad(module.clipped, shapes={"v": ("n",)})
    for v1, slope in ((-0.6, 0.0), (-1.6, -0.5)):
        v = np.array([0.3, v1, 0.2])
        got = gf(v)
        assert np.array_equal(got, [0.0, slope, 0.0]), got
        assert np.allclose(got, _central(module.clipped, v), atol=1e-9)
    X = np.array([[0.5, -0.25, 1.0], [0.0, 0.75, 2.0], [1.0, 1.5, -1.0]])
    for shapes in ({"X": (3, 3)}, {"X": ("n", "d")}, None):
        gb = symgrad.grad(module.branch, shapes=shapes)
        for v, taken in ((0.9, False), (0.0, True)):
            dX, dv = gb(X, v)
            column = X[:, 1]
            want = np.zeros((3, 3))
            if taken:
                want[:, 1] = 2.0 / 3.0 * (column - column.mean())
            assert np.allclose(dX, want, rtol=1e-12, atol=1e-15), (shapes, v, dX)
            assert dv == (1.0 if taken else 2.0)
            assert np.allclose(dX, _central(lambda Y: module.branch(Y, v), X), atol=1e-8)


TRIANGLES = '''import numpy as np


def upper(X):
    i, j = np.triu_indices(len(X), 1)
    return np.sum(X[i, j] ** 2)


def lower(X):
    return np.sum(X[np.tril_indices(len(X), -1)] ** 3) + np.sum(X[np.triu_indices(len(X))])
'''


@pytest.mark.parametrize("backend", BACKENDS[:3])
def test_triangle_indices_of_a_call_time_size(backend, x64):
    """``np.triu_indices(len(X), 1)`` printed for torch was ``torch.triu_indices(n, 1)``, the
    triangle of an n x 1 matrix (torch's arguments are rows, columns, offset): the gradient was
    wrong (2 X[0, 1] landed on X[0, 0]). d/dX of sum(X[i, j]^2) over i < j is 2 X above the
    diagonal; of the lower one, 3 X^2 below it plus 1 on and above it."""
    module = load_module(DIRECTORY, TRIANGLES, "triangles")
    built = {f: symgrad.grad(f, shapes={"X": ("n", "n")}, backend=backend)
             for f in (module.upper, module.lower)}  # one build serves every size
    for n in (2, 3, 5):
        X = np.arange(n * n, dtype=float).reshape(n, n) / 7.0 - 1.0
        above = np.triu(np.ones((n, n)), 1)
        below = np.tril(np.ones((n, n)), -1)
        for f, want in ((module.upper, 2.0 * X * above),
                        (module.lower, 3.0 * X ** 2 * below + (1.0 - below))):
            gf = built[f]
            arg = X
            if backend == "torch":
                import torch
                arg = torch.from_numpy(X)
            got = _numbers(gf(arg))
            assert np.allclose(got, want, rtol=1e-12, atol=1e-15), (f.__name__, backend, got)
            assert np.allclose(got, _central(f, X), rtol=1e-7, atol=1e-8)


BRANCHED_MEAN = '''import numpy as np


def f(X, v):
    u = X
    c = np.max(u / 3.0 * 3.0 - u)
    if c > 0.0:
        return np.sum(u)
    return np.mean(u[1::2])
'''


def test_the_count_of_an_odd_stepped_slice_under_a_branch():
    """value_and_grad of ``np.mean(u[1::2])`` on a side of an ``if`` (u of shape (n, 4), built
    at the call) crashed printing ceil((n - 1) / 2) from SymPy's unevaluated product
    ``Mul(1/2, n - 1)`` (ShapeError: cannot print the size 1/2). The gradient on that side is
    1 / (4 ceil((n - 1) / 2)) on the odd rows, on the other side 1 everywhere."""
    module = load_module(DIRECTORY, BRANCHED_MEAN, "branched_mean")
    vg = symgrad.value_and_grad(module.f, wrt=("X", "v"))
    for n in (2, 3, 4, 5):
        X = np.arange(n * 4, dtype=float).reshape(n, 4) / 10.0
        value, (dX, dv) = vg(X, np.ones(4))
        assert value == module.f(X, np.ones(4))
        c = np.max(X / 3.0 * 3.0 - X)
        want = np.ones((n, 4))
        if not c > 0.0:
            want = np.zeros((n, 4))
            want[1::2] = 1.0 / (4 * (n // 2))
        assert np.array_equal(dX, want), (n, dX)
        assert np.array_equal(dv, np.zeros(4))


DETERMINANT = '''import numpy as np


def det(X):
    return np.linalg.det(X)


def det_of_gram(X):
    return np.linalg.det(X @ X.T) + 2.0 * np.linalg.det(X)
'''
DET_POINTS = [  # (A, the cofactor matrix adj(A).T = d det(A) / dA, by hand)
    (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[4.0, -2.0], [-2.0, 1.0]])),
    (np.diag([1.0, 0.0, 1.0]), np.diag([0.0, 1.0, 0.0])),
    (np.zeros((3, 3)), np.zeros((3, 3))),
    (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),  # rank 2
     np.array([[-3.0, 6.0, -3.0], [6.0, -12.0, 6.0], [-3.0, 6.0, -3.0]])),
    (np.array([[2.0, 1.0], [0.5, 3.0]]), np.array([[3.0, -0.5], [-1.0, 2.0]])),
    (np.array([[0.7]]), np.array([[1.0]])),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_determinant_gradient_is_the_cofactor_matrix_at_singular_matrices(backend, x64):
    """The adjoint of ``np.linalg.det`` was ``det(A) * inv(A).T``: LinAlgError at a singular
    matrix (numpy, torch, array_api), nan on JAX, where the primal is 0.0. It is the cofactor
    matrix (from the SVD, without a division), exact there too; ``jax.jit`` compiles it. The
    gradient of det(X X^T) + 2 det(X) is 2 det(X) cof(X) + 2 cof(X) (det(X X^T) = det(X)^2)."""
    module = load_module(DIRECTORY, DETERMINANT, "determinant")
    convert = np.asarray
    if backend == "torch":
        import torch
        convert = torch.from_numpy
    elif backend == "jax":
        import jax
        convert = jax.numpy.asarray
    g = symgrad.grad(module.det, shapes={"X": ("n", "n")}, backend=backend)
    gram = symgrad.grad(module.det_of_gram, shapes={"X": ("n", "n")}, backend=backend)
    runs = [g, gram]
    if backend == "jax":
        runs += [jax.jit(g), jax.jit(gram)]
    for A, cofactor in DET_POINTS:
        want = [cofactor, 2.0 * np.linalg.det(A) * cofactor + 2.0 * cofactor] * 2
        for gf, w in zip(runs, want):
            got = _numbers(gf(convert(A)))
            assert np.allclose(got, w, rtol=1e-12, atol=1e-13), (backend, A, got)
    for A, cofactor in DET_POINTS:
        assert np.allclose(_central(module.det, A), cofactor, atol=1e-8)


BATCHED = '''import numpy as np


def stacked(A, B):
    return np.sum(np.tanh(A @ B))


def called(A, B):
    return np.sum(np.matmul(A, B) ** 2)


def with_vector(A, v):
    return np.sum(np.sin(A @ v)) + np.sum(np.cos(v @ A))
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_of_stacks_of_matrices(backend, x64):
    """``@`` and ``np.matmul`` of rank 3 or more were refused ("1 or 2 are supported"; SPEC and
    the docs list ``@`` without a rank limit): a stack of matrices, broadcast from the right as
    NumPy does, with a vector promoted. d/dA sum(tanh(A @ B)) = (1 - tanh(AB)^2) @ B^T per
    batch, checked by central differences, on every backend (the Array API's by ``xp.matmul``)."""
    module = load_module(DIRECTORY, BATCHED, "batched")
    rng = np.random.default_rng(3)
    convert = np.asarray
    if backend == "torch":
        import torch
        convert = torch.from_numpy
    cases = [(module.stacked, (2, 3, 4), (2, 4, 5)), (module.stacked, (2, 3, 4), (4, 5)),
             (module.stacked, (3, 4), (2, 4, 5)), (module.called, (2, 2, 3, 4), (2, 4, 2)),
             (module.with_vector, (2, 4, 4), (4,))]
    for f, sa, sb in cases:
        A, B = rng.uniform(-1.0, 1.0, sa), rng.uniform(-1.0, 1.0, sb)
        dA, dB = (_numbers(g) for g in symgrad.grad(f, backend=backend)(convert(A), convert(B)))
        assert np.allclose(dA, _central(lambda a: f(a, B), A), rtol=1e-7, atol=1e-8)
        assert np.allclose(dB, _central(lambda b: f(A, b), B), rtol=1e-7, atol=1e-8)
    A, B = rng.uniform(-1.0, 1.0, (2, 3, 4)), rng.uniform(-1.0, 1.0, (2, 4, 5))
    t = np.tanh(A @ B)
    dA = _numbers(symgrad.grad(module.stacked, wrt="A", backend=backend)(convert(A), convert(B)))
    assert np.allclose(dA, (1.0 - t ** 2) @ np.swapaxes(B, 1, 2), rtol=1e-12, atol=1e-15)


def test_matmul_with_a_size_one_batch_axis_is_refused_clearly():
    module = load_module(DIRECTORY, BATCHED, "batched")
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="size-1 batch axis"):
        symgrad.grad(module.stacked, shapes={"A": (1, "n", "k"), "B": ("b", "k", "m")})


def test_masks_of_zero_d_values_computed_from_arrays():
    """``np.where((s > -0.5) & (s < 0.5), s ** 2, 0.25)`` with ``s = np.sum(x)`` was refused
    ("`&` of conditions on numbers", AB7); it is the same condition as ``and``: d/dx = 2 s
    inside the band, 0 outside; ``|`` with ``np.logical_not`` likewise."""
    source = ("import numpy as np\n\n\ndef band(x):\n    s = np.sum(x)\n    return np.where((s > "
              "-0.5) & (s < 0.5), s ** 2, 0.25)\n\n\ndef either(x):\n    s = np.sum(x)\n    m = "
              "np.max(x)\n    return np.where(np.logical_not(s > 0.0) | (m < 0.3), s * m, s)\n")
    module = load_module(DIRECTORY, source, "zero_d_masks")
    band = symgrad.grad(module.band, shapes={"x": ("n",)})
    either = symgrad.grad(module.either, shapes={"x": ("n",)})
    for x in (np.array([0.1, 0.2, -0.1]), np.array([0.5, 0.6, 0.1]), np.array([-0.9, 0.2])):
        s, m = x.sum(), x.max()
        assert np.allclose(band(x), np.full(x.shape, 2.0 * s if -0.5 < s < 0.5 else 0.0))
        want = np.full(x.shape, m) + s * (x == m) if (not s > 0.0 or m < 0.3) else np.ones(
            x.shape)
        assert np.allclose(either(x), want), (x, either(x))
        assert np.allclose(band(x), _central(module.band, x), atol=1e-8)


def test_a_square_flattened_and_reshaped_back():
    """``X.reshape(-1)[::-1].reshape(X.shape)`` of an (n, n) X has n**2 elements: the size
    printer had no power (crash: cannot print the size n**2). sum(rev(X) * X) has the gradient
    2 X reversed along both axes."""
    source = ("import numpy as np\n\n\ndef f(X):\n    return np.einsum('ij,ij->', "
              "X.reshape(-1)[::-1].reshape(X.shape), X)\n")
    module = load_module(DIRECTORY, source, "flattened_square")
    for shapes in ({"X": ("n", "n")}, None):
        gf = symgrad.grad(module.f, shapes=shapes)
        for n in (2, 3):
            X = np.arange(n * n, dtype=float).reshape(n, n) / 3.0
            assert np.array_equal(gf(X), 2.0 * X[::-1, ::-1])


GATHER_IN_SCATTER = '''import numpy as np


def helper(u, scale=2.0):
    return scale * np.sqrt(1.0 + u ** 2)


def f(X):
    i, j = np.triu_indices(X.shape[0], 0)
    return np.sum(helper(X)[i, j] ** 2)
'''


@pytest.mark.skipif(not HAS["array_api_compat"], reason="array-api-compat is not installed: "
                    "pip install -e '.[array-api]'")
@pytest.mark.parametrize("library", ["numpy", "array_api_strict"])
def test_a_gather_inside_a_scatter_add_is_expanded(library):
    """On the Array API a triangle's gather is a statement marker; inside the operand of the
    scatter-add (itself a marker) it was left unexpanded: NameError `__pointwise_take__` (array
    fuzzer, seed 12, program 13). d/dX of sum over i <= j of (2 sqrt(1 + X^2))^2 = 4 (1 + X^2) is
    8 X on and above the diagonal, 0 below."""
    xp = pytest.importorskip(library)
    module = load_module(DIRECTORY, GATHER_IN_SCATTER, "gather_in_scatter")
    gf = symgrad.grad(module.f, shapes={"X": ("n", "n")}, backend="array_api")
    for n in (2, 4):
        X = np.arange(n * n, dtype=float).reshape(n, n) / 5.0 - 1.0
        got = np.asarray(_numbers(gf(xp.asarray(X))))
        assert np.allclose(got, 8.0 * X * np.triu(np.ones((n, n))), rtol=1e-12, atol=1e-15)
        assert np.allclose(got, _central(module.f, X), rtol=1e-7, atol=1e-8)


WHERE_OF_SIZES = '''import numpy as np


def f(X):
    c = X[1, 0]
    if c > 0.1:
        r = 0.5
    else:
        r = np.mean((np.ones((X.shape[0], 1, 1)) * 0.3) * X[None, :, None, 0])
    return r + 0.5
'''


@pytest.mark.parametrize("backend", BACKENDS[1:])
def test_a_where_of_numbers_and_sizes_keeps_the_dtype(backend, x64):
    """``torch.where(c, 0.0, 1.0 / (d * d))`` of two Python floats is a float32 tensor: the torch
    gradient was 0.07500000298 where 0.3 / 4 = 0.075 (array fuzzer seed 13, AB17). d/dX of mean(0.3 * X[j, 0] over d x d) is 0.3 / d
    per element where the mean is taken (X[1, 0] <= 0.1), 0 elsewhere."""
    module = load_module(DIRECTORY, WHERE_OF_SIZES, "where_of_sizes")
    gf = symgrad.grad(module.f, shapes={"X": ("d", 1)}, backend=backend)
    libraries = {"jax": ["jax.numpy"], "torch": ["torch"],
                 "array_api": ["numpy"]}[backend]  # strict: the divisor guard's where of
    # two Python numbers (`xp.where(c, 1.0, d * d)`) is still refused there (open)
    for name in libraries:
        lib = pytest.importorskip(name)
        for X, want in ((np.array([[0.4], [-0.87], [-0.27], [-0.18]]), 0.075),
                        (np.array([[0.4], [0.5], [-0.27]]), 0.0)):
            arg = lib.from_numpy(X) if name == "torch" else lib.asarray(X)
            got = _numbers(gf(arg))
            assert got.shape == (len(X), 1)
            assert np.array_equal(got, np.full(X.shape, want)), (name, got)


TRIGAMMA = '''import numpy as np
import scipy.special


def f(X):
    return np.sum(scipy.special.digamma(1.5 + X ** 2))


def psi(X):
    return np.sum(scipy.special.digamma(X))
'''


@pytest.mark.parametrize("backend", BACKENDS[:3])
def test_the_derivative_of_digamma_is_trigamma_to_the_last_digits(backend, x64):
    """d/dx digamma(1.5 + x^2) = 2x polygamma(1, 1.5 + x^2). torch printed torch.special.polygamma
    (1, .), a short series: 4.3e-10 relative off at x = -0.39667587200716703 (-0.6504140642919708
    for mpmath's -0.6504140640105253; array fuzzer seed 13, programs 13-23, 13-80, 13-86), and
    6.6e32 at the pole -1 where the derivative is inf; it prints torch.special.zeta(2.0, .)."""
    mpmath = pytest.importorskip("mpmath")
    pytest.importorskip("scipy")
    module = load_module(DIRECTORY, TRIGAMMA, "trigamma")
    x = np.array([-0.39667587200716703, -0.6616886603043917, 0.5645641045273184, 3.0, 40.0])
    want = [float(2 * mpmath.mpf(v) * mpmath.polygamma(1, 1.5 + mpmath.mpf(v) ** 2)) for v in x]
    assert want[0] == pytest.approx(-0.6504140640105253, rel=1e-15)
    convert = {"numpy": np.asarray, "jax": lambda a: __import__("jax").numpy.asarray(a),
               "torch": lambda a: __import__("torch").from_numpy(a)}[backend]
    got = _numbers(symgrad.grad(module.f, backend=backend)(convert(x)))
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0.0)
    assert np.allclose(got, _central(module.f, x), rtol=1e-7)
    poles = np.array([-1.0, -2.0, 0.5])
    got = _numbers(symgrad.grad(module.psi, backend=backend)(convert(poles)))
    assert np.isposinf(got[:2]).all() and got[2] == pytest.approx(math.pi ** 2 / 2, rel=1e-15)


@pytest.mark.parametrize("backend", BACKENDS[1:3])
def test_special_rows_give_numpys_numbers_on_jax_and_torch(backend, x64):
    """Every ``scipy.special`` row of the array table (tests/test_array_rows.py) through jax and
    torch: the numpy gradient's numbers at relative 1e-12 (no test ran them there, so torch's
    5e-10 trigamma above went unseen)."""
    rows = pytest.importorskip("test_array_rows")
    lib = pytest.importorskip({"jax": "jax.numpy", "torch": "torch"}[backend])
    convert = lib.from_numpy if backend == "torch" else lib.asarray
    for f, make, wrt in rows.SPECIAL:
        args = make(5)
        want = symgrad.grad(f, wrt=wrt)(*args)
        got = symgrad.grad(f, wrt=wrt, backend=backend)(*[convert(a) for a in args])
        for g, w in zip(got if len(wrt) > 1 else (got,), want if len(wrt) > 1 else (want,)):
            assert _numbers(g).dtype == np.float64
            np.testing.assert_allclose(_numbers(g), w, rtol=1e-12, atol=1e-14, err_msg=f.__name__)


EXPANDED_NUMBER = '''import numpy as np


def f(X):
    return np.einsum('i,i->', X, (np.expand_dims(2.0, 0) * X[::-1]))


def g(X):
    return np.sum(np.expand_dims(2.0, 0) * X)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_expand_dims_of_a_number(backend, x64):
    """``np.expand_dims(2.0, 0)`` printed as ``(2.0)[None]`` (TypeError: 'float' object is not
    subscriptable; array fuzzer seed 51, program 1922), on the other backends too; it is a 0-d
    array of the data's dtype first. f = 2 sum X_i X_(n-1-i), so df/dX = 4 X[::-1]; dg/dX = 2."""
    module = load_module(DIRECTORY, EXPANDED_NUMBER, "expanded_number")
    X = np.array([0.5, -0.25, 1.5, 0.75])
    convert = {"numpy": np.asarray, "jax": lambda a: __import__("jax").numpy.asarray(a),
               "torch": lambda a: __import__("torch").from_numpy(a),
               "array_api": np.asarray}[backend]
    got = _numbers(symgrad.grad(module.f, shapes={"X": ("n",)}, backend=backend)(convert(X)))
    assert got.dtype == np.float64 and np.array_equal(got, 4 * X[::-1])
    assert np.allclose(got, _central(module.f, X), rtol=1e-7, atol=1e-8)
    got = _numbers(symgrad.grad(module.g, shapes={"X": ("n",)}, backend=backend)(convert(X)))
    assert got.dtype == np.float64 and np.array_equal(got, np.full(4, 2.0))


ZERO_SPREAD_READ_ONCE = '''import numpy as np

from symgrad import stop_gradient


def f(X, v, W):
    spread = stop_gradient(np.std(W[::-1, None, 1, 0] * np.full((1, v.shape[0]), 0.5), axis=1))
    return np.std(v[None, 1][..., 1] * spread, ddof=1)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_element_never_read_past_two_scatters(backend, x64):
    """``np.std`` of zero spread has no derivative (nan, docs/arrays.md) at the one element it
    reads, v[1, 1]; every other element of v is never read: derivative 0. Its factor
    ``1 / sqrt(squares)`` (inf) rode out of two scatters (``v[None, 1]``, then ``[..., 1]``) and
    multiplied the zeros of the outer one, reshaped: the build with shapes= gave nan at v[1, 0]
    too, where the build at the call gave 0 (array fuzzer 131-1446). The stopped spread is 0
    (each row of W times 0.5 is constant), so the value is 0 whatever v is."""
    module = load_module(DIRECTORY, ZERO_SPREAD_READ_ONCE, "zero_spread_read_once")
    rng = np.random.default_rng(1446)
    X, v, W = 0.3, rng.uniform(-1.0, 1.0, (4, 2)), rng.uniform(-1.0, 1.0, (4, 4, 1))
    convert = {"numpy": np.asarray, "jax": lambda a: __import__("jax").numpy.asarray(a),
               "torch": lambda a: __import__("torch").from_numpy(a),
               "array_api": np.asarray}[backend]
    assert module.f(X, v, W) == 0.0
    read = np.zeros((4, 2), dtype=bool)
    read[1, 1] = True
    for shapes in ({"X": (), "v": (4, "k"), "W": (4, 4, 1)}, None):
        gf = symgrad.grad(module.f, wrt="v", shapes=shapes, backend=backend)
        with np.errstate(all="ignore"):
            got = _numbers(gf(X, convert(v), convert(W)))
        assert np.isnan(got[1, 1]), got
        np.testing.assert_array_equal(got[~read], np.zeros(7))
        np.testing.assert_array_equal(_central(lambda a: module.f(X, a, W), v)[~read],
                                      np.zeros(7))


UNTAKEN_ZERO_SPREAD = '''import numpy as np

from symgrad import stop_gradient


def f(X, v):
    c = np.linalg.norm(X)
    if c > 0.1:
        r = 0.5
    else:
        s = np.einsum('ij,j->i', np.std((np.zeros((X.shape[0], 1, 1)) + 0.2) * X[None, :, None],
                                        axis=0), X)
        r = s[np.argmax(stop_gradient(s))] * 1.5
    return r + 0.5
'''


def test_the_untaken_branch_of_zero_spread_adds_nothing():
    """The branch taken is the constant 0.5: gradient 0. The other branch (computed by the numpy
    backend, chosen away by its mask) has ``np.std`` of zero spread, 1 / 0; with its factor moved
    into a scatter's pieces (7a73f58) the mask no longer made it 0, nan (array fuzzer
    133-2130). The mask stays outside such a factor."""
    module = load_module(DIRECTORY, UNTAKEN_ZERO_SPREAD, "untaken_zero_spread")
    X, v = np.array([0.9407200495450545, 0.7647903890472763]), np.zeros((2, 1, 2))
    for shapes in ({"X": ("n",), "v": ("n", 1, "n")}, None):
        with np.errstate(all="ignore"):
            gX = symgrad.grad(module.f, wrt="X", shapes=shapes)(X, v)
        np.testing.assert_array_equal(gX, np.zeros(2))
        np.testing.assert_array_equal(_central(lambda a: module.f(a, v), X), np.zeros(2))


EXPANDED_NEGATIVE = '''import numpy as np


def f(v):
    return np.dot(np.expand_dims(-0.4, 0), v[None, -1])
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_expand_dims_of_a_negative_number(backend, x64):
    """``np.expand_dims(-0.4, 0)`` printed as ``(-0.4)[None]`` (TypeError: 'float' object is not
    subscriptable; array fuzzer 133-108): -0.4 prints as an operator, not a constant, and
    was not made a 0-d array first. f = -0.4 v[-1]: df/dv is -0.4 at the last element."""
    module = load_module(DIRECTORY, EXPANDED_NEGATIVE, "expanded_negative")
    v = np.array([0.5, -0.25, 1.5])
    convert = {"numpy": np.asarray, "jax": lambda a: __import__("jax").numpy.asarray(a),
               "torch": lambda a: __import__("torch").from_numpy(a),
               "array_api": np.asarray}[backend]
    want = np.array([0.0, 0.0, -0.4])
    for shapes in ({"v": ("n",)}, None):
        got = _numbers(symgrad.grad(module.f, shapes=shapes, backend=backend)(convert(v)))
        assert got.dtype == np.float64 and np.array_equal(got, want), got
        assert np.allclose(got, _central(module.f, v), rtol=1e-7, atol=1e-9)

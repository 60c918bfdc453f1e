"""The JAX adjoint of several step-1 slices of one axis (``x[1:]`` and ``x[:-1]``, a shifted
difference: A5's Rosenbrock) adds the cotangents where all of them cover and pads that sum once,
the edges set (``array_pads``): ``jnp.pad(a[1:] + b[:-1], (1, 1)).at[0].set(a[0]).at[-1]
.set(b[-1])``, where the sum of pads ``jnp.pad(a, (0, 1)) + jnp.pad(b, (1, 0))`` compiled to a
loop LLVM vectorised worse. Where the cut points' order is not known when building (``x[:-3]``
and ``x[2:]``) or two axes are sliced, the sum of pads stays. Checked at the tiny sizes where
the overlap is empty (n = 2) or a size-1 build of its own (n = 1), eager (the same additions in
the same order as NumPy's form: bit for bit) and under ``jax.jit`` (XLA's fusions round
differently)."""
import numpy as np
import pytest

import symgrad

jax = pytest.importorskip("jax", reason="jax is not installed")
jnp = pytest.importorskip("jax.numpy")


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def three_slices(x):  # the edges are each the sum of two of the three cotangents
    return np.sum(x[1:] * x[:-1]) + np.sum(x[0:] ** 3)


def rows(X):  # the second axis sliced: the edges a column each
    return np.sum((X[:, 1:] - X[:, :-1] ** 2) ** 2)


def unordered(x):  # n - 3 against 2: the order depends on n, so the sum of pads
    return np.sum(x[:-3] ** 2) + np.sum(x[2:] ** 3)


def corners(X):  # two axes sliced: the sum of pads
    return np.sum(X[1:, 1:] * X[:-1, :-1])


def _assignment(f, shape):
    name = f.__code__.co_varnames[0]
    source = symgrad.grad(f, backend="jax", shapes={name: shape}).source
    lines = source.splitlines()
    start = next(k for k, line in enumerate(lines) if line.lstrip().startswith(f"d{f.__name__}_d"))
    return " ".join(line.strip() for line in lines[start:-1]), source


def test_the_printed_forms():
    line, source = _assignment(rosenbrock, ("n",))
    assert "_dslice = 2.0 * _ditem_1" in source and "_dslice_1 = 200.0 * _ditem" in source
    assert line == ("drosenbrock_dx = (jnp.pad(_dslice[1:] + _dslice_1[:-1], (1, "
                    "1)).at[0].set(_dslice[0]).at[-1].set(_dslice_1[-1]))")
    line, _ = _assignment(three_slices, ("n",))
    assert line.endswith("(jnp.pad(_dslice[1:-1] + item[1:] + item_1[:-1], (1, 1)).at[0]"
                         ".set(_dslice[0] + item[0]).at[-1].set(_dslice[-1] + item_1[-1]))")
    line, _ = _assignment(rows, ("m", "n"))
    assert line.endswith("(jnp.pad(_dslice[:, 1:] + _dslice_1[:, :-1], ((0, 0), (1, 1))).at[:,"
                         " 0].set(_dslice[:, 0]).at[:, -1].set(_dslice_1[:, -1]))")
    for f, shape in [(unordered, ("n",)), (corners, ("m", "n"))]:
        line, _ = _assignment(f, shape)
        assert ".at" not in line and line.count("jnp.pad(") == 2, line


def _central(f, x, h=1e-6):
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        out[k] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("f", [rosenbrock, three_slices, rows, unordered, corners],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 10])
def test_values_at_tiny_sizes(f, n):
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(n)
    x = rng.normal(1.0, 0.5, (3, n) if f in (rows, corners) else n)
    expected = symgrad.grad(f)(x)  # the numpy backend's: z[:-1] = a; z[1:] += b
    g = symgrad.grad(f, backend="jax")
    eager = np.asarray(g(jnp.asarray(x)))
    jitted = np.asarray(jax.jit(g)(jnp.asarray(x)))
    assert eager.shape == jitted.shape == x.shape
    np.testing.assert_array_equal(eager, expected)  # the same additions, in the same order
    np.testing.assert_allclose(jitted, expected, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(eager, _central(f, x), rtol=1e-6, atol=1e-6)

"""The JAX adjoint of a slice pads the cotangent back to the axis's size; its widths are the
slice's bounds as Python clamps them. ``x[:3]`` of 2 elements is the whole array: the widths
``(0, n - 3)`` raised ValueError (a negative width) for ``n < 3``, and ``x[:-3]`` of 2 elements
(empty) padded by ``(0, 3)`` gave a gradient of 3 elements for a parameter of 2."""
import numpy as np
import pytest

import symgrad

jax = pytest.importorskip("jax", reason="jax is not installed")
jnp = pytest.importorskip("jax.numpy")


def head(x):
    return np.sum(x[:3] ** 2)  # 2 x on the first min(3, n) elements, by hand


def middle(x):
    return np.sum(x[1:3] ** 2)


def tail(x):
    return np.sum(x[-3:] ** 2)


def all_but_three(x):
    return np.sum(x[:-3] ** 2) + np.sum(x)


def corner(X):
    return np.sum(X[:2, 1:] ** 2)


def _by_hand(f, x):
    """2 x where the slice reads, plus 1 everywhere for ``all_but_three``."""
    read = np.zeros(x.shape, dtype=bool)
    index = {head: np.s_[:3], middle: np.s_[1:3], tail: np.s_[-3:],
             all_but_three: np.s_[:-3], corner: np.s_[:2, 1:]}[f]
    read[index] = True
    return np.where(read, 2.0 * x, 0.0) + (1.0 if f is all_but_three else 0.0)


@pytest.mark.parametrize("f", [head, middle, tail, all_but_three, corner],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_a_slice_longer_than_the_axis(f, n, jit):
    x = np.arange(1.0, 2 * n + 1).reshape(n, 2) if f is corner else np.arange(1.0, n + 1)
    g = symgrad.grad(f, backend="jax")
    got = np.asarray((jax.jit(g) if jit else g)(jnp.asarray(x)))
    assert got.shape == x.shape
    np.testing.assert_allclose(got, _by_hand(f, x), rtol=1e-12)
    np.testing.assert_allclose(got, symgrad.grad(f)(x), rtol=1e-12)  # the numpy backend's

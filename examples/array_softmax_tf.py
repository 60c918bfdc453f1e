"""The softmax of the `tf.stop_gradient` reference page, written with `tf.`-spelled calls.

    p = tf.exp(x) / tf.reduce_sum(tf.exp(x))          (the page's softmax, first component p_0)

symgrad reads `tf.exp`, `tf.reduce_sum`, `tf.reduce_max` and `tf.stop_gradient` as the NumPy
functions they mean (here `tf` is a stand-in namespace, so the example runs without TensorFlow;
with `import tensorflow as tf` the spellings are read the same way). By hand, row 0 of the softmax
Jacobian is

    d p_0 / d x_j = p_0 * (delta_0j - p_j)

The stable version shifts x by a stopped maximum, m = stop_gradient(max(x)): the shift cancels in
the value, and since m is a constant for differentiation the gradient is the same formula, but
exp() never overflows (x = 1000 + ...).

The two functions are the acceptance cases' own (seed_softmax_first and seed_softmax_first_stable
in tests/acceptance/cases_arrays.py, with its `tf` stand-in), read from there so that one copy of
each exists.

Run from the repository root: python examples/array_softmax_tf.py
"""
import os
import sys

import numpy as np

import symgrad

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests",
                                "acceptance"))
from cases_arrays import seed_softmax_first as softmax_first  # noqa: E402
from cases_arrays import seed_softmax_first_stable as softmax_first_stable  # noqa: E402


def by_hand(x):
    """p_0 * (delta_0j - p_j), with p computed the stable way (shifting by max(x) cancels)."""
    e = np.exp(x - np.max(x))
    p = e / np.sum(e)
    delta = np.zeros_like(p)
    delta[0] = 1.0
    return p[0] * (delta - p)


POINTS = [np.array([0.5, -1.0, 2.0]), np.array([0.0, 0.0, 0.0, 0.0]),
          np.array([0.3, 1.2, -0.7, 0.0, 2.5]), np.linspace(-3.0, 3.0, 50)]


def main():
    g = symgrad.grad(softmax_first, shapes={"x": ("n",)})
    g_stable = symgrad.grad(softmax_first_stable, shapes={"x": ("n",)})
    print(g.source)
    print(g_stable.source)

    for x in POINTS:
        for gradient in (g, g_stable):
            got, expected = gradient(x), by_hand(x)
            assert got.shape == x.shape, f"gradient shape {got.shape}, expected {x.shape}"
            assert np.allclose(got, expected, rtol=1e-12, atol=1e-15), (
                f"{gradient.__name__} at x = {x}: hand-derived {expected}, symgrad {got}")
    assert np.allclose(g(np.zeros(4)), [3 / 16, -1 / 16, -1 / 16, -1 / 16], rtol=1e-14), (
        f"at x = 0 (4 elements) p = 1/4, so the gradient is (3/16, -1/16, -1/16, -1/16), got "
        f"{g(np.zeros(4))}")
    print(f"ok: both gradients are p_0 * (delta_0j - p_j) at {len(POINTS)} vectors of sizes "
          f"{[len(x) for x in POINTS]} (one build serves every size)")

    big = np.array([1000.5, 999.0, 1002.0])
    with np.errstate(over="ignore", invalid="ignore"):
        plain = g(big)
    stable = g_stable(big)
    assert np.all(np.isnan(plain)), f"exp(1000) overflows in the plain softmax, got {plain}"
    assert np.allclose(stable, by_hand(big), rtol=1e-12), (
        f"stable gradient at {big}: hand-derived {by_hand(big)}, symgrad {stable}")
    assert np.allclose(stable, g(big - 1000.0), rtol=1e-12), "the shift must not change it"
    print(f"ok: at x = {big.tolist()} the plain gradient is nan (exp overflows), the stable one "
          f"is {np.round(stable, 6).tolist()}, the gradient at x - 1000")


if __name__ == "__main__":
    main()

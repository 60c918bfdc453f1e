"""A linear layer with quantised weights, trained through `round` by the straight-through estimator.

The weights are stored in float and used on a grid of step 1/S:

    q    = w + stop_gradient(round(w * S) / S - w)      (value round(w S) / S, derivative 1)
    loss = mean((X q - y) ** 2)                          over a batch of n samples

`round` has derivative 0 almost everywhere, so without the estimator nothing would learn; with it,
the gradient is the unquantised layer's formula taken at the quantised weights:

    d loss / d w = 2 X^T (X q - y) / n,    q = round(w S) / S

Run from the repository root: python examples/array_quantised_linear.py
"""
import numpy as np

import symgrad
from symgrad import stop_gradient

S = 4.0                                   # quantisation grid: multiples of 0.25
W_TRUE = np.array([0.75, -1.25, 0.5])     # on the grid, so the quantised layer can fit it exactly
LEARNING_RATE, STEPS = 0.05, 60


def quantised_loss(w, X, y):
    q = w + stop_gradient(np.round(w * S) / S - w)
    r = X @ q - y
    return np.mean(r ** 2)


def plain_loss(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2)


def naive_loss(w, X, y):
    r = X @ (np.round(w * S) / S) - y
    return np.mean(r ** 2)


def by_hand(w, X, y):
    """2 X^T (X q - y) / n at q = round(w S) / S, see the module docstring."""
    q = np.round(w * S) / S
    return 2.0 * X.T @ (X @ q - y) / len(X)


def main():
    shapes = {"w": ("d",), "X": ("n", "d"), "y": ("n",)}
    g = symgrad.grad(quantised_loss, wrt="w", shapes=shapes)
    g_plain = symgrad.grad(plain_loss, wrt="w", shapes=shapes)
    print(g.source)

    rng = np.random.default_rng(3)
    X = rng.normal(size=(64, 3))
    y = X @ W_TRUE + rng.normal(0.0, 0.05, 64)

    for w in (np.array([0.3, 0.1, -0.6]), np.array([0.74, -1.3, 0.51]), rng.normal(size=3)):
        q = np.round(w * S) / S
        value = quantised_loss(w, X, y)
        assert abs(value - plain_loss(q, X, y)) <= 1e-12 * plain_loss(q, X, y), (
            f"the forward value must be the loss at the quantised weights {q}")
        got = g(w, X, y)
        assert np.allclose(got, by_hand(w, X, y), rtol=1e-12, atol=1e-14), (
            f"at w = {w}: by hand {by_hand(w, X, y)}, symgrad {got}")
        assert np.allclose(got, g_plain(q, X, y), rtol=1e-12, atol=1e-14), (
            f"at w = {w}: the unquantised gradient at q = {q} is {g_plain(q, X, y)}, got {got}")
    print("ok: d loss / d w = 2 X^T (X q - y) / n at q = round(w S) / S, the unquantised layer's "
          "gradient at the quantised weights")

    naive = symgrad.grad(naive_loss, wrt="w", shapes=shapes)(np.array([0.3, 0.1, -0.6]), X, y)
    assert np.array_equal(naive, np.zeros(3)), f"round has derivative 0, got {naive}"
    print(f"ok: without stop_gradient the gradient through round is {naive.tolist()}: "
          "nothing would learn")

    w = np.zeros(3)
    for step in range(STEPS + 1):
        if step % 10 == 0:
            print(f"step {step:2d}: loss {quantised_loss(w, X, y):.5f}  "
                  f"quantised weights {np.round(w * S) / S}")
        w = w - LEARNING_RATE * g(w, X, y)
    final_q = np.round(w * S) / S
    assert np.array_equal(final_q, W_TRUE), f"quantised weights {final_q}, expected {W_TRUE}"
    assert quantised_loss(w, X, y) < 0.01, f"loss {quantised_loss(w, X, y)}"
    print(f"ok: after {STEPS} steps the quantised weights are {final_q.tolist()}, the true ones, "
          f"loss {quantised_loss(w, X, y):.5f}")


if __name__ == "__main__":
    main()

"""Linear regression trained by gradient descent: the `tf.gradients(loss_op, [w, b])` loop.

The model and loss of the TensorFlow write-up, on a batch of n samples:

    y    = x * w + b
    loss = reduce_sum((y_in - y) ** 2) / (2 n)

By hand, with the residual y - y_in:

    d loss / d w = sum((y - y_in) * x) / n
    d loss / d b = sum(y - y_in) / n

The loop asks symgrad for (dw, db) once per step and moves (w, b) against it. The loss is a convex
quadratic, so gradient descent converges to the least-squares fit, which `np.polyfit` computes in
closed form; the synthetic data (fixed seed) were drawn around w = 2, b = 1.

Run from the repository root: python examples/array_linear_regression.py
"""
import types

import numpy as np

import symgrad

tf = types.SimpleNamespace(reduce_sum=np.sum)

W_TRUE, B_TRUE = 2.0, 1.0
LEARNING_RATE, STEPS = 0.1, 200


def linear_regression_loss(w, b, x_input, y_input):
    y = x_input * w + b
    return tf.reduce_sum((y_input - y) ** 2) / (2 * len(x_input))


def by_hand(w, b, x_input, y_input):
    """(d loss / dw, d loss / db), see the module docstring."""
    residual = x_input * w + b - y_input
    return np.sum(residual * x_input) / len(x_input), np.sum(residual) / len(x_input)


def synthetic_data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, n)
    return x, W_TRUE * x + B_TRUE + rng.normal(0.0, 0.1, n)


def main():
    g = symgrad.grad(linear_regression_loss, wrt=("w", "b"),
                     shapes={"x_input": ("n",), "y_input": ("n",)})
    print(g.source)

    # the seed's numbers: x = 1..4, y_in = (5.1, 6.9, 9.2, 10.8) at w = 2, b = 1
    x4, y4 = np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.1, 6.9, 9.2, 10.8])
    dw, db = g(2.0, 1.0, x4, y4)
    assert isinstance(dw, float) and isinstance(db, float), "a scalar parameter gets a float"
    assert abs(dw - -4.925) < 1e-12 and abs(db - -2.0) < 1e-12, (
        f"by hand dw = -19.7 / 4 = -4.925 and db = -8 / 4 = -2.0, got ({dw}, {db})")
    print(f"ok: at w = 2, b = 1 on the 4 seed samples (dw, db) = ({dw:.4f}, {db:.4f}) = "
          "(-19.7/4, -8/4)")

    x, y_in = synthetic_data()
    w, b = 0.0, 0.0
    losses = []
    for step in range(STEPS + 1):
        losses.append(linear_regression_loss(w, b, x, y_in))
        if step % 20 == 0:
            print(f"step {step:3d}: loss {losses[-1]:.6f}  w {w:.4f}  b {b:.4f}")
        dw, db = g(w, b, x, y_in)
        hand_dw, hand_db = by_hand(w, b, x, y_in)
        assert abs(dw - hand_dw) <= 1e-12 * max(1.0, abs(hand_dw)), (
            f"step {step}: dw by hand {hand_dw}, symgrad {dw}")
        assert abs(db - hand_db) <= 1e-12 * max(1.0, abs(hand_db)), (
            f"step {step}: db by hand {hand_db}, symgrad {db}")
        w, b = w - LEARNING_RATE * dw, b - LEARNING_RATE * db
    print(f"ok: symgrad's (dw, db) equals the hand formula at all {STEPS + 1} steps")

    assert all(later <= earlier + 1e-15 for earlier, later in zip(losses, losses[1:])), (
        "gradient descent with a small step must not increase this convex loss")
    assert losses[-1] < 0.01 * losses[0], f"the loss fell only from {losses[0]} to {losses[-1]}"
    print(f"ok: the loss fell at every step, from {losses[0]:.4f} to {losses[-1]:.6f}")

    w_fit, b_fit = np.polyfit(x, y_in, 1)
    assert abs(w - w_fit) < 1e-6 and abs(b - b_fit) < 1e-6, (
        f"gradient descent ended at (w, b) = ({w}, {b}), least squares gives ({w_fit}, {b_fit})")
    assert abs(w - W_TRUE) < 0.1 and abs(b - B_TRUE) < 0.1, (
        f"(w, b) = ({w}, {b}) should be near the truth ({W_TRUE}, {B_TRUE})")
    print(f"ok: fitted w = {w:.4f}, b = {b:.4f} (least squares {w_fit:.4f}, {b_fit:.4f}; "
          f"truth {W_TRUE}, {B_TRUE})")


if __name__ == "__main__":
    main()

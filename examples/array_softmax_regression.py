"""Softmax regression (multinomial logistic regression) on a synthetic 3-class data set.

Logits Z = X W + b for n samples of d features and k classes, one-hot labels Y, and the mean
cross-entropy of the softmax, written the stable way: each row is shifted by its stopped maximum,
which cancels in the value and, being a constant for differentiation, in the gradient too:

    Z    = X W + b - stop_gradient(max(X W + b, axis=1))
    loss = -mean_i sum_j Y_ij (Z_ij - log sum_l exp(Z_il))

By hand, with P = softmax(Z) row by row (each row of Y sums to 1):

    d loss / d W = X^T (P - Y) / n
    d loss / d b = sum_i (P - Y)_i / n

Gradient descent on (W, b) from zero, with the accuracy of argmax(Z) printed as it trains.

Run from the repository root: python examples/array_softmax_regression.py
"""
import numpy as np

import symgrad
from symgrad import stop_gradient

CENTRES = np.array([[0.0, 2.0], [-2.0, -1.0], [2.0, -1.0]])   # one blob per class
LEARNING_RATE, STEPS = 0.5, 100


def cross_entropy(W, b, X, Y):
    Z = X @ W + b
    Z = Z - stop_gradient(np.max(Z, axis=1, keepdims=True))
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * logp, axis=1))


def by_hand(W, b, X, Y):
    """(X^T (P - Y) / n, sum_i (P - Y)_i / n), see the module docstring."""
    Z = X @ W + b
    E = np.exp(Z - np.max(Z, axis=1, keepdims=True))
    P = E / np.sum(E, axis=1, keepdims=True)
    return X.T @ (P - Y) / len(X), np.sum(P - Y, axis=0) / len(X)


def synthetic_data(per_class=50, seed=1):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(3), per_class)
    X = CENTRES[labels] + rng.normal(0.0, 0.8, (3 * per_class, 2))
    return X, np.eye(3)[labels], labels


def accuracy(W, b, X, labels):
    return float(np.mean(np.argmax(X @ W + b, axis=1) == labels))


def main():
    shapes = {"W": ("d", "k"), "b": ("k",), "X": ("n", "d"), "Y": ("n", "k")}
    g = symgrad.grad(cross_entropy, wrt=("W", "b"), shapes=shapes)
    print(g.source)

    X, Y, labels = synthetic_data()
    W, b = np.zeros((2, 3)), np.zeros(3)
    dW, db = g(W, b, X, Y)
    assert dW.shape == (2, 3) and db.shape == (3,), f"shapes {dW.shape}, {db.shape}"
    # at W = 0, b = 0 every P_ij is 1/3: dW = X^T (1/3 - Y) / n, db = 1/3 - (class share) = 0
    assert np.allclose(dW, X.T @ (1 / 3 - Y) / len(X), rtol=1e-12, atol=1e-15), dW
    assert np.allclose(db, 0.0, atol=1e-15), f"balanced classes: db = 0 at W = b = 0, got {db}"
    print("ok: at W = 0, b = 0 (P = 1/3 everywhere) dW = X^T (1/3 - Y) / n and db = 0")

    losses = []
    for step in range(STEPS + 1):
        losses.append(cross_entropy(W, b, X, Y))
        if step % 20 == 0:
            print(f"step {step:3d}: loss {losses[-1]:.4f}  "
                  f"accuracy {accuracy(W, b, X, labels):.3f}")
        dW, db = g(W, b, X, Y)
        hand_dW, hand_db = by_hand(W, b, X, Y)
        assert np.allclose(dW, hand_dW, rtol=1e-10, atol=1e-14), (
            f"step {step}: dW by hand {hand_dW}, symgrad {dW}")
        assert np.allclose(db, hand_db, rtol=1e-10, atol=1e-14), (
            f"step {step}: db by hand {hand_db}, symgrad {db}")
        W, b = W - LEARNING_RATE * dW, b - LEARNING_RATE * db
    print(f"ok: symgrad's (dW, db) equals X^T (P - Y) / n, sum(P - Y) / n at all {STEPS + 1} steps")

    final = accuracy(W, b, X, labels)
    assert losses[-1] < 0.5 * losses[0], f"the loss fell only from {losses[0]} to {losses[-1]}"
    assert final >= 0.9, f"3 well separated blobs: expected an accuracy of 0.9 or more, got {final}"
    print(f"ok: the loss fell from {losses[0]:.4f} (log 3) to {losses[-1]:.4f}; "
          f"training accuracy {final:.3f}")

    # the stopped row maximum keeps exp() finite for logits in the thousands
    big_W = 1000.0 * W
    dW, db = g(big_W, b, X, Y)
    assert np.all(np.isfinite(dW)) and np.all(np.isfinite(db)), "the stable loss must not overflow"
    assert np.allclose(dW, by_hand(big_W, b, X, Y)[0], rtol=1e-10, atol=1e-12), dW
    print("ok: with the weights scaled by 1000 (logits in the thousands) the gradient stays finite "
          "and equals the hand formula")


if __name__ == "__main__":
    main()

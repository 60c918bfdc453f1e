"""Logistic regression on one feature: the log-loss of a label y in {-1, +1}.

    loss(w, b, x, y) = log(1 + exp(-y (w x + b)))

By hand, with the margin m = y (w x + b) and the sigmoid s(t) = 1 / (1 + exp(-t)):

    d loss / dm = -exp(-m) / (1 + exp(-m)) = -s(-m)
    d loss / dw = -s(-m) * y * x
    d loss / db = -s(-m) * y

and, since the loss is symmetric in w and x, d loss / dx = -s(-m) * y * w (the input gradient used
for adversarial examples).

Run from the repository root: python examples/logistic_regression.py
"""
import math

import symgrad


def loss(w, b, x, y):
    return math.log(1 + math.exp(-y * (w * x + b)))


def sigmoid(t):
    return 1 / (1 + math.exp(-t))


def loss_grad(w, b, x, y):
    """d loss / dw and d loss / db, derived by hand (see the module docstring)."""
    s = sigmoid(-y * (w * x + b))
    return -s * y * x, -s * y


POINTS = [(0.0, 0.0, 1.0, 1.0), (0.5, -0.25, 2.0, 1.0), (0.5, -0.25, 2.0, -1.0),
          (-3.0, 1.5, 0.7, 1.0), (2.0, 0.0, -4.0, -1.0), (10.0, 3.0, 1.5, -1.0)]

# a tiny separable data set: label +1 when x > 1
DATA = [(-1.0, -1.0), (0.0, -1.0), (0.5, -1.0), (1.5, 1.0), (2.0, 1.0), (3.0, 1.0)]


def main():
    g = symgrad.grad(loss, wrt=("w", "b"))
    print(g.source)

    for point in POINTS:
        got, expected = g(*point), loss_grad(*point)
        assert all(abs(a - b) <= 1e-12 * max(1.0, abs(b)) for a, b in zip(got, expected)), (
            f"(d loss/dw, d loss/db) at (w, b, x, y) = {point}: hand-derived {expected}, "
            f"symgrad {got}")
    assert g(0.0, 0.0, 1.0, 1.0) == (-0.5, -0.5), (
        f"at w = b = 0 the sigmoid is 1/2, so the gradient is (-0.5, -0.5), got "
        f"{g(0.0, 0.0, 1.0, 1.0)}")
    print(f"ok: symgrad's gradient matches loss_grad at {len(POINTS)} points")

    dx = symgrad.grad(loss, wrt="x")
    for w, b, x, y in POINTS:
        expected = -sigmoid(-y * (w * x + b)) * y * w
        assert abs(dx(w, b, x, y) - expected) <= 1e-12 * max(1.0, abs(expected)), (
            f"d loss/dx at {(w, b, x, y)}: expected {expected}, got {dx(w, b, x, y)}")
    print("ok: d loss / dx = -s(-m) * y * w")

    # full-batch gradient descent with the generated gradient separates the data
    w, b = 0.0, 0.0
    for _ in range(500):
        dw = db = 0.0
        for x, y in DATA:
            gw, gb = g(w, b, x, y)
            dw, db = dw + gw, db + gb
        w, b = w - 0.5 * dw / len(DATA), b - 0.5 * db / len(DATA)
    predictions = [1.0 if w * x + b > 0 else -1.0 for x, _ in DATA]
    assert predictions == [y for _, y in DATA], (
        f"w = {w}, b = {b} should classify the training data, predicted {predictions}")
    print(f"ok: 500 steps of gradient descent give w = {w:.3f}, b = {b:.3f}, boundary at "
          f"x = {-b / w:.3f}, every point classified")


if __name__ == "__main__":
    main()

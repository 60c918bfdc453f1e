"""Training a quantiser through `round` with the straight-through estimator (Bengio et al., 2013).

A weight `w` scales a quantised input `q = round(x)`, and the loss is `(w*q - target)**2`. The
derivative of `round` is 0 almost everywhere, so the honest gradient with respect to `x` is 0 and
nothing upstream of the quantiser ever learns. The straight-through estimator writes

    q = x + stop_gradient(round(x) - x)

whose forward value is `round(x)` (the `x` terms cancel) and whose derivative is that of `x`: 1.
So by hand, with q = round(x):

    d loss / dx = 2 * (w*q - target) * w        (round's derivative replaced by 1)
    d loss / dw = 2 * (w*q - target) * q

Run from the repository root: python examples/straight_through_estimator.py
"""
import symgrad
from symgrad import stop_gradient

TARGET = 1.0


def quantised_loss(x, w):
    q = x + stop_gradient(round(x) - x)
    return (w * q - TARGET) ** 2


def naive_loss(x, w):
    q = round(x)
    return (w * q - TARGET) ** 2


def by_hand(x, w):
    q = round(x)
    return 2.0 * (w * q - TARGET) * w, 2.0 * (w * q - TARGET) * q


def main():
    g = symgrad.grad(quantised_loss)
    print(g.source)

    # the forward value uses round(x): round(1.3) = 1, so the loss is (2*1 - 1)**2 = 1
    value = quantised_loss(1.3, 2.0)
    assert value == 1.0, f"forward value should use round(1.3) = 1: expected 1.0, got {value}"
    print(f"ok: quantised_loss(1.3, 2.0) = {value}, computed with round(1.3) = 1")

    # the derivative passes straight through round: at (1.3, 2.0) d/dx = 2*(2*1 - 1)*2 = 4 and
    # d/dw = 2*(2*1 - 1)*1 = 2
    for x, w in [(1.3, 2.0), (-0.7, 0.5), (2.6, -1.5), (0.2, 3.0)]:
        got, expected = g(x, w), by_hand(x, w)
        assert all(abs(a - b) <= 1e-12 * (1 + abs(b)) for a, b in zip(got, expected)), (
            f"straight-through gradient at x={x}, w={w}: expected {expected}, got {got}")
    assert g(1.3, 2.0) == (4.0, 2.0), f"expected (4.0, 2.0) at (1.3, 2.0), got {g(1.3, 2.0)}"
    print("ok: d quantised_loss / dx = 2*(w*round(x) - 1)*w, as if round were the identity")

    # without the estimator the gradient with respect to x is exactly 0: nothing would learn
    naive = symgrad.grad(naive_loss, wrt="x")(1.3, 2.0)
    assert naive == 0.0, f"round has derivative 0, so d naive_loss / dx should be 0.0, got {naive}"
    print(f"ok: without stop_gradient the derivative through round is {naive}")

    # a few steps of gradient descent on the quantiser's input: round(x)*w moves to the target
    x, w = 2.4, 1.5
    for _ in range(30):
        dx, dw = g(x, w)
        x, w = x - 0.05 * dx, w - 0.05 * dw
    final = quantised_loss(x, w)
    assert final < 1e-6, f"training through round should reach the target, loss is {final}"
    print(f"ok: after 30 steps x = {x:.3f} (round(x) = {round(x)}), w = {w:.4f}, "
          f"loss = {final:.1e}")


if __name__ == "__main__":
    main()

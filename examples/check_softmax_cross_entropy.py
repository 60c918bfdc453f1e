"""Checking a hand-derived gradient: softmax cross-entropy of 3 logits with a one-hot label.

With p = softmax(x) and a one-hot label y (class LABEL), the loss is

    loss(x) = -sum_i y_i log p_i = -log p_LABEL = logsumexp(x) - x_LABEL

and by hand, since d logsumexp / d x_j = p_j:

    d loss / d x_j = p_j - y_j                     (the well-known "p minus one-hot")

The loss is written the stable way: shifting every logit by m = max(x) keeps each exp() at most 1,
and m is wrapped in stop_gradient because it only has to be *some* constant (it cancels). The hand
gradient is checked with symgrad.check_grad, which compares it with symgrad's derivative
symbolically and at points; a deliberately wrong gradient (one that forgets that the normaliser
depends on every logit) is caught, with the point where it is worst.

Run from the repository root: python examples/check_softmax_cross_entropy.py
"""
import math

import symgrad
from symgrad import stop_gradient

LABEL = 1
ONE_HOT = (0.0, 1.0, 0.0)  # y: class LABEL


def cross_entropy(x0, x1, x2):
    m = stop_gradient(max(x0, x1, x2))
    z = (x0 - m, x1 - m, x2 - m)
    log_norm = math.log(math.exp(z[0]) + math.exp(z[1]) + math.exp(z[2]))
    return -(z[LABEL] - log_norm)  # -log p_LABEL: the one-hot sum keeps only the label's term


def cross_entropy_grad(x0, x1, x2):
    """By hand: p - y, with p the softmax (shifted by the maximum, which cancels)."""
    m = max(x0, x1, x2)
    e0, e1, e2 = math.exp(x0 - m), math.exp(x1 - m), math.exp(x2 - m)
    total = e0 + e1 + e2
    return e0 / total - ONE_HOT[0], e1 / total - ONE_HOT[1], e2 / total - ONE_HOT[2]


def cross_entropy_grad_wrong(x0, x1, x2):
    """A classic slip: forgets that the normaliser depends on every logit, so only the label's
    component p_LABEL - 1 is there and the others are 0 (they should be p_j)."""
    m = max(x0, x1, x2)
    e0, e1, e2 = math.exp(x0 - m), math.exp(x1 - m), math.exp(x2 - m)
    total = e0 + e1 + e2
    return 0.0, e1 / total - 1.0, 0.0


LARGE = [(1000.0, 1001.0, 1002.0), (-50.0, 30.0, 29.5), (0.0, 0.0, 0.0)]


def main():
    print(symgrad.grad(cross_entropy).source)

    report = symgrad.check_grad(cross_entropy, cross_entropy_grad)
    print(report)
    assert report.verdict == "equal", f"the right gradient should be 'equal':\n{report}"
    print("ok: p - onehot is equal to symgrad's gradient (symbolically, and at 10 random points)")

    large = symgrad.check_grad(cross_entropy, cross_entropy_grad, points=LARGE)
    print(large)
    assert large.verdict == "equal" and large.worst_error <= 1e-9, large
    print("ok: also at logits (1000, 1001, 1002), where the unshifted exp() would overflow")

    wrong = symgrad.check_grad(cross_entropy, cross_entropy_grad_wrong)
    print(wrong)
    assert wrong.verdict == "different", f"the wrong gradient should be 'different':\n{wrong}"
    assert wrong.worst_component in ("dcross_entropy_dx0", "dcross_entropy_dx2"), wrong
    assert wrong.worst_error > 0.1, wrong
    print(f"ok: the wrong gradient is caught: worst at {wrong.worst_point}, "
          f"{wrong.worst_component} is {wrong.got!r} by hand, {wrong.expected!r} by symgrad")

    try:
        symgrad.assert_grad(cross_entropy, cross_entropy_grad_wrong)
    except AssertionError as error:
        assert str(error) == str(wrong)
        print("ok: assert_grad raises AssertionError with the same report")
    else:
        raise AssertionError("assert_grad should reject the wrong gradient")


if __name__ == "__main__":
    main()

"""Numerically stable log-sum-exp and softmax: shifting by a stopped maximum changes no gradient.

    logsumexp(x) = m + log(sum_i exp(x_i - m))    for any constant m

Taking m = max(x) keeps every exp() at most 1, so x = (1000, 1001, 1002) does not overflow. Since m
only has to be *some* constant, it is wrapped in stop_gradient: symgrad then does not differentiate
through max (no kinks, no tie rules), and by hand the gradient is that of the unshifted formula:

    d logsumexp / d x_j = exp(x_j) / sum_i exp(x_i) = p_j             (the softmax probabilities)
    d p_0 / d x_j       = p_0 * (delta_0j - p_j)                 (row 0 of the softmax Jacobian)

Run from the repository root: python examples/stable_softmax.py
"""
import math

import symgrad
from symgrad import stop_gradient


def logsumexp(x0, x1, x2):
    m = stop_gradient(max(x0, x1, x2))
    return m + math.log(math.exp(x0 - m) + math.exp(x1 - m) + math.exp(x2 - m))


def softmax0(x0, x1, x2):
    m = stop_gradient(max(x0, x1, x2))
    e0 = math.exp(x0 - m)
    return e0 / (e0 + math.exp(x1 - m) + math.exp(x2 - m))


def plain_softmax0(x0, x1, x2):
    return math.exp(x0) / (math.exp(x0) + math.exp(x1) + math.exp(x2))


def probabilities(x0, x1, x2):
    """The softmax by hand (shifted by the maximum, which cancels)."""
    m = max(x0, x1, x2)
    e = [math.exp(x0 - m), math.exp(x1 - m), math.exp(x2 - m)]
    return tuple(v / sum(e) for v in e)


def close(a, b, rtol=1e-12):
    return all(abs(u - v) <= rtol * max(1.0, abs(v)) for u, v in zip(a, b))


POINTS = [(0.0, 0.0, 0.0), (1.0, 2.0, 3.0), (-0.5, 4.0, 0.25), (3.0, 3.0, -1.0),
          (1000.0, 1001.0, 1002.0)]


def main():
    g_lse = symgrad.grad(logsumexp)
    g_soft = symgrad.grad(softmax0)
    print(g_lse.source)
    print(g_soft.source)

    for x in POINTS:
        p = probabilities(*x)
        assert close(g_lse(*x), p), f"grad logsumexp at {x}: expected softmax {p}, got {g_lse(*x)}"
    assert g_lse(0.0, 0.0, 0.0) == (1 / 3, 1 / 3, 1 / 3), (
        f"at x = 0 every probability is 1/3, got {g_lse(0.0, 0.0, 0.0)}")
    print("ok: grad logsumexp = softmax probabilities, also at x = (1000, 1001, 1002)")

    for x in POINTS:
        p = probabilities(*x)
        expected = (p[0] * (1 - p[0]), -p[0] * p[1], -p[0] * p[2])
        assert close(g_soft(*x), expected), (
            f"grad softmax0 at {x}: expected p0*(delta_0j - p_j) = {expected}, got {g_soft(*x)}")
    print("ok: grad softmax0 = p0 * (delta_0j - p_j)")

    # the stopped shift changes nothing: the textbook formula's gradient, where that fits in floats
    g_plain = symgrad.grad(plain_softmax0)
    for x in POINTS[:-1]:
        assert close(g_soft(*x), g_plain(*x)), (
            f"stable and plain softmax gradients differ at {x}: {g_soft(*x)} vs {g_plain(*x)}")
    try:
        g_plain(*POINTS[-1])
    except OverflowError:
        print("ok: same gradient as the plain softmax, which overflows at x = 1000 where the "
              "stable one does not")
    else:
        raise AssertionError("math.exp(1000.0) should overflow in the plain softmax's gradient")


if __name__ == "__main__":
    main()

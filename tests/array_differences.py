"""Float64 central differences, the reference array tests check gradients against: along a
random direction per argument (``central``, ``assert_directional``) or element by element
(``elementwise``); and the workload of the tie tests of a reordered product (finding F18), which
the form tests and the written-value tests both run (``reordered_maximum``, ``reordered_points``).
"""
import numpy as np
import pytest


def central(f, args, k, v, h=1e-6):
    """The central difference of ``f`` at ``args`` along ``v`` for argument ``k``."""
    plus, minus = list(args), list(args)
    plus[k] = args[k] + h * v
    minus[k] = args[k] - h * v
    return (f(*plus) - f(*minus)) / (2 * h)


def assert_directional(f, gradients, args, rng, rel=1e-6, abs=1e-8):
    """Each of ``gradients`` (one per argument of ``f``, at ``args``) against the central
    difference along a direction drawn from ``rng`` (a NumPy ``Generator``), argument by argument."""
    for k, g in enumerate(gradients):
        v = rng.standard_normal(np.shape(args[k]))
        assert np.sum(g * v) == pytest.approx(central(f, args, k, v), rel=rel, abs=abs)


def elementwise(f, x, h=1e-6):
    """Central differences of ``f`` at the array ``x``, one element at a time."""
    out = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        out.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def reordered_maximum(X, v):
    return np.sum(np.maximum((X * v) * (X + v), np.maximum(X, X * X[::-1])) ** 2)


def reordered_points(seed=2):
    """``(rng, X, v)``: six points of each size 3 to 6, ``X`` a vector and ``v`` a number, drawn
    from one generator, which the caller may draw more from between points."""
    rng = np.random.default_rng(seed)
    for n in (3, 4, 5, 6):
        for _ in range(6):
            X = rng.normal(size=n)
            yield rng, X, rng.normal()

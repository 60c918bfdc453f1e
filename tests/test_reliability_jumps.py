"""Functions whose value jumps (floor, ceil, round, ``//``, ``%``) read the primal's float.

Their derivative is 0, but the value they multiply into a product's derivative is theirs, taken
where a float rounding decides it: ``math.ceil(0.4 - y - x)`` at (1, 0.4) is ``ceil(-1.0) = -1``
in float, while SymPy's form ``-x - y + 0.4`` gives -0.9999999999999999 and a ceiling of 0; and
SymPy's ``floor(2 + e) = 2 + floor(e)`` is 1 where Python's ``math.floor(2.0 + e)`` is 2 for a
tiny negative ``e``. Each expected value is the primal's own jump value (computed by Python at
the point, below), times the hand derivative of the smooth factor.
"""
import math

import pytest

import symgrad

STRATEGIES = ("auto", "reverse", "symbolic")


def ceil_of_offset(x, y):
    return math.ceil(0.4 - y - x) * y


def floor_of_offset(x, y):
    return math.floor(0.4 - y - x) * y


def round_of_offset(x, y):
    return round(0.4 - y - x + 0.5) * y


def floor_of_name(x, y):
    a = 2
    a += math.exp(0.5 - 100.0) * (1.0 - y)
    return math.floor(a) * (0.4 - y) + x


def ceil_of_name(x, y):
    a = -2
    a += math.exp(0.5 - 100.0) * (y - 1.0)
    return math.ceil(a) * (0.4 - y) + x


def floordiv_of_offset(x, y):
    return ((0.4 - y - x) // 1.0) * y


def mod_of_offset(x, y):
    return ((0.4 - y - x) % 1.0) * y


CASES = [
    # function, point, expected gradient from the primal's jump value J at the point
    (ceil_of_offset, (1.0, 0.4), lambda x, y: (0.0, float(math.ceil(0.4 - y - x)))),
    (floor_of_offset, (1.0, 0.4), lambda x, y: (0.0, float(math.floor(0.4 - y - x)))),
    (round_of_offset, (1.0, 0.4), lambda x, y: (0.0, float(round(0.4 - y - x + 0.5)))),
    (floor_of_name, (0.0, 2.37),
     lambda x, y: (1.0, -float(math.floor(2 + math.exp(0.5 - 100.0) * (1.0 - y))))),
    (ceil_of_name, (0.0, 2.37),
     lambda x, y: (1.0, -float(math.ceil(-2 + math.exp(0.5 - 100.0) * (y - 1.0))))),
    (floordiv_of_offset, (1.0, 0.4), lambda x, y: (0.0, (0.4 - y - x) // 1.0)),
    # d/dx of (a % 1) * y is -y (the quotient held constant); d/dy is (a % 1) - y
    (mod_of_offset, (1.0, 0.4), lambda x, y: (-y, (0.4 - y - x) % 1.0 - y)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function, point, expected", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_jump_reads_the_primal_float(function, point, expected, strategy):
    got = symgrad.grad(function, strategy=strategy)(*point)
    assert got == expected(*point)


def test_the_float_effect_is_real():
    """The points above are where SymPy's form rounds to the other side (else the test could not
    fail)."""
    x, y = 1.0, 0.4
    assert math.ceil(0.4 - y - x) != math.ceil(-x - y + 0.4)
    assert math.floor(2 + math.exp(0.5 - 100.0) * (1.0 - 2.37)) == 2
    assert 2 + math.floor(math.exp(0.5 - 100.0) * (1.0 - 2.37)) == 1

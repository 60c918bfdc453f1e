"""The printed forms that make generated code fast keep every value and every convention.

- a negative number coefficient stays in its literal (``-0.5 * y``, not ``-(0.5 * y)``), and a
  negated sum is printed term by term (``-0.5 * x - 2.0``): the same float, one operation fewer;
- a ``max``/``min`` whose coefficient in the output is identically 0 (the shift of a log-sum-exp)
  is held constant, so no tie bookkeeping is printed, while a ``max`` that matters keeps the tie
  convention (k tied arguments get 1/k each) and is computed once;
- an expression of constants only (``math.sqrt(math.pi)``) is printed as its float value.
"""
import math
import random

import pytest

import symgrad

STRATEGIES = ("symbolic", "reverse")


def negated(x, y):
    return -0.5 * x * y - 2.0 * y


def inexact(x, y):
    return -0.3 * x * y + 0.1 * y


def negated_sum(x, y, z):
    return -(0.25 * x * y + y * z - 3.0 * x)


def lse4(a, b, c, d):
    m = max(a, b, c, d)
    return m + math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m) + math.exp(d - m))


def lse_split(a, b, c):
    m = max(a, b, c)
    s = math.exp(a - m) + math.exp(b - m) + math.exp(c - m)
    return m + math.log(s)


def scaled_max(a, b, c):
    return 2.0 * max(a, b, c) + a


def constants(x):
    return x * math.sqrt(math.pi) + math.log(2.0) * x


def softmax(values):
    exps = [math.exp(v - max(values)) for v in values]
    return [e / sum(exps) for e in exps]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_negative_coefficient_in_the_literal(strategy):
    g = symgrad.grad(negated, strategy=strategy)
    assert "-0.5 * y" in g.source and "-(" not in g.source
    rng = random.Random(0)
    for _ in range(200):
        x, y = rng.uniform(-1e3, 1e3), rng.uniform(-1e3, 1e3)
        assert g(x, y) == (-(0.5 * y), -(0.5 * x) - 2.0)  # to the bit


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_negative_inexact_literal_keeps_its_sign(strategy):
    g = symgrad.grad(inexact, strategy=strategy)
    assert "-0.3 * y" in g.source and "-(" not in g.source
    rng = random.Random(2)
    for _ in range(200):
        x, y = rng.uniform(-1e3, 1e3), rng.uniform(-1e3, 1e3)
        assert g(x, y) == (-(0.3 * y), 0.1 - 0.3 * x)  # to the bit


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_negated_sum_term_by_term(strategy):
    g = symgrad.grad(negated_sum, strategy=strategy)
    assert "-(" not in g.source
    x, y, z = 0.3, -1.7, 2.9
    want = (-(0.25 * y - 3.0), -(0.25 * x + z), -y)
    assert g(x, y, z) == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("point", [(0.3, -1.2, 2.5, 0.7), (2.5, -1.2, 2.5, 2.5), (1.0,) * 4])
def test_log_sum_exp_shift_needs_no_tie_bookkeeping(strategy, point):
    g = symgrad.grad(lse4, strategy=strategy)
    assert "==" not in g.source and " if " not in g.source
    assert g(*point) == pytest.approx(softmax(point), rel=1e-15)  # whatever the ties


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_split_log_sum_exp_shift_needs_no_tie_bookkeeping(strategy):
    g = symgrad.grad(lse_split, strategy=strategy)
    assert "==" not in g.source
    for point in [(0.3, 2.0, -1.0), (2.0, 2.0, -1.0)]:
        assert g(*point) == pytest.approx(softmax(point), rel=1e-15)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_max_that_matters_keeps_the_tie_convention_and_is_computed_once(strategy):
    g = symgrad.grad(scaled_max, strategy=strategy)
    assert g.source.count("= max(a, b, c)") == 1 and g.source.count("max(") == 2  # and the def
    assert g(3.0, 1.0, 0.0) == (3.0, 0.0, 0.0)
    assert g(1.0, 1.0, 0.0) == (2.0, 1.0, 0.0)  # a tie of two: 1/2 each
    assert g(1.0, 1.0, 1.0) == pytest.approx((2.0 / 3.0 + 1.0, 2.0 / 3.0, 2.0 / 3.0), rel=1e-15)
    assert g(0.0, 1.0, 1.0) == (1.0, 1.0, 1.0)


def test_constant_expressions_are_printed_as_their_value():
    g = symgrad.grad(constants)
    assert "math." not in g.source
    assert g(5.0) == math.sqrt(math.pi) + math.log(2.0)  # the same float as the calls give


def bump(a, b):
    return math.exp(-(a - b) ** 2)


def stretched(a, b):
    return 1.5 * (a - b) ** 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_power_of_two_content_is_factored_and_shared(strategy):
    g = symgrad.grad(bump, strategy=strategy)
    assert "2.0 * a - 2.0 * b" not in g.source and "** 2" not in g.source
    assert g.source.count("a - b") == 1  # computed once, then squared and doubled
    rng = random.Random(1)
    for _ in range(100):
        a, b = rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)
        d = a - b
        assert g(a, b) == pytest.approx((-2.0 * d * math.exp(-d * d), 2.0 * d * math.exp(-d * d)),
                                        rel=1e-15, abs=1e-300)


def test_other_content_is_not_factored():
    # 3.0 * a - 3.0 * b and 3.0 * (a - b) are different floats: the distributed form stays
    assert "3.0 * a - 3.0 * b" in symgrad.grad(stretched).source


def bumps(a, b, c):
    return math.exp(-(a - b) ** 2) + math.exp(-(b - c) ** 2)


def test_factored_sums_have_one_sign_so_neighbours_share_them():
    g = symgrad.grad(bumps)
    assert "b - a" not in g.source and "c - b" not in g.source
    assert g.source.count("math.exp(") == 2 and g.source.count(" = ") == 7  # 4 temps, 3 results
    a, b, c = 0.3, -0.4, 1.1
    t0 = -2.0 * (a - b) * math.exp(-(a - b) ** 2)
    t1 = -2.0 * (b - c) * math.exp(-(b - c) ** 2)
    assert g(a, b, c) == pytest.approx((t0, t1 - t0, -t1), rel=1e-15)

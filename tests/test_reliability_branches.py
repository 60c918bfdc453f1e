"""Issue 6, slow builds: code after an early return, or inside an ``if``, is one expression of
nested branches (nothing is assigned at depth > 0), and printed whole it repeated the loop state in
every branch (fuzz S1: 7,467 lines, 10 s; ``if u: for ...: if u: u += max(...)``: 2,407 lines,
5.9 s). Each side of a branch is now a block of its own lines (``cse.branches``), and the tree
walks of ``emit`` visit each distinct node once.

The values must not change: the reference is the primal run on dual numbers (the floats Python
computes, ties split per occurrence: ``test_reliability_forms._reference``), cross-checked with a
50-digit central difference off the ties.
"""
import math

import mpmath
import pytest

import symgrad
from test_reliability_forms import _module, _reference
from test_rules import _central_difference

STRATEGIES = ("symbolic", "reverse", "auto")

EARLY_RETURN = """def f(t, u):
    if t > 5:
        return t
    for k in range(3):
        t = min(t ** 2.0, 1.0 - t, t - u, u + 0.5, t, 2.0 - t - u) + t ** 2.0
    return t
"""

NESTED_IFS = """def f(u):
    if u:
        for k in range(4):
            if u:
                u += max(0.4 - u, k, u, 0, 1.0)
    return u
"""

PROGRAMS = {  # source, points (ties included: (0, 0) ties t ** 2.0, t - u and t)
    "early return": (EARLY_RETURN, [(0.0, 0.0), (0.5, 0.0), (0.3, -1.2), (6.0, 1.0),
                                    (-0.7, 0.5), (0.25, 0.25), (1.0, 0.5)]),
    "nested ifs": (NESTED_IFS, [(0.0,), (0.3,), (-0.6,), (1.0,), (-2.0,), (0.2,), (-0.3,)]),
}


def _early_return_mp(t, u):
    if t > 5:
        return t
    for _ in range(3):
        t = min(t ** 2, 1 - t, t - u, u + mpmath.mpf("0.5"), t, 2 - t - u) + t ** 2
    return t


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_branch_blocks_keep_every_value(tmp_path, name, strategy):
    source, points = PROGRAMS[name]
    g = symgrad.grad(_module(tmp_path, source), strategy=strategy)
    for point in points:
        assert g(*point) == pytest.approx(_reference(source, point), rel=1e-14, abs=1e-15), point


def test_early_return_reference_is_the_central_difference():
    """Off the ties the dual-number reference is the 50-digit central difference."""
    for point in ((0.3, -1.2), (-0.7, 0.5), (0.5, 0.0)):
        expected = tuple(float(_central_difference(_early_return_mp, point, i)) for i in (0, 1))
        assert _reference(EARLY_RETURN, point) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_branch_state_is_printed_once(tmp_path, name):
    """The sides of a branch are blocks that name what they compute twice: the gradient of the
    early-return program is under 1,000 lines (7,467 printed whole), and the loop state after
    the first step is read by its name, not printed again inside each branch."""
    source, _ = PROGRAMS[name]
    g = symgrad.grad(_module(tmp_path, source))
    assert len(g.source.splitlines()) < 1000
    assert "\n    if " in g.source  # an if statement, its sides blocks of lines
    first_step = {"early return": "t * t", "nested ifs": "u + max(0.4 - u, 0.0, u, 1.0) if"}[name]
    assert g.source.count(first_step) <= 8


RAISING_SIDE = """def f(x):
    if x <= 0.0:
        return 2.0 * x
    for k in range(3):
        x = min(math.log(x + 1.0) + 0.5, x, 2.0) + math.log(x + 1.0) * x
    return x
"""


def _raising_side_mp(x):
    if x <= 0:
        return 2 * x
    for _ in range(3):
        x = min(mpmath.log(x + 1) + mpmath.mpf("0.5"), x, 2) + mpmath.log(x + 1) * x
    return x


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_block_runs_only_where_its_branch_does(tmp_path, strategy):
    """``math.log(x + 1.0)`` is shared inside the side that runs it, never hoisted above the
    ``if``: at x = -1.5 (log of a negative) and -1.0 the gradient is 2.0, not a ValueError;
    elsewhere the 50-digit central difference."""
    g = symgrad.grad(_module(tmp_path, RAISING_SIDE), strategy=strategy)
    assert g(-1.5) == 2.0 and g(-1.0) == 2.0 and g(0.0) == 2.0
    for x in (0.3, 0.8, 1.7):
        assert g(x) == pytest.approx(float(_central_difference(_raising_side_mp, (x,), 0)),
                                     rel=1e-12)


INT_IN_A_BLOCK = """def f(t, z):
    if t >= 1.0:
        a = 1.0 * t * t
        return 1.0 * t * a
    return 0.0
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_result_assigned_in_blocks_is_a_float(tmp_path, strategy):
    """``3 * t * t`` of an int t, assigned inside an ``if`` statement: still a float (the
    property test's case build(3493))."""
    g = symgrad.value_and_grad(_module(tmp_path, INT_IN_A_BLOCK), strategy=strategy)
    value, grads = g(3, 1.0)
    assert (value, grads) == (27.0, (27.0, 0.0))
    assert type(value) is float and all(type(d) is float for d in grads)
    assert g(0.5, 1.0) == (0.0, (0.0, 0.0))
    assert math.isclose(g(1.5, 0.0)[1][0], 3 * 1.5 ** 2)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_lowered_sign_inside_a_branch_is_printed(tmp_path, strategy):
    """``math.hypot(0.0, z if 0.0 > z else a)``: d/dz is ``sign(z)`` on the side z < 0, and
    ``sign`` is lowered to a branch for ``math``; SymPy collapsing the two branches dropped the
    default one ("a Piecewise with no default branch cannot be printed", fuzz 9303-0-1860)."""
    source = "def f(t, z):\n    a = 0.4\n    return math.hypot(0.0, z if 0.0 > z else a)\n"
    g = symgrad.grad(_module(tmp_path, source), strategy=strategy)
    assert [g(0.1, z) for z in (-2.0, -0.5, 0.0, 0.5)] == [(0.0, -1.0)] * 2 + [(0.0, 0.0)] * 2


LONGER = {  # one loop step more than the fuzz reproducers: 7.8 s and 14 s CPU at 771576e
    "early return": (EARLY_RETURN.replace("range(3)", "range(4)"), [(0.0, 0.0), (0.3, -1.2),
                                                                    (0.25, 0.25), (6.0, 1.0)]),
    "nested ifs": (NESTED_IFS.replace("range(4)", "range(6)"), [(0.3,), (-0.6,), (1.0,), (0.2,)]),
}


@pytest.mark.parametrize("name", sorted(LONGER))
def test_a_longer_loop_after_a_branch_keeps_every_value(tmp_path, name):
    source, points = LONGER[name]
    g = symgrad.grad(_module(tmp_path, source))
    for point in points:
        assert g(*point) == pytest.approx(_reference(source, point), rel=1e-14, abs=1e-15), point


NESTED_MIN = """def f(u, t, z):
    a = stop_gradient(0.5 - t - u)
    b = 1.0 * min(-u - 1, 0.5 + z, 0.001, t, t)
    return min(u, b + 0.5, 1.5, 1.0 + b, 2, t, 1.0 + u)
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_min_of_a_min_keeps_every_value(tmp_path, strategy):
    """Fuzz 9304-0-1067 (5.5 s CPU under auto: the reverse pass's test that a min's adjoint
    vanishes rebuilt each substituted min with SymPy's pairwise folding): ties included
    ((0.001, 0.001, 5.0): t ties inside the inner min twice, and b + 0.5 ties 1.0 + b never)."""
    g = symgrad.grad(_module(tmp_path, NESTED_MIN), strategy=strategy)
    for point in ((-2.4, -0.8, -1.31), (0.3, 0.001, 5.0), (0.001, 0.001, 5.0), (1.2, -0.6, 0.2),
                  (-0.2, 2.0, -1.7), (0.5, 0.5, -0.5)):
        assert g(*point) == pytest.approx(_reference(NESTED_MIN, point), rel=1e-15), point


CONSTANT_BRANCH = """def f(u, t, z):
    a = -0.5
    b, c = (z, 0.0 if a < u else t)
    return math.sqrt(c)
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_adjoint_of_a_constant_branch_is_not_evaluated(tmp_path, strategy):
    """Where the branch taken is the constant 0.0, sqrt(c) does not move: the gradient is 0 (jax.grad
    on the same Python code: c is the float 0.0). The reverse strategy computed the adjoint
    ``0.5 / sqrt(c)`` before the branch and raised ZeroDivisionError (scalar fuzzer); on the other
    branch the derivative is 1 / (2 sqrt(t))."""
    g = symgrad.value_and_grad(_module(tmp_path, CONSTANT_BRANCH), wrt=("u", "t", "z"),
                               strategy=strategy)
    assert g(1.3, -2.35, 1.51) == (0.0, (0.0, 0.0, 0.0))
    assert g(-1.0, 4.0, 1.0) == (2.0, (0.0, 0.25, 0.0))

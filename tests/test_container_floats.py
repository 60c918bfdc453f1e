"""The elements a comprehension, a generator expression, ``sum``, ``enumerate``/``zip``/
``reversed`` or an index of a tuple builds are the primal's floats: a condition on one takes the
branch the primal takes, and ``value_and_grad``'s value is the float the primal returns.

SymPy reads ``x * 7 / 7.0`` as ``x``, but in float it is another number at about 6% of the
points (``x = 1.2981037034010052``: ``x * 7 / 7.0 > x``); ``3 * (x + y)`` expanded to ``3.0 * x +
3.0 * y`` is another float at ``(0.45, 1.9)``. Each function is checked bit for bit against the
primal at seeded random points; the gradient expected is the derivative of the branch the
primal takes (``5.0`` or ``2 * x``, by hand).
"""
import random

import pytest

import symgrad
from source_modules import load_module

STRATEGIES = ("symbolic", "reverse", "auto")
HIT = 1.2981037034010052  # x * 7 / 7.0 > x in float; x * 7 / 7.0 == x to SymPy

HELPERS = '''
def h_list(x):
    return [x * k / 7.0 for k in range(7, 8)]


def pair(x, y):
    return (x + y, x - y)
'''

# (how `m`, the value x * 7 / 7.0, is read): each builds its elements differently
BRANCHES = {
    "list_comp": "    vals = [x * k / 7.0 for k in range(7, 8)]\n    m = vals[0]\n",
    "tuple_gen": "    vals = tuple(x * k / 7.0 for k in range(7, 8))\n    m = vals[0]\n",
    "list_gen": "    vals = list(x * k / 7.0 for k in range(7, 8))\n    m = vals[-1]\n",
    "sum_gen": "    m = sum(x * k / 7.0 for k in range(7, 8))\n",
    "sum_list": "    m = sum([x * k / 7.0 for k in range(7, 8)])\n",
    "sum_start": "    m = sum((x * k / 7.0 for k in range(7, 8)), 0.0)\n",
    "enumerate": "    vals = [x * k / 7.0 for i, k in enumerate((7,))]\n    m = vals[0]\n",
    "enumerate_of_comp": "    for i, v in enumerate([x * k / 7.0 for k in range(7, 8)]):\n"
                         "        m = v\n",
    "zip": "    vals = [a * k / 7.0 for a, k in zip((x,), (7,))]\n    m = vals[0]\n",
    "over_values": "    vals = [v * 7 / 7.0 for v in (x,)]\n    m = vals[0]\n",
    "filtered": "    vals = [x * k / 7.0 for k in range(9) if k == 7]\n    m = vals[0]\n",
    "nested": "    vals = [[x * k / 7.0 for k in range(7, 8)] for j in range(1)]\n"
              "    m = vals[0][0]\n",
    "two_fors": "    vals = [x * k / 7.0 for j in range(1) for k in range(7, 8)]\n    m = vals[0]\n",
    "tuple_element": "    vals = [(x * k / 7.0, k) for k in range(7, 8)]\n    m = vals[0][0]\n",
    "reversed": "    vals = tuple(reversed([x * k / 7.0 for k in range(6, 8)]))\n    m = vals[0]\n",
    "indexed_directly": "    m = [x * k / 7.0 for k in range(7, 8)][0]\n",
    "unpacked": "    m, = [x * k / 7.0 for k in range(7, 8)]\n",
    "loop_over": "    for v in [x * k / 7.0 for k in range(7, 8)]:\n        m = v\n",
    "helper": "    m = h_list(x)[0]\n",
}


def _points(seed, count=300):
    rng = random.Random(seed)
    return [HIT] + [rng.uniform(0.1, 3.0) for _ in range(count)]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", sorted(BRANCHES))
def test_a_condition_on_a_built_element_takes_the_primals_branch(tmp_path, kind, strategy):
    body = BRANCHES[kind] + "    if m > x:\n        return 5.0 * x\n    return x * x\n"
    f = load_module(tmp_path, HELPERS + "\n\ndef f(x):\n" + body, "symgrad_containers").f
    vg = symgrad.value_and_grad(f, strategy=strategy)
    taken = 0
    for x in _points(7):
        above = x * 7 / 7.0 > x
        taken += above
        value, slope = vg(x)
        assert value == f(x), (kind, x, vg.source)
        assert slope == (5.0 if above else 2.0 * x), (kind, x, vg.source)
    assert taken > 5  # the sweep reaches the branch SymPy's form cancels


@pytest.mark.parametrize("kind", ("list_comp", "sum_gen", "enumerate", "nested", "helper"))
def test_a_built_elements_difference_is_the_primals(tmp_path, kind):
    body = BRANCHES[kind] + "    return m - x\n"
    f = load_module(tmp_path, HELPERS + "\n\ndef f(x):\n" + body, "symgrad_containers").f
    vg = symgrad.value_and_grad(f)
    assert vg(HIT) == (f(HIT), 0.0) and f(HIT) == 2.220446049250313e-16
    for x in _points(8):
        assert vg(x)[0] == f(x), (kind, x, vg.source)


VALUES = {  # f(x, y) = 3 * (x + y) read through a container; gradient (3, 3)
    "tuple_display": "    t = (x + y,)\n    return 3 * t[0]\n",
    "helper_tuple": "    return 3 * pair(x, y)[0]\n",
    "repeated_list": "    t = [x + y] * 2\n    return 3 * t[1]\n",
    "reversed": "    t = tuple(reversed((x, x + y)))\n    return 3 * t[0]\n",
    "nested_tuple": "    t = ((x + y, x),)\n    return 3 * t[0][0]\n",
    "named_item": "    t = (x + y,)\n    u = t[0]\n    return 3 * u\n",
    "comprehension": "    return 3 * [v for v in (x + y,)][0]\n",
    "sum_of_tuple": "    return 3 * sum((x, y))\n",
    "sum_of_gen": "    return 3 * sum(v for v in (x, y))\n",
    "two_items": "    t = (x + y, x + y)\n    return 1.5 * t[0] + 1.5 * t[1]\n",
    "in_a_condition": "    t = (x + y,)\n    if 3 * t[0] > 7.05:\n        return 2.0 * x + 2.0 * y\n"
                      "    return 3 * t[0]\n",
}


@pytest.mark.parametrize("backend", ("math", "numpy"))
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", sorted(VALUES))
def test_a_value_read_from_a_container_is_the_primals_float(tmp_path, kind, strategy, backend):
    f = load_module(tmp_path, HELPERS + "\n\ndef f(x, y):\n" + VALUES[kind],
                    "symgrad_containers").f
    vg = symgrad.value_and_grad(f, strategy=strategy, backend=backend)
    rng = random.Random(9)
    points = [(0.45, 1.9)] + [(rng.uniform(-3, 3), rng.uniform(-3, 3)) for _ in range(200)]
    for x, y in points:
        value, slope = vg(x, y)
        assert float(value) == f(x, y), (kind, x, y, vg.source)
        if kind != "in_a_condition":
            assert tuple(map(float, slope)) == (3.0, 3.0)
        else:
            assert tuple(map(float, slope)) == ((2.0, 2.0) if 3 * (x + y) > 7.05 else (3.0, 3.0))


SAME_SYMPY_FORM = {  # two items SymPy holds as one expression, x + y: each keeps its own float
    "tuple_display": "    vals = [y + x * 7 / 7.0, y + x * 3 / 3.0]\n",
    "comprehension": "    vals = [y + x * k / k for k in (7, 3)]\n",
    "generator": "    vals = tuple(y + x * k / k for k in (7, 3))\n",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", sorted(SAME_SYMPY_FORM))
def test_items_of_one_sympy_form_keep_their_own_floats(tmp_path, kind, strategy):
    body = SAME_SYMPY_FORM[kind] + "    if vals[0] > x + y:\n        return 5.0 * x\n" \
        "    return x * x + vals[1]\n"
    f = load_module(tmp_path, "def f(x, y):\n" + body, "symgrad_containers").f
    vg = symgrad.value_and_grad(f, strategy=strategy)
    rng = random.Random(1)
    points = [(1.5653230796808413, 1.8081065481493999)] + [
        (rng.uniform(0.1, 3.0), rng.uniform(0.1, 3.0)) for _ in range(300)]
    taken = 0
    for x, y in points:
        above = y + x * 7 / 7.0 > x + y
        taken += above
        value, slope = vg(x, y)
        assert value == f(x, y), (kind, x, y, vg.source)
        assert slope == ((5.0, 0.0) if above else (2.0 * x + 1.0, 1.0)), (kind, x, y, vg.source)
    assert taken > 5

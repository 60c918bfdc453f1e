"""``check_symbolic._compared`` keeps the comparisons it made (the same f and df checked again,
a df wrong in one component): only the very same comparison is answered from the cache. Two
expressions SymPy might call equal but that differ (a Float's precision, a Symbol's assumptions)
and a changed budget each get their own answer, and a report from the cache is the report made
anew."""
import math

import sympy

import symgrad
from symgrad import check_symbolic
from symgrad.check_symbolic import _compared, _compared_exactly


def test_the_same_comparison_is_answered_from_the_cache_with_the_same_answer():
    x, y = sympy.symbols("x y")
    ours, theirs = sympy.exp(x) * (1 + y) - sympy.exp(x), sympy.exp(x) * y
    first = _compared(ours, theirs)
    hits = _compared_exactly.cache_info().hits
    assert _compared(sympy.exp(x) * (1 + y) - sympy.exp(x), sympy.exp(x) * y) == first
    assert _compared_exactly.cache_info().hits == hits + 1
    assert first == (0, None)


def test_a_symbol_of_other_assumptions_is_compared_anew():
    x, p = sympy.Symbol("x"), sympy.Symbol("x", positive=True)
    assert _compared(sympy.sqrt(p ** 2), p) == (0, None)
    difference, reason = _compared(sympy.sqrt(x ** 2), x)
    assert reason is None and difference != 0  # sqrt(x**2) - x is not 0 for a negative x


def test_a_float_of_other_precision_is_compared_anew():
    x = sympy.Symbol("x")
    low, high = sympy.Float("0.1", 15), sympy.Float("0.1", 40)
    difference, _ = _compared(x * low, x * sympy.Float("0.1", 15))
    assert difference == 0
    difference, _ = _compared(x * high, x * sympy.Float("0.1", 15))
    assert difference != 0 and abs(float(difference.subs(x, 1))) > 1e-18  # 0.1 at 40 digits
    assert sympy.srepr(_compared(x * high, x * low)[0]) == sympy.srepr(
        check_symbolic._compared_anew(x * high, x * low, check_symbolic.CHEAP_MAX_NODES,
                                      check_symbolic.SIMPLIFY_MAX_NODES,
                                      check_symbolic.NORMALISE_MAX_COST)[0])


def test_a_changed_budget_is_compared_anew(monkeypatch):
    x = sympy.Symbol("x")
    ours, theirs = sympy.sin(x) ** 2, 1 - sympy.cos(x) ** 2  # only simplify proves it 0
    assert _compared(ours, theirs) == (0, None)
    monkeypatch.setattr(check_symbolic, "SIMPLIFY_MAX_NODES", 0)
    difference, reason = _compared(ours, theirs)
    assert difference != 0 and reason is None
    monkeypatch.setattr(check_symbolic, "CHEAP_MAX_NODES", 2)
    assert _compared(ours, theirs)[1] == "symgrad - df has more than 2 nodes"


def _loss(w, b):
    return math.log(1.0 + math.exp(-(w * 2.0 + b)))


def _dloss(w, b):
    s = 1.0 / (1.0 + math.exp(w * 2.0 + b))
    return -2.0 * s, -s


def _dloss_wrong(w, b):
    s = 1.0 / (1.0 + math.exp(w * 2.0 + b))
    return -s, -s


def test_a_report_from_the_cache_is_the_report_made_anew():
    _compared_exactly.cache_clear()
    reports = [str(symgrad.check_grad(_loss, df)) for df in (_dloss, _dloss_wrong)]
    hits = _compared_exactly.cache_info().hits
    again = [str(symgrad.check_grad(_loss, df)) for df in (_dloss_wrong, _dloss)]
    assert _compared_exactly.cache_info().hits >= hits + 3  # the dloss_db component 3 times
    assert again[::-1] == reports
    assert "different" in reports[1] and "symgrad - df = -1/(exp(b + 2*w) + 1)" in reports[1]

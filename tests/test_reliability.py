"""Regression tests for the kinds of failure of issue 6 (and float noise), one family per kind.

Each family writes small primal functions to module files (symgrad reads source) and compares the
gradient with the value derived by hand from the primal's own float computation, or with a
50-digit mpmath central difference (the references of ``test_rules``).
"""
import math

import mpmath
import pytest
import sympy

import symgrad
from source_modules import load_module
from symgrad import differentiate, functions, rules
from symgrad.frontend import to_program
from test_rules import DOMAIN_VALUES, _central_difference, _mpmath_reference, _resolve

STRATEGIES = ("symbolic", "reverse", "auto")


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\n\n\n" + body, "symgrad_reliability")


def _one_argument_rows():
    """(dotted, rule) for the first spelling of every one-argument row (math or builtin: the
    module written imports math only)."""
    rows = []
    for rule in rules.RULES:
        spellings = [d for d in rule.python if not d.startswith(("numpy.", "scipy."))]
        if spellings and 1 in rule.nargs and _resolve(spellings[0]) is not None:
            rows.append(pytest.param(spellings[0], rule, id=spellings[0]))
    return rows


ONE_ARGUMENT_ROWS = _one_argument_rows()
TARGET = {"real": 0.4, "positive": 1.7, "unit": 0.3, ">1": 1.7}  # the argument's value


# --- kind 1: comparisons on the primal's own float values ------------------------------------
def test_max_tie_with_an_offset(tmp_path):
    f = _module(tmp_path, "def f(u, t):\n    return max(u + 1, t, 0.0)\n").f
    for strategy in STRATEGIES:
        assert symgrad.grad(f, strategy=strategy)(-0.2, 0.5) == (1.0, 0.0)


OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
SIDES = ("x + 1 {op} y", "y {op} x + 1", "x {op} y - 1", "y - 1 {op} x")
# x + 1 == y exactly in float, but y - 1 != x: a rearranged test takes the other branch
TIE_POINTS = ((-0.2, 0.8), (0.1, 1.1), (0.7, 1.7))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("op", OPERATORS)
def test_relational_with_an_offset_takes_the_primal_branch(tmp_path, op, side, strategy):
    test = side.format(op=op)
    f = _module(tmp_path, f"def f(x, y):\n    if {test}:\n        return 2.0 * x\n"
                          f"    return 3.0 * x\n").f
    g = symgrad.grad(f, strategy=strategy)
    for x, y in TIE_POINTS:
        expected = 2.0 if eval(test, {}, {"x": x, "y": y}) else 3.0  # noqa: S307 - test oracle
        assert g(x, y) == (expected, 0.0), (test, x, y)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("count", range(3, 9))
@pytest.mark.parametrize("which", ("max", "min"))
def test_extremum_of_3_to_8_arguments_with_offsets_and_ties(tmp_path, which, count, strategy):
    offsets = ("x + 1", "y", "0.0", "x - 0.5", "y + 0.25", "x + 1.0", "y - 0.75", "x * 2.0")
    args = offsets[:count]
    f = _module(tmp_path, f"def f(x, y):\n    return {which}({', '.join(args)})\n").f
    g = symgrad.grad(f, strategy=strategy)
    slopes = {"x + 1": (1, 0), "y": (0, 1), "0.0": (0, 0), "x - 0.5": (1, 0),
              "y + 0.25": (0, 1), "x + 1.0": (1, 0), "y - 0.75": (0, 1), "x * 2.0": (2, 0)}
    pick = max if which == "max" else min
    for x, y in ((-0.2, 0.8), (0.3, 0.55), (-0.2, 0.5), (0.75, 0.0), (2.0, -3.0)):
        values = [eval(a, {}, {"x": x, "y": y}) for a in args]  # noqa: S307 - test oracle
        best = pick(values)
        winners = [a for a, v in zip(args, values) if v == best]  # ties split equally
        expected = tuple(sum(slopes[a][i] for a in winners) / len(winners) for i in (0, 1))
        assert g(x, y) == pytest.approx(expected, rel=1e-15), (args, x, y)


# --- kind 2: every function around negated sums and constant offsets -------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", ("{f}({c} - x - y)", "{f}(-(x + y) + {c})", "{f}(-x - y + {c})"))
@pytest.mark.parametrize("dotted, rule", ONE_ARGUMENT_ROWS)
def test_every_function_of_a_negated_sum(tmp_path, dotted, rule, form, strategy):
    x, y = 0.25, 0.125
    c = TARGET[rule.domain] + x + y  # so the argument is TARGET at (x, y)
    f = _module(tmp_path, f"def f(x, y):\n    return {form.format(f=dotted, c=repr(c))}\n").f
    assert math.isclose(c - x - y, TARGET[rule.domain], rel_tol=1e-15)
    got = symgrad.grad(f, strategy=strategy)(x, y)
    slope = float(_central_difference(_mpmath_reference(dotted), (c - x - y,), 0))
    if rule.derivative == rules.ZERO:
        slope = 0.0
    for g in got:
        assert g == pytest.approx(-slope, rel=1e-12, abs=1e-14), (dotted, form)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_negated_sum_through_a_name(tmp_path, strategy):
    f = _module(tmp_path, "def f(x):\n    t = -x - 1\n    return math.sin(t)\n").f
    assert symgrad.grad(f, strategy=strategy)(0.3) == pytest.approx(-math.cos(-1.3), rel=1e-15)


# --- kind 3: a truth test of a number-valued variable ---------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_truth_test_of_a_variable_is_not_zero(tmp_path, strategy):
    f = _module(tmp_path, "def f(y):\n    t = 1.0 - y\n    if t:\n        return y * y\n"
                          "    return 3.0 * y\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(0.5) == 1.0  # t != 0: 2y
    assert g(1.0) == 3.0  # t == 0: falsy


# --- kind 4: constant arguments of every row ----------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("dotted, rule", ONE_ARGUMENT_ROWS)
def test_every_function_of_a_constant(tmp_path, dotted, rule, strategy):
    c = DOMAIN_VALUES[rule.domain][0]
    value = float(_resolve(dotted)(c))
    f = _module(tmp_path, f"def f(x, y):\n    k = {dotted}({c!r})\n"
                          f"    return x * k + max(y, k) + (x if {dotted}({c!r}) else y)\n").f
    g = symgrad.grad(f, strategy=strategy)
    for y in (value - 1.0, value + 1.0):
        expected = (value + (1.0 if value else 0.0), 1.0 if y > value else 0.0)
        expected = (expected[0], expected[1] + (0.0 if value else 1.0))
        assert g(0.5, y) == pytest.approx(expected, rel=1e-15), (dotted, y)


def test_nested_constant_truth_tests(tmp_path):
    f = _module(tmp_path, "def f(x0, x1):\n"
                          "    return 1.0 if (1.0 if math.expm1(1.0) else x1) else x0\n").f
    assert symgrad.grad(f)(0.1, 0.2) == (0.0, 0.0)


def test_own_functions_evaluate_and_compare():
    for own, arg, value in ((functions.Log1p, 0.5, math.log1p(0.5)), (functions.Expm1, 1.0, math.expm1(1)),
                            (functions.Round, 2.5, 2.0), (functions.StopGradient, 0.25, 0.25)):
        expr = own(functions.number(arg))
        assert float(expr) == pytest.approx(value, rel=3e-16) and expr.is_real, own
        assert bool(expr > value - 0.5) and bool(expr < value + 0.5), own


# --- kind 5: undefined only on some paths; constants folded as Python computes them -----------
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_after_an_early_return(tmp_path, strategy):
    f = _module(tmp_path, "def f(x):\n    if x > 0:\n        return x * x\n"
                          "    return x / 0.0\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(1.5) == 3.0
    with pytest.raises(ZeroDivisionError):  # as the primal
        g(-1.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_in_an_untaken_conditional_expression(tmp_path, strategy):
    f = _module(tmp_path, "def f(x):\n    return x * x if x > 0 else math.log(0.0)\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(2.0) == 4.0
    with pytest.raises(ValueError):
        g(-1.0)


def test_undefined_on_every_path_is_still_refused(tmp_path):
    f = _module(tmp_path, "def f(x):\n    return x / 0.0\n").f
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="undefined"):
        symgrad.grad(f)


@pytest.mark.parametrize("body, slope", [
    ("q = 0.0\n    return x + math.atan2(q, q)", 1.0),  # Python: 0.0 (SymPy: nan)
    ("return x * (1 / 49 * 49)", 1 / 49 * 49),  # 0.9999999999999999, not 1
    ("return x * (0.1 * 3)", 0.1 * 3),  # 0.30000000000000004
    ("return x * (math.sqrt(2.0) * math.sqrt(2.0))", math.sqrt(2.0) * math.sqrt(2.0)),
    ("return x * round(2.5)", 2.0),  # half to even
    ("return x * (7 // 2) * (7 % 3)", 3.0),
])
def test_constants_fold_to_what_python_computes(tmp_path, body, slope):
    f = _module(tmp_path, f"def f(x):\n    {body}\n").f
    for strategy in STRATEGIES:
        assert symgrad.grad(f, strategy=strategy)(0.75) == slope, body


# --- kind 6: float results ----------------------------------------------------------------------
@pytest.mark.parametrize("body", [
    "z *= 1.0\n    return z * math.floor(z)",
    "return z * 1.0 * z",
    "return round(z) * 1.0 + z * z",
    "return max(z * 1.0, 2 * z) * z",
    "return min(-0.5, z) + 0.0 * z",  # min returns the int argument
])
def test_float_result_for_int_arguments(tmp_path, body):
    f = _module(tmp_path, f"def f(z):\n    {body}\n").f
    for strategy in STRATEGIES:
        for z in (0, 3):
            got = symgrad.grad(f, strategy=strategy)(z)
            assert type(got) is float, (body, z, got)


def test_float_result_value(tmp_path):
    f = _module(tmp_path, "def f(z):\n    z *= 1.0\n    return z * math.floor(z)\n").f
    assert symgrad.grad(f)(0) == 0.0 and symgrad.grad(f)(2) == 2.0


# --- kind 7: the default strategy is not slow on branches inside conditions -------------------
SLOW_UNDER_SYMBOLIC = """def f(y):
    t = abs(y + 1.5) - 2.08
    b = abs(math.atan2(t, 1.0))
    v = -1.677 if y > b else -0.3 * t
    return min(y, v)
"""


def test_auto_uses_reverse_for_a_branch_inside_a_condition(tmp_path):
    f = _module(tmp_path, SLOW_UNDER_SYMBOLIC).f
    assert differentiate._branch_in_condition(to_program(f))
    g = symgrad.grad(f)  # "auto"
    assert g(0.3) == 0.0  # y > b = 0.273: v = -1.677, the min
    assert g(-3.0) == 1.0  # v = -0.3 * t = 0.174 > y: the min is y
    assert g(0.2) == pytest.approx(-0.3, rel=1e-15)  # y < b = 0.363: v = 0.114 < y, dv/dy = -0.3


# --- kind 8: float saturation raises where the formula does (documented) ----------------------
def test_saturated_erf_raises_as_documented(tmp_path):
    f = _module(tmp_path, "def f(x, y):\n    return math.asin(math.erf(pow(x, y)))\n").f
    f(0.6, -7.1)  # the primal: erf rounds to 1.0, asin(1.0) is defined
    with pytest.raises(ZeroDivisionError):  # 1/sqrt(1 - erf**2) with erf == 1.0
        symgrad.grad(f)(0.6, -7.1)


# --- float noise (issue 7 item 5) ------------------------------------------------------------
BLACK_SCHOLES = """def call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return S * n1 - K * math.exp(-r * T) * n2
"""


def test_no_float_noise_in_black_scholes(tmp_path):
    f = _module(tmp_path, BLACK_SCHOLES).call
    for strategy in STRATEGIES:
        source = symgrad.grad(f, strategy=strategy).source
        assert "0.4999999999999999" not in source and "2.0000000000000004" not in source
        assert "** 1.0" not in source, source


def test_exact_literals_are_rationals():
    import sympy
    assert functions.number(0.5) == sympy.Rational(1, 2) and functions.number(2.0) == 2
    assert isinstance(functions.number(0.1), sympy.Float) and float(functions.number(0.1)) == 0.1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_epsilon_is_not_folded_into_a_constant(tmp_path, strategy):
    f = _module(tmp_path, "def f(p):\n    return -math.log(1 - p + 1e-12)\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert "1.000000000001" not in g.source, g.source
    assert g(1.0) == 1.0 / (1 - 1.0 + 1e-12)  # 1e12 as the primal's 1 - p + 1e-12; not 9.9991e11
    assert g(0.25) == pytest.approx(1.0 / (1 - 0.25 + 1e-12), rel=1e-15)


def test_reference_is_fine():  # the 50-digit reference used above is itself right
    assert float(_central_difference(mpmath.sin, (0.4,), 0)) == pytest.approx(math.cos(0.4))


# --- fuzz findings --------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tie_operand_substituted_by_symbolic_is_compared_as_computed(tmp_path, strategy):
    f = _module(tmp_path, "def f(x, y, u):\n    for i in range(3):\n        u += 1.0\n"
                          "    y = min(2.5, u, 1 - u - y)\n    return y\n").f
    assert symgrad.grad(f, strategy=strategy)(0.4, -0.3, -1.83) == (0.0, -1.0, -1.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_value_used_in_an_untaken_branch(tmp_path, strategy):
    f = _module(tmp_path, "def f(u):\n    if u <= 0.0:\n        a = math.atanh(-4)\n"
                          "        return min(a + 0.4, a)\n    return 1.5 * u\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(0.25) == 1.5
    with pytest.raises(ValueError):
        g(-1.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_zero_to_a_variable_power(tmp_path, strategy):
    f = _module(tmp_path, "def f(x):\n    a = x\n    return 0 ** a\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(1.574312660853856) == 0.0  # 0**x is 0 for every x > 0
    with pytest.raises(ZeroDivisionError):  # as 0 ** -1.0 in the primal
        g(-1.0)


INLINE_BRANCH_IN_CONDITION = """def f(y):
    return min(y, -1.677 if y > abs(math.atan2(abs(y + 1.5) - 2.08, 1.0))
               else -0.3 * (abs(y + 1.5) - 2.08))
"""
NESTED_BRANCHES = """def f(x, y):
    if x > 0.3:
        t = x if y > 0.1 else -x
        u = t + 1 if t > y else t - 1
        if u > 0.5 * t:
            return max(u, t, y) + abs(u - t)
        return min(u, y)
    return y
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_branch_inside_a_condition_of_one_line(tmp_path, strategy):
    g = symgrad.grad(_module(tmp_path, INLINE_BRANCH_IN_CONDITION).f, strategy=strategy)
    assert g(0.3) == 0.0 and g(-3.0) == 1.0
    assert g(0.2) == pytest.approx(-0.3, rel=1e-15)


@pytest.mark.parametrize("backend", ("math", "numpy"))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_branches_nested_inside_conditions(tmp_path, strategy, backend):
    g = symgrad.grad(_module(tmp_path, NESTED_BRANCHES).f, strategy=strategy, backend=backend)
    assert tuple(map(float, g(0.5, 0.2))) == (1.0, 0.0)  # u = x + 1 wins: 2u - t = x + 2
    assert tuple(map(float, g(0.5, 0.05))) == (-1.0, 0.0)  # t = -x, u = t - 1 = min(u, y)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("test", ["True or math.atanh(1.0)", "True or True or 0 <= math.log10(0.0)",
                                  "False and math.log(0.0) > 1"])
def test_operands_after_a_decided_short_circuit_never_run(tmp_path, test, strategy):
    f = _module(tmp_path, f"def f(x, y):\n    return x * y if {test} else y\n").f
    expected = (2.0, 3.0) if eval(test, {"math": math}) else (0.0, 1.0)  # noqa: S307 - oracle
    assert symgrad.grad(f, strategy=strategy)(3.0, 2.0) == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_value_and_grad_of_min_keeps_a_float_value(tmp_path, strategy):
    f = _module(tmp_path, "def f(y, u):\n    return min(-0.5, u)\n").f
    value, grad = symgrad.value_and_grad(f, strategy=strategy)(-1, -1)
    assert type(value) is float and value == -1.0 and grad == (0.0, 1.0)


BRANCH_IN_MIN = """def f(x, y):
    if y:
        a = y / math.log2(abs(y) + 0.25)
    else:
        a = math.exp(y - 1) * 5
    if y >= 3 or math.acosh(1.0 + min(1.5 + y, 1 - x - a, x, y + 1, 0.001, a, 1.5) ** 2) >= 4.0:
        return (a + x) * math.acosh(3.0)
    return y + x
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_branch_in_an_argument_of_min_in_a_condition(tmp_path, strategy):
    f = _module(tmp_path, BRANCH_IN_MIN).f
    x, y = -1.66, 3.16  # y >= 3: (a + x) * acosh(3), a = y / log2(y + 0.25)
    slope_a = 1 / math.log2(y + 0.25) - y / (math.log2(y + 0.25) ** 2 * (y + 0.25) * math.log(2))
    got = symgrad.grad(f, strategy=strategy)(x, y)
    assert got == pytest.approx((math.acosh(3.0), slope_a * math.acosh(3.0)), rel=1e-13)


def test_auto_uses_reverse_for_max_inside_min(tmp_path):
    f = _module(tmp_path, "def f(x, y):\n    a = max(2 + x, y, 1 - y - y)\n"
                          "    return min(x - y + 0.4, 3.0, x - a + 0.4, y - x + 0.1, a, 1 - x)\n").f
    assert differentiate._branch_in_condition(to_program(f))
    # a = 1 - 2y = 2.171 (the max); the min is x - a + 0.4 = x - 1 + 2y + 0.4 = -2.356
    assert symgrad.grad(f)(-0.5854570756050226, -0.5854570756050226) == (1.0, 2.0)


@pytest.mark.parametrize("backend", ("math", "numpy"))
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("test", ["y > 0 and math.log(x) > 1 or x < -1",
                                  "x > 0 and math.sqrt(x) > y", "x != 0 and 1 / x > y",
                                  "x <= 0 or math.log(x) < y", "t <= 0.5 and math.acosh(0.0) == 1"])
def test_and_or_operands_run_in_source_order(tmp_path, test, strategy, backend):
    f = _module(tmp_path, f"def f(x, y, t=0.75):\n    if {test}:\n        return x * y\n"
                          f"    return 3.0 * x\n").f
    g = symgrad.grad(f, wrt=("x", "y"), strategy=strategy, backend=backend)
    for x, y in ((-2.0, -1.0), (3.0, 1.0), (-0.5, 2.0), (4.0, 0.5)):
        try:
            taken = eval(test, {"math": math}, {"x": x, "y": y, "t": 0.75})  # noqa: S307
        except ValueError:  # the primal raises here: so does the math gradient
            if backend == "math":
                with pytest.raises(ValueError):
                    g(x, y)
            continue
        assert tuple(map(float, g(x, y))) == ((y, x) if taken else (3.0, 0.0)), (test, x, y)


UNDEFINED_ON_ONE_BRANCH = """def h(a):
    a += 1.0
    if 0.1 < a * a:
        return 0.0
    return 0.4


def f(t, z):
    a = 0.5 / h(z)
    return t * a
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_division_by_a_value_zero_on_one_branch(tmp_path, strategy):
    g = symgrad.grad(_module(tmp_path, UNDEFINED_ON_ONE_BRANCH).f, strategy=strategy)
    assert g(1.0, -1.0) == (1.25, 0.0)
    with pytest.raises(ZeroDivisionError):  # as f(1.0, 2.0)
        g(1.0, 2.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, point, expected", [
    ("min(0.0 - 1.0, z - 1.0, 0.0 - 1.0)", (-1.1, 0.0), (0.0, 1 / 3)),
    ("min(t, z, z)", (0.25, 0.25), (1 / 3, 2 / 3)),
    ("max(0.0, 0.0, -z - 0.5)", (0.3, -0.5), (0.0, -1 / 3)),
    ("max(t, t) + min(t, t, z)", (0.3, 0.3), (1.0 + 2 / 3, 1 / 3)),
    ("min(z, t, t, t)", (-0.62, -0.62), (0.75, 0.25)),
    ("min(-1.0 - 1.0, z - 2, z - 2, z - 2)", (1.1, 0.0), (0.0, 0.75)),
])
def test_repeated_arguments_of_max_min_count_in_a_tie(tmp_path, body, point, expected, strategy):
    f = _module(tmp_path, f"def f(t, z):\n    return {body}\n").f
    assert symgrad.grad(f, strategy=strategy)(*point) == pytest.approx(expected, rel=1e-15)


# --- comparison operands computed as written (the lead's reproducers) ------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("operand", ["x ** 2", "x / math.sqrt(2.0)", "x + 0.1 + 0.2", "(x - 1) * 3",
                                     "0.1 * x * 0.2", "-x / 3 + 0.7", "math.exp(x) / 7.0",
                                     "x * x * x - 2 * x", "abs(x - 0.3) ** 0.5 * 1.1"])
def test_comparison_operand_is_the_primal_float(tmp_path, operand, strategy):
    for x in (10.54862188045661, 1.3, 0.7071067811865475, -2.2):
        boundary = eval(operand, {"math": math}, {"x": x})  # noqa: S307 - the primal's float
        for op in (">=", ">", "==", "<="):
            f = _module(tmp_path, f"def f(x):\n    if {operand} {op} {boundary!r}:\n"
                                  f"        return 3.0 * x\n    return 2.0 * x\n").f
            expected = 3.0 if eval(f"{operand} {op} {boundary!r}", {"math": math},  # noqa: S307
                                   {"x": x}) else 2.0
            assert symgrad.grad(f, strategy=strategy)(x) == expected, (operand, op, x)


def test_lead_reproducers(tmp_path):
    f = _module(tmp_path, "def f(x):\n    return 3.0*x if x ** 2 >= 111.27342357684795 else 2.0*x\n")
    assert symgrad.grad(f.f)(10.54862188045661) == 2.0
    g = _module(tmp_path, "def f(x):\n    if x / math.sqrt(2.0) >= 0.9192388155425119:\n"
                          "        return 3.0*x\n    return 2.0*x\n")
    assert symgrad.grad(g.f)(1.3) == 2.0


SLOW_STOPPED = """def f(u):
    for i in range(1, 4):
        u += math.acos(math.tanh(math.asinh((1.5 - u) ** 3)))
    return u * 0.0 + stop_gradient(5 * 1.0 * round(5) / math.floor(u - 0.4))
"""
UNDEFINED_HELPER_IN_A_CHAIN = """def h(a):
    a = 0.0
    return -(a / a - a * a)


def f(y, u, t):
    if t - y + 0.1 > u:
        return u * u
    if 0.25 <= h(u) - math.log(1.5) <= 0.5:
        return math.exp(u)
    return t - u + 1.0
"""


def test_nothing_substituted_into_a_stopped_value(tmp_path):
    f = load_module(tmp_path, "import math\nfrom symgrad import stop_gradient\n\n\n" + SLOW_STOPPED,
                    "symgrad_reliability").f
    assert symgrad.grad(f)(-1.3895406561502) == 0.0  # u * 0.0: 0; the stop: 0


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_helper_in_a_chained_comparison(tmp_path, strategy):
    g = symgrad.grad(_module(tmp_path, UNDEFINED_HELPER_IN_A_CHAIN).f, strategy=strategy)
    assert g(0.1, 0.0, 2.12) == (0.0, 0.0, 0.0)  # the first branch: u * u at u = 0
    with pytest.raises(ZeroDivisionError):  # h raises, as in the primal
        g(0.1, 3.0, 0.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("operand", ["x ** 2", "x / math.sqrt(2.0)", "(x * x + 1.0) ** 0.5",
                                     "0.1 * x * 0.2 + 0.3"])
def test_intermediate_feeding_a_condition_is_the_primal_float(tmp_path, operand, strategy):
    for x in (10.54862188045661, 1.3, -2.2):
        boundary = eval(operand, {"math": math}, {"x": x})  # noqa: S307 - the primal's float
        f = _module(tmp_path, f"def f(x):\n    t = {operand}\n    if t >= {boundary!r}:\n"
                              f"        return 3.0 * x + t * 0.0\n    return 2.0 * x\n").f
        assert symgrad.grad(f, strategy=strategy)(x) == 3.0, (operand, x)
        f = _module(tmp_path, f"def f(x):\n    t = {operand}\n    if t > {boundary!r}:\n"
                              f"        return 3.0 * x + t * 0.0\n    return 2.0 * x\n").f
        assert symgrad.grad(f, strategy=strategy)(x) == 2.0, (operand, x)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_operand_of_a_short_circuit_in_a_value(tmp_path, strategy):
    f = _module(tmp_path, "def f(u):\n    u -= u if False or u or math.atanh(1.0) else 4.0\n"
                          "    return u\n").f
    assert symgrad.grad(f, strategy=strategy)(1.86) == 0.0  # u - u: atanh(1.0) never runs


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_branch_value_used_later(tmp_path, strategy):
    f = _module(tmp_path, "def f(x):\n    a = x * x if x > 0 else math.log(0.0)\n"
                          "    return a + 1.0\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(1.5) == 3.0
    with pytest.raises(ValueError):
        g(-1.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_undefined_constant_operand_of_a_comparison(tmp_path, strategy):
    f = _module(tmp_path, "def f(x, y):\n    if x != 4:\n        return 1.0 * y\n"
                          "    if math.log(1, 1) < -5:\n        return x\n    return 2.0 * x\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(0.4, 1.2) == (0.0, 1.0)
    with pytest.raises(ZeroDivisionError):  # math.log(1, 1) is 0.0 / 0.0
        g(4.0, 1.2)


# --- complex powers: a negative constant base (docs/conventions.md, "Complex powers") --------
COMPLEX_POWERS = [  # (the line computing the power, the power as written, its base): complex
    ("math.cos(2) ** 0.5 + t", "math.cos(2) ** 0.5", "-0.4161468365471424"),  # for every input
    ("(-0.5) ** 1.5 * t", "(-0.5) ** 1.5", "-0.5"),
    ("math.log10(0.5) ** 0.3 * t", "math.log10(0.5) ** 0.3", "-0.3010299956639812"),
    ("pow(-8, 1 / 3) * x", "pow(-8, 1 / 3)", "-8"),
    ("x + stop_gradient((-2.0) ** 0.5)", "(-2.0) ** 0.5", "-2"),
    ("math.sin(math.cos(2) ** 0.3 * t)", "math.cos(2) ** 0.3", "-0.4161468365471424"),
]


@pytest.mark.parametrize("backend", ("math", "numpy"))
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("line, power, base", COMPLEX_POWERS)
def test_complex_power_used_on_every_call_is_refused(tmp_path, line, power, base, strategy,
                                                      backend):
    """Python's ``**`` of a negative number to a constant fractional power is a complex number
    for every input (the primal returns it): a gradient of it is no float, so the build
    refuses, at the power."""
    f = _module(tmp_path, "from symgrad import stop_gradient\n\n\ndef f(x, t):\n"
                          f"    u = {line}\n    return u + x\n").f
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f, strategy=strategy, backend=backend)
    assert caught.value.lineno == 8 and caught.value.text.strip() == f"u = {line}"
    assert caught.value.what == (f"`{power}` is a complex number in Python (a negative base, "
                                 f"{base}, to a fractional power), and symgrad differentiates "
                                 "real values only")


VARYING_POWERS = [  # a negative constant base to a varying power: real where it is whole
    "math.cos(2) ** t", "(-0.5) ** t", "(-4) ** t", "pow(-2, t)", "math.pow(-2.0, t)",
    "math.log10(0.5) ** t", "x * (-1.5) ** (t + 1)", "math.sin(math.cos(2) ** t)",
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("line", VARYING_POWERS)
def test_a_varying_power_of_a_negative_base_is_not_refused(tmp_path, line, strategy):
    """Real where t is whole, so not refused; the gradient raises ValueError where the value is
    complex (t = 0.5) and where t moves the exponent (t = 2.0: complex arbitrarily near, no
    real derivative); value_and_grad's value at whole t is the primal's."""
    f = _module(tmp_path, f"def f(x, t):\n    u = {line}\n    return u + x\n").f
    g = symgrad.grad(f, strategy=strategy)
    for point in ((1.0, 0.5), (1.0, 2.0)):
        with pytest.raises(ValueError, match="math domain error"):
            g(*point)
    h = _module(tmp_path, "from symgrad import stop_gradient\n\n\ndef f(x, t):\n"
                          f"    u = {line}\n    return stop_gradient(u) + x\n").f
    value, grads = symgrad.value_and_grad(h, strategy=strategy)(1.0, 2.0)
    assert value == h(1.0, 2.0) and type(value) is float and grads == (1.0, 0.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_complex_power_through_names_and_helpers_is_refused_at_its_line(tmp_path, strategy):
    f = _module(tmp_path, "def h0(a):\n    return math.log10(0.5)\n\n\n"
                          "def power(b, e):\n    return b ** e\n\n\n"
                          "def f(y, t):\n    a = math.cos(2)\n"
                          "    return power(h0(t), 0.3) + a ** 0.3 * y\n").f
    with pytest.raises(symgrad.UnsupportedSyntaxError, match=r"^`b \*\* e` is a complex "
                       r"number in Python \(a negative base, -0.3010299956639812, to a "
                       r"fractional power") as caught:
        symgrad.grad(f, strategy=strategy)
    assert caught.value.lineno == 9  # the first in the line: b ** e in the helper
    g = _module(tmp_path, "def f(y, t):\n    a = math.cos(2)\n    return a ** 0.3 * y\n").f
    with pytest.raises(symgrad.UnsupportedSyntaxError, match=r"^`a \*\* 0.3` is a complex "
                       r"number in Python \(a negative base, -0.4161468365471424, to a "
                       r"fractional power\), and symgrad differentiates real values only: make "
                       r"the base positive \(`abs\(b\) \*\* y`\) or the exponent a whole "
                       r"number") as caught:
        symgrad.grad(g, strategy=strategy)
    assert caught.value.lineno == 6 and caught.value.text.strip() == "return a ** 0.3 * y"


DEAD_COMPLEX = [
    "u = h0(y) ** 0.3",  # fuzz seed 9001: refused as "undefined for every input"
    "u = (-4) ** y",
    "u = math.cos(2) ** t",
    "u = abs(0.5 ** math.atanh(0.5) * (-0.5) ** t)",
    "u = pow(h0(t), t)\n    u = y * t",  # rebound: the complex value is dead
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("line", DEAD_COMPLEX)
def test_dead_complex_power_is_no_refusal(tmp_path, line, strategy):
    """A complex value nobody uses: the primal runs (Python does not raise on it), so does the
    gradient, with the value of the rest."""
    f = _module(tmp_path, "def h0(a):\n    return math.log10(0.5)\n\n\n"
                          f"def f(y, t):\n    {line}\n    return y * t + 2.0 * y\n").f
    assert symgrad.grad(f, strategy=strategy)(1.5, -0.25) == (1.75, 1.5)
    assert symgrad.value_and_grad(f, strategy=strategy)(1.5, -0.25) == (f(1.5, -0.25),
                                                                         (1.75, 1.5))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", [
    "if x > 0:\n        return (-4) ** y\n    return x * y",
    "return (-4) ** y if x > 0 else x * y",
    "if x > 0:\n        return math.cos(2) ** y + x\n    return x * y",
    "v = x * y\n    if x > 0:\n        v = math.log10(0.5) ** 0.3 * x\n    return v",
    "u = (-4) ** y\n    v = u + x\n    return v if x > 0 else x * y",  # computed always, used not
])
def test_complex_power_on_a_path_that_may_not_run_raises_there(tmp_path, form, strategy):
    """Not refused (the primal returns a number where x <= 0); the gradient raises ValueError
    where the primal computes the complex power (numpy: nan), and is right elsewhere."""
    f = _module(tmp_path, f"def f(x, y):\n    {form}\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert g(-1.0, 0.5) == (0.5, -1.0)
    with pytest.raises(ValueError, match="math domain error"):
        g(1.0, 0.5)
    numpy_g = symgrad.grad(f, strategy=strategy, backend="numpy")
    assert [float(d) for d in numpy_g(-1.0, 0.5)] == [0.5, -1.0]
    assert any(math.isnan(d) for d in numpy_g(1.0, 0.5))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_negative_constant_to_a_whole_constant_power_is_real(tmp_path, strategy):
    f = _module(tmp_path, "def f(x):\n    return x * (-8.0) ** 2.0 + (-2) ** 3 * x + "
                          "(-2.0) ** -1 * x + x ** 3\n").f
    assert symgrad.grad(f, strategy=strategy)(2.0) == 64.0 - 8.0 - 0.5 + 12.0


ABS_OF_POWERS = [  # abs of a power whose exponent SymPy cannot prove real (re/im in Abs)
    ("abs(0.5 ** math.atanh(x))", lambda x: 0.5 ** mpmath.atanh(x)),
    ("abs(2.0 ** math.acos(x)) - x", lambda x: 2 ** mpmath.acos(x) - x),
    ("abs(1.5 ** math.log(x + 1.0))", lambda x: mpmath.mpf(1.5) ** mpmath.log(x + 1)),
    ("abs(math.sqrt(x + 1.0) ** math.asin(x))", lambda x: mpmath.sqrt(x + 1) ** mpmath.asin(x)),
    ("abs(-(0.25 ** math.atanh(x)))", lambda x: mpmath.mpf(0.25) ** mpmath.atanh(x)),
    ("abs(math.exp(math.atanh(x)) - 3.0)", lambda x: 3 - mpmath.exp(mpmath.atanh(x))),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, reference", ABS_OF_POWERS)
def test_abs_of_a_power_with_an_exponent_sympy_cannot_prove_real(tmp_path, body, reference,
                                                                   strategy):
    """SymPy's ``Abs(0.5**atanh(x))`` is ``0.5**re(atanh(x))`` ("symgrad does not know the
    derivative of re"): every value of the primal is real, so ``re(z)`` is ``z``."""
    f = _module(tmp_path, f"def f(x):\n    return {body}\n").f
    g = symgrad.grad(f, strategy=strategy)
    assert "re(" not in g.source and "im(" not in g.source
    for x in (0.3, -0.45):
        expected = _central_difference(reference, (x,), 0)
        assert g(x) == pytest.approx(float(expected), rel=1e-12)


# --- slow builds: repeated max/min arguments, large arguments (fuzz 9001-0-3228, 7001-1-1833) ---
def _nested_extremum(which, repeats):
    low = 0.5 if which == "max" else 2.5
    args = ", ".join([str(low), "b", "-b - 2"] + ["b"] * (repeats - 1))
    return ("def h(a):\n    b = math.acos(a / (1.0 + abs(a))) * math.hypot(-0.5, -0.5)\n"
            f"    return {which}({args})\n\n\n"
            "def f(y, u):\n    if y > 0:\n        return h(h(u))\n    return u\n")


def _nested_reference(which):
    def h(a):
        b = mpmath.acos(a / (1 + abs(a))) * mpmath.sqrt(mpmath.mpf(0.5))
        return max(0.5, b, -b - 2) if which == "max" else min(2.5, b, -b - 2)
    return lambda u: h(h(u))


@pytest.fixture(scope="module")
def nested_once(tmp_path_factory):
    """``grad`` of the one-repeat program, per (which, strategy): built once for the module (each
    repeat count compares its gradient with it), and the central differences at each u."""
    directory = tmp_path_factory.mktemp("nested_once")
    built, expected = {}, {}

    def once(which, strategy):
        if (which, strategy) not in built:
            f = _module(directory, _nested_extremum(which, 1)).f
            built[which, strategy] = symgrad.grad(f, strategy=strategy)
        return built[which, strategy]

    def difference(which, u):
        if (which, u) not in expected:
            expected[which, u] = float(_central_difference(_nested_reference(which), (u,), 0))
        return expected[which, u]

    return once, difference


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("repeats", (1, 3, 5))
@pytest.mark.parametrize("which", ("max", "min"))
def test_repeated_arguments_of_nested_extrema_are_tested_once(tmp_path, nested_once, which,
                                                              repeats, strategy):
    """A repeat is one tie test counted per occurrence: the derivative of ``max(0.5, b, -b - 2, b,
    b, b)`` has three terms, not seven (seven made fuzz program 9001-0-3228 print a 600 KB
    gradient in 28 s), and the tie convention is kept (1/k per tied occurrence)."""
    built_once, difference = nested_once
    once = built_once(which, strategy)
    g = once if repeats == 1 else symgrad.grad(
        _module(tmp_path, _nested_extremum(which, repeats)).f, strategy=strategy)
    assert g.source.count("acos") == once.source.count("acos")  # repeats add no code
    for u in (-0.7, 0.35, 1.9):
        expected = difference(which, u)
        assert g(1.0, u) == pytest.approx((0.0, expected), rel=1e-12)
        assert g(-1.0, u) == (0.0, 1.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_repeats_in_a_large_max_share_a_tie_per_occurrence(tmp_path, strategy):
    """``max(t, t, t, 2 - t - u, t - 0.1, 1.0 - t)`` under acos(0.5*sin(.)) (fuzz 7001-1-1833) at
    a five-way tie (t = 0.5, u = 1.0: three t, 2 - t - u and 1.0 - t are 0.5): d/dt is
    (3 - 1 - 1)/5 and d/du is -1/5 of the chain factor; off the tie, the winner's."""
    f = _module(tmp_path, "def f(t, u):\n    return math.acos(0.5 * math.sin(max(t, t, t, "
                          "2 - t - u, t - 0.1, 1.0 - t)))\n").f
    g = symgrad.grad(f, strategy=strategy)

    def chain(m):  # d acos(0.5 sin(m)) / dm
        return -0.5 * math.cos(m) / math.sqrt(1 - (0.5 * math.sin(m)) ** 2)

    assert g(0.5, 1.0) == pytest.approx((0.2 * chain(0.5), -0.2 * chain(0.5)), rel=1e-15)
    assert g(0.5, 0.0) == pytest.approx((-chain(1.5), -chain(1.5)), rel=1e-15)  # 2 - t - u wins
    assert g(0.5, 2.0) == pytest.approx((0.5 * chain(0.5), 0.0), rel=1e-15)  # t, t, t, 1 - t


def test_a_large_max_is_built_without_folding_its_arguments():
    """Above ``rules.FOLDED_MAX_NODES`` nodes the arguments are kept as written (SymPy's pairwise
    ``factor_terms`` of each difference is skipped); below, SymPy folds as before."""
    x = sympy.Symbol("x", real=True)
    small = rules.rule_for_callable(max).build(x, x + 1, sympy.Integer(0))
    assert isinstance(small, sympy.Max) and len(small.args) == 2  # x + 1 > x always: folded
    big = sympy.acos(x / (sympy.Abs(x) + 1)) * sympy.sin(x) ** 3 + sympy.exp(sympy.cos(x) + x)
    built = rules.rule_for_callable(max).build(big, big + 1, sympy.Integer(0), big - 2, big * 3)
    assert isinstance(built, rules.LargeMax) and len(built.args) == 5
    y = sympy.Symbol("y", real=True)
    rebuilt = built.xreplace({x: y})  # a rebuild keeps every argument too
    assert isinstance(rebuilt, rules.LargeMax) and len(rebuilt.args) == 5
    assert rules.rule_for_class(rules.LargeMin) is rules.rule_for_class(sympy.Min)


def _negative_base_to_a_whole_branch(y, t):
    b = 1.0
    return (-0.5) ** (3.0 if 0 <= t + 0.5 <= 0.25 else b) * y


@pytest.mark.parametrize("strategy", ["auto", "reverse", "symbolic"])
def test_a_negative_base_to_an_exponent_whole_on_every_path_is_real_not_refused(strategy):
    """(-0.5) ** 3.0 and (-0.5) ** 1.0 are floats in Python: a varying exponent whole on every
    path (a branch of whole constants) is no complex power (fuzz seed 9101, program 9101-0-2756)."""
    g = symgrad.value_and_grad(_negative_base_to_a_whole_branch, strategy=strategy)
    for t, power in ((-0.4, -0.125), (-0.6, -0.5), (2.0, -0.5)):
        value, (dy, dt) = g(3.0, t)
        assert value == _negative_base_to_a_whole_branch(3.0, t) == 3.0 * power
        assert (dy, dt) == (power, 0.0)

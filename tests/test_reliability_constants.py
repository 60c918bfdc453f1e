"""A jump (round, floor, ceil, ``//``, ``%``, sign) reads the float the source computes, through names.

SymPy reads ``math.log(math.exp(z))`` as ``z``, ``(x + 0.1) - 0.1`` and ``x * 0.7 / 0.7`` as
``x``, ``math.sqrt(x ** 2)`` as ``|x|``, and ``a + 1.0 - a`` as 1 for a name ``a`` bound to a
constant. In float each is another number at some points (``log(exp(0.9999999999999999))`` is
1.0, ``(a + 1.0) - a`` is 1.0000000000000002 for ``a = atan2(2, exp(expm1(-0.5)))``), and a
jump of it is then another integer: ``math.floor`` of the first is 1, of SymPy's ``z`` 0. The
value reaches the jump through a helper's parameter, a name bound to a cancellation, or a name
bound to a constant; each must carry the form the source computes it in.

Each case is a generated module ``f(x, y) = J(...) * y``: the expected gradient is the primal's
own jump value (computed by Python at the point) for ``y`` and the hand derivative for ``x`` (0,
or for ``%``, whose derivative is 1 in its first argument, the derivative of the argument); the
value of ``value_and_grad`` is the primal's, bit for bit. ``test_the_float_effect_is_real``
shows that SymPy's form gives another jump value at every point (else a case could not fail).
"""
import math

import numpy as np
import pytest

import symgrad
from symgrad import rules
from source_modules import load_module

STRATEGIES = ("auto", "reverse", "symbolic")

JUMPS = {  # the jump applied to an argument written as text, and the same in Python
    "round": ("round({})", round),
    "floor": ("math.floor({})", math.floor),
    "ceil": ("math.ceil({})", math.ceil),
    "floordiv": ("({}) // 1.0", lambda v: v // 1.0),
    "mod": ("({}) % 1.0", lambda v: v % 1.0),
    "sign": ("np.sign({})", lambda v: float(np.sign(v))),
}

IDENTITIES = {  # the argument as written, SymPy's form of it (a function of x), its derivative
    "logexp": ("math.log(math.exp({x}))", lambda x, k: x, lambda x: 1.0),
    "explog": ("math.exp(math.log({x}))", lambda x, k: x, lambda x: 1.0),
    "sqrtsq": ("math.sqrt({x} ** 2)", lambda x, k: abs(x), lambda x: math.copysign(1.0, x)),
    "mulk": ("{x} * {k} / {k}", lambda x, k: x, lambda x: 1.0),
    "addc": ("({x} + {k}) - {k}", lambda x, k: x, lambda x: 1.0),
}

# (jump, identity): (scale s, constant k, point x) where J(s * written) != J(s * SymPy's form);
# none exists for round of sqrt(x ** 2) (it is |x| in float up to underflow, where round is 0
# either way) nor for the sign of exp(log(x)) (positive either way)
POINTS = {
    ("round", "logexp"): (-4, None, -0.375),
    ("round", "explog"): (1, None, 7.5),
    ("round", "mulk"): (-1, 0.7, -1.5),
    ("round", "addc"): (1, 0.7, 7.5),
    ("floor", "logexp"): (1, None, 0.9999999999999999),
    ("floor", "explog"): (1, None, 5.0),
    ("floor", "sqrtsq"): (-1, None, -5e-324),
    ("floor", "mulk"): (-1, 0.7, -3.0),
    ("floor", "addc"): (1, 0.1, 4.0),
    ("ceil", "logexp"): (-1, None, 0.9999999999999999),
    ("ceil", "explog"): (1, None, 3.0),
    ("ceil", "sqrtsq"): (1, None, -5e-324),
    ("ceil", "mulk"): (-1, 0.1, -3.0),
    ("ceil", "addc"): (1, 3.3, 5.0),
    ("floordiv", "logexp"): (1, None, 0.9999999999999999),
    ("floordiv", "explog"): (1, None, 5.0),
    ("floordiv", "sqrtsq"): (-1, None, -5e-324),
    ("floordiv", "mulk"): (-1, 0.7, -3.0),
    ("floordiv", "addc"): (1, 0.1, 4.0),
    ("mod", "logexp"): (-1, None, -0.9999999999999999),
    ("mod", "explog"): (1, None, 3.0),
    ("mod", "sqrtsq"): (-1, None, -5e-324),
    ("mod", "mulk"): (-1, 0.1, -3.0),
    ("mod", "addc"): (1, 0.1, 4.0),
    ("sign", "logexp"): (-1, None, -1e-17),
    ("sign", "sqrtsq"): (-1, None, -5e-324),
    ("sign", "mulk"): (-1, 0.1, -5e-324),
    ("sign", "addc"): (-1, 0.1, -5e-324),
}

A = "math.atan2(2, math.exp(math.expm1(-0.5)))"  # the reproducer's constant: 1.245429750314251
CONSTANTS = {  # jump: (constant, scale s, m, n) with J(s * (a + m - a - n)) != J(s * (m - n))
    "round": ("math.exp(1.0)", -1, 1.5, 0.0),
    "floor": (A, -1, 1.0, 0.0),
    "ceil": (A, 1, 1.0, 0.0),
    "floordiv": (A, -1, 1.0, 0.0),
    "mod": (A, -1, 1.0, 0.0),
    "sign": (A, 1, 1.0, 1.0),
}


def _scaled(s, text):
    return text if s == 1 else f"{s} * {text}"


def _cases():
    """(id, source of f, point x, the derivative in x of J's argument by hand, SymPy's form of
    J's argument at x)."""
    cases = []
    for (jump, identity), (s, k, x) in POINTS.items():
        call, _ = JUMPS[jump]
        written, sympy_form, slope = IDENTITIES[identity]
        arg = written.format(x="x", k=k)
        helper = (f"def h(v):\n    return {call.format(_scaled(s, 'v'))}\n\n\n"
                  f"def f(x, y):\n    return h({arg}) * y\n")
        exact = s * sympy_form(x, k)
        cases.append((f"{jump}-helper-{identity}", helper, x, s * slope(x), exact))
        if identity in ("mulk", "addc"):  # a name bound to a cancellation, and one in a helper
            named = (f"def f(x, y):\n    b = {arg}\n"
                     f"    return {call.format(_scaled(s, 'b'))} * y\n")
            cases.append((f"{jump}-name-{identity}", named, x, s, exact))
            inner = written.format(x="v", k=k)
            body = (f"def h(v):\n    b = {inner}\n    return {call.format(_scaled(s, 'b'))}\n\n\n"
                    f"def f(x, y):\n    return h(x) * y\n")
            cases.append((f"{jump}-helper-name-{identity}", body, x, s, exact))
    for jump, (constant, s, m, n) in CONSTANTS.items():
        call, _ = JUMPS[jump]
        cancelled = f"a + {m} - a" + (f" - {n}" if n else "")
        arg = _scaled(s, f"({cancelled})")
        named = f"def f(x, y):\n    a = {constant}\n    return {call.format(arg)} * y\n"
        cases.append((f"{jump}-constant", named, 0.5, 0.0, s * (m - n)))
        helper = (f"def h(v):\n    return {call.format(_scaled(s, 'v'))}\n\n\n"
                  f"def f(x, y):\n    a = {constant}\n    return h({cancelled}) * y\n")
        cases.append((f"{jump}-helper-constant", helper, 0.5, 0.0, s * (m - n)))
    return cases


CASES = _cases()
Y = 3.0


def _load(tmp_path, source):
    return load_module(tmp_path, "import math\n\nimport numpy as np\n\n\n" + source, "jumps")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name, source, x, slope, exact", CASES, ids=[c[0] for c in CASES])
def test_a_jump_reads_the_float_through_names(tmp_path, name, source, x, slope, exact,
                                              strategy):
    f = _load(tmp_path, source).f
    jump = f(x, 1.0)  # the primal's own jump value J at the point (times 1.0: exact)
    assert (f(x, Y + 1.0) - f(x, Y - 1.0)) / 2.0 == jump  # its difference in y: exact (4J - 2J)
    expected_dx = slope * Y if name.startswith("mod") else 0.0
    value, (dx, dy) = symgrad.value_and_grad(f, strategy=strategy)(x, Y)
    assert repr(value) == repr(float(f(x, Y)))  # the primal's float, bit for bit
    assert dy == jump
    assert dx == pytest.approx(expected_dx, rel=1e-15, abs=0.0)
    assert symgrad.grad(f, strategy=strategy)(x, Y) == (dx, dy)


@pytest.mark.parametrize("name, source, x, slope, exact", CASES, ids=[c[0] for c in CASES])
def test_the_float_effect_is_real(tmp_path, name, source, x, slope, exact):
    """The jump of SymPy's form of the argument differs from the primal's at every point."""
    jump = JUMPS[name.split("-")[0]][1]
    assert _load(tmp_path, source).f(x, 1.0) != jump(exact)


def test_the_reproducers():
    """The two reproducers of the fuzzer, as written in the report."""
    def ceil_of_a_constant(x):
        a = math.atan2(2, math.exp(math.expm1(-0.5)))
        return math.ceil(a + 1 - a) * x

    def h0(a):
        a = -a - 0.4
        return round(a)

    def round_in_a_helper(t, z):
        return h0(math.log(math.exp(z)))

    assert math.ceil(1.245429750314251 + 1 - 1.245429750314251) == 2
    assert round(-math.log(math.exp(0.1)) - 0.4) == -1 and round(-0.1 - 0.4) == 0
    for strategy in STRATEGIES:
        assert symgrad.grad(ceil_of_a_constant, strategy=strategy)(1.0) == 2.0
        assert symgrad.value_and_grad(ceil_of_a_constant, strategy=strategy)(1.0) == (2.0, 2.0)
        value, _ = symgrad.value_and_grad(round_in_a_helper, strategy=strategy)(0.0, 0.1)
        assert value == -1.0


# --- every path a value takes to a jump or a condition -------------------------------------
# At x = 0.9999999999999999, math.log(math.exp(x)) is 1.0 in float and x to SymPy: the floor is
# 1, SymPy's 0; a test `>= 1.0` holds, SymPy's does not.
X = 0.9999999999999999


def through_a_tuple(x, y):
    t = (math.log(math.exp(x)), 2.0)
    return math.floor(t[0]) * y


def through_a_loop(x, y):
    s = 0.0
    for v in (math.log(math.exp(x)), 2.0):
        s += math.floor(v) * y
    return s


def through_a_comprehension(x, y):
    return sum(math.floor(v) for v in (math.log(math.exp(x)), 2.0)) * y


def through_a_conditional_expression(x, y):
    return math.floor(math.log(math.exp(x)) if y > 0 else x) * y


def through_unpacking(x, y):
    a, b = math.log(math.exp(x)), 2.0
    return math.floor(a) * b * y


def through_a_closure(x, y):
    b = math.log(math.exp(x))

    def inner():
        return math.floor(b)
    return inner() * y


def through_a_branch(x, y):
    b = x
    if y > 0:
        b = math.log(math.exp(x))
    return math.floor(b) * y


def _floor_of(a):
    return math.floor(a)


def through_a_keyword_argument(x, y):
    return _floor_of(a=math.log(math.exp(x))) * y


def _one_or_two(a):
    return 1.0 if a >= 1.0 else 2.0


def a_condition_in_a_helper(x, y):
    return _one_or_two(math.log(math.exp(x))) * y


def _twice_or_thrice(a):
    if a >= 1.0:
        return 2.0 * a
    return 3.0 * a


def an_if_in_a_helper(x, y):
    return _twice_or_thrice(math.log(math.exp(x))) * y


def _twice_or_thrice_of_a_name(a):
    b = -a
    if b <= -1.0:
        return 2.0 * b
    return 3.0 * b


def an_if_on_a_name_in_a_helper(x, y):
    return _twice_or_thrice_of_a_name(math.log(math.exp(x))) * y


PATHS = [  # function, its derivative in x at (X, y) by hand (the jumps' is 0)
    (through_a_tuple, lambda y: 0.0),
    (through_a_loop, lambda y: 0.0),
    (through_a_comprehension, lambda y: 0.0),
    (through_a_conditional_expression, lambda y: 0.0),
    (through_unpacking, lambda y: 0.0),
    (through_a_closure, lambda y: 0.0),
    (through_a_branch, lambda y: 0.0),
    (through_a_keyword_argument, lambda y: 0.0),
    (a_condition_in_a_helper, lambda y: 0.0),
    (an_if_in_a_helper, lambda y: 2.0 * y),  # the primal takes `2.0 * a` (a = 1.0)
    (an_if_on_a_name_in_a_helper, lambda y: -2.0 * y),  # and `2.0 * b` (b = -1.0)
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function, dx", PATHS, ids=[p[0].__name__ for p in PATHS])
def test_every_path_carries_the_written_form(function, dx, strategy):
    value, (got_dx, got_dy) = symgrad.value_and_grad(function, strategy=strategy)(X, Y)
    assert repr(value) == repr(float(function(X, Y)))
    # linear in y: the primal's own factor, a jump exact, a smooth factor (`2.0 * a`, SymPy's
    # `a` being x) to the rounding
    assert got_dy == pytest.approx(function(X, 1.0), rel=1e-15, abs=0.0)
    assert got_dx == dx(Y)


def test_the_paths_float_effect_is_real():
    assert math.log(math.exp(X)) == 1.0 and X < 1.0
    assert math.floor(math.log(math.exp(X))) != math.floor(X)


# --- a branch decided on a constant computed through names ---------------------------------
# a = math.sqrt(2.0) is SymPy's exact sqrt(2), whose square is 2; in float a * a is
# 2.0000000000000004, so `a * a > 2` holds in the primal, and `abs(a * a - 2.0)` is 4.4e-16.


def branch_on_a_named_product(x):
    a = math.sqrt(2.0)
    b = a * a
    return 2.0 * x if b > 2 else 3.0 * x


def if_on_a_product_of_names(x):
    a = math.sqrt(2.0)
    if a * a > 2:
        return 2.0 * x
    return 3.0 * x


def equality_of_a_product_of_names(x):
    a = math.sqrt(2.0)
    t = 1.0 if a * a == 2.0 else 0.5
    return t * x


def abs_of_a_cancellation_of_names(x):
    a = math.sqrt(2.0)
    return abs(a * a - 2.0) * x


DECIDED = [  # function, its derivative by hand (the primal's branch, the primal's constant)
    (branch_on_a_named_product, 2.0),
    (if_on_a_product_of_names, 2.0),
    (equality_of_a_product_of_names, 0.5),
    (abs_of_a_cancellation_of_names, abs(math.sqrt(2.0) * math.sqrt(2.0) - 2.0)),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function, expected", DECIDED, ids=[d[0].__name__ for d in DECIDED])
def test_a_branch_on_named_constants_is_the_primals(function, expected, strategy):
    value, got = symgrad.value_and_grad(function, strategy=strategy)(0.7)
    assert repr(value) == repr(float(function(0.7)))
    assert got == expected


def test_the_named_constants_float_effect_is_real():
    a = math.sqrt(2.0)
    assert a * a == 2.0000000000000004 and abs(a * a - 2.0) == 2.0 ** -51


def _max_of_a_number(x):
    total = x * 2.0
    total = max(total, -1.0)
    return total * x


def test_a_written_max_of_a_number_prints_for_torch():
    """A primal line kept as written (``max(total, -1.0)``) is printed for PyTorch as its other
    calls of ``max`` are: ``torch.maximum`` takes tensors only, so a number bound is a clamp."""
    torch = pytest.importorskip("torch")
    got = symgrad.grad(_max_of_a_number, backend="torch")(torch.tensor(0.3, dtype=torch.float64))
    assert float(got) == 4 * 0.3  # d/dx of 2 x^2 where 2 x > -1


COMPARING_ROWS = [(rule.python[0], min(rule.nargs)) for rule in rules.RULES
                  if rule.compares and rule.python]
ROW_POINTS = {  # spelling: (scale s, point x) where the row of s * log(exp(x)) and of s * x differ
    "abs": (1, X), "max": (1, X), "numpy.maximum": (1, X), "min": (-1, X),
    "numpy.minimum": (-1, X), "round": (-4, 0.375), "math.floor": (1, X), "math.ceil": (-1, X),
    "numpy.sign": (-1, -1e-17),
}


@pytest.mark.parametrize("spelling, nargs", COMPARING_ROWS, ids=[r[0] for r in COMPARING_ROWS])
def test_every_comparing_row_reads_a_helpers_argument_as_written(tmp_path, spelling, nargs):
    """Each row marked ``compares`` (its value jumps or its derivative compares), called in a
    helper on a parameter bound to ``s * math.log(math.exp(x))``, at a point where the row's
    value of SymPy's ``s * x`` is another: the value is the primal's, bit for bit."""
    s, x = ROW_POINTS[spelling]  # a new row marked `compares` needs its point here
    call = f"{spelling}({', '.join([_scaled(s, 'v')] + ['0.5'] * (nargs - 1))})"
    source = (f"import math\n\nimport numpy\n\n\ndef h(v):\n    return {call}\n\n\n"
              f"def f(x, y):\n    return h(math.log(math.exp(x))) * y\n")
    module = load_module(tmp_path, source, "rows")
    assert module.h(x) != module.h(math.log(math.exp(x)))  # the float effect is real
    for strategy in STRATEGIES:
        value, _ = symgrad.value_and_grad(module.f, strategy=strategy)(x, Y)
        assert repr(value) == repr(float(module.f(x, Y)))

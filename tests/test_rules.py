"""Every row of ``symgrad.rules.RULES``, tested from the table itself (as JAX's lax_autodiff_test
iterates its op table): a new row is tested with no new test code.

For every Python spelling of every row that resolves to a callable (numpy may be missing), a tiny
module calling it is written to a temporary file and imported (so its source can be read), then
symgrad's derivative is compared with a 50-digit mpmath central difference of the same function at
3 points drawn from the row's ``domain``. Rows whose derivative is ``rules.ZERO`` give exactly 0
away from their jumps.
"""
import builtins
import importlib
import math

import mpmath
import pytest

import symgrad
from source_modules import load_module
from symgrad import rules

# Eight distinct values per domain (no ties for max/min, no integers or halves for round/floor/ceil,
# no 1 for a logarithm base). Argument i of sample k is VALUES[(3k + i) % 8].
DOMAIN_VALUES = {
    "real": (0.7, -1.3, 2.1, -0.4, 1.45, -2.2, 0.15, 2.6),
    "positive": (0.7, 2.3, 1.6, 0.35, 2.9, 0.55, 1.25, 3.4),
    "unit": (0.3, -0.6, 0.75, -0.2, 0.45, -0.85, 0.1, -0.35),
    ">1": (1.3, 2.2, 3.7, 1.05, 2.8, 1.6, 4.1, 1.9),
    "probability": (0.3, 0.6, 0.75, 0.2, 0.45, 0.85, 0.1, 0.35),
}
SAMPLES = 3
STRATEGIES = ("symbolic", "reverse")

# The mpmath function computing the same value as a Python spelling, where the last part of the
# dotted name is not already an mpmath name (numpy's arc* names map to a*).
MPMATH_ALIASES = {
    "abs": mpmath.fabs, "absolute": mpmath.fabs, "pow": mpmath.power, "float": mpmath.mpf,
    "max": builtins.max, "maximum": builtins.max, "fmax": builtins.max,
    "min": builtins.min, "minimum": builtins.min, "fmin": builtins.min,
    "square": lambda v: v * v, "log2": lambda v: mpmath.log(v, 2), "round": mpmath.nint,
    "expit": lambda v: 1 / (1 + mpmath.exp(-v)), "logit": lambda p: mpmath.log(p / (1 - p)),
    "xlogy": lambda x, y: x * mpmath.log(y), "gammaln": mpmath.loggamma, "psi": mpmath.digamma,
    "cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v)),  # the real root (mpmath: complex)
}


def _resolve(dotted):
    module, _, attr = dotted.rpartition(".")
    try:
        owner = importlib.import_module(module) if module else builtins
    except ImportError:
        return None
    return getattr(owner, attr, None)


def _mpmath_reference(dotted):
    name = dotted.rpartition(".")[2]
    if name in MPMATH_ALIASES:
        return MPMATH_ALIASES[name]
    if name.startswith("arc"):
        name = "a" + name[3:]
    return getattr(mpmath, name, None)


def _arities(rule):
    """The smallest, the next and the largest argument count the row accepts."""
    counts = sorted(rule.nargs)
    return sorted({counts[0], counts[min(1, len(counts) - 1)], counts[-1]})


def _cases():
    cases = []
    for index, rule in enumerate(rules.RULES):
        for dotted in rule.python:
            for nargs in _arities(rule):
                marks = () if _resolve(dotted) is not None else (
                    pytest.mark.skip(reason=f"{dotted} is not importable here"),)
                cases.append(pytest.param(index, dotted, nargs, marks=marks,
                                          id=f"{dotted}-{nargs}"))
    return cases


CASES = _cases()


def _write_module(tmp_path, dotted, nargs):
    params = ", ".join(f"x{i}" for i in range(nargs))
    module = dotted.rpartition(".")[0]
    header = f"import {module}\n\n\n" if module else ""
    source = f"{header}def f({params}):\n    return {dotted}({params})\n"
    return load_module(tmp_path, source, "symgrad_rule_case").f


def _points(rule, nargs):
    values = DOMAIN_VALUES[rule.domain]
    return [tuple(values[(3 * k + i) % len(values)] for i in range(nargs)) for k in range(SAMPLES)]


def _central_difference(reference, point, i):
    with mpmath.workdps(50):
        h = mpmath.mpf(10) ** -20
        args = [mpmath.mpf(v) for v in point]
        up, down = list(args), list(args)
        up[i] += h
        down[i] -= h
        return (reference(*up) - reference(*down)) / (2 * h)


def _reference_value(reference, point):
    with mpmath.workdps(50):
        return reference(*[mpmath.mpf(v) for v in point])


def test_every_domain_is_known():
    for rule in rules.RULES:
        assert rule.domain in DOMAIN_VALUES, rule


def test_every_row_with_a_spelling_is_tested():
    tested = {case.values[0] for case in CASES}
    for index, rule in enumerate(rules.RULES):
        if rule.python:
            assert index in tested, rule
    assert any(_resolve(case.values[1]) is not None for case in CASES)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("index, dotted, nargs", CASES)
def test_rule(tmp_path, index, dotted, nargs, strategy):
    rule = rules.RULES[index]
    reference = _mpmath_reference(dotted)
    assert reference is not None, f"no mpmath reference for {dotted}: add it to MPMATH_ALIASES"
    primal = _write_module(tmp_path, dotted, nargs)
    points = _points(rule, nargs)
    try:
        primal(*points[0])
    except TypeError as exc:
        # Python itself rejects this call (e.g. numpy.maximum(a, b, c): c is `out`), so symgrad
        # must not differentiate it as if it meant something else.
        with pytest.raises(symgrad.UnsupportedSyntaxError):
            symgrad.grad(primal, strategy=strategy)
        pytest.fail(f"{dotted} with {nargs} arguments: Python raises {exc!r}; symgrad rejects it, "
                    f"but the table claims nargs={rule.nargs}")
    gf = symgrad.grad(primal, strategy=strategy)
    for point in points:
        # the reference computes the same function as the Python spelling
        value = float(primal(*point))
        assert value == pytest.approx(float(_reference_value(reference, point)), rel=1e-13,
                                      abs=1e-15), (dotted, point)
        got = gf(*point)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == nargs
        for i in range(nargs):
            expected = float(_central_difference(reference, point, i))
            if rule.derivative == rules.ZERO:
                assert got[i] == 0.0 and expected == 0.0, (dotted, point, i, got[i])
            else:
                assert got[i] == pytest.approx(expected, rel=1e-12, abs=1e-14), (
                    dotted, point, i, got[i], expected)


# --- rows with no Python spelling, reached through operators -----------------------------------
def remainder(x, y):
    return x % y


def floor_quotient(x, y):
    return x // y


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("point", [(7.3, 2.0), (-5.5, 1.7), (4.1, -1.5)])
def test_mod_row(strategy, point):
    # x % y = x - y floor(x / y): d/dx = 1, d/dy = -floor(x / y)
    x, y = point
    assert symgrad.grad(remainder, strategy=strategy)(x, y) == (1.0, -float(math.floor(x / y)))
    with mpmath.workdps(50):
        reference = lambda a, b: a - b * mpmath.floor(a / b)  # noqa: E731
        for i, got in enumerate(symgrad.grad(remainder, strategy=strategy)(x, y)):
            assert got == pytest.approx(float(_central_difference(reference, point, i)), rel=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_floordiv_is_zero(strategy):
    assert symgrad.grad(floor_quotient, strategy=strategy)(7.3, 2.0) == (0.0, 0.0)

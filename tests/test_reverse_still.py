"""A branch that is a constant keeps every target computed from it constant: the reverse
strategy gives their adjoints 0 there, never evaluating a derivative that is singular at the
constant (``c = 0.0 if u > -0.5 else t; e = c * 2.0; math.sqrt(e)``: ``0.5 / sqrt(e)`` raised
ZeroDivisionError at u = 0 where the derivative, of the constant branch, is 0, as the symbolic
strategy and ``jax.grad`` on the Python code give).

The programs are generated: a branch between a constant and ``t``, one to three bindings of
operations that keep the constant a constant (0 stays 0, so ``c * t`` is 0 too), then a function
whose derivative is singular there (or, from the constant 1.0, regular). The reference is a
50-digit central difference of the same source run on mpmath numbers; the symbolic strategy,
where it gives a number, gives the same.
"""
import itertools
import math
import random

import mpmath
import pytest

import symgrad
from source_modules import load_module

OPERATIONS = ("2.0 * {x}", "{x} / 3.0", "-{x}", "{x} * {x}", "abs({x})", "{x} * t",
              "min({x}, 5.0)", "{x} + 0.0 * u", "stop_gradient(u) * {x}")
SINGULAR = ("math.sqrt({x})", "{x} ** 0.5", "math.acos(1.0 - {x})", "math.asin(1.0 - {x})",
            "math.sqrt(abs({x})) ** 3", "math.log(1.0 + math.sqrt({x}))",
            "1.0 / (1.0 + math.sqrt({x}))", "math.sqrt({x}) * t")
REGULAR = ("math.log({x})", "1.0 / {x}", "math.sqrt({x})", "math.acos({x} - 1.0)")
BRANCHES = ("    c = {k} if u > -0.5 else t\n",
            "    c = t if u <= -0.5 else {k}\n",
            "    if u > -0.5:\n        c = {k}\n    else:\n        c = t\n")
POINTS = ((0.6, 0.25), (1.3, 0.7), (0.6, -2.0), (1.3, -0.9), (0.35, -3.0))


def _program(branch, k, chain, last):
    lines = [branch.format(k=k)]
    x = "c"
    for i, operation in enumerate(chain):
        lines.append(f"    e{i} = {operation.format(x=x)}\n")
        x = f"e{i}"
    return "def f(t, u):\n" + "".join(lines) + f"    return {last.format(x=x)}\n"


def _cases():
    rng = random.Random(7)
    cases = [(BRANCHES[0], "0.0", (op,), last) for op in OPERATIONS for last in SINGULAR[:3]]
    for _ in range(40):
        chain = tuple(rng.choice(OPERATIONS) for _ in range(rng.randint(1, 3)))
        cases.append((rng.choice(BRANCHES), "0.0", chain, rng.choice(SINGULAR)))
    for _ in range(12):
        chain = tuple(rng.choice(OPERATIONS) for _ in range(rng.randint(1, 3)))
        cases.append((rng.choice(BRANCHES), "1.0", chain, rng.choice(REGULAR)))
    return [_program(*case) for case in dict.fromkeys(cases)]


CASES = _cases()


class _Mp:
    """The ``math`` of the program, on mpmath numbers (its reference)."""
    sqrt, log, acos, asin = mpmath.sqrt, mpmath.log, mpmath.acos, mpmath.asin


def _central_difference(source, point, i):
    source = source.replace("stop_gradient(u)", repr(point[1]))  # held at the point
    namespace = {"math": _Mp}
    exec(compile(source, "<reference>", "exec"), namespace)  # noqa: S102 - the test's oracle
    with mpmath.workdps(50):
        h = mpmath.mpf(10) ** -20
        up, down = [mpmath.mpf(v) for v in point], [mpmath.mpf(v) for v in point]
        up[i] += h
        down[i] -= h
        return float(mpmath.re((namespace["f"](*up) - namespace["f"](*down)) / (2 * h)))


def _primal_raises(f, point):
    try:
        value = f(*point)
    except (ValueError, ZeroDivisionError, OverflowError):
        return True
    return isinstance(value, complex) or not math.isfinite(value)


@pytest.mark.parametrize("source", CASES, ids=range(len(CASES)))
def test_reverse_does_not_evaluate_the_adjoint_of_a_constant(tmp_path, source):
    f = load_module(tmp_path, "import math\nfrom symgrad import stop_gradient\n\n\n" + source,
                    "symgrad_still").f
    reverse = symgrad.grad(f, strategy="reverse", cache=False)
    symbolic = symgrad.grad(f, strategy="symbolic", cache=False)
    for point in POINTS:
        if _primal_raises(f, point):
            continue
        expected = tuple(_central_difference(source, point, i) for i in range(2))
        assert reverse(*point) == pytest.approx(expected, rel=1e-9, abs=1e-12), (source, point)
        try:
            other = symbolic(*point)
        except (ValueError, ZeroDivisionError):  # 0 * 0.5 / sqrt(0): symbolic does not fold it
            continue
        assert other == pytest.approx(expected, rel=1e-9, abs=1e-12), (source, point)


def test_the_reported_chain(tmp_path):
    """The report's program: (0, 0) where the constant branch is taken, (sqrt(2) / (2 sqrt(t)),
    0) on the other (the derivative of sqrt(2 t))."""
    f = load_module(tmp_path, "import math\n\n\ndef f(t, u):\n    c = 0.0 if u > -0.5 else t\n"
                    "    e = c * 2.0\n    return math.sqrt(e)\n", "symgrad_still_report").f
    g = symgrad.grad(f, strategy="reverse", cache=False)
    assert g(1.3, 0.0) == (0.0, 0.0)
    assert g(1.3, -2.0) == pytest.approx((math.sqrt(2.0) / (2.0 * math.sqrt(1.3)), 0.0),
                                         rel=1e-15)

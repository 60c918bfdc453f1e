"""Forms of ``program_gen``'s grammar that SymPy reads as another value than Python computes in
float, and the jump functions that turn such an ulp into a whole unit or another branch.

Each is a tree of ``program_source`` (nested tuples) built from a given sub-tree and a chooser:

- ``twin(c, e)``: ``e * 1.5 / 1.5``, ``(e + 0.1) - 0.1`` ...: SymPy's ``e``, another float;
- ``cancel(c, n)``: ``n + 1 - n``, ``(n - 0.3) + 0.3 - n`` ...: SymPy's constant, another float
  (a name bound to a constant call, ``a = math.atan2(2, math.exp(math.expm1(-0.5)))``, or not);
- ``identity(c, e)``: ``math.log(math.exp(e))``, ``math.sin(math.asin(e))`` ...: what SymPy
  rewrites to ``e`` (or ``|e|``), another float;
- ``jump(c, e)``: ``math.ceil(e)``, ``round(e)``, ``e // 1`` ...; ``jump_of_cancel(c, n)``: one
  at its jump in SymPy's reading of a cancellation (``math.ceil(n + 1 - n)``);
- ``repeats(c, a, size)``: the arguments of a max/min repeating ``a`` with offsets of it
  (``max(a - a + 0.5, a, 2, a, a, -a - 2)``);
- ``constant_condition(c, names)``: a condition the same on every call (constants, constant
  names, ``a - a + 2``), and ``decide(cond, values)``, its truth as Python decides it.
"""
import math

import mpmath

from program_ref import PrimalError, Run, Skip, Value
from program_source import walk

SCALES = (1.5, 3.0, 0.1, 10.0, 0.7, 1e-3)
SHIFTS = (0.1, 1.0, 0.3, 1.5, 0.7, 2.0, 1)


def twin(c, e):
    """``e`` as SymPy reads it, in a form whose float may differ from ``e``'s."""
    k, s = ("num", c.choice(SHIFTS)), ("num", c.choice(SCALES))
    return c.choice((("bin", "/", ("bin", "*", e, s), s), ("bin", "-", ("bin", "+", e, k), k),
                     ("bin", "+", ("bin", "-", e, k), k), ("bin", "*", ("bin", "/", e, s), s),
                     ("bin", "/", ("bin", "*", s, e), s), ("bin", "-", ("bin", "+", k, e), k)))


def cancel(c, n, shifts=SHIFTS):
    """A constant (SymPy cancels ``n``) computed through ``n``: its float may differ."""
    k = ("num", c.choice(shifts))
    return c.choice((("bin", "-", ("bin", "+", n, k), n), ("bin", "+", ("bin", "-", k, n), n),
                     ("bin", "-", ("bin", "+", k, n), n), ("bin", "-", n, ("bin", "-", n, k)),
                     ("bin", "/", ("bin", "*", n, k), n)))


def identity(c, e):
    """``e`` through a pair of functions SymPy cancels; outside their domain (``math.log(e)`` at
    e <= 0) the primal raises and the point is skipped, so ``e`` is often pushed into it."""
    unit = ("call", "math.tanh", (e,)) if c.chance(0.3) else e
    positive = ("bin", "+", ("call", "abs", (e,)), ("num", 0.5)) if c.chance(0.3) else e
    return c.choice((
        ("call", "math.log", (("call", "math.exp", (e,)),)),
        ("call", "math.log", (("call", "math.exp", (e,)),)),
        ("call", "math.exp", (("call", "math.log", (positive,)),)),
        ("call", "math.sin", (("call", "math.asin", (unit,)),)),
        ("call", "math.tan", (("call", "math.atan", (e,)),)),
        ("call", "math.sinh", (("call", "math.asinh", (e,)),)),
        ("call", "math.tanh", (("call", "math.atanh", (unit,)),)),
        ("call", "math.log2", (("bin", "**", ("num", 2), e),)),
        ("call", "math.log10", (("bin", "**", ("num", 10), e),)),
        ("bin", "**", ("call", "math.sqrt", (positive,)), ("num", 2))))


def jump(c, e):
    """A jump function of ``e`` (its value is a whole number, its derivative 0)."""
    return c.choice((("call", "math.ceil", (e,)), ("call", "math.floor", (e,)),
                     ("call", "round", (e,)), ("bin", "//", e, ("num", 1)),
                     ("call", "math.floor", (("bin", "+", e, ("num", 0.5)),))))


def jump_of_cancel(c, n):
    """``math.ceil(n + 1 - n)``, ``round(n + 0.5 - n)``: a jump function at one of its jumps in
    SymPy's reading, maybe off it in float."""
    name = c.choice(("math.ceil", "math.floor", "round", "//"))
    inner = cancel(c, n, (0.5, 1.5, 2.5) if name == "round" else (1, 1.0, 2.0, 3))
    return ("bin", "//", inner, ("num", 1)) if name == "//" else ("call", name, (inner,))


def repeats(c, a, size):
    """``size`` arguments of a max/min: ``a`` repeated, offsets of it, a cancellation, a
    constant."""
    forms = (a, a, a, ("bin", "+", ("bin", "-", a, a), ("num", c.choice((0.5, 1, 2.0)))),
             ("bin", "-", ("neg", a), ("num", c.choice((2, 0.5, 1.0)))),
             ("num", c.choice((2, 0.5, 0.0, -1))))
    return tuple(c.choice(forms) for _ in range(size))


def constant_condition(c, constants, names=()):
    """A condition Python decides the same way on every call: constant calls and names bound to
    constants (``constants``), ``v - v + 2`` of any name (``names``), compared or tested."""
    def operand():
        r = c.integer(0, 4)
        if constants and (r == 0 or c.chance(0.4)):  # a, math.sin(a), a - a + 2
            a = ("var", c.choice(constants))
            return c.choice((a, a, ("call", "math.sin", (a,)), ("bin", "-", a, ("num", 1))))
        if r == 1 and names:
            v = ("var", c.choice(names))
            return ("bin", "+", ("bin", "-", v, v), ("num", c.choice((2, 0.5, 1.0))))
        if r == 2:
            return ("call", "math.expm1", (("num", c.choice((0, 0.5, 1.0))),))
        if r == 3:
            k = ("num", c.choice((0.5, 2.0, 1)))
            return ("call", c.choice(("math.sin", "math.log", "math.atan", "math.sqrt")), (k,))
        return ("num", c.choice((0, 1, 0.5, 2.0)))

    if c.chance(0.4):
        return ("truth", operand())
    op = c.choice(("<", "<=", ">", ">=", "==", "!="))
    return ("cmp", (op,), (operand(), operand()))


def decide(cond, values):
    """Python's truth of constant condition ``cond``: ``values`` maps constant names to their
    ``program_ref.Value`` (any other name stands for 0.75, which every ``v - v`` cancels);
    None if Python raises deciding it."""
    env = {n[1]: Value(0.75, mpmath.mpf(0.75), True) for n in walk(cond) if n[0] == "var"}
    env.update(values)
    try:
        return Run(("program", (), (), ())).cond(cond, env)
    except (PrimalError, Skip, TypeError, ValueError, ArithmeticError):
        return None


def constant_value(e, values):
    """The ``program_ref.Value`` of constant expression ``e`` (None if Python raises)."""
    try:
        v = Run(("program", (), (), ())).expr(e, dict(values))
    except (PrimalError, Skip, TypeError, ValueError, ArithmeticError):
        return None
    return v if not v.complex and isinstance(v.f, (int, float)) and math.isfinite(v.f) else None

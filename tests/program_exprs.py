"""The expression grammar of ``program_gen``: choosers, scopes, expressions and conditions.

Every function takes a *chooser* ``c`` (``RandomChooser``), a ``Scope`` (what an expression may
use) and a size (about how many nodes); it returns a tree of ``program_source`` (described in
``program_gen``). Function arguments are pushed into their domain (``math.log(abs(e) + 0.5)``)
most of the time and left raw otherwise (the points where the primal raises are then skipped);
``program_floats`` gives the forms SymPy reads as another float.
"""
import random

import program_floats as fl
from symgrad.rules import RULES

PARAM_NAMES = ("x", "y", "u", "t", "z")
FLOATS = (0.5, 1.5, 2.0, 0.0, 1.0, 0.25, 3.0, 0.3, 1e-3, 2.5, 0.75, 4.0)
INTS = (1, 2, 3, 0, 4, 5)
OFFSETS = (1, 1.0, 0.5, 2, 0.4, 1.5, 0.1)
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def _functions():
    """(spelling, domain, arities) for every RULES row callable from source (not numpy, not
    scipy: the generated module imports math only)."""
    table = []
    for rule in RULES:
        spellings = [s for s in rule.python if not s.startswith(("numpy.", "scipy."))]
        if spellings:
            table.append((tuple(spellings), rule.domain, tuple(rule.nargs)))
    return tuple(table)


FUNCTIONS = _functions()


# --- choosers ----------------------------------------------------------------------------------
class RandomChooser:
    """Choices from a ``random.Random``."""

    def __init__(self, seed):
        self.random = random.Random(seed)

    def choice(self, seq):
        return seq[self.random.randrange(len(seq))]

    def integer(self, lo, hi):
        return self.random.randint(lo, hi)

    def chance(self, p):
        return self.random.random() < p

    def real(self, lo, hi):
        return self.random.uniform(lo, hi)


# --- the grammar -------------------------------------------------------------------------------
class Scope:
    """What an expression may use: numeric names, loop indices, helpers (name, arity, tuple?),
    ``consts``, the names bound to a constant (name -> its ``program_ref.Value``), and
    ``patterns``, the forms of ``program_gen.PATTERNS`` the grammar may use; ``folds``, a chooser
    of its own (or None) making some operands one expression: ``e - e``, ``e / e``, ``e < e``,
    ``a if c else a``, what SymPy folds or decides (``fold``)."""

    def __init__(self, names, helpers=(), loop=(), consts=None, patterns=(), folds=None):
        self.names, self.helpers, self.loop = list(names), list(helpers), list(loop)
        self.consts, self.patterns = dict(consts or {}), tuple(patterns)
        self.folds = folds

    def child(self):
        return Scope(self.names, self.helpers, self.loop, self.consts, self.patterns, self.folds)

    def fold(self, a, b):
        """``b``, or ``a`` in its place (15% of the time, with ``folds``): the choices of ``c``
        are drawn all the same, so a program without folds is what it was."""
        return a if self.folds is not None and self.folds.chance(0.15) else b

    def bind(self, name, value=None):
        """``name`` assigned (to the constant ``value``, or to something that may vary)."""
        if name not in self.names:
            self.names.append(name)
        if value is None:
            self.consts.pop(name, None)
        else:
            self.consts[name] = value


def num(c):
    return ("num", c.choice(FLOATS) if c.chance(0.65) else c.choice(INTS))


def leaf(c, sc):
    if sc.loop and c.chance(0.25):
        return ("var", c.choice(sc.loop))
    if c.chance(0.7):
        return ("var", c.choice(sc.names))
    return num(c)


def offset(c, sc):
    """``x + 1``, ``1 - x``, ``1 - x - y``, ``-x - 0.4``, ``x - 1.5``."""
    a, b = ("var", c.choice(sc.names)), ("var", c.choice(sc.names))
    k = ("num", c.choice(OFFSETS))
    return c.choice((("bin", "+", a, k), ("bin", "-", k, a), ("bin", "-", ("bin", "-", k, a), b),
                     ("bin", "-", ("neg", a), k), ("bin", "-", a, k), ("bin", "+", k, a),
                     ("bin", "+", ("bin", "-", a, b), k)))


def push(c, e, domain):
    """``e`` pushed into ``domain`` most of the time (raw otherwise)."""
    if c.chance(0.15) or domain == "real":
        return e
    k = ("num", c.choice((0.5, 1.0, 0.25, 1.5)))
    if domain == "positive":
        if c.chance(0.1):  # a tiny exp: SymPy's exp(-a) or exp(2a) of it would overflow
            return ("call", "math.exp", (("bin", "-", k, ("bin", "*", ("num", 100.0),
                                                           ("bin", "*", e, e))),))
        return c.choice((("bin", "+", ("call", "abs", (e,)), k),
                         ("bin", "+", ("bin", "*", e, e), k), ("call", "math.exp", (e,))))
    if domain == "unit":
        return c.choice((("call", "math.tanh", (e,)),
                         ("bin", "/", e, ("bin", "+", ("num", 1.0), ("call", "abs", (e,)))),
                         ("bin", "*", ("num", 0.5), ("call", "math.sin", (e,)))))
    return ("bin", "+", ("bin", "+", ("num", 1.0), ("bin", "*", e, e)), k)  # ">1"


CONSTANT_ARGS = {"real": (1.0, -0.5, 0.0, 2, 0.5), "positive": (0.5, 2.0, 1, 3, 1.5, 0.0),
                 "unit": (0.5, -0.25, 0.0, 1.0), ">1": (1.5, 2, 3.0, 1)}


def call(c, sc, size, constant=False):
    spellings, domain, arities = c.choice(FUNCTIONS)
    name = c.choice(spellings)
    n = c.choice(arities)
    if constant:
        return ("call", name, tuple(("num", c.choice(CONSTANT_ARGS[domain])) for _ in range(n)))
    if n > 1 and c.chance(0.15):  # the same argument twice: atan2(q, q), pow(x, x), max(a, a)
        a = push(c, expr(c, sc, max(1, size - 1)), domain)
        return ("call", name, (a,) * n)
    if name == "math.log" and n == 2:
        return ("call", name, (push(c, expr(c, sc, size - 1), "positive"),
                               ("num", c.choice((2.0, 10, 0.5)))))
    if name in ("max", "min"):
        return extremum(c, sc, size, name, n)
    each = max(1, (size - 1) // n)
    return ("call", name, tuple(push(c, argument(c, sc, each), domain) for _ in range(n)))


def argument(c, sc, size):
    """A call's argument: often a constant offset or a negated sum (``math.cos(1 - x - y)``)."""
    r = c.integer(0, 9)
    if r <= 2:
        return offset(c, sc)
    if r == 3:
        return ("neg", ("bin", c.choice(("+", "-")), leaf(c, sc), leaf(c, sc)))
    return expr(c, sc, size)


def extremum(c, sc, size, name, n):
    """max/min of n arguments: offsets, constants, sub-expressions and exact repeats (ties)."""
    args = []
    for _ in range(n):
        r = c.integer(0, 9)
        if args and r == 0:
            args.append(c.choice(args))
        elif r <= 3:
            args.append(offset(c, sc))
        elif r == 4:
            args.append(num(c))
        elif r == 5:  # a constant call, maybe offset: max(x, math.log1p(0.5)), -a - 1.0
            k = call(c, sc, 2, constant=True)
            args.append(k if c.chance(0.5) else ("bin", "-", ("neg", k), ("num", 1.0)))
        else:
            args.append(expr(c, sc, max(1, min(3, size // n))))
    return ("call", name, tuple(args))


def expr(c, sc, size):
    """An expression of about ``size`` nodes over the names of ``sc``."""
    if size <= 1:
        return leaf(c, sc)
    kinds = ["leaf", "offset", "offset", "negsum", "arith", "arith", "arith", "pow", "intop",
             "call", "call", "call", "call", "const_call", "extremum", "ifexp", "sg", "identity",
             "stepped", "stepped"]
    kinds += [k for k, p in (("jump_cancel", "constant_jump"), ("sympy_identity",
                                                                 "identity_helper"))
              if p in sc.patterns]
    if "containers" in sc.patterns:
        kinds += ["comp", "index"]
    if sc.helpers:
        kinds += ["hcall", "hcall"]
    kind = c.choice(kinds)
    if kind in ("comp", "index"):
        return container(c, sc, size, kind)
    if kind == "leaf":
        return leaf(c, sc)
    if kind == "jump_cancel":  # math.ceil(a + 1 - a) * x, round((t + 0.1) - 0.1) * t
        if sc.consts and c.chance(0.6):
            step = fl.jump_of_cancel(c, ("var", c.choice(list(sc.consts))))
        else:
            step = fl.jump_of_cancel(c, leaf(c, sc)) if c.chance(0.5) else fl.jump(
                c, fl.twin(c, offset(c, sc)))
        return ("bin", "*", step, leaf(c, sc))
    if kind == "sympy_identity":  # math.log(math.exp(z)), round(-math.log(math.exp(z)) - 0.4)
        e = fl.identity(c, expr(c, sc, size - 2))
        if c.chance(0.4):
            e = ("bin", "*", fl.jump(c, ("bin", "-", ("neg", e), ("num", c.choice(OFFSETS)))),
                 leaf(c, sc))
        return e
    if kind == "offset":
        return offset(c, sc)
    if kind == "identity":  # x * 1.0, 1.0 * x, x / 1, x + 0.0, x - 0
        a, one = expr(c, sc, size - 2), ("num", c.choice((1.0, 1)))
        if c.chance(0.4):  # what SymPy cancels and float does not: (x + 0.1) - 0.1, x + 0.3 - x
            k = ("num", c.choice(OFFSETS + (0.3, 0.7)))
            shifted = ("bin", "+", a, k)
            return c.choice((("bin", "-", shifted, k), ("bin", "+", ("bin", "-", a, k), k),
                             ("bin", "-", shifted, a), ("bin", "/", ("bin", "*", a, k), k),
                             ("bin", "-", ("sg", shifted), shifted)))
        return c.choice((("bin", "*", a, one), ("bin", "*", one, a), ("bin", "/", a, one),
                         ("bin", "+", a, ("num", c.choice((0.0, 0)))), ("bin", "-", a, ("num", 0))))
    if kind == "stepped":  # x * floor(x): a derivative that is an int-valued function
        a = leaf(c, sc)
        step = ("call", c.choice(("math.floor", "math.ceil", "round")), (a if c.chance(0.5) else
                                                                          expr(c, sc, size - 2),))
        if c.chance(0.5):  # scaled by 1.0 (a factor the printer drops)
            a = ("bin", "*", a, ("num", 1.0)) if c.chance(0.5) else ("bin", "*", ("num", 1.0), a)
        return ("bin", "*", a, step) if c.chance(0.5) else ("bin", "*", step, a)
    if kind == "negsum":
        a, b = expr(c, sc, size // 2), expr(c, sc, size // 2)
        return ("neg", ("bin", c.choice(("+", "-")), a, b))
    if kind == "arith":
        op = c.choice(("+", "-", "*", "/", "+", "*"))
        a, b = expr(c, sc, size // 2), expr(c, sc, size - size // 2 - 1)
        return ("bin", op, a, sc.fold(a, b) if op in ("-", "/") else b)
    if kind == "pow":
        base = expr(c, sc, size - 1)
        r = c.integer(0, 6)
        if r == 6:  # a constant base, often negative (math.cos(2), -0.5): complex in Python to a
            return negative_power(c, sc)  # fractional power, real to a whole one
        if r <= 2:
            return ("bin", "**", base, ("num", c.choice((2, 3, -1, 0, 2.0, -2))))
        if r == 3:
            return ("bin", "**", push(c, base, "positive"), ("num", c.choice((0.5, 1.5, 0.3))))
        if r == 4:
            if c.chance(0.3):  # an exponent a branch makes constant: x ** (3.0 if x else y)
                whole = ("num", c.choice((2, 3, 2.0, 3.0)))
                sides = (whole, expr(c, sc, 2)) if c.chance(0.5) else (expr(c, sc, 2), whole)
                return ("bin", "**", base, ("ifexp", cond(c, sc, 2), *sides))
            return ("bin", "**", push(c, base, "positive"), expr(c, sc, 2))
        return ("bin", "**", ("num", c.choice((2, 3, 2.0))), ("num", c.choice((2, 3, -1))))
    if kind == "intop":
        op = c.choice(("//", "%"))
        if c.chance(0.3):
            return ("bin", op, ("num", c.choice((7, 5, -7, 9))), ("num", c.choice((2, 3, -2))))
        left = ("var", c.choice(sc.loop)) if sc.loop and c.chance(0.5) else expr(c, sc, size - 1)
        return ("bin", op, left, ("num", c.choice((2, 1.5, 3, 0.7))))
    if kind == "call":
        return call(c, sc, size)
    if kind == "const_call":
        e = call(c, sc, size, constant=True)
        return e if c.chance(0.4) else ("bin", c.choice(("+", "*", "-")), expr(c, sc, size - 2), e)
    if kind == "extremum":
        return extremum(c, sc, size, c.choice(("max", "min")), c.integer(2, 8))
    if kind == "ifexp":
        third = max(1, size // 3)
        test, a, b = cond(c, sc, third), expr(c, sc, third), expr(c, sc, third)
        return ("ifexp", test, a, sc.fold(a, b))
    if kind == "sg":
        return ("sg", expr(c, sc, size - 1))
    hname, arity, returns_tuple = c.choice(sc.helpers)
    if returns_tuple:
        if "containers" in sc.patterns:  # h0(a, b)[i]
            return ("index", ("hcall", hname, tuple(helper_argument(c, sc, max(1, size // 3))
                                                    for _ in range(arity))), c.integer(-2, 1))
        return expr(c, sc, size)
    return ("hcall", hname, tuple(helper_argument(c, sc, max(1, size // 3))
                                  for _ in range(arity)))


def helper_argument(c, sc, size):
    """An argument of a helper: often a SymPy identity (``h0(math.log(math.exp(z)))``) or a
    constant (``h0(0.25)``: the helper's body is then constant)."""
    r = c.integer(0, 5)
    if r == 0 and "identity_helper" in sc.patterns:
        return fl.identity(c, leaf(c, sc))
    if r == 1:
        return num(c)
    return expr(c, sc, size)


def whole_sometimes(c, sc):
    """An exponent whole for many inputs, constant near them or not: ``math.floor(a) * b``,
    ``-(a - 1.0)``, ``3.0 if c else b``, ``min(a, 1, b)``, ``t // 1``."""
    a, b = leaf(c, sc), leaf(c, sc)
    r = c.integer(0, 4)
    if r == 0:
        return ("bin", "*", ("call", "math.floor", (a,)), b)
    if r == 1:
        return ("neg", ("bin", "-", a, ("num", 1.0)))
    if r == 2:
        return ("ifexp", cond(c, sc, 2), ("num", c.choice((3.0, 2, 0.0))), b)
    if r == 3:
        return ("call", "min", (a, ("num", 1), b))
    return ("bin", "//", a, ("num", 1))


def constant_exponent(c, sc):
    """``3 if <a condition the same on every call> else y``, the whole side taken (when Python
    decides the condition): ``(-4) ** (0.0 if math.log(abs(a - a + 2) + 1.0) != math.expm1(0)
    else x)``, ``math.floor(-0.5) ** (2 if math.sin(a) else u)``."""
    test = fl.constant_condition(c, list(sc.consts), sc.names)
    whole, other = ("num", c.choice((0.0, 2, 3.0, 1, -1))), leaf(c, sc)
    taken = fl.decide(test, sc.consts)
    if taken is None:
        taken = c.chance(0.5)
    return ("ifexp", test, whole, other) if taken else ("ifexp", test, other, whole)


def negative_power(c, sc):
    """A negative constant base (``math.cos(2)``, ``math.floor(-0.5)``, -0.5) to a varying or
    fractional power (Python: real where the exponent is whole, complex elsewhere), maybe under
    ``abs`` (a float), negated, or stopped (docs/conventions.md, "Complex powers")."""
    k = call(c, sc, 2, constant=True) if c.chance(0.5) else c.choice((
        ("num", -0.5), ("num", -4), ("call", "math.floor", (("num", -0.5),)),
        ("call", "math.tanh", (("num", -0.5),))))
    r = c.integer(0, 4)
    if r == 4 and "constant_exponent" not in sc.patterns:
        r = 3
    exponent = ("num", 0.3) if r == 0 else expr(c, sc, 2) if r == 1 else whole_sometimes(c, sc) \
        if r <= 3 else constant_exponent(c, sc)
    power = ("bin", "**", k, exponent)
    r = c.integer(0, 5)
    if r == 0:
        return ("call", "abs", (power,))
    if r == 1:
        return ("neg", power)
    if r == 2:
        return ("sg", power)
    return power


def side_decided(c, sc, other):
    """``(t + 1.0 - 1.0 if True else z)``: a conditional whose constant condition takes the side
    written in a form that SymPy reads as a name and float does not (``other`` the side not
    taken)."""
    test = ("bool", c.chance(0.5)) if c.chance(0.5) else fl.constant_condition(
        c, list(sc.consts), sc.names)
    taken = fl.decide(test, sc.consts)
    a = fl.twin(c, ("var", c.choice(sc.names)))
    return ("ifexp", test, a, other) if taken in (True, None) else ("ifexp", test, other, a)


def side(c, sc, size):
    """One side of a comparison: a name, a constant, an offset or a small expression."""
    r = c.integer(0, 7 if "constant_ifexp" in sc.patterns else 6)
    if r <= 1:
        return offset(c, sc)
    if r == 2:
        return num(c)
    if r == 7:  # (t + 1.0 - 1.0 if True else z) < t: the taken side in its float form
        return side_decided(c, sc, expr(c, sc, size))
    if r == 6:
        return call(c, sc, 2, constant=True)
    if r == 3:
        return ("var", c.choice(sc.names))
    return expr(c, sc, size)


def cond(c, sc, size):
    kind = c.choice(("cmp", "cmp", "cmp", "chain", "truth", "truth", "and", "or", "not",
                     "const_truth", "bool", "constant"))
    if kind == "constant":
        return fl.constant_condition(c, list(sc.consts), sc.names)
    if kind == "cmp":
        op, a, b = c.choice(COMPARISONS), side(c, sc, size), side(c, sc, size)
        return ("cmp", (op,), (a, sc.fold(a, b)))
    if kind == "chain":
        lo, hi = sorted((c.choice((-1.0, 0, 0.5, -0.5)), c.choice((1, 1.5, 2.0, 0.25))))
        op = c.choice(("<", "<="))
        return ("cmp", (op, op), (("num", lo), side(c, sc, size), ("num", hi)))
    if kind == "truth":
        if c.chance(0.6):  # mostly a name assigned in the function (t = 1.0 - y; if t:)
            return ("truth", ("var", c.choice(sc.names[-2:] if c.chance(0.6) else sc.names)))
        return ("truth", expr(c, sc, size))
    if kind == "const_truth":  # math.expm1(1.0); a complex constant: (-4) ** 0.3 is truthy
        if c.chance(0.3):
            k = ("bin", "**", ("num", c.choice((-4, -0.5))), ("num", c.choice((0.3, 0.5))))
            return ("truth", c.choice((k, ("bin", "-", k, k), ("sg", k))))
        return ("truth", call(c, sc, size, constant=True))
    if kind == "bool":
        return ("bool", c.chance(0.5))
    if kind == "not":
        return ("not", cond(c, sc, max(1, size - 1)))
    return (kind, tuple(cond(c, sc, max(1, size // 2)) for _ in range(c.integer(2, 3))))


class Names:
    """Fresh names for assigned variables: a, b, ..., q0 ..."""

    def __init__(self):
        self.count = 0

    def fresh(self):
        self.count += 1
        return "abcdegmnpqrsvw"[self.count - 1] if self.count <= 14 else f"v{self.count}"


def comprehension(c, sc, size, form=None, bounds=None, index=False):
    """``("comp", ...)`` (``program_source.COMPREHENSIONS``): a comprehension or a generator in
    ``sum`` over ``range``, its element an expression of its variable and the names, often in
    a form SymPy reads as another float (``x * k / 7.0``: ``x`` for k = 7). ``index``: False
    for a random one (None for a ``sum``), None for the whole sequence."""
    var = c.choice(("k", "j"))
    if bounds is None:
        bounds = c.choice(((c.integer(1, 3),), (1, c.integer(2, 4)), (0, c.integer(2, 5), 2)))
    inner = sc.child()
    inner.loop = [v for v in sc.loop if v != var] + [var]
    r = c.integer(0, 5)
    if r <= 1:  # leaf * k / K with K the last k: SymPy's leaf, another float in Python
        last = ("num", float(range(*bounds)[-1] or 1))
        elt = ("bin", "/", ("bin", "*", leaf(c, sc), ("var", var)), last)
    elif r == 2:
        elt = fl.twin(c, expr(c, inner, max(1, size - 3)))
    else:
        elt = expr(c, inner, max(2, size - 2))
    form = form or c.choice(("list", "tuple", "sum", "sum_list", "enum"))
    n = len(range(*bounds))
    if form in ("sum", "sum_list"):
        index = None
    elif index is False:
        index = c.integer(-n, n - 1)
    return ("comp", form, elt, var, bounds, index)


def container(c, sc, size, kind):
    """An element read from a built sequence: a comprehension's (or its ``sum``), or an item of
    a tuple display ``(a, b)[i]``."""
    if kind == "comp":
        return comprehension(c, sc, size)
    items = tuple(fl.twin(c, expr(c, sc, max(1, size // 3))) if c.chance(0.3) else
                  expr(c, sc, max(1, size // 3)) for _ in range(c.integer(2, 3)))
    return ("index", ("tuple", items), c.integer(-len(items), len(items) - 1))

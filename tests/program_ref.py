"""The reference for random programs (``program_gen``): the float value and a 50-digit gradient.

Every value is evaluated twice at once (``Value``): ``f``, exactly as the primal computes it in
Python (same operations in the same order on ints and floats), and ``m``, in mpmath at 50 digits.
The gradient is the central difference with step 1e-20 of ``m`` in each parameter; the ``f`` side
is not perturbed, and every decision is taken on it, as the primal takes it, so the reference is
the derivative *of the branch Python takes at the point*, with symgrad's conventions
(docs/conventions.md) where the function has a kink:

- ``if``/``elif``/``else``, ``a if c else b``, truth tests: the branch taken in float (the other is
  never evaluated), also at a tie (``x + 1 > y`` with ``y == x + 1`` in float);
- ``max``/``min``: the float winner; the arguments tied in float share the derivative equally, a
  repeated argument once per occurrence (``m`` is their mean);
- ``abs``: the sign of the float value (derivative 0 at 0); ``round``, ``floor``, ``ceil``, ``//``:
  derivative 0 (``m`` is the float result); ``a % b``: ``a - b*q`` with the float quotient ``q``;
- ``stop_gradient(e)``: held at its value at the unperturbed point;
- a negative constant base to a varying exponent (``(-4) ** y``, docs/conventions.md "Complex
  powers"): ``m`` is mpmath's complex power. Where the result's derivative is complex (the
  exponent moves, the result follows it) there is no real derivative (``ComplexValue``: the
  gradient must raise ``ValueError``); where the result depends on such a power through
  derivative-carrying operations (not a stop_gradient, a jump function, a decision, or ``abs``
  of the bare power, a float ``|c| ** e`` for every e) but the complex parts cancel (a factor 0,
  ``x * (-4) ** y`` at x = 0), ``Evaluation.may_raise``: the derivative of that power is still
  needed, so symgrad's documented ``ValueError`` is right, and so is the real number.

A point is skipped (``Skip``) within ``SINGULAR`` of a singularity (division by 0, ``log``/``sqrt``
at 0, ``asin`` at 1 ...; the derivative is infinite or the float value meaningless there), within
``KINK`` of a jump of ``a % b`` in ``b`` or of ``atan2`` across its cut, or when a value exceeds
``HUGE`` (an int over 10**12 too: ``math.log2(2 ** 240)`` is a float in Python).
"""
import builtins
import math
from dataclasses import dataclass

import mpmath
import numpy

KINK = mpmath.mpf("1e-6")
SINGULAR = mpmath.mpf("1e-3")
HUGE = mpmath.mpf("1e4")
STEP = mpmath.mpf("1e-20")


class Skip(Exception):
    """This point is too close to a kink or singularity to compare derivatives."""


class PrimalError(Exception):
    """The primal raises at this point (or computes a complex number)."""


class ComplexValue(Exception):
    """No real derivative here: the value is computed from a power Python computes as a complex
    number arbitrarily near the point (a negative constant base to an exponent that moves), so
    symgrad's gradient raises ``ValueError`` here (docs/conventions.md, "Complex powers")."""


@dataclass(frozen=True)
class Value:
    """``f``: the Python number the primal computes; ``m``: its mpmath value (an ``mpc`` where
    it is complex: a negative constant base to a varying or fractional power, ``(-0.5) ** u``);
    ``varies``: False when the value cannot depend on the parameters (literals, loop indices,
    stop_gradient); ``complex``: ``f`` is a Python complex number; ``moving``: it depends,
    through operations that carry a derivative, on a power whose ``m`` is not real (the
    exponent of a negative constant base moves: its derivative is needed and has no real
    value); ``power``: it is such a power itself (``abs`` of it is ``|c| ** e``)."""

    f: object
    m: object
    varies: bool
    complex: bool = False
    moving: bool = False
    power: bool = False


def _tidy(m):
    """An ``mpc`` with no imaginary part as the ``mpf`` it is."""
    return m.real if isinstance(m, mpmath.mpc) and m.imag == 0 else m


def _complex_capable(*values):
    return any(v.complex or isinstance(v.m, mpmath.mpc) for v in values)


def _nonreal(m):
    return isinstance(m, mpmath.mpc) and m.imag != 0


def _checked(f, m, varies, moving=False, power=False):
    moving = varies and (moving or _nonreal(m))
    if isinstance(f, complex):
        return Value(f, mpmath.mpc(f) if not varies or m is None else m, varies, True, moving,
                     power)
    if isinstance(f, bool) or not isinstance(f, (int, float)):
        raise PrimalError(f"the primal computes {f!r}")
    if isinstance(f, float) and not math.isfinite(f):
        raise PrimalError(f"the primal computes {f!r}")
    if isinstance(f, int) and abs(f) > 10 ** 12:
        raise Skip("a huge int")  # 2 ** 240: exact in Python, too big to mirror in mpmath
    if not varies:
        m = mpmath.mpf(f)  # a constant is what Python computes (e.g. math.log1p(0.5) in float)
    m = _tidy(m)
    if abs(m) > HUGE:
        raise Skip("huge")
    return Value(f, m, varies, False, moving, power)


def _python(op, *args):
    try:
        return op(*args)
    except (ArithmeticError, ValueError, TypeError) as e:
        raise PrimalError(f"{type(e).__name__}: {e}") from None


def _near(value, target, distance=KINK):
    return abs(value - target) < distance


def _near_integer(m):
    return _near(m, mpmath.nint(m))


BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b, "**": lambda a, b: a ** b, "//": lambda a, b: a // b,
          "%": lambda a, b: a % b}


def _binary(op, a, b):
    f = _python(BINARY[op], a.f, b.f)
    varies = a.varies or b.varies
    if not varies:
        return _checked(f, None, False)
    moving = (a.moving or b.moving) and op != "//"  # // has derivative 0
    power = op == "**" and not a.varies and not a.complex and a.f < 0 and b.varies
    if _complex_capable(a, b) or power:
        # (-4) ** y: real at whole y, complex elsewhere (so is its derivative where y moves)
        if op in ("//", "%"):  # Python raised on a complex operand: real here
            m = mpmath.mpf(f) if op == "//" else a.m - b.m * mpmath.mpf(a.f // b.f)
        else:
            m = mpmath.power(a.m, b.m) if op == "**" else BINARY[op](a.m, b.m)
        return _checked(f, m, True, moving, power)
    if op in "+-*":
        m = BINARY[op](a.m, b.m)
    elif op == "/":
        if b.varies and abs(b.m) < SINGULAR or b.m == 0:  # a constant 0 exactly, a float
            raise Skip("division near 0")  # rounding off it: 0.1 + 0.2 - 0.3 (scalar fuzzer 60)
        m = a.m / b.m
    elif op in ("//", "%"):
        if b.varies and abs(b.m) < SINGULAR or b.m == 0:
            raise Skip("division near 0")
        if op == "//":
            m = mpmath.mpf(f)  # derivative 0 (docs/conventions.md)
        else:
            if b.varies and _near_integer(a.m / b.m):
                raise Skip("jump of % in its divisor")
            m = a.m - b.m * mpmath.mpf(a.f // b.f)
    else:
        m = _power(a, b)
    return _checked(f, m, True, moving)


def _power(a, b):
    if not b.varies and float(b.f).is_integer():
        if b.f < 0 and abs(a.m) < SINGULAR:
            raise Skip("pole of a power")
        return a.m ** int(b.f)
    if a.m <= SINGULAR:  # 0 ** y, or a negative base with a real exponent
        raise Skip("power of a base near 0 or negative")
    return a.m ** b.m


def _unary_m(name, args):
    """The mpmath value of RULES function ``name`` (a spelling's last part) at ``args`` (mpf;
    an ``mpc`` argument, near a complex power, gives an ``mpc`` or a non-real marker)."""
    if any(isinstance(a, mpmath.mpc) for a in args):
        try:
            return _TABLE[name](*args) if name in _TABLE else getattr(mpmath, name)(*args)
        except (TypeError, ValueError, AttributeError):  # no real value near the point: a
            moved = sum(mpmath.im(a) for a in args)  # marker moving with the arguments (its
            return mpmath.mpc(0, 1 + moved)  # difference, the derivative, is not real)
    x = args[0]
    if name in ("sqrt",) and x < SINGULAR:
        raise Skip("sqrt near 0")
    if name in ("log", "log2", "log10") and x < SINGULAR:
        raise Skip("log near 0")
    if name == "log" and len(args) == 2 and (args[1] < SINGULAR or _near(args[1], 1, SINGULAR)):
        raise Skip("log base near 0 or 1")
    if name == "log1p" and x + 1 < SINGULAR:
        raise Skip("log1p near -1")
    if name == "cbrt" and abs(x) < SINGULAR:
        raise Skip("cbrt near 0")
    if name in ("asin", "acos", "atanh") and abs(x) > 1 - SINGULAR:
        raise Skip("near +-1")
    if name == "acosh" and x < 1 + SINGULAR:
        raise Skip("acosh near 1")
    if name == "tan" and abs(mpmath.cos(x)) < SINGULAR:
        raise Skip("tan pole")
    if name == "atan2":
        y, x = args
        if mpmath.hypot(x, y) < SINGULAR or (x < 0 and abs(y) < KINK):
            raise Skip("atan2 at 0 or on its cut")
        return mpmath.atan2(y, x)
    if name == "hypot":
        if mpmath.hypot(*args) < SINGULAR:
            raise Skip("hypot at 0")
        return mpmath.hypot(*args)
    if name in _TABLE:
        return _TABLE[name](*args)
    return getattr(mpmath, name)(*args)  # sin cos tan asin ... erf erfc


_TABLE = {"abs": abs, "fabs": abs, "float": lambda v: v, "exp": mpmath.exp,
          "log": (lambda v, base=None: mpmath.log(v) if base is None else mpmath.log(v, base)),
          "log2": lambda v: mpmath.log(v, 2), "log10": mpmath.log10, "log1p": mpmath.log1p,
          "expm1": mpmath.expm1, "sqrt": mpmath.sqrt, "square": lambda v: v * v,
          "cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v))}  # the real root (NumPy's)


_NUMPY_AS = {"maximum": "max", "fmax": "max", "minimum": "min", "fmin": "min"}
"""NumPy functions of two floats read as Python's (their ties split alike)."""


def _numpy(function):
    def call(*args):
        with numpy.errstate(all="ignore"):
            return float(function(*args))
    return call


class Run:
    """One evaluation of a program; ``frozen`` are the stop_gradient values of the base run."""

    def __init__(self, prog, frozen=None):
        self.prog = prog
        self.helpers = {h[1]: h for h in prog[2]}
        self.frozen = frozen
        self.stopped = []

    def expr(self, e, env):
        tag = e[0]
        if tag == "num":
            return _checked(e[1], None, False)
        if tag == "var":
            if e[1] not in env:
                raise PrimalError(f"NameError: {e[1]}")
            return env[e[1]]
        if tag == "bin":
            return _binary(e[1], self.expr(e[2], env), self.expr(e[3], env))
        if tag == "neg":
            a = self.expr(e[1], env)
            return _checked(-a.f, -a.m, a.varies, a.moving)
        if tag == "sg":
            a = self.expr(e[1], env)
            if self.frozen is None:
                self.stopped.append(a.m)
                m = a.m
            else:
                m = self.frozen[len(self.stopped)]
                self.stopped.append(m)
            return Value(a.f, m, False, a.complex)
        if tag == "ifexp":
            return self.expr(e[2] if self.cond(e[1], env) else e[3], env)
        if tag == "call":
            return self.call(e[1], [self.expr(a, env) for a in e[2]])
        if tag == "hcall":
            return self.helper(self.helpers[e[1]], [self.expr(a, env) for a in e[2]])
        if tag == "tuple":
            return tuple(self.expr(a, env) for a in e[1])
        if tag == "comp":  # its own scope: the variable an int, as a for loop's
            form, elt, var, bounds, index = e[1:]
            items = tuple(self.expr(elt, {**env, var: Value(i, mpmath.mpf(i), False)})
                          for i in range(*bounds))
            if form in ("sum", "sum_list"):
                total = _checked(0, None, False)  # Python's order: ((0 + a) + b) + ...
                for item in items:
                    total = _binary("+", total, item)
                return total
            return items if index is None else items[index]
        if tag == "index":
            items = self.expr(e[1], env)
            if not isinstance(items, tuple):
                raise PrimalError("indexing a number")
            return items[e[2]]
        raise AssertionError(e)

    def call(self, spelling, args):
        module, _, name = spelling.rpartition(".")
        if module == "np":  # NumPy's function of floats (nan, not an error, off its domain)
            function = _numpy(getattr(numpy, name))
            name = _NUMPY_AS.get(name, name)
        else:
            function = getattr(math, name) if module else getattr(builtins, name)
        f = _python(function, *[a.f for a in args])
        varies = any(a.varies for a in args)
        if not varies:
            return _checked(f, None, False)
        moving = any(a.moving for a in args)
        if name in ("abs", "fabs") and args[0].power:
            moving = False  # abs((-0.5) ** e) is 0.5 ** e for every e (docs/conventions.md)
        if name == "pow" and not args[0].varies and not args[0].complex and args[0].f < 0:
            return _checked(f, mpmath.power(args[0].m, args[1].m), True, moving,  # pow(-2, t)
                            power=True)
        if _complex_capable(*args) and name not in ("max", "min", "floor", "ceil", "round",
                                                         "sign"):
            return _checked(f, _unary_m(name, [a.m for a in args]), True,  # abs(complex): real
                            moving)
        if name in ("max", "min"):
            tied = [a for a in args if a.f == f]  # the float winner, or the arguments tied
            return _checked(f, mpmath.fsum(a.m for a in tied) / len(tied), True,  # in float
                            any(a.moving for a in tied))  # share equally
        if name in ("abs", "fabs"):
            x = args[0]
            return _checked(f, mpmath.mpf(0) if x.f == 0 else x.m if x.f > 0 else -x.m, True,
                            moving)
        if name in ("floor", "ceil", "round", "sign"):
            return _checked(f, mpmath.mpf(f), True)  # derivative 0
        if name == "pow":
            return _checked(f, _power(*args), True, moving)
        return _checked(f, _unary_m(name, [a.m for a in args]), True, moving)

    def compare(self, op, a, b):
        return _python({"<": lambda p, q: p < q, "<=": lambda p, q: p <= q,
                        ">": lambda p, q: p > q, ">=": lambda p, q: p >= q,
                        "==": lambda p, q: p == q, "!=": lambda p, q: p != q}[op], a.f, b.f)

    def cond(self, c, env):
        tag = c[0]
        if tag == "cmp":
            ops, trees = c[1], c[2]
            left = self.expr(trees[0], env)
            for op, tree in zip(ops, trees[1:]):
                right = self.expr(tree, env)
                if not self.compare(op, left, right):
                    return False
                left = right
            return True
        if tag == "and":
            return all(self.cond(p, env) for p in c[1])  # short-circuits as Python
        if tag == "or":
            return any(self.cond(p, env) for p in c[1])
        if tag == "not":
            return not self.cond(c[1], env)
        if tag == "truth":
            return self.expr(c[1], env).f != 0
        if tag == "bool":
            return c[1]
        raise AssertionError(c)

    def helper(self, h, args):
        params, defaults = h[2], h[3]
        env = dict(zip(params, args))
        for name, d in zip(params[len(params) - len(defaults):], defaults):
            env.setdefault(name, _checked(d, None, False))
        done, value = self.block(h[4], env)
        assert done, h
        return value

    def block(self, stmts, env):
        """Run statements; (True, value) at a ``return``, else (False, None)."""
        for s in stmts:
            tag = s[0]
            if tag == "assign":
                env[s[1]] = self.expr(s[2], env)
            elif tag == "aug":
                if s[1] not in env:
                    raise PrimalError(f"NameError: {s[1]}")
                env[s[1]] = _binary(s[2], env[s[1]], self.expr(s[3], env))
            elif tag == "unpack":
                _unpack(s[1], self.expr(s[2], env), env)
            elif tag == "return":
                return True, self.expr(s[1], env)
            elif tag == "if":
                done, value = self.block(s[2] if self.cond(s[1], env) else s[3], env)
                if done:
                    return done, value
            elif tag == "for":
                for i in range(*s[2]):
                    env[s[1]] = Value(i, mpmath.mpf(i), False)
                    done, value = self.block(s[3], env)
                    assert not done
            else:
                raise AssertionError(s)
        return False, None

    def program(self, point):
        """The returned Value at ``point`` (a dict name -> (float, mpf))."""
        env = {name: Value(f, m, True) for name, (f, m) in point.items()}
        done, value = self.block(self.prog[3], env)
        if not done or isinstance(value, tuple):
            raise PrimalError("no single value returned")
        return value


@dataclass(frozen=True)
class Evaluation:
    """The reference at one point: the primal's float ``value``, its mpmath value ``m``, the
    gradient (mpf per parameter), and ``may_raise``: the result depends, through operations
    carrying a derivative, on a power of a negative constant base whose exponent moves here
    (its complex parts cancel, as in ``x * (-4) ** y`` at x = 0): the gradient may raise the
    documented ``ValueError`` or return this real gradient (docs/conventions.md, "Complex
    powers": the power's derivative is ValueError where its exponent moves)."""

    value: object
    m: object
    grads: list
    may_raise: bool = False


def reference(prog, point):
    """(primal float value, mpmath value, gradient as mpf per parameter) at ``point`` (numbers);
    ``evaluate`` has the same and ``may_raise``.

    Raises:
        PrimalError, ComplexValue, Skip: as ``evaluate``.
    """
    e = evaluate(prog, point)
    return e.value, e.m, e.grads


def evaluate(prog, point):
    """The ``Evaluation`` at ``point`` (numbers, one per parameter).

    Raises:
        PrimalError: the primal raises (or returns no real number) at ``point``.
        ComplexValue: the value is real here but complex arbitrarily near (a negative constant
            base to an exponent that moves) and the result's derivative follows it: no real
            derivative, the gradient must raise ``ValueError``.
        Skip: the point is within KINK of a kink or SINGULAR of a singularity.
    """
    params = prog[1]
    with mpmath.workdps(50):
        base = {n: (v, mpmath.mpf(v)) for n, v in zip(params, point)}
        run = Run(prog)
        value = run.program(base)
        if value.complex:
            raise PrimalError(f"the primal computes the complex number {value.f!r}")
        grads, moving = [], value.moving
        for name in params:
            sides = []
            for sign in (1, -1):
                shifted = dict(base)
                shifted[name] = (base[name][0], base[name][1] + sign * STEP)
                side = Run(prog, run.stopped).program(shifted)
                moving = moving or side.moving
                sides.append(side.m)
            grad = _tidy((sides[0] - sides[1]) / (2 * STEP))
            if isinstance(grad, mpmath.mpc):
                raise ComplexValue(f"the derivative in {name} is complex ({grad}): the value "
                                   "is a complex power arbitrarily near")
            grads.append(grad)
        m = value.m.real if isinstance(value.m, mpmath.mpc) else value.m
        return Evaluation(value.f, m, grads, moving)


def _unpack(names, values, env):
    """``a, (b, c) = values``: bind each name of the (nested) target to its item."""
    if isinstance(names, str):
        env[names] = values
        return
    if not isinstance(values, tuple) or len(values) != len(names):
        raise PrimalError("unpacking")
    for n, v in zip(names, values):
        _unpack(n, v, env)

"""Plain primal functions covering the language of docs/language.md, with exact answers.

Every function is defined at module level (or returned by a module-level factory, for closures), so
symgrad can read its source. Each ``Case`` names a function, a point and the gradient there, derived
by hand (the derivation is in the comment above each function) and checked with SymPy; expected
values are written as closed forms evaluated in float, never copied from symgrad's output.

Fields of a ``Case``:
  id        pytest id
  func      the primal
  args      the point (the positional arguments the gradient is called with)
  grad      the expected gradient: a float for one wrt (or one parameter), a tuple otherwise
  options   keyword arguments for ``symgrad.grad`` other than ``strategy`` (``wrt`` ...)
  numeric   True when the expected gradient is the derivative of the primal as Python computes it
            (no ``stop_gradient``, differentiable at ``args``): then it is also checked against a
            high-precision central difference. False at kinks and for ``stop_gradient``.
"""
import math
import types
from dataclasses import dataclass, field

import numpy as np

from symgrad import stop_gradient
from symgrad import stop_gradient as sg

# Stand-ins for code written against TensorFlow / JAX: the spelling in the source is what matters.
tf = types.SimpleNamespace(stop_gradient=lambda v: v)
lax = types.SimpleNamespace(stop_gradient=lambda v: v)

SQRT_PI = math.sqrt(math.pi)


@dataclass(frozen=True)
class Case:
    id: str
    func: object
    args: tuple
    grad: object
    options: dict = field(default_factory=dict)
    numeric: bool = True


CASES = []


def case(id, func, args, grad, numeric=True, **options):
    CASES.append(Case(id, func, tuple(args), grad, options, numeric))


# =================================================================================================
# Parameters and literals
# =================================================================================================
# f = x*y + y**2: df/dx = y, df/dy = x + 2y
def with_default(x, y=2.0):
    return x * y + y ** 2


case("default-used", with_default, (1.5,), (2.0, 1.5 + 4.0), wrt=("x", "y"))
case("default-overridden", with_default, (1.5, -1.0), (-1.0, 1.5 - 2.0), wrt=("x", "y"))
# wrt=None leaves a parameter with a default out (a hyperparameter): one float
case("default-left-out", with_default, (1.5,), 2.0)
case("default-left-out-overridden", with_default, (1.5, -1.0), -1.0)
case("default-wrt-y", with_default, (1.5,), 5.5, wrt="y")


# An int default that sets no range() bound stays a parameter (differentiable):
# f = x**k + k*x: df/dx = k x**(k-1) + k, df/dk = x**k ln x + x
def int_default_not_a_bound(x, k=3):
    return x ** k + k * x


case("int-default-parameter", int_default_not_a_bound, (2.0,),
     (3 * 4.0 + 3, 8.0 * math.log(2.0) + 2.0), wrt=("x", "k"))
# left out of wrt=None, so x < 0 is fine (d/dk would need log(x))
case("int-default-left-out", int_default_not_a_bound, (-2.0,), 3 * 4.0 + 3)


# f = 3x^2 + 0.5x - 7 + 0.25/x: df = 6x + 0.5 - 0.25/x^2
def literals(x):
    return 3 * x ** 2 + 0.5 * x - 7 + 2.5e-1 / x


case("int-and-float-literals", literals, (2.0,), 12.0 + 0.5 - 0.0625)
case("int-argument", literals, (2,), 12.0 + 0.5 - 0.0625)


# df = 3x^2 + 2x + 0.5 x^-1/2 + 1.5 x^1/2 + 2^x ln 2 - x^-2
def powers(x):
    return x ** 3 + x ** 2.0 + x ** 0.5 + x ** 1.5 + 2 ** x + x ** -1


case("power-forms", powers, (4.0,), 48.0 + 8.0 + 0.25 + 3.0 + 16.0 * math.log(2.0) - 1.0 / 16.0)


# Conditions known at build time: y = 2(x^3 + x) for x > 0, 2x^3 otherwise; the dead branches would
# divide by zero if they were read.
def constant_conditions(x):
    y = x * x
    if True:
        y = y * x
    else:
        y = y / 0.0
    if False:
        y = y / 0.0
    if x > 0 and True:
        y = y + x
    if not True:
        y = 0.0 * y
    return y * (2.0 if True else 0.0)


case("true-false-positive", constant_conditions, (1.5,), 2.0 * (3.0 * 2.25 + 1.0))
case("true-false-negative", constant_conditions, (-1.0,), 6.0)


# =================================================================================================
# Operators
# =================================================================================================
# f = (x^2 - y^2)/y + x^3 - y: df/dx = 2x/y + 3x^2, df/dy = -x^2/y^2 - 2
def arithmetic(x, y):
    return (x + y) * (x - y) / y + x ** 3 - y


case("arithmetic", arithmetic, (2.0, 4.0), (1.0 + 12.0, -4.0 / 16.0 - 2.0))


# q = floor(x/y) (derivative 0), r = x - y q: f = q*y + r + q*x = x + q*x.
# df/dx = 0 + 1 + q, df/dy = q - q + 0 = 0
def floordiv_mod(x, y):
    q = x // y
    r = x % y
    return q * y + r + q * x


case("floordiv-mod", floordiv_mod, (7.5, 2.0), (4.0, 0.0))
case("floordiv-mod-negative", floordiv_mod, (-7.5, 2.0), (-3.0, 0.0))


# f = x^2 mod y = x^2 - y floor(x^2/y): df/dx = 2x, df/dy = -floor(x^2/y)
def mod_of_square(x, y):
    return (x * x) % y


case("mod-divisor", mod_of_square, (3.0, 4.0), (6.0, -2.0))


# f = -x^2 + x - 2: df = 1 - 2x
def unary(x):
    return -x * +x + -(-x) - (+2)


case("unary-minus-plus", unary, (3.0,), -5.0)


# =================================================================================================
# Comparisons and boolean operators
# =================================================================================================
def chained_window(x):
    if 0 < x < 1:
        return x * x
    return -3 * x


case("chained-inside", chained_window, (0.5,), 1.0)
case("chained-above", chained_window, (2.0,), -3.0)
case("chained-below", chained_window, (-1.0,), -3.0)
case("chained-at-upper-end", chained_window, (1.0,), -3.0, numeric=False)


def comparison_ops(x, y):
    a = x if x <= y else y
    b = x if x >= y else 2 * y
    c = x * y if x == y else x + y
    d = 3 * x if x != 2 * y else 4 * y
    return a + b + c + d


# (1, 3): a = x, b = 2y, c = x + y, d = 3x -> (1 + 0 + 1 + 3, 0 + 2 + 1 + 0)
case("comparisons-apart", comparison_ops, (1.0, 3.0), (5.0, 3.0))
# (2, 2): a = x, b = x, c = xy, d = 3x -> (1 + 1 + y + 3, x)
case("comparisons-equal", comparison_ops, (2.0, 2.0), (7.0, 2.0), numeric=False)
# (4, 2): a = y, b = x, c = x + y, d = 4y -> (0 + 1 + 1 + 0, 1 + 0 + 1 + 4)
case("comparisons-not-equal-false", comparison_ops, (4.0, 2.0), (2.0, 6.0), numeric=False)


def boolean_logic(x, y):
    if x > 0 and y > 0:
        r = x * y
    elif not (x > 0) or y > 5:
        r = x + 2 * y
    else:
        r = x - y
    if x > 10 or y > 10 or x + y > 100:
        r = r * 0.0
    return r


case("and-true", boolean_logic, (2.0, 3.0), (3.0, 2.0))
case("not-or", boolean_logic, (-1.0, 3.0), (1.0, 2.0))
case("and-or-else", boolean_logic, (2.0, -1.0), (1.0, -1.0))
case("or-three-operands", boolean_logic, (12.0, 3.0), (0.0, 0.0))


# =================================================================================================
# Assignment forms
# =================================================================================================
# a = ((x + 0.5) x / 2)^2: da = (x^2 + 0.5x)(2x + 0.5)/2
def augmented(x):
    a = x
    a += 1
    a -= 0.5
    a *= x
    a /= 2
    a **= 2
    return a


case("augmented-assignment", augmented, (1.5,), 3.0 * 3.5 / 2.0)


# a = 3x mod 2 (da = 3), b = floor(x^2) (db = 0): d(a + b x) = 3 + floor(x^2)
def augmented_floor_mod(x):
    a = 3 * x
    a %= 2.0
    b = x * x
    b //= 1.0
    return a + b * x


case("augmented-floordiv-mod", augmented_floor_mod, (1.1,), 4.0)


# a = x - y, b = xy, c = x - y + xy, d = (x - y)xy, e = 2:
# f = 2x - 2y + 2xy + x^2 y - x y^2: df/dx = 2 + 2y + 2xy - y^2, df/dy = -2 + 2x + x^2 - 2xy
def unpack_swap(x, y):
    a, b = x * y, x - y
    a, b = b, a
    (c, d), e = (a + b, a * b), 2.0
    return c * e + d


case("tuple-unpack-swap-nested", unpack_swap, (2.0, 3.0), (2.0 + 6.0 + 12.0 - 9.0,
                                                          -2.0 + 4.0 + 4.0 - 12.0))


# f = x y z^2 + 3y: an inner target as long as the outer tuple took the outer tuple's items
# (b = z: the gradient (0.81, 0.45, 0.45) for (0.63, 0.45, 0.35) at (0.5, 0.7, 0.9), no z^2 term)
def unpack_nested_names(x, y, z):
    (a, b), c = (x, y), z
    p, (q, r) = 3.0, (y, c * c)
    return a * b * r + p * q


case("tuple-unpack-nested-names", unpack_nested_names, (0.5, 0.7, 0.9),
     (0.7 * 0.81, 0.5 * 0.81 + 3.0, 2 * 0.5 * 0.7 * 0.9))


# Python binds late: every lambda reads the comprehension's k when called, its last value 3,
# so f = 3x + 3x + 3x (9, not 1 + 2 + 3 = 6: each iteration had been given a scope of its own);
# with j: f = (x * 2 * 3) + (x * 2 * 3) and j's last value 3.0 -> 12
def late_bound_lambdas(x):
    hs = [lambda u: u * k for k in (1.0, 2.0, 3.0)]
    gs = [lambda u: u * k * j for k in (1.0, 2.0) for j in (x, 3.0)]
    return hs[0](x) + hs[1](x) + hs[2](x) + gs[0](x) + gs[1](x)


case("comprehension-lambdas-bind-late", late_bound_lambdas, (1.5,), 9.0 + 12.0)


# f = (2x + 1)^2 -> df = 4(2x + 1)
def statement_forms(x):
    """A docstring is allowed."""
    y: float = x * 2
    p = q = y + 1
    pass
    return p * q


case("annotated-chained-assignment", statement_forms, (1.0,), 12.0)


# s = sin(2 x0), f = s (y0 + s): df/dx0 = 2 cos(2 x0) (y0 + 2s), df/dy0 = s
def reassign_parameter(x, y):
    x = x * 2
    x = math.sin(x)
    y = y + x
    return x * y


case("reassign-parameter", reassign_parameter, (0.3, 1.2),
     (2.0 * math.cos(0.6) * (1.2 + 2.0 * math.sin(0.6)), math.sin(0.6)))


# (3, 2): x > y, so x = xy, y = 2y; the loop gives x (2y)^3; i is 2 after the loop:
#   f = 8 x y^4 + 4y: (8y^4, 32 x y^3 + 4). (1, 2): f = x y^3 + 2y: (y^3, 3 x y^2 + 2)
def reassign_parameter_in_branch(x, y):
    if x > y:
        x = x * y
        y = y * 2.0
    for i in range(3):
        x *= y
    return x + i * y


case("reassign-parameter-in-branch", reassign_parameter_in_branch, (3.0, 2.0), (128.0, 772.0))
case("reassign-parameter-not-taken", reassign_parameter_in_branch, (1.0, 2.0), (8.0, 14.0))


# Names the generated code might use for itself: u = x^2 + 1, f = sin(u) u + u x:
# df = 2x (u cos u + sin u) + 3x^2 + 1
def name_collisions(x):
    dname_collisions_dx = x * x
    _t0 = dname_collisions_dx + 1
    _t1 = math.sin(_t0)
    return _t1 * _t0 + _t0 * x


case("generated-names-in-source", name_collisions, (0.5,),
     1.25 * math.cos(1.25) + math.sin(1.25) + 0.75 + 1.0)


# A local named like a builtin the generated code calls: m = xy,
# f = x^2 y + |x - 3| + 0 + xy: df/dx = 2xy + sign(x - 3) + y, df/dy = x^2 + x
def local_shadows_builtin(x, y):
    max = x * y  # noqa: A001 - the point of the case
    return max * x + abs(x - 3.0) + min(x, y) * 0.0 + math.exp(0.0) * max


case("local-shadows-builtin", local_shadows_builtin, (2.0, 5.0), (20.0 - 1.0 + 5.0, 4.0 + 2.0))


# =================================================================================================
# Branches
# =================================================================================================
def three_pieces(x):
    if x < -1:
        y = -x
    elif x < 1:
        y = x ** 2
    else:
        y = 2 * x - 1
    return y


case("elif-first", three_pieces, (-2.0,), -1.0)
case("elif-middle", three_pieces, (0.5,), 1.0)
case("elif-else", three_pieces, (3.0,), 2.0)
case("elif-at-kink", three_pieces, (-1.0,), -2.0, numeric=False)   # the elif is taken at -1
case("elif-at-smooth-join", three_pieces, (1.0,), 2.0)  # x^2 and 2x - 1 meet with slope 2


# (1, 2): 2xy + x; (1, -2): 2(x - y) + x; (-1, 2): y^2 + x; (-1, -3): x + x
def nested_ifs(x, y):
    if x > 0:
        if y > 0:
            z = x * y
        else:
            z = x - y
        z = z * 2
    else:
        if y > x:
            z = y * y
        else:
            z = x
    return z + x


case("nested-if-pp", nested_ifs, (1.0, 2.0), (5.0, 2.0))
case("nested-if-pn", nested_ifs, (1.0, -2.0), (3.0, -2.0))
case("nested-if-np", nested_ifs, (-1.0, 2.0), (1.0, 4.0))
case("nested-if-nn", nested_ifs, (-1.0, -3.0), (2.0, 0.0))


def early_return(x):
    if x > 0:
        return x ** 3
    else:
        return -2 * x


case("if-returns-then", early_return, (2.0,), 12.0)
case("if-returns-else", early_return, (-1.0,), -2.0)


# x < 0: y^2; else z = xy, z > 10: z, else z^2 (d = (2zy, 2zx))
def guard_clause(x, y):
    if x < 0:
        return y * y
    z = x * y
    if z > 10:
        return z
    return z * z


case("guard-return", guard_clause, (-1.0, 3.0), (0.0, 6.0))
case("guard-second-return", guard_clause, (2.0, 6.0), (6.0, 2.0))
case("guard-fall-through", guard_clause, (1.0, 2.0), (8.0, 4.0))


def mixed_returns(x):
    if x > 2:
        return x * x
    elif x > 0:
        y = 3 * x
    else:
        y = -x
    return y + 1


case("mixed-returns-return", mixed_returns, (3.0,), 6.0)
case("mixed-returns-elif", mixed_returns, (1.0,), 3.0)
case("mixed-returns-else", mixed_returns, (-1.0,), -1.0)


def conditional_expression(x):
    y = x * x if x > 1 else 3 * x
    return (y if y < 5 else 5.0) + (math.exp(x) if x < 0 else x)


case("ifexp-low", conditional_expression, (0.5,), 3.0 + 1.0)
case("ifexp-square", conditional_expression, (2.0,), 4.0 + 1.0)
case("ifexp-clipped", conditional_expression, (3.0,), 0.0 + 1.0)
case("ifexp-negative", conditional_expression, (-1.0,), 3.0 + math.exp(-1.0))


# =================================================================================================
# Loops
# =================================================================================================
N_TERMS = 4
COEFFS = (0.5, -1.0, 2.0, 3.0)
KNOTS = ((1.0, 2.0), (3.0, -0.5), (0.25, 4))


# p = x(x + 1)(x + 2) = x^3 + 3x^2 + 2x: dp = 3x^2 + 6x + 2
def loop_one_argument(x):
    p = 1.0
    for i in range(3):
        p = p * (x + i)
    return p


case("range-one-argument", loop_one_argument, (1.5,), 6.75 + 9.0 + 2.0)


# s = x^2/2 + x^3/3 + x^4/4: ds = x + x^2 + x^3; the empty range(3, 3) does nothing
def loop_two_arguments(x):
    s = 0.0
    for k in range(2, 5):
        s += x ** k / k
    for k in range(3, 3):
        s = s * 100.0
    return s


case("range-two-arguments", loop_two_arguments, (2.0,), 14.0)


# k = 10, 7, 4, 1: ds = sum k cos(kx)
def loop_three_arguments(x):
    s = 0.0
    for k in range(10, 0, -3):
        s = s + math.sin(k * x)
    return s


case("range-three-arguments", loop_three_arguments, (0.2,),
     10 * math.cos(2.0) + 7 * math.cos(1.4) + 4 * math.cos(0.8) + math.cos(0.2))


# s = x + x^2/2 + x^3/6 + x^4/24: ds = 1 + x + x^2/2 + x^3/6
def loop_module_constant(x):
    s = 0.0
    term = 1.0
    for n in range(1, N_TERMS + 1):
        term = term * x / n
        s = s + term
    return s


case("range-module-constant", loop_module_constant, (0.5,), 79.0 / 48.0)


def make_scaled_sum(n, scale):
    def scaled_sum(x):
        s = 0.0
        for i in range(n):
            s = s + scale * x ** (i + 1)
        return s
    return scaled_sum


# s = 0.5 (x + x^2 + x^3): ds = 0.5 (1 + 2x + 3x^2)
closure_loop = make_scaled_sum(3, 0.5)
case("range-closure-variable", closure_loop, (2.0,), 8.5)


# n is fixed at build time (default 3): s = 1 + 2x + 3x^2, ds = 2 + 6x
def loop_parameter_default(x, n=3):
    s = 0.0
    for i in range(n):
        s = s + (i + 1) * x ** i
    return s


case("range-parameter-default", loop_parameter_default, (2.0,), 14.0)
case("range-parameter-default-passed", loop_parameter_default, (2.0, 3), 14.0)


# start and stop are fixed at build time: s = (x + x^2) y, ds/dx = (1 + 2x) y, ds/dy = x + x^2
def range_from_defaults(x, y, start=1, stop=3):
    s = 0.0
    for i in range(start, stop):
        s = s + x ** i * y
    return s


case("range-two-parameter-defaults", range_from_defaults, (2.0, 3.0), (15.0, 6.0))


# pairs i <= j < 3: s = 1 + y + y^2 + xy + xy^2 + x^2 y^2
# ds/dx = y + y^2 + 2xy^2, ds/dy = 1 + 2y + x + 2xy + 2x^2 y
def nested_loops(x, y):
    s = 0.0
    for i in range(3):
        for j in range(i, 3):
            s = s + x ** i * y ** j
    return s


case("nested-loops", nested_loops, (2.0, 3.0), (48.0, 45.0))


# At x = 1.2 the path is: x^2 = 1.44 (<= 2, so * 1.5), 1.5 x^2 + 1 = 3.16 (> 2, so / 2):
# s = (1.5 x^2 + 1)/2 and ds = 1.5 x. The second test depends on the first branch's result.
def loop_with_branches(x):
    s = x
    for i in range(2):
        if i % 2 == 0:
            s = s * x
        else:
            s = s + i
        if s > 2.0:
            s = s / 2.0
        else:
            s = s * 1.5
    return s


case("loop-with-branches", loop_with_branches, (1.2,), 1.5 * 1.2)


# At x = 2.5: x > 0, 1, 2 multiply by x, x > 3 fails: s = x^3 + 3x, ds = 3x^2 + 3
def loop_branch_on_parameter(x):
    s = 1.0
    for i in range(4):
        if x > i:
            s = s * x
        else:
            s = s + i * x
    return s


case("loop-branch-on-parameter", loop_branch_on_parameter, (2.5,), 3.0 * 6.25 + 3.0)


# x > 0: y = x^3 + x^2 + x + 1; x <= 0: y = (1 - x)^2
def branch_with_loops(x):
    y = 1.0
    if x > 0:
        for i in range(3):
            y = y * x + 1
    else:
        for i in range(2):
            y = y - x * y
    return y


case("branch-with-loops-then", branch_with_loops, (2.0,), 17.0)
case("branch-with-loops-else", branch_with_loops, (-1.0,), -4.0)


# Horner: p = 0.5x^3 - x^2 + 2x + 3, dp = 1.5x^2 - 2x + 2
def horner(x):
    s = 0.0
    for c in COEFFS:
        s = s * x + c
    return s


case("loop-over-module-tuple", horner, (2.0,), 4.0)


# ds = 2 sum w (x - c) = 8.5x - 3
def weighted_squares(x):
    s = 0.0
    for w, c in KNOTS:
        s += w * (x - c) ** 2
    return s


case("loop-over-tuple-of-pairs", weighted_squares, (1.0,), 5.5)


# s = x^2 + y^2 + x^2 y^2
def loop_over_tuple_expression(x, y):
    s = 0.0
    for v in (x, y, x * y):
        s = s + v * v
    return s


case("loop-over-tuple-expression", loop_over_tuple_expression, (1.0, 2.0), (10.0, 8.0))


# s = 0.5 - x + 2x^2 + 3x^3: ds = -1 + 4x + 9x^2
def indexed_loop(x):
    s = 0.0
    for i in range(len(COEFFS)):
        s = s + COEFFS[i] * x ** i
    return s


case("loop-len-and-index", indexed_loop, (2.0,), 43.0)


# =================================================================================================
# Calls: math, numpy, builtins
# =================================================================================================
def math_functions(x):
    return (math.sin(x) * math.cos(x) + math.exp(-x) + math.log(x) + math.sqrt(x)
            + math.tan(x) + math.tanh(x) + math.atan(x))


case("math-elementary", math_functions, (0.7,),
     math.cos(1.4) - math.exp(-0.7) + 1 / 0.7 + 0.5 / math.sqrt(0.7) + 1 / math.cos(0.7) ** 2
     + 1 / math.cosh(0.7) ** 2 + 1 / 1.49)


def math_inverse_trig(x):
    return math.asin(x) + math.acos(x) * x + math.atanh(x) + math.asinh(x)


case("math-inverse", math_inverse_trig, (0.3,),
     1 / math.sqrt(0.91) - 0.3 / math.sqrt(0.91) + math.acos(0.3) + 1 / 0.91 + 1 / math.sqrt(1.09))


def math_logs(x):
    return math.log2(x) + math.log10(x) + math.log(x, 3.0) + math.log1p(x) + math.expm1(x)


case("math-logs", math_logs, (1.5,),
     1 / (1.5 * math.log(2)) + 1 / (1.5 * math.log(10)) + 1 / (1.5 * math.log(3)) + 1 / 2.5
     + math.exp(1.5))


# d(sinh cosh) = cosh 2x; d acosh(1 + x^2) = 2x / sqrt((1 + x^2)^2 - 1) = 2 / sqrt(x^2 + 2) (x > 0);
# d erf(x) = 2/sqrt(pi) e^-x^2; d erfc(2x) = -4/sqrt(pi) e^-4x^2
def math_hyperbolic_special(x):
    return math.sinh(x) * math.cosh(x) + math.acosh(1 + x * x) + math.erf(x) + math.erfc(2 * x)


case("math-hyperbolic-erf", math_hyperbolic_special, (0.5,),
     math.cosh(1.0) + 2 / math.sqrt(2.25) + 2 / SQRT_PI * math.exp(-0.25)
     - 4 / SQRT_PI * math.exp(-1.0))


# at (3, 4), r = 5: atan2 (-y/r^2, x/r^2), hypot (x/r, y/r), pow (y x^(y-1), x^y ln x),
# fabs(x - y) with x - y < 0 (-1, 1), pi x (pi, 0)
def math_two_arguments(x, y):
    return (math.atan2(y, x) + math.hypot(x, y) + math.pow(x, y) + math.fabs(x - y)
            + math.pi * x + math.e)


case("math-two-arguments", math_two_arguments, (3.0, 4.0),
     (-0.16 + 0.6 + 108.0 - 1.0 + math.pi, 0.12 + 0.8 + 81.0 * math.log(3.0) + 1.0))


# floor and ceil have derivative 0: d = floor(x) + 1
def floor_ceil(x):
    return math.floor(x) * x + math.ceil(2 * x) + x


case("math-floor-ceil", floor_ceil, (2.3,), 3.0)


def numpy_scalar_functions(x):
    return (np.exp(x) * np.sin(x) + np.log(x) + np.sqrt(x) + np.tanh(x) + np.arctan(x)
            + np.cos(x))


case("numpy-elementary", numpy_scalar_functions, (0.9,),
     math.exp(0.9) * (math.sin(0.9) + math.cos(0.9)) + 1 / 0.9 + 0.5 / math.sqrt(0.9)
     + 1 / math.cosh(0.9) ** 2 + 1 / 1.81 - math.sin(0.9))


# at (2, -1), r^2 = 5: square 2x, power 3x^2, abs(y) (0, -1), maximum picks x, hypot (x/r, y/r),
# arctan2(y, x) (-y/r^2, x/r^2)
def numpy_more(x, y):
    return (np.square(x) + np.power(x, 3) + np.abs(y) + np.maximum(x, y) + np.hypot(x, y)
            + np.arctan2(y, x))


case("numpy-more", numpy_more, (2.0, -1.0),
     (4.0 + 12.0 + 1.0 + 2 / math.sqrt(5.0) + 0.2, -1.0 - 1 / math.sqrt(5.0) + 0.4))


# at (3, 1): abs(x - y) (1, -1); min(x, y) max(x, 2y) = y x (y, x); pow(x, 2) (2x, 0);
# round(x) y (0, round(x)); float(x) (1, 0)
def builtins_smooth(x, y):
    return abs(x - y) + min(x, y) * max(x, 2 * y) + pow(x, 2) + round(x) * y + float(x)


case("builtins", builtins_smooth, (3.0, 1.0), (1.0 + 1.0 + 6.0 + 0.0 + 1.0,
                                               -1.0 + 3.0 + 0.0 + 3.0 + 0.0))


def max3(x, y, z):
    return max(x, y, z) + min(x, 2 * y, z)


case("max3-min3", max3, (1.0, 2.0, 3.0), (1.0, 0.0, 1.0))            # max = z, min = x
case("max3-min3-other", max3, (3.0, 2.0, 1.0), (1.0, 0.0, 1.0))      # max = x, min = z
case("max3-three-way-tie", max3, (1.0, 1.0, 1.0),                    # 1/3 each; min: x, z tie
     (1 / 3 + 1 / 2, 1 / 3, 1 / 3 + 1 / 2), numeric=False)


# a lambda written in a file is a plain function whose source is available
square_plus_one = lambda x: x * x + 1.0  # noqa: E731


case("lambda-in-file", square_plus_one, (1.25,), 2.5)


# =================================================================================================
# Inlined helpers
# =================================================================================================
def _affine(u, scale=2.0, shift=0.5):
    return scale * u + shift


# (2x + 0.5)(2x - 1) + (3x^2 + 0.5) + (0.5x + 1): d = 14x - 0.5
def helper_keywords_defaults(x):
    return _affine(x) * _affine(x, shift=-1.0) + _affine(u=x * x, scale=3.0) + _affine(x, 0.5, 1.0)


case("helper-keywords-defaults", helper_keywords_defaults, (1.5,), 20.5)


def _sq(u):
    return u * u


def _norm2(u, v):
    return math.sqrt(_sq(u) + _sq(v))


# f = r x^2, r = sqrt(x^2 + y^2): df/dx = x^3/r + 2xr, df/dy = y x^2 / r
def helper_calls_helper(x, y):
    return _norm2(x, y) * _sq(x)


case("helper-calls-helper", helper_calls_helper, (3.0, 4.0), (27.0 / 5.0 + 30.0, 36.0 / 5.0))


def _leaky(u, slope=0.1):
    if u > 0:
        return u
    return slope * u


# x = 3: x + (x - 2)x -> 1 + 2x - 2; x = 1: x + 0.5(x - 2)x -> 1 + (x - 1); x = -1: 0.1 + (x - 1)
def helper_with_branches(x):
    return _leaky(x) + _leaky(x - 2, slope=0.5) * x


case("helper-branches-both-positive", helper_with_branches, (3.0,), 5.0)
case("helper-branches-mixed", helper_with_branches, (1.0,), 1.0)
case("helper-branches-both-negative", helper_with_branches, (-1.0,), -1.9)


def _step(s, x):
    return s * x + math.sin(s)


# s_{k+1} = s_k x + sin(s_k), s_0 = 0.5: ds_{k+1} = s_k + (x + cos s_k) ds_k, ds_0 = 0
def helper_in_loop(x):
    s = 0.5
    for i in range(3):
        s = _step(s, x)
    return s


def _helper_in_loop_by_hand(x):
    s, ds = 0.5, 0.0
    for _ in range(3):
        s, ds = s * x + math.sin(s), s + (x + math.cos(s)) * ds
    return ds


case("helper-in-loop", helper_in_loop, (0.8,), _helper_in_loop_by_hand(0.8))


def _polar(r, t):
    return r * math.cos(t), r * math.sin(t)


# a b + a = r^2 sin(2t)/2 + r cos t: d/dr = r sin 2t + cos t, d/dt = r^2 cos 2t - r sin t
def helper_returns_tuple(r, t):
    a, b = _polar(r, t)
    return a * b + a


case("helper-returns-tuple", helper_returns_tuple, (2.0, 0.3),
     (2.0 * math.sin(0.6) + math.cos(0.3), 4.0 * math.cos(0.6) - 2.0 * math.sin(0.3)))


def _smoothstep(u):
    t = u * u
    return t * (3.0 - 2.0 * u)


# The helper's local `t` must not clash with the primal's `t` (t = x + 1 here).
# s(u) = 3u^2 - 2u^3, s' = 6u - 6u^2: df = s'(x) + s'(t) t + s(t) = 1.5 - 6.75 + 0 at x = 0.5
def helper_locals_shadow(x):
    t = x + 1.0
    return _smoothstep(x) + _smoothstep(t) * t


case("helper-locals-shadow", helper_locals_shadow, (0.5,), -5.25)


def make_composed(inner):
    def composed(x):
        return inner(x) * x
    return composed


# a helper reached through a closure: x^2 * x, d = 3x^2
composed_square = make_composed(_sq)
case("closure-helper", composed_square, (2.0,), 12.0)


# =================================================================================================
# Module and closure constants
# =================================================================================================
GAIN = 2.5
OFFSETS = (1.0, -2.0)


# d = 2 GAIN x + OFFSETS[1] = 5x - 2
def module_constants(x):
    return GAIN * x ** 2 + OFFSETS[1] * x + math.pi


case("module-constants", module_constants, (1.2,), 4.0)


def make_polynomial(a, b):
    def polynomial(x):
        return a * x ** 2 + b * x
    return polynomial


closure_constants = make_polynomial(3.0, -4.0)
case("closure-constants", closure_constants, (2.0,), 8.0)


# =================================================================================================
# stop_gradient in every position
# =================================================================================================
# x > 0: x sg(x) -> sg(x) = x; else sg(x^2) + x -> 1
def stop_in_branch(x):
    if x > 0:
        y = x * stop_gradient(x)
    else:
        y = stop_gradient(x * x) + x
    return y


case("stop-in-branch-then", stop_in_branch, (3.0,), 3.0, numeric=False)
case("stop-in-branch-else", stop_in_branch, (-2.0,), 1.0, numeric=False)


# s_{k+1} = s_k x + sg(s_k): ds_{k+1} = ds_k x + s_k. At 2: s = 2, 6, 18; ds = 1, 4, 14, 46
def stop_in_loop(x):
    s = x
    for i in range(3):
        s = s * x + stop_gradient(s)
    return s


case("stop-in-loop", stop_in_loop, (2.0,), 46.0, numeric=False)


def _stopped_scale(u):
    return u * stop_gradient(u * u)


# u sg(u^2) differentiates to sg(u^2) du: x^2 + 2 (2x)^2 = 9x^2
def stop_in_helper(x):
    return _stopped_scale(x) + _stopped_scale(2 * x)


case("stop-in-helper", stop_in_helper, (1.5,), 20.25, numeric=False)


# f = exp(sg(xy) + x) sg(sin(sg(x) + y)) + y sg(x)^2: df/dx = exp(xy + x) sin(x + y), df/dy = x^2
def stop_nested(x, y):
    return (math.exp(stop_gradient(x * y) + x) * stop_gradient(math.sin(stop_gradient(x) + y))
            + y * stop_gradient(x) ** 2)


case("stop-nested", stop_nested, (0.5, 1.0), (math.exp(1.0) * math.sin(1.5), 0.25), numeric=False)


# x sg(x) + sg(x) x + sg(x^2): d = 2x
def stop_spellings(x):
    return x * sg(x) + tf.stop_gradient(x) * x + lax.stop_gradient(x * x)


case("stop-spellings", stop_spellings, (3.0,), 6.0, numeric=False)


# =================================================================================================
# Combinations
# =================================================================================================
# At (2, 0.4), n = 2: i = 1: a > b, total = a1 - b1 (> 0, max inactive);
# i = 2: a2 < b2, total = a1 - b1 - a2 b2 (< 0, so the GAIN term is 0 x).
# f = x (cos y - sin y) - x^2 sin(4y)/2:
# df/dx = cos y - sin y - x sin 4y, df/dy = -x (sin y + cos y) - 2 x^2 cos 4y
def kitchen_sink(x, y, n=2):
    total = 0.0
    for i in range(1, n + 1):
        a, b = _polar(x, y * i)
        if a > b:
            total += _leaky(a - b) * i
        else:
            total -= a * b
        total = max(total, -1.0) if i < n else total
    return total + (GAIN if total > 0 else 0.0) * x


case("kitchen-sink", kitchen_sink, (2.0, 0.4),
     (math.cos(0.4) - math.sin(0.4) - 2.0 * math.sin(1.6),
      -2.0 * (math.sin(0.4) + math.cos(0.4)) - 8.0 * math.cos(1.6)))


# The same with the second factor's first term stopped: total = a1 - b1 - sg(a2) b2,
# df/dx = cos y - sin y - x cos 2y sin 2y, df/dy = -x (sin y + cos y) - 2 x^2 cos^2 2y
def kitchen_sink_stopped(x, y, n=2):
    total = 0.0
    for i in range(1, n + 1):
        a, b = _polar(x, y * i)
        if a > b:
            total += _leaky(a - b) * i
        else:
            total -= stop_gradient(a) * b
        total = max(total, -1.0) if i < n else total
    return total + (GAIN if total > 0 else 0.0) * x


case("kitchen-sink-stopped", kitchen_sink_stopped, (2.0, 0.4),
     (math.cos(0.4) - math.sin(0.4) - 2.0 * math.cos(0.8) * math.sin(0.8),
      -2.0 * (math.sin(0.4) + math.cos(0.4)) - 8.0 * math.cos(0.8) ** 2), numeric=False)


# =================================================================================================
# Conventions at kinks (docs/conventions.md)
# =================================================================================================
def absolute(x):
    return abs(x)


def abs_of_expression(x):
    return abs(x * x - 1.0)


def larger(x, y):
    return max(x, y)


def larger_swapped(x, y):
    return max(y, x)


def smaller(x, y):
    return min(x, y)


def hinge(x):
    return max(0.0, 1.0 - x)


def guarded_sqrt(x):
    return math.sqrt(x) if x > 0 else 0.0


def guarded_sqrt_statement(x):
    if x > 0:
        return math.sqrt(x)
    return 0.0


def square(x):
    return x ** 2


def powers_at_zero(x):
    return x ** 3 + x ** 2.0 + x ** 1.5 + pow(x, 2)


def rounded(x):
    return round(x) * 1.0 + math.floor(x)


case("abs-at-zero", absolute, (0.0,), 0.0, numeric=False)
case("abs-negative", absolute, (-2.0,), -1.0)
case("abs-expression-at-zero", abs_of_expression, (1.0,), 0.0, numeric=False)
case("abs-expression-positive", abs_of_expression, (2.0,), 4.0)
case("max-tie", larger, (1.0, 1.0), (0.5, 0.5), numeric=False)
case("max-tie-swapped", larger_swapped, (1.0, 1.0), (0.5, 0.5), numeric=False)
case("max-strict", larger, (1.0, 2.0), (0.0, 1.0))
case("min-tie", smaller, (-1.5, -1.5), (0.5, 0.5), numeric=False)
case("min-strict", smaller, (1.0, 2.0), (1.0, 0.0))
case("hinge-at-kink", hinge, (1.0,), -0.5, numeric=False)
case("hinge-active", hinge, (0.25,), -1.0)
case("guarded-sqrt-at-zero", guarded_sqrt, (0.0,), 0.0, numeric=False)
case("guarded-sqrt-positive", guarded_sqrt, (4.0,), 0.25)
case("guarded-sqrt-statement-at-zero", guarded_sqrt_statement, (0.0,), 0.0, numeric=False)
case("square-at-zero", square, (0.0,), 0.0)
case("powers-at-zero", powers_at_zero, (0.0,), 0.0, numeric=False)  # x^1.5 is one-sided at 0
case("round-at-half", rounded, (2.5,), 0.0, numeric=False)
case("round-floor-at-integer", rounded, (3.0,), 0.0, numeric=False)


# =================================================================================================
# wrt selections over catalogue functions
# =================================================================================================
case("wrt-one-name", nested_loops, (2.0, 3.0), 45.0, wrt="y")
case("wrt-index-and-name", nested_loops, (2.0, 3.0), (45.0, 48.0), wrt=(1, "x"))
case("wrt-one-of-three", max3, (1.0, 2.0, 3.0), 1.0, wrt=2)

CASE_IDS = [c.id for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS), "case ids must be unique"

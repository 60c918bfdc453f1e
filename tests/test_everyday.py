"""Everyday Python: nested helpers, keyword-only parameters, sum/zip/enumerate/reversed and
comprehensions of build-time length, ``assert`` and conditional ``raise`` kept in the generated code,
``print`` and logging left out; each alone and in combination, through every member of the family,
both strategies and both backends.

Every expected value is derived by hand in the comment next to it, and ``_fd`` cross-checks it
against a central finite difference of the primal.
"""
import inspect
import logging
import math

import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient

COEFFS = (1.0, -2.0, 0.5)
POWERS = (1, 2, 3)
DEBUG = False
logger = logging.getLogger(__name__)
STRATEGIES = ("symbolic", "reverse")
BACKENDS = ("math", "numpy")


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def _sq(u):
    return u * u


def _scaled_helper(u, *, s=2.0):
    return s * u


def _apply(f, u):
    return f(u)


def _always_fails(u):
    raise ValueError("always")


def _check_positive(u):
    if u <= 0.0:
        raise ValueError("u must be positive")


# --- nested helpers ------------------------------------------------------------------------
def with_nested_helper(x):
    def square(u):
        return u * u
    return square(x) + square(2.0 * x)  # 5 x^2 -> 10 x


def closure_reads_current_value(x):
    k = 1.0

    def f(u):
        return u * k
    a = f(x)  # x
    k = 3.0
    return a + f(x)  # x + 3x -> 4


def nested_shadows_global(x):
    def _sq(u):
        return 3.0 * u
    return _sq(x)  # 3x -> 3 (not the module's u*u)


def nested_calls_nested(x):
    def g(u):
        return 2.0 * h(u)  # h is defined by the time g is called

    def h(u):
        return u * u
    return g(x)  # 2 x^2 -> 4x


def lambda_helper(x):
    cube = lambda u: u * u * u  # noqa: E731
    return cube(x)  # x^3 -> 3 x^2


def nested_default_from_outer(x):
    k = 2.0

    def f(u, c=k):  # the default is evaluated here: 2.0
        return c * u
    k = 5.0
    return f(x) + k * x  # 2x + 5x -> 7


def nested_in_loop(x):
    total = 0.0
    for i in range(3):
        def f(u):
            return u * i
        total += f(x)  # 0 + x + 2x -> 3
    return total


def nested_in_branch_not_taken(x):
    def positive_log(u):
        assert u > 0.0, "log of a non-positive number"
        y = math.log(u)  # an assignment inside the helper: computed on this side only
        return y
    return positive_log(x) if x > -1.0 else -x  # at x <= -1: -1, nothing of the other side runs


def nested_passed_to_module_helper(x):
    k = 2.0

    def f(u):
        return k * u
    return _apply(f, x) + _apply(lambda u: u * u, x)  # 2x + x^2 -> 2 + 2x


def closure_passed_in_a_branch(x):
    k = 1.0

    def g(u):
        return k * u
    if x > 0.0:
        k = 2.0
        y = _apply(g, x)  # g sees this branch's k = 2.0: 2x -> 2
    else:
        y = x  # -> 1
    return y


def _make_square_scaler(c):
    def g(u):
        return c * u * u
    return g


def closure_returned_by_a_helper(x):
    return _make_square_scaler(3.0)(x)  # 3 x^2 -> 6x


def nested_keyword_only(x):
    def f(u, *, s=2.0):
        return s * u
    return f(x, s=3.0) + f(x)  # 5x -> 5


def helper_called_as_statement(x):
    _check_positive(x)
    return math.sqrt(x)  # 1 / (2 sqrt(x))


# --- keyword-only parameters ---------------------------------------------------------------
def scaled(x, *, scale=2.0):
    return scale * x * x  # d/dx = 2 scale x, d/dscale = x^2


def keyword_helper_calls(x):
    return _scaled_helper(x, s=3.0) + _scaled_helper(x)  # 3x + 2x -> 5


def polar_kw(r, *, theta=0.5):
    return r * math.cos(theta), r * math.sin(theta)


# --- sums, zip, enumerate, reversed --------------------------------------------------------
def generator_sum(x):
    return sum(x ** k for k in range(4))  # 1 + x + x^2 + x^3 -> 1 + 2x + 3x^2


def list_comprehension_sum(x):
    return sum([c * x ** p for c, p in zip(COEFFS, POWERS)], 1.0)  # 1 + x - 2x^2 + 0.5x^3


def tuple_sum(x):
    return sum((x, 2.0 * x, x * x))  # 3x + x^2 -> 3 + 2x


def filtered_generator(x):
    return sum(x ** k for k in range(5) if k % 2 == 0)  # 1 + x^2 + x^4 -> 2x + 4x^3


def two_generators(x):
    return sum(c * x ** i for i in range(2) for c in COEFFS)  # -0.5 - 0.5 x -> -0.5


def reversed_in_comprehension(x):
    coeffs = tuple(reversed(list(COEFFS)))  # (0.5, -2.0, 1.0)
    return sum(c * x ** i for i, c in enumerate(coeffs)) / len(coeffs)  # (0.5 - 2x + x^2) / 3


def comprehension_names_stay_inside(x):
    i = 2.0
    s = sum(x for i in range(3))  # 3x
    return s * i  # 6x -> 6


def zipped_polynomial(x):
    total = 0.0
    for c, p in zip(COEFFS, POWERS):
        total += c * x ** p
    return total  # x - 2x^2 + 0.5x^3 -> 1 - 4x + 1.5x^2


def enumerated(x):
    total = 0.0
    for i, c in enumerate(COEFFS, start=1):
        total += c * x ** i
    return total  # x - 2x^2 + 0.5x^3 -> 1 - 4x + 1.5x^2


def horner_reversed(x):
    total = 0.0
    for c in reversed(COEFFS):
        total = total * x + c
    return total  # 1 - 2x + 0.5x^2 -> -2 + x


# --- assert and raise ----------------------------------------------------------------------
def guarded(x):
    assert x > 0.0, "x must be positive"
    return math.log(x)  # 1/x


def log_then_assert(x):
    y = math.log(x)  # raises ValueError first at x < 0
    assert y < 10.0, "too large"
    return y


def branchy(x):
    if x < 0.0:
        raise ValueError("negative")
    elif x > 100.0:
        y = x
    else:
        y = 2.0 * x
    return y * y  # 2x (x > 100) or 8x


def raise_or_continue(x):
    if x < 0.0:
        raise ArithmeticError("negative")
    else:
        y = math.sqrt(x)
    return y * x  # x^1.5 -> 1.5 sqrt(x)


def assert_in_branch(x):
    if x > 1.0:
        assert x < 5.0
        y = x * x
    else:
        y = x
    return y  # 2x on (1, 5), 1 below; AssertionError() at x >= 5


def debug_only(x):
    if DEBUG:
        raise RuntimeError("debugging")
    return 2.0 * x


def not_assert(x):
    assert not x == 3.0, "x must not be 3"
    return x * x


def combined(x, *, scale=2.0):
    def term(c, p):
        assert x > -10.0, "x too small"
        return c * x ** p
    total = 0.0
    for c, p in zip(COEFFS, POWERS):
        total += stop_gradient(term(c, p)) + term(c, p) * scale
    logger.debug("total %s", total)
    print(f"total is {total}")
    return total  # scale (x - 2x^2 + 0.5x^3) -> scale (1 - 4x + 1.5x^2)


def returns_or_raises(x):
    if x < 0.0:
        raise ValueError("negative")
    else:
        return math.sqrt(x)  # 1 / (2 sqrt(x))


def returns_then_raises(x):
    if x > 1.0:
        return x * x  # 2x
    raise ArithmeticError("small")


def raising_helper_on_one_side(x):
    return x * x if x > 0.0 else _always_fails(x)  # 2x; ValueError("always") at x <= 0


def same_function_on_both_sides(x):
    if x > 0.0:
        f = math.sin
    else:
        f = math.sin
    return f(x)  # cos(x)


# --- print and logging ---------------------------------------------------------------------
def chatty(x):
    print("evaluating at", x)
    logging.info("x = %s", x)
    logger.warning("x = %s", x)
    logging.getLogger(__name__).debug("x = %s", x)
    print(f"{x:.3f}", file=None)
    return x ** 3  # 3x^2


VALUES = [
    (with_nested_helper, 1.5, 15.0),
    (closure_reads_current_value, 2.0, 4.0),
    (nested_shadows_global, 2.0, 3.0),
    (nested_calls_nested, 1.5, 6.0),
    (lambda_helper, 2.0, 12.0),
    (nested_default_from_outer, 1.0, 7.0),
    (nested_in_loop, 1.0, 3.0),
    (nested_in_branch_not_taken, -2.0, -1.0),
    (nested_in_branch_not_taken, 2.0, 0.5),
    (helper_called_as_statement, 4.0, 0.25),
    (nested_passed_to_module_helper, 1.0, 4.0),
    (nested_keyword_only, 1.0, 5.0),
    (closure_passed_in_a_branch, 1.0, 2.0),
    (closure_passed_in_a_branch, -1.0, 1.0),
    (closure_returned_by_a_helper, 1.0, 6.0),
    (returns_or_raises, 4.0, 0.25),
    (returns_then_raises, 2.0, 4.0),
    (raising_helper_on_one_side, 2.0, 4.0),
    (same_function_on_both_sides, 0.5, math.cos(0.5)),
    (scaled, 3.0, 12.0),
    (keyword_helper_calls, 1.0, 5.0),
    (generator_sum, 2.0, 17.0),
    (list_comprehension_sum, 2.0, -1.0),
    (tuple_sum, 2.0, 7.0),
    (filtered_generator, 2.0, 36.0),
    (two_generators, 2.0, -0.5),
    (comprehension_names_stay_inside, 1.0, 6.0),
    (reversed_in_comprehension, 2.0, 2.0 / 3.0),  # (-2 + 2x) / 3
    (zipped_polynomial, 2.0, -1.0),
    (enumerated, 2.0, -1.0),
    (horner_reversed, 3.0, 1.0),
    (guarded, 4.0, 0.25),
    (log_then_assert, 2.0, 0.5),
    (branchy, 3.0, 24.0),
    (branchy, 200.0, 400.0),
    (raise_or_continue, 4.0, 3.0),
    (assert_in_branch, 2.0, 4.0),
    (assert_in_branch, 0.5, 1.0),
    (debug_only, 1.0, 2.0),
    (not_assert, 2.0, 4.0),
    (combined, 2.0, -2.0),
    (chatty, 2.0, 12.0),
]

PRIMAL_SLOPE = {combined: -3.0}  # the stopped copy counts when the primal is run: 3 (1 - 8 + 6)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func, x, expected", VALUES,
                         ids=[f"{f.__name__}@{x}" for f, x, _ in VALUES])
def test_gradient_value(func, x, expected, backend, strategy):
    primal_slope = PRIMAL_SLOPE.get(func, expected)  # stop_gradient is the identity when run
    assert math.isclose(_fd(func, x), primal_slope, rel_tol=1e-6, abs_tol=1e-6)
    g = symgrad.grad(func, backend=backend, strategy=strategy, wrt=0)
    assert math.isclose(float(g(x)), expected, rel_tol=1e-12, abs_tol=1e-12)
    value, slope = symgrad.value_and_grad(func, backend=backend, strategy=strategy, wrt=0)(x)
    assert math.isclose(float(value), func(x), rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(float(slope), expected, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("func, x", [(f, x) for f, x, _ in VALUES],
                         ids=[f"{f.__name__}@{x}" for f, x, _ in VALUES])
def test_second_derivative_matches_finite_difference(func, x):
    h = symgrad.hessian(func, wrt=0)(x)
    g = symgrad.grad(func, wrt=0)  # its finite difference: the derivative of what grad returns
    assert math.isclose(float(h), _fd(g, x, 1e-5), rel_tol=1e-5, abs_tol=1e-5)


# --- the generated code ----------------------------------------------------------------------
def test_assert_is_printed_where_the_primal_runs_it():
    assert symgrad.grad(guarded).source == (
        "def grad_guarded(x):\n"
        f'    """Gradient of guarded (test_everyday.py, line {guarded.__code__.co_firstlineno})'
        ' with respect to x."""\n'
        "    if not x > 0.0:\n"
        "        raise AssertionError('x must be positive')\n"
        "    dguarded_dx = 1.0 / x\n"
        "    return dguarded_dx\n")


def test_same_check_is_printed_once_and_before_the_results():
    source = symgrad.grad(combined).source
    assert source.count("raise AssertionError('x too small')") == 1
    assert source.index("raise AssertionError") < source.index("dcombined_dx =")
    assert "print" not in source and "logger" not in source


def kw_required(x, *, k):
    return k * x * x


def test_keyword_only_parameter_without_default_is_differentiated():
    g = symgrad.grad(kw_required, wrt=("x", "k"))
    assert str(inspect.signature(g)) == "(x, *, k)"
    assert g(2.0, k=3.0) == (12.0, 4.0)  # (2 k x, x^2)
    assert symgrad.grad(kw_required, stop_gradients="k", wrt="x")(2.0, k=3.0) == 12.0


def test_keyword_only_parameters_stay_keyword_only():
    g = symgrad.grad(scaled)
    assert g.wrt == ("x",)  # a keyword-only parameter with a default is a hyperparameter
    assert str(inspect.signature(g)) == "(x, *, scale=2.0)"
    assert g(3.0, scale=3.0) == 18.0  # 2 * 3 * 3
    with pytest.raises(TypeError):
        g(3.0, 3.0)
    both = symgrad.grad(scaled, wrt=("x", "scale"))
    assert both(3.0) == (12.0, 9.0)  # (2 scale x, x^2)
    assert symgrad.hessian(scaled)(3.0) == 4.0  # 2 scale
    assert symgrad.jacobian(scaled, wrt="scale")(2.0, scale=5.0) == 4.0


def posonly(x, /, y=2.0, *, k=1.0):
    return k * x * y


def posonly_array(x, /, w):
    return np.sum(x * w)


@pytest.mark.parametrize("strategy", ("symbolic", "reverse"))
def test_positional_only_parameters_stay_positional_only(strategy):
    for make in (symgrad.grad, symgrad.value_and_grad, symgrad.hessian):
        g = make(posonly, strategy=strategy)
        assert str(inspect.signature(g)) == str(inspect.signature(posonly)) == \
            "(x, /, y=2.0, *, k=1.0)"
        with pytest.raises(TypeError):  # as the primal raises
            g(x=3.0)
    assert symgrad.grad(posonly, strategy=strategy)(3.0, y=5.0, k=2.0) == 10.0  # k y
    assert symgrad.grad(posonly, wrt=("x", "y"), strategy=strategy)(3.0, 5.0, k=2.0) == (
        10.0, 6.0)  # (k y, k x)


@pytest.mark.parametrize("shape", ((3,), ("n",)))
def test_positional_only_array_parameters_stay_positional_only(shape):
    g = symgrad.grad(posonly_array, shapes={"x": shape, "w": shape})
    x, w = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    for _ in range(2):  # the first call, then the call guard of the build it made
        assert [list(d) for d in g(x, w)] == [list(w), list(x)]
        with pytest.raises(TypeError):
            g(x=x, w=w)
        assert [list(d) for d in g(x, w=w)] == [list(w), list(x)]


def test_vjp_puts_cotangents_before_keyword_only_parameters():
    v = symgrad.vjp(polar_kw)
    assert str(inspect.signature(v)).startswith("(r, dpolar_kw_0, dpolar_kw_1, *, theta=0.5")
    assert math.isclose(v(2.0, 1.0, 0.0), math.cos(0.5), rel_tol=1e-15)
    assert math.isclose(v(2.0, 0.0, 1.0, theta=0.25), math.sin(0.25), rel_tol=1e-15)


# --- exceptions from the gradient ------------------------------------------------------------
RAISING = [
    (guarded, -1.0, AssertionError, "x must be positive"),
    (guarded, float("nan"), AssertionError, "x must be positive"),
    (log_then_assert, -1.0, ValueError, "math domain error"),
    (log_then_assert, 1e5, AssertionError, "too large"),
    (branchy, -1.0, ValueError, "negative"),
    (raise_or_continue, -4.0, ArithmeticError, "negative"),
    (assert_in_branch, 6.0, AssertionError, ""),
    (not_assert, 3.0, AssertionError, "x must not be 3"),
    (combined, -11.0, AssertionError, "x too small"),
    (helper_called_as_statement, -1.0, ValueError, "u must be positive"),
    (returns_or_raises, -4.0, ValueError, "negative"),
    (returns_then_raises, 0.5, ArithmeticError, "small"),
    (returns_then_raises, float("nan"), ArithmeticError, "small"),
    (raising_helper_on_one_side, -2.0, ValueError, "always"),
    (nested_in_branch_not_taken, -0.5, AssertionError, "log of a non-positive number"),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", ("grad", "value_and_grad", "hessian", "jacobian"))
@pytest.mark.parametrize("func, x, error, message", RAISING,
                         ids=[f"{f.__name__}@{x}" for f, x, _, _ in RAISING])
def test_gradient_raises_where_the_primal_raises(func, x, error, message, kind, strategy):
    with pytest.raises(error) as primal:
        func(x)
    assert type(primal.value) is error
    with pytest.raises(error) as info:
        getattr(symgrad, kind)(func, strategy=strategy, wrt=0)(x)
    assert type(info.value) is error
    assert str(info.value) == message
    if message:  # pytest's assertion rewriting adds its explanation after the message
        assert str(primal.value).split("\n")[0] == message


def test_gradient_of_a_gradient_keeps_the_check():
    second = symgrad.grad(symgrad.grad(guarded))
    assert second(2.0) == -0.25  # -1/x^2
    with pytest.raises(AssertionError, match="x must be positive"):
        second(-2.0)


def test_numpy_backend_raises_when_any_element_fails():
    g = symgrad.grad(guarded, backend="numpy")
    assert np.allclose(g(np.array([1.0, 4.0])), [1.0, 0.25])
    with pytest.raises(AssertionError, match="x must be positive"):
        g(np.array([1.0, -4.0]))
    with pytest.raises(ValueError, match="negative"):
        symgrad.grad(branchy, backend="numpy")(np.array([3.0, -1.0]))


def test_condition_known_at_build_time_leaves_no_check():
    assert "raise" not in symgrad.grad(debug_only).source
    assert "raise" not in symgrad.grad(chatty).source


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func, x, expected", VALUES,
                         ids=[f"{f.__name__}@{x}" for f, x, _ in VALUES])
def test_jacobian_and_hessian(func, x, expected, backend, strategy):
    j = symgrad.jacobian(func, backend=backend, strategy=strategy, wrt=0)
    assert math.isclose(float(j(x)), expected, rel_tol=1e-12, abs_tol=1e-12)
    h = symgrad.hessian(func, backend=backend, strategy=strategy, wrt=0)(x)
    assert math.isclose(float(h), float(symgrad.hessian(func, wrt=0)(x)), rel_tol=1e-12,
                        abs_tol=1e-12)


def pair_everyday(x, *, w=2.0):
    def term(c, p):
        assert x > -10.0, "x too small"
        return c * x ** p
    a = sum(term(c, p) for c, p in zip(COEFFS, POWERS))  # x - 2x^2 + 0.5x^3
    b = 0.0
    for i, c in enumerate(reversed(COEFFS)):  # (0.5, -2.0, 1.0)
        b += stop_gradient(c * w) * x ** i  # w (0.5 - 2x + x^2)
    print("pair", a, b)
    return a, b  # at x = 2: a' = 1 - 8x + 1.5x^2 = -1, b' = w (2x - 2) = 4


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_vjp_and_jacobian_of_a_pair(backend, strategy):
    options = dict(backend=backend, strategy=strategy)
    v = symgrad.vjp(pair_everyday, **options)
    assert float(v(2.0, 1.0, 0.0)) == -1.0
    assert float(v(2.0, 0.0, 1.0)) == 4.0
    assert float(v(2.0, 0.0, 1.0, w=3.0)) == 6.0
    jac = symgrad.jacobian(pair_everyday, **options)(2.0)
    assert tuple(map(float, jac)) == (-1.0, 4.0)
    for build in (lambda: v(-11.0, 1.0, 0.0), lambda: symgrad.jacobian(
            pair_everyday, **options)(-11.0)):
        with pytest.raises(AssertionError, match="x too small"):
            build()


# --- refusals inside the new constructs name their own line and column -----------------------
def nested_raises_always(x):
    def inner(u):
        raise ValueError("never")
    return inner(x)


def comprehension_with_input_condition(x):
    return sum(x ** k for k in range(3) if x > k)


def raises_formatted_in_helper(x):
    def check(u):
        if u < 0.0:
            raise ValueError(f"negative: {u}")
    check(x)
    return x


REFUSED = [
    (nested_raises_always, 2, "raise", "`raise` is reached on every call", "under an `if`"),
    (comprehension_with_input_condition, 1, "x > k", "decided when the gradient is built",
     "e if c else 0.0"),
    (raises_formatted_in_helper, 3, 'f"', "string literal", "literal"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func, k, marker, what, hint", REFUSED,
                         ids=[f.__name__ for f, *_ in REFUSED])
def test_refused_at_file_line_and_column(func, k, marker, what, hint, backend):
    lineno = func.__code__.co_firstlineno + k
    line = inspect.getsourcelines(func)[0][k].rstrip("\n")
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(func, backend=backend)
    exc = info.value
    assert (exc.filename, exc.lineno, exc.text) == (__file__, lineno, line)
    assert exc.offset == line.index(marker) + 1
    message, _, advice = exc.msg.partition(": ")
    assert what in message and hint in advice


def long_check(x, *, a=1.5):
    def g(u, *, b=a):
        if u > 0.0:
            return b * u
        return -b * u * u
    if x > 3.0:
        return g(x, b=2.0)  # 2 (x > 3)
    y = g(x)
    assert y != 7.0 and y != 8.0000000001 and y != 9.0000000001 and y != 10.0000000001
    return y + stop_gradient(y) * x  # y' + y: a + a x (0 < x <= 3), -2a x - a x^2 (x <= 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_long_check_is_wrapped_and_quiet(backend):
    g = symgrad.grad(long_check, backend=backend)
    assert max(len(line) for line in g.source.splitlines()) <= 100, g.source
    assert "    if (" in g.source  # the condition broken inside parentheses
    assert [float(g(x)) for x in (1.0, -1.0, 4.0)] == [3.0, 1.5, 2.0]
    assert float(g(1.0, a=2.0)) == 4.0
    for build in (long_check, g):
        with pytest.raises(AssertionError):
            build(2.0, a=3.5)  # y = 3.5 * 2.0 = 7.0
    if backend == "numpy":
        with np.errstate(all="raise"):  # the untaken side of np.where in the test is hushed
            assert list(g(np.array([1.0, -1.0, 4.0]))) == [3.0, 1.5, 2.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_lines_fit_100_columns(backend):
    for func, _, _ in VALUES:
        source = symgrad.grad(func, backend=backend, wrt=0).source
        assert max(len(line) for line in source.splitlines()) <= 100, source


def dscaled(x, *, scale=2.0):
    return 2.0 * scale * x


def dguarded(x):
    return 1.0 / x


def dguarded_wrong(x):
    return 1.0 / (x + 0.5)


def test_check_grad_of_keyword_only_and_asserting_functions():
    assert symgrad.check_grad(scaled, dscaled).verdict == "equal"
    assert symgrad.check_grad(guarded, dguarded).verdict == "equal"  # points x <= 0 skipped
    assert symgrad.check_grad(guarded, dguarded_wrong).verdict == "different"
    report = symgrad.check_grad(guarded, dguarded, points=[(1.0,), (-1.0,)])
    assert report.verdict == "equal"
    assert any("AssertionError" in note for note in report.raised)

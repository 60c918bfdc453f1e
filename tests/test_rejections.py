"""Everything docs/language.md (and ``frontend.py``) rejects, each at its own file, line and column.

Every primal below lives in this file, so each error must name this file (``exc.filename ==
__file__``), the absolute line of the offending statement (``func.__code__.co_firstlineno + k``),
the 1-based column of the offending construct (located by a marker string in that line), carry
the line itself in ``exc.text``, and say what to do after the colon of its message.
"""
import contextlib
import functools
import math
import traceback
import types
from dataclasses import dataclass

import numpy as np
import pytest

import symgrad
from symgrad import SourceUnavailableError, UnsupportedSyntaxError, stop_gradient

PAIR = (1.0, 2.0)


class _CustomError(Exception):
    pass

STATE = types.SimpleNamespace(value=0.0)
COUNTER = 0.0


def _add(u, v):
    return u + v


def _sq(u):
    return u * u


def _pair(u):
    return u, 2.0 * u


# =================================================================================================
# docs/language.md, "Rejected constructs"
# =================================================================================================
def uses_while(x):
    while x > 1.0:
        x = x / 2.0
    return x


def factorial(x):
    if x > 1.0:
        return x * factorial(x - 1.0)
    return 1.0


def ping(x):
    return pong(x) + 1.0


def pong(x):
    return ping(x * 0.5) * 2.0


def _countdown(x):
    if x > 0:
        return _countdown(x - 1.0) + 1.0
    return x


def calls_recursive_helper(x):
    return _countdown(x) * 2.0


def uses_try(x):
    try:
        y = x * 2.0
    except ZeroDivisionError:
        y = 0.0
    return y


def uses_with(x):
    with contextlib.suppress(ValueError):
        y = x * 2.0
    return y


def uses_yield(x):
    yield x * 2.0


def uses_yield_value(x):
    y = yield x
    return y


def uses_global(x):
    global COUNTER
    return x * COUNTER


def make_accumulator():
    total = 0.0

    def accumulate(x):
        nonlocal total
        total = total + x
        return total * x
    return accumulate


accumulate = make_accumulator()


def sets_attribute(x):
    STATE.value = x * 2.0
    return x


def augments_attribute(x):
    STATE.value += x
    return x


def sets_item(x):
    buf = [0.0, 0.0]
    buf[0] = x
    return buf[0]


def calls_gamma(x):
    return math.gamma(x) + x


def calls_factorial(x):
    n = 3
    return math.factorial(n) * x


def truncates(x):
    return int(x) * x + math.trunc(x)


def returns_and_or(x):
    return (x > 0.0 and x < 2.0) and x * x or -x


def bare_expression(x):
    y = x * x
    y + 1.0
    return y


def reads_input(x):
    return x * float(input())


def uses_undefined(x):
    return x + not_defined_anywhere  # noqa: F821


def star_args(x, *rest):
    return x


def star_kwargs(x, **options):
    return x


def keyword_only_string_default(x, *, mode="fast"):
    return x * 2.0


def comprehension_undecided_if(x):
    terms = [x ** i for i in range(3) if x > 0.0]
    return terms[0]


def sums_a_number(x):
    s = 0.0
    for t in sum(x * i for i in x):
        s = s + t
    return s


def dict_comprehension(x):
    d = {i: x for i in range(3)}
    return d[0]


def walrus(x):
    y = (z := x * 2.0) + z
    return y


def uses_match(x):
    match x:
        case 0.0:
            return 0.0
        case _:
            return x


def uses_break(x):
    s = 0.0
    for i in range(3):
        s = s + x
        break
    return s


def uses_continue(x):
    s = 0.0
    for i in range(3):
        s = s + x
        continue
    return s


def returns_in_loop(x):
    for i in range(3):
        return x * i
    return x


def assigned_in_one_branch(x):
    if x > 0:
        y = x * 2.0
    return y


def assigned_in_if_and_elif_only(x):
    if x > 0:
        y = x
    elif x < -1:
        y = -x
    return y * x


def used_before_assignment(x):
    z = y * x
    y = x + 1.0
    return z


def range_of_parameter(x, n):
    s = 0.0
    for i in range(n):
        s = s + x
    return s


def range_of_float_default(x, n=2.0):
    s = 0.0
    for i in range(n):
        s = s + x
    return s


def unpacks_too_many(x, y):
    a, b = x, y, x
    return a + b


def unpacks_module_tuple(x):
    a, b, c = PAIR
    return a * x


def unpacks_helper_result(x):
    a, b, c = _pair(x)
    return a * x


def unpacks_a_number(x):
    a, b = x
    return a * b


# =================================================================================================
# The rest of frontend.py's fence
# =================================================================================================
def raises_always(x):
    y = x * 2.0
    raise ValueError("never differentiable")


def asserts_false(x):
    assert False, "not implemented"
    return x


def uses_del(x):
    y = x
    del y
    return x


def imports_inside(x):
    import cmath
    return x * cmath.pi


def raises_custom(x):
    if x < 0.0:
        raise _CustomError("negative")
    return x


def raises_formatted(x):
    if x < 0.0:
        raise ValueError(f"negative: {x}")
    return x


def decorated_nested(x):
    @functools.lru_cache
    def inner(u):
        return u * u
    return inner(x)


def nested_reads_later_name(x):
    def inner(u):
        return u * scale
    y = inner(x)
    scale = 2.0
    return y


def nested_recursion(x):
    def inner(u):
        return inner(u)
    return inner(x)


def helper_per_branch(x):
    if x > 0.0:
        def h(u):
            return u
    else:
        def h(u):
            return -u
    return h(x)


def zips_unequal_strictly(x):
    return sum(a * x for a, b in zip(PAIR, (1.0,), strict=True))


def _fails_always(u):
    raise ValueError("always")


def raising_value_in_branch(x):
    if x > 0.0:
        y = _fails_always(x) + 1.0
    else:
        y = x
    return y


def raises_on_both_paths(x):
    if x > 0.0:
        raise ValueError("positive")
    else:
        raise ValueError("not positive")


def bare_reraise(x):
    if x < 0.0:
        raise
    return x


def class_inside(x):
    class Local:
        pass
    return x


async def async_primal(x):
    return x * 2.0


def set_literal(x):
    s = {x, 1.0}
    return x


def dict_literal(x):
    d = {"a": x}
    return x


def f_string(x):
    label = f"{x}"
    return x


def string_constant(x):
    label = "abc"
    return x


def none_constant(x):
    y = None
    return x


def for_else(x):
    for i in range(2):
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def bare_return(x):
    y = x * 2.0
    return


def no_return(x):
    y = x * 2.0


def not_every_path_returns(x):
    if x > 0:
        return x
    y = x


def branches_return_different_lengths(x):
    if x > 0:
        return x, x
    return x


def string_default(x, mode="fast"):
    return x


def is_comparison(x):
    return x if x is not None else 0.0


def in_comparison(x):
    if x in PAIR:
        return x
    return 2.0 * x


def shift_operator(x):
    return x * (3 << 2)


def augmented_shift(x):
    k = 3
    k <<= 1
    return x * k


def calls_a_number(x):
    return x(2.0)


def attribute_of_number(x):
    return x.real


def missing_module_attribute(x):
    return math.sinn(x)


def _identity_decorator(f):
    return f


@_identity_decorator
def _decorated(u):
    return u * u


def calls_decorated(x):
    return _decorated(x)


def _varargs(*us):
    return us[0]


def calls_varargs_helper(x):
    return _varargs(x)


def too_many_arguments(x):
    return _sq(x, x)


def bad_keyword(x):
    return _sq(v=x)


def missing_argument(x):
    return _add(x)


def star_into_helper(x):
    return _add(*PAIR) * x


def star_into_rule(x):
    return max(*PAIR) * x


def index_out_of_range(x):
    return PAIR[5] * x


def index_by_parameter(x):
    return PAIR[x] * x


def slices_a_tuple(x):
    a, = PAIR[1:]
    return a * x


def stop_gradient_two_arguments(x):
    return stop_gradient(x, x)


def range_four_arguments(x):
    s = 0.0
    for i in range(0, 4, 1, 1):
        s = s + x
    return s


def range_of_float_literal(x):
    s = 0.0
    for i in range(2.5):
        s = s + x
    return s


def max_of_one_tuple(x):
    return max((x, 1.0))


def round_with_digits(x):
    return round(x, 2)


def tuple_as_number(x):
    return PAIR + x


def condition_as_number(x):
    return (x > 0) * x


def division_by_zero_assigned(x):
    y = x / 0.0
    return y


def division_by_zero_returned(x):
    return x / 0.0


# =================================================================================================
# The table: (primal, offending function, k, marker, what, hint)
# =================================================================================================
@dataclass(frozen=True)
class Rejection:
    id: str
    func: object
    k: int            # the offending line is where.__code__.co_firstlineno + k
    marker: str       # the offending construct starts where this text starts in that line
    what: str         # in the message, before the hint
    hint: str         # in the hint (after the first ": ")
    where: object = None  # the function holding the offending line, if not ``func``


REJECTIONS = [
    # --- docs/language.md ---
    Rejection("while", uses_while, 1, "while", "`while`", "for i in range(N)"),
    Rejection("direct-recursion", factorial, 2, "factorial(x - 1.0)", "recursion", "for"),
    Rejection("mutual-recursion", ping, 1, "ping(x * 0.5)", "recursion", "for", where=pong),
    Rejection("recursive-helper", calls_recursive_helper, 2, "_countdown(x - 1.0)", "recursion",
              "for", where=_countdown),
    Rejection("try", uses_try, 1, "try", "`try`", "code inside"),
    Rejection("with", uses_with, 1, "with", "`with`", "code inside"),
    Rejection("yield-statement", uses_yield, 1, "yield", "`yield`", "return a value"),
    Rejection("yield-value", uses_yield_value, 1, "yield", "`yield`", "return a value"),
    Rejection("global", uses_global, 1, "global", "`global`", "module constants"),
    Rejection("nonlocal", accumulate, 1, "nonlocal", "`nonlocal`", "parameter"),
    Rejection("attribute-assignment", sets_attribute, 1, "STATE.value", "attribute",
              "plain name"),
    Rejection("attribute-augmented", augments_attribute, 1, "STATE.value", "attribute",
              "plain name"),
    Rejection("item-assignment", sets_item, 2, "buf[0]", "item assignment", "plain name"),
    Rejection("unknown-derivative-gamma", calls_gamma, 1, "math.gamma", "math.gamma",
              "functions symgrad knows"),
    Rejection("unknown-derivative-factorial", calls_factorial, 2, "math.factorial",
              "math.factorial", "functions symgrad knows"),
    Rejection("unknown-derivative-int", truncates, 1, "int(x)", "`int`", "math.floor(x) where "
              "x >= 0"),
    Rejection("returns-condition", returns_and_or, 0, "def", "returns a condition",
              "`a if condition else b`"),
    Rejection("bare-expression", bare_expression, 2, "y + 1.0", "not a call", "remove it"),
    Rejection("input", reads_input, 1, "input()", "input", "functions symgrad knows"),
    Rejection("undefined-name", uses_undefined, 1, "not_defined_anywhere",
              "`not_defined_anywhere`", "define it"),
    Rejection("star-args", star_args, 0, "rest", "`*args`", "one by one"),
    Rejection("star-kwargs", star_kwargs, 0, "options", "`**kwargs`", "one by one"),
    Rejection("keyword-only-string-default", keyword_only_string_default, 0, "mode", "`mode`",
              "int or float defaults"),
    Rejection("comprehension-undecided-if", comprehension_undecided_if, 1, "x > 0.0",
              "decided when the gradient is built", "e if c else 0.0"),
    Rejection("generator-over-a-number", sums_a_number, 2, "x)", "tuple or list", "tuple"),
    Rejection("dict-comprehension", dict_comprehension, 1, "{i: x", "comprehension", "for"),
    Rejection("walrus", walrus, 1, "z :=", ":=", "plain assignment"),
    Rejection("match", uses_match, 1, "match", "`match`", "if"),
    Rejection("break", uses_break, 4, "break", "`break`", "return after"),
    Rejection("continue", uses_continue, 4, "continue", "`continue`", "return after"),
    Rejection("return-in-loop", returns_in_loop, 2, "return", "`return`", "return after"),
    Rejection("assigned-in-one-branch", assigned_in_one_branch, 3, "y", "`y`",
              "every branch"),
    Rejection("assigned-in-if-and-elif-only", assigned_in_if_and_elif_only, 5, "y * x", "`y`",
              "every branch"),
    Rejection("used-before-assignment", used_before_assignment, 1, "y", "`y`", "assign it first"),
    Rejection("range-of-parameter", range_of_parameter, 2, "n)", "integer",
              "parameter default"),
    Rejection("range-of-float-default", range_of_float_default, 2, "n)", "integer",
              "parameter default"),
    Rejection("unpack-too-many", unpacks_too_many, 1, "a, b", "3 values into 2",
              "number of names"),
    Rejection("unpack-module-tuple", unpacks_module_tuple, 1, "a, b, c", "2 values into 3",
              "number of names"),
    Rejection("unpack-helper-result", unpacks_helper_result, 1, "a, b, c", "2 values into 3",
              "number of names"),
    Rejection("unpack-a-number", unpacks_a_number, 1, "a, b", "unpacking the parameter `x`",
              "its own parameter"),
    # --- the rest of frontend.py ---
    Rejection("raise-always", raises_always, 2, "raise", "`raise` is reached on every call",
              "under an `if`"),
    Rejection("assert-false", asserts_false, 1, "assert", "`assert` fails on every call",
              "under an `if`"),
    Rejection("raise-custom-class", raises_custom, 2, "_CustomError(", "built-in exception",
              "ValueError"),
    Rejection("raise-formatted-message", raises_formatted, 2, "f\"", "string literal",
              "literal"),
    Rejection("bare-reraise", bare_reraise, 2, "raise", "bare `raise`", "built-in exception"),
    Rejection("raising-value", raising_value_in_branch, 2, "_fails_always(x) + 1.0",
              "raises on every path", "as a statement"),
    Rejection("raises-on-both-paths", raises_on_both_paths, 0, "def", "raises on every call",
              "`assert` and `raise`"),
    Rejection("del", uses_del, 2, "del", "`del`", "remove it"),
    Rejection("import-inside", imports_inside, 1, "import", "`import`", "module level"),
    Rejection("decorated-nested-def", decorated_nested, 1, "functools", "decorator",
              "without one"),
    Rejection("nested-reads-later-name", nested_reads_later_name, 2, "scale", "`scale` is used "
              "before it is assigned", "assign it first"),
    Rejection("nested-recursion", nested_recursion, 2, "inner(u)", "recursion", "for"),
    Rejection("helper-per-branch", helper_per_branch, 7, "h(x)", "different functions",
              "before the `if`"),
    Rejection("zip-strict-unequal", zips_unequal_strictly, 1, "zip(", "strict=True",
              "one length"),
    Rejection("class-inside", class_inside, 1, "class", "`class`", "outside"),
    Rejection("async-def", async_primal, 0, "async def", "`async def`", "plain `def`"),
    Rejection("set-literal", set_literal, 1, "{x", "sets", "separate variables"),
    Rejection("dict-literal", dict_literal, 1, "{\"a\"", "dictionaries", "separate variables"),
    Rejection("f-string", f_string, 1, "f\"", "strings", "remove it"),
    Rejection("string-constant", string_constant, 1, "\"abc\"", "str", "int or float"),
    Rejection("none-constant", none_constant, 1, "None", "NoneType", "int or float"),
    Rejection("for-else", for_else, 1, "for", "`for ... else`", "remove the `else`"),
    Rejection("bare-return", bare_return, 2, "return", "`return` without a value",
              "return a number"),
    Rejection("no-return", no_return, 0, "def", "does not return", "return <expression>"),
    Rejection("not-every-path-returns", not_every_path_returns, 1, "if", "not every path",
              "add a `return`"),
    Rejection("branches-return-different-lengths", branches_return_different_lengths, 1, "if",
              "different lengths", "same number of values"),
    Rejection("string-default", string_default, 0, "mode", "`mode`", "int or float defaults"),
    Rejection("is-comparison", is_comparison, 1, "x is not None", "IsNot", "< <= > >= == !="),
    Rejection("in-comparison", in_comparison, 1, "x in PAIR", "In", "< <= > >= == !="),
    Rejection("shift-operator", shift_operator, 1, "3 << 2", "LShift", "+ - * / ** // %"),
    Rejection("augmented-shift", augmented_shift, 2, "k <<=", "LShift", "+ - * / ** // %"),
    Rejection("calls-a-number", calls_a_number, 1, "x(2.0)", "not a function",
              "call functions"),
    Rejection("attribute-of-number", attribute_of_number, 1, "x.real", "`.real`",
              "math functions"),
    Rejection("missing-module-attribute", missing_module_attribute, 1, "math.sinn",
              "`math.sinn` does not exist", "spelling"),
    Rejection("decorated-helper", calls_decorated, 1, "_decorated(x)", "decorator",
              "undecorated"),
    Rejection("varargs-helper", calls_varargs_helper, 1, "_varargs(x)", "`*args`",
              "plain parameters"),
    Rejection("too-many-arguments", too_many_arguments, 1, "_sq(x, x)", "too many arguments",
              "check the call"),
    Rejection("bad-keyword", bad_keyword, 1, "v=x", "keyword argument `v`", "`_sq` takes u"),
    Rejection("missing-argument", missing_argument, 1, "_add(x)", "missing arguments",
              "check the call"),
    Rejection("star-into-helper", star_into_helper, 1, "*PAIR", "`*`", "one by one"),
    Rejection("star-into-rule", star_into_rule, 1, "max(*PAIR)", "`*`", "positional arguments"),
    Rejection("index-out-of-range", index_out_of_range, 1, "PAIR[5]", "out of range",
              "check the index"),
    Rejection("index-by-parameter", index_by_parameter, 1, "x]", "integer",
              "parameter default"),
    Rejection("slice", slices_a_tuple, 1, "1:", "Slice", "language.md"),
    Rejection("stop-gradient-two-arguments", stop_gradient_two_arguments, 1, "stop_gradient(",
              "exactly one argument", "one value"),
    Rejection("range-four-arguments", range_four_arguments, 2, "range(", "1 to 3",
              "for i in range(N)"),
    Rejection("range-of-float-literal", range_of_float_literal, 2, "2.5", "int", "int"),
    Rejection("max-of-one-tuple", max_of_one_tuple, 1, "(x, 1.0)", "max", "argument"),
    Rejection("round-with-digits", round_with_digits, 1, "round(x, 2)", "`round` with 2",
              "pass 1"),
    Rejection("tuple-as-number", tuple_as_number, 1, "PAIR + x", "tuple", "numbers"),
    Rejection("condition-as-number", condition_as_number, 1, "(x > 0) * x", "condition",
              "1.0 if c else 0.0"),
    Rejection("division-by-zero-assigned", division_by_zero_assigned, 1, "x / 0.0",
              "division by zero", "check the expression"),
    Rejection("division-by-zero-returned", division_by_zero_returned, 1, "x / 0.0",
              "division by zero", "check the expression"),
]


def _build(func):
    return symgrad.grad(func)


@pytest.mark.parametrize("case", REJECTIONS, ids=[r.id for r in REJECTIONS])
def test_rejected_with_location_and_hint(case):
    where = case.where or case.func
    lineno = where.__code__.co_firstlineno + case.k
    with open(__file__, encoding="utf-8") as source:
        line = source.read().splitlines()[lineno - 1]
    assert case.marker in line, f"bad test: {case.marker!r} is not in line {lineno}: {line!r}"

    with pytest.raises(UnsupportedSyntaxError) as info:
        _build(case.func)
    exc = info.value
    assert exc.filename == __file__
    assert (exc.lineno, exc.text) == (lineno, line), str(exc)
    assert exc.offset == line.index(case.marker) + 1, (
        f"caret under {line[exc.offset - 1:]!r}, expected under {case.marker!r}")
    assert line.strip() in exc.text
    what, _, hint = exc.msg.partition(": ")
    assert case.what in exc.msg, exc.msg
    assert hint, f"no hint after the colon: {exc.msg!r}"
    assert case.hint in hint, f"hint {hint!r} should say {case.hint!r}"
    assert str(exc).startswith(exc.msg) and f"line {lineno}" in str(exc)


@pytest.mark.parametrize("strategy", ("symbolic", "reverse"))
def test_rejection_does_not_depend_on_strategy(strategy):
    with pytest.raises(UnsupportedSyntaxError) as info:
        symgrad.grad(uses_while, strategy=strategy)
    assert info.value.lineno == uses_while.__code__.co_firstlineno + 1


def test_rejections_are_syntax_errors_so_python_draws_a_caret():
    assert issubclass(UnsupportedSyntaxError, SyntaxError)
    assert issubclass(UnsupportedSyntaxError, symgrad.SymgradError)
    with pytest.raises(SyntaxError) as info:
        symgrad.grad(walrus)
    exc = info.value
    text = "".join(traceback.format_exception_only(type(exc), exc))
    lines = text.splitlines()
    lineno = walrus.__code__.co_firstlineno + 1
    assert f'File "{__file__}", line {lineno}' in lines[0]
    assert lines[1].strip() == "y = (z := x * 2.0) + z"
    # the caret sits under the start of `z := ...` (Python strips the indentation it shows)
    caret_column = lines[2].index("^") - (len(lines[1]) - len(lines[1].lstrip()))
    assert lines[1].lstrip()[caret_column:].startswith("z :=")
    assert "walrus" in lines[-1] and "plain assignment" in lines[-1]


LOSSES = {"square": lambda t: t * t,  # noqa: E731
          "cube": lambda t: t ** 3}


def test_lambdas_sharing_a_line_or_a_dict_are_told_apart():
    """Each lambda is found by where its body's code is (``co_positions``): two on one line, one
    inside another, and lambdas inside a dict spanning lines (whose lines alone do not parse)."""
    twins = (lambda x: x * 2.0, lambda x: x * 3.0)  # noqa: E731
    nested = lambda a: (lambda b: b * b)(a) * 3.0  # noqa: E731
    assert symgrad.grad(twins[0])(1.5) == 2.0 and symgrad.grad(twins[1])(1.5) == 3.0
    assert symgrad.grad(nested)(1.5) == 9.0  # d(3a²)/da
    assert symgrad.grad(LOSSES["square"])(1.5) == 3.0
    assert symgrad.grad(LOSSES["cube"])(1.5) == 3 * 1.5 ** 2


# =================================================================================================
# Constants that are undefined for every input: never a finite number
# =================================================================================================
def log_of_zero(x):
    return x + math.log(0.0)


def sqrt_of_negative(x):
    y = math.sqrt(-1.0)
    return x * y


def sqrt_of_negative_returned(x):
    return x * math.sqrt(-1.0)


@pytest.mark.parametrize("func", [log_of_zero, sqrt_of_negative, sqrt_of_negative_returned],
                         ids=lambda f: f.__name__)
def test_constant_undefined_everywhere_never_gives_a_number(func):
    """Python raises ValueError in the primal at every x; the gradient must not return a finite
    number: either building it is rejected at that line, or calling it raises as Python does."""
    with pytest.raises(ValueError):
        func(2.0)
    try:
        gf = symgrad.grad(func)
    except UnsupportedSyntaxError as exc:
        assert exc.filename == __file__
        assert exc.lineno in range(func.__code__.co_firstlineno,
                                   func.__code__.co_firstlineno + 3)
        return
    with pytest.raises((ValueError, ZeroDivisionError)):
        gf(2.0)


# =================================================================================================
# Source that cannot be read
# =================================================================================================
def _exec_namespace(text):
    namespace = {}
    exec(text, namespace)  # noqa: S102 - builds a function without readable source
    return namespace


_exec_lambda = _exec_namespace("f = lambda x: x * x")["f"]
_exec_def = _exec_namespace("def g(x):\n    return x * x\n")["g"]
_eval_lambda = eval("lambda x: x * x")  # noqa: S307


def calls_exec_helper(x):
    return _exec_def(x) + x


@pytest.mark.parametrize("func", [math.sin, np.sin, len, functools.partial(_add, 1.0),
                                  _exec_lambda, _exec_def, _eval_lambda],
                         ids=["math.sin", "np.sin", "len", "partial", "exec-lambda", "exec-def",
                              "eval-lambda"])
def test_source_unavailable(func):
    with pytest.raises(SourceUnavailableError) as info:
        symgrad.grad(func)
    assert "def" in str(info.value)  # says to define the function with `def` in a file
    assert not isinstance(info.value, UnsupportedSyntaxError)


def test_helper_without_source():
    with pytest.raises(SourceUnavailableError) as info:
        symgrad.grad(calls_exec_helper)
    assert "g" in str(info.value)


# --- parameters in a container, integer labels as an argument: say so, and the form that works ---
LABELS = np.array([0, 2, 1])
SEPARATE = ("pass each array or number as its own parameter: def f(w, b, X) with "
            "wrt=('w', 'b') (or wrt=None: every parameter without a default)")
ONE_HOT = ("pass one-hot labels Y (shape (n, k), 1.0 at each label) and write "
           "np.sum(Y * logp, axis=1) for logp[np.arange(n), labels], or make the labels a "
           "module-level constant (an int array)")


def dict_of_parameters(p, X):
    return np.sum((X @ p["w"]) ** 2)


def dict_of_numbers(p):
    return p["w"] * 2.0


def tuple_of_parameters(params, X):
    w, b = params
    return np.sum((X @ w + b) ** 2)


def tuple_of_numbers(params):
    w, b = params
    return w * b


def log_softmax(logits):
    return logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))


def labels_argument(logits, labels):
    n = logits.shape[0]
    return -np.sum(log_softmax(logits)[np.arange(n), labels])


def labels_stopped(logits, labels):
    n = logits.shape[0]
    return -np.sum(log_softmax(logits)[np.arange(n), stop_gradient(labels)])


def labels_default(logits, labels=LABELS):
    n = logits.shape[0]
    return -np.sum(log_softmax(logits)[np.arange(n), labels])


def labels_taken(logits, labels):
    return -np.sum(np.take_along_axis(log_softmax(logits), labels[:, None], axis=1))


def labels_one_hot(logits, Y):
    return -np.sum(Y * log_softmax(logits))


def labels_constant(logits):
    n = logits.shape[0]
    return -np.sum(log_softmax(logits)[np.arange(n), LABELS])


LOGITS = {"logits": ("n", "k"), "labels": ("n",)}
CONTAINERS = [
    (dict_of_parameters, 1, 'p["w"]', {"X": ("n", "d")},
     "indexing the parameter `p` with a string is not supported (a dict of parameters)",
     SEPARATE),
    (dict_of_numbers, 1, 'p["w"]', None,
     "indexing the parameter `p` with a string is not supported (a dict of parameters)",
     SEPARATE),
    (tuple_of_parameters, 1, "w, b", {"X": ("n", "d")},
     "unpacking the parameter `params` is not supported (a tuple or list of parameters)",
     SEPARATE),
    (tuple_of_numbers, 1, "w, b", None,
     "unpacking the parameter `params` is not supported (a tuple or list of parameters)",
     SEPARATE),
    (labels_argument, 2, "labels]", LOGITS, "indexing with `labels`, an argument, is not "
     "supported (integer labels given at the call)", ONE_HOT),
    (labels_stopped, 2, "stop_gradient(labels)", LOGITS, "indexing with `labels`, an argument, "
     "is not supported (integer labels given at the call)", ONE_HOT),
    (labels_default, 2, "labels]", {"logits": ("n", "k")}, "indexing with `labels`, an "
     "argument, is not supported (integer labels given at the call)", ONE_HOT),
    (labels_taken, 1, "np.take_along_axis", LOGITS, "indexing with `labels`, an argument, is "
     "not supported (integer labels given at the call)", ONE_HOT),
]


@pytest.mark.parametrize("case", CONTAINERS, ids=[c[0].__name__ for c in CONTAINERS])
@pytest.mark.parametrize("when", ["shapes", "call"])
def test_parameters_in_containers_and_labels_as_arguments_say_so(case, when):
    """They said "constants of type str are not supported", "a tuple or list of numbers is
    needed here (a loop over a number ...)" and "indexing with an array computed from the
    arguments is not supported"."""
    func, k, marker, shapes, what, hint = case
    lineno = func.__code__.co_firstlineno + k
    with open(__file__, encoding="utf-8") as source:
        line = source.read().splitlines()[lineno - 1]
    assert marker in line
    with pytest.raises(UnsupportedSyntaxError) as info:
        if when == "shapes" and shapes is not None:
            symgrad.grad(func, wrt=func.__code__.co_varnames[0], shapes=shapes)
        else:  # built at the call, from the arguments' ranks
            symgrad.grad(func, wrt=func.__code__.co_varnames[0])(
                *_arguments(func.__code__.co_varnames[:func.__code__.co_argcount]))
    exc = info.value
    assert exc.msg == f"{what}: {hint}"
    assert (exc.filename, exc.lineno, exc.text) == (__file__, lineno, line)
    assert exc.offset == line.index(marker) + 1


def _arguments(names):
    values = {"p": {"w": np.ones(2)}, "X": np.ones((3, 2)), "params": (np.ones(2), 1.0),
              "logits": np.ones((3, 3)), "labels": np.array([0, 2, 1])}
    return [values[name] for name in names if name != "labels" or "logits" in names]


def test_the_forms_the_label_messages_give_are_the_same_gradient():
    # d/dlogits of -sum(log_softmax[i, labels[i]]) = softmax - onehot
    logits = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [0.0, 0.25, 0.75]])
    Y = np.eye(3)[LABELS]
    softmax = np.exp(logits) / np.sum(np.exp(logits), axis=1, keepdims=True)
    one_hot = symgrad.grad(labels_one_hot, wrt="logits")(logits, Y)
    constant = symgrad.grad(labels_constant)(logits)
    np.testing.assert_allclose(one_hot, softmax - Y, rtol=1e-14)
    np.testing.assert_allclose(constant, softmax - Y, rtol=1e-14)

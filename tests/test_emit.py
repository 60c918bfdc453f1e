"""The generated code (docs/design.md), and what it does where a derivative is undefined
(docs/conventions.md).

The generated source is parsed back with ``ast`` and checked as a person would read it: one ``def``,
the primal's parameters and intermediate names, ``d<out>_d<wrt>`` results, 100 columns, only
``math``.
"""
import ast
import importlib.util
import inspect
import math
import os
import re
import subprocess
import sys
import textwrap
import traceback

import pytest

import symgrad
from acceptance.cases_public import softmax0_stable  # the acceptance case's
from symgrad import stop_gradient

STRATEGIES = ("symbolic", "reverse")
ALLOWED_FREE_NAMES = {"math", "abs", "max", "min", "round", "float", "ValueError"}  # builtins


# --- primal functions ---------------------------------------------------------------------
def energy(x, y):
    r = (x * x + y * y) ** 0.5
    return r ** 2 + stop_gradient(r)


def radial(x, y):
    r = math.sqrt(x * x + y * y)
    return math.sin(r) + r * x


def logistic_loss(w, b, x, label):
    z = w * x + b
    return math.log(1.0 + math.exp(-label * z))


def ste_square(x, w):
    q = x + stop_gradient(round(x) - x)
    return (w * q - 2.0) ** 2


def with_defaults(x, y=2.0, k=3):
    return k * x * y


def springs(x1, y1, x2, y2, x3, y3):
    r12 = math.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)
    r23 = math.sqrt((x2 - x3) ** 2 + (y2 - y3) ** 2)
    r13 = math.sqrt((x1 - x3) ** 2 + (y1 - y3) ** 2)
    e_springs = 0.5 * 10.0 * (r12 - 1.0) ** 2 + 0.5 * 15.0 * (r23 - 1.2) ** 2 + 0.5 * 20.0 * (
        r13 - 1.5) ** 2
    e_gravity = 9.81 * (1.0 * y1 + 2.0 * y2 + 1.5 * y3)
    return e_springs + e_gravity


def a_rather_long_function_name_for_the_line_width_test(first_long_parameter_name,
                                                         second_long_parameter_name):
    combined_intermediate_value = math.exp(first_long_parameter_name * second_long_parameter_name)
    return math.sin(combined_intermediate_value) * math.cos(first_long_parameter_name) / (
        1.0 + second_long_parameter_name * second_long_parameter_name) + math.tanh(
        combined_intermediate_value * first_long_parameter_name - second_long_parameter_name)


def kinks(x, y):
    if x > y:
        t = abs(x) * min(x, y)
    else:
        t = max(x, 2.0 * y) - math.floor(y)
    return t * t


def power_series(x, n=3):
    s = 0.0
    for i in range(n):
        s = s + x ** i
    return s


def guarded_sqrt(x):
    return math.sqrt(x) if x > 0 else 0.0


def guarded_sqrt_statement(x):
    if x > 0:
        y = math.sqrt(x)
    else:
        y = 0.0
    return y


def square(x):
    return x ** 2


def square_float_exponent(x):
    return x ** 2.0


def square_pow(x):
    return pow(x, 2)


def cube(x):
    return x ** 3


def square_times(x, y):
    return x ** 2 * y


def root(x):
    return math.sqrt(x)


def half_power(x):
    return x ** 0.5


def logarithm(x):
    return math.log(x)


def deep_chain(x, depth=80):
    t = x
    for _ in range(depth):
        t = 0.9 * t + 0.1 * (math.sin(t) * t + math.cos(t))
    return t


@symgrad.grad
def decorated(x, y):
    return x * math.sin(y)


CATALOGUE = [energy, radial, logistic_loss, softmax0_stable, ste_square, with_defaults, springs,
             a_rather_long_function_name_for_the_line_width_test, kinks, power_series,
             guarded_sqrt, guarded_sqrt_statement, square, cube, root, logarithm]


def _function_def(gf):
    tree = ast.parse(gf.source)
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef), gf.source
    return tree.body[0]


def _def_line(function):
    lines, first = inspect.getsourcelines(function)
    for offset, line in enumerate(lines):
        if line.lstrip().startswith("def "):
            return first + offset
    raise AssertionError("no def line")


# --- one def, named, with the primal's parameters -------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function", CATALOGUE, ids=lambda f: f.__name__)
def test_exactly_one_def_named_grad_name(function, strategy):
    gf = symgrad.grad(function, strategy=strategy)
    node = _function_def(gf)
    assert node.name == f"grad_{function.__name__}"
    nested = [n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                         ast.Lambda, ast.ClassDef))]
    assert nested == [node]
    assert gf.function.__name__ == node.name


@pytest.mark.parametrize("function", CATALOGUE, ids=lambda f: f.__name__)
def test_parameters_and_defaults_are_the_primal_ones(function):
    gf = symgrad.grad(function)
    assert inspect.signature(gf.function) == inspect.signature(function)
    node = _function_def(gf)
    assert [a.arg for a in node.args.args] == list(inspect.signature(function).parameters)
    assert [ast.literal_eval(d) for d in node.args.defaults] == list(function.__defaults__ or ())


def test_defaults_are_used():
    gf = symgrad.grad(with_defaults, wrt=("x", "y", "k"))
    # k*x*y: d/dx = k y = 6, d/dy = k x = 4.5, d/dk = x y = 3 at x = 1.5 with y = 2, k = 3
    assert gf(1.5) == (6.0, 4.5, 3.0)
    assert gf(1.5, 4.0, 1) == (4.0, 1.5, 6.0)
    alone = symgrad.grad(with_defaults)  # wrt=None: the parameters with defaults are left out
    assert alone.wrt == ("x",)
    assert alone(1.5) == 6.0 and alone(1.5, 4.0, 1) == 4.0
    assert alone.source.startswith("def grad_with_defaults(x, y=2.0, k=3):")


# --- the docstring --------------------------------------------------------------------------------
@pytest.mark.parametrize("function", CATALOGUE, ids=lambda f: f.__name__)
def test_docstring_names_file_and_def_line(function):
    gf = symgrad.grad(function)
    docstring = ast.get_docstring(_function_def(gf), clean=False)
    assert docstring is not None
    assert "\n" not in docstring
    assert os.path.basename(function.__code__.co_filename) in docstring
    assert os.path.dirname(function.__code__.co_filename) not in docstring
    lines = [int(n) for n in re.findall(r"\bline (\d+)\b", docstring)]
    assert lines == [function.__code__.co_firstlineno]
    assert function.__name__ in docstring


def test_docstring_of_decorated_function_names_the_def_line():
    docstring = ast.get_docstring(_function_def(decorated), clean=False)
    assert "\n" not in docstring
    assert [int(n) for n in re.findall(r"\bline (\d+)\b", docstring)] == [
        _def_line(decorated.primal)]


# --- names ---------------------------------------------------------------------------------------
def _assigned(gf):
    return [t.id for n in ast.walk(_function_def(gf)) if isinstance(n, ast.Assign)
            for t in n.targets if isinstance(t, ast.Name)]


def test_intermediate_r_kept_in_energy():
    gf = symgrad.grad(energy, strategy="reverse")
    assert "r" in _assigned(gf)
    # the primal's own line is printed as the source computes it (``** 0.5`` is not always the
    # float math.sqrt gives), so the generated code holds the primal's value of r
    pattern = r"^    r = \(x \* x \+ y \* y\) \*\* 0\.5$"
    assert re.search(pattern, gf.source, re.MULTILINE), gf.source


@pytest.mark.parametrize("strategy", ("auto",) + STRATEGIES)
def test_intermediate_r_kept_where_it_survives(strategy):
    # energy's gradient may simplify r away (2x); radial's needs r: computed once, named r
    for function, survives in ((energy, False), (radial, True)):
        gf = symgrad.grad(function, strategy=strategy)
        node = _function_def(gf)
        sqrt_assignments = [n for n in ast.walk(node) if isinstance(n, ast.Assign)
                            and "math.sqrt" in ast.unparse(n.value)]
        assert gf.source.count("math.sqrt(") == len(sqrt_assignments) <= 1, gf.source
        if survives:
            assert len(sqrt_assignments) == 1, gf.source
        for assignment in sqrt_assignments:
            assert [t.id for t in assignment.targets] == ["r"], gf.source
            assert ast.unparse(assignment.value).startswith("math.sqrt("), gf.source


def test_intermediate_z_kept_in_logistic_loss():
    gf = symgrad.grad(logistic_loss)
    assert "z" in _assigned(gf)
    assert re.search(r"^    z = ", gf.source, re.MULTILINE), gf.source


def test_intermediates_kept_in_springs():
    assigned = _assigned(symgrad.grad(springs))
    for name in ("r12", "r23", "r13"):
        assert name in assigned


def _returned(gf):
    node = _function_def(gf)
    returns = [n for n in ast.walk(node) if isinstance(n, ast.Return)]
    assert len(returns) == 1 and returns[0] is node.body[-1]
    value = returns[0].value
    if isinstance(value, ast.Tuple):
        return [e.id for e in value.elts]
    return value.id


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_results_named_and_returned_in_wrt_order(strategy):
    assert _returned(symgrad.grad(energy, strategy=strategy)) == ["denergy_dx", "denergy_dy"]
    gf = symgrad.grad(energy, wrt=("y", "x"), strategy=strategy)
    assert _returned(gf) == ["denergy_dy", "denergy_dx"]
    assert gf(3.0, 4.0) == (8.0, 6.0)
    assert _returned(symgrad.grad(energy, wrt="y", strategy=strategy)) == "denergy_dy"
    assert _returned(symgrad.grad(energy, wrt=("y",), strategy=strategy)) == ["denergy_dy"]
    gf = symgrad.grad(logistic_loss, wrt=(3, "w", "b"), strategy=strategy)
    assert _returned(gf) == ["dlogistic_loss_dlabel", "dlogistic_loss_dw", "dlogistic_loss_db"]


def test_results_are_assigned_before_return():
    gf = symgrad.grad(springs)
    assigned = _assigned(gf)
    for name in _returned(gf):
        assert name in assigned


# --- 100 columns --------------------------------------------------------------------------------
def _assert_width(source):
    long_lines = [line for line in source.splitlines() if len(line) > 100]
    assert long_lines == [], source


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function", CATALOGUE, ids=lambda f: f.__name__)
def test_lines_at_most_100_columns(function, strategy):
    _assert_width(symgrad.grad(function, strategy=strategy).source)


WIDE_N = 100


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def wide_module(tmp_path_factory):
    """W4: sum of exp(-(a_i - a_(i+1))**2) over 100 parameters, written out as in workloads.py."""
    names = [f"a{i}" for i in range(WIDE_N)]
    params = textwrap.fill(", ".join(names), width=90, initial_indent=" " * 8,
                           subsequent_indent=" " * 8)
    terms = "\n            + ".join(f"exp(-({a} - {b})**2)" for a, b in zip(names, names[1:]))
    source = (f"from math import exp\n\n\ndef wide(\n{params}):\n    return ({terms})\n")
    path = tmp_path_factory.mktemp("wide") / "wide_module.py"
    path.write_text(source)
    return _load(path, "symgrad_test_wide_module")


@pytest.fixture(scope="module")
def wide_gradient(wide_module):
    return symgrad.grad(wide_module.wide)


def _wide_by_hand(a):
    t = [-2.0 * (a[i] - a[i + 1]) * math.exp(-(a[i] - a[i + 1]) ** 2) for i in range(WIDE_N - 1)]
    return tuple([t[0]] + [t[i] - t[i - 1] for i in range(1, WIDE_N - 1)] + [-t[-1]])


def test_wide_lines_at_most_100_columns(wide_gradient):
    _assert_width(wide_gradient.source)
    node = _function_def(wide_gradient)
    assert [a.arg for a in node.args.args] == [f"a{i}" for i in range(WIDE_N)]
    assert "\n" not in ast.get_docstring(node, clean=False)


def test_wide_values(wide_gradient):
    point = [math.sin(0.37 * i) + 0.05 * i for i in range(WIDE_N)]
    got = wide_gradient(*point)
    assert len(got) == WIDE_N
    assert got == pytest.approx(_wide_by_hand(point), rel=1e-12, abs=1e-15)


# --- only math -------------------------------------------------------------------------------
def _free_names(node):
    bound = {a.arg for a in node.args.args}
    bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                                                   ast.Store)}
    loaded = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                                                    ast.Load)}
    return loaded - bound


def _attribute_roots(node):
    roots = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            base = sub.value
            while isinstance(base, ast.Attribute):
                base = base.value
            roots.add(base.id if isinstance(base, ast.Name) else type(base).__name__)
    return roots


def _assert_only_math(gf):
    node = _function_def(gf)
    assert not [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert _free_names(node) <= ALLOWED_FREE_NAMES, gf.source
    assert _attribute_roots(node) <= {"math"}, gf.source
    assert "symgrad" not in gf.source.split('"""')[0] + gf.source.split('"""')[-1]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function", CATALOGUE, ids=lambda f: f.__name__)
def test_only_math_referenced(function, strategy):
    _assert_only_math(symgrad.grad(function, strategy=strategy))


def test_only_math_referenced_wide(wide_gradient):
    _assert_only_math(wide_gradient)


def test_math_functions_are_called_through_math():
    node = _function_def(symgrad.grad(springs))
    calls = {ast.unparse(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    assert "math.sqrt" in calls
    assert calls <= {"math.sqrt", "math.exp", "abs", "max", "min", "round"}


# --- determinism ------------------------------------------------------------------------------
DETERMINISM_MODULE = '''
import math
from symgrad import stop_gradient


def energy(x, y):
    r = (x * x + y * y) ** 0.5
    return r ** 2 + stop_gradient(r)


def lse(a0, a1, a2, a3, a4, a5):
    m = stop_gradient(max(a0, a1, a2, a3, a4, a5))
    return m + math.log(math.exp(a0 - m) + math.exp(a1 - m) + math.exp(a2 - m)
                        + math.exp(a3 - m) + math.exp(a4 - m) + math.exp(a5 - m))


def mixed(p, q, r, s):
    u = p * q + math.sin(r * s)
    v = u * u + math.exp(p - s) if p > q else min(u, r) * abs(s)
    w = math.tanh(v * q) + math.sqrt(1.0 + r * r) * u
    return w * v + p ** 3 / (1.0 + q * q)


def springs(x1, y1, x2, y2, x3, y3):
    r12 = math.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)
    r23 = math.sqrt((x2 - x3) ** 2 + (y2 - y3) ** 2)
    r13 = math.sqrt((x1 - x3) ** 2 + (y1 - y3) ** 2)
    return 5.0 * (r12 - 1.0) ** 2 + 7.5 * (r23 - 1.2) ** 2 + 10.0 * (r13 - 1.5) ** 2 + 9.81 * y2
'''

DETERMINISM_SCRIPT = '''
import sys
sys.path.insert(0, sys.argv[1])
import symgrad
import determinism_module as m
for f in (m.energy, m.lse, m.mixed, m.springs):
    for strategy in ("symbolic", "reverse"):
        print(symgrad.grad(f, strategy=strategy).source)
    print(symgrad.grad(f, wrt=(-1, 0), unconnected="none").source)
'''


def _sources_with_hash_seed(directory, seed):
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    result = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT, str(directory)], env=env,
                            capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_byte_identical_source_across_hash_seeds(tmp_path):
    (tmp_path / "determinism_module.py").write_text(DETERMINISM_MODULE)
    first = _sources_with_hash_seed(tmp_path, 1)
    second = _sources_with_hash_seed(tmp_path, 2)
    assert first.count("def grad_") == 12
    assert first == second


def test_same_source_when_built_twice_in_one_process(tmp_path):
    (tmp_path / "twice_a.py").write_text(DETERMINISM_MODULE)
    (tmp_path / "twice_b.py").write_text(DETERMINISM_MODULE)
    a = _load(tmp_path / "twice_a.py", "symgrad_test_twice_a")
    b = _load(tmp_path / "twice_b.py", "symgrad_test_twice_b")
    for name in ("energy", "lse", "mixed", "springs"):
        source_a = symgrad.grad(getattr(a, name)).source
        source_b = symgrad.grad(getattr(b, name)).source
        assert source_a.replace("twice_a.py", "twice_b.py") == source_b


# --- tracebacks show the generated line ----------------------------------------------------------
def test_traceback_shows_generated_source_line():
    gf = symgrad.grad(logarithm)
    with pytest.raises(ZeroDivisionError) as info:
        gf(0.0)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.name == "grad_logarithm"
    assert last.line, "the generated line is not in linecache"
    assert last.line.strip() in [line.strip() for line in gf.source.splitlines()]
    assert gf.source.splitlines()[last.lineno - 1].strip() == last.line.strip()
    formatted = "".join(traceback.format_exception(info.value))
    assert last.line.strip() in formatted


# --- stop points are marked ---------------------------------------------------------------------
def _stop_comments(source):
    lines = source.splitlines()
    return [(line, lines[k + 1]) for k, line in enumerate(lines)
            if line.strip().startswith("# stop_gradient")]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_stop_point_marked_in_softmax(strategy):
    gf = symgrad.grad(softmax0_stable, strategy=strategy)
    marked = _stop_comments(gf.source)
    assert len(marked) == 1, gf.source
    comment, line = marked[0]
    assert re.fullmatch(r"\s+\w+ = max\(x0, x1, x2\)", line), gf.source
    assert len(comment) - len(comment.lstrip()) == len(line) - len(line.lstrip())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_stop_point_marked_in_straight_through(strategy):
    gf = symgrad.grad(ste_square, strategy=strategy)
    marked = _stop_comments(gf.source)
    assert len(marked) == 1, gf.source
    assert "round(x)" in marked[0][1]
    assert re.fullmatch(r"\s+\w+ = .*", marked[0][1])
    # value: q = round(x); d/dx = 2 (w q - 2) w, d/dw = 2 (w q - 2) q at (1.3, 0.8): q = 1
    assert gf(1.3, 0.8) == pytest.approx((2 * (0.8 - 2.0) * 0.8, 2 * (0.8 - 2.0)), rel=1e-14)


@pytest.mark.parametrize("function", [logistic_loss, springs, kinks, power_series],
                         ids=lambda f: f.__name__)
def test_no_stop_comment_without_stop_gradient(function):
    assert _stop_comments(symgrad.grad(function).source) == []


# --- section 6: where the derivative is not defined ---------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function", [guarded_sqrt, guarded_sqrt_statement],
                         ids=lambda f: f.__name__)
def test_branch_not_taken_is_never_evaluated(function, strategy):
    gf = symgrad.grad(function, strategy=strategy)
    assert gf(0.0) == 0.0        # sqrt'(0) would divide by zero
    assert gf(-1.0) == 0.0       # sqrt(-1) would raise ValueError
    assert gf(4.0) == 0.25       # 1 / (2 sqrt(4))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function", [square, square_float_exponent, square_pow, cube],
                         ids=lambda f: f.__name__)
def test_power_at_zero_has_derivative_zero(function, strategy):
    result = symgrad.grad(function, strategy=strategy)(0.0)
    assert result == 0.0 and not math.isnan(result)
    # and the power rule away from 0: x**2 -> 2x = 3, x**3 -> 3x**2 = 6.75 at 1.5
    expected = 6.75 if function is cube else 3.0
    assert symgrad.grad(function, strategy=strategy)(1.5) == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_power_at_zero_times_other_parameter(strategy):
    # d/dx x**2 y = 2xy = 0, d/dy = x**2 = 0 at x = 0
    assert symgrad.grad(square_times, strategy=strategy)(0.0, 5.0) == (0.0, 0.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("function", [root, half_power], ids=lambda f: f.__name__)
def test_sqrt_at_zero_raises(function, strategy):
    with pytest.raises(ZeroDivisionError):
        symgrad.grad(function, strategy=strategy)(0.0)
    assert symgrad.grad(function, strategy=strategy)(4.0) == 0.25


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_log_at_zero_raises(strategy):
    with pytest.raises((ZeroDivisionError, ValueError)):
        symgrad.grad(logarithm, strategy=strategy)(0.0)
    assert symgrad.grad(logarithm, strategy=strategy)(4.0) == 0.25


def undefined_everywhere(x):
    return 1.0 / (x - x) + x


def test_undefined_everywhere_is_never_a_finite_number():
    # the primal raises ZeroDivisionError for every x; its gradient must not return 1.0 or 0.0
    with pytest.raises(ZeroDivisionError):
        undefined_everywhere(2.0)
    try:
        gf = symgrad.grad(undefined_everywhere)
    except symgrad.UnsupportedSyntaxError:
        return  # rejected at build time, as an assigned `t = 1.0 / (x - x)` is
    with pytest.raises(ZeroDivisionError):
        gf(2.0)


# --- a deep chain -------------------------------------------------------------------------------
def _deep_chain_forward_mode(x, depth=80):
    t, dt = x, 1.0
    for _ in range(depth):
        # d/dt [0.9 t + 0.1 (t sin t + cos t)] = 0.9 + 0.1 t cos t
        dt = dt * (0.9 + 0.1 * t * math.cos(t))
        t = 0.9 * t + 0.1 * (math.sin(t) * t + math.cos(t))
    return dt


@pytest.mark.parametrize("strategy", ["auto", "reverse"])
def test_deep_chain_depth_80(strategy):
    gf = symgrad.grad(deep_chain, strategy=strategy)
    assert gf.wrt == ("x",)
    for x in (0.7, -1.3, 2.4):
        expected = _deep_chain_forward_mode(x)
        assert abs(expected) > 1e-6  # the chain neither vanishes nor explodes at these points
        assert gf(x) == pytest.approx(expected, rel=1e-10)
    _assert_only_math(gf)


# --- the static-parameter guard -----------------------------------------------------------------
def test_static_parameter_guard():
    gf = symgrad.grad(power_series)
    assert gf.wrt == ("x",)
    # 1 + x + x**2: derivative 1 + 2x = 5 at 2
    assert gf(2.0) == 5.0
    assert gf(2.0, 3) == 5.0
    with pytest.raises(ValueError):
        gf(2.0, 4)
    with pytest.raises(ValueError):
        gf(2.0, n=2)
    assert power_series(2.0, 4) == 15.0  # the primal itself is untouched


def test_static_parameter_cannot_be_wrt():
    with pytest.raises(symgrad.OptionError):
        symgrad.grad(power_series, wrt="n")


def invariant_branch(x, y):
    s = 0.0
    for k in range(1, 4):
        if x > 0:
            s += x ** k * y
        else:
            s -= k * math.sin(x * y)
    return s


def test_a_branch_inside_its_own_block_is_not_tested_again():
    """A loop-invariant ``if`` read per iteration: inside ``if x > 0.0:`` the derivative's
    ``y if x > 0.0 else ...`` was printed again (35 lines at 3 iterations, each block re-testing
    its own condition); now one choice per derivative. Values: s = (x + x^2 + x^3) y for x > 0,
    -6 sin(xy) otherwise."""
    gradient = symgrad.grad(invariant_branch, wrt=(0, 1))
    assert gradient.source.count(" if x > 0.0") == 2 and "if x > 0.0:" not in gradient.source
    for x, y in [(0.7, 1.3), (2.0, -0.5), (-0.7, 1.3), (0.0, 2.0)]:
        want = ((1 + 2 * x + 3 * x * x) * y, x + x * x + x ** 3) if x > 0 else \
            (-6 * y * math.cos(x * y), -6 * x * math.cos(x * y))
        assert gradient(x, y) == pytest.approx(want, rel=1e-14, abs=1e-15)

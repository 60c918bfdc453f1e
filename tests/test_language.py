"""The language of docs/language.md, case by case from ``catalogue.py``, for every strategy.

For each catalogue case and each strategy ("symbolic", "reverse", "auto"):
- the gradient equals the hand-derived value (relative 1e-12);
- where the case is differentiable and free of ``stop_gradient``, it also agrees with a central
  difference of the primal computed by mpmath at 50 digits (step 1e-20), the primal being run on
  mpmath numbers with ``math``/``numpy`` swapped for mpmath functions;
- two independent builds give byte-identical ``.source``.
"""
import contextlib
import inspect
import math
import os
import subprocess
import sys
import types

import mpmath
import numpy as np
import pytest

import catalogue
import symgrad
from catalogue import CASE_IDS, CASES

STRATEGIES = ("symbolic", "reverse", "auto")
NUMERIC = [c for c in CASES if c.numeric]
HERE = os.path.dirname(os.path.abspath(__file__))


# --- helpers -------------------------------------------------------------------------------------
def assert_gradient(got, want, rel=1e-12, abs_=1e-12, what="gradient"):
    """``got`` has the shape of ``want`` (a float or a tuple of floats) and each entry is close."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple), f"{what}: expected a tuple of {len(want)}, got {got!r}"
        assert len(got) == len(want), f"{what}: expected {len(want)} values, got {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_gradient(g, w, rel, abs_, what=f"{what}[{i}]")
        return
    assert isinstance(got, (int, float)) and not isinstance(got, bool), (
        f"{what}: expected a float, got {type(got).__name__} {got!r}")
    assert math.isclose(got, want, rel_tol=rel, abs_tol=abs_), f"{what}: got {got!r}, want {want!r}"


def fresh_copy(function):
    """The same function (same code, so the same source) as a new object: no cache hit."""
    return types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)


# --- mpmath evaluation of the primal -------------------------------------------------------------
mp = mpmath.mp

_MP_MATH = types.SimpleNamespace(
    sin=mp.sin, cos=mp.cos, tan=mp.tan, exp=mp.exp, log=mp.log, sqrt=mp.sqrt, tanh=mp.tanh,
    atan=mp.atan, asin=mp.asin, acos=mp.acos, atanh=mp.atanh, asinh=mp.asinh, sinh=mp.sinh,
    cosh=mp.cosh, acosh=mp.acosh, erf=mp.erf, erfc=mp.erfc, atan2=mp.atan2, hypot=mp.hypot,
    pow=mp.power, fabs=mp.fabs, floor=mp.floor, ceil=mp.ceil, log1p=mp.log1p, expm1=mp.expm1,
    log2=lambda v: mp.log(v, 2), log10=lambda v: mp.log(v, 10),
    pi=math.pi, e=math.e,  # the float constants the primal really uses
)
_MP_NUMPY = types.SimpleNamespace(
    exp=mp.exp, sin=mp.sin, cos=mp.cos, log=mp.log, sqrt=mp.sqrt, tanh=mp.tanh, arctan=mp.atan,
    square=lambda v: v * v, power=mp.power, abs=abs, maximum=max, hypot=mp.hypot,
    arctan2=mp.atan2,
)


def _mp_namespace():
    """The catalogue's globals with math/numpy/float swapped; its functions rebuilt on them."""
    namespace = dict(vars(catalogue))
    namespace.update(math=_MP_MATH, np=_MP_NUMPY, float=lambda v: v)
    for name, obj in list(namespace.items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == catalogue.__name__:
            namespace[name] = _rebuild(obj, namespace)
    return namespace


def _rebuild(function, namespace):
    closure = None
    if function.__closure__:
        closure = tuple(types.CellType(_rebuild(c.cell_contents, namespace)
                                       if isinstance(c.cell_contents, types.FunctionType)
                                       else c.cell_contents) for c in function.__closure__)
    return types.FunctionType(function.__code__, namespace, function.__name__,
                              function.__defaults__, closure)


@contextlib.contextmanager
def _mp_floordiv():
    """mpmath numbers lack ``//``; give them Python's floor division while the primal runs."""
    mpf = type(mp.mpf(1))
    mpf.__floordiv__ = lambda a, b: mp.floor(a / b)
    mpf.__rfloordiv__ = lambda a, b: mp.floor(b / a)
    try:
        yield
    finally:
        del mpf.__floordiv__, mpf.__rfloordiv__


def central_difference(function, args, wrt, step="1e-20"):
    """d function / d wrt at args, by a central difference at 50 digits; a tuple in wrt order."""
    bound = inspect.signature(function).bind(*args)
    bound.apply_defaults()
    point = dict(bound.arguments)
    primal = _rebuild(function, _mp_namespace())
    result = []
    with mpmath.workdps(50), _mp_floordiv():
        h = mp.mpf(step)
        for name in wrt:
            plus, minus = dict(point), dict(point)
            plus[name] = mp.mpf(point[name]) + h
            minus[name] = mp.mpf(point[name]) - h
            result.append(float((primal(**plus) - primal(**minus)) / (2 * h)))
    return tuple(result)


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


# --- the tests -----------------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_gradient_equals_derived_value(case, strategy):
    gf = symgrad.grad(case.func, strategy=strategy, **case.options)
    assert gf.primal is case.func
    assert_gradient(gf(*case.args), case.grad)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", NUMERIC, ids=[c.id for c in NUMERIC])
def test_gradient_agrees_with_mpmath_central_difference(case, strategy):
    gf = symgrad.grad(case.func, strategy=strategy, **case.options)
    numeric = central_difference(case.func, case.args, gf.wrt)
    assert_gradient(_as_tuple(gf(*case.args)), numeric, rel=1e-10, abs_=1e-12)


@pytest.mark.parametrize("case", NUMERIC, ids=[c.id for c in NUMERIC])
def test_catalogue_value_agrees_with_central_difference(case):
    """Guards the hand derivations themselves (independent of symgrad except for ``.wrt``)."""
    wrt = symgrad.grad(case.func, **case.options).wrt
    numeric = central_difference(case.func, case.args, wrt)
    assert_gradient(_as_tuple(case.grad), numeric, rel=1e-12, abs_=1e-13, what=case.id)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_numpy_backend_elementwise(case):
    """Every construct works for backend "numpy" too (DESIGN: supported everywhere), at the point and
    elementwise on an array holding the point twice (float arguments become arrays)."""
    gf = symgrad.grad(case.func, backend="numpy", **case.options)
    want = _as_tuple(case.grad)
    at_point = _as_tuple(gf(*case.args))
    assert_gradient(tuple(float(v) for v in at_point), want)
    arrays = tuple(np.array([a, a]) if isinstance(a, float) else a for a in case.args)
    on_array = _as_tuple(gf(*arrays))
    assert len(on_array) == len(want)
    for got, expected in zip(on_array, want):
        got = np.broadcast_to(got, (2,))
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), (got, expected)


@pytest.mark.parametrize("strategy", ("symbolic", "reverse"))  # "auto" is one of these
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_source_identical_between_two_builds(case, strategy):
    first = symgrad.grad(case.func, strategy=strategy, **case.options)
    second = symgrad.grad(fresh_copy(case.func), strategy=strategy, **case.options)
    assert first is not second
    assert isinstance(first.source, str) and first.source.startswith("def grad_")
    assert first.source == second.source


_PRINT_SOURCES = """
import sys
sys.path.insert(0, {here!r})
import symgrad, catalogue
for case in catalogue.CASES:  # "auto": symbolic for single expressions, reverse for programs
    try:
        print(symgrad.grad(case.func, **case.options).source)
    except Exception as exc:  # a build failure is reported by the other tests
        print(case.id, type(exc).__name__, exc)
"""


def test_source_identical_under_two_hash_seeds():
    runs = [subprocess.Popen([sys.executable, "-c", _PRINT_SOURCES.format(here=HERE)],
                             env=dict(os.environ, PYTHONHASHSEED=seed), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
            for seed in ("0", "12345")]  # run side by side
    outputs = []
    for run in runs:
        out, err = run.communicate(timeout=240)
        assert run.returncode == 0, err
        outputs.append(out)
    assert outputs[0].count("def grad_") == len(CASES)  # every case built
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_range_bound_from_default_is_fixed_at_build_time(strategy):
    f = catalogue.loop_parameter_default
    gf = symgrad.grad(f, strategy=strategy)
    assert gf.wrt == ("x",)
    assert gf(2.0) == 14.0
    assert gf(2.0, 3) == 14.0
    with pytest.raises(ValueError, match="n"):
        gf(2.0, 4)
    with pytest.raises(ValueError, match="n"):
        symgrad.grad(f, wrt="n", strategy=strategy)
    # the primal itself still takes any n: 1 + 2x + 3x^2 + 4x^3 at x = 2
    assert f(2.0, 4) == 49.0


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_range_bounds_from_two_defaults_among_other_parameters(strategy):
    f = catalogue.range_from_defaults
    gf = symgrad.grad(f, strategy=strategy)
    assert gf.wrt == ("x", "y")
    assert gf(2.0, 3.0, 1, 3) == (15.0, 6.0)
    for bad in ((2.0, 3.0, 0), (2.0, 3.0, 1, 4)):
        with pytest.raises(ValueError):
            gf(*bad)
    with pytest.raises(ValueError):
        symgrad.grad(f, wrt=("x", "stop"), strategy=strategy)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_closure_and_module_constants_are_read_at_build_time(strategy):
    # a new closure with other constants is another function with its own gradient
    other = catalogue.make_polynomial(1.0, 1.0)          # x^2 + x: d = 2x + 1
    assert symgrad.grad(other, strategy=strategy)(2.0) == 5.0
    assert symgrad.grad(catalogue.closure_constants, strategy=strategy)(2.0) == 8.0
    loop4 = catalogue.make_scaled_sum(4, 1.0)  # x + x^2 + x^3 + x^4: d = 1 + 2x + 3x^2 + 4x^3
    assert symgrad.grad(loop4, strategy=strategy)(2.0) == 49.0


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_primal_is_untouched(strategy):
    gf = symgrad.grad(catalogue.stop_in_loop, strategy=strategy)
    assert gf(2.0) == 46.0
    assert catalogue.stop_in_loop(2.0) == 54.0
    assert gf.primal(2.0) == 54.0

"""``wrt``: intermediates (TF's tf.gradients for a graph tensor) and defaults left out of wrt=None.

Every expected value is derived by hand in the comment above its function. A derivative with
respect to an intermediate ``u`` is the derivative with respect to a perturbation ``du`` added to
``u``'s value, so each is also checked against a 50-digit central difference of a hand-written twin
taking ``du`` as an argument (``stop_gradient(e)`` is written in a twin as the value of ``e`` at the
unperturbed point, a constant).
"""
import math
import os
import textwrap

import mpmath
import pytest

import symgrad
from acceptance.cases_usage import cube, huber
from symgrad import cli, stop_gradient

STRATEGIES = ("symbolic", "reverse", "auto")


def central(function, args, index, step="1e-20"):
    """d function / d args[index] by a central difference at 50 digits (mpmath)."""
    with mpmath.workdps(50):
        h = mpmath.mpf(step)
        plus = [mpmath.mpf(a) for a in args]
        minus = list(plus)
        plus[index] += h
        minus[index] -= h
        return float((function(*plus) - function(*minus)) / (2 * h))


def central2(function, args, i, j, step="1e-15"):
    """d² function / d args[i] d args[j] by nested central differences at 60 digits."""
    with mpmath.workdps(60):
        h = mpmath.mpf(step)

        def at(di, dj):
            point = [mpmath.mpf(a) for a in args]
            point[i] += di
            point[j] += dj
            return function(*point)

        return float((at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h))


# --- the seed: tf.gradients(c, [a, b]) ----------------------------------------------------------
# c = a + b with b = 2a: dc/da = 3 (both paths), dc/db = 1 (b held as a node)
def sum_of_paths(a):
    b = 2 * a
    c = a + b
    return c


def sum_of_paths_twin(a, db):
    b = 2 * a + db
    return a + b


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_seed_gives_tensorflows_answer(strategy):
    g = symgrad.grad(sum_of_paths, wrt=("a", "b"), strategy=strategy)
    assert g(0.0) == (3.0, 1.0)
    assert g(5.0) == (3.0, 1.0)
    assert g.wrt == ("a", "b")
    assert symgrad.grad(sum_of_paths, wrt="b", strategy=strategy)(5.0) == 1.0
    assert central(sum_of_paths_twin, (5.0, 0.0), 0) == pytest.approx(3.0, rel=1e-12)
    assert central(sum_of_paths_twin, (5.0, 0.0), 1) == pytest.approx(1.0, rel=1e-12)


def test_generated_function_keeps_the_primals_parameters_and_names_results_after_wrt():
    g = symgrad.grad(sum_of_paths, wrt=("a", "b"))
    assert g.source.startswith("def grad_sum_of_paths(a):\n")
    assert "with respect to a, b." in g.source
    assert g.source.rstrip().endswith("return dsum_of_paths_da, dsum_of_paths_db")


# --- two routes to an intermediate, one stopped ------------------------------------------------
# u = x², v = 3u + u x, out = v + sg(u): d out/du holding x = 3 + x (the stopped copy gives
# nothing); d out/dx = d(3x² + x³)/dx = 6x + 3x² (sg(u) contributes nothing)
def two_routes(x):
    u = x * x
    v = 3.0 * u + u * x
    return v + stop_gradient(u)


def two_routes_twin(x, du):
    u = x * x + du
    v = 3 * u + u * x
    return v + x * x  # sg(u): the value, not perturbed


def two_routes_smooth(x, du):  # what is differentiated twice: sg(u) has no derivative at all
    u = x * x + du
    return 3 * u + u * x


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_intermediate_with_a_stopped_copy(strategy):
    g = symgrad.grad(two_routes, wrt="u", strategy=strategy)
    assert g(2.0) == 5.0
    assert g(-1.5) == 1.5
    assert central(two_routes_twin, (2.0, 0.0), 1) == pytest.approx(5.0, rel=1e-12)
    both = symgrad.grad(two_routes, wrt=("x", "u"), strategy=strategy)
    assert both(2.0) == (24.0, 5.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_intermediate_with_stop_gradients_and_unconnected(strategy):
    # stopping u itself leaves du's own derivative (TF: stop_gradients blocks what u came from)
    assert symgrad.grad(two_routes, wrt="u", stop_gradients=("u",), strategy=strategy)(2.0) == 5.0
    # stopping v leaves u only the stopped copy: unconnected
    stopped_v = dict(stop_gradients=("v",), strategy=strategy)
    assert symgrad.grad(two_routes, wrt=("x", "u"), **stopped_v)(2.0) == (0.0, 0.0)
    assert symgrad.grad(two_routes, wrt="u", unconnected="none", **stopped_v)(2.0) is None


# --- a name assigned more than once: its last value; a parameter always the parameter -----------
# t1 = x², y = t1 x, t2 = t1 + y, out = t2 y: d out/dt2 = y = x³ (1.5³ = 3.375)
def reassigned(x):
    t = x * x
    y = t * x
    t = t + y
    return t * y


def reassigned_twin(x, dt):
    t = x * x
    y = t * x
    return (t + y + dt) * y


# x is rebound to 3x: out = 9x², d/dx (the parameter) = 18x
def parameter_reassigned(x):
    x = x * 3.0
    return x * x


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_last_value_and_parameter_names(strategy):
    assert symgrad.grad(reassigned, wrt="t", strategy=strategy)(1.5) == 3.375
    assert central(reassigned_twin, (1.5, 0.0), 1) == pytest.approx(3.375, rel=1e-12)
    assert symgrad.grad(parameter_reassigned, wrt="x", strategy=strategy)(1.5) == 27.0


# --- after an if: the merged value; after a loop: the last iteration's --------------------------
# t = x², then 3t (x > 0) or t + 1; out = t x: d/dt = x; d/dx = 9x² (x > 0) or 3x² + 1
def branchy(x):
    t = x * x
    if x > 0:
        t = 3.0 * t
    else:
        t = t + 1.0
    return t * x


# s: 1, x + 1, x² + x + 1 (= 7 at 2); out = s²: d/ds = 2s = 14, d/dx = 2s(2x + 1) = 70
def looped(x):
    s = 0.0
    for _ in range(3):
        s = s * x + 1.0
    return s * s


def looped_twin(x, ds):
    s = 0
    for _ in range(3):
        s = s * x + 1
    return (s + ds) ** 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_branch_and_loop_intermediates(strategy):
    g = symgrad.grad(branchy, wrt=("x", "t"), strategy=strategy)
    assert g(2.0) == (36.0, 2.0)
    assert g(-2.0) == (13.0, -2.0)
    h = symgrad.grad(looped, wrt=("x", "s"), strategy=strategy)
    assert h(2.0) == (70.0, 14.0)
    assert central(looped_twin, (2.0, 0.0), 1) == pytest.approx(14.0, rel=1e-12)


# --- an alias and a constant still work: each becomes a node of its own -------------------------
# b = a, k = 2, out = a b k = 2a²: d/da = 4a, d/db = a k = 2a, d/dk = a b = a², d/dc = 1
def alias_and_constant(a):
    b = a
    k = 2.0
    c = a * b * k
    return c


def alias_twin(a, db, dk):
    return a * (a + db) * (2 + dk)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_alias_and_constant_intermediates(strategy):
    g = symgrad.grad(alias_and_constant, wrt=("a", "b", "k", "c"), strategy=strategy)
    assert g(3.0) == (12.0, 6.0, 9.0, 1.0)
    assert central(alias_twin, (3.0, 0.0, 0.0), 1) == pytest.approx(6.0, rel=1e-12)
    assert central(alias_twin, (3.0, 0.0, 0.0), 2) == pytest.approx(9.0, rel=1e-12)
    # without wrt naming them, the alias and the constant stay folded into the code
    assert "k = 2.0" not in symgrad.grad(alias_and_constant, strategy=strategy).source


# --- the rest of the family --------------------------------------------------------------------
def polar(r, theta):
    x = r * math.cos(theta)
    y = r * math.sin(theta)
    return x, y


# rows x, y; columns r, x: dx/dr = cos θ, dx/dx = 1, dy/dr = sin θ, dy/dx = 0
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_jacobian_and_vjp_with_an_output_intermediate(strategy):
    jac = symgrad.jacobian(polar, wrt=("r", "x"), strategy=strategy)
    c, s = math.cos(0.5), math.sin(0.5)
    assert jac(2.0, 0.5) == (pytest.approx((c, 1.0), rel=1e-15), pytest.approx((s, 0.0)))
    assert "dy_dx" in jac.source and jac.source.startswith("def jacobian_polar(r, theta):")
    pullback = symgrad.vjp(polar, wrt=("r", "x"), strategy=strategy)  # 1·x + 2·y
    assert pullback(2.0, 0.5, 1.0, 2.0) == pytest.approx((c + 2 * s, 1.0), rel=1e-15)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_value_and_grad_with_an_intermediate(strategy):
    # value 3·4 + 4·2 + 4 = 24
    assert symgrad.value_and_grad(two_routes, wrt="u", strategy=strategy)(2.0) == (24.0, 5.0)
    assert symgrad.value_and_grad(two_routes, wrt=("x", "u"), strategy=strategy)(2.0) == (
        24.0, (24.0, 5.0))


# out = u² x with u = x²: as a function of (x, du), (x² + du)² x:
# H_xx = d²x⁵/dx² = 20x³, H_xu = 2(3x² + du) = 6x², H_uu = 2x; at 1.5: 67.5, 13.5, 3
def squared_node(x):
    u = x * x
    return u * u * x


def squared_node_twin(x, du):
    return (x * x + du) ** 2 * x


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_hessian_with_an_intermediate_is_the_perturbations_hessian(strategy):
    H = symgrad.hessian(squared_node, wrt=("x", "u"), strategy=strategy)(1.5)
    assert H == ((67.5, 13.5), (13.5, 3.0))
    for (i, j), want in {(0, 0): 67.5, (0, 1): 13.5, (1, 1): 3.0}.items():
        assert central2(squared_node_twin, (1.5, 0.0), i, j) == pytest.approx(want, rel=1e-9)
    assert symgrad.hessian(squared_node, wrt="u", strategy=strategy)(1.5) == 3.0
    # the stopped copy of two_routes: H_xx = 6 + 6x, H_xu = 1, H_uu = 0
    H2 = symgrad.hessian(two_routes, wrt=("x", "u"), strategy=strategy)(2.0)
    assert H2 == ((18.0, 1.0), (1.0, 0.0))
    assert central2(two_routes_smooth, (2.0, 0.0), 0, 1) == pytest.approx(1.0, rel=1e-9)


def test_grad_of_a_gradient_is_with_respect_to_its_parameters():
    first = symgrad.grad(two_routes, wrt="u")  # 3 + x
    assert symgrad.grad(first)(2.0) == 1.0
    with pytest.raises(symgrad.OptionError, match=r"use symgrad\.hessian"):
        symgrad.grad(first, wrt="u")


def test_check_grad_with_an_intermediate():
    def d_two_routes_du(x):
        return 3.0 + x

    def d_two_routes_du_wrong(x):
        return 3.0 + 2.0 * x

    assert symgrad.check_grad(two_routes, d_two_routes_du, wrt="u").verdict == "equal"
    assert symgrad.check_grad(two_routes, d_two_routes_du_wrong, wrt="u").verdict == "different"


def test_numpy_backend_with_an_intermediate():
    import numpy as np
    g = symgrad.grad(two_routes, wrt="u", backend="numpy")
    assert np.array_equal(g(np.array([2.0, -1.5])), np.array([5.0, 1.5]))


# --- refusals ----------------------------------------------------------------------------------
def returns_in_branch(x):
    a = x * 2.0
    if a > 1.0:
        b = a * a
        return b
    return a


def with_tuple(x):
    p = (x, 2.0 * x)
    return p[0] * p[1]


def all_defaults(x=1.0, y=2.0):
    return x * y


def test_unknown_name_lists_parameters_and_intermediates():
    with pytest.raises(symgrad.OptionError) as caught:
        symgrad.grad(looped, wrt="z")
    assert str(caught.value) == ("wrt names 'z', which is neither a parameter of `looped` ('x',) "
                                 "nor one of its intermediates ('_', 's')")


@pytest.mark.parametrize("function, name", [(returns_in_branch, "b"), (with_tuple, "p")])
def test_a_name_without_one_number_value_is_refused(function, name):
    with pytest.raises(symgrad.OptionError, match=f"wrt names '{name}', which has no single "
                       "number value"):
        symgrad.grad(function, wrt=name)


def test_an_intermediate_before_a_returning_if_works():
    # a = 2x; out = a² (a > 1) or a: d/da = 2a = 8 at x = 2, 1 at x = 0.1
    g = symgrad.grad(returns_in_branch, wrt="a")
    assert (g(2.0), g(0.1)) == (8.0, 1.0)


def test_every_parameter_with_a_default_asks_for_wrt():
    with pytest.raises(symgrad.OptionError) as caught:
        symgrad.grad(all_defaults)
    assert "every parameter of `all_defaults` ('x', 'y') has a default" in str(caught.value)
    assert "wrt='x' or wrt=('x', 'y')" in str(caught.value)
    assert symgrad.grad(all_defaults, wrt=("x", "y"))(1.0, 2.0) == (2.0, 1.0)


# --- wrt=None leaves out parameters with defaults (hyperparameters) ----------------------------
# |r| <= delta: r²/2, d/dr = r; else delta (|r| - delta/2): d/dr = delta sign(r),
# d/ddelta = |r| - delta (at r = -3, delta = 1: -1 and 2)
# huber and cube are the acceptance cases' (tests/acceptance/cases_usage.py); cube(x, n=3) = x ** n:
# d/dx = 3x² (12 at -2), d²/dx² = 6x (-12 at -2); d/dn would need log(x < 0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_huber_gradient_is_one_float_in_r(strategy):
    g = symgrad.grad(huber, strategy=strategy)
    assert g.wrt == ("r",)
    assert g(0.5) == 0.5 and g(-3.0) == -1.0 and g(-3.0, 2.0) == -2.0
    x = 4.0
    for _ in range(3):
        x -= 0.5 * g(x)  # the gradient-descent step of a user: one float
    assert x == 2.5
    named = symgrad.grad(huber, wrt=("r", "delta"), strategy=strategy)
    assert named(-3.0, 1.0) == (-1.0, 2.0)
    assert central(huber, (-3.0, 1.0), 0) == pytest.approx(-1.0, rel=1e-12)
    assert central(huber, (-3.0, 1.0), 1) == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_default_exponent_is_not_differentiated(strategy):
    options = dict(strategy=strategy)
    assert symgrad.grad(cube, **options)(-2.0) == 12.0
    assert symgrad.value_and_grad(cube, **options)(-2.0) == (-8.0, 12.0)
    assert symgrad.jacobian(cube, **options)(-2.0) == 12.0
    assert symgrad.hessian(cube, **options)(-2.0) == -12.0
    assert symgrad.grad(cube, **options)(-2.0, 2) == -4.0  # the default overridden: 2x
    assert central(cube, (-2.0,), 0) == pytest.approx(12.0, rel=1e-12)


def pair(x, s=2.0):
    return s * x, x * x  # seeded with (1, 1): d/dx (s x + x²) = s + 2x = 5 at 1.5


def test_vjp_and_check_grad_leave_defaults_out():
    assert symgrad.vjp(pair)(1.5, 2.0, 1.0, 1.0) == 5.0
    assert symgrad.vjp(pair).wrt == ("x",)

    def dcube(x, n=3):
        return n * x ** (n - 1)

    report = symgrad.check_grad(cube, dcube)
    assert report.verdict == "equal" and report.wrt == ("x",)
    assert min(p[0] for p in report.points) < 0  # points at x < 0 raise nothing now
    assert {p[1] for p in report.points} == {3}  # the hyperparameter keeps its default


def test_cli_follows_the_default_wrt(tmp_path, capsys):
    source = os.path.join(os.path.dirname(__file__), "acceptance", "cases_usage.py")  # huber, cube
    by_hand = tmp_path / "by_hand.py"
    by_hand.write_text(textwrap.dedent("""\
        def dcube(x, n=3):
            return n * x ** (n - 1)
        """))
    assert cli.main(["show", f"{source}:huber"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("def grad_huber(r, delta=1.0):\n")
    assert "with respect to r." in shown and "ddelta" not in shown
    assert cli.main(["check", f"{source}:cube", f"{by_hand}:dcube"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal, basis numeric (wrt x, 10 points")
    out = tmp_path / "exported.py"
    assert cli.main(["export", f"{source}:huber", "-o", str(out)]) == 0
    namespace = {}
    exec(out.read_text(), namespace)  # noqa: S102 - the module symgrad wrote
    assert namespace["grad_huber"](-3.0) == -1.0
    assert cli.main(["show", f"{source}:sum_of_paths", "--wrt", "a,b"]) == 0
    assert "return dsum_of_paths_da, dsum_of_paths_db" in capsys.readouterr().out


def counted(x):
    n = 3
    s = 0.0
    for _ in range(n):
        s = s + x
    return s * n  # 3x · 3 = 9x


def test_a_build_time_integer_cannot_be_named_in_wrt():
    assert symgrad.grad(counted)(2.0) == 9.0
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(counted, wrt="n")
    message = str(caught.value)
    assert "`n` is named in wrt" in message and "leave `n` out of wrt" in message
    assert f"line {counted.__code__.co_firstlineno + 3}" in message  # the range(n) line


def over_zero(x):
    k = 0.0
    return x / k


@pytest.mark.parametrize("strategy", ("symbolic", "reverse"))
def test_a_constant_zero_named_in_wrt_raises_where_the_primal_does(strategy):
    g = symgrad.grad(over_zero, wrt=("x", "k"), strategy=strategy)
    assert "k = 0.0" in g.source
    with pytest.raises(ZeroDivisionError):
        g(1.0)
    with pytest.raises(ZeroDivisionError):
        over_zero(1.0)


def only_in_one_branch(x):
    if x > 0:
        w = x * x
    return x * 2.0


def test_a_variable_bound_in_one_branch_only_is_refused():
    with pytest.raises(symgrad.OptionError, match="bound only inside a branch"):
        symgrad.grad(only_in_one_branch, wrt="w")


# r = sqrt(x² + y²), t = exp(-r) x, out = t sin r + r. Holding x, y: d out/dt = sin r;
# d out/dr = (dt/dr) sin r + t cos r + 1 with dt/dr = -exp(-r) x (t is downstream of r)
def chain(x, y):
    r = math.sqrt(x * x + y * y)
    t = math.exp(-r) * x
    return t * math.sin(r) + r


def chain_twin(x, y, dr, dt):
    r = mpmath.sqrt(x * x + y * y) + dr
    t = mpmath.exp(-r) * x + dt
    return t * mpmath.sin(r) + r


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_transcendental_intermediates_agree_with_the_perturbed_twin(strategy):
    x, y = 0.7, -1.3
    r = math.hypot(x, y)
    t = math.exp(-r) * x
    want_r = -math.exp(-r) * x * math.sin(r) + t * math.cos(r) + 1.0
    g = symgrad.grad(chain, wrt=("x", "r", "t"), strategy=strategy)
    got = g(x, y)
    assert got[1] == pytest.approx(want_r, rel=1e-13)
    assert got[2] == pytest.approx(math.sin(r), rel=1e-13)
    point = (x, y, 0.0, 0.0)
    for k, index in ((0, 0), (1, 2), (2, 3)):
        assert got[k] == pytest.approx(central(chain_twin, point, index), rel=1e-12)
    H = symgrad.hessian(chain, wrt=("x", "r"), strategy=strategy)(x, y)
    assert H[0][1] == H[1][0]
    for (i, j), index in {(0, 0): (0, 0), (0, 1): (0, 2), (1, 1): (2, 2)}.items():
        assert H[i][j] == pytest.approx(central2(chain_twin, point, *index), rel=1e-9)


def test_strategies_agree_on_a_deep_loop_intermediate():
    def iterate(x):
        t = x
        for _ in range(12):
            t = math.sin(t) * t + math.cos(t)
        return t * t  # d/dt (the last t) = 2t

    values = {s: symgrad.grad(iterate, wrt=("t", "x"), strategy=s)(0.3) for s in STRATEGIES}
    assert values["reverse"] == pytest.approx(values["symbolic"], rel=1e-12)
    assert values["auto"] == pytest.approx(values["symbolic"], rel=1e-12)
    t = 0.3
    for _ in range(12):
        t = math.sin(t) * t + math.cos(t)
    assert values["reverse"][0] == pytest.approx(2.0 * t, rel=1e-14)

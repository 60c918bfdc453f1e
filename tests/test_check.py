"""check_grad / assert_grad: verdicts, the report, kinks, and no false alarms from cancellation."""
import math
import traceback

import numpy as np
import pytest

import symgrad


# the acceptance cases' logistic loss and its gradients by hand: d/dz log(1 + e^{-yz}) =
# -y / (1 + e^{yz}); z_w = x, z_b = 1, z_x = w; d/dy = -z / (1 + e^{yz}); the wrong one flips dw
from acceptance.cases_public import logistic_loss  # noqa: E402
from acceptance.cases_public import logistic_loss_grad_right as logistic_loss_grad  # noqa: E402
from acceptance.cases_public import (  # noqa: E402
    logistic_loss_grad_wrong as logistic_loss_grad_sign_error)


def absolute(x):
    return abs(x)


def absolute_grad_half(x):
    # any value in [-1, 1] is a subgradient at the kink
    return 0.5 if x == 0 else (1.0 if x > 0 else -1.0)


def absolute_grad_outside(x):
    return 3.0 if x == 0 else (1.0 if x > 0 else -1.0)


def cube(x):
    return x ** 3


def cube_grad_cancelling(x):
    # ((x+1)^3 - (x-1)^3 - 2) / 2 = 3x^2, but in floats it cancels catastrophically for large x
    return ((x + 1.0) ** 3 - (x - 1.0) ** 3 - 2.0) / 2.0


def test_right_logistic_gradient_is_equal():
    report = symgrad.check_grad(logistic_loss, logistic_loss_grad)
    assert (report.verdict, report.basis) == ("equal", "symbolic")
    assert report.differing == ()
    assert "symgrad - df simplifies to 0 in every component" in str(report)
    assert all(d == 0 for d in report.differences)
    assert len(report.points) == 10
    assert report.worst_error < 1e-12


def test_sign_error_is_different_and_named():
    report = symgrad.check_grad(logistic_loss, logistic_loss_grad_sign_error)
    assert report.verdict == "different"
    assert report.worst_component == "dlogistic_loss_dw"
    w, b, x, y = report.worst_point
    s = 1.0 / (1.0 + math.exp(y * (w * x + b)))
    assert report.expected == pytest.approx(-y * x * s, rel=1e-12)
    assert report.got == pytest.approx(y * x * s, rel=1e-12)
    assert report.worst_error == pytest.approx(2 * abs(x * y * s) / max(1.0, abs(x * y * s)))
    text = str(report)
    assert text.startswith("check_grad: different, basis numeric")
    assert "dlogistic_loss_dw differs: symgrad - df = -2*x*y/(exp(y*(b + w*x)) + 1)" in text
    assert "worst point" in text and "the other 3 of 4 components agree" in text
    # the only component that differs is the first; its difference is -2 x y s
    assert report.differing == ("dlogistic_loss_dw",)
    assert report.differences[1:] == (0, 0, 0)


def test_points_are_reproducible_and_can_be_given():
    a = symgrad.check_grad(logistic_loss, logistic_loss_grad)
    b = symgrad.check_grad(logistic_loss, logistic_loss_grad)
    assert a.points == b.points
    given = [(0.5, -0.25, 1.0, 1.0)]
    assert symgrad.check_grad(logistic_loss, logistic_loss_grad, points=given).points == given


def test_a_subgradient_at_the_kink_is_accepted_with_a_note():
    report = symgrad.check_grad(absolute, absolute_grad_half, points=[(0.0,), (2.0,), (-1.0,)])
    assert (report.verdict, report.basis) == ("equal", "numeric")
    assert report.kinks and "one-sided slopes -1 and 1" in report.kinks[0]


def test_a_value_outside_the_one_sided_slopes_is_different():
    report = symgrad.check_grad(absolute, absolute_grad_outside, points=[(0.0,), (2.0,)])
    assert report.verdict == "different"
    assert report.worst_point == (0.0,) and report.got == 3.0


def test_cancellation_in_floats_is_not_a_false_alarm():
    # at x = 1e10 the float value of cube_grad_cancelling is off by ~1e-7 relative; at 50 digits
    # it is exact, so the check must not call it different
    assert cube_grad_cancelling(1e10) != 3e20
    report = symgrad.check_grad(cube, cube_grad_cancelling, points=[(1e10,), (2.0,)])
    assert report.verdict == "equal"
    assert report.worst_point == (1e10,) and report.worst_error > 1e-9  # the float error


def test_the_50_digit_values_decide_not_the_floats():
    # 1e-20 is below half an ulp of 0.5 / sqrt(x) near x = 1, so the floats are identical; at
    # 50 digits the difference is 1e-20, more than rtol=1e-30
    assert root_grad_off_by_1e_20(1.0) == root_grad(1.0)
    report = symgrad.check_grad(root, root_grad_off_by_1e_20, points=[1.0, 4.0], rtol=1e-30)
    assert (report.verdict, report.differing) == ("different", ("droot_dx",))
    assert report.worst_error == 0.0  # in floats
    assert symgrad.check_grad(root, root_grad_off_by_1e_20, points=[1.0, 4.0]).verdict == "equal"


def test_assert_grad_raises_with_the_report():
    symgrad.assert_grad(logistic_loss, logistic_loss_grad)
    with pytest.raises(AssertionError, match="dlogistic_loss_dw"):
        symgrad.assert_grad(logistic_loss, logistic_loss_grad_sign_error)


def test_wrong_number_of_results_is_an_error():
    with pytest.raises(symgrad.OutputShapeError, match="returns 4 values for 1 wrt"):
        symgrad.check_grad(logistic_loss, logistic_loss_grad, wrt="w")


def root(x):
    return math.sqrt(x)


def root_grad(x):
    return 0.5 / math.sqrt(x)


def root_grad_off_by_1e_20(x):
    return 0.5 / math.sqrt(x) + 1e-20


def root_grad_off_by_1e_12(x):
    return 0.5 / math.sqrt(x) + 1e-12


# --- Black-Scholes: SymPy cannot simplify the difference of the textbook Greeks to 0 -------------
# The price and its textbook Greeks (which rely on S phi(d1) = K exp(-rT) phi(d2)) are the
# acceptance cases' (examples/check_black_scholes.py reads the same ones).
from acceptance.cases_usage import (  # noqa: E402
    black_scholes_call, black_scholes_greeks, black_scholes_greeks_wrong_vega)


def black_scholes_vega_by_mpmath(S, K, T, r, sigma):
    """Vega = S phi(d1) sqrt(T) at 30 digits, from mpmath (an independent reference)."""
    import mpmath
    mpmath.mp.dps = 30
    S, K, T, r, sigma = map(mpmath.mpf, (S, K, T, r, sigma))
    d1 = (mpmath.log(S / K) + (r + sigma ** 2 / 2) * T) / (sigma * mpmath.sqrt(T))
    return float(S * mpmath.npdf(d1) * mpmath.sqrt(T))


def test_the_textbook_black_scholes_greeks_are_equal_by_numbers():
    report = symgrad.check_grad(black_scholes_call, black_scholes_greeks)
    assert (report.verdict, report.basis) == ("equal", "numeric")
    assert report.evaluated == len(report.points) == 10 and report.differing == ()
    assert report.worst_error < 1e-14
    text = str(report)
    assert "all 5 components agree within rtol at the 10 points evaluated, at 50 digits" in text
    assert "differs" not in text and len(text) < 600


def test_a_wrong_vega_is_different_and_only_vega_is_shown():
    report = symgrad.check_grad(black_scholes_call, black_scholes_greeks_wrong_vega)
    assert (report.verdict, report.basis) == ("different", "numeric")
    assert report.differing == ("dblack_scholes_call_dsigma",)
    assert report.worst_component == "dblack_scholes_call_dsigma"
    vega = black_scholes_vega_by_mpmath(*report.worst_point)
    assert report.expected == pytest.approx(vega, rel=1e-12)
    assert report.got == pytest.approx(1.01 * vega, rel=1e-12)
    lines = str(report).splitlines()
    differs = [line for line in lines if "differs" in line]
    assert len(differs) == 1 and differs[0].startswith("  dblack_scholes_call_dsigma differs: ")
    assert "  the other 4 of 5 components agree" in lines


def test_the_report_cuts_each_shown_difference_to_200_characters():
    report = symgrad.check_grad(black_scholes_call, black_scholes_greeks_wrong_vega)
    assert len(str(report.differences[4])) > 200  # long enough to be cut
    line = next(line for line in str(report).splitlines() if "differs" in line)
    shown = line.split("symgrad - df = ", 1)[1]
    assert len(shown) == 200 and shown.endswith("...")
    assert shown[:-3] == str(report.differences[4])[:197]
    assert all(len(line) < 300 for line in str(report).splitlines())


def test_a_difference_below_rtol_is_equal_by_numbers():
    report = symgrad.check_grad(root, root_grad_off_by_1e_12)
    assert (report.verdict, report.basis) == ("equal", "numeric")
    assert len(report.differences) == 1 and float(report.differences[0]) == -1e-12


def test_undecided_only_when_no_point_evaluates():
    # log(S/K) raises for S/K < 0 and sqrt(T) for T < 0: no point of these can be evaluated
    no_point = [(-1.0, 1.0, 1.0, 0.05, 0.2), (1.0, 1.0, -1.0, 0.05, 0.2)]
    report = symgrad.check_grad(black_scholes_call, black_scholes_greeks, points=no_point)
    assert (report.verdict, report.basis, report.evaluated) == ("undecided", None, 0)
    assert len(report.raised) == 2
    assert "no point could be evaluated" in str(report)
    assert "(not proved 0)" in str(report)
    one_more = no_point + [(1.0, 1.25, 0.5, 0.05, 0.2)]
    report = symgrad.check_grad(black_scholes_call, black_scholes_greeks, points=one_more)
    assert (report.verdict, report.basis, report.evaluated) == ("equal", "numeric", 1)
    # proved 0, no point needed
    report = symgrad.check_grad(root, root_grad, points=[-1.0])
    assert (report.verdict, report.basis, report.evaluated) == ("equal", "symbolic", 0)


def test_a_gradient_function_as_df_is_checked_from_its_program():
    report = symgrad.check_grad(logistic_loss, symgrad.grad(logistic_loss))
    assert (report.verdict, report.basis) == ("equal", "symbolic")
    report = symgrad.check_grad(black_scholes_call, symgrad.grad(black_scholes_call), points=3)
    assert (report.verdict, len(report.points)) == ("equal", 3)
    # the gradient of another function is different where it differs
    report = symgrad.check_grad(cube, symgrad.grad(absolute), points=[2.0])
    assert report.verdict == "different" and report.got == 1.0 and report.expected == 12.0


def test_a_gradient_function_as_f_checks_its_derivative():
    # d/dx of cube's gradient 3x^2 is 6x
    assert symgrad.check_grad(symgrad.grad(cube), cube_second).basis == "symbolic"
    assert symgrad.check_grad(symgrad.grad(cube), cube_second_wrong).verdict == "different"


def cube_second(x):
    return 6.0 * x


def cube_second_wrong(x):
    return 6.0 * x + 1.0


def test_other_members_of_the_family_are_not_a_df():
    with pytest.raises(symgrad.OptionError, match="df is a symgrad hessian"):
        symgrad.check_grad(cube, symgrad.hessian(cube))
    with pytest.raises(symgrad.OptionError, match="unconnected='none'"):
        symgrad.check_grad(first_of_two, symgrad.grad(first_of_two, unconnected="none"))


def first_of_two(x, y):
    return x * x


def test_points_as_a_number_and_bad_options():
    assert len(symgrad.check_grad(root, root_grad, points=25).points) == 25
    for bad in (0, -3, True):
        with pytest.raises(symgrad.OptionError, match="points"):
            symgrad.check_grad(root, root_grad, points=bad)
    for bad in (-1e-9, float("nan"), "1e-9"):
        with pytest.raises(symgrad.OptionError, match="rtol"):
            symgrad.check_grad(root, root_grad, rtol=bad)


def softplus(x):
    return math.log1p(math.exp(x))


def softplus_grad(x):
    return math.exp(x) / (1.0 + math.exp(x))


def test_log1p_and_expm1_are_evaluated_at_50_digits():
    report = symgrad.check_grad(softplus, softplus_grad)
    assert report.verdict == "equal" and report.floats_only == []
    report = symgrad.check_grad(expm1_square, expm1_square_grad_wrong, points=[1.5])
    assert report.verdict == "different" and report.floats_only == []
    assert report.expected == pytest.approx(3.0 * math.exp(2.25), rel=1e-15)


def expm1_square(x):
    return math.expm1(x * x)


def expm1_square_grad_wrong(x):
    return math.exp(x * x)  # forgot 2x


def power_of(x, n=3):
    return x ** n


def dpower_of_dx(x, n=3):
    return 3.0 * x * x  # right for the default n only


def test_a_defaulted_parameter_not_in_wrt_keeps_its_default_in_random_points():
    report = symgrad.check_grad(power_of, dpower_of_dx, wrt="x")
    assert {n for _, n in report.points} == {3}
    assert len(report.points) == 10 and report.verdict == "equal"
    # named in wrt, it is drawn like any parameter
    report = symgrad.check_grad(power_of, both_partials, wrt=("x", "n"), points=5)
    assert len({n for _, n in report.points[:5]}) == 5  # (then points beside x = 0, a branch)
    assert report.verdict == "equal"


def cubic_exp(x):
    return x ** 3 + math.exp(x)


def dcubic_exp_wrong_above_3(x):
    if x > 3.0:
        return 3.0 * x * x  # exp(x) left out, on a branch no point in [-2, 2] reaches
    return 3.0 * x * x + math.exp(x)


def huber_sum(x, y):
    r = x - 2.5 * y
    return 0.5 * r * r if abs(r) < 3.0 else 3.0 * abs(r) - 4.5


def dhuber_sum_one_side(x, y):
    r = x - 2.5 * y
    if r < 3.0:  # wrong for r < -3 (the slope there is -3), right elsewhere
        return r, -2.5 * r
    return 3.0, -7.5


def dhuber_sum(x, y):
    r = x - 2.5 * y
    if abs(r) < 3.0:
        return r, -2.5 * r
    s = 3.0 if r > 0 else -3.0
    return s, -2.5 * s


def test_random_points_reach_both_sides_of_every_branch_of_the_difference():
    # newcomer trial: 10 points in [-2, 2] never reach x > 3, and the verdict was "equal"
    report = symgrad.check_grad(cubic_exp, dcubic_exp_wrong_above_3)
    assert report.verdict == "different"
    (x,) = report.worst_point
    assert x == pytest.approx(3.003)
    assert report.expected == pytest.approx(3 * x * x + math.exp(x), rel=1e-15)  # symgrad's
    assert report.got == pytest.approx(3 * x * x, rel=1e-15)  # df's
    # two parameters: the boundary r = -3 found by moving x (y at the first random point)
    assert symgrad.check_grad(huber_sum, dhuber_sum_one_side).verdict == "different"
    right = symgrad.check_grad(huber_sum, dhuber_sum)
    assert right.verdict == "equal" and len(right.points) > 10


def both_partials(x, n=3):
    return n * x ** (n - 1), x ** n * math.log(x)


def shifted_root_grad_raising(x):
    # right for x > 0, but raises at x = 4 (a hand-derived gradient with a bug)
    return 0.5 / math.sqrt(x) + 1.0 / (x - 4.0) * 0.0


def test_df_raising_where_symgrad_does_not_is_different():
    report = symgrad.check_grad(root, shifted_root_grad_raising, points=[1.0, 4.0])
    assert (report.verdict, report.differing) == ("different", ())
    assert report.raised == ["df raises ZeroDivisionError at (4.0,) where symgrad gives (0.25,): "
                             "float division by zero"]
    text = str(report)
    assert "differs" not in text and "agree" not in text
    assert "  raised: df raises ZeroDivisionError at (4.0,)" in text


# a logistic loss over module-constant data: symgrad - df is a sum of rational terms in one exp
# atom per data point; SymPy's cancel on it grew beyond any budget (3 points took a minute, 4 did
# not finish), so the size budget (check_symbolic._normalising_cost) leaves it to the 50-digit
# numbers
DATA_X = ((0.5, 1.2), (-1.0, 0.3), (2.0, -0.7), (0.1, 0.1), (1.5, 0.4), (-0.3, -1.1),
          (0.8, -0.2), (-1.7, 0.9))
DATA_Y = (1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0)


def mean_logistic_loss(w0, w1, b):
    total = 0.0
    for (x0, x1), y in zip(DATA_X, DATA_Y):
        z = w0 * x0 + w1 * x1 + b
        p = 1.0 / (1.0 + math.exp(-z))
        total += -(y * math.log(p) + (1.0 - y) * math.log(1.0 - p))
    return total / len(DATA_X)


def mean_logistic_loss_grad(w0, w1, b):
    # d/dz of the cross-entropy of sigmoid(z) is sigmoid(z) - y; z_w0 = x0, z_w1 = x1, z_b = 1
    g0 = g1 = gb = 0.0
    for (x0, x1), y in zip(DATA_X, DATA_Y):
        p = 1.0 / (1.0 + math.exp(-(w0 * x0 + w1 * x1 + b)))
        g0, g1, gb = g0 + (p - y) * x0, g1 + (p - y) * x1, gb + (p - y)
    return g0 / len(DATA_X), g1 / len(DATA_X), gb / len(DATA_X)


def mean_logistic_loss_grad_wrong_w1(w0, w1, b):
    g0 = g1 = gb = 0.0
    for (x0, x1), y in zip(DATA_X, DATA_Y):
        p = 1.0 / (1.0 + math.exp(-(w0 * x0 + w1 * x1 + b)))
        g0, g1, gb = g0 + (p - y) * x0, g1 + (p - y) * x0, gb + (p - y)  # x0 for x1
    return g0 / len(DATA_X), g1 / len(DATA_X), gb / len(DATA_X)


def test_a_sum_over_many_data_points_is_decided_by_numbers_within_the_size_budget():
    report = symgrad.check_grad(mean_logistic_loss, mean_logistic_loss_grad)
    assert (report.verdict, report.basis, report.evaluated) == ("equal", "numeric", 10)
    assert str(report).split("\n")[1] == (
        "  all 3 components agree within rtol at the 10 points evaluated, at 50 digits: the "
        "numbers decided (the symbolic comparison was skipped by size in all 3 components; in "
        "dmean_logistic_loss_dw0, symgrad - df over one denominator would cost 30081024 (459 "
        "nodes x 65536 terms), above 1000)")
    assert all(d is not None and d != 0 for d in report.differences)  # shown as not simplified
    assert report.skipped[2].startswith("symgrad - df over one denominator would cost")
    # the finished check is what this test holds: before the budget it did not finish
    report = symgrad.check_grad(mean_logistic_loss, mean_logistic_loss_grad_wrong_w1)
    assert (report.verdict, report.differing) == ("different", ("dmean_logistic_loss_dw1",))
    assert "dmean_logistic_loss_dw1 differs" in str(report)
    assert str(report).split("\n")[1].endswith(
        "... (not simplified: symgrad - df over one denominator would cost 30081024 (459 nodes x "
        "65536 terms), above 1000)")
    assert "the other 2 of 3 components agree" in str(report)


def test_the_normalising_cost_counts_the_terms_of_the_common_denominator():
    import sympy
    from symgrad.check_symbolic import _normalising_cost
    from symgrad.program import tree_size
    x, y = sympy.symbols("x y")
    one = 1 / (1 + sympy.exp(x))
    assert _normalising_cost(one) == tree_size(one, 10 ** 6) * 2  # exp(x) + 1: 2 terms
    three = one + 1 / (1 + sympy.exp(y)) ** 2 + x / (2 + x + y)
    assert _normalising_cost(three) == tree_size(three, 10 ** 6) * 2 * 2 ** 2 * 3
    assert _normalising_cost(x / y ** 3) == tree_size(x / y ** 3, 10 ** 6)  # a monomial: 1 term


def single_logistic_loss(w):
    total = 0.0
    for (x0, _), y in zip(DATA_X, DATA_Y):
        p = 1.0 / (1.0 + math.exp(-w * x0))
        total += -(y * math.log(p) + (1.0 - y) * math.log(1.0 - p))
    return total


def single_logistic_loss_grad(w):
    g = 0.0
    for (x0, _), y in zip(DATA_X, DATA_Y):
        g = g + (1.0 / (1.0 + math.exp(-w * x0)) - y) * x0
    return g


def test_a_report_says_when_the_size_budget_skipped_sympy():
    report = symgrad.check_grad(single_logistic_loss, single_logistic_loss_grad, points=3)
    assert (report.verdict, report.basis, report.evaluated) == ("equal", "numeric", 3)
    # 8 data points: a common denominator of 2 ** 16 terms (two exp powers per point)
    assert str(report).split("\n")[1] == (
        "  it agrees within rtol at the 3 points evaluated, at 50 digits: the numbers decided "
        "(the symbolic comparison was skipped by size: symgrad - df over one denominator would "
        "cost 16515072 (252 nodes x 65536 terms), above 1000)")


def shifted_square(mu):
    return 4.0 * (mu + 1.9) ** 2


def shifted_square_grad_wrong(mu):
    return 8.0 * mu


def shifted_pair(mu, s):
    return (mu - 1.9) ** 2 * s * 2.5


def shifted_pair_grad_wrong(mu, s):
    return 5.0 * mu * s, 0.0


def test_a_report_prints_numeric_products_folded_as_python_computes_them():
    report = symgrad.check_grad(shifted_square, shifted_square_grad_wrong, points=[1.0])
    # 8 * (mu + 1.9) - 8 * mu: SymPy keeps the float 1.9 opaque (not folded into sums), and
    # printed the difference as 8*1.9; the report multiplies it out as Python does, 8 * 1.9
    assert str(report).split("\n")[1] == \
        f"  dshifted_square_dmu differs: symgrad - df = {8 * 1.9!r}"
    assert report.differences[0] != 15.2  # the compared value is not folded, only its print
    report = symgrad.check_grad(shifted_pair, shifted_pair_grad_wrong, points=[(1.0, 2.0)])
    text = str(report)
    assert "  dshifted_pair_dmu differs: symgrad - df = -9.5*s" in text  # -5 * 1.9 = -9.5
    assert "(mu - 1.9)**2" in text


# --- entry points never leak an internal exception; bad arguments are OptionErrors ----------------
def sum_of_squares(x):
    return np.sum(x ** 2)


def sum_of_squares_grad(x):
    return 2 * x


SHAPES_NEEDED = ("`sum_of_squares` computes with arrays: give their shapes, e.g. shapes={'X': "
                 "('n', 'd'), 'w': ('d',)} (names for sizes, 1 for a size-1 axis, scalars left "
                 "out)")


@pytest.mark.parametrize("entry", [symgrad.check_grad, symgrad.assert_grad])
@pytest.mark.parametrize("df", [sum_of_squares_grad, "gradient"])
def test_array_code_without_shapes_asks_for_them(entry, df):
    """Reading array code without shapes= stops at its first array construct (internally);
    check_grad must evaluate it at points now, so it asks for the shapes."""
    df = symgrad.grad(sum_of_squares) if df == "gradient" else df
    with pytest.raises(symgrad.OptionError) as caught:
        entry(sum_of_squares, df)
    assert str(caught.value) == SHAPES_NEEDED
    assert isinstance(caught.value, symgrad.errors.SymgradError)
    assert "NeedsShapes" not in "".join(traceback.format_exception(caught.value))
    # with the shapes it runs: 2x is the gradient of sum(x ** 2)
    report = entry(sum_of_squares, df, shapes={"x": ("n",)})
    assert report.verdict == "equal" and report.evaluated == 5


def test_the_command_line_asks_for_shapes_with_exit_status_2(tmp_path, capsys):
    from symgrad import cli
    model = tmp_path / "model.py"
    model.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(x ** 2)\n\n\n"
                     "def df(x):\n    return 2 * x\n")
    message = ("symgrad: error: `f` computes with arrays: give their shapes, NAME=DIMS for "
               "each parameter of f(x), e.g. --shapes X=n,d w=d (names for sizes, 1 for a "
               "size-1 axis, x= for a number)\n")
    for command in (["check", f"{model}:f", f"{model}:df", "--wrt", "x"],
                    ["check", f"{model}:f", f"{model}:df"], ["show", f"{model}:f"],
                    ["export", f"{model}:f", "-o", str(tmp_path / "out.py")]):
        assert cli.main(command) == 2, command
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", message)
    assert cli.main(["check", f"{model}:f", f"{model}:df", "--shapes", "x=n"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal, basis symbolic")


@pytest.mark.parametrize("points, message", [
    ([(1.0, 2.0)], "the point (1.0, 2.0) has 2 values; `root` takes 1 (x), in that order"),
    ("ab", "points must be a list of point tuples or a number of points >= 1, not 'ab'"),
    (2.5, "points must be a list of point tuples or a number of points >= 1, not 2.5"),
    ([("a",)], "the point ('a',) has 'a': give real numbers (int or float)"),
    ([1j], "the point (1j,) has 1j: give real numbers (int or float)"),
    ([True], "the point (True,) has True: give real numbers (int or float)"),
])
def test_malformed_points_are_option_errors(points, message):
    # a point of two values for one parameter was evaluated at its first value, silently
    with pytest.raises(symgrad.OptionError) as caught:
        symgrad.check_grad(root, root_grad, points=points)
    assert str(caught.value) == message


def test_short_points_seeds_and_df_that_is_not_a_function_are_option_errors():
    with pytest.raises(symgrad.OptionError) as caught:
        symgrad.check_grad(first_of_two, first_of_two_grads, points=[(1.0,)])
    assert str(caught.value) == ("the point (1.0,) has 1 value; `first_of_two` takes 2 (x, y), "
                                 "in that order")
    for seed in ("a", [1], 1.5, True):
        with pytest.raises(symgrad.OptionError) as caught:
            symgrad.check_grad(root, root_grad, seed=seed)
        assert str(caught.value) == f"seed must be an int, not {seed!r}"
    assert symgrad.check_grad(root, root_grad, seed=np.int64(3)).points == \
        symgrad.check_grad(root, root_grad, seed=3).points
    with pytest.raises(symgrad.OptionError) as caught:
        symgrad.check_grad(root, 3)
    assert str(caught.value) == "df must be a function (the hand-derived gradient), not 3"


def first_of_two_grads(x, y):
    return 2 * x, 0.0


def sum_of_squares_grad_two(x, y):
    return 2 * x


def sum_of_squares_grad_text(x):
    return "2x"


def test_array_df_taking_other_parameters_or_returning_text():
    shapes = {"x": ("n",)}
    with pytest.raises(symgrad.OutputShapeError) as caught:
        symgrad.check_grad(sum_of_squares, sum_of_squares_grad_two, shapes=shapes)
    assert str(caught.value) == "`sum_of_squares_grad_two` takes 2 parameters, `sum_of_squares` " \
        "takes 1"
    report = symgrad.check_grad(sum_of_squares, sum_of_squares_grad_text, shapes=shapes, points=2)
    assert report.verdict == "different" and not report
    assert report.raised == ["df returns '2x' at sizes {'n': 6}, not an array of numbers",
                             "df returns '2x' at sizes {'n': 5}, not an array of numbers"]


def test_stop_gradients_that_are_not_names_are_option_errors():
    for bad in (3, [1], ["x", None]):
        with pytest.raises(symgrad.OptionError) as caught:
            symgrad.grad(root, stop_gradients=bad)
        assert str(caught.value) == ("stop_gradients must be a name or a tuple of names of "
                                     f"parameters or intermediate variables, not {bad!r}")


# --- df is the code under test: it need not be in the language symgrad reads -----------------------
def square(x):
    return x * x


def square_grad_todo(x):
    raise NotImplementedError("todo")


CALLS = []


def square_grad_logged(x):
    CALLS.append(x)  # a method call with an effect: outside the language
    return 2.0 * x


def square_grad_logged_wrong(x):
    CALLS.append(x)
    return 2.0 * x + (1e-6 if x > 0 else 0.0)


def square_grad_none(x):
    print(x)
    return None


def _line(function, below):
    return function.__code__.co_firstlineno + below


def test_a_df_raising_on_every_call_is_different_not_refused():
    # it was refused while being read: "this `raise` is reached on every call"
    report = symgrad.check_grad(square, square_grad_todo)
    assert (report.verdict, report.basis, report.differing) == ("different", "numeric", ())
    assert report.evaluated == 10 and len(report.raised) == 10
    assert report.differences == (None,) and not report
    assert str(report) == "\n".join([
        "check_grad: different, basis numeric (wrt x, 10 points, rtol 1e-09)",
        "  not symbolic: df is not read as source (this `raise` is reached on every call, so the "
        f"function raises on every call: test_check.py, line {_line(square_grad_todo, 1)}), so "
        "its floats decide",
        "  raised: df raises NotImplementedError at (1.377687,) where symgrad gives (2.755374,): "
        "todo",
        "  raised: df raises NotImplementedError at (1.031818,) where symgrad gives (2.063636,): "
        "todo",
        "  raised: df raises NotImplementedError at (-0.317714,) where symgrad gives "
        "(-0.635428,): todo",
        "  raised: ... and 7 more (in .raised)"])
    with pytest.raises(AssertionError, match="df raises NotImplementedError"):
        symgrad.assert_grad(square, square_grad_todo)


def product(x, y):
    return x * y


def test_a_df_outside_the_language_is_compared_in_floats():
    report = symgrad.check_grad(square, square_grad_logged, points=[0.5, -3.0])
    assert (report.verdict, report.basis, report.worst_error) == ("equal", "numeric", 0.0)
    assert str(report).splitlines()[1:3] == [
        "  it agrees within rtol at the 2 points evaluated, in floats",
        "  not symbolic: df is not read as source (`.append` of a tuple or list is not "
        f"supported: test_check.py, line {_line(square_grad_logged, 1)}), so its floats decide"]
    # 2x + 1e-6 at x = 0.5: relative error 1e-6 / max(1, 1.0); at -3 it agrees
    wrong = symgrad.check_grad(square, square_grad_logged_wrong, points=[0.5, -3.0])
    assert (wrong.verdict, wrong.differing) == ("different", ("dsquare_dx",))
    assert wrong.worst_point == (0.5,) and wrong.worst_error == pytest.approx(1e-6, rel=1e-9)
    assert str(wrong).splitlines()[1] == "  dsquare_dx differs"
    # a lambda is read when it is alone on its line
    assert symgrad.check_grad(square, lambda x: 2.0 * x).verdict == "equal"
    assert symgrad.check_grad(square, lambda x: 3.0 * x).verdict == "different"
    # two on one line are told apart (by where their code is) and read symbolically
    halves = (lambda x: x, lambda x: 2.0 * x)
    assert symgrad.check_grad(square, halves[1]).symbolic_note is None
    assert symgrad.check_grad(square, halves[1]).basis == "symbolic"
    assert symgrad.check_grad(square, halves[1]) and not symgrad.check_grad(square, halves[0])
    with pytest.raises(symgrad.OutputShapeError, match="^`lambda` takes 2 parameters, `square` "
                                                        "takes 1$"):
        symgrad.check_grad(square, lambda x, y: 2.0 * x)
    with pytest.raises(symgrad.OutputShapeError, match="^`lambda` takes 1 parameter, `product` "
                                                        "takes 2$"):
        symgrad.check_grad(product, lambda x: 2.0 * x)
    with pytest.raises(symgrad.OutputShapeError, match=r"`lambda` returns 2 values for 1 wrt"):
        symgrad.check_grad(square, lambda x: (2.0 * x, 0.0))


def test_a_df_returning_what_is_not_a_number_is_different(capsys):
    report = symgrad.check_grad(square, square_grad_none, points=[2.0])
    assert report.verdict == "different"
    assert report.raised == ["df returns a NoneType: None at (2.0,), not a number"]
    capsys.readouterr()


def test_a_report_is_true_only_when_equal():
    assert symgrad.check_grad(square, lambda x: 2.0 * x)
    assert not symgrad.check_grad(square, square_grad_logged_wrong, points=[0.5])
    # sqrt(-1) raises: nothing evaluated, and the difference 1e-20 is not 0
    undecided = symgrad.assert_grad(root, root_grad_off_by_1e_20, points=[-1.0])
    assert undecided.verdict == "undecided" and not undecided  # assert_grad lets it pass
    with pytest.raises(AssertionError):
        assert symgrad.check_grad(square, square_grad_logged_wrong, points=[0.5])


def square_grad_array(x):
    return np.array([2.0 * x, 0.0])


def least_squares(X, w, y):
    r = X @ w - y
    return np.sum(r * r) / X.shape[0]


def least_squares_grad_two(X, w, y):  # right only when d = 2, and wrong in value there
    return np.zeros(2)


def least_squares_grad_residual(X, w, y):  # the gradient of the residual's shape (n,)
    return 2.0 * (X @ w - y) / X.shape[0]


LEAST_SQUARES = {"X": ("n", "d"), "w": ("d",), "y": ("n",)}


def test_a_gradient_of_another_shape_is_reported_as_such():
    # it said "relative error inf" only. The concrete shape is n=3, d=2, so np.zeros(2) has
    # w's shape there (its values differ: 2 X^T r / n is not 0); the random sizes catch it
    report = symgrad.check_grad(least_squares, least_squares_grad_two, wrt="w",
                                shapes=LEAST_SQUARES)
    assert report.verdict == "different" and report.elements == {"dleast_squares_dw": ((0,), (1,))}
    assert report.shapes_differ == {"dleast_squares_dw": ("n=6, d=5",
                                                          "shape (2,) by df, (5,) by symgrad")}
    lines = str(report).splitlines()
    assert lines[2:] == [
        "  dleast_squares_dw differs in shape at the random size n=6, d=5: shape (2,) by df, "
        "(5,) by symgrad",
        "  worst random size n=6, d=5: dleast_squares_dw (shape (2,) by df, (5,) by symgrad)"]
    # of the shape (n,): it differs on the concrete shape already
    report = symgrad.check_grad(least_squares, least_squares_grad_residual, wrt="w",
                                shapes=LEAST_SQUARES)
    assert str(report).splitlines()[1:] == [
        "  dleast_squares_dw differs on the shape n=3, d=2: shape (3,) by df, (2,) by symgrad",
        "  worst random size n=6, d=5: dleast_squares_dw (shape (6,) by df, (5,) by symgrad)"]
    # scalar code: an array is not a number
    report = symgrad.check_grad(square, square_grad_array, points=[1.5])
    assert report.verdict == "different"
    assert report.raised == ["df returns an array of shape (2,) at (1.5,), not a number"]

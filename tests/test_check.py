"""check_grad / assert_grad: verdicts, the report, kinks, and no false alarms from cancellation."""
import math

import pytest

import symgrad


def logistic_loss(w, b, x, y):
    z = w * x + b
    return math.log(1.0 + math.exp(-y * z))


def logistic_loss_grad(w, b, x, y):
    # d/dz log(1 + e^{-yz}) = -y / (1 + e^{yz}); z_w = x, z_b = 1, z_x = w; d/dy = -z / (1 + e^{yz})
    s = 1.0 / (1.0 + math.exp(y * (w * x + b)))
    return -y * x * s, -y * s, -y * w * s, -(w * x + b) * s


def logistic_loss_grad_sign_error(w, b, x, y):
    s = 1.0 / (1.0 + math.exp(y * (w * x + b)))
    return y * x * s, -y * s, -y * w * s, -(w * x + b) * s


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
    assert report.verdict == "equal"
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
    assert text.startswith("check_grad: different")
    assert "dlogistic_loss_dw" in text and "worst point" in text
    # the only component that differs is the first; its difference is -2 x y s
    assert report.differences[1:] == (0, 0, 0)


def test_points_are_reproducible_and_can_be_given():
    a = symgrad.check_grad(logistic_loss, logistic_loss_grad)
    b = symgrad.check_grad(logistic_loss, logistic_loss_grad)
    assert a.points == b.points
    given = [(0.5, -0.25, 1.0, 1.0)]
    assert symgrad.check_grad(logistic_loss, logistic_loss_grad, points=given).points == given


def test_a_subgradient_at_the_kink_is_accepted_with_a_note():
    report = symgrad.check_grad(absolute, absolute_grad_half, points=[(0.0,), (2.0,), (-1.0,)])
    assert report.verdict != "different"
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


def test_assert_grad_raises_with_the_report():
    symgrad.assert_grad(logistic_loss, logistic_loss_grad)
    with pytest.raises(AssertionError, match="dlogistic_loss_dw"):
        symgrad.assert_grad(logistic_loss, logistic_loss_grad_sign_error)


def test_wrong_number_of_results_is_an_error():
    with pytest.raises(symgrad.OutputShapeError, match="returns 4 values for 1 wrt"):
        symgrad.check_grad(logistic_loss, logistic_loss_grad, wrt="w")

"""The benchmark's hand-written gradients are right: each matches symgrad's gradient and a
fourth-order central finite difference of the primal at its benchmark point (and W8 at a tie of
its max, where the shift's contribution cancels whatever a tie gives it). W5's gradient is the
straight-through one, so its differences are taken with the stopped term held at its value."""
import importlib.util
import os

import pytest

import symgrad

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmarks", "workloads.py")
_spec = importlib.util.spec_from_file_location("workloads", PATH)
workloads = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(workloads)

CASES = [(key, point) for key, (_f, _h, point, _d) in workloads.WORKLOADS.items()]
CASES.append(("W8", (2.5, -1.2, 2.5, 0.7, 2.5)))  # a three-way tie of the max


def differenced(key, function, point):
    """The function whose finite differences the hand gradient must match."""
    if key == "W5":  # q = x + sg(round(x) - x): the stopped shift is a constant
        x0, _w0 = point
        return lambda x, w: (w * (x + (round(x0) - x0)) - 2.0) ** 2
    return function


def central_difference(function, point, i):
    """∂function/∂x_i by the fourth-order five-point stencil, step 1e-3 relative."""
    step = 1e-3 * max(1.0, abs(point[i]))

    def at(offset):
        moved = list(point)
        moved[i] += offset * step
        return function(*moved)
    return (at(-2) - 8.0 * at(-1) + 8.0 * at(1) - at(2)) / (12.0 * step)


def test_every_workload_is_listed():
    assert list(workloads.WORKLOADS) == [f"W{i}" for i in range(1, 11)]


@pytest.mark.parametrize("key, point", CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_hand_gradient_matches_finite_differences(key, point):
    function, hand, _point, _description = workloads.WORKLOADS[key]
    got = hand(*point)
    assert len(got) == len(point)
    for i, value in enumerate(got):
        want = central_difference(differenced(key, function, point), point, i)
        assert value == pytest.approx(want, rel=1e-6, abs=1e-8), (key, i)


@pytest.mark.parametrize("key, point", CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_hand_gradient_matches_symgrad(key, point):
    function, hand, _point, _description = workloads.WORKLOADS[key]
    got = symgrad.grad(function)(*point)
    got = got if isinstance(got, tuple) else (got,)
    assert got == pytest.approx(hand(*point), rel=1e-12, abs=1e-14), key

"""The benchmark workloads A1-A8 (tests/benchmarks/array_workloads.py): each hand-written gradient
agrees with symgrad's gradient and with a central directional difference, at the small size.

The benchmark compares timings only; these tests are what makes its two gradients the same numbers.
A workload with ``stop_gradient`` is differenced with the stopped values frozen at the base point
(recorded on the first evaluation, replayed on the perturbed ones), which is what its gradient is
the derivative of: the straight-through quantiser's primal itself is piecewise constant.
"""
import importlib.util
import os
import types

import numpy as np
import pytest

import symgrad

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "array_workloads", os.path.join(HERE, "benchmarks", "array_workloads.py"))
workloads = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(workloads)

KEYS = list(workloads.WORKLOADS)


def frozen(f):
    """``f`` as a float function whose ``stop_gradient`` values are those of its first call."""
    recorded, state = [], {"calls": 0, "index": 0}

    def stop_gradient(value):
        if state["calls"] == 0:
            recorded.append(np.copy(value))
        else:
            value = recorded[state["index"]]
        state["index"] += 1
        return value

    inner = types.FunctionType(f.__code__, dict(f.__globals__, stop_gradient=stop_gradient),
                               f.__name__, f.__defaults__, f.__closure__)

    def call(*args):
        state["index"] = 0
        value = float(inner(*args))
        state["calls"] += 1
        return value
    return call


def copies(args):
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("key", KEYS)
def test_hand_gradient_is_symgrads(key):
    workload = workloads.WORKLOADS[key]
    args = workloads.make_args(key, "small")
    gradient = symgrad.grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])
    got = gradient(*args)
    got = got if isinstance(got, tuple) else (got,)
    before = copies(args)
    hand = workload.hand(*args)
    for arg, kept in zip(args, before):   # the benchmark calls the hand gradient on shared arrays
        np.testing.assert_array_equal(arg, kept)
    assert [np.shape(g) for g in got] == [np.shape(h) for h in hand]
    assert workloads.max_rel_err(got, hand) <= 1e-10


@pytest.mark.parametrize("key", KEYS)
def test_hand_gradient_matches_directional_difference(key):
    workload = workloads.WORKLOADS[key]
    args = workloads.make_args(key, "small")
    f = frozen(workload.f)
    f(*args)                              # records the stopped values at the base point
    positions = workloads.wrt_indices(key)
    rng = np.random.default_rng(8)
    directions = [rng.standard_normal(np.shape(args[i])) for i in positions]
    step = 1e-6
    scales = [step * max(1.0, float(np.max(np.abs(args[i])))) for i in positions]

    def moved(sign):   # each wrt moves by its own step, scaled to its largest entry
        out = list(args)
        for i, v, s in zip(positions, directions, scales):
            out[i] = args[i] + sign * s * v
        return out
    difference = (f(*moved(1.0)) - f(*moved(-1.0))) / 2.0
    hand = workload.hand(*copies(args))
    predicted = sum(s * float(np.sum(g * v)) for s, g, v in zip(scales, hand, directions))
    assert difference == pytest.approx(predicted, rel=1e-6, abs=1e-13 * abs(f(*args)))


def test_rosenbrock_hand_gradient_is_scipys():
    optimize = pytest.importorskip("scipy.optimize")
    (x,) = workloads.make_args("A5", "small")
    (hand,) = workloads.rosenbrock_grad(x)
    np.testing.assert_allclose(hand, optimize.rosen_der(x), rtol=1e-13, atol=0)
    assert workloads.rosenbrock(x) == pytest.approx(optimize.rosen(x), rel=1e-13)


def test_frozen_stop_gradient_makes_the_quantiser_differentiable():
    """The check above can fail: unfrozen, the quantiser's difference is 0, not its STE gradient."""
    w, t = workloads.make_args("A8", "small")
    direction = np.random.default_rng(1).standard_normal(w.shape)
    h = 1e-9   # well below the 1/16 rounding step: no weight crosses a rounding boundary
    plain = (workloads.ste_quantize(w + h * direction, t)
             - workloads.ste_quantize(w - h * direction, t)) / (2 * h)
    f = frozen(workloads.ste_quantize)
    f(w, t)
    stopped = (f(w + h * direction, t) - f(w - h * direction, t)) / (2 * h)
    (hand,) = workloads.ste_quantize_grad(w, t)
    assert abs(plain) < 1e-3 * abs(float(np.sum(hand * direction)))
    assert stopped == pytest.approx(float(np.sum(hand * direction)), rel=1e-5)

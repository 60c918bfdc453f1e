"""The build of unrolled array code grows linearly with the number of steps (the hostile tester's
finding F12: an RNN over ``range(40)`` took 10 s to build, ``range(20)`` 1.1 s), and its gradient
is right at every length (41 steps and more crashed in the in-place pass).

No timed assertion: the work is counted as the number of statement walks of the in-place pass
(``array_facts.reads``), which was quadratic in the steps (4744, 23294, 133794 at 10, 20, 40).
"""
import numpy as np
import pytest

import symgrad
from array_differences import assert_directional
from symgrad import array_buffers

RNG = np.random.default_rng(20261213)


def unrolled(steps):
    """An Elman RNN over ``steps`` rows of X, the loss the squared final state."""
    def rnn(Wh, Wx, X):
        h = np.zeros(Wh.shape[0])
        for t in range(steps):
            h = np.tanh(Wh @ h + Wx @ X[t])
        return np.sum(h ** 2)
    return rnn


def arguments(steps):
    return (0.4 * RNG.standard_normal((4, 4)), 0.5 * RNG.standard_normal((4, 3)),
            RNG.standard_normal((steps, 3)))


def test_the_in_place_pass_walks_each_statement_a_bounded_number_of_times(monkeypatch):
    walks = [0]
    reads = array_buffers.reads

    def counted(node):
        walks[0] += 1
        return reads(node)
    monkeypatch.setattr(array_buffers, "reads", counted)
    found = []
    for steps in (10, 20):
        walks[0] = 0
        f = unrolled(steps)
        symgrad.grad(f, cache=False)(*arguments(steps))
        found.append(walks[0])
    assert found[1] <= 2.2 * found[0], found  # linear: twice the steps, about twice the walks


@pytest.mark.parametrize("steps", [3, 41])
def test_an_unrolled_rnn_has_the_right_gradient(steps):
    f = unrolled(steps)
    args = arguments(steps)
    gradients = symgrad.grad(f, cache=False)(*args)
    for k, g in enumerate(gradients):
        assert g.shape == args[k].shape
    assert_directional(f, gradients, args, RNG, rel=1e-7, abs=1e-10)


def affine(X, w):
    return np.sum((X @ w) ** 2)


def test_strategy_of_array_code():
    X, w = RNG.standard_normal((5, 3)), RNG.standard_normal(3)
    hand = 2.0 * X.T @ (X @ w)
    for strategy in ("auto", "reverse"):  # both are reverse accumulation, as jax.grad
        assert np.allclose(symgrad.grad(affine, wrt="w", strategy=strategy)(X, w), hand,
                           rtol=1e-14)
    for shapes in (None, {"X": ("n", "d"), "w": ("d",)}):
        with pytest.raises(symgrad.OptionError, match="strategy='symbolic' is for scalar code; "
                           "`affine` is array code"):
            symgrad.grad(affine, strategy="symbolic", shapes=shapes)

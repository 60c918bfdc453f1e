"""``np.expand_dims`` of a negative number (or any number printed as an expression, ``-0.4``)
printed ``(-0.4)[None]``, a TypeError when the gradient ran (array fuzzer 78-265); a number is made
a 0-d array of the backend first, as a positive one already was."""
import numpy as np
import pytest

import symgrad
from array_differences import elementwise


def scaled(x):
    return np.sum(x) * np.expand_dims(-0.4, 0).squeeze()  # d/dx = -0.4 (by hand)


def fuzz_78_265(X):
    return (np.maximum(0.5, ((np.prod(np.tanh(X[-1, ::-1, -1]) * 0.5 + 1.0, axis=None,
                                      keepdims=True)) + (np.expand_dims(-0.4, 0))).squeeze()))


BACKENDS = [("numpy", lambda a: a)]
try:
    import jax.numpy as jnp
    BACKENDS.append(("jax", jnp.asarray))
except ImportError:
    pass
try:
    import torch
    BACKENDS.append(("torch", torch.tensor))
except ImportError:
    pass
BACKENDS.append(("array_api", lambda a: a))


@pytest.mark.parametrize("backend, convert", BACKENDS, ids=[b for b, _ in BACKENDS])
def test_a_negative_number_expanded(backend, convert):
    g = symgrad.grad(scaled, shapes={"x": ("n",)}, backend=backend)
    np.testing.assert_allclose(np.asarray(g(convert(np.ones(3)))), [-0.4] * 3, rtol=1e-6)


def test_the_fuzzer_program_runs_and_matches_differences():
    X = np.random.default_rng(265).uniform(-1.0, 1.0, (4, 3, 3))
    got = symgrad.grad(fuzz_78_265, shapes={"X": ("n", 3, 3)})(X)
    np.testing.assert_allclose(got, elementwise(fuzz_78_265, X), atol=1e-7)

"""``np.stack`` of arrays whose sizes are read when the gradient is called (no ``shapes=``) makes
those sizes one, as broadcasting and ``np.concatenate`` do: ``np.stack((x, y), axis=1)`` of two
vectors of one length was refused ("np.stack of arrays of different shapes"), each parameter
having a size of its own until an operation says they are equal."""
import numpy as np
import pytest

import symgrad


def columns(x, y):
    return np.sum(np.stack((x, y), axis=1)[:, 0] ** 2) + np.sum(np.stack([x, 2.0 * y]))


def test_stacking_vectors_read_at_the_call():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    dx, dy = symgrad.grad(columns)(x, y)
    np.testing.assert_allclose(dx, 2.0 * x + 1.0, rtol=1e-12)  # by hand
    np.testing.assert_allclose(dy, [2.0, 2.0], rtol=1e-12)


def test_stacking_vectors_of_two_lengths_raises_as_numpy_does():
    with pytest.raises(ValueError):
        columns(np.ones(2), np.ones(3))  # the primal
    with pytest.raises(ValueError, match="must be"):
        symgrad.grad(columns)(np.ones(2), np.ones(3))


def test_two_named_sizes_stay_refused():
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="np.stack of arrays of different"):
        symgrad.grad(columns, shapes={"x": ("n",), "y": ("m",)})

"""A gradient that is a count of sizes (``np.sum(x[None, :] + y[:, None])`` has derivative ``m``
in each element of ``x``) is a float array, as every gradient is: the NumPy code printed
``np.full((n,), m)``, an int64 array (``g /= 2`` on it raised UFuncTypeError)."""
import numpy as np
import pytest

import symgrad


def outer_sum(x, y):
    return np.sum(x[None, :] + y[:, None])  # d/dx_i = len(y), d/dy_j = len(x) (by hand)


@pytest.mark.parametrize("shapes", [None, {"x": ("n",), "y": ("m",)}], ids=["at-call", "named"])
def test_a_count_of_sizes_is_a_float_gradient(shapes):
    dx, dy = symgrad.grad(outer_sum, shapes=shapes)(np.ones(3), np.ones(2))
    assert dx.dtype == np.float64 and dy.dtype == np.float64
    np.testing.assert_array_equal(dx, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(dy, [3.0, 3.0])
    dx /= 2.0  # in place, as an optimiser updates it


def test_value_and_grad_of_a_count_is_float():
    value, (dx, dy) = symgrad.value_and_grad(outer_sum)(np.ones(3), np.ones(2))
    assert value == 12.0 and dx.dtype == np.float64 and dy.dtype == np.float64

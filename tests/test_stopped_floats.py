"""``stop_gradient(e)`` where SymPy cancels ``e`` to a number that the primal's float is not:
``t * 0.001 + 1.0 - t * 0.001`` is ``1.0`` to SymPy and ``0.9999999999999999`` at
``t = 0.9320112918754613`` in float, so a branch on ``z != stop_gradient(...)`` at ``z = 1.0`` was
decided on ``1.0`` (not taken, gradient ``(0.0, 0.0)``) where the primal takes it (``return z``:
``(0.0, 1.0)``). Scalar fuzzer 77-0-1243. The stopped value is now compared as the source
computes it, as a value outside ``stop_gradient`` already was."""
import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient

T = 0.9320112918754613


def branch_on_stopped(t, z):  # fuzz 77-0-1243
    if z != stop_gradient(t * 0.001 + 1.0 - t * 0.001):
        return z
    a = 1.0
    return a


def branch_on_plain(t, z):
    if z != t * 0.001 + 1.0 - t * 0.001:
        return z
    return 1.0


@pytest.mark.parametrize("f", [branch_on_stopped, branch_on_plain], ids=lambda f: f.__name__)
@pytest.mark.parametrize("strategy", ["auto", "symbolic", "reverse"])
def test_a_stopped_value_sympy_cancels_is_the_primals_float(f, strategy):
    assert T * 0.001 + 1.0 - T * 0.001 != 1.0  # the premise: the primal takes `return z`
    assert symgrad.grad(f, strategy=strategy)(T, 1.0) == (0.0, 1.0)
    assert symgrad.grad(f, strategy=strategy)(0.5, 1.0) == (0.0, 0.0)  # 1.0 exactly: not taken
    assert symgrad.value_and_grad(f, strategy=strategy)(T, 1.0) == (1.0, (0.0, 1.0))


def stopped_where(x, t):
    s = stop_gradient(t * 0.001 + 1.0 - t * 0.001)
    return np.sum(np.where(x != s, x, 0.0))


def test_a_stopped_value_in_array_code():
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(symgrad.grad(stopped_where, wrt="x")(x, T), [1.0, 1.0])
    np.testing.assert_array_equal(symgrad.grad(stopped_where, wrt="x")(x, 0.5), [0.0, 1.0])

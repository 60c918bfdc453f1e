"""Array fuzzer findings of the numpy backend itself (``tests/benchmarks/fuzz_arrays.py``, cases
named seed-id): the tie mask of ``np.min``/``np.max`` of an expression (22-165), and a reshape to
a shape of Python ints (22-87); each value against central differences or by hand."""
import numpy as np

import symgrad
from source_modules import load_module

TIES = '''import numpy as np


def min_of_a_sum(X, v):
    t0 = (np.maximum(np.logaddexp(v[::-1, None, None] * v[None, :, None] * X[None, None],
                                  np.eye(v.shape[0])),
                     v[:, None, None] * (np.zeros((1, X.shape[0], 1)) + 0.2) * v[None, None]
                     + v[None, 1] + np.where(v[:, None, None] * X[None, ::-1, None]
                                             * v[None, None, ::-1] > X[::-1],
                                             v[:, None, None] * X[None, ::-1, None]
                                             * v[None, None, ::-1] * 2.0, X[::-1] - 1.0))
          ).min(axis=0)
    return np.einsum('ij,ij->', v[::-1, None] * v[None, ::-1], t0 - 1.0)


def squeezed_dot(X, v):
    return (np.dot((v[1, :, None, None] * (np.zeros((1, v.shape[0], 1)) + 0.2)).mean(axis=-1)[
        ..., 0], v[0])[..., None]).squeeze()
'''


def test_the_tie_mask_compares_the_same_float(tmp_path):
    """22-165: the mask of ``min``'s adjoint compared the gradient's copy of the input, whose
    sums associate otherwise ((a + b) + c), with the primal's minimum: no element equal, a count
    of 0 and nan (d/dX[0] was nan); now the minimum of the same expression. Against central
    differences (h = 1e-5) along each axis."""
    module = load_module(tmp_path, TIES, "ties")
    X = np.array([0.9874316204868052, 0.5101623161436497, -0.877375812077708,
                  0.03091848995551238, -0.5764234312861078])
    v = np.array([-0.5411116812089147, 0.7850811218680711, 0.12532024754864302,
                  -0.8183671238625121, 0.07213711525473188])
    shapes = {"X": ("n",), "v": ("n",)}
    got = symgrad.grad(module.min_of_a_sum, wrt=("X", "v"), shapes=shapes)(X, v)
    h = 1e-5
    for k, point in enumerate((X, v)):
        want = np.zeros(5)
        for j in range(5):
            step = np.zeros(5)
            step[j] = h
            args = [X, v]
            args[k] = point + step
            up = module.min_of_a_sum(*args)
            args[k] = point - step
            want[j] = (up - module.min_of_a_sum(*args)) / (2 * h)
        assert np.all(np.isfinite(got[k]))
        np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-7)


def test_a_shape_of_python_ints_prints(tmp_path):
    """22-87: a reshape to a shape of Python ints (the squeeze of a (1,) value) crashed the
    printer (AttributeError: 'int' object has no attribute 'is_Integer'). By hand, f = 0.2 v[0]
    . v[1]: d/dv[0] = 0.2 v[1], d/dv[1] = 0.2 v[0], d/dX = 0."""
    module = load_module(tmp_path, TIES, "ties_squeezed")
    v = np.array([[0.3, -0.7], [0.9, 0.4], [-0.2, 0.5]])
    gX, gv = symgrad.grad(module.squeezed_dot, wrt=("X", "v"), shapes={"X": (), "v": ("k", 2)})(
        np.float64(0.4), v)
    want = np.zeros((3, 2))
    want[0], want[1] = 0.2 * v[1], 0.2 * v[0]
    assert float(gX) == 0.0
    np.testing.assert_allclose(gv, want, rtol=1e-12)


UFUNCS = '''import numpy as np


def summed_difference(X, w):
    return np.sum(np.subtract(X, X) + w[0]) + np.sum(np.multiply(X, 0.0) * w[1])


def indexed_difference(X, w):
    return np.subtract(X, X)[1] * w[0] + np.sum(np.cumsum(np.add(X, -X) + w[1], axis=0))
'''


def test_a_ufunc_of_a_folded_value_keeps_its_shape(tmp_path):
    """21-167, 21-34, 22-351: ``np.subtract(X, X)`` (``np.add``, ``np.multiply``,
    ``np.divide``) was SymPy's 0, a scalar: ``np.sum(np.subtract(X, X) + w[0])`` had gradient 1
    (a wrong number), and an index or ``np.cumsum`` of it was refused; it keeps its broadcast
    shape, as ``X - X`` does. By hand (k = 4): d/dw = (k, 0) for the first, (0, 1 + 2 + 3 + 4)
    for the second (the cumulative sums of w[1] at 1 .. k)."""
    module = load_module(tmp_path, UFUNCS, "ufuncs")
    X, w = np.array([0.5, -1.0, 2.0, 0.25]), np.array([0.3, -0.7])
    shapes = {"X": ("k",), "w": (2,)}
    got = symgrad.grad(module.summed_difference, wrt="w", shapes=shapes)(X, w)
    np.testing.assert_array_equal(got, [4.0, 0.0])
    got = symgrad.grad(module.indexed_difference, wrt="w", shapes=shapes)(X, w)
    np.testing.assert_array_equal(got, [0.0, 10.0])

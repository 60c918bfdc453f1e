"""The torch backend on the array fuzzer's findings (``tests/benchmarks/fuzz_arrays.py``, cases
named seed-id): each gradient against the numpy backend's (float64, rel 1e-12) and the value
derived by hand, on float64 tensors."""
import importlib.util

import numpy as np
import pytest
import scipy.special

import symgrad
from symgrad import stop_gradient

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="torch not installed: pip install -e '.[test,torch]'")


def _both(f, shapes, args, backend="torch"):
    """The gradient wrt every parameter on ``backend`` (tensors in, NumPy arrays out) and on
    numpy, as two lists."""
    import torch
    wrt = tuple(shapes)
    g_np = symgrad.grad(f, wrt=wrt, shapes=shapes)(*args)
    g_t = symgrad.grad(f, wrt=wrt, shapes=shapes, backend=backend)(
        *[torch.from_numpy(np.array(a)) if np.ndim(a) else a for a in args])
    g_np = list(g_np) if isinstance(g_np, tuple) else [g_np]
    g_t = list(g_t) if isinstance(g_t, tuple) else [g_t]
    assert all(isinstance(g, torch.Tensor) for g in g_t)
    return [np.asarray(g) for g in g_np], [g.numpy() for g in g_t]


def _close(got, want):
    for g, w in zip(got, want):
        assert g.shape == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def constant_two(X, v):
    return 0.5


def test_constant_of_two_arrays_returns_distinct_tensors():
    """21-126: the two zero gradients are one value; the second was returned as ``.copy()``,
    which tensors lack (AttributeError); now ``.clone()``, an object of its own."""
    X, v = np.array([-0.32, 0.4]), np.array([0.24, 0.24])
    want, got = _both(constant_two, {"X": (2,), "v": (2,)}, [X, v])
    _close(got, want)
    _close(got, [np.zeros(2), np.zeros(2)])
    import torch
    gX, gv = symgrad.grad(constant_two, wrt=("X", "v"), shapes={"X": (2,), "v": (2,)},
                          backend="torch")(torch.from_numpy(X), torch.from_numpy(v))
    gX += 1.0  # an optimiser's update of one gradient leaves the other alone
    assert gv.tolist() == [0.0, 0.0]


def cumsum_of_item(X, v):
    return np.sum(np.add((np.cumsum(X[None, 1, 0])) - (v), X))


def test_size_products_broadcast_as_tensors():
    """21-208: d/dX[1, 0] and d/dv are n * n (the item is added to every one of the n * n
    elements), a common term of sizes `_t0 = n * n` that was broadcast as
    ``torch.broadcast_to(_t0, (1,))`` (TypeError: an int); the gradient wrt v was the int -9."""
    X = np.arange(9.0).reshape(3, 3) / 10
    want, got = _both(cumsum_of_item, {"X": ("n", "n"), "v": ()}, [X, 0.3])
    _close(got, want)
    hand = np.ones((3, 3))
    hand[1, 0] += 9.0
    _close(got, [hand, -9.0])


def mean_through_logaddexp(X, v):
    return ((v) - (np.logaddexp(v[None, -1], v[None, -1]))).mean()


def test_size_number_broadcast_in_a_vjp():
    """21-52: the mean's adjoint of sizes only (1 / (d n), d = rows of v) went through
    ``torch.broadcast_to`` of a Python number (TypeError)."""
    X = np.zeros((2, 2))
    v = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
    want, got = _both(mean_through_logaddexp, {"X": ("n", "n"), "v": ("d", "n")}, [X, v])
    _close(got, want)
    hand = np.full((3, 2), 1.0 / 6)
    hand[-1] -= 3.0 / 6  # logaddexp(a, a) = a + log 2 (d/da 1) subtracted from d = 3 rows
    _close(got, [np.zeros((2, 2)), hand])


def steps_times_v(X, v):
    return np.sum(np.arange(X.shape[1]) * 0.1 * v) + np.sum(np.arange(0.5, X.shape[1]) * 0.3 * v)


def test_int_steps_read_as_numbers_are_the_data_dtype():
    """21-181: ``torch.arange(n)`` is an int64 tensor and ``0.25 * steps`` computed it in
    float32 (RuntimeError against float64 v in a dot; here d/dv[3] was 0.30000001192092896 for
    0.1 * 3): read as a number it is now ``steps.to(X.dtype)``; ``np.arange(0.5, n)`` counts in
    the data dtype (torch's default float32 before)."""
    X, v = np.zeros((4, 4)), np.array([0.1, -0.2, 0.3, 0.4])
    want, got = _both(steps_times_v, {"X": ("n", "n"), "v": ("n",)}, [X, v])
    _close(got, want)
    _close(got, [np.zeros((4, 4)), np.arange(4) * 0.1 + np.arange(0.5, 4) * 0.3])


WEIGHTS = np.array([1, 2, 3, 4])


def int_constant_and_argmax(X, v):
    i = stop_gradient(np.argmax(v))
    return np.sum(WEIGHTS * 0.1 * v) + 0.1 * i * np.sum(v) + v[i]


def test_int_constants_and_indices_read_as_numbers():
    """An int constant array and an argmax read as numbers are cast to the data dtype; as an
    index (``v[i]``) the argmax stays an int tensor."""
    X, v = np.zeros((4, 4)), np.array([0.1, -0.2, 0.3, 0.25])
    want, got = _both(int_constant_and_argmax, {"X": ("n", "n"), "v": ("n",)}, [X, v])
    _close(got, want)
    _close(got, [np.zeros((4, 4)), WEIGHTS * 0.1 + 0.2 + np.array([0, 0, 1.0, 0])])


def special_of_a_number(X, v):
    return np.where(X[0, 0] <= 0.1, np.exp(0.2 * scipy.special.digamma(1.5 + 1.5 ** 2)),
                    X[0, 0] * scipy.special.digamma(1.5 + 1.5 ** 2))


def test_scipy_special_of_a_number_is_folded():
    """21-290: ``digamma(3.75)``, a number, was folded by evaluating ``scipy.special.digamma``
    without SciPy in the namespace (NameError 'scipy' while building for torch); it is now its
    value, 1.1825373886117962."""
    X, v = np.array([[0.5, 0.0], [0.0, 0.0]]), np.zeros(3)
    want, got = _both(special_of_a_number, {"X": ("n", "n"), "v": ("d",)}, [X, v])
    _close(got, want)
    hand = np.zeros((2, 2))
    hand[0, 0] = scipy.special.digamma(3.75)
    _close(got, [hand, np.zeros(3)])


def bounded_by_sizes(X):
    return np.exp(-(np.minimum(X[1, -1], 1.5 / (1.0 + X.size))[0]) ** 2) + np.sum(
        np.maximum(X[0, 0], 0.5 / X.shape[0]) ** 2)


def test_a_bound_of_the_sizes_is_a_clamp():
    """24-3: ``np.minimum(x, 1.5 / (1.0 + X.size))`` printed ``torch.minimum(item, 1.5 / (9.0 *
    k + 1.0))``, a Python float where torch takes a tensor (TypeError); a bound of sizes only
    is ``torch.clamp``'s as a number is. By hand (k = 2: the bound 1.5 / 19, and 0.5 / 2):
    d/dX[1, 2, 0] = 2 a exp(-a ** 2) at a = -0.3 below its bound, 0 at 0.5 above; d/dX[0, 0, j]
    = 2 X[0, 0, j] above 0.25, 0 below."""
    X = np.zeros((2, 3, 3))
    X[0, 0] = [0.1, 0.4, -0.7]
    for a, hand_a in ((-0.3, 0.6 * np.exp(-0.09)), (0.5, 0.0)):
        X[1, 2, 0] = a
        want, got = _both(bounded_by_sizes, {"X": ("k", 3, 3)}, [X])
        _close(got, want)
        hand = np.zeros((2, 3, 3))
        hand[1, 2, 0] = hand_a
        hand[0, 0] = [0.0, 0.8, 0.0]
        _close(got, [hand])


def branch_on_the_sizes(X, v):
    return np.sum(np.where(2.0 / (1.0 + len(v)) <= 0.1, np.exp(0.2 * X * v),
                           2.0 / (1.0 + len(v)) * X * v))


@pytest.mark.parametrize("backend", ["torch", "array_api"])
def test_a_condition_of_the_sizes_is_a_tensor(backend):
    """25-57: ``np.where(2.0 / (1.0 + len(v)) <= 0.1, ...)``, a condition of the sizes only
    (a temporary ``_t0 = 2 / (1 + n)``), printed ``torch.where(_t0 <= 0.1, ...)`` of a Python
    bool (TypeError); it is a 0-d bool tensor. By hand: n = 3, d/dX = sum(v) / 2 and d/dv =
    X / 2; n = 29, d/dX = sum(0.2 v exp(0.2 X v)) and d/dv = 0.2 X exp(0.2 X v)."""
    if backend == "array_api" and importlib.util.find_spec("array_api_compat") is None:
        pytest.skip("array_api_compat not installed: pip install -e '.[test]'")
    X = -0.9
    for n in (3, 29):
        v = np.linspace(-1.0, 0.8, n)
        want, got = _both(branch_on_the_sizes, {"X": (), "v": ("n",)}, [np.float64(X), v],
                          backend=backend)
        _close(got, want)
        if n == 3:
            hand = [np.sum(v) / 2, np.full(n, X / 2)]
        else:
            hand = [np.sum(0.2 * v * np.exp(0.2 * X * v)), 0.2 * X * np.exp(0.2 * X * v)]
        _close(got, hand)


def branch_of_a_scaled_max(X, v):
    if v[0, 1, -1] > 0.1:
        r = 0.5
    else:
        r = np.max(v[None, 1, 0, ::-1] / (1.0 + v.shape[2])) / (1.0 + len(X))
    return r + 0.5


@pytest.mark.parametrize("backend", ["torch", "array_api"])
def test_a_where_of_a_number_and_a_named_size_term_is_the_data_dtype(backend):
    """27-73 (and 27-135): ``torch.where(item_1 > 0.1, 0.0, 1.0 / _t0)`` with ``_t0 = d + 1.0``
    a common term of the sizes: two Python floats, which torch makes a float32 tensor; d/dv[1,
    0, 4] was 0.027777778605620067 for 1 / 36. The first is a 0-d tensor of the data's dtype, as
    for ``1.0 / (d + 1.0)`` written out. By hand: 1 / ((1 + d) (1 + n)) at the argmax of v[1,
    0] when v[0, 1, -1] <= 0.1, else 0."""
    if backend == "array_api" and importlib.util.find_spec("array_api_compat") is None:
        pytest.skip("array_api_compat not installed: pip install -e '.[test]'")
    rng = np.random.default_rng(73)
    X, v = rng.uniform(-1.0, 1.0, (5, 5)), rng.uniform(-1.0, 1.0, (5, 4, 5))
    for c in (-0.9, 0.6):
        v[0, 1, -1] = c
        want, got = _both(branch_of_a_scaled_max, {"X": ("d", "n"), "v": ("n", "k", "d")},
                          [X, v], backend=backend)
        _close(got, want)
        hand = np.zeros((5, 4, 5))
        if c < 0.1:
            hand[1, 0, np.argmax(v[1, 0])] = 1.0 / 36.0
        np.testing.assert_array_equal(got[1], hand)  # exactly: 1.0 / 6.0 / 6.0 in float64
        _close(got, [np.zeros((5, 5)), hand])

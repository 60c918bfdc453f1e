"""Array gradients work in place (symgrad/array_buffers.py), and that never changes a number.

The pass writes only into arrays the generated code allocated itself, dead from there on, of the
result's own shape and float64. Held here: the arguments are never written (passed twice, or one
array for two parameters, included), a second call gives the same numbers, no result shares memory
with an argument, the value of ``value_and_grad`` is the primal's float exactly on A1-A8, and
programs built so that a wrong reuse would show (a buffer still read later, read through a view,
smaller than a broadcast result, float32 or int) give the gradients derived by hand.
"""
import ast
import importlib.util
import os

import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "array_workloads", os.path.join(HERE, "benchmarks", "array_workloads.py"))
workloads = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(workloads)
MEASURE = importlib.util.spec_from_file_location(
    "measure", os.path.join(HERE, "benchmarks", "measure.py"))
measure = importlib.util.module_from_spec(MEASURE)
MEASURE.loader.exec_module(measure)
peak_bytes = measure.peak_bytes  # the benchmark's own measurement (exact, not a timing)

RNG = np.random.default_rng(20261202)
C32 = np.array([0.1, 0.2, 0.3, 0.7], dtype=np.float32)


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def written_names(source):
    """Names the generated code writes into: ``a op= ...`` targets and ``out=`` arguments."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.AugAssign):
            target = node.target
            while isinstance(target, ast.Subscript):
                target = target.value
            names.add(target.id)
        elif isinstance(node, ast.Call):
            names.update(k.value.id for k in node.keywords if k.arg == "out")
    return names


def assert_never_writes_arguments(gradient, f):
    params = set(f.__code__.co_varnames[:f.__code__.co_argcount])
    assert not written_names(gradient.source) & params, gradient.source


def as_library(args, library):
    """The arguments as the library kind calls them: NumPy arrays, or (lazy) each array a Dask
    array of its NumPy array (``da.from_array`` reads that memory: a write would show there)."""
    if library == "numpy":
        return args
    da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e '.[dask]'")
    return tuple(da.from_array(a, chunks=tuple(-(-n // 2) for n in a.shape))
                 if isinstance(a, np.ndarray) else a for a in args)


def computed(results):
    """The results as NumPy values (a lazy specialisation's Dask results computed)."""
    if any(hasattr(r, "dask") for r in results):
        import dask
        return dask.compute(*results)
    return results


@pytest.mark.parametrize("library", ["numpy", "lazy"])
@pytest.mark.parametrize("key", list(workloads.WORKLOADS))
def test_workload_gradients_leave_their_arguments_alone(key, library):
    """For both specialisations: the NumPy one (NumPy arguments) and the lazy one (Dask arguments
    over the same NumPy memory, with its rule for Dask)."""
    workload = workloads.WORKLOADS[key]
    gradient = symgrad.grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])
    args = workloads.make_args(key, "small")
    kept = [np.copy(a) for a in args]
    called = as_library(args, library)
    first = computed(as_tuple(gradient(*called)))
    second = computed(as_tuple(gradient(*called)))
    for a, k in zip(args, kept):
        assert np.array_equal(a, k)
    for g, h in zip(first, second):
        assert np.array_equal(g, h)
        assert not any(np.shares_memory(g, a) for a in args if isinstance(a, np.ndarray))
    assert workloads.max_rel_err(first, workload.hand(*args)) < 1e-12
    assert_never_writes_arguments(gradient.specialisation(library), workload.f)


@pytest.mark.parametrize("key", list(workloads.WORKLOADS))
def test_workload_values_are_the_primals_floats(key):
    """The primal's lines are worked in place too, with the same operations in the same order:
    the value is the very float the primal computes."""
    workload = workloads.WORKLOADS[key]
    both = symgrad.value_and_grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])
    args = workloads.make_args(key, "small")
    value, grads = both(*args)
    assert value == workload.f(*args)
    assert workloads.max_rel_err(as_tuple(grads), workload.hand(*args)) < 1e-12


def test_the_workloads_are_worked_in_place():
    """What the pass is for (A3, A6: the hand code's in-place steps), so a change that quietly
    turns it off fails here."""
    g3 = symgrad.grad(workloads.softmax_xent, wrt=("W",), shapes=workloads.SHAPES["A3"])
    a3 = g3.source
    assert "Z -= _t0" in a3 and "np.exp(Z, out=Z)" in a3  # in Z, as the hand code
    assert "Y.sum(axis=1, keepdims=True) / " in a3  # the 1 / total pulled out of the sum
    assert "-= Y" in a3  # NumPy arguments: every buffer is a NumPy array
    # the lazy one, not `_dZ -= Y`: a buffer computed from X and W is a NumPy array when Y alone
    # is a Dask one
    lazy = g3.specialisation("lazy").source
    assert "Z -= _t0" in lazy and "- Y\n" in lazy and "-= Y" not in lazy
    a6 = symgrad.grad(workloads.mlp, wrt=("W1", "b1", "w2"), shapes=workloads.SHAPES["A6"]).source
    assert "np.tanh(H, out=H)" in a6 and "np.subtract(1.0, " in a6  # 1 - H * H in H's buffer
    a2 = symgrad.grad(workloads.logistic, wrt=("w",), shapes=workloads.SHAPES["A2"]).source
    assert "np.divide(y, _dproduct, out=_dproduct)" in a2  # y / (1 + exp(margin)): one buffer


@pytest.mark.parametrize("key", list(workloads.WORKLOADS))
def test_the_numpy_specialisation_needs_at_most_the_memory_bar_of_the_hand_gradient(key):
    """NumPy arguments get full buffer reuse (not the lazy code's rule for Dask operands, which
    cost A6 4x the hand gradient's memory): one call's peak is within 1.5x of the hand code's
    (A7, the largest, 1.30x: one n x K array more, docs/performance.md)."""
    workload = workloads.WORKLOADS[key]
    gradient = symgrad.grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])
    args = workloads.make_args(key, "small")
    assert peak_bytes(gradient, args) <= 1.5 * peak_bytes(workload.hand, args)


def later_reader(x):
    a = np.exp(x)
    b = np.sin(a)
    return np.sum(b + a * a)


def through_a_view(x):
    a = np.exp(x)
    b = a[::-1]
    c = a * 2.0
    return np.sum(c * b)


def broadcast_larger(x, Y):
    a = np.exp(x)
    return np.sum(np.tanh(a[:, None] * Y))


def float32_buffer(x):
    a = C32 * 2.0
    return np.sum((a + x) ** 2)


def int_buffer(x):
    k = np.arange(x.shape[0]) * 2
    return np.sum((k + x) ** 2)


def arguments(x, y):
    return np.sum(np.tanh(x) * y + x * x)


def test_a_buffer_read_later_is_not_reused():
    x = RNG.uniform(-1.0, 1.0, 6)
    g = symgrad.grad(later_reader, shapes={"x": ("n",)})
    a = np.exp(x)
    np.testing.assert_allclose(g(x), a * (np.cos(a) + 2.0 * a), rtol=1e-13)


def test_a_buffer_read_through_a_view_is_not_reused():
    x = RNG.uniform(-1.0, 1.0, 5)
    g = symgrad.grad(through_a_view, shapes={"x": ("n",)})
    a = np.exp(x)
    np.testing.assert_allclose(g(x), 4.0 * a * a[::-1], rtol=1e-13)  # f = 2 sum a_i a_(n-1-i)


def test_a_buffer_smaller_than_a_broadcast_result_is_not_reused():
    x, Y = RNG.uniform(-1.0, 1.0, 4), RNG.uniform(-1.0, 1.0, (4, 3))
    g = symgrad.grad(broadcast_larger, wrt=("x", "Y"), shapes={"x": ("n",), "Y": ("n", "m")})
    a = np.exp(x)[:, None]
    s = 1.0 - np.tanh(a * Y) ** 2
    gx, gY = g(x, Y)
    np.testing.assert_allclose(gx, (s * Y * a).sum(axis=1), rtol=1e-13)
    np.testing.assert_allclose(gY, s * a, rtol=1e-13)


def test_float32_and_int_arrays_are_never_buffers():
    """``a += x`` into a float32 or int array would round to float32 (or raise): the gradient
    is 2 (a + x) in float64, a float32 constant's values taken exactly."""
    x = RNG.uniform(-1.0, 1.0, 4)
    g = symgrad.grad(float32_buffer, shapes={"x": ("n",)})
    np.testing.assert_allclose(g(x), 2.0 * ((C32 * 2.0).astype(float) + x), rtol=1e-15)
    g = symgrad.grad(int_buffer, shapes={"x": ("n",)})
    np.testing.assert_allclose(g(x), 2.0 * (2.0 * np.arange(4) + x), rtol=1e-15)


def test_arguments_are_never_written_even_when_they_alias():
    g = symgrad.grad(arguments, wrt=("x", "y"), shapes={"x": ("n",), "y": ("n",)})
    x = RNG.uniform(-1.0, 1.0, 5)
    kept = x.copy()
    gx, gy = g(x, x)  # one array for both parameters
    assert np.array_equal(x, kept)
    np.testing.assert_allclose(gx, (1.0 - np.tanh(x) ** 2) * x + 2.0 * x, rtol=1e-13)
    np.testing.assert_allclose(gy, np.tanh(x), rtol=1e-13)
    assert not np.shares_memory(gx, gy)
    assert_never_writes_arguments(g, arguments)


def equal_gradients(x, y):
    return np.sum(np.exp(x + y))


def test_equal_gradients_are_arrays_of_their_own():
    """d/dx and d/dy of sum(exp(x + y)) are the same array value: two arrays all the same (a
    caller updating one in place must not change the other)."""
    for family in (symgrad.grad, symgrad.value_and_grad):
        g = family(equal_gradients, wrt=("x", "y"), shapes={"x": ("n",), "y": ("n",)})
        x, y = RNG.uniform(-1.0, 1.0, 4), RNG.uniform(-1.0, 1.0, 4)
        out = g(x, y)
        gx, gy = out if family is symgrad.grad else out[1]
        np.testing.assert_allclose(gx, np.exp(x + y), rtol=1e-15)
        assert np.array_equal(gx, gy) and not np.shares_memory(gx, gy)


def number_variable(x, lam=0.5):
    scale = 2
    return np.sum(x * x) * scale + lam * np.sum(x)


def test_a_variable_bound_to_a_number_is_read_as_one():
    """A primal variable whose value is a number (``scale = 2``) has no symbol to keep."""
    x = RNG.uniform(-1.0, 1.0, 5)
    g = symgrad.grad(number_variable, shapes={"x": ("n",)})
    np.testing.assert_allclose(g(x), 4.0 * x + 0.5, rtol=1e-15)
    np.testing.assert_allclose(g(x, 0.25), 4.0 * x + 0.25, rtol=1e-15)


def rounded(w):
    q = w + stop_gradient(np.round(w * 4.0) / 4.0 - w)
    return np.sum(q * q)


def test_round_in_place_is_numpys_round():
    """``np.round`` worked in place is printed ``np.rint(t, out=t)``: the same floats, ties to
    even (w * 4 = 0.5, 1.5, 2.5, -0.5 round to 0, 2, 2, -0): the gradient is 2 q with
    q = round(4 w) / 4, and the value is the primal's float."""
    w = np.array([0.125, 0.375, 0.625, -0.125, 0.3, -1.2])
    both = symgrad.value_and_grad(rounded, shapes={"w": ("n",)})
    assert "np.rint(" in both.source
    value, g = both(w)
    q = np.array([0.0, 0.5, 0.5, -0.0, 0.25, -1.25])
    assert np.array_equal(g, 2.0 * q) and value == rounded(w)

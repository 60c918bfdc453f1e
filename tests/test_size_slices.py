"""A slice bound that is a size minus a constant (``x[k:n - 2 + k]`` with ``n = len(x)``, a
valid convolution) builds; it was refused ("a slice bound computed from a size must not be
negative") since SymPy cannot tell ``n - 2`` is nonnegative for every size. At a size where the
bound is negative Python counts it from the end (``x[0:-1]`` of 3 elements has 2, not 0): that
call takes a build for its very sizes, which reads the bound as the int it is."""
import pathlib
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module
from test_array_found_wide import _convert

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_size_slices_"))

SLICES = '''import numpy as np


def conv(x, w):
    n = len(x)
    acc = np.zeros(n - 2)
    for k in range(3):
        acc = acc + w[k] * x[k:n - 2 + k]
    return np.sum(acc * acc)


def head(x):
    n = len(x)
    return np.sum(x[0:n - 4] ** 2) + 3.0 * x[0]


def tail(x):
    n = len(x)
    return np.sum(x[n - 4:] ** 2)
'''


def _central(f, args, i, step=1e-6):
    got = np.zeros_like(args[i])
    for j in range(args[i].size):
        up, down = [a.copy() for a in args], [a.copy() for a in args]
        up[i].flat[j] += step
        down[i].flat[j] -= step
        got.flat[j] = (f(*up) - f(*down)) / (2 * step)
    return got


@pytest.fixture(scope="module")
def module():
    return load_module(DIRECTORY, SLICES, "size_slices")


@pytest.mark.parametrize("shapes", [None, {"x": ("n",), "w": (3,)}], ids=["call-time", "named"])
@pytest.mark.parametrize("backend", ["numpy", "jax", "torch"])
def test_a_convolution_of_sized_slices(module, backend, shapes):
    if backend != "numpy":
        pytest.importorskip(backend)
    g = symgrad.grad(module.conv, wrt=("x", "w"), shapes=shapes, backend=backend)
    rng = np.random.default_rng(3)
    for n in (6, 9):
        x, w = rng.normal(size=n), rng.normal(size=3)
        dx, dw = (np.asarray(a) for a in g(_convert(backend, x), _convert(backend, w)))
        acc = w[0] * x[:n - 2] + w[1] * x[1:n - 1] + w[2] * x[2:]  # by hand: f = sum(acc**2)
        want_dx = np.zeros(n)
        for k in range(3):
            want_dx[k:n - 2 + k] += 2 * acc * w[k]
        want_dw = np.array([2 * acc @ x[k:n - 2 + k] for k in range(3)])
        np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(dw, want_dw, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(dx, _central(module.conv, [x, w], 0), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(dw, _central(module.conv, [x, w], 1), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("shapes", [None, {"x": ("n",)}], ids=["call-time", "named"])
def test_a_bound_negative_at_the_call_counts_from_the_end(module, shapes):
    """x[0:n - 4] at n = 3 is x[0:-1]: x[0], x[1] (derivative 2 x there); x[n - 4:] at 3 is
    x[-1:], x[2] alone. Taken as 0 and 4 elements the gradient would be 0 and 2 x."""
    head = symgrad.grad(module.head, shapes=shapes)
    tail = symgrad.grad(module.tail, shapes=shapes)
    for n, h, t in [(6, [3.0 + 2.0, 2.0, 0.0, 0.0, 0.0, 0.0], [0, 0, 2.0, 2.0, 2.0, 2.0]),
                    (3, [3.0 + 2.0, 2.0, 0.0], [0.0, 0.0, 2.0]),
                    (2, [3.0, 0.0], [2.0, 2.0]),
                    (1, [3.0], [2.0])]:
        x = np.ones(n)
        np.testing.assert_array_equal(head(x), h)
        np.testing.assert_array_equal(tail(x), t)
        np.testing.assert_allclose(head(x), _central(module.head, [x], 0), atol=1e-7)
        np.testing.assert_allclose(tail(x), _central(module.tail, [x], 0), atol=1e-7)


def test_the_general_build_raises_where_the_bound_is_negative():
    """The build's own code (``.source``) serves the sizes where the bound is nonnegative; run at
    another it raises, never giving a number of another length."""
    fresh = load_module(DIRECTORY, SLICES, "size_slices_source")
    g = symgrad.grad(fresh.tail, shapes={"x": ("n",)})
    namespace = {}
    exec(compile(g.source, "<tail>", "exec"), {"np": np}, namespace)
    np.testing.assert_array_equal(namespace["grad_tail"](np.ones(5)), [0.0, 2.0, 2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="slice bound n - 4"):
        namespace["grad_tail"](np.ones(3))


def test_a_bound_negative_at_every_size_is_refused(module):
    def f(x):
        return np.sum(x[:-len(x) - 1])
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="must not be negative"):
        symgrad.grad(f, shapes={"x": ("n",)})

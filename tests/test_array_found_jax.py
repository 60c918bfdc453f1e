"""Bugs the array fuzzer (``tests/benchmarks/fuzz_arrays.py``) found on the jax backend runs,
each held at its right value (derived by hand), on numpy and jax."""
import importlib.util
import pathlib
import re
import tempfile

import numpy as np
import pytest

import symgrad
from source_modules import load_module

DIRECTORY = pathlib.Path(tempfile.mkdtemp(prefix="symgrad_array_found_jax_"))
HAS_JAX = importlib.util.find_spec("jax") is not None
BACKENDS = ["numpy", pytest.param("jax", marks=pytest.mark.skipif(
    not HAS_JAX, reason="jax not installed: pip install -e '.[jax]'"))]


@pytest.fixture(scope="module")
def x64():
    if HAS_JAX:
        import jax
        jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("call", ["np.subtract(x, x)", "np.multiply(x, 0.0)",
                                  "np.add(x - x, 0.0)", "np.divide(x - x, 2.0)"])
def test_a_ufunc_call_folded_to_zero_keeps_its_shape(call, backend, x64):
    """Fuzz 13-12: ``np.amax(np.subtract(X, X), axis=0)`` was refused (``axis 0 is out of range
    for an array of rank 0``): SymPy folds ``x - x`` to the number 0, and the ufunc calls
    (unlike the operators) did not broadcast it back to the operands' shape. The cumulative sum
    of zeros along axis 0 adds nothing: the gradient of ``sum(cumsum(0 * x) + x ** 2)`` is 2 x."""
    module = load_module(DIRECTORY, "import numpy as np\n\n\ndef f(x):\n    return np.sum("
                                    f"np.cumsum({call}, axis=0) + x ** 2) + np.sum(np.amax("
                                    f"{call}, axis=0))\n", "folded_ufunc")
    x = np.array([0.5, -1.0, 2.0])
    for shapes in ({"x": ("n",)}, None):
        got = symgrad.grad(module.f, shapes=shapes, backend=backend)(x)
        np.testing.assert_allclose(np.asarray(got, dtype=float), 2.0 * x, rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS + ["array_api"])
def test_einsum_broadcasts_a_size_one_axis(backend, x64):
    """Fuzz 26-8: ``np.einsum("ij,jk->ik", x[:, None], M)`` was refused (``axis 'j' has sizes 1
    and d``); NumPy broadcasts the size-1 axis: the value is ``x_i * sum_j M_jk``, so with
    ``c = M.sum(axis=0)`` the loss ``sum((x_i c_k) ** 2)`` has gradients ``2 x |c|^2`` and
    ``2 |x|^2 c`` on every row of M."""
    if backend == "array_api":
        pytest.importorskip("array_api_compat")
    module = load_module(DIRECTORY, "import numpy as np\n\n\ndef f(x, M):\n    return np.sum("
                                    "np.einsum('ij,jk->ik', x[:, None], M) ** 2)\n", "einsum_one")
    x, M = np.array([0.5, -1.0, 2.0]), np.array([[1.0, -2.0], [0.25, 3.0], [-1.5, 0.5],
                                                 [2.0, 1.0]])
    c = M.sum(axis=0)
    for shapes in ({"x": ("n",), "M": ("d", "k")}, None):
        gx, gM = symgrad.grad(module.f, shapes=shapes, backend=backend)(x, M)
        np.testing.assert_allclose(np.asarray(gx, dtype=float), 2.0 * x * (c @ c), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(gM, dtype=float),
                                   np.broadcast_to(2.0 * (x @ x) * c, M.shape), rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_makes_the_element_counts_meet_without_shapes(backend, x64):
    """Fuzz 32-87: without ``shapes=``, ``X[None, :, 1].reshape((X.shape[1], 1))`` of a square
    ``X`` was refused (``cannot reshape an array of shape (1, X.shape[0], 1) into (X.shape[1],
    1)``), though ``shapes=`` builds it: the counts meet as sizes meet in ``x * y``, making
    ``X.shape[1]`` be ``X.shape[0]`` (checked when called). For ``sum(sin(X[:, 1])[:, None] *
    X)`` the gradient is ``sin(X[i, 1])`` at ``(i, j)`` plus ``cos(X[i, 1]) * sum_j X[i, j]`` on
    column 1; fuzz 32-0: a constant of 4 elements reshaped to ``(W.shape[1], W.shape[1])``
    makes ``W.shape[1]`` 2."""
    module = load_module(DIRECTORY, "import numpy as np\n\nC = np.array([0.5, -1.0, 2.0, 0.25])"
                                    "\n\n\ndef f(X):\n    return np.sum(np.sin(X[None, :, 1])."
                                    "reshape((X.shape[1], 1)) * X)\n\n\ndef g(W):\n    return "
                                    "np.sum(np.eye(W.shape[1]) + C.reshape((W.shape[1], "
                                    "W.shape[1])) * np.cos(W))\n",
                         "reshape_meets")
    X = np.array([[0.5, -1.0, 2.0], [0.25, 1.5, -0.5], [1.0, 0.75, -2.0]])
    expected = np.broadcast_to(np.sin(X[:, 1])[:, None], X.shape).copy()
    expected[:, 1] += np.cos(X[:, 1]) * X.sum(axis=1)
    gf = symgrad.grad(module.f, backend=backend)
    np.testing.assert_allclose(np.asarray(gf(X), dtype=float), expected, rtol=1e-14)
    with pytest.raises(ValueError, match="X.shape\\[1\\] is 4"):
        gf(np.ones((3, 4)))
    W = np.array([[0.5, -1.0], [2.0, 0.25]])
    got = symgrad.grad(module.g, backend=backend)(W)
    C = np.array([[0.5, -1.0], [2.0, 0.25]])
    np.testing.assert_allclose(np.asarray(got, dtype=float), -C * np.sin(W), rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_size_fixed_by_a_reshape_reads_again_as_a_size(backend, x64):
    """Fuzz 32-0: once a reshape of a constant of 4 elements to ``(W.shape[1], W.shape[1])``
    fixed ``W.shape[1]`` at 2, ``np.eye(W.shape[1])`` read again was refused (``a shape must be
    made of ints and array sizes``: the size came back as the build's written 2). ``W`` enters
    only through its size: the gradient is 0, and ``W`` of 3 columns raises when called."""
    module = load_module(DIRECTORY, "import numpy as np\n\nC1 = np.array([0.408, -0.953, 0.914, "
                                    "0.565, 0.937, -0.206, -0.228, 0.284]).reshape((1, 2, 2, 2, "
                                    "1))\n\n\ndef f(W):\n    return np.sqrt(np.abs(np.linalg."
                                    "slogdet(3.0 * np.eye(W.shape[1]) + 0.3 * np.tanh(np.std("
                                    "C1[:, :, :, :, 0], axis=2).squeeze()[None].reshape((W.shape"
                                    "[1], W.shape[1]))))[1]) + 1.0)\n", "size_fixed")
    gf = symgrad.grad(module.f, backend=backend)
    np.testing.assert_array_equal(np.asarray(gf(np.array([[0.5, -1.0]])), dtype=float),
                                  np.zeros((1, 2)))
    with pytest.raises(ValueError, match="W.shape\\[1\\] is 3"):
        gf(np.ones((1, 3)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_cancels_a_size_both_counts_have(backend, x64):
    """Fuzz 32-93: without ``shapes=``, ``np.sin(X[:, :, None]).reshape((v.shape[1],
    X.shape[1])) * v`` was refused (``cannot reshape (X.shape[0], X.shape[1], 1) into
    (v.shape[1], X.shape[1])``): the counts share ``X.shape[1]``, and what is left makes
    ``v.shape[1]`` be ``X.shape[0]``. The reshape keeps the elements in place (the same shape),
    so the loss is ``sum(sin(X) * v)``: gradients ``cos(X) * v`` and ``sin(X)``."""
    module = load_module(DIRECTORY, "import numpy as np\n\n\ndef f(X, v):\n    return np.sum("
                                    "np.sin(X[:, :, None]).reshape((v.shape[1], X.shape[1])) * "
                                    "v)\n", "reshape_common")
    X = np.array([[0.5, -1.0, 2.0], [0.25, 1.5, -0.5], [1.0, 0.75, -2.0]])
    v = np.array([[1.0, 2.0, -0.5], [0.3, -1.5, 0.25], [2.0, 0.5, 1.0]])
    gX, gv = symgrad.grad(module.f, backend=backend)(X, v)
    np.testing.assert_allclose(np.asarray(gX, dtype=float), np.cos(X) * v, rtol=1e-14)
    np.testing.assert_allclose(np.asarray(gv, dtype=float), np.sin(X), rtol=1e-14)


IDENTITY_SCATTER = '''import numpy as np


def helper(u):
    return np.minimum(u, -0.2) + u * 0.5


def f(A, M):
    t = helper(A)[:, ::-1]
    return np.sum(np.einsum('ji,jk->ik', t[:, ::-1], M))
'''

JITTED = """
import json, sys
import jax
import numpy as np
jax.config.update("jax_enable_x64", True)
import symgrad
sys.path.insert(0, sys.argv[1])
import importlib
module = importlib.import_module(sys.argv[2])
A, M = (np.asarray(a) for a in json.loads(sys.stdin.read()))
out = {}
for backend in ("jax", "array_api"):
    grad = symgrad.grad(module.f, wrt="A", shapes={"A": ("n", "n"), "M": ("n", "n")},
                        backend=backend)
    out[backend] = np.asarray(jax.jit(grad)(jax.numpy.asarray(A), jax.numpy.asarray(M))).tolist()
print(json.dumps(out))
"""


@pytest.mark.skipif(not HAS_JAX, reason="jax not installed: pip install -e '.[jax]'")
def test_the_adjoint_of_a_whole_slice_is_no_scatter_under_jit(x64):
    """Fuzz 92-25 (``array_api`` on JAX arrays under ``jax.jit``): the adjoint of ``t[:, ::-1]``
    of a bound ``t = h(A)[:, ::-1]`` was ``z.at[:, :].add(xp.flip(g))`` twice over, and XLA on
    CPU aborted the process compiling ``flip`` of such a scatter ("Invalid binary instruction
    opcode map"; ``jax.jit(lambda a: jnp.flip(jnp.zeros((3, 3)).at[:, :].add(a), axis=1))``
    alone does). A whole-slice piece is now ``z + g``. The value: f = sum_ji h(A_ji) sum_k M_jk,
    h' = 1.5 below -0.2, 0.5 above: d/dA_ji = h'(A_ji) sum_k M_jk. Run in a subprocess with
    JAX's default flags (the suite's ``XLA_FLAGS`` skip the pass that aborted)."""
    import json
    import os
    import subprocess
    import sys
    module = load_module(DIRECTORY, IDENTITY_SCATTER, "identity_scatter")
    rng = np.random.default_rng(0)
    A, M = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    want = (0.5 + (A < -0.2)) * M.sum(axis=1)[:, None]
    shapes = {"A": ("n", "n"), "M": ("n", "n")}
    for backend in ("numpy", "jax", "array_api"):
        source = symgrad.grad(module.f, wrt="A", shapes=shapes, backend=backend).source
        assert not re.search(r"\[:, :(, \.\.\.)?\](\.add| \+=)", source), source
        got = symgrad.grad(module.f, wrt="A", shapes=shapes, backend=backend)(A, M)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    run = subprocess.run([sys.executable, "-c", JITTED, os.path.dirname(module.__file__),
                          module.__name__], input=json.dumps([A.tolist(), M.tolist()]),
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    for backend, got in json.loads(run.stdout.strip().splitlines()[-1]).items():
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14, err_msg=backend)

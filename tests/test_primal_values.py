"""Regression tests, round 2 of issue 6's kinds: primal values computed as the primal computes
them (``value_and_grad``'s value), nested ``max``/``min`` at a tie, build-time zero factors, and
numpy lines that must not warn where the primal short-circuits.

Each expected value is the primal's own float (the function called on the same point) or a tie
share derived by hand from docs/conventions.md's per-call rule (JAX's ``jnp.maximum``).
"""
import math
import warnings

import pytest

import symgrad
from source_modules import load_module

STRATEGIES = ("symbolic", "reverse", "auto")


def _module(tmp_path, body):
    return load_module(tmp_path, "import math\n\n\n" + body, "symgrad_primal_values")


# --- W6: the value value_and_grad returns is the primal's float ------------------------------
VALUES = [  # (body of f(t), points): Python's float // and % are not floor(a / b) nor a - b*floor
    ("    return t // 0.7\n", (-2.1, 2.1, 1.4, -0.7)),
    ("    return 1.0 // t\n", (0.1, -0.1, 0.7)),
    ("    return t % 0.1\n", (1.0, -1.0, 0.3)),
    ("    return (t + 0.1) // 0.1 + t\n", (0.2, 0.7)),
    ("    a = t // 0.1\n    return a\n", (1.0, -2.1)),
    ("    if t > 0:\n        return t // 0.1\n    return t % 0.7\n", (1.0, -2.1)),
    ("    if t > 0:\n        a = t // 0.1\n    else:\n        a = t // 0.7\n    return a\n",
     (1.0, -2.1)),
    ("    if t > 0:\n        a = t // 0.1\n        return a\n    return t\n", (1.0, -2.1)),
    ("    return h(t)\n", (-2.1, 1.0)),
    ("    return h(t) + t\n", (-2.1, 1.0)),
    ("    return t / math.sqrt(2.0)\n", (1.3, 0.7071067811865475)),
    ("    return t * 0.1 * 0.2 + t ** 2\n", (10.54862188045661, 0.3)),
]
HELPER = "def h(a):\n    return a // 0.7\n\n\n"


@pytest.mark.parametrize("backend", ("math", "numpy"))
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("body, points", VALUES)
def test_value_and_grad_value_is_the_primal_float(tmp_path, body, points, strategy, backend):
    f = _module(tmp_path, HELPER + "def f(t):\n" + body).f
    v = symgrad.value_and_grad(f, strategy=strategy, backend=backend)
    for t in points:
        assert float(v(t)[0]) == f(t), (body, t, v.source)


def test_reproducer_w6(tmp_path):
    f = _module(tmp_path, "def g(t):\n    return t // 0.7\n").g
    assert symgrad.value_and_grad(f)(-2.1) == (-4.0, 0.0)  # -2.1 // 0.7 in Python
    assert symgrad.value_and_grad(f)(1.0)[0] == 1.0

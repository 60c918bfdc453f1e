"""The backends "jax", "torch" and "array_api" give the numbers of "math"/"numpy" (float64, relative
1e-12) on every acceptance case with scalar or array inputs (``tests/acceptance``: a copy of the
public cases), with the conventions at kinks per element; ``jax.jit`` compiles a gradient; float32
stays float32; an untaken branch makes no nan; ``import symgrad`` imports none of the libraries;
a missing library is an ``OptionError`` naming the extra. A test of a library that is not
installed is skipped, saying which (``pip install -e '.[jax]'`` ...).
"""
import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import symgrad
from symgrad.backends import BACKENDS

HERE = os.path.dirname(os.path.abspath(__file__))
HAS = {name: importlib.util.find_spec(name) is not None
       for name in ("jax", "torch", "array_api_compat", "array_api_strict")}


def _needs(*packages):
    missing = [p for p in packages if not HAS[p]]
    extra = {"jax": "jax", "torch": "torch", "array_api_compat": "array-api",
             "array_api_strict": "array-api"}
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not installed: "
                              f"pip install -e '.[{','.join(extra[m] for m in missing)}]'")


if HAS["jax"]:
    import jax
    jax.config.update("jax_enable_x64", True)  # float64 comparisons; float32 is tested apart
    import jax.numpy as jnp
if HAS["torch"]:
    import torch


def _load(name):
    spec = importlib.util.spec_from_file_location(f"acceptance_{name}",
                                                  os.path.join(HERE, "acceptance", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def _runnable(case):
    return "error" not in case and case.get("api", "grad") in ("grad", "value_and_grad", "vjp")


CASES = [c for name in ("cases_public", "cases_usage", "cases_arrays") for c in _load(name)
         if _runnable(c)]


# --- what each run passes in and how its results are read ------------------------------------------
def _to_numpy(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return tuple(_to_numpy(v) for v in value)
    if HAS["torch"] and isinstance(value, torch.Tensor):
        return value.numpy()
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    return np.asarray(value)


def _library(name):
    """(backend, convert an argument) for each run: the arrays of one library."""
    if name == "jax":
        return "jax", lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a
    if name == "torch":
        return "torch", lambda a: torch.from_numpy(a) if isinstance(a, np.ndarray) else a
    # array_api runs take arrays only (array_namespace needs one): every float becomes one
    if name == "array_api-numpy":
        return "array_api", lambda a: np.asarray(a, dtype=np.float64)
    if name == "array_api-strict":
        import array_api_strict as xp
        return "array_api", lambda a: xp.asarray(np.asarray(a, dtype=np.float64))
    if name == "array_api-torch":
        return "array_api", lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))
    if name == "array_api-jax":
        return "array_api", lambda a: jnp.asarray(np.asarray(a, dtype=np.float64))
    raise AssertionError(name)


RUNS = [pytest.param("jax", marks=_needs("jax")), pytest.param("torch", marks=_needs("torch")),
        pytest.param("array_api-numpy", marks=_needs("array_api_compat")),
        pytest.param("array_api-strict", marks=_needs("array_api_compat", "array_api_strict")),
        pytest.param("array_api-torch", marks=_needs("array_api_compat", "torch")),
        pytest.param("array_api-jax", marks=_needs("array_api_compat", "jax"))]

REFUSED = {  # (case id, backend) -> what the backend lacks (the test asserts the refusal)
    ("gather-scatter-add", "array_api"): "scatter-add",
    ("einsum", "array_api"): "einsum",
}
MUTATES = {"rosenbrock-slices"}  # the Array API's slice adjoint on JAX goes through `.at`


def _close(got, want):
    if want is None:
        return got is None
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(
            _close(g, w) for g, w in zip(got, want))
    got, want = np.asarray(got), np.asarray(want, dtype=float)
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    return got.shape == want.shape and got.dtype == np.float64 and bool(np.all(np.isclose(
        got, want, rtol=1e-12, atol=1e-14 * scale)))


def _build(case, backend):
    api = getattr(symgrad, case.get("api", "grad"))
    return api(case["func"], backend=backend, **case.get("options", {}))


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_acceptance_case_through_backend(case, run):
    """The same numbers as the default backend (and as the case's expected gradient)."""
    backend, convert = _library(run)
    args = tuple(convert(a) for a in case["args"])
    refused = REFUSED.get((case["id"], backend))
    if refused is not None:
        with pytest.raises(symgrad.OptionError, match=refused):
            _build(case, backend)(*args)
        return
    reference = _to_numpy(_build(case, None)(*case["args"]))
    got = _to_numpy(_build(case, backend)(*args))
    assert _close(got, reference), (got, reference)
    if "args2" in case:
        gf = _build(case, backend)
        again = _to_numpy(gf(*(convert(a) for a in case["args2"])))
        assert _close(again, _to_numpy(_build(case, None)(*case["args2"])))


def test_every_case_runs():
    """The cases above are the acceptance cases with inputs: none is left out by mistake."""
    ids = {c["id"] for c in CASES}
    assert {"branch-else", "untaken-branch-no-nan", "least-squares", "logistic", "where-no-nan",
            "gather-scatter-add", "vjp-array-output", "max-tie"} <= ids
    assert len(CASES) >= 60

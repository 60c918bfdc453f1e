"""Session set-up: the suite never reads or writes the user's real symgrad cache, and JAX compiles
its many small one-off programs quickly.

``SYMGRAD_CACHE_DIR`` is set, before any test runs, to a fresh temporary folder (under ``TMPDIR``,
which ``.ci/run`` points inside the clone), removed at the end of the session; subprocesses inherit
it.

JAX compiles every operation it runs outside ``jax.jit`` once per shape and dtype: the suite makes
about 600 such compilations of a few elements each, where XLA's optimisation passes are most of
the time. Unless ``XLA_FLAGS`` is set already, it is set (before any test imports JAX) to
``FAST_XLA_FLAGS``, which skip them (the programs compute the same operations; the tests compare
values with tolerances of 1e-12 relative), once a subprocess shows this JAX accepts the flags (an
unknown flag aborts the process).
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

_CACHE_DIR = tempfile.mkdtemp(prefix="symgrad-test-cache-")
os.environ["SYMGRAD_CACHE_DIR"] = _CACHE_DIR

FAST_XLA_FLAGS = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"


def _fast_xla():
    if "XLA_FLAGS" in os.environ or importlib.util.find_spec("jax") is None:
        return
    probe = "import jax.numpy as jnp; jnp.sin(jnp.arange(3.0)).block_until_ready()"
    try:
        accepted = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120,
                                  env={**os.environ, "XLA_FLAGS": FAST_XLA_FLAGS}).returncode == 0
    except (OSError, subprocess.SubprocessError):
        accepted = False
    if accepted:
        os.environ["XLA_FLAGS"] = FAST_XLA_FLAGS


_fast_xla()


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)

"""Every script in examples/ runs from the repository root, exits 0, prints all its "ok:" lines."""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))
NAMED = ["straight_through_estimator.py", "stable_softmax.py", "tf_gradients_classics.py",
         "spring_chain.py", "logistic_regression.py", "array_softmax_tf.py",
         "array_linear_regression.py", "array_softmax_regression.py",
         "array_gaussian_mixture_em.py", "array_quantised_linear.py"]


def test_the_documented_examples_exist():
    present = {os.path.basename(path) for path in EXAMPLES}
    assert set(NAMED) <= present, f"missing: {sorted(set(NAMED) - present)}"


def _run(path, env):
    """(exit status, stdout, stderr) of one example run from the repository root."""
    try:
        done = subprocess.run([sys.executable, os.path.relpath(path, ROOT)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired as timeout:
        return None, timeout.stdout or "", f"timed out after {timeout.timeout} s"
    return done.returncode, done.stdout, done.stderr


_STARTED = {}


def start(workers):
    """Start running every example in the background, ``workers`` at a time (once; later calls
    return the running ones). The suite's conftest starts them with one worker as soon as
    collection ends, so on a two-core machine they run beside the other tests; each takes a few
    seconds, mostly importing SymPy and checking gradients. Their own cache folder: they never
    meet the tests' entries, and the environment of the start (not a test's monkeypatched one)."""
    if not _STARTED:
        cache = tempfile.mkdtemp(prefix="symgrad-examples-cache-")
        env = dict(os.environ, SYMGRAD_CACHE_DIR=cache)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        _STARTED.update(cache=cache, pool=pool,
                        runs={path: pool.submit(_run, path, env) for path in EXAMPLES})
    return _STARTED


@pytest.fixture(scope="module")
def runs():
    """Every example's (exit status, stdout, stderr), started early by the conftest or now."""
    started = start(workers=os.cpu_count() or 2)
    finished = {path: future.result() for path, future in started["runs"].items()}
    stop()
    return finished


def stop():
    """Run no more examples (a running one ends on its own) and remove their cache folder."""
    if _STARTED:
        _STARTED["pool"].shutdown(wait=False, cancel_futures=True)
        shutil.rmtree(_STARTED["cache"], ignore_errors=True)


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs_and_every_check_holds(runs, path):
    status, out, err = runs[path]
    assert status == 0, f"{path} failed:\n{out}\n{err}"
    assert "Traceback" not in err
    assert "def grad_" in out, "an example prints the generated gradient"
    ok_lines = [line for line in out.splitlines() if line.startswith("ok: ")]
    with open(path, encoding="utf-8") as file:
        expected = len(re.findall(r"""print\(\s*f?["']ok: """, file.read()))
    assert expected >= 1, f"{path} prints no 'ok: ' line"
    assert len(ok_lines) == expected, (
        f"{path} printed {len(ok_lines)} of its {expected} 'ok: ' lines:\n{out}")

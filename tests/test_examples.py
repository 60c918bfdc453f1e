"""Every script in examples/ runs from the repository root, exits 0, prints all its "ok:" lines."""
import glob
import os
import re
import subprocess
import sys

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


@pytest.fixture(scope="module")
def runs():
    """Run every example at once (each takes about a second, mostly importing SymPy)."""
    started = {path: subprocess.Popen([sys.executable, os.path.relpath(path, ROOT)], cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for path in EXAMPLES}
    finished = {}
    for path, process in started.items():
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        finished[path] = (process.returncode, out, err)
    return finished


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

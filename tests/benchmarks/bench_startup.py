"""Start-up cost of a module with decorated functions: first process (empty disk cache) and second.

Not collected by pytest; run by hand from the repository root:

    python tests/benchmarks/bench_startup.py [--repeat 5] [--baseline PATH]

It writes, in a temporary folder, a module ``startup_module`` with five ``@symgrad.grad`` functions
of the examples' size (Black-Scholes, logistic loss, spring chain, stable softmax, straight-through
estimator) and a second module ``startup_module_w4`` adding W4 of ``workloads.py`` (``wide``, 100 parameters,
straight-line ``sum_i exp(-(a_i - a_(i+1))**2)``). For each, the wall time of ``python -c "import <module>"``
minus that of ``python -c "pass"`` (the best of ``--repeat`` runs each, interleaved), and the same
for the CPU time of the child (user + system; steadier than wall time on a loaded machine):

- first process: the cache folder emptied before each run (every gradient is built);
- second process: the cache folder as the first process left it;
- cache off (``SYMGRAD_CACHE_DIR=""``): builds every time, as before the disk cache;
- with ``--baseline PATH`` (a checkout of symgrad without the disk cache, e.g. the main branch):
  its first process, for the "no slower than before" comparison.

and whether SymPy is in ``sys.modules`` after the import. Bytecode is written to a folder of the
temporary one (``PYTHONPYCACHEPREFIX``) by warm-up runs first, so every timed run reads ``.pyc``
files as a user's program does. Shared machines are noisy: compare figures from one run.
"""
import argparse
import ast
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

FIVE = '''\
import math

import symgrad
from symgrad import stop_gradient

WALL, K_OUTER, K_INNER, REST = 4.0, 4.0, 2.0, 0.25
TARGET = 1.0


@symgrad.grad(wrt=("w", "b"))
def loss(w, b, x, y):
    return math.log(1 + math.exp(-y * (w * x + b)))


def spring(k, length):
    return 0.5 * k * (length - REST) ** 2


@symgrad.grad
def energy(x1, x2, x3):
    return (spring(K_OUTER, x1) + spring(K_INNER, x2 - x1) + spring(K_INNER, x3 - x2)
            + spring(K_OUTER, WALL - x3))


@symgrad.grad
def softmax0(x0, x1, x2):
    m = stop_gradient(max(x0, x1, x2))
    e0 = math.exp(x0 - m)
    return e0 / (e0 + math.exp(x1 - m) + math.exp(x2 - m))


@symgrad.grad
def quantised_loss(x, w):
    q = x + stop_gradient(round(x) - x)
    return (w * q - TARGET) ** 2
'''

def segment(path, name):
    """The source of the function ``name`` defined in the file ``path``."""
    with open(path) as handle:
        text = handle.read()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)
                and n.name == name)
    return ast.get_source_segment(text, node) + "\n"


def five_text():
    """The five functions: Black-Scholes ``call`` is the one of examples/check_black_scholes.py."""
    call = segment(os.path.join(ROOT, "examples", "check_black_scholes.py"), "call")
    return FIVE + "\n\n@symgrad.grad\n" + call


def w4_text():
    """W4 of workloads.py (``wide``: 100 parameters, sum_i exp(-(a_i - a_(i+1))**2) written out
    straight-line), decorated."""
    return "\n\nfrom math import exp\n\n\n@symgrad.grad\n" + segment(
        os.path.join(HERE, "workloads.py"), "wide")


def _run(command, env, cwd):
    start, used = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, cwd=cwd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.perf_counter() - start,
            after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)


def extra(runs, cwd, repeat):
    """What each run costs more than ``python -c "pass"``: ``runs`` maps a label to
    ``(command, env, before)``; each round runs ``pass`` and then every run once (``before()``
    first, if given), so all see the same load. Returns label → (wall, CPU) in seconds: the best
    of ``repeat`` rounds minus the best ``pass``. CPU time is the child's user + system time."""
    best = {label: [float("inf")] * 2 for label in ["pass", *runs]}
    for _ in range(repeat):
        for label, (command, env, before) in [("pass", ([sys.executable, "-c", "pass"],
                                                         next(iter(runs.values()))[1], None)),
                                              *runs.items()]:
            if before is not None:
                before()
            best[label] = [min(a, b) for a, b in zip(best[label], _run(command, env, cwd))]
    empty = best.pop("pass")
    return {label: (b[0] - empty[0], b[1] - empty[1]) for label, b in best.items()}


def shown(times):
    return f"wall {times[0] * 1000:6.0f} ms, cpu {times[1] * 1000:6.0f} ms"


def sympy_imported(module, env, cwd):
    out = subprocess.run([sys.executable, "-c", f"import sys, {module}; "
                          "print('sympy' in sys.modules)"], env=env, cwd=cwd, check=True,
                         capture_output=True, text=True).stdout
    return out.strip() == "True"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", metavar="PATH",
                        help="a symgrad checkout without the disk cache, timed as 'before'")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="symgrad-startup-")
    cache = os.path.join(folder, "cache")
    try:
        with open(os.path.join(folder, "startup_module.py"), "w") as handle:
            handle.write(five_text())
        with open(os.path.join(folder, "startup_module_w4.py"), "w") as handle:
            handle.write(five_text() + w4_text())

        def env(root, cache_dir):
            # bytecode goes to a folder of its own (the checkouts are left untouched), written by
            # the warm-up runs, as a user's own .pyc files would be
            return dict(os.environ, PYTHONPATH=os.pathsep.join([root, folder]),
                        SYMGRAD_CACHE_DIR=cache_dir,
                        PYTHONPYCACHEPREFIX=os.path.join(folder, "pycache", os.path.basename(root)))

        def empty():
            shutil.rmtree(cache, ignore_errors=True)

        ours = env(ROOT, cache)
        for root in [ROOT] + ([args.baseline] if args.baseline else []):  # warm-up: .pyc files
            for module in ("startup_module", "startup_module_w4"):
                subprocess.run([sys.executable, "-c", f"import {module}"], check=True,
                               env=env(root, ""), cwd=folder)
        print(f"python -c \"import <module>\" minus python -c \"pass\", best of {args.repeat} "
              "interleaved rounds (the second process: of three times as many)")
        for module in ("startup_module", "startup_module_w4"):
            command = [sys.executable, "-c", f"import {module}"]
            runs = {"first process": (command, ours, empty),
                    "cache off": (command, env(ROOT, ""), None)}
            if args.baseline:
                runs["baseline"] = (command, env(args.baseline, ""), None)
            times = extra(runs, folder, args.repeat)
            first_sympy = sympy_imported(module, env(ROOT, os.path.join(folder, "probe")), folder)
            empty()
            subprocess.run(command, env=ours, cwd=folder, check=True)
            times.update(extra({"second process": (command, ours, None)}, folder,
                               3 * args.repeat))
            second_sympy = sympy_imported(module, ours, folder)
            print(f"{module}:")
            print(f"  first process   {shown(times['first process'])}   sympy imported: "
                  f"{first_sympy}")
            print(f"  second process  {shown(times['second process'])}   sympy imported: "
                  f"{second_sympy}")
            print(f"  cache off       {shown(times['cache off'])}")
            if args.baseline:
                first, base = times["first process"], times["baseline"]
                print(f"  baseline        {shown(base)}   (first process / baseline: wall "
                      f"{first[0] / base[0]:.2f}, cpu {first[1] / base[1]:.2f})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

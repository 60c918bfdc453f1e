"""Benchmark symgrad on the workloads W1-W10 of tests/benchmarks/workloads.py.

Not collected by pytest; run by hand:

    python tests/benchmarks/bench_workloads.py [--workloads PATH] [--repeat 15]

(from the repository root; ``--workloads`` takes another file with the same ``WORKLOADS`` table.)

Prints, per workload and all in one process: the build time (source → compiled gradient), the
per-call time of the primal, of symgrad's gradient and of the hand-written gradient, and the ratios
gradient/primal, hand/primal and gradient/hand. Then the build time of the W3 chain at depth
10, 20, 40, 80 (the expression-swell study). Times are the best of --repeat timeit runs; report the
ratios, not the absolute times (shared machines are noisy).
"""
import argparse
import importlib.util
import os
import sys
import textwrap
import time

from measure import per_call

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_WORKLOADS = os.path.join(HERE, "workloads.py")


def load(path):
    spec = importlib.util.spec_from_file_location("workloads", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def deep_function(depth, folder):
    """W3's chain at a given depth, written to a real file so its source can be read."""
    path = os.path.join(folder, f"deep_{depth}.py")
    with open(path, "w") as handle:
        handle.write(textwrap.dedent(f"""\
            from math import cos, sin


            def deep_{depth}(x):
                t = x
                for _ in range({depth}):
                    t = sin(t)*t + cos(t)
                return t
            """))
    spec = importlib.util.spec_from_file_location(f"deep_{depth}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, f"deep_{depth}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    import symgrad

    workloads = load(args.workloads)
    print(f"python {sys.version.split()[0]}, symgrad {symgrad.__version__}")
    header = (f"{'':4} {'build s':>8} {'primal ns':>10} {'grad ns':>9} {'hand ns':>9} "
              f"{'grad/primal':>12} {'hand/primal':>12} {'grad/hand':>10}")
    print(header)
    for key, (function, hand, point, _description) in workloads.WORKLOADS.items():
        start = time.perf_counter()
        gradient = symgrad.grad(function)
        build = time.perf_counter() - start
        got = gradient(*point)
        want = hand(*point)
        got = got if isinstance(got, tuple) else (got,)
        worst = max(abs(g - w) / max(1.0, abs(w)) for g, w in zip(got, want))
        assert worst < 1e-9, f"{key}: symgrad and the hand gradient differ by {worst}"
        t_primal, t_grad, t_hand = per_call((function, gradient, hand), point, args.repeat,
                                                at_least=1000)
        print(f"{key:4} {build:8.2f} {t_primal * 1e9:10.0f} {t_grad * 1e9:9.0f} "
              f"{t_hand * 1e9:9.0f} {t_grad / t_primal:12.2f} {t_hand / t_primal:12.2f} "
              f"{t_grad / t_hand:10.2f}")
    print("\nW3 chain t = sin(t)*t + cos(t): build time by depth")
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        for depth in (10, 20, 40, 80):
            function = deep_function(depth, folder)
            start = time.perf_counter()
            symgrad.grad(function)
            print(f"  depth {depth:3}: {time.perf_counter() - start:6.2f} s")


if __name__ == "__main__":
    main()

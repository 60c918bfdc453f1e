"""Benchmark symgrad's array gradients on A1-A8 (array_workloads.py, beside this file).

Not collected by pytest; run by hand:

    python tests/benchmarks/bench_arrays.py [--only A1,A3] [--sizes small,large] [--repeat 7]
                                            [--threads 1] [--source]

Prints, per workload and size and all in one process: the build time (source → compiled gradient,
with ``shapes=`` so no call is timed with it; one build serves both sizes; the one-time import of
SymPy and symgrad's pipeline is timed apart, first, and printed in the header), the per-call time of
the primal, of symgrad's gradient (called through the ``GradientFunction``, as a user calls it) and
of the hand-written gradient, grad/hand, and the peak memory (tracemalloc, which sees NumPy's
buffers) of one call of symgrad's gradient against one of the hand-written one, with their ratio.
Times are the best of --repeat interleaved rounds (each round times every function once, so a slow
spell of the machine hits all three alike); read the ratios, not the absolute times. Every gradient
is checked against the hand one (relative 1e-9) before it is timed. BLAS runs on --threads threads
(default 1, as in the peer benchmark), set before NumPy is imported. --source prints the generated
gradient of each workload.
"""
import argparse
import os
import sys
import time
import timeit
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def per_call(functions, args, repeat):
    """Best per-call time in seconds of each function, timed in interleaved rounds."""
    timers = [timeit.Timer(lambda f=f: f(*args)) for f in functions]
    numbers = [t.autorange()[0] for t in timers]
    best = [float("inf")] * len(functions)
    for _ in range(repeat):
        for i, (timer, number) in enumerate(zip(timers, numbers)):
            best[i] = min(best[i], timer.timeit(number) / number)
    return best


def peak_bytes(function, args):
    """Peak bytes traced during one call of ``function(*args)``, above what was live before it.

    The result arrays count (they are allocated during the call); the arguments do not.
    """
    function(*args)                       # warm: caches, lazily imported modules
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = function(*args)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del result
    return peak


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def human_time(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def human_bytes(count):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count} B"


def blas_text(numpy):
    """One line naming NumPy's BLAS and its kernel, when threadpoolctl can tell."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        config = numpy.show_config(mode="dicts") if hasattr(numpy, "show_config") else {}
        blas = config.get("Build Dependencies", {}).get("blas", {}) if config else {}
        return f"BLAS {blas.get('name', '?')} {blas.get('version', '')} (threadpoolctl absent)"
    return "; ".join(f"{i.get('internal_api')} {i.get('version')} {i.get('architecture', '')} "
                     f"{i.get('num_threads')} thread(s)" for i in threadpool_info())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help="comma-separated keys, e.g. A1,A3")
    parser.add_argument("--sizes", default="small,large", help="comma-separated: small,large")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved timing rounds")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (0: leave as is)")
    parser.add_argument("--source", action="store_true", help="print each generated gradient")
    options = parser.parse_args()
    if options.threads:
        for variable in THREAD_VARIABLES:
            os.environ[variable] = str(options.threads)
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    sys.path.insert(0, HERE)
    import numpy

    import array_workloads as workloads
    import symgrad

    start = time.perf_counter()  # once per process, whatever is built first: not a build
    import symgrad.adjoint  # noqa: F401 - the pipeline a build imports (SymPy with it)
    import symgrad.array_frontend  # noqa: F401
    imports = time.perf_counter() - start
    keys = options.only.split(",") if options.only else list(workloads.WORKLOADS)
    sizes = options.sizes.split(",")
    print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, symgrad "
          f"{symgrad.__version__}; {blas_text(numpy)}; best of {options.repeat} rounds; "
          f"importing SymPy and the pipeline {imports:.2f} s")
    header = (f"{'':3} {'size':5} {'build s':>7} {'primal':>9} {'grad':>9} {'hand':>9} "
              f"{'grad/hand':>9} {'grad peak':>9} {'hand peak':>9} {'peak ratio':>10}")
    print(header)
    for key in keys:
        workload = workloads.WORKLOADS[key]
        start = time.perf_counter()
        gradient = symgrad.grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])
        build = time.perf_counter() - start
        if options.source:
            print(gradient.source)
        for size in sizes:
            args = workloads.make_args(key, size)
            got, want = as_tuple(gradient(*args)), workload.hand(*args)
            worst = workloads.max_rel_err(got, want)
            assert worst < 1e-9, f"{key} {size}: symgrad and the hand gradient differ by {worst}"
            t_primal, t_grad, t_hand = per_call((workload.f, gradient, workload.hand), args,
                                                options.repeat)
            m_grad, m_hand = peak_bytes(gradient, args), peak_bytes(workload.hand, args)
            print(f"{key:3} {size:5} {build:7.2f} {human_time(t_primal):>9} "
                  f"{human_time(t_grad):>9} {human_time(t_hand):>9} {t_grad / t_hand:9.2f} "
                  f"{human_bytes(m_grad):>9} {human_bytes(m_hand):>9} "
                  f"{m_grad / max(m_hand, 1):10.2f}", flush=True)


if __name__ == "__main__":
    main()

"""Benchmark symgrad's array gradients on A1-A8 (array_workloads.py, beside this file).

Not collected by pytest; run by hand:

    python tests/benchmarks/bench_arrays.py [--only A1,A3] [--sizes small,large] [--repeat 7]
                                            [--threads 1] [--source] [--split]

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

--split prints instead where a call's time goes, per workload and size (best of 150 interleaved
rounds of about 5 ms, in us): ``object`` (the gradient called as a user calls it), ``function``
(its generated code called directly: every ``np.asarray`` line and check), ``bare`` (that code
without the conversions of its float64 arrays and without its rank and size checks, what a
repeated call of the object runs), ``hand``; then ``call`` = object - bare (the dispatch: the
guard of the last call), ``prologue`` = function - bare, and bare/hand (the generated body
against the hand body).
"""
import argparse
import os
import sys
import time

from measure import (best_of_short_rounds, human_bytes, human_time, limit_threads, peak_bytes,
                     per_call, workload_arguments)

HERE = os.path.dirname(os.path.abspath(__file__))


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


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
    workload_arguments(parser)
    parser.add_argument("--source", action="store_true", help="print each generated gradient")
    parser.add_argument("--split", action="store_true",
                        help="print where a call's time goes (dispatch, prologue, body)")
    options = parser.parse_args()
    limit_threads(options.threads)
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
    if options.split:
        return split(symgrad, workloads, keys, sizes)
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


def split(symgrad, workloads, keys, sizes):
    """The --split table: the object, its code, its bare code and the hand gradient per call."""
    import numpy

    from symgrad.dispatch import unchecked
    print(f"{'':3} {'size':5} {'object':>8} {'function':>8} {'bare':>8} {'hand':>8} "
          f"{'call':>6} {'prologue':>8} {'bare/hand':>9}")
    for key in keys:
        workload = workloads.WORKLOADS[key]
        gradient = symgrad.grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])
        for size in sizes:
            args = workloads.make_args(key, size)
            code = gradient.function
            arrays = [name for name, a in zip(code.__code__.co_varnames, args)
                      if type(a) is numpy.ndarray and a.dtype == numpy.float64]
            bare = unchecked(code, gradient.source, tuple(arrays))
            for f in (gradient, code, bare, workload.hand):
                f(*args)
            times = best_of_short_rounds((gradient, code, bare, workload.hand), args)
            obj, function, body, hand = (t * 1e6 for t in times)
            print(f"{key:3} {size:5} {obj:8.2f} {function:8.2f} {body:8.2f} {hand:8.2f} "
                  f"{obj - body:6.2f} {function - body:8.2f} {body / hand:9.2f}", flush=True)


if __name__ == "__main__":
    main()

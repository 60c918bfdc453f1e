"""Timing and peak-memory measurements shared by the benchmarks and the memory tests.

``per_call``, ``best_of_short_rounds`` and ``paired`` time functions in interleaved rounds (each round times every function
once, so a slow spell of a shared machine hits all of them alike); ``peak_bytes`` is the exact
tracemalloc peak of one call (NumPy reports its buffers to tracemalloc), which tests may assert on
(timings never are). Used by bench_arrays.py, bench_backends.py, bench_workloads.py and
tests/test_array_buffers.py.
"""
import gc
import os
import statistics
import time
import timeit
import tracemalloc
from typing import NamedTuple

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def workload_arguments(parser):
    """Add the options of the A1-A8 benchmarks to an ``argparse`` parser: --only, --sizes,
    --repeat and --threads."""
    parser.add_argument("--only", default=None, help="comma-separated keys, e.g. A1,A3")
    parser.add_argument("--sizes", default="small,large", help="comma-separated: small,large")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved timing rounds")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (0: leave as is)")


def limit_threads(threads):
    """Make BLAS use ``threads`` threads (0: leave the environment alone); call it before NumPy
    is imported."""
    if threads:
        for variable in THREAD_VARIABLES:
            os.environ[variable] = str(threads)


def rounds(functions, args, repeat, at_least=None):
    """Per-call seconds of each function in each of ``repeat`` interleaved rounds:
    ``times[k][r]`` for function ``k`` in round ``r``.

    A round times each function over as many calls as ``timeit``'s autorange picks for it (about
    0.2 s); with ``at_least``, every function over one common number of calls: the largest
    autorange, and at least ``at_least``.
    """
    timers = [timeit.Timer(lambda f=f: f(*args)) for f in functions]
    numbers = [t.autorange()[0] for t in timers]
    if at_least is not None:
        numbers = [max(max(numbers), at_least)] * len(timers)
    times = [[] for _ in functions]
    for _ in range(repeat):
        for k, (timer, number) in enumerate(zip(timers, numbers)):
            times[k].append(timer.timeit(number) / number)
    return times


def per_call(functions, args, repeat, at_least=None):
    """Best per-call time in seconds of each function over ``repeat`` interleaved rounds."""
    return [min(times) for times in rounds(functions, args, repeat, at_least)]


def best_of_short_rounds(functions, args, repeat=150, seconds=0.005):
    """Best per-call seconds of each function over ``repeat`` interleaved rounds of about
    ``seconds`` each (many short rounds: the minimum finds the quiet moments of a shared
    machine, which a few 0.2 s rounds may all miss); one number of calls for every function,
    from the last one's speed."""
    timers = [timeit.Timer(lambda f=f: f(*args)) for f in functions]
    count, elapsed = timers[-1].autorange()
    number = max(1, int(count * seconds / elapsed))
    best = [float("inf")] * len(functions)
    for _ in range(repeat):
        for k, timer in enumerate(timers):
            best[k] = min(best[k], timer.timeit(number) / number)
    return best


class Paired(NamedTuple):
    """What ``paired`` measured: per-call seconds of the first and second function (the least
    and the median over every timed call), and their ratio first / second: of the least times,
    and the median, least and largest of the rounds' ratios (of their total times)."""
    first_min: float
    first_median: float
    second_min: float
    second_median: float
    min_ratio: float
    median_ratio: float
    low: float
    high: float


def paired(functions, args, repeat, seconds=0.1):
    """Time two functions called with the same ``args`` (the same buffers) call by call, in
    ``repeat`` rounds: a ``Paired``.

    Both are called three times first (a jit's compile, caches), not counted. A round is as many
    calls of each as fill about ``seconds`` for the slower, alternating (first, second, second,
    first, ...: neither always runs just after the other), each call timed on its own
    (``time.perf_counter``; the garbage collector off, as ``timeit`` has it). On a loaded machine
    the least time of a call is the least disturbed one (the call that ran alone), and the two
    functions of one round run under the same load.
    """
    for f in functions:
        for _ in range(3):
            f(*args)
    clock = time.perf_counter
    once = []
    for f in functions:
        start = clock()
        f(*args)
        once.append(clock() - start)
    number = max(1, int(seconds / max(max(once), 1e-9)))
    calls = ([], [])
    ratios = []
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            totals = [0.0, 0.0]
            for call in range(2 * number):
                k = (call + call // 2) % 2  # 0, 1, 1, 0, 0, 1, 1, 0 ...
                start = clock()
                functions[k](*args)
                elapsed = clock() - start
                calls[k].append(elapsed)
                totals[k] += elapsed
            ratios.append(totals[0] / totals[1])
    finally:
        if collecting:
            gc.enable()
    return Paired(min(calls[0]), statistics.median(calls[0]), min(calls[1]),
                  statistics.median(calls[1]), min(calls[0]) / min(calls[1]),
                  statistics.median(ratios), min(ratios), max(ratios))


def peak_bytes(function, args):
    """Peak bytes traced during one call of ``function(*args)``, above what was live before it,
    after a first call (caches, lazily imported modules). The result arrays count (they are
    allocated during the call); the arguments do not. Exact, not a timing."""
    function(*args)
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

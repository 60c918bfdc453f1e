"""Benchmark symgrad's numpy gradients of A1 and A2 (array_workloads.py) on Dask arrays larger than
memory, on a ``dask.distributed.LocalCluster``.

Not collected by pytest; run by hand (needs ``pip install -e '.[dask]'``):

    python tests/benchmarks/bench_dask.py [--only A1,A2] [--rows 1e7,1e8] [--chunk-rows 1e6]
                                          [--workers 2] [--source]

For each workload, each number of rows and each chunk size: the data (X, y) is a lazy
``dask.array.random`` graph, generated chunk by chunk on the workers, so it never exists in memory
at once (at 10^8 rows, X is 8 GB for A1, 16 GB for A2); w is a small NumPy array. symgrad's
gradient (built once with ``shapes=``) is called on the Dask arrays, which builds a graph and
computes nothing, then ``dask.compute`` runs the graph on the cluster (2 worker processes, 1 thread
each). Printed per run: rows, chunks, the size of one chunk of X, the wall time of the compute
(including generating the data; the gradient call itself is timed apart), the peak resident memory
of each worker (``getrusage`` max RSS; each run has a fresh cluster, so it is the run's peak) above what it held idle, the largest cluster-wide memory sampled
(``distributed.diagnostics.MemorySampler``), and the largest relative difference from the same
gradient written by hand in Dask (computed in the same graph).
"""
import argparse
import os
import resource
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

import array_workloads as aw  # noqa: E402
import symgrad  # noqa: E402

MIB = 2**20


def max_rss_bytes():
    """This process's peak resident memory in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss_bytes():
    """This process's resident memory now, in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def data(key, rows, chunk_rows, seed=aw.SEED):
    """The arguments of workload ``key`` with X and y as lazy Dask arrays of ``rows`` rows in chunks
    of ``chunk_rows``, drawn per chunk (as ``array_workloads`` draws them in NumPy), and the
    gradient written by hand in Dask (the reference)."""
    import dask.array as da
    d = aw.WORKLOADS[key].sizes["large"]["d"]
    small = np.random.default_rng([seed, int(key[1:])])
    beta = small.standard_normal(d)
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((rows, d), chunks=(chunk_rows, d))
    noise = rng.standard_normal(rows, chunks=chunk_rows)
    if key == "A1":
        y = X @ beta + 0.5 + 0.1 * noise
        w, b = 0.5 * small.standard_normal(d), 0.1
        r = (X @ w + b - y) / rows
        return (w, b, X, y), (X.T @ r, r.sum())
    y = da.where(X @ beta + 0.5 * noise > 0, 1.0, -1.0)
    w = 0.3 * small.standard_normal(d)
    m = y / (1.0 + da.exp(y * (X @ w))) * (-1.0 / rows)
    return (w, X, y), (X.T @ m + 2.0 * aw.LAM * w,)


def run(client, key, rows, chunk_rows, show_source):
    """One row of the table (a dict) for workload ``key``, on a fresh cluster (``client``)."""
    import dask
    from distributed.diagnostics import MemorySampler
    wl = aw.WORKLOADS[key]
    g = symgrad.grad(wl.f, wrt=list(wl.wrt), shapes=aw.SHAPES[key])
    if show_source:  # what Dask arguments run: the lazy specialisation (g.source is NumPy's)
        print(g.specialisation("lazy").source)
    idle = client.run(current_rss_bytes)
    args, hand = data(key, rows, chunk_rows)
    started = time.perf_counter()
    gradient = g(*args)                    # a graph: nothing is computed here
    call = time.perf_counter() - started
    sampler = MemorySampler()
    with sampler.sample(key, interval=0.25):
        started = time.perf_counter()
        got, want = dask.compute(gradient, hand)
        wall = time.perf_counter() - started
    peaks = client.run(max_rss_bytes)
    X = args[aw.param_names(wl.f).index("X")]
    return dict(
        key=key, rows=rows, chunks=X.numblocks[0], chunk_mib=X.blocks[0].nbytes / MIB,
        data_gib=(X.nbytes + args[-1].nbytes) / 2**30, call=call, wall=wall,
        peak=[peaks[w] / MIB for w in sorted(peaks)],
        above_idle=[(peaks[w] - idle[w]) / MIB for w in sorted(peaks)],
        cluster=max((m for _, m in sampler.samples[key]), default=float("nan")) / MIB,
        error=aw.max_rel_err(tuple(np.atleast_1d(v) for v in got),
                             tuple(np.atleast_1d(v) for v in want)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="A1,A2", help="workloads, comma-separated (A1, A2)")
    parser.add_argument("--rows", default="1e7,1e8", help="numbers of rows, comma-separated")
    parser.add_argument("--chunk-rows", default="1e6", help="rows per chunk, comma-separated")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--source", action="store_true", help="print the generated gradients")
    options = parser.parse_args(argv)
    import dask
    import distributed
    from distributed import Client, LocalCluster
    keys = [k.strip() for k in options.only.split(",")]
    sizes = [int(float(r)) for r in options.rows.split(",")]
    chunkings = [int(float(c)) for c in options.chunk_rows.split(",")]
    print(f"dask {dask.__version__}, distributed {distributed.__version__}, numpy {np.__version__}"
          f", {options.workers} workers x 1 thread")
    print("| workload | rows | chunks | chunk of X | data (X, y) | gradient call | compute "
          "(wall) | peak RSS per worker | above idle | cluster peak (sampled) | rel. diff |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        for rows in sizes:
            for chunk_rows in chunkings:
                # a fresh cluster per run: each worker's max RSS is then this run's peak
                with LocalCluster(n_workers=options.workers, threads_per_worker=1,
                                  dashboard_address=None) as cluster, Client(cluster) as client:
                    r = run(client, key, rows, chunk_rows, options.source and rows == sizes[0]
                            and chunk_rows == chunkings[0])
                    print(f"| {key} | {r['rows']:.0e} | {r['chunks']} | {r['chunk_mib']:.0f} MiB "
                          f"| {r['data_gib']:.1f} GiB | {r['call'] * 1e3:.0f} ms "
                          f"| {r['wall']:.1f} s | {' / '.join(f'{p:.0f}' for p in r['peak'])} MiB "
                          f"| {' / '.join(f'{p:.0f}' for p in r['above_idle'])} MiB "
                          f"| {r['cluster']:.0f} MiB | {r['error']:.1e} |", flush=True)


if __name__ == "__main__":
    main()

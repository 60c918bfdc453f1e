"""The Array API scatter-add (the adjoint of ``E[INDEX]`` with repeated rows): symgrad's
``backend="array_api"`` gradient on NumPy arrays against the numpy gradient (``np.add.at``), per
call, and whether the floats are the same.

    python tests/benchmarks/bench_array_api_scatter.py [--rows 100000] [--repeat 200]

INDEX picks row 0 ``--repeat`` times and 800 other rows once (1000 picks for the default), into
``E`` of ``--rows`` x 8. Each time is the mean of 5 calls; three runs.
"""
import argparse
import time

import numpy as np

import symgrad


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**5)
    parser.add_argument("--repeat", type=int, default=200)
    options = parser.parse_args()
    index = np.concatenate([np.zeros(options.repeat, dtype=int),
                            np.arange(1, 801) * (options.rows // 1000)])

    def gather(E):
        return np.sum(E[index] ** 2)

    shapes = {"E": ("n", "k")}
    api = symgrad.grad(gather, backend="array_api", shapes=shapes, cache=False)
    plain = symgrad.grad(gather, shapes=shapes, cache=False)
    E = np.random.default_rng(0).standard_normal((options.rows, 8))
    print(f"E {E.shape}, {index.size} picks, row 0 {options.repeat} times; the same floats as "
          f"np.add.at: {np.array_equal(api(E), plain(E))}")
    for _ in range(3):
        times = []
        for g in (api, plain):
            start = time.perf_counter()
            for _ in range(5):
                g(E)
            times.append((time.perf_counter() - start) / 5)
        print(f"array_api {times[0] * 1e3:.1f} ms per call, numpy (np.add.at) "
              f"{times[1] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()

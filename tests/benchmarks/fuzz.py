"""Differential fuzzer: random programs in symgrad's language against a 50-digit mpmath reference.

Not collected by pytest; run by hand from the repository:

    python tests/benchmarks/fuzz.py --seconds 600 --seed N [--jobs 2]

Each program (``tests/program_gen.py``, the grammar the property test ``tests/test_properties.py``
draws from) is written to a module file, its gradient built under ``strategy="auto"`` (always),
``"symbolic"`` and ``"reverse"`` (each for about a third of the programs; ``--strategies reverse``
builds every program under the strategies named instead), and, for a quarter of them,
``value_and_grad`` (under ``auto``); each is compared at 3 points with the central difference of
``tests/program_ref.py`` (``tests/program_check.py`` says what each failure kind means). Prints the
figures, then minimised reproducers per failure kind (and bug pattern, for a focused program)
(source, strategy, point, expected, got).
``--patterns`` restricts the forms of ``program_gen.PATTERNS`` (the kinds of earlier bugs) the
grammar uses, e.g. to look past the ones open on the code fuzzed; ``--focus P ...`` draws only
the small programs ``program_gen.focused`` builds around them. Program ``n`` of job ``j`` is
drawn from the seed string ``"<seed>-<j>-<n>"``, so a run is reproducible (up to where the time
limit stops it), and ``--replay 3-0-17 ...`` checks (and minimises) only the programs named.
Some operands of ``-``, ``/``, a comparison or a conditional expression are made one expression
(``e - e``, ``e / e``, ``e < e``, ``a if c else a``: ``program_gen.program``'s ``folds``), drawn
from a stream of their own (``"folds-<name>"``); ``--no-folds`` leaves them out, giving the
programs of the runs before they were drawn (the seeds up to 182) and their replays.
"""
import argparse
import multiprocessing
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the shared modules

import program_check  # noqa: E402
import program_gen  # noqa: E402

# a primal calling NumPy off its domain (np.log of a negative: nan, which the checker reads as a
# primal error) warns; the figures say what matters
warnings.filterwarnings("ignore", category=RuntimeWarning)

KIND_ORDER = ("wrong", "wrong value", "crash", "refusal", "raises", "nonfloat", "slow")
LABELS = {"wrong": "wrong gradients", "wrong value": "wrong values (value_and_grad)",
          "crash": "crashes", "refusal": "refusals of supported programs",
          "raises": "gradients that raise where the primal does not",
          "nonfloat": "non-float results", "slow": f"slow builds (> {program_check.SLOW:g} s "
                                                   "under auto)"}


def run_job(job, options):
    """Fuzz until the deadline: (counts, {signature: [count, failures...]}, mirror errors)."""
    deadline = time.monotonic() + options.seconds
    counts = program_check.Counts()
    found, mirror = {}, []
    n = 0
    names = iter(options.replay) if options.replay else None
    while time.monotonic() < deadline:
        name = next(names, None) if names else f"{options.seed}-{job}-{n}"
        if name is None:
            break
        chooser = program_gen.RandomChooser(name)
        n += 1
        folds = program_gen.RandomChooser("folds-" + name) if options.folds else None
        prog, pattern = program_gen.drawn(chooser, max_statements=options.statements,
                                          patterns=options.patterns, focus=options.focus,
                                          folds=folds)
        points = program_gen.random_points(chooser, prog, 3)
        strategies = ("auto",) + tuple(s for s in ("symbolic", "reverse") if chooser.chance(0.33))
        value_and_grad = chooser.chance(0.25)
        if options.strategies:  # (drawn all the same: the same programs as without the option)
            strategies = tuple(options.strategies)
            value_and_grad = value_and_grad and "auto" in strategies
        if options.replay:
            strategies, value_and_grad = ("auto", "symbolic", "reverse"), True
        try:
            failures = program_check.check(prog, points, strategies, counts,
                                           value_and_grad=value_and_grad,
                                           timeout=options.timeout)
        except AssertionError as e:
            mirror.append(str(e))
            continue
        for failure in failures:  # one entry per kind, pattern and detail, whatever the strategy
            failure.seed = name
            key = failure.signature[:1] + (f"[focused: {pattern}]" if pattern else "",) + \
                failure.signature[2:]
            entry = found.setdefault(key, [0])
            entry[0] += 1
            if len(entry) <= options.per_kind and all(f.program != failure.program
                                                      for f in entry[1:]):
                entry.append(failure)
    for entry in found.values():
        entry[1:] = [program_check.minimise(f, options.shrink_seconds) for f in entry[1:]]
    return counts, found, mirror


def _commit():
    """The commit of the symgrad checkout fuzzed (``+`` when its files differ from it)."""
    folder = Path(program_check.symgrad.__file__).parent
    try:
        head = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "commit unknown"
    return f"commit {head}{'+' if dirty else ''}" if head else "not a git checkout"


def _job(args):
    return run_job(*args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="time spent generating")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--statements", type=int, default=3, help="most statements before return")
    parser.add_argument("--timeout", type=float, default=30.0, help="a build is stopped after")
    parser.add_argument("--shrink-seconds", type=float, default=60.0,
                        help="time spent minimising each reproducer")
    parser.add_argument("--per-kind", type=int, default=2, help="reproducers kept per kind")
    parser.add_argument("--patterns", nargs="*", default=program_gen.PATTERNS,
                        choices=program_gen.PATTERNS, metavar="PATTERN",
                        help="the bug patterns the grammar uses (default: all of "
                             f"{', '.join(program_gen.PATTERNS)}; --patterns alone: none, the base "
                             "grammar)")
    parser.add_argument("--focus", nargs="+", choices=program_gen.PATTERNS, metavar="PATTERN",
                        help="only small programs built around these patterns "
                             "(program_gen.focused)")
    parser.add_argument("--strategies", nargs="+", choices=("auto", "symbolic", "reverse"),
                        help="build every program under these strategies (default: auto, and "
                             "symbolic and reverse each for about a third of the programs)")
    parser.add_argument("--replay", nargs="+", metavar="NAME",
                        help="check only these programs (names as printed: SEED-JOB-N), under "
                             "every strategy")
    parser.add_argument("--folds", action=argparse.BooleanOptionalAction, default=True,
                        help="some operands of -, /, a comparison or a conditional expression "
                             "made one expression (e - e, e < e, a if c else a: what SymPy "
                             "folds or decides), drawn from a random stream of their own; on by "
                             "default: --no-folds gives the programs of the runs before (seeds "
                             "up to 182) and their replays")
    options = parser.parse_args(argv)
    start, commit = time.monotonic(), _commit()  # the code fuzzed: read before it may change
    if options.jobs > 1:
        with multiprocessing.get_context("fork").Pool(options.jobs) as pool:
            results = pool.map(_job, [(j, options) for j in range(options.jobs)])
    else:
        results = [run_job(0, options)]
    counts = program_check.Counts()
    found, mirror = {}, []
    for c, f, m in results:
        counts.programs += c.programs
        counts.points += c.points
        counts.timeouts += c.timeouts
        counts.allowed += c.allowed
        counts.slowest = max(counts.slowest, c.slowest)
        for k, v in c.builds.items():
            counts.builds[k] = counts.builds.get(k, 0) + v
        for sig, entry in f.items():
            mine = found.setdefault(sig, [0])
            mine[0] += entry[0]
            mine += entry[1:]
        mirror += m
    by_kind = {k: sum(e[0] for s, e in found.items() if s[0] == k) for k in KIND_ORDER}
    print(f"symgrad from {Path(program_check.symgrad.__file__).parent} ({commit}); seed "
          f"{options.seed}, {options.jobs} job(s), {time.monotonic() - start:.0f} s")
    print("command: python tests/benchmarks/fuzz.py " + " ".join(argv if argv is not None
                                                              else sys.argv[1:]))
    print(f"patterns: {', '.join(options.patterns) or 'none'}" +
          (f"; focused programs only: {', '.join(options.focus)}" if options.focus else ""))
    print(f"programs tried: {counts.programs}")
    print("builds: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.builds.items())) +
          f" (stopped after {options.timeout:g} s: {counts.timeouts})")
    print(f"points compared: {counts.points} (documented ValueErrors of a moving complex power "
          f"accepted: {counts.allowed})")
    for kind in KIND_ORDER:
        print(f"{LABELS[kind]}: {by_kind[kind]}")
    print(f"slowest build under auto: {counts.slowest:.2f} s (CPU)")
    print(f"mirror disagreements (a fuzzer bug): {len(mirror)}")
    for text in mirror[:3]:
        print("  " + text.replace("\n", "\n  "))
    for sig in sorted(found, key=lambda s: (KIND_ORDER.index(s[0]), str(s))):
        entry = found[sig]
        print(f"\n=== {sig[0]}: {entry[0]} time(s), {' '.join(map(str, sig[1:])).strip()}")
        for failure in entry[1:]:
            print(f"--- minimised reproducer (strategy={failure.strategy!r}, "
                  f"point={program_check.fmt_point(failure.point)}, from program {failure.seed})")
            print(failure.source.rstrip())
            print(f"expected: {failure.expected}\ngot: {failure.got}")
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main())

"""Differential check of symgrad on one random program (``program_gen``), and the minimiser.

``check(prog, points, strategies)`` builds the program's gradient under each strategy and compares
it, at each point, with ``program_ref.reference``; it returns the ``Failure`` list and counts. The
failure kinds (issue 6):

- ``wrong``: a gradient differing from the 50-digit reference, or a number where the value is
  complex arbitrarily near (``wrong value``: the value of ``value_and_grad`` not the primal's
  very float, compared bit for bit);
- ``crash``: any exception of a build other than symgrad's documented refusals;
- ``refusal``: ``UnsupportedSyntaxError``/``OptionError``/``SourceUnavailableError`` on a program
  whose primal returns a float at one of the points (a complex value nearby included);
- ``raises``: the gradient raises where the primal does not and the reference is finite
  (except the documented ``ValueError`` below), or raises anything but ``ValueError`` where it
  must raise;
- ``nonfloat``: a result that is not a ``float``;
- ``slow``: a build over ``SLOW`` seconds of CPU time under ``"auto"`` (the default), or one
  stopped by the (wall-clock) timeout.

Complex powers follow docs/conventions.md, "Complex powers" (a negative constant base to a
varying exponent: ``(-4) ** y``, ``math.cos(2) ** t``), as ``program_ref`` evaluates them:

- the result's derivative is complex (the exponent moves and the result follows it, e.g.
  ``t += (-0.5) ** z; return math.atan2(t, z)`` at z = 2): the gradient must raise
  ``ValueError`` (a number is ``wrong``, another exception ``raises``);
- the result depends on such a power with a moving exponent but the complex parts cancel
  (``x * (-4) ** y`` at x = 0; ``abs(x + (-4) ** y)``, a float whose modulus has a real
  derivative; ``Evaluation.may_raise``): ``ValueError`` (the power's derivative is needed) or
  the real reference gradient;
- the exponent does not move (``math.floor(-0.5) ** (math.floor(a) * b)`` at a in [0, 1)), the
  power is stopped (``a = (-4) ** y; return stop_gradient(a) * y`` at y = -1: -0.25), only
  decides a branch or a truth test, or is under ``abs`` itself (``abs((-0.5) ** e)`` is
  ``0.5 ** e``): a real gradient, the reference's.

``minimise`` shrinks a failing program (drops statements, helpers and branches, replaces
sub-trees by their children or by leaves) while the same failure persists at the same point.
"""
import math
import os
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import mpmath

import symgrad
from program_source import COND_TAGS, EXPR_TAGS, STMT_TAGS, is_node, source, walk
from program_ref import ComplexValue, PrimalError, Skip, evaluate
from source_modules import load_module

RTOL = 1e-7
SLOW = 5.0
REFUSALS = (symgrad.UnsupportedSyntaxError, symgrad.OptionError, symgrad.SourceUnavailableError,
            symgrad.OutputShapeError)
_DIRECTORY = Path(tempfile.mkdtemp(prefix="symgrad_fuzz_"))


class BuildTimeout(BaseException):
    """A build ran over its time limit (BaseException: symgrad's handlers must not catch it)."""


def _alarm(signum, frame):
    raise BuildTimeout


@dataclass
class Failure:
    """One failure: ``kind`` (see the module docstring), the strategy, the point, what was expected
    and what was got (or the exception), and ``signature``, what must persist while minimising."""

    kind: str
    strategy: str
    point: tuple
    expected: str
    got: str
    signature: tuple
    source: str = ""
    program: tuple = None
    seed: str = ""

    def report(self):
        return (f"kind: {self.kind} (strategy={self.strategy!r})\npoint: {self.point}\n"
                f"expected: {self.expected}\ngot: {self.got}\nsource:\n{self.source}")


@dataclass
class Counts:
    programs: int = 0
    builds: dict = field(default_factory=dict)
    points: int = 0
    timeouts: int = 0
    mirror: int = 0
    allowed: int = 0  # documented ValueErrors where a moving complex power's derivative is needed
    slowest: float = 0.0  # the most CPU seconds of one build under "auto" (grad)


def _where(error):
    """The innermost frame of symgrad (or SymPy) in ``error``'s traceback, as 'file:function'."""
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if "/symgrad/" in f.filename] or frames
    frame = mine[-1] if mine else None
    return f"{Path(frame.filename).name}:{frame.name}" if frame else "?"


def _timed_build(builder, f, strategy, timeout):
    """(the built function, the CPU seconds it took: a loaded machine does not make it slow)."""
    if timeout is None:
        start = time.process_time()
        return builder(f, strategy=strategy), time.process_time() - start
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.process_time()
    try:
        return builder(f, strategy=strategy), time.process_time() - start
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _close(got, expected, rtol):
    return abs(got - expected) <= rtol * max(1.0, abs(expected))


def primal_status(prog, primal, points):
    """Per point: ("ok", ``program_ref.Evaluation``), ("skip", reason), ("raises", reason) or
    ("complex", reason): a float computed from a power that is complex arbitrarily near, with
    no real derivative (docs/conventions.md, "Complex powers")."""
    out = []
    for point in points:
        try:
            value = primal(*point)
        except Exception as e:
            out.append(("raises", f"{type(e).__name__}: {e}"))
            continue
        if type(value) not in (int, float) or not math.isfinite(value):
            out.append(("raises", f"returns {value!r}"))
            continue
        try:
            out.append(("ok", evaluate(prog, point)))
        except Skip as e:
            out.append(("skip", str(e)))
        except ComplexValue as e:  # a float with no real derivative: the gradient must raise
            out.append(("complex", str(e)))
        except PrimalError as e:
            raise AssertionError(f"the mirror raises {e} where the primal returns {value!r} at "
                                 f"{point}:\n{source(prog)}") from None
    return out


def check(prog, points, strategies=("auto",), counts=None, value_and_grad=False, timeout=30.0,
          slow=SLOW):
    """The failures of symgrad on ``prog`` at ``points`` under each strategy (a list)."""
    counts = counts if counts is not None else Counts()
    counts.programs += 1
    text = source(prog)
    module = load_module(_DIRECTORY, text, f"fuzz_case_{os.getpid()}")
    primal = module.f
    statuses = primal_status(prog, primal, points)
    failures = []

    def fail(kind, strategy, point, expected, got, *signature):
        failures.append(Failure(kind, strategy, point, expected, got, (kind, strategy) + signature,
                                text, prog))

    for point, (status, data) in zip(points, statuses):
        if status == "ok":
            try:
                actual = primal(*point)
            except Exception as e:  # the mirror says it runs: it must
                actual = e
            if actual != data.value or type(actual) is not type(data.value):
                counts.mirror += 1
                raise AssertionError(f"the mirror computes {data.value!r}, the primal {actual!r} "
                                     f"at {point}:\n{text}")
    runs = [p for p, (status, _) in zip(points, statuses) if status != "raises"]  # a float
    anywhere = runs[0] if runs else ()
    builders = [(s, symgrad.grad) for s in strategies]
    if value_and_grad:
        builders.append(("auto", symgrad.value_and_grad))
    for strategy, builder in builders:
        label = strategy if builder is symgrad.grad else "value_and_grad auto"
        counts.builds[label] = counts.builds.get(label, 0) + 1
        try:
            gf, seconds = _timed_build(builder, primal, strategy, timeout)
        except BuildTimeout:
            counts.timeouts += 1
            if strategy == "auto":
                fail("slow", label, anywhere, f"a build under {slow} s",
                     f"over {timeout} s (stopped)")
            continue
        except REFUSALS as e:
            if runs:
                fail("refusal", label, runs[0], "a gradient (the primal runs here)",
                     f"{type(e).__name__}: {e}", type(e).__name__, getattr(e, "what", str(e)))
            continue
        except RecursionError as e:
            fail("crash", label, anywhere, "a gradient", "RecursionError", "RecursionError",
                 _where(e))
            continue
        except Exception as e:
            fail("crash", label, anywhere, "a gradient", f"{type(e).__name__}: {e}"[:300],
                 type(e).__name__, _where(e))
            continue
        if label == "auto":
            counts.slowest = max(counts.slowest, seconds)
        if seconds > slow and strategy == "auto":
            fail("slow", label, anywhere, f"a build under {slow} s (CPU)", f"{seconds:.1f} s (CPU)")
        for point, (status, data) in zip(points, statuses):
            if status == "complex":  # complex arbitrarily near: a number would be wrong
                counts.points += 1
                try:
                    got = gf(*point)
                except ValueError:  # as documented
                    continue
                except Exception as e:
                    fail("raises", label, point, "ValueError (no real derivative)",
                         f"{type(e).__name__}: {e}", type(e).__name__, "complex")
                    continue
                fail("wrong", label, point, "ValueError (no real derivative: the power is "
                     "complex arbitrarily near)", repr(got), "complex")
                continue
            if status != "ok":
                continue
            value, grads = data.value, data.grads
            counts.points += 1
            try:
                got = gf(*point)
            except ValueError as e:
                if data.may_raise:  # a moving complex power's derivative is needed: documented
                    counts.allowed += 1
                elif all(mpmath.isfinite(g) for g in grads):
                    fail("raises", label, point, _fmt(grads), f"ValueError: {e}", "ValueError")
                continue
            except Exception as e:
                if all(mpmath.isfinite(g) for g in grads):
                    fail("raises", label, point, _fmt(grads), f"{type(e).__name__}: {e}",
                         type(e).__name__)
                continue
            if builder is symgrad.value_and_grad:
                got_value, got = got
                if type(got_value) is not float:
                    fail("nonfloat", label, point, "a float value", repr(got_value))
                elif got_value != value:
                    fail("wrong value", label, point, repr(value), repr(got_value))
            got = got if isinstance(got, tuple) else (got,)
            if any(type(g) is not float for g in got):
                fail("nonfloat", label, point, "floats", repr(got))
                continue
            if not all(_close(g, float(r), RTOL) for g, r in zip(got, grads)):
                fail("wrong", label, point, _fmt(grads), repr(got))
    return failures


def _fmt(grads):
    return repr(tuple(float(g) for g in grads))


# --- minimising --------------------------------------------------------------------------------
LEAVES = (("num", 1.0), ("num", 0.5), ("num", 2), ("num", 0.0))


def _size(node):
    return sum(1 for _ in walk(node))


def _replacements(node, params):
    """Smaller nodes to try in place of ``node``."""
    tag = node[0]
    if tag in EXPR_TAGS:
        children = [n for n in _direct(node) if n[0] in EXPR_TAGS]
        if tag == "call" and node[1] in ("max", "min") and len(node[2]) > 2:
            children += [("call", node[1], node[2][:k] + node[2][k + 1:])
                         for k in range(len(node[2]))]
        if tag == "num":
            return [leaf for leaf in LEAVES if leaf != node and leaf[1] != node[1]][:1]
        return children + [("var", p) for p in params if ("var", p) != node] + list(LEAVES)
    if tag in COND_TAGS:
        out = [n for n in _direct(node) if n[0] in COND_TAGS]
        if tag == "cmp" and len(node[1]) > 1:
            out += [("cmp", node[1][:1], node[2][:2]), ("cmp", node[1][1:], node[2][1:])]
        return out + [("bool", True), ("bool", False)]
    return []


def _direct(node):
    for fld in node[1:]:
        if is_node(fld):
            yield fld
        elif isinstance(fld, tuple):
            yield from (n for n in fld if is_node(n))


def _tidy(node):
    """``node`` without the statements after a ``return`` in any block (dead code)."""
    out = [node[0]]
    for fld in node[1:]:
        if is_node(fld):
            fld = _tidy(fld)
        elif isinstance(fld, tuple) and fld and all(is_node(n) for n in fld):
            fld = tuple(_tidy(n) for n in fld)
            ends = [i for i, n in enumerate(fld) if n[0] == "return"]
            if ends:
                fld = fld[:ends[0] + 1]
        out.append(fld)
    return tuple(out)


def _candidates(node, params):
    """Every tree one reduction away from ``node`` (bigger reductions first)."""
    for k, fld in enumerate(node):
        if k == 0:
            continue
        if isinstance(fld, tuple) and fld and all(is_node(n) and n[0] in STMT_TAGS | {"helper"}
                                                  for n in fld):
            for i, s in enumerate(fld):  # drop or splice a statement / helper
                rest = fld[:i] + fld[i + 1:]
                if s[0] != "return" or i < len(fld) - 1:
                    yield node[:k] + (rest,) + node[k + 1:]
                if s[0] == "if":
                    for branch in (s[2], s[3]):
                        yield node[:k] + (fld[:i] + branch + fld[i + 1:],) + node[k + 1:]
                if s[0] == "for":
                    spliced = (("assign", s[1], ("num", s[2][0] if len(s[2]) > 1 else 0)),) + s[3]
                    yield node[:k] + (fld[:i] + spliced + fld[i + 1:],) + node[k + 1:]
                    if s[2][-1 if len(s[2]) < 3 else 1] > 1 and len(s[2]) == 1:
                        yield node[:k] + (fld[:i] + (("for", s[1], (s[2][0] - 1,), s[3]),) +
                                          fld[i + 1:],) + node[k + 1:]
    for k, fld in enumerate(node):
        if k == 0:
            continue
        if is_node(fld):
            for r in _replacements(fld, params):
                yield node[:k] + (r,) + node[k + 1:]
            for sub in _candidates(fld, params):
                yield node[:k] + (sub,) + node[k + 1:]
        elif isinstance(fld, tuple):
            for i, item in enumerate(fld):
                if not is_node(item):
                    continue
                for r in _replacements(item, params):
                    yield node[:k] + (fld[:i] + (r,) + fld[i + 1:],) + node[k + 1:]
                for sub in _candidates(item, params):
                    yield node[:k] + (fld[:i] + (sub,) + fld[i + 1:],) + node[k + 1:]


def reproduces(prog, failure, timeout):
    """Does ``prog`` fail with ``failure.signature`` at ``failure.point``?"""
    point = failure.point
    points = [point] if point else []
    strategy = failure.strategy
    vg = strategy.startswith("value_and_grad")
    try:
        found = check(prog, points, () if vg else (strategy,), value_and_grad=vg,
                      timeout=timeout, slow=SLOW)
    except AssertionError:
        return False
    return any(f.signature == failure.signature and bool(f.point) == bool(point) for f in found)


def minimise(failure, budget=60.0):
    """A smaller program failing as ``failure`` does (the smallest found within ``budget`` s)."""
    best = failure.program
    params = best[1]
    deadline = time.monotonic() + budget
    timeout = 2 * SLOW + 5 if failure.kind == "slow" else 30.0
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        for candidate in _candidates(best, params):
            if time.monotonic() > deadline:
                break
            candidate = _tidy(candidate)
            if _size(candidate) >= _size(best):
                continue
            try:
                ok = reproduces(candidate, failure, timeout)
            except Exception:
                ok = False
            if ok:
                best, improved = candidate, True
                break
    small = check(best, [failure.point] if failure.point else [],
                  () if failure.strategy.startswith("value_and_grad") else (failure.strategy,),
                  value_and_grad=failure.strategy.startswith("value_and_grad"), timeout=timeout)
    same = [f for f in small if f.signature == failure.signature]
    if not same:
        return failure
    same[0].seed = failure.seed
    return same[0]


def fmt_point(point):
    return "(" + ", ".join(repr(v) for v in point) + ")"


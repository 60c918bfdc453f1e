"""Differential fuzzer of array code: random vectorised NumPy programs, their numpy gradients
against float64 central differences, every backend against the numpy gradient.

Not collected by pytest; run by hand from the repository:

    nice python tests/benchmarks/fuzz_arrays.py --seconds 600 --seed N [--backends jax torch ...]

(``--backends`` with no names: the numpy gradient only; without ``--backends``: every backend.)
The programs draw the rows of ``array_program_wide`` too; ``--narrow`` leaves them out, giving
the programs the first generator drew for a seed (``--wide``, once needed for them, is now the
default and a no-op). By default some unary rows are replaced by what SymPy folds or decides
(``array_program_wide.FOLDS``: ``np.where(c, a, a)``, ``np.clip(x, 0.3, 0.3)``, ``x >= x``),
drawn from a stream of their own; ``--no-folds`` leaves them out, giving a seed's programs as
they were before the folds were drawn by default (the seeds up to 173 but 160 and 161, and
their replay names: ``--replay 131-3416 --no-folds``).

Program ``N`` of a run is drawn (``array_programs.draw``) from the seed string
``"<seed>-<N>"``, so a run is reproducible up to where the time limit stops it, and ``--replay
3-17 ...`` checks (and minimises) only the programs named. Each program is written to a module
file and checked (``check``):

1. ``grad(f, wrt=<every parameter>, shapes=...)`` (built at once) and ``grad(f, wrt=...)`` (built
   at the call) are called at two size assignments (one build serves every size), two points
   each, where the primal runs and is finite;
2. the directional derivative ``g . u`` along a random direction ``u`` against the float64
   difference quotients of the primal along ``u`` (``stop_gradient`` replaced by a tape that
   replays, at the shifted points, the values it recorded at the point itself): the 4th-order
   central stencil at h = 1e-3 and 1e-4 and the 2nd-order one-sided stencils at h = 1e-5 must
   agree (else a kink of ``where``/``max``/``abs``/``clip``/``if``/``round`` is within 2e-3 of the
   point, or on it, and the point is skipped as "kink"; the one-sided stencils' h^2 errors are
   equal, so the two must agree to 1e-7: a slope jumping by 2e-6 at an exact tie is a kink too,
   61-373); then ``g . u`` must match to 1e-6 of ``max(1, |D|, sum |g_i u_i|)`` (plus 1e-9
   |f|); where ``np.std`` or ``np.linalg.norm`` is exactly 0 at the point (no derivative there:
   numpy's gradient is nan) a mismatch is counted "undefined", not a failure, and so is a
   call-time build differing from shapes= only by nan elements ("undefined-builds-differ",
   174-23: a zero spread that a ``np.maximum`` reads and does not take is the documented nan
   in one build, the taken side's 0 in the other, where a branch holds the division); where one is of
   rounding size (0 < |value| < 1e-12) a backend that differs is counted
   "rounding-zero-differs" (``Watched``, 63-222);
3. each backend (``jax``, ``jax.jit``, ``torch``, ``array_api`` on NumPy, ``array_api_strict``,
   torch, Dask and JAX inputs (``array_api-jax``, and under ``jax.jit``: ``array_api-jax.jit``),
   and the numpy gradient on Dask inputs) against the numpy gradient at
   rel 1e-12 (abs 1e-12 max(1, max |g|)); a gradient on Dask inputs is called under a scheduler
   that refuses to compute (``Computed``, a ``backend-crash``: it must build a graph only), then
   computed; where the primal itself fails on the Dask arrays (``np.linalg`` of several chunks,
   nd fancy indexing), a gradient that raises is not blamed, one that returns numbers must
   have the NumPy gradient's. At a "kink" point a Dask gradient that differs is counted
   "dask-kink-differs", not a failure: a tie in real arithmetic only (two values equal up to rounding) is broken by the
   last bits, and Dask's chunked sums round otherwise than NumPy's (17-29); exact ties are
   tested in ``tests/test_dask_fuzz.py``. A Dask run passes each array parameter as a NumPy
   array with probability 1/3 (one Dask array at least: ``Backends.mix``), so a NumPy ``w``
   meets Dask data. The Dask inputs are in chunks of 2 along every axis
   (sizes 2..5: a last chunk of one element at 3 and 5); ``--chunks random`` cuts each axis at
   random places instead (unequal chunks, one chunk, chunks of one element) and passes a scalar
   parameter as a float, a NumPy scalar or a 0-d Dask array; ``--float32`` makes the numpy
   gradient's Dask inputs float32 (every point's numbers float32 ones, so the NumPy gradient of
   the same numbers is the reference: the lazy code computes in float64).

Kinds: ``wrong`` (gradient against the differences), ``nonfinite`` (nan/inf where the primal and
the differences are finite), ``shape`` (a result not of its parameter's shape), ``mismatch``
(shapes= against the call-time build, or a backend against numpy), ``crash`` (any exception other
than a clear ``UnsupportedSyntaxError``/``OptionError``), ``refusal`` (one of those for a program
of the supported language), ``backend-crash``/``backend-refusal`` (the same on a backend; the
refusals the docs list: einsum and scipy.special on array_api, sort on Dask, are counted apart as
``documented``), ``dtype`` (a gradient on JAX arrays called with float32 arguments,
at a program's first point, returning another dtype), ``backend-eager`` (a Dask run's
gradient of a Dask array parameter a NumPy array, also beside NumPy parameters: made in memory
at the data's size, not a graph); ``generator`` (the primal raises, also where symgrad refused the program). Each
failure kind (and backend) keeps its first reproducers, minimised (``Program.shrunk``) for
``--shrink-seconds`` each.
"""
import argparse
import math
import os
import random
import re
import sys
import tempfile
import time
import traceback
import warnings
import zlib
from pathlib import Path

os.environ.setdefault("SYMGRAD_CACHE_DIR", "")  # every build is built, none read from disk

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # tests/: source_modules
sys.path.insert(2, str(Path(__file__).resolve().parents[2]))  # this checkout's symgrad, not
# an installed one (an editable install of another worktree)

import array_programs  # noqa: E402
from source_modules import load_module  # noqa: E402
import symgrad  # noqa: E402

DIRECTORY = Path(tempfile.mkdtemp(prefix="symgrad_fuzz_arrays_"))
ALL_BACKENDS = ("jax", "jax.jit", "torch", "array_api-numpy", "array_api-strict", "array_api-torch",
                "dask", "array_api-dask", "array_api-jax", "array_api-jax.jit")
JAX = ("jax", "jax.jit", "array_api-jax", "array_api-jax.jit")
JITTED = ("jax.jit", "array_api-jax.jit")
DASK = ("dask", "array_api-dask")
KINDS = ("wrong", "nonfinite", "shape", "mismatch", "crash", "refusal", "call-time-refusal",
         "backend-crash", "backend-refusal", "dtype", "backend-eager")
DOCUMENTED = ("cannot be printed for backend 'array_api'",
              "has no spelling for backend 'array_api'",
              "Dask has no sort")  # np.sort / np.argsort on Dask: docs/backends.md, Dask


SCALAR_CODE = "was built from scalar code (no array construct in"


class Computed(RuntimeError):
    """A gradient on Dask inputs computed a Dask value inside (it must only build the graph)."""


def refuse(*args, **kwargs):
    raise Computed("the gradient computed a Dask value inside")


class Tape:
    """``stop_gradient`` for the reference: records values at the point, replays them after."""

    def __init__(self):
        self.values, self.i, self.recording = [], 0, True
        self.near_zero = False  # np.std / np.linalg.norm of rounding size at the point
        self.undefined = False  # np.std / np.linalg.norm exactly 0 there: no derivative

    def __call__(self, value):
        if self.recording:
            self.values.append(np.array(value, dtype=float) if np.ndim(value) else value)
            return value
        if self.i >= len(self.values):
            raise KinkError("stop_gradient called more often than at the point")
        out = self.values[self.i]
        self.i += 1
        if np.shape(out) != np.shape(value):
            raise KinkError("another stop_gradient order")
        return out


class KinkError(Exception):
    pass


class Watched:
    """NumPy for the reference module, noting whether ``np.std`` or ``np.linalg.norm`` gave an
    exact 0 (``zero``): no derivative there (the square root's at 0), so numpy's nan gradient
    (or any value) against finite differences is not counted a failure but "undefined"; one of
    rounding size (``tiny``: 0 < |value| < 1e-12, 63-222: ``np.linalg.norm(a * (r @ a))`` with
    ``r @ a`` 0 in real arithmetic, 1.7e-17 in NumPy's float, exactly 0 in PyTorch's) is as
    undefined: each library's last bits decide whether the gradient is 0 / 0."""

    def __init__(self):
        self.zero = self.tiny = False
        watched = self

        class Linalg:
            def __getattr__(self, name):
                return getattr(np.linalg, name)

            def norm(self, *args, **kwargs):
                return watched.note(np.linalg.norm(*args, **kwargs))
        self.linalg = Linalg()

    def note(self, value):
        value_ = np.abs(np.asarray(value))
        if np.any(value_ == 0.0):
            self.zero = True
        if np.any((value_ > 0.0) & (value_ < 1e-12)):
            self.tiny = True
        return value

    def __getattr__(self, name):
        return getattr(np, name)

    def std(self, *args, **kwargs):
        return self.note(np.std(*args, **kwargs))


class Failure:
    def __init__(self, kind, backend, detail, expected="", got="", where=None):
        self.kind, self.backend, self.detail = kind, backend, detail
        self.expected, self.got, self.where = expected, got, where
        self.program, self.name = None, None
        self.numpy = ()  # on a Dask run, the parameters passed as NumPy arrays (``Backends.mix``)

    def key(self):
        return (self.kind, self.backend or "", self.detail.split(":")[0][:60])


def load(source, tape=None):
    module = load_module(DIRECTORY, source, "fuzzarr")
    if tape is not None:
        module.stop_gradient = tape
        module.np = tape.numpy = Watched()
    return module


def sizes_for(program, rng):
    """Two assignments of the named sizes (each 2..5; a fixed size keeps its int)."""
    labels = sorted({a for s in program.params.values() for a in s if isinstance(a, str)})
    out = []
    for _ in range(2):
        out.append({a: program.fixed.get(a, rng.randint(2, 5)) for a in labels})
    return out


def arguments(program, sizes, rng, float32=False):
    """A point; ``float32``: each number one of float32 (``--float32``: the Dask inputs are
    float32 arrays of the same numbers)."""
    args = []
    for name, shape in program.params.items():
        dims = tuple(sizes.get(a, a) if isinstance(a, str) else a for a in shape)
        a = rng.uniform(-1.0, 1.0, dims)
        if float32:
            a = a.astype(np.float32).astype(np.float64)
        args.append(a if dims else float(a))
    return args


def _flat(result, count):
    """The results of a gradient with ``count`` wrt names, as a list."""
    return list(result) if isinstance(result, tuple) else [result]


def classify_build_error(error, backend=None):
    if isinstance(error, (symgrad.UnsupportedSyntaxError, symgrad.OptionError)):
        text = str(error)
        if backend and any(d in text for d in DOCUMENTED):
            return None
        return Failure("backend-refusal" if backend else "refusal", backend,
                       f"{type(error).__name__}: {text.splitlines()[0][:200]}", got=text[:1500])
    return Failure("backend-crash" if backend else "crash", backend,
                   f"{type(error).__name__}: "
                   f"{str(error).splitlines()[0][:200] if str(error) else ''}",
                   got="".join(traceback.format_exception(error)[-6:])[-2500:])


def directional(ref, tape, args, grads, rng):
    """(verdict, expected D, got g.u): verdict 'ok', 'wrong', 'kink' or 'bad' (no number)."""
    dirs = [rng.standard_normal(np.shape(a)) if np.ndim(a) else float(rng.standard_normal())
            for a in args]

    def phi(t):
        tape.i, tape.recording = 0, False
        shifted = [a + t * u for a, u in zip(args, dirs)]
        return float(ref.f(*shifted))

    args = [np.array(a, dtype=float) if np.ndim(a) == 0 else a for a in args]  # 0-d as the
    # primal's (21-57: `v[None]` of a Python float raised TypeError in the fuzzer)
    tape.values, tape.i, tape.recording = [], 0, True
    tape.numpy.zero = tape.numpy.tiny = False
    with np.errstate(all="ignore"):
        f0 = float(ref.f(*args))
        undefined, tape.near_zero = tape.numpy.zero, tape.numpy.tiny  # at the point itself
        tape.undefined = undefined
        try:
            values = {t: phi(t) for t in (-2e-3, -1e-3, 1e-3, 2e-3, -2e-4, -1e-4, 1e-4, 2e-4,
                                          -2e-5, -1e-5, 1e-5, 2e-5)}
        except KinkError:
            return "kink", None, None
    values[0.0] = f0
    if not all(math.isfinite(v) for v in values.values()):
        return "bad", None, None

    def d4(h):
        return (values[-2 * h] - 8 * values[-h] + 8 * values[h] - values[2 * h]) / (12 * h)

    big, small = d4(1e-3), d4(1e-4)
    forward = (-3 * f0 + 4 * values[1e-5] - values[2e-5]) / 2e-5
    backward = (3 * f0 - 4 * values[-1e-5] + values[-2e-5]) / 2e-5
    got = sum(float(np.sum(np.asarray(g) * u)) for g, u in zip(grads, dirs))
    terms = sum(float(np.sum(np.abs(np.asarray(g) * u))) for g, u in zip(grads, dirs))
    scale = max(1.0, abs(small), terms if math.isfinite(terms) else 0.0)
    noise = 1e-9 * abs(f0)
    if abs(big - small) > 1e-7 * scale + noise or abs(forward - small) > 1e-5 * scale + noise \
            or abs(backward - small) > 1e-5 * scale + noise \
            or abs(forward - backward) > 1e-7 * scale + noise:  # their h^2 errors cancel: a
        # slope that jumps by 2e-6 at the point (61-373: an exact tie of np.amax) is a kink
        return "kink", small, got
    if undefined and (not math.isfinite(got) or abs(got - small) > 1e-6 * scale + noise):
        return "undefined", small, got  # np.std / np.linalg.norm at 0: no derivative
    if not math.isfinite(got):
        return "nonfinite", small, got
    if abs(got - small) > 1e-6 * scale + noise:
        return "wrong", small, got
    return "ok", small, got


def close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 0.0)
    return bool(np.all(np.isclose(got, want, rtol=1e-12, atol=1e-12 * scale, equal_nan=True)))


def nan_apart(got, want):
    """``got`` and ``want`` (lists of arrays) differ only where one of them is nan."""
    for a, b in zip(got, want):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            return False
        either = np.isnan(a) | np.isnan(b)
        if not close(np.where(either, 0.0, a), np.where(either, 0.0, b)):
            return False
    return True


def to_numpy(value):
    if type(value).__module__.startswith("torch"):
        return value.detach().cpu().numpy()
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    if type(value).__module__.startswith("dask"):
        return np.asarray(value.compute())
    return np.asarray(value)


class Backends:
    """Converting arguments and building/calling a gradient for each backend run."""

    def __init__(self, names, chunking="2", float32=False):
        self.names = names
        self.chunking, self.float32 = chunking, float32  # the Dask inputs' (``--chunks``,
        self.rng = random.Random(0)  # ``--float32``); reseeded per program (``check``)
        self.eager = []  # the gradients of a Dask run that are NumPy arrays (``call``)
        self.numpy = ()  # the parameters a Dask run passes as NumPy arrays at this point
        self.mixing = random.Random(0)  # draws them (``mix``); reseeded per program
        if any(n in JAX for n in names):
            import jax
            jax.config.update("jax_enable_x64", True)
            self.jax, self.jnp = jax, __import__("jax.numpy").numpy
        if any("torch" in n for n in names):
            import torch
            self.torch = torch
        if "array_api-strict" in names:
            import array_api_strict
            self.strict = array_api_strict
        if any(n in DASK for n in names):
            import dask
            import dask.array
            self.dask, self.da = dask, dask.array

    def backend(self, run):
        return {"jax": "jax", "jax.jit": "jax", "torch": "torch", "dask": None}.get(
            run, "array_api")

    def mix(self, args):
        """Which array parameters a Dask run passes as NumPy arrays at this point (``numpy``):
        each with probability 1/3, one Dask array at least (a NumPy ``w`` beside Dask data, where
        the Dask parameters' gradients must be Dask arrays all the same)."""
        arrays = [k for k, a in enumerate(args) if np.ndim(a)]
        numpy = {k for k in arrays if self.mixing.random() < 1 / 3}
        if arrays and numpy.issuperset(arrays):
            numpy.discard(self.mixing.choice(arrays))
        self.numpy = numpy

    def convert_all(self, run, args):
        return [np.asarray(a, dtype=np.float64) if run in DASK and k in self.numpy else
                self.convert(run, a) for k, a in enumerate(args)]

    def convert(self, run, a):
        array = isinstance(a, np.ndarray)
        if run in ("jax", "jax.jit"):
            return self.jnp.asarray(a) if array else a
        if run == "torch":
            return self.torch.from_numpy(a) if array else a
        if run == "dask":
            return self.dask_array(a, self.float32) if array and a.ndim else \
                self.dask_scalar(a, self.float32)
        a = np.asarray(a, dtype=np.float64)
        if run == "array_api-dask":  # float64 always: the Array API code keeps float32 float32
            return self.dask_array(a) if a.ndim else self.dask_scalar(a)
        if run == "array_api-numpy":
            return a
        if run == "array_api-strict":
            return self.strict.asarray(a)
        if run == "array_api-torch":
            return self.torch.from_numpy(a)
        if run in ("array_api-jax", "array_api-jax.jit"):
            return self.jnp.asarray(a)
        raise AssertionError(run)

    def float32_dtypes(self, run, gf, args):
        """The result dtypes of a JAX gradient called with float32 arguments (a scalar one as a
        0-d float32 array: a Python float is float64): float32 in must give float32 out."""
        converted = [self.jnp.asarray(a, dtype=self.jnp.float32) for a in args]
        result = (self.jax.jit(gf) if run in JITTED else gf)(*converted)
        return [str(r.dtype) for r in (result if isinstance(result, tuple) else (result,))]

    def chunks(self, shape):
        """2 along every axis, or (``--chunks random``) each axis cut at random places: chunks
        of unequal sizes, of one element, or one chunk."""
        if self.chunking == "2":
            return 2
        out = []
        for n in shape:
            cuts = sorted(self.rng.sample(range(1, n), self.rng.randint(0, n - 1))) if n > 1 \
                else []
            bounds = [0] + cuts + [n]
            out.append(tuple(b - a for a, b in zip(bounds, bounds[1:])))
        return tuple(out)

    def dask_array(self, a, float32=False):
        return self.da.from_array(a.astype(np.float32) if float32 else a,
                                  chunks=self.chunks(a.shape))

    def dask_scalar(self, a, float32=False):
        """A scalar argument beside Dask arrays: a Python float, or (``--chunks random``) a NumPy
        scalar or a 0-d Dask array."""
        if self.chunking == "2":
            return a
        kind = self.rng.choice(("float", "numpy", "dask"))
        a = float(a)
        value = np.float32(a) if float32 else np.float64(a)
        return float(a) if kind == "float" else value if kind == "numpy" else \
            self.da.from_array(np.asarray(value))

    def call(self, run, gf, args):
        converted = self.convert_all(run, args)
        if run in JITTED:
            result = self.jax.jit(gf)(*converted)
        elif run in DASK:
            with self.dask.config.set(scheduler=refuse):
                result = gf(*converted)
        else:
            result = gf(*converted)
        result = result if isinstance(result, tuple) else (result,)
        if run in DASK:  # the array parameters' gradients must be Dask arrays (``eager``)
            self.eager = [k for k, (r, a) in enumerate(zip(result, converted))
                          if np.ndim(a) and hasattr(a, "dask") and not hasattr(r, "dask")]
            result = self.dask.compute(*result)
        return [to_numpy(r) for r in result]


def dask_primal(backends, module, args, run="dask"):
    """Whether the primal itself runs on the Dask arrays (Dask lacks some of NumPy: a
    gradient is not blamed for what the primal cannot do there either)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = module.f(*backends.convert_all(run, args))
            backends.dask.compute(value)
        return True
    except Exception:
        return False


def primal_raises(program, module, name):
    """The exception (``"TypeError: ..."``) the primal raises at the program's sizes, or None: a
    refusal of a program that NumPy cannot run either is the generator's fault (103-354: sizes
    d and n that must be equal, at d = 5, n = 4)."""
    for sizes in sizes_for(program, random.Random(name)):
        args = arguments(program, sizes, np.random.default_rng(0))
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module.f(*args)
        except Exception as error:
            return f"{type(error).__name__}: {error}"[:200]
    return None


def check(program, name, backends, counts=None, only=None):
    """The failures of one program (a list of ``Failure``); ``only``: (kind, backend) to look
    for, when shrinking (the other checks are skipped where they cost a build)."""
    counts = counts if counts is not None else {}
    source = program.source()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    pyrng = random.Random(name)
    backends.rng = random.Random(name + "-chunks")
    backends.mixing = random.Random(name + "-numpy")
    try:
        module = load(source)
        tape = Tape()
        ref = load(source, tape)
    except Exception as error:  # a generator bug
        return [Failure("generator", None, f"{type(error).__name__}: {error}")]
    wrt = tuple(program.params)
    failures = []
    builds = {}
    want_backend = only[1] if only else None
    try:
        builds["shapes"] = symgrad.grad(module.f, wrt=wrt, shapes=program.shapes())
    except Exception as error:
        f = classify_build_error(error)
        raised = primal_raises(program, module, name) if f and f.kind == "refusal" else None
        if raised:  # a program NumPy cannot run either (103-81: shapes that do not broadcast)
            return [Failure("generator", None, f"primal raises {raised}; refused: {f.detail}")]
        return [f] if f else []
    if not want_backend:
        builds["call"] = symgrad.grad(module.f, wrt=wrt)
    runs = [r for r in backends.names if only is None or r == want_backend]
    gradients = {}
    for run in runs:
        try:
            gradients[run] = builds["shapes"] if run == "dask" else symgrad.grad(
                module.f, wrt=wrt, shapes=program.shapes(), backend=backends.backend(run))
        except Exception as error:
            f = classify_build_error(error, run)
            if f is None:
                counts["documented"] = counts.get("documented", 0) + 1
            else:
                failures.append(f)
    points = 0
    for sizes in sizes_for(program, pyrng):
        for _ in range(2):
            args = arguments(program, sizes, rng, backends.float32)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    primal = module.f(*[np.copy(a) for a in args])
                except Exception as error:
                    return failures + [Failure("generator", None, f"primal raises "
                                               f"{type(error).__name__}: {error}")]
            if np.ndim(primal) != 0 or not math.isfinite(float(primal)):
                counts["primal-nonfinite"] = counts.get("primal-nonfinite", 0) + 1
                continue
            points += 1
            where = (sizes, [np.copy(a) for a in args])
            backends.mix(args)  # the parameters Dask runs pass as NumPy arrays at this point
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    grads = [np.asarray(g) for g in _flat(builds["shapes"](*args), len(wrt))]
            except Exception as error:
                f = classify_build_error(error)
                f.where = where
                return failures + [f]
            for g, a, p in zip(grads, args, wrt):
                if g.shape != np.shape(a):
                    failures.append(Failure("shape", None, f"d/d{p} has shape {g.shape}",
                                            np.shape(a), g.shape, where))
            differs = None
            if "call" in builds:
                try:
                    again = [np.asarray(g) for g in _flat(builds["call"](*args), len(wrt))]
                    if not all(close(a, b) for a, b in zip(again, grads)):
                        differs = Failure("mismatch", None, "call-time build differs from "
                                          "shapes=", grads, again, where)
                except Exception as error:
                    if isinstance(error, symgrad.OptionError) and SCALAR_CODE in str(error):
                        # no array construct in f (`return X`): scalar code refuses arrays, as
                        # documented ("Scalar code called with arrays"); fuzz 31-0
                        counts["documented"] = counts.get("documented", 0) + 1
                    else:
                        f = classify_build_error(error)
                        if f.kind == "refusal":  # what shapes= builds, the call-time build refuses
                            f.kind = "call-time-refusal"
                        f.detail = "call-time build: " + f.detail
                        f.where = where
                        failures.append(f)
            verdict = None
            tape.undefined = False
            if only is None or only[0] in ("wrong", "nonfinite", "mismatch"):
                verdict, expected, got = directional(ref, tape, args, grads, rng)
                counts[verdict] = counts.get(verdict, 0) + 1
            if differs is not None and tape.undefined and nan_apart(differs.expected,
                                                                    differs.got):
                # np.std / np.linalg.norm exactly 0 at the point, read by a np.maximum (or
                # another choice) whose other side is taken: the documented "no derivative"
                # nan (as JAX gives) in one build, the other side's 0 in the other (174-23)
                counts["undefined-builds-differ"] = counts.get("undefined-builds-differ",
                                                               0) + 1
            elif differs is not None:
                failures.append(differs)
                if verdict in ("wrong", "nonfinite"):
                    failures.append(Failure(verdict, None, "directional derivative",
                                            expected, got, where))
                elif verdict == "ok" and not all(np.all(np.isfinite(g)) for g in grads):
                    failures.append(Failure("nonfinite", None, "a nan/inf element",
                                            "finite", grads, where))
            start = len(failures)
            for run, gf in list(gradients.items()):
                primal_fails = run in DASK and not dask_primal(backends, module, args, run)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        got = backends.call(run, gf, args)
                except Exception as error:
                    if primal_fails:  # what the primal cannot do on Dask either
                        counts["dask-primal-fails"] = counts.get("dask-primal-fails", 0) + 1
                        del gradients[run]
                        continue
                    f = classify_build_error(error, run)
                    if f is None:
                        counts["documented"] = counts.get("documented", 0) + 1
                    else:
                        f.where = where
                        failures.append(f)
                    del gradients[run]
                    continue
                if run in DASK and backends.eager:
                    failures.append(Failure("backend-eager", run, "a NumPy array for a Dask "
                                            "parameter", "Dask arrays", [
                                                wrt[k] for k in backends.eager], where))
                if len(got) != len(grads) or not all(close(a, b) for a, b in zip(got, grads)):
                    if tape.near_zero:  # np.std / np.linalg.norm of rounding size (63-222)
                        counts["rounding-zero-differs"] = counts.get("rounding-zero-differs",
                                                                     0) + 1
                        continue
                    if run in DASK and verdict == "kink":  # a tie up to rounding: Dask's chunked
                        # sums round otherwise (17-29), another subgradient of the kink
                        counts["dask-kink-differs"] = counts.get("dask-kink-differs", 0) + 1
                        continue
                    failures.append(Failure("mismatch", run, "backend differs from numpy",
                                            grads, got, where))
                    del gradients[run]
                    continue
                if run in JAX and points == 1:  # dtypes: at the first point
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            dtypes = backends.float32_dtypes(run, gf, args)
                    except Exception as error:
                        f = classify_build_error(error, run)
                        if f is not None:
                            f.detail, f.where = "float32 arguments: " + f.detail, where
                            failures.append(f)
                        continue
                    if any(d != "float32" for d in dtypes):
                        failures.append(Failure("dtype", run, "float32 arguments, results "
                                                "of another dtype", ["float32"] * len(dtypes),
                                                dtypes, where))
            for f in failures[start:]:
                if f.backend in DASK:
                    f.numpy = [wrt[k] for k in sorted(backends.numpy)]
    counts["points"] = counts.get("points", 0) + points
    if only is not None:
        failures = [f for f in failures if (f.kind, f.backend) == tuple(only)]
    return failures


def _gist(failure):
    """The start of an exception's message, without the file named: the same error."""
    return re.sub(r"\(fuzzarr_\d+\.py.*", "", failure.detail)[:70]


def minimise(failure, backends, seconds):
    """The smallest program found in ``seconds`` that fails the same way."""
    deadline = time.monotonic() + seconds
    program = failure.program
    rng = random.Random(0)
    best, best_failure = program, failure
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        for candidate in best.shrunk(rng):
            if time.monotonic() > deadline:
                break
            if candidate.size() >= best.size() and len(candidate.source()) >= len(best.source()):
                continue
            try:
                found = check(candidate, failure.name, backends, only=(failure.kind,
                                                                      failure.backend))
            except Exception:
                continue
            same = [f for f in found if f.key()[:2] == failure.key()[:2] and (
                failure.kind not in ("crash", "refusal", "call-time-refusal", "backend-crash",
                                     "backend-refusal") or _gist(f) == _gist(failure))]
            if same:
                best, best_failure = candidate, same[0]
                best_failure.program, best_failure.name = candidate, failure.name
                improved = True
                break
    return best_failure


def fmt(value):
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=17, separator=", ")
    return repr(value)


def report(failure):
    lines = [f"--- {failure.kind}{' on ' + failure.backend if failure.backend else ''}: "
             f"{failure.detail} (program {failure.name})",
             f"shapes={failure.program.shapes()}"]
    if failure.where is not None:
        sizes, args = failure.where
        lines.append(f"sizes {sizes}; point: " + ", ".join(
            f"{p}={fmt(a)}" for p, a in zip(failure.program.params, args)))
    if failure.numpy:
        lines.append("passed as NumPy arrays beside the Dask ones: " + ", ".join(failure.numpy))
    lines.append(failure.program.source().rstrip())
    if failure.expected is not None and failure.expected != "":
        lines.append(f"expected: {fmt(failure.expected)}")
    if failure.got is not None and failure.got != "":
        got = failure.got if isinstance(failure.got, str) else fmt(failure.got)
        lines.append(f"got: {got}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="time spent generating")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--backends", nargs="*", default=list(ALL_BACKENDS), choices=ALL_BACKENDS)
    parser.add_argument("--shrink-seconds", type=float, default=60.0,
                        help="time spent minimising each reproducer")
    parser.add_argument("--per-kind", type=int, default=2, help="reproducers kept per kind")
    parser.add_argument("--chunks", choices=("2", "random"), default="2", help="the Dask "
                        "inputs' chunks: 2 along each axis, or cut at random places per axis "
                        "(and a scalar a float, a NumPy scalar or a 0-d Dask array)")
    parser.add_argument("--float32", action="store_true", help="the numpy gradient's Dask "
                        "inputs float32 ones (the points' numbers float32 ones, for NumPy too; "
                        "array_api keeps float32, its Dask inputs stay float64)")
    parser.add_argument("--replay", nargs="+", metavar="NAME", help="check only these programs")
    parser.add_argument("--no-special", action="store_true", help="no scipy.special rows")
    parser.add_argument("--narrow", action="store_true", help="without the rows of "
                        "array_program_wide: the first generator's programs (its seeds replay)")
    parser.add_argument("--folds", action=argparse.BooleanOptionalAction, default=True,
                        help="unary rows replaced, 15%% of them, by what SymPy folds or decides "
                        "(array_program_wide.FOLDS: equal branches of np.where, equal clip "
                        "bounds, a comparison of a value with itself), drawn from a random "
                        "stream of their own; on by default: --no-folds gives the programs "
                        "of the runs before (seeds up to 173 but 160, 161) and their replays")
    parser.add_argument("--wide", action="store_true", help="the default (the rows of "
                        "array_program_wide drawn); kept so older commands run")
    options = parser.parse_args(argv)
    backends = Backends(options.backends, options.chunks, options.float32)
    start = time.monotonic()
    deadline = start + options.seconds
    counts, found = {}, {}
    names = iter(options.replay) if options.replay else None
    n = 0
    while time.monotonic() < deadline:
        name = next(names, None) if names else f"{options.seed}-{n}"
        if name is None:
            break
        n += 1
        program = array_programs.draw(random.Random(name), special=not options.no_special,
                                      wide=not options.narrow, folds=random.Random(
                                          "folds-" + name) if options.folds else None)
        counts["programs"] = counts.get("programs", 0) + 1
        try:
            failures = check(program, name, backends, counts)
        except Exception as error:  # a fuzzer bug: say so, go on
            failures = [Failure("fuzzer", None, f"{type(error).__name__}: {error}",
                                got=traceback.format_exc()[-2000:])]
        seen = set()
        for failure in failures:
            failure.program, failure.name = program, name
            key = failure.key()
            if key in seen:
                continue
            seen.add(key)
            entry = found.setdefault(key, [0])
            entry[0] += 1
            if len(entry) <= options.per_kind:  # minimised now: the log shows it during a run
                small = minimise(failure, backends, options.shrink_seconds) if \
                    failure.kind not in ("generator", "fuzzer") else failure
                entry.append(small)
                print("\nNEW " + report(small) + "\n", flush=True)
        print(f"[{time.monotonic() - start:6.0f} s] {name}: " + (", ".join(
            f"{f.kind}{'@' + f.backend if f.backend else ''}" for f in failures) or "ok"),
              flush=True)
    elapsed = time.monotonic() - start
    print(f"\nsymgrad from {Path(symgrad.__file__).parent}; seed {options.seed}; "
          f"{elapsed:.0f} s; backends {' '.join(options.backends)}")
    print("command: python tests/benchmarks/fuzz_arrays.py " + " ".join(
        argv if argv is not None else sys.argv[1:]))
    print("counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    by_kind = {}
    for key, entry in found.items():
        by_kind[key[0]] = by_kind.get(key[0], 0) + entry[0]
    print("failures by kind: " + (", ".join(f"{k} {v}" for k, v in sorted(by_kind.items()))
                                  or "none"))
    for key in sorted(found):
        entry = found[key]
        print(f"\n=== {key[0]} {key[1]} {key[2]}: {entry[0]} program(s)")
        for failure in entry[1:]:
            print(report(failure))
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main())

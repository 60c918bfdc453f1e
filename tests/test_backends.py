"""The backends "jax", "torch" and "array_api" give the numbers of "math"/"numpy" (float64, relative
1e-12) on every acceptance case with scalar or array inputs (``tests/acceptance``: a copy of the
public cases), with the conventions at kinks per element; ``jax.jit`` compiles a gradient; float32
stays float32; an untaken branch makes no nan; ``import symgrad`` imports none of the libraries;
a missing library is an ``OptionError`` naming the extra. A test of a library that is not
installed is skipped, saying which (``pip install -e '.[test,jax]'`` ...).
"""
import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special

import symgrad
from symgrad.backends import BACKENDS

HERE = os.path.dirname(os.path.abspath(__file__))
HAS = {name: importlib.util.find_spec(name) is not None
       for name in ("jax", "torch", "array_api_compat", "array_api_strict")}


EXTRAS = {"jax": "jax", "torch": "torch", "array_api_compat": "array-api",
          "array_api_strict": "array-api"}


def install_hint(*packages):
    """The skip reason for ``packages`` missing: the README's command (``[test]`` and the
    extras, as pyproject.toml names them: ``pip install -e '.[test,torch]'``)."""
    extras = dict.fromkeys(EXTRAS[p] for p in packages)
    return f"{' and '.join(packages)} not installed: pip install -e '.[test,{','.join(extras)}]'"


def _needs(*packages):
    missing = [p for p in packages if not HAS[p]]
    return pytest.mark.skipif(bool(missing), reason=install_hint(*missing))


if HAS["jax"]:
    import jax
    jax.config.update("jax_enable_x64", True)  # float64 comparisons; float32 is tested apart
    import jax.numpy as jnp
if HAS["torch"]:
    import torch


def _load(name):
    spec = importlib.util.spec_from_file_location(f"acceptance_{name}",
                                                  os.path.join(HERE, "acceptance", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def _runnable(case):
    return "error" not in case and case.get("api", "grad") != "check_grad"


CASES = [c for name in ("cases_public", "cases_usage", "cases_arrays") for c in _load(name)
         if _runnable(c)]


# --- what each run passes in and how its results are read ------------------------------------------
def _to_numpy(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return tuple(_to_numpy(v) for v in value)
    if HAS["torch"] and isinstance(value, torch.Tensor):
        return value.numpy()
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    return np.asarray(value)


def _library(name):
    """(backend, convert an argument) for each run: the arrays of one library."""
    if name == "jax":
        return "jax", lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a
    if name == "torch":
        return "torch", lambda a: torch.from_numpy(a) if isinstance(a, np.ndarray) else a
    # array_api runs take arrays only (array_namespace needs one): every float becomes one
    if name == "array_api-numpy":
        return "array_api", lambda a: np.asarray(a, dtype=np.float64)
    if name == "array_api-strict":
        import array_api_strict as xp
        return "array_api", lambda a: xp.asarray(np.asarray(a, dtype=np.float64))
    if name == "array_api-torch":
        return "array_api", lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))
    if name == "array_api-jax":
        return "array_api", lambda a: jnp.asarray(np.asarray(a, dtype=np.float64))
    raise AssertionError(name)


RUNS = [pytest.param("jax", marks=_needs("jax")), pytest.param("torch", marks=_needs("torch")),
        pytest.param("array_api-numpy", marks=_needs("array_api_compat")),
        pytest.param("array_api-strict", marks=_needs("array_api_compat", "array_api_strict")),
        pytest.param("array_api-torch", marks=_needs("array_api_compat", "torch")),
        pytest.param("array_api-jax", marks=_needs("array_api_compat", "jax"))]

REFUSED = {  # (case id, backend) -> what the backend lacks (the test asserts the refusal);
}  # none now: einsum on the Array API is printed by xp.matmul
MUTATES = {"rosenbrock-slices"}  # the Array API's slice adjoint on JAX goes through `.at`


def _close(got, want):
    if want is None:
        return got is None
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(
            _close(g, w) for g, w in zip(got, want))
    got, want = np.asarray(got), np.asarray(want, dtype=float)
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    return got.shape == want.shape and got.dtype == np.float64 and bool(np.all(np.isclose(
        got, want, rtol=1e-12, atol=1e-14 * scale)))


def _build(case, backend):
    api = getattr(symgrad, case.get("api", "grad"))
    return api(case["func"], backend=backend, **case.get("options", {}))


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_acceptance_case_through_backend(case, run):
    """The same numbers as the default backend (and as the case's expected gradient)."""
    backend, convert = _library(run)
    args = tuple(convert(a) for a in case["args"])
    refused = REFUSED.get((case["id"], backend))
    if refused is not None:
        with pytest.raises(symgrad.OptionError, match=refused):
            _build(case, backend)(*args)
        return
    reference = _to_numpy(_build(case, None)(*case["args"]))
    got = _to_numpy(_build(case, backend)(*args))
    assert _close(got, reference), (got, reference)
    if "args2" in case:
        gf = _build(case, backend)
        again = _to_numpy(gf(*(convert(a) for a in case["args2"])))
        assert _close(again, _to_numpy(_build(case, None)(*case["args2"])))


def test_every_case_runs():
    """The cases above are the acceptance cases with inputs: none is left out by mistake."""
    ids = {c["id"] for c in CASES}
    assert {"branch-else", "untaken-branch-no-nan", "least-squares", "logistic", "where-no-nan",
            "gather-scatter-add", "vjp-array-output", "max-tie"} <= ids
    assert len(CASES) >= 60


# --- every row of the array table, and the benchmark workloads A1-A8 -----------------------------
def _workloads():
    spec = importlib.util.spec_from_file_location(
        "array_workloads", os.path.join(HERE, "benchmarks", "array_workloads.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


from test_arrays import ROWS_CASES  # noqa: E402 - the rows' own test programs

WORKLOADS = _workloads()
ROW_REFUSED = {  # (program, backend) -> the refusal naming what the backend lacks
}
PROGRAMS = [(f.__name__, f, make(3), wrt, None) for f, make, wrt in ROWS_CASES] + [
    (key, w.f, WORKLOADS.make_args(key, "small"), w.wrt, WORKLOADS.SHAPES[key])
    for key, w in WORKLOADS.WORKLOADS.items()]


@pytest.mark.parametrize("run", [r for r in RUNS if r.values[0] != "array_api-numpy"])
@pytest.mark.parametrize("name, f, args, wrt, shapes", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_array_program_through_backend(name, f, args, wrt, shapes, run):
    """Every row of the array table (tests/test_arrays.py's programs) and A1-A8 at their small
    size: the numpy backend's numbers, or a refusal naming what the library lacks."""
    backend, convert = _library(run)
    refused = ROW_REFUSED.get((name, backend))
    gf = symgrad.grad(f, wrt=wrt, backend=backend, shapes=shapes)
    converted = tuple(convert(a) for a in args)
    if refused is not None:
        with pytest.raises(symgrad.OptionError, match=refused):
            gf(*converted)
        return
    reference = _to_numpy(symgrad.grad(f, wrt=wrt, shapes=shapes)(*args))
    assert _close(_to_numpy(gf(*converted)), reference)


COLUMNS = np.array([0, 2, 0])


def gather_columns(X):
    return np.sum(X[:, COLUMNS] ** 2)


@pytest.mark.parametrize("run", [pytest.param("jax", marks=_needs("jax")),
                                 pytest.param("torch", marks=_needs("torch"))])
def test_gather_along_a_later_axis_accumulates(run):
    """Column 0 read twice: its adjoint is 2 * 2 X, column 2's 2 X, the others 0 (by hand)."""
    backend, convert = _library(run)
    X = np.arange(12.0).reshape(3, 4)
    gf = symgrad.grad(gather_columns, backend=backend, shapes={"X": ("n", "d")})
    assert np.array_equal(_to_numpy(gf(convert(X))), 2.0 * X * np.array([2.0, 0.0, 1.0, 0.0]))


# --- jax.jit, dtypes, untaken branches ---------------------------------------------------------
def _leaves(value):
    if isinstance(value, tuple):
        for v in value:
            yield from _leaves(v)
    elif value is not None:
        yield value


JITTED = [c for c in CASES if c["id"] != "assert-kept"]  # a Python assert, as in the primal


@_needs("jax")
@pytest.mark.parametrize("case", JITTED, ids=[c["id"] for c in JITTED])
def test_jax_jit_compiles_the_gradient(case):
    """No Python branching on traced values: ``jax.jit(gf)`` traces it, with the same numbers."""
    gf = _build(case, "jax")
    args = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in case["args"])
    got = _to_numpy(jax.jit(gf)(*args))
    assert _close(got, _to_numpy(_build(case, None)(*case["args"])))


@_needs("jax")
def test_jax_jit_of_an_assert_fails_as_the_primal_does():
    """An ``assert`` stays a Python test (the gradient fails where the primal fails): like the
    primal, the gradient runs eagerly, and ``jax.jit`` refuses the traced ``if``."""
    case = next(c for c in CASES if c["id"] == "assert-kept")
    gf = _build(case, "jax")
    assert float(gf(4.0)) == 0.25
    with pytest.raises(AssertionError):
        gf(-1.0)
    with pytest.raises(jax.errors.TracerBoolConversionError) as raised:
        jax.jit(gf)(4.0)
    assert raised.value.__notes__[0].startswith(
        f"{gf.func.__name__}, line 4: `if jnp.any(jnp.logical_not(x > 0.0)): raise AssertionError(")
    assert "jax.jit cannot trace it" in raised.value.__notes__[0]
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(case["func"])(4.0)



def _float32(run):
    if run == "jax":
        return "jax", lambda a: jnp.asarray(np.float32(a)), "float32"
    if run == "torch":
        return "torch", lambda a: torch.tensor(np.float32(a)), "torch.float32"
    import array_api_strict as xp
    return "array_api", lambda a: xp.asarray(np.float32(a)), "array_api_strict.float32"


FLOAT32 = CASES


@pytest.mark.parametrize("run", [pytest.param("jax", marks=_needs("jax")),
                                 pytest.param("torch", marks=_needs("torch")),
                                 pytest.param("array_api-strict", marks=_needs(
                                     "array_api_compat", "array_api_strict"))])
@pytest.mark.parametrize("case", FLOAT32, ids=[c["id"] for c in FLOAT32])
def test_float32_in_float32_out(case, run):
    """dtype follows the inputs: float32 arguments give float32 results (hyperparameters and
    constant arrays take the data's dtype), close to the float64 numbers."""
    backend, convert, dtype = _float32(run)
    got = _build(case, backend)(*(convert(a) for a in case["args"]))
    assert {str(v.dtype) for v in _leaves(got)} == {dtype}
    reference = _to_numpy(_build(case, None)(*case["args"]))
    for g, want in zip(_leaves(_to_numpy(got)), _leaves(reference)):
        assert np.allclose(np.asarray(g, dtype=float), want, rtol=1e-4, atol=1e-5)


def guarded_sqrt(x):
    return math.sqrt(x) if x > 0 else 0.0


def guarded_log(x):
    return x * math.log(x) if x > 0.0 else 0.0


def where_sqrt(x):
    return np.sum(np.where(x > 0.0, np.sqrt(x), 0.0))


def where_reciprocal(x):
    return np.sum(np.where(x != 0.0, 1.0 / x, x))


NO_NAN = [  # (function, options, argument, expected gradient): the untaken branch would be inf/nan
    (guarded_sqrt, {}, [0.0, -1.0, 4.0], [0.0, 0.0, 0.25]),
    (guarded_log, {}, [0.0, -2.0, 1.0], [0.0, 0.0, 1.0]),
    (where_sqrt, {"shapes": {"x": ("n",)}}, [0.0, -1.0, 4.0], [0.0, 0.0, 0.25]),
    (where_reciprocal, {"shapes": {"x": ("n",)}}, [0.0, 2.0, -0.5], [1.0, -0.25, -4.0]),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy through array_api warns; no nan
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("function, options, point, expected", NO_NAN,
                         ids=[f.__name__ for f, *_ in NO_NAN])
def test_untaken_branch_makes_no_nan(function, options, point, expected, run):
    """A branch is a ``where``, evaluated on every element: the one not taken (``0.5 / sqrt(0)``,
    ``log(-2)``) must not reach the result, elementwise and under ``jax.jit``."""
    backend, convert = _library(run)
    gf = symgrad.grad(function, backend=backend, **options)
    if options:  # array code: one call on the vector
        results = [_to_numpy(gf(convert(np.array(point))))]
        expected = [np.array(expected)]
    else:
        results = [_to_numpy(gf(convert(np.float64(p)))) for p in point]
    if run == "jax":
        call = jax.jit(gf)
        results += [_to_numpy(call(jnp.asarray(np.array(point))))] if options else [
            _to_numpy(call(jnp.float64(p))) for p in point]
        expected = list(expected) * 2
    for got, want in zip(results, expected):
        assert np.all(np.isfinite(got)) and np.allclose(got, want, rtol=1e-12)


# --- the packages: imported only when used, named when missing ---------------------------------
def test_import_symgrad_imports_no_backend_library(tmp_path):
    """``import symgrad`` and a numpy build import none of jax, torch, dask, array_api_compat."""
    script = tmp_path / "program.py"
    script.write_text(
        "import sys\nimport numpy as np\nimport symgrad\n\n\ndef f(x):\n"
        "    return np.sum(x * x)\n\n\n"
        "symgrad.grad(f, shapes={'x': ('n',)}, cache=False)(np.ones(3))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('jax', 'jaxlib', 'torch', 'dask', 'array_api_compat', 'array_api_strict')))\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         check=False)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def cube(x):
    return x * x * x


@pytest.mark.parametrize("backend, package, extra", [("jax", "jax", "jax"),
                                                     ("torch", "torch", "torch"),
                                                     ("array_api", "array_api_compat",
                                                      "array-api")])
def test_a_missing_backend_library_is_an_option_error_naming_the_extra(monkeypatch, backend,
                                                                       package, extra):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == package else real(name, *a))
    with pytest.raises(symgrad.OptionError, match=rf"pip install 'symgrad\[{extra}\]'"):
        symgrad.grad(cube, backend=backend)


def test_every_backend_is_documented_and_has_an_import_line():
    text = open(os.path.join(os.path.dirname(HERE), "docs", "backends.md"), encoding="utf-8").read()
    for name, spec in BACKENDS.items():
        assert f'"{name}"' in text and spec.imports in text


@_needs("jax")
def test_a_jax_gradient_is_kept_in_the_disk_cache(tmp_path, monkeypatch):
    """A later process compiles the stored jax source (the namespace holds only ``jnp``)."""
    monkeypatch.setenv("SYMGRAD_CACHE_DIR", str(tmp_path))
    built = symgrad.grad(cube, backend="jax")
    assert built.cache_key is not None and len(list(tmp_path.rglob("*.json"))) == 1


# --- show, export and the command line ---------------------------------------------------------
def softplus_hinge(x, y):
    if x > y:
        return math.log1p(math.exp(y - x)) + x
    return max(x * y, 0.0)


@pytest.mark.parametrize("backend", [pytest.param("jax", marks=_needs("jax")),
                                     pytest.param("torch", marks=_needs("torch")),
                                     pytest.param("array_api", marks=_needs("array_api_compat"))])
def test_an_exported_module_imports_only_its_backend(tmp_path, backend):
    """The module's only import is its backend's, and it runs in a fresh process."""
    path = tmp_path / f"grad_{backend}.py"
    symgrad.export(symgrad.grad(softplus_hinge, backend=backend), path)
    text = path.read_text()
    imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
    assert imports == [BACKENDS[backend].imports]
    argument = {"jax": "jnp.asarray(2.0)", "torch": "torch.tensor(2.0, dtype=torch.float64)",
                "array_api": "np.asarray(2.0)"}[backend]
    code = (f"import numpy as np\nimport sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
            f"from grad_{backend} import *\n"
            + ("import jax\njax.config.update('jax_enable_x64', True)\n" if backend == "jax" else "")
            + ("import jax.numpy as jnp\n" if backend == "jax" else "")
            + ("import torch\n" if backend == "torch" else "")
            + f"print([float(v) for v in grad_softplus_hinge({argument}, 0.5)])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    e = math.exp(0.5 - 2.0)
    assert out.returncode == 0, out.stderr
    assert [float(v) for v in out.stdout.strip()[1:-1].split(",")] == pytest.approx(
        [1.0 - e / (e + 1.0), e / (e + 1.0)], rel=1e-12)


def logistic_terms(x, w):
    return np.sum(scipy.special.expit(x * w) * x)


@_needs("jax")
def test_a_jax_module_with_special_functions_imports_no_scipy(tmp_path):
    """``jax.scipy.special.expit`` reads the global ``jax`` only: the module imports JAX's
    special functions, not SciPy (the attribute ``scipy`` was taken for SciPy's module), and
    runs in a process where SciPy cannot be imported: d/dw sum(expit(x w) x) = expit' x^2."""
    path = tmp_path / "grad_special.py"
    symgrad.export(symgrad.grad(logistic_terms, wrt="w", backend="jax",
                                shapes={"x": ("n",), "w": ("n",)}), path)
    imports = [line for line in path.read_text().splitlines()
               if line.startswith(("import ", "from "))]
    assert imports == ["import jax.numpy as jnp", "import jax.scipy.special"]
    code = (f"import sys\nsys.modules['scipy'] = None\nsys.path.insert(0, {str(tmp_path)!r})\n"
            "import jax\njax.config.update('jax_enable_x64', True)\n"
            "from grad_special import *\n"
            "print(list(map(float, grad_logistic_terms(jnp.array([0.5, -2.0]), "
            "jnp.array([1.0, 0.25])))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    x, w = np.array([0.5, -2.0]), np.array([1.0, 0.25])
    s = 1.0 / (1.0 + np.exp(-x * w))
    assert [float(v) for v in out.stdout.strip()[1:-1].split(",")] == pytest.approx(
        list(s * (1.0 - s) * x * x), rel=1e-12)


# module constants of every dtype an exported module writes: an index array with a repeat and a
# negative index, a mask, weights, a 2-D table and bounds with infinities
INDEX = np.array([0, 2, 0, -1])
MASK = np.array([True, False, True, True])
WEIGHTS = np.array([0.5, 1.5, -2.0, 0.1])
LABELS = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
BOUND = np.array([np.inf, 1.0, -np.inf, 2.0])


def gathered(E, w):
    picked = E[INDEX] * w
    return (np.sum(np.where(MASK[:, None], picked ** 2, 0.0) * WEIGHTS[:, None])
            + np.sum(LABELS * picked) + np.sum(np.where(BOUND[:, None] > 0.0, picked, 0.0)))


def gathered_by_hand(E, w):
    """d gathered / d E: each picked row's adjoint added to the row of E it was read from."""
    picked = E[INDEX] * w
    dpicked = (np.where(MASK[:, None], 2.0 * picked, 0.0) * WEIGHTS[:, None] + LABELS
               + (BOUND[:, None] > 0.0))
    dE = np.zeros_like(E)
    np.add.at(dE, INDEX, dpicked * w)
    return dE


# array_api_strict is left out: it refuses the test of the mask (`expanded != 0.0`, a bool array
# against a float) before any constant is read
@pytest.mark.parametrize("run", [r for r in RUNS if r.values[0] != "array_api-strict"])
def test_an_exported_module_writes_the_constant_arrays_with_its_backend(tmp_path, run):
    """The constants of the primal's module are written with the backend's own constructor (an
    exported module whose code reads `INDEX` imports only its backend, and runs): the numbers of
    the NumPy gradient, at relative 1e-12 (exactly here), which is the gradient by hand."""
    backend, convert = _library(run)
    shapes = {"E": ("n", "k"), "w": ("k",)}
    path = tmp_path / f"exported_{backend}.py"
    symgrad.export(symgrad.grad(gathered, wrt="E", shapes=shapes, backend=backend), path)
    text = path.read_text()
    imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
    assert imports == [BACKENDS[backend].imports]
    module = BACKENDS[backend].literal.rpartition(".")[0]
    assert f"INDEX = {BACKENDS[backend].literal}([0, 2, 0, -1], dtype={module}.int64)" in text
    assert f"{module}.inf, 1.0, -{module}.inf, 2.0" in text  # BOUND
    assert max(len(line) for line in text.splitlines()) <= 100
    namespace = {}
    exec(compile(text, str(path), "exec"), namespace)  # noqa: S102 - a fresh namespace
    rng = np.random.default_rng(3)
    E, w = rng.standard_normal((5, 2)), rng.standard_normal(2)
    reference = symgrad.grad(gathered, wrt="E", shapes=shapes)(E, w)
    np.testing.assert_allclose(reference, gathered_by_hand(E, w), rtol=1e-13, atol=0)
    got = _to_numpy(namespace["grad_gathered"](convert(E), convert(w)))
    np.testing.assert_allclose(got, reference, rtol=1e-12, atol=0)
    if backend == "jax":
        jitted = jax.jit(namespace["grad_gathered"])(convert(E), convert(w))
        np.testing.assert_allclose(_to_numpy(jitted), reference, rtol=1e-12, atol=0)


@_needs("jax")
def test_show_takes_backend(tmp_path):
    source = tmp_path / "program.py"
    source.write_text("import math\n\n\ndef f(x):\n    return math.sqrt(x) if x > 0 else 0.0\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
    out = subprocess.run([sys.executable, "-m", "symgrad", "show", f"{source}:f", "--backend",
                          "jax"], capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stderr
    assert "    _t0 = x > 0.0\n    df_dx = jnp.where(_t0, 0.5 / jnp.sqrt(jnp.where(_t0, x, 1.0)), " \
        "0.0)\n" in out.stdout  # the guard's condition named once


# --- the scalar catalogue (tests/catalogue.py): the language, through every backend ---------------
from catalogue import CASES as CATALOGUE  # noqa: E402 - the language's own test programs

SAMPLE = CATALOGUE[::2]  # half of them (all pass; the suite stays fast)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("run", [r for r in RUNS if r.values[0] in ("jax", "torch",
                                                                    "array_api-strict")])
@pytest.mark.parametrize("case", SAMPLE, ids=[c.id for c in SAMPLE])
def test_catalogue_program_through_backend(case, run):
    """Branches, loops, helpers, ``//`` and ``%``, ties, ``stop_gradient``: the numbers of the
    math backend (the Array API: floats passed as 0-d arrays; a case with ints only gets them as
    they are, and computes with NumPy)."""
    backend, convert = _library(run)
    args = tuple(convert(a) if isinstance(a, float) and run.startswith("array_api") else a
                 for a in case.args)
    reference = _to_numpy(symgrad.grad(case.func, **case.options)(*case.args))
    assert _close(_to_numpy(symgrad.grad(case.func, backend=backend, **case.options)(*args)),
                  reference)


# --- scatter-add on the Array API -----------------------------------------------------------------
REPEATED = np.array([0, 2, 2, -1])  # row 2 twice, and the last row


def cubes_picked(x):
    return np.sum(x[REPEATED] ** 3)


def rows_picked(E):
    return np.sum(E[REPEATED] ** 2) + np.sum(E[1:] * 0.5)


def columns_from_one_picked(E):
    return np.sum(np.sin(E[REPEATED, 1:]))


ARRAY_API_RUNS = [r for r in RUNS if r.values[0].startswith("array_api")] + [
    pytest.param("array_api-dask", marks=_needs("array_api_compat"))]


def _picked_by_hand(f, x):
    """k x^(k-1) (or cos) per pick: row 0 once, row 2 twice, row n - 1 once."""
    want = np.zeros_like(x)
    for row, times in ((0, 1), (2, 2), (-1, 1)):
        if f is cubes_picked:
            want[row] += times * 3.0 * x[row] ** 2
        elif f is rows_picked:
            want[row] += times * 2.0 * x[row]
        else:
            want[row, 1:] += times * np.cos(x[row, 1:])
    if f is rows_picked:
        want[1:] += 0.5
    return want


@pytest.mark.parametrize("run", ARRAY_API_RUNS)
@pytest.mark.parametrize("f, shape", [(cubes_picked, (50,)), (rows_picked, (50, 3)),
                                      (columns_from_one_picked, (50, 4))],
                         ids=["1-D", "rows", "rows-from-column-1"])
def test_array_api_scatters_through_repeated_and_negative_indices(f, shape, run):
    """The Array API has no scatter-add: the adjoint of E[REPEATED] is gathered in rounds, on every
    library (the same float as np.add.at: each element adds in the order of the index)."""
    name = f.__code__.co_varnames[0]
    shapes = {name: ("n", "d")[:len(shape)]}
    x = np.random.default_rng(8).standard_normal(shape)
    want = symgrad.grad(f, wrt=[name], shapes=shapes)(x)[0]
    np.testing.assert_allclose(want, _picked_by_hand(f, x), rtol=1e-14)
    gf = symgrad.grad(f, wrt=[name], shapes=shapes, backend="array_api")
    if run == "array_api-dask":
        da = pytest.importorskip("dask.array", reason="dask is not installed: pip install -e "
                                 "'.[dask]'")
        got = gf(da.from_array(x, chunks=(20,) + shape[1:]))[0]
        assert isinstance(got, da.Array)
        got = got.compute()
    else:
        got = _to_numpy(gf(_library(run)[1](x))[0])
    assert _close(got, want)
    assert "xp.take(" in gf.source and "for _round in range(" in gf.source


@_needs("array_api_compat", "jax")
def test_array_api_scatter_under_jax_jit():
    gf = symgrad.grad(rows_picked, wrt=["E"], shapes={"E": ("n", "d")}, backend="array_api")
    E = np.random.default_rng(9).standard_normal((30, 3))
    got = jax.jit(gf)(jnp.asarray(E))[0]
    assert _close(np.asarray(got), _picked_by_hand(rows_picked, E))


FAR = np.array([0, 5, 5])


def far_picked(E):
    return np.sum(E[FAR] ** 2)


@_needs("array_api_compat")
def test_array_api_scatter_out_of_range_is_an_index_error():
    gf = symgrad.grad(far_picked, wrt=["E"], shapes={"E": ("n", "d")}, backend="array_api")
    with pytest.raises(IndexError):
        gf(np.ones((4, 3)))

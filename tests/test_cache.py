"""The disk cache: a later process gets the gradient without SymPy, and never a stale or wrong one.

Each test uses a cache folder of its own under ``tmp_path`` (the session's folder, set by
conftest.py, is never the user's). Values are checked against the derivatives worked by hand:
for ``energy(x, y) = helper(x) * sin(y) + SCALE * x * y`` with ``helper(u) = u * u``,
d/dx = 2 x sin(y) + SCALE y and d/dy = x² cos(y) + SCALE x. The subprocess tests (a new process
is what the cache is for) are few; the rest run in this process with the memory cache emptied.
"""
import errno
import importlib.util
import json
import math
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import symgrad
from symgrad import api, diskcache
from symgrad.errors import CacheWarning

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
X, Y = 1.5, 0.5

MODULE = """\
import math
import symgrad

SCALE = {scale}


def helper(u):
    return {helper}


@symgrad.grad
def energy(x, y):
    return helper(x) * math.sin(y) + SCALE * x * y
"""


def expected(scale=2.0, power=2):
    """The hand-derived gradient of ``energy`` at (X, Y) for ``helper(u) = u ** power``."""
    return (power * X ** (power - 1) * math.sin(Y) + scale * Y,
            X ** power * math.cos(Y) + scale * X)


def helper_text(power):
    return " * ".join(["u"] * power)


SCRIPT = """\
import json, sys
import symgrad
light = not [m for m in sys.modules if m.split(".")[0] in ("sympy", "mpmath", "numpy", "astor")]
import energy_module
value = energy_module.energy({x}, {y})
symgrad.export(energy_module.energy, "exported.py", overwrite=True)
print(json.dumps({{"value": value, "light_import": light, "sympy": "sympy" in sys.modules,
                  "source": energy_module.energy.source}}))
"""


def write_module(folder, scale=2.0, power=2):
    with open(os.path.join(folder, "energy_module.py"), "w") as handle:
        handle.write(MODULE.format(scale=scale, helper=helper_text(power)))


def environment(folder, cache):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(folder)]),
               SYMGRAD_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return env


def start(folder, cache):
    # -W always: a warning repeated from the same line is printed each time, so it can be counted
    return subprocess.Popen([sys.executable, "-W", "always", "-c", SCRIPT.format(x=X, y=Y)],
                            cwd=folder,
                            env=environment(folder, cache), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(process):
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    result = json.loads(out.splitlines()[-1])
    result["stderr"] = err
    return result


def run(folder, cache):
    return finish(start(folder, cache))


def entries(cache):
    return sorted(n for n in os.listdir(cache) if n.endswith(".json"))


def test_a_second_process_gets_the_gradient_without_sympy(tmp_path):
    cache = tmp_path / "cache"
    write_module(tmp_path)
    first = run(tmp_path, cache)
    assert first["value"] == pytest.approx(expected(), rel=1e-15) and first["sympy"]
    assert len(entries(cache)) == 1
    second = run(tmp_path, cache)
    assert second["light_import"], "import symgrad imported SymPy, mpmath, NumPy or astor"
    assert not second["sympy"], "a gradient found on disk (called, exported) must not import SymPy"
    assert second["value"] == first["value"] and second["source"] == first["source"]
    exported = {}
    exec(compile((tmp_path / "exported.py").read_text(), "exported.py", "exec"), exported)
    assert exported["grad_energy"](X, Y) == pytest.approx(expected(), rel=1e-15)


def test_an_edited_helper_or_a_changed_constant_misses(tmp_path):
    cache = tmp_path / "cache"
    write_module(tmp_path)
    assert run(tmp_path, cache)["value"] == pytest.approx(expected(), rel=1e-15)
    write_module(tmp_path, power=3)  # the helper's body only: the primal's text is the same
    edited = run(tmp_path, cache)
    assert edited["sympy"], "an edited helper must be rebuilt"
    assert edited["value"] == pytest.approx(expected(power=3), rel=1e-15)
    write_module(tmp_path, scale=5.0, power=3)
    changed = run(tmp_path, cache)
    assert changed["sympy"], "a changed module constant must be rebuilt"
    assert changed["value"] == pytest.approx(expected(scale=5.0, power=3), rel=1e-15)
    assert len(entries(cache)) == 1  # each rebuild replaced the entry


def test_concurrent_builders_both_right_and_one_valid_entry(tmp_path):
    cache = tmp_path / "cache"
    write_module(tmp_path)
    processes = [start(tmp_path, cache) for _ in range(2)]
    results = [finish(p) for p in processes]
    for result in results:
        assert result["value"] == pytest.approx(expected(), rel=1e-15)
    names = os.listdir(cache)
    assert len(names) == 1 and names[0].endswith(".json"), names  # no temporary file left
    with open(cache / names[0]) as handle:
        assert diskcache._parse(handle.read()) is not None
    assert not run(tmp_path, cache)["sympy"]  # and a third process reads it


def test_an_unwritable_folder_builds_in_memory_with_one_warning(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    module = MODULE + textwrap.dedent("""

        @symgrad.grad
        def other(x, y):
            return SCALE * x * x * y
        """)
    (tmp_path / "energy_module.py").write_text(module.format(scale=2.0, helper=helper_text(2)))
    result = run(tmp_path, blocker / "symgrad")
    assert result["value"] == pytest.approx(expected(), rel=1e-15)
    assert result["stderr"].count("CacheWarning") == 1, result["stderr"]
    assert "cannot write to the symgrad cache folder" in result["stderr"]


# --- in this process ------------------------------------------------------------------------
@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder, the memory cache empty, writing on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SYMGRAD_CACHE_DIR", str(folder))
    monkeypatch.setattr(diskcache, "_write_off", False)
    api._CACHE.clear()
    yield folder
    api._CACHE.clear()


def load(tmp_path, text, name):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CONSTANTS = """\
import math

SCALE = 2.0


def helper(u):
    return u * u


def energy(x, y):
    return helper(x) * math.sin(y) + SCALE * x * y


def make(k):
    def scaled(x, a=1.0, *, b=0.5):
        return k * a * b * x * x
    return scaled
"""


def fresh(f, **options):
    """``grad(f)`` with the memory cache emptied first: from disk, or rebuilt."""
    api._CACHE.clear()
    return symgrad.grad(f, **options)


def from_disk(gradient):
    return gradient._program is None  # a stored gradient rebuilds its program on demand


def test_constants_closures_defaults_and_options_are_in_the_key(cache, tmp_path):
    module = load(tmp_path, CONSTANTS, "constants_module")
    assert fresh(module.energy)(X, Y) == pytest.approx(expected(), rel=1e-15)
    again = fresh(module.energy)
    assert from_disk(again) and again(X, Y) == pytest.approx(expected(), rel=1e-15)
    module.SCALE = 3.0
    changed = fresh(module.energy)
    assert not from_disk(changed) and changed(X, Y) == pytest.approx(expected(3.0), rel=1e-15)
    assert fresh(module.energy, wrt="y")(X, Y) == pytest.approx(expected(3.0)[1], rel=1e-15)
    assert fresh(module.energy, wrt=1)(X, Y) == pytest.approx(expected(3.0)[1], rel=1e-15)
    assert fresh(module.energy, wrt=("y",))(X, Y) == pytest.approx(expected(3.0)[1:], rel=1e-15)
    stopped = fresh(module.energy, stop_gradients="y")(X, Y)  # y held constant: d/dy = 0
    assert stopped == pytest.approx((expected(3.0)[0], 0.0), rel=1e-15)
    for options in (dict(strategy="reverse"), dict(unconnected="none"), dict(backend="numpy")):
        other = fresh(module.energy, **options)
        assert not from_disk(other), options
        assert tuple(map(float, other(X, Y))) == pytest.approx(expected(3.0), rel=1e-15)
    two, three = module.make(2.0), module.make(3.0)  # one code, two closures
    assert fresh(two)(X) == pytest.approx(2.0 * 1.0 * 0.5 * 2 * X, rel=1e-15)
    assert fresh(three)(X) == pytest.approx(3.0 * 0.5 * 2 * X, rel=1e-15)
    three.__defaults__ = (4.0,)
    assert fresh(three)(X) == pytest.approx(3.0 * 4.0 * 0.5 * 2 * X, rel=1e-15)
    three.__kwdefaults__ = {"b": 0.25}
    assert fresh(three)(X) == pytest.approx(3.0 * 4.0 * 0.25 * 2 * X, rel=1e-15)


def test_another_symgrad_or_sympy_version_misses(cache, tmp_path, monkeypatch):
    module = load(tmp_path, CONSTANTS, "versions_module")
    fresh(module.energy)
    assert from_disk(fresh(module.energy))
    for package in ("symgrad", "sympy", "python"):
        monkeypatch.setattr(diskcache, "_versions", {**diskcache.versions(), package: "other"})
        rebuilt = fresh(module.energy)
        assert not from_disk(rebuilt), package
        assert rebuilt(X, Y) == pytest.approx(expected(), rel=1e-15)
        monkeypatch.undo()
        monkeypatch.setenv("SYMGRAD_CACHE_DIR", str(cache))


def _only_entry(cache):
    (name,) = entries(cache)
    return cache / name


@pytest.mark.parametrize("damage", ["truncated", "bit flipped", "not json", "unreadable"])
def test_a_corrupt_entry_is_ignored_with_a_warning_and_rebuilt(cache, tmp_path, damage):
    module = load(tmp_path, CONSTANTS, f"corrupt_module_{damage.replace(' ', '_')}")
    fresh(module.energy)
    path = _only_entry(cache)
    text = path.read_text()
    if damage == "truncated":
        path.write_text(text[:len(text) // 2])
    elif damage == "bit flipped":  # still JSON, still compiles, another number: the checksum
        path.write_text(text.replace("2.0 * x", "3.0 * x", 1))
        assert path.read_text() != text
    elif damage == "not json":
        path.write_bytes(b"\x00\xff" * 10)
    else:  # open() fails (a folder where the file is): unreadable
        path.unlink()
        path.mkdir()
    with pytest.warns(CacheWarning) as caught:
        rebuilt = fresh(module.energy)
    messages = [str(w.message) for w in caught]
    assert any(path.name in m for m in messages), messages
    # unreadable: writing the rebuilt entry fails on the folder in its place, and says so too
    writes = [m for m in messages if "cannot write to the symgrad cache folder" in m]
    assert len(writes) == (damage == "unreadable"), messages
    assert not from_disk(rebuilt) and rebuilt(X, Y) == pytest.approx(expected(), rel=1e-15)
    if damage != "unreadable":  # the rebuild replaced it with a valid entry
        assert diskcache._parse(path.read_text()) is not None
        assert from_disk(fresh(module.energy))


def test_a_full_folder_warns_once_and_builds_in_memory(cache, tmp_path, monkeypatch):
    module = load(tmp_path, CONSTANTS, "full_module")

    def full(path, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(diskcache, "_write", full)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fresh(module.energy)(X, Y) == pytest.approx(expected(), rel=1e-15)
        assert fresh(module.energy, wrt="x")(X, Y) == pytest.approx(expected()[0], rel=1e-15)
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) == 1 and "No space left" in messages[0]


@pytest.mark.filterwarnings("error::symgrad.errors.CacheWarning")  # the rebuild prints the same
def test_a_gradient_from_disk_rebuilds_what_needs_sympy(cache, tmp_path):
    module = load(tmp_path, CONSTANTS, "rebuild_module")
    built = fresh(module.energy)
    stored = fresh(module.energy)
    assert from_disk(stored) and stored.source == built.source and stored.wrt == ("x", "y")
    assert stored.derivatives == built.derivatives
    assert symgrad.latex(stored) == symgrad.latex(built)
    hessian = symgrad.jacobian(stored)  # a derivative of a stored gradient, cached in turn
    h = hessian(X, Y)
    assert h[0][1] == pytest.approx(2 * X * math.cos(Y) + 2.0, rel=1e-15)
    api._CACHE.clear()
    again = symgrad.jacobian(fresh(module.energy))
    assert from_disk(again) and again(X, Y) == h
    # check_grad works under SymPy's distribute(False); the rebuild it asks for must not
    assert symgrad.check_grad(module.energy, fresh(module.energy)).verdict == "equal"


def test_off_clear_and_the_command_line(cache, tmp_path, monkeypatch, capsys):
    from symgrad import cli
    module = load(tmp_path, CONSTANTS, "off_module")
    assert fresh(module.energy, cache=False)(X, Y) == pytest.approx(expected(), rel=1e-15)
    assert not cache.exists()
    monkeypatch.setenv("SYMGRAD_CACHE_DIR", "")
    assert fresh(module.energy)(X, Y) == pytest.approx(expected(), rel=1e-15)
    assert not cache.exists()
    monkeypatch.setenv("SYMGRAD_CACHE_DIR", str(cache))
    fresh(module.energy)
    fresh(module.energy, wrt="x")
    assert cli.main(["cache", "info"]) == 0
    shown = capsys.readouterr().out
    assert f"folder: {cache}" in shown and "entries: 2" in shown
    gradient = symgrad.grad(module.energy)
    symgrad.clear_cache()
    assert entries(cache) == [] and symgrad.grad(module.energy) is not gradient
    assert cli.main(["cache", "clear"]) == 0 and "removed 1 entry" in capsys.readouterr().out
    assert entries(cache) == []


def test_the_xdg_folder_is_the_default(monkeypatch, tmp_path):
    monkeypatch.delenv("SYMGRAD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert diskcache.folder() == os.path.join(str(tmp_path), "symgrad")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert diskcache.folder() == os.path.join(str(tmp_path), ".cache", "symgrad")


CONFIG = """\
import types

PARAMS = types.SimpleNamespace(K=3.0)


def spring(x):
    return 0.5 * PARAMS.K * x * x
"""


def test_an_attribute_read_from_a_config_object_is_in_the_key_and_watched(cache, tmp_path):
    module = load(tmp_path, CONFIG, "config_module")
    assert fresh(module.spring)(2.0) == pytest.approx(6.0, rel=1e-15)
    stored = fresh(module.spring)
    assert from_disk(stored) and stored(2.0) == pytest.approx(6.0, rel=1e-15)
    module.PARAMS.K = 5.0  # the object is the same: only the attribute read changed
    with pytest.raises(symgrad.StaleGradientError, match="PARAMS.K"):
        stored(2.0)  # a gradient read from disk watches what its entry recorded
    changed = fresh(module.spring)
    assert not from_disk(changed) and changed(2.0) == pytest.approx(10.0, rel=1e-15)

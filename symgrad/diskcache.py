"""The disk cache of built gradients: a later process gets a gradient without SymPy.

An entry is one JSON file ``<key>.json`` in ``folder()``. The key (``Entry.key``) is a hash of
everything known before a build: the entry format, the versions (``versions``: symgrad and its own
source files, SymPy, mpmath, astor, the Python minor version), the kind, every option, and
the ``identity`` of the primal (its file, first line and a hash of its source lines and code). The
entry holds what a ``GradientFunction`` needs to run (the generated source, its name, ``wrt``, kind,
backend, origin) and the ``dependencies`` the build read (``symgrad.dependencies``): the helpers'
sources and the values of the names resolved. A lookup re-checks those against the current
objects, so an edited helper or a changed constant is a miss, and the rebuild replaces the entry.

Writes go to a temporary file in the same folder, then ``os.replace``: a reader sees a whole entry
or none, and concurrent builders leave one valid entry. A checksum covers the entry's content. A
corrupt or unreadable entry is ignored (a ``CacheWarning`` naming the file) and rebuilt; a folder
that cannot be written (read-only, full) turns writing off for the process after one warning.
Neither SymPy nor NumPy is imported here.
"""
import importlib.util
import json
import os
import re
import sys
import threading
import types
import warnings

from . import backends, dependencies
from .dependencies import sha256
from .cache import OPTIONAL_IMPORTS, compile_gradient
from .errors import CacheWarning
from .function import ArrayGradientFunction, GradientFunction

FORMAT = 1  # bump when the layout of an entry or of its key changes
ENVIRONMENT = "SYMGRAD_CACHE_DIR"
_FIELDS = {"format": int, "key": str, "dependencies": list, "kind": str, "name": str,
           "wrt": list, "backend": str, "origin": str, "source": str, "checksum": str}
_write_off = False  # set after a failed write: the folder is read-only or full
_versions = None


def folder():
    """The cache folder: ``$SYMGRAD_CACHE_DIR`` if set (``""``: None, the cache is off), else
    ``$XDG_CACHE_HOME/symgrad``, else ``~/.cache/symgrad``. It may not exist yet."""
    if ENVIRONMENT in os.environ:
        return os.environ[ENVIRONMENT] or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "symgrad")


def warn(message):
    """Emit a ``CacheWarning`` at the user's call into symgrad."""
    depth = 2
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("symgrad"):
        frame, depth = frame.f_back, depth + 1
    warnings.warn(message, CacheWarning, stacklevel=depth)


def _digest(data):
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return sha256(text.encode("ascii")).hexdigest()


def _package_version(name):
    """The version of an installed package, read from its files without importing it."""
    module = sys.modules.get(name)
    if getattr(module, "__version__", None):
        return str(module.__version__)
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        return None
    where = os.path.dirname(spec.origin)
    for file in ("release.py", "__init__.py", "VERSION"):
        try:
            with open(os.path.join(where, file), encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        if file == "VERSION":
            return text.strip()
        found = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
        if found:
            return found.group(1)
    return None


def versions():
    """What else the generated code depends on: symgrad (its version and a hash of the name, size
    and modification time of each of its own source files, so that a development checkout never
    reads entries of other code), SymPy, mpmath, astor, and the Python minor version."""
    global _versions
    if _versions is None:
        from . import __version__
        here = os.path.dirname(os.path.abspath(__file__))
        files = []
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                status = os.stat(os.path.join(here, name))
                files.append([name, status.st_size, status.st_mtime_ns])
        _versions = {"symgrad": f"{__version__} {_digest(files)[:16]}",
                     "python": "%d.%d" % sys.version_info[:2],
                     **{name: _package_version(name) for name in ("sympy", "mpmath", "astor")}}
    return _versions


class Entry:
    """The disk cache entry of one (kind, function, options); see the module docstring.

    Attributes:
        key: the hex digest naming the file.
        path: the file (it may not exist).
    """

    def __init__(self, key, path, primal):
        self.key, self.path, self.primal = key, path, primal
        self.described = []  # what the loaded entry's build read (``dependencies.describe``)

    def load(self, rebuild):
        """The stored ``GradientFunction``, or None (absent, stale, corrupt or unreadable).

        Args:
            rebuild: called without arguments, builds the same gradient with the pipeline; a
                gradient from disk calls it when its ``program`` is first asked for.
        """
        try:
            with open(self.path, encoding="utf-8") as handle:
                text = handle.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, UnicodeDecodeError) as exc:
            warn(f"cannot read the symgrad cache entry {self.path} ({exc}): rebuilding it")
            return None
        entry = _parse(text)
        if entry is None or entry["key"] != self.key:
            warn(f"ignoring the corrupt symgrad cache entry {self.path}: rebuilding it")
            return None
        if not dependencies.unchanged(entry["dependencies"], self.primal):
            return None  # a helper or a constant changed: the rebuild replaces the entry
        self.described = entry["dependencies"]
        try:
            function = compile_gradient(entry["source"], entry["name"], entry["backend"])
        except Exception:  # noqa: BLE001 - any failure to compile stored code: rebuild
            warn(f"ignoring the corrupt symgrad cache entry {self.path}: rebuilding it")
            return None
        gradient = GradientFunction(
            function, primal=self.primal, source=entry["source"], wrt=tuple(entry["wrt"]),
            program=None, kind=entry["kind"], backend=entry["backend"], origin=entry["origin"],
            rebuild=rebuild)
        gradient.cache_key = _digest([self.key, entry["dependencies"]])
        return gradient

    def store(self, built, record):
        """Write ``built`` (a ``GradientFunction`` just built while ``record`` recorded) and set
        its ``cache_key``; nothing is written for a build that cannot be described."""
        global _write_off
        if isinstance(built, ArrayGradientFunction):  # built at call time: nothing to keep
            return
        if isinstance(self.primal, GradientFunction):
            described = []  # the primal's own key covers what its build read
        elif not record.functions or record.functions[0] is not self.primal:
            return
        else:
            try:
                described = dependencies.describe(record)
            except dependencies.Uncacheable:
                return
        extra = set(built.func.__globals__) - {"__builtins__", built.func.__name__,
                                               *OPTIONAL_IMPORTS} - backends.backend(
            built.backend).bound()
        if extra:  # compiled with values the source does not hold (constant arrays)
            return
        built.cache_key = _digest([self.key, described])
        if _write_off:
            return
        entry = {"format": FORMAT, "key": self.key, "dependencies": described,
                 "kind": built.kind, "name": built.func.__name__, "wrt": list(built.wrt),
                 "backend": built.backend, "origin": built.origin, "source": built.source}
        entry["checksum"] = _digest(entry)
        try:
            _write(self.path, json.dumps(entry, indent=1, sort_keys=True))
        except OSError as exc:
            _write_off = True
            warn(f"cannot write to the symgrad cache folder {os.path.dirname(self.path)} "
                 f"({exc.strerror or exc}): gradients are built in memory for the rest of this "
                 f"process (set {ENVIRONMENT} to another folder, or to '' to turn the cache off)")


def entry_for(kind, f, options):
    """The ``Entry`` of this build, or None when the cache is off or ``f`` is not cacheable
    (no source file on disk, or a ``GradientFunction`` whose own build was not cacheable)."""
    where = folder()
    if where is None:
        return None
    if isinstance(f, GradientFunction):
        if getattr(f, "cache_key", None) is None:
            return None
        function = ["derivative of", f.cache_key]
    else:
        if not isinstance(f, types.FunctionType) or not os.path.isfile(f.__code__.co_filename):
            return None
        try:
            function = dependencies.identity(f)
        except dependencies.Uncacheable:
            return None
    key = _digest({"format": FORMAT, "versions": versions(), "kind": kind, "function": function,
                   "options": {name: dependencies.describe_value(value)
                               for name, value in options.items()}})[:40]
    return Entry(key, os.path.join(where, key + ".json"), f)


def _parse(text):
    """The entry in ``text`` if it is whole and well formed (fields, types, checksum), else None."""
    try:
        entry = json.loads(text)
    except ValueError:
        return None
    if not isinstance(entry, dict) or set(entry) != set(_FIELDS) or entry.get("format") != FORMAT:
        return None
    if not all(isinstance(entry[name], kind) for name, kind in _FIELDS.items()):
        return None
    checksum = entry.pop("checksum")
    return entry if checksum == _digest(entry) else None


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)  # atomic: readers see the old entry or the new one
    except OSError:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise


def _files(where):
    try:
        names = os.listdir(where)
    except OSError:
        return []
    return [os.path.join(where, n) for n in names if n.endswith((".json", ".tmp"))]


def info():
    """``(folder, entries, size in bytes)`` of the cache; ``folder`` None when it is off."""
    where = folder()
    if where is None:
        return None, 0, 0
    files = [f for f in _files(where) if f.endswith(".json")]
    return where, len(files), sum(os.path.getsize(f) for f in files if os.path.isfile(f))


def clear():
    """Delete every entry (and leftover temporary file) of the cache folder; return how many."""
    where = folder()
    removed = 0
    for file in _files(where) if where else ():
        try:
            os.remove(file)
            removed += file.endswith(".json")
        except OSError:
            pass
    return removed

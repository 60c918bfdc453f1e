"""What a build read, recorded so that a later process can tell, without SymPy, whether it changed.

While a gradient is built (``recording()``), the frontend reports every function whose source it
reads (``source.read_source`` calls ``function_read``) and every free name it resolves to a value
(``FunctionSource.lookup`` calls ``name_read``: closure cells, module globals, builtins) or attribute
it reads from such a value (``attribute_read``: ``math.pi``, ``params.K``). ``describe`` turns that
into plain JSON data:

- per function read: its ``identity`` (module, qualified name, file, first line, a hash of its
  source lines and of its code object) and the description of its defaults and keyword-only
  defaults;
- per name or attribute path read in that function's scope (``"K"``, ``"params.K"``): the
  description of the value: numbers by type and ``repr`` (exact for floats), tuples and lists item
  by item, a function whose source was read by reference to its own record (``["fn", i]``), a
  module by name, another callable by module and qualified name, a NumPy array by dtype, shape and a
  hash of its bytes.

``unchanged(described, primal)`` re-resolves every recorded path from the current function objects
and compares: the generated code depends on nothing else the frontend reads, so equal descriptions
mean the same generated code.

``Watch`` keeps, of one build, the names that a program can rebind while the gradient lives (a
module constant, a closure variable, a helper function, an attribute of a config object) with the
object each gave; ``changed()`` tells which now gives another value. This module imports neither
SymPy nor NumPy.
"""
import builtins
import contextlib
import functools
import linecache
import sys
import threading
import types

try:  # CPython's own SHA-256 (3.11: _sha256, 3.12: _sha2): hashlib would load OpenSSL, 2 ms
    from _sha256 import sha256
except ImportError:
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

_local = threading.local()


class Uncacheable(Exception):
    """A value the build read cannot be described, so the build is not stored on disk."""


class Recording:
    """The functions and names one build read (see the module docstring)."""

    def __init__(self):
        self.functions = []  # functions whose source was read, in order (0: the primal)
        self.index = {}  # id(function) -> its position in ``functions``
        self.reads = []  # (owner position, dotted path, value)
        self.origin = {}  # id(object) -> (owner position, dotted path) it was reached by
        self.keep = []  # every object read, so that ids stay unique while recording
        self.uncacheable = None  # why this build cannot be stored, or None


def _active():
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def recording():
    """Record what the frontend reads inside the ``with`` block; yields the ``Recording``."""
    stack = _local.__dict__.setdefault("stack", [])
    record = Recording()
    stack.append(record)
    try:
        yield record
    finally:
        stack.pop()


def function_read(function):
    """The frontend read ``function``'s source (the primal or a helper it inlines)."""
    record = _active()
    if record is not None and id(function) not in record.index:
        record.index[id(function)] = len(record.functions)
        record.functions.append(function)
        record.keep.append(function)


def name_read(function, name, value):
    """A free name of ``function`` (closure, global or builtin) resolved to ``value``."""
    record = _active()
    if record is not None:
        _read(record, record.index.get(id(function)), name, value)


def attribute_read(base, attribute, value):
    """``base.attribute`` gave ``value``, ``base`` itself being a value read before."""
    record = _active()
    if record is not None:
        owner, path = record.origin.get(id(base), (None, ""))
        _read(record, owner, f"{path}.{attribute}", value)


def _read(record, owner, path, value):
    """Record ``path`` (in the scope of function ``owner``) as giving ``value``."""
    if owner is None:
        record.uncacheable = f"`{path}` was read from a value of unknown origin"
        return
    record.reads.append((owner, path, value))
    record.origin.setdefault(id(value), (owner, path))
    record.keep.append(value)


# --- descriptions -------------------------------------------------------------------------------
def _hash(text):
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _code_text(code):
    """What an edit changes in a code object: bytecode, names, constants, nested code."""
    parts = [code.co_code.hex(), repr(code.co_names), repr(code.co_varnames),
             repr(code.co_freevars)]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            parts.append("(" + _code_text(constant) + ")")
        elif isinstance(constant, frozenset):
            parts.append(repr(sorted(map(repr, constant))))
        else:
            parts.append(f"{type(constant).__name__}:{constant!r}")
    return "|".join(parts)


def _last_line(code):
    last = max((line for _, _, line in code.co_lines() if line is not None), default=0)
    nested = [_last_line(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    return max([last, *nested])


def identity(function):
    """The parts of a Python function that its source and code fix, as a JSON list.

    Raises:
        Uncacheable: the function's file has no lines (built by ``exec``, typed at the prompt).
    """
    code = function.__code__
    linecache.checkcache(code.co_filename)  # the file as it is now, as inspect reads it
    lines = linecache.getlines(code.co_filename)
    first, last = code.co_firstlineno, _last_line(code)
    if not lines or last > len(lines):
        raise Uncacheable(f"the source of `{function.__qualname__}` is not in a file")
    text = "".join(lines[first - 1:last])
    return [function.__module__, function.__qualname__, code.co_filename, first, _hash(text),
            _hash(_code_text(code))]


def _leaf(value):
    """The description of a value that is not a tuple, list, dict or function read."""
    if value is None or isinstance(value, bool):
        return ["const", repr(value)]
    if isinstance(value, (int, float, complex, str, bytes)):
        return [type(value).__name__, repr(value)]
    if isinstance(value, types.ModuleType):
        return ["module", value.__name__]
    module = type(value).__module__ or ""
    if module.split(".")[0] == "numpy" and hasattr(value, "dtype"):
        if getattr(value, "shape", ()) == ():
            return ["numpy", str(value.dtype), repr(value.item())]
        return ["ndarray", str(value.dtype), list(value.shape),
                sha256(value.tobytes()).hexdigest()[:32]]
    if callable(value):
        return ["callable", getattr(value, "__module__", None) or "",
                getattr(value, "__qualname__", None) or getattr(value, "__name__", "")
                or type(value).__qualname__]
    return ["object", f"{module}.{type(value).__qualname__}"]


def _describe(value, index):
    if isinstance(value, (tuple, list)):
        return [type(value).__name__, [_describe(v, index) for v in value]]
    if isinstance(value, dict):
        return ["dict", [[repr(k), _describe(v, index)] for k, v in sorted(
            value.items(), key=lambda kv: repr(kv[0]))]]
    if isinstance(value, types.FunctionType) and id(value) in index:
        return ["fn", index[id(value)]]
    return _leaf(value)


def describe_value(value):
    """The description of a value read by no build (an option of ``grad``), as JSON data."""
    return _describe(value, {})


def _defaults(function, index):
    return [_describe(function.__defaults__ or (), index),
            _describe(function.__kwdefaults__ or {}, index)]


def describe(record):
    """A ``Recording`` as JSON data: one entry per function read, in reading order.

    Raises:
        Uncacheable: the build read something that cannot be described (see ``identity``), or
            the recording says so.
    """
    if record.uncacheable:
        raise Uncacheable(record.uncacheable)
    functions = []
    for position, function in enumerate(record.functions):
        reads = {}
        for owner, path, value in record.reads:
            if owner == position:
                reads.setdefault(path, _describe(value, record.index))
        functions.append({"identity": identity(function),
                          "defaults": _defaults(function, record.index),
                          "reads": [[path, reads[path]] for path in sorted(reads)]})
    return functions


# --- checking a description against the current objects -----------------------------------------
def _resolve(function, path):
    """``(True, value)`` of a dotted path in ``function``'s scope as the frontend resolves it."""
    root, *attributes = path.split(".")
    code = function.__code__
    cells = dict(zip(code.co_freevars, function.__closure__ or ()))
    try:
        if root in cells:
            value = cells[root].cell_contents
        elif root in function.__globals__:
            value = function.__globals__[root]
        elif hasattr(builtins, root):
            value = getattr(builtins, root)
        else:
            return False, None
        for attribute in attributes:
            value = getattr(value, attribute)
    except Exception:  # noqa: BLE001 - an empty cell, a missing attribute: it changed
        return False, None
    return True, value


class _Checker:
    def __init__(self, described):
        self.described, self.bound = described, {}

    def function(self, function, position):
        if position in self.bound:  # one record, one function object
            return self.bound[position] is function
        self.bound[position] = function
        entry = self.described[position]
        try:
            if identity(function) != entry["identity"]:
                return False
        except Uncacheable:
            return False
        if not all(self.value(v, d) for v, d in zip(
                (function.__defaults__ or (), function.__kwdefaults__ or {}), entry["defaults"])):
            return False
        for path, expected in entry["reads"]:
            found, value = _resolve(function, path)
            if not found or not self.value(value, expected):
                return False
        return True

    def value(self, value, expected):
        kind = expected[0]
        if kind == "fn":
            return isinstance(value, types.FunctionType) and self.function(value, expected[1])
        if kind in ("tuple", "list"):
            return (type(value).__name__ == kind and len(value) == len(expected[1])
                    and all(self.value(v, e) for v, e in zip(value, expected[1])))
        if kind == "dict":
            if not isinstance(value, dict) or len(value) != len(expected[1]):
                return False
            items = {repr(k): v for k, v in value.items()}
            return all(k in items and self.value(items[k], e) for k, e in expected[1])
        return _leaf(value) == expected


def unchanged(described, primal):
    """Whether ``primal`` and everything recorded in ``described`` (from ``describe``) are as
    they were: same sources, same defaults, every recorded name resolving to an equal value."""
    if not described:
        return True
    try:
        return _Checker(described).function(primal, 0)
    except Exception:  # noqa: BLE001 - a malformed description is a miss, never a hit
        return False


# --- watching the names a built gradient read ---------------------------------------------------
_MISSING = object()


_LIBRARIES = frozenset(sys.stdlib_module_names) | {
    "numpy", "scipy", "jax", "torch", "tensorflow", "sympy", "mpmath", "symgrad"}
"""Top-level modules whose attributes (``math.pi``, ``np.float64``) no program rebinds."""


def _watched(value, root):
    """Whether a value read by a build is one a program may rebind while its gradient lives: not a
    module, a builtin function, a NumPy ufunc or a class (what resolves calls to known functions),
    nor an attribute of a library module (``root``: the value the path starts from)."""
    if isinstance(root, types.ModuleType) and root.__name__.split(".")[0] in _LIBRARIES:
        return False
    return not (isinstance(value, (types.ModuleType, type, types.BuiltinFunctionType))
                or type(value).__name__ == "ufunc")


def _current(place, root, attributes):
    """The value ``root.attributes`` gives now in ``place`` (a closure cell, or a function's
    module globals, falling back to the builtins as Python does), or ``_MISSING``."""
    try:
        if isinstance(place, types.CellType):
            value = place.cell_contents
        else:
            value = place.get(root, _MISSING)
            if value is _MISSING:
                value = getattr(builtins, root, _MISSING)
        for attribute in attributes:
            value = getattr(value, attribute)
    except Exception:  # noqa: BLE001 - an emptied cell, a deleted attribute: it changed
        return _MISSING
    return value


class Watch:
    """The rebindable names one build read, each with the object it gave then.

    ``changed()`` is the first name that now gives another value (the dotted path, e.g. ``"X"`` or
    ``"params.K"``), or None. An object that is not the one read but equal to it (a constant
    assigned again, a notebook cell run again: equal numbers, tuples and lists item by item,
    arrays of equal dtype, shape and bytes, a function of the same source) counts as unchanged,
    and is watched from then on. Changes inside an object (an element of an array written in
    place) are not seen: symgrad's own tests of equality would cost a hash of the data per call.
    """

    def __init__(self, entries=()):
        self.entries = list(entries)  # [place, root, attributes, path, value]
        self._fast = [(_getter(*entry[:3]), entry) for entry in self.entries]

    @classmethod
    def of_record(cls, record):
        """The ``Watch`` of a ``Recording`` (the names its build read, in its functions' scopes)."""
        entries, seen = [], set()
        roots = {(owner, path): value for owner, path, value in record.reads if "." not in path}
        for owner, path, value in record.reads:
            root, *attributes = path.split(".")
            if owner is None or (owner, path) in seen or not _watched(
                    value, roots.get((owner, root)) if attributes else None):
                continue
            seen.add((owner, path))
            function = record.functions[owner]
            cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
            entries.append([cells.get(root, function.__globals__), root, attributes, path, value])
        return cls(entries)

    @classmethod
    def of_described(cls, described, primal):
        """The ``Watch`` of a build that ``describe`` described, ``primal`` and its helpers being
        as described (``unchanged`` said so): each recorded name with the object it gives now."""
        checker = _Checker(described)
        if not described or not checker.function(primal, 0):
            return cls()
        record = Recording()
        record.functions = [checker.bound[i] for i in range(len(described))]
        for position, (function, entry) in enumerate(zip(record.functions, described)):
            for path, _ in entry["reads"]:
                root = path.split(".")[0]
                for prefix in {root, path}:
                    found, value = _resolve(function, prefix)
                    if found:
                        record.reads.append((position, prefix, value))
        return cls.of_record(record)

    def __or__(self, other):
        """Both watches' names; a name both watch (the same place and path) is kept once."""
        seen = {(id(entry[0]), entry[3]) for entry in self.entries}
        return Watch(self.entries + [entry for entry in other.entries
                                     if (id(entry[0]), entry[3]) not in seen])

    def __bool__(self):
        return bool(self.entries)

    def changed(self):
        for get, entry in self._fast:
            if get() is not entry[4] and self._moved(entry):
                return entry[3]
        return None

    def _moved(self, entry):
        """Whether ``entry``'s name, now giving another object, gives another value (if not, the
        new object is watched from now on)."""
        now = _current(*entry[:3])
        if now is entry[4]:
            return False
        if now is _MISSING or not _equal(now, entry[4]):
            return True
        entry[4] = now
        return False


def _getter(place, root, attributes):
    """A C-level callable giving what ``_current`` gives in the common cases (a module global or
    a closure cell, no attributes), else a call of ``_current``; ``_MISSING`` for a name not bound
    in the module (``_moved`` then looks at the builtins)."""
    if attributes:
        return functools.partial(_current, place, root, attributes)
    if isinstance(place, types.CellType):
        return functools.partial(getattr, place, "cell_contents", _MISSING)
    return functools.partial(place.get, root, _MISSING)


def _equal(now, before):
    """Whether two values read by the same name would give the same generated code."""
    try:
        if isinstance(before, types.FunctionType):
            return isinstance(now, types.FunctionType) and identity(now) == identity(before) \
                and _defaults(now, {}) == _defaults(before, {})
        return type(now) is type(before) and describe_value(now) == describe_value(before)
    except Exception:  # noqa: BLE001 - a value that cannot be described: another value
        return False

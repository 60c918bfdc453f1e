"""Generated source → callable, and the cache of built gradients.

Compiles under a unique file name registered in ``linecache`` (SymPy ``lambdify``'s approach), so a
traceback through generated code shows its lines; the entry is dropped when the function is.
"""
import importlib
import dis
import itertools
import linecache
import sys
import types
import weakref

from . import backends

_counter = itertools.count()
BACKENDS = {name: b.imports for name, b in backends.BACKENDS.items()}
"""Backend name → the import line(s) its generated code needs (``backends.BACKENDS`` has the rest)."""


OPTIONAL_IMPORTS = {"scipy": ("import scipy.special", "scipy.special", "SciPy", "scipy"),
                    "jax": ("import jax.scipy.special", "jax.scipy.special", "JAX",
                            "'symgrad[jax]'")}
"""A module generated code may call beyond its backend's (``scipy.special.erf``, the numpy
spelling of ``erf``): its top-level name → (the import line, the module to import, the package's
name, what to pip install). Imported only by code that uses it."""


def optional_modules(code):
    """The names of ``OPTIONAL_IMPORTS`` that compiled ``code`` (a code object) reads as globals
    (not attributes: ``jax.scipy.special.erf`` reads ``jax`` alone, not SciPy)."""
    found, stack = set(), [code]
    while stack:
        current = stack.pop()
        found.update(i.argval for i in dis.get_instructions(current)
                     if i.opname in ("LOAD_GLOBAL", "LOAD_NAME") and i.argval in OPTIONAL_IMPORTS)
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return sorted(found)


def import_lines(source, backend):
    """The import lines a standalone module holding ``source`` needs, one per line."""
    code = compile(source, "<generated>", "exec")
    return "\n".join([BACKENDS[backend]] + [OPTIONAL_IMPORTS[m][0]
                                             for m in optional_modules(code)])


def _import_optional(name):
    """The top-level module ``name`` of ``OPTIONAL_IMPORTS``, with its submodule imported.

    Raises:
        OptionError: the package is not installed.
    """
    _, module, package, pip_name = OPTIONAL_IMPORTS[name]
    try:
        importlib.import_module(module)
    except ImportError:
        from .errors import OptionError
        raise OptionError(f"the generated code calls {module} functions, which need {package}: "
                          f"pip install {pip_name}") from None
    return sys.modules[name]


def compile_gradient(source, function_name, backend, constants=None):
    """Compile generated source and return the function it defines.

    Args:
        source: the text of one ``def`` (as ``emit`` prints it).
        function_name: the name it defines.
        backend: a name of ``backends.BACKENDS``: which module the code may reference.
        constants: name → value of the constant arrays the code reads by name (or None).

    Returns:
        The Python function.

    Raises:
        OptionError: the backend's library is not installed (naming the extra to install), or
            the code calls a module of ``OPTIONAL_IMPORTS`` that is not installed.
    """
    filename = f"<symgrad-{next(_counter)} {function_name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = backends.backend(backend).namespace()
    namespace.update(constants or {})
    code = compile(source, filename, "exec")
    for name in optional_modules(code):
        namespace[name] = _import_optional(name)
    exec(code, namespace)  # noqa: S102 - our own printed AST
    function = namespace[function_name]
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return function


class BuildCache:
    """(function, options) → built object; entries live as long as the function does."""

    def __init__(self):
        self._by_function = weakref.WeakKeyDictionary()

    def get(self, function, key):
        try:
            return self._by_function.get(function, {}).get(key)
        except TypeError:  # not weak-referenceable: never cached
            return None

    def put(self, function, key, value):
        try:
            self._by_function.setdefault(function, {})[key] = value
        except TypeError:
            pass
        return value

    def clear(self):
        self._by_function.clear()

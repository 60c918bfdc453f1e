"""Generated source → callable, and the cache of built gradients.

Compiles under a unique file name registered in ``linecache`` (SymPy ``lambdify``'s approach), so a
traceback through generated code shows its lines; the entry is dropped when the function is.
"""
import itertools
import linecache
import weakref

from . import backends

_counter = itertools.count()
BACKENDS = {name: b.imports for name, b in backends.BACKENDS.items()}
"""Backend name → the import line(s) its generated code needs (``backends.BACKENDS`` has the rest)."""


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
        OptionError: the backend's library is not installed (naming the extra to install).
    """
    filename = f"<symgrad-{next(_counter)} {function_name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = backends.backend(backend).namespace()
    namespace.update(constants or {})
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own printed AST
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

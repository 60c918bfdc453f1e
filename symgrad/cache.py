"""Generated source → callable, and the cache of built gradients.

Compiles under a unique file name registered in ``linecache`` (SymPy ``lambdify``'s approach), so a
traceback through generated code shows its lines; the entry is dropped when the function is.
"""
import itertools
import linecache
import math
import weakref

_counter = itertools.count()
BACKENDS = {"math": "import math", "numpy": "import numpy as np"}
"""Backend name → the one import its generated code needs."""


def _namespace(backend):
    if backend == "numpy":
        import numpy
        return {"np": numpy}
    return {"math": math}


def compile_gradient(source, function_name, backend, constants=None):
    """Compile generated source and return the function it defines.

    Args:
        source: the text of one ``def`` (as ``emit`` prints it).
        function_name: the name it defines.
        backend: "math" or "numpy": which module the code may reference.
        constants: name → value of the constant arrays the code reads by name (or None).

    Returns:
        The Python function.
    """
    filename = f"<symgrad-{next(_counter)} {function_name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = _namespace(backend)
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

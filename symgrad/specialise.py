"""Call-time specialisation of array gradients: one build per library kind and pattern of
argument ranks.

A pattern gives, per parameter, one flag per axis: whether that axis has size 1 (so its length is
the rank). Sizes never enter it, so one build serves every size with the same pattern, as
``jax.jit`` retraces per shape but symgrad only per rank and size-1 pattern. The library kind
(``library_kind``) tells NumPy arguments from *lazy* ones (a Dask array): the numpy backend prints
the plain in-place NumPy code for the first and code that keeps a Dask graph lazy for the second.
``Specialisations`` holds the builds of one gradient object and dispatches each call to the one
for its arguments.
"""
import inspect
from itertools import repeat

import numpy

_SHAPE, _NONE = repeat("shape"), repeat(None)  # getattr(a, "shape", None) mapped in C

LIBRARIES = ("numpy", "lazy")
"""The library kinds: "numpy" (NumPy arrays, NumPy scalars, Python numbers, lists) and "lazy"
(an array of another library that NumPy functions dispatch to: ``__array_function__``, NEP 18)."""


def library_kind(values):
    """``"lazy"`` when one of ``values`` is an array of another library that NumPy functions
    dispatch to (it has ``__array_function__`` and is not an ``np.ndarray``: a Dask array, a CuPy
    array), else ``"numpy"`` (NumPy arrays and their subclasses, NumPy scalars, Python numbers,
    lists: what ``np.asarray`` makes a NumPy array of)."""
    for value in values:
        if hasattr(type(value), "__array_function__") and not isinstance(value, numpy.ndarray):
            return "lazy"
    return "numpy"


def axes_pattern(value):
    """The pattern of one argument: ``()`` for a number, else one ``size == 1`` flag per axis."""
    shape = getattr(value, "shape", None)
    if shape is None:
        if isinstance(value, (list, tuple)):
            import numpy as np
            shape = np.shape(value)
        else:
            return ()
    return tuple(s == 1 for s in shape)


def shapes_pattern(shapes, params):
    """The pattern a ``shapes=`` dict stands for (a named size is taken to be other than 1)."""
    return tuple(tuple(d == 1 if isinstance(d, int) else False for d in shapes.get(p, ()))
                 for p in params)


def pattern_shapes(pattern, params):
    """The ``shapes`` to build a pattern with: 1 for a size-1 axis, None (any size) otherwise."""
    return {p: tuple(1 if one else None for one in flags)
            for p, flags in zip(params, pattern) if flags}


class Specialisations:
    """The builds of one array gradient, by library kind and pattern; calling it dispatches.

    ``by_pattern`` maps ``(library, pattern)`` to the ``GradientFunction`` built for it; the
    library is always "numpy" unless ``by_library`` (the numpy backend: the other backends print
    one text for every library). A pattern is read once (``read``) and each library kind built
    from that reading. ``latest`` is the NumPy build of the latest pattern called (or given):
    what ``ArrayGradientFunction.source`` shows, built when first asked for if that pattern was
    only called with lazy arguments.

    Args:
        function: the primal (its signature binds keyword arguments and defaults).
        read: callable(shapes dict) → the primal ``Program`` read with those shapes.
        build: callable(program, library) → the ``GradientFunction`` of that reading, printed
            for the library kind ("numpy" or "lazy").
        by_library: whether lazy arguments get builds of their own (``library_kind``).
    """

    def __init__(self, function, read, build, by_library=True):
        self.function, self.read, self.build, self.by_library = function, read, build, by_library
        code = function.__code__
        self.params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        self.by_pattern = {}
        self.programs = {}  # pattern -> the primal Program read for it
        self.latest_pattern = None
        self._last_shapes, self._last_types, self._last = None, None, None

    def values(self, args, kwargs):
        """The value of each parameter in this call (defaults applied)."""
        if kwargs or len(args) < len(self.params):
            bound = inspect.signature(self.function).bind_partial(
                *args[:len(self.params)], **{k: v for k, v in kwargs.items()
                                             if k in self.params})
            bound.apply_defaults()
            return [bound.arguments.get(p) for p in self.params]
        return args[:len(self.params)]

    def pattern(self, args, kwargs):
        return tuple(axes_pattern(v) for v in self.values(args, kwargs))

    def add(self, pattern, program=None, library="numpy"):
        """The build of ``pattern`` for ``library``, kept: from ``program`` when given (read with
        the user's ``shapes=``), else from the pattern's reading (read now if it was not)."""
        if program is not None:
            self.programs[pattern] = program
        elif pattern not in self.programs:
            self.programs[pattern] = self.read(pattern_shapes(pattern, self.params))
        library = library if self.by_library else "numpy"
        built = self.build(self.programs[pattern], library)
        self.by_pattern[(library, pattern)] = built
        self.latest_pattern = pattern
        self.__name__, self.__doc__ = built.func.__name__, built.func.__doc__  # export's header
        return built

    def get(self, library="numpy", pattern=None):
        """The build for ``library`` and ``pattern`` (default: the latest pattern), built now if
        it was not; None before any pattern is known."""
        pattern = self.latest_pattern if pattern is None else pattern
        if pattern is None:
            return None
        built = self.by_pattern.get((library if self.by_library else "numpy", pattern))
        return self.add(pattern, None, library) if built is None else built

    @property
    def latest(self):
        return self.get("numpy")

    def __call__(self, *args, **kwargs):
        if not kwargs:  # the same shapes and types as the last call: the same build
            shapes = tuple(map(getattr, args, _SHAPE, _NONE))
            if shapes == self._last_shapes and tuple(map(type, args)) == self._last_types:
                return self._last(*args)
        values = self.values(args, kwargs)
        pattern = tuple(axes_pattern(v) for v in values)
        library = library_kind(values) if self.by_library else "numpy"
        built = self.by_pattern.get((library, pattern))
        if built is None:
            from .errors import public_entry
            with public_entry():  # a refusal's traceback: the user's call, this frame, the message
                built = self.add(pattern, None, library)
        self.latest_pattern = pattern
        if not kwargs and all(hasattr(a, "shape") or isinstance(a, (int, float)) for a in args):
            self._last_shapes, self._last_types, self._last = shapes, tuple(map(type, args)), \
                built.func
        else:  # the next call takes the long way, so latest_pattern follows it
            self._last_shapes = None
        return built.func(*args, **kwargs)

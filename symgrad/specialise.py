"""Call-time specialisation of array gradients: one build per library kind and pattern of
argument ranks.

A pattern gives, per parameter, one flag per axis: whether that axis has size 1 (so its length is
the rank). Sizes never enter it, so one build serves every size with the same pattern, as
``jax.jit`` retraces per shape but symgrad only per rank and size-1 pattern; except where a
size of the pattern's build is 0 at the call's sizes (``x[2:]`` of 2 elements, an argument of
no element): that call takes a build for its very sizes (``Specialisations._of_sizes``), where
a reduction over the empty axis is the constant it is. The library kind
(``library_kind``) tells NumPy arguments from *lazy* ones (a Dask array): the numpy backend prints
the plain in-place NumPy code for the first and code that keeps a Dask graph lazy for the second.
``Specialisations`` holds the builds of one gradient object and dispatches each call to the one
for its arguments; once a call has returned, its ``ArrayGradientFunction`` calls a guard made for
that call's argument types and shapes directly (``dispatch``) until a call differs.
"""
import inspect
import weakref

import numpy

from .dependencies import Watch, recording
from .errors import explain_traced_check
from .dispatch import FLOAT64, converted_shape_known, guard, unchecked

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


def axes_pattern(value, name="an argument"):
    """The pattern of one argument: ``()`` for a number, else one ``size == 1`` flag per axis.

    Raises:
        TypeError: ``value`` is a list (or tuple) holding an array of another library that NumPy
            dispatches to (a Dask array): making one NumPy array of the list would compute it,
            eagerly and in memory (``name`` names the parameter in the message).
    """
    shape = getattr(value, "shape", None)
    if shape is None:
        if isinstance(value, (list, tuple)):
            lazy = _lazy_type(value)
            if lazy is not None:
                raise TypeError(f"{name} is a list holding a {lazy.__module__.split('.')[0]} "
                                f"{lazy.__name__}: making one NumPy array of the list would "
                                "compute it, eagerly and in memory; pass one array instead "
                                "(da.stack(...) keeps it lazy; np.asarray(...) computes it)")
            shape = numpy.shape(value)
        else:
            return ()
    return tuple(s == 1 for s in shape)


def _lazy_type(items):
    """The type of an array of another library in the (nested) list ``items``, else None."""
    for kind in set(map(type, items)):
        if kind in (list, tuple):
            found = next(filter(None, (_lazy_type(i) for i in items if type(i) is kind)), None)
            if found is not None:
                return found
        elif hasattr(kind, "__array_function__") and not issubclass(kind, numpy.ndarray):
            return kind
    return None


def shapes_pattern(shapes, params):
    """The pattern a ``shapes=`` dict stands for (a named size is taken to be other than 1)."""
    return tuple(tuple(d == 1 if isinstance(d, int) else False for d in shapes.get(p, ()))
                 for p in params)


def pattern_shapes(pattern, params):
    """The ``shapes`` to build a pattern with: 1 for a size-1 axis, None (any size) otherwise."""
    return {p: tuple(1 if one else None for one in flags)
            for p, flags in zip(params, pattern) if flags}


def empty_sizes(info):
    """The sizes of a program's arrays (``info``: its ``ArrayInfo``) that are 0 at some sizes
    of its parameters from 2 up (a size-1 axis is a pattern of its own): ``n - 2`` of
    ``x[1:-1]``, ``Max(0, n - 3)`` of ``x[3:]``; not ``n - 1``, ``2 * n`` or ``n * d``."""
    import sympy
    found = set()
    for shape in info.shapes.table.values():
        for d in shape:
            if d.is_Number or d.is_Symbol or d in found or not d.free_symbols <= set(info.dims):
                continue
            shifted = {s: sympy.Symbol(f"_{s.name}", integer=True, nonnegative=True) + 2
                       for s in d.free_symbols}
            if d.xreplace(shifted).is_positive is not True:
                found.add(d)
    return tuple(sorted(found, key=str))


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
        self.owner, self._guarded = None, False  # the caller (``serve``), whether it calls a guard
        self._unchecked = {}  # (build, float64 parameters) -> its code without what is proved
        self.watch = Watch()  # the rebindable names the readings read (checked at each call)
        self._empties = {}  # pattern -> its sizes that may be 0 (``empty_sizes``)

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
            with recording() as record:
                self.programs[pattern] = self.read(pattern_shapes(pattern, self.params))
            self.watch |= Watch.of_record(record)
        library = library if self.by_library else "numpy"
        built = self.build(self.programs[pattern], library)._watching(self.watch)
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

    def serve(self, owner):
        """Let ``owner`` (an ``ArrayGradientFunction``, a ``functools.partial`` of this object)
        call a guard of the last call's arguments (``dispatch.guard``) directly, once a call
        has returned, and this object again when a call differs."""
        self.owner = weakref.ref(owner)

    def _point(self, target):
        """Make ``owner`` call ``target``: this object or a guard (held by ``owner`` alone, so
        that no cycle keeps a build alive)."""
        owner = self.owner() if self.owner is not None else None
        if owner is not None and (target is not self or self._guarded):
            owner.__setstate__((target, (), None, owner.__dict__))
            self._guarded = target is not self

    def __call__(self, *args, **kwargs):
        changed = self.watch.changed()
        if changed is not None:
            from .errors import StaleGradientError
            raise StaleGradientError(getattr(self, "__name__", "the gradient"),
                                     self.function.__name__, changed)
        values = self.values(args, kwargs)
        pattern = tuple(map(axes_pattern, values, self.params))
        library = library_kind(values) if self.by_library else "numpy"
        built = self.by_pattern.get((library, pattern))
        if built is None:
            from .errors import public_entry
            with public_entry():  # a refusal's traceback: the user's call, this frame, the message
                built = self.add(pattern, None, library)
        built = self._of_sizes(pattern, values, library) or built
        self.latest_pattern = pattern
        self._point(self)  # a call that raises leaves the next call the long way
        try:
            result = built.func(*args, **kwargs)
        except TypeError as error:  # jax.jit's refusal of a check: which, and why
            explain_traced_check(error, built.func)
            raise
        if not kwargs and all(hasattr(a, "shape") or isinstance(a, (int, float)) for a in args):
            self._point(self._guard(args, built, library))
        return result  # after any other call the next one takes the long way, so that
        # latest_pattern follows it

    def _of_sizes(self, pattern, values, library):
        """The build for the call's very sizes where one of the pattern's sizes is 0 at them
        (``x[1:-1]`` of 2 elements, ``n - 2`` of the build: ``empty_sizes``; an argument with
        an axis of size 0), else None.

        A build serves every size, so its code reduces over ``x[1:-1]`` at each: at 2 elements
        a sum over nothing, 0, whose derivative flows through the code of every other size,
        ``cbrt``'s inf at 0 times an adjoint of no element, nan. Read with the call's shapes, the
        slice has the size 0, and a reduction over it is the constant it is
        (``ArrayReader._of_nothing``): its derivative 0. One build per such shape; the other
        sizes keep the pattern's build (what ``.source`` shows). Where the sizes do not fit
        the program (a call the pattern's build refuses), or reading them fails, None: the
        pattern's build runs and raises as it does."""
        program = self.programs.get(pattern)
        if getattr(program, "arrays", None) is None:
            return None
        if pattern not in self._empties:
            self._empties[pattern] = empty_sizes(program.arrays)
        empties = self._empties[pattern]
        import sympy
        from .program import SizeCheck
        shapes = {}
        for param, value in zip(self.params, values):
            shape = getattr(value, "shape", None)
            if shape is None and isinstance(value, (list, tuple)):
                shape = numpy.shape(value)
            if shape:
                shapes[param] = tuple(shape)
        sizes = {}
        for dim, (param, axis) in program.arrays.dims.items():
            shape = shapes.get(param, ())
            if axis >= len(shape) or not isinstance(shape[axis], int):  # Dask's nan: unknown
                return None
            sizes[dim] = shape[axis]
        if 0 not in sizes.values() and all(e.xreplace(sizes) != 0 for e in empties) and not any(
                step.path[-1][0].xreplace(sizes) is sympy.true for step in program.assignments
                if isinstance(step, SizeCheck)):  # x[0:n - 2] at n = 1: x[0:-1], as Python
            return None
        key = (library if self.by_library else "numpy", ("sizes",) + tuple(
            shapes.get(p, ()) for p in self.params))
        built = self.by_pattern.get(key)
        if built is None:
            from .errors import SymgradError, public_entry
            try:
                with recording() as record:
                    program = self.read({p: tuple(int(k) for k in shape)
                                         for p, shape in shapes.items()})
            except SymgradError:
                return None
            self.watch |= Watch.of_record(record)
            with public_entry():
                built = self.build(program, key[0])._watching(self.watch)
            self.by_pattern[key] = built
        return built

    def _guard(self, args, built, library):
        """The guard of a call of ``built`` with ``args`` that has returned (``dispatch``): for
        NumPy code and arguments whose converted shapes their types give, it calls the build's
        code without the conversions of its float64 NumPy arrays and without its size checks."""
        code = built.func.__code__
        names = code.co_varnames[:code.co_argcount]
        if library != "numpy" or built.backend != "numpy" or not all(
                converted_shape_known(type(a)) for a in args):
            return guard(args, names, self._watched(built.func), self,
                         posonly=code.co_posonlyargcount)
        float64 = tuple(i for i, a in enumerate(args[:code.co_argcount])
                        if type(a) is numpy.ndarray and a.dtype is FLOAT64)
        converted = tuple(names[i] for i in float64)
        function = self._unchecked.get((built, converted))
        if function is None:
            function = self._unchecked[(built, converted)] = unchecked(built.func, built.source,
                                                                       converted)
        return guard(args, names, self._watched(function), self, float64,
                     code.co_posonlyargcount)

    def _watched(self, function):
        """``function``, or, when the readings watch names, a call of it that first checks them
        (a name that changed takes the long way, which raises ``StaleGradientError``)."""
        if not self.watch:
            return function
        changed, slow = self.watch.changed, self

        def checked(*args):
            if changed() is not None:
                return slow(*args)
            return function(*args)
        return checked

"""``GradientFunction``: a compiled derivative, callable like the primal (no SymPy here), and
``ArrayGradientFunction``, the derivative of array code, built per pattern of argument ranks.

A gradient found in the disk cache (``symgrad.diskcache``) is one of these too, made from its stored
source: its ``program`` (and so ``derivatives``) is rebuilt, importing SymPy, on first access.
"""
import functools

from .errors import OptionError, StaleGradientError, explain_traced_check


class GradientFunction(functools.partial):
    """A compiled derivative of a Python function: call it like the primal.

    Calls go straight to the generated function (``functools.partial``'s C-level call, no Python
    wrapper in the hot path).

    Attributes:
        primal: the function differentiated (the user's function, or a ``GradientFunction``).
        source: the generated Python source (str), one ``def``.
        wrt: tuple of the names (parameters or intermediates) differentiated with respect to, in
            result order.
        program: the derivative ``Program`` (what ``grad`` of this object differentiates again);
            for a gradient read from the disk cache, rebuilt (with SymPy) on first access.
        function: the generated Python function itself.
        kind: "grad", "value_and_grad", "jacobian", "hessian" or "vjp".
        backend: the name of its backend ("math", "numpy", "jax", "torch", "array_api").
        origin: "<file>, line <n>" of the primal's ``def``.
        cache_key: the key of its disk cache entry (hex str), or None when it is not cacheable.
        derivatives: tuple of SymPy expressions in the parameters, one per result (computed on
            first access; can be large for deep programs).
        options: dict of the options it was built with, as passed (``wrt``,
            ``stop_gradients`` as a tuple of names, ``unconnected``, ``backend``,
            ``strategy``): the CLI's ``show`` and ``export`` of a decorated function keep them.

    Raises (when called):
        StaleGradientError: a name its build read (a module constant, a closure variable, a
            helper function, an attribute of a config object) gives another value now.
    """

    _watch = None  # the rebindable names the build read (``dependencies.Watch``), or None
    options = None  # set by ``api.build``

    def __new__(cls, function, *, primal, source, wrt, program, kind, backend, origin=None,
                rebuild=None):
        if cls is GradientFunction and backend == "math":
            cls = _FirstCallChecked  # float code: its first call checks for arrays
        elif cls is GradientFunction and backend in TRACED and "raise " in source:
            cls = _Checked  # a check of the primal's: explained if jax.jit traces it
        self = super().__new__(cls, function)
        self.primal, self.source, self.wrt, self._program, self.kind = (
            primal, source, wrt, program, kind)
        self.backend = backend
        self._origin, self._rebuild, self.cache_key = origin, rebuild, None
        self._derivatives = None
        return self

    @property
    def function(self):
        return self.func

    @property
    def program(self):
        if self._program is None and self._rebuild is not None:
            rebuilt = self._rebuild()
            if rebuilt.source != self.source:  # the stored code is not what symgrad builds now
                from .diskcache import warn
                warn(f"`{self.func.__name__}` was read from the disk cache, and building it again "
                     "now (for its program) gives other code: a constant it reads changed since, "
                     "or the cache holds a wrong entry (`python -m symgrad cache clear`)")
            self._program, self._rebuild = rebuilt.program, None
        return self._program

    @property
    def origin(self):
        return self._origin if getattr(self, "_origin", None) else self.program.origin

    @property
    def derivatives(self):
        if self._derivatives is None:
            from .program import substituted_outputs
            self._derivatives = tuple(substituted_outputs(self.program))
        return self._derivatives

    def _watching(self, watch):
        """Check ``watch`` (a ``dependencies.Watch``) at each call from now on; returns self."""
        if watch:
            self._watch = watch
            if type(self) is GradientFunction:
                self.__class__ = _Watched
        return self

    def _stale(self):
        """The name its build read that gives another value now, or None."""
        return self._watch.changed() if self._watch else None

    def _refuse_stale(self):
        path = self._stale()
        if path is not None:
            primal = self.primal
            while isinstance(primal, GradientFunction):
                primal = primal.primal
            raise StaleGradientError(self.func.__name__, getattr(primal, "__name__", "f"), path)

    def __repr__(self):
        return f"<GradientFunction {self.func.__name__} wrt {self.wrt}>"

    def _repr_markdown_(self):
        from .export import markdown
        return markdown(self)

    def __reduce__(self):
        raise TypeError("a GradientFunction cannot be pickled: pickle the primal and rebuild it")


class _FirstCallChecked(GradientFunction):
    """A gradient of scalar code (backend "math") before its first call.

    Scalar code is float code. Its first call checks that no argument is an array (a value with
    a non-empty ``shape``) and then makes the object a plain ``GradientFunction`` (calls straight
    to the generated code: a check on every call would cost as much as a small gradient). An
    array there is refused as ``jax.grad`` refuses a non-scalar output: the elementwise result
    the float code would give is not the gradient of a number.
    """

    def __call__(self, *args, **kwargs):
        code = self.func.__code__
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        for name, value in list(zip(names, args)) + list(kwargs.items()):
            if _rank(value):
                raise OptionError(
                    f"`{self.func.__name__}` was built from scalar code (no array construct in "
                    f"`{getattr(self.primal, '__name__', '?')}`, no shapes=), so it takes numbers; "
                    f"`{name}` is an array of shape {tuple(value.shape)}. To differentiate it as "
                    f"array code pass shapes= (shapes={{{name!r}: ('n',)}}): then symgrad.grad "
                    "needs a function returning one number, as jax.grad does, and symgrad.vjp "
                    "gives the elementwise derivative; or build with backend=\"numpy\" to "
                    "evaluate this scalar gradient element by element")
        self._refuse_stale()
        self.__class__ = _Watched if self._watch else GradientFunction
        return self.func(*args, **kwargs)


TRACED = ("jax", "array_api")
"""The backends whose code ``jax.jit`` may trace."""


class _Checked(GradientFunction):
    """A gradient whose code tests values in Python (a check of the primal's) on a backend that
    ``jax.jit`` may trace: a call that ``jax.jit`` refuses gets a note naming the check."""

    def __call__(self, *args, **kwargs):
        self._refuse_stale()
        try:
            return self.func(*args, **kwargs)
        except TypeError as error:
            explain_traced_check(error, self.func)
            raise


class _Watched(GradientFunction):
    """A gradient whose build read names a program can rebind (``dependencies.Watch``): each call
    checks them first (about 0.1 us a name, 0.3 us a call), so that it never gives the derivative of an old value.
    A gradient that reads only modules, library functions and its parameters has nothing to watch
    and calls its code directly."""

    def __call__(self, *args, **kwargs):
        if self._watch.changed() is not None:
            self._refuse_stale()
        return self.func(*args, **kwargs)


def _rank(value):
    """The number of axes of an array argument (0 for a number, a NumPy scalar, a 0-d array)."""
    try:
        return len(getattr(value, "shape", ()))
    except TypeError:  # a class passed as a value: its ``shape`` is a descriptor
        return 0


class ArrayGradientFunction(GradientFunction):
    """The derivative of array code: one build per library kind and pattern of argument ranks
    and size-1 axes.

    Called, it finds (or builds, once) the specialisation for its arguments and calls it; sizes
    never matter, so one build serves every size. With the numpy backend, arguments of a library
    that NumPy functions dispatch to (a Dask array: ``specialise.library_kind``) get a *lazy*
    specialisation of their own (each parameter kept in its library, nothing computed inside),
    NumPy arguments the plain one (converted with ``np.asarray``, worked in place). ``source``,
    ``program``, ``wrt`` and ``function`` are those of the NumPy specialisation of the latest
    pattern (``source`` is None before the first; the others raise ``OptionError`` then);
    ``specialisation("lazy")`` is the lazy one; ``specialisations.by_pattern`` maps each
    ``(library, pattern)`` (per parameter, a size-1 flag per axis) to its ``GradientFunction``.

    Args:
        primal: the user's function.
        kind: "grad", "value_and_grad" or "vjp".
        read: callable(shapes dict) → the primal ``Program`` of one pattern.
        build: callable(program, library) → the ``GradientFunction`` of one pattern and library
            kind (``assemble.array_gradient`` makes both).
        backend: the backend its specialisations are printed for.
    """

    def __new__(cls, primal, kind, read, build, backend="numpy"):
        from .specialise import Specialisations

        state = Specialisations(primal, read, build, by_library=backend == "numpy")
        self = functools.partial.__new__(cls, state)
        self.primal, self.kind, self.backend, self._derivatives = primal, kind, backend, None
        self.specialisations = state
        state.serve(self)
        return self

    func = property(lambda self: self.specialisations, doc="""The ``Specialisations`` (its
        ``__name__`` and ``__doc__`` are the latest build's); a call goes to it, or, repeating the
        last call's argument types and shapes, to that call's guard (``dispatch``).""")

    _watch = property(lambda self: self.specialisations.watch, doc="""The rebindable names every
        build read (``dependencies.Watch``), shared by all specialisations.""")

    def _watching(self, watch):
        self.specialisations.watch |= watch
        return self

    def _stale(self):
        return self.specialisations.watch.changed()

    def specialisation(self, library="numpy"):
        """The ``GradientFunction`` of the latest pattern for ``library``: "numpy" (what
        ``source`` shows and ``export`` writes) or "lazy" (what Dask arguments run; with a
        backend other than numpy both are the one build), built now if it was not.

        Raises:
            OptionError: ``library`` is neither, or nothing was built yet (no ``shapes=``, no
                call).
        """
        from .specialise import LIBRARIES
        if library not in LIBRARIES:
            raise OptionError(f"library must be one of {LIBRARIES}, not {library!r}")
        built = self.specialisations.get(library)
        if built is None:
            self._latest("source")  # raises the OptionError of a gradient built at its first call
        return built

    def _latest(self, attribute):
        latest = self.specialisations.latest
        if latest is None:
            raise OptionError(f"the gradient of `{self.primal.__name__}` is built at its first "
                              "call (array code without shapes=): call it once, or pass shapes=")
        return getattr(latest, attribute)

    source = property(lambda self: self._latest("source") if self.specialisations.latest
                      else None)
    program = property(lambda self: self._latest("program"))
    wrt = property(lambda self: self._latest("wrt"))
    function = property(lambda self: self._latest("function"))

    def __repr__(self):
        return f"<ArrayGradientFunction {self.kind} of {self.primal.__name__}, " \
               f"{len(self.specialisations.by_pattern)} specialisation(s)>"

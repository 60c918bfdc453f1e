"""The exceptions symgrad raises, each carrying where in the user's source it applies.

Every error says what went wrong, where (file, line, column, the line itself) and what to do instead,
in the layout of Python's own ``SyntaxError`` so that tracebacks draw a caret under the column.
"""
import collections
import linecache
import os
import sys
import types


class SourceLocation(collections.namedtuple("SourceLocation", "filename lineno col text",
                                            defaults=("",))):
    """A place in the user's source (immutable; a named tuple, so ``import symgrad`` stays light).

    Attributes:
        filename: the real file name the function was read from (``<stdin>`` style names allowed).
        lineno: 1-based line number in that file.
        col: 0-based column offset (as ``ast`` reports it).
        text: the whole source line, without its trailing newline ("" when unknown).
    """

    __slots__ = ()


class SymgradError(Exception):
    """Base class of every error symgrad raises on purpose."""


class OptionError(SymgradError, ValueError):
    """An option of ``grad`` and its family is invalid (unknown ``wrt`` name, bad ``unconnected`` ...).

    Also a ``ValueError``, so code catching ``ValueError`` for bad arguments keeps working.
    """


class ShapesNeededError(OptionError):
    """Array code was given where its arrays' shapes must be known now (``check_grad`` without
    ``shapes=``): an ``OptionError`` whose message asks for them (the command line asks for
    ``--shapes``).

    Args:
        name: the function's name.

    Attributes:
        name: that name.
    """

    def __init__(self, name):
        self.name = name
        super().__init__(f"`{name}` computes with arrays: give their shapes, e.g. "
                         "shapes={'X': ('n', 'd'), 'w': ('d',)} (names for sizes, 1 for a size-1 "
                         "axis, scalars left out)")


class OutputShapeError(SymgradError, TypeError):
    """The function returns the wrong shape for what was asked (a tuple where ``grad`` needs a scalar).

    Also a ``TypeError``, as JAX's ``grad`` raises for a non-scalar output.
    """


class SourceUnavailableError(SymgradError):
    """The source of a function cannot be read (a builtin, a lambda typed at the prompt, C code)."""


class StaleGradientError(SymgradError, RuntimeError):
    """A gradient was called after a name its build read (a module constant, a closure variable, a
    helper function) was bound to another value: it would differentiate the old one. Build it
    again (``symgrad.grad(f)`` builds anew once a name it read changed), or make the value a
    parameter.

    Args:
        function: the generated function's name.
        primal: the name of the function differentiated.
        path: the name that changed (``"X"``, ``"params.K"``).

    Attributes:
        path: that name.
    """

    def __init__(self, function, primal, path):
        self.path = path
        super().__init__(
            f"`{function}` was built when `{path}` had another value, so it would give the "
            f"derivative at the old one: build it again (symgrad.grad({primal}) reads `{path}` "
            f"anew), or make `{path}` a parameter of `{primal}` and leave it out of wrt= to pass a "
            "new value at each call")


class CacheWarning(UserWarning):
    """The disk cache could not be used as asked: a corrupt or unreadable entry (ignored and
    rebuilt), or a cache folder that cannot be written (gradients are built in memory)."""


class UnsupportedSyntaxError(SymgradError, SyntaxError):
    """A construct symgrad does not differentiate, reported like Python's own ``SyntaxError``.

    Args:
        what: what is not supported, e.g. "`while` loops are not supported".
        location: the ``SourceLocation`` of the offending node, or None when unknown.
        hint: what to do instead, e.g. "rewrite as `for i in range(N)` with N known at build time".

    ``str(error)`` reads ``"<what>: <hint> (<file>, line <n>)"``; ``.filename``, ``.lineno``,
    ``.offset`` (1-based column, as SyntaxError) and ``.text`` are set from the location.
    """

    def __init__(self, what, location=None, hint=None):
        message = f"{what}: {hint}" if hint else what
        self.what, self.hint, self.location = what, hint, location
        if location is None:
            super().__init__(message)
        else:
            super().__init__(message, (location.filename, location.lineno, location.col + 1,
                                       location.text))


FULL_TRACEBACK = "SYMGRAD_FULL_TRACEBACK"  # set to 1 to keep symgrad's internal frames


class public_entry:  # noqa: N801 - used as a statement, `with public_entry():`
    """Trim the traceback of a ``SymgradError`` leaving a public function to that function's frame.

    A refusal is about the user's code, so its traceback should read like one of Python's own: the
    user's line, the call into symgrad, the message, not the dozen internal frames that found it
    (JAX filters its tracebacks the same way). ``with public_entry():`` around the body of a
    public function keeps, of the frames below it, only its own; the frames of the callers are
    added as usual. ``public_entry(own_frame=False)`` keeps none below it, for a helper whose
    caller is the public function (``grad`` calling ``api._entry``). The exception object is
    the same (type, attributes, message). Its chaining reads as if symgrad were one frame: an
    explicit ``__cause__`` (``raise ... from``) and ``from None`` are left as they are, and an
    implicit ``__context__`` from inside symgrad is replaced by the exception being handled
    where the public function was called (None outside an ``except`` block). Set the environment
    variable ``SYMGRAD_FULL_TRACEBACK=1`` to keep every frame and the context as raised. Nested
    entries (``check_grad`` calling ``grad``) leave the outermost one's frames.
    """

    __slots__ = ("own_frame", "outer")

    def __init__(self, own_frame=True):
        self.own_frame, self.outer = own_frame, None

    def __enter__(self):
        self.outer = sys.exc_info()[1]  # the user's exception being handled, if any
        return self

    def __exit__(self, kind, error, traceback):
        if (isinstance(error, SymgradError) and traceback is not None
                and os.environ.get(FULL_TRACEBACK, "") in ("", "0")):
            # the exception goes on from this frame without a new entry for it (a re-raise)
            error.__traceback__ = types.TracebackType(
                None, traceback.tb_frame, traceback.tb_lasti, traceback.tb_lineno
            ) if self.own_frame else None
            if error.__cause__ is None and not error.__suppress_context__:
                error.__context__ = self.outer
        self.outer = None
        return False


def explain_traced_check(error, function):
    """Note on ``error``, JAX's refusal of a Python test of a traced value
    (``TracerBoolConversionError``, a ``TypeError``) raised by a check of the primal's that the
    generated ``function`` keeps (``if c: raise ...``), which line it is and why (the error alone
    names neither); any other error is left as it is."""
    tb, line = error.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code is function.__code__:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None or not type(error).__module__.startswith("jax"):
        return
    lines = linecache.getlines(function.__code__.co_filename)
    first = next((k for k in range(line - 1, max(line - 8, -1), -1)
                  if lines[k].lstrip().startswith("if ")), None)
    end = next((k for k in range(line, min(line + 8, len(lines)))
                if lines[k].lstrip().startswith("raise ")), None)
    if first is not None and end is not None:
        test = " ".join(text.strip() for text in lines[first:end + 1])
        error.add_note(
            f"{function.__name__}, line {first + 1}: `{test}` is a check the gradient keeps "
            "from the primal (an `assert`, or a `raise` under an `if` on the values), a Python "
            "test of the values, so jax.jit cannot trace it, as it cannot trace the primal's: "
            "call the gradient without jax.jit, or take the check out of the primal")

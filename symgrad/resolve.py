"""Names and calls, for the frontend: what a name means, and what a call becomes.

A name is looked up as Python would at that point of the primal: the locals of the function being
read, then (for a nested ``def`` or ``lambda``) the current values of the enclosing function's
names, then the closure, module globals and builtins (``FunctionSource.lookup``). A call becomes:

- ``StopGradient`` for ``stop_gradient`` in every spelling;
- the SymPy function of its ``rules.RULES`` row;
- a tuple, for ``range``, ``zip``, ``enumerate``, ``reversed``, ``tuple``, ``list`` and a
  comprehension over sequences whose length is known at build time; a sum for ``sum``
  (``resolve_sequences.Sequences``);
- the inlined body of a plain Python helper: module-level (its own source) or nested
  (``def``/``lambda`` inside the function, reading the enclosing names at the point of call).

``print`` and ``logging`` calls as statements are recognised here (``ignored_call``) and left out.
"""
import ast
import logging
import math
import types

import sympy

from . import functions, rules
from .fence import bound_names, dotted
from .functions import StopGradient
from .realpower import RealPower, real_abs_of_powers
from .resolve_sequences import Sequences
from .source import read_source


class _Py:
    """A Python object a name resolves to at build time (a module, a callable, a constant tuple)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


class _Undefined:
    """A name without one value after an ``if``: any later use is an error saying ``why``."""

    __slots__ = ("name", "why")

    def __init__(self, name, why="is assigned on only some paths of an `if`"):
        self.name, self.why = name, why


class _Raises:
    """What a block gives when every path through it raises (an ``assert`` or ``raise``)."""

    __slots__ = ()


RAISES = _Raises()


class _Frame:
    """One activation of a function being read (the primal, an inlined helper, a nested ``def``):
    its source, its node, its local names, and for a nested function the frame of the enclosing
    function at the point of call (``outer``). Branch copies share ``activation``. ``written``:
    each local name bound to a value whose SymPy form may compute another float than the source
    (a helper's argument ``math.log(math.exp(z))``, which SymPy reads as ``z``) → that value as
    the source computes it (``rules.Written`` operators), for the operands of jumps and
    conditions (``Conditions.written``)."""

    def __init__(self, src, env, primary, node=None, outer=None, written=None):
        self.src, self.env, self.primary = src, env, primary
        self.written = {} if written is None else written
        self.node = src.node if node is None else node
        self.outer = outer
        self.activation = object()
        self.locals = bound_names(self.node)
        self.objects = {}  # name -> the arrays its value may share memory with (array_inplace)

    def branch(self):
        copy = _Frame.__new__(_Frame)
        copy.__dict__.update(self.__dict__)
        copy.env, copy.written = dict(self.env), dict(self.written)
        copy.objects = dict(self.objects)
        return copy

    def scope(self):
        """The frame of a comprehension inside this one: its own names, then this frame's."""
        inner = self.branch()
        inner.env, inner.locals, inner.outer, inner.primary = {}, set(), self, False
        inner.written, inner.objects = {}, {}
        inner.activation = object()
        return inner

    def form(self, name):
        """The source's form of the value ``name`` reads here (``written``), or None where the
        value is its own (a parameter, a number, an assignment's symbol: its line is as written)."""
        scope = self
        while scope is not None and name not in scope.env:
            scope = scope.outer
        return None if scope is None else scope.written.get(name)

    def enclosing(self, activation):
        """The frame of ``activation`` on the chain from this frame outwards, or None."""
        frame = self
        while frame is not None and frame.activation is not activation:
            frame = frame.outer
        return frame


class _Function:
    """A ``def`` or ``lambda`` inside the function being read: inlined where it is called, with
    the defaults evaluated where it was defined (as Python does)."""

    __slots__ = ("node", "frame", "defaults", "__qualname__")

    def __init__(self, node, frame, defaults):
        self.node, self.frame, self.defaults = node, frame, defaults
        self.__qualname__ = getattr(node, "name", "<lambda>")


_LOGGING_TYPES = (logging.Logger, logging.LoggerAdapter)


def _is_logging(obj):
    """``logging.info`` and friends, or a method of a ``Logger`` (``logger.debug``)."""
    if getattr(obj, "__module__", None) == "logging" and isinstance(obj, types.FunctionType):
        return True
    return isinstance(getattr(obj, "__self__", None), _LOGGING_TYPES)


class Resolver(Sequences):
    """The name and call half of the frontend's reader (a mixin of ``frontend._Reader``)."""

    # --- names --------------------------------------------------------------------------------
    def name(self, node, frame):
        scope = frame
        while scope is not None:
            if node.id in scope.env:
                value = scope.env[node.id]
                if isinstance(value, _Undefined):
                    self.fail(node, frame, f"`{node.id}` {value.why}",
                              "assign it before the `if` or in every branch")
                return value
            if node.id in scope.locals:
                self.fail(node, frame, f"`{node.id}` is used before it is assigned",
                          "assign it first")
            scope = scope.outer
        found, obj = frame.src.lookup(node.id)
        if not found:
            self.fail(node, frame, f"name `{node.id}` is not defined",
                      "define it at module level or pass it as a parameter")
        return self.python(obj, node, frame)

    def lookup(self, node, frame):
        value = self.value(node, frame)
        return value.obj if isinstance(value, _Py) else None

    def ignored_call(self, node, frame):
        """Whether the expression ``node`` is a call of ``print`` or a ``logging`` function, by
        a dotted name (``print``, ``logging.info``, ``logger.debug``) or on
        ``logging.getLogger(...)``: left out of the gradient."""
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and dotted(
                func.value.func) is not None:  # logging.getLogger(__name__).info(...)
            return self.lookup(func.value.func, frame) is logging.getLogger
        if dotted(func) is None:
            return False
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if root.id not in frame.env and root.id in frame.locals:
            return False
        obj = self.lookup(node.func, frame)
        return obj is print or (obj is not None and _is_logging(obj))

    # --- calls --------------------------------------------------------------------------------
    def call(self, node, frame, statement=False):
        """The value of a call. ``statement``: the call is a whole statement, so a helper may
        return nothing (it is read for its ``assert``s and ``raise``s)."""
        if dotted(node.func) in rules.STOP_GRADIENT_SPELLINGS:
            return self.stopped(node, frame)
        func = self.value(node.func, frame)
        if isinstance(func, _Function):
            return self.inline_nested(func, node, frame, statement)
        if not isinstance(func, _Py) or not callable(func.obj):
            return self.fail(node, frame, "this is not a function", "call functions only")
        obj = func.obj
        if obj is rules.stop_gradient or _framework_stop_gradient(obj):
            return self.stopped(node, frame)
        if getattr(obj, "__name__", None) == "stop_gradient":
            self.fail(node, frame, f"this `stop_gradient` is {_describe(obj)} from module "
                      f"`{getattr(obj, '__module__', '?')}`, not symgrad's",
                      "use `from symgrad import stop_gradient` (or spell it tf.stop_gradient, "
                      "jax.lax.stop_gradient, lax.stop_gradient or K.stop_gradient)")
        if any(obj is b for b in _SEQUENCE_BUILTINS):
            return self.sequence_builtin(obj, node, frame)
        rule = rules.rule_for_callable(obj)
        if rule is not None:
            return self.rule_call(rule, node, frame, obj)
        if isinstance(obj, types.FunctionType) and not hasattr(obj, "__wrapped__"):
            return self.inline(obj, node, frame, statement)
        return self.fail(node, frame, f"symgrad does not know the derivative of "
                         f"`{dotted(node.func) or _describe(obj)}`", _UNREAD_HINTS.get(
                             obj, "use math/numpy functions symgrad knows (docs/language.md) or "
                             "a plain Python helper whose source is available"))

    def rule_call(self, rule, node, frame, obj):
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, frame, f"keyword or `*` arguments to `{dotted(node.func)}` are "
                      "not supported", "pass plain positional arguments")
        args = [self.value(a, frame) for a in node.args]
        for value, arg in zip(args, node.args):
            if isinstance(value, tuple):
                self.fail(arg, frame, f"`{dotted(node.func)}` of a tuple or list is not "
                          "supported",
                          f"pass each number as its own argument: {dotted(node.func)}(a, b)")
        args = [self.number(a, n, frame) for a, n in zip(args, node.args)]
        if len(args) not in rule.nargs:
            counts = (f"{rule.nargs[0]} to {rule.nargs[-1]}" if len(rule.nargs) > 2
                      else " or ".join(map(str, rule.nargs)))
            self.fail(node, frame, f"`{dotted(node.func)}` with {len(args)} arguments is not "
                      "supported", f"pass {counts} number{'' if rule.nargs == (1,) else 's'}")
        if rule.sympy is sympy.Abs and len(args) == 1:
            real = self.complex_abs(args[0], node.args[0], frame)
            if real is not None:
                return real
        for v in args:
            undefined = _surely_undefined(v)
            if isinstance(undefined, functions.ComplexPower) and rule.sympy in (sympy.Max,
                                                                              sympy.Min):
                return self.undefined(node, frame, 1)  # Python's TypeError comparing a complex
            if undefined is not None:  # computed from an undefined value: undefined too
                return undefined
        if rule.compares or rule.build is rules.power and not _constant(
                args[1]):  # their value or derivative (a power's guards) reads the float of
            args = [self.as_computed(a, n, frame)  # each argument: as written, where SymPy's
                    for a, n in zip(args, node.args)]  # form may be another (or a cancellation)
        known = [self.known_constant(a) for a in args]
        if None not in known:  # constants, or names bound to them
            return self.folded(obj, rule.build or rule.sympy, known, node, frame)
        known = [self._with_constants(a) for a in args]
        negative_base = rule.build is rules.power and functions.complex_power(known[0], args[1])
        if negative_base and self.always_complex(*args, node.args[1], frame):
            return self.complex_value(*args, node, frame)  # pow(-4, k) with k = 0.5: complex
        if negative_base:  # pow(-4, y): real where y is whole (math.pow raises elsewhere)
            return RealPower(self._with_constants(args[0]), args[1])
        if rule.sympy in (sympy.Max, sympy.Min):
            args = functions.repeats_kept(args)
        try:
            return self.defined((rule.build or rule.sympy)(*args), node, frame)
        except (TypeError, ValueError) as exc:
            return self.fail(node, frame, f"`{dotted(node.func)}` cannot be applied here "
                             f"({str(exc).rstrip('.')})", "pass real numbers")

    def complex_abs(self, value, arg_node, frame):
        """``abs`` of a value Python may compute as a complex number, which is a real number
        (``realpower.real_abs_of_powers``: ``abs((-4) ** 0.5)`` folded to Python's 2.0 from the
        source as written, ``abs(k * (-0.5) ** e)`` as ``abs(k) * 0.5 ** e``); None for any
        other argument."""
        written = self.written(arg_node, frame, None) if value.has(functions.ComplexPower) \
            else None
        return real_abs_of_powers(value, written)

    def stopped(self, node, frame):
        """``stop_gradient(e)``: ``StopGradient(e)``, element by element for a tuple."""
        if len(node.args) != 1 or node.keywords:
            self.fail(node, frame, "stop_gradient takes exactly one argument", "pass one value")
        value = self.value(node.args[0], frame)
        if isinstance(value, tuple):
            return tuple(StopGradient(self.number(v, node, frame)) for v in value)
        stopped = StopGradient(self.number(value, node, frame))
        written = self.written(node.args[0], frame, None)  # the primal's float, for its line
        if isinstance(stopped, StopGradient) and written is not None:
            self.remember(stopped, StopGradient(written))
        elif stopped.is_Number and written is not None:  # SymPy's form cancelled to a number
            stopped = self.cancelled(stopped, StopGradient(written))  # (t + 1.0 - t): the
        self.call_results[node] = stopped  # primal's float, which may be another (1 - 1e-16)
        return stopped

    # --- helpers ------------------------------------------------------------------------------
    def inline(self, helper, node, frame, statement=False):
        """A module-level (or closure) Python function: its own source read and inlined."""
        if helper in self.inlining:
            self.fail(node, frame, f"recursion (`{helper.__name__}` calls itself) is not supported",
                      "rewrite it as a `for` loop with a count known at build time")
        src = read_source(helper)
        hnode = src.node
        if getattr(hnode, "decorator_list", None):
            self.fail(node, frame, f"the helper `{helper.__name__}` has a decorator",
                      "call an undecorated function")
        positional = hnode.args.posonlyargs + hnode.args.args
        defaults = {a.arg: self.python(v, node, frame) for a, v in zip(
            positional[len(positional) - len(helper.__defaults__ or ()):],
            helper.__defaults__ or ())}
        defaults.update({k: self.python(v, node, frame)
                         for k, v in (helper.__kwdefaults__ or {}).items()})
        env, written = self.arguments(helper.__name__, hnode, defaults, node, frame)
        return self.inlined_body(helper, _Frame(src, env, False, written=written), node, frame,
                                 statement)

    def function_value(self, node, frame):
        """A nested ``def`` or a ``lambda``: a ``_Function``, defaults evaluated here and now."""
        args = node.args
        positional = args.posonlyargs + args.args
        defaults = {a.arg: self.value(d, frame) for a, d in zip(
            positional[len(positional) - len(args.defaults):], args.defaults)}
        defaults.update({a.arg: self.value(d, frame) for a, d in zip(args.kwonlyargs,
                                                                     args.kw_defaults)
                         if d is not None})
        return _Function(node, frame, defaults)

    def inline_nested(self, function, node, frame, statement=False):
        """A nested ``def`` or ``lambda``, reading the enclosing function's names as they are
        at this call (a closure sees the current value of an outer variable): the enclosing
        function's frame is found on the chain of enclosing frames, else among the frames that
        are calling (a nested function passed to a helper), else it has returned and its names
        keep their last values."""
        fnode = function.node
        activation = function.frame.activation
        outer = next((f.enclosing(activation) for f in [frame, *reversed(self.callers)]
                      if f.enclosing(activation) is not None), function.frame)
        env, written = self.arguments(function.__qualname__, fnode, function.defaults, node, frame)
        return self.inlined_body(fnode, _Frame(outer.src, env, False, node=fnode, outer=outer,
                                               written=written), node, frame, statement)

    def arguments(self, name, fnode, defaults, node, frame):
        """The environment of a call of ``fnode``: arguments bound by position, keyword and
        default (``defaults``: parameter name → value), as Python binds them; with the form
        each argument is computed in at the call (parameter name → ``rules.Written`` form, where
        it is not the value itself: ``_Frame.written``)."""
        args = fnode.args
        if args.vararg or args.kwarg:
            self.fail(node, frame, f"the helper `{name}` takes `*args` or `**kwargs`",
                      "give it plain parameters")
        positional = [a.arg for a in args.posonlyargs + args.args]
        keyword = [a.arg for a in args.args + args.kwonlyargs]
        params = positional + [a.arg for a in args.kwonlyargs]
        env, written = {}, {}
        if len(node.args) > len(positional):
            self.fail(node, frame, f"too many arguments to `{name}`", "check the call")
        for param, arg in zip(positional, node.args):
            if isinstance(arg, ast.Starred):
                self.reject(arg, frame)
            env[param] = self.value(arg, frame)
            written[param] = self.written(arg, frame, None)
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in keyword or kw.arg in env:
                what = ("`**` arguments" if kw.arg is None else
                        f"the keyword argument `{kw.arg}`" + (" (given twice)" if kw.arg in env
                                                              else " (not a parameter)"))
                self.fail(kw, frame, f"{what} in the call of `{name}`",
                          f"`{name}` takes {', '.join(params)}")
            env[kw.arg] = self.value(kw.value, frame)
            written[kw.arg] = self.written(kw.value, frame, None)
        for param, default in defaults.items():
            env.setdefault(param, default)
        missing = [p for p in params if p not in env]
        if missing:
            self.fail(node, frame, f"`{name}` is missing arguments {missing}", "check the call")
        return env, {p: w for p, w in written.items() if isinstance(env[p], sympy.Expr) and
                     w is not None and w != env[p]}

    def inlined_body(self, key, hframe, node, frame, statement):
        """Read the body of a helper (``key``: the function, or the node of a nested one) called
        at ``node`` in ``frame``; its value, or None / ``RAISES`` for a statement call."""
        hnode = hframe.node
        name = getattr(hnode, "name", "<lambda>")
        if key in self.inlining:
            self.fail(node, frame, f"recursion (`{name}` calls itself) is not supported",
                      "rewrite it as a `for` loop with a count known at build time")
        body = hnode.body if isinstance(hnode, ast.FunctionDef) else [
            ast.copy_location(ast.Return(value=hnode.body), hnode.body)]
        self.inlining.append(key)
        self.callers.append(frame)
        try:
            result = self.block(body, hframe)
        finally:
            self.inlining.pop()
            self.callers.pop()
        if result is None and not statement:
            self.fail(hnode, hframe, f"`{name}` does not return a value",
                      "end it with `return <expression>`")
        if isinstance(result, sympy.Expr):  # the form its `return` computed, as of now (a
            found = self.form_of(result)  # later call may return this value in another form)
            self.call_results[node] = result if found is None else found
        return result


_SEQUENCE_BUILTINS = (range, zip, enumerate, reversed, tuple, list, len, sum)
_TRUNCATION = ("it truncates toward 0 (derivative 0 where it is defined): write math.floor(x) "
               "where x >= 0, math.ceil(x) where x <= 0, or round(x)")
_UNREAD_HINTS = {int: _TRUNCATION, math.trunc: _TRUNCATION}
"""Builtins read at build time: each gives a tuple (a number for ``len`` and ``sum``)."""


def _framework_stop_gradient(obj):
    """The stop_gradient of JAX, TensorFlow or Keras, however it was imported."""
    module = getattr(obj, "__module__", None) or ""
    return getattr(obj, "__name__", None) == "stop_gradient" and module.split(".")[0] in (
        "jax", "tensorflow", "keras", "tf_keras")


def _describe(obj):
    return getattr(obj, "__qualname__", None) or type(obj).__name__


def _constant(value):
    """Whether a SymPy value is a constant the primal computes in Python (no symbol, no stop)."""
    return isinstance(value, sympy.Expr) and value.is_number and not value.has(
        StopGradient, functions.Undefined)


def _surely_undefined(value):
    """The ``Undefined`` that ``value`` always computes (outside any branch or condition), or
    None: ``x + Undefined`` is undefined, ``u if u or math.atanh(1.0) else 4.0`` is not."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, functions.Undefined):
            return node
        branch = isinstance(node, (sympy.Piecewise, functions.Branch)) or (
            isinstance(node, sympy.logic.boolalg.Boolean) and not isinstance(node, sympy.Expr))
        if not branch:
            stack.extend(node.args)
    return None

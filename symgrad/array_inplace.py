"""In-place updates of arrays (``y += e``), for the array frontend (a mixin of ``ArrayReader``).

symgrad reads ``y += e`` as ``y = y + e``: a new value for the name ``y``. On a NumPy array the
primal updates the array itself, so every other name that refers to it, or to a view of it, sees
the new values too: after ``y = x`` (or ``y = x[1:]``, ``x.T``, ``x.reshape(...)``,
``stop_gradient(x)``, a helper's parameter bound to ``x``), ``y += 1.0`` changes ``x``. Read as a
new value, ``np.sum(x * y)`` there had the gradient ``2x + 1`` where the primal computes
``sum((x + 1) ** 2)`` (gradient ``2(x + 1)``): a wrong number. So each name's value carries the
arrays it may share memory with (``_Frame.objects``: name → a set of tokens, one token per array
a parameter, a constant or an operation made), and an in-place update of an array another name
still holds (or a module constant, which the primal would change for every later call) is
refused. An update whose other operand broadcasts to a larger shape is refused too: NumPy raises
there (``non-broadcastable output operand``).
"""
import ast
import types

import numpy as np
import sympy

from . import rules
from .array_indexing import ARANGE
from .errors import SymgradError
from .fence import dotted, walk_same_function
from .resolve import _Function, _Py
from .shapes import is_dim
from .source import read_source

_VIEW_METHODS = frozenset({"reshape", "transpose", "squeeze", "swapaxes", "ravel", "view",
                           "diagonal"})
"""Array methods whose result may be a view of the array (shares its memory)."""
_VIEW_FUNCTIONS = frozenset({"reshape", "transpose", "squeeze", "expand_dims", "broadcast_to",
                             "asarray", "asanyarray", "flip", "fliplr", "flipud", "ravel",
                             "atleast_1d", "atleast_2d", "atleast_3d", "moveaxis", "swapaxes",
                             "diagonal", "rollaxis", "stop_gradient"})
"""Functions (NumPy's, ``stop_gradient``: the identity) whose result may be their argument or a
view of it."""
_ATTRIBUTE_VIEWS = frozenset({"T", "real", "mT"})
SHARED = "a module constant"  # the token of a constant array: the module holds it


class ListToken:
    """The token of a list (``[x, y]``, a list comprehension, ``list(...)``): ``+=`` extends it
    in place, where a tuple's ``+=`` makes a new tuple."""


class InPlaceReader:
    """The in-place half of ``array_frontend.ArrayReader`` (see the module docstring)."""

    # --- which arrays a name may share ---------------------------------------------------------
    def objects_of_name(self, name, frame):
        scope = frame
        while scope is not None and name not in scope.env:
            scope = scope.outer
        if scope is None:  # a global or closure: a constant array is the module's
            found, value = frame.src.lookup(name)
            if found and isinstance(value, list):
                return frozenset({SHARED, ListToken()})
            return frozenset({SHARED}) if found and isinstance(value, np.ndarray) else frozenset()
        if name not in scope.objects:  # a parameter, or a name bound where no source is known
            scope.objects[name] = frozenset({SHARED}) if self._constant_value(
                scope.env[name]) or (scope.primary and name in self.array_defaults) else (
                frozenset({object()}))
        return scope.objects[name]

    def _constant_value(self, value):
        """Whether ``value`` is the symbol of a constant array (a module's, a default's)."""
        return getattr(value, "name", None) in self.constants

    def objects_of(self, node, frame):
        """The arrays the value of expression ``node`` may share memory with."""
        if isinstance(node, ast.Name):
            return self.objects_of_name(node.id, frame)
        if isinstance(node, ast.Subscript):
            if self._advanced(node.slice, frame):  # an index array: NumPy copies
                return frozenset({object()})
            return self.objects_of(node.value, frame)
        if isinstance(node, ast.Attribute):
            if node.attr in _ATTRIBUTE_VIEWS:
                return self.objects_of(node.value, frame)
            return frozenset({object()})
        if isinstance(node, ast.IfExp):
            return self.objects_of(node.body, frame) | self.objects_of(node.orelse, frame)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = frozenset().union(*(self.objects_of(e, frame) for e in node.elts))
            return items | {ListToken()} if isinstance(node, ast.List) else items
        if isinstance(node, ast.ListComp):
            return frozenset({ListToken()})
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            sides = self.objects_of(node.left, frame) | self.objects_of(node.right, frame)
            if any(isinstance(t, ListToken) for t in sides):  # a new list of those items
                return frozenset(t for t in sides if not isinstance(t, ListToken)) | {
                    ListToken()}
        if isinstance(node, ast.Starred):
            return self.objects_of(node.value, frame)
        if isinstance(node, ast.Call):
            return self._call_objects(node, frame)
        return frozenset({object()})  # arithmetic, a number, a comparison: a new array

    def _advanced(self, index, frame):
        """Whether a subscript's index holds an index array or a mask (``E[IDX]``,
        ``x[np.array([0, 1])]``, ``L[np.triu_indices(n)]``), which makes a copy; slices, ints,
        ``None`` and ``...`` alone make a view."""
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        for item in items:
            if isinstance(item, (ast.List, ast.Call, ast.Compare)):
                return True
            if isinstance(item, ast.Name):
                try:
                    value = self.value(item, frame)
                except SyntaxError:
                    return False
                if isinstance(value, tuple) or getattr(value, "name", None) in self.constants \
                        or self.array_mode and isinstance(value, sympy.Basic) and bool(
                            self.dims.of(value)):
                    return True
        return False

    def _call_objects(self, node, frame):
        arguments = [*node.args, *(k.value for k in node.keywords)]
        spelled = dotted(node.func) or ""
        callee = self._callee(node.func, frame)
        if callee is None and isinstance(node.func, ast.Attribute):  # a method of an array
            if node.func.attr in _VIEW_METHODS:
                return self.objects_of(node.func.value, frame)
            return frozenset({object()})
        fnode = callee.node if isinstance(callee, _Function) else _helper_node(callee)
        if fnode is not None and _returns_new(fnode):  # a helper returning new arrays only
            return frozenset({object()})
        if callee is list:  # a new list of the same items
            items = frozenset().union(*(self.objects_of(a, frame) for a in arguments))
            return frozenset(t for t in items if not isinstance(t, ListToken)) | {ListToken()}
        builtin = getattr(callee, "__module__", None) == "builtins" and getattr(
            callee, "__name__", None) not in _NEW_BUILTINS  # zip, max(a, b): their arguments
        if fnode is not None or builtin or callee is None:  # may return any argument, or a
            return frozenset().union(*(self.objects_of(a, frame) for a in arguments))  # view
        name = getattr(callee, "__name__", None) or spelled.rsplit(".", 1)[-1]
        if (name in _VIEW_FUNCTIONS or spelled in rules.STOP_GRADIENT_SPELLINGS) and node.args:
            return self.objects_of(node.args[0], frame)
        return frozenset({object()})

    def _callee(self, func, frame):
        """The function ``func`` names (a ``_Function`` for a nested ``def``), or None where it
        is not one the reader resolves (a method of an array)."""
        if isinstance(func, ast.Attribute) and not isinstance(self._root(func, frame), _Py):
            return None
        try:
            found = self.value(func, frame)
        except SyntaxError:
            return None
        if isinstance(found, _Py):
            return found.obj
        return found if isinstance(found, _Function) else None

    def _root(self, func, frame):
        while isinstance(func, ast.Attribute):
            func = func.value
        if not isinstance(func, ast.Name):
            return None
        try:
            return self.value(func, frame)
        except SyntaxError:
            return None

    # --- bindings --------------------------------------------------------------------------
    def assign(self, target, value, node, frame, source=False):
        result = super().assign(target, value, node, frame, source)
        if isinstance(target, ast.Name):
            if source is False:
                source = getattr(node, "value", None)
            if source is None:  # an item of a tuple not written out, a loop's element
                whole = node.iter if isinstance(node, ast.For) else getattr(node, "value", None)
                objects = frozenset({object()}) if whole is None else self.objects_of(
                    whole, frame)
            else:
                objects = self.objects_of(source, frame)
            frame.objects[target.id] = objects
        return result

    def merge(self, cond, sides, node, frame):
        super().merge(cond, sides, node, frame)
        kept = [side for side in sides if side is not None]
        for name in dict.fromkeys(n for side in kept for n in side.env):
            if name in frame.env:
                frame.objects[name] = frozenset().union(*(
                    self.objects_of_name(name, side) for side in kept if name in side.env))

    def inlined_body(self, key, hframe, node, frame, statement):
        if isinstance(node, ast.Call):
            params = self._parameters(hframe.node)
            for param, arg in zip(params, node.args):
                hframe.objects[param] = self.objects_of(arg, frame)
            for keyword in node.keywords:
                if keyword.arg is not None:
                    hframe.objects[keyword.arg] = self.objects_of(keyword.value, frame)
            for param, default in _defaults(key).items():  # a list default is the function's,
                if param not in hframe.objects and isinstance(default, list):  # kept between
                    hframe.objects[param] = frozenset({SHARED, ListToken()})  # calls
        return super().inlined_body(key, hframe, node, frame, statement)

    @staticmethod
    def _parameters(fnode):
        args = fnode.args
        return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]

    # --- the update ------------------------------------------------------------------------
    def statement(self, stmt, frame):
        if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and
                stmt.target.id in self._bound(frame)):
            return super().statement(stmt, frame)
        name = stmt.target.id
        current = self.value(ast.copy_location(ast.Name(name, ast.Load()), stmt), frame)
        if isinstance(current, tuple):  # a list is extended in place, a tuple made anew
            self._list_update(name, stmt, frame)
            return super().statement(stmt, frame)
        if not (self.array_mode and self.is_array(current, stmt, frame)):  # a number: Python
            return super().statement(stmt, frame)  # makes a new one
        shape = self.shape_at(current, stmt, frame)
        if self._integer_array(current) and (isinstance(stmt.op, ast.Div) or not (
                self._integral(self.value(stmt.value, frame)))):
            self.fail(stmt, frame, f"`{name} {_SYMBOL[type(stmt.op)]}= ...` updates the int "
                      f"array `{name}` in place with a float result, which NumPy cannot cast "
                      "back into it (UFuncTypeError)", f"write `{name} = {name} "
                      f"{_SYMBOL[type(stmt.op)]} ...` (a new float array)")
        sharer = self._sharer(name, frame, stmt=stmt)
        if sharer is not None:
            self.fail(stmt, frame, f"`{name} {_SYMBOL[type(stmt.op)]}= ...` updates the array "
                      f"`{name}` in place, and {sharer} refers to the same array (or a view of "
                      "it), which the update changes too: symgrad reads the update as a new "
                      f"value of `{name}` only", f"write `{name} = {name} "
                      f"{_SYMBOL[type(stmt.op)]} ...` (a new array), or bind `{name}` to a "
                      "copy first (`.copy()`)")
        objects = self.objects_of_name(name, frame)
        result = super().statement(stmt, frame)
        updated = self.shape_at(frame.env[name], stmt, frame)
        shape = self.shape_at(current, stmt, frame)  # (sizes the update found equal: one)
        if tuple(updated) != tuple(shape):
            self.fail(stmt, frame, f"`{name} {_SYMBOL[type(stmt.op)]}= ...` updates `{name}` in "
                      f"place, and the result has shape {self._show(updated)}, not `{name}`'s "
                      f"{self._show(shape)}: NumPy raises (non-broadcastable output operand)",
                      f"write `{name} = {name} {_SYMBOL[type(stmt.op)]} ...` for a new array")
        frame.objects[name] = objects
        return result

    def _integer_array(self, value):
        """Whether ``value`` is an array of ints (a constant one, ``np.arange`` of sizes, an
        index the code computes)."""
        if not isinstance(value, sympy.Symbol):
            return False
        known = self.constant_indices(value)
        if known is not None:
            return known.dtype.kind in "iub"
        if value in self.integer_values:
            return True
        made = next((e for e, s in self.bound_nodes.items() if s == value), None)
        return isinstance(made, ARANGE.node) and all(p.is_integer for p in made.params)

    def _integral(self, value):
        """Whether ``value`` (an operand of an update) is an int or an array of ints."""
        if isinstance(value, sympy.Expr) and value.is_Integer:
            return True
        if isinstance(value, sympy.Expr) and value.free_symbols and value.is_integer and all(
                is_dim(d) for d in value.free_symbols):
            return True  # a size: len(x) - 1
        return self._integer_array(value)

    def _list_update(self, name, stmt, frame):
        """``a += [y]`` (or ``a *= 2``) of a list extends the list itself: refused where another
        name (``b = a``, a caller's list passed to a helper, a list holding it) sees it."""
        mine = {t for t in self.objects_of_name(name, frame) if isinstance(t, ListToken) or
                t == SHARED}
        sharer = self._sharer(name, frame, mine, stmt) if mine else None
        if sharer is not None:
            symbol = _SYMBOL[type(stmt.op)]
            self.fail(stmt, frame, f"`{name} {symbol}= ...` extends the list `{name}` in place, "
                      f"and {sharer} refers to the same list, which the update changes too: "
                      f"symgrad reads the update as a new value of `{name}` only",
                      f"write `{name} = {name} {symbol} ...` (a new list), or use tuples")

    def _show(self, shape):
        from .shapes import show
        return show(tuple(shape), self.dims.labels)

    @staticmethod
    def _bound(frame):
        scope, names = frame, set()
        while scope is not None:
            names |= set(scope.env)
            scope = scope.outer
        return names

    def _sharer(self, name, frame, mine=None, stmt=None):
        """A description of another holder of the array ``name`` holds in ``frame`` (of any of
        the tokens ``mine``): a name of this function read after the update ``stmt`` (one read
        no more sees no change), of a caller or of an enclosing function, or a module constant
        (which the update changes for every later call); None."""
        mine = self.objects_of_name(name, frame) if mine is None else mine
        if SHARED in mine:
            return "a module constant (or a parameter's default, kept between calls)"
        seen = set()
        for start in (frame, *reversed(self.callers)):
            scope = start
            while scope is not None and id(scope) not in seen:
                seen.add(id(scope))
                for other, objects in list(scope.objects.items()):
                    if (scope is frame and other == name) or other not in scope.env or (
                            scope is frame and not _read_after(other, stmt, frame.node)):
                        continue
                    if objects & mine:
                        where = "" if start is frame else (
                            f" of the caller `{getattr(scope.node, 'name', '<lambda>')}`")
                        return f"`{other}`{where}"
                scope = scope.outer
        return None


def _defaults(function):
    """A module-level helper's parameter defaults, by name ({} for a nested one)."""
    if not isinstance(function, types.FunctionType):
        return {}
    code = function.__code__
    positional = code.co_varnames[:code.co_argcount]
    given = function.__defaults__ or ()
    found = dict(zip(positional[len(positional) - len(given):], given))
    found.update(function.__kwdefaults__ or {})
    return found


def _read_after(name, stmt, fnode):
    """Whether ``name`` may be read after ``stmt`` runs in the function ``fnode``: a read later
    in the source, anywhere in a loop around ``stmt``, or in a nested function (which may be
    called later)."""
    at = (stmt.lineno, stmt.col_offset)
    around = [n for n in ast.walk(fnode) if n is not fnode and (
        isinstance(n, (ast.FunctionDef, ast.Lambda)) or isinstance(n, ast.For) and any(
            inner is stmt for inner in ast.walk(n)))]
    inside = {id(inner) for n in around for inner in ast.walk(n)}
    for node in ast.walk(fnode):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) \
                and ((node.lineno, node.col_offset) > at or id(node) in inside):
            return True
    return False


_NEW_BUILTINS = frozenset({"abs", "len", "float", "int", "sum", "round", "pow", "divmod"})
"""Builtins whose result is a new value (``zip``, ``max(a, b)``, ``tuple`` hand back arguments)."""


def _helper_node(callee):
    """The ``def`` node of a plain Python helper (not NumPy's, SciPy's, JAX's or symgrad's
    own functions), or None."""
    if not isinstance(callee, types.FunctionType) or callee is rules.stop_gradient or (
            getattr(callee, "__module__", None) or "").split(".")[0] in (
                "numpy", "scipy", "jax", "symgrad"):
        return None
    try:
        return read_source(callee).node
    except SymgradError:
        return None


def _returns_new(fnode):
    """Whether every value a helper returns is an array it made (arithmetic, a NumPy call that
    copies, a name bound only to those), never a parameter or a view of one."""
    if isinstance(fnode, ast.Lambda):
        return _new(fnode.body, fnode, 0)
    found = [r.value for r in walk_same_function(fnode) if isinstance(r, ast.Return)]
    return bool(found) and all(v is not None and _new(v, fnode, 0) for v in found)


def _new(expr, fnode, depth):
    if isinstance(expr, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant, ast.BoolOp)):
        return True
    if isinstance(expr, (ast.Tuple, ast.List)):
        return all(_new(e, fnode, depth) for e in expr.elts)
    if isinstance(expr, ast.IfExp):
        return _new(expr.body, fnode, depth) and _new(expr.orelse, fnode, depth)
    if isinstance(expr, ast.Call):
        spelled = dotted(expr.func) or ""
        root, _, last = spelled.partition(".")
        return root in ("np", "numpy", "jnp", "math", "scipy", "special") and bool(last) and (
            last.rsplit(".", 1)[-1] not in _VIEW_FUNCTIONS)
    if isinstance(expr, ast.Name) and depth < 4:
        args = fnode.args
        if expr.id in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}:
            return False
        bound = []
        for stmt in walk_same_function(fnode):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [
                stmt.target] if isinstance(stmt, ast.For) else [
                item.optional_vars for item in stmt.items] if isinstance(stmt, ast.With) else []
            for target in targets:
                if isinstance(stmt, ast.Assign) and isinstance(target, ast.Name):
                    if target.id == expr.id:
                        bound.append(stmt.value)
                elif target is not None and expr.id in {
                        n.id for n in ast.walk(target) if isinstance(n, ast.Name)}:
                    return False  # a loop variable, an item unpacked
        return bool(bound) and all(_new(v, fnode, depth + 1) for v in bound)
    return False


_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}

"""Python source → ``Program``, arrays included: the frontend's reader, widened to NumPy arrays.

``to_program(f, stop_gradients, shapes)`` reads ``f`` with ``frontend``'s reader, extended here for
what only arrays have: ``@``, attributes of arrays (``.T``, ``.shape``), constant arrays, and the
checks of NumPy's rules (broadcasting, the truth value of an array). Each array value has a static
rank and symbolic sizes (``shapes.Shapes``); an array node is bound to an assignment of its own.
The other stages of the read are mixins of ``ArrayReader``, each in its own module: the
parameters' shapes in and the sizes named out (``array_sizes``), subscripts (``array_index``),
calls (the array table ``arrays.ARRAY_RULES``, methods such as ``x.sum()``, elementwise functions:
``array_calls``; their arguments ``array_arguments``; forms ``array_forms``), and conditions and
returned values read as the source computes them (``array_written``), and the in-place updates
``y += e`` of an array another name shares, refused (``array_inplace``).

Without ``shapes`` the function is read as scalar code, exactly as ``frontend.to_program`` does;
the first array construct raises ``NeedsShapes``, and the caller builds at call time instead, once
per pattern of ranks (and size-1 axes) of the arguments.
"""
import ast

import numpy as np
import sympy

from . import argument_refusals, arrays, dependencies
from .array_calls import CallReader
from .array_forms import FormReader
from .array_index import IndexReader
from .array_inplace import InPlaceReader
from .array_linalg import batched_matmul
from .array_sizes import SizeReader, _first_use
from .array_written import WrittenReader
from .expressions import of_a_tuple
from .fence import dotted
from .frontend import _Reader
from .functions import StopGradient, Value
from .program import Assignment, fresh_name, real_symbol
from .resolve import _Py
from .shapes import Shapes, ShapeError, is_dim, show, size
from .size_denominators import python_division

_ATTRIBUTES = ("T", "shape", "size", "ndim")
_IN_PLACE = {"sort": "np.sort(y)", "fill": "np.full_like(y, value)", "partition": "np.partition(y, k)",
             "put": "np.where(...)", "resize": "np.resize(y, shape)"}  # ndarray methods that write
ZERO = sympy.Integer(0)
TRUTH_HINT = ("use np.where(condition, a, b) for a choice per element, or reduce to one number "
              "first (np.sum(x) > 0)")


class NeedsShapes(Exception):
    """Internal: the function uses arrays, and no ``shapes=`` says their ranks (build at call)."""


def to_program(function, stop_gradients=(), nodes=(), shapes=None):
    """Read a Python function, scalar or array code, into a ``Program``.

    Args:
        function: a plain Python function.
        stop_gradients: names of parameters or intermediate variables to treat as constants.
        nodes: names of intermediate variables that get an assignment of their own (``wrt`` may
            name them), as ``frontend.to_program``.
        shapes: None (scalar code; ``NeedsShapes`` at the first array construct), or a dict
            parameter name → tuple of dimensions: a name (``"n"``), an int, or None (a call-time
            size other than 1). Parameters left out are scalars.

    Returns:
        A ``Program``; its ``arrays`` is None unless the function uses arrays.

    Raises:
        NeedsShapes: ``shapes`` is None and the function uses arrays.
        UnsupportedSyntaxError: a construct outside the language, at its file, line and column.
        SourceUnavailableError: the source of the function or of a helper cannot be read.
        OptionError: ``shapes`` names a parameter ``function`` does not have, or is malformed.
    """
    return ArrayReader(frozenset(stop_gradients), frozenset(nodes), shapes).read(function)


class ArrayReader(InPlaceReader, WrittenReader, SizeReader, FormReader, CallReader, IndexReader,
                  _Reader):
    """``frontend``'s reader, with arrays (see the module docstring)."""

    def __init__(self, stop_names, nodes=frozenset(), shapes=None):
        super().__init__(stop_names, nodes)
        self.shape_option = shapes
        self.dims = Shapes()
        self.constants = {}  # name -> array
        self.constant_symbols = {}  # id(array) -> (array, symbol)
        self.dim_names = {}  # provisional dimension -> the name the code gives it
        self.provisional = []
        self.used_arrays = False
        self.bound_nodes = {}  # array node -> the symbol it is bound to
        self.integer_values = set()  # symbols bound to an index computed by the code (argmax)
        self.writing_condition = False  # reading a condition's operands as the source computes them
        self.returned_nodes = set()  # ids of the value nodes of `return` statements
        self.array_defaults = {}  # parameter -> the constant holding its array default
        self.node_symbols = set()  # the symbols of array nodes (``anonymous``)
        self.zero_arrays = set()  # the symbols of arrays of zeros (``_of_nothing``)
        self.node_results = {}  # a Call/Subscript/Attribute AST node -> its array node's symbol
        self.index_constants = {}  # a constant mask's or index node's name -> constants

    # --- the function -----------------------------------------------------------------------
    def read(self, function):
        if self.shape_option is not None:
            self._parameter_shapes(function)
        program = super().read(function)
        if self.shape_option is None:
            return program
        if not self.used_arrays and not any(self.dims.table.values()):
            return program
        return self._finish(program, _first_use(function))

    def array_default(self, name, value, node, frame):
        """A constant array default (``C=np.ones(3)``, a mask or weights held constant unless
        ``wrt`` names it): the parameter is an array; the generated code's default is that
        constant, named ``<name>_default``. Without shapes: built at the call (NeedsShapes)."""
        if not (isinstance(value, np.ndarray) and value.ndim and value.dtype.kind in "biuf"):
            return False
        self.need_arrays()
        symbol = self.constant_array(value, node, frame, base=f"{name}_default")
        self.array_defaults[name] = symbol.name
        return True

    # --- shapes -------------------------------------------------------------------------------
    @property
    def array_mode(self):
        return self.shape_option is not None

    def need_arrays(self):
        self.used_arrays = True
        if self.shape_option is None:
            raise NeedsShapes()

    def shape_at(self, expr, node, frame):
        try:
            return self.dims.of(expr)
        except ShapeError as exc:
            problem = str(exc)  # refused outside the `except`: no internal chain in the traceback
        return self.fail(node, frame, problem, "check the shapes of the operands")

    def broadcast_at(self, shapes, node, frame):
        """NumPy's broadcast of ``shapes``, refused at ``node`` where they do not broadcast."""
        try:
            return self.dims.broadcast(*shapes)
        except ShapeError as exc:
            problem = str(exc)  # refused outside the `except`: no internal chain in the traceback
        return self.fail(node, frame, problem, "check the shapes of the operands")

    def is_array(self, value, node, frame):
        return self.array_mode and isinstance(value, sympy.Basic) and bool(
            self.shape_at(value, node, frame))

    def anonymous(self, expr, label):
        """Bind ``expr`` (an array node) to a fresh name of its own (the same node read twice,
        ``x[:-1]`` in two places, is one name: nodes have no side effects)."""
        found = self.bound_nodes.get(expr)
        if found is not None:
            return found
        folded = self._of_nothing(expr)
        if folded is not None:
            return folded
        symbol = real_symbol(fresh_name(label, self.names, self.source_names))
        self.bound_nodes[expr] = symbol
        self.node_symbols.add(symbol)
        self.assignments.append(Assignment(symbol, expr))
        self.dims.table[symbol] = self.dims.of(expr)
        if getattr(expr, "rule", None) is arrays.BROADCAST_TO and expr.inputs[0].is_zero:
            self.zero_arrays.add(symbol)
        if getattr(expr, "rule", None) is not None and expr.rule.integer:
            self.integer_values.add(symbol)
        return symbol

    def _of_nothing(self, expr):
        """The constant an array node is when an operand has no element and the value has some
        (its row's ``empty``: a sum over an empty axis is 0, a product 1, a contraction of
        length 0 is 0): a number, or an array of it (``np.broadcast_to``). It does not depend
        on the operands, so nothing is differentiated through it: ``cbrt`` of a sum over an
        empty slice has derivative 0 (through the node, cbrt's inf at 0 times the slice's
        empty adjoint was 0 * inf = nan). None for any other node."""
        rule = getattr(expr, "rule", None)
        if rule is None or rule.empty is None and not rule.linear:
            return None
        shape = self.dims.of(expr)
        if rule.empty is not None and ZERO not in shape and any(
                ZERO in self.dims.of(x) for x in expr.inputs):
            value = sympy.Integer(rule.empty)
        elif rule.linear and any(self._zeros(x) for x in expr.inputs):
            value = ZERO
        else:
            return None
        return self.anonymous(arrays.broadcast_to(value, shape), rule.label) if shape else value

    def _zeros(self, expr):
        """Whether ``expr`` (not a number) is an array of zeros (``np.zeros(n)``, what
        ``_of_nothing`` made), or an expression that is 0 where those are (``2.0 * Z``)."""
        if expr.is_Number or not self.zero_arrays:
            return False
        if expr in self.zero_arrays:
            return True
        found = expr.free_symbols & self.zero_arrays
        if not found:
            return False
        value = expr.xreplace(dict.fromkeys(found, ZERO))  # a number where it is one
        return value.is_Number and value.is_zero

    def node_value(self, expr, label, node, frame):
        """A row's value: an array node gets its own assignment; an expression is returned."""
        self.shape_at(expr, node, frame)
        if isinstance(expr, arrays.ArrayNode):
            return self.anonymous(expr, label)
        return expr

    def shaped(self, expr, shape, node, frame):
        """``expr`` with exactly ``shape``: SymPy may fold ``x - x + 1`` to ``1``, a scalar."""
        if self.shape_at(expr, node, frame) == tuple(shape):
            return expr
        return self.anonymous(arrays.broadcast_to(expr, shape), "broadcast")

    def select(self, cond, a, b, node, frame, forms=(None, None)):
        """``a if cond else b``: with arrays, both sides must have one shape (the value's shape
        would depend on the branch taken, and ``np.where`` would broadcast the smaller one)."""
        if self.array_mode and isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr):
            shape_a, shape_b = self.shape_at(a, node, frame), self.shape_at(b, node, frame)
            if shape_a != shape_b:
                self.fail(node, frame, f"the two branches give values of different shapes "
                          f"{show(shape_a, self.dims.labels)} and "
                          f"{show(shape_b, self.dims.labels)}", "give both branches the "
                          "same shape (np.full(x.shape, c) for a constant), or use np.where")
        return super().select(cond, a, b, node, frame, forms)

    def bind(self, name, value, node, frame, stop=True, written=None):
        if self.array_mode and _size(value) and not value.is_Atom and not (frame.primary and (
                name in self.nodes or stop and name in self.stop_names)):
            frame.written.pop(name, None)  # k = len(x) // 2: the size itself, as `n = len(x)`
            if frame.primary:  # is, so that a slice bound or range() reading `k` sees an int
                self.variables[name] = value if self.depth == 0 else None
            frame.env[name] = value
            return
        before = len(self.assignments)
        super().bind(name, value, node, frame, stop, written)
        if self.array_mode:
            for a in self.assignments[before:]:
                if isinstance(a, Assignment):
                    self.dims.table[a.target] = self.shape_at(a.expr, node, frame)
                    if a.expr in self.zero_arrays:  # Z = np.zeros(n)
                        self.zero_arrays.add(a.target)
                    if isinstance(a.expr, StopGradient) and a.expr.args[0] in self.integer_values:
                        self.integer_values.add(a.target)  # i = stop_gradient(np.argmax(x))
            if isinstance(value, sympy.Symbol) and is_dim(value):
                self.dim_names.setdefault(self.dims.dim(value), name)

    # --- expressions --------------------------------------------------------------------------
    def value(self, node, frame):
        result = self._value(node, frame)
        if isinstance(node, (ast.Call, ast.Subscript, ast.Attribute)) and (
                result in self.node_symbols or _size(result)):  # as written: the node's own
            self.node_results[node] = result  # value, or a size (`X.shape[0]`, an exact int)
        return result

    def _value(self, node, frame):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            operand = self.value(node.operand, frame)
            if self.is_mask(operand):
                return self.logical("~", [operand], node, frame)
            self.number(operand, node, frame)
            return self.fail(node, frame, "the operator `~` is not supported on numbers or "
                             "arrays of numbers", "use `~` on a condition: np.where(~(x > 0), a, "
                             "b)")
        if isinstance(node, ast.Attribute):
            base = self.value(node.value, frame)
            if not isinstance(base, _Py):
                return self.attribute(self.as_computed(base, node.value, frame), node, frame)
            try:
                obj = getattr(base.obj, node.attr)
            except AttributeError:
                return self.fail(node, frame, f"`{dotted(node)}` does not exist",
                                 "check the spelling")
            dependencies.attribute_read(base.obj, node.attr, obj)  # the disk cache, a Watch
            return self.python(obj, node, frame)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                self.fail(node, frame, *argument_refusals.string_key(node, frame))  # p["w"]
            base = self.value(node.value, frame)
            if isinstance(base, tuple):
                return self.item(base, node, frame)
            return self.subscript(self.as_computed(base, node.value, frame), node, frame)
        if isinstance(node, ast.Compare) and self.array_mode:
            return self.comparison(node, frame)
        return super().value(node, frame)

    def python(self, obj, node, frame):
        if isinstance(obj, np.ndarray) and obj.shape != ():
            return self.constant_array(obj, node, frame)
        return super().python(obj, node, frame)

    def constant_array(self, obj, node, frame, base=None):
        """The symbol of a constant array (read from a module or closure, or made by the build:
        ``base`` names it then)."""
        self.need_arrays()
        found = self.constant_symbols.get(id(obj))
        if found is not None and found[0] is obj:
            return found[1]
        if obj.dtype.kind not in "biuf":
            self.fail(node, frame, f"a constant array of dtype {obj.dtype} is not supported",
                      "use float or int arrays")
        if base is None:
            base = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id",
                                                                             "constant")
        symbol = real_symbol(fresh_name(base, self.names))
        self.constants[symbol.name] = np.array(obj)
        self.constant_symbols[id(obj)] = (obj, symbol)
        self.dims.table[symbol] = tuple(sympy.Integer(k) for k in obj.shape)
        return symbol

    def _decided(self, cond, node, frame):
        """A comparison of arrays SymPy decides, ``z[1:] > z[:-1]`` of an array of zeros (its
        two slices are one node, and ``a > a`` is False), as NumPy's array of that truth value:
        ``Ne(Value(t), 0)`` of ``t``, 1 or 0 broadcast to the operands' shape (the folded ``False``
        made ``np.where(z[1:] > z[:-1], 1.0, 2.0)`` the number 2.0). ``cond`` of numbers as it is."""
        operands = [self.number(self.value(n, frame), node, frame)
                    for n in (node.left, *node.comparators)]
        shape = self.broadcast_at([self.shape_at(v, node, frame) for v in operands], node, frame)
        if not shape:
            return cond
        truth = self.anonymous(arrays.broadcast_to(sympy.Integer(cond is sympy.true), shape),
                               "decided")
        return sympy.Ne(Value(truth), 0)

    def attribute(self, base, node, frame):
        """``x.T``, ``x.shape``, ``x.size``, ``x.ndim`` of an array value."""
        if isinstance(base, tuple):
            return self.fail(node, frame, *of_a_tuple(f"`.{node.attr}`"))
        if (isinstance(base, sympy.Expr) and not self.array_mode and hasattr(np.ndarray, node.attr)
                and not hasattr(float, node.attr)):
            self.need_arrays()  # y.sort, x.flat (not x.real): read again with the call's arrays
        if not isinstance(base, sympy.Expr) or (node.attr not in _ATTRIBUTES and not (
                self.array_mode and self.dims.of(base))):
            return self.fail(node, frame, f"attribute `.{node.attr}` of a number is not "
                             "supported", "use math functions on the value")
        self.need_arrays()
        shape = self.shape_at(base, node, frame)
        if node.attr == "T":
            perm = tuple(reversed(range(len(shape))))
            if len(shape) < 2:
                return base
            return self.node_value(arrays.transpose(base, perm), "transposed", node, frame)
        if node.attr == "shape":
            return tuple(shape)
        if node.attr == "size":
            return size(shape)
        if node.attr == "ndim":
            return sympy.Integer(len(shape))
        if node.attr in _IN_PLACE:
            return self.fail(node, frame, f"`.{node.attr}()` changes the array in place, which "
                             "symgrad does not read", f"assign a new array: y = {_IN_PLACE[node.attr]}")
        return self.fail(node, frame, f"attribute `.{node.attr}` of an array is not supported",
                         "use .T, .shape, .size, .ndim or a method symgrad knows (docs/arrays.md)")

    def comparison(self, node, frame):
        """A comparison as an elementwise condition (its truth value is checked where used)."""
        cond = super().condition(node, frame)
        if cond is sympy.true or cond is sympy.false:
            cond = self._decided(cond, node, frame)
        if len(node.ops) > 1 and self.is_array(cond, node, frame):
            self.fail(node, frame, "a chained comparison of arrays asks for the truth value of "
                      "an array", "compare once per condition and combine them: "
                      "np.where((a < x) & (x < b), ...)")
        return cond

    def condition(self, node, frame):
        writing, self.writing_condition = self.writing_condition, self.array_mode
        try:
            cond = super().condition(node, frame)
        finally:
            self.writing_condition = writing
        if self.is_array(cond, node, frame):
            self.fail(node, frame, "the truth value of an array is ambiguous (`if`, `while`, "
                      "`and`, `or`, `not` need one number)", TRUTH_HINT)
        return cond

    def size_now(self, value):
        """``value`` with the sizes unified since it was computed put in: ``k = len(X) // 2``
        read before ``C * X`` made ``len(X)`` 4 is 2 (SymPy evaluates ``floor``, ``Mod``, ``Min``
        of numbers), so that a check for an int known when the gradient is built sees it."""
        return self.dims.dim(value) if _size(value) else value

    def integer(self, node, frame):
        value = self.size_now(self.value(node, frame))
        if isinstance(value, sympy.Integer):
            return int(value)
        if isinstance(value, sympy.Expr) and not value.is_Integer and value.is_integer and \
                any(is_dim(s) for s in value.free_symbols):
            return self.fail(node, frame, "this is an array's size, known only when the "
                             "function is called: a Python loop (or a count) over the elements "
                             "is not supported", "vectorise: use whole-array operations "
                             "(np.sum, slices, np.where) instead of a loop")
        return super().integer(node, frame)

    def binary(self, op, a, b, node, frame):
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and (
                self.is_mask(a) or self.is_mask(b)):
            if isinstance(op, ast.BitXor):
                return self.fail(node, frame, "`^` of conditions is not supported",
                                 "combine them with & | ~: (a & ~b) | (~a & b)")
            return self.logical("&" if isinstance(op, ast.BitAnd) else "|", [a, b], node, frame)
        check = python_division(op, a, b, self.path, getattr(node, "left", None)) \
            if self.array_mode else None
        if check is not None and check not in self.checks:  # 2.0 / (len(x) - 3) raises at 3
            self.checks.add(check)
            self.assignments.append(check)
        if isinstance(op, (ast.FloorDiv, ast.Mod)) and all(_size_expression(v) for v in (a, b)) \
                and not (isinstance(b, sympy.Integer) and b == 0) and (
                    a.free_symbols or b.free_symbols):
            return sympy.floor(a / b) if isinstance(op, ast.FloorDiv) else sympy.Mod(a, b)
        if isinstance(op, ast.MatMult):
            self.need_arrays()
            x, y = self.number(a, node, frame), self.number(b, node, frame)
            if isinstance(node, ast.BinOp):
                x, y = self.as_computed(x, node.left, frame), self.as_computed(y, node.right, frame)
            shape_x, shape_y = self.shape_at(x, node, frame), self.shape_at(y, node, frame)
            if not shape_x or not shape_y:
                self.fail(node, frame, "`@` of a scalar is not defined", "use * to scale")
            try:
                product = batched_matmul(x, y, shape_x, shape_y)
            except ShapeError as exc:
                self.fail(node, frame, str(exc), "np.broadcast_to the operand first")
            return self.node_value(product, "product", node, frame)
        if not self.array_mode or not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)):
            return super().binary(op, a, b, node, frame)
        shape_a, shape_b = self.shape_at(a, node, frame), self.shape_at(b, node, frame)
        shape = self.broadcast_at((shape_a, shape_b), node, frame)
        result = super().binary(op, a, b, node, frame)
        return self.shaped(result, shape, node, frame) if shape else result

def _size_expression(value):
    """An int, or an integer expression of sizes (``len(x)``, ``n - 1``): ``len(x) // 2`` of
    those is an int, ``floor(n/2)``, not Python's float floor division."""
    return isinstance(value, sympy.Expr) and value.is_integer is True and all(
        is_dim(s) for s in value.free_symbols)


def _size(value):
    """Whether ``value`` is an array size (an integer expression of dimension symbols). The
    symbols are looked at first, once per shared node: SymPy's ``is_integer`` of a large scalar
    expression (``acos`` of one asks ``abs`` of its argument) took seconds."""
    if not isinstance(value, sympy.Expr) or value.is_Number:
        return False
    stack, seen = [value], set()
    while stack:
        node = stack.pop()
        if node.is_Symbol and not is_dim(node):
            return False
        if node not in seen:
            seen.add(node)
            stack.extend(node.args)
    return bool(value.is_integer)

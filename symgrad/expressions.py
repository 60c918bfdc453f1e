"""Expressions of the frontend's reader (a mixin of ``frontend._Reader``): a Python expression
node → its SymPy value, with Python's arithmetic on constants (``fold``), powers of negative
bases and undefined points. Conditions, and the written form of comparison operands, are
``conditions``.
"""
import ast
import operator

import sympy

from . import dependencies, functions, realpower, rules
from .errors import UnsupportedSyntaxError
from .fence import dotted
from .realpower import RealPower
from .resolve import RAISES, _constant, _describe, _Py, _surely_undefined
from .rules import power
from .written import AsWritten, kept_own

_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: power,
    ast.FloorDiv: lambda a, b: rules.Written(sympy.Integer(5), a, b),  # Python's float // and %:
    ast.Mod: lambda a, b: rules.Written(sympy.Integer(6), a, b),  # not floor(a/b), nor SymPy's Mod
}
_PYTHON = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}  # what the primal computes on constants

class Expressions:
    """The expression half of the frontend's reader (a mixin of ``frontend._Reader``)."""

    def value(self, node, frame):
        """The value of an expression node: a SymPy expression or boolean, a tuple, or ``_Py``."""
        if isinstance(node, ast.Constant):
            return self.constant(node.value, node, frame)
        if isinstance(node, ast.Name):
            return self.name(node, frame)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value, frame)
            if isinstance(base, tuple):
                self.fail(node, frame, *of_a_tuple(f"`.{node.attr}`"))
            if not isinstance(base, _Py):
                self.fail(node, frame, f"attribute `.{node.attr}` of a number is not supported",
                          "use math functions on the value")
            try:
                obj = getattr(base.obj, node.attr)
            except AttributeError:
                self.fail(node, frame, f"`{dotted(node)}` does not exist", "check the spelling")
            dependencies.attribute_read(base.obj, node.attr, obj)
            return self.python(obj, node, frame)
        if isinstance(node, ast.BinOp):
            return self.binary(node.op, self.value(node.left, frame),
                               self.value(node.right, frame), node, frame)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return sympy.Not(self.condition(node.operand, frame))
            operand = self.number(self.value(node.operand, frame), node, frame)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return self.condition(node, frame)
        if isinstance(node, ast.IfExp):
            test, (body, orelse) = _without_not(node.test, (node.body, node.orelse))
            cond = self.condition(test, frame)
            if cond is sympy.true or cond is sympy.false:
                taken = body if cond else orelse
                value = self.value(taken, frame)
                self.written_at[node] = self.written(taken, frame, value)
                return self.side_as_computed(value, taken, frame)
            a = self.side_value(body, frame, (cond, True))
            b = self.side_value(orelse, frame, (cond, False))
            written = [self.written(body, frame, a), self.written(orelse, frame, b)]
            a, b = self.side_as_computed(a, body, frame), self.side_as_computed(b, orelse, frame)
            if all(isinstance(w, sympy.Expr) for w in written):  # each side as written
                self.written_at[node] = written[0] if written[0] == written[1] else \
                    sympy.Piecewise((written[0], cond), (written[1], True))
            return self.select(cond, a, b, node, frame)
        if isinstance(node, ast.Call):
            return self.call(node, frame)
        if isinstance(node, (ast.Lambda,)):
            return self.function_value(node, frame)
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            return self.comprehension(node, frame)
        if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load):
            return tuple(self.unpacked(self.value(e, frame), e, frame) for e in node.elts)
        if isinstance(node, ast.Subscript):
            return self.item(self.sequence(self.value(node.value, frame), node, frame), node,
                             frame)
        return self.reject(node, frame)

    def item(self, items, node, frame):
        """``t[i]`` of a tuple or list ``items`` (``node``: the subscript), with the form the
        source computed that item in noted for the node (``written_at``): an operand or a
        returned value reading ``t[0]`` prints the primal's float, not SymPy's form of it."""
        index = self.integer(node.slice, frame)
        if not -len(items) <= index < len(items):
            self.fail(node, frame, f"index {index} is out of range", "check the index")
        found = items[index]
        self.written_at.pop(node, None)
        if isinstance(found, sympy.Expr):
            form = self.form_of(found)
            self.written_at[node] = found if form is None else form
        return found

    def side_value(self, node, frame, side):
        """The value of one side of ``a if c else b``: read as a branch (nothing a helper called
        there computes is evaluated unconditionally; its checks hold on this side only)."""
        self.depth += 1
        self.path.append(side)
        try:
            return self.value(node, frame)
        finally:
            self.depth -= 1
            self.path.pop()

    def side_as_computed(self, value, node, frame):
        """A side of ``a if c else b`` (the one chosen at build time, or either) as the primal
        computes it: ``AsWritten`` where SymPy's form may be another float (``t + 1.0 - 1.0`` is
        ``t`` to SymPy), so that a comparison of the value compares the primal's float."""
        if getattr(self, "array_mode", False):
            return self.as_computed(value, node, frame)
        if not isinstance(value, sympy.Expr) or isinstance(value, (functions.StopGradient,
                                                                   AsWritten)):
            return value
        written = self.written(node, frame, value)  # (t + 1.0 - 1.0 - t is 0 to SymPy)
        return kept_own(value, written)

    def constant(self, value, node, frame):
        if isinstance(value, bool):
            return sympy.true if value else sympy.false
        if isinstance(value, int):
            return sympy.Integer(value)
        if isinstance(value, float):
            if value != value:
                self.fail(node, frame, "nan constants are not supported", "use a number")
            if value in (float("inf"), float("-inf")):  # np.where(mask, x, -np.inf)
                return sympy.oo if value > 0 else -sympy.oo
            return functions.number(value)  # 0.5 is exactly 1/2; 0.1 a 53-bit Float
        return self.fail(node, frame, f"constants of type {type(value).__name__} are not supported",
                         "use int or float numbers")

    def python(self, obj, node, frame):
        """A build-time Python object as a value: numbers become SymPy numbers."""
        if isinstance(obj, (bool, int, float)):
            return self.constant(obj, node, frame)
        if isinstance(obj, (tuple, list)):
            return tuple(self.python(o, node, frame) for o in obj)
        if hasattr(obj, "item") and hasattr(obj, "dtype") and getattr(obj, "shape", None) == ():
            return self.constant(obj.item(), node, frame)  # a NumPy scalar constant
        return _Py(obj)

    def binary(self, op, a, b, node, frame):
        make = _BINARY.get(type(op))
        if make is None:
            return self.fail(node, frame, f"the operator `{type(op).__name__}` is not supported",
                             "use + - * / ** // %")
        if isinstance(a, tuple) or isinstance(b, tuple):
            return self.tuple_arithmetic(op, a, b, node, frame)
        a, b = self.number(a, node, frame), self.number(b, node, frame)
        for v in (a, b):
            undefined = _surely_undefined(v)
            if undefined is not None:  # computed from an undefined value: undefined too
                return undefined
        if (isinstance(op, (ast.FloorDiv, ast.Mod)) or isinstance(op, ast.Pow) and not _constant(
                b)) and isinstance(node, (ast.BinOp, ast.AugAssign)):  # a jump, or guards:
            left, right = (node.left, node.right) if isinstance(node, ast.BinOp) else (
                ast.Name(node.target.id, ast.Load()), node.value)  # its guards compare them
            a, b = self.as_computed(a, left, frame), self.as_computed(b, right, frame)
        known_a, known_b = self.known_constant(a), self.known_constant(b)
        if known_a is not None and known_b is not None:  # constants, or names bound to them
            return self.folded(_PYTHON[type(op)], make, (known_a, known_b), node, frame)
        known_a, known_b = self._with_constants(a), self._with_constants(b)
        negative_base = isinstance(op, ast.Pow) and functions.complex_power(known_a, b)
        if negative_base and self.always_complex(a, b, getattr(node, "right", getattr(
                node, "value", None)), frame):
            return self.complex_value(a, b, node, frame)  # math.cos(2) ** 0.3: always complex
        if isinstance(op, (ast.FloorDiv, ast.Mod)) and known_b.is_zero:
            return self.undefined(node, frame, 0)  # x // 0.0 raises ZeroDivisionError
        if isinstance(op, (ast.Add, ast.Sub)):  # 1 - p + 1e-12: not folded into 1.000000000001
            a, b = (functions.Literal(v) if isinstance(v, sympy.Float) else v for v in (a, b))
        if negative_base:  # (-4) ** y: real where y is whole, complex elsewhere
            return RealPower(self._with_constants(a), b)
        return self.defined(make(a, b), node, frame)

    def tuple_arithmetic(self, op, a, b, node, frame):
        """``(a, b) + (c,)`` and ``(a,) * 3``, as Python computes them at build time: a tuple
        (``x.shape + (1,)`` too); anything else of a tuple is refused."""
        if isinstance(op, ast.Add) and isinstance(a, tuple) and isinstance(b, tuple):
            if isinstance(node, ast.BinOp) and {type(node.left), type(node.right)} == {
                    ast.List, ast.Tuple}:
                return self.fail(node, frame, "`+` of a list and a tuple raises TypeError",
                                 "make both tuples or both lists")
            return a + b
        count = b if isinstance(a, tuple) else a
        if isinstance(op, ast.Mult) and isinstance(count, sympy.Integer):
            return (a if isinstance(a, tuple) else b) * max(int(count), 0)
        return self.fail(node, frame, *of_a_tuple("arithmetic (`+`, `*`)"))

    def folded(self, python, build, args, node, frame):
        """A call or operator on constants, folded to the value the primal computes."""
        try:
            return functions.fold(python, build, args)
        except functions.NotComputable as exc:
            if exc.complex:  # (-0.5) ** 0.3: a complex number, which the primal does not raise on
                return self.complex_value(*args, node, frame)
            return self.undefined(node, frame, exc.kind)

    def always_complex(self, base, exponent, exponent_node, frame):
        """Whether ``base ** exponent`` (a negative constant base) is complex on every call, by
        the exponent's float as the primal computes it (its written form, read from
        ``exponent_node`` where known: ``realpower.always_complex``)."""
        if isinstance(exponent_node, ast.expr):
            exponent = self.written(exponent_node, frame, exponent)
        return realpower.always_complex(self._with_constants(base), exponent, self.constants)

    def complex_value(self, base, exponent, node, frame):
        """``base ** exponent`` with a constant fractional exponent, a complex number in Python for
        every input: ``functions.ComplexPower``, refused at the end of the reading if its value
        is used on every call (``_refuse_complex``), dropped if dead, and raising in the
        gradient on a path that may not run (docs/conventions.md, "Complex powers")."""
        value = functions.ComplexPower(sympy.Integer(1), self._with_constants(base),
                                       self._with_constants(exponent))
        self.complex_sites.setdefault(value, (frame.src.location(node), ast.unparse(node)))
        return value

    def _refuse_complex(self, outputs):
        """Refuse a ``functions.ComplexPower`` that an output computes on every call (outside any
        branch): the primal's value is complex there, and a gradient of it is no float. A name
        bound to one holds it (no assignment), so a dead one (its value unused, or used on some
        paths only) is no refusal: the primal runs."""
        for expr in outputs:
            found = _surely_undefined(expr)
            if isinstance(found, functions.ComplexPower):
                location, text = self.complex_sites[found]
                raise UnsupportedSyntaxError(
                    f"`{text}` is a complex number in Python (a negative base, "
                    f"{_number_text(found.args[1])}, to a fractional power), and symgrad "
                    "differentiates real values only", location,
                    "make the base positive (`abs(b) ** y`) or the exponent a whole number")

    def undefined(self, node, frame, kind):
        """What the primal cannot compute: refused where it surely runs (the primal raises on
        every call), else ``Undefined``, which raises in the gradient where the primal raises."""
        if self.depth == 0:
            self.fail(node, frame, "this is undefined (a division by zero, log(0), or a complex "
                      "number) for every input", "check the expression: the function raises on "
                      "every call")
        return functions.Undefined(sympy.Integer(kind))

    def defined(self, value, node, frame, may_not_run=False):
        """``value``, unless it is undefined or complex for every input (x/0, log(0), sqrt(-1)):
        then the primal raises on every call, and a gradient must not return a number."""
        bad = (sympy.zoo, sympy.nan, sympy.I, sympy.oo, -sympy.oo)
        if not isinstance(value, sympy.Basic) or not _holds(self._with_constants(value), bad):
            return value
        if not isinstance(value, sympy.Piecewise) and value.has(sympy.Piecewise):
            value = sympy.piecewise_fold(value)
        if isinstance(value, sympy.Piecewise):  # undefined on some branches only (0.5 / h(z))
            return sympy.Piecewise(*[(self.defined(e, node, frame, may_not_run=True), c)
                                     for e, c in value.args])
        if not _holds(value, bad[:3]):  # x * np.inf, x - np.inf: NumPy's inf or nan, no raise
            return self.fail(node, frame, "arithmetic with an infinite constant is not "
                             "supported (its value is inf or nan for every input)",
                             "use np.inf where it is selected away, taken the extremum of or "
                             "compared: np.where(mask, x, -np.inf), np.max, np.clip(x, -np.inf, "
                             "hi), x < np.inf")
        if may_not_run:
            self.depth += 1
        try:
            return self.undefined(node, frame, 0 if value.has(sympy.zoo) else 1)
        finally:
            self.depth -= may_not_run

    def known_constant(self, value):
        """The constant ``value`` computes where it is made of numbers and names bound to
        constants (``math.sqrt(2.0) * a`` with ``a = math.cos(1.5)``), else None. Whether a
        node is made of them is memoised, so reading a long sum stays linear."""
        if not isinstance(value, sympy.Expr):
            return None
        if not self.constants or _constant(value):
            return value if _constant(value) else None
        stack, memo = [value], self.made_of_constants
        while stack:  # post-order: each node decided once its arguments are
            node = stack[-1]
            if node in memo:
                stack.pop()
            elif node.is_Atom:
                memo[stack.pop()] = not node.is_Symbol or node in self.constants
            else:
                pending = [a for a in node.args if a not in memo]
                if pending:
                    stack.extend(pending)
                else:
                    memo[stack.pop()] = all(memo[a] for a in node.args)
        if not memo[value]:
            return None
        known = self._with_constants(value)
        return known if _constant(known) else None

    def _with_constants(self, value):
        """``value`` with the names bound to constants replaced by them: ``(t * a) ** -2`` with
        ``a = math.floor(math.cos(1.5))`` is ``zoo``, undefined although no constant shows."""
        if not self.constants or value.free_symbols.isdisjoint(self.constants):
            return value
        try:
            return value.xreplace(self.constants)
        except (TypeError, ValueError, ArithmeticError):  # SymPy cannot rebuild it: as it is
            return value

    def number(self, value, node, frame):
        if isinstance(value, sympy.Expr):
            return value
        if value is RAISES:
            return self.fail(node, frame, "this raises on every path, so it has no value",
                             "call a helper that raises on some inputs only as a statement, "
                             "or return its value")
        if isinstance(value, sympy.logic.boolalg.Boolean):
            return self.fail(node, frame, "a condition is used where a number is needed",
                             "write the number it stands for: `x if x > 0 else 0.0`, "
                             "`1.0 if c else 0.0`, or for arrays `np.where(x > 0, x, 0.0)`")
        if isinstance(value, tuple):
            return self.fail(node, frame, *of_a_tuple("arithmetic (`+`, `*`)"))
        what = f"`{_describe(value.obj if isinstance(value, _Py) else value)}`"
        return self.fail(node, frame, f"{what} is used where a number is needed",
                         "use numbers in arithmetic and comparisons in conditions only")

    def integer(self, node, frame):
        value = self.value(node, frame)
        if isinstance(value, sympy.Integer):
            return int(value)
        if isinstance(value, sympy.Number):
            return self.fail(node, frame, f"this must be an int, not {float(value)!r}",
                             "use an int (range() and indexing take ints only)")
        named = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.nodes]
        if named and frame.primary:
            self.fail(node, frame, f"`{named[0]}` is named in wrt, so it is a variable here, "
                      "not an integer known when the gradient is built",
                      f"leave `{named[0]}` out of wrt")
        return self.fail(node, frame, "this must be an integer known when the gradient is built",
                         "use a literal, a module constant, a closure variable or a parameter "
                         "default")

    def sequence(self, value, node, frame):
        if isinstance(value, tuple):
            return value
        if isinstance(value, sympy.logic.boolalg.Boolean):
            return self.fail(node, frame, "a condition cannot be indexed or sliced here",
                             "index the operands, then compare: `x[1:] > 0`")
        return self.fail(node, frame, "a tuple or list of numbers is needed here",
                         "use a module-level tuple of numbers or a tuple expression")


_INFINITE = (sympy.oo, -sympy.oo)


def _holds(value, atoms):
    """Whether ``value`` holds one of ``atoms`` (``zoo``, ``nan``, ``I``, ``oo``, ``-oo``) where it
    is computed: an infinity inside a comparison is compared, as floats compare with it (``z >=
    -inf``, what ``z >= z`` is made: ``functions.compared``), not computed with."""
    if not value.has(*atoms):
        return False
    finite = tuple(a for a in atoms if a not in _INFINITE)
    stack = [value]
    while stack:
        part = stack.pop()
        if isinstance(part, sympy.logic.boolalg.Boolean) and not isinstance(part, sympy.Expr):
            if finite and part.has(*finite):
                return True
        elif part in atoms:
            return True
        else:
            stack.extend(a for a in part.args if isinstance(a, sympy.Basic))
    return False


def _number_text(value):
    """A SymPy value as short text for a message: a number as the float Python holds."""
    return repr(functions.as_python(value) if value.is_Integer else float(value)) \
        if value.is_number else str(value)


def _without_not(test, branches):
    """``if not c: A else: B`` as ``if c: B else: A``. SymPy would turn ``Not(x > 0)`` into
    ``x <= 0``, which differs from Python's ``not`` at nan; swapping the branches keeps Python's."""
    body, orelse = branches
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, body, orelse = test.operand, orelse, body
    return test, (body, orelse)


def of_a_tuple(what):
    """The refusal of ``what`` on a tuple or list: (problem, hint)."""
    return (f"{what} of a tuple or list is not supported",
            "symgrad reads a tuple or list as numbers fixed in count when the gradient is built: "
            "write it whole (`vals = [x * y, x + y]`, `t = (x, y, x * y)`) or with a "
            "comprehension, and index it with constants")

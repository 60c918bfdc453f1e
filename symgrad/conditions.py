"""Conditions of the frontend's reader (a mixin of ``frontend._Reader``): a test → a SymPy boolean
(``sympy.true``/``false`` when decided at build time), kept in Python's order (``and``/``or``
stop where Python stops), with each comparison operand in its written form (``written``: the
float the primal compares, not SymPy's rearrangement of it).
"""
import ast
import operator

import sympy

from . import functions, rules
from .fence import dotted
from .functions import Value
from .resolve import _Py
from .written import written_call

_COMPARE = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge,
            ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne}
_PYTHON_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
                   ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}


class Conditions:
    """The condition half of the frontend's reader (a mixin of ``frontend._Reader``)."""

    def condition(self, node, frame):
        """A test as a SymPy boolean (``sympy.true``/``false`` when decided at build time)."""
        if isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _COMPARE:
                    self.fail(node, frame, f"the comparison `{type(op).__name__}` is not supported",
                              "compare numbers with < <= > >= == !=")
            parts, left = [], self.number(self.value(node.left, frame), node, frame)
            left = self.written(node.left, frame, left)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.number(self.value(right_node, frame), node, frame)
                right = self.written(right_node, frame, right)
                decided = self.decided(_PYTHON_COMPARE[type(op)], (left, right), node, frame)
                parts.append(functions.compared(_COMPARE[type(op)], left, right)
                             if decided is None else decided)
                left = right
            return sympy.And(*parts)
        if isinstance(node, ast.BoolOp):
            parts, stop = [], sympy.false if isinstance(node.op, ast.And) else sympy.true
            for k, v in enumerate(node.values):
                self.depth += k > 0  # an operand after the first may not run
                try:
                    parts.append(self.condition(v, frame))
                finally:
                    self.depth -= k > 0
                if parts[-1] is stop:  # `True or ...`: the rest never runs
                    break
            return (functions.AndThen if isinstance(node.op, ast.And) else functions.OrElse)(*parts)
        value = self.value(node, frame)
        if isinstance(value, sympy.logic.boolalg.Boolean) and not isinstance(value, sympy.Expr):
            return value  # a comparison; a number-valued name (a Symbol is a Boolean too) is not
        value = self.written(node, frame, self.number(value, node, frame))  # the primal's float
        decided = self.decided(operator.ne, (value, sympy.Integer(0)), node, frame)
        return sympy.Ne(Value(value), 0) if decided is None else decided  # `if t:`: `t != 0`

    def decided(self, test, operands, node, frame):
        """``test`` of constant written ``operands`` holding a complex number (``(-4) ** 0.3``,
        which SymPy would not compare as Python does) decided at build time as Python decides
        it: ``sympy.true``/``false``; a condition raising where Python raises (``complex < 1``:
        refused where it surely runs); None for any other operands."""
        if not all(isinstance(o, sympy.Expr) and not o.free_symbols for o in operands) or \
                not any(o.has(rules.Written) for o in operands):
            return None
        try:
            values = [rules.Written.python_value(o) for o in operands]
        except TypeError:
            return None  # an operand symgrad holds as no written number (an undefined value)
        except (ArithmeticError, ValueError):
            return sympy.Ne(Value(self.undefined(node, frame, 1)), 0)
        try:
            return sympy.true if test(*values) else sympy.false
        except TypeError:  # a complex number compared with < > <= >=
            return sympy.Ne(Value(self.undefined(node, frame, 1)), 0)

    def written(self, node, frame, value):
        """A comparison operand as the primal computes it: its operators and calls as written
        (``rules.Written``) over names, parameters and constants; ``value`` (its SymPy form) where
        the operand holds anything else (a helper call, a branch-local expression)."""
        try:
            return self._written(node, frame)
        except _NotWritten:  # a helper's returned value: the form its `return` wrote, if any
            found = self.form_of(value)
            return value if found is None else found

    def _written(self, node, frame):
        found = self.written_at.get(node)
        if found is not None:  # `a if c else b`, `t[i]`, `sum(...)`: as its latest reading wrote
            return found  # its sides, its item, its terms
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return functions.number(node.value)
        if isinstance(node, ast.Name):
            value = self.name(node, frame)
            form = frame.form(node.id)
            if form is not None:  # bound to a value SymPy holds in another form (an argument)
                return form
            known = self.known_constant(value)
            if known is not None and not value.is_Number:  # bound to a constant: the float
                return functions.number(functions.as_python(known))  # Python holds
            if isinstance(value, sympy.Expr) and (value.is_Symbol or value.is_Number):
                return value
            found = self.form_of(value)
            if found is not None:  # bound in a branch
                return found
        elif isinstance(node, ast.BinOp) and type(node.op) in _WRITTEN:
            return rules.Written(sympy.Integer(_WRITTEN[type(node.op)]),
                                 self._written(node.left, frame), self._written(node.right, frame))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self._written(node.operand, frame)
            return rules.Written(sympy.Integer(-1), operand) if isinstance(node.op, ast.USub) \
                else operand
        elif isinstance(node, ast.Call) and not node.keywords and dotted(node.func) is not None:
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(node.func, ast.Attribute) and not isinstance(self.value(root, frame), _Py):
                raise _NotWritten  # a method of a value (an array's x.sum()): not a function call
            func = self.value(node.func, frame)
            if isinstance(func, _Py) and func.obj is pow and len(node.args) == 2:
                return rules.Written(sympy.Integer(4), *[self._written(a, frame)  # Python's
                                                         for a in node.args])  # **, not math.pow
            rule = rules.rule_for_callable(func.obj) if isinstance(func, _Py) else None
            if rule is not None and rule.python == ("float",) and len(node.args) == 1:
                inner = self._written(node.args[0], frame)  # float(x): x's float
                if inner.is_Integer:
                    return functions.number(float(int(inner)))  # (as Python rounds a large int)
                if inner.is_integer is not False and not _a_float(inner):
                    raise _NotWritten  # an int of the arguments: float() may round it
                return inner
            found = None if rule is None or len(node.args) not in rule.nargs else \
                written_call(rule, [self._written(a, frame) for a in node.args])
            if found is not None:  # every row: none drops the form of the operand around it
                return found
            if node in self.call_results:  # a helper: the form its `return` wrote, if any
                value = self.call_results[node]
                found = self.form_of(value)
                return value if found is None else found
        raise _NotWritten


class _NotWritten(Exception):
    """An operand ``_Reader.written`` cannot keep as written."""


_WRITTEN = {ast.Add: 0, ast.Sub: 1, ast.Mult: 2, ast.Div: 3, ast.Pow: 4, ast.FloorDiv: 5,
            ast.Mod: 6}


_INT_CALLS = frozenset({"math.floor", "math.ceil", "math.trunc"})
_FLOAT_OF_A_FLOAT = frozenset({-1} | {_WRITTEN[op] for op in (  # -1: Written(-1, a) is -a
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)})


def _a_float(value):
    """Whether Python computes ``value`` (a written form) as a float for any int arguments, so that
    ``float()`` of it is itself: a float constant, a true division, a ``math`` call other than
    ``floor``/``ceil``/``trunc``, or ``+ - * // %`` and ``-`` with such an operand (``t * 0.1 *
    3.0``; not ``**``, complex at a negative base)."""
    if isinstance(value, sympy.Float):
        return True
    if not isinstance(value, rules.Written):
        return False
    code, args = int(value.args[0]), value.args[1:]
    if code == _WRITTEN[ast.Div]:
        return True
    if code >= 100:  # Written(100 + i, ...): the call of RULES[i]
        name = rules.RULES[code - 100].python[0]
        return name.startswith("math.") and name not in _INT_CALLS
    return code in _FLOAT_OF_A_FLOAT and any(_a_float(a) for a in args)

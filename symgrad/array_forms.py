"""Array code's forms that NumPy users write and the scalar reader would misread, for the array
frontend: element conditions combined with ``&``, ``|``, ``~`` and ``np.logical_*``; and the
refusals that speak of arrays: item assignment, a loop over an array's elements or the builtin
``sum`` of one, and a division by a size that a size-1 axis makes zero."""
import ast

import numpy as np
import sympy

from .array_arguments import Negation, is_condition
from .functions import AndThen, OrElse
from .shapes import ONE

_FOLDED = {"&": np.logical_and, "np.logical_and": np.logical_and, "|": np.logical_or,
           "np.logical_or": np.logical_or, "~": np.logical_not, "np.logical_not": np.logical_not}
"""The NumPy function of each way of combining masks, for constant masks (folded at build)."""


def _reads_a_size(node):
    """Whether the expression ``node`` reads an array's size (``len(x)``, ``x.shape``,
    ``x.size``)."""
    return any(isinstance(n, ast.Attribute) and n.attr in ("shape", "size") or isinstance(
        n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
        for n in ast.walk(node))


class FormReader:
    """The forms half of ``array_frontend.ArrayReader`` (a mixin)."""

    def undefined(self, node, frame, kind):
        """As the scalar reader; where a parameter has a size-1 axis the message says that the
        sizes make it undefined (``np.sum(d ** 2) / (len(x) - 1)`` with one element: NumPy gives
        nan), not that the function raises on every call; only where the expression reads a
        size (``np.reciprocal(2.0 - 2.0)`` is undefined at every size: array fuzzer 134-934)."""
        if self.depth == 0 and self.array_mode and _reads_a_size(node) and any(
                ONE in shape for shape in self.dims.table.values()):
            self.fail(node, frame, "this is undefined (a division by zero, log(0) or a complex "
                      "number) for arrays of these sizes (a size-1 axis makes a size such as "
                      "len(x) - 1 zero; NumPy gives nan or inf)", "differentiate at arrays of "
                      "more elements, or guard the size: max(len(x) - 1, 1)")
        if self.depth == 0 and self.array_mode:  # np.reciprocal(0.0) is inf, 1.0 / 0.0 raises
            self.fail(node, frame, "this is undefined (a division by zero, log(0) or a complex "
                      "number) for every input: Python raises, NumPy gives inf or nan",
                      "check the expression (symgrad gives no value or gradient through it)")
        return super().undefined(node, frame, kind)

    def statement(self, stmt, frame):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript):
            self.item_assignment(stmt.target, frame, ast.BinOp(stmt.target, stmt.op, stmt.value))
        return super().statement(stmt, frame)

    def assign(self, target, value, node, frame, source=False):
        if isinstance(target, ast.Subscript):
            self.item_assignment(target, frame, getattr(node, "value", None))
        return super().assign(target, value, node, frame, source)

    def item_assignment(self, target, frame, new=None):
        """``y[0] = v``, ``y[1:] += v`` of an array (or of a value that may be one: a number
        cannot be indexed): refused, array values are never changed in place; the hint writes
        the new array with the statement's own names (``new``: the expression of the new
        value, or None). Of a list, the frontend refuses it (assign to a plain name)."""
        if not (isinstance(target.value, ast.Name) and isinstance(
                self.value(target.value, frame), sympy.Expr)):
            return
        name, where = target.value.id, target.slice
        value = ast.unparse(new) if new is not None else "NEW"
        if isinstance(where, (ast.Slice, ast.Tuple)):
            hint = (f"build the new array instead, e.g. np.concatenate(({name}[:i], {value}, "
                    f"{name}[j:])) for {name}[i:j] = {value}, or np.where of a mask of the "
                    "positions")
        else:
            hint = (f"build the new array instead: {name} = np.where(np.arange(len({name})) == "
                    f"{ast.unparse(where)}, {value}, {name})")
        self.fail(target, frame, "item or slice assignment is not supported (symgrad reads an "
                  "array as one value, never changed in place)", hint)

    def logical(self, operator, conditions, node, frame):
        """``c1 & c2``, ``c1 | c2``, ``~c`` (and ``np.logical_and``/``_or``/``_not``) of element
        conditions: NumPy's way of combining masks, kept in source order and as written
        (``rules.AndThen``/``OrElse``, ``Negation``: SymPy's ``Or(x > 0, x <= 0)`` is True, and
        it is False where ``x`` is nan). A constant boolean array is the condition ``MASK != 0``
        (of constant masks only, the result is the constant mask NumPy computes: ``~MASK``).
        Of 0-d conditions (``(np.sum(x) > 0) & (t < 1)``) ``&``, ``|`` and ``np.logical_*``
        are the same condition as ``and``/``or``/``not`` (the same truth value for Python and
        NumPy bools, nothing to short-circuit); ``~`` of them is refused: of a Python bool it
        is the int -2 or -1, both true."""
        masks = [self.constant_mask_of(c) for c in conditions]
        if all(m is not None for m in masks):  # ~MASK, MASK1 & MASK2: a constant mask again
            return self.constant_array(_FOLDED[operator](*masks), node, frame, base="mask")
        conditions = [c if m is None else sympy.Ne(c, 0) for c, m in zip(conditions, masks)]
        if not all(is_condition(c) for c in conditions):
            return self.fail(node, frame, f"`{operator}` combines conditions here, and a number "
                             "or an array of numbers is given", "compare first: "
                             "np.where((x > 0) & (y < 1), a, b)")
        self.need_arrays()
        if operator == "~" and not any(self.shape_at(c, node, frame) for c in conditions):
            return self.fail(node, frame, "`~` of a condition on numbers is not supported (of "
                             "a Python bool it is an int: ~True is -2, which is true)",
                             "use Python's `not` or np.logical_not")
        if operator in ("&", "np.logical_and"):
            result = AndThen(*conditions)
        elif operator in ("|", "np.logical_or"):
            result = OrElse(*conditions)
        else:
            result = Negation(conditions[0])
        self.shape_at(result, node, frame)  # the conditions' shapes broadcast
        return result

    def constant_mask_of(self, value):
        """The constant boolean array (module-level, closure, default or folded: ``~MASK``) the
        symbol ``value`` stands for, else None: a mask known when the gradient is built."""
        if isinstance(value, sympy.Symbol) and value.name in self.constants and \
                self.constants[value.name].dtype.kind == "b":
            return self.constants[value.name]
        return None

    def is_mask(self, value):
        """Whether ``value`` combines with ``&``, ``|``, ``~`` as NumPy's masks do: an element
        condition or a constant boolean array."""
        return is_condition(value) or self.constant_mask_of(value) is not None

    iterating = None  # the builtin (`sum`, `zip` ...) whose argument is being read

    def sequence_builtin(self, obj, node, frame):
        outer, self.iterating = self.iterating, obj.__name__
        try:
            return super().sequence_builtin(obj, node, frame)
        finally:
            self.iterating = outer

    def sequence(self, value, node, frame):
        """A tuple to loop over; an array is refused as a loop over its elements (``for row in
        X``, builtin ``sum(x)``), and so is a number (read without shapes, the value may be
        either: the message says both)."""
        if isinstance(value, sympy.Expr) and not self.array_mode:  # a number, or an array
            builtin = self.iterating in ("sum", "min", "max")
            return self.fail(node, frame, "a tuple or list of numbers is needed here (a loop over "
                             "a number, or over the elements of an array, is not supported)",
                             "loop over a tuple of numbers; for an array, " + (
                                 f"use np.{self.iterating}(x)" if builtin else "vectorise: "
                                 "whole-array operations (np.sum, slices, np.where)"))
        if isinstance(value, sympy.Expr) and self.is_array(value, node, frame):
            if self.iterating in ("sum", "min", "max"):
                return self.fail(node, frame, f"the builtin `{self.iterating}` of an array loops "
                                 "over its elements, which is not supported",
                                 f"use np.{self.iterating}(x) (with axis=0 for the rows)")
            return self.fail(node, frame, "a Python loop over the elements of an array is not "
                             "supported", "vectorise: use whole-array operations (np.sum, "
                             "slices, np.where) instead of a loop")
        return super().sequence(value, node, frame)

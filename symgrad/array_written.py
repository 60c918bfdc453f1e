"""Array values as the source computes them: conditions and returned values read as written.

SymPy folds what it reads (``np.sum(x / 3.0 * 3.0)`` becomes ``sum(x)``), and a branch decided on
that form could take another path than the primal does in float. ``WrittenReader`` (a mixin of
``array_frontend.ArrayReader``) widens ``frontend``'s written forms to array code: the operands of
a condition and a returned value are kept as the source writes them (``written``, ``_written``),
and every operand of an array node passes through ``as_computed`` so that each value a node
computes or a tie test compares is the primal's float.
"""
import ast

import sympy

from . import arrays, rules
from .conditions import _NotWritten
from .fence import dotted
from .functions import StopGradient
from .resolve import _Py
from .shapes import is_dim
from .written import AsWritten, kept_as_written, shared


class WrittenReader:
    """The written half of ``array_frontend.ArrayReader`` (a mixin)."""

    def block(self, stmts, frame):
        for stmt in stmts:  # a returned value is read as written too (the value it returns)
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                self.returned_nodes.add(id(stmt.value))
        return super().block(stmts, frame)

    def written(self, node, frame, value):
        if not (self.array_mode and id(node) in self.returned_nodes):
            return super().written(node, frame, value)
        writing, self.writing_condition = self.writing_condition, True
        try:
            written = super().written(node, frame, value)
        finally:
            self.writing_condition = writing
        if isinstance(value, sympy.Symbol) and isinstance(written, sympy.Expr) and \
                written != value and not self.dims.of(value):
            self.written_of[value] = written  # a returned number: `value` prints it as written
        return written

    def as_computed(self, value, node, frame):
        """``value`` read from ``node``, as the source computes it where SymPy's form may be
        another float (``written.kept_as_written``). Array code passes through here every operand
        of an array node (a reduction, ``@``, a subscript, ...) and of an elementwise function,
        so that each value a node computes or a tie test compares is the primal's float."""
        if not self.array_mode:
            return super().as_computed(value, node, frame)
        if not isinstance(value, sympy.Expr) or isinstance(value, (StopGradient, AsWritten)) or \
                not any(not is_dim(s) for s in value.free_symbols) and not value.is_Number:
            return value
        written = self.written(node, frame, value)
        if isinstance(written, sympy.Expr):  # the sizes unified since it was read put in:
            written = self.dims.dim(written)  # X.shape[0] is 4 once X * C0 made it so
        return kept_as_written(value, written)

    def cancelled(self, value, written):
        """``frontend._Reader.cancelled``, for arrays too (a cancellation SymPy folds to a
        name, ``broadcast_to(0)`` for ``x / 3.0 * 3.0 - x``, is kept as written)."""
        if not self.array_mode:
            return super().cancelled(value, written)
        if isinstance(value, sympy.Expr) and (value.is_Atom or value.is_number) and isinstance(
                written, sympy.Expr) and any(not is_dim(s) for s in written.free_symbols):
            return kept_as_written(value, written)
        return value

    def _written(self, node, frame):
        """A condition's operand as the source computes it, array calls included: ``np.sum(x /
        3.0 * 3.0)`` is the sum of ``x / 3.0 * 3.0`` as written, not SymPy's ``sum(x)``, so that
        the generated code decides the branch on the primal's float (``frontend._Reader.written``).
        """
        found = self.node_results.get(node)
        if found is not None:  # an array node, its operands as written: the primal's value
            return found
        if self.array_mode and isinstance(node, ast.Call) and not node.keywords and isinstance(
                node.func, (ast.Name, ast.Attribute)) and _module_call(
                    node.func, self, frame):  # np.log, np.maximum: spelled by NumPy only
            func = self.value(node.func, frame)
            rule = rules.rule_for_callable(func.obj) if isinstance(func, _Py) else None
            if rule is not None and rules.written_spelling(rule, "numpy") is not None and len(
                    node.args) in rule.nargs and all(not isinstance(a, ast.Starred)
                                                     for a in node.args):
                return rules.Written(sympy.Integer(100 + rules.RULES.index(rule)),
                                     *[self._written(a, frame) for a in node.args])
        if not (self.writing_condition and isinstance(node, ast.Call)):
            return super()._written(node, frame)
        func, given = node.func, []
        rule = None
        if isinstance(func, ast.Attribute):
            base = self.value(func.value, frame)
            if not isinstance(base, _Py):
                rule, given = arrays.rule_for_method(func.attr), [func.value]
        if rule is None and not given:
            value = self.value(func, frame) if isinstance(func, (ast.Name, ast.Attribute)) \
                else None
            rule = arrays.rule_for_callable(value.obj) if isinstance(value, _Py) else None
        if rule is None:
            return super()._written(node, frame)
        spelling = dotted(func) or "?"
        return self.row_call(rule, node, frame, [self.written_argument(a, frame) for a in given],
                             spelling, argument=self.written_argument)

    def written_argument(self, node, frame):
        """An argument of an array call in a condition, as written (``_NotWritten`` where an
        expression of variables cannot be kept as written)."""
        try:
            return shared(self._written(node, frame))
        except _NotWritten:
            value = self.argument(node, frame)
            if isinstance(value, sympy.Basic) and value.free_symbols:
                raise
            return value


def _module_call(func, reader, frame):
    """Whether ``func`` (a call's function) is a name or a module's attribute, not a method of a
    value (``x.mean``)."""
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return root is func or isinstance(reader.value(root, frame), _Py)

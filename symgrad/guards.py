"""``assert`` and ``raise`` → ``Check`` steps of the program, for the frontend.

The gradient must fail where the primal fails: an ``assert cond, "m"`` or a ``raise E("m")`` under
the ``if``s around it becomes a ``Check(path, "E", "m")`` appended to the program's steps at the
point the primal runs it, its conditions as the primal computes them. A ``raise`` (or an
``assert`` that fails) reached on every call is refused: the function has no value to
differentiate.
"""
import ast
import builtins

import sympy

from .program import Check
from .resolve import RAISES


class Guards:
    """The ``assert``/``raise`` half of the frontend's reader (a mixin of ``frontend._Reader``)."""

    def check(self, stmt, frame):
        """``assert c, m`` or ``raise E(m)`` (under the ``if``s around it): a ``Check`` in the
        program where the primal runs it; ``RAISES`` if it raises whenever it is reached."""
        path = list(self.path)
        if isinstance(stmt, ast.Assert):
            exception, message = "AssertionError", self.message(stmt.msg, frame)
            test, holds = stmt.test, False
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, holds = test.operand, not holds
            cond = self.condition(test, frame)
            if cond is sympy.true or cond is sympy.false:
                if bool(cond) != holds:
                    return None  # never raises
            else:
                path.append((cond, holds))
        else:
            exception, message = self.exception(stmt, frame)
        if not path:
            what = "`assert` fails" if isinstance(stmt, ast.Assert) else "`raise` is reached"
            self.fail(stmt, frame, f"this {what} on every call, so the function raises on every "
                      "call", "put it under an `if`, or remove it")
        check = Check(tuple(path), exception, message)
        if check not in self.checks:  # the same test on the same values again: passes again
            self.checks.add(check)
            self.assignments.append(check)
        return RAISES if len(path) == len(self.path) else None

    def message(self, node, frame):
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return self.fail(node, frame, "the message must be a string literal",
                         "write the message as a literal: \"x must be positive\"")

    def exception(self, stmt, frame):
        """(name of a built-in exception class, message) of ``raise E`` or ``raise E("m")``."""
        exc = stmt.exc
        if exc is None or stmt.cause is not None:
            self.fail(stmt, frame, "a bare `raise` or `raise ... from ...` is not supported",
                      "raise a built-in exception with a literal message: raise ValueError(\"m\")")
        call = exc if isinstance(exc, ast.Call) else None
        obj = self.lookup(call.func if call else exc, frame)
        name = getattr(obj, "__name__", None)
        if not (isinstance(obj, type) and issubclass(obj, BaseException)
                and getattr(builtins, name, None) is obj):
            self.fail(exc, frame, "only built-in exception classes can be raised",
                      "raise ValueError, ArithmeticError, ... (the generated code sees builtins "
                      "only)")
        if call is None:
            return name, None
        if call.keywords or len(call.args) > 1:
            self.fail(call, frame, "the exception takes one message at most",
                      "raise E(\"message\")")
        return name, self.message(call.args[0] if call.args else None, frame)

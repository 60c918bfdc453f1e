"""Step 3 of ``emit``: the lines to print (``Entry``), each ``Piecewise``, ``StopGradient``, lazy
node (``a if c else b``, ``and``, ``or`` of a condition) and tie-test call on a line of its own
(``Lines``), shared by every line of its block that uses it.

A block is the body of a function, or of one side of a branch (``cse.branches``): a line inside a
branch reads what an enclosing block computed before it (``known``) and is never hoisted out.
"""
import sympy

from .functions import Branch, Copy, StopGradient, Undefined, Value
from .program import Check, replaced
from .selected import LAZY


class Entry:
    """One line to print: ``target = expr``; ``guarded`` lines get no CSE inside (a branch, a
    check, a tie test's call)."""

    __slots__ = ("target", "expr", "guarded", "stop", "temporary", "check", "source", "whole")

    def __init__(self, target, expr, guarded=False, stop=False, temporary=False, check=None,
                 source=None, whole=False):
        self.target, self.expr, self.guarded, self.stop = target, expr, guarded, stop
        self.temporary = temporary  # a placeholder line: printed under a `_tK` name
        self.check = check  # a Check (lowered): printed as `if ...: raise ...`, guarded
        self.source = source  # a placeholder's node: later blocks inside branches read its name
        self.whole = whole  # a primal line as written: a branch printed whole (nothing shared)


class Lines:
    """The entries of one block of lines (``entries``, in order): each ``Piecewise`` and
    ``StopGradient`` inside a line gets a placeholder line of its own (``hide``), shared by every
    line of the block using it.

    Args:
        known: dict from nodes an enclosing block already printed to their printed name symbols
            (read by name here, not computed again).
    """

    def __init__(self, known=None):
        self.entries = []
        # Piecewise / StopGradient / call node -> placeholder symbol (``known``: the names of
        # those an enclosing block computed before this one)
        self.opaque = dict(known or {})
        self.hidden = {}  # node -> its hidden form (each distinct node is walked once)

    def line(self, target, expr, whole=False, branch=False):
        """Append the entries printing ``target = expr`` (and the lines it needs first);
        ``whole``: a primal line as written, each branch in it printed whole; ``branch``: a
        ``Branch`` (``a if c else b`` of a comparison operand) is a line of branches too."""
        start = len(self.entries)
        if branch and isinstance(expr, Branch):
            self.entries.append(Entry(target, self.shallow(expr), guarded=True))
        else:
            self._line(target, expr)
        for entry in self.entries[start:]:
            entry.whole = whole

    def _line(self, target, expr):
        if isinstance(expr, Check):
            self.entries.append(Entry(None, sympy.true, guarded=True, check=expr))
        elif isinstance(expr, sympy.Piecewise):
            self.entries.append(Entry(target, self.hoist(expr), guarded=True))
        elif isinstance(expr, StopGradient):
            self.entries.append(Entry(target, self.hide(expr.args[0]), stop=True))
        else:
            self.entries.append(Entry(target, self.hide(expr)))

    def placeholder(self, node, stop):
        symbol = self.opaque.get(node)
        if symbol is None:
            symbol = sympy.Dummy("_p", real=True)
            self.opaque[node] = symbol
            if stop:
                self.entries.append(Entry(symbol, self.hide(node.args[0]), stop=True,
                                           temporary=True, source=node))
            else:
                self.entries.append(Entry(symbol, self.hoist(node), guarded=True,
                                           temporary=True, source=node))
        return symbol

    def hoist(self, piecewise):
        """The first condition of a Piecewise is evaluated on every call: the function calls in it
        (the ``max`` of a tie test) and the branches it compares get lines of their own, shared by
        every line using them."""
        calls, stack = [], [piecewise.args[0].cond]
        while stack:
            node = stack.pop()
            if isinstance(node, sympy.Piecewise) or node.is_Function and not isinstance(
                    node, (StopGradient, Value, Copy)):
                calls.append(node)
            elif not node.is_Atom:
                stack.extend(reversed(node.args))
        named = {}
        for call in calls:
            if isinstance(call, sympy.Piecewise):
                named[call] = self.placeholder(call, False)
                continue
            symbol = self.opaque.get(call)
            if symbol is None:
                symbol = self.opaque[call] = sympy.Dummy("_p", real=True)
                # guarded: no CSE rewrites its arguments (`-_t1 - a` for `0.4 - a - b`), so the
                # tie tests `arg == _p` see the very floats the max was computed from
                self.entries.append(Entry(symbol, self.shallow(call), guarded=True,
                                           temporary=True, source=call))
            named[call] = symbol
        return replaced(piecewise, named) if named else piecewise

    def hide(self, node):
        if isinstance(node, sympy.Piecewise):
            return self.placeholder(node, False)
        if isinstance(node, StopGradient):
            return self.placeholder(node, True)
        if node.is_Atom or isinstance(node, Undefined):  # printed as raising code: args unread
            return node
        if isinstance(node, LAZY):  # a line of its own, guarded: the later operands run only
            symbol = self.opaque.get(node)  # where the primal runs them (nothing hoisted out)
            if symbol is None:
                symbol = self.opaque[node] = sympy.Dummy("_p", real=True)
                self.entries.append(Entry(symbol, self.shallow(node), guarded=True,
                                           temporary=True, source=node))
            return symbol
        found = self.hidden.get(node)
        if found is None:
            args = [self.hide(a) for a in node.args]
            found = self.hidden[node] = node.func(*args) if args != list(node.args) else node
        return found

    def shallow(self, node):
        """``hide`` of what always runs: of a lazy node, its first operand only."""
        if not isinstance(node, LAZY):
            return self.hide(node)
        first = self.hide(node.args[0])
        return node.func(first, *node.args[1:]) if first != node.args[0] else node

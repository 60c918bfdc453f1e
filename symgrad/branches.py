"""The sides of an ``if`` with an undecided condition, read and merged (a mixin of
``frontend._Reader``).

- ``branch``: one side read on a copy of the environment, with ``depth > 0`` (nothing appended:
  no line runs where the primal does not run it) and the side on ``path``;
- ``merge``: the names after an ``if`` read side by side, each one ``Piecewise`` (``select``);
- ``_after_return``: an ``if`` one side of which returns (or raises) on every path; the other
  side and the rest of the function are top-level code guarded by the condition (``guards``):
  each of their assignments is a line computed only where the rest runs (``guarded``), so a loop
  there is named lines, not one expression repeating every step's value.
"""
import ast

import sympy

from .resolve import RAISES, _constant, _Py, _Undefined


class Branches:
    """``if`` sides and their merge, for ``frontend._Reader`` (which holds ``depth``, ``path``,
    ``guards``, ``block``, ``bind``, ``number``, ``form_of`` and ``remember``)."""

    def branch(self, stmts, frame, side, copy=True):
        """Read ``stmts`` on one side of an ``if``: ``side`` is ``(condition, holds)``."""
        self.depth += 1
        self.path.append(side)
        try:
            return self.block(stmts, frame.branch() if copy else frame)
        finally:
            self.depth -= 1
            self.path.pop()

    def _after_return(self, cond, parts, rest, stmt, frame):
        """An ``if`` one side of which returns (or raises) on every path: that side is read as a
        branch, the other side and the statements after the ``if`` (``rest``) as top-level code
        guarded by the side (``self.guards``): each of their assignments is a line of its own,
        computed only where that side runs (``0 if c else v``), so a long tail (a loop) reads
        as named lines, never as one expression repeating each name's value (exponential in
        the steps of a loop: 160000 tree nodes for 4 steps)."""
        ends = 0 if returns(parts[0]) else 1
        ended = self.branch(parts[ends], frame, (cond, ends == 0))
        side = (cond, ends == 1)  # the tail runs where `cond` is (ends == 1)
        self.depth += 1
        self.path.append(side)
        self.guards.append(side)
        try:
            tail = self.block(parts[1 - ends] + rest, frame.branch())
        finally:
            self.depth -= 1
            self.path.pop()
            self.guards.pop()
        if tail is None:
            self.fail(stmt, frame, "not every path through this `if` returns a value",
                      "add a `return` to each branch or after the `if`")
        return self.select(cond, *((ended, tail) if ends == 0 else (tail, ended)), stmt, frame)

    def guarded(self, value):
        """``value`` as a line of code after an early return: computed only where the code
        runs (``self.guards``), 0 elsewhere; a constant stays itself (it never raises)."""
        if _constant(self._with_constants(value)):
            return value
        for cond, holds in reversed(self.guards):
            value = sympy.Piecewise((value, cond), (0, True)) if holds else sympy.Piecewise(
                (0, cond), (value, True))
        return value

    def merge(self, cond, sides, node, frame):
        """The names after an ``if`` read side by side (``sides``: the frame each side left); a
        side that raises (None) gives way."""
        if None in sides:  # only the other side continues
            side = sides[0] or sides[1]
            for name, value in side.env.items():
                if frame.env.get(name) is not value or \
                        frame.written.get(name) is not side.written.get(name):
                    self.bind(name, value, node, frame, stop=False,
                              written=side.written.get(name))
            return
        then_env, else_env = sides[0].env, sides[1].env
        for name in dict.fromkeys([*then_env, *else_env]):
            a, b = then_env.get(name), else_env.get(name)
            forms = [side.written.get(name) for side in sides]
            if isinstance(a, sympy.Expr) and a is b and forms[0] != forms[1]:  # one SymPy value,
                self.bind(name, a, node, frame, stop=False, written=sympy.Piecewise(  # 2 floats
                    (a if forms[0] is None else forms[0], cond),
                    (b if forms[1] is None else forms[1], True)))
            elif a is b or (isinstance(a, _Py) and isinstance(b, _Py) and a.obj is b.obj):
                frame.env[name] = a
                if forms[0] is None:
                    frame.written.pop(name, None)
                else:
                    frame.written[name] = forms[0]
            elif a is None or b is None or isinstance(a, _Undefined) or isinstance(b, _Undefined):
                frame.env[name] = _Undefined(name)
            elif not _is_value(a) or not _is_value(b):
                frame.env[name] = _Undefined(name, "is bound to different functions or objects "
                                             "on the paths of an `if`")
            else:
                self.bind(name, self.select(cond, a, b, node, frame, forms), node, frame,
                          stop=False)

    def select(self, cond, a, b, node, frame, forms=(None, None)):
        """``a if cond else b`` as a value: a ``Piecewise``, element by element for tuples; the
        other side where one side raises (``RAISES``: its check is in the program already).
        ``forms``: the form the source computes each side in, where known (a name's, after an
        ``if``: ``_Frame.written``), else the one ``remember`` noted on that side (``form_of``)."""
        if a is RAISES or b is RAISES:
            return b if a is RAISES else a
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                self.fail(node, frame, "the branches give tuples of different lengths",
                          "return the same number of values on every path")
            return tuple(self.select(cond, x, y, node, frame) for x, y in zip(a, b))
        a, b = self.number(a, node, frame), self.number(b, node, frame)
        here = tuple(self.path)
        written_a, written_b = (self.form_of(v, here + ((cond, holds),)) if f is None else f
                                for v, f, holds in zip((a, b), forms, (True, False)))
        written_a, written_b = a if written_a is None else written_a, b if written_b is None \
            else written_b
        if a == b and written_a == written_b:
            return a
        chosen = a if a == b else sympy.Piecewise((a, cond), (b, True))  # (a == b: as SymPy)
        if written_a is not a or written_b is not b:
            self.remember(chosen, sympy.Piecewise((written_a, cond), (written_b, True)))
        return chosen


def returns(stmts):
    """Whether ``stmts`` return or raise on every path (a ``return``, a ``raise``, or an ``if``
    both sides of which do, at their top level)."""
    return any(isinstance(s, (ast.Return, ast.Raise)) or isinstance(s, ast.If) and s.orelse and
               returns(s.body) and returns(s.orelse) for s in stmts)


def _is_value(value):
    """A number, a condition or a tuple (what a ``Piecewise`` can choose between)."""
    return isinstance(value, (sympy.Basic, tuple))

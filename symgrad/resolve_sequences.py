"""Sequences of build-time length, for the frontend: ``range``, ``zip``, ``enumerate``,
``reversed``, ``tuple``, ``list``, ``len`` and ``sum`` over them, and comprehensions, each
unrolled into a tuple of values (a mixin of ``resolve.Resolver``).
"""
import ast

import sympy

from . import rules
from .fence import LOOP_HINT


class Sequences:
    """The sequence half of ``resolve.Resolver``."""

    def sequence_builtin(self, obj, node, frame):
        """``range``, ``zip``, ``enumerate``, ``reversed``, ``tuple``, ``list``, ``len``, ``sum``
        over sequences whose length is known when the gradient is built."""
        name = obj.__name__
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, frame, f"`*` arguments to `{name}` are not supported",
                      "pass the sequences one by one")
        keywords = {kw.arg: kw.value for kw in node.keywords}
        allowed = {"zip": {"strict"}, "enumerate": {"start"}, "sum": {"start"}}.get(name, set())
        for kw in node.keywords:
            if kw.arg not in allowed:
                self.fail(kw if kw.arg else node, frame, f"the keyword argument `{kw.arg}` of "
                          f"`{name}` is not supported", "pass positional arguments")
        counts = {"range": (1, 2, 3), "zip": None, "enumerate": (1, 2), "sum": (1, 2)}.get(
            name, (1,))
        if counts is not None and len(node.args) not in counts:
            hint = LOOP_HINT if name == "range" else "check the call"
            self.fail(node, frame, f"{name}() takes {counts[0]} to {counts[-1]} positional "
                      f"arguments" if len(counts) > 1 else f"{name}() takes one argument", hint)
        if name == "range":
            return tuple(sympy.Integer(i) for i in range(*[self.integer(a, frame)
                                                           for a in node.args]))
        if name == "enumerate":
            start_node = node.args[1] if len(node.args) > 1 else keywords.get("start")
            start = 0 if start_node is None else self.integer(start_node, frame)
            items = self.iterable(node.args[0], frame)
            return tuple((sympy.Integer(start + k), v) for k, v in enumerate(items))
        if name == "zip":
            sequences = [self.iterable(a, frame) for a in node.args]
            strict = keywords.get("strict")
            if strict is not None and self.condition(strict, frame) is sympy.true and len(
                    {len(s) for s in sequences}) > 1:
                self.fail(node, frame, f"zip(strict=True) of sequences of lengths "
                          f"{[len(s) for s in sequences]}", "pass sequences of one length")
            return tuple(zip(*sequences))
        if name == "sum":
            items = self.iterable(node.args[0], frame)
            start_node = node.args[1] if len(node.args) > 1 else keywords.get("start")
            total = sympy.Integer(0) if start_node is None else self.number(
                self.value(start_node, frame), start_node, frame)
            written = total if start_node is None else self.written(start_node, frame, total)
            for item in items:  # Python's order: ((start + a) + b) + ...
                total = self.binary(ast.Add(), total, item, node, frame)
                written = rules.Written(sympy.Integer(0), written, self.form_of(item) or item) \
                    if isinstance(written, sympy.Expr) and isinstance(item, sympy.Expr) else None
            self.written_at.pop(node, None)
            if isinstance(written, sympy.Expr) and isinstance(total, sympy.Expr):
                self.written_at[node] = written  # the primal's float: 0 + a + b (-0.0 is 0.0)
            return total
        items = self.iterable(node.args[0], frame)
        if name == "len":
            return sympy.Integer(len(items))
        return tuple(reversed(items)) if name == "reversed" else items

    def iterable(self, node, frame):
        """The items of an iterable expression of build-time length, as a tuple of values."""
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            return self.comprehension(node, frame)
        return self.sequence(self.value(node, frame), node, frame)

    def comprehension(self, node, frame):
        """``(e for a in A for b in B if c)``: the tuple of ``e`` values, each ``for`` unrolled;
        each ``if`` must be decided at build time. Its names stay inside it, as in Python."""
        results = []

        def generate(k, scope):
            if k == len(node.generators):  # an element, as a tuple display's (`unpacked`):
                results.append(self.unpacked(  # the form the source computes it in is kept
                    self.value(node.elt, scope), node.elt, scope))
                return
            gen = node.generators[k]
            if gen.is_async:
                self.reject(gen, frame)
            for item in self.iterable(gen.iter, scope if k else frame):
                # one scope for every iteration, as in Python: a lambda made in the element
                # reads the variable's last value when called (late binding), not its own
                self.assign(gen.target, item, gen.target, scope)
                for test in gen.ifs:
                    cond = self.condition(test, scope)
                    if cond is not sympy.true and cond is not sympy.false:
                        self.fail(test, frame, "an `if` in a comprehension must be decided when "
                                  "the gradient is built", "put the choice in the element: "
                                  "`(e if c else 0.0 for ...)`")
                    if cond is sympy.false:
                        break
                else:
                    generate(k + 1, scope)

        generate(0, frame.scope())
        return tuple(results)

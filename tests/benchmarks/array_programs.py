"""Fuzzed array programs (``Program``: parameters, constants, statements, an ``if``, the returned
scalar; its source and how it shrinks) and ``draw``, which makes one with ``array_program_gen.Gen``
(the expressions, typed by shape: see that module)."""
import copy
import random
import re

from array_program_gen import NAMED, Gen, Node


class Program:
    """A fuzzed array function: ``source()`` the module; ``shapes()`` for ``grad(shapes=)``."""

    def __init__(self, params, fixed, consts, helpers, preludes, statements, branch, terms):
        self.params, self.fixed = params, fixed
        self.consts, self.helpers, self.preludes = consts, helpers, preludes
        self.statements = statements        # [(name, Node)]
        self.branch = branch                # None or (cond Node (scalar), then Node, else Node)
        self.terms = terms                  # [Node] (scalars, summed)

    def shapes(self):
        return {p: tuple(self.fixed.get(a, a) for a in s) for p, s in self.params.items()}

    def source(self):
        body = []
        for name, node in self.statements:
            body.append(f"    {name} = {node.text()}")
        ret = " + ".join(f"({t.text()})" for t in self.terms) or "0.0"
        if self.branch is not None:
            cond, then, other = self.branch
            body += [f"    c = {cond.text()}", "    if c > 0.1:",
                     f"        r = {then.text()}", "    else:", f"        r = {other.text()}",
                     f"    return r + {ret}"]
        else:
            body.append(f"    return {ret}")
        used = "\n".join(body)
        preludes = ["    " + line for label, line in sorted(self.preludes.items())
                    if f"i_{label}" in used]
        helpers = [h for h in self.helpers if h.split("(")[0][4:] + "(" in used]
        consts = [c for c in self.consts if re.search(r"\b" + c.split(" =")[0] + r"\b", used)]
        lines = ["import numpy as np"] + (["import scipy.special"] if "scipy" in used + "".join(
            helpers) else []) + [""] + (["from symgrad import stop_gradient"] if "stop_gradient"
                                        in used + "".join(helpers) else [])
        lines += [""] + consts + [""]
        for h in helpers:
            lines += ["", h]
        lines += ["", f"def f({', '.join(self.params)}):"] + preludes + body
        return "\n".join(lines) + "\n"

    def roots(self):
        out = [node for _, node in self.statements] + list(self.terms)
        if self.branch is not None:
            out += list(self.branch)
        return out

    def size(self):
        return sum(r.size() for r in self.roots())

    def shrunk(self, rng):
        """Smaller programs (each one step smaller), in a random order within kinds."""
        out = []
        for i in range(len(self.terms)):
            if len(self.terms) > 1:
                p = copy.deepcopy(self)
                del p.terms[i]
                out.append(p)
        if self.branch is not None:
            for keep in (1, 2):
                p = copy.deepcopy(self)
                p.terms.append(p.branch[keep])
                p.branch = None
                out.append(p)
        for i, (name, _) in enumerate(self.statements):
            p = copy.deepcopy(self)
            _, node = p.statements.pop(i)
            for root in p.roots():
                _inline(root, name, node)
            out.append(p)
        steps = []
        for r, root in enumerate(self.roots()):
            for j, node in enumerate(root.nodes()):
                for kid in range(len(node.kids)):
                    if node.kids[kid].shape == node.shape:
                        steps.append((r, j, "kid", kid))
                if node.kids:
                    steps.append((r, j, "leaf", None))
        rng.shuffle(steps)
        steps.sort(key=lambda s: s[1])  # nodes near the root first
        for r, j, what, kid in steps:
            p = copy.deepcopy(self)
            node = list(p.roots()[r].nodes())[j]
            if what == "kid":
                replacement = node.kids[kid]
            else:
                replacement = _plain_leaf(p, node.shape)
            node.fmt, node.kids, node.ref = replacement.fmt, replacement.kids, replacement.ref
            out.append(p)
        return out


def _inline(root, name, node):
    for n in root.nodes():
        if n.fmt == name and not n.kids:
            n.fmt, n.kids = "({0})", [copy.deepcopy(node)]


def _plain_leaf(program, shape):
    for name, have in program.params.items():
        if tuple(have) == tuple(shape):
            return Node(shape, name)
    if shape == ():
        return Node(shape, "0.5")
    gen = Gen(random.Random(0), program.params, program.fixed)
    node = gen.broadcast_leaf(shape) if any(isinstance(a, str) for a in shape) else None
    if node is not None and not gen.consts:
        return node
    return Node(shape, f"np.full({gen.shape_text(shape)}, 0.5)")


def draw(rng, special=True, wide=True, folds=None):
    """A random ``Program`` (``rng`` a ``random.Random``; ``wide``: also the rows of
    ``array_program_wide``, ``False`` for ``--narrow``; ``folds``, a ``random.Random`` drawing
    ``array_program_wide.FOLDS`` in place of some unary rows, for ``--folds``)."""
    labels = list(NAMED[:rng.choice([1, 2, 2, 3])])
    fixed = {a: rng.randint(2, 4) for a in labels if rng.random() < 0.25}
    names = ["X", "v", "W", "s"]
    count = rng.choice([1, 2, 2, 3])
    params = {}
    for name in names[:count]:
        rank = rng.choice([0, 1, 1, 2, 2, 2, 3]) if name != "s" else rng.choice([0, 0, 1])
        params[name] = tuple(rng.choice(labels) if rng.random() > 0.12 else 1
                             for _ in range(rank))
        if rank == 2 and rng.random() < 0.25 and params[name][0] != 1:
            params[name] = (params[name][0], params[name][0])
    if all(not s for s in params.values()):
        params[names[0]] = (labels[0],)
    used = {a for s in params.values() for a in s if isinstance(a, str)}
    fixed = {a: v for a, v in fixed.items() if a in used}
    gen = Gen(rng, params, fixed, special, wide, folds)
    depth = rng.choice([2, 3, 3, 4])
    statements = []
    for i in range(rng.choice([0, 0, 1, 2])):
        shape = gen.random_shape()
        statements.append((f"t{i}", gen.expr(shape, depth)))
        gen.interms.append((f"t{i}", shape))
    branch = None
    if rng.random() < 0.25:
        branch = (gen.expr((), depth - 1), gen.expr((), depth), gen.expr((), depth))
    terms = [gen.expr((), depth) for _ in range(rng.choice([1, 1, 2]))]
    return Program(params, fixed, gen.consts, gen.helpers, gen.preludes, statements, branch,
                   terms)

"""Step 1 of working in place (``array_buffers.reuse_buffers``): each name the code invented and
reads once is inlined into the line that reads it (``H = np.tanh(b1 + X @ W1)``), so the in-place
steps see whole elementwise lines; and the first ``z[i] += g`` into a fresh zero buffer is a store.
"""
import ast
import copy

from .array_facts import reads, ufunc_of
from .fence import dotted


def plain(stmt):
    """An assignment of a name at the top level (the only statements moved or merged)."""
    return isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)



def inline(body, inlinable, shapes):
    """Inline each single-use ``inlinable`` name into its reader (first candidate from the top,
    then again), keeping each statement's reads until it changes: linear passes, not a walk of
    the whole body per inlined name (an unrolled loop of 40 steps has ~500 statements)."""
    read = {}  # id(statement) -> (statement, the names it reads)

    def reads_of(stmt):
        found = read.get(id(stmt))
        if found is None or found[0] is not stmt:
            found = read[id(stmt)] = (stmt, reads(stmt))
        return found[1]
    counts = {}
    for stmt in body:
        for name in reads_of(stmt):
            counts[name] = counts.get(name, 0) + 1
    version, gone = {}, set()  # id(statement) -> times rewritten; ids of inlined statements
    failed = {}  # id(statement) -> (it, its reader, the reader's version) when not inlinable
    changed = True
    while changed:
        changed = False
        for i, stmt in enumerate(body):
            if not plain(stmt) or stmt.targets[0].id not in inlinable:
                continue
            name = stmt.targets[0].id
            if counts.get(name) != 1:
                continue
            known = failed.get(id(stmt))
            if known is not None and known[0] is stmt and id(known[1]) not in gone and \
                    version.get(id(known[1]), 0) == known[2]:
                continue  # its reader is unchanged: still not inlinable
            j = next(k for k in range(i + 1, len(body)) if name in reads_of(body[k]))
            if not all(plain(s) for s in body[i + 1:j + 1]) or not _on_spine(body[j].value,
                                                                               name):
                failed[id(stmt)] = (stmt, body[j], version.get(id(body[j]), 0))
                continue
            if name in shapes:  # what the program knows of the value goes with it
                stmt.value.symgrad_shape = shapes[name]
            for n in reads_of(body[j]) + reads_of(stmt):
                counts[n] -= 1
            body[j] = _Substitute(name, stmt.value).visit(body[j])
            version[id(body[j])] = version.get(id(body[j]), 0) + 1
            read.pop(id(body[j]), None)
            for n in reads_of(body[j]):
                counts[n] = counts.get(n, 0) + 1
            gone.add(id(stmt))
            failed[id(stmt)] = (stmt, stmt, -1)  # keeps it alive: its id is never reused
            del body[i]
            changed = True
            break
    return body


def _on_spine(node, name):
    """Whether ``name`` is read in ``node`` through elementwise operations only (where the
    line could still be computed in place), not inside ``@``, a reduction or a call."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        return _on_spine(node.left, name) or _on_spine(node.right, name)
    if isinstance(node, ast.UnaryOp):
        return _on_spine(node.operand, name)
    if isinstance(node, ast.Call) and ufunc_of(node) is not None:
        return any(_on_spine(a, name) for a in node.args)
    return False


class _Substitute(ast.NodeTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.value)
        return node


def first_stores(body):
    """The first ``z[i] += g`` right after ``z = np.zeros(shape)`` (or ``np.zeros_like(p,
    shape=...)``) as ``z[i] = g``."""
    out = []
    for stmt in body:
        previous = out[-1] if out else None
        if (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and
                isinstance(stmt.target, ast.Subscript) and
                isinstance(stmt.target.value, ast.Name) and plain(previous) and
                previous.targets[0].id == stmt.target.value.id and
                isinstance(previous.value, ast.Call) and
                dotted(previous.value.func) in ("np.zeros", "np.zeros_like") and
                stmt.target.value.id not in reads(stmt.value)):
            out.append(ast.Assign([stmt.target], stmt.value, lineno=None))
            continue
        out.append(stmt)
    return out

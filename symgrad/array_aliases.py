"""The last step of working in place (``array_buffers.reuse_buffers``): no line only gives a
second name to an array (``_t1 = Z``, ``_dZ = _t1``) before work on it in place.

Working in place computes a new value in a dead buffer, which prints as the buffer under the new
name first (``_dZ = _t1``, then ``_dZ -= Y``). From that line on the two names are one object, so
one of them can stand for both in the whole body: the name an invented one (``_t1``, an adjoint
``_dZ``, an anonymous ``product``) is replaced by the other, and the line goes. Hand-written NumPy
reads the same way (``np.exp(Z, out=Z); Z -= Y``). When both names are the program's own (a
primal variable, a result, a stopped value), the line is joined to the in-place line after it:
``dq = np.subtract(q, t, out=q)`` (the same ufunc ``dq -= t`` calls, on the same buffer).
"""
import ast

_UFUNCS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide",
           ast.Pow: "power"}


def without_aliases(body, renameable, arrays, join=True):
    """``body`` (straight-line, every name bound once) without its alias lines.

    Args:
        body: the statements (the last one the ``return``); not modified.
        renameable: the names the code invented, which may disappear.
        arrays: the names known to hold arrays of at least one axis (``t *= u`` updates them in
            place, so a name reading the same object after such a line sees the same values).
        join: whether an alias of two kept names may be joined to the in-place line after it
            (NumPy code only: the lazy and PyTorch codes keep the line).

    Returns:
        A new list of statements.
    """
    names = [_names(stmt) for stmt in body]
    updated = [_updated(stmt) for stmt in body]
    parent = {}

    def root(name):
        while name in parent:
            name = parent[name]
        return name
    aliases, joins = set(), set()
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Name)):
            continue
        new, old = root(stmt.targets[0].id), root(stmt.value.id)
        if new == old:
            continue
        later = [root(n) for k in range(i + 1, len(body)) for n in names[k]]
        changed = {root(n) for k in range(i + 1, len(body)) for n in updated[k]}
        both_read = new in later and old in later
        shared = stmt.targets[0].id in arrays or stmt.value.id in arrays
        if both_read and (changed & {new, old}) and not shared:
            continue  # `a = b; a *= 2` on a float: a new value, no longer b's
        if new in renameable:
            parent[new] = old
        elif old in renameable:
            parent[old] = new
        elif join and stmt.value.id in arrays and i + 1 < len(body) and _joinable(
                body[i + 1], stmt.targets[0].id):
            joins.add(i)
            continue
        else:
            continue
        aliases.add(i)
    out, skip = [], False
    for i, stmt in enumerate(body):
        if skip:
            skip = False
            continue
        if i in aliases:
            continue
        stmt = _Rename(root).visit(_copy(stmt))
        if i in joins:
            out.append(_joined(stmt, _Rename(root).visit(_copy(body[i + 1]))))
            skip = True
            continue
        out.append(stmt)
    return out


def _copy(stmt):
    import copy
    return copy.deepcopy(stmt)


def _names(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}


def _updated(stmt):
    """The names a statement updates in place or binds again (``t *= u``, ``t = float(t)``)."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, ast.Assign):
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return set()


def _joinable(stmt, target):
    """Whether ``stmt`` is ``target op= u`` (a ufunc's operator) or ``np.f(..., out=target)``."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == target and \
            type(stmt.op) in _UFUNCS
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and any(
        k.arg == "out" and isinstance(k.value, ast.Name) and k.value.id == target
        for k in stmt.value.keywords)


def _joined(alias, update):
    """``t = b`` and the update of ``t`` after it as one line: ``t = np.f(b, u, out=b)``."""
    new, old = alias.targets[0].id, alias.value.id
    if isinstance(update, ast.AugAssign):
        func = ast.Attribute(ast.Name("np", ast.Load()), _UFUNCS[type(update.op)], ast.Load())
        call = ast.Call(func, [ast.Name(old, ast.Load()), update.value],
                        [ast.keyword("out", ast.Name(old, ast.Load()))])
    else:
        call = _Rename(lambda name: old if name == new else name).visit(update.value)
    return ast.Assign([ast.Name(new, ast.Store())], call, lineno=None)


class _Rename(ast.NodeTransformer):
    def __init__(self, root):
        self.root = root

    def visit_Name(self, node):
        node.id = self.root(node.id)
        return node

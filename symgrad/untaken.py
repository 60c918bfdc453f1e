"""The double-``where`` guard: the branch not taken computes on safe arguments.

A ``where(c, a, b)`` evaluates both ``a`` and ``b`` on every element. Its value is right (the
untaken side is thrown away), but the untaken side may compute ``inf`` or ``nan`` (``log(-2)``,
``1 / 0``, ``exp(800)``): NumPy warns about it, and differentiating the printed code again (JAX's
``jax.grad`` of a symgrad gradient) multiplies the zero cotangent of the untaken side by that
``inf``: ``0 * inf`` is ``nan`` (JAX's FAQ, "gradients contain NaN where using where"). The guard
gives each function of the table that can overflow or leave its domain, each denominator and each
base of a power that is not a whole number a safe argument where its side is not taken:
``jnp.where(x > 0.0, 0.5 / jnp.sqrt(jnp.where(x > 0.0, x, 1.0)), 0.0)``. Where the side is taken
the inner ``where`` gives its argument itself, so every value is the float it was; where it is not
taken everything computed is finite, with a finite derivative.

``guard(node, condition, taken)`` rewrites a printed side; ``printer.Printer.where_node`` calls it
for the backends whose code is differentiated again or warns (``GUARDED``), and on the others
for the denominators of the sizes alone (``1.0 / (n - 3.0)``, a Python number that would raise
ZeroDivisionError at 3 elements on the side not taken: ``size_denominators``).
"""
import ast
import copy

from .fence import dotted
from .size_denominators import may_be_zero, of_sizes

GUARDED = ("jax", "array_api")
"""The backends whose ``where`` sides are guarded: JAX (``jax.grad`` through the gradient), the
Array API (JAX arrays, and NumPy arrays, which warn about what the untaken side computes)."""

SAFE = {  # NumPy spelling -> a safe argument per position (None: left as it is)
    "np.log": (1.0,), "np.log1p": (0.0,), "np.sqrt": (1.0,), "np.exp": (0.0,),
    "np.expm1": (0.0,), "np.sinh": (0.0,), "np.cosh": (0.0,), "np.tan": (0.0,),
    "np.arcsin": (0.0,), "np.arccos": (0.0,), "np.arctanh": (0.0,), "np.arccosh": (2.0,),
    "np.arctan2": (1.0, 1.0), "np.power": (1.0, None), "np.cbrt": (1.0,),
    "scipy.special.logit": (0.5,), "scipy.special.gammaln": (1.0,),
    "scipy.special.digamma": (1.0,), "scipy.special.xlogy": (None, 1.0),
    "scipy.special.polygamma": (None, 1.0),
}
"""A point inside each function's domain (and away from its poles), where the function and its
derivative are finite."""

_POSITIVE = frozenset({"np.exp", "np.sqrt", "np.cosh"})
"""Functions positive at their safe argument: a denominator built from them and positive numbers
needs no guard of its own."""


def spellings(spelled):
    """The table ``SAFE`` keyed by the printed names of a backend: ``spelled(numpy_name)`` gives
    the name the backend prints (``jnp.log``, ``xp.asin``, ``jax.scipy.special.logit``)."""
    table = {}
    for name, safe in SAFE.items():
        printed = spelled(name)
        if printed:
            table[printed] = (safe, name in _POSITIVE)
    return table


def guard(node, condition, taken, table, where, elementwise=None, numbers=None, sizes=None,
          kept=frozenset()):
    """``node`` (a printed side of a ``where``, modified) with every guarded argument made safe
    where the side is not taken: ``where(condition, u, safe)`` for the side taken where
    ``condition`` holds (``taken``), ``where(condition, safe, u)`` for the other.

    Args:
        node: the side's ``ast`` expression.
        condition: the ``where``'s condition, printed (copied at each use).
        taken: True for the side chosen where ``condition`` holds.
        table: ``spellings(...)`` of the backend.
        where: the backend's printed ``where`` function (an ``ast`` expression).
        elementwise: the printed names of the elementwise functions (None: every call is taken
            as one). The guard does not look inside any other call, a subscript or ``@``: its
            ``where`` broadcasts an argument to the condition's shape, which an elementwise
            function keeps (the side is broadcast to it anyway) but a contraction, a reduction
            or a reshape does not (array fuzzer 13-114: ``jnp.einsum(',ij->ij', 1.0,
            log(where(c, u, 1.0)))`` with ``c`` of rank 3).
        numbers: a guarded argument that prints as a Python number (``n * n``) as an array,
            or None when it is not one (None: arguments as they are).
        sizes: the names of the sizes (and of common terms of them), or None. A denominator of
            the sizes alone (``size_denominators.of_sizes``) is guarded where it may be 0 (``n -
            3.0``, not ``n + 1.0``): a Python number, Python's ``1.0 / 0.0`` would raise
            ZeroDivisionError on the side not taken. With an empty ``table`` (the backends
            outside ``GUARDED``) those are the only arguments guarded.
        kept: the ``ast.dump`` of denominators of the sizes left as they are (those the other
            side divides by too: the gradient divides by them on every path, and
            ``array_emit`` checks them before any arithmetic).

    Returns:
        The rewritten expression.
    """
    def safe(argument, value):
        if isinstance(argument, ast.Constant) or _is_number(argument):
            return argument
        number = ast.Constant(value)
        array = numbers(argument) if numbers is not None else None
        argument = argument if array is None else array
        pair = [argument, number] if taken else [number, argument]
        return ast.Call(copy.deepcopy(where), [copy.deepcopy(condition)] + pair, [])

    def visit(n):
        if not _elementwise(n, elementwise, where):
            return n
        for field, value in ast.iter_fields(n):
            if isinstance(value, ast.expr):
                setattr(n, field, visit(value))
            elif isinstance(value, list):
                setattr(n, field, [visit(v) if isinstance(v, ast.expr) else v for v in value])
        if isinstance(n, ast.Call) and dotted(n.func) in table and not n.keywords:
            values = table[dotted(n.func)][0]
            n.args = [safe(a, v) if v is not None else a for a, v in zip(n.args, values)] + \
                n.args[len(values):]
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            if sizes is not None and of_sizes(n.right, sizes):
                if may_be_zero(n.right) and ast.dump(n.right) not in kept:
                    n.right = safe(n.right, 1.0)
            elif table and not _positive(n.right, table):
                n.right = safe(n.right, 1.0)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and not _whole(n.right) \
                and table:
            n.left = safe(n.left, 1.0)
        return n

    return visit(node)


def _elementwise(node, names, where):
    """Whether the guard may rewrite inside ``node``: what it computes keeps its arguments'
    broadcast shape."""
    if isinstance(node, (ast.Subscript, ast.Attribute)) or isinstance(node, ast.BinOp) and \
            isinstance(node.op, ast.MatMult):
        return False
    if isinstance(node, ast.Call) and names is not None:
        return dotted(node.func) in names or dotted(node.func) == dotted(where)
    return True


def _is_number(node):
    return isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)


def _whole(node):
    """A literal exponent that is a whole number >= 0 (``x ** 2``, ``x ** 3.0``)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
        not isinstance(node.value, bool) and node.value >= 0 and float(node.value).is_integer()


def _positive(node, table):
    """Whether ``node`` is positive where its side is not taken, once guarded: a positive
    number, a positive function of the table (``exp``, ``sqrt``, ``cosh`` at their safe
    argument), or sums and products of those."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and node.value > 0
    if isinstance(node, ast.Call):
        found = table.get(dotted(node.func))
        return found is not None and found[1]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        return _positive(node.left, table) and _positive(node.right, table)
    return False


def name_conditions(body, names, where):
    """``body`` (printed statements) with each ``where`` condition the guard repeats named once:
    ``_t0 = margin > 0.0`` before the line, then ``jnp.where(_t0, -(jnp.exp(jnp.where(_t0,
    -margin, 0.0)) ...``. A condition is named when it appears twice or more in one statement (the
    guard copies it into each side), and a later statement reads the name while none of the names
    it reads has been assigned again. Only plain statements (and those of a ``with``) are
    rewritten: a condition computed before a block that may not run could read a name it defines.

    Args:
        body: the statements (rewritten in place and returned as a new list).
        names: the names in use; each ``_t<k>`` taken is added.
        where: the backend's dotted name of ``where`` ("jnp.where", "xp.where").

    Returns:
        The statements, with a ``_t<k> = condition`` line before each first use.
    """
    named = {}  # ast.dump(condition) -> (name, the names the condition reads)
    return _name_block(body, names, where, named)


def _name_block(body, names, where, named):
    out = []
    for stmt in body:
        if isinstance(stmt, ast.With):
            stmt.body = _name_block(stmt.body, names, where, named)
            out.append(stmt)
            continue
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
            out.extend(_name_statement(stmt, names, where, named))
        else:
            out.append(stmt)
            named.clear()  # a block: what it assigns is not followed
        assigned = set()
        for n in ast.walk(stmt):  # x = ..., and x[1:] += g: what x holds changes
            if not isinstance(getattr(n, "ctx", None), ast.Store):
                continue
            while isinstance(n, (ast.Subscript, ast.Attribute)):
                n = n.value
            if isinstance(n, ast.Name):
                assigned.add(n.id)
        for key in [k for k, (_, reads) in named.items() if reads & assigned]:
            del named[key]
    return out


def _conditions(node, where):
    """The conditions of the ``where`` calls in ``node``, outermost first."""
    found = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and dotted(n.func) == where and n.args and \
                not isinstance(n.args[0], (ast.Name, ast.Constant)):
            found.append(n.args[0])
    return found


def _name_statement(stmt, names, where, named):
    before = []
    while True:
        counts = {}
        for condition in _conditions(stmt, where):
            key = ast.dump(condition)
            counts[key] = counts.get(key, 0) + 1
        key = next((k for k in counts if k in named or counts[k] > 1), None)
        if key is None:
            return before + [stmt]
        if key not in named:
            condition = next(c for c in _conditions(stmt, where) if ast.dump(c) == key)
            k = 0
            while f"_t{k}" in names:
                k += 1
            names.add(f"_t{k}")
            reads = {n.id for n in ast.walk(condition) if isinstance(n, ast.Name)}
            line = ast.Assign([ast.Name(f"_t{k}", ast.Store())], copy.deepcopy(condition),
                              lineno=None)
            before.extend(_name_statement(line, names, where, named))
            named[key] = (f"_t{k}", reads)
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call) and dotted(n.func) == where and n.args and \
                    ast.dump(n.args[0]) == key:
                n.args[0] = ast.Name(named[key][0], ast.Load())

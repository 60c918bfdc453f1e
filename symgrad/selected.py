"""What the generated code evaluates only where the primal would: for ``emit``.

The primal evaluates the operands of ``a if c else b``, ``and`` and ``or`` after the first only on
one side, and never evaluates ``math.log(x)`` for ``x ** e``. A derivative may multiply such a
term by a branch that is 0 where the term is not needed (``e = 3.0 if x else y``: de/dy is
``0.0 if x != 0.0 else 1.0``), so the product is printed as that branch, the term inside its
nonzero side only; a derivative line used only there is moved into it.
"""
import sympy

from .program import Check
from .realpower import RealValue
from .functions import AndThen, Branch, OrElse, Undefined, Value
from .rules import Written


MAY_RAISE = (sympy.log, Undefined, RealValue)
"""What may raise where the primal does not: a power's exponent term ``math.log(x)``, an
undefined value, a complex value checked as real (``realpower.RealValue``)."""
LAZY = (Branch, AndThen, OrElse, sympy.ITE)
"""Nodes whose later operands run only on one side (``a if c else b``, ``and``, ``or``)."""


def selected(expr):
    """``expr`` with each product of a branch that is 0 on some side (the derivative of a value
    chosen by an ``if``: ``0.0 if x != 0.0 else 1.0``) and a factor that may raise where the primal
    does not (``math.log(x)`` of a power's exponent term) written as that branch, the other factor
    inside its nonzero sides only: ``x ** (3.0 if x else y)`` at x = -1 has derivative 0 in y,
    where ``log(-1)`` would raise.

    Args:
        expr: a SymPy expression (a derivative).

    Returns:
        The same value as a SymPy expression (0 times a finite value is 0).
    """
    if expr.is_Atom or isinstance(expr, (Value, Written, sympy.logic.boolalg.Boolean)) or \
            not expr.has(*MAY_RAISE):
        return expr
    args = [selected(a) for a in expr.args]
    expr = expr.func(*args) if args != list(expr.args) else expr
    if expr.is_Mul:
        for factor in expr.args:
            if isinstance(factor, sympy.Piecewise) and any(e == 0 for e, _ in factor.args):
                rest = sympy.Mul(*[f for f in expr.args if f is not factor])
                if rest.has(*MAY_RAISE):
                    return sympy.Piecewise(*[(e if e == 0 else e * rest, c)
                                             for e, c in factor.args])
    return expr


def _zero_on_a_side(expr):
    return isinstance(expr, sympy.Piecewise) and any(e == 0 for e, _ in expr.args)


def _guarded(lines, written):
    """Each use, in a product with a factor that may raise, of a line that is 0 on a side of a
    branch (``df_da = 0.0 if a != 0.0 else 1.0``), written with that branch around it (``0.0 if
    a != 0.0 else df_da * x * <raises>``): the raising factor runs only where the line is not
    0, as ``selected`` puts it."""
    users = {}
    for j, (_, expr) in enumerate(lines):
        for symbol in expr.free_symbols:
            users.setdefault(symbol, []).append(j)
    for target, expr in list(lines):
        if target is None or target in written or isinstance(expr, Check) or \
                not _zero_on_a_side(expr):
            continue
        guard = sympy.Piecewise(*[(e if e == 0 else target, c) for e, c in expr.args])
        for j in users.get(target, ()):
            user_target, user = lines[j]
            if user_target in written or isinstance(user, Check) or not user.has(*MAY_RAISE):
                continue
            candidate = user.xreplace({target: guard})
            rewritten = selected(candidate)
            if rewritten != candidate:  # a product selected it
                lines[j] = (user_target, rewritten)
    return lines


def inlined_where_selected(lines, written):
    """``lines`` with each derivative line that may raise (``math.log(x)``) and is used once, as
    a factor of a product ``selected`` rewrites, moved into that use: the adjoint ``df_de`` of
    ``e = 3.0 if x else y`` in ``x ** e`` is needed only where ``e`` is ``y``. A line that is 0
    on one side of a branch, in a product with a factor that may raise, puts its branch around
    that product (``_guarded``: the adjoint of ``a = -(-0.5) ** u`` under ``if a: return 0.5``,
    times the power's derivative).

    Args:
        lines: ``(target, expr)`` pairs in program order: a symbol and a SymPy expression, or
            ``(None, Check)``.
        written: the targets of the primal's own lines (never moved: the primal computes them).

    Returns:
        The new list of pairs (a moved line left out).
    """
    lines = list(lines)
    users = {}  # symbol -> the lines reading it (a line inlined reads only earlier symbols)
    for j, (_, expr) in enumerate(lines):
        for symbol in expr.free_symbols:
            users.setdefault(symbol, []).append(j)
    for k, (target, expr) in enumerate(lines):
        if target is None or target in written or isinstance(expr, Check) or not expr.has(
                *MAY_RAISE) or len(users.get(target, ())) != 1 or isinstance(
                lines[users[target][0]][1], Check):
            continue
        user_target, user = lines[users[target][0]]
        inlined = user.xreplace({target: expr})
        if selected(inlined) != inlined:  # the use selects it: computed there only
            lines[users[target][0]] = (user_target, inlined)
            lines[k] = (target, None)
    return _guarded([(t, e) for t, e in lines if e is not None], written)

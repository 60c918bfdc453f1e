"""Denominators of the sizes: what printed array code divides by that is computed from the sizes
alone (``1.0 / (n - 3.0)``, ``x / n``, the count of a slice ``max(0.0, n - 2.0)``), a Python
number, which raises ZeroDivisionError at 0 where NumPy's float64 division would give inf or nan.

- ``of_sizes``: whether a printed expression is one (size names, numbers, arithmetic, Python's
  ``max`` and ``min``);
- ``zero_points``: the sizes at which it is 0, when they are known;
- ``may_be_zero``: whether a call of this build may meet it at 0.

``array_emit`` checks those the gradient divides by on every path (``if n - 3.0 == 0: raise
ValueError(...)``); ``untaken.guard`` makes those on one side of a ``where`` safe where the side
is not taken (``1.0 / np.where(c, n - 3.0, 1.0)``).
"""
import ast
import operator

import sympy

from .program import DivisionCheck
from .shapes import is_dim

_ARITHMETIC = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop,
               ast.expr_context)


def _clamps(node):
    """The ``id`` of the function name of each call of Python's ``max`` or ``min`` in ``node``
    (the count of a slice: ``max(0.0, n - 2.0)``)."""
    return {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(
        n.func, ast.Name) and n.func.id in ("max", "min") and not n.keywords}


def size_names(node):
    """The names ``node`` reads, but ``max`` and ``min`` themselves."""
    calls = _clamps(node)
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in calls]


def of_sizes(node, sizes):
    """Whether the printed expression ``node`` is computed from the names ``sizes`` (the sizes, and
    common terms of them) and numbers alone, with at least one of the names: ``n - 3.0``,
    ``max(0.0, n - n // 2)``."""
    names, calls = size_names(node), _clamps(node)
    return bool(names) and all(n in sizes for n in names) and all(
        isinstance(n, _ARITHMETIC) or isinstance(n, ast.Call) and id(n.func) in calls
        for n in ast.walk(node))


def zero_points(denominator):
    """The sizes at which ``denominator`` (the AST of an expression of size names and numbers) is
    0 in a call of this build, as a set of ``(size name, value)``, or None when they are not
    known (it is not a product of factors linear in one size each: it may be 0 anywhere).

    ``2 * n`` is 0 only where ``n`` is; ``n - 1`` at ``n = 1`` (np.var with ``ddof=1``): a call
    through the gradient object at size 1 takes a build of its own (``specialise``: the axis is the
    number 1 there), but the code of a general size, exported or called as ``.function``, may
    meet it. ``n + 1.0`` is 0 at no size: the empty set."""
    operators = {ast.Add: sympy.Add, ast.Mult: sympy.Mul,
                 ast.Sub: lambda a, b: sympy.Add(a, sympy.Mul(-1, b))}

    def value(node):
        if isinstance(node, ast.Name):
            return sympy.Symbol(node.id, integer=True, nonnegative=True)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return sympy.Rational(node.value)  # exact: the float's binary value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](value(node.left), value(node.right))
        raise TypeError  # a division, a power, a call: not a product of linear factors
    try:
        expression = value(denominator)
    except TypeError:
        return None
    expression = sympy.expand(expression)
    if expression == 0:  # 0 whatever the sizes
        return None
    points = set()
    for factor, _ in sympy.factor_list(expression)[1]:
        symbols = factor.free_symbols
        if len(symbols) != 1 or sympy.degree(factor, *symbols) != 1:
            return None
        size = next(iter(symbols))
        slope, offset = sympy.Poly(factor, size).all_coeffs()
        root = -offset / slope
        if root.is_integer and root >= 0:
            points.add((size.name, int(root)))
    return points


def may_be_zero(denominator):
    """Whether a denominator of the sizes may be 0 at the sizes of some call (``n - 3.0``, ``n``;
    not ``n + 1.0``, ``2.0 + n * n``)."""
    return zero_points(denominator) != set()


def divided_by(node, sizes):
    """The ``ast.dump`` of each denominator of the sizes (``of_sizes``) that ``node`` divides by
    (``/``, ``//``, ``%``) and that may be 0."""
    return {ast.dump(n.right) for n in ast.walk(node) if isinstance(n, ast.BinOp) and isinstance(
        n.op, (ast.Div, ast.FloorDiv, ast.Mod)) and of_sizes(n.right, sizes) and
        may_be_zero(n.right)}


_PYTHON = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def python_division(op, numerator, denominator, path, written=None):
    """The ``DivisionCheck`` of ``numerator <op> denominator`` read from the source, where both
    are Python numbers (numbers and sizes: ``2.0 / (len(x) - 3)``, ``len(x) // (n - 1)``) and the
    denominator is a size that may be 0, else None: Python raises ZeroDivisionError there (with
    its own message, ``float division by zero``), on the ``path`` (the ``if`` sides around it).
    A division by a size known 0 on every path is left to the reader (undefined everywhere).
    ``written``: the numerator's AST, a float where it has a float literal or a ``/`` (SymPy
    reads ``2.0`` as the integer 2), for Python's message."""
    def python_number(value):
        return isinstance(value, sympy.Expr) and (value.is_Number or value.is_integer is True) \
            and all(is_dim(s) for s in value.free_symbols)
    if type(op) not in _PYTHON or not (python_number(numerator) and python_number(denominator)) \
            or not denominator.is_integer:
        return None
    zero = sympy.Eq(denominator, 0)
    if zero is sympy.false or zero is sympy.true and not path:
        return None
    try:
        floating = not numerator.is_integer or written is not None and any(
            isinstance(n, ast.Constant) and isinstance(n.value, float) or isinstance(n, ast.Div)
            for n in ast.walk(written))
        _PYTHON[type(op)](1.0 if floating else 1, 0)
    except ZeroDivisionError as exc:
        message = str(exc)
    test = () if zero is sympy.true else ((zero, True),)
    return DivisionCheck(test + tuple(path), "ZeroDivisionError", message)

"""Formulas SymPy writes with ``I`` for a real program, kept as Python computes them instead.

SymPy's symbols are real, and SymPy simplifies a power of a negative expression by taking out
``(-1) ** e``: ``sqrt(-y**2)`` is ``I*Abs(y)``, so the derivative of ``acos(sqrt(y**2 + 1))``,
``-1/sqrt(1 - (y**2 + 1))``, becomes ``I*y/(sqrt(y**2 + 1)*Abs(y))``, which no backend prints (and
which is not what Python computes). Python evaluates the formula in float: ``math.sqrt`` of a
negative number raises ``ValueError`` (at ``y = 0``, ``1 / math.sqrt(0.0)`` raises
``ZeroDivisionError``), as for ``math.acos(1.5)`` (docs/conventions.md, "Infinite or undefined
derivatives"). Where SymPy would write ``I`` from arguments that hold none, the expression is built
again from its arguments held as ``functions.Value`` (opaque to SymPy, printed as the argument,
derivative 1), so SymPy cannot take the sign out and the code computes the formula as written.
"""
import sympy

from .functions import Value


def real_built(build, args):
    """``build(*args)``, or, where SymPy's result is written with ``I`` though ``args`` are not,
    ``build`` of the arguments held as ``Value`` (a number stays itself). SymPy's ``I`` comes
    out at the top of what it builds (``I*Abs(y)``, ``(0.59 + 0.81*I)*Abs(y)**0.6``, ``log(y) +
    I*pi``), so only the first levels are looked at: a substitution rebuilds every node, and a
    full walk of each would be quadratic.

    Args:
        build: callable(*args) → a SymPy expression (a function or operator class).
        args: SymPy expressions.

    Returns:
        A SymPy expression.
    """
    value = build(*args)
    if not _imaginary(value) or any(_imaginary(a) for a in args):
        return value
    return build(*_held(args))


def real_partial(node, index):
    """``node.fdiff(index)`` (SymPy's derivative of a function in its ``index``-th argument,
    1-based), computed on the arguments held as ``Value`` where SymPy writes it with ``I``
    (``acos(sqrt(y**2 + 1))``: ``-1/sqrt(1 - Value(sqrt(y**2 + 1))**2)``, which raises where
    Python's formula does).

    Args:
        node: a SymPy function application.
        index: the argument, from 1.

    Returns:
        A SymPy expression.
    """
    partial = node.fdiff(index)
    if not _imaginary(partial) or any(_imaginary(a) for a in node.args):
        return partial
    return node.func(*_held(node.args)).fdiff(index)


def _held(args):
    return [a if a.is_Number else Value(a) for a in args]


def _imaginary(expr, depth=4):
    """Whether ``expr`` holds ``I`` within its first ``depth`` levels."""
    if expr is sympy.I:
        return True
    return depth > 0 and isinstance(expr, sympy.Basic) and not expr.is_Atom and any(
        _imaginary(a, depth - 1) for a in expr.args)

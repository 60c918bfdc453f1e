"""Stores into a selection that may be empty, in code that may meet Dask arrays (the lazy
specialisation, the Array API): Dask's ``__setitem__`` (2026.8) raises ``ValueError: shape
mismatch`` for any array stored into an empty selection of an array of rank 2 or more
(``z[:, 1:n - 1] = v`` at ``n = 2``, the adjoint of ``np.sum(x[:, 1:n - 1], axis=1)``; array
fuzzer 130-34, 130-329), where NumPy stores nothing. A store into a selection empty whatever the
sizes is left out; one empty at some sizes is printed under ``if z[spec].size:`` (the size of
a Dask selection is known without computing it); one that cannot be empty is printed as it is.
"""
import ast

import sympy

from .shapes import is_dim

EMPTY, MAYBE, FULL = "empty", "maybe", "full"


def _length(item, size):
    """How many steps of ``|step|`` the slice ``item`` spans along an axis of ``size`` (a
    SymPy expression; positive where the selection is not empty)."""
    _, start, stop, step = item
    step = 1 if step is None else step

    def at(bound):  # a negative int counts from the end
        return size + bound if isinstance(bound, int) and bound < 0 else bound
    if step > 0:
        low = 0 if start is None else sympy.Max(at(start), 0)
        high = size if stop is None else sympy.Min(at(stop), size)
        return high - low
    high = size - 1 if start is None else sympy.Min(at(start), size - 1)
    low = -1 if stop is None else sympy.Max(at(stop), -1)
    return high - low


def selection(spec, shape):
    """``EMPTY``, ``MAYBE`` or ``FULL``: whether ``x[spec]`` of an ``x`` of ``shape`` selects no
    element at every size, at some (a size of 2 or more: a size of 1 is fixed when the gradient
    is built), or never."""
    if len(spec) > len(shape):
        return FULL
    status = FULL
    for item, size in zip(spec, shape):
        if item[0] != "slice" or item[1:3] == (None, None):
            continue
        if not all(b is None or isinstance(b, (int, sympy.Basic)) for b in item[1:]):
            return FULL  # bounds printed already: not asked (the stores NumPy's form runs)
        length = sympy.sympify(_length(item, sympy.sympify(size)))
        if length.is_number:
            if length <= 0:
                return EMPTY
            continue
        dims = [s for s in length.free_symbols if is_dim(s)]
        shifted = length.xreplace({d: sympy.Symbol(d.name + "_less_2", integer=True,
                                                   nonnegative=True) + 2 for d in dims})
        if not (shifted > 0) is sympy.true:
            status = MAYBE
    return status


def guarded(statements, target, index, status):
    """``statements`` (a store into ``target[index]``, ``index`` printed) for ``status``: none
    for ``EMPTY``, under ``if target[index].size:`` for ``MAYBE``."""
    if status == EMPTY:
        return []
    if status == MAYBE:
        size = ast.Attribute(ast.Subscript(ast.Name(target, ast.Load()), index, ast.Load()),
                             "size", ast.Load())
        return [ast.If(size, statements, [])]
    return statements

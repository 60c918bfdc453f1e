"""The adjoint of step-1 slices on JAX (``array_index_backends``): the cotangents put back in
place by padding with zeros, as ``jax.grad`` does (2.5x faster than ``.at[a:b].add`` on a zero
buffer under XLA).

Several slices of one axis (``x[1:]`` and ``x[:-1]``: a shifted difference) are added where all
of them cover and padded once, the edges set: ``jnp.pad(a[1:] + b[:-1], (1, 1)).at[0].set(a[0])
.at[-1].set(b[-1])`` (``_cells``), where the sum of pads ``jnp.pad(a, (0, 1)) + jnp.pad(b, (1,
0))`` compiles to a loop of masked loads that LLVM does not merge (docs/backends.md). The same
additions in the same order: eager, the values are bit for bit those of the sum of pads (but an
edge of ``-0.0``, which the pad adds to ``0.0``). The sum of pads stays where the cut points'
order is not known when the gradient is built, or more than one axis is sliced.
"""
import ast

import sympy

from .array_nodes import _call, int_ast
from .program import fresh_name


def _padded(spec):
    """Whether the adjoint of ``x[spec]`` is a padding of the cotangent: slices of step 1."""
    return all(item[0] == "slice" and item[3] in (None, 1) for item in spec)


def _clamped(bound, dim, default):
    """A slice bound as Python clamps it to an axis of size ``dim``: ``x[:3]`` of 2 elements
    stops at 2, ``x[-3:]`` of 2 starts at 0 (a size-derived bound is taken as non-negative)."""
    if bound is None:
        return default
    bound = sympy.sympify(bound)
    if bound.is_Integer and bound < 0:
        return sympy.Max(dim + bound, 0)
    return sympy.Min(bound, dim)


def _bounds(spec, shape):
    """Per axis, the clamped ``(start, stop)`` that ``x[spec]`` covers (``stop >= start``)."""
    out = []
    for k, dim in enumerate(shape):
        if k >= len(spec):
            out.append((sympy.Integer(0), sympy.sympify(dim)))
            continue
        _, start, stop, _ = spec[k]
        low = _clamped(start, dim, sympy.Integer(0))
        out.append((low, sympy.Max(_clamped(stop, dim, dim), low)))
    return out


def _pad(printer, g, spec, shape):
    """The adjoint of ``x[a:b]`` on JAX: ``jnp.pad(g, (a, n - b))``; ``a`` and ``b`` clamped to
    the axis as Python clamps them (``x[:3]`` of 2 elements: ``(0, 0)``, where ``(0, n - 3)``
    raised ValueError on a negative width)."""
    widths = [(low, sympy.sympify(dim) - high) for (low, high), dim in zip(_bounds(spec, shape),
                                                                         shape)]
    return _call(printer, "np.pad", [g if isinstance(g, ast.AST) else printer.node(g),
                                     _widths(widths)])


def _widths(widths):
    pairs = [ast.Tuple([int_ast(sympy.sympify(a)), int_ast(sympy.sympify(b))], ast.Load())
             for a, b in widths]
    return pairs[0] if len(pairs) == 1 else ast.Tuple(pairs, ast.Load())


def padded_sum(printer, target, gs, specs, shape, names):
    """``target = `` the adjoint of the slices ``specs`` of an array of ``shape``, cotangents
    ``gs``: the overlap summed and padded once, the rest set (``_cells``), else a sum of pads."""
    plan = _cells([_bounds(spec, shape) for spec in specs], shape)
    if plan is None:
        value = None
        for g, spec in zip(gs, specs):
            term = _pad(printer, g, spec, shape)
            value = term if value is None else ast.BinOp(value, ast.Add(), term)
        return [ast.Assign([ast.Name(target, ast.Store())], value, lineno=None)]
    axis, (low, high), pieces = plan
    body, values = [], []
    uses = [sum(1 for _, covering in pieces for j, _ in covering if j == i)
            for i in range(len(gs))]
    for i, g in enumerate(gs):
        value = printer.node(g)
        if uses[i] > 1 and not isinstance(value, ast.Name):  # sliced twice: computed once
            name = fresh_name("_dslice", names)
            body.append(ast.Assign([ast.Name(name, ast.Store())], value, lineno=None))
            value = ast.Name(name, ast.Load())
        values.append(value)

    def summed(covering):
        total = None
        for j, index in covering:
            part = values[j] if isinstance(index, ast.Slice) and index.lower is None and \
                index.upper is None else ast.Subscript(values[j], _at(axis, index), ast.Load())
            total = part if total is None else ast.BinOp(total, ast.Add(), part)
        return total
    inner = summed(next(covering for where, covering in pieces if where is None))
    widths = [(sympy.Integer(0), sympy.Integer(0))] * len(shape)
    widths[axis] = (low, sympy.sympify(shape[axis]) - high)
    value = _call(printer, "np.pad", [inner, _widths(widths)])
    for where, covering in pieces:
        if where is not None and covering:
            at = ast.Subscript(ast.Attribute(value, "at", ast.Load()), _at(axis, where),
                               ast.Load())
            value = ast.Call(ast.Attribute(at, "set", ast.Load()), [summed(covering)], [])
    return body + [ast.Assign([ast.Name(target, ast.Store())], value, lineno=None)]


def _at(axis, index):
    if axis == 0:
        return index
    return ast.Tuple([ast.Slice()] * axis + [index], ast.Load())


def _le(a, b):
    """Whether ``a <= b`` at every size (a dimension symbol is 2 or more: a size of 1 is a
    build of its own), ``False`` where ``a > b`` at every size, else None."""
    difference = sympy.sympify(b) - sympy.sympify(a)
    shifted = difference.xreplace({d: sympy.Symbol(f"_{d.name}", integer=True, nonnegative=True)
                                   + 2 for d in difference.free_symbols})
    if shifted.is_nonnegative is True:
        return True
    if shifted.is_negative is True:
        return False
    return None


def _position(point, start, stop):
    """``point`` of a range ``[start, stop)`` as a constant index from its start (``1``) or from
    its end (``-1``; ``0`` for the end itself), else None (a size would be printed)."""
    at = sympy.simplify(point - start)
    if at.is_Integer:
        return int(at)
    back = sympy.simplify(point - stop)
    if back.is_Integer and back <= 0:
        return ("end", int(back))
    return None


def _index(point, end, start, stop, single=True):
    """The slice of ``[start, stop)`` covering ``[point, end)``, or its one element; None where
    a bound needs a printed size."""
    first, last = _position(point, start, stop), _position(end, start, stop)
    if first is None or last is None:
        return None
    length = sympy.simplify(end - point)
    if length == 1 and single:
        return ast.Constant(first) if isinstance(first, int) else \
            ast.UnaryOp(ast.USub(), ast.Constant(-first[1]))

    def bound(p, none):
        if p == none:
            return None
        if isinstance(p, int):
            return ast.Constant(p)
        return ast.UnaryOp(ast.USub(), ast.Constant(-p[1])) if p[1] else None
    return ast.Slice(bound(first, 0), bound(last, ("end", 0)))


def _cells(bounds, shape):
    """For the terms' per-axis ``bounds``: the one sliced axis, the overlap every term covers,
    and the pieces ``(target index, [(term, its index)])`` of the axis cut at every bound
    (the overlap's target index None); None for the sum of pads: a term alone, no or several
    axes sliced, an order of cut points or an index not known when building."""
    if len(bounds) < 2:
        return None
    sliced = [k for k, dim in enumerate(shape)
              if any(b[k] != (0, sympy.sympify(dim)) for b in bounds)]
    if len(sliced) != 1:
        return None
    axis = sliced[0]
    dim = sympy.sympify(shape[axis])
    ranges = [tuple(sympy.simplify(p) for p in b[axis]) for b in bounds]
    sizes = set().union(*(sympy.sympify(d).free_symbols for d in shape))
    if any(not p.free_symbols <= sizes for r in ranges for p in r):
        return None  # a bound of a value's (``x[k:]``): no order known
    if len(set(ranges)) < 2:
        return None
    points = []
    for p in [sympy.Integer(0), dim] + [p for r in ranges for p in r]:
        p = sympy.simplify(p)
        if any(sympy.simplify(p - q) == 0 for q in points):
            continue
        points.append(p)
    order = []
    for p in points:  # insertion by an order decided at every size
        k = 0
        while k < len(order):
            below = _le(p, order[k])
            if below is None:
                return None
            if below:
                break
            k += 1
        order.insert(k, p)

    def rank(p):
        return next(k for k, q in enumerate(order) if sympy.simplify(p - q) == 0)
    low = max((r[0] for r in ranges), key=rank)
    high = min((r[1] for r in ranges), key=rank)
    if rank(low) > rank(high):
        return None  # no overlap (x[:1] and x[1:]): the sum of pads
    pieces = []
    for point, end in zip(order, order[1:]):
        inside = [(_le(start, point), _le(end, stop)) for start, stop in ranges]
        if any(None in both for both in inside):
            return None
        terms = [j for j, both in enumerate(inside) if all(both)]
        overlap = len(terms) == len(ranges)  # a slice, not an int: the sum is padded
        covering = [(j, _index(point, end, *ranges[j], single=not overlap)) for j in terms]
        where = None if overlap else _index(point, end, sympy.Integer(0), dim)
        if any(index is None for _, index in covering) or where is None and not overlap:
            return None
        pieces.append((where, covering))
    if sum(1 for where, _ in pieces if where is None) != 1:
        return None  # the overlap cut by a bound (none, or pieces of it): the sum of pads
    return axis, (low, high), pieces

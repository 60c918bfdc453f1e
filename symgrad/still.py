"""Where a target does not move: the regions in which a binding's value is a constant.

``c = 0.0 if u > -0.5 else t`` is the constant 0 where ``u > -0.5``, and so is ``e = 2.0 * c``
(and ``e = c * t``: ``0 * t`` is 0). There no derivative of the target is non-zero, but its
adjoint may be undefined: ``math.sqrt(e)`` gives ``0.5 / math.sqrt(e)``, a ZeroDivisionError at
``e = 0`` where the derivative, of the constant branch, is 0 (the symbolic strategy and
``jax.grad`` on the Python code give 0). The reverse strategy gives such an adjoint the value 0
in those regions (``guarded``), so it is never evaluated there.

A region is ``(condition, value)``: where ``condition`` holds (the conditions of the
``Piecewise`` branches taken, which the primal evaluates anyway), the target equals ``value``,
an expression of no active symbol. The regions of a target follow from those of the symbols its
expression uses, by substituting their values.
"""
import itertools

import sympy
from sympy import S

from .functions import Undefined
from .program import active_symbols, tree_size

MAX_REGIONS = 4
"""At most this many regions are kept per target (the first ones, in program order)."""
MAX_CONDITION_NODES = 40
"""A region whose condition has more tree nodes than this is dropped (the guard stays readable)."""
_NOT_A_VALUE = (S.NaN, S.ComplexInfinity, S.Infinity, S.NegativeInfinity, Undefined)


def still_regions(bindings):
    """``{target: ((condition, value), ...)}`` for the targets of ``bindings`` (in program
    order) that are constants in some region; targets without one are left out."""
    regions = {}
    for a in bindings:
        found = _regions(a.expr, regions)
        if found:
            regions[a.target] = found
    return regions


def guarded(expr, total, regions):
    """The adjoint ``total`` of a target computed by ``expr``, 0 where the target is a constant
    (``regions`` from ``still_regions``). A ``Piecewise`` keeps its own branches, 0 in those that
    are constants: ``0.0 if u > -0.5 else total``."""
    if total.is_Number:
        return total
    if isinstance(expr, sympy.Piecewise):
        pieces = [(S.Zero if not active_symbols(e) else guarded(e, total, regions), c)
                  for e, c in expr.args]
        if all(value is total for value, _ in pieces):
            return total
        return sympy.Piecewise(*pieces)
    conditions = [c for c, _ in _regions(expr, regions)]
    if not conditions:
        return total
    return sympy.Piecewise((S.Zero, sympy.Or(*dict.fromkeys(conditions))), (total, True))


def _regions(expr, known):
    """The regions where ``expr`` does not move, as ``[(condition, value)]``: the branches of its
    (nested) Piecewise whose value has no active symbol, each with the condition that selects it
    (earlier branches negated), and, where an active symbol of ``expr`` is one of ``known``
    (symbol -> its constant regions, the same pairs), the regions where putting those constants
    in leaves a constant value."""
    if isinstance(expr, sympy.Piecewise):
        found, before = [], []
        for value, condition in expr.args:
            here = sympy.And(condition, *[sympy.Not(b) for b in before])
            before.append(condition)
            if here == S.false:
                continue
            if not active_symbols(value):
                found.append((here, value))
            else:
                found += [(sympy.And(here, c), v) for c, v in _regions(value, known)]
        return _kept(found)
    moving = [s for s in active_symbols(expr) if s in known]
    if not moving:
        return ()
    choices = [[(s, c, v) for c, v in known[s]] for s in moving]
    found = [_substituted(expr, [choice]) for options in choices for choice in options]
    if len(moving) > 1:  # every symbol at once (0 * t needs one, c - d with c = d both)
        found += [_substituted(expr, chosen) for chosen in
                  itertools.islice(itertools.product(*choices), MAX_REGIONS ** 2)]
    return _kept([f for f in found if f is not None])


def _substituted(expr, chosen):
    """``(condition, value)`` of ``expr`` with each ``(symbol, condition, value)`` of ``chosen``
    put in, or None when the result still moves or is no finite number (also where SymPy cannot
    hold it: exp of exp of a number, out of any float's range, raised MemoryError in mpmath's
    exp; scalar fuzzer 52-0-3638)."""
    try:
        value = expr.xreplace({s: v for s, _, v in chosen})
    except (MemoryError, OverflowError):
        return None
    if active_symbols(value) or value.has(*_NOT_A_VALUE):
        return None
    if not value.free_symbols:  # a number: min(0, 5) is 0, so min(c, 5) * t is 0 too
        value = value.evalf(30)
        if not (value.is_Number and value.is_finite and value.is_extended_real):
            return None
    return sympy.And(*[c for _, c, _ in chosen]), value


def _kept(found):
    kept = {}
    for condition, value in found:
        if condition != S.false and condition not in kept and \
                tree_size(condition, MAX_CONDITION_NODES + 1) <= MAX_CONDITION_NODES:
            kept[condition] = value
    return tuple(kept.items())[:MAX_REGIONS]

"""max and min as the table builds and differentiates them (the ``max``/``min`` rows of ``rules``).

Their partials split a tie equally between the arguments equal to the result, each relation
compared as the primal computes it (``Value``), and repeats of one argument share one tie test
(``repeated``). A max/min of large arguments is a ``LargeMax``/``LargeMin``, which SymPy never
simplifies pairwise (``rebuilt`` keeps a substituted one so).
"""
import functools

import sympy
from mpmath.libmp import prec_to_dps
from sympy import Piecewise, S

from .functions import Copy, Value
from .imaginary import real_built


def _extremum_partial(expr, i):
    """∂max/∂a_i: 1 for the strict winner, ties split equally (max(x, y) at x = y gives 1/2 each,
    as JAX, PyTorch, autograd, SymPy's Heaviside(0) and CasADi)."""
    args = [Value(a) for a in expr.args]  # compared as the primal computes them, not rearranged
    if len(args) == 2:
        mine, other = args[i], args[1 - i]
        wins = mine > other if isinstance(expr, sympy.Max) else mine < other
        return _tests((1, wins), (S.Half, sympy.Eq(mine, other)), (0, True))
    value = Value(expr)
    return _tests((1 / _tie_count(expr), sympy.Eq(args[i], value)), (0, True))


def _tests(*pieces):
    """``Piecewise(*pieces)`` of tie tests, relations of ``Value``s: each relation put in SymPy's
    canonical form, a decided one kept or dropped, but not collapsed by ``Piecewise``, whose
    ``replace`` of every relation walks the whole tree inside the ``Value``s (the loop state after
    an early return: seconds per tie test), where nothing can be rewritten (a ``Value`` is
    opaque)."""
    kept = []
    for value, cond in pieces:
        cond = cond.canonical if isinstance(cond, sympy.core.relational.Relational) else cond
        if cond is S.false:
            continue
        kept.append((value, cond))
        if cond is S.true:
            break
    if len(kept) == 1:
        return sympy.sympify(kept[0][0])
    return Piecewise(*kept, evaluate=False)


@functools.lru_cache(maxsize=512)
def _tie_count(expr):
    """The number of arguments of ``expr`` (a Max or Min) equal to it, as an expression (built once
    per expression: an 8-argument max has 8 partials sharing it)."""
    value = Value(expr)
    return sympy.Add(*[len(same) * _tests((1, sympy.Eq(Value(same[0]), value)), (0, True))
                       for same in repeated(expr.args).values()])


def repeated(args):
    """``args`` of a max/min grouped by value: ``{argument: [it and its Copy repeats]}``, in
    order; a repeat is the same float as the first, so each occurrence shares a tie (one test,
    counted ``len`` times: ``max(2, a, a, a)`` tests ``a`` once, not thrice)."""
    groups = {}
    for a in args:
        groups.setdefault(a.args[0] if isinstance(a, Copy) else a, []).append(a)
    return groups


FOLDED_MAX_NODES = 40
"""A max/min whose arguments have more tree nodes than this is a ``LargeMax``/``LargeMin``."""


class _Unfolded:
    """A max/min SymPy never simplifies pairwise: its ``_find_localzeros`` (``factor_terms`` of
    the difference of every two arguments, to drop one that can never win) takes seconds on a
    7-argument max of nested calls, and again at every rebuild (``xreplace``). The value and the
    ties are the same; only no argument is dropped. Printed and differentiated as max/min."""

    @classmethod
    def _find_localzeros(cls, values, **options):
        if values and all(v.is_Number for v in values):  # numbers: the one that wins
            return {(max if issubclass(cls, sympy.Max) else min)(values)}
        return set(values)

    def _eval_evalf(self, prec):  # SymPy's rebuilds the max of its values, never a number
        values = [a.evalf(prec_to_dps(prec)) for a in self.args]
        return self.func(*values) if all(v.is_Number for v in values) else None


class LargeMax(_Unfolded, sympy.Max):
    """``max`` of arguments over ``FOLDED_MAX_NODES`` tree nodes (see ``_Unfolded``)."""


class LargeMin(_Unfolded, sympy.Min):
    """``min`` of arguments over ``FOLDED_MAX_NODES`` tree nodes (see ``_Unfolded``)."""


def _at_least_two(make, large):
    def build(*args):
        if len(args) < 2:
            raise TypeError("needs two or more numbers (an iterable argument is not supported)")
        return (large if _large(args) else make)(*args)
    return build


def _large(args):
    """Whether ``args`` have more than ``FOLDED_MAX_NODES`` tree nodes."""
    count, stack = 0, list(args)
    while stack and count <= FOLDED_MAX_NODES:
        count += 1
        stack.extend(stack.pop().args)
    return count > FOLDED_MAX_NODES


def rebuilt(node, args):
    """``node.func(*args)``, a ``Max``/``Min`` rebuilt with large arguments (a substitution)
    as ``LargeMax``/``LargeMin``, as the rules build it: SymPy's pairwise simplification of
    substituted arguments took seconds."""
    if type(node) in (sympy.Max, sympy.Min) and _large(args):
        return (LargeMax if type(node) is sympy.Max else LargeMin)(*args)
    return real_built(node.func, args)  # never SymPy's sqrt(-y**2) = I*Abs(y)

"""The symbolic half of ``check_grad``: symgrad − df brought to 0 within a size budget.

Both programs' outputs as expressions of the parameters (``_symbolic``), then each difference
normalised cheaply (``cancel``) and, when it is small, ``simplify``-d (``_compared``). The budget
is by size, checked before SymPy is called, never by time, so the report is the same on every
machine: an expression of more than ``SYMBOLIC_MAX_NODES`` nodes is not compared at all, a
difference of more than ``CHEAP_MAX_NODES`` nodes or of a ``_normalising_cost`` above
``NORMALISE_MAX_COST`` is left as it is (the numbers of ``check_numeric`` decide).
"""
import functools
import math

import sympy

from .differentiate import _substituted_size
from .functions import StopGradient
from .program import substituted_outputs, tree_size
from .written import AsWritten

SYMBOLIC_MAX_NODES = 2000  # larger expressions skip the symbolic comparison (numbers decide)
CHEAP_MAX_NODES = 600  # larger differences are not normalised (numbers decide)
SIMPLIFY_MAX_NODES = 80  # smaller differences not normalised to 0 get SymPy's full `simplify`
NORMALISE_MAX_COST = 1000  # nodes x terms of the common denominator: above it no cancel/simplify
COMPARED_CACHED = 256  # pairs of expressions whose comparison is kept (``_compared_exactly``)


def _symbolic(program):
    """The outputs as expressions of the parameters; all None when one would have more than
    SYMBOLIC_MAX_NODES nodes (measured without substituting: an unrolled loop can be
    exponentially large as a tree)."""
    if _substituted_size(program) > SYMBOLIC_MAX_NODES:
        return [None] * len(program.outputs)
    return list(substituted_outputs(program))


def _in_primal_symbols(hand, primal):
    rename = dict(zip(hand.params, primal.params))
    return [None if e is None else e.xreplace(rename) for e in _symbolic(hand)]


def _compared(ours, theirs):
    """(symgrad − df simplified within the budget, why SymPy was not tried or None): the
    difference is 0 when proved equal, else the smallest form reached (fewest nodes), or None
    where an expression was too large to form; the reason names the size that was over its
    budget (the report says so: the numbers decided).

    The same pair compared again (``check_grad`` of one ``f`` and ``df`` at other points, a df
    that differs in one component) is answered from ``_compared_exactly``'s cache: its key is
    both expressions, their ``srepr`` texts (a Float's precision, a Symbol's assumptions, a
    Dummy's index) and the budgets, so only the same comparison gives the same answer."""
    if ours is None or theirs is None:
        return None, f"an expression has more than {SYMBOLIC_MAX_NODES} nodes"
    budget = (CHEAP_MAX_NODES, SIMPLIFY_MAX_NODES, NORMALISE_MAX_COST)
    try:
        texts = (sympy.srepr(ours), sympy.srepr(theirs))
        hash((ours, theirs))
    except Exception:  # noqa: BLE001 - an expression that cannot be keyed is compared anew
        return _compared_anew(ours, theirs, *budget)
    return _compared_exactly(ours, theirs, *texts, *budget)


@functools.lru_cache(maxsize=COMPARED_CACHED)
def _compared_exactly(ours, theirs, _ours_text, _theirs_text, cheap, simplify, normalise):
    return _compared_anew(ours, theirs, cheap, simplify, normalise)


def _compared_anew(ours, theirs, cheap, simplify, normalise):
    difference = _unstop(ours - theirs)
    size = tree_size(difference, cheap + 1)
    if difference == 0:
        return difference, None
    if size > cheap:
        return difference, f"symgrad - df has more than {cheap} nodes"
    cost = _normalising_cost(difference, cheap)
    if cost > normalise:
        return difference, (f"symgrad - df over one denominator would cost {cost} ({size} "
                            f"nodes x {cost // size} terms), above {normalise}")
    forms = [difference]
    for attempt in (sympy.cancel, sympy.simplify):  # one fraction (functions as variables)
        if attempt is sympy.simplify and size > simplify:
            break
        try:
            forms.append(attempt(difference))
        except Exception:  # noqa: BLE001 - SymPy can fail on exotic input; the numbers decide
            continue
        if forms[-1] == 0:
            return forms[-1], None
    return min(forms, key=lambda form: tree_size(form, cheap * 4)), None


def _normalising_cost(expr, cheap=None):
    """The work of putting ``expr`` over one denominator, from its tree alone (no SymPy algebra,
    no timer): its nodes times the terms of the common denominator once expanded, the product
    over the distinct bases of negative integer powers of (the base's terms) ** (largest power).
    A loss over N data points, each with its own ``exp(-z)``, costs 2 ** N times its nodes."""
    largest = {}
    for power in expr.atoms(sympy.Pow):
        if power.exp.is_Integer and power.exp < 0 and not power.base.is_Number:
            largest[power.base] = max(largest.get(power.base, 0), -int(power.exp))
    terms = math.prod((len(b.args) if b.is_Add else 1) ** k for b, k in largest.items())
    return tree_size(expr, (CHEAP_MAX_NODES if cheap is None else cheap) + 1) * terms


def _unstop(expr):
    """StopGradient(e) is e in value, and AsWritten(value, written) is value (SymPy's form of
    the same number): remove the markers before comparing values."""
    expr = expr.replace(lambda e: isinstance(e, AsWritten), lambda e: e.args[0])
    return expr.replace(lambda e: isinstance(e, StopGradient), lambda e: e.args[0])

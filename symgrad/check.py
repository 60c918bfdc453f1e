"""Checking a hand-derived gradient: a bounded symbolic attempt, then 50-digit numbers decide.

``check_grad(f, df)`` reads both functions the way ``grad`` reads ``f`` (or takes ``df``'s program
when it is a ``GradientFunction``) and compares ``df`` with symgrad's derivative, component by
component:

1. symbolically, within a budget: the difference ``symgrad - df`` is normalised cheaply
   (``cancel``) and, when it is small, ``simplify``-d; a difference that becomes 0 is proved
   equal (basis ``"symbolic"``). The budget is by size (``_normalising_cost``), checked before
   SymPy is called, never by time: the report is the same on every machine;
2. numerically: both are evaluated at the points in floats and again at 50 significant digits
   (mpmath, through SymPy's ``evalf``); the 50-digit values decide, so cancellation in floating
   point never raises a false alarm, and a correct gradient SymPy cannot simplify is still
   ``"equal"`` (basis ``"numeric"``).

At a kink (the one-sided slopes differ, e.g. ``abs`` at 0) any value between the one-sided slopes
is accepted, and the report says so. The report layout follows autograd's ``check_grads``: the
analytic and the reference value side by side.

The stages are modules of their own, each importing only the ones before it: ``check_symbolic``
(1), ``check_numeric`` (2), ``check_report`` (``GradientCheck`` and its text); this module reads
the two programs and joins the halves into the verdict (array code: ``array_check``).
"""
from sympy.core.parameters import distribute

from .api import GradientFunction, grad
from .assemble import normalize_wrt, primal_program
from .array_check import check_arrays
from .check_numeric import RANDOM_POINTS, _Numbers, _random_points
from .check_report import GradientCheck, _is_zero
from .check_symbolic import _compared, _in_primal_symbols, _symbolic
from .differentiate import differentiate
from .errors import OptionError, OutputShapeError, public_entry
from .frontend import to_program

__all__ = ["GradientCheck", "assert_grad", "check_grad"]


def check_grad(f, df, wrt=None, points=None, rtol=1e-9, seed=0, strategy="auto", shapes=None):
    """Check a hand-derived gradient ``df`` of ``f``.

    The verdict is "equal" with basis "symbolic" when every difference symgrad − df simplifies
    to 0 (within a size budget, so the check stays fast); otherwise the points decide at 50
    digits: "different" when some component differs by more than ``rtol`` at some point (or
    ``df`` raises where symgrad's gradient does not), else "equal" with basis "numeric".
    "undecided" only when no point could be evaluated.

    Args:
        f: the primal, a function symgrad can read (see docs/language.md) returning one number,
            or a ``GradientFunction`` with one result (its derivative is then checked).
        df: the hand-derived gradient: same parameters (matched by position), returning one number
            for one ``wrt`` and a tuple in ``wrt`` order otherwise. Read from source like ``f``;
            a ``GradientFunction`` from ``symgrad.grad`` is taken as it is (its program).
        wrt: as for ``grad``.
        points: tuples of floats (or floats, for one parameter) to evaluate at, where a point at
            which symgrad's gradient raises is skipped and noted; or an int N (N >= 1) to draw N
            random points; None draws 10. Random points are drawn in [-2, 2] (seeded by
            ``seed``, reproducible) where ``f``, its gradient and ``df`` all evaluate; a
            parameter with a default that is not in ``wrt`` keeps its default.
        rtol: relative tolerance (>= 0), on |df − symgrad| / max(1, |symgrad|).
        seed: the random seed for the points.
        strategy: how symgrad's gradient is built, as for ``grad``.
        shapes: for array code, as for ``grad``: the check is then symbolic on one small
            concrete shape (each named dimension 3, 2, 4 ...; 50-digit values at points decide
            the elements not proved equal) and numeric, in float64, at ``points`` (an int,
            default 5) random sizes of every named dimension (2 to 6); see ``array_check``.

    Returns:
        A ``GradientCheck`` report (``str()`` of it is readable: differences are shown only for
        the components that differ, each cut to 200 characters).

    Raises:
        OutputShapeError: ``df`` returns a different number of values than there are ``wrt``,
            or takes a different number of parameters than ``f``.
        OptionError: ``points`` is an int below 1 (or, with ``shapes``, not an int), ``rtol``
            is negative or not a number, or
            ``df`` is a ``GradientFunction`` other than a gradient (``symgrad.grad``) or built
            with ``unconnected="none"``.
        The errors of ``grad`` for ``f`` or ``df``.
    """
    with public_entry(), distribute(False):
        if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not rtol >= 0:
            raise OptionError(f"rtol must be a number >= 0, not {rtol!r}")
        if shapes is not None:  # array code: a concrete shape, then random sizes (array_check)
            if isinstance(points, bool) or not (points is None or isinstance(points, int)
                                                and points >= 1):
                raise OptionError(f"with shapes=, points is a number of random sizes >= 1, not "
                                  f"{points!r}")
            return check_arrays(GradientCheck, grad(f, wrt=wrt, shapes=shapes), f, df, shapes,
                                points, rtol, seed, _compared)
        return _check(f, df, wrt, points, rtol, seed, strategy)


def assert_grad(f, df, wrt=None, points=None, rtol=1e-9, seed=0, strategy="auto", shapes=None):
    """Like ``check_grad``, for tests: raise ``AssertionError`` with the report when "different".

    Returns:
        The ``GradientCheck`` report when the verdict is "equal" or "undecided".

    Raises:
        AssertionError: the verdict is "different"; the message is the report.
        The errors of ``check_grad``.
    """
    with public_entry():
        report = check_grad(f, df, wrt=wrt, points=points, rtol=rtol, seed=seed,
                            strategy=strategy, shapes=shapes)
    if report.verdict == "different":
        raise AssertionError(str(report))
    return report


def _check(f, df, wrt, points, rtol, seed, strategy):
    if isinstance(points, bool) or (isinstance(points, int) and points < 1):
        raise OptionError(f"points must be point tuples or a number of points >= 1, not "
                          f"{points!r}")
    primal = primal_program(f, (), wrt)
    wrt_names, _single = normalize_wrt(primal, wrt)
    hand = _hand_program(df)
    if len(hand.outputs) != len(wrt_names):
        count = len(hand.outputs)
        raise OutputShapeError(f"`{hand.name}` returns {count} value{'s' * (count != 1)} for "
                               f"{len(wrt_names)} wrt {wrt_names}")
    if len(hand.params) != len(primal.params):
        raise OutputShapeError(f"`{hand.name}` takes {len(hand.params)} parameters, "
                               f"`{primal.name}` takes {len(primal.params)}")
    derivative = differentiate(primal, wrt_names, strategy=strategy)
    names = derivative.output_names
    theirs = _in_primal_symbols(hand, primal)
    compared = [_compared(ours, mine) for ours, mine in zip(_symbolic(derivative), theirs)]
    differences = tuple(difference for difference, _ in compared)
    gradient = grad(f, wrt=wrt_names, strategy=strategy)
    if points is None or isinstance(points, int):
        points = _random_points(f, gradient, df, primal, wrt_names, seed,
                                points or RANDOM_POINTS)
    else:
        points = [tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in points]
    numbers = _Numbers(primal, derivative, hand, wrt_names, rtol)
    for point in points:
        numbers.compare(point, gradient, df)
    differing = tuple(name for i, name in enumerate(names) if i in numbers.differing)
    if differing or numbers.df_raised:
        verdict, basis = "different", "numeric"
    elif all(_is_zero(d) for d in differences):
        verdict, basis = "equal", "symbolic"
    elif numbers.evaluated:
        verdict, basis = "equal", "numeric"
    else:
        verdict, basis = "undecided", None
    worst = numbers.worst
    return GradientCheck(verdict=verdict, basis=basis, wrt=wrt_names, names=names,
                         differences=differences, differing=differing,
                         points=[tuple(p) for p in points], evaluated=numbers.evaluated,
                         worst_point=worst["point"], worst_component=worst["component"],
                         worst_error=worst["error"], expected=worst["expected"],
                         got=worst["got"], kinks=numbers.kinks, rtol=rtol,
                         raised=numbers.raised, floats_only=numbers.floats_only,
                         skipped=tuple(reason for _, reason in compared))


def _hand_program(df):
    """The ``Program`` of ``df``: read from source, or a ``GradientFunction``'s own."""
    if not isinstance(df, GradientFunction):
        return to_program(df)
    if df.kind != "grad":
        raise OptionError(f"df is a symgrad {df.kind}; check_grad compares gradients: pass "
                          "symgrad.grad(...) or a hand-derived function")
    if None in df.program.outputs:
        raise OptionError("df was built with unconnected='none'; build it with 'zero' to check it")
    return df.program

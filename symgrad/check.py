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
import inspect
import numbers
import os

from sympy.core.parameters import distribute

from .api import GradientFunction, grad
from .assemble import normalize_wrt, primal_program
from .array_check import check_arrays
from .array_frontend import NeedsShapes
from .check_numeric import RANDOM_POINTS, _Numbers, _random_points, boundary_points
from .check_report import SHOWN_NOTE, GradientCheck, _is_zero
from .check_symbolic import _compared, _in_primal_symbols, _symbolic
from .differentiate import differentiate
from .errors import (OptionError, OutputShapeError, ShapesNeededError, SourceUnavailableError,
                     UnsupportedSyntaxError, public_entry)
from .frontend import to_program
from .program import Program

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
            parameter with a default that is not in ``wrt`` keeps its default. Where the
            difference is not proved 0 and has branches, points beside each branch boundary
            (``x > 3``: x = 2.997 and 3.003) are added (docs/checking.md).
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
        OptionError: ``f`` is array code and ``shapes`` is None (``errors.ShapesNeededError``,
            asking for them), ``points`` is an int below 1 (or, with ``shapes``, not an int),
            ``rtol`` is negative or not a number, ``seed`` is not an int, a given point is not
            a tuple of real numbers, one per parameter of ``f``, ``df`` is not callable, or
            ``df`` is a ``GradientFunction`` other than a gradient (``symgrad.grad``) or built
            with ``unconnected="none"``.
        The errors of ``grad`` for ``f`` or ``df``.
    """
    with public_entry(), distribute(False):
        if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not rtol >= 0:
            raise OptionError(f"rtol must be a number >= 0, not {rtol!r}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise OptionError(f"seed must be an int, not {seed!r}")
        seed = int(seed)  # a NumPy int too (random.Random takes Python's only)
        if shapes is not None:  # array code: a concrete shape, then random sizes (array_check)
            if isinstance(points, bool) or not (points is None or isinstance(points, int)
                                                and points >= 1):
                raise OptionError(f"with shapes=, points is a number of random sizes >= 1, not "
                                  f"{points!r}")
            gradient = grad(f, wrt=wrt, shapes=shapes)
            _callable_with(df, gradient.program.params, getattr(f, "__name__", "f"))
            return check_arrays(GradientCheck, gradient, f, df, shapes, points, rtol, seed,
                                _compared)
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
    try:
        primal = primal_program(f, (), wrt)
    except NeedsShapes:  # array code: the check needs the shapes now (it calls f at points)
        raise ShapesNeededError(getattr(f, "__name__", "f")) from None
    wrt_names, _single = normalize_wrt(primal, wrt)
    hand, unread = _hand_program(df, primal)
    if hand is not None and len(hand.outputs) != len(wrt_names):
        raise OutputShapeError(_counts(hand.name, len(hand.outputs), wrt_names))
    derivative = differentiate(primal, wrt_names, strategy=strategy)
    names = derivative.output_names
    if hand is None:  # df is not read: its floats decide alone (``unread`` says why)
        compared = [(None, None)] * len(names)
    else:
        theirs = _in_primal_symbols(hand, primal)
        compared = [_compared(ours, mine) for ours, mine in zip(_symbolic(derivative), theirs)]
    differences = tuple(difference for difference, _ in compared)
    gradient = grad(f, wrt=wrt_names, strategy=strategy)
    if points is None or isinstance(points, int):
        points = _random_points(f, gradient, primal, wrt_names, seed, points or RANDOM_POINTS)
        if points and not all(_is_zero(d) for d in differences if d is not None):
            points += boundary_points(f, gradient, primal, wrt_names, differences, points[0])
    else:
        points = _given_points(points, primal)
    numbers = _Numbers(primal, derivative, hand, wrt_names, rtol)
    for point in points:
        numbers.compare(point, gradient, df)
    if numbers.counts is not None:
        raise OutputShapeError(_counts(getattr(df, "__name__", "df"), numbers.counts, wrt_names))
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
                         skipped=tuple(reason for _, reason in compared), symbolic_note=unread)


def _counts(name, count, wrt_names):
    return f"`{name}` returns {count} value{'s' * (count != 1)} for {len(wrt_names)} wrt {wrt_names}"


def _given_points(points, primal):
    """``points`` as tuples of numbers, one per parameter of ``primal``.

    Raises:
        OptionError: ``points`` is not a list of tuples (or of numbers, for one parameter), or a
            point has another number of values than ``primal`` has parameters, or a value that is
            not a real number.
    """
    names = primal.param_names
    if isinstance(points, (str, bytes)) or not hasattr(points, "__iter__"):
        raise OptionError(f"points must be a list of point tuples or a number of points >= 1, "
                          f"not {points!r}")
    given = [tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in points]
    for point in given:
        if len(point) != len(names):
            raise OptionError(f"the point {point} has {len(point)} value"
                              f"{'s' * (len(point) != 1)}; `{primal.name}` takes {len(names)} "
                              f"({', '.join(names)}), in that order")
        bad = [v for v in point if isinstance(v, bool) or not isinstance(v, numbers.Real)]
        if bad:
            raise OptionError(f"the point {point} has {bad[0]!r}: give real numbers (int or "
                              "float)")
    return given


def _hand_program(df, primal):
    """(the ``Program`` of ``df``, None) when it is read from source or is a
    ``GradientFunction``; (None, why) when its source is outside the language (or cannot be
    read): ``df`` is the code under test, so its floats are then compared alone.

    Raises:
        OptionError: ``df`` is not callable, or a ``GradientFunction`` other than a gradient.
        OutputShapeError: ``df`` takes another number of parameters than ``primal``.
    """
    if isinstance(df, GradientFunction):
        if df.kind != "grad":
            raise OptionError(f"df is a symgrad {df.kind}; check_grad compares gradients: pass "
                              "symgrad.grad(...) or a hand-derived function")
        if None in df.program.outputs:
            raise OptionError("df was built with unconnected='none'; build it with 'zero' to "
                              "check it")
        hand, unread = df.program, None
    else:
        _callable_with(df, ())
        try:
            hand, unread = to_program(df), None
        except (UnsupportedSyntaxError, SourceUnavailableError) as exc:
            hand, unread = None, f"df is not read as source ({_why(exc)}), so its floats decide"
    _callable_with(df if hand is None else hand, primal.params, primal.name)
    return hand, unread


def _callable_with(df, params, name=None):
    """Check that ``df`` (a function or a ``Program``) takes as many parameters as ``params``
    (unless ``params`` is empty or its signature cannot be read).

    Raises:
        OptionError: ``df`` is not callable.
        OutputShapeError: ``df`` takes another number of parameters.
    """
    if isinstance(df, Program):
        count, own = len(df.params), df.name
    elif not callable(df):
        raise OptionError(f"df must be a function (the hand-derived gradient), not {df!r}")
    else:
        try:
            parameters = inspect.signature(df).parameters.values()
        except (TypeError, ValueError):
            return
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
            return
        count, own = len(parameters), getattr(df, "__name__", "df")
    if params and count != len(params):
        primal = f"`{name}`" if name else "f"
        raise OutputShapeError(f"`{own}` takes {count} parameter{'s' * (count != 1)}, {primal} "
                               f"takes {len(params)}")


def _why(exc):
    """Why ``df`` was not read, in one line: the construct and its line (without the hint on
    how to make it differentiable: ``df`` is not differentiated), or the source problem."""
    if isinstance(exc, UnsupportedSyntaxError) and exc.lineno:
        text = f"{exc.what}: {os.path.basename(exc.filename or '')}, line {exc.lineno}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_NOTE else text[:SHOWN_NOTE - 3] + "..."

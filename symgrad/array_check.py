"""``check_grad`` on array code: a symbolic verdict on one small concrete shape, and numbers in
float64 at several random sizes (one build of symgrad's gradient serving them all).

1. **Symbolic, on one concrete shape.** Every named dimension of ``shapes`` (as the build resolved
   it: a name the code fixes to a number is that number, names found equal are one) gets a small
   distinct size (``SIZES``: 3, 2, 4, 5 ... in the order the names first appear, the first 3 so
   that an interior slice ``x[1:-1]`` keeps an element; an int in ``shapes`` stays), every
   element of every array parameter becomes a real SymPy symbol (``X[0,1]``), and both
   symgrad's generated gradient and ``df`` run on those symbolic arrays (``array_trace``), so each
   result element is a SymPy expression. Each element's difference symgrad − df goes through the
   scalar check's bounded simplification (``check_symbolic._compared``); a float constant that is
   the correctly rounded value of a simple fraction (``1.0 / 3``, ``0.01``) is read as that fraction
   (``array_trace.number``), so a gradient scaled by ``1.0 / n`` in one and divided by ``n`` in
   the other is proved equal. The elements not proved 0 are evaluated at 50 digits at random
   points of that shape (values in [-2, 2], or [0.1, 2] as below, where both are finite and
   real), and those values decide, as for scalar code.
2. **Numeric, at random sizes.** At each trial every dimension gets a random size from 2 to 6
   and every parameter random values in [-2, 2] (a draw where symgrad's gradient raises or is
   not finite is drawn again, after ``ATTEMPTS // 2`` failures from [0.1, 2]); a component
   differs when |df − symgrad| / max(1, |symgrad|) exceeds ``rtol`` at some element, its shape
   differs, or ``df`` is not finite where symgrad is.

A parameter with a default that is not in ``wrt`` (a hyperparameter) keeps its default in both.
The verdict is "different" when either half finds a difference, else "equal": basis "symbolic"
when every element's difference was proved 0 on the concrete shape, else "numeric" ("undecided"
when nothing was proved and no point of either half could be evaluated). When the
symbolic half cannot run (``df`` needs a float from a symbol, calls a function the symbolic arrays
do not follow, or the shape is too large) the report says why and the numbers decide alone.
"""
import math

import numpy as np
import sympy

from .array_trace import elements, symbols_for, traced_generated
from .errors import OutputShapeError
from .program import real_symbol, tree_size
from .shapes import ShapeError

TRIALS = 5
"""Random sizes tried when ``points`` is None."""
SIZES = (3, 2, 4, 5, 6, 7, 8, 9)
"""The sizes of the named dimensions on the concrete shape, in order of first appearance."""
PRECISE_POINTS = 3
"""Points of the concrete shape at which elements not proved equal are evaluated at 50 digits."""
MAX_ELEMENTS = 200
"""A concrete shape with more parameter elements than this is not checked symbolically."""
MAX_NODES = 5000
"""A result element with a larger expression tree (shared subtrees counted each time they occur,
as SymPy walks them) stops the symbolic half: simplifying and evaluating it would be slow."""
ATTEMPTS = 20
"""Draws per wanted trial or point; the second half draw from [0.1, 2] (a log of a parameter)."""
DIGITS = 50


def check_arrays(report_type, gradient, f, df, shapes, points, rtol, seed, compared):
    """The ``GradientCheck`` of ``df`` against ``gradient`` (``grad(f, shapes=shapes)``).

    Args:
        report_type: the ``GradientCheck`` class to fill.
        gradient: symgrad's gradient of ``f`` (an ``ArrayGradientFunction``).
        f: the primal (its parameter names give the order of the arguments).
        df: the hand-derived gradient, called with the same arguments; one array (or float) for
            one ``wrt``, a tuple in ``wrt`` order otherwise.
        shapes: parameter name → tuple of dimension names or ints (scalars left out).
        points: None (``TRIALS`` random sizes) or an int, the number of random sizes.
        rtol: the relative tolerance.
        seed: the random seed (sizes and values are reproducible).
        compared: the scalar check's ``symgrad − df`` simplification (ours, theirs) →
            (0 when proved equal, else the smallest form reached; why SymPy was not tried, by
            size, or None).

    Raises:
        OutputShapeError: ``df`` returns another number of values than there are ``wrt``.

    Returns:
        A ``report_type`` with ``arrays`` true; ``points`` holds one tuple of sizes per random
        trial, ``sizes`` the concrete shape of the symbolic half (None when it did not run) and
        ``elements`` the differing indices there per component name.
    """
    code = f.__code__
    params = code.co_varnames[:code.co_argcount]
    defaults = f.__defaults__ or ()
    fixed = {name: value for name, value in zip(params[len(params) - len(defaults):], defaults)
             if name not in gradient.wrt}  # a hyperparameter keeps its default
    shapes = _resolved(gradient, shapes)
    dims = []
    for dimensions in shapes.values():
        dims.extend(d for d in dimensions if isinstance(d, str) and d not in dims)
    numeric = _numeric(gradient, df, shapes, params, fixed, dims, points or TRIALS, rtol, seed)
    names = gradient.program.output_names
    symbolic = _symbolic(gradient, df, shapes, params, fixed, dims, names, rtol, seed,
                         compared)
    differing = tuple(name for name in names if name in numeric["differing"]
                      or symbolic["elements"].get(name))
    if differing or numeric["raised"]:
        verdict, basis = "different", "numeric"
    elif symbolic["proved"]:
        verdict, basis = "equal", "symbolic"
    elif numeric["evaluated"] or symbolic["evaluated"]:
        verdict, basis = "equal", "numeric"
    else:  # no random size gave finite values and nothing was proved
        verdict, basis = "undecided", None
    worst = numeric["worst"]
    return report_type(verdict=verdict, basis=basis, wrt=gradient.wrt, names=names,
                       differences=symbolic["differences"], differing=differing,
                       points=numeric["tried"], evaluated=numeric["evaluated"],
                       worst_point=worst["point"], worst_component=worst["component"],
                       worst_error=worst["error"], expected=worst["expected"], got=worst["got"],
                       rtol=rtol, raised=numeric["raised"], arrays=True,
                       sizes=symbolic["sizes"], elements=symbolic["elements"],
                       symbolic_note=symbolic["note"], precise_points=symbolic["evaluated"],
                       skipped=tuple(symbolic["skipped"]), shapes_differ=numeric["shapes_differ"])


def _resolved(gradient, shapes):
    """``shapes`` with each size as the build resolved it: a name the code fixed to a number
    (``x * WEIGHTS`` with a constant of 4 elements) is that number, and names the build found
    equal are one name, so that every size drawn is one the gradient accepts."""
    table = gradient.program.arrays.shapes
    resolved = {}
    for name, dims in shapes.items():
        try:
            shape = table.of(real_symbol(name))
        except ShapeError:
            shape = ()
        if len(shape) != len(dims) or not all(d.is_Integer or d.is_Symbol for d in shape):
            resolved[name] = tuple(dims)
        else:
            resolved[name] = tuple(int(d) if d.is_Integer else d.name for d in shape)
    return resolved


def _numeric(gradient, df, shapes, params, fixed, dims, trials, rtol, seed):
    """The float64 half: ``trials`` random sizes, each drawn again (up to 20 times) until
    symgrad's gradient gives finite values."""
    rng = np.random.default_rng(seed)
    worst = dict(error=0.0, point=None, component=None, expected=None, got=None)
    differing, evaluated, tried, raised, shapes_differ = [], 0, [], [], {}
    for _ in range(trials):
        for attempt in range(ATTEMPTS):
            sizes = {d: int(rng.integers(2, 7)) for d in dims}
            low = _low(attempt)
            args = [fixed[p] if p in fixed else rng.uniform(low, 2.0, tuple(
                sizes.get(d, d) for d in shapes[p])) if p in shapes else float(
                rng.uniform(low, 2.0)) for p in params]
            try:
                with np.errstate(all="ignore"):
                    ours = _as_tuple(gradient(*args))
            except (ArithmeticError, ValueError, AssertionError):
                continue
            if all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in ours):
                break
        else:
            continue
        names = gradient.program.output_names
        tried.append(tuple(sorted(sizes.items())))
        try:
            with np.errstate(all="ignore"):
                theirs = _as_tuple(df(*[np.copy(a) for a in args]))
        except Exception as exc:  # noqa: BLE001 - reported as a difference
            raised.append(f"df raises {type(exc).__name__}: {exc} at sizes {sizes}")
            continue
        if len(theirs) != len(ours):
            count = len(theirs)
            raise OutputShapeError(f"`{getattr(df, '__name__', df)}` returns {count} value"
                                   f"{'s' * (count != 1)} for {len(ours)} wrt {gradient.wrt}")
        try:
            theirs = [np.asarray(b, dtype=float) for b in theirs]
        except (TypeError, ValueError):  # reported as a difference
            raised.append(f"df returns {_not_numbers(theirs)} at sizes {sizes}, not an array "
                          "of numbers")
            continue
        evaluated += 1
        at = ", ".join(f"{k}={v}" for k, v in sizes.items()) or "(the fixed sizes)"
        for name, a, b in zip(names, ours, theirs):
            a = np.asarray(a, dtype=float)
            error = float(np.max(np.abs(b - a) / np.maximum(1.0, np.abs(a)), initial=0.0)) if (
                a.shape == b.shape) else math.inf
            error = math.inf if math.isnan(error) else error
            if a.shape != b.shape:
                shapes_differ.setdefault(name, (at, _shapes_text(b.shape, a.shape)))
            if error > rtol and name not in differing:
                differing.append(name)
            if error > worst["error"] or worst["point"] is None:
                worst = dict(error=error, point=at,
                             component=name, expected=a.tolist(), got=b.tolist())
    return dict(worst=worst, differing=differing, evaluated=evaluated, tried=tried,
                raised=raised, shapes_differ=shapes_differ)


def _shapes_text(theirs, ours):
    """How a result's shape differs: ``shape (2,) by df, (5,) by symgrad``."""
    return f"shape {theirs} by df, {ours} by symgrad"


def _symbolic(gradient, df, shapes, params, fixed, dims, names, rtol, seed, compared):
    """The symbolic half on the concrete shape: differences per element, 50-digit values for
    those not proved 0."""
    sizes = dict(zip(dims, SIZES))
    found = dict(sizes=None, elements={}, differences=(None,) * len(names), proved=False,
                 evaluated=0, note=None, skipped=[])
    if len(dims) > len(SIZES):
        found["note"] = f"more than {len(SIZES)} named dimensions"
        return found
    concrete = {p: tuple(sizes.get(d, d) for d in shapes[p]) if p in shapes else ()
                for p in params}
    count = sum(math.prod(shape) for shape in concrete.values())
    if count > MAX_ELEMENTS:
        found["note"] = f"the concrete shape has {count} elements (more than {MAX_ELEMENTS})"
        return found
    outputs = []
    for who, function in (("symgrad's gradient", traced_generated(gradient.function)),
                          ("df", df)):
        args = [fixed[p] if p in fixed else symbols_for(p, concrete[p]) for p in params]
        try:
            outputs.append([elements(v) for v in _as_tuple(function(*args))])
        except Exception as exc:  # noqa: BLE001 - the numbers decide alone then
            found["note"] = (f"{who} cannot run on symbolic arrays ({type(exc).__name__}: "
                             f"{_one_line(exc)})")
            return found
    ours, theirs = outputs
    largest = max((tree_size(e, MAX_NODES + 1) for out in outputs for a in out
                   for e in a.flat), default=0)
    if largest > MAX_NODES:
        found["note"] = f"an element's expression has more than {MAX_NODES} nodes"
        return found
    found["sizes"] = sizes
    if len(theirs) != len(ours):
        found["note"] = f"df returns {len(theirs)} values for {len(ours)} components"
        found["sizes"] = None
        return found
    undecided, differences = [], []
    for name, a, b in zip(names, ours, theirs):
        if a.shape != b.shape:
            found["elements"][name] = (_shapes_text(b.shape, a.shape),)
            differences.append(None)
            continue
        shown = 0
        for index in np.ndindex(a.shape):
            d, skipped = compared(a[index], b[index])
            if skipped:
                found["skipped"].append(f"{name}[{','.join(map(str, index))}]: {skipped}")
            if d != 0:
                undecided.append((name, index, a[index], b[index]))
                shown = d if shown == 0 else shown
        differences.append(shown)
    found["differences"] = tuple(differences)
    found["proved"] = not undecided and not found["elements"]
    differing, evaluated = _precise(undecided, params, concrete, rtol, seed)
    for name, index in differing:
        found["elements"].setdefault(name, ())
        found["elements"][name] += (index,)
    found["evaluated"] = evaluated
    if undecided and not evaluated:
        found["note"] = ("no point of the concrete shape gives finite real values at "
                         f"{DIGITS} digits")
    return found


def _precise(undecided, params, concrete, rtol, seed):
    """(name, index) of each undecided element that differs at 50 digits at some random point,
    and the number of points evaluated."""
    if not undecided:
        return [], 0
    rng = np.random.default_rng(seed)
    symbols = sorted(set().union(*(a.free_symbols | b.free_symbols for *_, a, b in undecided)),
                     key=str)
    differing, evaluated = [], 0
    for attempt in range(ATTEMPTS * PRECISE_POINTS):
        low = _low(attempt // PRECISE_POINTS)
        point = {s: sympy.Float(round(float(rng.uniform(low, 2.0)), 6), DIGITS)
                 for s in symbols}
        try:
            values = [(a.xreplace(point).evalf(DIGITS), b.xreplace(point).evalf(DIGITS))
                      for *_, a, b in undecided]
        except (ArithmeticError, TypeError, ValueError):  # e.g. Max of a complex log
            continue
        if not all(_finite(a) and _finite(b) for a, b in values):
            continue
        evaluated += 1
        for (name, index, *_), (a, b) in zip(undecided, values):
            if abs(b - a) / max(1, abs(a)) > rtol and (name, index) not in differing:
                differing.append((name, index))
        if evaluated == PRECISE_POINTS:
            break
    return differing, evaluated


def _not_numbers(values):
    """The first of ``values`` that NumPy cannot read as float numbers, shown short."""
    for value in values:
        try:
            np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            text = repr(value)
            return text if len(text) <= 60 else text[:57] + "..."
    return repr(values)


def _low(attempt):
    """The lower end of the values drawn at ``attempt``: -2, then 0.1 for the second half."""
    return -2.0 if attempt < ATTEMPTS // 2 else 0.1


def _finite(value):
    return isinstance(value, sympy.Number) and value.is_finite


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _one_line(exc):
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:117] + "..."


def array_lines(report, shown, most):
    """The lines of ``str(report)`` after its first, for array code.

    Args:
        report: a ``GradientCheck`` of array code.
        shown: text of a difference cut to a readable length.
        most: at most this many differing components (and indices per component) are listed.
    """
    lines, names = [], report.names
    at = "" if report.sizes is None else " on the shape " + ", ".join(
        f"{k}={v}" for k, v in report.sizes.items()) if report.sizes else " at the fixed sizes"
    if report.verdict == "different":
        shown_names = [name for name in names if name in report.differing]
        for name in shown_names[:most]:
            indices = report.elements.get(name, ())
            sizes, shapes = report.shapes_differ.get(name, (None, None))
            if indices and isinstance(indices[0], str):
                lines.append(f"  {name} differs{at}: {indices[0]}")
            elif indices:
                listed = ", ".join(f"[{','.join(map(str, i))}]" for i in indices[:most])
                more = f" and {len(indices) - most} more" if len(indices) > most else ""
                first = report.differences[names.index(name)]
                lines.append(f"  {name} differs at {listed}{more}{at}: symgrad - df at "
                             f"[{','.join(map(str, indices[0]))}] = {shown(first)}")
            elif not shapes:
                lines.append(f"  {name} differs by value at random sizes, in float64")
            if shapes and not (indices and isinstance(indices[0], str)):
                lines.append(f"  {name} differs in shape at the random size {sizes}: {shapes}")
        if len(shown_names) > most:
            lines.append(f"  ... and {len(shown_names) - most} more differing")
        others = len(names) - len(shown_names)
        if shown_names and others:
            lines.append("  the other component agrees" if others == 1 else
                         f"  the other {others} of {len(names)} components agree")
    elif report.basis == "symbolic":
        lines.append(f"  symgrad - df simplifies to 0 in every element{at}")
    if report.verdict == "undecided":
        lines.append("  no random size gave finite values of symgrad's gradient, and the "
                     "difference was not proved 0")
    if report.verdict == "equal":
        if report.basis != "symbolic" and report.precise_points:
            count = len(report.skipped)
            how = " (SymPy did not simplify every difference to 0)"
            if count:
                element, why = report.skipped[0].split(": ", 1)
                how = (f": the numbers decided (the symbolic comparison was skipped by size in "
                       f"{count} element{'s' * (count != 1)}; in {element}, {why})")
            lines.append(f"  every element agrees within rtol{at} at the "
                         f"{report.precise_points} point{'s' * (report.precise_points != 1)} "
                         f"evaluated, at {DIGITS} digits{how}")
        every = f"all {len(names)} components agree" if len(names) > 1 else "it agrees"
        lines.append(f"  {every} within rtol at the {report.evaluated} random size"
                     f"{'s' * (report.evaluated != 1)} evaluated, in float64")
    if report.symbolic_note:
        lines.append(f"  not symbolic: {report.symbolic_note}")
    if report.worst_point is not None:
        sizes, shapes = report.shapes_differ.get(report.worst_component, (None, None))
        error = shapes if sizes == report.worst_point else \
            f"relative error {report.worst_error:.3g} in float64"
        lines.append(f"  worst random size {report.worst_point}: {report.worst_component} "
                     f"({error})")
    lines.extend(f"  raised: {note}" for note in report.raised)
    return lines

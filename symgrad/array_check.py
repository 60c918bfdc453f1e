"""``check_grad`` on array code: symgrad's gradient against ``df`` at random arrays of several
sizes, one build serving them all.

The verdict is numeric, in float64: at each trial every dimension of ``shapes`` gets a random size
from 2 to 6 and every parameter random values in [-2, 2]; a component differs when
|df − symgrad| / max(1, |symgrad|) exceeds ``rtol`` at some element (or its shape differs). The
symbolic verdict on one small concrete shape (DESIGN.md's plan) is not done yet.
"""
import numpy as np

TRIALS = 5
"""Random sizes tried when ``points`` is None."""


def check_arrays(report_type, gradient, f, df, shapes, points, rtol, seed):
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

    Returns:
        A ``report_type`` with basis "numeric"; ``points`` holds one tuple of sizes per trial.
    """
    rng = np.random.default_rng(seed)
    code = f.__code__
    params = code.co_varnames[:code.co_argcount]
    names_of_dims = sorted({d for dims in shapes.values() for d in dims if isinstance(d, str)})
    trials = TRIALS if points is None else points
    worst = dict(error=0.0, point=None, component=None, expected=None, got=None)
    differing, evaluated, tried, raised = [], 0, [], []
    names = None
    for _ in range(trials):
        sizes = {d: int(rng.integers(2, 7)) for d in names_of_dims}
        args = [rng.uniform(-2.0, 2.0, tuple(sizes.get(d, d) for d in shapes[p])) if p in shapes
                else float(rng.uniform(-2.0, 2.0)) for p in params]
        ours = gradient(*args)
        names = gradient.program.output_names
        ours = ours if isinstance(ours, tuple) else (ours,)
        tried.append(tuple(sorted(sizes.items())))
        try:
            theirs = df(*args)
        except Exception as exc:  # noqa: BLE001 - reported as a difference
            raised.append(f"df raises {type(exc).__name__}: {exc} at sizes {sizes}")
            continue
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        evaluated += 1
        for name, a, b in zip(names, ours, theirs):
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            error = float(np.max(np.abs(b - a) / np.maximum(1.0, np.abs(a)))) if (
                a.shape == b.shape) else float("inf")
            if error > rtol and name not in differing:
                differing.append(name)
            if error > worst["error"] or worst["point"] is None:
                worst = dict(error=error, point=", ".join(f"{k}={v}" for k, v in sizes.items()),
                             component=name, expected=a.tolist(), got=b.tolist())
    verdict = "different" if differing or raised else "equal"
    return report_type(verdict=verdict, basis="numeric", wrt=gradient.wrt, names=names,
                       differences=(None,) * len(names), differing=tuple(differing),
                       points=tried, evaluated=evaluated, worst_point=worst["point"],
                       worst_component=worst["component"], worst_error=worst["error"],
                       expected=worst["expected"], got=worst["got"], rtol=rtol, raised=raised,
                       arrays=True)

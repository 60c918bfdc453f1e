"""More of the array language for the fuzzer's programs (drawn by default; ``fuzz_arrays.py
--narrow`` leaves them out and draws the programs of the first generator, so its seeds replay):
the rows of the array table ``array_program_gen`` does not draw (``np.diff``, ``np.trace``,
``np.diag``, ``np.broadcast_to``, ``np.take_along_axis``, constant boolean masks, ``np.argmax`` /
``np.sort`` of a stopped value, ``np.tril_indices``, ``np.linalg.norm`` with ``ord``, ``ddof=``,
the ``_like`` constructors, ``.copy()``, ``.astype(float)``, ``np.ceil`` / ``np.rint``, ``~`` and
``|`` of conditions, ``np.divide``, ``np.mod`` / ``%`` / ``np.remainder`` by a constant,
``np.reciprocal``, ``np.cbrt``, ``np.flip``, ``np.roll``, a softmax and a log-sum-exp written the
stable way (helpers shifting by the stopped maximum), indices and slice bounds computed from a
size (``x[len(x) // 2]``, ``x[:x.shape[0] - 1]``), and ``np.where(c, x, -np.inf)`` taken the
maximum, ``scipy.special.logsumexp`` or ``scipy.special.softmax`` of).

Not drawn, as symgrad refuses them with a clear ``UnsupportedSyntaxError`` ("arithmetic with an
infinite constant"): a softmax or log-sum-exp *written out* of ``np.where(c, x, -np.inf)``
(``np.exp(z - m)`` with ``z`` holding ``-inf``); the library's own reductions take it.
"""

UNARY = [
    "np.ceil({0}) * 0.5 + ({0})", "np.rint({0}) + ({0})", "np.around({0}) * ({0})",
    "np.true_divide({0}, 1.7)", "np.divide(0.6, 1.5 + ({0}) ** 2)",
    "np.where(~(({0}) > 0.1) | (({0}) < -0.3), {0}, 0.5 * ({0}))",
    "np.where(np.logical_or(({0}) < -0.3, np.logical_not(({0}) < 0.4)), np.sin({0}), 0.1)",
    "np.zeros_like({0}) + ({0}) * 1.1", "np.full_like({0}, 0.2) * ({0})",
    "np.ones_like({0}) - ({0})", "({0}).copy() * 0.9", "({0}).astype(float) + 0.1",
    "({0}).round() + ({0})", "np.float64(0.5) * ({0})",
    "np.mod({0}, 0.7) * ({0})", "({0}) % 0.45 + ({0})", "np.remainder({0}, -0.6)",
    "np.reciprocal(1.5 + ({0}) ** 2)", "np.reciprocal(({0}) - 2.0)", "np.cbrt({0})",
    "np.cbrt(({0}) ** 2 + 0.5) * ({0})",
]
FOLDS = [  # what SymPy folds or decides: the value keeps NumPy's shape and floats
    "np.where(({0}) > 0.2, 0.5, 0.5)", "np.where(({0}) > 0.2, {0}, {0})", "np.clip({0}, 0.3, 0.3)",
    "np.maximum({0}, {0}) - ({0})", "({0}) - ({0}) + 0.5", "0.0 * ({0}) + 1.0",
    "np.minimum({0}, {0}) * 0.0", "np.where(({0}) > ({0}), 1.0, 2.0)",
    "np.where(({0}) < ({0}), {0}, 0.5)", "np.where(({0}) >= ({0}), {0}, 0.5)",
    "np.where(({0}) <= ({0}), 1.5, {0})", "np.where(({0}) == ({0}), {0}, -1.0)",
    "np.where(({0}) != ({0}), 0.5, {0})", "np.where(({0}) * 0.0 > ({0}) * 0.0, 1.0, {0})",
]
"""Drawn in place of a unary row with ``--folds`` (``Gen.folds``, a random stream of its own, so
the programs of a seed without it replay unchanged)."""
NOT_SCALAR = ("~(",)  # Python's ~ of a bool is -2 / -1 (both true), not NumPy's logical not: a
# 0-d value may be a Python float (a scalar parameter), so ~ is drawn on arrays only
METHODS = (").copy", ").astype", ").round")


def maker(gen, shape, depth):
    """A node of ``shape`` from one of the rows above that change shapes, or None."""
    rng = gen.rng
    forms = [_broadcast, _diff, _take_along, _mask, _flip, _roll, _softmax, _sized, _masked,
             _masked] if shape else [_trace, _argmax, _sorted, _tril, _norm, _ddof, _sized,
                                     _masked, _masked, _softmax, _lse]
    return rng.choice(forms)(gen, shape, depth)


def _named(gen):
    return gen.rng.choice(gen.labels) if gen.labels else None


def _broadcast(gen, shape, depth):
    inner = gen.parent(shape)
    if inner == shape:
        return None
    return _node(gen, shape, f"np.broadcast_to({{0}}, {gen.shape_text(shape)})",
                 [gen.expr(inner, depth)])


def _diff(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    p = gen.rng.randint(0, len(shape))
    inner = shape[:p] + (label,) + shape[p:]
    red = gen.rng.choice(["np.sum", "np.mean", "np.max"])
    n = gen.rng.choice(["", ", n=1"])
    return _node(gen, shape, f"{red}(np.diff({{0}}{n}, axis={p}), axis={p})",
                 [gen.expr(inner, depth)])


def _take_along(gen, shape, depth):
    """``np.take_along_axis`` of a vector with a constant index of an int size."""
    if len(shape) != 1 or not isinstance(shape[0], int) or shape[0] < 2:
        return None
    label = _named(gen)
    if label is None:
        return None
    values = [gen.rng.choice([0, 1, -1]) for _ in range(shape[0])]
    return _node(gen, shape, f"np.take_along_axis({{0}}, np.array({values}), axis=0)",
                 [gen.expr((label,), depth)])


def _mask(gen, shape, depth):
    """``x[MASK]`` of a vector of a fixed size, taking ``shape[0]`` of its elements."""
    if len(shape) != 1 or not isinstance(shape[0], int) or shape[0] < 2:
        return None
    labels = [a for a, v in gen.fixed.items() if v >= shape[0]]
    if not labels:
        return None
    label = gen.rng.choice(sorted(labels))
    kept = set(gen.rng.sample(range(gen.fixed[label]), shape[0]))
    name = f"MASK{len(gen.consts)}"
    gen.consts.append(f"{name} = np.array({[i in kept for i in range(gen.fixed[label])]})")
    return _node(gen, shape, f"({{0}})[{name}]", [gen.expr((label,), depth)])


def _trace(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    fmt = gen.rng.choice(["np.trace({0})", "({0}).trace()", "np.sum(np.diag({0}) ** 2)"])
    return _node(gen, shape, fmt, [gen.expr((label, label), depth)])


def _argmax(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    arg = gen.rng.choice(["np.argmax", "np.argmin"])
    kid = gen.expr((label,), depth)
    return _node(gen, shape, f"({{0}})[{arg}(stop_gradient({{0}}))] * 1.5", [kid])


def _sorted(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    return _node(gen, shape, "np.sum(stop_gradient(np.sort({0})) * ({1}))",
                 [gen.expr((label,), depth), gen.expr((label,), depth)])


def _tril(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    k = gen.rng.choice([0, -1])
    return _node(gen, shape, f"np.sum(({{0}})[np.tril_indices({gen.size_text(label)}, {k})])",
                 [gen.expr((label, label), depth)])


def _norm(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    fmt = gen.rng.choice(["np.linalg.norm({0}, ord=1)", "np.linalg.norm({0}, ord=2)",
                          "np.linalg.norm({0}, 1)"])
    return _node(gen, shape, fmt, [gen.expr((label,), depth)])


def _ddof(gen, shape, depth):
    label = _named(gen)
    if label is None:
        return None
    fmt = gen.rng.choice(["np.var({0}, ddof=1)", "np.std({0}, ddof=1)", "({0}).var(ddof=1)"])
    return _node(gen, shape, fmt, [gen.expr((label,), depth)])


def _flip(gen, shape, depth):
    """``np.flip`` of every axis, of one (by keyword, by position, negative) or of two."""
    rank, rng = len(shape), gen.rng
    p = rng.randrange(rank)
    forms = ["np.flip({0})", f"np.flip({{0}}, axis={p})", f"np.flip({{0}}, {p - rank})"]
    if rank >= 2:
        q = rng.choice([q for q in range(rank) if q != p])
        forms.append(f"np.flip({{0}}, axis=({p}, {q}))")
    return _node(gen, shape, rng.choice(forms), [gen.expr(shape, depth)])


def _roll(gen, shape, depth):
    """``np.roll`` by a constant shift (counted modulo the size): without ``axis`` of a vector
    only (NumPy flattens anything else), along an axis, or two shifts along two axes."""
    rank, rng = len(shape), gen.rng
    k = rng.choice([1, -1, 2, 3, -4, 7])
    p = rng.randrange(rank)
    forms = [f"np.roll({{0}}, {k}, axis={p})", f"np.roll({{0}}, {k}, {p - rank})"]
    if rank == 1:
        forms += [f"np.roll({{0}}, {k})"] * 2
    if rank >= 2:
        q = rng.choice([q for q in range(rank) if q != p])
        forms.append(f"np.roll({{0}}, ({k}, {rng.choice([1, -2])}), axis=({p}, {q}))")
    return _node(gen, shape, rng.choice(forms), [gen.expr(shape, depth)])


def _helper(gen, kind, axis):
    """A module-level helper: the softmax or the log-sum-exp of ``z`` along ``axis`` (None:
    every axis), shifted by the stopped maximum, as it is written by hand."""
    name = f"{kind}{len(gen.helpers)}"
    keep = "" if axis is None else f", axis={axis}, keepdims=True"
    if kind == "softmax":
        body = (f"    z = z - stop_gradient(np.max(z{keep}))\n    e = np.exp(z)\n"
                f"    return e / np.sum(e{keep})\n")
    elif axis is None:
        body = ("    m = stop_gradient(np.max(z))\n"
                "    return m + np.log(np.sum(np.exp(z - m)))\n")
    else:  # the size-1 axis kept, then summed away
        body = (f"    m = stop_gradient(np.max(z{keep}))\n"
                f"    return np.sum(m + np.log(np.sum(np.exp(z - m){keep})), axis={axis})\n")
    gen.helpers.append(f"def {name}(z):\n{body}")
    return name


def _softmax(gen, shape, depth):
    """A stable softmax written out (a helper), along one axis or every axis; of a scalar: the
    softmax of a vector weighting another."""
    rng = gen.rng
    if not shape:
        label = _named(gen)
        if label is None:
            return None
        name = _helper(gen, "softmax", rng.choice([None, 0, -1]))
        return _node(gen, shape, f"np.sum({name}({{0}}) * ({{1}}))",
                     [gen.expr((label,), depth), gen.expr((label,), depth)])
    axis = rng.choice([None, rng.randrange(len(shape)), -1])
    return _node(gen, shape, f"{_helper(gen, 'softmax', axis)}({{0}})", [gen.expr(shape, depth)])


def _lse(gen, shape, depth):
    """The log-sum-exp written out (a helper) of a vector or an array, to a scalar."""
    label = _named(gen)
    if label is None:
        return None
    inner = gen.random_shape(gen.rng.choice([1, 2]))
    return _node(gen, shape, f"{_helper(gen, 'lse', None)}({{0}})", [gen.expr(inner, depth)])


def _sized(gen, shape, depth):
    """An index or slice bound computed from a size: ``x[len(x) // 2]``, ``x[:, X.shape[1] - 1]``,
    ``np.max(x[:n - 1], axis=0)``, ``np.sum(x[1:n - 1], axis=0)`` (every size is >= 2)."""
    label = _named(gen)
    if label is None:
        return None
    rng = gen.rng
    p = rng.randint(0, len(shape))
    inner = shape[:p] + (label,) + shape[p:]
    size, pre = gen.size_text(label), ":, " * p
    red = rng.choice(["np.sum", "np.max", "np.mean"])
    fmt = rng.choice([f"({{0}})[{pre}{size} // 2]", f"({{0}})[{pre}{size} - 1]",
                      f"({{0}})[{pre}{size} - 2] * 0.5",
                      f"{red}(({{0}})[{pre}:{size} - 1], axis={p})",
                      f"{red}(({{0}})[{pre}{size} // 2:], axis={p})",
                      f"np.sum(({{0}})[{pre}1:{size} - 1], axis={p})"])
    return _node(gen, shape, fmt, [gen.expr(inner, depth)])


def _masked(gen, shape, depth):
    """``np.where(c, x, -np.inf)`` reduced by ``np.max``, ``scipy.special.logsumexp`` or weighted
    by ``scipy.special.softmax``: along an inserted axis (or every axis, to a scalar). The
    condition keeps an element of every reduced slice (its largest, or all but one position of
    the reduced axis, ``np.arange(n) != 1``): a slice of -inf only gave -inf or nan values that
    later arithmetic saturated (``tanh(-inf)``, an index dropping them), and their gradient
    0 * inf = nan (80-184, 81-29, 81-541; JAX's too), a false alarm. The reduction of a slice of
    -inf only is tested in tests/test_infinite_constants.py."""
    rng = gen.rng
    if shape:
        label = _named(gen)
        if label is None:
            return None
        p = rng.randint(0, len(shape))
        inner = shape[:p] + (label,) + shape[p:]
        axis, keep = f", axis={p}", f", axis={p}, keepdims=True"
    else:
        inner = gen.random_shape(rng.choice([1, 1, 2]))
        if not any(isinstance(a, str) for a in inner):
            return None
        p, axis, keep = None, "", ""
    top = f"stop_gradient(np.max({{1}}{keep}))"  # the largest of each reduced slice: kept
    conds = [f"({{1}}) > {top} - 0.5", f"(({{1}}) < 0.3) | (({{1}}) > {top} - 0.05)"]  # not
    # `== top`: the reference replays the stopped maximum at the shifted points, where the
    # largest element moved off it (the slice emptied there: no difference quotient)
    last = inner[-1]
    if isinstance(last, str) and (p is None or p == len(inner) - 1):  # along the reduced axis
        conds.append(f"np.arange({gen.size_text(last)}) != 1")
    cond = rng.choice(conds)
    kids = [gen.expr(inner, depth)] + ([gen.expr(inner, depth)] if "{1}" in cond else [])
    where = f"np.where({cond}, {{0}}, -np.inf)"
    reds = [f"np.max({where}{axis})", f"np.amax({where}{axis})"]
    if gen.special:
        weight = f"{{{len(kids)}}}"  # the next kid
        reds += [f"scipy.special.logsumexp({where}{axis})",
                 f"np.sum(scipy.special.softmax({where}{axis}) * ({weight}){axis})"]
    fmt = rng.choice(reds)
    if "softmax" in fmt:
        kids.append(gen.expr(inner, depth))
    return _node(gen, shape, fmt, kids)


def _node(gen, shape, fmt, kids):
    from array_program_gen import Node
    return Node(shape, fmt, kids)

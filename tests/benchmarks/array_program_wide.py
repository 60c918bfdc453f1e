"""More of the array language for the fuzzer's programs (``fuzz_arrays.py --wide``): the rows of
the array table ``array_program_gen`` does not draw (``np.diff``, ``np.trace``, ``np.diag``,
``np.broadcast_to``, ``np.take_along_axis``, constant boolean masks, ``np.argmax`` / ``np.sort`` of
a stopped value, ``np.tril_indices``, ``np.linalg.norm`` with ``ord``, ``ddof=``, the ``_like``
constructors, ``.copy()``, ``.astype(float)``, ``np.ceil`` / ``np.rint``, ``~`` and ``|`` of
conditions, ``np.divide``). Off by default, so a seed names the same program as before."""

UNARY = [
    "np.ceil({0}) * 0.5 + ({0})", "np.rint({0}) + ({0})", "np.around({0}) * ({0})",
    "np.true_divide({0}, 1.7)", "np.divide(0.6, 1.5 + ({0}) ** 2)",
    "np.where(~(({0}) > 0.1) | (({0}) < -0.3), {0}, 0.5 * ({0}))",
    "np.where(np.logical_or(({0}) < -0.3, np.logical_not(({0}) < 0.4)), np.sin({0}), 0.1)",
    "np.zeros_like({0}) + ({0}) * 1.1", "np.full_like({0}, 0.2) * ({0})",
    "np.ones_like({0}) - ({0})", "({0}).copy() * 0.9", "({0}).astype(float) + 0.1",
    "({0}).round() + ({0})", "np.float64(0.5) * ({0})",
]
METHODS = (").copy", ").astype", ").round")


def maker(gen, shape, depth):
    """A node of ``shape`` from one of the rows above that change shapes, or None."""
    rng = gen.rng
    forms = [_broadcast, _diff, _take_along, _mask] if shape else [
        _trace, _argmax, _sorted, _tril, _norm, _ddof]
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


def _node(gen, shape, fmt, kids):
    from array_program_gen import Node
    return Node(shape, fmt, kids)

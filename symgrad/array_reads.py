"""The reads of the array table's rows without a node of their own (``arrays.ARRAY_RULES``).

Each ``_read_<f>(ctx, **arguments)`` (see ``arrays`` for ``ctx``) gives a NumPy call's value as
NumPy computes it: an elementwise SymPy expression (``np.where``, ``np.clip``, ``np.logaddexp``),
or array nodes of other rows (``np.mean``, ``np.var`` and ``np.linalg.norm`` are sums,
``np.trace``/``np.diag``/``np.diff``/``np.take`` gathers, ``scipy.special.logsumexp`` a shifted
sum of exponentials).
"""
import numpy as np
import sympy

from .argument_refusals import index_argument, labels
from .array_indexing import ARANGE, index
from .array_nodes import REQUIRED
from .array_ops import MAX, SUM, broadcast_to, expand_dims, matmul, reduce_, reshape, transpose
from .rules import RULES, Written, real_abs
from .shapes import ONE, ShapeError, size
from .written import kept_as_written, written_call


def _read_mean(ctx, a, axis=None, keepdims=False):
    x = ctx.array(a)
    shape = ctx.shape(x)
    axes = ctx.axes(axis, len(shape))
    count = size([shape[k] for k in axes])
    ctx.mean_count(count)
    total = ctx.bind(reduce_(SUM, x, axes, ctx.flag(keepdims), len(shape)), "total")
    # NumPy's mean is the sum divided by the count:
    return kept_as_written(total / count, Written(sympy.Integer(3), total, count))  # its float


_SQRT = next(row for row in RULES if "numpy.sqrt" in row.python)


def _read_var(root):
    """``np.var`` (``np.std``: its square root) as NumPy computes it: the mean along the axes
    (kept), the squared deviations summed along them, divided by the count less ``ddof``."""
    def read(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        if dtype is not None or out is not None:
            ctx.fail("np.var/np.std with dtype= or out= is not supported", "leave them out")
        x = ctx.array(a)
        shape = ctx.shape(x)
        axes = ctx.axes(axis, len(shape))
        count = size([shape[k] for k in axes])
        ctx.mean_count(count)
        total = ctx.bind(reduce_(SUM, x, axes, True, len(shape)), "total")
        mean = kept_as_written(total / count, Written(sympy.Integer(3), total, count))
        deviation = ctx.bind(x - mean, "deviation", ctx.shape(x))
        squares = ctx.bind(reduce_(SUM, deviation * deviation, axes, ctx.flag(keepdims),
                                   len(shape)), "squares")
        divisor = count - ctx.integer(ddof)
        written = Written(sympy.Integer(3), squares, divisor)
        variance = kept_as_written(squares / divisor, written)
        if not root:
            return variance
        # NumPy's root of the quotient: not SymPy's sqrt(3)*sqrt(squares)/3 (another float)
        return kept_as_written(sympy.sqrt(variance), written_call(_SQRT, [written]))
    return read


def _diagonal(ctx, x, what):
    """The main diagonal of the matrix ``x``, gathered with ``np.arange`` (``A[steps, steps]``:
    the adjoint adds into the diagonal)."""
    shape = ctx.shape(x)
    if len(shape) != 2:
        ctx.fail(f"{what} is supported for a matrix here", "np.eye(n) * v makes a diagonal "
                 "matrix of a vector v")
    length = shape[0] if shape[0] == shape[1] else sympy.Min(*shape)
    steps = ctx.bind(ARANGE.make(params=(sympy.Integer(0), length, sympy.Integer(1))), "steps")
    entry = ("array", steps, (length,), ())
    return ctx.bind(index(x, (entry, entry)), "diagonal")


def _read_trace(ctx, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``np.trace`` of a matrix as NumPy computes it: the sum of its diagonal."""
    if ctx.integer(offset) != 0 or (ctx.integer(axis1), ctx.integer(axis2)) != (0, 1) or \
            dtype is not None or out is not None:
        ctx.fail("np.trace is supported for a matrix, without offset, axes, dtype or out",
                 "gather the diagonal with np.arange and sum it")
    diagonal = _diagonal(ctx, ctx.array(a), "np.trace")
    return ctx.bind(reduce_(SUM, diagonal, (0,), False, 1), "total")


def _read_diag(ctx, v, k=0):
    """``np.diag`` of a matrix: its main diagonal (of a vector, a matrix, is refused)."""
    if ctx.integer(k) != 0:
        ctx.fail("np.diag with an offset k is not supported", "slice the matrix first")
    return _diagonal(ctx, ctx.array(v), "np.diag")


def _read_diff(ctx, a, n=1, axis=-1, prepend=None, append=None):
    """``np.diff``: ``a[1:] - a[:-1]`` along the axis, ``n`` times, as NumPy computes it."""
    if prepend is not None or append is not None:
        ctx.fail("np.diff with prepend= or append= is not supported",
                 "np.concatenate the values first")
    x = ctx.array(a)
    shape = ctx.shape(x)
    (k,) = ctx.axes(axis, len(shape))
    every = (("slice", None, None, None),) * k
    for _ in range(ctx.integer(n)):
        upper = ctx.bind(index(x, every + (("slice", 1, None, None),)), "item")
        lower = ctx.bind(index(x, every + (("slice", None, -1, None),)), "item")
        x = ctx.bind(upper - lower, "difference", ctx.shape(upper))
    return x


def _read_squeeze(ctx, a, axis=None):
    x = ctx.array(a)
    shape = ctx.shape(x)
    axes = tuple(k for k, d in enumerate(shape) if d == ONE) if axis is None else ctx.axes(
        axis, len(shape))
    for k in axes:
        if shape[k] != ONE:
            ctx.fail(f"squeeze of axis {k}, whose size {shape[k]} is not 1",
                     "squeeze only axes of size 1")
    target = tuple(d for k, d in enumerate(shape) if k not in axes)
    return x if target == shape else reshape(x, target)


def _read_take(ctx, a, indices=REQUIRED, axis=None):
    x = ctx.array(a)
    shape = ctx.shape(x)
    if axis is None and len(shape) != 1:
        ctx.fail("np.take without an axis flattens the array first", "pass axis=")
    k = 0 if axis is None else ctx.axes(axis, len(shape))[0]
    entry = ctx.index_entry(indices, shape[k])
    return index(x, (("slice", None, None, None),) * k + (entry,))


def _read_take_along_axis(ctx, arr, indices=REQUIRED, axis=REQUIRED):
    """``np.take_along_axis(x, IDX, axis)`` of a constant int array ``IDX`` (of ``x``'s rank): the
    gather ``x[..., IDX, ...]`` with, on every other axis, the constant positions ``IDX`` is
    broadcast along (``np.arange``), as NumPy builds it."""
    x = ctx.array(arr)
    shape = ctx.shape(x)
    found = ctx.constant_indices(indices)
    name = index_argument(ctx.node, ctx.frame) if found is None else None
    if name:  # np.take_along_axis(logp, labels[:, None], axis=1): labels passed as an argument
        ctx.fail(*labels(name))
    if found is None or axis is None or found.ndim != len(shape):
        ctx.fail("np.take_along_axis is supported with a constant int array of the array's rank "
                 "and an axis", "index with np.arange rows: x[np.arange(n), LABELS]")
    (k,) = ctx.axes(axis, len(shape))
    spec = []
    for j, d in enumerate(shape):
        if j == k:
            positions = indices
        else:
            along = np.arange(found.shape[j]).reshape([-1 if i == j else 1
                                                      for i in range(len(shape))])
            positions = ctx.constant(np.ascontiguousarray(np.broadcast_to(along, found.shape)),
                                     "positions")
            try:  # the array's size on that axis (broadcasting IDX is not supported)
                if (found.shape[j] == 1) != (d == ONE):
                    raise ShapeError("one is 1")
                if d != ONE:
                    ctx.reader.dims.unify(d, sympy.Integer(found.shape[j]))
            except ShapeError:
                ctx.fail(f"the indices have {found.shape[j]} along axis {j}, the array "
                         f"{ctx.reader.dims.text(d)}", "give the indices the array's shape "
                         "on the other axes")
        spec.append(ctx.index_entry(positions, d))
    return index(x, tuple(spec))


def _read_full(value):
    def read(ctx, shape, fill_value=REQUIRED, dtype=None):
        fill = value if fill_value is REQUIRED else ctx.scalar(fill_value)
        return broadcast_to(fill, ctx.new_shape(shape, None))
    return read


def _read_like(value):
    def read(ctx, a, fill_value=REQUIRED, dtype=None):
        fill = value if fill_value is REQUIRED else ctx.scalar(fill_value)
        return broadcast_to(fill, ctx.shape(ctx.array(a)))
    return read


# --- elementwise spellings ------------------------------------------------------------------
def _read_where(ctx, condition, x=REQUIRED, y=REQUIRED):
    if x is REQUIRED or y is REQUIRED:
        ctx.fail("np.where with one argument gives indices", "pass np.where(condition, a, b)")
    cond = ctx.condition(condition)
    a, b = ctx.array(x), ctx.array(y)
    return sympy.Piecewise((a, cond), (b, True))


def _read_clip(ctx, a, a_min=REQUIRED, a_max=REQUIRED):
    """``np.clip(a, lo, hi)`` = ``min(max(a, lo), hi)``; a bound of None is no bound (NumPy's
    one-sided clip, ``np.clip(x, None, hi)`` = ``np.minimum(x, hi)``; NumPy 2 takes two Nones)."""
    x = ctx.array(a)
    clipped = x if a_min is None else sympy.Max(x, ctx.array(a_min))
    return clipped if a_max is None else sympy.Min(clipped, ctx.array(a_max))


def _read_round(ctx, a, decimals=0):
    from .functions import Round
    if decimals not in (0, sympy.Integer(0)):
        ctx.fail("np.round with decimals is not supported", "scale, round and scale back")
    return Round(ctx.array(a))


def _read_logaddexp(ctx, x1, x2):
    """log(e^a + e^b) as NumPy computes it, max(a, b) + log1p(e^-|a - b|): it never overflows,
    and no term cancels a copy of ``a`` or ``b`` against another. The shifted form m + log(e^(a - m)
    + e^(b - m)) did: under ``jax.jit`` XLA computed ``a`` (~1e23) twice with different roundings,
    so a - m was -2e7 for the larger, the sum of exponentials 0, the value -inf and the gradient
    nan (array fuzzer 34-71; NumPy's 0). Its derivative is e^a / (e^a + e^b) with the tie's
    half from ``max`` and ``abs``'s derivative 0 at a = b."""
    from .functions import Log1p
    a, b = ctx.array(x1), ctx.array(x2)
    return sympy.Max(a, b) + Log1p(sympy.exp(-sympy.Abs(a - b)))


def _read_logsumexp(ctx, a, axis=None, b=None, keepdims=False, return_sign=False):
    """``scipy.special.logsumexp``: the largest element along the axes, stopped (a shift that
    cancels in the value and is a constant to differentiation), plus the log of the sum of the
    shifted exponentials, so it never overflows; its gradient is the softmax along the axes. Of
    an array holding an infinite constant, the shift is 0 where the largest is infinite, as
    SciPy shifts: a slice of -inf only is -inf (shifted by -inf it was nan, and so was every
    derivative through its value: exp(logsumexp(...)) * y had d/dy nan, not 0); and its
    derivative there, exp(x - shift) / total = 0 / 0, is 0: the value is stopped, plus
    (total - stopped total) / (total, or 1 where it is 0), which is 0 and has that derivative."""
    from .functions import StopGradient, Value
    if b is not None or return_sign is not False:
        ctx.fail("scipy.special.logsumexp with b= or return_sign= is not supported",
                 "fold b into the exponent: logsumexp(x + np.log(b))")
    x = ctx.array(a)
    shape = ctx.shape(x)
    if not shape:
        return x
    axes, keep = ctx.axes(axis, len(shape)), ctx.flag(keepdims)
    if size([shape[k] for k in axes]) == 0:  # over no element: SciPy's -inf, a constant
        kept = tuple(ONE if k in axes else d for k, d in enumerate(shape) if keep or k not in axes)
        return _nothing_logsumexp(ctx, kept)
    largest = ctx.bind(reduce_(MAX, x, axes, True, len(shape)), "largest")
    infinite = ctx.may_be_infinite(x)
    if infinite:  # SciPy's shift: 0 where the largest is infinite (every element
        # -inf: the value is log(0) = -inf, not -inf - -inf = nan)
        finite = (Value(-sympy.oo) < Value(largest)) & (Value(largest) < Value(sympy.oo))
        largest = ctx.bind(sympy.Piecewise((largest, finite), (0, True)), "largest")
    total = ctx.bind(reduce_(SUM, sympy.exp(x - StopGradient(largest)), axes, keep, len(shape)),
                     "total")
    if not keep:
        largest = ctx.bind(reshape(largest, ctx.shape(total)), "largest")
    if infinite:  # the derivative exp(x - shift) / total is 0 / 0 on a slice of -inf only: 0 there
        safe = ctx.bind(sympy.Piecewise((total, Value(total) > 0), (1, True)), "total")
        return StopGradient(sympy.log(total) + StopGradient(largest)) + (
            total - StopGradient(total)) / StopGradient(safe)
    return sympy.log(total) + StopGradient(largest)


def _nothing_logsumexp(ctx, kept):
    """``logsumexp`` over no element: SciPy's -inf, of the shape ``kept``, as a constant array
    holding it (``nothing = np.array([-inf])``, summed to a number where ``kept`` is ``()``). Not
    SymPy's ``-oo``, with which every arithmetic is refused ("an infinite constant": ``logsumexp(
    v[2:]) + w`` at 2 elements, whose call then ran the general build and raised NumPy's
    ValueError of ``np.max`` over nothing): a constant array is a value the code computes with
    as NumPy does (-inf + w is -inf, exp(-inf + w) is 0) and is differentiated through as JAX's
    ``jax.grad`` is (d/dw (-inf + w) = 1, d/dv of exp(-inf + w * v) 0)."""
    if any(not d.is_Integer for d in kept):  # sizes known when called: not a constant array
        return broadcast_to(-sympy.oo, kept) if kept else -sympy.oo
    value = ctx.constant(np.full(tuple(int(d) for d in kept) or (1,), -np.inf), "nothing")
    if kept:
        return value
    return ctx.bind(reduce_(SUM, value, (0,), False, 1), "nothing")


def _read_norm(ctx, x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm`` without ``ord``: the 2-norm of the vectors along ``axis`` (an int), the
    Frobenius norm over two axes (a pair) or of the whole array (None), as NumPy computes it:
    ``sqrt(sum(x * x))`` along those axes. Of vectors (a rank-1 array, or along one axis),
    ``ord=2`` is that 2-norm too and ``ord=1`` is ``sum(abs(x))`` (``abs`` with its convention at
    0, docs/conventions.md). ``ord="fro"`` over two axes (a pair, or None of a matrix) is the
    Frobenius norm, as without ``ord``."""
    v = ctx.array(x)
    rank = len(ctx.shape(v))
    axes = tuple(range(rank)) if axis is None else ctx.axes(axis, rank)
    vectors = rank and len(axes) == 1
    if ord == "fro" and len(axes) == 2:  # NumPy: the Frobenius norm of matrices only
        ord = None
    if ord not in (None, 1, 2) or ord is not None and not vectors or not rank:
        ctx.fail("np.linalg.norm is supported without ord, of an array, with ord=1 or 2 of "
                 "vectors and ord='fro' of matrices",
                 "write np.sqrt(np.sum(x * x, axis=...)) for other norms")
    if axis is not None and len(axes) > 2:
        ctx.fail("np.linalg.norm over more than two axes is not defined", "pass one or two axes")
    if ord == 1:  # NumPy: add.reduce(abs(x), axis)
        return ctx.bind(reduce_(SUM, real_abs(v), axes, ctx.flag(keepdims), rank), "total")
    return sympy.sqrt(ctx.bind(reduce_(SUM, v * v, axes, ctx.flag(keepdims), rank), "total"))


def _read_outer(ctx, a, b):
    x, y = ctx.array(a), ctx.array(b)
    if len(ctx.shape(x)) != 1 or len(ctx.shape(y)) != 1:
        ctx.fail("np.outer of arrays that are not vectors", "pass two vectors (or ravel them)")
    return ctx.bind(expand_dims(x, (1,)), "expanded") * y


def _read_inner(ctx, a, b):
    x, y = ctx.array(a), ctx.array(b)
    rx, ry = len(ctx.shape(x)), len(ctx.shape(y))
    if not rx or not ry:
        return x * y
    if rx > 2 or ry > 2:
        ctx.fail("np.inner of arrays of rank above 2 is not supported", "use np.einsum")
    return matmul(x, y if ry == 1 else ctx.bind(transpose(y, (1, 0)), "transposed"))


def _binary(op):
    """``np.add(a, b)`` read as ``a + b`` is, its broadcast shape kept: SymPy folds
    ``np.subtract(X, X)`` to 0, a scalar (``np.sum(np.subtract(X, X) + w[0])`` had gradient 1
    for k; array fuzzer 21-167)."""
    def read(ctx, x1, x2):
        return ctx.reader.binary(op(), ctx.array(x1), ctx.array(x2), ctx.node, ctx.frame)
    return read

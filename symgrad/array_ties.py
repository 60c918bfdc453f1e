"""The tie mask of ``np.max``/``np.min`` (``amax``, ``amin``, with or without ``axis``) as
``backend="jax"`` prints it, so that ``jax.jit`` cannot lose the gradient.

The mask of the vjp (``array_ops._extremum_vjp``) is ``x == max(x)``, and its count the sum of
the mask: ties share the gradient equally (JAX's and autograd's convention, and every other
backend's). Under ``jax.jit`` XLA may compute ``x`` again in each fusion that reads it, once
with a fused multiply-add and once without (the max's reduction against the mask's
elementwise loop): then no element of the recomputed ``x`` equals the max, and the gradient is
0 (array fuzzer 34-5: d/dv[0] = 0.978 on NumPy and eager JAX, 0 under ``jax.jit``; ``jax.jit``
of ``jax.grad`` loses it too). Here the count ``c`` of ``x == max(x)`` is a reduction (XLA
computes it once), and where ``c <= 1`` (no tie, or a mask emptied by a rounding) the mask is
the one-hot of ``np.argmax`` (an integer, compared with integers: no float is compared twice),
so the element that is the max gets the whole gradient, and the count of the mask is exactly 1.
Where ``c >= 2`` (a real tie) the mask is ``x == max(x)`` as everywhere.

``array_ops.tie_mask`` tags the mask of the vjp (params of the ``where`` node: the reduced axes, the rank
and the input's shape); ``lowering._lower`` replaces a tagged mask by ``jit_safe`` for ``"jax"``;
every other backend prints it as the plain ``where``.
"""
import sympy

from .array_indexing import POSITIONS
from .array_ops import SUM, TIES, WHERE, reduce_, reshape, transpose, where
from .array_values import ARGMAX, ARGMIN

def is_marked(node):
    return isinstance(node, WHERE.node) and len(node.args) == 4 and node.params and \
        node.params[0] == TIES


def plain(node, cond=None):
    """The tagged mask as the plain ``where`` (its condition ``cond`` lowered)."""
    c, a, b = node.inputs
    return where(c if cond is None else cond, a, b)


def jit_safe(node, cond):
    """``where(c <= 1, one-hot of argmax, x == max)`` with ``c`` the count of ``x == max``."""
    _, axes, rank, shape, smallest = node.params
    if not axes or not isinstance(cond, sympy.Eq):
        return plain(node, cond)
    x = cond.lhs
    eq = where(cond, 1, 0)
    count = reduce_(SUM, eq, axes, True, rank)
    return where(sympy.Le(count, 1), _one_hot(x, axes, rank, shape, smallest), eq)


def _one_hot(x, axes, rank, shape, smallest):
    """The 0/1 array of ``x``'s shape that is 1 at the first position of the extremum of ``x``
    over ``axes`` (``shape``: ``x``'s)."""
    arg = ARGMIN if smallest else ARGMAX
    axes = tuple(axes)
    kept = tuple(k for k in range(rank) if k not in axes)
    if len(axes) == 1 and rank > 1 or rank == 1:
        (k,) = axes
        position = arg.make(x, params=(axes, True, rank))
        steps = POSITIONS.make(params=(shape[k],))
        if rank > 1:
            steps = reshape(steps, tuple(shape[k] if j == k else 1 for j in range(rank)))
        return where(sympy.Eq(steps, position), 1, 0)
    size = sympy.Mul(*[shape[k] for k in axes])
    steps = POSITIONS.make(params=(size,))
    if not kept:  # every axis: the flat index of np.argmax(x)
        position = arg.make(x, params=(axes, False, rank))
        return where(sympy.Eq(reshape(steps, tuple(shape)), position), 1, 0)
    # some axes: the reduced ones last, flattened into one, and back
    perm = kept + axes
    moved = transpose(x, perm) if perm != tuple(range(rank)) else x
    flat = reshape(moved, tuple(shape[k] for k in kept) + (size,))
    m = len(kept) + 1
    position = arg.make(flat, params=((m - 1,), True, m))
    hot = where(sympy.Eq(reshape(steps, (1,) * len(kept) + (size,)), position), 1, 0)
    back = reshape(hot, tuple(shape[k] for k in perm))
    if perm != tuple(range(rank)):
        back = transpose(back, tuple(perm.index(k) for k in range(rank)))
    return back


__all__ = ["is_marked", "jit_safe", "plain"]

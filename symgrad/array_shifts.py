"""Rows of the array table that reorder or normalise: ``np.flip`` (a reversed index),
``np.roll`` (a node of its own, rolled back in its adjoint), ``scipy.special.softmax`` and
``log_softmax`` (shifted by their stopped maximum, as SciPy computes them).

The derivatives are autograd's and JAX's: the adjoint of ``roll(x, s)`` is ``roll(g, -s)``, of a
flip the flip. Every backend has ``roll`` (the Array API's takes ``axis`` by keyword
only, PyTorch's its ``dims`` by position only: printed so for each); a flip prints as the index
``x[::-1]`` does on each backend (``torch.flip`` where PyTorch has no negative steps).
"""
import ast

import sympy

from .array_indexing import index
from .array_nodes import REQUIRED, ArrayRule, _call
from .array_ops import MAX, SUM, reduce_
from .shapes import size

_ALL = ("slice", None, None, None)


def _read_flip(ctx, m, axis=None):
    x = ctx.array(m)
    rank = len(ctx.shape(x))
    if not rank:
        ctx.fail("np.flip of a number", "pass an array")
    axes = ctx.axes(axis, rank)
    return index(x, tuple(("slice", None, None, -1) if k in axes else _ALL for k in range(rank)))


def _roll_shape(node, shapes, _):
    return shapes[0]


def _roll_vjp(node, g, i, ctx):
    """The adjoint of rolling forward is rolling back by as much (autograd, JAX)."""
    shift, axis = node.params
    return ROLL.make(g, params=(-shift, axis))


def _roll_print(printer, node):
    shift, axis = node.params
    args = [printer.node(node.inputs[0]), printer.number(shift)]
    if printer.backend == "array_api":  # roll(x, /, shift, *, axis=None)
        return _call(printer, "np.roll", args, [("axis", ast.Constant(axis))])
    return _call(printer, "np.roll", args + [ast.Constant(axis)])  # torch.roll: dims positional


def _read_roll(ctx, a, shift=REQUIRED, axis=None):
    """``np.roll`` by shifts known when the gradient is built: one axis, or a tuple of axes with
    a tuple of shifts (one roll after another); without an axis, of a vector only (NumPy
    flattens anything else first)."""
    x = ctx.array(a)
    rank = len(ctx.shape(x))
    if not rank:
        ctx.fail("np.roll of a number", "pass an array")
    if axis is None and rank != 1:
        ctx.fail("np.roll without an axis flattens the array first", "pass axis=")
    axes = ctx.axes(0 if axis is None else axis, rank, ordered=False)
    shifts = shift if isinstance(shift, tuple) else (shift,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        ctx.fail("np.roll with a different number of shifts and axes", "pass one shift per axis")
    for k, s in zip(axes, shifts):
        s = ctx.integer(s)
        if s:
            x = ctx.bind(ROLL.make(x, params=(s, k)), "rolled")
    return x


def _softmax(log):
    """``scipy.special.softmax`` (``log_softmax``): ``exp(x - max)`` over its sum along the axes
    (``x - max - log(sum)``), the maximum stopped: a shift that cancels in the value and is a
    constant to differentiation, as in ``logsumexp``."""
    def read(ctx, x, axis=None):
        from .functions import StopGradient
        v = ctx.array(x)
        rank = len(ctx.shape(v))
        if not rank:
            ctx.fail(f"scipy.special.{'log_' * log}softmax of a number", "pass an array")
        axes = ctx.axes(axis, rank)
        if size([ctx.shape(v)[k] for k in axes]) == 0:  # SciPy's max of nothing raises
            ctx.fail(f"scipy.special.{'log_' * log}softmax over no element (an empty axis at "
                     "these sizes): SciPy raises ValueError", "differentiate at arrays of more "
                     "elements")
        largest = ctx.bind(reduce_(MAX, v, axes, True, rank), "largest")
        shifted = ctx.bind(v - StopGradient(largest), "shifted", ctx.shape(v))
        total = ctx.bind(reduce_(SUM, sympy.exp(shifted), axes, True, rank), "total")
        return shifted - sympy.log(total) if log else sympy.exp(shifted) / total
    return read


ROLL = ArrayRule("roll", ("numpy.roll",), (), (("a", REQUIRED), ("shift", REQUIRED),
                                               ("axis", None)),
                 read=_read_roll, shape=_roll_shape, vjp=_roll_vjp, numpy=_roll_print,
                 label="rolled", linear=True)

SHIFT_ROWS = (
    ROLL,
    ArrayRule("flip", ("numpy.flip",), (), (("m", REQUIRED), ("axis", None)), read=_read_flip),
    ArrayRule("softmax", ("scipy.special.softmax",), (), (("x", REQUIRED), ("axis", None)),
              read=_softmax(False)),
    ArrayRule("log_softmax", ("scipy.special.log_softmax",), (),
              (("x", REQUIRED), ("axis", None)), read=_softmax(True)),
)
"""The rows of this module, in ``arrays.ARRAY_RULES``."""

"""Value-only rows: NumPy functions symgrad can print but not differentiate (``np.argmax``,
``np.argmin``, ``np.argsort``, ``np.sort``).

Their ``read`` asks ``ctx.value_only``, which accepts the call only where its derivative is not
needed (inside ``stop_gradient(...)``, or of a value no gradient flows through) and gives the node
its input wrapped in ``StopGradient``, so nothing is ever pushed through it. The integer ones
(``integer=True``) may index an array: ``x[np.argmax(stop_gradient(x))]``.
"""
import ast

from .array_nodes import REQUIRED, ArrayRule, _call
from .array_ops import reduced_shape
from .errors import SymgradError


def _no_vjp(node, g, i, ctx):
    raise SymgradError(f"internal: a cotangent reached `np.{node.rule.name}`, which has no "
                       "derivative (its input is stopped when it is read)")


def _read_arg_extremum(spelling):
    def read(ctx, a, axis=None, keepdims=False):
        x = ctx.value_only(a)
        rank = len(ctx.shape(x))
        axes = ctx.axes(axis, rank)
        if axis is not None and len(axes) != 1:
            ctx.fail(f"{spelling} takes one axis", "pass an int axis")
        return _ROWS[spelling].make(x, params=(axes, ctx.flag(keepdims), rank))
    return read


def _arg_extremum_print(spelling):
    def numpy(printer, node):
        axes, keepdims, rank = node.params
        keywords = []
        if axes != tuple(range(rank)):  # else the flat index (axis=None)
            keywords.append(("axis", ast.Constant(axes[0])))
        if keepdims:
            keywords.append(("keepdims", ast.Constant(True)))
        return _call(printer, spelling, [printer.node(node.inputs[0])], keywords)
    return numpy


def _read_along(spelling):
    def read(ctx, a, axis=-1):
        x = ctx.value_only(a)
        rank = len(ctx.shape(x))
        if axis is None:
            ctx.fail(f"{spelling} with axis=None flattens the array first", "pass an int axis")
        if not rank:
            ctx.fail(f"{spelling} of a number", "pass an array")
        (k,) = ctx.axes(axis, rank)
        return _ROWS[spelling].make(x, params=(k, rank))
    return read


def _along_print(spelling):
    def numpy(printer, node):
        k, rank = node.params
        keywords = [] if k == rank - 1 else [("axis", ast.Constant(k))]
        return _call(printer, spelling, [printer.node(node.inputs[0])], keywords)
    return numpy


def _same_shape(node, shapes, _):
    return shapes[0]


def _along(name, integer, label):
    spelling = f"np.{name}"
    return ArrayRule(name, (f"numpy.{name}",), ("argsort",) if name == "argsort" else (),
                     (("a", REQUIRED), ("axis", -1)), read=_read_along(spelling),
                     shape=_same_shape, vjp=_no_vjp, numpy=_along_print(spelling), label=label,
                     integer=integer)


def _arg_extremum(name, label):
    spelling = f"np.{name}"
    return ArrayRule(name, (f"numpy.{name}",), (name,),
                     (("a", REQUIRED), ("axis", None), ("keepdims", False)),
                     read=_read_arg_extremum(spelling), shape=reduced_shape, vjp=_no_vjp,
                     numpy=_arg_extremum_print(spelling), label=label, integer=True)


ARGMAX = _arg_extremum("argmax", "position")
ARGMIN = _arg_extremum("argmin", "position")
SORT = _along("sort", False, "ordered")
ARGSORT = _along("argsort", True, "order")
_ROWS = {"np.argmax": ARGMAX, "np.argmin": ARGMIN, "np.sort": SORT, "np.argsort": ARGSORT}
VALUE_ROWS = (ARGMAX, ARGMIN, SORT, ARGSORT)

__all__ = ["ARGMAX", "ARGMIN", "ARGSORT", "SORT", "VALUE_ROWS"]

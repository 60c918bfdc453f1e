"""Rows that convert to float64, the dtype symgrad computes in: ``x.astype(float)``,
``x.astype(np.float64)`` (the value itself; a constant array of ints or bools is converted when
the gradient is built) and ``np.float64(c)`` of a number known when the gradient is built.
Another dtype is refused: the generated code computes in float64 only.
"""
import numpy as np
import sympy

from . import functions
from .array_nodes import REQUIRED, ArrayRule


def _float64(ctx, dtype, spelling):
    """Check that ``dtype`` is float64 (``float``, ``np.float64``): symgrad computes in it."""
    dtype = getattr(dtype, "obj", dtype)  # a Python object read from the source
    if not (isinstance(dtype, type) and issubclass(dtype, (float, np.floating)) and
            np.dtype(dtype) == np.float64):
        ctx.fail(f"{spelling} is supported to float64 only (float, np.float64): symgrad "
                 "computes in float64", "drop it, or convert the result outside the function")


def _read_astype(ctx, x, dtype=REQUIRED):
    """``x.astype(float)`` / ``x.astype(np.float64)``: the value itself (every array symgrad
    computes is float64; a constant array of ints or bools is converted when the gradient is
    built)."""
    _float64(ctx, dtype, ".astype")
    v = ctx.array(x)
    known = ctx.constant_indices(v)  # a constant, np.array of ints, np.arange of ints
    if known is not None and known.dtype != np.float64:
        return ctx.constant(known.astype(np.float64), v.name)
    return v


def _read_float64(ctx, x=0.0):
    """``np.float64(c)`` of a number known when the gradient is built: that number as a
    float."""
    value = ctx.array(x)
    if not (isinstance(value, sympy.Number) and value.is_finite):
        ctx.fail("np.float64 is supported of a constant number", "drop it: every value symgrad "
                 "computes is a float64")
    return functions.number(float(value))


CAST_ROWS = (
    ArrayRule("astype", (), ("astype",), (("x", REQUIRED), ("dtype", REQUIRED)),
              read=_read_astype),
    ArrayRule("float64", ("numpy.float64",), (), (("x", 0.0),), read=_read_float64),
)

__all__ = ["CAST_ROWS"]

"""The array nodes of reductions, contractions and layout, each a row (``ArrayRule``) with its
shape rule, its vjp and its NumPy print, and the constructors the frontend and the adjoint pass
build nodes with (``reduce_``, ``matmul``, ``broadcast_to``, ``where`` ...). Indexing and the
constructors of arrays are in ``array_indexing``; joins, ``einsum`` and ``np.linalg`` in
``array_linalg``. Autograd's ``numpy_vjps.py`` is the model for the vjps.
"""
import ast

import sympy

from .array_backend_values import full_of_number, lazy_zeros, plain_number
from .array_emit import scalar_result_statements
from .array_nodes import REQUIRED, ArrayRule, _axis_ast, _call, dims_ast
from .shapes import ONE, ShapeError, is_dim

# --- node constructors (used by rows, the frontend and the adjoint pass) ---------------------
def reduce_(rule, x, axes, keepdims, rank):
    return rule.make(x, params=(tuple(axes), bool(keepdims), rank))


def broadcast_to(x, shape):
    return BROADCAST_TO.make(x, params=(tuple(shape),))


def expand_dims(x, axes):
    return EXPAND_DIMS.make(x, params=(tuple(axes),)) if axes else x


def reshape(x, shape):
    return RESHAPE.make(x, params=(tuple(shape),))


def transpose(x, perm):
    return TRANSPOSE.make(x, params=(tuple(perm),))


def matmul(a, b):
    return MATMUL.make(a, b)


def as_result(x, shape, copy=False):
    return RESULT.make(x, params=(tuple(shape), bool(copy)))


def where(condition, a, b):
    """``np.where`` inside an adjoint. Not a ``Piecewise``: SymPy folds a ``Piecewise`` out of
    any function around it, which would be wrong through a reduction; both sides are always safe
    to compute here."""
    return WHERE.make(condition, sympy.sympify(a), sympy.sympify(b))


def keep(g, axes, keepdims):
    """A reduction's output (or cotangent) with its reduced axes back as size 1, for
    broadcasting against the input (leading axes need none: broadcasting adds them)."""
    if keepdims or tuple(axes) == tuple(range(len(axes))):
        return g
    return expand_dims(g, axes)


# --- reductions ---------------------------------------------------------------------------------
def reduced_shape(node, shapes, _):
    axes, keepdims, _rank = node.params
    (shape,) = shapes
    if keepdims:
        return tuple(ONE if k in axes else d for k, d in enumerate(shape))
    return tuple(d for k, d in enumerate(shape) if k not in axes)


def _sum_vjp(node, g, i, ctx):
    axes, keepdims, _rank = node.params
    shape = ctx.shape(node.inputs[0])
    kept = keep(g, axes, keepdims)
    return kept if ctx.shape(kept) == shape else broadcast_to(kept, shape)


def _extremum_vjp(node, g, i, ctx):
    """Ties share: each of the k elements equal to the max gets g / k (JAX, autograd). The
    mask compares ``x`` with its extremum computed from the same expression: the output read by
    its name was computed by the primal's line, whose sums may associate otherwise than the
    gradient's copy of ``x`` ((a + b) + c against a + (b + c)): no element equal, 0 / 0 = nan
    (array fuzzer 22-165)."""
    axes, keepdims, rank = node.params
    x = node.inputs[0]
    out = keep(ctx.out, axes, keepdims) if x.is_Symbol else node.rule.make(
        x, params=(tuple(axes), True, rank))
    mask = tie_mask(x, out, axes, rank, ctx.shape(x), node.rule is MIN)
    count = reduce_(SUM, mask, axes, True, rank)
    return keep(g, axes, keepdims) * mask / count


TIES = "ties"


def tie_mask(x, out, axes, rank, shape, smallest):
    """The 0/1 mask ``x == out`` of a max (``smallest``: a min) over ``axes``, tagged for
    ``backend="jax"``, which prints it so that ``jax.jit`` cannot empty it (``array_ties``)."""
    return WHERE.make(sympy.Eq(x, out), sympy.Integer(1), sympy.Integer(0),
                      params=(TIES, tuple(axes), rank, tuple(shape), bool(smallest)))


def _prod_vjp(node, g, i, ctx):
    """The product of the other elements, right at zeros too: q / x without zeros, q (the
    product of the non-zero ones) at a lone zero, 0 everywhere with two zeros or more."""
    axes, keepdims, rank = node.params
    x = node.inputs[0]
    zero = sympy.Eq(x, 0)
    if zero is sympy.false:  # SymPy knows x has no zero (1 + tanh(v)**2): q / x, no counting
        # (a count of `where(False, 1, 0)` would sum a number, which torch refuses: 22-391)
        return keep(g, axes, keepdims) * reduce_(PROD, x, axes, True, rank) / x
    nonzero = reduce_(PROD, where(zero, 1, x), axes, True, rank)
    zeros = reduce_(SUM, where(zero, 1, 0), axes, True, rank)
    others = where(zero, where(sympy.Eq(zeros, 1), nonzero, 0),
                   where(sympy.Eq(zeros, 0), nonzero / where(zero, 1, x), 0))
    return keep(g, axes, keepdims) * others


def _reduction_printer(spelling):
    def numpy(printer, node):
        axes, keepdims, rank = node.params
        keywords = []
        if tuple(axes) != tuple(range(rank)) or keepdims:
            keywords.append(("axis", _axis_ast(axes)))
        if keepdims:
            keywords.append(("keepdims", ast.Constant(True)))
        x = node.inputs[0]
        if all(is_dim(s) for s in x.free_symbols):  # a number or a size: no methods
            return _call(printer, spelling, [printer.node(x)], keywords)
        # the method (x.sum()), as hand-written code calls it: np.sum(x) costs a few
        # microseconds more per call in NumPy's dispatch; x is an array here (parameters are
        # converted by np.asarray first) or a NumPy scalar, which has the methods too
        method = ast.Attribute(printer.node(x), spelling.split(".")[-1], ast.Load())
        return ast.Call(method, [], [ast.keyword(k, v) for k, v in keywords])
    return numpy


def _read_reduction(rule):
    def read(ctx, a, axis=None, keepdims=False):
        x = ctx.array(a)
        rank = len(ctx.shape(x))
        return reduce_(rule(), x, ctx.axes(axis, rank), ctx.flag(keepdims), rank)
    return read


# --- contractions and layout ------------------------------------------------------------------
def _matmul_shape(node, shapes, dims):
    a, b = shapes
    if not 1 <= len(a) <= 2 or not 1 <= len(b) <= 2:
        raise ShapeError(f"`@` of ranks {len(a)} and {len(b)} (1 or 2 are supported)")
    inner_a, inner_b = a[-1], b[0]
    if inner_a != inner_b:
        if ONE in (inner_a, inner_b):
            raise ShapeError(f"`@` of shapes {a} and {b}: inner sizes differ")
        dims.unify(inner_a, inner_b)
    return a[:-1] + b[1:]


def _matmul_vjp(node, g, i, ctx):
    a, b = node.inputs
    ra, rb = len(ctx.shape(a)), len(ctx.shape(b))
    if isinstance(g, BROADCAST_TO.node) and not ctx.shape(g.inputs[0]):
        return _matmul_uniform_vjp(node, g.inputs[0], i, ctx)
    if i == 0:
        if rb == 1:
            return g * b if ra == 1 else expand_dims(g, (1,)) * b  # outer(g, b)
        return matmul(g, transpose(b, (1, 0))) if ra == 2 else matmul(b, g)
    if ra == 1:
        return g * a if rb == 1 else expand_dims(a, (1,)) * g  # outer(a, g)
    return matmul(transpose(a, (1, 0)), g)


def _matmul_uniform_vjp(node, h, i, ctx):
    """The vjp of ``a @ b`` for a cotangent that is one number ``h`` everywhere: sums, not
    products with a matrix of ones."""
    a, b = node.inputs
    sa, sb = ctx.shape(a), ctx.shape(b)
    target = sa if i == 0 else sb
    if i == 0:  # every row of the adjoint of a is h * (the row sums of b)
        rows = h * reduce_(SUM, b, (len(sb) - 1,), False, len(sb)) if len(sb) == 2 else h * b
        return broadcast_to(rows, target) if len(sa) == 2 else rows
    columns = h * reduce_(SUM, a, (0,), False, len(sa)) if len(sa) == 2 else h * a
    return broadcast_to(expand_dims(columns, (1,)), target) if len(sb) == 2 else columns


def _matmul_print(printer, node):
    a, b = node.inputs
    return ast.BinOp(printer.node(a), ast.MatMult(), printer.node(b))


def _read_matmul(ctx, a, b):
    x, y = ctx.array(a), ctx.array(b)
    if not ctx.shape(x) or not ctx.shape(y):  # np.dot with a scalar multiplies
        return x * y
    return matmul(x, y)


def _transpose_shape(node, shapes, _):
    (perm,) = node.params
    return tuple(shapes[0][k] for k in perm)


def _transpose_vjp(node, g, i, ctx):
    (perm,) = node.params
    inverse = tuple(sorted(range(len(perm)), key=lambda k: perm[k]))
    return transpose(g, inverse)


def _transpose_print(printer, node):
    (perm,) = node.params
    x = printer.node(node.inputs[0])
    if perm == tuple(reversed(range(len(perm)))):
        return ast.Attribute(x, "T", ast.Load())
    return _call(printer, "np.transpose", [x, ast.Tuple([ast.Constant(k) for k in perm],
                                                        ast.Load())])


def _read_transpose(ctx, a, axes=None):
    x = ctx.array(a)
    rank = len(ctx.shape(x))
    perm = tuple(reversed(range(rank))) if axes is None else ctx.axes(axes, rank, ordered=False)
    return x if perm == tuple(range(rank)) else transpose(x, perm)


def _to_shape(node, shapes, _):
    return node.params[0]


def _reshape_vjp(node, g, i, ctx):
    target = ctx.shape(node.inputs[0])
    if ctx.shape(g) == target:
        return g
    if isinstance(g, SUM.node) and g.params[1]:  # np.sum(.., keepdims=True) reshaped: no keepdims
        axes, _, rank = g.params
        plain = reduce_(SUM, g.inputs[0], axes, False, rank)
        if ctx.shape(plain) == target:
            return plain
    if getattr(g, "is_Number", False):  # one number: its broadcast (torch.reshape takes tensors)
        return broadcast_to(g, target)
    return reshape(g, target)


def _reshape_print(printer, node):
    return _call(printer, "np.reshape", [printer.node(node.inputs[0]), dims_ast(node.params[0])])


def _read_reshape(ctx, a, newshape=REQUIRED, *more):
    x = ctx.array(a)
    target = ctx.new_shape(newshape if not more else (newshape,) + more, ctx.shape(x))
    return x if target == ctx.shape(x) else reshape(x, target)


def _broadcast_vjp(node, g, i, ctx):
    return ctx.unbroadcast(g, ctx.shape(node.inputs[0]))


def _broadcast_print(printer, node):
    """``np.broadcast_to(x, shape)``; of a number in lazy code, a 0-d array of the array
    parameters' library broadcast (``lazy_zeros``: Dask's, where NumPy's broadcast made the
    gradient of Dask data a NumPy array of its size)."""
    x = node.inputs[0]
    value = printer.node(x)
    if printer.lazy and plain_number(x, printer):
        value = lazy_zeros(printer, value=value) or value
    return _call(printer, "np.broadcast_to", [value, dims_ast(node.params[0])])


def _expand_shape(node, shapes, _):
    (axes,) = node.params
    shape = list(shapes[0])
    for k in sorted(axes):
        shape.insert(k, ONE)
    return tuple(shape)


def _expand_print(printer, node):
    """``g[:, None]``: a new axis by indexing, as people write it."""
    (axes,) = node.params
    items = [ast.Constant(None) if k in axes else ast.Slice(None, None, None)
             for k in range(max(axes) + 1)]
    subscript = items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())
    value = printer.node(node.inputs[0])
    if isinstance(value, ast.Constant) or plain_number(node.inputs[0], printer):  # a number
        # (-0.4 too, printed as an operator: array fuzzer 133-108) has no [None]: a 0-d array
        value = printer.new_array(value)  # of the reference dtype first, np.full((), 2.0)[None]
    return ast.Subscript(value, subscript, ast.Load())


def _read_expand_dims(ctx, a, axis=REQUIRED):
    x = ctx.array(a)
    rank = len(ctx.shape(x))
    return expand_dims(x, ctx.axes(axis, rank + (len(axis) if isinstance(axis, tuple) else 1)))


def _result_shape(node, shapes, _):
    return node.params[0]



def _result_print(printer, node):
    """A gradient as returned: a float for a scalar parameter (a 0-d Dask array in lazy code),
    else a fresh array of exactly the parameter's shape (a copy where it could alias an argument or
    a constant)."""
    shape, copy = node.params
    x = node.inputs[0]
    if not shape:  # float(x); in lazy code, a 0-d Dask array kept lazy
        value = printer.node(x)
        marker = ast.Call(ast.Name("float", ast.Load()), [value], [])
        if printer.lazy:
            marker.symgrad_statements = lambda target: scalar_result_statements(target, value)
        return marker
    if x.is_Number or isinstance(x, BROADCAST_TO.node):  # a constant: of the arrays' library
        inner = x if x.is_Number else x.inputs[0]  # in lazy code (lazy_zeros)
        value = printer.node(inner)
        if printer.lazy and not plain_number(inner, printer):  # np.full would compute a Dask
            return ast.Call(ast.Attribute(_call(printer, "np.broadcast_to", [  # one (105-53)
                value, dims_ast(shape)]), "astype", ast.Load()), [ast.Name("float", ast.Load())],
                [])  # a copy of a NumPy one
        return full_of_number(printer, dims_ast(shape), value)
    if copy:  # astype copies a NumPy array (and converts an int constant); lazy for Dask
        return ast.Call(ast.Attribute(printer.node(x), "astype", ast.Load()),
                        [ast.Name("float", ast.Load())], [])
    return printer.node(x)


def _where_shape(node, shapes, dims):
    return dims.broadcast(*shapes)


def _where_print(printer, node):
    c, a, b = node.inputs
    return _call(printer, "np.where", [printer.node(c), printer.node(_float(a)),
                                       printer.node(_float(b))])


def _float(value):
    return sympy.Float(value) if value.is_Number else value


# --- the rows ------------------------------------------------------------------------------------
_AXIS = (("a", REQUIRED), ("axis", None), ("keepdims", False))
SUM = ArrayRule("sum", ("numpy.sum",), ("sum",), _AXIS, read=_read_reduction(lambda: SUM),
                shape=reduced_shape, vjp=_sum_vjp, numpy=_reduction_printer("np.sum"),
                label="total", empty=0, linear=True)
MAX = ArrayRule("max", ("numpy.max", "numpy.amax"), ("max",), _AXIS,
                read=_read_reduction(lambda: MAX), shape=reduced_shape, vjp=_extremum_vjp,
                numpy=_reduction_printer("np.max"), label="largest")
MIN = ArrayRule("min", ("numpy.min", "numpy.amin"), ("min",), _AXIS,
                read=_read_reduction(lambda: MIN), shape=reduced_shape, vjp=_extremum_vjp,
                numpy=_reduction_printer("np.min"), label="smallest")
PROD = ArrayRule("prod", ("numpy.prod",), ("prod",), _AXIS, read=_read_reduction(lambda: PROD),
                 shape=reduced_shape, vjp=_prod_vjp, numpy=_reduction_printer("np.prod"),
                 label="product", empty=1)
MATMUL = ArrayRule("matmul", ("numpy.dot",), ("dot",), (("a", REQUIRED),
                                                                       ("b", REQUIRED)),
                   read=_read_matmul, shape=_matmul_shape, vjp=_matmul_vjp, numpy=_matmul_print,
                   label="product", empty=0, linear=True)
TRANSPOSE = ArrayRule("transpose", ("numpy.transpose",), ("transpose",),
                      (("a", REQUIRED), ("axes", None)), read=_read_transpose,
                      shape=_transpose_shape, vjp=_transpose_vjp, numpy=_transpose_print,
                      label="transposed", linear=True)
RESHAPE = ArrayRule("reshape", ("numpy.reshape",), ("reshape",),
                    (("a", REQUIRED), ("newshape", REQUIRED)), read=_read_reshape,
                    shape=_to_shape, vjp=_reshape_vjp, numpy=_reshape_print, label="reshaped",
                    linear=True)
BROADCAST_TO = ArrayRule("broadcast_to", ("numpy.broadcast_to",), (),
                         (("array", REQUIRED), ("shape", REQUIRED)),
                         read=lambda ctx, array, shape: broadcast_to(
                             ctx.array(array), ctx.new_shape(shape, None)),
                         shape=_to_shape, vjp=_broadcast_vjp, numpy=_broadcast_print,
                         label="broadcast", linear=True)
EXPAND_DIMS = ArrayRule("expand_dims", ("numpy.expand_dims",), (),
                        (("a", REQUIRED), ("axis", REQUIRED)), read=_read_expand_dims,
                        shape=_expand_shape, vjp=_reshape_vjp, numpy=_expand_print,
                        label="expanded", linear=True)
WHERE = ArrayRule("where_adjoint", (), (), (), shape=_where_shape, numpy=_where_print,
                  label="chosen")
RESULT = ArrayRule("result", (), (), (), shape=_result_shape, numpy=_result_print)

"""The array nodes: reductions, contractions, layout, indexing and constructors, each a row
(``ArrayRule``) with its shape rule, its vjp and its NumPy print, and the constructors the frontend
and the adjoint pass build nodes with (``reduce_``, ``matmul``, ``broadcast_to``, ``where`` ...).
Autograd's ``numpy_vjps.py`` is the model for the vjps.
"""
import ast

import sympy

from .array_emit import scalar_result_statements
from .array_nodes import REQUIRED, ArrayRule, _axis_ast, _call, dims_ast, int_ast
from .program import fresh_name
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


def index(x, spec):
    return INDEX.make(x, params=tuple(spec)) if spec else x


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
def _reduced_shape(node, shapes, _):
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
    """Ties share: each of the k elements equal to the max gets g / k (JAX, autograd)."""
    axes, keepdims, rank = node.params
    x = node.inputs[0]
    mask = where(sympy.Eq(x, keep(ctx.out, axes, keepdims)), 1, 0)
    count = reduce_(SUM, mask, axes, True, rank)
    return keep(g, axes, keepdims) * mask / count


def _prod_vjp(node, g, i, ctx):
    """The product of the other elements, right at zeros too: q / x without zeros, q (the
    product of the non-zero ones) at a lone zero, 0 everywhere with two zeros or more."""
    axes, keepdims, rank = node.params
    x = node.inputs[0]
    zero = sympy.Eq(x, 0)
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
    return _call(printer, "np.broadcast_to", [printer.node(node.inputs[0]),
                                              dims_ast(node.params[0])])


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
    return ast.Subscript(printer.node(node.inputs[0]), subscript, ast.Load())


def _read_expand_dims(ctx, a, axis=REQUIRED):
    x = ctx.array(a)
    rank = len(ctx.shape(x))
    return expand_dims(x, ctx.axes(axis, rank + (len(axis) if isinstance(axis, tuple) else 1)))


# --- indexing -------------------------------------------------------------------------------
def slice_length(d, start, stop, step):
    """len(range(d)[start:stop:step]) for a dimension ``d``, clamped as Python clamps (``x[2:5]``
    of 4 elements has 2): ``min``/``max`` stay in the size where SymPy cannot decide them."""
    step = 1 if step is None else step
    if d.is_Integer:
        return sympy.Integer(len(range(int(d))[slice(start, stop, step)]))
    if step > 0:
        def at(v, default):
            if v is None:
                return default
            return sympy.Min(v, d) if v >= 0 else sympy.Max(d + v, 0)
        return sympy.Max(0, sympy.ceiling((at(stop, d) - at(start, 0)) / step))

    def back(v, default):
        if v is None:
            return default
        return sympy.Min(v, d - 1) if v >= 0 else sympy.Max(d + v, -1)
    return sympy.Max(0, sympy.ceiling((back(start, d - 1) - back(stop, sympy.Integer(-1)))
                                      / (-step)))


def _index_shape(node, shapes, _):
    shape = list(shapes[0])
    out, axis = [], 0
    for item in node.params:
        if item[0] == "int":
            axis += 1
        elif item[0] == "slice":
            out.append(slice_length(shape[axis], *item[1:]))
            axis += 1
        else:  # ("array", name, shape, values)
            out.extend(sympy.Integer(k) for k in item[2])
            axis += 1
    return tuple(out) + tuple(shape[axis:])


def _index_vjp(node, g, i, ctx):
    return INDEX_ADJOINT.make(g, params=(tuple(ctx.shape(node.inputs[0])), (node.params,)))


def index_item_ast(item):
    kind = item[0]
    if kind == "int":
        return ast.Constant(item[1]) if item[1] >= 0 else ast.UnaryOp(ast.USub(),
                                                                     ast.Constant(-item[1]))
    if kind == "slice":
        def bound(v):
            if v is None:
                return None
            if isinstance(v, sympy.Basic):  # a size: the pieces of a concatenation
                return int_ast(v)
            return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))
        return ast.Slice(bound(item[1]), bound(item[2]), bound(item[3]))
    if item[1] is not None:
        return ast.Name(item[1], ast.Load())
    return ast.parse(repr(list(item[3]))).body[0].value


def spec_ast(spec):
    items = [index_item_ast(item) for item in spec]
    return items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())


def _index_print(printer, node):
    return ast.Subscript(printer.node(node.inputs[0]), spec_ast(node.params), ast.Load())


def _index_adjoint_shape(node, shapes, _):
    return node.params[0]


def _index_adjoint_print(printer, node):
    """A marker ``emit`` expands into ``z = np.zeros(shape)`` and one ``z[index] += g`` per piece
    (``np.add.at`` with an index array, so repeated indices accumulate) before the line using it."""
    marker = ast.Call(ast.Name("__index_adjoint__", ast.Load()), [], [])
    marker.symgrad_statements = lambda target, names: index_adjoint_statements(printer, target, node,
                                                                               names)
    marker.symgrad_takes_names = True
    return marker


def index_adjoint_statements(printer, target, node, names):
    """The statements computing an index adjoint node into the name ``target`` (a fresh name from
    ``names`` for the first piece when it is not a name already). The buffer is
    ``np.zeros_like(first piece, shape=...)``: an array of the pieces' library (a lazy Dask array
    for Dask pieces, which ``z[1:] += g`` then updates lazily) and dtype."""
    shape, specs = node.params
    values = [printer.node(_unstretched(g)) for g in node.inputs]  # `+=`, np.add.at broadcast
    body = []
    if not isinstance(values[0], (ast.Name, ast.Constant)):
        piece = fresh_name(f"_{target}_piece", names)
        body.append(ast.Assign([ast.Name(piece, ast.Store())], values[0], lineno=None))
        values[0] = ast.Name(piece, ast.Load())
    body.append(ast.Assign([ast.Name(target, ast.Store())], _call(
        printer, "np.zeros_like", [values[0]], [("shape", dims_ast(shape))]), lineno=None))
    for value, spec in zip(values, specs):
        if any(item[0] == "array" for item in spec):
            body.append(ast.Expr(ast.Call(ast.Attribute(printer.name("np.add"), "at", ast.Load()),
                                          [ast.Name(target, ast.Load()), spec_ast(spec), value],
                                          [])))
        else:
            body.append(ast.AugAssign(ast.Subscript(ast.Name(target, ast.Load()), spec_ast(spec),
                                                    ast.Store()), ast.Add(), value))
    return body


def _unstretched(g):
    if isinstance(g, BROADCAST_TO.node):
        return g.inputs[0]
    if g.is_Mul:
        return sympy.Mul(*[_unstretched(f) for f in g.args])
    return g


def merge_index_adjoints(parts):
    """Several index adjoints into one array of the same shape: one buffer, one ``+=`` each."""
    shape = parts[0].params[0]
    inputs, specs = [], []
    for p in parts:
        inputs.extend(p.inputs)
        specs.extend(p.params[1])
    return INDEX_ADJOINT.make(*inputs, params=(shape, tuple(specs)))


# --- constructors -----------------------------------------------------------------------------
def _array_of_shape(node, shapes, _):
    return tuple(sympy.Integer(k) for k in node.params[0])


def _array_of_vjp(node, g, i, ctx):
    shape = node.params[0]
    position, spec = i, []
    for extent in reversed(shape):
        spec.append(("int", position % extent))
        position //= extent
    return index(g, tuple(reversed(spec)))


def _array_of_print(printer, node):
    shape = node.params[0]
    items = [printer.node(e) for e in node.inputs]

    def nest(flat, dims):
        if len(dims) == 1:
            return ast.List(flat, ast.Load())
        step = len(flat) // dims[0]
        return ast.List([nest(flat[k * step:(k + 1) * step], dims[1:]) for k in range(dims[0])],
                        ast.Load())
    return _call(printer, "np.array", [nest(items, shape)])


def _arange_shape(node, shapes, _):
    start, stop, step = node.params
    length = sympy.ceiling((stop - start) / step)
    return (sympy.Integer(max(int(length), 0)) if length.is_Number else length,)


def _arange_print(printer, node):
    def number(v):
        return int_ast(v) if v.is_integer else printer.node(v)
    start, stop, step = node.params
    args = [number(stop)] if start == 0 and step == 1 else [number(start), number(stop)] + (
        [number(step)] if step != 1 else [])
    return _call(printer, "np.arange", args)


def _read_array(ctx, object, dtype=None):
    return ctx.array_of(object)


def _read_arange(ctx, start, stop=None, step=None, dtype=None):
    values = (sympy.Integer(0), start, sympy.Integer(1)) if stop is None else (
        start, stop, sympy.Integer(1) if step is None else step)
    for v in values:
        if not isinstance(v, sympy.Expr) or not (v.is_Number or v.is_integer) or ctx.shape(v):
            ctx.fail("np.arange takes numbers or sizes known when the gradient is built",
                     "pass ints, floats or sizes (len(x), x.shape[0])")
    if values[2] == 0:
        ctx.fail("np.arange with a step of 0", "use a nonzero step")
    return ARANGE.make(params=tuple(values))


def _read_eye(ctx, N, M=None, k=0, dtype=None):
    rows = ctx.new_shape(N, None)[0]
    columns = rows if M is None else ctx.new_shape(M, None)[0]
    if k not in (0, sympy.Integer(0)):
        ctx.fail("np.eye with an offset k is not supported", "build it from np.eye(n) and slices")
    return EYE.make(params=(rows, columns))


def _eye_print(printer, node):
    rows, columns = node.params
    args = [int_ast(rows)] + ([] if columns == rows else [int_ast(columns)])
    return _call(printer, "np.eye", args)


def _result_shape(node, shapes, _):
    return node.params[0]



def _result_print(printer, node):
    """A gradient as returned: a float for a scalar parameter (a 0-d Dask array for Dask inputs),
    else a fresh array of exactly the parameter's shape (a copy where it could alias an argument or
    a constant)."""
    shape, copy = node.params
    x = node.inputs[0]
    if not shape:  # float(x), or a 0-d Dask array kept lazy
        value = printer.node(x)
        marker = ast.Call(ast.Name("float", ast.Load()), [value], [])
        marker.symgrad_statements = lambda target: scalar_result_statements(target, value)
        return marker
    if x.is_Number:
        return _call(printer, "np.full", [dims_ast(shape), printer.node(x)])
    if isinstance(x, BROADCAST_TO.node):
        return _call(printer, "np.full", [dims_ast(shape), printer.node(x.inputs[0])])
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
                shape=_reduced_shape, vjp=_sum_vjp, numpy=_reduction_printer("np.sum"),
                label="total")
MAX = ArrayRule("max", ("numpy.max", "numpy.amax"), ("max",), _AXIS,
                read=_read_reduction(lambda: MAX), shape=_reduced_shape, vjp=_extremum_vjp,
                numpy=_reduction_printer("np.max"), label="largest")
MIN = ArrayRule("min", ("numpy.min", "numpy.amin"), ("min",), _AXIS,
                read=_read_reduction(lambda: MIN), shape=_reduced_shape, vjp=_extremum_vjp,
                numpy=_reduction_printer("np.min"), label="smallest")
PROD = ArrayRule("prod", ("numpy.prod",), ("prod",), _AXIS, read=_read_reduction(lambda: PROD),
                 shape=_reduced_shape, vjp=_prod_vjp, numpy=_reduction_printer("np.prod"),
                 label="product")
MATMUL = ArrayRule("matmul", ("numpy.matmul", "numpy.dot"), ("dot",), (("a", REQUIRED),
                                                                       ("b", REQUIRED)),
                   read=_read_matmul, shape=_matmul_shape, vjp=_matmul_vjp, numpy=_matmul_print,
                   label="product")
TRANSPOSE = ArrayRule("transpose", ("numpy.transpose",), ("transpose",),
                      (("a", REQUIRED), ("axes", None)), read=_read_transpose,
                      shape=_transpose_shape, vjp=_transpose_vjp, numpy=_transpose_print,
                      label="transposed")
RESHAPE = ArrayRule("reshape", ("numpy.reshape",), ("reshape",),
                    (("a", REQUIRED), ("newshape", REQUIRED)), read=_read_reshape,
                    shape=_to_shape, vjp=_reshape_vjp, numpy=_reshape_print, label="reshaped")
BROADCAST_TO = ArrayRule("broadcast_to", ("numpy.broadcast_to",), (),
                         (("array", REQUIRED), ("shape", REQUIRED)),
                         read=lambda ctx, array, shape: broadcast_to(
                             ctx.array(array), ctx.new_shape(shape, None)),
                         shape=_to_shape, vjp=_broadcast_vjp, numpy=_broadcast_print,
                         label="broadcast")
EXPAND_DIMS = ArrayRule("expand_dims", ("numpy.expand_dims",), (),
                        (("a", REQUIRED), ("axis", REQUIRED)), read=_read_expand_dims,
                        shape=_expand_shape, vjp=_reshape_vjp, numpy=_expand_print,
                        label="expanded")
INDEX = ArrayRule("index", (), (), (), shape=_index_shape, vjp=_index_vjp, numpy=_index_print,
                  label="item")
INDEX_ADJOINT = ArrayRule("index_adjoint", (), (), (), shape=_index_adjoint_shape,
                          numpy=_index_adjoint_print, label="scattered")
ARRAY_OF = ArrayRule("array", ("numpy.array", "numpy.asarray"), (),
                     (("object", REQUIRED), ("dtype", None)), read=_read_array,
                     shape=_array_of_shape, vjp=_array_of_vjp, numpy=_array_of_print,
                     label="stacked")
ARANGE = ArrayRule("arange", ("numpy.arange",), (), (("start", REQUIRED), ("stop", None),
                                                    ("step", None), ("dtype", None)),
                   read=_read_arange, shape=_arange_shape, vjp=None, numpy=_arange_print,
                   label="steps")
EYE = ArrayRule("eye", ("numpy.eye", "numpy.identity"), (), (("N", REQUIRED), ("M", None),
                                                             ("k", 0), ("dtype", None)),
                read=_read_eye, shape=lambda node, shapes, dims: tuple(node.params),
                numpy=_eye_print, label="identity")
WHERE = ArrayRule("where_adjoint", (), (), (), shape=_where_shape, numpy=_where_print,
                  label="chosen")
RESULT = ArrayRule("result", (), (), (), shape=_result_shape, numpy=_result_print)

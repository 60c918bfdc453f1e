"""Indexing and building arrays: subscripts (``x[1:]``, ``x[:, None]``, a gather ``E[INDEX]``
through a constant int array, whose adjoint is a scatter-add), and the constructors of arrays
(``np.array`` of numbers, ``np.arange``, ``np.eye``, the index arrays ``np.triu_indices`` and
``np.tril_indices``), rows like those of ``array_ops``.
"""
import ast

import numpy as np
import sympy

from .array_backend_values import full_of_number, lazy_zeros, plain_number
from .array_empty import FULL, guarded, selection
from .array_nodes import REQUIRED, ArrayRule, _call, dims_ast, int_ast
from .array_ops import BROADCAST_TO
from .program import fresh_name
from .shapes import from_two, is_dim
from .written import AsWritten


# --- indexing -------------------------------------------------------------------------------
def index(x, spec):
    """``x[spec]``: ``spec`` a tuple of entries ``("int", k)`` (``k`` an int, or an integer
    expression of sizes: ``x[n // 2]``), ``("slice", start, stop, step)``
    or ``("array", name, shape, values)``; ``x`` itself for an empty spec."""
    return INDEX.make(x, params=tuple(spec)) if spec else x


def slice_length(d, start, stop, step):
    """len(range(d)[start:stop:step]) for a dimension ``d``, clamped as Python clamps (``x[2:5]``
    of 4 elements has 2): ``min``/``max`` stay in the size where SymPy cannot decide them, and a
    size that is one number for every size of ``d`` a dimension symbol stands for (2 and up) is
    that number (``x[:, 1:2]`` has 1 column: ``shapes.from_two``)."""
    length = _slice_length(d, start, stop, step)
    if length.is_Number:
        return length
    found = from_two(length)
    return found[1] if found is not None and found[0] == "constant" else length


def _slice_length(d, start, stop, step):
    step = 1 if step is None else step
    if d.is_Integer and not any(isinstance(v, sympy.Basic) and not v.is_Integer
                                for v in (start, stop)):  # a bound of sizes (C[:len(x) - 1] of
        # a constant C) is clamped to d below: range() takes ints only (array fuzzer 80-920)
        return sympy.Integer(len(range(int(d))[slice(start, stop, step)]))
    if step > 0:
        def at(v, default, clamped=True):
            if v is None:
                return default
            if isinstance(v, sympy.Basic) and not v.is_Integer:  # a nonnegative size: n // 2
                return sympy.Min(v, d) if clamped else v
            if v >= 0:
                return sympy.Min(v, d) if clamped else v
            return sympy.Max(d + v, 0)
        # a nonnegative start past the end gives 0 elements clamped or not (the stop is at most
        # d): unclamped, x[1:] has d - 1 elements, as x[:-1] has, for every d
        return sympy.Max(0, sympy.ceiling((at(stop, d) - at(start, 0, False)) / step))

    def back(v, default):
        if v is None:
            return default
        if isinstance(v, sympy.Basic) and not v.is_Integer:
            return sympy.Min(v, d - 1)
        return sympy.Min(v, d - 1) if v >= 0 else sympy.Max(d + v, -1)
    return sympy.Max(0, sympy.ceiling((back(start, d - 1) - back(stop, sympy.Integer(-1)))
                                      / (-step)))


def _advanced(spec):
    """The positions of NumPy's advanced indices in ``spec``: the index arrays, and the ints with
    them (an int beside an index array is broadcast with it); none without an index array."""
    if not any(item[0] == "array" for item in spec):
        return []
    return [k for k, item in enumerate(spec) if item[0] in ("array", "int", "at")]


def _index_shape(node, shapes, _):
    return indexed_shape(shapes[0], node.params)


def together(spec):
    """Whether NumPy keeps the index arrays' axes of ``x[spec]`` where they stand: its advanced
    indices (``_advanced``) are next to each other (or there are none); else they go first."""
    advanced = _advanced(spec)
    return advanced == list(range(advanced[0], advanced[-1] + 1)) if advanced else True


def indexed_shape(shape, spec):
    """The shape of ``x[spec]`` for ``x`` of ``shape``, NumPy's rule: an int (or a call-time index
    ``("at", i)``) drops its axis, a slice keeps it shortened; the index arrays (all of one shape)
    put their shape where they stand when they are next to each other, else first."""
    shape = list(shape)
    advanced = _advanced(spec)
    together_ = together(spec)
    indexed = next((tuple(sympy.sympify(k) for k in item[2]) for item in spec
                    if item[0] == "array"), ())
    out = []
    for axis, item in enumerate(spec):
        if item[0] == "slice":
            out.append(slice_length(shape[axis], *item[1:]))
        elif axis in advanced and axis == advanced[0] and together_:
            out.extend(indexed)
    if not together_:
        out = list(indexed) + out
    return tuple(out) + tuple(shape[len(spec):])


def _index_vjp(node, g, i, ctx):
    return INDEX_ADJOINT.make(g, params=(tuple(ctx.shape(node.inputs[0])), (node.params,)))


def index_item_ast(item, call=False):
    """One entry of an index spec as the ``ast`` of a subscript item (``call``: as an argument,
    where a slice is written ``slice(a, b, c)``)."""
    kind = item[0]
    if kind == "int":
        if isinstance(item[1], sympy.Basic):  # a size the function reads: x[n // 2]
            return int_ast(item[1])
        return ast.Constant(item[1]) if item[1] >= 0 else ast.UnaryOp(ast.USub(),
                                                                     ast.Constant(-item[1]))
    if kind == "at":
        return ast.Name(item[1].name, ast.Load())
    if kind == "slice":
        def bound(v):
            if v is None:
                return ast.Constant(None) if call else None
            if isinstance(v, ast.AST):  # printed already (a reversed bound, max(n - 6, 0))
                return v
            if isinstance(v, sympy.Basic):  # a size: the pieces of a concatenation
                return int_ast(v)
            return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))
        if call:  # slice(1) is slice(None, 1): a start is printed with its stop, slice(1, None)
            bounds = list(item[1:])
            while len(bounds) > 2 and bounds[-1] is None:
                bounds.pop()
            if bounds == [None, None]:
                bounds = [None]
            return ast.Call(ast.Name("slice", ast.Load()), [bound(v) for v in bounds], [])
        return ast.Slice(bound(item[1]), bound(item[2]), bound(item[3]))
    if isinstance(item[1], sympy.Symbol):  # an index array computed by the code
        return ast.Name(item[1].name, ast.Load())
    if item[1] is not None:
        return ast.Name(item[1], ast.Load())
    return ast.parse(repr(list(item[3]))).body[0].value


def spec_ast(spec, call=False):
    items = [index_item_ast(item, call) for item in spec]
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


def index_adjoint_statements(printer, target, node, names, scatter=None):
    """The statements computing an index adjoint node into the name ``target`` (a fresh name from
    ``names`` for the first piece that is not a number, when it is not a name already). In lazy
    code (``printer.lazy``) the buffer is of the arguments' library (``lazy_zeros``: a Dask
    array when any argument is one, which ``z[1:] += g`` then updates lazily; float64: an int
    buffer would truncate what is added to it), ``np.zeros_like(X, dtype=float)`` where it has
    the shape of an array parameter ``X`` (in ``X``'s chunks); with no array parameter, of each
    piece's library (``_of_every_library``), or with numbers only of the index the code computes
    (``np.zeros_like(position, ...)``); ``np.zeros(shape)`` in NumPy code. ``scatter(printer,
    target, shape, spec, value, names, stretched)`` (lazy code: ``array_backends_dask``) gives
    the statements of a piece where NumPy's form does not run, or None (``stretched``: the
    value is of fewer elements than ``x[spec]``, broadcast to it by ``+=``)."""
    shape, specs = node.params
    pieces = [_unstretched(g) for g in node.inputs]
    values = [printer.node(g) for g in pieces]  # `+=` and np.add.at broadcast by themselves
    body = []
    numbers = [g.is_Number or printer.lazy and plain_number(g, printer) for g in pieces]  # 1 / n
    like = next((k for k, number in enumerate(numbers) if not number), None)  # too (105-119)
    computed = next((item[1].name for spec in specs for item in spec if item[0] == "at"), None)
    if printer.lazy and lazy_zeros(printer) is not None:  # of the arguments' library, which
        zeros = full_of_number(printer, dims_ast(shape), dims=shape)  # every piece is of, or
        # NumPy's (of no array parameter: a NumPy constant, np.arange(n), 106-68), in the
        # chunks of the array parameter of its shape (array_library)
    elif printer.lazy and like is None and computed is not None:  # of the index's library
        zeros = _call(printer, "np.zeros_like", [ast.Name(computed, ast.Load())], [
            ("dtype", ast.Name("float", ast.Load())), ("shape", dims_ast(shape))])
    elif like is None or not printer.lazy:  # a NumPy buffer; in lazy code, of numbers only, of
        zeros = full_of_number(printer, dims_ast(shape))  # the arrays' library (Dask's)
    else:
        arrays = [k for k, number in enumerate(numbers) if not number]
        for k in arrays:
            if not isinstance(values[k], ast.Name):
                piece = fresh_name(f"_{target}_piece", names)
                body.append(ast.Assign([ast.Name(piece, ast.Store())], values[k], lineno=None))
                values[k] = ast.Name(piece, ast.Load())
        like = _of_every_library(printer, [values[k] for k in arrays])
        if _of_scalars(printer, [pieces[k] for k in arrays]) and lazy_zeros(printer) is not None:
            like = ast.BinOp(like, ast.Add(), lazy_zeros(printer))  # pieces of NumPy scalars
            # and sizes (W[1, 1] / (1.5 + x ** 2), 105-266; np.arange(n), 106-68) beside Dask
            # arrays: of theirs too
        zeros = _call(printer, "np.zeros_like", [like], [("dtype", ast.Name("float", ast.Load())),
                                                         ("shape", dims_ast(shape))])
    body.append(ast.Assign([ast.Name(target, ast.Store())], zeros, lineno=None))
    for value, spec, g, piece in zip(values, specs, node.inputs, pieces):
        status = selection(spec, shape) if printer.lazy else FULL  # Dask stores into no
        made = None if scatter is None else scatter(  # empty selection (array_empty)
            printer, target, shape, spec, printer.node(g) if piece.is_Number else value, names,
            not piece.is_Number and piece != g)
        if made is None and any(item[0] == "array" for item in spec) and not distinct(
                spec, printer.constants):
            made = [ast.Expr(ast.Call(ast.Attribute(printer.name("np.add"), "at", ast.Load()),
                                      [ast.Name(target, ast.Load()), spec_ast(spec, True),
                                       value], []))]
        elif made is None:
            made = [ast.AugAssign(ast.Subscript(ast.Name(target, ast.Load()), spec_ast(spec),
                                                ast.Store()), ast.Add(), value)]
        body.extend(guarded(made, target, spec_ast(spec), status))
    return body


def _of_scalars(printer, pieces):
    """Whether every piece reads sizes and 0-d values only (``1 / (1.5 + x ** 2)``,
    ``np.arange(n) * 0.25``): of NumPy's library, maybe, where the array parameters are Dask's."""
    shapes = getattr(printer, "shapes", None)
    return shapes is not None and all(is_dim(s) or shapes.table.get(s, ()) == ()
                                      for g in pieces for s in g.free_symbols)


def _of_every_library(printer, pieces):
    """An array of the pieces' library, for the buffer's ``np.zeros_like``: the piece, when all
    are one; else the sum of a 0-d zero of each (``np.zeros_like(_t0, shape=()) +
    np.zeros_like(_t1, shape=())``: a Dask array when any piece is one, so that the buffer takes
    every piece in place, where a NumPy buffer cannot take a Dask piece)."""
    distinct = list({piece.id: piece for piece in pieces}.values())
    if len(distinct) == 1:
        return distinct[0]
    zeros = [_call(printer, "np.zeros_like", [ast.Name(piece.id, ast.Load())], [
        ("shape", ast.Tuple([], ast.Load()))]) for piece in distinct]
    total = zeros[0]
    for zero in zeros[1:]:
        total = ast.BinOp(total, ast.Add(), zero)
    return total


def constant_indices(spec):
    """Whether ``spec`` indexes with ints, slices and index arrays known when the gradient is
    built (no index the code computes, ``("at", i)`` or ``np.argsort``'s array)."""
    return all(item[0] in ("int", "slice") or item[0] == "array" and not isinstance(
        item[1], sympy.Symbol) for item in spec)


def distinct(spec, constants):
    """Whether the index arrays of ``spec`` are constants (``constants``: name -> array) that
    pick every element at most once (all >= 0, no repeats): then ``z[INDEX] += g`` adds as ``np.add.at`` does (nothing
    to accumulate), and runs on Dask arrays too, which have no ``np.add.at``."""
    arrays = [item[1] for item in spec if item[0] == "array"]
    if not arrays or not all(isinstance(a, str) and a in constants for a in arrays):
        return False
    picked = np.broadcast_arrays(*[np.asarray(constants[a]) for a in arrays])
    if any(np.any(p < 0) for p in picked):  # -1 and n - 1 are one element: n is not known here
        return False
    if len(picked) == 1:
        return np.unique(picked[0]).size == picked[0].size
    rows = np.stack([p.ravel() for p in picked], axis=1)
    return np.unique(rows, axis=0).shape[0] == rows.shape[0]


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
    values = tuple(v.args[0] if isinstance(v, AsWritten) else v for v in values)  # a size the
    # build fixed, read in a condition (np.arange(len(x)) != 1 with len(x) 4), as new_shape takes
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


def _read_tri(upper):
    """``np.triu_indices(n, k)`` / ``np.tril_indices(n, k)``: the two index arrays of a triangle.
    A size known at build time gives constant arrays; a call-time size (``len(x)``) two arrays
    the generated code computes, for ``k`` in 0, 1 (upper) or 0, -1 (lower)."""
    spelling = "np.triu_indices" if upper else "np.tril_indices"

    def read(ctx, n, k=0, m=None):
        size = ctx.new_shape(n, None)[0]
        columns = None if m is None else ctx.new_shape(m, None)[0]
        offset = ctx.integer(k)
        if size.is_Integer and (columns is None or columns.is_Integer):
            made = (np.triu_indices if upper else np.tril_indices)(
                int(size), offset, None if columns is None else int(columns))
            return tuple(ctx.constant(a, name) for a, name in zip(made, ("rows", "columns")))
        if columns is not None or offset not in ((0, 1) if upper else (0, -1)):
            ctx.fail(f"{spelling} of a size known only when called takes k = "
                     f"{'0 or 1' if upper else '0 or -1'} and no m",
                     "give the size as an int, or use the diagonal offsets 0 and "
                     f"{'1' if upper else '-1'}")
        return tuple(ctx.bind(TRI_INDICES.make(params=(size, abs(offset), upper, which)), name)
                     for which, name in enumerate(("rows", "columns")))
    return read


def _tri_shape(node, shapes, _):
    size, offset, _upper, _which = node.params
    return ((size - offset) * (size - offset + 1) / 2,)


def _tri_print(printer, node):
    size, offset, upper, which = node.params
    args = [int_ast(size)] + ([ast.Constant(offset if upper else -offset)] if offset else [])
    if printer.backend == "torch":  # torch.triu_indices(row, col, offset): the columns too
        args.insert(1, int_ast(size))
    call = _call(printer, "np.triu_indices" if upper else "np.tril_indices", args)
    return ast.Subscript(call, ast.Constant(which), ast.Load())


# --- the rows ------------------------------------------------------------------------------------
INDEX = ArrayRule("index", (), (), (), shape=_index_shape, vjp=_index_vjp, numpy=_index_print,
                  label="item", linear=True)
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
POSITIONS = ArrayRule("positions", (), (), (), shape=lambda node, shapes, dims: tuple(node.params),
                      numpy=lambda printer, node: _call(printer, "np.arange",
                                                        [int_ast(node.params[0])]),
                      label="steps", integer=True)
"""``np.arange(n)`` of the library's default ints, ``params=(n,)``: positions an ``np.argmax`` is
compared with (the one-hot of a tie mask, ``array_ties``), never a value of the primal. An
``np.arange`` the primal writes takes the reference dtype on the Array API (ARANGE), which
``xp.argmax``'s ints do not compare with (``array_api_strict`` raised TypeError)."""
EYE = ArrayRule("eye", ("numpy.eye", "numpy.identity"), (), (("N", REQUIRED), ("M", None),
                                                             ("k", 0), ("dtype", None)),
                read=_read_eye, shape=lambda node, shapes, dims: tuple(node.params),
                numpy=_eye_print, label="identity")
TRI_INDICES = ArrayRule("tri_indices", (), (), (), shape=_tri_shape, numpy=_tri_print,
                        label="rows", integer=True)
TRIU_INDICES = ArrayRule("triu_indices", ("numpy.triu_indices",), (),
                         (("n", REQUIRED), ("k", 0), ("m", None)), read=_read_tri(True))
TRIL_INDICES = ArrayRule("tril_indices", ("numpy.tril_indices",), (),
                         (("n", REQUIRED), ("k", 0), ("m", None)), read=_read_tri(False))

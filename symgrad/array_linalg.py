"""Array nodes that join and contract: ``np.concatenate``, ``np.einsum`` and the linear algebra of
``np.linalg`` (``inv``, ``det``, ``slogdet``, ``solve``), rows like those of ``array_ops``."""
import ast

import sympy

from .array_nodes import REQUIRED, ArrayRule, _call
from .array_indexing import index
from .array_ops import broadcast_to, expand_dims, matmul, transpose
from .shapes import ONE, ShapeError

# --- joining ---------------------------------------------------------------------------------
def _concatenate_shape(node, shapes, dims):
    (axis,) = node.params
    first = shapes[0]
    for other in shapes[1:]:
        if len(other) != len(first):
            raise ShapeError("np.concatenate of arrays of different ranks")
        for k, (a, b) in enumerate(zip(first, other)):
            if k != axis and a != b:
                if ONE in (a, b):
                    raise ShapeError(f"np.concatenate: sizes {a} and {b} differ on axis {k}")
                dims.unify(a, b)
    return first[:axis] + (sympy.Add(*[s[axis] for s in shapes]),) + first[axis + 1:]


def _concatenate_vjp(node, g, i, ctx):
    """The piece of the cotangent where input ``i`` sits (a slice along the axis)."""
    (axis,) = node.params
    sizes = [ctx.shape(x)[axis] for x in node.inputs]
    start = sympy.Add(*sizes[:i])
    stop = None if i == len(sizes) - 1 else start + sizes[i]
    spec = (("slice", None, None, None),) * axis + (("slice", start if i else None, stop, None),)
    return index(g, spec)


def _concatenate_print(printer, node):
    (axis,) = node.params
    keywords = [("axis", ast.Constant(axis))] if axis else []
    return _call(printer, "np.concatenate", [ast.List([printer.node(x) for x in node.inputs],
                                                      ast.Load())], keywords)


def _read_concatenate(ctx, arrays, axis=0):
    if not isinstance(arrays, tuple) or not arrays:
        ctx.fail("np.concatenate takes a list or tuple of arrays", "pass [a, b]")
    items = [ctx.array(a) for a in arrays]
    rank = len(ctx.shape(items[0]))
    if not rank:
        ctx.fail("np.concatenate of numbers", "use np.array([a, b])")
    (k,) = ctx.axes(axis, rank)
    return CONCATENATE.make(*items, params=(k,))


def read_stack(ctx, arrays, axis=0):
    """``np.stack``: a concatenation of the arrays, each with a new axis at ``axis``."""
    if not isinstance(arrays, tuple) or not arrays:
        ctx.fail("np.stack takes a list or tuple of arrays", "pass [a, b]")
    items = [ctx.array(a) for a in arrays]
    (k,) = ctx.axes(axis, len(ctx.shape(items[0])) + 1)
    shapes = [ctx.shape(x) for x in items]
    for other in shapes[1:]:  # sizes read at the call are made one (as broadcasting does):
        try:  # np.stack((x, y)) of two vectors of one length, built without shapes=
            if len(other) != len(shapes[0]):
                raise ShapeError("ranks")
            for a, b in zip(shapes[0], other):
                if a != b and ONE in (a, b):
                    raise ShapeError("a size 1")
                if a != b:
                    ctx.reader.dims.unify(a, b)
        except ShapeError:
            ctx.fail("np.stack of arrays of different shapes", "stack arrays of one shape")
    return CONCATENATE.make(*[ctx.bind(expand_dims(x, (k,)), "expanded") for x in items],
                            params=(k,))


# --- einsum ----------------------------------------------------------------------------------
def split_subscripts(subscripts):
    """``"ij,jk->ik"`` as (["ij", "jk"], "ik"), spaces dropped; without ``->`` the output is
    NumPy's implicit one: the letters used once, in alphabetical order (``"ik"`` for ``"ij,jk"``;
    ``""`` for ``"ii"``, a trace). Nothing is checked (``parse_subscripts`` does)."""
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    if not arrow:
        output = "".join(sorted(c for c in set(inputs) if c.isalpha() and inputs.count(c) == 1))
    return inputs.split(","), output


def parse_subscripts(subscripts, count):
    """``"ij,j->i"`` as ([letters per operand], output letters) (``split_subscripts``), checked:
    the one reading of einsum subscripts; the row's shape, adjoint and printers (the Array API's
    by ``matmul``, ``array_backends_api``) all take it from here.

    Raises:
        ShapeError: ``...``, a letter repeated in one operand or the output, a count mismatch.
    """
    if "." in subscripts:
        raise ShapeError("np.einsum with `...` is not supported: name every axis")
    operands, output = split_subscripts(subscripts)
    if len(operands) != count or not all(o.isalpha() or o == "" for o in operands):
        raise ShapeError(f"np.einsum subscripts {subscripts!r} for {count} operand(s)")
    for part in operands + [output]:
        if len(set(part)) != len(part):
            raise ShapeError(f"np.einsum with a letter repeated in {part!r} (a diagonal) is not "
                             "supported")
    if not set(output) <= set("".join(operands)):
        raise ShapeError(f"np.einsum output {output!r} names an axis no operand has")
    return operands, output


def _einsum_shape(node, shapes, dims):
    (subscripts,) = node.params
    operands, output = parse_subscripts(subscripts, len(shapes))
    size_of = {}
    for letters, shape in zip(operands, shapes):
        if len(letters) != len(shape):
            raise ShapeError(f"np.einsum subscripts {letters!r} for an array of rank {len(shape)}")
        for letter, d in zip(letters, shape):
            if letter in size_of and size_of[letter] != d:
                if ONE in (d, size_of[letter]):
                    raise ShapeError(f"np.einsum: axis {letter!r} has sizes {size_of[letter]} and "
                                     f"{d}")
                d = dims.unify(size_of[letter], d)
            size_of[letter] = d
    return tuple(size_of[letter] for letter in output)


def einsum(subscripts, *operands):
    return EINSUM.make(*operands, params=(subscripts,))


def _einsum_vjp(node, g, i, ctx):
    """The cotangent contracted with the other operands to operand ``i``'s axes; an axis only
    operand ``i`` has (summed away) gets the same value all along it."""
    (subscripts,) = node.params
    operands, output = parse_subscripts(subscripts, len(node.inputs))
    mine = operands[i]
    others = [(letters, x) for k, (letters, x) in enumerate(zip(operands, node.inputs)) if k != i]
    reached = set(output) | {c for letters, _ in others for c in letters}
    kept = "".join(c for c in mine if c in reached)
    spec = ",".join([output] + [letters for letters, _ in others]) + "->" + kept
    value = einsum(spec, g, *[x for _, x in others])
    if kept != mine:
        value = expand_dims(value, tuple(k for k, c in enumerate(mine) if c not in reached))
        value = broadcast_to(value, ctx.shape(node.inputs[i]))
    return value


def _einsum_print(printer, node):
    (subscripts,) = node.params
    return _call(printer, "np.einsum", [ast.Constant(subscripts)] + [printer.node(x)
                                                                     for x in node.inputs])


def batched_matmul(x, y, shape_x, shape_y):
    """``x @ y`` (``np.matmul``) with an operand of rank 3 or more: the stacks of matrices
    multiplied as ``np.einsum`` with a letter per batch axis (aligned from the right, as NumPy
    broadcasts them), a vector operand taking part as NumPy promotes it; ranks 1 and 2 are the
    ``@`` row. Raises ShapeError for a size-1 batch axis against a longer one (NumPy's
    broadcast; not supported)."""
    ra, rb = len(shape_x), len(shape_y)
    if ra <= 2 and rb <= 2:
        return matmul(x, y)
    batch = max(ra, rb) - 2
    letters = "abcdefgh"[:batch]
    left = letters[batch - (ra - 2):] + "mk" if ra >= 2 else "k"
    right = letters[batch - (rb - 2):] + "kp" if rb >= 2 else "k"
    for k in range(1, min(ra, rb) - 1):  # the batch axes both have, from the right
        a, b = shape_x[-2 - k], shape_y[-2 - k]
        if a != b and ONE in (a, b):
            raise ShapeError(f"`@` of shapes {shape_x} and {shape_y}: a size-1 batch axis "
                             "broadcast against a longer one is not supported")
    output = letters + ("m" if ra >= 2 else "") + ("p" if rb >= 2 else "")
    return einsum(f"{left},{right}->{output}", x, y)


def _read_np_matmul(ctx, a, b):
    """``np.matmul(a, b)``: ``a @ b`` (stacks of matrices too); ``np.dot`` stays the ``@`` row."""
    x, y = ctx.array(a), ctx.array(b)
    if not ctx.shape(x) or not ctx.shape(y):
        ctx.fail("np.matmul of a scalar is not defined", "use * to scale")
    try:
        return batched_matmul(x, y, ctx.shape(x), ctx.shape(y))
    except ShapeError as exc:
        ctx.fail(str(exc), "np.broadcast_to the operand first")


def _read_einsum(ctx, subscripts, operands=()):
    """``np.einsum``; a letter repeated in one operand (``"ii->"``, ``"ij,jj->i"``) takes that
    operand's diagonal first (``A[steps, steps]``, gathered with ``np.arange``), as NumPy
    means it, and the subscripts are made explicit (the implicit output is read before)."""
    if not isinstance(subscripts, str):
        ctx.fail("np.einsum needs its subscripts as a string literal", "write \"ij,j->i\"")
    items = [ctx.array(x) for x in operands]
    text = subscripts
    terms, output = split_subscripts(text)  # the implicit output read before the diagonals
    if len(terms) == len(items) and "." not in text:
        for k, term in enumerate(terms):
            terms[k], items[k] = _diagonals(ctx, term, items[k])
        text = ",".join(terms) + "->" + output
        items = _stretched(ctx, terms, items)
    parse_subscripts(text, len(items))
    return einsum(text, *items)


def _stretched(ctx, terms, items):
    """The operands with a size-1 axis broadcast (``np.broadcast_to``) to the size its letter has
    in another operand, as NumPy's einsum broadcasts it (``"bij,bjk->bik"`` of (d, d, 1) and
    (d, d, 1) sums ``j`` over d)."""
    shapes = [ctx.shape(x) for x in items]
    if any(len(term) != len(shape) for term, shape in zip(terms, shapes)):
        return items  # parse_subscripts names the mismatch
    longer = {}
    for term, shape in zip(terms, shapes):
        for c, d in zip(term, shape):
            if d != ONE:
                longer.setdefault(c, d)
    out = []
    for term, shape, x in zip(terms, shapes, items):
        wanted = tuple(longer.get(c, d) if d == ONE else d for c, d in zip(term, shape))
        out.append(x if wanted == tuple(shape) else ctx.bind(broadcast_to(x, wanted),
                                                             "broadcast"))
    return out


def _diagonals(ctx, term, x):
    """(the letters, the operand) of one einsum operand with each repeated letter's diagonal
    taken: two index arrays side by side keep the axis in place, apart they put it first
    (NumPy's rule for advanced indices)."""
    from .array_indexing import ARANGE
    while any(term.count(c) > 1 for c in term):
        c = next(c for c in term if term.count(c) > 1)
        if term.count(c) > 2:
            ctx.fail(f"np.einsum with a letter three times in {term!r} is not supported",
                     "take the diagonal in two steps")
        p = term.index(c)
        q = term.index(c, p + 1)
        shape = ctx.shape(x)
        if len(shape) != len(term):
            return term, x  # parse_subscripts names the mismatch
        length = shape[p] if shape[p] == shape[q] else ctx.reader.dims.unify(shape[p], shape[q])
        steps = ctx.bind(ARANGE.make(params=(sympy.Integer(0), length, sympy.Integer(1))),
                         "steps")
        spec = [("slice", None, None, None)] * len(term)
        spec[p] = spec[q] = ("array", steps, (length,), ())
        while spec[-1] == ("slice", None, None, None):
            spec.pop()
        x = ctx.bind(index(x, tuple(spec)), "diagonal")
        rest = term[:q] + term[q + 1:]
        term = rest if q == p + 1 else c + rest.replace(c, "")
    return term, x


# --- linear algebra ----------------------------------------------------------------------------
def _square(shapes, dims, what):
    (shape,) = shapes
    if len(shape) != 2:
        raise ShapeError(f"{what} of an array of rank {len(shape)} (a matrix is needed)")
    if shape[0] != shape[1]:
        dims.unify(shape[0], shape[1])
    return shape


def _inv_vjp(node, g, i, ctx):
    """d inv(A) = -inv(A) dA inv(A): the adjoint of A is -inv(A).T @ g @ inv(A).T."""
    inverse_t = transpose(ctx.out, (1, 0))
    return -matmul(matmul(inverse_t, g), inverse_t)


def _logdet_vjp(node, g, i, ctx):
    """d log|det A| = tr(inv(A) dA): the adjoint of A is g * inv(A).T (passed on through the
    ``SLOGDET_PAIR`` node, whose adjoint is its matrix's)."""
    return g * transpose(INV.make(node.inputs[0].inputs[0]), (1, 0))


def _det_vjp(node, g, i, ctx):
    """d det A = tr(adj(A) dA): the adjoint of A is g times the cofactor matrix adj(A).T, which
    is det(A) inv(A).T only where A is invertible. From the SVD A = U diag(s) Vh it is
    det(U Vh) U diag(p) Vh, p_i the product of the s_j with j != i (the product along the rows
    of s with a 1 put on the diagonal: no division), so it is exact at a singular matrix too
    ([[1, 2], [2, 4]] gives [[4, -2], [-2, 1]], as JAX does), on every backend."""
    from .array_indexing import EYE
    from .array_ops import PROD, reduce_
    a = node.inputs[0]
    (size, _) = ctx.shape(a)
    u, s, vh = (SVD_ITEM.make(SVD.make(a), params=(k,)) for k in range(3))  # one SVD (CSE)
    row = expand_dims(s, (0,))
    others = reduce_(PROD, row + EYE.make(params=(size, size)) * (1 - row), (1,), False, 2)
    sign = DET.make(matmul(u, vh))
    return g * sign * matmul(u * expand_dims(others, (0,)), vh)


def _svd_item_shape(node, shapes, dims):
    (k,) = node.params
    (shape,) = shapes
    return shape[:1] if k == 1 else shape


def _item_print(printer, node):
    (k,) = node.params
    return ast.Subscript(printer.node(node.inputs[0]), ast.Constant(k), ast.Load())


def _linalg_print(spelling):
    def numpy(printer, node):
        return _call(printer, spelling, [printer.node(node.inputs[0])])
    return numpy


def _solve_shape(node, shapes, dims):
    a, b = shapes
    _square([a], dims, "np.linalg.solve")
    if len(b) not in (1, 2):
        raise ShapeError(f"np.linalg.solve of a right-hand side of rank {len(b)} (a vector or a "
                         "matrix is needed)")
    if b[0] != a[1]:
        if ONE in (b[0], a[1]):
            raise ShapeError(f"np.linalg.solve of shapes {a} and {b}: sizes differ")
        dims.unify(a[1], b[0])
    return b


def _solve_vjp(node, g, i, ctx):
    """x = solve(A, b): b̄ = solve(A.T, ḡ), Ā = -b̄ x^T (an outer product for a vector b)."""
    a, _ = node.inputs
    adjoint_b = SOLVE.make(transpose(a, (1, 0)), g, params=node.params)
    if i == 1:
        return adjoint_b
    if len(ctx.shape(ctx.out)) == 1:
        return -(expand_dims(adjoint_b, (1,)) * ctx.out)
    return -matmul(adjoint_b, transpose(ctx.out, (1, 0)))


def _solve_print(printer, node):
    return _call(printer, "np.linalg.solve", [printer.node(x) for x in node.inputs])


def _read_solve(ctx, a, b):
    x, y = ctx.array(a), ctx.array(b)
    if not ctx.shape(y):
        ctx.fail("np.linalg.solve of a number", "pass a vector or a matrix as b")
    return SOLVE.make(x, y, params=(len(ctx.shape(y)),))  # b's rank: its printing on Dask


def _read_slogdet(ctx, a):
    pair = SLOGDET_PAIR.make(ctx.array(a))
    return (ctx.bind(SLOGDET_SIGN.make(pair, params=(0,)), "sign"),
            ctx.bind(LOGABSDET.make(pair, params=(1,)), "logdet"))


# --- running sums ------------------------------------------------------------------------------
def _cumsum_shape(node, shapes, _):
    return shapes[0]


def _cumsum_vjp(node, g, i, ctx):
    """The adjoint of a running sum is the running sum from the other end."""
    (axis,) = node.params
    reverse = (("slice", None, None, None),) * axis + (("slice", None, None, -1),)
    return index(CUMSUM.make(index(g, reverse), params=(axis,)), reverse)


def _cumsum_print(printer, node):
    (axis,) = node.params
    return _call(printer, "np.cumsum", [printer.node(node.inputs[0])], [("axis", ast.Constant(
        axis))])


def _read_cumsum(ctx, a, axis=None):
    x = ctx.array(a)
    rank = len(ctx.shape(x))
    if axis is None and rank != 1:
        ctx.fail("np.cumsum without an axis flattens the array first", "pass axis=")
    if not rank:
        ctx.fail("np.cumsum of a number", "pass an array")
    (k,) = ctx.axes(0 if axis is None else axis, rank)
    return CUMSUM.make(x, params=(k,))


# --- the rows -------------------------------------------------------------------------------------
CONCATENATE = ArrayRule("concatenate", ("numpy.concatenate",), (),
                        (("arrays", REQUIRED), ("axis", 0)), read=_read_concatenate,
                        shape=_concatenate_shape, vjp=_concatenate_vjp,
                        numpy=_concatenate_print, label="joined")
EINSUM = ArrayRule("einsum", ("numpy.einsum",), (), (("subscripts", REQUIRED),
                                                    ("*operands", REQUIRED)),
                   read=_read_einsum, shape=_einsum_shape, vjp=_einsum_vjp, numpy=_einsum_print,
                   label="contracted", empty=0, linear=True)
INV = ArrayRule("inv", ("numpy.linalg.inv",), (), (("a", REQUIRED),),
                read=lambda ctx, a: INV.make(ctx.array(a)),
                shape=lambda node, shapes, dims: _square(shapes, dims, "np.linalg.inv"),
                vjp=_inv_vjp, numpy=_linalg_print("np.linalg.inv"), label="inverse")
SLOGDET_PAIR = ArrayRule("slogdet_pair", (), (), (),
                         shape=lambda node, shapes, dims: _square(shapes, dims, "slogdet"),
                         vjp=lambda node, g, i, ctx: g, numpy=_linalg_print("np.linalg.slogdet"),
                         label="slogdet")
"""``np.linalg.slogdet(A)``, the tuple (sign, log|det A|) (its shape, and its adjoint, ``A``'s),
read by ``SLOGDET_SIGN`` and ``LOGABSDET`` only: one node for the two items, so that code reading
both computes it once (``_t0 = np.linalg.slogdet(A)``, ``sign = _t0[0]``, ``logdet = _t0[1]``)."""
LOGABSDET = ArrayRule("logabsdet", (), (), (), shape=lambda node, shapes, dims: (),
                      vjp=_logdet_vjp, numpy=_item_print, label="logdet", empty=0)
SLOGDET_SIGN = ArrayRule("slogdet_sign", (), (), (), shape=lambda node, shapes, dims: (),
                         vjp=lambda node, g, i, ctx: sympy.S.Zero, numpy=_item_print,
                         label="sign", empty=1)
SLOGDET = ArrayRule("slogdet", ("numpy.linalg.slogdet",), (), (("a", REQUIRED),),
                    read=_read_slogdet)
DET = ArrayRule("det", ("numpy.linalg.det",), (), (("a", REQUIRED),),
                read=lambda ctx, a: DET.make(ctx.array(a)),
                shape=lambda node, shapes, dims: _square(shapes, dims, "np.linalg.det")[:0],
                vjp=_det_vjp, numpy=_linalg_print("np.linalg.det"), label="determinant",
                empty=1)
NP_MATMUL = ArrayRule("np_matmul", ("numpy.matmul",), (), (("a", REQUIRED), ("b", REQUIRED)),
                      read=_read_np_matmul)
SVD = ArrayRule("svd", (), (), (),
                shape=lambda node, shapes, dims: _square(shapes, dims, "np.linalg.svd"),
                numpy=_linalg_print("np.linalg.svd"), label="svd")
"""``np.linalg.svd(A)`` of a square ``A``, the tuple (U, s, Vh) (its shape: ``A``'s), read by
``SVD_ITEM`` only: the det row's adjoint. One node for the three items, so that the common
sub-expressions print it once (``_t0 = np.linalg.svd(A)``, then ``_t0[0]``, ``_t0[1]``,
``_t0[2]``): one SVD per call, not one per item."""
SVD_ITEM = ArrayRule("svd_item", (), (), (), shape=_svd_item_shape, numpy=_item_print,
                     label="singular")
"""Item ``k`` of ``np.linalg.svd(A)`` (an ``SVD`` node): U, s (a vector) or Vh."""
SOLVE = ArrayRule("solve", ("numpy.linalg.solve",), (), (("a", REQUIRED), ("b", REQUIRED)),
                  read=_read_solve, shape=_solve_shape, vjp=_solve_vjp, numpy=_solve_print,
                  label="solution")
CUMSUM = ArrayRule("cumsum", ("numpy.cumsum",), ("cumsum",), (("a", REQUIRED), ("axis", None)),
                   read=_read_cumsum, shape=_cumsum_shape, vjp=_cumsum_vjp,
                   numpy=_cumsum_print, label="running", linear=True)

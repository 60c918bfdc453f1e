"""The index rows' backend columns (``array_backends.PRINTERS``): subscripts and their adjoints
for PyTorch, JAX and the Array API where NumPy's form does not run there.

- PyTorch and the Array API on PyTorch have no negative slice steps: ``flip`` (``_flips``);
- the Array API indexes with an integer array only where every axis has one: ``take``;
  NumPy puts an index array's axes first when an int stands apart from it, which PyTorch does
  not: the int as a one-element index array (``_ints_apart``);
- an index adjoint: ``z = z.at[i].add(g)`` on JAX (``jnp.pad`` for slices of step 1); PyTorch
  adds in place, ``index_add_`` or ``index_put_(..., accumulate=True)`` for an index array (a
  slice among several as an ``arange``); the Array API adds slices in place or through ``.at``
  on a JAX array, and scatters a constant index array by gathers in rounds
  (``array_backends_api.gathered_scatter``: the standard has no scatter-add), one the code
  computes by a one-hot product (``one_hot_scatter``).
"""
import ast

import sympy

from .array_backend_values import _device, constant, plain_number, refuse, zeros
from .array_backends_api import gathered_scatter, one_hot_scatter
from .array_empty import EMPTY, FULL, guarded, selection
from .array_nodes import _call, dims_ast
from .array_pads import _padded, padded_sum
from .program import fresh_name


def _index_items(printer, spec):
    from .array_indexing import index_item_ast
    items = []
    apart = printer.backend in ("torch", "array_api") and _ints_apart(spec)
    for item in spec:
        node = index_item_ast(item)
        if apart and item[0] == "int":  # torch reads an int first, as NumPy does not here
            node = _call(printer, "torch.as_tensor" if printer.backend == "torch" else
                         "np.asarray", [ast.List([node], ast.Load())],
                         [] if printer.reference is None else [("device", _device(printer))])
        if item[0] == "array" and printer.backend == "array_api" and isinstance(
                item[1], sympy.Symbol) and printer.reference is not None:
            # computed by the code: NumPy's triangle indices (`_triangle`) made the library's
            node = _call(printer, "np.asarray", [node], [("device", _device(printer))])
        elif item[0] == "array" and printer.backend in ("torch", "array_api") and not isinstance(
                item[1], sympy.Symbol):  # a constant index array (one the code computes is one)
            node = constant(printer, item[1]) if item[1] is not None else _call(
                printer, "torch.as_tensor" if printer.backend == "torch" else "np.asarray",
                [node], [] if printer.reference is None else [("device", _device(printer))])
        items.append(node)
    if printer.backend == "array_api":  # the standard indexes every axis: `x[1:, ...]`
        items.append(ast.Constant(Ellipsis))
    return items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())


_ALL = ("slice", None, None, None)


def _contiguous(positions):
    return positions == list(range(positions[0], positions[-1] + 1)) if positions else True


def _ints_apart(spec):
    """Whether an int of ``spec`` stands apart from its index arrays where they are next to each
    other (``x[0, 1:, INDEX]``): NumPy then puts the index arrays' axes first (it counts the int
    with them), PyTorch reads the int as a plain index first and leaves the array's axis where it
    is, so the int is printed as a one-element index array there (``torch.as_tensor([0])``)."""
    from .array_indexing import _advanced
    arrays = [k for k, item in enumerate(spec) if item[0] == "array"]
    return bool(arrays) and _contiguous(arrays) and not _contiguous(_advanced(spec))


def _flips(printer, spec, shape=None):
    """(the axes a spec reverses, the slices to take first or None, the spec with each reversed
    axis as a positive-step slice of the reversed axis): PyTorch has no negative slice steps (nor
    the Array API on PyTorch), so ``x[::-1]`` is ``flip(x, (0,))`` and ``x[-2::-2]`` is
    ``flip(x, (0,))[1::2]`` (element ``j`` of the reversed axis is ``n - 1 - j``: a start or stop
    ``-s`` becomes ``s - 1``). A bound that is not negative counts from the start, so where the
    reversed axis starts depends on its size: with ``shape`` (the indexed array's, for an
    adjoint) ``x[5::-1]`` is ``flip(x)[max(n - 6, 0):]``; without it the slices of the axis are
    taken first, ``flip(x[:6])`` (``x[a:b:-c]`` is ``flip(x[b + 1:a + 1])[::c]``: the elements
    from a down to b + 1, every c-th)."""
    flipped, before, plain = [], [], []
    for k, item in enumerate(spec):
        if item[0] != "slice" or item[3] is None or item[3] > 0:
            plain.append(item)
            before.append(_ALL)
            continue
        _, start, stop, step = item
        step = None if step == -1 else -step
        flipped.append(k)
        if shape is None and not (_negative(start) and _negative(stop)):
            if stop == -1:  # x[a:-1:-1] stops at the last element: always empty
                low, high = 0, 0
            else:
                low = None if stop is None else stop + 1
                high = None if start is None or start == -1 else start + 1
            before.append(("slice", low, high, None))
            plain.append(("slice", None, None, step))
            continue
        before.append(_ALL)
        plain.append(("slice", _reversed(start, shape, k, True), _reversed(stop, shape, k, False),
                      step))
    return tuple(flipped), tuple(before) if any(b != _ALL for b in before) else None, \
        tuple(plain)


def _negative(bound):
    return bound is None or isinstance(bound, int) and bound < 0


def _reversed(bound, shape, axis, start):
    """A bound of a negative-step slice as the bound of the positive-step slice of the reversed
    axis: ``-s`` is ``s - 1``; ``s >= 0`` is ``max(n - 1 - s, 0)`` (clamped as NumPy clamps)."""
    from .array_nodes import int_ast
    if bound is None or start and bound == -1:
        return None
    if _negative(bound):
        return -bound - 1
    reversed_ = shape[axis] - 1 - bound
    if reversed_.is_Integer:
        return max(int(reversed_), 0)
    return ast.Call(ast.Name("max", ast.Load()), [int_ast(reversed_), ast.Constant(0)], [])


def _flip(printer, value, axes):
    return _call(printer, "np.flip", [value], [("axis", ast.Tuple(
        [ast.Constant(k) for k in axes], ast.Load()))]) if printer.backend == "array_api" else \
        _call(printer, "torch.flip", [value, ast.Tuple([ast.Constant(k) for k in axes],
                                                       ast.Load())])


def _flipping_index(printer, node):
    """Indexing, with a reversed axis (``x[::-1]``) as a ``flip``; on the Array API one index
    array as ``take``."""
    return indexed(printer, printer.node(node.inputs[0]), node.params)


def indexed(printer, x, spec):
    """``x[spec]`` (``x`` printed) as ``_flipping_index`` prints it."""
    flipped, before, spec = _flips(printer, spec)
    if before is not None:
        x = ast.Subscript(x, _index_items(printer, before), ast.Load())
    if flipped:
        x = _flip(printer, x, flipped)
        if all(item == _ALL for item in spec):
            return x
    if printer.backend == "array_api" and _takes(spec):
        return _take(printer, x, spec)
    if printer.backend == "array_api" and any(item[0] == "at" for item in spec) and not any(
            item[0] == "array" for item in spec):
        return _taken_at(printer, x, spec)
    if printer.backend == "array_api" and not flipped and before is None and any(
            item[0] == "array" for item in spec) and not any(item[0] == "at" for item in spec):
        marker = ast.Call(ast.Name("__pointwise_take__", ast.Load()), [], [])
        marker.symgrad_statements = lambda target, names: _pointwise_take(
            printer, target, x, spec, names)
        marker.symgrad_takes_names = True
        return marker
    return ast.Subscript(x, _index_items(printer, spec), ast.Load())


def _taken_at(printer, x, spec):
    """``x[i, ...]`` of a 0-d index the code computes (``np.argmax``) on the Array API, whose
    arrays take no 0-d array beside other indices (array_api_strict): the other entries first,
    then each such axis, last first, as ``xp.take`` of the index as a 1-element array,
    squeezed."""
    basic = tuple(_ALL if item[0] == "at" else item for item in spec)
    if any(item != _ALL for item in basic):
        x = ast.Subscript(x, _index_items(printer, basic), ast.Load())
    axes = [(sum(1 for other in spec[:k] if other[0] != "int"), item)
            for k, item in enumerate(spec) if item[0] == "at"]
    for axis, item in reversed(axes):
        index = _call(printer, "np.reshape", [ast.Name(item[1].name, ast.Load()),
                                              ast.Tuple([ast.Constant(1)], ast.Load())])
        x = _call(printer, "np.squeeze", [_call(printer, "np.take", [x, index], [
            ("axis", ast.Constant(axis))])], [("axis", ast.Constant(axis))])
    return x


def _takes(spec):
    """Whether ``x[spec]`` is ``take`` along one axis of ``x`` indexed by slices and ints first:
    one index array of one axis."""
    arrays = [k for k, item in enumerate(spec) if item[0] in ("array", "at")]
    return len(arrays) == 1 and spec[arrays[0]][0] == "array" and len(spec[arrays[0]][2]) == 1


def _take(printer, x, spec):
    """``xp.take(x[1:, 0, ...], INDEX, axis=0)``: the Array API indexes with an integer array only
    where every axis has one (``array_api_strict`` refuses ``x[INDEX, ...]``); ``take`` gathers
    along one axis (the standard's). NumPy puts the array's axis first when an int stands apart
    from it (``x[0, :, INDEX]``): ``xp.moveaxis(..., 1, 0)`` then."""
    where = next(k for k, item in enumerate(spec) if item[0] == "array")
    basic = tuple(_ALL if k == where else item for k, item in enumerate(spec))
    if any(item != _ALL for item in basic):
        x = ast.Subscript(x, _index_items(printer, basic), ast.Load())
    index = _index_items(printer, (spec[where],))
    index = index.elts[0] if isinstance(index, ast.Tuple) else index
    axis = sum(1 for item in basic[:where] if item[0] != "int")
    taken = _call(printer, "np.take", [x, index], [("axis", ast.Constant(axis))])
    if _ints_apart(spec) and axis:
        taken = _call(printer, "np.moveaxis", [taken, ast.Constant(axis), ast.Constant(0)])
    return taken


def _pointwise_take(printer, target, x, spec, names):
    """``x[spec]`` with several index arrays, or one of rank 2 (``X[MASK2D]``, ``X[..., MASK]``,
    ``Z[ROWS, PICKS]``), on the Array API, whose indexing takes integer arrays only where every axis
    has one (``array_api_strict``; Dask takes one index array): the indexed axes moved first and
    made one, the positions picked (``flat_positions``, with NumPy on the constant indices) taken
    along it, reshaped to the picks' shape, then the slices of the other axes; NumPy's placement
    of the picked axes after the slices before them when the index arrays are next to each other::

        _picks = compat_numpy.broadcast_to(...)[GRID_rows, GRID_columns] + ...
        item = xp.reshape(xp.take(xp.reshape(X, (-1,) + X.shape[2:]),
            xp.asarray(compat_numpy.ravel(_picks), device=device(X)), axis=0),
            _picks.shape + X.shape[2:])
    """
    from .array_backends_dask import flat_positions
    from .array_indexing import _advanced
    advanced = _advanced(spec)
    body = []
    if not isinstance(x, ast.Name):  # named once: its shape is read
        name = fresh_name("_indexed", names)
        body.append(ast.Assign([ast.Name(name, ast.Store())], x, lineno=None))
        x = ast.Name(name, ast.Load())

    def shape(k):
        return ast.Subscript(ast.Attribute(x, "shape", ast.Load()), ast.Constant(k), ast.Load())

    def compat(function, args, keywords=()):
        return ast.Call(ast.Attribute(ast.Name("compat_numpy", ast.Load()), function, ast.Load()),
                        args, [ast.keyword(k, v) for k, v in keywords])

    def axes(values):
        return ast.Tuple([ast.Constant(k) for k in values], ast.Load())
    picks = fresh_name("_picks", names)
    body.append(ast.Assign([ast.Name(picks, ast.Store())], flat_positions(
        printer, [shape(k) for k in advanced], tuple(spec[k] for k in advanced), compat),
        lineno=None))
    others = [k for k in range(len(spec)) if k not in advanced]
    rest = ast.Subscript(ast.Attribute(x, "shape", ast.Load()), ast.Slice(
        ast.Constant(len(spec)), None, None), ast.Load())
    if others:
        rest = ast.BinOp(ast.Tuple([shape(k) for k in others], ast.Load()), ast.Add(), rest)
    moved = x if advanced == list(range(len(advanced))) else _call(
        printer, "np.moveaxis", [x, axes(advanced), axes(range(len(advanced)))])
    flat = _call(printer, "np.reshape", [moved, ast.BinOp(ast.Tuple(
        [ast.Constant(-1)], ast.Load()), ast.Add(), rest)])
    taken = _call(printer, "np.take", [flat, _call(printer, "np.asarray", [
        compat("ravel", [ast.Name(picks, ast.Load())])], [("device", _device(printer))])],
        [("axis", ast.Constant(0))])
    value = _call(printer, "np.reshape", [taken, ast.BinOp(ast.Attribute(
        ast.Name(picks, ast.Load()), "shape", ast.Load()), ast.Add(), rest)])
    rank = max(len(item[2]) for item in spec if item[0] == "array")
    sliced = (_ALL,) * rank + tuple(spec[k] for k in others)
    if any(item != _ALL for item in sliced):
        value = ast.Subscript(value, _index_items(printer, sliced), ast.Load())
    if _contiguous(advanced) and advanced[0] > 0:  # NumPy keeps them after the slices before
        value = _call(printer, "np.moveaxis", [value, axes(range(rank)), axes(range(
            advanced[0], advanced[0] + rank))])
    body.append(ast.Assign([ast.Name(target, ast.Store())], value, lineno=None))
    return body


def _triangle(printer, node):
    """``np.triu_indices(n, k)[0]`` of a size known when called, on the Array API, which has no
    triangle indices (and PyTorch's ``triu_indices`` takes other arguments): NumPy's
    (``compat_numpy.triu_indices``), an int array the index printers convert where it indexes."""
    from .array_indexing import _tri_print
    call = _tri_print(printer, node)
    function = call.value.func
    call.value.func = ast.Attribute(ast.Name("compat_numpy", ast.Load()), function.attr,
                                    ast.Load())
    return call


def _array_index(printer, node):
    return ast.Subscript(printer.node(node.inputs[0]), _index_items(printer, node.params),
                         ast.Load())


def _index_adjoint(printer, node):
    marker = ast.Call(ast.Name("__index_adjoint__", ast.Load()), [], [])
    marker.symgrad_statements = lambda target, names: _index_adjoint_statements(
        printer, target, node, names)
    marker.symgrad_takes_names = True
    return marker


def _index_adjoint_statements(printer, target, node, names):
    """``z = zeros(shape)`` and one addition per piece: ``z = z.at[i].add(g)`` (JAX), ``z[i] += g``
    or ``z.index_put_((i,), g, accumulate=True)`` (PyTorch); the Array API adds a slice in place,
    or through ``.at`` on an array that has it (a JAX array)."""
    from .array_indexing import _unstretched
    shape, specs = node.params
    if printer.backend == "jax" and all(_padded(spec) for spec in specs):
        return padded_sum(printer, target, node.inputs, specs, shape, names)
    name = ast.Name(target, ast.Load())
    body = [ast.Assign([ast.Name(target, ast.Store())], zeros(printer, dims_ast(shape)),
                       lineno=None)]
    for g, spec in zip(node.inputs, specs):
        if printer.backend == "array_api" and selection(spec, shape) == EMPTY:
            continue  # nothing selected at any size: nothing added (Dask raises: array_empty)
        original = spec  # a reversed slice's store selects as many elements as it
        value = printer.node(_unstretched(g))
        if printer.backend == "torch" and plain_number(_unstretched(g), printer):  # tensors only
            value = printer.new_array(value)
        arrays = [item for item in spec if item[0] in ("array", "at")]
        if printer.backend in ("torch", "array_api"):
            flipped, _, plain = _flips(printer, spec, shape)
            if flipped and arrays:
                refuse(printer, "a reversed slice with an index array", "index in two steps")
            if flipped and any(plain[k] != _ALL for k in flipped):
                # z[-2::-2] += g: g into a zero buffer of the reversed axes, flipped back
                reversed_ = fresh_name(f"{target}_reversed", names)
                body.append(ast.Assign([ast.Name(reversed_, ast.Store())],
                                       zeros(printer, dims_ast(shape)), lineno=None))
                body.extend(_stored(printer, reversed_, _index_items(printer, plain), value,
                                    original, shape))
                body.append(ast.AugAssign(ast.Name(target, ast.Store()), ast.Add(),
                                          _flip(printer, ast.Name(reversed_, ast.Load()),
                                                flipped)))
                continue
            if flipped:  # z[::-1] += g is z += flip(g): the value at its full shape
                axes = [sum(1 for item in spec[:k] if item[0] != "int") for k in flipped]
                value, spec = _flip(printer, printer.node(g), axes), plain
        if all(item == _ALL for item in spec):  # z[:, :] += g is z + g: no scatter (XLA on
            # CPU aborted on jnp.flip(z.at[:, :].add(g)) under jax.jit, "Invalid binary
            # instruction opcode map": array fuzzer 92-25, array_api on JAX arrays)
            body.append(ast.Assign([ast.Name(target, ast.Store())],
                                   ast.BinOp(name, ast.Add(), value), lineno=None))
            continue
        index = _index_items(printer, spec)
        if printer.backend == "jax":
            at = ast.Subscript(ast.Attribute(name, "at", ast.Load()), index, ast.Load())
            body.append(ast.Assign([ast.Name(target, ast.Store())], ast.Call(
                ast.Attribute(at, "add", ast.Load()), [value], []), lineno=None))
        elif printer.backend == "torch" and all(item[0] == "at" for item in arrays):
            # z[i] += g of a 0-d index i (np.argmax): one element, no repeats; index_add_
            # takes a vector of indices (its source then has that axis: RuntimeError)
            body.extend(_added(printer, target, index, value))
        elif arrays and printer.backend == "torch" and len(arrays) == 1 and all(
                item[0] in ("slice", "int") for item in spec if item[0] not in ("array", "at")) \
                and not _negative_indices(printer, spec) and not _ints_apart(spec):
            # X[:, INDEX], X[INDEX, 1:]: index_add_ into the view the slices and ints select
            # (index_add_ takes no negative index: those go to index_put_)
            where = next(k for k, item in enumerate(spec) if item[0] in ("array", "at"))
            axis = sum(1 for item in spec[:where] if item[0] != "int")
            items = index.elts if isinstance(index, ast.Tuple) else [index]
            view = name
            if any(item != _ALL for k, item in enumerate(spec) if k != where):
                kept = [ast.Slice() if k == where else i for k, i in enumerate(items)]
                view = ast.Subscript(name, kept[0] if len(kept) == 1 else ast.Tuple(
                    kept, ast.Load()), ast.Load())
            body.append(ast.Expr(ast.Call(ast.Attribute(view, "index_add_", ast.Load()), [
                ast.Constant(axis), items[where], printer.node(g)], [])))
        elif arrays and printer.backend == "torch":
            items = index.elts if isinstance(index, ast.Tuple) else [index]
            items = [_call(printer, "torch.as_tensor", [i], [("device", _device(printer))])
                     if isinstance(i, (ast.Constant, ast.UnaryOp)) else i for i in items]
            if any(item[0] == "slice" for item in spec):
                items = _sliced_put_items(printer, spec, items, shape)
            body.append(ast.Expr(ast.Call(ast.Attribute(name, "index_put_", ast.Load()), [
                ast.Tuple(items, ast.Load()), value], [ast.keyword("accumulate",
                                                                    ast.Constant(True))])))
        elif arrays and printer.backend == "array_api":
            from .array_indexing import constant_indices
            triangles = getattr(printer, "triangles", ())
            if not constant_indices(spec) and not all(
                    item[0] in ("int", "slice") or item[0] == "array" and (not isinstance(
                        item[1], sympy.Symbol) or item[1].name in triangles) for item in spec):
                # np.triu_indices(n) of a size known when called is NumPy's: numbered as a
                # constant; an index the code computes is scattered by a one-hot product
                body.extend(one_hot_scatter(printer, target, shape, spec, printer.node(g),
                                            names, indexed))
                continue
            body.extend(gathered_scatter(printer, target, shape, spec, printer.node(g), names))
        else:
            body.extend(_stored(printer, target, index, value, original, shape))
    return body


def _stored(printer, target, index, value, spec, shape):
    """``_added``; on the Array API under ``if target[index].size:`` where the selection is
    empty at some sizes (Dask raises storing into it: ``array_empty``)."""
    status = selection(spec, shape) if printer.backend == "array_api" else FULL
    return guarded(_added(printer, target, index, value), target, index, status)


def _negative_indices(printer, spec):
    """Whether a constant index array of ``spec`` holds a negative index."""
    import numpy
    for item in spec:
        if item[0] == "array" and not isinstance(item[1], sympy.Symbol):
            values = printer.constants[item[1]] if item[1] is not None else item[3]
            if numpy.any(numpy.asarray(values) < 0):
                return True
    return False


def _sliced_put_items(printer, spec, items, shape):
    """The index tensors of ``index_put_`` (which takes index arrays only) for a spec of index
    arrays and slices (``X[I, 1:, J]``): each slice an ``arange`` of its axis, each tensor
    reshaped to where NumPy puts its axes in the result (the index arrays' axes where they stand
    when they are next to each other, ints counted with them, else first; then the slices'), so
    that they broadcast to the cotangent's shape."""
    from .array_indexing import _advanced
    from .array_nodes import int_ast
    advanced = _advanced(spec)
    together = advanced == list(range(advanced[0], advanced[-1] + 1))
    rank = len(next(item[2] for item in spec if item[0] == "array"))
    slices = [k for k, item in enumerate(spec) if item[0] == "slice"]
    total = rank + len(slices)
    first = sum(1 for k in slices if k < advanced[0]) if together else 0

    def placed(value, at, length):
        dims = [ast.Constant(1)] * at + [ast.Constant(-1)] * length + \
            [ast.Constant(1)] * (total - at - length)
        return ast.Call(ast.Attribute(value, "reshape", ast.Load()), [
            ast.Tuple(dims, ast.Load())], [])
    out = []
    for k, (item, node) in enumerate(zip(spec, items)):
        if item[0] == "slice":
            position = slices.index(k) + (rank if not together or k > advanced[0] else 0)
            axis = _call(printer, "torch.arange", [int_ast(shape[k])],
                         [("device", _device(printer))])
            out.append(placed(ast.Subscript(axis, node, ast.Load()), position, 1))
        elif item[0] in ("int", "at"):  # a 0-d index: broadcast
            out.append(node)
        elif rank == 1:
            out.append(placed(node, first, 1))
        else:  # an index array of several axes: its own shape, placed
            dims = [ast.Constant(1)] * first + [int_ast(sympy.sympify(d)) for d in item[2]] + \
                [ast.Constant(1)] * (total - first - rank)
            out.append(ast.Call(ast.Attribute(node, "reshape", ast.Load()), [
                ast.Tuple(dims, ast.Load())], []))
    return out


def _added(printer, target, index, value):
    """``target[index] += value``; on the Array API through ``.at`` on an array that has it (a
    JAX array, which cannot be written in place)."""
    name = ast.Name(target, ast.Load())
    added = ast.AugAssign(ast.Subscript(name, index, ast.Store()), ast.Add(), value)
    if printer.backend != "array_api":
        return [added]
    at = ast.Subscript(ast.Attribute(name, "at", ast.Load()), index, ast.Load())
    return [ast.If(ast.Call(ast.Name("hasattr", ast.Load()), [name, ast.Constant("at")], []), [
        ast.Assign([ast.Name(target, ast.Store())], ast.Call(ast.Attribute(at, "add", ast.Load()),
                                                             [value], []), lineno=None)],
        [added])]

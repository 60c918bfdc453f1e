"""The Array API's scatter-add (the standard has none): ``gathered_scatter``, the adjoint of
indexing with constant index arrays by gathers (``xp.take``) in rounds over the rows picked, the
floats of ``np.add.at`` kept (``array_index_backends`` prints the rest of the index rows).
"""
import ast

from .array_backend_values import _device, like_reference
from .array_nodes import _call, dims_ast
from .program import fresh_name


def gathered_scatter(printer, target, shape, spec, value, names):
    """``np.add.at(target, spec, value)`` in the Array API, which has no scatter-add: the sums of
    the rows picked (distinct: ``_picked``) accumulated in an array of their own by gathers
    (``xp.take``), in rounds, each adding the next element of ``value`` of every row picked (its
    ``_round``-th in the order of the index, or a zero row), then put in place by one gather from
    the sums and ``target`` (every other row its own)::

        _rows = compat_numpy.reshape(compat_numpy.arange(n)[INDEX], (-1,))
        _picked, _group = compat_numpy.unique(_rows, return_inverse=True)
        _order = compat_numpy.argsort(_group, kind='stable')
        _first = compat_numpy.searchsorted(_group[_order], compat_numpy.arange(_picked.size))
        _count = compat_numpy.bincount(_group, minlength=_picked.size)
        _padded = xp.concat([xp.reshape(item, (-1, k)), xp.zeros((1, k), ...)])
        _summed = xp.take(scattered, xp.asarray(_picked, device=device(E)), axis=0)
        for _round in range(int(_count.max(initial=0))):
            _from = compat_numpy.where(_round < _count, _order[...], _rows.size)
            _summed = _summed + xp.take(_padded, xp.asarray(_from, device=device(E)), axis=0)
        # (each `xp.asarray(..., device=device(E))` an index: `_index`, `numpy_indices_on_dask`)
        _place = compat_numpy.arange(n) + _picked.size
        _place[_picked] = compat_numpy.arange(_picked.size)
        scattered = xp.take(xp.concat([_summed, scattered]), xp.asarray(_place, ...), axis=0)

    ``_rows`` numbers the elements of the indexed axes as NumPy picks them (``-1`` is the last; an
    index out of range raises NumPy's ``IndexError``), computed with NumPy from the constant
    index arrays (under ``jax.jit`` too: the sizes are static). Each row adds its values to what
    ``target`` holds there in the order of the index, as ``np.add.at`` does (the same floats);
    there are as many rounds as the most repeated row's count, each a gather of the rows picked
    (not of every row of ``target``). Several indexed axes (``L[I, J]``) are numbered together."""
    from .array_nodes import int_ast
    lead, rest = shape[:len(spec)], shape[len(spec):]

    def name(text):
        return ast.Name(text, ast.Load())

    def np_call(function, args, keywords=()):
        return ast.Call(ast.Attribute(name("compat_numpy"), function, ast.Load()), args,
                        [ast.keyword(k, v) for k, v in keywords])

    def assign(targets, value_):
        store = [ast.Name(t, ast.Store()) for t in targets]
        return ast.Assign([store[0] if len(store) == 1 else ast.Tuple(store, ast.Store())],
                          value_, lineno=None)
    rows, picked, group, order, first, count, padded, summed, round_, from_, place = (
        fresh_name(f"_{n}", names) for n in ("rows", "picked", "group", "order", "first",
                                             "count", "padded", "summed", "round", "from",
                                             "place"))
    from .array_backends_dask import flat_positions, product_ast
    cells = product_ast(lead)
    flat = ast.Tuple([ast.Constant(-1)] + [int_ast(d) for d in rest], ast.Load())
    zero = _call(printer, "np.zeros", [ast.Tuple([ast.Constant(1)] + [
        int_ast(d) for d in rest], ast.Load())], like_reference(printer))
    size, distinct_ = (ast.Attribute(name(n), "size", ast.Load()) for n in (rows, picked))

    def take(array, index):
        return _call(printer, "np.take", [array, _call(printer, "np.asarray", [index], [
            ("device", _device(printer))])], [("axis", ast.Constant(0))])
    buffer = _call(printer, "np.reshape", [name(target), flat]) if len(lead) > 1 else name(target)
    placed = take(_call(printer, "np.concatenate", [ast.List([name(summed), buffer], ast.Load())]),
                  name(place))
    if len(lead) > 1:
        placed = _call(printer, "np.reshape", [placed, dims_ast(shape)])
    taken = ast.Subscript(name(order), np_call("minimum", [ast.BinOp(name(first), ast.Add(), name(
        round_)), ast.BinOp(size, ast.Sub(), ast.Constant(1))]), ast.Load())
    return [
        assign([rows], np_call("reshape", [flat_positions(printer, lead, spec, np_call),
                                           ast.Tuple([ast.Constant(-1)], ast.Load())])),
        assign([picked, group], np_call("unique", [name(rows)], [
            ("return_inverse", ast.Constant(True))])),
        assign([order], np_call("argsort", [name(group)], [("kind", ast.Constant("stable"))])),
        assign([first], np_call("searchsorted", [ast.Subscript(name(group), name(order),
                                                               ast.Load()),
                                                 np_call("arange", [distinct_])])),
        assign([count], np_call("bincount", [name(group)], [("minlength", distinct_)])),
        assign([padded], _call(printer, "np.concatenate", [ast.List([_call(
            printer, "np.reshape", [value, flat]), zero], ast.Load())])),
        assign([summed], take(buffer, name(picked))),
        ast.For(ast.Name(round_, ast.Store()), ast.Call(name("range"), [ast.Call(name("int"), [
            ast.Call(ast.Attribute(name(count), "max", ast.Load()), [], [ast.keyword(
                "initial", ast.Constant(0))])], [])], []), [
            assign([from_], np_call("where", [ast.Compare(name(round_), [ast.Lt()], [
                name(count)]), taken, size])),
            assign([summed], ast.BinOp(name(summed), ast.Add(), take(name(padded),
                                                                      name(from_))))], []),
        assign([place], ast.BinOp(np_call("arange", [cells]), ast.Add(), distinct_)),
        ast.Assign([ast.Subscript(name(place), name(picked), ast.Store())], np_call(
            "arange", [distinct_]), lineno=None),
        assign([target], placed)]


def einsum_by_matmul(printer, subscripts, operands):
    """``np.einsum(subscripts, *operands)`` (operands printed; a number's letters are ``""``) in
    the Array API, which has no einsum: operands contracted two at a time, each pair as one
    ``xp.matmul`` of stacks of matrices where every group of letters (both and kept: the batch;
    both and summed: the contraction; one operand's kept letters) has at most one letter
    (``permute_dims`` to (batch, free, contracted) and (batch, contracted, free), a missing group
    a new axis of size 1, squeezed after), else the product broadcast over every letter and
    summed; a letter of one operand alone that no later term reads is summed first."""
    from .array_linalg import parse_subscripts
    terms, output = parse_subscripts(subscripts, len(operands))
    scale = [x for letters, x in zip(terms, operands) if not letters]
    pairs = [(letters, x) for letters, x in zip(terms, operands) if letters]
    if not pairs:
        letters, value = "", scale.pop(0)
    else:
        letters, value = pairs[0]
        later = [t for t, _ in pairs[1:]]
        letters, value = _summed(printer, letters, value, set(output).union(*later))
        for k, (other, x) in enumerate(pairs[1:], 1):
            needed = set(output).union(*[t for t, _ in pairs[k + 1:]])
            other, x = _summed(printer, other, x, needed | set(letters))
            letters, value = _pair(printer, letters, value, other, x, needed)
    value = _permuted(printer, value, letters, output)
    for x in scale:
        value = ast.BinOp(value, ast.Mult(), x)
    return value


def _summed(printer, letters, x, needed):
    """(the letters left, ``x`` summed over its letters not in ``needed``)."""
    gone = [k for k, c in enumerate(letters) if c not in needed]
    if not gone:
        return letters, x
    axis = ast.Constant(gone[0]) if len(gone) == 1 else ast.Tuple(
        [ast.Constant(k) for k in gone], ast.Load())
    return "".join(c for c in letters if c in needed), _call(printer, "np.sum", [x], [
        ("axis", axis)])


def _permuted(printer, x, letters, order):
    """``x`` (axes named by ``letters``) with its axes in ``order`` (a permutation of them)."""
    if letters == order:
        return x
    return _call(printer, "np.transpose", [x, ast.Tuple(
        [ast.Constant(letters.index(c)) for c in order], ast.Load())])


def _new_axes(x, positions, rank):
    """``x[:, None, ...]``: a new axis at each of ``positions`` of a result of rank ``rank``."""
    items = [ast.Constant(None) if k in positions else ast.Slice(None, None, None)
             for k in range(rank)]
    return ast.Subscript(x, ast.Tuple(items + [ast.Constant(Ellipsis)], ast.Load()),
                         ast.Load())


def _pair(printer, a, x, b, y, needed):
    """(the letters of the result, the product of ``x`` (letters ``a``) and ``y`` (``b``)
    summed over the letters both have that ``needed`` lacks)."""
    batch = "".join(c for c in a if c in b and c in needed)
    summed = "".join(c for c in a if c in b and c not in needed)
    left = "".join(c for c in a if c not in b)
    right = "".join(c for c in b if c not in a)
    if not a or not b:  # a 0-d factor
        return _summed(printer, a + b, ast.BinOp(x, ast.Mult(), y), needed)
    if max(len(summed), len(left), len(right)) <= 1:  # one matmul of stacks of matrices
        x = _permuted(printer, x, a, batch + left + summed)
        y = _permuted(printer, y, b, batch + summed + right)
        nb = len(batch)
        added_x = ([nb] if not left else []) + ([nb + 1] if not summed else [])
        added_y = ([nb] if not summed else []) + ([nb + 1] if not right else [])
        if added_x:
            x = _new_axes(x, added_x, nb + 2)
        if added_y:
            y = _new_axes(y, added_y, nb + 2)
        value = _call(printer, "np.matmul", [x, y])
        squeezed = ([nb] if not left else []) + ([nb + 1] if not right else [])
        if squeezed:
            value = _call(printer, "np.squeeze", [value], [("axis", ast.Tuple(
                [ast.Constant(k) for k in squeezed], ast.Load()))])
        return batch + left + right, value
    every = a + right  # broadcast over every letter, multiply, sum
    x = _new_axes(x, [k for k, c in enumerate(every) if c not in a], len(every))
    y = _permuted(printer, y, b, "".join(c for c in every if c in b))
    y = _new_axes(y, [k for k, c in enumerate(every) if c not in b], len(every))
    return _summed(printer, every, ast.BinOp(x, ast.Mult(), y), needed)


def one_hot_scatter(printer, target, shape, spec, value, names, indexed):
    """``np.add.at(target, spec, value)`` for an index the code computes (``np.argmax``,
    ``np.argsort``, ``np.arange(n)``), which the gathers of ``gathered_scatter`` cannot number
    with NumPy when the gradient is called on another library's arrays: the cells of the indexed
    axes numbered (``xp.arange``) and indexed as the primal indexes (``indexed``, the printer of
    subscripts), each element of ``value`` matched with its cell (a one-hot matrix, ``==``) and
    the sums taken by one product::

        _cells = xp.reshape(xp.arange(n * k, device=device(X)), (n, k))[order, ...]
        _onehot = xp.astype(xp.reshape(_cells, (-1,))[:, None]
                            == xp.arange(n * k, device=device(X))[None, :], X.dtype)
        scattered = xp.reshape(_onehot.T @ xp.reshape(xp.broadcast_to(g, _cells.shape + rest),
                               (-1, 1)), (n, k)) + scattered

    Every element is multiplied by 1.0 or 0.0 and summed: the sums of ``np.add.at``, added in
    another order."""
    from .array_backends_dask import product_ast
    from .array_nodes import int_ast
    lead, rest = shape[:len(spec)], shape[len(spec):]
    cells_name, onehot_name = (fresh_name(n, names) for n in ("_cells", "_onehot"))

    def name(text):
        return ast.Name(text, ast.Load())
    count = product_ast(lead)
    arange = _call(printer, "np.arange", [count], [("device", _device(printer))])
    numbered = _call(printer, "np.reshape", [arange, dims_ast(lead)])
    picked = indexed(printer, numbered, spec)
    flat = _call(printer, "np.reshape", [name(cells_name), ast.Tuple([ast.Constant(-1)],
                                                                     ast.Load())])
    column = ast.Subscript(flat, ast.Tuple([ast.Slice(), ast.Constant(None)], ast.Load()),
                           ast.Load())
    row = ast.Subscript(_call(printer, "np.arange", [product_ast(lead)], [
        ("device", _device(printer))]), ast.Tuple([ast.Constant(None), ast.Slice()], ast.Load()),
        ast.Load())
    onehot = _call(printer, "np.astype", [ast.Compare(column, [ast.Eq()], [row]),
                                          like_reference(printer)[0][1]])
    if _number_ast(value):  # `-1.0`; not `-(3.0 * xp.take(...))`, an array already (65-31)
        value = printer.new_array(value)
    rest_ast = dims_ast(rest)
    stretched = _call(printer, "np.broadcast_to", [value, ast.BinOp(ast.Attribute(
        name(cells_name), "shape", ast.Load()), ast.Add(), rest_ast)])
    columns = product_ast(rest) if rest else ast.Constant(1)
    values = _call(printer, "np.reshape", [stretched, ast.Tuple([ast.Constant(-1), columns],
                                                                ast.Load())])
    summed = ast.BinOp(ast.Attribute(name(onehot_name), "T", ast.Load()), ast.MatMult(), values)
    added = _call(printer, "np.reshape", [summed, dims_ast(shape)])
    return [ast.Assign([ast.Name(cells_name, ast.Store())], picked, lineno=None),
            ast.Assign([ast.Name(onehot_name, ast.Store())], onehot, lineno=None),
            ast.Assign([ast.Name(target, ast.Store())], ast.BinOp(name(target), ast.Add(), added),
                       lineno=None)]


def _number_ast(value):
    """Whether the printed ``value`` is a Python number (a constant, or its negation)."""
    while isinstance(value, ast.UnaryOp):
        value = value.operand
    return isinstance(value, ast.Constant)


def _converted_index(node, reference):
    """``xp.asarray(a, device=device(X))`` of the reference ``X``: a NumPy array made the
    library's (``constant``, ``take`` above, ``array_index_backends``)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "asarray" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "xp" and len(node.args) == 1
            and [k.arg for k in node.keywords] == ["device"]
            and isinstance(node.keywords[0].value, ast.Call)
            and isinstance(node.keywords[0].value.func, ast.Name)
            and node.keywords[0].value.func.id == "device"
            and [getattr(a, "id", None) for a in node.keywords[0].value.args] == [reference])


def numpy_indices_on_dask(body, reference, names):
    """The index arrays NumPy computes (``xp.take(x, xp.asarray(rows, device=device(X)))``,
    ``x[xp.asarray(I, ...), ...]``) through ``_index``, which leaves them NumPy arrays when the
    namespace is Dask's and makes them the library's otherwise::

        def _index(a):
            return a if hasattr(X, '__dask_graph__') else xp.asarray(a, device=device(X))

    (``__dask_graph__``: Dask's collection protocol; ``X`` is a Dask array when ``xp`` is
    Dask's, as the parameters are converted to ``xp``.) Dask takes NumPy index arrays as they are (no graph of the index). A Dask index array is
    named by its data: ``[0]`` got the name of the chunk-offset array Dask (2026.8) makes for a
    Dask index of a one-chunk array (``from_array(np.array([0]), chunks=1)``, its chunks then
    redeclared), and the gradient read the wrong rows (fuzz 16-27: ``[-0.7, 0.0]`` for
    ``[-0.7, 0.3]``). Returns ``(body, lines)``: ``lines`` define ``_index`` where it is used."""
    if reference is None:
        return body, []
    index = fresh_name("_index", names)
    used = []

    def call(node):
        used.append(node)
        return ast.Call(ast.Name(index, ast.Load()), node.args, [])

    class Indices(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "take" and isinstance(
                    node.func.value, ast.Name) and node.func.value.id == "xp" and len(
                    node.args) == 2 and _converted_index(node.args[1], reference):
                node.args[1] = call(node.args[1])
            return node

        def visit_Subscript(self, node):
            self.generic_visit(node)
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else None
            if items is not None:
                node.slice.elts = [call(i) if _converted_index(i, reference) else i for i in items]
            elif _converted_index(node.slice, reference):
                node.slice = call(node.slice)
            return node
    body = [Indices().visit(line) for line in body]
    if not used:
        names.discard(index)
        return body, []
    a = ast.Name("a", ast.Load())
    converted = ast.Call(ast.Attribute(ast.Name("xp", ast.Load()), "asarray", ast.Load()), [a], [
        ast.keyword("device", ast.Call(ast.Name("device", ast.Load()), [
            ast.Name(reference, ast.Load())], []))])
    dask = ast.Call(ast.Name("hasattr", ast.Load()), [ast.Name(reference, ast.Load()),
                                                     ast.Constant("__dask_graph__")], [])
    define = ast.FunctionDef(
        name=index, args=ast.arguments(posonlyargs=[], args=[ast.arg("a")], vararg=None,
                                       kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[ast.Return(ast.IfExp(dask, a, converted))], decorator_list=[], returns=None,
        type_params=[], lineno=None)
    return body, [define]

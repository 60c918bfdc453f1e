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

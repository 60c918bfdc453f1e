"""The lazy specialisation's column of the index rows (numpy backend called with Dask arrays,
``printer.lazy``): what NumPy's form of a subscript and of its adjoint becomes where Dask has no
such operation, so that the gradient stays a lazy graph (``array_backends.PRINTERS`` sends the
numpy column here when the printer is lazy).

- *pointwise indexing* (several index arrays together, ``X[MASK2D]``, ``A[steps, steps]`` of
  ``np.trace``/``np.diag``, ``L[np.triu_indices(n)]``, or one index array of rank 2): Dask's
  ``x[...]`` takes one 1-D index array; its ``x.vindex[...]`` takes the rest, putting the
  broadcast axes first (NumPy puts them where the arrays stand when they are next to each other:
  an ``np.moveaxis`` then). A NumPy array has no ``vindex``, and the lazy code takes NumPy arrays
  too: ``X.vindex[I, J] if hasattr(X, 'vindex') else X[I, J]``;
- *scatter-adds* (``np.add.at``, and a store through several index arrays, which Dask's
  ``__setitem__`` does not take): summed per element by ``np.bincount`` (chunk by chunk) and
  added once to the distinct elements (``bincount_statements``), or, indices known to be
  distinct, stored through the flat positions;
- *an index the code computes from the data* (``np.argmax(stop_gradient(x))``, a Dask value):
  a 0-d one scatters as a one-hot ``np.where(np.arange(n) == position, g, 0.0)``, an index array
  along one axis (``np.argmax(..., axis=1)``) by ``np.bincount`` over the whole axis; Dask cannot
  index pointwise with one (``vindex`` takes no Dask index) nor sort (``np.sort``,
  ``np.argsort``): those are refused (``OptionError``), naming the construct and what has it;
- *a transposed NumPy constant*: a copy (``transpose``), which Dask names apart from the constant.
"""
import ast

import sympy

from .array_indexing import (_advanced, _index_print, distinct, index_adjoint_statements,
                             index_item_ast, indexed_shape, spec_ast, together)
from .array_nodes import _call, dims_ast, int_ast
from .errors import OptionError
from .program import fresh_name

ELSEWHERE = "backend 'numpy' with NumPy arrays, 'jax' and 'torch' have it"


def data_indices(program, nodes=None):
    """The names of the index values ``program`` computes from the data (``np.argmax``,
    ``np.argmin``, ``np.argsort``, and ``stop_gradient`` of one): Dask arrays in lazy code, where
    an index array of the sizes (``np.arange(n)``, ``np.triu_indices(n)``) is a NumPy array.
    ``nodes``: the names bound to those rows instead (``index_names``)."""
    from .array_values import ARGMAX, ARGMIN, ARGSORT
    return set().union(*index_names(program, nodes or (ARGMAX, ARGMIN, ARGSORT)).values())


def index_names(program, rows):
    """{row: the names bound to a node of it, to ``stop_gradient`` of one or to such a name}
    for each of ``rows``, in one walk of the assignments (``(TRI_INDICES, ARANGE)``: the Array
    API's NumPy triangle indices and aranges, ``array_index_backends._triangle`` and
    ``emit.index_aranges``)."""
    from .functions import StopGradient
    kinds = [(rule.node, rule) for rule in rows]
    found = {}  # a target symbol -> its row
    for a in program.assignments:
        expr = getattr(a, "expr", None)
        if isinstance(expr, StopGradient):
            expr = expr.args[0]
        rule = next((r for kind, r in kinds if isinstance(expr, kind)), None) or found.get(expr)
        if rule is not None:
            found[a.target] = rule
    return {rule: {s.name for s, r in found.items() if r is rule} for rule in rows}


def pointwise(spec):
    """Whether ``x[spec]`` is indexing Dask's ``x[...]`` does not take: several index arrays
    (pointwise, broadcast together) or one of rank 2 or more."""
    arrays = [item for item in spec if item[0] == "array"]
    return len(arrays) > 1 or any(len(item[2]) > 1 for item in arrays)


def _from_data(printer, spec):
    """The entries of ``spec`` the code computes from the data: a call-time index (``("at",
    i)``, a 0-d ``np.argmax``) and the index arrays of ``data_indices``."""
    names = getattr(printer, "data_indices", ())
    return [item for item in spec if item[0] == "at" or item[0] == "array" and isinstance(
        item[1], sympy.Symbol) and item[1].name in names]


def _refuse(what):
    raise OptionError(f"{what} cannot be printed for Dask arrays (the lazy specialisation of "
                      f"backend 'numpy'): {ELSEWHERE}; or compute the index first "
                      "(`.compute()`) and pass NumPy arrays")


def _check_indices(printer, spec):
    data = _from_data(printer, spec)
    arrays = [item for item in spec if item[0] == "array"]
    if data and (pointwise(spec) or arrays and any(item[0] == "at" for item in spec)):
        _refuse("indexing with an index the code computes from the data (np.argmax, np.argmin) "
                "together with other index arrays (Dask's pointwise `vindex` takes no Dask "
                "index)")


# --- gathers -------------------------------------------------------------------------------------
def gather(printer, node):
    """``x[spec]`` in lazy code: NumPy's form, or for pointwise indexing a marker that ``emit``
    expands into ``item = X.vindex[...] if hasattr(X, 'vindex') else X[...]``."""
    spec = node.params
    _check_indices(printer, spec)
    if not pointwise(spec):
        return _index_print(printer, node) if together(spec) else _in_two_steps(printer, node)
    marker = ast.Call(ast.Name("__pointwise_gather__", ast.Load()), [], [])
    marker.symgrad_statements = lambda target, names: _vindexed(printer, target, node, names)
    marker.symgrad_takes_names = True
    return marker


def _in_two_steps(printer, node):
    """``x[0, :, INDEX]`` (an int and an index array not next to each other: NumPy puts the
    array's axis first, Dask where it stands, its values transposed) as ``np.moveaxis(x[0, :,
    :][:, INDEX], 1, 0)``: the ints and slices, then the index array alone, which both libraries
    keep where it stands, moved first as NumPy does."""
    full = ("slice", None, None, None)

    def trimmed(items):
        items = list(items)
        while items and items[-1] == full:
            items.pop()
        return tuple(items) or (full,)
    spec = node.params
    basic = trimmed(full if item[0] == "array" else item for item in spec)
    rest = [full if item[0] == "slice" else item for item in spec if item[0] != "int"]
    at = next(k for k, item in enumerate(rest) if item[0] == "array")
    picked = ast.Subscript(ast.Subscript(printer.node(node.inputs[0]), spec_ast(basic),
                                         ast.Load()), spec_ast(trimmed(rest)), ast.Load())
    return _call(printer, "np.moveaxis", [picked, ast.Constant(at), ast.Constant(0)])


def _vindexed(printer, target, node, names):
    spec = node.params
    x = printer.node(node.inputs[0])
    body = []
    if not isinstance(x, ast.Name):  # named once: read by the test and by one branch
        name = fresh_name("_indexed", names)
        body.append(ast.Assign([ast.Name(name, ast.Store())], x, lineno=None))
        x = ast.Name(name, ast.Load())
    index = spec_ast(spec)
    picked = ast.Subscript(ast.Attribute(x, "vindex", ast.Load()), index, ast.Load())
    advanced = _advanced(spec)
    if advanced == list(range(advanced[0], advanced[-1] + 1)) and advanced[0] > 0:
        # NumPy keeps the index arrays' axes where they stand (after the slices before them);
        # vindex puts them first
        rank = len(next(item[2] for item in spec if item[0] == "array"))

        def axes(start):
            values = [ast.Constant(k) for k in range(start, start + rank)]
            return values[0] if rank == 1 else ast.Tuple(values, ast.Load())
        picked = _call(printer, "np.moveaxis", [picked, axes(0), axes(advanced[0])])
    test = ast.Call(ast.Name("hasattr", ast.Load()), [x, ast.Constant("vindex")], [])
    body.append(ast.Assign([ast.Name(target, ast.Store())], ast.IfExp(
        test, picked, ast.Subscript(x, index, ast.Load())), lineno=None))
    return body


# --- scatters ------------------------------------------------------------------------------------
def index_adjoint(printer, node):
    """The index adjoint in lazy code: ``index_adjoint_statements`` with the pieces Dask cannot
    add as NumPy does (``scatter``) added by bincount, a flat store or a one-hot."""
    marker = ast.Call(ast.Name("__index_adjoint__", ast.Load()), [], [])
    marker.symgrad_statements = lambda target, names: index_adjoint_statements(
        printer, target, node, names, scatter=_scatter)
    marker.symgrad_takes_names = True
    return marker


def _scatter(printer, target, shape, spec, value, names, stretched):
    """The statements adding ``value`` (the ``ast`` of a value of ``x[spec]``'s shape, or one
    broadcast to it: ``stretched``) into ``target`` at ``spec``, or None where ``target[spec] +=
    value`` runs on Dask (slices, ints, one index array picking each element at most once)."""
    _check_indices(printer, spec)
    data = _from_data(printer, spec)
    arrays = [item for item in spec if item[0] == "array"]
    if data and not arrays:
        return _one_hot(printer, target, shape, spec, value, names)
    if data:
        if len(spec) != 1:
            _refuse("the adjoint of indexing with an index array the code computes from the data "
                    "(np.argmax(..., axis=)) beside slices or ints")
        return bincount_statements(printer, target, shape, spec, value, names, stretched,
                                   whole=True)
    if not arrays or distinct(spec, printer.constants) and not pointwise(spec):
        return _stored(printer, target, shape, spec, value, stretched)
    return bincount_statements(printer, target, shape, spec, value, names, stretched,
                               once=distinct(spec, printer.constants))


def _one_hot(printer, target, shape, spec, value, names):
    """``target[spec] += value`` where ``spec`` holds call-time indices (``("at", p)``: a 0-d
    Dask array, which Dask's ``__setitem__`` does not take): each such axis taken whole, the
    value placed along it by ``np.where(np.arange(n) == p, ...)`` (the value where picked, 0.0
    elsewhere: the floats of the store)::

        scattered += np.where(np.reshape(np.arange(n) == position, (-1, 1)), item, 0.0)
    """
    kept = []  # the spec with each call-time index as a whole axis
    condition, placed = None, value
    out = 0  # the axis of the result each entry gives
    axes = []
    for k, item in enumerate(spec):
        if item[0] == "at":
            kept.append(("slice", None, None, None))
            axes.append((k, out))
            out += 1
        else:
            kept.append(item)
            out += item[0] == "slice"
    rank = out + len(shape) - len(spec)
    if any(at > 0 for _, at in axes) and not isinstance(value, ast.Constant):
        for _, at in axes:  # the value's axes after it move one right: a new axis in its place
            placed = _call(printer, "np.expand_dims", [placed, ast.Constant(at)])
    for k, at in axes:
        hit = ast.Compare(_call(printer, "np.arange", [int_ast(shape[k])]), [ast.Eq()], [
            ast.Name(spec[k][1].name, ast.Load())])
        if rank - at > 1:
            hit = _call(printer, "np.reshape", [hit, ast.Tuple(
                [ast.Constant(-1)] + [ast.Constant(1)] * (rank - at - 1), ast.Load())])
        condition = hit if condition is None else ast.BinOp(condition, ast.BitAnd(), hit)
    added = _call(printer, "np.where", [condition, placed, ast.Constant(0.0)])
    name = ast.Name(target, ast.Load())
    if all(item == ("slice", None, None, None) for item in kept):  # the whole buffer: a new
        # array (the buffer may be a NumPy one, which cannot take a Dask value in place)
        return [ast.Assign([ast.Name(target, ast.Store())], ast.BinOp(name, ast.Add(), added),
                           lineno=None)]
    return _stored(printer, target, shape, tuple(kept), added) or [ast.AugAssign(
        ast.Subscript(name, spec_ast(tuple(kept)), ast.Store()), ast.Add(), added)]


def _mixed(spec):
    """Whether Dask's ``__setitem__`` (2026.8) stores ``z[spec] += v`` wrongly: an int index
    with a slice of negative step (``z[0, ::-1] = v``: an ``IndexError``; ``z[0, ::-2, 1:] = v``
    puts ``v`` in the wrong places), or with an index array (``z[1, INDEX] = v``: a
    ``TypeError``). Its stores of slices and one index array alone are NumPy's."""
    return any(item[0] == "int" for item in spec) and any(
        item[0] == "array" or item[0] == "slice" and item[3] is not None and item[3] < 0
        for item in spec)


def _stored(printer, target, shape, spec, value, stretched=False):
    """``target[spec] += value`` for a spec ``_mixed`` finds, else None (NumPy's form runs): each
    int a slice of one element (``z[0:1, ::-1]``, ``z[-1:, INDEX]``), the value given that axis
    (``np.expand_dims``), after its index array's axis is moved from the front, where NumPy puts
    it when the int and the array are not next to each other (``x[0, :, INDEX]``), to where it
    stands. A number is stored as it is (it broadcasts)."""
    if not _mixed(spec):
        return None
    kept, ints, array_at, out = [], [], None, 0
    for item in spec:
        if item[0] == "int":
            k = item[1]
            last = not isinstance(k, sympy.Basic) and k == -1
            kept.append(("slice", k, None if last else k + 1, None))
            ints.append(out)
        else:
            kept.append(item)
            if item[0] == "array":
                array_at = out - len(ints)
        out += 1
    if not isinstance(value, ast.Constant):
        if stretched:
            value = _call(printer, "np.broadcast_to", [value, dims_ast(indexed_shape(shape,
                                                                                   spec))])
        if array_at and not together(spec):
            value = _call(printer, "np.moveaxis", [value, ast.Constant(0),
                                                   ast.Constant(array_at)])
        value = _call(printer, "np.expand_dims", [value, ast.Constant(ints[0]) if len(ints) == 1
                                                  else ast.Tuple([ast.Constant(k) for k in ints],
                                                                 ast.Load())])
    return [ast.AugAssign(ast.Subscript(ast.Name(target, ast.Load()), spec_ast(tuple(kept)),
                                        ast.Store()), ast.Add(), value)]


def product_ast(dims):
    """The product of sizes (SymPy sizes, or the ``ast`` of each) as Python arithmetic, one factor
    each (``n * n``: SymPy's ``n**2`` has no printed size)."""
    nodes = [d if isinstance(d, ast.AST) else int_ast(d) for d in dims
             if isinstance(d, ast.AST) or d != 1] or [ast.Constant(1)]
    node = nodes[0]
    for d in nodes[1:]:
        node = ast.BinOp(node, ast.Mult(), d)
    return node


def flat_positions(printer, lead, spec, call=None):
    """The ``ast`` of the positions ``spec`` picks in an array of shape ``lead`` (SymPy sizes or
    the ``ast`` of each) numbered in C order, as NumPy picks them (``-1`` the last; an index out
    of range raises NumPy's ``IndexError``, as the primal does): ``np.arange(n)[INDEX]`` for one
    axis, ``np.reshape(np.arange(6), (2, 3))[MASK_rows, MASK_columns]`` for sizes known when the
    gradient is built; else a sum per axis of its index times its stride, each read through a broadcast
    view of ``np.arange`` (no array of every position)::

        np.broadcast_to(np.reshape(np.arange(n) * d, (-1, 1)), (n, d))[steps, steps]
            + np.broadcast_to(np.arange(d), (n, d))[steps, steps]

    ``call(function, args, keywords)`` prints a NumPy call (``compat_numpy.`` on the Array API;
    ``np.`` by default)."""
    if call is None:
        def call(function, args, keywords=()):
            return _call(printer, f"np.{function}", args, keywords)
    index = spec_ast(spec)
    if len(lead) > 1 and all(isinstance(d, sympy.Integer) for d in lead):  # sizes known: few
        return ast.Subscript(call("reshape", [call("arange", [product_ast(lead)]), dims_ast(
            lead)]), index, ast.Load())
    lead = [d if isinstance(d, ast.AST) else int_ast(d) for d in lead]
    if len(lead) == 1:
        return ast.Subscript(call("arange", lead), index, ast.Load())
    terms = []
    for k, size in enumerate(lead):
        stride = [d for d in lead[k + 1:] if not (isinstance(d, ast.Constant) and d.value == 1)]
        steps = call("arange", [size])
        if stride:
            steps = ast.BinOp(steps, ast.Mult(), product_ast(stride))
        if k < len(lead) - 1:
            steps = call("reshape", [steps, ast.Tuple([ast.Constant(-1)] + [ast.Constant(1)] * (
                len(lead) - k - 1), ast.Load())])
        terms.append(ast.Subscript(call("broadcast_to", [steps, ast.Tuple(lead, ast.Load())]),
                                   index, ast.Load()))
    total = terms[0]
    for term in terms[1:]:
        total = ast.BinOp(total, ast.Add(), term)
    return total


def bincount_statements(printer, target, shape, spec, value, names, stretched=False,
                        once=False, whole=False):
    """``np.add.at(target, spec, value)`` for lazy code, where Dask has no ``np.add.at``: the
    elements of ``value`` (an ``ast`` of the shape of ``x[spec]``) summed per element of ``target``
    they add to by ``np.bincount``, which Dask computes chunk by chunk (a sum per chunk, then of
    the chunks), and added to the distinct elements once, which Dask stores lazily::

        _rows = np.arange(n)[INDEX]
        _picked, _group = np.unique(_rows, return_inverse=True)
        _weights = np.ravel(item)
        _summed = np.bincount(np.zeros_like(_weights, dtype=int)
            + np.ravel(np.reshape(_group, (-1, 1)) * k + np.arange(k)), weights=_weights,
            minlength=_picked.size * k)
        scattered[_picked] += np.reshape(_summed, (-1, k))

    ``_rows`` numbers the elements of the indexed axes as NumPy picks them (``flat_positions``);
    the bins are made an array of ``_weights``' library and chunks (``np.bincount`` of Dask needs
    both). Several indexed axes (``L[I, J]``) are numbered together, ``target`` reshaped to them
    as one. ``once``: the elements are picked at most once (constant indices, ``distinct``):
    stored through ``_rows`` with no sum. ``whole``: the index is a Dask array the code computes
    (``np.argmax(..., axis=1)``, of one axis, in range by construction), whose distinct values
    are not known: the sums cover the whole axis, ``target = target + ...``. ``stretched``: the
    value broadcast to ``x[spec]``'s shape first (``_rows``' shape and the axes after the indexed
    ones)."""
    lead, rest = shape[:len(spec)], shape[len(spec):]

    def name(text):
        return ast.Name(text, ast.Load())

    def call(function, args, keywords=()):
        return _call(printer, function, args, keywords)

    def assign(text, value_):
        return ast.Assign([ast.Name(text, ast.Store())], value_, lineno=None)

    def spread(group):  # each element's bin, times the elements after the indexed axes
        if not rest:
            return call("np.ravel", [group])
        return call("np.ravel", [ast.BinOp(ast.BinOp(call("np.reshape", [group, ast.Tuple(
            [ast.Constant(-1), ast.Constant(1)], ast.Load())]), ast.Mult(), product_ast(rest)),
            ast.Add(), call("np.arange", [product_ast(rest)]))])

    def restored(summed):
        return call("np.reshape", [summed, ast.Tuple([ast.Constant(-1)] + [
            int_ast(d) for d in rest], ast.Load())]) if rest else summed
    rows, picked, group, weights, summed, bins = (fresh_name(f"_{n}", names) for n in (
        "rows", "picked", "group", "weights", "summed", "bins"))

    def full(picks):  # the value at x[spec]'s shape
        if not stretched:
            return value
        dims = ast.BinOp(call("np.shape", [picks]), ast.Add(), ast.Tuple(
            [int_ast(d) for d in rest], ast.Load())) if rest else call("np.shape", [picks])
        return call("np.broadcast_to", [value, dims])
    if whole:
        (item,) = spec
        body = [assign(f"{bins}, {weights}", call("np.broadcast_arrays", [
                    spread(index_item_ast(item)), call("np.ravel", [full(index_item_ast(item))])])),
                assign(summed, call("np.bincount", [name(bins)], [
                    ("weights", name(weights)), ("minlength", product_ast(shape))])),
                assign(target, ast.BinOp(name(target), ast.Add(), call(
                    "np.reshape", [name(summed), dims_ast(shape)])))]
        body[0].targets = [ast.Tuple([ast.Name(bins, ast.Store()),
                                      ast.Name(weights, ast.Store())], ast.Store())]
        return body
    body = [assign(rows, flat_positions(printer, lead, spec))]
    if once:
        added, picked = call("np.reshape", [full(name(rows)), ast.Tuple(
            [ast.Constant(-1)] + [int_ast(d) for d in rest], ast.Load())]), call(
            "np.ravel", [name(rows)])
    else:
        count = ast.Attribute(name(picked), "size", ast.Load())
        if rest:
            count = ast.BinOp(count, ast.Mult(), product_ast(rest))
        zeros = call("np.zeros_like", [name(weights)], [("dtype", name("int"))])
        body += [assign(f"{picked}, {group}", call("np.unique", [name(rows)], [
                     ("return_inverse", ast.Constant(True))])),
                 assign(weights, call("np.ravel", [full(name(rows))])),
                 assign(summed, call("np.bincount", [ast.BinOp(zeros, ast.Add(), spread(
                     name(group)))], [("weights", name(weights)), ("minlength", count)]))]
        body[1].targets = [ast.Tuple([ast.Name(picked, ast.Store()),
                                      ast.Name(group, ast.Store())], ast.Store())]
        added, picked = restored(name(summed)), name(picked)
    flat = len(lead) > 1
    if flat:
        body.append(assign(target, call("np.reshape", [name(target), ast.Tuple(
            [product_ast(lead)] + [int_ast(d) for d in rest], ast.Load())])))
    body.append(ast.AugAssign(ast.Subscript(name(target), picked, ast.Store()), ast.Add(), added))
    if flat:
        body.append(assign(target, call("np.reshape", [name(target), dims_ast(shape)])))
    return body


# --- transposed NumPy constants -------------------------------------------------------------
def transpose(printer, node):
    """``Z.T`` of a NumPy constant (or of a value computed from constants only) in lazy code, as a
    copy, ``np.ascontiguousarray(Z.T)``: Dask (2026.8) names a NumPy operand by its bytes in
    memory order and its shape, so a square ``Z`` and its view ``Z.T`` get one name, and in a graph
    holding ``X * Z``, ``X * transposed`` read ``Z``'s values (a gradient 2.76 off); the copy's
    bytes are in its own order. Another value's transpose is the row's own (``X.T``)."""
    value = node.rule.numpy(printer, node)
    names = {s.name for s in node.inputs[0].free_symbols}
    if names and names <= set(printer.constants):
        return _call(printer, "np.ascontiguousarray", [value])
    return value


# --- value-only rows Dask has not --------------------------------------------------------------
def unsorted(spelling):
    """The lazy column of ``np.sort``/``np.argsort``: Dask has no sort (NumPy's function on a Dask
    array computes it whole, with a warning): refused, with what has it."""
    def print_(printer, node):
        raise OptionError(f"{spelling} cannot be printed for Dask arrays (the lazy specialisation "
                          f"of backend 'numpy'): Dask has no sort; {ELSEWHERE}; or call the "
                          "gradient with NumPy arrays")
    return print_

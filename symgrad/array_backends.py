"""The array table's backend columns: how an array node prints for JAX, PyTorch and the Array API
where the row's NumPy printer (``array_ops``, ``array_linalg``), with NumPy's names spelled for the
library (``backends.Backend.spelling``), is not right there.

``PRINTERS`` maps (row name, backend) to a printer ``(printer, node) -> ast``; a row without an
entry prints through its ``numpy`` column. The differences:

- new arrays (zero buffers, constant results, ``np.eye``) take the dtype and device of the
  reference parameter (``printer.reference``), never the library's default (float32 in PyTorch);
- JAX arrays are immutable: an index adjoint is ``z = z.at[i].add(g)``; PyTorch adds in place,
  ``index_put_(..., accumulate=True)`` for an index array; the Array API writes slices in place
  and uses ``.at`` on a JAX array, and has no scatter-add for an index array (refused);
- results are arrays of the backend (a 0-d array for a scalar parameter, not a Python float,
  which ``jax.jit`` could not trace);
- PyTorch: ``amax``/``amin``, ``prod`` over one axis, ``permute``, ``torch.flip`` for a reversed
  slice; the Array API: reductions as functions (``xp.sum(x, axis=...)``: its arrays have no
  such methods), ``permute_dims``, ``concat``, ``cumulative_sum``, no ``einsum`` (refused).
"""
import ast

import sympy

from .array_nodes import _axis_ast, _call, dims_ast
from .errors import OptionError

# --- helpers every backend column uses ----------------------------------------------------------
def _reference(printer, attribute):
    return ast.Attribute(ast.Name(printer.reference, ast.Load()), attribute, ast.Load())


def _device(printer):
    """The reference parameter's device (``device(x)`` of ``array_api_compat`` for the Array API)."""
    if printer.backend == "array_api":
        return ast.Call(ast.Name("device", ast.Load()), [ast.Name(printer.reference, ast.Load())],
                        [])
    return _reference(printer, "device")


def like_reference(printer):
    """``dtype=x.dtype`` (and ``device=...`` for PyTorch and the Array API) keywords."""
    if printer.reference is None or printer.backend in ("numpy", "math"):
        return []
    keywords = [("dtype", _reference(printer, "dtype"))]
    if printer.backend in ("torch", "array_api"):
        keywords.append(("device", _device(printer)))
    return keywords


def full(printer, shape, value):
    """``np.full(shape, value)`` (``shape`` and ``value`` printed) as an array of the reference
    parameter's dtype and device."""
    return _call(printer, "np.full", [shape, value], like_reference(printer))


def zeros(printer, shape):
    return _call(printer, "np.zeros", [shape], like_reference(printer))


def constant(printer, name):
    """A constant array of the namespace (a NumPy array) where the code reads it, as an array of
    the backend: a float array takes the reference parameter's dtype (float32 data stays
    float32), and PyTorch and the Array API put it on the reference parameter's device."""
    value = printer.constants.get(name)
    keywords = []
    if printer.reference is not None and getattr(value, "dtype", None) is not None and \
            value.dtype.kind == "f":
        keywords.append(("dtype", _reference(printer, "dtype")))
    if printer.reference is not None and printer.backend != "jax":
        keywords.append(("device", _device(printer)))
    if printer.backend == "jax" and not keywords:
        return ast.Name(name, ast.Load())  # an index array: jnp indexes with NumPy arrays
    spelling = "torch.as_tensor" if printer.backend == "torch" else "np.asarray"
    return _call(printer, spelling, [ast.Name(name, ast.Load())], keywords)


def broadcast_shape(printer, names):
    """The broadcast shape of the parameters ``names`` (already arrays of the backend)."""
    shapes = [ast.Attribute(ast.Name(n, ast.Load()), "shape", ast.Load()) for n in names]
    if len(shapes) == 1:
        return shapes[0]
    if printer.backend == "array_api":
        arrays = _call(printer, "np.broadcast_arrays", [ast.Name(n, ast.Load()) for n in names])
        return ast.Attribute(ast.Subscript(arrays, ast.Constant(0), ast.Load()), "shape",
                             ast.Load())
    return _call(printer, "np.broadcast_shapes", shapes)


def refuse(printer, what, hint):
    raise OptionError(f"{what} cannot be printed for backend {printer.backend!r}: {hint}")


# --- rows ------------------------------------------------------------------------------------
def _reduction(spelling, method):
    """Reductions: ``x.sum(axis=..., keepdims=True)`` on JAX; PyTorch's ``amax``/``amin`` (its
    ``max`` returns indices too) and ``prod`` of one axis at a time (``x.prod(axis=2).prod(axis=0)``:
    the same product, multiplied in another order); ``xp.sum(x, ...)`` for the Array API."""
    def print_(printer, node):
        axes, keepdims, rank = node.params
        keywords = []
        if tuple(axes) != tuple(range(rank)) or keepdims:
            keywords.append(("axis", _axis_ast(axes)))
        if keepdims:
            keywords.append(("keepdims", ast.Constant(True)))
        x = printer.node(node.inputs[0])
        if printer.backend == "torch":
            if method == "prod" and keywords and len(axes) > 1:  # one axis at a time, last first
                for axis in sorted(axes, reverse=True):
                    x = ast.Call(ast.Attribute(x, "prod", ast.Load()), [], [
                        ast.keyword("axis", ast.Constant(axis))] + (
                        [ast.keyword("keepdims", ast.Constant(True))] if keepdims else []))
                return x
            name = {"max": "amax", "min": "amin"}.get(method, method)
            return ast.Call(ast.Attribute(x, name, ast.Load()), [],
                            [ast.keyword(k, v) for k, v in keywords])
        if printer.backend == "array_api":
            return _call(printer, spelling, [x], keywords)
        return ast.Call(ast.Attribute(x, method, ast.Load()), [],
                        [ast.keyword(k, v) for k, v in keywords])
    return print_


def _transpose(printer, node):
    """``x.T`` for a matrix; ``permute`` / ``permute_dims`` for other ranks (``.T`` of other ranks
    is deprecated in PyTorch and not in the Array API)."""
    (perm,) = node.params
    x = printer.node(node.inputs[0])
    if len(perm) == 2 and perm == (1, 0):
        return ast.Attribute(x, "T", ast.Load())
    return _call(printer, "np.transpose", [x, ast.Tuple([ast.Constant(k) for k in perm],
                                                        ast.Load())])


def _index_items(printer, spec):
    from .array_indexing import index_item_ast
    items = []
    for item in spec:
        node = index_item_ast(item)
        if item[0] == "array" and printer.backend in ("torch", "array_api") and not isinstance(
                item[1], sympy.Symbol):  # a constant index array (one the code computes is one)
            node = constant(printer, item[1]) if item[1] is not None else _call(
                printer, "torch.as_tensor" if printer.backend == "torch" else "np.asarray",
                [node], [] if printer.reference is None else [("device", _device(printer))])
        items.append(node)
    if printer.backend == "array_api":  # the standard indexes every axis: `x[1:, ...]`
        items.append(ast.Constant(Ellipsis))
    return items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())


_ALL = ("slice", None, None, None)


def _flips(printer, spec):
    """(the axes a spec reverses, the spec with them taken whole): PyTorch has no negative slice
    steps (nor the Array API on PyTorch), so ``x[::-1]`` is ``flip(x, (0,))``; another negative
    step is refused."""
    flipped = tuple(k for k, item in enumerate(spec) if item[0] == "slice" and item[3] is not None
                    and item[3] < 0)
    if any(spec[k][1:] != (None, None, -1) for k in flipped):
        refuse(printer, "a slice with a negative step other than [::-1]",
               "PyTorch has no negative slice steps; use backend 'numpy' or 'jax'")
    return flipped, tuple(_ALL if k in flipped else item for k, item in enumerate(spec))


def _flip(printer, value, axes):
    return _call(printer, "np.flip", [value], [("axis", ast.Tuple(
        [ast.Constant(k) for k in axes], ast.Load()))]) if printer.backend == "array_api" else \
        _call(printer, "torch.flip", [value, ast.Tuple([ast.Constant(k) for k in axes],
                                                       ast.Load())])


def _flipping_index(printer, node):
    """Indexing, with a reversed axis (``x[::-1]``) as a ``flip``."""
    x = printer.node(node.inputs[0])
    flipped, spec = _flips(printer, node.params)
    if flipped:
        x = _flip(printer, x, flipped)
        if all(item == _ALL for item in spec):
            return x
    return ast.Subscript(x, _index_items(printer, spec), ast.Load())


def _array_index(printer, node):
    return ast.Subscript(printer.node(node.inputs[0]), _index_items(printer, node.params),
                         ast.Load())


def _index_adjoint(printer, node):
    marker = ast.Call(ast.Name("__index_adjoint__", ast.Load()), [], [])
    marker.symgrad_statements = lambda target: _index_adjoint_statements(printer, target, node)
    return marker


def _index_adjoint_statements(printer, target, node):
    """``z = zeros(shape)`` and one addition per piece: ``z = z.at[i].add(g)`` (JAX), ``z[i] += g``
    or ``z.index_put_((i,), g, accumulate=True)`` (PyTorch); the Array API adds a slice in place,
    or through ``.at`` on an array that has it (a JAX array)."""
    from .array_indexing import _unstretched
    shape, specs = node.params
    if printer.backend == "jax" and all(_padded(spec) for spec in specs):
        terms = [_pad(printer, g, spec, shape) for g, spec in zip(node.inputs, specs)]
        value = terms[0]
        for term in terms[1:]:
            value = ast.BinOp(value, ast.Add(), term)
        return [ast.Assign([ast.Name(target, ast.Store())], value, lineno=None)]
    name = ast.Name(target, ast.Load())
    body = [ast.Assign([ast.Name(target, ast.Store())], zeros(printer, dims_ast(shape)),
                       lineno=None)]
    for g, spec in zip(node.inputs, specs):
        value = printer.node(_unstretched(g))
        if _unstretched(g).is_number and printer.backend == "torch":  # index_put_ takes tensors
            value = printer.new_array(value)
        arrays = [item for item in spec if item[0] in ("array", "at")]
        if printer.backend in ("torch", "array_api"):
            flipped, plain = _flips(printer, spec)
            if flipped:  # z[::-1] += g is z += flip(g): the value at its full shape
                if arrays:
                    refuse(printer, "a reversed slice with an index array", "index in two steps")
                axes = [sum(1 for item in spec[:k] if item[0] != "int") for k in flipped]
                value, spec = _flip(printer, printer.node(g), axes), plain
        index = _index_items(printer, spec)
        if printer.backend == "jax":
            at = ast.Subscript(ast.Attribute(name, "at", ast.Load()), index, ast.Load())
            body.append(ast.Assign([ast.Name(target, ast.Store())], ast.Call(
                ast.Attribute(at, "add", ast.Load()), [value], []), lineno=None))
        elif arrays and printer.backend == "torch" and len(arrays) == 1 and all(
                item[0] in ("slice", "int") for item in spec if item[0] not in ("array", "at")):
            # X[:, INDEX], X[INDEX, 1:]: index_add_ into the view the slices and ints select
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
            if any(item[0] == "slice" for item in spec):
                refuse(printer, "the adjoint of indexing with index arrays and a slice",
                       "torch's index_put_ takes index arrays and ints only: use backend "
                       "'numpy' or 'jax'")
            items = index.elts if isinstance(index, ast.Tuple) else [index]
            items = [_call(printer, "torch.as_tensor", [i], [("device", _device(printer))])
                     if isinstance(i, (ast.Constant, ast.UnaryOp)) else i for i in items]
            body.append(ast.Expr(ast.Call(ast.Attribute(name, "index_put_", ast.Load()), [
                ast.Tuple(items, ast.Load()), value], [ast.keyword("accumulate",
                                                                    ast.Constant(True))])))
        elif arrays:
            refuse(printer, "the adjoint of indexing with an integer array (a scatter-add, "
                   "np.add.at)", "the Array API standard has no scatter-add; backends 'numpy', "
                   "'jax' and 'torch' have it")
        elif printer.backend == "array_api":
            at = ast.Subscript(ast.Attribute(name, "at", ast.Load()), index, ast.Load())
            body.append(ast.If(ast.Call(ast.Name("hasattr", ast.Load()), [
                name, ast.Constant("at")], []), [ast.Assign([ast.Name(target, ast.Store())],
                                                            ast.Call(ast.Attribute(
                                                                at, "add", ast.Load()),
                                                                [value], []), lineno=None)],
                [ast.AugAssign(ast.Subscript(name, index, ast.Store()), ast.Add(), value)]))
        else:
            body.append(ast.AugAssign(ast.Subscript(name, index, ast.Store()), ast.Add(), value))
    return body


def _padded(spec):
    """Whether the adjoint of ``x[spec]`` is a padding of the cotangent: slices of step 1."""
    return all(item[0] == "slice" and item[3] in (None, 1) for item in spec)


def _pad(printer, g, spec, shape):
    """The adjoint of ``x[a:b]`` on JAX: ``jnp.pad(g, (a, n - b))``, the cotangent put back in
    place by padding with zeros (as ``jax.grad`` does: 2.5x faster than ``.at[a:b].add`` on a zero
    buffer under XLA)."""
    import sympy

    from .array_nodes import int_ast
    widths = []
    for k, dim in enumerate(shape):
        if k >= len(spec):
            widths.append((sympy.Integer(0), sympy.Integer(0)))
            continue
        _, start, stop, _ = spec[k]
        low = sympy.Integer(0) if start is None else dim + start if (
            not isinstance(start, sympy.Basic) and start < 0) else sympy.sympify(start)
        high = sympy.Integer(0) if stop is None else sympy.Integer(-stop) if (
            not isinstance(stop, sympy.Basic) and stop < 0) else dim - stop
        widths.append((low, high))
    pairs = [ast.Tuple([int_ast(sympy.sympify(a)), int_ast(sympy.sympify(b))], ast.Load())
             for a, b in widths]
    width = pairs[0] if len(pairs) == 1 else ast.Tuple(pairs, ast.Load())
    return _call(printer, "np.pad", [printer.node(g), width])


def _stack(printer, items):
    """``np.stack([a, b])`` of 0-d values, a number as a 0-d array of the reference dtype."""
    return _call(printer, "np.stack", [ast.List(items, ast.Load())])


def _array_of(printer, node):
    shape = node.params[0]
    items = [printer.new_array(printer.node(e)) if e.is_number else printer.node(e)
             for e in node.inputs]

    def nest(flat, dims):
        if len(dims) == 1:
            return _stack(printer, flat)
        step = len(flat) // dims[0]
        return _stack(printer, [nest(flat[k * step:(k + 1) * step], dims[1:])
                                for k in range(dims[0])])
    return nest(items, shape)


def _arange(printer, node):
    """``np.arange``; the Array API's of ints is an int array, which it does not mix with floats:
    it takes the reference parameter's dtype."""
    from .array_indexing import _arange_print
    call = _arange_print(printer, node)
    if printer.backend == "array_api":
        call.keywords = [ast.keyword(k, v) for k, v in like_reference(printer)]
    return call


def _eye(printer, node):
    from .array_nodes import int_ast
    rows, columns = node.params
    args = [int_ast(rows)] + ([] if columns == rows else [int_ast(columns)])
    return _call(printer, "np.eye", args, like_reference(printer))


def _where_adjoint(printer, node):
    from .array_ops import _float
    c, a, b = node.inputs
    return printer.where(c, _float(a), _float(b))


def _result(printer, node):
    """A gradient as returned: an array of the backend, exactly the parameter's shape (0-d for a
    scalar parameter), never an alias of an argument (a copy for PyTorch and the Array API,
    whose arrays may be written in place)."""
    from .array_ops import BROADCAST_TO
    shape, copy = node.params
    x = node.inputs[0]
    if x.is_Number:
        return full(printer, dims_ast(shape), printer.node(x))
    if isinstance(x, BROADCAST_TO.node):
        inner = x.inputs[0]
        if inner.is_Number:
            return full(printer, dims_ast(shape), printer.node(inner))
        value = _call(printer, "np.broadcast_to", [printer.node(inner), dims_ast(shape)])
        return _copy(printer, value) if printer.spec.mutable else value
    if copy and printer.spec.mutable or copy and printer.backend == "array_api":
        return _copy(printer, printer.node(x))
    return printer.node(x)


def _copy(printer, value):
    if printer.backend == "torch":
        return ast.Call(ast.Attribute(value, "clone", ast.Load()), [], [])
    return _call(printer, "np.asarray", [value], [("copy", ast.Constant(True))])


def _broadcast_to(printer, node):
    """``np.broadcast_to(x, shape)``; a number is ``full(shape, x)`` of the reference dtype
    (PyTorch broadcasts tensors only)."""
    x = node.inputs[0]
    if x.is_number:
        return full(printer, dims_ast(node.params[0]), printer.node(x))
    return _call(printer, "np.broadcast_to", [printer.node(x), dims_ast(node.params[0])])


def _einsum(printer, node):
    if printer.backend == "array_api":
        refuse(printer, "np.einsum", "the Array API standard has no einsum; backends 'numpy', "
               "'jax' and 'torch' have it")
    (subscripts,) = node.params
    operands = [printer.new_array(printer.node(x)) if x.is_number else printer.node(x)
                for x in node.inputs]  # torch.einsum takes tensors only
    return _call(printer, "np.einsum", [ast.Constant(subscripts)] + operands)


def _expand(printer, node):
    """``g[None, ...]``: a new axis by indexing, every other axis covered by ``...``."""
    (axes,) = node.params
    items = [ast.Constant(None) if k in axes else ast.Slice(None, None, None)
             for k in range(max(axes) + 1)] + [ast.Constant(Ellipsis)]
    return ast.Subscript(printer.node(node.inputs[0]), ast.Tuple(items, ast.Load()), ast.Load())


def _jax_matmul(printer, node):
    """``a @ b``; ``X.T @ r`` as ``jnp.tensordot(X, r, axes=(0, 0))``, which contracts X's first
    axis in place: XLA on CPU copies the transpose first (8x slower for X of 10^6 x 10)."""
    from .array_ops import TRANSPOSE
    a, b = node.inputs
    if isinstance(a, TRANSPOSE.node) and a.params[0] == (1, 0):
        return _call(printer, "np.tensordot", [printer.node(a.inputs[0]), printer.node(b)],
                     [("axes", ast.Tuple([ast.Constant(0), ast.Constant(0)], ast.Load()))])
    return ast.BinOp(printer.node(a), ast.MatMult(), printer.node(b))


PRINTERS = {("matmul", "jax"): _jax_matmul}
for _backend in ("jax", "torch", "array_api"):
    PRINTERS.update({
        ("sum", _backend): _reduction("np.sum", "sum"),
        ("max", _backend): _reduction("np.max", "max"),
        ("min", _backend): _reduction("np.min", "min"),
        ("prod", _backend): _reduction("np.prod", "prod"),
        ("index_adjoint", _backend): _index_adjoint,
        ("result", _backend): _result,
        ("eye", _backend): _eye,
        ("where_adjoint", _backend): _where_adjoint,
        ("einsum", _backend): _einsum,
        ("broadcast_to", _backend): _broadcast_to,
        ("arange", _backend): _arange,
    })
for _backend in ("torch", "array_api"):
    PRINTERS.update({("transpose", _backend): _transpose, ("array", _backend): _array_of,
                     ("index", _backend): _array_index})
PRINTERS[("index", "torch")] = PRINTERS[("index", "array_api")] = _flipping_index
PRINTERS[("expand_dims", "array_api")] = _expand


def printer_for(rule, backend):
    """The printer of the array row ``rule`` for ``backend``: its column here, else its
    ``numpy`` printer (which spells NumPy's names through the printer)."""
    return PRINTERS.get((rule.name, backend), rule.numpy)

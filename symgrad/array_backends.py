"""The array table's backend columns: how an array node prints for JAX, PyTorch and the Array API
where the row's NumPy printer (``array_ops``, ``array_linalg``), with NumPy's names spelled for the
library (``backends.Backend.spelling``), is not right there.

``PRINTERS`` maps (row name, backend) to a printer ``(printer, node) -> ast``; a row without an
entry prints through its ``numpy`` column. The differences:

- new arrays (zero buffers, constant results, ``np.eye``) take the dtype and device of the
  reference parameter (``printer.reference``), never the library's default (float32 in PyTorch):
  ``array_backend_values``;
- subscripts and their adjoints (``flip`` for negative steps, ``take``, scatter-adds of each
  library, the Array API's by gathers): ``array_index_backends``;
- results are arrays of the backend (a 0-d array for a scalar parameter, not a Python float,
  which ``jax.jit`` could not trace);
- the lazy specialisation of ``numpy`` (Dask arguments): pointwise indexing through ``vindex``,
  scatter-adds by ``np.bincount``, no sort: ``array_backends_dask``; linear algebra on one chunk
  of a Dask matrix (there and on the Array API): ``array_linalg_lazy``;
- PyTorch: ``amax``/``amin``, ``prod`` over one axis, ``permute``, ``torch.sort(...).values``; the Array API: reductions as
  functions (``xp.sum(x, axis=...)``: its arrays have no such methods), ``permute_dims``,
  ``concat``, ``cumulative_sum``, ``einsum`` by ``matmul``.
"""
import ast

from .array_backend_values import full, like_reference, plain_number, refuse
from .array_backends_api import einsum_by_matmul
from . import array_backends_dask as dask_columns
from . import array_linalg_lazy as one_chunk
from .array_index_backends import _array_index, _flipping_index, _index_adjoint, _triangle
from .array_nodes import _axis_ast, _call, dims_ast


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


def _stack(printer, items):
    """``np.stack([a, b])`` of 0-d values, a number as a 0-d array of the reference dtype."""
    return _call(printer, "np.stack", [ast.List(items, ast.Load())])


def _array_of(printer, node):
    shape = node.params[0]
    items = [printer.new_array(printer.node(e)) if plain_number(e, printer) else printer.node(e)
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
    it takes the reference parameter's dtype; one the code indexes with only is NumPy's (ints:
    ``emit.index_aranges``)."""
    from .array_indexing import _arange_print
    from .array_torch import integer_steps
    call = _arange_print(printer, node)
    if printer.backend == "array_api" and node in getattr(printer, "numpy_aranges", ()):
        call.func = ast.Attribute(ast.Name("compat_numpy", ast.Load()), "arange", ast.Load())
    elif printer.backend == "array_api" or printer.backend == "torch" and not integer_steps(node):
        # torch.arange(0.5, n) counts in the default dtype, float32
        call.keywords = [ast.keyword(k, v) for k, v in like_reference(printer)]
    return call


def _positions(printer, node):
    """``xp.arange(n, device=device(x))``: the library's default ints (as ``xp.argmax`` returns),
    on the reference parameter's device."""
    from .array_backend_values import _device
    from .array_nodes import int_ast
    keywords = [("device", _device(printer))] if printer.reference is not None else []
    return _call(printer, "np.arange", [int_ast(node.params[0])], keywords)


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
    if plain_number(x, printer):
        return full(printer, dims_ast(shape), printer.node(x))
    if isinstance(x, BROADCAST_TO.node):
        inner = x.inputs[0]
        if plain_number(inner, printer):
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
    """``np.broadcast_to(x, shape)``; a number, or a value of the sizes only (``d``, ``1 / n``: a
    Python number too), is ``full(shape, x)`` of the reference dtype (PyTorch and the Array API
    broadcast arrays only: array fuzzer 21-52, ``xp.broadcast_to(d, (1, n))``)."""
    x = node.inputs[0]
    if plain_number(x, printer):
        return full(printer, dims_ast(node.params[0]), printer.node(x))
    return _call(printer, "np.broadcast_to", [printer.node(x), dims_ast(node.params[0])])


def _reshape(printer, node):
    """``np.reshape(x, shape)``; a number, or a value of the sizes only, is ``full(shape, x)``:
    Dask's and ``array_api_strict``'s ``reshape`` take arrays only (array fuzzer 17-83,
    ``xp.reshape(df_dexpanded, ())`` of ``df_dexpanded = 0.0`` raised AttributeError on Dask)."""
    x = node.inputs[0]
    if plain_number(x, printer):
        return full(printer, dims_ast(node.params[0]), printer.node(x))
    return _call(printer, "np.reshape", [printer.node(x), dims_ast(node.params[0])])


def _einsum(printer, node):
    """``np.einsum``; on the Array API, which has none, by ``xp.matmul``
    (``array_backends_api.einsum_by_matmul``)."""
    (subscripts,) = node.params
    operands = [printer.new_array(printer.node(x)) if plain_number(x, printer) else printer.node(x)
                for x in node.inputs]  # torch.einsum takes tensors only
    if printer.backend == "array_api":
        return einsum_by_matmul(printer, subscripts, operands)
    return _call(printer, "np.einsum", [ast.Constant(subscripts)] + operands)


def _expand(printer, node):
    """``g[None, ...]``: a new axis by indexing, every other axis covered by ``...``; a number
    first becomes a 0-d array of the reference parameter's dtype (``(2.0)[None, ...]`` raised
    TypeError)."""
    (axes,) = node.params
    items = [ast.Constant(None) if k in axes else ast.Slice(None, None, None)
             for k in range(max(axes) + 1)] + [ast.Constant(Ellipsis)]
    value = printer.node(node.inputs[0])
    if isinstance(value, ast.Constant) or plain_number(node.inputs[0], printer):  # -0.4 too
        value = printer.new_array(value)
    return ast.Subscript(value, ast.Tuple(items, ast.Load()), ast.Load())


def _torch_sort(printer, node):
    """``torch.sort(x, axis=k).values``: PyTorch's sort returns the values and their indices."""
    return ast.Attribute(node.rule.numpy(printer, node), "values", ast.Load())


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
        ("reshape", _backend): _reshape,
        ("arange", _backend): _arange,
    })
for _backend in ("torch", "array_api"):
    PRINTERS.update({("transpose", _backend): _transpose, ("array", _backend): _array_of,
                     ("index", _backend): _array_index})
PRINTERS[("index", "torch")] = PRINTERS[("index", "array_api")] = _flipping_index
PRINTERS[("expand_dims", "array_api")] = _expand
PRINTERS[("positions", "array_api")] = PRINTERS[("positions", "torch")] = _positions
PRINTERS[("sort", "torch")] = _torch_sort
PRINTERS[("tri_indices", "array_api")] = _triangle


def _lazy(lazy):
    """The numpy column of a row whose lazy specialisation (Dask arguments, ``printer.lazy``)
    prints otherwise: ``lazy`` there, the row's own ``numpy`` printer in NumPy code."""
    def print_(printer, node):
        return lazy(printer, node) if printer.lazy else node.rule.numpy(printer, node)
    return print_


PRINTERS.update({("index", "numpy"): _lazy(dask_columns.gather),
                 ("index_adjoint", "numpy"): _lazy(dask_columns.index_adjoint),
                 ("sort", "numpy"): _lazy(dask_columns.unsorted("np.sort")),
                 ("argsort", "numpy"): _lazy(dask_columns.unsorted("np.argsort")),
                 ("transpose", "numpy"): _lazy(dask_columns.transpose)})
LINALG = {"inv": one_chunk.one_chunk("np.linalg.inv"),
          "det": one_chunk.one_chunk("np.linalg.det", drop=(0, 1)),
          "slogdet_pair": one_chunk.slogdet,
          "svd": one_chunk.svd, "solve": one_chunk.solve}
'''The linear algebra rows on Dask arrays: NumPy's function on one chunk (array_linalg_lazy).'''
for _row, _printer in LINALG.items():
    PRINTERS[(_row, "numpy")] = _lazy(_printer)
    PRINTERS[(_row, "array_api")] = _printer


def printer_for(rule, backend):
    """The printer of the array row ``rule`` for ``backend``: its column here, else its
    ``numpy`` printer (which spells NumPy's names through the printer)."""
    return PRINTERS.get((rule.name, backend), rule.numpy)

"""The linear algebra rows (``np.linalg.inv``, ``det``, ``slogdet``, ``solve`` and the SVD of
``det``'s adjoint) for Dask arrays: the lazy specialisation of ``numpy`` (``printer.lazy``) and
``backend="array_api"`` (one text for every library, Dask's among them).

Dask's own linear algebra does not take what the gradients pass it: its LU (``inv``, ``solve``)
needs chunks that are all the same square, its ``solve`` takes no NumPy matrix beside a Dask
right-hand side, its SVD takes tall-and-skinny arrays only, and it has no ``det`` nor ``slogdet``
(NumPy's function on a Dask array computes it whole). So a Dask matrix is made one chunk
(``rechunk(-1)``) and NumPy's own function runs on that chunk (``map_blocks``): lazily, with the
numbers of NumPy's function (the same LAPACK call), the whole matrix in one task's memory (the
matrices of ``np.linalg`` are square: ``n`` by ``n``). Other arrays take the library's function.
Which one runs is decided by the *Dask test*: on the Array API, whose arrays are all of the one
library ``xp`` (the prologue converts the arguments and constants to it), once per call, at the
top (``on_dask = hasattr(X, 'map_blocks')`` of the first parameter, printed when the code has
linear algebra; ``array_api_compat.is_dask_namespace`` would be a second name to import, and the
import line would pass 100 columns); in the lazy NumPy code, where a NumPy constant or argument
may sit beside a Dask one, per value (``hasattr(A, 'map_blocks')``; a value that is not a name
bound there, ``hasattr(_m := A + B, 'map_blocks')``, so it is computed once)::

    inverse = (A.rechunk(-1).map_blocks(compat_numpy.linalg.inv, dtype=A.dtype) if on_dask
        else xp.linalg.inv(A))

A tuple is one node, read by its items (``_t0 = np.linalg.slogdet(A)``, ``sign = _t0[0]``): on
Dask, ``slogdet``'s pair is one array of two, ``np.stack`` of NumPy's pair inside the chunk (a
``lambda``, its parameter a fresh name), and the SVD is Dask's SVD of the one chunk
(``full_matrices=False``: one task calling NumPy's SVD; the numpy code's Dask also makes its
signs deterministic, which the det adjoint does not see: ``u_i`` and ``vh_i`` flip together).
``solve(A, b)`` with either operand a Dask array makes both Dask
arrays of one chunk (a NumPy constant beside a Dask ``b`` becomes ``np.zeros_like(b, shape=()) +
np.ascontiguousarray(C)``), and its result has ``b``'s shape (``drop_axis=1`` for a vector ``b``,
else ``chunks=b.shape``). The copy is there because Dask (2026.8) names a NumPy array by its bytes
in memory order and its shape: a square ``C`` and its view ``C.T`` get one name, and ``C.T + z``
in a graph holding ``C + z`` would read ``C``'s values (a wrong number).
"""
import ast
import copy

from .array_nodes import _call
from .printer import dotted_name
from .program import fresh_name


def _own(printer, dotted):
    """NumPy's function ``dotted`` ("np.linalg.inv") as the chunk of a Dask array takes it:
    ``np.`` in NumPy code, ``compat_numpy.`` on the Array API (NumPy with the standard's
    signatures, which the chunks are)."""
    return dotted_name(dotted if printer.backend == "numpy" else "compat_numpy" + dotted[2:])


def _lazy_test(printer, x):
    """The Dask test of the value ``x``: ``on_dask`` on the Array API (``dask_flag``),
    ``hasattr(x, 'map_blocks')`` in the lazy NumPy code."""
    if printer.backend != "numpy":
        return ast.Name(dask_flag(printer), ast.Load())
    return ast.Call(ast.Name("hasattr", ast.Load()), [copy.deepcopy(x), ast.Constant(
        "map_blocks")], [])


def _once(printer, x):
    """(``x`` as the Dask test reads it, ``x`` as the branches read it): in the lazy NumPy code a
    value that is not a name is bound in the test (``hasattr(_m := A + B, 'map_blocks')``) and
    read by its name after, so it is evaluated once (it was evaluated by the test and again by
    the branch taken); on the Array API the test is ``on_dask`` and reads no value."""
    if printer.backend != "numpy" or isinstance(x, ast.Name):
        return x, x
    names = getattr(printer, "names", None)
    name = fresh_name("_m", names if names is not None else set())
    return ast.NamedExpr(ast.Name(name, ast.Store()), x), ast.Name(name, ast.Load())


class _Named(ast.NodeTransformer):
    """Every copy of the expression ``x`` in a tree replaced by the name ``name`` (``_once``)."""

    def __init__(self, x, name):
        self.key, self.name = ast.dump(x), name

    def visit(self, node):
        if isinstance(node, ast.expr) and ast.dump(node) == self.key:
            return copy.deepcopy(self.name)
        return super().visit(node)


def _own_call(printer, node, pairs):
    """The row's own printer's call, each ``(x, name)`` of ``pairs`` read by its name."""
    call = node.rule.numpy(printer, node)
    for x, name in pairs:
        if x is not name:
            call = _Named(x, name).visit(call)
    return call


def dask_flag(printer):
    """The name of the Array API code's Dask test (``on_dask``, a fresh name), taken at the first
    row that reads it: ``emit`` prints ``on_dask = hasattr(X, 'map_blocks')`` at the end of the
    prologue when the printer has one (``printer.dask_flag``)."""
    if getattr(printer, "dask_flag", None) is None:
        names = getattr(printer, "names", None)
        printer.dask_flag = fresh_name("on_dask", names if names is not None else set())
    return printer.dask_flag


def _one_chunk(x):
    return ast.Call(ast.Attribute(copy.deepcopy(x), "rechunk", ast.Load()), [ast.Constant(-1)], [])


def _dtype(printer, x):
    """The result's dtype: float64 in NumPy code; the argument's on the Array API."""
    if printer.backend == "numpy":
        return ast.Name("float", ast.Load())
    return ast.Attribute(copy.deepcopy(x), "dtype", ast.Load())


def _on_one_chunk(printer, node, function, keywords=()):
    """``A.rechunk(-1).map_blocks(function, **keywords, dtype=...) if <A is Dask> else <the
    row's own call>``, ``A`` the node's one input."""
    x = printer.node(node.inputs[0])
    tested, x_ = _once(printer, x)
    lazy = ast.Call(ast.Attribute(_one_chunk(x_), "map_blocks", ast.Load()), [function], [
        ast.keyword(k, v) for k, v in list(keywords) + [("dtype", _dtype(printer, x_))]])
    return ast.IfExp(_lazy_test(printer, tested), lazy, _own_call(printer, node, [(x, x_)]))


def one_chunk(dotted, drop=None):
    """The printer of a row calling ``dotted`` on one matrix: NumPy's function on one chunk of a
    Dask matrix, the row's own printer for other arrays. ``drop``: the axes of the matrix the
    result has not (``(0, 1)`` for a number)."""
    def print_(printer, node):
        keywords = [] if drop is None else [("drop_axis", ast.Tuple(
            [ast.Constant(k) for k in drop], ast.Load()))]
        return _on_one_chunk(printer, node, _own(printer, dotted), keywords)
    return print_


def svd(printer, node):
    """``np.linalg.svd(A)`` (the tuple U, s, Vh): Dask's SVD of one chunk, ``full_matrices=False``
    (the same matrices for a square ``A``; Dask has no other), which is one task running NumPy's
    SVD; the row's own printer for other arrays."""
    x = printer.node(node.inputs[0])
    tested, x_ = _once(printer, x)
    lazy = _call(printer, "np.linalg.svd", [_one_chunk(x_)], [("full_matrices", ast.Constant(
        False))])
    return ast.IfExp(_lazy_test(printer, tested), lazy, _own_call(printer, node, [(x, x_)]))


def slogdet(printer, node):
    """``np.linalg.slogdet(A)`` (the pair sign, log|det A|): on one chunk of a Dask matrix, the
    pair as one array of two (``np.stack``: the same floats), whose items are 0-d Dask arrays;
    the row's own printer for other arrays."""
    names = getattr(printer, "names", None)
    block = fresh_name("_block", names if names is not None else set())
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(block)], vararg=None,
                              kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    pair = ast.Lambda(arguments, ast.Call(_own(printer, "np.stack"), [ast.Call(_own(
        printer, "np.linalg.slogdet"), [ast.Name(block, ast.Load())], [])], []))
    return _on_one_chunk(printer, node, pair, [("drop_axis", ast.Constant(1)), (
        "chunks", ast.Tuple([ast.Constant(2)], ast.Load()))])


def solve(printer, node):
    """``np.linalg.solve(a, b)``: on one chunk of each when either is a Dask array (a NumPy one
    made a Dask array by adding a Dask zero), else the row's own printer."""
    a0, b0 = (printer.node(x) for x in node.inputs)
    (tested_a, a), (tested_b, b) = _once(printer, a0), _once(printer, b0)
    (rank,) = node.params

    def lifted(x, other):  # one chunk of x, of other's library when x is a NumPy array
        if printer.backend != "numpy":  # the Array API's arrays are of one library
            return _one_chunk(x)
        zero = _call(printer, "np.zeros_like", [copy.deepcopy(other)], [
            ("shape", ast.Tuple([], ast.Load()))])
        contiguous = _call(printer, "np.ascontiguousarray", [copy.deepcopy(x)])
        return ast.IfExp(ast.Call(ast.Name("hasattr", ast.Load()), [copy.deepcopy(x), ast.Constant(
            "rechunk")], []), _one_chunk(x), _one_chunk(ast.BinOp(zero, ast.Add(), contiguous)))
    shape = [("drop_axis", ast.Constant(1))] if rank == 1 else [
        ("chunks", ast.Attribute(copy.deepcopy(b), "shape", ast.Load()))]
    lazy = ast.Call(ast.Attribute(lifted(a, b), "map_blocks", ast.Load()), [
        _own(printer, "np.linalg.solve"), lifted(b, a)], [
        ast.keyword(k, v) for k, v in shape + [("dtype", _dtype(printer, b))]])
    test = _lazy_test(printer, a) if printer.backend != "numpy" else ast.BinOp(
        _lazy_test(printer, tested_a), ast.BitOr(), _lazy_test(printer, tested_b))  # both bound
    return ast.IfExp(test, lazy, _own_call(printer, node, [(a0, a), (b0, b)]))

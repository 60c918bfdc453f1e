"""The library of the arrays in lazy code (the ``numpy`` backend's lazy specialisation, for Dask
arguments): every array parameter is made an array of the arguments' library
(``array_emit.library_lines``: a NumPy ``w`` beside Dask data is made a Dask array), so what the
code computes from an array parameter is of that library; what it computes from no array
parameter (numbers, sizes, scalar parameters, constant arrays) takes it from ``library``
(``array_backend_values.lazy_zeros``), where ``reads_array`` cannot tell that it reads one.
"""
import ast

from .program import fresh_name


def _np(attribute):
    return ast.Attribute(ast.Name("np", ast.Load()), attribute, ast.Load())


def lazy_names(printer, program, converted, names):
    """The lazy printer's ``lazy_arrays`` (the array parameters), ``library`` (``library_name``)
    and ``array_names`` (``reads_array``)."""
    printer.lazy_arrays = [p.name for p in program.params if p.name in converted and
                           program.arrays.shapes.of(p)]
    printer.library = library_name(converted, printer.lazy_arrays, names)
    printer.array_names = array_names(program, printer.lazy_arrays)


def library_name(converted, arrays, names):
    """The name holding the arguments' library in lazy code: the array parameter itself when it
    is the only parameter; with several, a fresh ``library`` (added to ``names``) that
    ``library_lines`` prints; None with no array parameter."""
    if not arrays:
        return None
    if len(converted) == 1:
        return arrays[0]
    return fresh_name("library", names)


def array_names(program, arrays):
    """The names whose value reads an array parameter (``arrays``): those parameters and every
    assignment of the program that reads one of these names, in program order."""
    found = set(arrays)
    for a in program.assignments:
        expr = getattr(a, "expr", None)
        if expr is not None and any(s.name in found for s in expr.free_symbols):
            found.add(a.target.name)
    return found


def reads_array(e, printer):
    """Whether ``e`` reads an array parameter's value (one of ``printer.array_names``, which
    ``cse`` extends with its common terms): then it is of the arguments' library in lazy code.
    False where not known: such a value takes the library from ``library``, which costs a task
    where it was of it already."""
    from .array_nodes import ArrayNode
    found = getattr(printer, "array_names", ())
    if any(s.name in found for s in getattr(e, "free_symbols", ())):
        return True
    return hasattr(e, "atoms") and any(a.rule.name in LIBRARY_NODES for a in e.atoms(ArrayNode))


LIBRARY_NODES = ("index_adjoint", "broadcast_to")  # what lazy code prints of the library always:
# a buffer (array_indexing), a broadcast (array_ops: of a number, np.zeros_like(X, ...) + 1.0)


def like_parameter(printer, dims):
    """The array parameter of shape ``dims`` (a tuple of sizes), or None: an array of numbers of
    its shape is ``np.zeros_like(X, dtype=float)``, in the chunks of a Dask ``X`` (the
    gradient of ``X`` in ``X``'s chunks), where ``np.zeros_like(library, shape=...)`` takes
    Dask's automatic ones and ``np.broadcast_to`` of a 0-d array one chunk of the whole."""
    shapes = getattr(printer, "shapes", None)
    if dims is None or shapes is None:
        return None
    table = {s.name: shape for s, shape in shapes.table.items()}
    wanted = shapes.resolve(tuple(dims))
    for name in getattr(printer, "lazy_arrays", ()):
        if name in table and shapes.resolve(table[name]) == wanted:
            return name
    return None


def library_lines(names, arrays, library):
    """``library = <an empty zero, shape (0,), of each of names, summed>`` (empty, not 0-d:
    NumPy's sum of 0-d arrays is a NumPy scalar, which ``like=`` refuses) and ``w = np.asarray(w, like=library) if
    isinstance(w, np.ndarray) else w`` for each of ``arrays`` (``conversions``); one line
    ``X, w = (... for a in (X, w))`` for several. A Dask array is kept as it is (``np.asarray``
    of one with ``like=`` would add a task per chunk)."""
    zero = None
    for name in names:
        piece = ast.Call(_np("zeros_like"), [ast.Name(name, ast.Load())], [ast.keyword(
            "shape", ast.Tuple([ast.Constant(0)], ast.Load()))])
        zero = piece if zero is None else ast.BinOp(zero, ast.Add(), piece)
    lines = [ast.Assign([ast.Name(library, ast.Store())], zero, lineno=None)]

    def made(name):
        value = ast.Name(name, ast.Load())
        numpy = ast.Call(ast.Name("isinstance", ast.Load()), [value, _np("ndarray")], [])
        return ast.IfExp(numpy, ast.Call(_np("asarray"), [value], [
            ast.keyword("like", ast.Name(library, ast.Load()))]), value)
    if len(arrays) == 1:
        lines.append(ast.Assign([ast.Name(arrays[0], ast.Store())], made(arrays[0]), lineno=None))
    else:
        element = "a" if "a" not in names else "_a"
        lines.append(ast.Assign([ast.Tuple([ast.Name(a, ast.Store()) for a in arrays],
                                           ast.Store())], ast.GeneratorExp(made(element), [
            ast.comprehension(ast.Name(element, ast.Store()), ast.Tuple(
                [ast.Name(a, ast.Load()) for a in arrays], ast.Load()), [], 0)]), lineno=None))
    return lines

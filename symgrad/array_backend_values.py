"""What every backend column of the array table (``array_backends``, ``array_index_backends``)
prints new arrays with: the reference parameter's dtype and device (``like_reference``), zero and
constant arrays of the backend, the broadcast shape of arguments, and the refusal of what a
library lacks.
"""
import ast

from .array_nodes import ArrayNode, _call
from .errors import OptionError
from .shapes import is_dim


def plain_number(e, printer=None):
    """Whether ``e`` prints as a Python number, not an array of the backend: a number, or
    arithmetic of sizes only (``n * n``, ``1.0 / d``), which PyTorch's functions do not take
    (``torch.broadcast_to(n * n, (1,))`` raised TypeError); a common term of sizes only named by
    ``cse`` (``_t0 = n * n``) is one too (``printer.plain_names``)."""
    plain = getattr(printer, "plain_names", ())
    return not e.has(ArrayNode) and all(is_dim(s) or s.name in plain for s in e.free_symbols)


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


def bool_array(printer, value):
    """``value`` (a printed Python bool) as a 0-d boolean array on the reference parameter's
    device (``np.full((), value)``: a bool fill makes a bool array)."""
    return _call(printer, "np.full", [ast.Tuple([], ast.Load()), value],
                 [("device", _device(printer))])


def lazy_zeros(printer, shape=None, value=None):
    """In lazy code (``printer.lazy``), an array of numbers only (a gradient constant in the data:
    ``np.sum(2.0 * X)``'s, ``np.trace(X)``'s) of the array parameters' library, so a Dask one when
    any is: ``np.zeros_like(X, dtype=float, shape=(n, d))`` (of every array parameter's: the sum
    of a 0-d zero of each), plus ``value`` (printed) where given; ``shape`` None: 0-d. None
    outside lazy code, or with no array parameter. NumPy's ``np.zeros((n, d))`` or
    ``np.broadcast_to(2.0, (n, d))`` there made the gradient of Dask data a NumPy array of the
    data's size, in memory (10^9 elements: 8 GB), not a graph computed chunk by chunk."""
    names = getattr(printer, "lazy_arrays", None) if printer.lazy else None
    if not names:
        return None
    like = ast.Name(names[0], ast.Load())
    if len(names) > 1:  # a 0-d zero of each: a Dask array when any parameter is one
        like = None
        for name in names:
            zero = _call(printer, "np.zeros_like", [ast.Name(name, ast.Load())], [
                ("shape", ast.Tuple([], ast.Load()))])
            like = zero if like is None else ast.BinOp(like, ast.Add(), zero)
    shape = ast.Tuple([], ast.Load()) if shape is None else shape
    zeros = _call(printer, "np.zeros_like", [like], [("dtype", ast.Name("float", ast.Load())),
                                                      ("shape", shape)])
    return zeros if value is None else ast.BinOp(zeros, ast.Add(), value)


def indexable(printer, e):
    """``e`` printed, as a 0-d array of the reference parameter's dtype where it is a number
    (``2.0``, ``-0.4``, ``n / 2``), which has no subscript: ``(-0.4)[None]`` raised TypeError."""
    value = printer.node(e)
    if isinstance(value, ast.Constant) or plain_number(e, printer):
        return printer.new_array(value)
    return value


def full_of_number(printer, shape, value=None):
    """``np.full(shape, value)`` (``np.zeros(shape)`` where ``value`` is None) of printed
    ``shape`` and ``value``; in lazy code of the array parameters' library (``lazy_zeros``)."""
    made = lazy_zeros(printer, shape, value)
    if made is not None:
        return made
    return _call(printer, "np.zeros", [shape]) if value is None else _call(
        printer, "np.full", [shape, value])


def zeros(printer, shape):
    return _call(printer, "np.zeros", [shape], like_reference(printer))


def constant(printer, name, number=False):
    """A constant array of the namespace (a NumPy array) where the code reads it, as an array of
    the backend: a float array takes the reference parameter's dtype (float32 data stays
    float32), a boolean one too on the Array API, an int one on PyTorch where it is read as a
    number (``number``; an index array stays ints), and PyTorch and the Array API put it on the
    reference parameter's device."""
    value = printer.constants.get(name)
    keywords = []
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if printer.reference is not None and (kind == "f" or kind == "b" and
                                          printer.backend == "array_api" or
                                          number and kind in ("i", "u") and printer.backend == "torch"):
        # a boolean constant is read as a condition, `MASK != 0.0`, and the Array API compares
        # booleans with booleans only (array_api_strict): its values as floats, 1.0 and 0.0
        # PyTorch computes an int tensor read as a number (``number``) with a float in float32
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

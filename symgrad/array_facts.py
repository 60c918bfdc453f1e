"""What a printed NumPy body tells of its names and expressions (read by ``array_buffers``).

``Facts`` follows a straight-line body of printed NumPy (``ast`` nodes) in order: the static shape
of each expression (from the program's shape table and NumPy's rules: broadcasting, ``@``,
reductions with ``axis=``/``keepdims=``, ``.T``, ``x[:, None]``; None when not known), whether
evaluating it allocates a new array (an operator, a ufunc, ``@``, a reduction, ``np.zeros``) or may
be a view of what it reads, which arrays each name may share memory with, and its dtype (surely
float64, or surely bool, an integer or float64). ``Sources``, for the lazy specialisation only,
which parameters each name is computed from.
"""
import ast

import numpy

from .fence import dotted
from .shapes import ONE

_REDUCTIONS = frozenset({"sum", "max", "min", "prod", "mean"})
_ALLOCATING_CALLS = frozenset({"np.where", "np.zeros", "np.ones", "np.concatenate", "np.stack",
                               "np.clip", "np.round", "np.cumsum", "np.outer"})

def low_dtype(dtype):
    """bool, an integer or float64: what meets a float64 array and leaves it float64."""
    return dtype.kind in "biu" or dtype == numpy.float64


def reads(node):
    """Names read by a statement or expression (an augmented target is read too)."""
    found = [n.id for n in ast.walk(node)
             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        found.append(node.target.id)
    return found


def ufunc_of(call):
    """The NumPy ufunc an ``np.f(...)`` call is (positional arguments only), else None."""
    name = dotted(call.func)
    if call.keywords or name is None or not name.startswith("np.") or name.count(".") != 1:
        return None
    found = getattr(numpy, name[3:], None)
    if isinstance(found, numpy.ufunc) and found.nout == 1 and found.nin == len(call.args):
        return found
    if name == "np.round" and len(call.args) == 1:
        return numpy.round
    return None


class Facts:
    """What is known of each name of a printed body while it is walked in order, and of the
    expressions over them: static shape, whether evaluating allocates, dtype.

    Args:
        shapes: name -> static shape, for the program's symbols.
        scalars: name -> ``()`` for the size variables.
        floats: the parameters converted to float64.
        low: names known to be bool, integer or float64 (the parameters, sizes, constants).
    """

    def __init__(self, shapes, scalars, floats, low):
        self.shapes = dict(shapes)
        self.shapes.update(scalars)
        for name in floats:
            self.shapes.setdefault(name, ())
        self.floats = set(floats)  # names holding a float64 array (rank >= 1) or a float64 value
        self.low = set(low)  # names of dtype bool, an integer or float64
        self.buffer = {}  # name -> the buffers (names that allocated) it may share memory with
        self.fresh = set()  # names that allocated their buffer

    def record(self, target, value):
        if self.is_float(value):
            self.floats.add(target)
        if self.is_low(value):
            self.low.add(target)
        if self.allocates(value):
            self.buffer[target] = {target}
            self.fresh.add(target)
        elif isinstance(value, ast.Call) and dotted(value.func) == "float":
            self.buffer[target] = set()  # a Python float
        else:  # a name, a view, anything else: may share memory with what it reads
            shared = set()
            for name in reads(value):
                shared |= self.buffer.get(name, set())
            self.buffer[target] = shared

    def shape(self, node):
        """The static shape of a printed expression, or None when not known here."""
        if hasattr(node, "symgrad_shape"):
            return node.symgrad_shape
        if isinstance(node, ast.Name):
            return self.shapes.get(node.id)
        if isinstance(node, ast.Constant):
            return ()
        if isinstance(node, ast.UnaryOp):
            return self.shape(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = self.shape(node.left), self.shape(node.right)
            if isinstance(node.op, ast.MatMult):
                return _matmul(left, right)
            return _broadcast(left, right)
        if isinstance(node, ast.Attribute) and node.attr == "T":
            inner = self.shape(node.value)
            return None if inner is None else tuple(reversed(inner))
        if isinstance(node, ast.Subscript):
            return self.expanded(node)
        if isinstance(node, ast.Call):
            if ufunc_of(node) is not None:
                return _broadcast(*[self.shape(a) for a in node.args])
            if dotted(node.func) == "np.where" and len(node.args) == 3:
                return _broadcast(*[self.shape(a) for a in node.args])
            if isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS:
                return self.reduced(node)
        return None

    def expanded(self, node):
        """``x[:, None]``, ``x[None]``: the shape of ``x`` with size-1 axes put in."""
        inner = self.shape(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if inner is None:
            return None
        shape, k = [], 0
        for item in items:
            if isinstance(item, ast.Constant) and item.value is None:
                shape.append(ONE)
            elif isinstance(item, ast.Slice) and item.lower is None and item.upper is None and \
                    item.step is None and k < len(inner):
                shape.append(inner[k])
                k += 1
            else:
                return None
        return tuple(shape) + tuple(inner[k:])

    def reduced(self, node):
        inner = self.shape(node.func.value)
        if inner is None or node.args:
            return None
        keywords = {k.arg: k.value for k in node.keywords}
        if set(keywords) - {"axis", "keepdims"}:
            return None
        axis = keywords.get("axis")
        if axis is None:
            axes = set(range(len(inner)))
        else:
            items = axis.elts if isinstance(axis, ast.Tuple) else [axis]
            if not all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in items):
                return None
            axes = {a.value % len(inner) for a in items} if inner else set()
        keep = keywords.get("keepdims")
        keep = isinstance(keep, ast.Constant) and keep.value is True
        return tuple(ONE if k in axes else d for k, d in enumerate(inner)
                     if keep or k not in axes)

    def allocates(self, node):
        """Whether evaluating ``node`` makes a new array (never a view of another)."""
        if isinstance(node, ast.BinOp) or isinstance(node, ast.UnaryOp) and isinstance(
                node.op, ast.USub):
            return True
        if isinstance(node, ast.Call):
            if ufunc_of(node) is not None or dotted(node.func) in _ALLOCATING_CALLS:
                return not node.keywords or dotted(node.func) == "np.where"
            return isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS
        return False

    def is_float(self, node):
        """Whether ``node`` is surely a float64 array of rank >= 1 (or a float64 number)."""
        if isinstance(node, ast.Name):
            return node.id in self.floats
        if isinstance(node, ast.BinOp):  # float64 with int, bool or float64: float64
            return self.is_float(node.left) and self.is_low(node.right) or \
                self.is_float(node.right) and self.is_low(node.left)
        if isinstance(node, ast.UnaryOp):
            return self.is_float(node.operand)
        if isinstance(node, ast.Subscript) or isinstance(node, ast.Attribute) and node.attr == "T":
            return self.is_float(node.value) and self.is_low(node)  # a view, or a gather
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in ("np.zeros", "np.ones") and not node.keywords:
                return True
            if name == "np.where" and len(node.args) == 3:
                return self.is_float(node.args[1]) or self.is_float(node.args[2])
            if ufunc_of(node) is not None:
                return any(self.is_float(a) for a in node.args) and self.is_low(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS:
                return self.is_float(node.func.value)
        return False

    def is_low(self, node):
        """Whether ``node`` is surely of dtype bool, an integer or float64 (Python numbers too)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and not isinstance(n.value, (bool, int, float)) and \
                    n.value is not None:
                return False
        called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
        return all(n.id in self.low or n.id == "np" for n in ast.walk(node)
                   if isinstance(n, ast.Name) and id(n) not in called)


class Sources:
    """For the lazy specialisation only (``array_buffers``' rule for Dask arguments): which
    parameters each name is computed from. An operand may update a buffer in place only if it is
    computed from the buffer's own parameters (a Dask operand never meets a NumPy buffer: NumPy
    cannot write a Dask value into it).

    Args:
        floats: the parameters (each computed from itself).
    """

    _CONSTRUCTORS = frozenset({"np.zeros", "np.ones", "np.full", "np.eye", "np.arange",
                               "np.array"})

    def __init__(self, floats):
        self.of_name = {name: {name} for name in floats}

    def of(self, node):
        """The parameters ``node`` is computed from (not through ``.shape``: a size is an int).
        A constructor (``np.zeros(shape)``, ``np.full``) makes a NumPy array whatever its
        arguments: none."""
        if isinstance(node, ast.Call) and dotted(node.func) in self._CONSTRUCTORS:
            return set()
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim", "dtype"):
            return set()
        if isinstance(node, ast.Name):
            return set(self.of_name.get(node.id, ()))
        found = set()
        for child in ast.iter_child_nodes(node):
            found |= self.of(child)
        return found

    def record(self, target, value):
        self.of_name[target] = self.of(value)

    def allows(self, leaf, other):
        return self.of(other) <= self.of(leaf)


def _broadcast(*shapes):
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(-rank, 0):
        found = ONE
        for s in shapes:
            if len(s) < -axis or s[axis] == ONE:
                continue
            if found == ONE:
                found = s[axis]
            elif found != s[axis]:
                return None
        result.append(found)
    return tuple(result)


def _matmul(a, b):
    if a is None or b is None or not 1 <= len(a) <= 2 or not 1 <= len(b) <= 2:
        return None
    return tuple(a[:-1]) + tuple(b[1:])

"""Subscripts of array values, for the array frontend: ``x[i]``, ``x[1:]``, ``x[::2]``,
``x[:, None]``, ``x[..., 0]``, ``E[INDEX]`` (a constant int array: a gather, whose adjoint is a
scatter-add), ``L[np.triu_indices(n)]`` (two index arrays), an index the code computes
(``x[np.argmax(stop_gradient(x))]``), and the refusal of boolean masks."""
import ast

import numpy as np
import sympy

from . import array_indexing, array_ops
from .array_arguments import is_condition
from .functions import StopGradient


class IndexReader:
    """The subscript half of ``array_frontend.ArrayReader`` (a mixin)."""

    def subscript(self, base, node, frame):
        """``x[i]``, ``x[1:]``, ``x[::2]``, ``x[:, None]``, ``x[..., 0]``, ``E[INDEX]``."""
        if not isinstance(base, sympy.Expr):
            return self.sequence(base, node, frame)
        self.need_arrays()
        shape = self.shape_at(base, node, frame)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        consuming = sum(1 for i in items if not is_new_axis(i, self, frame) and not (
            isinstance(i, ast.Constant) and i.value is Ellipsis))
        spec, new_axes, out = [], [], 0
        for item in items:
            if isinstance(item, ast.Constant) and item.value is Ellipsis:
                for _ in range(len(shape) - consuming):
                    spec.append(("slice", None, None, None))
                    out += 1
                continue
            if is_new_axis(item, self, frame):
                new_axes.append(out)
                out += 1
                continue
            for entry in self.index_item(item, shape[len(spec):], node, frame):
                if len(spec) >= len(shape):
                    self.fail(node, frame, f"too many indices for an array of rank {len(shape)}",
                              "check the index")
                spec.append(entry)
                out += 1 if entry[0] == "slice" else 0
        arrays = [e for e in spec if e[0] == "array"]
        if new_axes and arrays:
            self.fail(node, frame, "index arrays with None (np.newaxis) in one subscript are not "
                      "supported", "index first, then add the axis: y = x[idx]; y[:, None]")
        if len({tuple(e[2]) for e in arrays}) > 1:
            self.fail(node, frame, "index arrays of different shapes in one subscript are not "
                      "supported", "index with arrays of one shape (np.triu_indices(n) gives two)")
        while spec and spec[-1] == ("slice", None, None, None):
            spec.pop()
        folded = self._constant_index_array(base, spec, new_axes, node, frame)
        if folded is not None:
            return folded
        value = base
        if spec:
            value = self.node_value(array_indexing.index(base, tuple(spec)), "item", node, frame)
        if new_axes:
            value = self.node_value(array_ops.expand_dims(value, tuple(new_axes)), "expanded",
                                    node, frame)
        return value

    def _constant_index_array(self, base, spec, new_axes, node, frame):
        """``IDX[1:]``, ``IDX[0]`` of a constant int array: the constant itself, taken when the
        gradient is built (an int, or a constant int array another subscript can index with);
        None for any other subscript."""
        if not (isinstance(base, sympy.Symbol) and base.name in self.constants
                and self.constants[base.name].dtype.kind in "iu") or any(
                    e[0] not in ("int", "slice", "array") or (
                        e[0] == "slice" and not all(b is None or isinstance(b, int)
                                                    for b in e[1:])) for e in spec):
            return None
        items = []
        for e in spec:
            if e[0] == "int":
                items.append(e[1])
            elif e[0] == "slice":
                items.append(slice(*e[1:]))
            else:
                items.append(self.constants[e[1]] if e[1] is not None else np.array(e[3]))
        value = self.constants[base.name][tuple(items)]
        if new_axes:
            value = np.expand_dims(value, tuple(new_axes))
        if np.ndim(value) == 0:
            return sympy.Integer(int(value))
        return self.constant_array(np.ascontiguousarray(value), node, frame, base=base.name)

    def constant_indices(self, value):
        """The int array ``value`` holds when the gradient is built (a constant, or ``np.array``
        of ints: ``x[np.array([0, 1])]``), else None."""
        if not isinstance(value, sympy.Symbol):
            return None
        if value.name in self.constants:
            return self.constants[value.name]
        made = next((expr for expr, symbol in self.bound_nodes.items() if symbol == value), None)
        if isinstance(made, array_indexing.ARRAY_OF.node) and all(
                e.is_Integer for e in made.inputs):
            return np.array([int(e) for e in made.inputs]).reshape(made.params[0])
        return None

    def index_item(self, item, dims, node, frame):
        """The spec entries of one subscript item over the axes ``dims`` it starts at: one, or
        one per array of a tuple of index arrays (``x[np.triu_indices(n)]``)."""
        if isinstance(item, ast.Slice):
            bounds = [None if b is None or (isinstance(b, ast.Constant) and b.value is None)
                      else self.integer(b, frame) for b in (item.lower, item.upper, item.step)]
            if bounds[2] == 0:
                self.fail(item, frame, "a slice step cannot be zero", "use a step of 1 or more")
            return [("slice", *bounds)]
        value = self.value(item, frame)
        if isinstance(value, tuple) and value and all(
                isinstance(v, sympy.Symbol) and self.index_array(v) for v in value):
            return [self.index_value(v, d, item, frame) for v, d in zip(value, dims)]
        return [self.index_value(value, dims[0] if dims else None, item, frame)]

    def index_array(self, value):
        """Whether the symbol ``value`` is an int array: a constant, or computed by the code
        (``np.triu_indices``)."""
        if value.name in self.constants:
            return self.constants[value.name].dtype.kind in "iu"
        return value in self.integer_values and bool(self.dims.of(value))

    def index_value(self, value, dim, item, frame):
        """One index (an int, a constant int array or list) as an entry of an index spec."""
        if is_condition(value) or (
                isinstance(value, sympy.Symbol) and value.name in self.constants
                and self.constants[value.name].dtype.kind == "b"):
            self.fail(item, frame, "boolean-mask indexing is not supported (the result's size "
                      "depends on the values)", "use np.where(mask, x, 0.0) to keep the shape")
        if dim is None:
            self.fail(item, frame, "too many indices for this array", "check the index")
        if isinstance(value, StopGradient) and value.args[0] in self.integer_values:
            value = value.args[0]  # stop_gradient(np.argmax(x)): an index has no gradient
        if isinstance(value, sympy.Symbol) and value in self.integer_values:
            shape = self.dims.of(value)  # an index computed when called (np.argmax)
            return ("array", value, shape, ()) if shape else ("at", value)
        if isinstance(value, sympy.Expr) and value.free_symbols & self.integer_values:
            self.fail(item, frame, "an index computed by the code is read as the value of "
                      "np.argmax, np.argmin, np.argsort or a triangle's indices itself; "
                      "arithmetic on it is not supported", "index with the value itself (x[i]), "
                      "and shift the array instead of the index")
        indices = self.constant_indices(value)
        if indices is not None and value.name not in self.constants:  # np.array([0, 1])
            value = self.constant_array(indices, item, frame, base="index")
        if isinstance(value, sympy.Symbol) and value.name in self.constants:
            indices = self.constants[value.name]
            if indices.dtype.kind not in "iu":
                self.fail(item, frame, "an index array must hold ints", "index with an int array")
            self._check_range(indices, dim, item, frame)
            return ("array", value.name, tuple(indices.shape), ())
        if isinstance(value, tuple) and all(isinstance(v, sympy.Integer) for v in value):
            indices = np.array([int(v) for v in value])
            self._check_range(indices, dim, item, frame)
            return ("array", None, (len(value),), tuple(int(v) for v in value))
        if isinstance(value, sympy.Integer):
            if dim.is_Integer and not -int(dim) <= int(value) < int(dim):
                self.fail(item, frame, f"index {int(value)} is out of range for size {dim}",
                          "check the index")
            return ("int", int(value))
        if isinstance(value, sympy.Expr) and self.dims.of(value):
            self.fail(item, frame, "indexing with an array computed from the arguments is not "
                      "supported", "index with ints, slices or a constant int array; for a "
                      "mask use np.where")
        if isinstance(value, sympy.Expr) and not value.is_Integer and value.is_integer:
            self.fail(item, frame, "an index must be an int known when the gradient is built",
                      "count from the end with a negative int: x[-1]")
        return self.fail(item, frame, "an index must be an int, a slice, None or a constant int "
                         "array", "check the index")

    def _check_range(self, indices, dim, item, frame):
        if indices.size and dim.is_Integer and not (-int(dim) <= indices.min() and
                                                    indices.max() < int(dim)):
            self.fail(item, frame, f"an index in this array is out of range for size {dim}",
                      "check the index array")


def is_new_axis(item, reader, frame):
    if isinstance(item, ast.Constant) and item.value is None:
        return True
    if isinstance(item, ast.Attribute) and item.attr == "newaxis":
        return True
    return False

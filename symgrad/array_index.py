"""Subscripts of array values, for the array frontend: ``x[i]``, ``x[1:]``, ``x[::2]``,
``x[:, None]``, ``x[..., 0]``, ``E[INDEX]`` (a constant int array: a gather, whose adjoint is a
scatter-add), ``L[np.triu_indices(n)]`` (two index arrays), an index the code computes
(``x[np.argmax(stop_gradient(x))]``), and the refusal of boolean masks."""
import ast

import numpy as np
import sympy

from . import argument_refusals, array_indexing, array_ops
from .array_arguments import is_condition
from .functions import StopGradient
from .program import SizeCheck
from .shapes import ShapeError, is_dim


class IndexReader:
    """The subscript half of ``array_frontend.ArrayReader`` (a mixin)."""

    def subscript(self, base, node, frame):
        """``x[i]``, ``x[1:]``, ``x[::2]``, ``x[:, None]``, ``x[..., 0]``, ``E[INDEX]``."""
        if not isinstance(base, sympy.Expr):
            return self.sequence(base, node, frame)
        self.need_arrays()
        shape = self.shape_at(base, node, frame)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        read = {id(i): self.value(i, frame) for i in items if not (  # each item read once
            isinstance(i, ast.Slice) or is_new_axis(i, self, frame) or isinstance(
                i, ast.Constant) and i.value is Ellipsis)}
        consuming = sum(self.axes_taken(v) for v in read.values()) + sum(
            1 for i in items if isinstance(i, ast.Slice))
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
            entries = self.index_item(item, shape[len(spec):], node, frame, read.get(id(item)))
            for entry in entries:
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
            self._same_shapes([e[2] for e in arrays], node, frame)
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
                        e[0] == "int" and not isinstance(e[1], int)) or (
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

    def _same_shapes(self, shapes, node, frame):
        """Index arrays of one subscript have one shape (``Z[np.arange(n), LABELS]``: ``n`` is
        the labels' count), as NumPy requires of them (without broadcasting)."""
        try:
            if len({len(shape) for shape in shapes}) > 1:
                raise ShapeError("ranks differ")
            for shape in shapes[1:]:
                for a, b in zip(shapes[0], shape):
                    self.dims.unify(sympy.sympify(a), sympy.sympify(b))
        except ShapeError:
            self.fail(node, frame, "index arrays of different shapes in one subscript are not "
                      "supported", "index with arrays of one shape (np.triu_indices(n) gives two)")

    def _steps(self, value):
        """The ``np.arange`` of ints the symbol ``value`` is bound to (an index array: constant
        when its bounds are ints, computed when called from sizes: ``np.arange(len(x))``), else
        None."""
        made = next((expr for expr, symbol in self.bound_nodes.items() if symbol == value), None)
        if isinstance(made, array_indexing.ARANGE.node) and all(
                p.is_integer for p in made.params):
            return made
        return None

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
        if isinstance(made, array_indexing.ARANGE.node) and all(
                p.is_Integer for p in made.params):  # np.arange(4): a constant
            return np.arange(*[int(p) for p in made.params])
        return None

    def axes_taken(self, value):
        """How many axes the subscript item of value ``value`` indexes: a constant boolean mask
        as many as its rank (NumPy's rule), a tuple of index arrays one each, anything else 1."""
        if self.constant_mask_of(value) is not None:
            return self.constant_mask_of(value).ndim
        if self.index_arrays(value):
            return len(value)
        return 1

    def index_arrays(self, value):
        """Whether ``value`` is a tuple of index arrays (``np.triu_indices(n)``)."""
        return isinstance(value, tuple) and bool(value) and all(
            isinstance(v, sympy.Symbol) and self.index_array(v) for v in value)

    def index_item(self, item, dims, node, frame, value=None):
        """The spec entries of one subscript item over the axes ``dims`` it starts at: one, or
        one per array of a tuple of index arrays (``x[np.triu_indices(n)]``) or per axis of a
        constant boolean mask. ``value``: the item's value when it was read already."""
        if isinstance(item, ast.Slice):
            bounds = [None if b is None or (isinstance(b, ast.Constant) and b.value is None)
                      else self.slice_bound(b, frame, k == 2)
                      for k, b in enumerate((item.lower, item.upper, item.step))]
            if bounds[2] == 0:
                self.fail(item, frame, "a slice step cannot be zero", "use a step of 1 or more")
            return [("slice", *bounds)]
        value = self.value(item, frame) if value is None else value
        if self.constant_mask_of(value) is not None:
            return self.constant_mask(value, dims, item, frame)
        if self.index_arrays(value):
            return [self.index_value(v, d, item, frame) for v, d in zip(value, dims)]
        return [self.index_value(value, dims[0] if dims else None, item, frame)]

    def slice_bound(self, node, frame, step):
        """A slice bound: an int known when the gradient is built, or a size the function reads
        (``x[len(x) // 2:]``, ``x[:n - 1]``: a nonnegative integer of the sizes, printed as
        written in the generated code); a step is an int."""
        value = self.value(node, frame)
        if not step and isinstance(value, sympy.Expr) and not value.is_Integer and \
                value.is_integer and value.free_symbols and all(
                    is_dim(d) for d in value.free_symbols):
            if value.is_nonnegative:
                return value
            if value.is_negative:
                self.fail(node, frame, "a slice bound computed from a size must not be negative",
                          "count from the end with a negative int (x[:-1]) or use a nonnegative "
                          "size (x[:len(x) - 1])")
            # x[0:n - 2] with n = len(x): a nonnegative bound at the sizes it is used at. The
            # shapes below take it as written; at a size where it is negative Python would
            # count it from the end (x[0:-1] at n = 3 has 2 elements, not 0), so the gradient
            # raises there instead of giving a number of another length
            text = self.dims.text(value)
            check = SizeCheck(tuple(self.path) + ((sympy.Lt(value, 0), True),), "ValueError",
                          f"the slice bound {text} (line {node.lineno}) is negative at these "
                          f"sizes, and the gradient is built for the sizes where it is not "
                          f"(Python would count it from the end)")
            if check not in self.checks:
                self.checks.add(check)
                self.assignments.append(check)
            return value
        return self.integer(node, frame)

    def index_array(self, value):
        """Whether the symbol ``value`` is an int array: a constant, or computed by the code
        (``np.triu_indices``)."""
        if value.name in self.constants:
            return self.constants[value.name].dtype.kind in "iu"
        return value in self.integer_values and bool(self.dims.of(value))

    def index_value(self, value, dim, item, frame):
        """One index (an int, a constant int array or list) as an entry of an index spec."""
        if dim is None:
            self.fail(item, frame, "too many indices for this array", "check the index")
        if is_condition(value):
            self.fail(item, frame, "boolean-mask indexing is not supported (the result's size "
                      "depends on the values)", "use np.where(mask, x, 0.0) to keep the shape")
        if isinstance(value, sympy.Expr) and not value.is_Integer and value.is_integer and (
                value - dim).is_Integer and (value - dim).is_negative:
            value = value - dim  # x[n - 1] with n = len(x): x[-1]
        if isinstance(value, StopGradient) and value.args[0] in self.integer_values:
            value = value.args[0]  # stop_gradient(np.argmax(x)): an index has no gradient
        if isinstance(value, sympy.Symbol) and (value in self.integer_values or (
                self.constant_indices(value) is None and self._steps(value) is not None)):
            shape = self.dims.of(value)  # an index computed when called (np.argmax, np.arange)
            return ("array", value, shape, ()) if shape else ("at", value)
        if isinstance(value, sympy.Expr) and value.free_symbols & self.integer_values:
            self.fail(item, frame, "an index computed by the code is read as the value of "
                      "np.argmax, np.argmin, np.argsort or a triangle's indices itself; "
                      "arithmetic on it is not supported", "index with the value itself (x[i]), "
                      "and shift the array instead of the index")
        indices = self.constant_indices(value)
        if indices is not None and value.name not in self.constants:  # np.array([0, 1])
            if value.name not in self.index_constants:  # one constant for the node
                self.index_constants[value.name] = [self.constant_array(
                    indices, item, frame, base="rows" if self._steps(value) is not None
                    else "index")]
            value = self.index_constants[value.name][0]
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
            name = argument_refusals.parameter_in(item, frame)
            if name:  # logp[np.arange(n), labels]: integer labels passed as an argument
                self.fail(item, frame, *argument_refusals.labels(name))
            self.fail(item, frame, "indexing with an array computed from the arguments is not "
                      "supported", "index with ints, slices or a constant int array; for a "
                      "mask use np.where")
        if isinstance(value, sympy.Expr) and not value.is_Integer and value.is_integer and all(
                is_dim(s) for s in value.free_symbols):
            if (value - dim).is_nonnegative or (value + dim).is_negative:
                self.fail(item, frame, f"index {self.dims.text(value)} is out of range for size "
                          f"{self.dims.text(self.dims.dim(dim))}", "check the index")
            return ("int", value)  # x[n // 2]: a size the function reads, printed as written
        if isinstance(value, sympy.Expr) and not value.is_Integer and value.is_integer:
            self.fail(item, frame, "an index must be an int known when the gradient is built",
                      "count from the end with a negative int: x[-1]")
        return self.fail(item, frame, "an index must be an int, a slice, None or a constant int "
                         "array", "check the index")

    def constant_mask(self, value, dims, item, frame):
        """The spec entries of a constant boolean mask (``x[MASK]``, ``X[MASK2D]``): its size is
        known when the gradient is built, so it indexes as the constant int arrays
        ``np.nonzero(MASK)``, one per axis it covers (NumPy's rule: ``X[MASK]`` is
        ``X[np.nonzero(MASK)]``; of one axis ``np.flatnonzero(MASK)``); the axes must have the
        mask's sizes, as NumPy requires (checked when called)."""
        mask = self.constants[value.name]
        if mask.ndim > len(dims):
            self.fail(item, frame, f"a boolean mask of rank {mask.ndim} for "
                      f"{len(dims)} ax{'i' if len(dims) == 1 else 'e'}s", "give the mask the "
                      "shape of the axes it indexes")
        for d, extent in zip(dims, mask.shape):
            try:
                self.dims.unify(d, sympy.Integer(extent))
            except ShapeError:
                sizes = [self.dims.text(self.dims.dim(e)) for e in dims[:mask.ndim]]
                self.fail(item, frame, f"a boolean mask of shape {mask.shape} for axes of sizes "
                          f"({', '.join(sizes)}{',' * (mask.ndim == 1)})", "give the mask the "
                          "shape of the axes it indexes")
        found = self.index_constants.get(value.name)
        if found is None:
            if mask.ndim == 1:
                suffixes = ("_at",)
            elif mask.ndim == 2:
                suffixes = ("_rows", "_columns")
            else:
                suffixes = tuple(f"_axis{k}" for k in range(mask.ndim))
            found = [self.constant_array(p, item, frame, base=value.name + suffix)
                     for p, suffix in zip(np.nonzero(mask), suffixes)]
            self.index_constants[value.name] = found
        return [self.index_value(p, d, item, frame) for p, d in zip(found, dims)]

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

"""The arguments of a call of an array row, as the row's ``read`` sees them (``Arguments``)."""
import numpy as np
import sympy

from . import array_indexing
from .array_ops import broadcast_to
from .shapes import ShapeError, show, size
from .written import AsWritten


def is_condition(value):
    """A SymPy boolean that is not a number (SymPy's symbols are booleans too)."""
    return isinstance(value, sympy.logic.boolalg.Boolean) and not isinstance(value, sympy.Expr)


class Negation(sympy.Not):
    """NumPy's ``~c`` or ``np.logical_not(c)`` of an element condition, kept as written: SymPy's
    ``Not(x > 0)`` is ``x <= 0``, which is another branch where ``x`` is nan (both are False)."""

    @classmethod
    def eval(cls, arg):
        if arg is sympy.true or arg is sympy.false:
            return sympy.false if arg is sympy.true else sympy.true
        return None


class Arguments:
    """What a row's ``read`` may ask of the call being read (see ``arrays``)."""

    def __init__(self, reader, node, frame, spelling=None):
        self.reader, self.node, self.frame, self.spelling = reader, node, frame, spelling
        self.operands = []  # what `array` and `condition` gave: an elementwise row's operands

    def fail(self, what, hint=None):
        self.reader.fail(self.node, self.frame, what, hint)

    def shape(self, expr):
        return self.reader.shape_at(expr, self.node, self.frame)

    def mean_count(self, count):
        """The refusal of a mean (``np.mean``, ``np.var``, ``np.std``) over ``count`` = 0
        elements: NumPy's value is nan (with a warning), and no gradient of a nan exists."""
        if count == 0:
            self.fail("this is a mean over no element (an empty axis at these sizes): NumPy "
                      "gives nan", "differentiate at arrays of more elements")

    def bind(self, expr, label, shape=None):
        """Name the node ``expr``; with ``shape``, an elementwise ``expr`` keeps that shape where
        SymPy folds it to a number (``Z[1:] - Z[:-1]`` of an array of zeros is ``0``: its two
        slices are one node)."""
        if shape is not None and self.shape(expr) != tuple(shape):
            expr = broadcast_to(expr, tuple(shape))
        return self.reader.anonymous(expr, label)

    def elementwise(self, expr):
        """``expr``, a row's value computed elementwise of the operands its ``read`` asked for
        (``array``, ``condition``), with their broadcast shape where SymPy folds it to a number or
        a smaller array: ``np.where(c, 1.0, 1.0)`` and ``np.clip(x, 1.0, 1.0)`` are 1.0 to SymPy,
        arrays in NumPy."""
        shape = self.reader.broadcast_at([self.shape(o) for o in self.operands], self.node,
                                         self.frame)
        return self.reader.shaped(expr, shape, self.node, self.frame) if shape else expr

    def array(self, value):
        if isinstance(value, tuple):
            value = self.array_of(value)
        elif not isinstance(value, sympy.Expr):
            value = self.reader.number(value, self.node, self.frame)
        self.operands.append(value)
        return value

    def scalar(self, value):
        value = self.array(value)
        if self.shape(value):
            self.fail("an array is given where one number is needed", "pass a number")
        return value

    def value_only(self, value):
        """The array ``value`` as the input of a function with no derivative (``np.argmax``),
        wrapped in ``StopGradient``: accepted inside ``stop_gradient(...)`` or where no gradient
        flows through ``value`` (refused, naming the function, where one would)."""
        from .functions import StopGradient
        x = self.array(value)
        if not self.reader.stopping and self.reader.differentiable(x):
            call = f"stop_gradient(x){self.spelling}()" if self.spelling.startswith(".") else \
                f"{self.spelling}(stop_gradient(x))"
            self.fail(f"`{self.spelling}` has no derivative: symgrad can compute only its value, "
                      "and here its derivative would be needed", "where only its value matters, "
                      f"stop the gradient of its argument: {call}")
        return StopGradient(x)

    def constant(self, array, name):
        """A constant NumPy array made when the gradient is built (``np.triu_indices(3)``),
        named after ``name`` in the generated code."""
        return self.reader.constant_array(array, self.node, self.frame, name)

    def may_be_infinite(self, expr):
        """Whether ``expr`` holds an infinite constant (``np.where(mask, x, -np.inf)``), itself or
        through the names it reads: a reduction of it may meet only infinities."""
        from .program import Assignment
        made = {a.target: a.expr for a in self.reader.assignments if isinstance(a, Assignment)}
        seen, stack = set(), [expr]
        while stack:
            e = stack.pop()
            if not isinstance(e, sympy.Basic) or e in seen:
                continue
            seen.add(e)
            if e in (sympy.oo, -sympy.oo):
                return True
            stack.extend(e.args)
            if e in made:
                stack.append(made[e])
        return False

    def condition(self, value):
        if is_condition(value):
            self.operands.append(value)
            return value
        return sympy.Ne(self.array(value), 0)

    def flag(self, value):
        if value in (True, False, sympy.true, sympy.false) or value in (0, 1):
            return bool(value)
        return self.fail("this must be True or False, known when the gradient is built",
                         "write the literal True or False")

    def axes(self, value, rank, ordered=True):
        if value is None:
            return tuple(range(rank))
        items = value if isinstance(value, tuple) else (value,)
        found = []
        for item in items:
            if isinstance(item, int) and not isinstance(item, bool):
                item = sympy.Integer(item)
            if not isinstance(item, sympy.Integer):
                self.fail("an axis must be an int known when the gradient is built",
                          "write the axis as a literal int or a tuple of ints")
            k = int(item)
            if not -rank <= k < rank:
                self.fail(f"axis {k} is out of range for an array of rank {rank}",
                          "check the axis")
            found.append(k % rank)
        if len(set(found)) != len(found):
            self.fail("an axis is repeated", "name each axis once")
        return tuple(sorted(found)) if ordered else tuple(found)

    def integer(self, value):
        """``value`` as a Python int known when the gradient is built (a size the build fixed
        since it was computed too: ``ArrayReader.size_now``)."""
        value = self.reader.size_now(value)
        if isinstance(value, sympy.Integer) or (isinstance(value, int) and
                                                 not isinstance(value, bool)):
            return int(value)
        return self.fail("this must be an int known when the gradient is built",
                         "write it as a literal int")

    def new_shape(self, value, current):
        items = value if isinstance(value, tuple) else (value,)
        dims, unknown = [], None
        for k, item in enumerate(items):
            if isinstance(item, AsWritten):  # a size the build fixed, printed as written
                item = item.args[0]
            if isinstance(item, int) and not isinstance(item, bool):
                item = sympy.Integer(item)
            if not isinstance(item, sympy.Expr) or not (item.is_Integer or item.is_integer):
                self.fail("a shape must be made of ints and array sizes (x.shape[0], len(x))",
                          "write the shape as a tuple of ints or sizes")
            if item == -1 and current is not None:
                if unknown is not None:
                    self.fail("only one size may be -1", "give the other sizes")
                unknown = k
            elif item.is_Integer and item < 1:
                self.fail(f"the size {item} is not supported", "use sizes of at least 1")
            dims.append(item)
        if unknown is not None:
            dims[unknown] = sympy.simplify(size(current) / size([d for i, d in enumerate(dims)
                                                                 if i != unknown]))
        if current is not None and sympy.simplify(size(dims) - size(current)) != 0 and not \
                self._counts_meet(size(current), size(dims)):
            labels = self.reader.dims.labels
            self.fail(f"cannot reshape an array of shape {show(current, labels)} into "
                      f"{show(dims, labels)}",
                      "keep the number of elements")
        dims = [self.reader.dims.dim(sympy.sympify(d)) for d in dims]
        return tuple(sympy.Integer(d) if d.is_Integer else d for d in dims)

    def _counts_meet(self, have, want):
        """Whether a reshape's element counts, which differ as written, are made equal (``Dims``:
        a call-time size solved for, or the equality checked when called), as sizes meet in
        ``x * y``: without ``shapes=``, ``X.reshape(X.shape[1], 1)`` of a square ``X`` makes
        its two sizes one."""
        dims = self.reader.dims
        have, want = dims.dim(have), dims.dim(want)  # a count found equal to another before
        # (v0 * v1 for X0 * X1 after reshaping one into the other) is that one: into
        # (v2, v0), its v0 * v1 meets v0 * v2 (array fuzzer 124-747)
        if have == want:  # the same reshape read again (133-3326)
            return True
        common = sympy.gcd(have, want)  # (n, d, 1) into (m, d): n and m meet
        have, want = sympy.cancel(have / common), sympy.cancel(want / common)
        if 1 in (have, want) or not (have.is_integer and want.is_integer):
            return False  # a call-time size is >= 2 here
        try:
            dims.unify(have, want)
        except ShapeError:
            return False
        return True

    def index_entry(self, value, dim):
        return self.reader.index_value(value, dim, self.node, self.frame)

    def constant_indices(self, value):
        """The int array ``value`` holds when the gradient is built, else None."""
        return self.reader.constant_indices(value) if isinstance(value, sympy.Symbol) else None

    def array_of(self, value):
        if isinstance(value, sympy.Expr):
            return value
        shape, flat = [], []

        def walk(v, depth):
            if isinstance(v, tuple):
                if len(shape) <= depth:
                    shape.append(len(v))
                elif shape[depth] != len(v):
                    self.fail("the rows of this array have different lengths",
                              "give every row the same length")
                for item in v:
                    walk(item, depth + 1)
            else:
                if len(shape) != depth:
                    self.fail("the rows of this array have different depths", "nest evenly")
                item = self.array(v)
                if self.shape(item):
                    self.fail("np.array of arrays is not supported here",
                              "build arrays from numbers (np.array([a, b]))")
                flat.append(item)
        if isinstance(value, tuple) and _bools(value) is not None:  # np.array([True, False])
            return self.constant(np.array(_bools(value)), "mask")  # a constant mask, as NumPy's
        walk(value, 0)
        if not flat:
            self.fail("an empty array is not supported", "give it elements")
        return self.bind(array_indexing.ARRAY_OF.make(*flat, params=(tuple(shape),)), "stacked")


def _bools(value):
    """The nested lists of Python bools of a tuple of SymPy's ``true``/``false`` (``np.array``
    of a literal mask), else None."""
    if isinstance(value, tuple) and value:
        items = [_bools(v) for v in value]
        return items if all(i is not None for i in items) else None
    if value is sympy.true or value is sympy.false:
        return bool(value)
    return None

"""Static shapes of array values: a rank known when the gradient is built, sizes as symbols.

A shape is a tuple of *dimensions*, one per axis: the literal ``1`` (``sympy.Integer(1)``) for an
axis of size 1, another integer for an axis of a constant array, or an integer-valued SymPy
expression of dimension symbols (``n``, ``d``, ``n - 1`` for ``x[1:]``). Sizes never enter a
Program as numbers: the generated code reads them (``n = X.shape[0]``), so one build serves every
size. A dimension symbol other than ``1`` stands for a size other than 1 (a call with a size-1 axis
builds its own specialisation), which is what lets broadcasting be resolved at build time.

``Shapes`` holds the shape of every array symbol of a program and computes the shape of any
expression: elementwise expressions broadcast their operands (NumPy's rule), array nodes
(``arrays.ArrayNode``) apply their row's shape rule. While a function is read, two dimensions that
must be equal (the inner sizes of ``X @ w``, the two sides of ``x + y``) are *unified*: a
call-time dimension takes the other's value, a named one the size of a constant array; two
different names given in ``shapes=`` raise. Two size *expressions* (``x[1:]`` and ``y[1:]`` of
call-time sizes: ``n - 1`` and ``m - 1``) unify by solving for a call-time size (``m = n``) where
the solution is one expression, else by recording the equality (``ceiling(m/2)`` stands for
``ceiling(n/2)`` from then on); either way the generated code checks at call time that the sizes
are equal (``Shapes.equal``), where NumPy would raise for sizes that differ.
"""
import sympy

ONE = sympy.Integer(1)


class ShapeError(Exception):
    """Two shapes that cannot meet (broadcast or contract). ``str`` says which."""


def dim_symbol(name):
    """The symbol of one array dimension: an integer >= 1 (``n``, ``d``)."""
    return sympy.Symbol(name, integer=True, positive=True)


def is_dim(symbol):
    """Whether ``symbol`` is a dimension symbol (the array sizes, not a value)."""
    return symbol.is_Symbol and symbol.is_integer is True


def show(shape, labels=None):
    """``(n, d)`` as text, for messages; ``labels`` names call-time sizes (``x.shape[0]``)."""
    labels = labels or {}
    inner = ", ".join(str(d.xreplace(labels)) if labels and not d.is_Number else str(d)
                      for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _literals(expr):
    """The largest magnitude of a number in ``expr`` (its breakpoints: ``Min(3, d)``, ``d/2``)."""
    numbers = [abs(v) for a in expr.atoms(sympy.Rational) for v in (a.p, a.q)]
    return max(numbers, default=1)


def from_two(expr):
    """What the size ``expr`` of one dimension symbol is for every size of it from 2 up (a
    dimension symbol stands for a size other than 1, see the module docstring): ``("constant",
    k)`` when it is ``k`` for all of them (``Min(2, d) - 1`` is 1: ``x[:, 1:2]``), ``("one", None)``
    when it is 1 for all large sizes and 0 or 1 below (``x[:, 2:3]``: 1 when the slice is not
    empty), else None. Exact: below the largest number in ``expr`` every size is evaluated, and
    from there on SymPy resolves every ``Min``/``Max`` of ``d = K + t`` (``t >= 0``), or no claim is
    made."""
    symbols = [s for s in expr.free_symbols if is_dim(s)]
    if len(symbols) != 1 or expr.free_symbols != set(symbols):
        return None
    d = symbols[0]
    start = 2 * _literals(expr) + 4
    tail = sympy.Symbol("_t", integer=True, nonnegative=True)
    large = expr.xreplace({d: tail + start})
    if not large.is_Integer:
        return None
    small = {expr.xreplace({d: sympy.Integer(k)}) for k in range(2, start)}
    if small <= {large}:
        return ("constant", large)
    if large == ONE and small <= {ONE, sympy.Integer(0)}:
        return ("one", None)
    return None


def size(shape):
    """The number of elements of ``shape`` (a SymPy integer expression)."""
    return sympy.Mul(*shape) if shape else ONE


class Shapes:
    """The shapes of a program's array symbols, and shape inference for expressions.

    Attributes:
        table: symbol → shape (a tuple of dimensions); a symbol not in it is a scalar, ``()``.
        named: dimension symbols named by the user (``shapes=``): they never unify with another.
    """

    def __init__(self, table=None, named=()):
        self.table = dict(table or {})
        self.named = set(named)
        self.subst = {}  # provisional dimension -> the dimension it was unified with
        self.labels = {}  # provisional dimension -> a symbol printing as where it is read
        self.equal = {}  # a size expression -> the one it stands for (checked at call time)
        self._memo = {}

    # --- dimensions ---------------------------------------------------------------------------
    def dim(self, d):
        """``d`` with every unification applied."""
        while d.is_Symbol and d in self.subst:
            d = self.subst[d]
        if not d.is_Symbol and not d.is_Number and d.free_symbols & set(self.subst):
            d = d.xreplace({s: self.dim(s) for s in d.free_symbols if s in self.subst})
        if self.equal and not d.is_Number:
            d = self.equal.get(d, d)
        return d

    def resolve(self, shape):
        return tuple(self.dim(d) for d in shape)

    def unify(self, a, b):
        """Make dimensions ``a`` and ``b`` equal (neither is 1); return the common one.

        Raises:
            ShapeError: two different user-named or constant sizes.
        """
        a, b = self.dim(a), self.dim(b)
        if a == b:
            return a
        for this, other in ((a, b), (b, a)):  # np.zeros(n - 2) beside x[0:n - 2]: a size is
            if this == sympy.Max(0, other):  # never negative where its array exists
                return this
        for this, other in ((a, b), (b, a)):  # a call-time size takes any; a named one an int
            if this.is_Symbol and this not in other.free_symbols and (
                    this not in self.named or other.is_Integer):
                self.subst[this] = other
                self._memo.clear()
                return other
        found = self._unify_expressions(a, b)
        if found is not None:
            return found
        raise ShapeError(f"the sizes {self.text(a)} and {self.text(b)} must be equal here, "
                         "and differ")

    def _unify_expressions(self, a, b):
        """``a == b`` for two sizes of which one is an expression (``n - 1``, ``ceiling(n/2)``):
        a call-time size solved for (``m - 1 == n - 1``: ``m = n``), else the equality recorded
        (``self.equal``: checked when called); None where they cannot be equal for a call (one
        size in both, ``n - 1`` and ``n``) or both are of sizes named in ``shapes=``."""
        free_a, free_b = a.free_symbols, b.free_symbols
        if (free_a & free_b) or not (free_a | free_b) - self.named:
            return None
        for this, other in ((a, b), (b, a)):
            for s in sorted(this.free_symbols - self.named, key=str):
                if this.has(sympy.Min, sympy.Max, sympy.ceiling, sympy.floor, sympy.Mod):
                    break
                try:
                    solved = sympy.solve(sympy.Eq(this, other), s, dict=False)
                except NotImplementedError:
                    solved = []
                if len(solved) == 1 and solved[0].is_integer and s not in solved[0].free_symbols:
                    self.subst[s] = solved[0]
                    self._memo.clear()
                    return self.dim(other)
        keep, replace = (a, b) if b.free_symbols - self.named else (b, a)
        if replace.is_Integer:
            return None
        self.equal[replace] = keep
        self._memo.clear()
        return keep

    def text(self, d):
        """One size as text, a call-time one as where it is read (``x.shape[0] - 1``)."""
        return show((d,), self.labels)[1:-2]

    # --- shapes -------------------------------------------------------------------------------
    def broadcast(self, *shapes):
        """NumPy's broadcast of ``shapes`` (trailing axes aligned, size-1 axes stretch).

        Raises:
            ShapeError: the shapes do not broadcast.
        """
        shapes = [self.resolve(s) for s in shapes]
        rank = max((len(s) for s in shapes), default=0)
        result = []
        for axis in range(-rank, 0):
            dims = [s[axis] for s in shapes if len(s) >= -axis]
            found = ONE
            ones = [d for d in dims if d != ONE and from_two(d) == ("one", None)]
            if ones and len(ones) < len([d for d in dims if d != ONE]):
                for d in ones:  # 1 when the slice is not empty (x[:, 2:3]): checked when called
                    self.equal[d] = ONE
                self._memo.clear()
                dims = [ONE if d in ones else d for d in dims]
            for d in dims:
                if d == ONE:
                    continue
                if found == ONE:
                    found = d
                elif found != d:
                    try:
                        found = self.unify(found, d)
                    except ShapeError:
                        raise ShapeError("shapes " + " and ".join(
                            show(s, self.labels) for s in shapes) + " do not broadcast") from None
            result.append(found)
        return tuple(result)

    def of(self, expr):
        """The shape of ``expr``: ``()`` for scalars and conditions on scalars.

        Raises:
            ShapeError: operands that do not broadcast.
        """
        found = self._memo.get(expr)
        if found is None:
            found = self._infer(expr)
            self._memo[expr] = found
        return self.resolve(found)

    def _infer(self, expr):
        if expr.is_Symbol:
            return self.table.get(expr, ())
        if expr.is_Atom:
            return ()
        rule = getattr(expr, "rule", None)
        if rule is not None:  # an array node: its row's shape rule
            return rule.shape(expr, [self.of(a) for a in expr.inputs], self)
        if isinstance(expr, sympy.Piecewise):
            parts = [p for e, c in expr.args for p in (e, c)]
        else:
            parts = expr.args
        return self.broadcast(*[self.of(a) for a in parts])

    def is_array(self, expr):
        """Whether ``expr`` has at least one axis."""
        return bool(self.of(expr))

    def copy(self):
        """A fresh ``Shapes`` with every unification applied to the table (no pending ones)."""
        table = {s: self.resolve(shape) for s, shape in self.table.items()}
        copied = Shapes(table, self.named)
        copied.equal = dict(self.equal)
        return copied


class ArrayInfo:
    """The array facts of a program (``Program.arrays``; None for a scalar program).

    Attributes:
        shapes: a ``Shapes`` with the shape of every array symbol (parameters, assignment targets,
            constants).
        dims: dimension symbol → ``(parameter name, axis)`` it is read from (``n = X.shape[0]``).
        constants: name → NumPy array, the module or closure constant arrays the code reads.
        defaults: parameter → the name of the constant holding its array default.
    """

    def __init__(self, shapes, dims, constants, defaults=None):
        self.shapes, self.dims, self.constants = shapes, dict(dims), dict(constants)
        self.defaults = dict(defaults or {})

    def with_shapes(self, shapes):
        return ArrayInfo(shapes, self.dims, self.constants, self.defaults)

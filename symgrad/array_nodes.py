"""The pieces every array row is made of: ``ArrayRule`` (a row), ``ArrayNode`` (an array primitive
in a program, an opaque SymPy function), ``Static`` (its build-time parameters) and the printing
helpers for sizes (``int_ast``, ``dims_ast``). The rows themselves are in ``array_ops``,
``array_indexing`` and ``array_linalg`` (array nodes) and ``arrays`` (the table, with the
spellings that need no node of their own).
"""
import ast
from dataclasses import dataclass, field

import sympy

from .shapes import ShapeError, is_dim

REQUIRED = object()


class Static(sympy.Atom):
    """A build-time Python value as the last argument of an array node: a tuple of axes, a flag,
    a shape (of SymPy dimensions), an index. Dimension symbols inside it follow ``xreplace``."""

    is_commutative = True

    def __new__(cls, value):
        obj = sympy.Atom.__new__(cls)
        obj.value = value
        obj._key = repr(value)  # compared and sorted as text: the tuples mix None, ints, sizes
        return obj

    def _hashable_content(self):
        return (self._key,)

    def _xreplace(self, rule):
        new = _replace_in(self.value, rule)
        return (Static(new), True) if new != self.value else (self, False)

    @property
    def free_symbols(self):
        """The program values it names (an index computed at call time, ``x[i]`` with ``i =
        np.argmax(...)``), so the code computing them is kept; sizes are not among them."""
        found = set()
        _symbols_in(self.value, found)
        return found

    def _sympystr(self, printer):
        return repr(self.value)

    def __getnewargs__(self):
        return (self.value,)


def _symbols_in(value, found):
    if isinstance(value, tuple):
        for v in value:
            _symbols_in(v, found)
    elif isinstance(value, sympy.Basic):
        found.update(s for s in value.free_symbols if not is_dim(s))


def _replace_in(value, rule):
    if isinstance(value, tuple):
        return tuple(_replace_in(v, rule) for v in value)
    if isinstance(value, sympy.Basic):
        return value.xreplace(rule)
    return value


class ArrayNode(sympy.Function):
    """An array primitive in a program: ``rule`` is its row; ``inputs`` its array arguments."""

    is_commutative = True
    rule = None

    @classmethod
    def eval(cls, *args):
        return None

    @classmethod
    def _should_evalf(cls, arg):
        return -1

    def _eval_is_real(self):
        return True

    @property
    def inputs(self):
        return self.args[:-1]

    @property
    def params(self):
        return self.args[-1].value

    def fdiff(self, argindex=1):
        raise TypeError(f"the array node {self.rule.name} is differentiated by its vjp")

    def _sympystr(self, printer):
        inner = ", ".join(printer._print(a) for a in self.args)
        return f"{self.rule.name}({inner})"


@dataclass(frozen=True)
class ArrayRule:
    """One array primitive (see the module docstring for each column)."""

    name: str
    python: tuple = ()
    methods: tuple = ()
    signature: tuple = ()
    read: object = None
    shape: object = None
    vjp: object = None
    numpy: object = None
    label: str = "t"
    integer: bool = False
    empty: object = None
    linear: bool = False
    elementwise: bool = False
    node: type = field(default=None, compare=False)

    def __post_init__(self):
        if self.shape is not None:
            object.__setattr__(self, "node", type(f"np_{self.name}", (ArrayNode,),
                                                  {"rule": self}))

    def make(self, *inputs, params=()):
        return self.node(*inputs, Static(params))


# --- printing helpers -----------------------------------------------------------------------
def int_ast(d):
    """An integer SymPy expression of dimensions as Python integer arithmetic (``n - 1``); a
    Python int too (a shape ``squeeze`` made: array fuzzer 22-87)."""
    if isinstance(d, int) or d.is_Integer:
        return ast.Constant(int(d))
    if d.is_Symbol:
        return ast.Name(d.name, ast.Load())
    if d.is_Pow and d.exp.is_Integer and d.exp > 1:  # n**2, the size of a square flattened
        return ast.BinOp(int_ast(d.base), ast.Pow(), ast.Constant(int(d.exp)))
    if d.is_Add:
        terms = list(d.as_ordered_terms())
        node = int_ast(terms[0])
        for t in terms[1:]:
            if t.could_extract_minus_sign():
                node = ast.BinOp(node, ast.Sub(), int_ast(-t))
            else:
                node = ast.BinOp(node, ast.Add(), int_ast(t))
        return node
    if d.is_Mul:
        if d.could_extract_minus_sign():
            return ast.UnaryOp(ast.USub(), int_ast(-d))
        coefficient, rest = d.as_coeff_Mul()
        if coefficient.is_Rational and not coefficient.is_Integer:  # n*d/2: (n * d) // 2
            return ast.BinOp(int_ast(coefficient.p * rest), ast.FloorDiv(),
                             ast.Constant(int(coefficient.q)))
        factors = d.as_ordered_factors()
        node = int_ast(factors[0])
        for f in factors[1:]:
            node = ast.BinOp(node, ast.Mult(), int_ast(f))
        return node
    if isinstance(d, (sympy.Min, sympy.Max)):  # Python's clamping of a slice
        return ast.Call(ast.Name("min" if isinstance(d, sympy.Min) else "max", ast.Load()),
                        [int_ast(a) for a in d.args], [])
    if isinstance(d, sympy.ceiling):  # ceil(a / k) = -(-a // k)
        num, den = d.args[0].as_numer_denom()  # also of an unevaluated Mul(1/2, n - 1)
        return ast.UnaryOp(ast.USub(), ast.BinOp(ast.UnaryOp(ast.USub(), int_ast(num)),
                                                 ast.FloorDiv(), int_ast(den)))
    if isinstance(d, sympy.floor):
        num, den = d.args[0].as_numer_denom()
        return ast.BinOp(int_ast(num), ast.FloorDiv(), int_ast(den))
    if isinstance(d, sympy.Mod):  # len(x) % 3: Python's % of ints has the divisor's sign, as
        return ast.BinOp(int_ast(d.args[0]), ast.Mod(), int_ast(d.args[1]))  # SymPy's Mod
    raise ShapeError(f"cannot print the size {d}")


def dims_ast(shape):
    """A shape as a Python tuple of ints (``(n, d)``)."""
    return ast.Tuple([int_ast(d) for d in shape], ast.Load())


def _call(printer, name, args, keywords=()):
    return ast.Call(printer.name(name), args, [ast.keyword(k, v) for k, v in keywords])


def _axis_ast(axes):
    return ast.Constant(axes[0]) if len(axes) == 1 else ast.Tuple(
        [ast.Constant(a) for a in axes], ast.Load())

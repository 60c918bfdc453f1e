"""SymPy → Python AST, for one backend: the printing half of ``emit``.

Numbers print as float literals (float * float is faster than float * int in CPython), ``x**2`` of a
name as ``x * x``, ``x**(1/2)`` as ``sqrt(x)``, negative powers as divisions, ``Piecewise`` as
``a if c else b`` (a ``where`` for the array backends) so the branch not taken is never evaluated, and
every function through the backend column of its ``rules`` row; an array node through its row in the
array table (``array_backends.printer_for``). The ``backends.Backend`` spells NumPy's names for the
other libraries.
"""
import ast
import importlib.util
import math

import sympy
from sympy import S

from .backends import backend as backend_named
from .cache import OPTIONAL_IMPORTS
from .errors import OptionError, SymgradError
from .printer_arithmetic import ArithmeticPrinting, exact_float
from .program import replaced
from .realpower import RealPower, RealValue
from .size_denominators import divided_by, of_sizes
from .untaken import GUARDED, guard, spellings
from .written import AsWritten
from .functions import AndThen, Branch, Copy, Literal, OrElse, StopGradient, Undefined, Value
from .extrema import repeated
from .rules import RULES, Written, rule_for_class, spelling, written_spelling


def dotted_name(dotted):
    """``np.exp`` as an ``ast.Attribute`` chain (a plain ``ast.Name`` without dots)."""
    parts = dotted.split(".")
    node = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(node, part, ast.Load())
    return node


_COMPARE = {sympy.StrictLessThan: ast.Lt, sympy.LessThan: ast.LtE, sympy.StrictGreaterThan: ast.Gt,
            sympy.GreaterThan: ast.GtE, sympy.Equality: ast.Eq, sympy.Unequality: ast.NotEq}
_WRITTEN_AST = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod)
_CONSTANTS = {S.Pi: "pi", S.Exp1: "e", S.Infinity: "inf"}
TORCH_POLYGAMMA, TORCH_TRIGAMMA = "torch.special.polygamma", "torch.special.zeta"
SCIPY_POLYGAMMA = "scipy.special.polygamma"
"""``polygamma(1, x)`` (``digamma``'s derivative) prints on torch as the Hurwitz zeta
``torch.special.zeta(2.0, x)``, the same function: torch's own ``polygamma(1, x)`` is a short
series, 5e-10 relative in float64 (4.3e-10 at 1.657, against mpmath) and finite at the poles
``0, -1, -2 ...`` (6.6e32 at -1.0; SciPy: inf), where its zeta is as SciPy's (1e-15, inf)."""


class Printer(ArithmeticPrinting):
    """Prints SymPy expressions as Python AST nodes for one backend.

    Args:
        backend: a name of ``backends.BACKENDS``.
        reference: the parameter whose dtype and device new arrays take (the first one), for the
            backends other than "math" and "numpy"; None: the library's defaults.
        constants: name → value of the constant arrays the code reads (NumPy arrays in its
            namespace), converted to the backend's arrays where they are read.
        lazy: numpy backend: print for *lazy* arguments (a Dask array kept in its library:
            ``np.zeros_like`` of a piece, a scalar result left a 0-d array), not NumPy ones.
    """

    def __init__(self, backend, reference=None, constants=None, lazy=False, arrays=False):
        self.backend, self.lazy = backend, lazy
        self.arrays = arrays  # array code: the primal's `**` is NumPy's (x * x for x ** 2)
        self.spec = backend_named(backend)
        self.module = self.spec.module
        self.vectorised = self.spec.vectorised
        self.reference = reference
        self.constants = dict(constants or {})
        self.plain_names = set()  # common terms of sizes only (`_t0 = n * n`): Python numbers
        self.integer_names = set()  # torch: int tensors, read as `steps.to(X.dtype)` (emit)

    def expr(self, e, renamed=None):
        """The AST of ``e``, with symbols renamed through ``renamed`` first (a dict or None)."""
        if renamed:
            e = replaced(e, renamed, evaluate=False)  # memoised: a max of every tie test built once
        inner = e.args[0] if isinstance(e, StopGradient) else e
        if inner.is_Symbol and inner.name in self.integer_names:  # `i = position`: ints kept
            return ast.Name(inner.name, ast.Load())
        return self.node(e)

    def name(self, dotted):
        """The ``ast`` of a dotted name, with NumPy's names spelled for the backend.

        Raises:
            OptionError: the name is in a module of ``OPTIONAL_IMPORTS`` that is not installed.
        """
        root = dotted.partition(".")[0]
        if root in OPTIONAL_IMPORTS and importlib.util.find_spec(root) is None:
            _, module, package, pip_name = OPTIONAL_IMPORTS[root]
            raise OptionError(f"backend {self.backend!r} prints this function as `{dotted}`, "
                              f"which needs {package}: pip install {pip_name}")
        return dotted_name(self.spec.spelling(dotted))

    def call(self, dotted, args):
        return ast.Call(self.name(dotted), [self.node(a) for a in args], [])

    def number(self, value):
        if value < 0:
            return ast.UnaryOp(ast.USub(), ast.Constant(-value))
        return ast.Constant(value)

    def node(self, e):
        if self.backend in ("jax", "torch", "array_api") and not e.is_Atom and e.is_number:
            folded = self._constant(e)  # torch.log(10.0) raises: functions take tensors
            if folded is not None:
                return folded
        tree = self._node(e)
        if self.backend == "math" and not e.is_Atom and e.is_number:
            return _folded(tree)  # math.sqrt(math.pi) as its value: no call on every run
        return tree

    def _constant(self, e):
        """A number expression (``log(10)``) as the float literal the ``math`` backend folds it
        to, or None when it has no finite float value."""
        try:
            tree = Printer("math").node(e)
        except SymgradError:
            return None
        if isinstance(tree, ast.Constant) or isinstance(tree, ast.UnaryOp) and isinstance(
                tree.operand, ast.Constant):
            return tree
        return None

    def _node(self, e):
        if e is None:
            return ast.Constant(None)
        if e.is_Symbol:
            if e.name in self.constants and self.backend != "numpy":
                from .array_backend_values import constant
                return constant(self, e.name, number=True)
            if e.name in getattr(self, "numpy_data", ()) and self.reference is not None:
                from .array_backend_values import like_reference  # NumPy's ints read as data
                return ast.Call(self.name("np.asarray"), [ast.Name(e.name, ast.Load())], [
                    ast.keyword(k, v) for k, v in like_reference(self)])
            if e.name in self.integer_names and self.reference is not None:
                return ast.Call(ast.Attribute(ast.Name(e.name, ast.Load()), "to", ast.Load()), [
                    ast.Attribute(ast.Name(self.reference, ast.Load()), "dtype", ast.Load())], [])
            return ast.Name(e.name, ast.Load())
        if e.is_Integer:  # float literals: float * float is faster than float * int
            return self.number(float(e))
        if e.is_Float:
            return self.number(float(e))
        if isinstance(e, Literal):
            return self.number(e.value)
        if exact_float(e):  # 1/2: exactly 0.5
            return self.number(e.p / e.q)
        if e.is_Rational:
            fraction = ast.BinOp(ast.Constant(float(abs(e.p))), ast.Div(), ast.Constant(float(e.q)))
            return ast.UnaryOp(ast.USub(), fraction) if e.p < 0 else fraction
        if e in _CONSTANTS:
            return self.name(f"{self.module}.{_CONSTANTS[e]}")
        if e is S.NegativeInfinity:
            return ast.UnaryOp(ast.USub(), self.name(f"{self.module}.inf"))
        if e is S.ComplexInfinity or e is S.NaN:  # undefined after SymPy's rewriting (0 ** -2)
            return self.undefined(0 if e is S.ComplexInfinity else 1)
        if e.is_Add:
            return self.add(e)
        if e.is_Mul:
            return self.mul(e)
        if e.is_Pow:
            return self.pow(e)
        if isinstance(e, sympy.Piecewise):
            return self.piecewise(e)
        if isinstance(e, sympy.logic.boolalg.BooleanTrue):
            return ast.Constant(True)
        if isinstance(e, sympy.logic.boolalg.BooleanFalse):
            return ast.Constant(False)
        if type(e) in _COMPARE:
            lhs, rhs = e.lhs, e.rhs  # printed as they are: a rearranged form is another float
            return ast.Compare(self.node(lhs), [_COMPARE[type(e)]()], [self.node(rhs)])
        if isinstance(e, (sympy.And, sympy.Or, AndThen, OrElse)):
            conjunction = isinstance(e, (sympy.And, AndThen))
            op = ast.And() if conjunction else ast.Or()
            parts = [self.node(a) for a in e.args]
            if self.vectorised:  # binary ufuncs: nest them
                node = parts[0]
                for part in parts[1:]:
                    node = ast.Call(self.name(
                        "np.logical_and" if conjunction else "np.logical_or"),
                        [node, part], [])
                return node
            return ast.BoolOp(op, parts)
        if isinstance(e, sympy.ITE):  # a condition on a value chosen by a branch
            if self.vectorised:
                return self.where(*e.args)
            return ast.IfExp(self.node(e.args[0]), self.node(e.args[1]), self.node(e.args[2]))
        if isinstance(e, sympy.Not):
            if self.vectorised:
                return self.call("np.logical_not", e.args)
            return ast.UnaryOp(ast.Not(), self.node(e.args[0]))
        if isinstance(e, (StopGradient, Value, Copy)):
            return self.node(e.args[0])
        if isinstance(e, AsWritten):  # the primal's float (emit replaces these first)
            return self.node(e.written)
        if getattr(e, "rule", None) is not None:  # an array node: its row prints it
            from .array_backends import printer_for
            return printer_for(e.rule, self.backend)(self, e)
        if isinstance(e, Written):
            return self.written(e)
        if isinstance(e, Branch):
            cond, a, b = e.args
            if self.vectorised:
                return self.where(cond, as_float(a), as_float(b))
            return ast.IfExp(self.node(cond), self.node(as_float(a)), self.node(as_float(b)))
        if isinstance(e, Undefined):
            return self.undefined(int(e.args[0]))
        if isinstance(e, RealPower):  # Python's power: complex off whole exponents
            return self.real_power(e.args[0], e.exponent, checked=False)
        if isinstance(e, RealValue):
            return self.real_value(e.args[0])
        if isinstance(e, sympy.Mod):
            return ast.BinOp(self.node(e.args[0]), ast.Mod(), self.node(e.args[1]))
        if type(e) in (sympy.ceiling, sympy.floor):  # SymPy's own: the size of a stepped
            from .array_nodes import int_ast  # slice (array_indexing), an int: -(-n // 2)
            return int_ast(e)
        if isinstance(e, sympy.Function) or rule_for_class(type(e)) is not None:
            return self.function(e)
        raise SymgradError(f"symgrad cannot print {type(e).__name__} for backend "
                           f"{self.backend!r}: {e}")

    def written(self, e):
        """An operation as the source wrote it (``rules.Written``), printed as written."""
        code, args = int(e.args[0]), e.args[1:]
        if code == -1:
            return ast.UnaryOp(ast.USub(), self.node(args[0]))
        if code >= 100:
            rule = RULES[code - 100]
            printed = written_spelling(rule, self.backend)
            if printed is None:
                raise OptionError(f"`{rule.python[0]}` has no spelling for backend "
                                  f"{self.backend!r} in symgrad's rules: use backend=\"math\"")
            if rule.sympy in (sympy.Max, sympy.Min):  # a repeat is the same float: it never
                args = tuple(dict.fromkeys(args))  # changes the result (the first one is kept)
                if len(args) == 1:
                    return self.node(args[0])
            if self.vectorised and printed in ("np.maximum", "np.minimum"):
                return self.extrema(printed, args)
            if printed == "round":
                return self.named_call(printed, [self.node(a) for a in args])
            if not (self.vectorised and len(args) > 2):
                return self.numeric_call(printed, args)
            node = self.node(args[0])
            for arg in args[1:]:
                node = ast.Call(self.name(printed), [node, self.node(arg)], [])
            return node
        # 1 * a (a constant folded to 1, as 2.0 * 0.5) is a in float and int; for an array it
        # is a copy, which an in-place buffer may rely on: kept there
        if code == 2 and S.One in args and not self.vectorised:
            return self.node(args[1] if args[0] == 1 else args[0])
        left, right = (self.number(int(a)) if a.is_Integer else self.node(a) for a in args)
        if code == 4 and self.backend == "numpy" and not self.arrays:  # Python's pow, not
            # NumPy's ** (x * x for x ** 2, another float): array code's primal has NumPy's
            return ast.Call(self.name("np.float_power"), [left, right], [])
        return ast.BinOp(left, _WRITTEN_AST[code](), right)  # an int literal stays an int

    def real_power(self, base, exponent, checked):
        """``base ** exponent`` of a negative ``base``: Python's ``**`` (a complex number off
        whole exponents, as the primal computes it), or ``checked``: ``math.pow``, which raises
        ``ValueError`` there (``realpower.py``); the array backends give nan there either way."""
        left = self.number(int(base)) if base.is_Integer else self.node(base)
        right = self.number(int(exponent)) if exponent.is_Integer else self.node(exponent)
        if self.backend == "numpy":
            return ast.Call(self.name("np.float_power"), [left, right], [])
        if checked and not self.vectorised:
            return ast.Call(self.name("math.pow"), [left, right], [])
        return ast.BinOp(left, ast.Pow(), right)

    def real_value(self, value):
        """``value`` where the gradient needs a real number (``realpower.RealValue``): a power
        computed by ``math.pow``, a name as ``v if type(v) is not complex else math.log(0.0)``
        (``ValueError`` where the primal's value is complex)."""
        if isinstance(value, RealPower):
            return self.real_power(value.args[0], value.exponent, checked=True)
        if isinstance(value, Written) and int(value.args[0]) == 4:
            return self.real_power(*value.args[1:], checked=True)
        node = self.node(value)
        if self.vectorised or not isinstance(node, ast.Name):
            return node
        test = ast.Compare(ast.Call(ast.Name("type", ast.Load()), [node], []), [ast.IsNot()],
                           [ast.Name("complex", ast.Load())])
        return ast.IfExp(test, node, self.undefined(1))

    def undefined(self, kind):
        """What the primal cannot compute, as code raising its exception (``math``: 0.0 / 0.0
        raises ZeroDivisionError, math.log(0.0) ValueError, math.exp(1000.0) OverflowError) or
        giving nan (``numpy``, which returns nan or inf there instead of raising)."""
        if self.vectorised:
            return self.name("np.nan")
        if kind == 0:
            return ast.BinOp(ast.Constant(0.0), ast.Div(), ast.Constant(0.0))
        return ast.Call(self.name("math.log" if kind == 1 else "math.exp"),
                        [ast.Constant(0.0 if kind == 1 else 1000.0)], [])

    def function(self, e):
        rule = rule_for_class(type(e))
        printed = spelling(rule, self.backend) if rule is not None else None
        if printed is None:
            instead = "backend=\"math\"" if self.backend == "numpy" else \
                "backend=\"numpy\", \"jax\" or \"torch\""
            raise OptionError(f"`{type(e).__name__}` has no spelling for backend "
                              f"{self.backend!r} in symgrad's rules: use {instead}")
        if printed == "round":  # round(x) keeps Python's int result and half-to-even rule
            return ast.Call(self.name("round"), [self.node(e.args[0])], [])
        args = e.args
        if isinstance(e, (sympy.Max, sympy.Min)):  # a repeat (functions.Copy) is the same float: it
            args = tuple(same[0] for same in repeated(args).values())  # never changes the result
            if len(args) == 1:
                return self.node(args[0])
        if self.vectorised and isinstance(e, (sympy.Max, sympy.Min)) and self.plain(e):
            # of sizes and numbers only (a slice's clamped length, 1 / max(0, n - n // 2)):
            # Python's, as the shapes are; torch.clamp and the Array API's maximum take arrays
            return ast.Call(ast.Name("max" if isinstance(e, sympy.Max) else "min", ast.Load()),
                            [self.node(a) for a in args], [])
        if self.vectorised and printed in ("np.maximum", "np.minimum"):
            return self.extrema(printed, args)
        if printed == TORCH_POLYGAMMA and args[0] == 1:  # torch's trigamma: 5e-10 relative
            return self.named_call(TORCH_TRIGAMMA, [ast.Constant(2.0), self.node(args[1])])
        if printed == SCIPY_POLYGAMMA and self.lazy:  # a ufunc, for Dask: polygamma is not
            return self.lazy_polygamma(int(args[0]), args[1])
        integers = getattr(type(e), "integer_arguments", ())  # polygamma's order: an int
        wrap = self.vectorised and self.backend in ("torch", "array_api") and self.plain(e)
        # of sizes and numbers only (exp(1.5 / (n ** 3 + 1.0)): a Python float; PyTorch's and
        # the Array API's functions take arrays): an array of the reference dtype (83-213),
        # by asarray, which takes a function's array of sizes too (log1p(exp(...)))
        return self.named_call(printed, [self.number(int(a)) if k in integers else (
            self.as_array(self.node(a)) if wrap else self.node(a)) for k, a in enumerate(args)])

    def lazy_polygamma(self, n, x):
        """``scipy.special.polygamma(n, x)`` as SciPy computes it, ``(-1) ** (n + 1) n! zeta(n +
        1, x)`` (``scipy.special.zeta(2.0, x)`` for ``n = 1``: the same floats), for the lazy
        specialisation: ``polygamma`` is a Python function that calls ``np.asarray`` on its
        argument, computing a Dask array inside the gradient; ``zeta`` is a ufunc, which Dask
        maps over the chunks lazily."""
        call = self.named_call("scipy.special.zeta", [ast.Constant(n + 1.0), self.node(x)])
        factor = (-1.0) ** (n + 1) * math.gamma(n + 1.0)
        return call if factor == 1.0 else ast.BinOp(ast.Constant(factor), ast.Mult(), call)

    def named_call(self, printed, args):
        """``printed(*args)``; for backend "math" a SciPy function's NumPy scalar is made a
        float (``float(scipy.special.erf(x))``), as every value of float code is."""
        call = ast.Call(self.name(printed), args, [])
        if self.backend == "math" and printed.startswith("scipy."):
            return ast.Call(ast.Name("float", ast.Load()), [call], [])
        return call

    def numeric_call(self, printed, args):
        """``printed(*args)`` of SymPy ``args``, each of sizes and numbers only (a Python number
        when the code runs) made an array of the reference dtype on PyTorch and the Array API,
        whose functions take arrays: ``np.sqrt(X.shape[0])`` raised TypeError on torch."""
        wrap = self.vectorised and self.backend in ("torch", "array_api")
        return self.named_call(printed, [self.as_array(self.node(a)) if wrap and self.plain(a)
                                         else self.node(a) for a in args])

    def extrema(self, printed, args):
        """``np.maximum(np.maximum(a, b), c)``: two at a time; on torch the numbers last, as
        ``torch.clamp`` bounds (``extremum``)."""
        if self.backend == "torch":  # torch.maximum(a, b) takes tensors: numbers last
            args = ([a for a in args if not self.plain(a)] + [a for a in args if self.plain(a)])
        node = self.node(args[0])
        for arg in args[1:]:
            node = self.extremum(printed, node, arg)
        return node

    def extremum(self, printed, node, arg):
        """``np.maximum(a, b)``; torch's ``maximum`` takes tensors only, so a number there is
        ``torch.clamp(a, min=b)``."""
        if self.backend == "torch" and self.plain(arg):  # a number, or of sizes (24-3)
            bound = "min" if printed == "np.maximum" else "max"
            return ast.Call(self.name("torch.clamp"), [node], [ast.keyword(bound, self.node(arg))])
        return ast.Call(self.name(printed), [node, self.node(arg)], [])

    def plain(self, e):
        """Whether ``e`` prints as a Python number (``array_backend_values.plain_number``)."""
        from .array_backend_values import plain_number
        return plain_number(e, self)

    def where(self, cond, a, b):
        """``np.where(c, a, b)`` in the backend's spelling. With two numbers (or values of the
        sizes only, ``1.0 / (d * d)``, ``1.0 / _t0`` of a common term ``_t0 = d + 1.0``: Python
        floats too; array fuzzer 27-73), the first becomes a 0-d array of the
        reference parameter's dtype (the Array API refuses two numbers, and JAX and PyTorch would
        give their default float: float32 values in a float64 gradient)."""
        return self.where_node(cond, a, self.node(b), self.plain(b), b)

    def where_node(self, cond, a, right, right_is_number, whole=None):
        """``where`` with its last operand printed already (``right``, from ``whole``, an
        expression holding it); on the backends of ``untaken.GUARDED`` each side computes on
        safe arguments where it is not taken."""
        left = self.node(a)
        condition = self.node(cond)
        if self.backend in ("torch", "array_api") and self.reference is not None and \
                self.plain(cond):  # `2 / (n + 1) <= 0.1` is a Python bool: a 0-d bool array
            from .array_backend_values import bool_array  # (torch.where takes tensors: 25-57)
            condition = bool_array(self, condition)
        where, sizes = self.name("np.where"), self._sizes(cond, a, whole)
        table = self.guarded_names() if self.backend in GUARDED else {}
        numbers = self._numbers(sizes)  # a denominator of the sizes on one side only: guarded
        kept = divided_by(left, sizes) & divided_by(right, sizes)  # on every backend (sz3)
        printed = ast.dump(left)
        left = guard(left, condition, True, table, where, self.elementwise(), numbers, sizes, kept)
        right = guard(right, condition, False, table, where, self.elementwise(), numbers, sizes,
                      kept)
        if self.backend != "numpy" and self.plain(a) and right_is_number and \
                ast.dump(left) == printed:  # a Python number still
            left = self.new_array(left)
        return ast.Call(self.name("np.where"), [condition, left, right], [])

    def guarded_names(self):
        """``untaken.spellings`` for this backend (the names its calls print as)."""
        if getattr(self, "_guarded", None) is None:
            def spelled(numpy_name):
                rules = [r for r in RULES if spelling(r, "numpy") == numpy_name]
                printed = spelling(rules[0], self.backend) if rules else numpy_name
                return self.spec.spelling(printed) if printed else None
            self._guarded = spellings(spelled)
        return self._guarded

    def _sizes(self, *exprs):
        """The names of the sizes in ``exprs`` and of the common terms of sizes only (``_t0 = n *
        n``, ``plain_names``): what prints as a Python number."""
        return {s.name for e in exprs if e is not None for s in e.free_symbols
                if s.is_Symbol and s.is_integer and s.is_positive} | self.plain_names

    def _numbers(self, sizes):
        """For the guard: a function giving a guarded argument of the ``sizes`` alone (``n * n``:
        a Python number) as a 0-d array of the reference dtype on the Array API, which takes no
        ``where`` of two Python numbers (array fuzzer 22-18, 22-20, 21-244), and on PyTorch
        (whose ``where`` of numbers is its default float32); else None. NumPy and JAX take it as
        it is (JAX's a weak type, which keeps the data's)."""
        if self.backend not in ("array_api", "torch"):
            return None

        def numbers(argument):  # Python's max and min of sizes too (the count of a slice
            # ``max(0, n - n // 2)``: 171-1504)
            return self.new_array(argument) if of_sizes(argument, sizes) else None
        return numbers

    def elementwise(self):
        """The printed names of the elementwise functions of the table (``jnp.exp``,
        ``jnp.maximum``), which the guard looks inside."""
        if getattr(self, "_elementwise", None) is None:
            names = {self.spec.spelling(p) for p in (spelling(r, self.backend) for r in RULES)
                     if p}
            self._elementwise = names | set(self.guarded_names())
        return self._elementwise

    def as_array(self, value):
        """``value`` (an ``ast``: a number or an array) as an array of the reference dtype."""
        from .array_backend_values import like_reference
        return ast.Call(self.name("np.asarray"), [value], [ast.keyword(k, v) for k, v in
                                                          like_reference(self)])

    def new_array(self, value):
        """``value`` (an ``ast``) as an array of the reference parameter's dtype and device."""
        from .array_backend_values import full
        return full(self, ast.Tuple([], ast.Load()), value)

    def piecewise(self, e):
        pieces = list(e.args)
        last_value, last_cond = pieces[-1]
        if last_cond is not S.true:
            raise SymgradError("a Piecewise with no default branch cannot be printed")
        node = self.node(as_float(last_value))
        number = self.plain(last_value)
        for value, cond in reversed(pieces[:-1]):
            value = as_float(value)
            if self.vectorised:
                node, number = self.where_node(cond, value, node, number, e), False
            else:
                node = ast.IfExp(self.node(cond), self.node(value), node)
        return node


def _folded(tree):
    """An expression of constants only (``1.0 / math.sqrt(math.pi)``) as the float literal it
    evaluates to, computed here by the same ``math`` calls the generated code would make, so the
    value is the same to the bit; the tree itself when it does not evaluate to a finite float."""
    expression = ast.fix_missing_locations(ast.Expression(tree))
    namespace = {"math": math}
    if any(isinstance(n, ast.Name) and n.id == "scipy" for n in ast.walk(tree)):
        import scipy.special  # digamma(3.75): the primal imported it (a SciPy function of a number)
        namespace["scipy"] = scipy
    try:
        value = eval(compile(expression, "<symgrad constant>", "eval"), namespace)
    except (ArithmeticError, ValueError, TypeError, NameError):  # round(complex): the primal
        return tree  # raises too
    if type(value) is not float or not math.isfinite(value):
        return tree
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def as_float(value):
    """A constant branch value prints as a float, so every branch returns a float."""
    return sympy.Float(value) if value.is_Number else value

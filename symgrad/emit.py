"""Derivative Program → ``ast.FunctionDef`` → Python source (printed by ``astor``).

The one place that knows backends (``math``, ``numpy``) and names temporaries. Steps:

1. keep the assignments the outputs need (dead primal code is dropped);
2. lower functions a backend cannot print (``sign``, ``Heaviside``) through their ``rules`` row;
3. give every ``Piecewise`` and every ``StopGradient`` not already a whole right-hand side its own
   line: a ``Piecewise`` prints as ``a if c else b``, so the branch not taken is never evaluated,
   and no common sub-expression is ever hoisted out of a branch; a stop point is marked with a
   ``# stop_gradient`` comment;
4. hoist common sub-expressions (SymPy ``cse``) into ``_t0, _t1 ...``, each emitted just before its
   first use, in program order (deterministic: no set or hash order anywhere);
5. name results ``d<out>_d<wrt>``, print with ``astor`` wrapping lines at 100 columns.
"""
import ast
import os
import warnings

import sympy
from sympy import S

from .errors import OptionError, SymgradError
from .program import fresh_name
from .rules import StopGradient, rule_for_class

BACKENDS = {"math": "import math", "numpy": "import numpy as np"}
"""Backend name → the one import its generated code needs."""
LINE_WIDTH = 100
STOP_COMMENT = "# stop_gradient: treated as a constant when differentiating"


def emit(program, kind="grad", backend="math", wrt=(), layout=None):
    """Print a derivative Program as a Python function.

    Args:
        program: a ``Program`` whose outputs are the results to return, in order (None allowed).
        kind: the prefix of the function name and the docstring's verb ("grad", "value_and_grad").
        backend: "math" (scalars, ``math.*``) or "numpy" (``np.*``, elementwise on arrays).
        wrt: the names differentiated with respect to, for the docstring.
        layout: what the function returns, as output indices: an int returns that output, a
            (nested) tuple of them returns a (nested) tuple. None: the one output, or a tuple of
            all. Outputs the layout does not name are not computed.

    Returns:
        ``(function_name, source)``: the source is one ``def`` ending in a newline.

    Raises:
        OptionError: an unknown backend.
        SymgradError: an expression with no printed form in this backend.
    """
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {tuple(BACKENDS)}, not {backend!r}")
    if layout is None:
        layout = 0 if len(program.outputs) == 1 else tuple(range(len(program.outputs)))
    used = sorted(set(_flatten(layout)))
    names = set(program.names)
    printer = _Printer(backend)
    results, values = {}, {}
    for index in used:
        out = program.outputs[index]
        results[index] = fresh_name(program.output_names[index], names)
        value = out if out is None else _lower(out, backend)
        values[index] = sympy.Float(value) if value is not None and value.is_Integer else value
    entries = _entries(program, backend, names, [
        (sympy.Symbol(results[i], real=True), values[i]) for i in used if values[i] is not None])
    body, stops = _cse_body(entries, printer, names)
    ints = set(program.params)  # symbols that hold an int when the arguments are ints
    for a in program.assignments:
        if _int_valued(a.expr, ints):
            ints.add(a.target)
    for index in used:
        if values[index] is None:
            body.append(_assign(results[index], ast.Constant(None)))
        elif backend == "math" and _int_valued(values[index], ints):  # x*y, round(x): floats
            body = [_float_result(line, results[index]) for line in body]
        elif backend == "numpy" and values[index].is_Number and 0 < len(program.params) <= 32:
            body = [_broadcast_result(line, results[index], program.params) for line in body]
    body.append(ast.Return(_returned(layout, results)))
    function_name = f"{kind}_{program.name}"
    prelude = [ast.Expr(ast.Constant(_docstring(program, kind, wrt)))]
    for name, value in program.static.items():
        prelude.append(_static_guard(function_name, name, value))
    if backend == "numpy":  # float arrays: 1.0 / x at x = 0 is then inf under np.where, not a raise
        for p in program.params:
            if p.name not in program.static:
                prelude.append(_assign(p.name, ast.Call(
                    printer.name("np.asarray"), [ast.Name(p.name, ast.Load())],
                    [ast.keyword("dtype", ast.Name("float", ast.Load()))])))
    params = [ast.arg(p.name) for p in program.params]
    defaults = [ast.Constant(v) for v in program.defaults]
    node = ast.FunctionDef(
        name=function_name, args=ast.arguments(posonlyargs=[], args=params, vararg=None,
                                               kwonlyargs=[], kw_defaults=[], kwarg=None,
                                               defaults=defaults),
        body=prelude + body, decorator_list=[], returns=None, type_params=[])
    ast.fix_missing_locations(node)
    return function_name, _mark_stops(to_source(node), stops)


def to_source(node):
    """Print an AST with astor, lines wrapped at ``LINE_WIDTH`` columns.

    The one place astor is imported and called: astor 0.8.1 uses ``ast.Num`` and friends, deprecated
    since Python 3.12, so its DeprecationWarnings are silenced here and only here.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import astor
        from astor.source_repr import split_lines
        return astor.to_source(
            node, pretty_source=lambda items: "".join(split_lines(items, maxline=LINE_WIDTH)))


_INT_FUNCTIONS = (sympy.floor, sympy.ceiling)


def _int_valued(expr, ints):
    """True when the printed ``expr`` may compute an int: for int arguments (``x * y``, with
    ``ints`` the symbols that may hold ints) or from ``round``/``floor``/``ceil``. Number literals
    print as floats, so a literal, a division or a math call anywhere makes it a float."""
    from .rules import Round
    if expr.is_Symbol:
        return expr in ints
    if isinstance(expr, (Round,) + _INT_FUNCTIONS):
        return True
    if expr.is_Mul and expr.args[0] == -1:  # printed as a unary minus, not a float literal
        return _int_valued(-expr, ints)
    if expr.is_Add or expr.is_Mul or isinstance(expr, (sympy.Max, sympy.Min, sympy.Abs)):
        return all(_int_valued(a, ints) for a in expr.args)
    if expr.is_Pow:
        return expr.exp.is_Integer and expr.exp >= 0 and _int_valued(expr.base, ints)
    if isinstance(expr, StopGradient):
        return _int_valued(expr.args[0], ints)
    if isinstance(expr, sympy.Piecewise):
        return any(_int_valued(e, ints) for e, _ in expr.args)
    return False


def _float_result(line, name):
    if isinstance(line, ast.Assign) and line.targets[0].id == name:
        line.value = ast.Call(ast.Name("float", ast.Load()), [line.value], [])
    return line


def _broadcast_result(line, name, params):
    """A constant result of the numpy backend takes the arguments' broadcast shape, as in JAX."""
    if isinstance(line, ast.Assign) and line.targets[0].id == name:
        shape = ast.Attribute(ast.Call(_dotted_name("np.broadcast"), [
            ast.Name(p.name, ast.Load()) for p in params], []), "shape", ast.Load())
        line.value = ast.Call(_dotted_name("np.full"), [shape, line.value], [])
    return line


def _dotted_name(dotted):
    parts = dotted.split(".")
    node = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(node, part, ast.Load())
    return node


def _flatten(layout):
    if isinstance(layout, tuple):
        for item in layout:
            yield from _flatten(item)
    else:
        yield layout


def _returned(layout, results):
    if isinstance(layout, tuple):
        return ast.Tuple([_returned(item, results) for item in layout], ast.Load())
    return ast.Name(results[layout], ast.Load())


def _docstring(program, kind, wrt):
    what = {"grad": "Gradient", "value_and_grad": "Value and gradient", "jacobian": "Jacobian",
            "hessian": "Hessian", "vjp": "Vector-Jacobian product"}.get(kind, kind)
    file, _, line = program.origin.rpartition(", line ")
    where = f"{what} of {program.name} ({os.path.basename(file)}, line {line})"
    candidates = [f"{where} with respect to {', '.join(wrt)}.",
                  f"{where} with respect to {len(wrt)} parameters {wrt[0]}, ..., {wrt[-1]}.",
                  f"{where}.", f"{what} of {program.name}."]
    fitting = [c for c in candidates if len(c) <= LINE_WIDTH - 10]  # 4 spaces and 6 quotes
    return fitting[0] if fitting else candidates[-1]


def _static_guard(function_name, name, value):
    message = f"{function_name} was built for {name}={value}, a range() bound"
    return ast.If(
        test=ast.Compare(ast.Name(name, ast.Load()), [ast.NotEq()], [ast.Constant(value)]),
        body=[ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []),
                        None)],
        orelse=[])


def _assign(target, value):
    return ast.Assign([ast.Name(target, ast.Store())], value, lineno=None)


def _mark_stops(source, stops):
    if not stops:
        return source
    lines = source.splitlines(keepends=True)
    out = []
    for line in lines:
        stripped = line.lstrip()
        if any(stripped.startswith(f"{name} = ") for name in stops):
            out.append(line[: len(line) - len(stripped)] + STOP_COMMENT + "\n")
        out.append(line)
    return "".join(out)


# --- 1-3: the entries to print --------------------------------------------------------------
def _live(program):
    needed = set()
    for out in program.outputs:
        if out is not None:
            needed.update(out.free_symbols)
    kept = []
    for a in reversed(program.assignments):
        if a.target in needed:
            kept.append(a)
            needed.update(a.expr.free_symbols)
    return kept[::-1]


def _lower(expr, backend):
    """Replace functions the backend cannot print by their ``rules`` lowering."""
    def walk(node):
        if node.is_Atom:
            return node
        args = [walk(a) for a in node.args]
        if isinstance(node, sympy.Function):
            rule = rule_for_class(type(node))
            if rule is not None and rule.lower is not None and getattr(rule, backend) is None:
                return rule.lower(*args)
        if isinstance(node, sympy.Piecewise):
            return sympy.Piecewise(*[(e, c) for e, c in args])
        return node.func(*args) if args != list(node.args) else node
    return walk(expr)


class _Entry:
    """One line to print: ``target = expr``; ``guarded`` lines get no CSE inside (Piecewise)."""

    __slots__ = ("target", "expr", "guarded", "stop", "temporary")

    def __init__(self, target, expr, guarded=False, stop=False, temporary=False):
        self.target, self.expr, self.guarded, self.stop = target, expr, guarded, stop
        self.temporary = temporary  # a placeholder line: printed under a `_tK` name


def _entries(program, backend, names, results):
    entries = []
    opaque = {}  # Piecewise / StopGradient node -> placeholder symbol

    def placeholder(node, stop):
        symbol = opaque.get(node)
        if symbol is None:
            symbol = sympy.Dummy("_p", real=True)
            opaque[node] = symbol
            if stop:
                entries.append(_Entry(symbol, hide(node.args[0]), stop=True, temporary=True))
            else:
                entries.append(_Entry(symbol, node, guarded=True, temporary=True))
        return symbol

    def hide(node):
        if isinstance(node, sympy.Piecewise):
            return placeholder(node, False)
        if isinstance(node, StopGradient):
            return placeholder(node, True)
        if node.is_Atom:
            return node
        args = [hide(a) for a in node.args]
        return node.func(*args) if args != list(node.args) else node

    lines = [(a.target, _lower(a.expr, backend)) for a in _live(program)] + list(results)
    for target, expr in lines:
        if isinstance(expr, sympy.Piecewise):
            entries.append(_Entry(target, expr, guarded=True))
        elif isinstance(expr, StopGradient):
            entries.append(_Entry(target, hide(expr.args[0]), stop=True))
        else:
            entries.append(_Entry(target, hide(expr)))
    return entries


# --- 4: common sub-expressions ---------------------------------------------------------------
def _cse_body(entries, printer, names):
    plain = [e for e in entries if not e.guarded]
    temps, reduced = sympy.cse([e.expr for e in plain], symbols=sympy.numbered_symbols(
        "_cse", cls=sympy.Dummy, real=True), order="none") if plain else ([], [])
    trivial = {}  # temps as cheap as their name (-m, 2*x): printed inline, for readability
    kept = []
    for temp, sub in temps:
        sub = sub.xreplace(trivial)
        if sub.is_Mul and len(sub.args) == 2 and sub.args[0].is_Number and sub.args[1].is_Symbol:
            trivial[temp] = sub
        else:
            kept.append((temp, sub))
    temps = kept
    reduced = [r.xreplace(trivial) for r in reduced]
    reduced_of = dict(zip(map(id, plain), reduced))
    definition = dict(temps)
    full = {}  # temp -> its expression with earlier temps expanded
    for temp, sub in temps:
        full[temp] = sub.xreplace(full)
    renamed = {}  # cse symbol / placeholder -> printed name symbol
    emitted_back = {}  # full sub-expression -> printed temp, for back-substitution in branches
    body, stops = [], []

    def name_for(symbol):
        if symbol not in renamed:
            k = 0
            while f"_t{k}" in names:
                k += 1
            names.add(f"_t{k}")
            renamed[symbol] = sympy.Symbol(f"_t{k}", real=True)
        return renamed[symbol]

    def need(expr):
        for symbol in _ordered_symbols(expr):
            if symbol in definition and symbol not in renamed:
                need(definition[symbol])
                target = name_for(symbol)
                body.append(_assign(target.name, printer.expr(definition[symbol], renamed)))
                emitted_back[full[symbol]] = target

    for entry in entries:
        target = name_for(entry.target) if entry.temporary else entry.target
        if entry.guarded:
            expr = entry.expr.xreplace(emitted_back) if emitted_back else entry.expr
            line = _assign(target.name, printer.expr(expr, renamed))
            if printer.backend == "numpy":  # np.where evaluates both branches: hush the untaken one
                line = ast.With([ast.withitem(ast.Call(printer.name("np.errstate"), [], [
                    ast.keyword(kind, ast.Constant("ignore"))
                    for kind in ("divide", "over", "invalid")]), None)], [line])
            body.append(line)
        else:
            expr = reduced_of[id(entry)]
            if expr in definition and expr not in renamed:  # the whole line is a common term
                renamed[expr] = target
                emitted_back[full[expr]] = target
                expr = definition[expr]
            need(expr)
            body.append(_assign(target.name, printer.expr(expr, renamed)))
        if entry.stop:
            stops.append(target.name)
    return body, stops


def _ordered_symbols(expr):
    """Free symbols in first-appearance order of a preorder walk (deterministic)."""
    seen, order, stack = set(), [], [expr]
    while stack:
        node = stack.pop()
        if node.is_Symbol:
            if node not in seen:
                seen.add(node)
                order.append(node)
        else:
            stack.extend(reversed(node.args))
    return order


# --- printing SymPy as Python AST ------------------------------------------------------------
_COMPARE = {sympy.StrictLessThan: ast.Lt, sympy.LessThan: ast.LtE, sympy.StrictGreaterThan: ast.Gt,
            sympy.GreaterThan: ast.GtE, sympy.Equality: ast.Eq, sympy.Unequality: ast.NotEq}
_CONSTANTS = {S.Pi: "pi", S.Exp1: "e", S.Infinity: "inf"}


class _Printer:
    def __init__(self, backend):
        self.backend = backend
        self.module = "math" if backend == "math" else "np"

    def expr(self, e, body_map=None):
        if body_map:
            e = e.xreplace(body_map)
        return self.node(e)

    def name(self, dotted):
        return _dotted_name(dotted)

    def call(self, dotted, args):
        return ast.Call(self.name(dotted), [self.node(a) for a in args], [])

    def number(self, value):
        if value < 0:
            return ast.UnaryOp(ast.USub(), ast.Constant(-value))
        return ast.Constant(value)

    def node(self, e):
        if e is None:
            return ast.Constant(None)
        if e.is_Symbol:
            return ast.Name(e.name, ast.Load())
        if e.is_Integer:  # float literals: float * float is faster than float * int
            return self.number(float(e))
        if e.is_Float:
            return self.number(float(e))
        if e.is_Rational:
            fraction = ast.BinOp(ast.Constant(float(abs(e.p))), ast.Div(), ast.Constant(float(e.q)))
            return ast.UnaryOp(ast.USub(), fraction) if e.p < 0 else fraction
        if e in _CONSTANTS:
            return self.name(f"{self.module}.{_CONSTANTS[e]}")
        if e is S.NegativeInfinity:
            return ast.UnaryOp(ast.USub(), self.name(f"{self.module}.inf"))
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
            lhs, rhs = e.lhs, e.rhs
            if rhs == 0 and lhs.is_Add:  # SymPy's `x - 1.0 < 0` prints as `x < 1.0`
                constant, rest = lhs.as_coeff_Add()
                lhs, rhs = rest, -constant
            return ast.Compare(self.node(lhs), [_COMPARE[type(e)]()], [self.node(rhs)])
        if isinstance(e, (sympy.And, sympy.Or)):
            op = ast.And() if isinstance(e, sympy.And) else ast.Or()
            parts = [self.node(a) for a in e.args]
            if self.backend == "numpy":  # binary ufuncs: nest them
                node = parts[0]
                for part in parts[1:]:
                    node = ast.Call(self.name(
                        "np.logical_and" if isinstance(e, sympy.And) else "np.logical_or"),
                        [node, part], [])
                return node
            return ast.BoolOp(op, parts)
        if isinstance(e, sympy.ITE):  # a condition on a value chosen by a branch
            if self.backend == "numpy":
                return self.call("np.where", e.args)
            return ast.IfExp(self.node(e.args[0]), self.node(e.args[1]), self.node(e.args[2]))
        if isinstance(e, sympy.Not):
            if self.backend == "numpy":
                return self.call("np.logical_not", e.args)
            return ast.UnaryOp(ast.Not(), self.node(e.args[0]))
        if isinstance(e, StopGradient):
            return self.node(e.args[0])
        if isinstance(e, sympy.Mod):
            return ast.BinOp(self.node(e.args[0]), ast.Mod(), self.node(e.args[1]))
        if isinstance(e, sympy.Function) or rule_for_class(type(e)) is not None:
            return self.function(e)
        raise SymgradError(f"symgrad cannot print {type(e).__name__} for backend "
                           f"{self.backend!r}: {e}")

    def function(self, e):
        rule = rule_for_class(type(e))
        printed = getattr(rule, self.backend, None) if rule is not None else None
        if printed is None:
            raise SymgradError(f"no {self.backend} spelling for {type(e).__name__}")
        if printed == "round":  # round(x) keeps Python's int result and half-to-even rule
            return ast.Call(self.name("round"), [self.node(e.args[0])], [])
        if self.backend == "numpy" and printed in ("np.maximum", "np.minimum") and len(e.args) > 2:
            node = self.node(e.args[0])
            for arg in e.args[1:]:
                node = ast.Call(self.name(printed), [node, self.node(arg)], [])
            return node
        return self.call(printed, e.args)

    def add(self, e):
        terms = e.as_ordered_terms()
        terms = [t for t in terms if not t.could_extract_minus_sign()] + [
            t for t in terms if t.could_extract_minus_sign()]
        node = None
        for term in terms:
            negative = term.could_extract_minus_sign()
            part = self.node(-term if negative else term)
            if node is None:
                node = ast.UnaryOp(ast.USub(), part) if negative else part
            else:
                node = ast.BinOp(node, ast.Sub() if negative else ast.Add(), part)
        return node

    def mul(self, e):
        if e.could_extract_minus_sign():
            return ast.UnaryOp(ast.USub(), self.node(-e))
        coeff, rest = e.as_coeff_Mul()  # Mul(1.0, x) gives (1.0, x): as_coeff_mul keeps the 1.0
        factors = sympy.Mul.make_args(rest)
        numerator, denominator = [], []
        if coeff.is_Rational and not coeff.is_Integer:
            if coeff.p != 1:
                numerator.append(self.node(sympy.Integer(coeff.p)))
            denominator.append(self.node(sympy.Integer(coeff.q)))
        elif coeff != 1 and float(coeff) != 1.0:  # 1.0 * x is x for floats
            numerator.append(self.node(coeff))
        for factor in sympy.Mul(*factors).as_ordered_factors():
            if factor.is_Pow and factor.exp.is_Number and factor.exp < 0:
                denominator.append(self.node(sympy.Pow(factor.base, -factor.exp)))
            else:
                numerator.append(self.node(factor))
        node = _product(numerator) if numerator else ast.Constant(1.0)
        if denominator:
            node = ast.BinOp(node, ast.Div(), _product(denominator))
        return node

    def pow(self, e):
        base, exponent = e.args
        sqrt = "math.sqrt" if self.backend == "math" else "np.sqrt"
        if exponent == S.Half:
            return self.call(sqrt, [base])
        if exponent == -S.Half:
            return ast.BinOp(ast.Constant(1.0), ast.Div(), self.call(sqrt, [base]))
        if exponent.is_Number and exponent < 0:
            return ast.BinOp(ast.Constant(1.0), ast.Div(), self.node(sympy.Pow(base, -exponent)))
        if exponent == 1:
            return self.node(base)
        if exponent == 2 and base.is_Symbol:  # x * x: faster than x ** 2 in CPython
            return ast.BinOp(self.node(base), ast.Mult(), self.node(base))
        if exponent.is_Integer:  # an int exponent: exact, and x ** 3 reads as written
            return ast.BinOp(self.node(base), ast.Pow(), ast.Constant(int(exponent)))
        return ast.BinOp(self.node(base), ast.Pow(), self.node(exponent))

    def piecewise(self, e):
        pieces = list(e.args)
        last_value, last_cond = pieces[-1]
        if last_cond is not S.true:
            raise SymgradError("a Piecewise with no default branch cannot be printed")
        node = self.node(_as_float(last_value))
        for value, cond in reversed(pieces[:-1]):
            value = _as_float(value)
            if self.backend == "numpy":
                node = ast.Call(self.name("np.where"), [self.node(cond), self.node(value), node], [])
            else:
                node = ast.IfExp(self.node(cond), self.node(value), node)
        return node


def _as_float(value):
    """A constant branch value prints as a float, so every branch returns a float."""
    return sympy.Float(value) if value.is_Number else value


def _product(nodes):
    node = nodes[0]
    for other in nodes[1:]:
        node = ast.BinOp(node, ast.Mult(), other)
    return node

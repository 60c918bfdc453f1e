"""Python source → ``Program``: with ``resolve`` (names and calls) and ``guards`` (``assert`` and
``raise``), the only code that reads Python syntax.

Default deny: every statement and expression kind is handled by name below; anything else raises
``UnsupportedSyntaxError`` at its own line and column. How each construct becomes SymPy:

- assignments bind SSA symbols (``t``, ``t_1`` ...) at the top level of the function; inside a
  branch they bind expressions, merged after the ``if`` into one ``Piecewise`` assignment, so nothing
  a branch computes is ever evaluated when the branch is not taken;
- an ``if`` whose branches ``return`` is read as two paths, each with the rest of the block;
- an ``if`` whose condition is known at build time keeps only the branch taken;
- ``for ... in range(N)`` (N known at build time) and loops over constant tuples are unrolled;
- calls (``resolve``): ``stop_gradient`` in every spelling → ``StopGradient``; a callable with a
  row in ``rules.RULES`` → its SymPy function; another plain Python function, module-level or
  nested → its body inlined; ``print`` and logging statements are left out;
- ``assert`` and a conditional ``raise`` (``guards``) → a ``Check`` where the primal runs it.
"""
import ast
import operator

import sympy

from . import dependencies
from .errors import UnsupportedSyntaxError
from .fence import REJECTED, contains, dotted, first
from .program import RESERVED, Assignment, Program, fresh_name, real_symbol
from . import rules
from .guards import Guards
from .resolve import (RAISES, Resolver, _constant, _describe, _Frame, _Py, _surely_undefined,
                      _Undefined)
from .rules import StopGradient, Value, power
from .written import as_written
from .source import read_source

_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: power,
    ast.FloorDiv: lambda a, b: rules.Written(sympy.Integer(5), a, b),  # Python's float // and %:
    ast.Mod: lambda a, b: rules.Written(sympy.Integer(6), a, b),  # not floor(a/b), nor SymPy's Mod
}
_PYTHON = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}  # what the primal computes on constants
_COMPARE = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge,
            ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne}
def to_program(function, stop_gradients=(), nodes=()):
    """Read a Python function into a ``Program``.

    Args:
        function: a plain Python function of float parameters returning a float or a tuple.
        stop_gradients: names of parameters or intermediate variables of ``function`` to treat as
            constants (each value they are bound to is wrapped in ``StopGradient``).
        nodes: names of intermediate variables that get an assignment of their own even when
            bound to a constant or another name (so ``wrt`` can name them); other names ignored.

    Returns:
        A ``Program``.

    Raises:
        UnsupportedSyntaxError: a construct outside the language of docs/language.md, at its file,
            line and column.
        SourceUnavailableError: the source of ``function`` or of a helper it calls cannot be read.
        OptionError: a name in ``stop_gradients`` is not a parameter or variable of ``function``.
    """
    return _Reader(frozenset(stop_gradients), frozenset(nodes)).read(function)


class _Reader(Resolver, Guards):
    def __init__(self, stop_names, nodes=frozenset()):
        self.stop_names, self.nodes = stop_names, nodes
        self.variables = {}  # primal variable -> symbol of its last top-level binding, or None
        self.assignments = []
        self.names = set()  # SSA names taken
        self.source_names = set()  # names the user wrote in the primal
        self.depth = 0  # > 0 while reading a branch whose condition is unknown at build time
        self.inlining = []
        self.callers = []  # the frame of each call being inlined, innermost last
        self.path = []  # (condition, holds) of each `if` around the code being read
        self.checks = set()  # the Checks appended so far
        self.written_of = {}  # a value (SymPy form) -> the same value as the source computes it
        self.call_results = {}  # a helper's call node -> the value its latest reading returned
        self.constants = {}  # an assignment's symbol -> its constant value (math.cos(1.5))
        self.complex_sites = {}  # a rules.ComplexPower -> the location of its first `**`

    # --- the function -----------------------------------------------------------------------
    def read(self, function):
        src = read_source(function)
        node = src.node
        if isinstance(node, ast.AsyncFunctionDef):
            self.reject(node, _Frame(src, {}, True))
        self.inlining.append(function)
        args = node.args
        for bad, what in ((args.vararg, "`*args`"), (args.kwarg, "`**kwargs`")):
            if bad is not None:
                self.fail(bad, _Frame(src, {}, True), f"{what} parameters are not supported",
                          "list the parameters one by one")
        positional = [a.arg for a in args.posonlyargs + args.args]
        kw_given = function.__kwdefaults__ or {}
        kwonly = {a.arg: kw_given.get(a.arg) for a in args.kwonlyargs}
        names = positional + list(kwonly)
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            if arg.arg in RESERVED:
                self.fail(arg, _Frame(src, {}, True), f"a parameter named `{arg.arg}` would hide "
                          "a name the generated code uses", "rename the parameter")
        self.names.update(names)
        self.nodes = self.nodes - set(names)  # a parameter's name always means the parameter
        self.source_names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        defaults = tuple(function.__defaults__ or ())
        frame = _Frame(src, {}, True)
        default_of = dict(zip(positional[len(positional) - len(defaults):], defaults))
        default_of.update({k: v for k, v in kwonly.items() if v is not None})
        arg_of = {a.arg: a for a in args.posonlyargs + args.args + args.kwonlyargs}
        for name, value in default_of.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(arg_of[name], frame, f"the default of `{name}` is not a number",
                          "give parameters int or float defaults only")
        static = {name: default_of[name] for name in self._range_names(node, names)
                  if isinstance(default_of.get(name), int)}
        params = tuple(real_symbol(n) for n in names)
        for name, symbol in zip(names, params):
            value = sympy.Integer(static[name]) if name in static else symbol
            frame.env[name] = StopGradient(value) if name in self.stop_names else value
        body = node.body if isinstance(node, ast.FunctionDef) else [
            ast.copy_location(ast.Return(value=node.body), node.body)]
        result = self.block(body, frame)
        if result is RAISES:
            self.fail(node, frame, f"`{src.name}` raises on every call",
                      "check the `assert` and `raise` statements: nothing to differentiate")
        if result is None:
            self.fail(node, frame, f"`{src.name}` does not return a value",
                      "end the function with `return <expression>`")
        outputs = result if isinstance(result, tuple) else (result,)
        for out in outputs:
            if not isinstance(out, sympy.Expr):
                self.fail(node, frame, f"`{src.name}` returns a non-number", "return floats only")
        self._check_stop_names(frame)
        self._refuse_complex(outputs)
        variables = {n: self.variables.get(n) for n in sorted(frame.locals - set(names))}
        return Program(
            name=src.name, params=params, defaults=defaults, assignments=self.assignments,
            outputs=tuple(outputs), written_outputs=tuple(
                self.written_of.get(out, out) for out in outputs), output_names=self._output_names(node, src.name, len(outputs)),
            origin=f"{src.filename}, line {node.lineno}", static=static,
            names=self.names | self.source_names, kwonly=kwonly, variables=variables)

    @staticmethod
    def _range_names(node, names):
        found = []
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                    and call.func.id == "range":
                found += [n.id for a in call.args for n in ast.walk(a)
                          if isinstance(n, ast.Name) and n.id in names]
        return list(dict.fromkeys(found))

    @staticmethod
    def _output_names(node, name, count):
        if count == 1:
            return (name,)
        last = node.body[-1] if isinstance(node, ast.FunctionDef) and node.body else None
        if isinstance(last, ast.Return) and isinstance(last.value, ast.Tuple):
            ids = [e.id if isinstance(e, ast.Name) else None for e in last.value.elts]
            if None not in ids and len(set(ids)) == count:
                return tuple(ids)
        return tuple(f"{name}_{i}" for i in range(count))

    def _check_stop_names(self, frame):
        from .errors import OptionError
        unknown = sorted(n for n in self.stop_names if n not in frame.locals)
        if unknown:
            raise OptionError(f"stop_gradients names {unknown} that `{frame.src.name}` never binds")

    # --- statements ---------------------------------------------------------------------------
    def block(self, stmts, frame):
        """Read statements in order; return the returned value, None if control falls off, or
        ``RAISES`` when every path raises (an ``assert`` that fails, a ``raise``)."""
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                if stmt.value is None:
                    self.fail(stmt, frame, "`return` without a value", "return a number")
                value = self.value(stmt.value, frame)
                if isinstance(value, tuple) and isinstance(stmt.value, ast.Tuple) and len(
                        value) == len(stmt.value.elts):
                    for item, item_node in zip(value, stmt.value.elts):
                        self.remember(item, self.written(item_node, frame, item))
                elif isinstance(value, sympy.Expr):
                    written = self.written(stmt.value, frame, value)
                    self.remember(value, written)
                    value = self.cancelled(value, written)
                return value
            if isinstance(stmt, ast.If):
                test, parts = _without_not(stmt.test, (stmt.body, stmt.orelse))
                cond = self.condition(test, frame)
                rest = stmts[k + 1:]
                if cond is sympy.true or cond is sympy.false:
                    return self.block((parts[0] if cond else parts[1]) + rest, frame)
                if contains(stmt, ast.Return):
                    results = [self.branch(part + rest, frame, (cond, holds))
                               for part, holds in zip(parts, (True, False))]
                    if None in results:
                        self.fail(stmt, frame, "not every path through this `if` returns a value",
                                  "add a `return` to each branch or after the `if`")
                    return self.select(cond, results[0], results[1], stmt, frame)
                envs = []
                for part, holds in zip(parts, (True, False)):
                    sub = frame.branch()
                    ended = self.branch(part, sub, (cond, holds), copy=False)
                    envs.append(None if ended is RAISES else sub.env)
                if envs == [None, None]:
                    return RAISES
                self.merge(cond, envs, stmt, frame)
                continue
            if self.statement(stmt, frame) is RAISES:
                return RAISES
        return None

    def branch(self, stmts, frame, side, copy=True):
        """Read ``stmts`` on one side of an ``if``: ``side`` is ``(condition, holds)``."""
        self.depth += 1
        self.path.append(side)
        try:
            return self.block(stmts, frame.branch() if copy else frame)
        finally:
            self.depth -= 1
            self.path.pop()

    def merge(self, cond, envs, node, frame):
        """The names after an ``if`` read side by side; a side that raises (None) gives way."""
        then_env, else_env = envs
        if then_env is None or else_env is None:  # only the other side continues
            for name, value in (else_env if then_env is None else then_env).items():
                if frame.env.get(name) is not value:
                    self.bind(name, value, node, frame, stop=False)
            return
        for name in dict.fromkeys([*then_env, *else_env]):
            a, b = then_env.get(name), else_env.get(name)
            if a is b or (isinstance(a, _Py) and isinstance(b, _Py) and a.obj is b.obj):
                frame.env[name] = a
            elif a is None or b is None or isinstance(a, _Undefined) or isinstance(b, _Undefined):
                frame.env[name] = _Undefined(name)
            elif not _is_value(a) or not _is_value(b):
                frame.env[name] = _Undefined(name, "is bound to different functions or objects "
                                             "on the paths of an `if`")
            else:
                self.bind(name, self.select(cond, a, b, node, frame), node, frame, stop=False)

    def select(self, cond, a, b, node, frame):
        """``a if cond else b`` as a value: a ``Piecewise``, element by element for tuples; the
        other side where one side raises (``RAISES``: its check is in the program already)."""
        if a is RAISES or b is RAISES:
            return b if a is RAISES else a
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                self.fail(node, frame, "the branches give tuples of different lengths",
                          "return the same number of values on every path")
            return tuple(self.select(cond, x, y, node, frame) for x, y in zip(a, b))
        a, b = self.number(a, node, frame), self.number(b, node, frame)
        if a == b:
            return a
        chosen = sympy.Piecewise((a, cond), (b, True))
        written_a, written_b = self.written_of.get(a, a), self.written_of.get(b, b)
        if written_a is not a or written_b is not b:
            self.remember(chosen, sympy.Piecewise((written_a, cond), (written_b, True)))
        return chosen

    def cancelled(self, value, written):
        """``value`` where SymPy's form is a name or a number but the source computes it from
        variables (``(x + 0.1) - 0.1`` is ``x`` to SymPy, ``u - u + 0.9`` is 0.9): then an
        ``AsWritten``, so that a comparison of it compares the primal's float, which may be
        another (docs/conventions.md). Not for arrays (shapes are read from SymPy's form)."""
        if isinstance(value, sympy.Expr) and (value.is_Atom or value.is_number) and isinstance(
                written, sympy.Expr) \
                and written.free_symbols and not getattr(self, "array_mode", False):
            return as_written(value, written)
        return value

    def unpacked(self, value, node, frame):
        """An item of ``a, b = (e1, e2)``, with the form its source ``node`` computes it in."""
        if not isinstance(value, sympy.Expr):
            return value
        written = self.written(node, frame, None)
        self.remember(value, written)
        return self.cancelled(value, written)

    def as_computed(self, value, node, frame):
        """``value`` (a SymPy expression read from ``node``) as the source computes it: an
        ``AsWritten`` where its written form may be another float than SymPy's form (an
        argument of ``max``/``min``/``abs``, whose derivatives compare it). Not for arrays."""
        if not isinstance(value, sympy.Expr) or value.is_Number or getattr(
                self, "array_mode", False):
            return value
        return as_written(value, self.written(node, frame, value))

    def remember(self, value, written):
        """Note ``written`` (``rules.Written`` operators) as the primal's own form of ``value``:
        a later operand naming it, a branch choosing it or a returned value prints that form."""
        if isinstance(value, sympy.Expr) and not value.is_Atom and written is not None and \
                written != value:
            self.written_of[value] = written

    def statement(self, stmt, frame):
        """Read one statement; ``RAISES`` when it raises on every path."""
        if isinstance(stmt, ast.Assign):
            value = self.value(stmt.value, frame)
            if value is RAISES:
                return RAISES
            for target in stmt.targets:
                self.assign(target, value, stmt, frame)
        elif isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, ast.Name):
                self.fail(stmt, frame, "attribute or item assignment is not supported",
                          "assign to a plain name")
            current = self.value(ast.copy_location(ast.Name(stmt.target.id, ast.Load()), stmt),
                                 frame)
            value = self.binary(stmt.op, current, self.value(stmt.value, frame), stmt, frame)
            self.bind(stmt.target.id, value, stmt, frame)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.value(stmt.value, frame), stmt, frame)
        elif isinstance(stmt, ast.Expr):
            return self.expression_statement(stmt, frame)
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.For):
            return self.loop(stmt, frame)
        elif isinstance(stmt, (ast.Assert, ast.Raise)):
            return self.check(stmt, frame)
        elif isinstance(stmt, ast.FunctionDef):
            if stmt.decorator_list:
                self.fail(stmt.decorator_list[0], frame, f"the nested helper `{stmt.name}` has a "
                          "decorator", "define it without one")
            frame.env[stmt.name] = self.function_value(stmt, frame)
        else:
            self.reject(stmt, frame)
        return None

    def expression_statement(self, stmt, frame):
        """A docstring; ``print(...)`` or a logging call (left out of the gradient); or a call
        of a helper, read for its ``assert``s and ``raise``s."""
        node = stmt.value
        if type(node) in REJECTED:  # a bare `yield x` or `await x`
            self.reject(node, frame)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return None
        if self.ignored_call(node, frame):
            return None
        if isinstance(node, ast.Call):
            return RAISES if self.call(node, frame, statement=True) is RAISES else None
        return self.fail(stmt, frame, "an expression statement that is not a call is not "
                         "supported", "remove it: its value is not used")

    def assign(self, target, value, node, frame):
        if isinstance(target, ast.Name):
            self.bind(target.id, value, node, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = next((e for e in target.elts if isinstance(e, ast.Starred)), None)
            if starred is not None:
                self.reject(starred, frame)
            items = self.sequence(value, target, frame)
            if len(items) != len(target.elts):
                self.fail(target, frame, f"cannot unpack {len(items)} values into "
                          f"{len(target.elts)} names", "match the number of names and values")
            source = getattr(node, "value", None)
            if isinstance(source, (ast.Tuple, ast.List)) and len(source.elts) == len(items):
                items = [self.unpacked(v, e, frame) for v, e in zip(items, source.elts)]
            for t, v in zip(target.elts, items):
                self.assign(t, v, node, frame)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            self.fail(target, frame, "attribute or item assignment is not supported",
                      "assign to a plain name")
        else:
            self.reject(target, frame)

    def bind(self, name, value, node, frame, stop=True):
        if stop and frame.primary and name in self.stop_names:
            value = StopGradient(self.number(value, node, frame))
        node_of_its_own = frame.primary and name in self.nodes  # named in wrt
        written = None
        if isinstance(value, sympy.Expr) and not isinstance(value, StopGradient) and isinstance(
                node, (ast.Assign, ast.AugAssign)):
            source = node.value if isinstance(node, ast.Assign) else ast.BinOp(
                ast.Name(name, ast.Load()), node.op, node.value)
            if not isinstance(source, (ast.Tuple, ast.List)):
                written = self.written(source, frame, None)
                self.remember(value, written)
                value = self.cancelled(value, written)
        if written is None and isinstance(value, sympy.Expr) and not value.is_Atom:
            written = self.written_of.get(value)  # a branch's choice, merged after an `if`
        if isinstance(value, sympy.Expr) and (not value.is_Atom or node_of_its_own) \
                and self.depth == 0 and not isinstance(value, rules.ComplexPower):
            symbol = real_symbol(fresh_name(name, self.names, self.source_names))
            self.assignments.append(Assignment(symbol, value, written))
            known = self._with_constants(value)
            if _constant(known) and not node_of_its_own:  # one named in wrt is a variable
                self.constants[symbol] = known
            value = symbol
        if frame.primary:  # the last top-level binding; one inside a branch has no single node
            self.variables[name] = value if self.depth == 0 and isinstance(value, sympy.Expr) \
                else None
        frame.env[name] = value

    def loop(self, stmt, frame):
        """A ``for`` over a sequence of build-time length, unrolled; ``RAISES`` if it raises."""
        if stmt.orelse:
            self.fail(stmt, frame, "`for ... else` is not supported", "remove the `else`")
        for kind, word in ((ast.Return, "`return`"), (ast.Break, "`break`"),
                           (ast.Continue, "`continue`")):
            inner = first(stmt, kind)
            if inner is not None:
                self.fail(inner, frame, f"{word} inside a `for` loop is not supported",
                          "compute the value in the loop and return after it")
        for item in self.iterable(stmt.iter, frame):
            self.assign(stmt.target, item, stmt, frame)
            if self.block(stmt.body, frame) is RAISES:
                return RAISES
        return None

    # --- expressions --------------------------------------------------------------------------
    def value(self, node, frame):
        """The value of an expression node: a SymPy expression or boolean, a tuple, or ``_Py``."""
        if isinstance(node, ast.Constant):
            return self.constant(node.value, node, frame)
        if isinstance(node, ast.Name):
            return self.name(node, frame)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value, frame)
            if not isinstance(base, _Py):
                self.fail(node, frame, f"attribute `.{node.attr}` of a number is not supported",
                          "use math functions on the value")
            try:
                obj = getattr(base.obj, node.attr)
            except AttributeError:
                self.fail(node, frame, f"`{dotted(node)}` does not exist", "check the spelling")
            dependencies.attribute_read(base.obj, node.attr, obj)
            return self.python(obj, node, frame)
        if isinstance(node, ast.BinOp):
            return self.binary(node.op, self.value(node.left, frame),
                               self.value(node.right, frame), node, frame)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return sympy.Not(self.condition(node.operand, frame))
            operand = self.number(self.value(node.operand, frame), node, frame)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return self.condition(node, frame)
        if isinstance(node, ast.IfExp):
            test, (body, orelse) = _without_not(node.test, (node.body, node.orelse))
            cond = self.condition(test, frame)
            if cond is sympy.true or cond is sympy.false:
                return self.value(body if cond else orelse, frame)
            return self.select(cond, self.side_value(body, frame, (cond, True)),
                               self.side_value(orelse, frame, (cond, False)), node, frame)
        if isinstance(node, ast.Call):
            return self.call(node, frame)
        if isinstance(node, (ast.Lambda,)):
            return self.function_value(node, frame)
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            return self.comprehension(node, frame)
        if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load):
            return tuple(self.value(e, frame) for e in node.elts)
        if isinstance(node, ast.Subscript):
            items = self.sequence(self.value(node.value, frame), node, frame)
            index = self.integer(node.slice, frame)
            if not -len(items) <= index < len(items):
                self.fail(node, frame, f"index {index} is out of range", "check the index")
            return items[index]
        return self.reject(node, frame)

    def side_value(self, node, frame, side):
        """The value of one side of ``a if c else b``: read as a branch (nothing a helper called
        there computes is evaluated unconditionally; its checks hold on this side only)."""
        self.depth += 1
        self.path.append(side)
        try:
            return self.value(node, frame)
        finally:
            self.depth -= 1
            self.path.pop()

    def constant(self, value, node, frame):
        if isinstance(value, bool):
            return sympy.true if value else sympy.false
        if isinstance(value, int):
            return sympy.Integer(value)
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                self.fail(node, frame, "infinite or nan constants are not supported",
                          "use a finite number")
            return rules.number(value)  # 0.5 is exactly 1/2; 0.1 a 53-bit Float
        return self.fail(node, frame, f"constants of type {type(value).__name__} are not supported",
                         "use int or float numbers")

    def python(self, obj, node, frame):
        """A build-time Python object as a value: numbers become SymPy numbers."""
        if isinstance(obj, (bool, int, float)):
            return self.constant(obj, node, frame)
        if isinstance(obj, (tuple, list)):
            return tuple(self.python(o, node, frame) for o in obj)
        if hasattr(obj, "item") and hasattr(obj, "dtype") and getattr(obj, "shape", None) == ():
            return self.constant(obj.item(), node, frame)  # a NumPy scalar constant
        return _Py(obj)

    def binary(self, op, a, b, node, frame):
        make = _BINARY.get(type(op))
        if make is None:
            return self.fail(node, frame, f"the operator `{type(op).__name__}` is not supported",
                             "use + - * / ** // %")
        a, b = self.number(a, node, frame), self.number(b, node, frame)
        for v in (a, b):
            undefined = _surely_undefined(v)
            if undefined is not None:  # computed from an undefined value: undefined too
                return undefined
        if _constant(a) and _constant(b):
            return self.folded(_PYTHON[type(op)], make, (a, b), node, frame)
        if isinstance(op, ast.Pow) and rules.complex_power(self._with_constants(a), b):
            return self.complex_value(a, b, node, frame)  # (-4) ** y, math.cos(2) ** t
        if isinstance(op, (ast.FloorDiv, ast.Mod)) and self._with_constants(b).is_zero:
            return self.undefined(node, frame, 0)  # x // 0.0 raises ZeroDivisionError
        if isinstance(op, (ast.Add, ast.Sub)):  # 1 - p + 1e-12: not folded into 1.000000000001
            a, b = (rules.Literal(v) if isinstance(v, sympy.Float) else v for v in (a, b))
        if isinstance(op, ast.Pow) and not _constant(b) and isinstance(node, (ast.BinOp,
                                                                           ast.AugAssign)):
            left, right = (node.left, node.right) if isinstance(node, ast.BinOp) else (
                ast.Name(node.target.id, ast.Load()), node.value)  # its guards compare them
            a, b = self.as_computed(a, left, frame), self.as_computed(b, right, frame)
        return self.defined(make(a, b), node, frame)

    def folded(self, python, build, args, node, frame):
        """A call or operator on constants, folded to the value the primal computes."""
        try:
            return rules.fold(python, build, args)
        except rules.NotComputable as exc:
            if exc.complex:  # (-0.5) ** 0.3: a complex number, which the primal does not raise on
                return self.complex_value(*args, node, frame)
            return self.undefined(node, frame, exc.kind)

    def complex_value(self, base, exponent, node, frame):
        """``base ** exponent``, a complex number in Python: ``rules.ComplexPower``, refused at the
        end of the reading if its value is used on every call (``_refuse_complex``), dropped if
        dead, and raising in the gradient on a path that may not run (docs/conventions.md)."""
        value = rules.ComplexPower(sympy.Integer(1), self._with_constants(base), exponent)
        self.complex_sites.setdefault(value, frame.src.location(node))
        return value

    def _refuse_complex(self, outputs):
        """Refuse a ``rules.ComplexPower`` that an output computes on every call (outside any
        branch): the primal's value is complex there, and a gradient of it is no float. A name
        bound to one holds it (no assignment), so a dead one (its value unused, or used on some
        paths only) is no refusal: the primal runs."""
        for expr in outputs:
            found = _surely_undefined(expr)
            if isinstance(found, rules.ComplexPower):
                base, exponent = found.args[1:]
                power = f"({_number_text(base)}) ** {_number_text(exponent)}"
                why = ("a negative base to a fractional power" if exponent.is_Number else
                       "a negative base to a varying power: complex wherever the exponent is "
                       "not whole, with no real derivative")
                raise UnsupportedSyntaxError(
                    f"`{power}` is a complex number in Python ({why}), and symgrad "
                    "differentiates real values only", self.complex_sites.get(found),
                    "make the base positive (`abs(b) ** y`) or the exponent a whole number")

    def undefined(self, node, frame, kind):
        """What the primal cannot compute: refused where it surely runs (the primal raises on
        every call), else ``Undefined``, which raises in the gradient where the primal raises."""
        if self.depth == 0:
            self.fail(node, frame, "this is undefined (a division by zero, log(0), or a complex "
                      "number) for every input", "check the expression: the function raises on "
                      "every call")
        return rules.Undefined(sympy.Integer(kind))

    def defined(self, value, node, frame, may_not_run=False):
        """``value``, unless it is undefined or complex for every input (x/0, log(0), sqrt(-1)):
        then the primal raises on every call, and a gradient must not return a number."""
        bad = (sympy.zoo, sympy.nan, sympy.I, sympy.oo, -sympy.oo)
        if not isinstance(value, sympy.Basic) or not self._with_constants(value).has(*bad):
            return value
        if not isinstance(value, sympy.Piecewise) and value.has(sympy.Piecewise):
            value = sympy.piecewise_fold(value)
        if isinstance(value, sympy.Piecewise):  # undefined on some branches only (0.5 / h(z))
            return sympy.Piecewise(*[(self.defined(e, node, frame, may_not_run=True), c)
                                     for e, c in value.args])
        if may_not_run:
            self.depth += 1
        try:
            return self.undefined(node, frame, 0 if value.has(sympy.zoo) else 1)
        finally:
            self.depth -= may_not_run

    def _with_constants(self, value):
        """``value`` with the names bound to constants replaced by them: ``(t * a) ** -2`` with
        ``a = math.floor(math.cos(1.5))`` is ``zoo``, undefined although no constant shows."""
        if not self.constants or value.free_symbols.isdisjoint(self.constants):
            return value
        try:
            return value.xreplace(self.constants)
        except (TypeError, ValueError, ArithmeticError):  # SymPy cannot rebuild it: as it is
            return value

    def number(self, value, node, frame):
        if isinstance(value, sympy.Expr):
            return value
        if value is RAISES:
            return self.fail(node, frame, "this raises on every path, so it has no value",
                             "call a helper that raises on some inputs only as a statement, "
                             "or return its value")
        what = ("a condition" if isinstance(value, sympy.logic.boolalg.Boolean) else
                "a tuple" if isinstance(value, tuple) else
                f"`{_describe(value.obj if isinstance(value, _Py) else value)}`")
        return self.fail(node, frame, f"{what} is used where a number is needed",
                         "use numbers in arithmetic and comparisons in conditions only")

    def integer(self, node, frame):
        value = self.value(node, frame)
        if isinstance(value, sympy.Integer):
            return int(value)
        if isinstance(value, sympy.Number):
            return self.fail(node, frame, f"this must be an int, not {float(value)!r}",
                             "use an int (range() and indexing take ints only)")
        named = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.nodes]
        if named and frame.primary:
            self.fail(node, frame, f"`{named[0]}` is named in wrt, so it is a variable here, "
                      "not an integer known when the gradient is built",
                      f"leave `{named[0]}` out of wrt")
        return self.fail(node, frame, "this must be an integer known when the gradient is built",
                         "use a literal, a module constant, a closure variable or a parameter "
                         "default")

    def sequence(self, value, node, frame):
        if isinstance(value, tuple):
            return value
        return self.fail(node, frame, "a tuple or list of numbers is needed here",
                         "use a module-level tuple of numbers or a tuple expression")

    def condition(self, node, frame):
        """A test as a SymPy boolean (``sympy.true``/``false`` when decided at build time)."""
        if isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _COMPARE:
                    self.fail(node, frame, f"the comparison `{type(op).__name__}` is not supported",
                              "compare numbers with < <= > >= == !=")
            parts, left = [], self.number(self.value(node.left, frame), node, frame)
            left = self.written(node.left, frame, left)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.number(self.value(right_node, frame), node, frame)
                right = self.written(right_node, frame, right)
                parts.append(_COMPARE[type(op)](Value(left), Value(right)))
                left = right
            return sympy.And(*parts)
        if isinstance(node, ast.BoolOp):
            parts, stop = [], sympy.false if isinstance(node.op, ast.And) else sympy.true
            for k, v in enumerate(node.values):
                self.depth += k > 0  # an operand after the first may not run
                try:
                    parts.append(self.condition(v, frame))
                finally:
                    self.depth -= k > 0
                if parts[-1] is stop:  # `True or ...`: the rest never runs
                    break
            return (rules.AndThen if isinstance(node.op, ast.And) else rules.OrElse)(*parts)
        value = self.value(node, frame)
        if isinstance(value, sympy.logic.boolalg.Boolean) and not isinstance(value, sympy.Expr):
            return value  # a comparison; a number-valued name (a Symbol is a Boolean too) is not
        value = self.written(node, frame, self.number(value, node, frame))  # the primal's float
        return sympy.Ne(Value(value), 0)  # `if t:` is `if t != 0:`

    def written(self, node, frame, value):
        """A comparison operand as the primal computes it: its operators and calls as written
        (``rules.Written``) over names, parameters and constants; ``value`` (its SymPy form) where
        the operand holds anything else (a helper call, a branch-local expression)."""
        try:
            return self._written(node, frame)
        except _NotWritten:  # a helper's returned value: the form its `return` wrote, if any
            return self.written_of.get(value, value) if isinstance(value, sympy.Expr) else value

    def _written(self, node, frame):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return rules.number(node.value)
        if isinstance(node, ast.Name):
            value = self.name(node, frame)
            if isinstance(value, sympy.Expr) and (value.is_Symbol or value.is_Number):
                return value
            if isinstance(value, sympy.Expr) and value in self.written_of:  # bound in a branch
                return self.written_of[value]
        elif isinstance(node, ast.BinOp) and type(node.op) in _WRITTEN:
            return rules.Written(sympy.Integer(_WRITTEN[type(node.op)]),
                                 self._written(node.left, frame), self._written(node.right, frame))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self._written(node.operand, frame)
            return rules.Written(sympy.Integer(-1), operand) if isinstance(node.op, ast.USub) \
                else operand
        elif isinstance(node, ast.Call) and not node.keywords and dotted(node.func) is not None:
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(node.func, ast.Attribute) and not isinstance(self.value(root, frame), _Py):
                raise _NotWritten  # a method of a value (an array's x.sum()): not a function call
            func = self.value(node.func, frame)
            rule = rules.rule_for_callable(func.obj) if isinstance(func, _Py) else None
            if rule is not None and rules.written_spelling(rule, "math") is not None and \
                    len(node.args) in rule.nargs:
                return rules.Written(sympy.Integer(100 + rules.RULES.index(rule)),
                                     *[self._written(a, frame) for a in node.args])
            if node in self.call_results:  # a helper: the form its `return` wrote, if any
                value = self.call_results[node]
                return self.written_of.get(value, value)
        raise _NotWritten

    # --- errors -------------------------------------------------------------------------------
    def reject(self, node, frame):
        what, hint = REJECTED.get(type(node), (
            f"`{type(node).__name__}` is not supported", "see docs/language.md for what is"))
        return self.fail(node, frame, what, hint)

    @staticmethod
    def fail(node, frame, what, hint=None):
        raise UnsupportedSyntaxError(what, frame.src.location(node), hint)


def _number_text(value):
    """A SymPy value as short text for a message: a number as the float Python holds."""
    return repr(rules.as_python(value) if value.is_Integer else float(value)) \
        if value.is_number else str(value)


def _is_value(value):
    """A number, a condition or a tuple (what a ``Piecewise`` can choose between)."""
    return isinstance(value, (sympy.Basic, tuple))


class _NotWritten(Exception):
    """An operand ``_Reader.written`` cannot keep as written."""


_WRITTEN = {ast.Add: 0, ast.Sub: 1, ast.Mult: 2, ast.Div: 3, ast.Pow: 4, ast.FloorDiv: 5,
            ast.Mod: 6}


def _without_not(test, branches):
    """``if not c: A else: B`` as ``if c: B else: A``. SymPy would turn ``Not(x > 0)`` into
    ``x <= 0``, which differs from Python's ``not`` at nan; swapping the branches keeps Python's."""
    body, orelse = branches
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, body, orelse = test.operand, orelse, body
    return test, (body, orelse)

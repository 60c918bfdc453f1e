"""Python source → ``Program``: the only module that reads Python syntax.

Default deny: every statement and expression kind is handled by name below; anything else raises
``UnsupportedSyntaxError`` at its own line and column. How each construct becomes SymPy:

- assignments bind SSA symbols (``t``, ``t_1`` ...) at the top level of the function; inside a
  branch they bind expressions, merged after the ``if`` into one ``Piecewise`` assignment, so nothing
  a branch computes is ever evaluated when the branch is not taken;
- an ``if`` whose branches ``return`` is read as two paths, each with the rest of the block;
- an ``if`` whose condition is known at build time keeps only the branch taken;
- ``for ... in range(N)`` (N known at build time) and loops over constant tuples are unrolled;
- calls: ``stop_gradient`` in every spelling → ``StopGradient``; a callable with a row in
  ``rules.RULES`` → its SymPy function; another plain Python function → its body inlined.
"""
import ast
import operator
import types

import sympy

from . import rules
from .errors import UnsupportedSyntaxError
from .fence import LOOP_HINT, REJECTED, contains, dotted, first
from .program import RESERVED, Assignment, Program, fresh_name, real_symbol
from .rules import StopGradient, Value, power
from .source import read_source

_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: power,
    ast.FloorDiv: lambda a, b: sympy.floor(a / b),
    ast.Mod: sympy.Mod,
}
_PYTHON = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}  # what the primal computes on constants
_COMPARE = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge,
            ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne}
class _Py:
    """A Python object a name resolves to at build time (a module, a callable, a constant tuple)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


class _Undefined:
    """A name bound on only one path of an ``if``: any later use is an error."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _Frame:
    """One function being read (the primal or an inlined helper): its source and local names."""

    def __init__(self, src, env, primary):
        self.src, self.env, self.primary = src, env, primary
        self.locals = {n.id for n in ast.walk(src.node)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def branch(self):
        copy = _Frame.__new__(_Frame)
        copy.src, copy.env, copy.primary, copy.locals = self.src, dict(self.env), self.primary, \
            self.locals
        return copy


def to_program(function, stop_gradients=()):
    """Read a Python function into a ``Program``.

    Args:
        function: a plain Python function of float parameters returning a float or a tuple.
        stop_gradients: names of parameters or intermediate variables of ``function`` to treat as
            constants (each value they are bound to is wrapped in ``StopGradient``).

    Returns:
        A ``Program``.

    Raises:
        UnsupportedSyntaxError: a construct outside SPEC section 4, at its file, line and column.
        SourceUnavailableError: the source of ``function`` or of a helper it calls cannot be read.
        OptionError: a name in ``stop_gradients`` is not a parameter or variable of ``function``.
    """
    return _Reader(frozenset(stop_gradients)).read(function)


class _Reader:
    def __init__(self, stop_names):
        self.stop_names = stop_names
        self.assignments = []
        self.names = set()  # SSA names taken
        self.source_names = set()  # names the user wrote in the primal
        self.depth = 0  # > 0 while reading a branch whose condition is unknown at build time
        self.inlining = []

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
        if args.kwonlyargs:
            self.fail(args.kwonlyargs[0], _Frame(src, {}, True),
                      "keyword-only parameters are not supported", "make them positional")
        names = [a.arg for a in args.posonlyargs + args.args]
        for arg in args.posonlyargs + args.args:
            if arg.arg in RESERVED:
                self.fail(arg, _Frame(src, {}, True), f"a parameter named `{arg.arg}` would hide "
                          "a name the generated code uses", "rename the parameter")
        self.names.update(names)
        self.source_names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        defaults = tuple(function.__defaults__ or ())
        frame = _Frame(src, {}, True)
        for value, arg in zip(defaults, (args.posonlyargs + args.args)[len(names) - len(defaults):]):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(arg, frame, f"the default of `{arg.arg}` is not a number",
                          "give parameters int or float defaults only")
        default_of = dict(zip(names[len(names) - len(defaults):], defaults))
        static = {name: default_of[name] for name in self._range_names(node, names)
                  if isinstance(default_of.get(name), int)}
        params = tuple(real_symbol(n) for n in names)
        for name, symbol in zip(names, params):
            value = sympy.Integer(static[name]) if name in static else symbol
            frame.env[name] = StopGradient(value) if name in self.stop_names else value
        body = node.body if isinstance(node, ast.FunctionDef) else [
            ast.copy_location(ast.Return(value=node.body), node.body)]
        result = self.block(body, frame)
        if result is None:
            self.fail(node, frame, f"`{src.name}` does not return a value",
                      "end the function with `return <expression>`")
        outputs = result if isinstance(result, tuple) else (result,)
        for out in outputs:
            if not isinstance(out, sympy.Expr):
                self.fail(node, frame, f"`{src.name}` returns a non-number", "return floats only")
        self._check_stop_names(frame)
        return Program(
            name=src.name, params=params, defaults=defaults, assignments=self.assignments,
            outputs=tuple(outputs), output_names=self._output_names(node, src.name, len(outputs)),
            origin=f"{src.filename}, line {node.lineno}", static=static, names=self.names | self.source_names)

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
        unknown = sorted(n for n in self.stop_names if n not in frame.locals and n not in {
            a.arg for a in frame.src.node.args.args + frame.src.node.args.posonlyargs})
        if unknown:
            raise OptionError(f"stop_gradients names {unknown} that `{frame.src.name}` never binds")

    # --- statements ---------------------------------------------------------------------------
    def block(self, stmts, frame):
        """Read statements in order; return the returned value, or None if control falls off."""
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                if stmt.value is None:
                    self.fail(stmt, frame, "`return` without a value", "return a number")
                return self.value(stmt.value, frame)
            if isinstance(stmt, ast.If):
                test, parts = _without_not(stmt.test, (stmt.body, stmt.orelse))
                cond = self.condition(test, frame)
                rest = stmts[k + 1:]
                if cond is sympy.true or cond is sympy.false:
                    return self.block((parts[0] if cond else parts[1]) + rest, frame)
                if contains(stmt, ast.Return):
                    results = [self.branch(part + rest, frame) for part in parts]
                    if None in results:
                        self.fail(stmt, frame, "not every path through this `if` returns a value",
                                  "add a `return` to each branch or after the `if`")
                    return self.select(cond, results[0], results[1], stmt, frame)
                envs = []
                for part in parts:
                    sub = frame.branch()
                    self.depth += 1
                    self.block(part, sub)
                    self.depth -= 1
                    envs.append(sub.env)
                self.merge(cond, envs, stmt, frame)
                continue
            self.statement(stmt, frame)
        return None

    def branch(self, stmts, frame):
        self.depth += 1
        try:
            return self.block(stmts, frame.branch())
        finally:
            self.depth -= 1

    def merge(self, cond, envs, node, frame):
        then_env, else_env = envs
        for name in dict.fromkeys([*then_env, *else_env]):
            a, b = then_env.get(name), else_env.get(name)
            if a is b:
                frame.env[name] = a
            elif a is None or b is None or isinstance(a, _Undefined) or isinstance(b, _Undefined):
                frame.env[name] = _Undefined(name)
            else:
                self.bind(name, self.select(cond, a, b, node, frame), node, frame, stop=False)

    def select(self, cond, a, b, node, frame):
        """``a if cond else b`` as a value: a ``Piecewise``, element by element for tuples."""
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                self.fail(node, frame, "the branches give tuples of different lengths",
                          "return the same number of values on every path")
            return tuple(self.select(cond, x, y, node, frame) for x, y in zip(a, b))
        a, b = self.number(a, node, frame), self.number(b, node, frame)
        if a == b:
            return a
        return sympy.Piecewise((a, cond), (b, True))

    def statement(self, stmt, frame):
        if isinstance(stmt, ast.Assign):
            value = self.value(stmt.value, frame)
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
            if type(stmt.value) in REJECTED:  # a bare `yield x` or `await x`
                self.reject(stmt.value, frame)
            if not (isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                self.fail(stmt, frame, "an expression statement (such as a call to `print`) "
                          "is not supported", "remove it: its effect would not be in the gradient")
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.For):
            self.loop(stmt, frame)
        else:
            self.reject(stmt, frame)

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
        if isinstance(value, sympy.Expr) and not value.is_Atom and self.depth == 0:
            written = None
            if not isinstance(value, StopGradient) and isinstance(node, (ast.Assign, ast.AugAssign)):
                source = node.value if isinstance(node, ast.Assign) else ast.BinOp(
                    ast.Name(name, ast.Load()), node.op, node.value)
                written = self.written(source, frame, None)
            symbol = real_symbol(fresh_name(name, self.names, self.source_names))
            self.assignments.append(Assignment(symbol, value, written))
            value = symbol
        frame.env[name] = value

    def loop(self, stmt, frame):
        if stmt.orelse:
            self.fail(stmt, frame, "`for ... else` is not supported", "remove the `else`")
        for kind, word in ((ast.Return, "`return`"), (ast.Break, "`break`"),
                           (ast.Continue, "`continue`")):
            inner = first(stmt, kind)
            if inner is not None:
                self.fail(inner, frame, f"{word} inside a `for` loop is not supported",
                          "compute the value in the loop and return after it")
        it = stmt.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and self.lookup(it.func, frame) is range:
            if it.keywords or not 1 <= len(it.args) <= 3:
                self.fail(it, frame, "range() takes 1 to 3 positional arguments", LOOP_HINT)
            items = [sympy.Integer(i) for i in range(*[self.integer(a, frame) for a in it.args])]
        else:
            items = self.sequence(self.value(it, frame), it, frame)
        for item in items:
            self.assign(stmt.target, item, stmt, frame)
            self.block(stmt.body, frame)

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
                return self.python(getattr(base.obj, node.attr), node, frame)
            except AttributeError:
                self.fail(node, frame, f"`{dotted(node)}` does not exist", "check the spelling")
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
            self.depth += 1  # each branch may not run
            try:
                values = self.value(body, frame), self.value(orelse, frame)
            finally:
                self.depth -= 1
            return self.select(cond, *values, node, frame)
        if isinstance(node, ast.Call):
            return self.call(node, frame)
        if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load):
            return tuple(self.value(e, frame) for e in node.elts)
        if isinstance(node, ast.Subscript):
            items = self.sequence(self.value(node.value, frame), node, frame)
            index = self.integer(node.slice, frame)
            if not -len(items) <= index < len(items):
                self.fail(node, frame, f"index {index} is out of range", "check the index")
            return items[index]
        return self.reject(node, frame)

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

    def name(self, node, frame):
        if node.id in frame.env:
            value = frame.env[node.id]
            if isinstance(value, _Undefined):
                self.fail(node, frame, f"`{node.id}` is assigned on only some paths of an `if`",
                          "assign it before the `if` or in every branch")
            return value
        if node.id in frame.locals:
            self.fail(node, frame, f"`{node.id}` is used before it is assigned",
                      "assign it first")
        found, obj = frame.src.lookup(node.id)
        if not found:
            self.fail(node, frame, f"name `{node.id}` is not defined",
                      "define it at module level or pass it as a parameter")
        return self.python(obj, node, frame)

    def lookup(self, node, frame):
        value = self.value(node, frame)
        return value.obj if isinstance(value, _Py) else None

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
        if isinstance(op, (ast.Add, ast.Sub)):  # 1 - p + 1e-12: not folded into 1.000000000001
            a, b = (rules.Literal(v) if isinstance(v, sympy.Float) else v for v in (a, b))
        return self.defined(make(a, b), node, frame)

    def folded(self, python, build, args, node, frame):
        """A call or operator on constants, folded to the value the primal computes."""
        try:
            return rules.fold(python, build, args)
        except rules.NotComputable as exc:
            return self.undefined(node, frame, exc.kind)

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
        if not isinstance(value, sympy.Basic) or not value.has(*bad):
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

    def number(self, value, node, frame):
        if isinstance(value, sympy.Expr):
            return value
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
        return sympy.Ne(Value(self.number(value, node, frame)), 0)  # `if t:` is `if t != 0:`

    def written(self, node, frame, value):
        """A comparison operand as the primal computes it: its operators and calls as written
        (``rules.Written``) over names, parameters and constants; ``value`` (its SymPy form) where
        the operand holds anything else (a helper call, a branch-local expression)."""
        try:
            return self._written(node, frame)
        except _NotWritten:
            return value

    def _written(self, node, frame):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return rules.number(node.value)
        if isinstance(node, ast.Name):
            value = self.name(node, frame)
            if isinstance(value, sympy.Expr) and (value.is_Symbol or value.is_Number):
                return value
        elif isinstance(node, ast.BinOp) and type(node.op) in _WRITTEN:
            return rules.Written(sympy.Integer(_WRITTEN[type(node.op)]),
                                 self._written(node.left, frame), self._written(node.right, frame))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self._written(node.operand, frame)
            return rules.Written(sympy.Integer(-1), operand) if isinstance(node.op, ast.USub) \
                else operand
        elif isinstance(node, ast.Call) and not node.keywords and isinstance(
                node.func, (ast.Name, ast.Attribute)):
            func = self.value(node.func, frame)
            rule = rules.rule_for_callable(func.obj) if isinstance(func, _Py) else None
            if rule is not None and rules.written_spelling(rule, "math") is not None and \
                    len(node.args) in rule.nargs:
                return rules.Written(sympy.Integer(100 + rules.RULES.index(rule)),
                                     *[self._written(a, frame) for a in node.args])
        raise _NotWritten

    def call(self, node, frame):
        if dotted(node.func) in rules.STOP_GRADIENT_SPELLINGS:
            return self.stopped(node, frame)
        func = self.value(node.func, frame)
        if not isinstance(func, _Py) or not callable(func.obj):
            return self.fail(node, frame, "this is not a function", "call functions only")
        obj = func.obj
        if obj is rules.stop_gradient or _framework_stop_gradient(obj):
            return self.stopped(node, frame)
        if getattr(obj, "__name__", None) == "stop_gradient":
            self.fail(node, frame, f"this `stop_gradient` is {_describe(obj)} from module "
                      f"`{getattr(obj, '__module__', '?')}`, not symgrad's",
                      "use `from symgrad import stop_gradient` (or spell it tf.stop_gradient, "
                      "jax.lax.stop_gradient, lax.stop_gradient or K.stop_gradient)")
        if obj is len:
            return sympy.Integer(len(self.sequence(self.value(node.args[0], frame), node, frame)))
        rule = rules.rule_for_callable(obj)
        if rule is not None:
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
                self.fail(node, frame, f"keyword or `*` arguments to `{dotted(node.func)}` are "
                          "not supported", "pass plain positional arguments")
            args = [self.value(a, frame) for a in node.args]
            for value, arg in zip(args, node.args):
                if isinstance(value, tuple):
                    self.fail(arg, frame, f"`{dotted(node.func)}` of a tuple or list is not "
                              "supported",
                              f"pass each number as its own argument: {dotted(node.func)}(a, b)")
            args = [self.number(a, n, frame) for a, n in zip(args, node.args)]
            if len(args) not in rule.nargs:
                counts = (f"{rule.nargs[0]} to {rule.nargs[-1]}" if len(rule.nargs) > 2
                          else " or ".join(map(str, rule.nargs)))
                self.fail(node, frame, f"`{dotted(node.func)}` with {len(args)} arguments is not "
                          "supported", f"pass {counts} number{'' if rule.nargs == (1,) else 's'}")
            for v in args:
                undefined = _surely_undefined(v)
                if undefined is not None:  # computed from an undefined value: undefined too
                    return undefined
            if all(_constant(a) for a in args):
                return self.folded(obj, rule.build or rule.sympy, args, node, frame)
            if rule.sympy in (sympy.Max, sympy.Min):
                args = rules.repeats_kept(args)
            try:
                return self.defined((rule.build or rule.sympy)(*args), node, frame)
            except (TypeError, ValueError) as exc:
                return self.fail(node, frame, f"`{dotted(node.func)}` cannot be applied here "
                                 f"({str(exc).rstrip('.')})", "pass real numbers")
        if isinstance(obj, types.FunctionType) and not hasattr(obj, "__wrapped__"):
            return self.inline(obj, node, frame)
        return self.fail(node, frame, f"symgrad does not know the derivative of "
                         f"`{dotted(node.func) or _describe(obj)}`",
                         "use math/numpy functions symgrad knows (docs/language.md) or a plain "
                         "Python helper whose source is available")

    def stopped(self, node, frame):
        """``stop_gradient(e)``: ``StopGradient(e)``, element by element for a tuple."""
        if len(node.args) != 1 or node.keywords:
            self.fail(node, frame, "stop_gradient takes exactly one argument", "pass one value")
        value = self.value(node.args[0], frame)
        if isinstance(value, tuple):
            return tuple(StopGradient(self.number(v, node, frame)) for v in value)
        return StopGradient(self.number(value, node, frame))

    def inline(self, helper, node, frame):
        if helper in self.inlining:
            self.fail(node, frame, f"recursion (`{helper.__name__}` calls itself) is not supported",
                      "rewrite it as a `for` loop with a count known at build time")
        src = read_source(helper)
        hnode = src.node
        if getattr(hnode, "decorator_list", None):
            self.fail(node, frame, f"the helper `{helper.__name__}` has a decorator",
                      "call an undecorated function")
        params = [a.arg for a in hnode.args.posonlyargs + hnode.args.args]
        if hnode.args.vararg or hnode.args.kwarg or hnode.args.kwonlyargs:
            self.fail(node, frame, f"the helper `{helper.__name__}` takes `*args`, `**kwargs` or "
                      "keyword-only parameters", "give it plain positional parameters")
        env = {}
        if len(node.args) > len(params):
            self.fail(node, frame, f"too many arguments to `{helper.__name__}`", "check the call")
        for name, arg in zip(params, node.args):
            if isinstance(arg, ast.Starred):
                self.reject(arg, frame)
            env[name] = self.value(arg, frame)
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in params or kw.arg in env:
                what = ("`**` arguments" if kw.arg is None else
                        f"the keyword argument `{kw.arg}`" + (" (given twice)" if kw.arg in env
                                                              else " (not a parameter)"))
                self.fail(kw, frame, f"{what} in the call of `{helper.__name__}`",
                          f"`{helper.__name__}` takes {', '.join(params)}")
            env[kw.arg] = self.value(kw.value, frame)
        defaults = helper.__defaults__ or ()
        for name, default in zip(params[len(params) - len(defaults):], defaults):
            env.setdefault(name, self.python(default, node, frame))
        missing = [p for p in params if p not in env]
        if missing:
            self.fail(node, frame, f"`{helper.__name__}` is missing arguments {missing}",
                      "check the call")
        body = hnode.body if isinstance(hnode, ast.FunctionDef) else [
            ast.copy_location(ast.Return(value=hnode.body), hnode.body)]
        self.inlining.append(helper)
        try:
            result = self.block(body, _Frame(src, env, False))
        finally:
            self.inlining.pop()
        if result is None:
            self.fail(hnode, _Frame(src, env, False), f"`{helper.__name__}` does not return a "
                      "value", "end it with `return <expression>`")
        return result

    # --- errors -------------------------------------------------------------------------------
    def reject(self, node, frame):
        what, hint = REJECTED.get(type(node), (
            f"`{type(node).__name__}` is not supported", "see docs/language.md for what is"))
        return self.fail(node, frame, what, hint)

    @staticmethod
    def fail(node, frame, what, hint=None):
        raise UnsupportedSyntaxError(what, frame.src.location(node), hint)


def _surely_undefined(value):
    """The ``Undefined`` that ``value`` always computes (outside any branch or condition), or
    None: ``x + Undefined`` is undefined, ``u if u or math.atanh(1.0) else 4.0`` is not."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, rules.Undefined):
            return node
        branch = isinstance(node, (sympy.Piecewise, rules.Branch)) or (
            isinstance(node, sympy.logic.boolalg.Boolean) and not isinstance(node, sympy.Expr))
        if not branch:
            stack.extend(node.args)
    return None


class _NotWritten(Exception):
    """An operand ``_Reader.written`` cannot keep as written."""


_WRITTEN = {ast.Add: 0, ast.Sub: 1, ast.Mult: 2, ast.Div: 3, ast.Pow: 4, ast.FloorDiv: 5,
            ast.Mod: 6}


def _constant(value):
    """Whether a SymPy value is a constant the primal computes in Python (no symbol, no stop)."""
    return isinstance(value, sympy.Expr) and value.is_number and not value.has(
        StopGradient, rules.Undefined)


def _without_not(test, branches):
    """``if not c: A else: B`` as ``if c: B else: A``. SymPy would turn ``Not(x > 0)`` into
    ``x <= 0``, which differs from Python's ``not`` at nan; swapping the branches keeps Python's."""
    body, orelse = branches
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, body, orelse = test.operand, orelse, body
    return test, (body, orelse)


def _framework_stop_gradient(obj):
    """The stop_gradient of JAX, TensorFlow or Keras, however it was imported."""
    module = getattr(obj, "__module__", None) or ""
    return getattr(obj, "__name__", None) == "stop_gradient" and module.split(".")[0] in (
        "jax", "tensorflow", "keras", "tf_keras")


def _describe(obj):
    return getattr(obj, "__qualname__", None) or type(obj).__name__

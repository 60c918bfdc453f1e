"""Python source → ``Program``: with ``resolve`` (names and calls) and ``guards`` (``assert`` and
``raise``), the only code that reads Python syntax.

Default deny: every statement and expression kind is handled by name below; anything else raises
``UnsupportedSyntaxError`` at its own line and column. How each construct becomes SymPy:

- assignments bind SSA symbols (``t``, ``t_1`` ...) at the top level of the function; inside a
  branch they bind expressions, merged after the ``if`` into one ``Piecewise`` assignment, so nothing
  a branch computes is ever evaluated when the branch is not taken;
- an ``if`` whose branches ``return`` is read as two paths, each with the rest of the block, or,
  where one side always returns, the rest as top-level lines guarded by the condition
  (``branches``, which reads the sides of an ``if`` and merges them);
- an ``if`` whose condition is known at build time keeps only the branch taken;
- ``for ... in range(N)`` (N known at build time) and loops over constant tuples are unrolled;
- calls (``resolve``): ``stop_gradient`` in every spelling → ``StopGradient``; a callable with a
  row in ``rules.RULES`` → its SymPy function; another plain Python function, module-level or
  nested → its body inlined; ``print`` and logging statements are left out;
- ``assert`` and a conditional ``raise`` (``guards``) → a ``Check`` where the primal runs it.
"""
import ast

import sympy

from . import argument_refusals, functions
from .branches import Branches, returns
from .conditions import Conditions
from .errors import UnsupportedSyntaxError
from .expressions import Expressions, _without_not
from .fence import REJECTED, contains, first
from .functions import StopGradient
from .guards import Guards
from .program import RESERVED, Assignment, Program, fresh_name, real_symbol
from .resolve import RAISES, Resolver, _constant, _Frame
from .written import AsWritten, as_written, kept_own
from .source import read_source
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


class _Reader(Branches, Expressions, Conditions, Resolver, Guards):
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
        self.guards = []  # the sides of the `if`s whose other side returned (`_after_return`)
        self.checks = set()  # the Checks appended so far
        self.written_of = {}  # a value (SymPy form) -> the same value as the source computes it
        # (value, path of the `if`s around it) -> its form there: the two sides of an `if` may
        # bind one SymPy value computed as two floats (`s = m * 3.0 / 3.0`, `s = m`)
        self.side_written = {}
        self.call_results = {}  # a helper's call node -> the form its latest reading computed
        # its value in (noted then: a later call may return the same value in another form)
        self.written_at = {}  # an `a if c else b` node -> its latest value, sides as written
        self.constants = {}  # an assignment's symbol -> its constant value (math.cos(1.5))
        self.made_of_constants = {}  # a node -> whether only numbers and `constants` make it
        self.complex_sites = {}  # a functions.ComplexPower -> the location of its first `**`

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
            if self.array_default(name, value, arg_of[name], frame):
                continue
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
            if isinstance(out, sympy.logic.boolalg.Boolean) and not isinstance(out, sympy.Expr):
                self.fail(node, frame, f"`{src.name}` returns a condition (symgrad reads a "
                          "comparison, and `and`/`or`, as conditions only, not as Python's "
                          "choice of an operand)", "return a number: for a choice write "
                          "`a if condition else b`")
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
            names=self.names | self.source_names, kwonly=kwonly, variables=variables,
            posonly=len(args.posonlyargs))

    def array_default(self, name, value, node, frame):
        """Whether the default ``value`` of the parameter ``name`` is an array the array reader
        takes (``array_frontend``); scalar code takes int and float defaults only."""
        return False

    @staticmethod
    def _range_names(node, names):
        """Parameters read in a ``range(...)`` bound or in a subscript's index (``X[i]``): with an
        int default they are fixed when the gradient is built (the generated code checks that a
        call passes that value)."""
        found = []
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                    and call.func.id == "range":
                found += [n.id for a in call.args for n in ast.walk(a)
                          if isinstance(n, ast.Name) and n.id in names]
            elif isinstance(call, ast.Subscript):
                found += [n.id for n in ast.walk(call.slice)
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
                    if rest and self.depth == len(self.guards) and not getattr(
                            self, "array_mode", False) and returns(parts[0]) != returns(
                            parts[1]):
                        return self._after_return(cond, parts, rest, stmt, frame)
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
                    envs.append(None if ended is RAISES else sub)
                if envs == [None, None]:
                    return RAISES
                self.merge(cond, envs, stmt, frame)
                continue
            if self.statement(stmt, frame) is RAISES:
                return RAISES
        return None

    def form_of(self, value, path=None):
        """The form the source computes ``value`` in (``rules.Written`` operators), as noted by
        ``remember`` on ``path`` (the ``(condition, holds)`` of the ``if``s around: ``self.path``
        by default) or around it, else anywhere; None if none was noted."""
        if not isinstance(value, sympy.Expr):
            return None
        path = tuple(self.path) if path is None else path
        while path:
            found = self.side_written.get((value, path))
            if found is not None:
                return found
            path = path[:-1]
        return self.written_of.get(value)

    def cancelled(self, value, written):
        """``value`` where SymPy's form is a name or a number but the source computes it from
        variables (``(x + 0.1) - 0.1`` is ``x`` to SymPy, ``u - u + 0.9`` is 0.9): then an
        ``AsWritten``, so that a comparison of it compares the primal's float, which may be
        another (docs/conventions.md). Array code: ``array_frontend.ArrayReader.cancelled``."""
        if isinstance(value, sympy.Expr) and (value.is_Atom or value.is_number) and isinstance(
                written, sympy.Expr) and written.free_symbols:
            return as_written(value, written)
        return value

    def unpacked(self, value, node, frame):
        """An item of a tuple display or a comprehension's element (``node``: its source), with
        the form the source computes it in: its own (``written.kept_own``) in scalar code."""
        if not isinstance(value, sympy.Expr):
            return value
        written = self.written(node, frame, None)
        self.remember(value, written)
        if getattr(self, "array_mode", False):
            return self.cancelled(value, written)
        return kept_own(value, written)

    def as_computed(self, value, node, frame):
        """``value`` (a SymPy expression read from ``node``) as the source computes it: an
        ``AsWritten`` where its written form may be another float than SymPy's form (an
        argument of ``max``/``min``/``abs``, whose derivatives compare it). Array code:
        ``array_frontend.ArrayReader.as_computed``."""
        if not isinstance(value, sympy.Expr):
            return value  # (a number too: SymPy's cancellation `(x + 0.1) - x` may be one)
        return as_written(value, self.written(node, frame, value))

    def remember(self, value, written):
        """Note ``written`` (``rules.Written`` operators) as the primal's own form of ``value``:
        a later operand naming it, a branch choosing it or a returned value prints that form."""
        if isinstance(value, sympy.Expr) and not value.is_Atom and written is not None:
            if self.path:  # on this side of an `if` (even as SymPy: the other side's is not)
                self.side_written[(value, tuple(self.path))] = written
            if written != value:
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

    def assign(self, target, value, node, frame, source=False):
        """Bind ``target`` (a name or a tuple/list of targets) to ``value``; ``source`` is the
        expression written for this target (``node.value`` at the top; in a nested target the
        matching item of a written-out tuple, or None where there is none)."""
        if source is False:
            source = getattr(node, "value", None)
        if isinstance(target, ast.Name):
            self.bind(target.id, value, node, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = next((e for e in target.elts if isinstance(e, ast.Starred)), None)
            if starred is not None:
                self.reject(starred, frame)
            if isinstance(source, ast.Name) and not isinstance(value, tuple) and (
                    argument_refusals.parameter_in(source, frame)):  # w, b = params
                self.fail(target, frame, *argument_refusals.unpacked(source.id))
            items = self.sequence(value, target, frame)
            if len(items) != len(target.elts):
                self.fail(target, frame, f"cannot unpack {len(items)} values into "
                          f"{len(target.elts)} names", "match the number of names and values")
            sources = [None] * len(items)
            if isinstance(source, (ast.Tuple, ast.List)) and len(source.elts) == len(items):
                items = [self.unpacked(v, e, frame) for v, e in zip(items, source.elts)]
                sources = source.elts
            for t, v, e in zip(target.elts, items, sources):
                self.assign(t, v, node, frame, e)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            self.fail(target, frame, "attribute or item assignment is not supported",
                      "assign to a plain name")
        else:
            self.reject(target, frame)

    def bind(self, name, value, node, frame, stop=True, written=None):
        """Bind ``name`` to ``value`` in ``frame``: an assignment of its own at the top level
        (unless a name or a number), the value itself elsewhere, with the form the source
        computes it in (``written``, or read from ``node``) kept in ``frame.written``."""
        if stop and frame.primary and name in self.stop_names:
            value, written = StopGradient(self.number(value, node, frame)), None
        if isinstance(value, sympy.Expr) and not isinstance(value, StopGradient) and isinstance(
                node, (ast.Assign, ast.AugAssign)) and not _unpacking(node):
            source = node.value if isinstance(node, ast.Assign) else ast.BinOp(
                ast.Name(name, ast.Load()), node.op, node.value)
            if not isinstance(source, (ast.Tuple, ast.List)):
                written = self.written(source, frame, None)
                self.remember(value, written)
                value = self.cancelled(value, written)
        if isinstance(value, AsWritten) and not (value.args[0].is_Atom or value.args[0].is_number):
            value, written = value.args[0], value.written  # an item of a tuple (kept_own): the
            # name holds SymPy's form and its line (or ``frame.written``) the item's own
        if written is None and isinstance(value, sympy.Expr) and not value.is_Atom:
            written = self.form_of(value)  # a branch's choice, merged after an `if`
        frame.written.pop(name, None)
        if isinstance(value, sympy.Expr) and written is not None and written != value:
            frame.written[name] = written  # (a name given an assignment: its line, below)
        node_of_its_own = frame.primary and name in self.nodes  # named in wrt
        if isinstance(value, sympy.Expr) and (not value.is_Atom or node_of_its_own) \
                and self.depth == len(self.guards) and not isinstance(
                    value, functions.ComplexPower):
            frame.written.pop(name, None)
            symbol = real_symbol(fresh_name(name, self.names, self.source_names))
            self.assignments.append(Assignment(symbol, self.guarded(value), written if
                                               written is None else self.guarded(written)))
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

    # --- errors -------------------------------------------------------------------------------
    def reject(self, node, frame):
        what, hint = REJECTED.get(type(node), (
            f"`{type(node).__name__}` is not supported", "see docs/language.md for what is"))
        return self.fail(node, frame, what, hint)

    @staticmethod
    def fail(node, frame, what, hint=None):
        raise UnsupportedSyntaxError(what, frame.src.location(node), hint)


def _unpacking(node):
    """``a, b = e``: the right side is not any one name's form (a tuple's items are given
    theirs by ``Frontend.assign``; ``(x, y) if c else (y, x)`` has none)."""
    return isinstance(node, ast.Assign) and any(not isinstance(t, ast.Name) for t in node.targets)

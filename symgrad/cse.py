"""Step 4 of ``emit``: common sub-expressions (SymPy ``cse``) hoisted into ``_t0, _t1 ...``, each
emitted just before its first use, in program order; guarded lines (branches, checks) are not
rewritten, so nothing is hoisted out of a branch the primal may not take. A branch (``Piecewise``)
is printed as ``if c: <block> else: <block>`` (``branches``), each block with common
sub-expressions of its own, when a side computes something twice: code after an early return is
one expression of nested branches, which printed whole repeats the loop state in every branch.
"""
import ast

import sympy

from .array_backend_values import full, plain_number
from .array_library import reads_array
from .array_nodes import dims_ast
from .entries import Lines
from .functions import AndThen, Branch, Copy, OrElse
from .printer import as_float
from .program import DivisionCheck, SizeCheck, replaced


def assign(target, value):
    return ast.Assign([ast.Name(target, ast.Store())], value, lineno=None)


def cse_body(entries, printer, names, renamed=None, emitted_back=None, known=None):
    """The printed statements of ``entries`` (``entries.Entry``, in program order, one block) and
    the names of stopped results: ``(body, stops)``; ``names`` (a set) gains every ``_t<k>`` it
    invents. ``renamed``, ``emitted_back`` and ``known``: what the enclosing blocks printed before
    this one (placeholder -> printed name; full sub-expression -> its temp; node -> the name of
    its placeholder line), read and not changed."""
    plain = [e for e in entries if not e.guarded]
    if emitted_back:  # a sub-expression an enclosing block computed: read by its name
        for e in plain:
            e.expr = replaced(e.expr, emitted_back, evaluate=False)
    temps, reduced = sympy.cse([e.expr for e in plain], symbols=sympy.numbered_symbols(
        "_cse", cls=sympy.Dummy, real=True), order="none") if plain else ([], [])
    trivial = {}  # temps as cheap as their name (-m, 2*x): printed inline, for readability
    kept = []
    for temp, sub in temps:
        sub = sub.xreplace(trivial)
        if sub.is_Mul and len(sub.args) == 2 and sub.args[0].is_Number and sub.args[1].is_Symbol \
                or sub.is_number or isinstance(sub, Copy) and sub.args[0].is_Symbol:
            # a constant is printed as its value, which Python folds; Copy(x, k) as x
            trivial[temp] = sub
        elif sub.could_extract_minus_sign():  # name the positive value; uses read `- _t0`
            trivial[temp] = -temp
            kept.append((temp, -sub))
        else:
            kept.append((temp, sub))
    temps = kept
    reduced = [r.xreplace(trivial) for r in reduced]
    reduced_of = dict(zip(map(id, plain), reduced))
    definition = dict(temps)
    full, memo = {}, {}  # temp -> its expression with earlier temps expanded
    for temp, sub in temps:
        full[temp] = replaced(sub, full, memo)
    renamed = dict(renamed or {})  # cse symbol / placeholder -> printed name symbol
    emitted_back = dict(emitted_back or {})  # full sub-expression -> printed temp
    known = dict(known or {})
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
                named = replaced(definition[symbol], renamed, evaluate=False)
                if plain_number(named, printer):
                    printer.plain_names.add(target.name)  # `_t0 = n * n`: a Python number
                if printer.lazy and reads_array(named, printer):  # of the arguments' library
                    printer.array_names.add(target.name)
                line = assign(target.name, printer.expr(definition[symbol], renamed))
                body.append(_quiet(line, printer) if _lazy(definition[symbol], printer) else line)
                emitted_back[full[symbol]] = target

    for entry in entries:
        if entry.check is not None:
            line = _check_line(entry.check, printer, emitted_back, renamed)
            if any(_lazy(c, printer) for c, _ in entry.check.path):
                line = _quiet(line, printer)
            body.append(line)
            continue
        target = name_for(entry.target) if entry.temporary else entry.target
        printer.plain_names.discard(target.name)  # a name bound again is no number unless below
        if printer.lazy and entry.temporary and reads_array(entry.expr, printer):
            printer.array_names.add(target.name)
        if entry.guarded and isinstance(entry.expr, (sympy.Piecewise, Branch)) and not (
                printer.vectorised or entry.whole or _no_default(entry.expr)):
            statement, inner = branches(target, entry.expr, printer, names, renamed,
                                        emitted_back, known)
            body.append(statement)
            stops += inner
        elif entry.guarded:
            expr = replaced(entry.expr, emitted_back, evaluate=False) if emitted_back else \
                entry.expr
            _note_plain(target, expr, renamed, printer)
            line = assign(target.name, printer.expr(expr, renamed))
            if _lazy(expr, printer):  # np.where evaluates both branches: hush the untaken one
                line = _quiet(line, printer)
            body.append(line)
        else:
            expr = reduced_of[id(entry)]
            if expr in definition and expr not in renamed:  # the whole line is a common term
                renamed[expr] = target
                emitted_back[full[expr]] = target
                expr = definition[expr]
            need(expr)
            value = _folded_array(entry, expr, renamed, printer)
            if value is None:
                _note_plain(target, expr, renamed, printer)
                value = printer.expr(expr, renamed)
            line = assign(target.name, value)
            body.append(_quiet(line, printer) if _lazy(expr, printer) else line)
        if entry.stop:
            stops.append(target.name)
        if entry.source is not None:  # computed here: the blocks of later branches read it
            known[entry.source] = target
    return body, stops


def branches(target, expr, printer, names, renamed, emitted_back, known):
    """``target = expr`` (a ``Piecewise``, or a ``Branch`` of a comparison operand) as ``if c:
    <block> else: <block>``: nothing is hoisted out of a branch (the primal evaluates it only where
    its condition holds), and each block names what it computes more than once (common
    sub-expressions of a derivative; the branches, calls and stopped values it reads; what an
    enclosing block already computed is read by its name). A ``Branch`` is a primal value as
    written: its blocks share branches and calls but no sum is regrouped. Printed ``target = a if
    c else b`` when no block has more than one line. Returns (the statement, its stop lines)."""
    if isinstance(expr, Branch):
        cond, value, rest = expr.args
    else:
        (value, cond), rest = expr.args[0], expr.args[1:]
        rest = rest[0].expr if rest[0].cond is sympy.true else sympy.Piecewise(*rest)
    blocks, stops = [], []
    for holds, part in ((True, value), (False, rest)):
        if not isinstance(expr, Branch):  # a primal value as written is left as it is
            part = _given(part, cond, holds)
        lines = Lines(known)
        lines.line(target, as_float(part), branch=True)
        if isinstance(expr, Branch):  # as written: no common term is taken out of a sum
            for entry in lines.entries:
                entry.guarded = True
        block, inner = cse_body(lines.entries, printer, names, renamed, emitted_back, known)
        blocks.append(block)
        stops += inner
    test = printer.expr(replaced(cond, emitted_back, evaluate=False) if emitted_back else cond,
                        renamed)
    if all(len(b) == 1 and isinstance(b[0], ast.Assign) for b in blocks):  # nothing shared
        return assign(target.name, ast.IfExp(test, blocks[0][0].value, blocks[1][0].value)), stops
    return ast.If(test=test, body=blocks[0], orelse=blocks[1]), stops


def _given(expr, cond, holds):
    """``expr`` in the block where ``cond`` is ``holds``: a ``Piecewise`` in it testing that same
    ``cond`` takes the side the block is on (the same test of the same values, so the same float
    decision; it printed ``y if x > 0.0 else ...`` again inside ``if x > 0.0:``)."""
    def side(piecewise):
        kept = []
        for value, test in piecewise.args:
            if test == cond:
                if holds:
                    kept.append((value, sympy.true))
                    break
                continue
            kept.append((value, test))
            if test is sympy.true:
                break
        if kept and kept[0][1] is sympy.true:
            return kept[0][0]
        return sympy.Piecewise(*kept, evaluate=False)
    return expr.replace(lambda e: isinstance(e, sympy.Piecewise) and any(
        test == cond for _, test in e.args), side)


def _no_default(expr):
    """A ``Piecewise`` without a last ``True`` piece (the printer refuses it, as it is)."""
    return isinstance(expr, sympy.Piecewise) and expr.args[-1].cond is not sympy.true


def _note_plain(target, expr, renamed, printer):
    """A line whose value is a Python number (a temporary of the sizes only, ``_t0 = 2 / (1 +
    n)``; a gradient entry ``df_dx = 0.0``) is known as one (``printer.plain_names``): a condition
    on it is a Python bool, an array of it is built with ``full`` (array fuzzer 25-57, 17-83)."""
    if plain_number(replaced(expr, renamed, evaluate=False), printer):
        printer.plain_names.add(target.name)


def _folded_array(entry, expr, renamed, printer):
    """An array line that ``cse`` folded to a number (two equal terms of an adjoint, ``sum(g * a) -
    sum(a * g)``, are one term once their common part is named: 0), as ``np.full(shape,
    number)``: the lines that read it index, reshape and sum an array (``np.reshape(0.0, (n,))``
    raised: the straight-through form of 61-373 read at the call); None for any other line."""
    shapes = getattr(printer, "shapes", None)
    if shapes is None or entry.expr.is_Number or entry.target not in shapes.table:
        return None
    expr = replaced(expr, renamed, evaluate=False) if renamed else expr
    if not expr.is_Number:
        return None
    shape = shapes.resolve(shapes.of(entry.target))
    if not shape:
        return None
    return full(printer, dims_ast(shape), printer.expr(as_float(expr)))


def _lazy(expr, printer):
    """Whether numpy evaluates operands of ``expr`` the primal may not run: ``and``/``or``
    (``np.logical_or`` evaluates both sides), a branch (``np.where``). Such a line is printed
    under ``_quiet``, so an operand the primal skips (``math.log(x)`` after ``x <= 0 or``) does
    not warn."""
    return printer.backend == "numpy" and isinstance(expr, sympy.Basic) and expr.has(
        AndThen, OrElse, sympy.And, sympy.Or, sympy.ITE, sympy.Piecewise, Branch)


def _quiet(line, printer):
    """``line`` inside ``with np.errstate(divide=..., over=..., invalid="ignore"):``."""
    return ast.With([ast.withitem(ast.Call(printer.name("np.errstate"), [], [
        ast.keyword(kind, ast.Constant("ignore")) for kind in ("divide", "over", "invalid")]),
        None)], [line])


def _check_line(check, printer, emitted_back, renamed):
    """``if c1 and not c2: raise AssertionError('m')``: conditions as the primal computes them,
    printed whole (guarded: nothing hoisted out); with numpy, raised when any element fails."""
    tests = []
    vectorised = printer.vectorised and not (isinstance(check, SizeCheck) and len(
        check.path) == 1 or isinstance(check, DivisionCheck))
    for cond, holds in check.path:  # a check of sizes alone (SizeCheck) tests Python ints
        node = printer.expr(cond.xreplace(emitted_back) if emitted_back else cond, renamed)
        if not holds:
            node = (ast.Call(printer.name("np.logical_not"), [node], []) if vectorised
                    else ast.UnaryOp(ast.Not(), node))
        tests.append(node)
    if vectorised:
        test = tests[0]
        for other in tests[1:]:
            test = ast.Call(printer.name("np.logical_and"), [test, other], [])
        test = ast.Call(printer.name("np.any"), [test], [])
    else:
        test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
    args = [] if check.message is None else [ast.Constant(check.message)]
    raised = ast.Raise(ast.Call(ast.Name(check.exception, ast.Load()), args, []), None)
    return ast.If(test=test, body=[raised], orelse=[])


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

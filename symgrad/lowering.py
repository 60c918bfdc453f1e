"""Steps 1-3 of ``emit``: the derivative ``Program``'s lines as the entries to print.

1. ``_live``: the assignments the outputs need, and every ``Check`` with what its conditions need;
2. ``_lower``: functions a backend cannot print through their ``rules`` row, each ``AsWritten`` as
   its written form; ``_factored``: a derivative line's power-of-two content taken out of a sum;
3. ``_entries``: every line as an ``entries.Lines`` entry (``Piecewise`` and ``StopGradient`` on
   lines of their own).
"""
import math

import sympy

from .array_ops import broadcast_to
from .array_ties import is_marked, jit_safe, plain
from .entries import Lines
from .functions import Value
from .program import Check, free_symbols
from .rules import RULES, Written, rule_for_class
from .selected import inlined_where_selected, selected
from .written import AsWritten, holds_its_value, names_back, printed_symbols


def _live(program):
    needed, memo = set(), {}
    for out in program.outputs:
        if out is not None:
            needed.update(printed_symbols(out, memo))
    kept = []
    for a in reversed(program.assignments):
        if isinstance(a, Check):  # never dead: the primal raises here
            kept.append(a)
            needed.update(a.free_symbols)
        elif a.target in needed:
            kept.append(a)
            needed.update(printed_symbols(a.expr, memo))
            if a.written is not None:  # printed as written: what that form reads is needed too
                needed.update(free_symbols(a.written, memo))
    return kept[::-1]


def _factored(expr, memo=None, backend="numpy", shapes=None):
    """A result with the power-of-two content of each sum taken out again: SymPy distributes
    ``2*(a - b)`` into ``2*a - 2*b``; factored, the difference is one operation fewer and is
    shared with ``(a - b)**2``. Multiplying by a power of two is exact, so the value is the same
    (up to overflow, in a derivative only: conditions and primal assignments are left alone).
    ``memo``: a dict of the nodes done (each distinct node is rebuilt once), for one ``backend``
    (``_mask_folded``). ``shapes`` (array code): an array operand that factoring made a number
    (``d*(a - b) + d*(b - a)`` is 0: the derivative of ``np.var`` of one element) is kept of its
    shape, ``np.broadcast_to(0.0, shape)``, as the node around it indexes or reshapes it (array
    fuzzer 83-857: ``0.0[:, :, None]`` raised TypeError; 107-9: ``np.reshape(0.0, (2, 2))``)."""
    memo = {} if memo is None else memo
    found = memo.get(expr)
    if found is None:
        found = memo[expr] = _factored_node(expr, memo, backend, shapes)
    return found


def _factored_node(expr, memo, backend, shapes):
    if expr.is_Atom or isinstance(expr, (sympy.logic.boolalg.Boolean, Value, Written)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        pieces = [(_factored(e, memo, backend, shapes), c) for e, c in expr.args]
        changed = any(e is not old.expr for (e, _), old in zip(pieces, expr.args))
        return sympy.Piecewise(*pieces, evaluate=False) if changed else expr
    args = [_factored(a, memo, backend, shapes) for a in expr.args]
    if shapes is not None and getattr(expr, "rule", None) is not None:  # an array node
        args = [_shaped(new, shapes.of(old)) if new.is_Number and not old.is_Number else new
                for new, old in zip(args, expr.args)]
    expr = expr.func(*args) if args != list(expr.args) else expr
    if expr.is_Mul:
        expr = _mask_folded(expr, any_side=backend != "math")
    if expr.is_Add:
        coefficients = [abs(t.as_coeff_Mul()[0]) for t in expr.args]
        content = coefficients[0]
        if content != 1 and all(c == content for c in coefficients) and content.is_Number and (
                math.frexp(float(content))[0] == 0.5):
            inner = sympy.Add(*[t / content for t in expr.args])
            if inner.could_extract_minus_sign():  # one sign for a - b and b - a: shared by cse
                content, inner = -content, -inner
            return sympy.Mul(content, inner, evaluate=False)
    return expr


def _mask_folded(product, any_side=True):
    """``c * rest`` where ``c`` is a ``Piecewise`` all 0 but one side (a branch's adjoint, the
    0/1 mask of the side taken, or (``any_side``: the array backends) that side's own factor:
    ``where(s > 0, 1 / total, 0)``) as ``Piecewise((v * rest, c), (0, True))``: the side not
    taken is exactly 0 however ``rest`` evaluates there. ``where(c, 1.0, 0.0) * rest`` was nan
    where the other side's derivative is undefined (``np.std`` of zero spread: 0 * nan; array
    fuzzer 35-407; ``np.linalg.norm`` of 0 times ``where(s > 0, 1 / total, 0)``, 100-196), and
    ``math`` code computed ``rest`` (a ZeroDivisionError) to multiply it by 0."""
    masks = [f for f in product.args if isinstance(f, sympy.Piecewise) and (any_side or all(
        v.is_Number for v, _ in f.args)) and sum(v.is_zero is not True for v, _ in f.args) == 1
        and f.args[-1][1] is sympy.true]  # one side kept: `rest` printed once
    if not masks:
        return product
    mask = masks[0]
    rest = sympy.Mul(*[f for f in product.args if f is not mask])
    return sympy.Piecewise(*[(sympy.S.Zero if v == 0 else v * rest, c) for v, c in mask.args],
                           evaluate=False)


def _lower(expr, backend, memo=None):
    """Replace functions the backend cannot print by their ``rules`` lowering, and each
    ``AsWritten`` by its written form (the primal's float: ``written.py``). ``memo``: a dict of
    the nodes done, shared by calls for the same backend (each distinct node is lowered once)."""
    memo = {} if memo is None else memo

    def walk(node):
        if node.is_Atom:
            return node
        found = memo.get(node)
        if found is None:
            found = memo[node] = lowered(node)
        return found

    def lowered(node):
        if isinstance(node, AsWritten):
            return walk(node.written)
        args = [walk(a) for a in node.args]
        if is_marked(node):  # the tie mask of np.max: jax.jit must not empty it (array_ties)
            return jit_safe(node, args[0]) if backend in ("jax", "array_api") else plain(
                node, args[0])  # array_api: JAX arrays under jax.jit too
        if isinstance(node, sympy.Function):
            rule = rule_for_class(type(node))
            if isinstance(node, Written) and int(node.args[0]) >= 100:  # a call as written:
                rule, args = RULES[int(node.args[0]) - 100], args[1:]  # np.cbrt on torch (83-604)
                if rule.lower is None or getattr(rule, backend) is not None:
                    return node.func(node.args[0], *args)
            if rule is not None and rule.lower is not None and getattr(rule, backend) is None:
                return rule.lower(*args)
        if args == list(node.args):
            return node
        if isinstance(node, sympy.Piecewise):  # not collapsed again: SymPy would drop the
            return sympy.Piecewise(*[(e, c) for e, c in args], evaluate=False)  # default
        return node.func(*args)  # of a lowered sign inside a branch (no printable form)
    return walk(expr)


def _shaped(expr, shape):
    """``expr``, a number where factoring made one of an array of ``shape``, as that array
    (``_factored``)."""
    return broadcast_to(expr, shape) if expr.is_Number and shape else expr


def _entries(program, backend, names, results):
    adjoints = getattr(program, "adjoint_names", ())
    shapes = program.arrays.shapes if program.arrays is not None else None
    lowered, factored = {}, {}  # memos: each distinct node is rewritten once
    # back: the value of a line printed as written -> its name, for later lines; exact: those
    # whose name is that value's very float, the only ones put in where a value is compared
    lines, back, exact = [], {}, {}
    for a in _live(program):
        if isinstance(a, Check):
            lines.append((None, type(a)(tuple((_lower(c, backend, lowered), h) for c, h in a.path),
                                        a.exception, a.message), None))
            continue
        expr = _lower(a.expr, backend, lowered)
        if a.target.name in adjoints:  # a derivative line: 2*a - 2*b as 2*(a - b), shared by cse
            expr = _factored(expr, factored, backend, shapes)
            expr = _shaped(expr, shapes.of(a.target)) if shapes is not None else expr
        lines.append((a.target, names_back(expr, back, exact) if a.written is None or
                      not back else None, a.written))
        if a.written is not None:
            back[expr] = a.target
            inverse = sympy.Pow(expr.base, -expr.exp) if expr.is_Pow else None
            if inverse is not None and not isinstance(inverse, (sympy.Max, sympy.Min)):
                back[inverse] = 1 / a.target  # not a max: its tie tests compare its own float
            if holds_its_value(a):
                exact[expr] = back[expr]
                if inverse in back:
                    exact[inverse] = back[inverse]
    written = {t for t, _, w in lines if w is not None}  # the primal's lines, as the source
    lines = [(t, _lower(w, backend, lowered) if w is not None else e) for t, e, w in lines] + [
        (t, names_back(e, back, exact) if back else e) for t, e in results]
    memo = {}
    lines = [(t, e if isinstance(e, Check) or t in written else selected(e, memo))
             for t, e in inlined_where_selected(lines, written)]
    block = Lines()
    for target, expr in lines:
        block.line(target, expr, whole=target in written)
    return block.entries

"""Reverse accumulation on array programs: the array strategy of ``differentiate``.

The pass of ``differentiate._reverse``, over values that are arrays: walking the assignments from
last to first, each target's adjoint (exactly its shape) is pushed to what its expression uses:

- through an elementwise expression, SymPy differentiates the scalar body once
  (``ū += v̄ · ∂φ/∂u``, elementwise, never a Jacobian matrix), and the contribution is summed back
  over the axes ``u`` was broadcast along (leading axes, size-1 axes: ``fit``);
- through an array node, its row's ``vjp`` gives the contribution to each input.

Every adjoint is carried as ``(c, a)``: a scalar factor ``c`` (0-d) times an array ``a``. The pass
is linear in the adjoints, so scalar factors ride outside and meet the smallest operand:
``2.0 * (X.T @ r) / n``, never ``X.T @ (2.0 * r / n)`` (a pass over n elements saved).
"""
import sympy
from sympy import S

from .array_indexing import INDEX, INDEX_ADJOINT, index, merge_index_adjoints
from .array_ops import (BROADCAST_TO, EXPAND_DIMS, RESHAPE, SUM, TRANSPOSE, as_result,
                        broadcast_to, reduce_, reshape)
from .differentiate import _names_back, derivative, reached_symbols
from .errors import OptionError
from .program import Assignment, Program, active_symbols, fresh_name, real_symbol
from .functions import StopGradient
from .shapes import ONE, is_dim, size

_VIEWS = (TRANSPOSE, RESHAPE, INDEX, EXPAND_DIMS, BROADCAST_TO)
_UNIFORM = (SUM, TRANSPOSE, RESHAPE, EXPAND_DIMS)
"""Rows whose input adjoint is the same everywhere when their output's is (a stretched number)."""


def differentiate_arrays(program, wrt, unconnected="zero", cotangents=None):
    """The derivative Program of an array program, by reverse accumulation.

    Args:
        program: a ``Program`` with ``arrays`` set (``array_frontend.to_program``).
        wrt: tuple of names, in result order: parameters, or intermediate variables with an
            assignment of their own (``program.variables``: the adjoint of that node, what it is
            computed from held fixed, as ``tf.gradients(loss, node)``).
        unconnected: "zero" or "none" (as ``differentiate``).
        cotangents: None for ``grad`` (every output 0-d, seeded with 1); or a tuple of symbols, one
            cotangent per output, shaped like it (``vjp``): one result per wrt.

    Returns:
        A ``Program`` whose outputs are the gradients, each wrapped as a result of exactly its
        parameter's shape (a float for a scalar), named ``d<out>_d<wrt>``.

    Raises:
        OptionError: an unknown ``unconnected``.
    """
    if unconnected not in ("zero", "none"):
        raise OptionError(f"unconnected must be 'zero' or 'none', not {unconnected!r}")
    info = program.arrays
    shapes = info.shapes.copy()
    by_name = dict(zip(program.param_names, program.params))
    for name, symbol in getattr(program, "variables", {}).items():  # wrt may name intermediates
        if symbol is not None:
            by_name.setdefault(name, symbol)
    symbols = [by_name[w] for w in wrt]
    names = set(program.names)
    assignments = list(program.assignments)
    fresh = set()
    if cotangents is None:
        jobs = [([(out, S.One)], name, [out]) for out, name in
                zip(program.outputs, program.output_names)]
    else:
        jobs = [(list(zip(program.outputs, cotangents)), program.name, list(program.outputs))]
    outputs, output_names = [], []
    for seeds, out_name, outs in jobs:
        reached = set().union(*(reached_symbols(program, o) for o in outs))
        grads = _reverse(program, seeds, out_name, symbols, names, assignments, shapes, fresh)
        for w, symbol, g in zip(wrt, symbols, grads):
            if unconnected == "none" and symbol not in reached:
                outputs.append(None)
            else:
                outputs.append(as_result(g, shapes.of(symbol), copy=_aliases(g, fresh)))
            output_names.append(f"d{out_name}_d{w}")
    result = Program(name=program.name, params=program.params, defaults=program.defaults,
                     assignments=assignments, outputs=tuple(outputs),
                     output_names=tuple(output_names), origin=program.origin,
                     static=dict(program.static), names=names)
    for attribute in ("kwonly", "variables", "posonly"):
        if hasattr(program, attribute):
            setattr(result, attribute, getattr(program, attribute))
    result.arrays = info.with_shapes(shapes)
    result.adjoint_names = frozenset(s.name for s in fresh)  # derivative lines, for emit
    return result


def _reverse(program, seeds, out_name, symbols, names, assignments, shapes, fresh):
    adjoints = {}  # symbol -> [(c, a)]: contributions c * a, a of exactly the symbol's shape

    def add(symbol, c, a):
        if c != 0 and a != 0 and not is_dim(symbol):
            adjoints.setdefault(symbol, []).append((c, a))

    def push(expr, c, g, names_back=None, out=None):
        if expr.is_Symbol:
            add(expr, c, g)
            return
        if expr.is_Atom or isinstance(expr, StopGradient):
            return
        rule = getattr(expr, "rule", None)
        if rule is not None:
            context = _Context(shapes, expr if out is None else out)
            uniform = _uniform(g, shapes)
            for i, arg in enumerate(expr.inputs):
                if not _active(arg):
                    continue
                if uniform is not None and rule in _UNIFORM:  # every element gets the same
                    push(arg, c, broadcast_to(uniform, shapes.of(arg)))
                else:
                    push(arg, c, rule.vjp(expr, g, i, context))
            return
        memo = {}
        for s in active_symbols(expr):
            if is_dim(s):
                continue
            partial = derivative(expr, s, memo)
            if partial == 0:
                continue
            if names_back:
                partial = partial.xreplace(names_back)
            pc, pa = _split(_logistic(partial), shapes)
            pc = c * pc
            if any(not is_dim(x) for x in pc.free_symbols) and _branched(pa):
                pc, pa = S.One, _into_branches(pc, pa)  # before it is indexed or summed
            add(s, pc, fit(_times(g, pa, shapes), shapes.of(s), shapes))

    wanted = {s: None for s in symbols if s not in program.params}
    for out, seed in seeds:
        pc, pa = _split(seed, shapes)
        push(out, pc, pa)
    for a in reversed(program.assignments):
        if not isinstance(a, Assignment):
            continue
        parts = adjoints.pop(a.target, None)
        if not parts:
            continue
        if a.target in wanted:  # an intermediate in wrt: its adjoint, what it uses held fixed
            wanted[a.target] = list(parts)
        c, g = _combine(parts, shapes)
        if c == 0 or g == 0:
            continue
        if any(not is_dim(s) for s in c.free_symbols) and not c.has(sympy.Piecewise) and \
                _scaled(c, g) != c * g:
            c, g = S.One, _scaled(c, g)  # a factor of values (1 / np.std(...), inf at zero
            # spread) multiplies a scatter's pieces here, not the zeros of the entries never
            # read once the scatter is reshaped or scattered again (array fuzzer 131-1446); a
            # branch's mask stays outside, where it makes the side not taken 0 (133-2130)
        if not g.is_Atom and not isinstance(g, BROADCAST_TO.node) and not (
                isinstance(g, SUM.node) and g.params[1]):  # left inline: reshaped or broadcast
            # the full adjoint is c * g: only a line holding all of it takes its name
            base = f"d{out_name}_d{a.target.name}" if c == 1 else f"_d{a.target.name}"
            symbol = real_symbol(fresh_name(base, names))
            assignments.append(Assignment(symbol, g))
            shapes.table[symbol] = shapes.of(g)
            fresh.add(symbol)
            g = symbol
        push(a.expr, c, g, _names_back(a), a.target)
    results = []
    for s in symbols:
        parts = wanted.get(s) or adjoints.get(s)
        if not parts:
            results.append(S.Zero)
            continue
        c, g = _combine(parts, shapes)
        results.append(_scaled(c, g))
    return results


def _scaled(c, g):
    """``c * g``, a factor of a scatter (``index_adjoint``) applied to its pieces: the entries
    the code never reads stay exactly 0 where ``c`` is inf or nan (``1 / np.std(...)`` at zero
    spread: ``c * np.zeros(...)`` was nan there, where the build at the call and JAX give 0;
    array fuzzer 29-260), and only the pieces are multiplied. A number multiplies the whole."""
    if c.is_number:  # finite: the entries not read are 0 either way
        return c * g
    if isinstance(g, INDEX_ADJOINT.node):
        return INDEX_ADJOINT.make(*[c * h for h in g.inputs], params=g.params)
    if g.is_Add and any(isinstance(t, INDEX_ADJOINT.node) for t in g.args):
        return sympy.Add(*[_scaled(c, t) for t in g.args])
    return c * g


def _branch(term):
    """The first factor of ``term`` that is a branch (a ``Piecewise``) with a side exactly 0."""
    return next((f for f in sympy.Mul.make_args(term) if isinstance(f, sympy.Piecewise)
                 and any(v.is_zero is True for v, _ in f.args)), None)


def _branched(g):
    return any(_branch(t) is not None for t in sympy.Add.make_args(g))


def _into_branches(c, g):
    """``c * g``, a factor of values ``c`` taken into each branch of ``g``'s terms: the side not
    taken stays exactly 0 where ``c`` is inf (``1 / np.std(...)`` at zero spread times
    ``where(cond, 0.0, ...)``: 0 * inf was nan, where JAX and the build at the call give 0;
    array fuzzer 78-762)."""
    terms = []
    for t in sympy.Add.make_args(g):
        branch = _branch(t)
        if branch is None:
            terms.append(c * t)
            continue
        rest = c * sympy.Mul(*[f for f in sympy.Mul.make_args(t) if f is not branch])
        terms.append(sympy.Piecewise(*[(S.Zero if v.is_zero is True else v * rest, cond)
                                       for v, cond in branch.args], evaluate=False))
    return sympy.Add(*terms)


def _indexed(expr, spec, shapes):
    """``expr[spec]`` of an elementwise ``expr``, as the expression of its operands indexed (each
    stretched to ``expr``'s shape first where it has another): a branch stays a branch, so the
    piece of a scatter it multiplies can be taken into it (``where(item[::-1] <= 0.1, 0.0, X *
    g)``, not ``g * where(item <= 0.1, 0.0, X)[::-1]``, nan where ``g`` is)."""
    shape = shapes.of(expr)

    def walk(e):
        if not shapes.of(e):
            return e
        if e.is_Symbol or getattr(e, "rule", None) is not None:
            return index(e if shapes.of(e) == shape else broadcast_to(e, shape), spec)
        if isinstance(e, sympy.Piecewise):
            return sympy.Piecewise(*[(walk(v), walk(c)) for v, c in e.args], evaluate=False)
        return e.func(*[walk(a) for a in e.args])
    return walk(expr)


class _Context:
    """What a row's ``vjp`` may ask: shapes, the node's value, summing back to a shape."""

    def __init__(self, shapes, out):
        self.shapes, self.out = shapes, out

    def shape(self, expr):
        return self.shapes.of(expr)

    def unbroadcast(self, g, shape):
        return fit(g, shape, self.shapes)


def _uniform(g, shapes):
    """The 0-d value of a cotangent that is one number stretched to a shape, else None."""
    if isinstance(g, BROADCAST_TO.node) and not shapes.of(g.inputs[0]):
        return g.inputs[0]
    if not g.is_Atom and not shapes.of(g):
        return None
    return None


def _active(expr):
    return any(not is_dim(s) for s in active_symbols(expr))


def _split(expr, shapes):
    """``expr`` as (its 0-d factors, the rest); a sum gives its common number (200*a - 200*b is
    200 and a - b: SymPy distributes numbers over sums, which would cost a pass per term)."""
    if expr.is_Add:
        content, rest = expr.primitive()
        if content != 1 and shapes.of(rest):
            return content, rest
    scalar, array = [], []
    for factor in sympy.Mul.make_args(expr):
        (array if shapes.of(factor) else scalar).append(factor)
    return sympy.Mul(*scalar), sympy.Mul(*array)


def _times(g, partial, shapes):
    """``g * partial`` elementwise; a stretched ``g`` is left unstretched where ``partial`` has
    the full shape anyway (``np.broadcast_to(1.0, (n,)) * e`` is ``e``)."""
    if partial == 1:
        return g
    if isinstance(g, BROADCAST_TO.node) and shapes.of(partial) == g.params[0]:
        return g.inputs[0] * partial
    if isinstance(g, INDEX_ADJOINT.node) and shapes.of(partial) == g.params[0]:
        # a scatter times a full array: scatter the product at the indices (x[0]-sized work)
        if _branched(partial):  # a branch's side not taken selects 0, whatever the piece is
            pieces = [_into_branches(h, _indexed(partial, spec, shapes))
                      for h, spec in zip(g.inputs, g.params[1])]
        else:
            pieces = [h * index(partial, spec) for h, spec in zip(g.inputs, g.params[1])]
        return INDEX_ADJOINT.make(*pieces, params=g.params)
    return g * partial


def fit(e, target, shapes):
    """``e`` summed back (or stretched) to exactly ``target``: the axes it has beyond ``target``
    (leading ones, and those where ``target`` has size 1) are summed, NumPy's broadcast undone."""
    target = tuple(target)
    have = shapes.of(e)
    if have == target:
        return e
    if not target and isinstance(e, INDEX_ADJOINT.node):  # the sum of a scatter: of its pieces
        return sympy.Add(*[reduce_(SUM, h, tuple(range(len(shapes.of(h)))), False,
                                   len(shapes.of(h))) if shapes.of(h) else h for h in e.inputs])
    lead = max(len(have) - len(target), 0)
    shift = len(target) - len(have)  # target axis of e's axis k: k + shift
    summed = tuple(k for k in range(len(have)) if k < lead or (
        k + shift >= 0 and target[k + shift] == ONE and have[k] != ONE))
    if summed and isinstance(e, BROADCAST_TO.node):
        inner = shapes.of(e.inputs[0])
        inner = (ONE,) * (len(have) - len(inner)) + tuple(inner)
        if all(inner[k] == ONE for k in summed):  # the sum of a stretched value: a count
            return fit(e.inputs[0] * size([have[k] for k in summed]), target, shapes)
    if summed and e.is_Mul:
        pulled = _pulled_out(e, summed, lead, have, target, shapes)
        if pulled is not None:
            return pulled
    leading = tuple(k for k in summed if k < lead)
    if leading:
        e = reduce_(SUM, e, leading, False, len(have))
    kept = tuple(k - len(leading) for k in summed if k >= lead)
    if kept:
        e = reduce_(SUM, e, kept, True, len(have) - len(leading))
    if shapes.of(e) != target:
        e = broadcast_to(e, target)
    return e


def _logistic(expr):
    """A partial derivative with each ``exp(a) / (exp(a) + 1)`` as ``1 / (1 + exp(-a))`` (the
    derivative of ``log1p(exp(a))``): one pass and one temporary fewer, and no ``inf / inf`` for
    a large ``a`` (the limit, 1). Only products and sums are rewritten, never a condition; nor
    an ``a`` SymPy knows is never positive (``-|a - b|`` of ``np.logaddexp``), where ``exp(a)``
    is at most 1 and ``exp(-a)`` could overflow."""
    if not (expr.is_Mul or expr.is_Add):
        return expr
    args = [_logistic(a) for a in expr.args]
    if args != list(expr.args):
        expr = expr.func(*args)
    if not expr.is_Mul:
        return expr
    factors = list(expr.args)
    for f in factors:
        if isinstance(f, sympy.exp) and not f.args[0].is_nonpositive:
            denominator = sympy.Pow(f + 1, -1)
            if denominator in factors:
                factors.remove(f)
                factors.remove(denominator)
                return sympy.Mul(*factors, sympy.Pow(1 + sympy.exp(-f.args[0]), -1))
    return expr


def _pulled_out(e, summed, lead, have, target, shapes):
    """The sum of a product ``u * v`` over ``summed`` as ``sum(u) * v`` when each factor of ``v``
    is constant along the summed axes (size 1 there, or no such axis): ``Y.sum(axis=1,
    keepdims=True) / total``, not ``(Y / total).sum(...)``, a pass and a temporary of ``Y``'s size
    fewer (in an adjoint only: a rounding apart). None when no factor is."""
    inside, outside = [], []
    for factor in e.args:
        shape = shapes.of(factor)
        offset = len(have) - len(shape)
        constant = all(k < offset or shape[k - offset] == ONE for k in summed)
        (outside if constant else inside).append(factor)
    if not inside or not outside:
        return None
    factor = sympy.Mul(*outside)
    shape = shapes.of(factor)
    extra = len(shape) - len(target)
    if extra > 0:  # size-1 leading axes the sum takes away: reshaped away
        if any(d != ONE for d in shape[:extra]):
            return None
        factor = reshape(factor, shape[extra:])
    result = fit(sympy.Mul(*inside), target, shapes) * factor
    return result if shapes.of(result) == target else None


def _combine(parts, shapes):
    """The sum of contributions ``[(c, a)]`` as one ``(c, a)``; index adjoints of one shape share a
    buffer (``z = np.zeros(shape)``, then one ``+=`` per piece)."""
    factors = {c for c, _ in parts}
    if len(factors) == 1:
        c, scales = parts[0][0], [S.One] * len(parts)
    else:  # 2/n and -2/n share 1/n; factors that share nothing are applied to their terms
        split = [ci.as_coeff_Mul() for ci, _ in parts]
        common = {rest for _, rest in split}
        # each scale is the number beside the shared factor, never ``ci / c``: SymPy folds the
        # reciprocal of a piecewise factor into its pieces (1/0 = zoo where a branch gives 0),
        # and ``c * (ci / c)`` is then nan there, where the gradient is 0
        c, scales = (common.pop(), [k for k, _ in split]) if len(common) == 1 else (
            S.One, [ci for ci, _ in parts])
    arrays = []
    for scale, (_, a) in zip(scales, parts):
        if scale != 1 and isinstance(a, INDEX_ADJOINT.node):
            a = INDEX_ADJOINT.make(*[scale * g for g in a.inputs], params=a.params)
        elif scale != 1:
            a = scale * a
        arrays.append(a)
    scattered = [a for a in arrays if isinstance(a, INDEX_ADJOINT.node)]
    rest = [a for a in arrays if not isinstance(a, INDEX_ADJOINT.node)]
    by_shape = {}
    for a in scattered:
        by_shape.setdefault(a.params[0], []).append(a)
    merged = [merge_index_adjoints(group) if len(group) > 1 else group[0]
              for group in by_shape.values()]
    total = sympy.Add(*merged, *rest)
    if len(merged) + len(rest) > 1:  # beside a full-shape term, a stretched one needs no stretch
        plain = sympy.Add(*[_unstretched(t) for t in merged + rest])
        if shapes.of(plain) == shapes.of(total):
            total = plain
    return c, total


def _unstretched(term):
    """``np.broadcast_to(h, S) * k`` as ``h * k`` (only used beside a full-shape term)."""
    if isinstance(term, BROADCAST_TO.node):
        return term.inputs[0]
    if term.is_Mul:
        return sympy.Mul(*[_unstretched(f) if isinstance(f, BROADCAST_TO.node) else f
                           for f in term.args])
    return term


def _aliases(g, fresh):
    """Whether the result ``g`` could be (a view of) an argument, a constant or a primal value:
    then it is returned as a copy."""
    coefficient, rest = g.as_coeff_Mul()
    if coefficient == 1:
        g = rest
    while getattr(g, "rule", None) in _VIEWS:
        g = g.inputs[0]
    return g.is_Symbol and g not in fresh

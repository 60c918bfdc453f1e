"""Program → derivative Program, by one of two strategies behind one function.

- ``symbolic``: substitute the assignments into each output, differentiate the whole expression,
  then put the primal's names back where their expressions survive. Most compact for small
  functions; the expression can swell exponentially on deep compositions.
- ``reverse``: adjoint accumulation, micrograd's ``backward`` done on symbols. Walking the assignments
  from last to first, the adjoint of each target (``v_bar = ∂out/∂v``, an expression) is summed and
  pushed to the symbols its expression uses: ``u_bar += v_bar · ∂φ/∂u``, each local ∂ of one small
  expression. Cost grows linearly with the program (the cheap-gradient principle).
- ``auto``: ``symbolic`` while every substituted output stays small (SymPy then cancels removable
  singularities: ``sqrt(x*x + y*y)**2`` differentiates to ``2*x``, finite at 0), else ``reverse``.

Local derivatives come from SymPy's ``fdiff`` of each function, except where ``rules.RULES`` gives
our convention; sums, products, powers and ``Piecewise`` are differentiated here, so ``x**y`` gives
``y*x**(y - 1)`` (never SymPy's ``x**y*y/x``, which is nan at 0) and ``StopGradient`` gives 0.
"""
import sympy
from sympy import S

from .errors import OptionError, SymgradError
from .intermediate import perturbed, unperturbed
from .program import (Assignment, Program, active_symbols, fresh_name, real_symbol, replaced,
                      tree_size)
from .functions import StopGradient, Undefined, Value
from .imaginary import real_partial
from .realpower import RealPower, differentiable, slope, weighted
from .still import guarded, still_regions
from .extrema import LargeMax, LargeMin, _extremum_partial, rebuilt, repeated
from .rules import ZERO, rule_for_class
from .written import AsWritten, compares, holds_its_value, names_back

STRATEGIES = ("auto", "symbolic", "reverse")
SYMBOLIC_MAX_NODES = 400
"""``auto`` uses ``symbolic`` while every substituted output has at most this many tree nodes."""


def derivative(expr, symbol, memo=None):
    """∂expr/∂symbol, with symgrad's conventions.

    Args:
        expr: a SymPy expression (may contain ``Piecewise``, ``StopGradient``, rule functions).
        symbol: the real ``sympy.Symbol`` to differentiate with respect to.
        memo: optional dict shared between calls on the same expression (keys ``(node, symbol)``).

    Returns:
        A SymPy expression.

    Raises:
        SymgradError: ``expr`` holds a function with neither a rule nor a SymPy ``fdiff``.
    """
    memo = {} if memo is None else memo
    free = {}

    def has(node):
        found = free.get(node)
        if found is None:
            found = (node == symbol) if node.is_Symbol else isinstance(node, Undefined) or (
                not node.is_Atom and any(has(a) for a in node.args))
            free[node] = found
        return found

    def d(node):
        key = (node, symbol)
        found = memo.get(key)
        if found is not None:
            return found
        if isinstance(node, Undefined):  # undefined in the primal: so is its derivative
            result = node
        elif not has(node):
            result = S.Zero
        elif node.is_Symbol:
            result = S.One
        elif isinstance(node, RealPower):  # (-0.5) ** e: 0 where e is constant near the point
            result = slope(d(node.differentiated))
        elif node.is_Add:
            result = sympy.Add(*[d(a) for a in node.args])
        elif node.is_Mul:
            args = node.args
            terms = []
            for i, factor in enumerate(args):
                df = d(factor)
                if df != 0:
                    terms.append(sympy.Mul(*args[:i], df, *args[i + 1:]))
            result = sympy.Add(*terms)
        elif node.is_Pow:
            result = _power_derivative(node, d(node.base), d(node.exp))
        elif isinstance(node, sympy.Piecewise):
            result = sympy.Piecewise(*[(d(e), c) for e, c in node.args])
        elif isinstance(node, sympy.Function) or rule_for_class(type(node)) is not None:
            result = _function_derivative(node, d)
        else:
            raise SymgradError(f"symgrad cannot differentiate {type(node).__name__}: {node}")
        memo[key] = result
        return result

    return d(expr)


def _power_derivative(node, db, de):
    """d(b**e) = e*b**(e - 1)*db + b**e*log(b)*de, never SymPy's b**e*e/b (nan at b = 0).

    With a variable exponent the two terms get guards: the first is 0 where e = 0 (b**0 is
    constant), the second is 0 where b = 0 and e > 0 (0**e is 0 for every e > 0), so x**y at
    x = 0, y > 0 has the finite derivative PyTorch and autograd give, not a log(0) error; at
    b = 0, e <= 0 the power itself is undefined and the code raises as the primal does.
    """
    base, exponent = node.args
    result = S.Zero
    if db != 0:
        term = exponent * base ** (exponent - 1)
        if not exponent.is_Number:
            term = sympy.Piecewise((0, sympy.Eq(Value(exponent), 0)), (term, True))
        result += term * db
    if de != 0:
        term = node * sympy.log(base)
        if base.is_zero:  # 0**e: constant 0 where e > 0, undefined (raises) where e <= 0
            term = sympy.Piecewise((0, Value(exponent) > 0), (Undefined(sympy.Integer(0)), True))
        elif not base.is_Number:
            term = sympy.Piecewise((0, sympy.Eq(Value(base), 0) & (Value(exponent) > 0)),
                                   (term, True))
        result += term * de
    return result


def _function_derivative(node, d):
    rule = rule_for_class(type(node))
    rule_derivative = rule.derivative if rule is not None else None
    if rule_derivative == ZERO:
        return S.Zero
    terms = []
    args = list(enumerate(node.args))
    if rule_derivative is _extremum_partial:  # each occurrence of a repeat, in one term
        first = {id(same[0]): len(same) for same in repeated(node.args).values()}
        args = [(i, a) for i, a in args if id(a) in first]
    for i, arg in args:
        da = d(arg)
        if da == 0:
            continue
        if rule_derivative is _extremum_partial and first[id(arg)] > 1:
            da = first[id(arg)] * da
        if callable(rule_derivative):
            partial = rule_derivative(node, i)
        else:
            try:
                partial = real_partial(node, i + 1)  # never SymPy's sqrt(-y**2) = I*Abs(y)
            except Exception as exc:  # noqa: BLE001 - SymPy raises several kinds here
                raise SymgradError(f"symgrad does not know the derivative of "
                                   f"{type(node).__name__}: {exc}") from None
            if partial.has(sympy.Derivative, sympy.Subs):
                raise SymgradError(f"symgrad does not know the derivative of {type(node).__name__}")
        terms.append(partial * da)
    return sympy.Add(*terms)


def reached_symbols(program, output):
    """Symbols the output depends on through unstopped paths (TF's "connected")."""
    reached = set(active_symbols(output))
    for a in reversed(program.bindings):
        if a.target in reached:
            reached.update(active_symbols(a.expr))
    return reached


def differentiate(program, wrt, strategy="auto", unconnected="zero", keep_perturbations=False):
    """Build the derivative Program of ``program``: one output per (output, wrt) pair.

    Args:
        program: the primal ``Program``.
        wrt: tuple of names, in result order: parameters, or intermediate variables (entries of
            ``program.variables``: the derivative holds what the variable was computed from fixed,
            see ``intermediate.py``).
        strategy: "auto", "symbolic" or "reverse" (see the module docstring).
        unconnected: "zero" gives 0 for a wrt no output depends on, "none" gives None.
        keep_perturbations: leave the intermediates' perturbations in the result (its
            ``variables`` name them), so that differentiating it again with respect to the same
            intermediates gives second derivatives (``hessian``); otherwise they are set to 0.

    Returns:
        A ``Program`` with the same parameters, the primal assignments (and its ``Check``s, in
        place) followed by adjoint assignments, and outputs ordered output-major (``d<out0>_d<wrt0>``, ``d<out0>_d<wrt1>`` ...),
        named in ``output_names``. An output is ``None`` where unconnected="none" applies.

    Raises:
        OptionError: an unknown strategy, an unknown ``unconnected``, or a wrt that is neither a
            parameter nor an intermediate with a node of its own.
        SymgradError: an expression symgrad cannot differentiate.
    """
    if strategy not in STRATEGIES:
        raise OptionError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")
    if unconnected not in ("zero", "none"):
        raise OptionError(f"unconnected must be 'zero' or 'none', not {unconnected!r}")
    program, perturbations = perturbed(program, wrt)
    program = differentiable(program, lambda: _substitution(program)[1])
    by_name = {**dict(zip(program.param_names, program.params)), **perturbations}
    symbols = [by_name[w] for w in wrt]
    if strategy == "auto":
        strategy = "symbolic" if _substituted_size(program) <= SYMBOLIC_MAX_NODES and not \
            _branch_in_condition(program) else "reverse"
    names = set(program.names)
    assignments = list(program.assignments)
    outputs, output_names = [], []
    full = _substituted_outside_stops(program) if strategy == "symbolic" else None
    for index, (out, out_name) in enumerate(zip(program.outputs, program.output_names)):
        reached = reached_symbols(program, out)
        if strategy == "symbolic":
            grads = _symbolic(program, full[index], symbols)
        else:
            grads = _reverse(program, out, out_name, symbols, names, assignments)
        for w, symbol, g in zip(wrt, symbols, grads):
            if unconnected == "none" and symbol not in reached:
                g = None
            outputs.append(g)
            output_names.append(f"d{out_name}_d{w}")
    result = Program(name=program.name, params=program.params, defaults=program.defaults,
                     assignments=assignments, outputs=tuple(outputs),
                     output_names=tuple(output_names), origin=program.origin,
                     static=dict(program.static), names=names, kwonly=dict(program.kwonly),
                     posonly=program.posonly)
    if keep_perturbations:
        result.variables = dict(program.variables)
        return result
    return unperturbed(result, perturbations)


def _substituted_size(program):
    """The largest tree size of an output with every assignment substituted in, computed from the
    sizes of the assignments without building the substituted expressions (linear time)."""
    sizes = {}

    def size(expr):
        total, stack = 0, [expr]
        while stack:
            node = stack.pop()
            if node.is_Symbol and node in sizes:
                total += sizes[node]
            else:
                total += 1
                stack.extend(node.args)
        return total

    for a in program.bindings:
        sizes[a.target] = size(a.expr)
    return max((size(out) for out in program.outputs), default=0)


_KINKS = (sympy.Max, sympy.Min)
"""Functions whose derivative is a tie convention: their coefficients are worth testing for 0."""


def _vanishes(expr):
    """True when ``expr`` is identically 0 as a rational function of its sub-expressions
    (``1 - (e_a + e_b)/(e_a + e_b)``); an exact test, False when in doubt."""
    return expr == 0 or sympy.together(expr) == 0


def _expanded(expr, values):
    """``expr`` with the values of its symbols substituted until none is left; once it grows past
    ``SYMBOLIC_MAX_NODES`` tree nodes, a fresh symbol instead (undecided: it never vanishes).
    Each ``max``/``min`` rebuilt is a ``LargeMax``/``LargeMin`` (no pairwise ``factor_terms`` of
    its arguments: seconds for a 7-argument min of a 5-argument one, for a test only)."""
    while expr.free_symbols & values.keys():
        expr = replaced(expr, values, rebuild=_unfolded)
        if tree_size(expr, SYMBOLIC_MAX_NODES + 1) > SYMBOLIC_MAX_NODES:
            return sympy.Dummy("undecided")
    return expr


def _unfolded(node, args):
    """``node`` rebuilt on ``args`` (``replaced``'s ``rebuild``), every ``max``/``min`` as a
    ``LargeMax``/``LargeMin`` whatever its size (``extrema.rebuilt`` makes only large ones so)."""
    if isinstance(node, _KINKS):
        return (LargeMax if isinstance(node, sympy.Max) else LargeMin)(*args)
    return node.func(*args)


def _hold_kinks(expr):
    """``expr`` with every ``max``/``min`` whose coefficient is identically 0 held constant, and
    the map back from the placeholders. By the chain rule, d expr = (d expr with M held) + c dM,
    so where c = ∂expr/∂M vanishes (the shift of a log-sum-exp, ``m + log(sum(exp(x_i - m)))``)
    the tie bookkeeping of dM is not needed: every tie convention gives the same result."""
    held = {}
    kinks = []
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, _KINKS) and node not in kinks:
            kinks.append(node)
    for kink in kinks:
        placeholder = sympy.Dummy("kink", real=True)
        candidate = expr.xreplace({kink: placeholder})
        if candidate != expr and _vanishes(derivative(candidate, placeholder)):
            expr, held[placeholder] = candidate, kink
    return expr, held


_BRANCHY = (sympy.Piecewise, sympy.Max, sympy.Min)


def _branch_in_condition(program):
    """Whether substituting the assignments would put a ``Piecewise``, ``max`` or ``min`` inside a
    condition or an argument of ``max``/``min``/``abs``/a variable power (whose derivatives are
    conditions). The derivative's conditions then nest branches in branches, which SymPy builds
    slowly (seconds for a few lines of code), so ``auto`` uses ``reverse`` there, whose conditions
    compare names."""
    branchy = set()  # targets whose substituted value holds a Piecewise

    def nested(expr):
        stack = [(expr, False)]
        while stack:
            node, in_condition = stack.pop()
            if in_condition and (isinstance(node, _BRANCHY) or node in branchy):
                return True
            if isinstance(node, sympy.Piecewise):
                for value, condition in node.args:
                    stack += [(value, in_condition), (condition, True)]
            elif isinstance(node, (sympy.Max, sympy.Min, sympy.Abs, Value)) or (
                    node.is_Pow and not node.exp.is_Number):
                stack += [(a, True) for a in node.args]
            else:
                stack += [(a, in_condition) for a in node.args]
        return False

    for a in program.bindings:
        if nested(a.expr):
            return True
        if a.expr.has(*_BRANCHY) or not branchy.isdisjoint(a.expr.free_symbols):
            branchy.add(a.target)
    return any(out is not None and nested(out) for out in program.outputs)


def _substitution(program):
    """``(values, substitute)``: each target's value with the earlier assignments substituted in,
    and the function substituting them into an expression, except inside ``StopGradient`` (whose
    derivative is 0: a stopped value keeps its names, and SymPy is not asked to rewrite a large
    substituted expression it will never differentiate)."""
    values, kept, memo = {}, {}, {}  # kept: a name where it is compared (written.compares)

    def substitute(node, compared=False):
        found = memo.get((node, compared))
        if found is None:
            if node.is_Symbol:
                found = (kept if compared else values).get(node, node)
            elif node.is_Atom or isinstance(node, StopGradient) or (
                    isinstance(node, RealPower) and len(node.args) == 3):
                found = node  # (a RealPower's exponent is substituted in its last argument)
            elif isinstance(node, AsWritten):  # its value is differentiated, never printed
                value = substitute(node.args[0])
                found = node.func(value, node.args[1]) if value != node.args[0] else node
            else:
                args = [substitute(a, compared or compares(node, i))
                        for i, a in enumerate(node.args)]
                found = rebuilt(node, args) if args != list(node.args) else node
            memo[(node, compared)] = found
        return found

    for a in program.bindings:
        values[a.target] = substitute(a.expr)
        # where it is compared, a name prints as itself (the primal's float: its substituted
        # form may print as another), differentiated as that form
        kept[a.target] = AsWritten(values[a.target], StopGradient(a.target))
    return values, substitute


def _substituted_outside_stops(program):
    """The outputs with the assignments substituted in, except inside ``StopGradient``."""
    _, substitute = _substitution(program)
    return tuple(None if out is None else substitute(out) for out in program.outputs)


def _symbolic(program, full_output, symbols):
    values, substitute = _substitution(program)
    every = {value: target for target, value in values.items()}
    operands, seen = {}, set()

    def record(expr):  # comparison operands, to compare them as the primal computes them
        stack = [expr]
        while stack:
            node = stack.pop()
            if node in seen or isinstance(node, StopGradient):
                continue
            seen.add(node)
            if isinstance(node, (sympy.Max, sympy.Min, sympy.Abs, Value)) or node.is_Relational:
                for arg in node.args:
                    if not arg.is_Atom:  # (compared: its names print the primal's floats)
                        key = substitute(arg, True)
                        if not isinstance(key, (sympy.Max, sympy.Min)):  # `a - 1` is no max
                            operands.setdefault(key, arg)  # (a = 1 + max(...)): another float
            stack.extend(node.args)

    for a in program.bindings:
        record(a.expr)
    for out in program.outputs:
        if out is not None:
            record(out)
    every = {**operands, **every}  # compared: every name is kept (``_substitution``)
    memo, done = {}, {}
    full_output, held = _hold_kinks(full_output)
    return [names_back(derivative(full_output, s, memo).xreplace(held), every, operands, done)
            for s in symbols]


def _reverse(program, out, out_name, symbols, names, assignments):
    """Adjoint accumulation; appends the adjoint assignments it creates to ``assignments``."""
    adjoints = {}  # symbol -> list of contributions to its adjoint (v_bar)
    wanted = set(symbols)

    def push(expr, seed, every=None, exact=None):
        memo, back = {}, {}
        for s in active_symbols(expr):
            partial = derivative(expr, s, memo)
            if partial != 0:
                if every:  # memoised: the partials share their sub-expressions
                    partial = names_back(partial, every, exact, back)
                adjoints.setdefault(s, []).append(weighted(seed, partial))

    values = {a.target: a.expr for a in program.bindings}  # for _vanishes
    still = still_regions(program.bindings)
    push(out, S.One)
    for a in reversed(program.bindings):
        parts = adjoints.pop(a.target, None)
        if not parts:
            continue
        total = sympy.Add(*parts)
        if total == 0 or isinstance(a.expr, _KINKS) and _vanishes(_expanded(total, values)):
            continue  # a max/min whose adjoint is identically 0: no tie bookkeeping (_hold_kinks)
        # an intermediate in wrt (its expression holds a perturbation of ``symbols``): its adjoint
        # is a result, named d<out>_d<wrt> by emit, so it gets no line of its own here
        perturbed_here = a.expr in wanted or (
            a.expr.is_Add and not wanted.isdisjoint(a.expr.args))
        if not perturbed_here:
            total = guarded(a.expr, total, still)  # 0 where the target is a constant
        if not total.is_Atom and not perturbed_here:
            symbol = real_symbol(fresh_name(f"d{out_name}_d{a.target.name}", names))
            assignments.append(Assignment(symbol, total))
            values[symbol] = total
            total = symbol
        every = _names_back(a)
        push(a.expr, total, every, every if holds_its_value(a) else {})
    return [sympy.Add(*adjoints.get(s, [])) for s in symbols]


def _names_back(assignment):
    """Where a local partial repeats the assignment's own value (exp' = exp, sqrt' ∝ 1/sqrt), use
    its name: ``{expr: target}``, and ``{base**-e: 1/target}`` for a power."""
    expr, target = assignment.expr, assignment.target
    back = {expr: target}
    inverse = sympy.Pow(expr.base, -expr.exp) if expr.is_Pow else None
    if inverse is not None and not isinstance(inverse, (sympy.Max, sympy.Min)):
        back[inverse] = 1 / target  # a max stays itself: its tie tests compare its own float
    return back

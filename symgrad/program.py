"""The IR: a straight-line program of SSA assignments over real SymPy symbols.

``Program(params, assignments, outputs)``: each ``Assignment`` binds a fresh symbol to a SymPy
expression in the parameters and earlier targets; branches are already ``Piecewise``, loops unrolled,
helpers inlined, ``stop_gradient(e)`` kept as the opaque ``StopGradient(e)``. Every assignment here is
evaluated unconditionally by the primal, so later stages may compute it unconditionally too.
A ``Check`` (an ``assert`` or a ``raise`` under a condition) sits among the assignments, in the
order the primal runs it; every stage keeps it where it is, and the generated code runs it there.
"""
import keyword
from dataclasses import dataclass, field

import sympy

from .functions import StopGradient

# names the emitted code refers to itself; a user name equal to one of these is renamed
RESERVED = frozenset({"math", "np", "abs", "max", "min", "round", "float", "pow", "sum",
                      "ValueError", "AssertionError", "type", "complex"})


@dataclass(frozen=True)
class Assignment:
    """``target = expr``: ``target`` a real ``sympy.Symbol`` bound once; ``expr`` a SymPy expression.
    ``written``: the same value as the source computes it (``rules.Written`` operators over names),
    printed for the primal's own line so the generated code holds the primal's floats; or None."""

    target: sympy.Symbol
    expr: sympy.Basic
    written: sympy.Basic = None


@dataclass(frozen=True)
class Check:
    """``if <path holds>: raise <exception>(<message>)``: an ``assert`` or a ``raise`` of the primal.

    ``path`` is a tuple of ``(condition, holds)`` pairs, SymPy booleans read from the source as
    the primal computes them: the check raises when every ``condition`` evaluates to ``holds``
    (``assert c, m`` is the pair ``(c, False)``, after the ``if`` pairs around it). ``exception``
    is the name of a built-in exception class; ``message`` a string or None (no argument).
    """

    path: tuple
    exception: str
    message: object = None

    @property
    def free_symbols(self):
        return set().union(*(c.free_symbols for c, _ in self.path))


@dataclass(frozen=True)
class SizeCheck(Check):
    """A ``Check`` symgrad adds on sizes (a slice bound of sizes, ``x[0:n - 2]``, negative):
    where it would raise at the call's sizes, the call takes a build for those very sizes
    (``specialise``), which reads the bound as the int it is, as Python does."""


@dataclass(frozen=True)
class DivisionCheck(Check):
    """Python's ZeroDivisionError of a Python number divided by a size that may be 0 (``2.0 /
    (len(x) - 3)``; NumPy's ``np.sum(x) / 0`` is inf instead), under the ``if``s around it. Its
    path starts with the size test, printed first and joined by Python's ``and``, so that a call
    at another size never tests the values (a traced ``jax.jit`` call among them)."""


@dataclass
class Program:
    """A function as SSA assignments.

    Attributes:
        name: the function's name (``energy``), used for ``grad_energy`` and ``denergy_dx``.
        params: the parameters, one real symbol each, in signature order: the positional ones,
            then the keyword-only ones (the last ``len(kwonly)``).
        defaults: default values (Python numbers) of the last ``len(defaults)`` positional
            parameters.
        kwonly: keyword-only parameter name → its default (a Python number), or None when it
            has none; in signature order.
        posonly: how many of the first positional parameters are positional-only (before a
            ``/``), as the primal's signature says.
        static: parameter name → int value it was fixed to at build time (used in ``range``).
        assignments: the ordered steps: ``Assignment``s, and ``Check``s where the primal runs
            them (``bindings`` gives the assignments alone).
        outputs: the output expressions (one for a scalar function).
        output_names: a name per output, for ``d<out>_d<wrt>``.
        written_outputs: the outputs as the primal computes them (``rules.Written`` operators,
            printed as the source writes them: ``t // 0.7``, not ``floor(1.4285714285714286*t)``),
            for the value ``value_and_grad`` returns; empty when not known (then ``outputs``).
        origin: "file.py, line 12" of the primal, for the docstring.
        names: every identifier in use, so later stages create fresh ones.
        variables: each variable the primal's body assigns (not a parameter) → the symbol of its
            last top-level binding (an assignment target when ``to_program`` was asked to make it
            a node), or None when it has no single number value (bound only inside a branch, or
            to a tuple). ``wrt`` may name these (``intermediate.py``).
        arrays: None for a scalar program; else a ``shapes.ArrayInfo`` (the shape of each array
            symbol, where each size is read, the constant arrays).
    """

    name: str
    params: tuple
    defaults: tuple
    assignments: list
    outputs: tuple
    output_names: tuple
    origin: str
    static: dict = field(default_factory=dict)
    names: set = field(default_factory=set)
    kwonly: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)
    arrays: object = None
    written_outputs: tuple = ()
    posonly: int = 0

    @property
    def param_names(self):
        return tuple(p.name for p in self.params)

    @property
    def positional(self):
        """The positional parameters (``params`` without the keyword-only ones)."""
        return self.params[:len(self.params) - len(self.kwonly)]

    @property
    def bindings(self):
        """The ``Assignment``s of ``assignments``, in order (the ``Check``s left out)."""
        return [a for a in self.assignments if isinstance(a, Assignment)]

    def fresh(self, base):
        """A new identifier from ``base`` unused in this program (``t``, ``t_1``, ``t_2`` ...)."""
        return fresh_name(base, self.names)


def fresh_name(base, used, avoid=()):
    """Return ``base`` or ``base_<k>`` (smallest k ≥ 1) not in ``used``, and add it to ``used``.

    ``avoid`` holds names the user wrote, which a suffixed name must not take (``base`` itself may be
    one of them: it is the user's own name for this value).
    """
    name = base if base not in used and base not in RESERVED and not keyword.iskeyword(base) else None
    k = 1
    while name is None:
        candidate = f"{base}_{k}"
        if candidate not in used and candidate not in avoid:
            name = candidate
        k += 1
    used.add(name)
    return name


def real_symbol(name):
    """The one way symbols are made: real, as DESIGN.md requires (so Abs' = sign)."""
    return sympy.Symbol(name, real=True)


def active_symbols(expr):
    """Free symbols of ``expr`` outside any ``StopGradient``, in a deterministic (name) order."""
    found = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, sympy.Symbol):
            found.add(node)
        elif not isinstance(node, StopGradient):
            stack.extend(node.args)
    return sorted(found, key=lambda s: s.name)


def substituted_outputs(program):
    """The outputs with every assignment substituted in (expressions in the parameters only).

    Shares sub-expressions as a DAG, but walking the result as a tree can be exponential in the
    depth of the program (a loop of ``t = sin(t)*t + cos(t)``).
    """
    values = {}
    for a in program.bindings:
        values[a.target] = a.expr.xreplace(values) if values else a.expr
    return tuple(None if out is None else out.xreplace(values) for out in program.outputs)


def tree_size(expr, limit):
    """Number of nodes of ``expr`` walked as a tree, counting stops at ``limit`` (returned then)."""
    count = 0
    stack = [expr]
    while stack and count < limit:
        node = stack.pop()
        count += 1
        stack.extend(node.args)
    return count


def free_symbols(expr, memo=None):
    """``expr.free_symbols`` walked as a graph: a sub-expression repeated many times (the loop
    state inside every branch of the code after an early return) is visited once.

    Args:
        expr: a SymPy expression.
        memo: optional dict (node -> its free symbols) shared between calls.

    Returns:
        A frozenset of the symbols.
    """
    memo = {} if memo is None else memo
    found = memo.get(expr)
    if found is None:
        if expr.is_Atom or _own_free_symbols(type(expr)):
            found = frozenset(expr.free_symbols)  # a symbol, or a class with bound variables
        else:
            found = frozenset().union(*[free_symbols(a, memo) for a in expr.args])
        memo[expr] = found
    return found


def contains(expr, types, memo=None):
    """``expr.has(*types)`` for classes, walked as a graph (each distinct node once).

    Args:
        expr: a SymPy expression.
        types: a tuple of SymPy classes.
        memo: optional dict (node -> bool) shared between calls with the same ``types``.

    Returns:
        Whether a node of ``expr`` (itself included) is an instance of one of ``types``.
    """
    memo = {} if memo is None else memo
    found = memo.get(expr)
    if found is None:
        found = isinstance(expr, types) or any(contains(a, types, memo) for a in expr.args)
        memo[expr] = found
    return found


def _own_free_symbols(cls):
    """Whether ``cls`` computes its free symbols itself (bound variables), not as its arguments'."""
    for klass in cls.__mro__:
        if "free_symbols" in vars(klass):
            return klass is not sympy.Basic
    return False


def replaced(expr, mapping, memo=None, evaluate=True, rebuild=None):
    """``expr.xreplace(mapping)`` with a memo: a sub-expression repeated many times (the ``max`` of
    every tie test) is rebuilt once (SymPy's ``Max`` compares its arguments pairwise when built).

    Args:
        expr: a SymPy expression.
        mapping: dict from sub-expressions to their replacements (matched whole, outermost first).
        memo: optional dict shared between calls with the same ``mapping`` (and ``evaluate``,
            ``rebuild``).
        evaluate: False to rebuild a ``Piecewise`` or a relation as it stands (for printing: names
            put in for sub-expressions decide nothing, and SymPy's evaluation of a large one,
            ``canonical`` relations and the pieces compared, takes seconds).
        rebuild: callable(node, args) → the node rebuilt with its new arguments (such as
            ``extrema.rebuilt``); None: ``node.func(*args)``.

    Returns:
        The expression with the replacements made.
    """
    memo = {} if memo is None else memo
    found = memo.get(expr)
    if found is None:
        found = mapping.get(expr)
        if found is None:
            if expr.is_Atom:
                found = expr
            else:
                args = [replaced(a, mapping, memo, evaluate, rebuild) for a in expr.args]
                if args == list(expr.args):
                    found = expr
                elif not evaluate and isinstance(expr, (sympy.Piecewise, sympy.Rel)):
                    found = expr.func(*args, evaluate=False)
                elif rebuild is not None:
                    found = rebuild(expr, args)
                else:
                    found = expr.func(*args)
        memo[expr] = found
    return found

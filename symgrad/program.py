"""The IR: a straight-line program of SSA assignments over real SymPy symbols.

``Program(params, assignments, outputs)``: each ``Assignment`` binds a fresh symbol to a SymPy
expression in the parameters and earlier targets; branches are already ``Piecewise``, loops unrolled,
helpers inlined, ``stop_gradient(e)`` kept as the opaque ``StopGradient(e)``. Every assignment here is
evaluated unconditionally by the primal, so later stages may compute it unconditionally too.
"""
import keyword
from dataclasses import dataclass, field

import sympy

from .rules import StopGradient

# names the emitted code refers to itself; a user name equal to one of these is renamed
RESERVED = frozenset({"math", "np", "abs", "max", "min", "round", "float", "pow", "sum",
                      "ValueError"})


@dataclass(frozen=True)
class Assignment:
    """``target = expr``: ``target`` a real ``sympy.Symbol`` bound once; ``expr`` a SymPy expression."""

    target: sympy.Symbol
    expr: sympy.Basic


@dataclass
class Program:
    """A function as SSA assignments.

    Attributes:
        name: the function's name (``energy``), used for ``grad_energy`` and ``denergy_dx``.
        params: the positional parameters, one real symbol each, in order.
        defaults: default values (Python numbers) of the last ``len(defaults)`` parameters.
        static: parameter name → int value it was fixed to at build time (used in ``range``).
        assignments: the ordered ``Assignment`` list.
        outputs: the output expressions (one for a scalar function).
        output_names: a name per output, for ``d<out>_d<wrt>``.
        origin: "file.py, line 12" of the primal, for the docstring.
        names: every identifier in use, so later stages create fresh ones.
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
    arrays: object = None

    @property
    def param_names(self):
        return tuple(p.name for p in self.params)

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
    for a in program.assignments:
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

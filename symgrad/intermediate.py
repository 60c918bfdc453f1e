"""``wrt`` naming an intermediate variable: the derivative with respect to a node of the program.

TensorFlow's ``tf.gradients(c, b)`` for a graph tensor ``b = 2 * a`` is ∂c/∂b holding what ``b`` was
computed from fixed. symgrad computes it as the derivative with respect to a perturbation of that
node: the assignment ``b = 2*a`` becomes ``b = 2*a + δb``, the program is differentiated with
respect to ``δb`` as if it were a parameter, and ``δb = 0`` is put back (``unperturbed``). The same
δ serves both strategies (an adjoint in ``reverse``, a symbol left in the substituted output in
``symbolic``), and a second derivative (``hessian``) differentiates the first one's program with
the same δ, so every result is a partial derivative of one function of (parameters,
perturbations): mixed partials commute and a value never depends on how an earlier derivative was
written.

A perturbation symbol is named ``δ(b)``, which is not a Python identifier: it can never equal a
symbol of the user's code, and would make invalid source if it ever reached the generated code.
"""
import dataclasses

import sympy

from .errors import OptionError
from .program import Assignment, real_symbol


def is_perturbation(symbol):
    """Whether ``symbol`` is a perturbation made by ``perturbed`` (named ``δ(<variable>)``)."""
    return symbol.name.startswith("δ(")


def perturbed(program, wrt):
    """``program`` with a perturbation added to each intermediate variable named in ``wrt``.

    Args:
        program: a ``Program`` whose ``variables`` give each intermediate's node (an assignment
            target), or a perturbation already made (the program of a first derivative).
        wrt: names; parameters are left alone.

    Returns:
        ``(program, perturbations)``: the program (the same object when ``wrt`` names parameters
        only) and ``{name: δ symbol}`` for the intermediates, to differentiate with respect to.

    Raises:
        OptionError: a name that is neither a parameter nor a variable bound to a node.
    """
    params = set(program.param_names)
    targets = {a.target for a in program.bindings}
    perturbations, added = {}, {}
    for name in wrt:
        if name in params:
            continue
        symbol = program.variables.get(name)
        if symbol is not None and is_perturbation(symbol):
            perturbations[name] = symbol
        elif symbol in targets:
            perturbations[name] = added[symbol] = real_symbol(f"δ({name})")
        else:
            raise OptionError(f"`{name}` is not a parameter or an intermediate variable of "
                              f"`{program.name}` with a value of its own")
    if not added:
        return program, perturbations
    assignments = [dataclasses.replace(a, expr=a.expr + added[a.target])
                   if isinstance(a, Assignment) and a.target in added else a
                   for a in program.assignments]
    return dataclasses.replace(program, assignments=assignments,
                               variables={**program.variables, **perturbations}), perturbations


def unperturbed(program, perturbations):
    """``program`` with every perturbation set to 0: values and derivatives at the primal's point.

    The result has no ``variables``: a derivative's program is differentiated again with respect to
    parameters only (``hessian`` keeps the perturbations of its first derivative instead).

    Raises:
        OptionError: setting a perturbation to 0 leaves an undefined value (a division by a
            variable bound to the constant 0, say): the primal raises there on every call.
    """
    if not perturbations:
        return program
    zero = {symbol: sympy.S.Zero for symbol in perturbations.values()}
    assignments = [dataclasses.replace(a, expr=a.expr.xreplace(zero)) if isinstance(a, Assignment)
                   else a for a in program.assignments]
    outputs = tuple(None if out is None else out.xreplace(zero) for out in program.outputs)
    for expr in [a.expr for a in assignments if isinstance(a, Assignment)] + [
            out for out in outputs if out is not None]:
        if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise OptionError(f"the derivative with respect to {', '.join(perturbations)} is "
                              f"undefined for every input of `{program.name}`")
    return dataclasses.replace(program, assignments=assignments, outputs=outputs, variables={})

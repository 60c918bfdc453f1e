"""Powers Python computes as real or complex by the point: a negative constant to a varying power.

Python's ``(-0.5) ** e`` is a float where ``e`` is whole and a complex number elsewhere
(``math.pow`` raises ``ValueError`` there instead). symgrad differentiates real values only
(docs/conventions.md, "Complex powers"), so such a power is read as ``RealPower(base, e)``:

- the primal's own lines compute it as Python does (``(-0.5) ** e``), so a value the primal only
  carries, tests for truth or compares with ``==`` stays Python's, complex or not;
- where the gradient needs a value as a real number (a derivative formula, a result), it is
  computed checked (``real_results``): ``math.pow(-0.5, e)``, and a name that may hold a complex
  number as ``a if type(a) is not complex else math.log(0.0)``; both raise ``ValueError: math
  domain error`` exactly where the primal's value is complex (``nan`` with the array backends,
  whose powers give nan there);
- its derivative is 0 where the exponent's derivative is 0 (``(-1.0) ** (math.floor(a) * b)``
  at a in [0, 1) is constant, 1.0, near the point) and ``ValueError`` elsewhere: an exponent
  that moves makes the power complex arbitrarily near, where it has no real derivative.
"""
import dataclasses
import operator

import sympy
from mpmath.libmp import prec_to_dps
from sympy import Function, S

from .program import Assignment
from .functions import AndThen, Branch, ComplexPower, FirstArgument, Literal, OrElse, \
    StopGradient, Undefined, Value, as_python
from . import functions, rules
from .rules import RULES, Written


class RealPower(Function):
    """``RealPower(base, exponent)``: Python's ``base ** exponent`` for a negative constant
    ``base`` and a varying ``exponent`` (real where the exponent is whole, complex elsewhere).
    ``differentiable`` gives it a third argument, the exponent with every assignment substituted
    in, which ``differentiate`` differentiates; the second, printed, keeps the primal's names
    (the primal's float: whole or not as the primal's)."""

    nargs = (2, 3)

    def _eval_is_real(self):
        return True

    def _eval_is_extended_real(self):
        return True

    @property
    def exponent(self):
        """The exponent the printed code computes (the primal's float)."""
        return self.args[1]

    def _eval_evalf(self, prec):  # check.py's 50-digit values: complex off whole exponents
        return sympy.Pow(self.args[0], self.exponent).evalf(prec_to_dps(prec))

    @property
    def differentiated(self):
        """The exponent whose derivative is the power's (substituted, by ``differentiable``)."""
        return self.args[-1]


class RealValue(Function):
    """``RealValue(v)``: ``v`` where the gradient needs it as a real number; printed (math
    backend) as code raising ``ValueError`` where ``v`` is complex (``real_results``)."""

    nargs = 1

    def _eval_is_real(self):
        return True

    def _eval_derivative(self, symbol):
        return self.args[0].diff(symbol)

    def _eval_evalf(self, prec):
        return self.args[0].evalf(prec_to_dps(prec))


class NoSlope(Undefined):
    """``NoSlope(1)``: the derivative of a ``RealPower`` whose exponent moves, which has no real
    derivative (printed as ``Undefined(1)``: ``ValueError``); times an adjoint that is 0 at the
    point it is 0 (``weighted``)."""


def slope(d_exponent):
    """The derivative of a ``RealPower`` whose exponent has derivative ``d_exponent``: 0 where
    that is 0 (the power is constant near the point), else undefined (``ValueError``)."""
    if d_exponent == 0:
        return S.Zero
    return sympy.Piecewise((0, sympy.Eq(Value(d_exponent), 0)), (NoSlope(sympy.Integer(1)), True))


def weighted(adjoint, partial):
    """``adjoint * partial``, the reverse strategy's contribution, 0 where ``adjoint`` is 0 if
    ``partial`` holds the undefined derivative of a moving complex power (``NoSlope``): the
    output does not follow the power there (``max(z * (-0.5) ** z, 3)`` where 3 wins), as the
    symbolic strategy's branch of the tie test, whose value is the number 0, gives."""
    if adjoint.is_Number or not partial.has(NoSlope):
        return adjoint * partial
    return sympy.Piecewise((0, sympy.Eq(Value(adjoint), 0)), (adjoint * partial, True))


def differentiable(program, substitution):
    """``program`` with each ``RealPower`` given the substituted exponent to differentiate
    (``RealPower(base, e, substitute(e))``), so the reverse strategy, whose local
    derivatives see a name for ``e``, gets the exponent's derivative at once: 0 where it is 0,
    however it is reached (``floor(a) * b`` at a in [0, 1)).

    Args:
        program: a ``Program``.
        substitution: callable() → the function substituting the assignments into an
            expression (outside ``StopGradient`` and the printed exponent of a ``RealPower``
            given its third argument), as ``differentiate._substitution`` gives it; called only
            when ``program`` holds a ``RealPower``.

    Returns:
        ``program`` itself when it holds no ``RealPower``, else a copy.
    """
    def rewrite(expr):
        if not isinstance(expr, sympy.Basic) or not expr.has(RealPower):
            return expr
        return expr.replace(lambda e: isinstance(e, RealPower) and len(e.args) == 2,
                            lambda e: RealPower(*e.args, substitute(e.args[1])))

    if not any(isinstance(a, Assignment) and a.expr.has(RealPower) for a in program.assignments) \
            and not any(o is not None and o.has(RealPower) for o in program.outputs):
        return program
    substitute = substitution()
    assignments = [dataclasses.replace(a, expr=rewrite(a.expr)) if isinstance(a, Assignment)
                   else a for a in program.assignments]
    return dataclasses.replace(program, assignments=assignments,
                               outputs=tuple(rewrite(o) for o in program.outputs))


def complex_power(node):
    """Whether ``node`` is a power Python may compute as a complex number: a ``RealPower``, a
    ``rules.ComplexPower``, or a written ``**`` of a negative number to a non-whole power."""
    if isinstance(node, (RealPower, ComplexPower)):
        return True
    if isinstance(node, Written) and int(node.args[0]) == 4:
        base, exponent = node.args[1:]
        return base.is_number and base.is_negative is True and not (
            exponent.is_Number and exponent.is_integer)
    return False


def _real_valued(node):
    """Whether ``node``'s value is real (or raises) whatever its operands: a condition, a
    comparison operand (compared as Python compares), ``abs`` (of a complex number: a float),
    a value checked already."""
    if isinstance(node, (Value, sympy.Abs, RealValue)) or (
            isinstance(node, sympy.logic.boolalg.Boolean) and not isinstance(node, sympy.Expr)):
        return True
    return isinstance(node, Written) and int(node.args[0]) >= 100 and \
        RULES[int(node.args[0]) - 100].sympy is sympy.Abs


def _may_be_complex(expr, carriers):
    """Whether ``expr``'s value (as the primal's lines compute it) may be complex: it holds a
    power Python computes as complex somewhere, or a name in ``carriers``, outside conditions,
    comparison operands and ``abs`` (whose values are real)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if complex_power(node) or node in carriers:
            return True
        if not _real_valued(node):
            stack.extend(node.args)
    return False


def _real(expr, carriers):
    """``expr`` with every value that may be complex, where its value is used (not in a
    condition or comparison), wrapped in ``RealValue``."""
    if not isinstance(expr, sympy.Basic) or not _may_be_complex(expr, carriers):
        return expr
    if expr in carriers or complex_power(expr) and not isinstance(expr, ComplexPower):
        return RealValue(expr)  # (a ComplexPower raises wherever it is printed)
    if _real_valued(expr):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(_real(e, carriers), c) for e, c in expr.args])
    args = [_real(a, carriers) for a in expr.args]
    return expr.func(*args) if args != list(expr.args) else expr


def real_results(derivative, primal_lines):
    """The derivative ``Program`` with every value its gradient code needs as a real number
    checked (``RealValue``): the lines after the primal's ``primal_lines`` and the outputs.

    Args:
        derivative: a ``Program`` from ``differentiate`` (the primal's lines first).
        primal_lines: how many of its ``assignments`` are the primal's own (computed as Python
            does, complex or not).

    Returns:
        ``derivative`` itself, its later lines and outputs rewritten in place where needed.
    """
    carriers = set()
    for a in derivative.assignments[:primal_lines]:
        if isinstance(a, Assignment) and _may_be_complex(a.expr, carriers):
            carriers.add(a.target)
    has_power = any(isinstance(a, Assignment) and a.expr.has(RealPower, Written)
                    for a in derivative.assignments[primal_lines:]) or any(
        o is not None and o.has(RealPower, Written) for o in derivative.outputs)
    if not carriers and not has_power:
        return derivative
    derivative.assignments = derivative.assignments[:primal_lines] + [
        dataclasses.replace(a, expr=_real(a.expr, carriers)) if isinstance(a, Assignment) else a
        for a in derivative.assignments[primal_lines:]]
    derivative.outputs = tuple(_real(o, carriers) for o in derivative.outputs)
    return derivative


_RELATIONS = {sympy.StrictLessThan: operator.lt, sympy.LessThan: operator.le,
              sympy.StrictGreaterThan: operator.gt, sympy.GreaterThan: operator.ge,
              sympy.Eq: operator.eq, sympy.Ne: operator.ne}


def primal_value(expr, constants):
    """``expr``'s value as the primal computes it in float, where it depends on no variable:
    its written operators (``rules.Written``) and comparison operands (``Value``) computed by
    Python on the names' constant values, its conditions (``Piecewise``, ``a if c else b``,
    ``and``/``or``/``not``) decided by Python's truth; a SymPy number is its float.

    Args:
        expr: a SymPy expression or boolean from the frontend.
        constants: symbol → the constant value of a name bound to one (``_Reader.constants``;
            each the primal's float, folded as Python computes it).

    Returns:
        A Python number or bool (a complex number where Python's is), or None where ``expr``
        may depend on a variable, is undefined, or Python raises computing it.
    """
    try:
        return _primal(expr, constants)
    except (ArithmeticError, ValueError, TypeError, _Varies):
        return None


class _Varies(Exception):
    """``primal_value``: the value depends on a variable (or symgrad cannot say)."""


def _primal(expr, constants):
    if expr is sympy.true or expr is sympy.false:
        return bool(expr)
    if isinstance(expr, Written):
        return Written._python(int(expr.args[0]))(*[_primal(a, constants)
                                                    for a in expr.args[1:]])
    if isinstance(expr, (Value, StopGradient)):
        return _primal(expr.args[0], constants)
    if isinstance(expr, FirstArgument):  # AsWritten computes its written form, a Copy its value
        written = getattr(expr, "written", None)
        return _primal(expr.args[0] if written is None else written, constants)
    if isinstance(expr, sympy.Piecewise):
        for value, cond in expr.args:
            if _primal(cond, constants):
                return _primal(value, constants)
        raise _Varies
    if isinstance(expr, Branch):
        cond, a, b = expr.args
        return _primal(a if _primal(cond, constants) else b, constants)
    if type(expr) in _RELATIONS:
        return _RELATIONS[type(expr)](*[_primal(a, constants) for a in expr.args])
    if isinstance(expr, (sympy.And, AndThen)):
        return all(_primal(a, constants) for a in expr.args)  # in order: Python's `and`
    if isinstance(expr, (sympy.Or, OrElse)):
        return any(_primal(a, constants) for a in expr.args)
    if isinstance(expr, sympy.Not):
        return not _primal(expr.args[0], constants)
    if isinstance(expr, RealPower):
        return _primal(expr.args[0], constants) ** _primal(expr.exponent, constants)
    if isinstance(expr, sympy.Symbol) and expr in constants:
        return _primal(constants[expr], constants)
    if isinstance(expr, sympy.Expr) and not expr.has(Undefined):
        if expr.free_symbols and expr.free_symbols <= set(constants):
            expr = expr.xreplace(constants)  # SymPy's form of names' constants (2 * a)
        if expr.is_Number or isinstance(expr, Literal) or expr.is_number and not expr.has(
                Written, sympy.Piecewise, sympy.Symbol, Undefined):
            return as_python(expr)  # a number (SymPy's exact value of a constant: its float)
    raise _Varies


def always_complex(base, exponent, constants):
    """Whether Python's ``base ** exponent``, ``base`` a negative constant, is a complex number
    on every call: the exponent's value as the primal computes it (``primal_value``) is not
    whole; a conditional exponent whose condition varies, only if every branch is.

    Args:
        base: a negative constant SymPy number (the names' constants substituted).
        exponent: the exponent as read (names kept, the conditions in the primal's form).
        constants: as ``primal_value``'s.

    Returns:
        bool.
    """
    if isinstance(exponent, sympy.Piecewise):
        for value, cond in exponent.args:
            taken = primal_value(cond, constants)
            if taken is None:  # either branch may run
                if not always_complex(base, value, constants):
                    return False
            elif taken:
                return always_complex(base, value, constants)
        return True
    value = primal_value(exponent, constants)
    if value is None or isinstance(value, complex):
        return False
    try:
        return isinstance(as_python(base) ** value, complex)
    except (ArithmeticError, ValueError):
        return False


def real_abs_of_powers(value, written=None):
    """``abs(value)`` where Python's ``abs`` of a value it may compute as a complex number is a
    real number: ``|k * c ** e| = |k| * |c| ** e`` for a ``RealPower`` factor, and ``|(c ** e)
    ** p| = (|c| ** e) ** p`` for a real ``p`` (``|z ** p| = |z| ** p``, for every e), a
    stopped factor the stopped modulus (``|stop_gradient(z)| = stop_gradient(|z|)``); and where
    ``value`` holds a ``ComplexPower`` (which stands for the whole undefined operand), its
    constant ``written`` form (``abs(stop_gradient((-4) ** 0.3) + 1)``) folded to Python's
    ``abs`` of it.

    Args:
        value: a SymPy expression (the argument of ``abs`` as read).
        written: its written form (``rules.Written`` of numbers), or None.

    Returns:
        A real SymPy expression holding no complex factor of ``value``, or None where
        ``value`` has no such factor (its ``abs`` is SymPy's ``Abs``).
    """
    factors = value.args if isinstance(value, sympy.Mul) else (value,)
    real, rest = [], []
    for factor in factors:
        base, power = (factor.args if isinstance(factor, sympy.Pow) else (factor, S.One))
        modulus = _modulus(base) if power.is_number and power.is_real else None
        if modulus is not None:
            real.append(sympy.Pow(modulus, power))
        else:
            rest.append(factor)
    if real:
        return rules.real_abs(sympy.Mul(*rest)) * sympy.Mul(*real)
    if not isinstance(written, sympy.Expr) or not value.has(ComplexPower):
        return None
    if written.free_symbols:
        return _modulus_of_written(written)
    written = written.replace(lambda n: isinstance(n, StopGradient), lambda n: n.args[0])
    try:
        return functions.number(abs(Written.python_value(written)))
    except (ArithmeticError, ValueError, TypeError):
        return None


def _modulus_of_written(written):
    """``|w|`` for a written operand ``w = a + b * c`` with one complex constant ``c``
    (``(-4) ** 0.3``, Python's value) and real ``a``, ``b``: ``sqrt((a + b re c)**2 + (b im
    c)**2)``, ``|b| * |c|`` where ``a`` is 0 (``abs(x * (-4) ** 0.3)``); None for any other
    form (a stopped value holding ``c``, a function of it)."""
    constants = {}

    def real_form(w):
        if isinstance(w, Written) and not w.free_symbols:
            number = Written.python_value(w)
            if isinstance(number, complex):
                return constants.setdefault(number, sympy.Dummy(real=True))
            return functions.number(number)
        if w.is_Atom:
            return w
        args = [real_form(a) for a in w.args]
        if isinstance(w, StopGradient) and args[0].has(*constants.values()):
            if args[0].free_symbols - set(constants.values()):
                raise TypeError("a stopped complex value")
            return args[0]  # a stopped constant: the constant
        if not isinstance(w, Written):
            return w.func(*args)
        rebuilt = Written(*args)  # folds where the operands' real forms are numbers
        if not isinstance(rebuilt, Written):
            return rebuilt
        if not rebuilt.free_symbols:  # numbers whose value is complex: (-0.5) ** (y - y + 0.5)
            return real_form(rebuilt)
        return rebuilt.evaluated()

    try:
        form = real_form(written)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if len(constants) != 1:
        return None
    (number, placeholder), = constants.items()
    b = form.diff(placeholder)
    if b.has(placeholder, sympy.Derivative, sympy.Subs):
        return None
    a = form.xreplace({placeholder: S.Zero})
    if a == 0:
        return rules.real_abs(b) * functions.number(abs(number))
    return sympy.sqrt((a + b * functions.number(number.real)) ** 2 + (
        b * functions.number(number.imag)) ** 2)


def _modulus(factor):
    """``|factor|`` as a real SymPy expression where ``factor`` is a ``RealPower`` (or a stopped
    product of them); None otherwise."""
    if isinstance(factor, RealPower):
        return sympy.Pow(-factor.args[0], factor.args[1])
    if isinstance(factor, StopGradient):
        modulus = real_abs_of_powers(factor.args[0])
        return None if modulus is None else StopGradient(modulus)
    return None

"""A value with two forms: SymPy's, to differentiate, and the primal's, to print.

SymPy keeps a value in its own canonical form: ``0.4 - x - y`` is ``-x - y + 0.4`` and
``(x + 0.1) - 0.1`` is ``x``. In float those are other numbers: ``(0.4 - x) - y`` and
``(-x - y) + 0.4`` differ in the last bit for some points, and ``(x + 0.1) - 0.1`` is not always
``x``. A comparison the generated code makes (a tie test of ``max``/``min``, the sign of an
``abs``, a truth test) must compare the primal's floats, so the frontend wraps such an operand
in ``AsWritten(value, StopGradient(written))``: ``value`` is SymPy's form (differentiated: the
derivative is SymPy's), ``written`` the source's form (``rules.Written`` operators over the
primal's names, printed: the generated code computes the primal's float).
"""
import sympy
from sympy import S
from sympy.functions.elementary.piecewise import ExprCondPair

from . import rules
from .functions import Branch, Expm1, FirstArgument, Literal, Log1p, StopGradient, Value
from .program import _own_free_symbols
from .rules import RULES, Written, rule_for_class
from .special import Cbrt, Digamma, Expit, GammaLn, Logit, Polygamma, XLogY


class AsWritten(FirstArgument):
    """``AsWritten(value, StopGradient(written))``: the derivative of ``value``, printed (by
    ``emit``) as ``written``. The second argument is stopped, so that no derivative is taken of
    it, no assignment is substituted into it (its names are the primal's own lines) and it adds
    no dependency (``unconnected``)."""

    nargs = 2

    @classmethod
    def eval(cls, value, written):
        if isinstance(written, StopGradient):
            written = written.args[0]
        if written.is_Number:  # the primal's constant (folded as Python computes it)
            return written
        if written == value or isinstance(value, AsWritten):
            return value
        return None

    @property
    def written(self):
        """The source's form (``rules.Written`` operators over names)."""
        written = self.args[1]
        return written.args[0] if isinstance(written, StopGradient) else written


def as_written(value, written):
    """``value`` computed as ``written`` (``AsWritten``), or ``value`` itself where ``written``
    is unknown (None) or the same expression.

    Args:
        value: a SymPy expression, SymPy's form of the value.
        written: the same value as the source computes it (``rules.Written`` operators), or None.

    Returns:
        A SymPy expression.
    """
    if written is None or not isinstance(value, sympy.Expr) or \
            isinstance(value, (StopGradient, AsWritten)) or not isinstance(written, sympy.Expr) \
            or _exact(written) == value:
        return value
    return AsWritten(value, StopGradient(written))


def written_call(rule, args):
    """A call of the ``RULES`` row ``rule`` on the written ``args``, as the source computes it
    (``rules.Written``), or None: a row with no spelling of its own is written as the row that
    prints its SymPy class (``np.log`` as ``math.log``, ``np.maximum`` as ``max``), ``np.square``
    as ``a * a`` and ``np.sign`` as its comparisons (``functions.Branch``), so that no such call
    drops the written form of the operand around it (SymPy's reordered floats printed).

    Args:
        rule: a row of ``rules.RULES`` (not ``float``, which the reader writes as its argument).
        args: the written arguments, as many as the row accepts.

    Returns:
        A SymPy expression, or None for a row that has no written form.
    """
    if rules.written_spelling(rule, "math") is None:
        if rule.python == ("numpy.square",):
            return Written(sympy.Integer(2), args[0], args[0])
        if rule.sympy is sympy.sign:
            value = Value(args[0])
            zero = Written(sympy.Integer(100 + RULES.index(rule_for_class(sympy.Abs))), Written(
                sympy.Integer(2), args[0], S.Zero))  # abs(a * 0): 0.0 at +-0, nan at nan
            return Branch(value > 0, S.One, Branch(value < 0, S.NegativeOne, zero))
        rule = rule_for_class(rule.sympy)
        if rule is None or rules.written_spelling(rule, "math") is None or \
                len(args) not in rule.nargs:
            return None
    return Written(sympy.Integer(100 + RULES.index(rule)), *args)


def _exact(written):
    """``written`` with the operations that are exact in float taken out (``x * 1``, ``x + 0``,
    ``x / 1``, ``-(-x)``; ``x * 0`` is 0, up to its sign): equal to SymPy's form, it is the
    primal's float too."""
    if not isinstance(written, Written):
        return written
    code, args = int(written.args[0]), [_exact(a) for a in written.args[1:]]
    if code == -1 and isinstance(args[0], Written) and int(args[0].args[0]) == -1:
        return args[0].args[1]
    if code == 2 and any(a.is_zero for a in args):
        return S.Zero
    if code == 2 and args[0] == 1 or code == 0 and args[0].is_zero:
        return args[1]
    if code in (0, 1) and args[1].is_zero or code in (2, 3) and args[1] == 1:
        return args[0]
    return Written(*written.args[:1], *args)


def kept_as_written(value, written):
    """``value`` computed as ``written`` where printing SymPy's form could give another float:
    ``value`` itself when ``written`` is unknown (None) or computes the same float as SymPy's form
    prints (``same_float``), else ``AsWritten`` (``as_written``). Array code wraps only those, so
    the common case keeps SymPy's form (shared by the derivative lines and rewritten by them).

    Args:
        value: a SymPy expression, SymPy's form of the value.
        written: the same value as the source computes it (``rules.Written`` operators), or None.

    Returns:
        A SymPy expression.
    """
    if written is None or not isinstance(value, sympy.Expr) or not isinstance(
            written, sympy.Expr) or same_float(written, value):
        return value
    return as_written(value, shared(written))


def kept_own(value, written):
    """``value`` carrying ``written``, its form in the source, where SymPy's form may be another
    float (``kept_as_written``): a value no name holds (a side of ``a if c else b``, an element
    of a tuple or a comprehension) keeps its own form, which a note keyed by SymPy's form
    (``frontend.remember``) cannot: ``y + x * 7 / 7.0`` and ``y + x * 3 / 3.0`` are both ``x +
    y`` to SymPy. A number stays a number unless the source computes it from variables."""
    if not isinstance(value, sympy.Expr) or isinstance(value, (StopGradient, AsWritten)):
        return value
    if value.is_Number and not (isinstance(written, sympy.Expr) and written.free_symbols):
        return value
    return kept_as_written(value, written)


def shared(written):
    """``written`` with each part that SymPy's form computes as the same float (``same_float``)
    in SymPy's form: ``(x[:, None] - mu) / s`` holds SymPy's ``x[:, None] - mu``, which the
    derivative lines use too, so the two share one line (cse) instead of computing it twice."""
    if not isinstance(written, Written):
        return written
    args = [shared(a) for a in written.args[1:]]
    written = Written(written.args[0], *args) if args != list(written.args[1:]) else written
    if not any(isinstance(a, Written) for a in args):
        evaluated = written.evaluated()
        if same_float(written, evaluated):
            return evaluated
    return written


def same_float(written, value):
    """Whether SymPy's ``value``, as the printer prints it, computes the float ``written``
    computes: the same operations on the same operands, up to the order of the two operands of
    ``+``, ``*``, ``max`` and ``min`` (exact in float) and ``a - b`` as ``a + (-b)``. Anything
    else (a folded constant, a sum or product of three terms reassociated, a cancellation,
    ``Max`` flattened) is taken to differ.

    Args:
        written: a SymPy expression with ``rules.Written`` operators (the source's form).
        value: a SymPy expression (SymPy's form).

    Returns:
        bool.
    """
    if isinstance(value, AsWritten):
        return written == value.written or same_float(written, value.written)
    if not isinstance(written, Written):
        if isinstance(value, Literal) and written.is_Number:
            return float(written) == value.value
        return written == value
    code, args = int(written.args[0]), written.args[1:]
    if code == -1:
        return _negated(args[0], value)
    if code in (0, 1, 2):
        kind = sympy.Mul if code == 2 else sympy.Add
        if not isinstance(value, kind) or len(value.args) != 2:
            return False
        p, q = value.args
        second = _negated if code == 1 else same_float
        return (same_float(args[0], p) and second(args[1], q)) or (
            same_float(args[0], q) and second(args[1], p))
    if code == 3:  # a / b: 1 / B, or a coefficient 1/k printed as a division by k
        if value.is_Pow and value.exp == -1:
            return args[0] == 1 and same_float(args[1], value.base)
        if not value.is_Mul or len(value.args) != 2:
            return False
        for p, q in (value.args, value.args[::-1]):
            if p.is_Rational and p.p == 1 and p.q != 1:
                return args[1] == p.q and same_float(args[0], q)
        return False  # a / b as a * (1/b): cse may name 1/b, another float
    if code == 4:
        return value.is_Pow and args[1].is_Integer and args[1] > 1 and value.exp == args[1] \
            and same_float(args[0], value.base)
    if code >= 100:
        rule = RULES[code - 100]
        if "math.sqrt" in rule.python and value.is_Pow and value.exp == S.Half:  # SymPy's
            return same_float(args[0], value.base)  # sqrt(a): Pow, of no row of its own
        if rule_for_class(type(value)) is not rule or len(value.args) != len(args):
            return False
        if rule.sympy in (sympy.Max, sympy.Min) and len(args) == 2:
            p, q = value.args
            return (same_float(args[0], p) and same_float(args[1], q)) or (
                same_float(args[0], q) and same_float(args[1], p))
        return all(same_float(w, v) for w, v in zip(args, value.args))
    return False


def _negated(written, value):
    """Whether ``value`` is ``-written`` (negation is exact): ``-1 * W`` or the negated number."""
    if written.is_Number and value.is_Number:
        return same_float(-written, value)
    return value.is_Mul and len(value.args) == 2 and value.args[0] == -1 and same_float(
        written, value.args[1])


def printed_symbols(expr, memo=None):
    """The symbols the printed form of ``expr`` reads: those of each ``AsWritten``'s written
    form, not of its value (SymPy's form, differentiated, never printed): a line only that
    value reads (``broadcast_to(0)`` for ``x / 3.0 * 3.0 - x``) is dead. Walked as a graph, as
    ``program.free_symbols`` (a sub-expression repeated many times is visited once).

    Args:
        expr: a SymPy expression.
        memo: optional dict (node -> its printed symbols) shared between calls.

    Returns:
        A frozenset of ``sympy.Symbol``.
    """
    memo = {} if memo is None else memo
    found = memo.get(expr)
    if found is None:
        if isinstance(expr, AsWritten):
            found = printed_symbols(expr.written, memo)
        elif expr.is_Atom or _own_free_symbols(type(expr)):
            found = frozenset(expr.free_symbols)
        else:
            found = frozenset().union(*[printed_symbols(a, memo) for a in expr.args])
        memo[expr] = found
    return found


def holds_its_value(assignment):
    """Whether the name of ``assignment`` (a ``program.Assignment``) holds the very float its
    SymPy form prints as: it is printed as that form (no ``written``), or its written form
    computes the same float (``same_float``). Only such a name may stand for its SymPy form where
    that form is compared (``names_back``)."""
    return assignment.written is None or same_float(assignment.written, assignment.expr)


_SMOOTH = (sympy.Add, sympy.Mul, sympy.exp, sympy.log, Log1p, Expm1, sympy.sin, sympy.cos,
           sympy.tan, sympy.asin, sympy.acos, sympy.atan, sympy.sinh, sympy.cosh, sympy.tanh,
           sympy.asinh, sympy.acosh, sympy.atanh, sympy.erf, sympy.erfc, Expit, Logit, XLogY,
           GammaLn, Digamma, Polygamma, Cbrt)
"""Nodes whose arguments are only computed with: a value within rounding of an argument gives a
value within rounding of the result, and their derivatives compare nothing. The arguments of
every other node (``max``, ``abs``, ``floor``, ``atan2``, a power with a varying exponent, a
relation, a ``Value`` ...) are compared, by the node or by its derivative's tests."""


def compares(node, index):
    """Whether the ``index``-th argument of ``node`` (a SymPy expression) is compared: its exact
    float decides a branch or a jump (see ``_SMOOTH``); a ``Piecewise`` compares its conditions,
    not its values."""
    if isinstance(node, sympy.Pow):
        return not node.exp.is_Number
    if isinstance(node, (sympy.Piecewise, ExprCondPair)):
        return isinstance(node, ExprCondPair) and index == 1
    return not isinstance(node, _SMOOTH)


def names_back(expr, every, exact, memo=None, evaluate=True):
    """``expr`` with primal names put back for the values they hold (``program.replaced``, in two
    contexts): where a sub-expression is only computed with, ``every`` (SymPy form -> name: a
    name's float is within rounding of its SymPy form's); where it is compared (``compares``), and
    in everything below, only ``exact`` (the names that hold their SymPy form's very float,
    ``holds_its_value``): a tie test, a condition or a jump decided on another float than the one
    the primal compares takes another branch.

    Args:
        expr: a SymPy expression.
        every: dict from sub-expressions to names (or expressions of names), matched whole.
        exact: the part of ``every`` that is exact.
        memo: optional dict shared between calls with the same mappings (and ``evaluate``).
        evaluate: False to rebuild a ``Piecewise`` or a relation as it stands (``replaced``).

    Returns:
        The expression with the replacements made.
    """
    memo = {} if memo is None else memo

    def walk(node, compared):
        key = (node, compared)
        found = memo.get(key)
        if found is None:
            found = (exact if compared else every).get(node)
            if found is None:
                if node.is_Atom:
                    found = node
                else:
                    args = [walk(a, compared or compares(node, i))
                            for i, a in enumerate(node.args)]
                    if args == list(node.args):
                        found = node
                    elif not evaluate and isinstance(node, (sympy.Piecewise, sympy.Rel)):
                        found = node.func(*args, evaluate=False)
                    else:
                        found = node.func(*args)
            memo[key] = found
        return found
    return walk(expr, False)

"""NumPy code run on arrays of SymPy expressions: the symbolic half of ``check_grad`` on arrays.

At one small concrete shape every element of every array parameter is a real SymPy symbol
(``X[0,1]``), and a function written with NumPy (symgrad's generated gradient, or a hand-derived
one, in-place updates, ``out=`` and item assignment included) runs on them unchanged: each result is
an object array of SymPy expressions, one per element. ``SymbolicArray`` is that object array: NumPy
hands every ufunc and array function it meets to it (``__array_ufunc__``, ``__array_function__``),
and it applies the SymPy function the rule table (``rules.RULES``) gives for the ufunc element by
element (``np.exp`` → ``exp``, ``np.maximum`` → ``Max``, ``x.max()`` → ``Max`` of the elements);
comparisons give SymPy relations, ``np.where`` gives ``Piecewise``. Arithmetic (``+ - * / **
@``, ``sum``, ``prod``, indexing, layout) is NumPy's own object-array code on SymPy expressions.

What it cannot follow raises (``NotTraceable`` or whatever NumPy or SymPy raise: a comparison
used as a Python ``bool``, ``float`` of a symbol in the user's code, a function on object arrays
NumPy does not have), and the caller then decides by numbers alone: a trace never guesses.
"""
import math
import types
from fractions import Fraction

import numpy as np
import sympy

from . import functions, rules


class NotTraceable(Exception):
    """The code does something the symbolic arrays cannot follow."""


class SymbolicArray(np.ndarray):
    """An object array of SymPy expressions on which NumPy's ufuncs act symbolically."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        symbolic = _symbolic_ufunc(ufunc)
        operation = getattr(symbolic if symbolic is not None else ufunc, method)
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        result = operation(*[_exact(_plain(x)) for x in inputs], **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return tuple(wrap(r) for r in result) if isinstance(result, tuple) else wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        own = _FUNCTIONS.get(func)
        if own is not None:
            return own(*args, **kwargs)
        return wrap(super().__array_function__(func, types_, args, kwargs))

    def __getitem__(self, key):
        return wrap(super().__getitem__(key))

    def __setitem__(self, key, value):  # an element is stored as the expression, not a 0-d array
        super().__setitem__(key, _plain(value)[()] if _is_0d(value) else value)


def _is_0d(value):
    return isinstance(value, np.ndarray) and value.shape == ()


def wrap(value):
    """``value`` as a ``SymbolicArray`` (a number or expression as a 0-d one); tuples kept."""
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, SymbolicArray):
        return value
    if isinstance(value, np.ndarray):
        return value.astype(object).view(SymbolicArray)
    array = np.empty((), dtype=object)
    array[()] = value
    return array.view(SymbolicArray)


def _plain(value):
    return value.view(np.ndarray) if isinstance(value, SymbolicArray) else value


def expression(value):
    """A Python or NumPy number, bool or SymPy object as a SymPy object (never from text)."""
    if _is_0d(value):
        value = _plain(value)[()]
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, (bool, np.bool_)):
        return sympy.true if value else sympy.false
    if isinstance(value, (int, np.integer)):
        return sympy.Integer(int(value))
    if isinstance(value, (float, np.floating)):
        return number(float(value))
    raise NotTraceable(f"a value of type {type(value).__name__} in a symbolic array")


FRACTION_MAX_DENOMINATOR = 1000


def number(value):
    """The float ``value`` as SymPy reads it under a trace: the fraction p/q (q up to
    ``FRACTION_MAX_DENOMINATOR``) when ``value`` is exactly the float nearest p/q (``1.0 / 3``,
    ``0.01``: what the code means, within half a unit in the last place), else ``Float(value)``.
    So a gradient scaled by ``1.0 / n`` in one function and divided by ``n`` in the other
    simplifies to the same expression."""
    fraction = Fraction(value).limit_denominator(FRACTION_MAX_DENOMINATOR)
    if math.isfinite(value) and float(fraction) == value:
        return sympy.Rational(fraction.numerator, fraction.denominator)
    return sympy.Float(value)


def _exact(value):
    """A float scalar or float array operand of a ufunc with its floats read by ``number``."""
    if isinstance(value, (float, np.floating)):
        return number(float(value))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return np.vectorize(lambda v: number(float(v)), otypes=[object])(value)
    return value


def elements(value):
    """An object ``np.ndarray`` of SymPy expressions for a result (array, expression or number)."""
    array = np.asarray(_plain(value), dtype=object)
    out = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        out[index] = expression(array[index])
    return out


def _elementwise(function, nin):
    return np.frompyfunc(lambda *args: function(*[expression(a) for a in args]), nin, 1)


_OWN_UFUNCS = {
    np.greater: sympy.StrictGreaterThan, np.greater_equal: sympy.GreaterThan,
    np.less: sympy.StrictLessThan, np.less_equal: sympy.LessThan, np.equal: sympy.Eq,
    np.not_equal: sympy.Ne, np.logical_and: sympy.And, np.logical_or: sympy.Or,
    np.logical_not: sympy.Not, np.sign: sympy.sign, np.rint: functions.Round,
    np.reciprocal: lambda x: 1 / x,
}
"""ufuncs whose SymPy function is not a row of ``rules.RULES`` (printed-only or comparisons)."""

_NATIVE = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive,
           np.matmul, np.power, np.floor_divide, np.remainder}
"""ufuncs left to NumPy's object loops, which call Python's operators on the expressions."""

_MADE = {}


def _symbolic_ufunc(ufunc):
    """The object ufunc applying ``ufunc``'s SymPy function, or None for a native operator."""
    if ufunc in _NATIVE:
        return None
    if ufunc not in _MADE:
        function = _OWN_UFUNCS.get(ufunc)
        if function is None:
            rule = rules.rule_for_callable(ufunc)
            if rule is None:
                raise NotTraceable(f"np.{ufunc.__name__} has no symbolic counterpart")
            function = rule.build or rule.sympy
        _MADE[ufunc] = _elementwise(function, ufunc.nin)
    return _MADE[ufunc]


def _where(condition, x=None, y=None):
    if x is None or y is None:
        raise NotTraceable("np.where with one argument")
    return wrap(_elementwise(lambda c, a, b: sympy.Piecewise((a, c), (b, True)), 3)(
        _plain(condition), _plain(x), _plain(y)))


def _round(a, decimals=0, out=None):
    if decimals != 0:
        raise NotTraceable("np.round with decimals")
    return np.rint(a, out=out)


def _matrix(a):
    array = np.asarray(_plain(a), dtype=object)
    if array.ndim != 2:
        raise NotTraceable("linear algebra of a stack of matrices")
    return sympy.Matrix([[expression(v) for v in row] for row in array])


def _inv(a):
    return wrap(np.array(_matrix(a).inv().tolist(), dtype=object))


def _det(a):
    return wrap(_matrix(a).det())


def _slogdet(a):
    det = _matrix(a).det()
    return wrap(sympy.sign(det)), wrap(sympy.log(sympy.Abs(det)))


_FUNCTIONS = {np.where: _where, np.round: _round, np.around: _round, np.linalg.inv: _inv,
              np.linalg.det: _det, np.linalg.slogdet: _slogdet}
"""Array functions whose NumPy implementation would need a Python ``bool`` or a float."""


def _asarray(value, dtype=None, **kwargs):
    return value if isinstance(value, SymbolicArray) else wrap(np.asarray(value, **kwargs))


class _Float(float):
    """``float`` for the generated code under a trace: a call keeps an expression as it is, and it
    is still a type (the generated code asks ``isinstance(n, float)`` of sizes)."""

    def __new__(cls, value=0.0):
        if isinstance(value, (SymbolicArray, sympy.Basic)):
            return np.asarray(_plain(value), dtype=object)[()]
        return float(value)


def _object_array(make):
    def made(*args, dtype=None, **kwargs):
        return make(*args, dtype=object, **kwargs).view(SymbolicArray)
    return made


class _NumPy(types.SimpleNamespace):
    """``np`` for the generated code under a trace: ``asarray`` keeps symbolic arrays as they are
    (the real one would ask each expression for a float), and new arrays hold objects, so that
    expressions can be added into them; the rest is NumPy's."""

    def __getattr__(self, name):
        return getattr(np, name)


_TRACED_NUMPY = _NumPy(asarray=_asarray, array=_asarray, zeros=_object_array(np.zeros),
                       ones=_object_array(np.ones), full=_object_array(np.full),
                       empty=_object_array(np.zeros), eye=_object_array(np.eye),
                       zeros_like=_object_array(np.zeros_like),
                       ones_like=_object_array(np.ones_like),
                       full_like=_object_array(np.full_like),
                       empty_like=_object_array(np.zeros_like))


def traced_generated(function):
    """symgrad's generated ``function`` with ``np.asarray`` and ``float`` that keep expressions,
    so it runs on ``SymbolicArray`` arguments (its own globals are left as they are)."""
    namespace = dict(function.__globals__, np=_TRACED_NUMPY, float=_Float)
    return types.FunctionType(function.__code__, namespace, function.__name__,
                              function.__defaults__, function.__closure__)


def symbols_for(name, shape):
    """The parameter ``name`` at the concrete ``shape``: a ``SymbolicArray`` of real symbols
    ``name[i,j]`` (a real symbol ``name`` for shape ``()``)."""
    if shape == ():
        return sympy.Symbol(name, real=True)
    array = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        array[index] = sympy.Symbol(f"{name}[{','.join(map(str, index))}]", real=True)
    return array.view(SymbolicArray)

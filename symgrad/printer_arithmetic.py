"""Sums, products, quotients and powers as Python AST: the arithmetic half of ``printer.Printer``
(a mixin: it prints the operands through the printer's ``node``, ``number`` and ``call``).

The terms keep an order that gives the float value the source computes: positive terms first, an
inexact literal last; a negative coefficient stays in its literal (``-0.5 * x``); ``x**2`` of a
name is ``x * x`` and a negative power a division.
"""
import ast

import sympy
from sympy import S

from .functions import Literal

LONG_SUM = 40
"""Sums of more terms print as ``sum((...))``: a chain of 300 ``+`` is too deep for ``ast`` tools."""


class ArithmeticPrinting:
    """``add``, ``mul``, ``quotient`` and ``pow`` of ``printer.Printer``."""

    def add(self, e, negate=False):
        """``a + b - c``; with ``negate``, ``-(a + b - c)`` printed as ``-a - b + c``: the same
        terms in the same order, so the same float value (IEEE sums are sign-symmetric)."""
        terms = e.as_ordered_terms()
        terms = [t for t in terms if not t.could_extract_minus_sign()] + [
            t for t in terms if t.could_extract_minus_sign()]
        # an inexact literal last: `1.0 - p + 1e-12` adds 1e-12 to 1 - p, as the source does
        terms = [t for t in terms if not isinstance(t, Literal)] + [
            t for t in terms if isinstance(t, Literal)]
        if len(terms) > LONG_SUM:  # sum((a, b, ...)): a + b + ... (compensated on Python 3.12+),
            node = ast.Call(ast.Name("sum", ast.Load()), [ast.Tuple(  # nests no deeper than 2
                [self.node(t) for t in terms], ast.Load())], [])
            return ast.UnaryOp(ast.USub(), node) if negate else node
        node = None
        for term in terms:
            signed = -term if negate else term
            negative = signed.could_extract_minus_sign()
            if node is None:  # `-0.5 * x` keeps its sign in the literal
                node = self.node(signed)
            else:
                node = ast.BinOp(node, ast.Sub() if negative else ast.Add(),
                                 self.node(-signed if negative else signed))
        return node

    def mul(self, e):
        coeff, rest = e.as_coeff_Mul()  # Mul(1.0, x) gives (1.0, x): as_coeff_mul keeps the 1.0
        # a negative number coefficient stays in the literal: `-0.5 * x` (CPython folds the sign
        # into the constant) is one operation fewer than `-(0.5 * x)`, with the same float value;
        # so does `-(0.5 * x + y)`, printed `-0.5 * x - y`
        if coeff == -1 and rest.is_Add:
            return self.add(rest, negate=True)
        if coeff == -1:  # -(0.3 * x) with an inexact literal 0.3: `-0.3 * x`
            ordered = rest.as_ordered_factors()
            if isinstance(ordered[0], Literal) and ordered[0].value > 0:
                return self.quotient([self.number(-ordered[0].value)], ordered[1:])
        literal = coeff.is_Float or coeff.is_Integer or exact_float(coeff)  # 1/2 as 0.5 * x
        if e.could_extract_minus_sign() and not (
                literal and coeff < 0 and float(coeff) != -1.0):
            return ast.UnaryOp(ast.USub(), self.node(-e))
        factors = sympy.Mul.make_args(rest)
        numerator, denominator = [], []
        if coeff.is_Rational and not literal:
            if coeff.p != 1:
                numerator.append(self.node(sympy.Integer(coeff.p)))
            denominator.append(self.node(sympy.Integer(coeff.q)))
        elif coeff != 1 and float(coeff) != 1.0:  # 1.0 * x is x for floats
            numerator.append(self.node(coeff))
        return self.quotient(numerator, sympy.Mul(*factors).as_ordered_factors(), denominator)

    def quotient(self, numerator, factors, denominator=()):
        """``n1 * n2 * f1 * ... / (d1 * ...)``: printed numerators, then SymPy factors (those with
        a negative power go below the line)."""
        numerator, denominator = list(numerator), list(denominator)
        for factor in factors:
            if factor.is_Pow and factor.exp.is_Number and factor.exp < 0:
                denominator.append(self.node(sympy.Pow(factor.base, -factor.exp)))
            else:
                numerator.append(self.node(factor))
        node = _product(numerator) if numerator else ast.Constant(1.0)
        if denominator:
            node = ast.BinOp(node, ast.Div(), _product(denominator))
        return node

    def pow(self, e):
        base, exponent = e.args
        sqrt = "math.sqrt" if not self.vectorised else "np.sqrt"
        if exponent == S.Half:
            return self.numeric_call(sqrt, [base])
        if exponent == -S.Half:
            return ast.BinOp(ast.Constant(1.0), ast.Div(), self.numeric_call(sqrt, [base]))
        if exponent.is_Number and exponent < 0:
            return ast.BinOp(ast.Constant(1.0), ast.Div(), self.node(sympy.Pow(base, -exponent)))
        if exponent == 1:
            return self.node(base)
        if exponent == 2 and base.is_Symbol:  # x * x: faster than x ** 2 in CPython
            return ast.BinOp(self.node(base), ast.Mult(), self.node(base))
        if exponent.is_Integer:  # an int exponent: exact, and x ** 3 reads as written
            return ast.BinOp(self.node(base), ast.Pow(), ast.Constant(int(exponent)))
        return ast.BinOp(self.node(base), ast.Pow(), self.node(exponent))


def exact_float(number):
    """A rational that a float holds exactly (a power-of-two denominator: 1/2, 3/4)."""
    return number.is_Rational and number.q & (number.q - 1) == 0 and abs(number.p) < 2 ** 53


def _product(nodes):
    node = nodes[0]
    for other in nodes[1:]:
        node = ast.BinOp(node, ast.Mult(), other)
    return node

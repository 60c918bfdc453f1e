"""Calls in array code, for the array frontend: the rows of the array table (``arrays``, also in
TensorFlow and ``jax.numpy`` spellings) with their arguments bound to the row's signature, the
methods of arrays (``x.sum()``), ``len``, the functions of ``rules.RULES`` applied elementwise with
broadcasting, and the refusal, by name, of any other NumPy function."""
import ast

import numpy as np
import sympy

from . import arrays, functions, rules
from .array_arguments import Arguments
from .fence import dotted
from .functions import StopGradient
from .program import Assignment, active_symbols
from .realpower import RealPower
from .resolve import _Py
from .shapes import ShapeError, is_dim


class CallReader:
    """The call half of ``array_frontend.ArrayReader`` (a mixin)."""

    stopping = 0  # > 0 while the argument of a stop_gradient(...) is read

    def stopped(self, node, frame):
        self.stopping += 1
        try:
            stopped = super().stopped(node, frame)
        finally:
            self.stopping -= 1
        if self.array_mode and isinstance(stopped, StopGradient):  # its value as written: an
            inner = self.as_computed(stopped.args[0], node.args[0], frame)  # argmax compares it
            if inner is not stopped.args[0]:
                stopped = self.call_results[node] = StopGradient(inner)
        return stopped

    def differentiable(self, expr):
        """Whether ``expr`` depends on a parameter through a path no ``stop_gradient`` cuts."""
        values = {a.target: a.expr for a in self.assignments if isinstance(a, Assignment)}
        seen, stack = set(), list(active_symbols(expr))
        while stack:
            s = stack.pop()
            if s in seen or is_dim(s):
                continue
            seen.add(s)
            if s in values:
                stack.extend(active_symbols(values[s]))
            elif s.name not in self.constants and s not in self.constants:
                return True  # a parameter
        return False

    def call(self, node, frame, *more, **options):
        func = node.func
        if isinstance(func, ast.Attribute):
            base = self.value(func.value, frame)
            if not isinstance(base, _Py):
                return self.method(self.as_computed(base, func.value, frame), func.attr, node,
                                   frame)
        if dotted(func) in rules.STOP_GRADIENT_SPELLINGS:
            return super().call(node, frame, *more, **options)
        value = self.value(func, frame) if isinstance(func, (ast.Name, ast.Attribute)) else None
        obj = value.obj if isinstance(value, _Py) else None
        rule = arrays.rule_for_callable(obj) if obj is not None else None
        scalar_rule = rules.rule_for_callable(obj) if obj is not None else None
        mapped = False  # a TensorFlow or jax.numpy spelling of a NumPy function
        if rule is None and scalar_rule is None and obj is not None:
            meant = arrays.numpy_name(dotted(func), obj)
            if meant is not None:
                rule = arrays.rule_for_name(meant)
                scalar_rule = None if rule else rules.rule_for_callable(_numpy_object(meant))
                mapped = scalar_rule is not None
        if rule is not None:
            self.need_arrays()
            return self.row_call(rule, node, frame, [], dotted(func))
        if isinstance(obj, np.ufunc) and obj in _LOGICAL and not node.keywords:
            arity = 1 if obj is np.logical_not else 2
            if len(node.args) != arity or isinstance(node.args[-1], ast.Starred):
                self.fail(node, frame, f"`{_LOGICAL[obj]}` takes {arity} condition(s) here",
                          "pass the conditions only")
            return self.logical(_LOGICAL[obj], [self.value(a, frame) for a in node.args], node,
                                frame)
        if scalar_rule is not None and (self.array_mode or mapped):
            return self.elementwise_call(scalar_rule, obj, node, frame, mapped)
        if obj is len:
            return self.length(node, frame, more, options)
        if obj is not None and _is_numpy(obj) and scalar_rule is None:
            self.need_arrays()
            name = dotted(func) or getattr(obj, "__name__", "?")
            return self.fail(node, frame, f"`{name}` is not supported: symgrad has no array rule "
                             "for it", "use the NumPy functions listed in docs/arrays.md, or "
                             "compute it with those")
        return super().call(node, frame, *more, **options)

    def length(self, node, frame, more, options):
        if len(node.args) == 1 and not node.keywords:
            value = self.value(node.args[0], frame)
            if isinstance(value, tuple):
                return sympy.Integer(len(value))
            if isinstance(value, sympy.Expr):
                self.need_arrays()
                shape = self.shape_at(value, node, frame)
                if not shape:
                    self.fail(node, frame, "len() of a scalar", "pass an array")
                return shape[0]
        return super().call(node, frame, *more, **options)

    def method(self, base, name, node, frame):
        if not isinstance(base, sympy.Expr):
            return self.fail(node, frame, f"the method `.{name}` of this value is not supported",
                             "call functions on numbers and arrays")
        rule = arrays.rule_for_method(name)
        if rule is None and not self.array_mode and hasattr(np.ndarray, name):
            self.need_arrays()  # x.copy(): read again with the call's arrays
        if name == "copy" and self.array_mode and self.dims.of(base) and not (
                node.args or node.keywords):
            return base  # values are never changed in place: a copy is the value itself
        if rule is None and not (self.array_mode and self.dims.of(base)):
            return self.fail(node, frame, f"the method `.{name}()` of a number is not "
                             "supported", "use math functions on the value")
        self.need_arrays()
        if rule is None:
            return self.fail(node, frame, f"the array method `.{name}()` is not supported",
                             "use the NumPy functions listed in docs/arrays.md")
        return self.row_call(rule, node, frame, [base], f".{name}")

    def row_call(self, rule, node, frame, given, spelling, argument=None):
        """A call of an array row: arguments bound to its signature, then its ``read``;
        ``argument(node, frame)`` reads each argument (``self.argument`` unless given)."""
        argument = argument or self.argument
        signature = rule.signature
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
                kw.arg is None for kw in node.keywords):
            self.fail(node, frame, f"`*` or `**` arguments to `{spelling}` are not supported",
                      "pass the arguments one by one")
        positional = list(given) + [argument(a, frame) for a in node.args]
        bound = {}
        extra = ()
        if signature and signature[-1][0].startswith("*"):  # np.einsum(subscripts, *operands)
            fixed = len(signature) - 1
            positional = positional[:fixed] + [tuple(positional[fixed:])]
        if len(positional) > len(signature):
            if rule in _STARRED_METHODS and len(given) == 1:  # x.reshape(2, 3), x.transpose(1, 0)
                positional, extra = positional[:2], tuple(positional[2:])
            else:
                self.fail(node, frame, f"`{spelling}` takes at most {len(signature) - len(given)}"
                          " positional arguments here", "check the call")
        for (name, _), value in zip(signature, positional):
            bound[name.lstrip("*")] = value
        if extra:
            last = signature[1][0]  # newshape, axes: the method's *args as one tuple
            bound[last] = (bound[last],) + extra if not isinstance(
                bound[last], tuple) else bound[last] + extra
        known = {name for name, _ in signature}
        for kw in node.keywords:
            if kw.arg not in known or kw.arg in bound:
                self.fail(kw, frame, f"the keyword argument `{kw.arg}` of `{spelling}` is not "
                          "supported", f"`{spelling}` takes {', '.join(sorted(known))}")
            bound[kw.arg] = argument(kw.value, frame)
        for name, default in signature:
            name = name.lstrip("*")
            if name not in bound:
                if default is arrays.REQUIRED and rule.name not in ("where", "full", "full_like"):
                    self.fail(node, frame, f"`{spelling}` is missing its argument `{name}`",
                              "check the call")
                bound[name] = default
        context = Arguments(self, node, frame, spelling)
        try:
            result = rule.read(context, **bound)
        except ShapeError as exc:
            return self.fail(node, frame, f"`{spelling}`: {exc}", "check the shapes")
        if rule.elementwise:  # folded by SymPy (`np.where(c, 1.0, 1.0)`): NumPy's shape kept
            result = context.elementwise(result)
        if isinstance(result, sympy.Basic):
            return self.node_value(result, rule.label, node, frame)
        return result

    def argument(self, node, frame):
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
            return node.value  # None, or a string (the subscripts of np.einsum)
        value = self.value(node, frame)
        return self.as_computed(value, node, frame) if self.array_mode else value

    def elementwise_call(self, rule, obj, node, frame, mapped=False):
        """A function of ``rules.RULES`` applied to arrays: elementwise, with broadcasting."""
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, frame, f"keyword or `*` arguments to `{dotted(node.func)}` are not "
                      "supported", "pass plain positional arguments")
        args = [self.argument(a, frame) for a in node.args]
        context = Arguments(self, node, frame)
        args = [context.array(a) for a in args]
        shapes = [self.shape_at(a, node, frame) for a in args]
        if not any(shapes) and not mapped:  # numbers: the scalar reading (folding included)
            return super().call(node, frame)
        if any(shapes):
            self.need_arrays()
            if not (mapped or _is_numpy(obj) or obj is abs or obj is pow):
                self.fail(node, frame, f"`{dotted(node.func)}` of an array: it takes one number",
                          f"use the NumPy spelling (np.{getattr(obj, '__name__', 'f')})")
        if len(args) not in rule.nargs:
            self.fail(node, frame, f"`{dotted(node.func)}` with {len(args)} arguments is not "
                      "supported", "check the call")
        shape = self.broadcast_at(shapes, node, frame)
        base = self._with_constants(args[0])
        try:
            if rule.build is rules.power and functions.complex_power(base, args[1]):
                result = RealPower(base, args[1])  # np.power(-2.0, y): NumPy's nan off whole y
            else:
                result = self.defined((rule.build or rule.sympy)(*args), node, frame)
        except (TypeError, ValueError) as exc:
            return self.fail(node, frame, f"`{dotted(node.func)}` cannot be applied here "
                             f"({str(exc).rstrip('.')})", "pass real numbers")
        return self.shaped(result, shape, node, frame) if shape else result


_STARRED_METHODS = (arrays.RESHAPE, arrays.TRANSPOSE)
"""Rows whose method form takes its second argument as ``*args`` (``x.reshape(2, 3)``)."""

_LOGICAL = {np.logical_and: "np.logical_and", np.logical_or: "np.logical_or",
            np.logical_not: "np.logical_not"}
"""NumPy's functions combining element conditions (``array_frontend.ArrayReader.logical``)."""


def _is_numpy(obj):
    module = getattr(obj, "__module__", None) or ""
    return isinstance(obj, np.ufunc) or module == "numpy" or module.startswith("numpy.")


def _numpy_object(dotted_name):
    module, _, attr = dotted_name.rpartition(".")
    owner = np
    for part in module.split(".")[1:]:
        owner = getattr(owner, part, None)
    return getattr(owner, attr, None)

"""The sizes of array code: the parameters' shapes before the body is read, the sizes named after.

The first and the last stage of ``array_frontend``'s read (``SizeReader``, a mixin of
``ArrayReader``): ``_parameter_shapes`` turns ``shapes=`` (and a constant array default's pattern)
into each parameter's tuple of dimension symbols, a call-time size (``None``) as a provisional
symbol; ``_finish``, once the body is read, gives each provisional size its name (the one the code
binds it to, ``n = len(x)``, else the next free one of ``_POOL`` in the order the body first reads
the parameters), puts the names into every assignment and records the ``ArrayInfo`` (shapes,
where each size is read, constant arrays) on the ``Program``.
"""
import ast
import builtins
import keyword

import numpy as np
import sympy

from .errors import OptionError
from .program import Assignment, fresh_name, real_symbol
from .shapes import ArrayInfo, Shapes, dim_symbol
from .source import read_source
from .written import same_float, shared

_RESERVED = ("np", "numpy", "math", "sympy", "scipy")
"""Modules the generated code names: a size named so would hide them (builtins are refused too)."""
_POOL = ("n", "d", "k", "m", "p", "q", "r", "s")
"""Names of call-time sizes, in order of first appearance (unless the code names them)."""


class SizeReader:
    """The sizes half of ``array_frontend.ArrayReader`` (a mixin)."""

    def _parameter_shapes(self, function):
        code = function.__code__
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        defaults = dict(zip(code.co_varnames[:code.co_argcount][
            code.co_argcount - len(function.__defaults__ or ()):], function.__defaults__ or ()))
        defaults.update(function.__kwdefaults__ or {})
        for name, value in defaults.items():  # an array default: its pattern, sizes at the call
            if name not in self.shape_option and isinstance(value, np.ndarray) and value.ndim:
                self.shape_option = {**self.shape_option,
                                     name: tuple(1 if k == 1 else None for k in value.shape)}
        for name, dims in self.shape_option.items():
            if name not in names:
                raise OptionError(f"shapes names {name!r}, which is not a parameter of "
                                  f"`{function.__name__}` {tuple(names)}")
            if not isinstance(dims, (tuple, list)):
                raise OptionError(f"shapes[{name!r}] must be a tuple of dimension names or ints, "
                                  f"not {dims!r}")
            shape = []
            for d in dims:
                if d is None:
                    symbol = dim_symbol(f"_dim{len(self.provisional)}")
                    self.provisional.append(symbol)
                    self.dims.labels[symbol] = sympy.Symbol(f"{name}.shape[{len(shape)}]")
                    shape.append(symbol)
                elif isinstance(d, bool) or not isinstance(d, (str, int)) or (
                        isinstance(d, int) and d < 0) or (isinstance(d, str)
                                                          and not d.isidentifier()):
                    raise OptionError(f"shapes[{name!r}] has {d!r}: give sizes as names "
                                      "(\"n\") or ints >= 0")
                elif isinstance(d, int):
                    shape.append(sympy.Integer(d))
                elif d in names or d in _RESERVED or keyword.iskeyword(d) or hasattr(builtins, d):
                    what = "a parameter of the function" if d in names else \
                        "a name the generated code uses"
                    raise OptionError(f"shapes[{name!r}] names the size {d!r}, which is {what}: "
                                      "give the size another name (\"n\", \"d\")")
                else:
                    symbol = dim_symbol(d)
                    self.dims.named.add(symbol)
                    self.names.add(d)
                    shape.append(symbol)
            self.dims.table[real_symbol(name)] = tuple(shape)

    def _finish(self, program, first_use):
        dims = self.dims
        final, taken = {}, set(program.names)
        preferred_names = {}
        for d, name in self.dim_names.items():
            preferred_names.setdefault(dims.dim(d), name)
        def reading_order(symbol):  # sizes named as the body first reads their parameters
            name = str(dims.labels[symbol]).split(".")[0]
            return first_use.get(name, len(first_use)), self.provisional.index(symbol)
        for symbol in sorted(self.provisional, key=reading_order):
            value = dims.dim(symbol)
            if value.is_Symbol and value in self.provisional and value not in final:
                preferred = preferred_names.get(value)
                if preferred is None or preferred in self.names:
                    preferred = next((n for n in _POOL if n not in taken), None) or fresh_name(
                        "n", taken)
                taken.add(preferred)
                final[value] = dim_symbol(preferred)
        rule = {s: dims.dim(s).xreplace(final) for s in self.provisional}
        rule.update((s, dims.dim(s)) for s in dims.named if dims.dim(s) != s)  # n: 4

        program.names = taken | {s.name for s in final.values()}
        program.assignments = [_replace(a, rule) for a in program.assignments]
        program.outputs = tuple(o if o is None else o.xreplace(rule) for o in program.outputs)
        program.written_outputs = tuple(o if not isinstance(o, sympy.Basic) else o.xreplace(rule)
                                        for o in program.written_outputs)
        table = {s: tuple(d.xreplace(rule) for d in dims.resolve(shape))
                 for s, shape in dims.table.items()}
        sources = {}
        for p in sorted(program.params, key=lambda p: first_use.get(p.name, len(first_use))):
            for axis, d in enumerate(table.get(p, ())):
                if d.is_Symbol and d not in sources:
                    sources[d] = (p.name, axis)
        shapes = Shapes(table, dims.named)
        shapes.equal = {k.xreplace(rule): v.xreplace(rule) for k, v in dims.equal.items()}
        program.arrays = ArrayInfo(shapes, sources, self.constants, self.array_defaults)
        return program


def _first_use(function):
    """Parameter name → rank of its first read in the body (source order)."""
    node = read_source(function).node
    loads = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(
        n.ctx, ast.Load)), key=lambda n: (n.lineno, n.col_offset))
    order = {}
    for n in loads:
        order.setdefault(n.id, len(order))
    return order


def _replace(step, rule):
    """An assignment (or another step of the program) with the sizes of ``rule`` put in."""
    if isinstance(step, Assignment):  # a line printed as written where that is another float
        expr = step.expr.xreplace(rule)
        written = None if step.written is None or same_float(step.written, step.expr) else \
            shared(step.written).xreplace(rule)
        return Assignment(step.target, expr, written)
    if hasattr(step, "path"):  # a Check: its conditions
        return type(step)(tuple((c.xreplace(rule), h) for c, h in step.path), step.exception,
                          step.message)
    return step

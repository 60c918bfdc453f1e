"""The array parts of printing a derivative Program (``emit`` calls these for array programs).

- ``expand_statements``: a value printed as statements (the adjoint of an index: a zero buffer and
  one ``+=`` or ``np.add.at`` per piece) gets them before the line that uses it;
- ``size_lines``: ``n = X.shape[0]`` for each size the code reads, after the parameters'
  conversion to float arrays, and a check of each other axis that must have that size;
- ``in_place``: the body rewritten to reuse dead buffers (``array_buffers``), with what the
  program knows of its names.
"""
import ast

from .array_buffers import reuse_buffers
from .program import fresh_name


def expand_statements(body, names):
    """``body`` with every statement marker (``symgrad_statements``) expanded in place."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.With):
            stmt.body = expand_statements(stmt.body, names)
            out.append(stmt)
            continue
        if isinstance(stmt, ast.Assign) and hasattr(stmt.value, "symgrad_statements"):
            out.extend(stmt.value.symgrad_statements(stmt.targets[0].id))
            continue
        before = []

        class Hoist(ast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                expand = getattr(node, "symgrad_statements", None)
                if expand is None:
                    return node
                name = fresh_name("scattered", names)
                before.extend(expand(name))
                return ast.Name(name, ast.Load())

        Hoist().visit(stmt)
        out.extend(before)
        out.append(stmt)
    return out


def size_lines(info, body, params, function_name):
    """``n = X.shape[0]`` for each size the code reads, then a check of every other axis that the
    build takes to be that size (``if y.shape[0] != n: raise ValueError(...)``): where the primal
    would raise for sizes that do not match, the gradient must not return numbers."""
    from .array_nodes import int_ast
    read = {n.id for stmt in body for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    actual, wanted, named = [], [], []
    for p in params:
        for axis, dim in enumerate(info.shapes.table.get(p, ())):
            if dim == 1 or info.dims.get(dim) == (p.name, axis):
                continue
            actual.append(ast.Subscript(ast.Attribute(ast.Name(p.name, ast.Load()), "shape",
                                                      ast.Load()), ast.Constant(axis), ast.Load()))
            wanted.append(int_ast(dim))
            named.append(p.name)
            read.update(s.name for s in dim.free_symbols)
    checks = []
    if actual:
        def side(items):
            return items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())
        names = ", ".join(dict.fromkeys(named))
        message = f"{function_name}: the sizes of {names} do not match"
        checks.append(ast.If(ast.Compare(side(actual), [ast.NotEq()], [side(wanted)]), [ast.Raise(
            ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []), None)], []))
    lines = []
    for dim, (param, axis) in info.dims.items():
        if dim.name in read:
            value = ast.Subscript(ast.Attribute(ast.Name(param, ast.Load()), "shape", ast.Load()),
                                  ast.Constant(axis), ast.Load())
            lines.append(ast.Assign([ast.Name(dim.name, ast.Store())], value, lineno=None))
    return lines + checks


def in_place(program, body, prelude, results, stops, invented):
    """``body`` (ending with its ``return``) rewritten by ``array_buffers.reuse_buffers``.

    ``results``: the names returned; ``stops``: names of stopped values (never inlined, so their
    comment stays); ``invented``: names ``emit`` made up (common terms, index adjoint buffers).
    Inlinable: those, the adjoints, and the names the frontend gave to anonymous array nodes
    (``product = X @ w``); never a parameter, a primal variable or a result.
    """
    info = program.arrays
    shapes = {s.name: info.shapes.resolve(shape) for s, shape in info.shapes.table.items()}
    adjoints = set(getattr(program, "adjoint_names", ()))
    variables = getattr(program, "variables", {}) or {}
    primal = set(variables) | {s.name for s in variables.values() if s is not None}
    anonymous = {a.target.name for a in program.bindings if getattr(a.expr, "rule", None)
                 is not None and a.target.name not in primal}
    keep = set(results) | set(stops) | set(program.param_names)
    return reuse_buffers(body, prelude, shapes, [d.name for d in info.dims], info.constants,
                         inlinable=(invented | adjoints | anonymous) - keep,
                         derivative=adjoints | set(results), results=results)

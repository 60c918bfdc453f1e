"""The array parts of printing a derivative Program (``emit`` calls these for array programs).

- ``expand_statements``: a value printed as statements (the adjoint of an index: a zero buffer and
  one ``+=`` or ``np.add.at`` per piece) gets them before the line that uses it;
- ``size_lines``: ``n = X.shape[0]`` for each size the code reads, after the parameters'
  conversion to float arrays.
"""
import ast

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


def size_lines(info, body):
    """``n = X.shape[0]`` for each dimension symbol of ``info`` that ``body`` reads."""
    read = {n.id for stmt in body for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    lines = []
    for dim, (param, axis) in info.dims.items():
        if dim.name in read:
            value = ast.Subscript(ast.Attribute(ast.Name(param, ast.Load()), "shape", ast.Load()),
                                  ast.Constant(axis), ast.Load())
            lines.append(ast.Assign([ast.Name(dim.name, ast.Store())], value, lineno=None))
    return lines

"""Reading a function's source: function object → parsed AST with real file locations and namespaces.

The only module that calls ``inspect``. Line numbers and columns of every node are shifted to the
real file, so errors and the generated docstring name the user's file and line.
"""
import ast
import builtins
import dis
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass, field

from . import dependencies
from .errors import SourceLocation, SourceUnavailableError, UnsupportedSyntaxError


@dataclass
class FunctionSource:
    """A parsed function and everything needed to resolve its names.

    Attributes:
        function: the Python function object.
        node: its ``ast.FunctionDef`` (or ``ast.Lambda``), locations shifted to the real file.
        filename: the file it was read from.
        globals: the function's module namespace (read at build time).
        closure: free variable name → value, for closures.
    """

    function: types.FunctionType
    node: ast.AST
    filename: str
    globals: dict
    closure: dict = field(default_factory=dict)

    alias: str = None  # for a lambda: the name it is assigned to (`sq = lambda x: x * x`)

    @property
    def name(self):
        if self.function.__name__ != "<lambda>":
            return self.function.__name__
        return self.alias or "lambda"

    def location(self, node):
        """The ``SourceLocation`` of an AST node of this function."""
        lineno = getattr(node, "lineno", None) or getattr(self.node, "lineno", 1)
        col = getattr(node, "col_offset", 0) or 0
        text = linecache.getline(self.filename, lineno).rstrip("\n")
        return SourceLocation(self.filename, lineno, col, text)

    def lookup(self, name):
        """Resolve a free name as Python would: closure, then module globals, then builtins.

        Returns ``(True, value)`` or ``(False, None)`` when the name is not bound anywhere. A name
        found is reported to ``dependencies`` (what the disk cache checks in a later process).
        """
        if name in self.closure:
            value = self.closure[name]
        elif name in self.globals:
            value = self.globals[name]
        elif hasattr(builtins, name):
            value = getattr(builtins, name)
        else:
            return False, None
        dependencies.name_read(self.function, name, value)
        return True, value


def read_source(function):
    """Parse a Python function's source.

    Args:
        function: a plain Python function (``def`` or a lambda written in a file).

    Returns:
        A ``FunctionSource``.

    Raises:
        SourceUnavailableError: ``function`` is not a Python function, or its source cannot be read
            (builtins, C extensions, code typed at the interactive prompt, ``exec`` strings).
        UnsupportedSyntaxError: a lambda that shares its line with another lambda.

    The function is reported to ``dependencies`` (its source is part of what a build read).
    """
    if isinstance(function, types.MethodType):
        raise SourceUnavailableError(
            f"`{function.__qualname__}` is a bound method: symgrad differentiates plain functions "
            "of numbers; write a module-level function taking the numbers it needs")
    if not isinstance(function, types.FunctionType):
        raise SourceUnavailableError(
            f"cannot read the source of {function!r}: symgrad differentiates plain Python functions "
            "defined with `def` in a file")
    if hasattr(function, "__wrapped__"):
        raise SourceUnavailableError(
            f"`{function.__qualname__}` is wrapped by a decorator (it has `__wrapped__`): its source "
            "is the undecorated function's, so its gradient would ignore the decorator; "
            "differentiate a function without the decorator")
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of `{function.__qualname__}` ({exc}): define it with `def` in a "
            "file (functions typed at the interactive prompt or built by exec have no source)"
        ) from None
    filename = inspect.getsourcefile(function) or function.__code__.co_filename
    found = _lambda_in_file(function, filename) if function.__name__ == "<lambda>" else None
    if found is not None:
        tree, node = found
        return _source(function, tree, node, filename)
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = _indent_width(text, dedented)
    try:
        tree = ast.parse(dedented)
    except SyntaxError:
        # a lambda in the middle of an expression spanning lines: parse the line as an expression
        try:
            tree = ast.parse("(" + dedented.strip() + ")")
        except SyntaxError as exc:
            raise SourceUnavailableError(
                f"cannot parse the source of `{function.__qualname__}`: {exc.msg}") from None
        indent -= 1
    for node in ast.walk(tree):
        if hasattr(node, "lineno"):
            node.lineno += first - 1
            node.col_offset += indent
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += first - 1
    return _source(function, tree, _find_definition(tree, function, filename), filename)


def _source(function, tree, node, filename):
    """The ``FunctionSource`` of ``node``, the definition of ``function`` in ``tree``."""
    _check_current(node, function, filename)
    alias = next((t.targets[0].id for t in ast.walk(tree) if isinstance(t, ast.Assign)
                  and t.value is node and len(t.targets) == 1
                  and isinstance(t.targets[0], ast.Name)), None)
    dependencies.function_read(function)
    closure = {}
    if function.__closure__:
        for name, cell in zip(function.__code__.co_freevars, function.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: the variable is not bound yet
                pass
    return FunctionSource(function, node, filename, function.__globals__, closure, alias)


def _check_current(node, function, filename):
    """Raise if the file no longer holds the code the function was compiled from (edited after
    import): its gradient would be that of the new text, not of the function that runs."""
    code = function.__code__
    if code.co_freevars or any(n.startswith("@py") for n in code.co_varnames + code.co_names):
        return  # a closure, or asserts rewritten by pytest: it compiles differently on its own
    wrapper = ast.Expression(node) if isinstance(node, ast.Lambda) else ast.Module([node], [])
    try:
        module = compile(ast.fix_missing_locations(wrapper), filename,
                         "eval" if isinstance(node, ast.Lambda) else "exec")
    except (SyntaxError, ValueError, TypeError):
        return
    compiled = next((c for c in module.co_consts if isinstance(c, types.CodeType)), None)
    if compiled is not None and _fingerprint(compiled) != _fingerprint(function.__code__):
        raise SourceUnavailableError(
            f"the source of `{function.__qualname__}` in {filename} has changed since it was "
            "imported: reload the module (importlib.reload) so the function and its text agree")


def _fingerprint(code):
    """What an edit of the text changes whatever the compile path (pytest's assertion rewriting,
    the adaptive interpreter): constants, names and the last line; not the raw bytecode."""
    constants = tuple(c for c in code.co_consts if not isinstance(c, types.CodeType))
    last_line = max((line for _, _, line in code.co_lines() if line is not None), default=0)
    operators = tuple(i.argrepr for i in dis.get_instructions(code)
                      if i.opname.startswith(("BINARY_OP", "COMPARE_OP")))
    return constants, code.co_names, code.co_varnames, last_line, operators


def _indent_width(text, dedented):
    first = text.splitlines()[0] if text else ""
    first_dedented = dedented.splitlines()[0] if dedented else ""
    return len(first) - len(first_dedented)


def _lambda_in_file(function, filename):
    """``(tree, node)``: the whole file parsed and the lambda ``function`` was compiled from, told
    from the other lambdas of its line by where its body's code is (``co_positions``, the same
    UTF-8 columns as ``ast``: the innermost lambda whose body holds some of it), or None where the file does not parse or no lambda body holds it
    (the line is then read alone, below). A lambda inside a dict or a call spanning lines reads
    so, where its lines alone are no expression."""
    code = function.__code__
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None
    starts = {(line, col) for line, _, col, _ in code.co_positions()
              if line is not None and col is not None}
    held = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
            and n.lineno == code.co_firstlineno and any(
                (n.body.lineno, n.body.col_offset) <= at <= (n.body.end_lineno,
                                                             n.body.end_col_offset)
                for at in starts)]
    innermost = [n for n in held if not any(m is not n and _inside(m, n) for m in held)]
    return (tree, innermost[0]) if len(innermost) == 1 else None


def _inside(inner, outer):
    """``inner``'s text lies within ``outer``'s."""
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and (
        (inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno, outer.end_col_offset))


def _find_definition(tree, function, filename):
    name = function.__name__
    if name == "<lambda>":
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        if len(lambdas) != 1:
            line = lambdas[1] if lambdas else tree
            raise UnsupportedSyntaxError(
                "cannot tell which lambda on this line to differentiate",
                SourceLocation(filename, getattr(line, "lineno", function.__code__.co_firstlineno),
                               getattr(line, "col_offset", 0),
                               linecache.getline(filename, function.__code__.co_firstlineno).rstrip()),
                "define the function with `def`")
        return lambdas[0]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    raise SourceUnavailableError(f"cannot find `def {name}` in the source read for it")

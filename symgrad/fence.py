"""The default-deny fence: which Python syntax the frontend rejects, and with what advice.

``frontend`` handles each accepted node kind by name; any other kind ends here, in ``REJECTED``
(a message and a hint per kind) or in the generic "`Kind` is not supported" line, so new Python
syntax fails loudly (unlike tangent's allow-by-default fence).
"""
import ast

LOOP_HINT = "rewrite as `for i in range(N)` with N known when the gradient is built"
REJECTED = {
    ast.While: ("`while` loops are not supported", LOOP_HINT),
    ast.Try: ("`try` is not supported", "differentiate the code inside it"),
    ast.With: ("`with` is not supported", "differentiate the code inside it"),
    ast.Global: ("`global` is not supported", "read module constants without declaring them"),
    ast.Nonlocal: ("`nonlocal` is not supported", "pass the value as a parameter"),
    ast.Delete: ("`del` is not supported", "remove it"),
    ast.Import: ("`import` inside the function is not supported", "import at module level"),
    ast.ImportFrom: ("`import` inside the function is not supported", "import at module level"),
    ast.AsyncFunctionDef: ("`async def` is not supported", "use a plain `def`"),
    ast.ClassDef: ("a `class` inside the function is not supported", "define it outside"),
    ast.Break: ("`break` is not supported", "loop over exactly the iterations needed"),
    ast.Continue: ("`continue` is not supported", "use `if` inside the loop"),
    ast.Yield: ("`yield` is not supported", "return a value"),
    ast.YieldFrom: ("`yield from` is not supported", "return a value"),
    ast.Await: ("`await` is not supported", "use a plain function"),
    ast.NamedExpr: ("the walrus operator `:=` is not supported", "use a plain assignment"),
    ast.DictComp: ("dict comprehensions are not supported",
                   "use a tuple comprehension or a `for` loop"),
    ast.SetComp: ("set comprehensions are not supported",
                  "use a tuple comprehension or a `for` loop"),
    ast.Dict: ("dictionaries are not supported", "use separate variables"),
    ast.Set: ("sets are not supported", "use separate variables"),
    ast.JoinedStr: ("strings are not supported", "remove it"),
    ast.Starred: ("`*` unpacking is not supported", "pass the arguments one by one"),
    ast.Match: ("`match` is not supported", "use `if`/`elif`/`else`"),
    ast.AsyncFor: ("`async for` is not supported", "use a plain `for`"),
    ast.AsyncWith: ("`async with` is not supported", "differentiate the code inside it"),
}


def dotted(node):
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def walk_same_function(node):
    """``ast.walk`` that does not enter nested function or class definitions."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                      ast.Lambda)):
                stack.append(child)


def bound_names(function):
    """The names local to ``function``'s own scope (a ``def`` or ``lambda`` node): its
    parameters, the names it assigns and the ``def``s it holds; not names bound only inside a
    nested function or a comprehension, which have scopes of their own (as in Python)."""
    args = function.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    stack = list(function.body) if isinstance(function.body, list) else [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif not isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp,
                                   ast.DictComp)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            stack.extend(ast.iter_child_nodes(node))
    return names


def first(node, kind):
    """The first node of type ``kind`` strictly inside ``node`` (same function), or None."""
    for sub in walk_same_function(node):
        if isinstance(sub, kind) and sub is not node:
            return sub
    return None


def contains(node, kind):
    """Whether ``node`` holds a node of type ``kind`` (same function, not ``node`` itself)."""
    return first(node, kind) is not None

"""The Python text of a random program of ``program_gen`` (its tree representation is described
there), and walking the tree."""
import ast

NODE_TAGS = frozenset({
    "num", "var", "bin", "neg", "call", "sg", "ifexp", "hcall", "tuple", "comp", "index",
    "cmp", "and", "or", "not", "truth", "bool",
    "assign", "aug", "unpack", "if", "for", "return", "helper", "program"})
EXPR_TAGS = frozenset({"num", "var", "bin", "neg", "call", "sg", "ifexp", "hcall", "comp",
                       "index"})
COMPREHENSIONS = {"list": "[{}]", "enum": "[{}]", "tuple": "tuple({})", "sum": "sum({})",
                  "sum_list": "sum([{}])"}
"""The forms of ``("comp", form, elt, var, range_args, index)``: a list or tuple comprehension
(indexed with ``index``, or whole where ``index`` is None: the right side of an unpacking), over
``range`` or ``enumerate(range(...))`` (``"enum"``), or a ``sum`` of a generator or a list."""
COND_TAGS = frozenset({"cmp", "and", "or", "not", "truth", "bool"})
STMT_TAGS = frozenset({"assign", "aug", "unpack", "if", "for", "return"})


def walk(node):
    """Every node of the tree, pre-order."""
    yield node
    for field in node[1:]:
        if is_node(field):
            yield from walk(field)
        elif isinstance(field, tuple):
            for item in field:
                if is_node(item):
                    yield from walk(item)


def is_node(value):
    return isinstance(value, tuple) and bool(value) and isinstance(value[0], str) and \
        value[0] in NODE_TAGS


def expr_source(e):
    tag = e[0]
    if tag == "num":
        return f"({e[1]!r})" if e[1] < 0 else repr(e[1])
    if tag == "var":
        return e[1]
    if tag == "bin":
        return f"({expr_source(e[2])} {e[1]} {expr_source(e[3])})"
    if tag == "neg":
        return f"(-{expr_source(e[1])})"
    if tag in ("call", "hcall"):
        return f"{e[1]}({', '.join(expr_source(a) for a in e[2])})"
    if tag == "sg":
        return f"stop_gradient({expr_source(e[1])})"
    if tag == "ifexp":
        return f"({expr_source(e[2])} if {cond_source(e[1])} else {expr_source(e[3])})"
    if tag == "comp":
        form, elt, var, bounds, index = e[1:]
        over = f"range({', '.join(map(str, bounds))})"
        over = f"_j, {var} in enumerate({over})" if form == "enum" else f"{var} in {over}"
        text = COMPREHENSIONS[form].format(f"{expr_source(elt)} for {over}")
        return text if index is None else f"{text}[{index}]"
    if tag == "index":  # (a, b)[i] or h0(a, b)[i]
        base = f"({expr_source(e[1])})" if e[1][0] == "tuple" else expr_source(e[1])
        return f"{base}[{e[2]}]"
    if tag == "tuple":
        return ", ".join(f"({expr_source(a)})" if a[0] == "tuple" else expr_source(a)
                         for a in e[1])
    raise AssertionError(e)


def cond_source(cnd):
    tag = cnd[0]
    if tag == "cmp":
        parts = [expr_source(cnd[2][0])]
        for op, operand in zip(cnd[1], cnd[2][1:]):
            parts += [op, expr_source(operand)]
        return "(" + " ".join(parts) + ")"
    if tag in ("and", "or"):
        return "(" + f" {tag} ".join(cond_source(p) for p in cnd[1]) + ")"
    if tag == "not":
        return f"(not {cond_source(cnd[1])})"
    if tag == "truth":
        return expr_source(cnd[1])
    if tag == "bool":
        return repr(cnd[1])
    raise AssertionError(cnd)


def block_source(stmts, indent):
    pad = "    " * indent
    lines = []
    for s in stmts:
        tag = s[0]
        if tag == "assign":
            lines.append(f"{pad}{s[1]} = {expr_source(s[2])}")
        elif tag == "aug":
            lines.append(f"{pad}{s[1]} {s[2]}= {expr_source(s[3])}")
        elif tag == "unpack":
            lines.append(f"{pad}{_target_source(s[1])} = {expr_source(s[2])}")
        elif tag == "return":
            lines.append(f"{pad}return {expr_source(s[1])}")
        elif tag == "for":
            lines.append(f"{pad}for {s[1]} in range({', '.join(map(str, s[2]))}):")
            lines += block_source(s[3], indent + 1)
        elif tag == "if":
            lines.append(f"{pad}if {cond_source(s[1])}:")
            lines += block_source(s[2], indent + 1)
            if s[3]:
                lines.append(f"{pad}else:")
                lines += block_source(s[3], indent + 1)
        else:
            raise AssertionError(s)
    return lines or [pad + "pass"]


def source(prog):
    """The module text of ``prog``: imports, helpers, then ``def f``; minimal parentheses."""
    lines = ["import math", "from symgrad import stop_gradient", ""]
    if any(n[0] == "call" and n[1].startswith("np.") for n in walk(prog)):
        lines.insert(1, "import numpy as np")
    for h in prog[2]:
        params = list(h[2])
        for k, d in enumerate(h[3]):
            params[len(params) - len(h[3]) + k] += f"={d!r}"
        lines += ["", f"def {h[1]}({', '.join(params)}):"] + block_source(h[4], 1) + [""]
    lines += ["", f"def f({', '.join(prog[1])}):"] + block_source(prog[3], 1)
    return ast.unparse(ast.parse("\n".join(lines))) + "\n"


def _target_source(names):
    """``a, (b, c)``: an unpacking target, nested tuples in parentheses."""
    return ", ".join(n if isinstance(n, str) else f"({_target_source(n)})" for n in names)

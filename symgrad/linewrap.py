"""The last step of ``emit``: an AST printed with ``astor``, and lines longer than ``LINE_WIDTH``
columns broken the way PEP 8 does (a string literal too long for its line is cut into adjacent
literals, which Python joins into the same value).
"""
import bisect
import io
import re
import tokenize
import warnings

LINE_WIDTH = 100


def to_source(node):
    """Print an AST with astor, then wrap lines longer than ``LINE_WIDTH`` columns (``wrap``).

    The one place astor is imported and called: astor 0.8.1 uses ``ast.Num`` and friends, deprecated
    since Python 3.12, so its DeprecationWarnings are silenced here and only here.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import astor
        source = astor.to_source(node, pretty_source="".join)  # one physical line per statement
    return "".join(wrap(line) for line in source.splitlines(keepends=True))


def wrap(line, width=LINE_WIDTH):
    """Break one statement longer than ``width`` the way PEP 8 does: inside parentheses (added
    around the right-hand side when needed), before a binary operator or after a comma, choosing
    the shallowest break that fits, or where none is in reach after an opening bracket;
    continuation lines indented 4 more (8 for a ``def``)."""
    if len(line.rstrip("\n")) <= width:
        return line
    text = line.rstrip("\n")
    indent = text[: len(text) - len(text.lstrip())]
    head, body = _split_statement(text.strip())
    if body is None:
        return line
    first = indent + head
    tokens = _break_points(body)
    positions = [pos for pos, _, _, _ in tokens]  # increasing: each line scans its own span only
    openings = _openings(body)
    more = indent + (" " * 8 if body.startswith("def ") or head == "if " else " " * 4)
    lines, start, prefix, carry = [], 0, first, ""  # carry: a cut literal's opening quote
    while len(prefix) + len(carry) + len(body) - start > width:
        room = width - len(prefix) - len(carry)
        fitting = [(depth, rank, -pos, pos, opening) for pos, depth, rank, opening in tokens[
            bisect.bisect_right(positions, start):bisect.bisect_right(positions, start + room)]
            if opening is None or pos < start + room]  # room for the closing quote
        full = [f for f in fitting if f[3] >= start + room // 2]  # fill at least half the line
        inside = [(depth, -pos, pos) for pos, depth in openings if start + 1 < pos <= start + room]
        if not fitting and inside:  # no comma nor operator in reach: after an opening bracket
            fitting = [(0, 0, 0, min(inside)[2], None)]  # (a lambda's body, a long call)
        if not fitting:  # a name longer than the room: break at the first place after it
            later = [(pos, opening) for pos, _, _, opening in tokens[
                bisect.bisect_right(positions, start):]]
            if start == 0 and body.startswith("(") and not body.startswith("def "):
                later = [(1, None)]  # right after the opening parenthesis
            if not later:
                break
            fitting = [(0, 0, 0, *min(later))]
        _, _, _, cut, opening = min(full or fitting)
        if opening is None:
            lines.append(prefix + carry + body[start:cut].rstrip())
            carry = ""
        else:  # inside a literal, after a space: two adjacent literals, one value
            lines.append(prefix + carry + body[start:cut] + opening[-1])
            carry = opening
        start, prefix = cut, more
        while not carry and start < len(body) and body[start] == " ":
            start += 1
    lines.append(prefix + carry + body[start:])
    return "\n".join(lines) + "\n"


def _split_statement(text):
    """(``"name = "``, ``"return "``, ``"if "`` or ``""`` for a def, the part that may be
    broken)."""
    if text.startswith("def ") or text.endswith(")") and text.split("(", 1)[0].replace(
            ".", "").isidentifier():  # a def, or a call as a statement: z.index_put_(...)
        return "", text
    if text.startswith("if ") and text.endswith(":"):  # a check: `if (...):`, the body below
        expression = text[len("if "):-1]
        if not (expression.startswith("(") and _closing(expression, 0) == len(expression) - 1):
            expression = f"({expression})"
        return "if ", expression + ":"
    if text.startswith("raise ") and text.endswith(")"):  # raise ValueError(...): its brackets
        return "raise ", text[len("raise "):]
    if text.startswith("return "):
        head, expression = "return ", text[len("return "):]
    elif _assigned(text) is not None:
        cut = _assigned(text)
        head, expression = text[:cut], text[cut:]
    else:
        return text, None
    if not (expression.startswith("(") and _closing(expression, 0) == len(expression) - 1):
        expression = f"({expression})"
    return head, expression


def _assigned(text):
    """Where the value starts in ``name = value``, ``name += value`` or ``name[index] = value``
    (``+=``, ``-=`` ...: a store into a buffer), or None for another statement."""
    name = re.match(r"[A-Za-z_]\w*", text)
    if name is None:
        return None
    end = name.end()
    if text[end:end + 1] == "[":
        end = _closing(text, end) + 1
        if end == 0:
            return None
    operator = re.match(r" (=|[-+*/@]=) ", text[end:])
    return end + operator.end() if operator else None


def _closing(text, opening):
    depth = 0
    for position, token in _tokens(text):
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
            if depth == 0 and position >= opening:
                return position
    return -1


def _tokens(text):
    """(position, token text) of each operator token of ``text`` (strings are skipped whole)."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.OP:
            yield token.start[1], token.string


_RANK = {",": 0, "if": 0, "else": 0, "and": 0, "or": 0, "+": 1, "-": 1}  # others (* / **): 2
_OPENING = re.compile(r"[rRbBuUfF]*(['\"])")


def _break_points(body):
    """(position, depth, rank, opening) where a line may start: before a binary operator or after
    a comma; a lower rank (a comma, then + and -) is a better place to break than * or /. The last
    choices (rank 3 after a clause, 4 after a word): after a space inside a plain string literal in brackets (no f-string, no
    triple quotes), cut into two adjacent literals; ``opening`` is then the literal's prefix and
    quote (None elsewhere)."""
    points, depth, previous = [], 0, None
    for token in tokenize.generate_tokens(io.StringIO(body).readline):
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.NL):
            continue
        string, position = token.string, token.start[1]
        if string in "([{" and token.type == tokenize.OP:
            depth += 1
        elif string in ")]}" and token.type == tokenize.OP:
            depth -= 1
        elif token.type == tokenize.OP and string in ("+", "-", "*", "/", "**", "%", "//") and (
                previous is not None and (previous.type in (tokenize.NAME, tokenize.NUMBER)
                                          or previous.string in ")]}")):
            points.append((position, depth, _RANK.get(string, 2), None))
        elif string == ",":
            points.append((position + 1, depth, 0, None))
        elif string in ("if", "else", "and", "or"):
            points.append((position, depth, 0, None))
        elif token.type == tokenize.STRING and depth > 0:
            points.extend(_literal_points(string, position, depth))
        previous = token
    return points


def _openings(body):
    """(position, depth) right after each opening bracket but the outermost: the last choice of
    a break, where no comma or operator is in reach (the shallowest, then the latest, is taken:
    ``x.map_blocks(`` before ``lambda _block: f(g(_block))``)."""
    found, depth = [], 0
    for position, token in _tokens(body):
        if token in "([{":
            depth += 1
            if depth > 1:
                found.append((position + 1, depth))
        elif token in ")]}":
            depth -= 1
    return found


def _literal_points(literal, position, depth):
    """The break points inside one string literal token: after each space that is not escaped
    (in an f-string, outside its replacement fields), leaving a character on each side."""
    opening = _OPENING.match(literal)
    if opening is None or literal[opening.end():opening.end() + 2] == opening.group(1) * 2:
        return []  # not a plain literal, or triple-quoted
    opening = opening.group(0)
    formatted = "f" in opening.lower()
    points, fields = [], 0
    for k in range(len(opening), len(literal) - 2):
        if formatted and literal[k] in "{}":
            fields += 1 if literal[k] == "{" else -1  # {{ and }} come back to 0
        elif literal[k] == " " and literal[k - 1] != "\\" and not fields and k > len(opening):
            rank = 3 if literal[k - 1] in ";,:" else 4  # after a clause, else after a word
            points.append((position + k + 1, depth, rank, opening))
    return points

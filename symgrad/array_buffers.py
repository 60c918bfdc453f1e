"""Working in place: the last step of printing an array gradient for NumPy (``reuse_buffers``).

As printed, every intermediate of an array gradient is a fresh array kept alive until the return,
where hand-written NumPy updates one or two working arrays in place. This pass rewrites the printed
body (straight-line code, every name bound once) in three steps, each keeping every value as it
was (the exceptions are said), then drops the lines that only name a buffer again
(``array_aliases``):

1. **inline** (``array_inline``) a name read once (one the code invents: an anonymous ``product``, an adjoint ``_dH``,
   a common term; never a parameter, a primal variable, a result or a stopped value) into the plain
   assignment that reads it, when only plain assignments lie between: ``H = np.tanh(b1 + X @ W1)``;
2. **reorder**: a plain assignment that is the last reader of a buffer another line could reuse is
   moved up, with what it needs, before that line (nothing between them writes what it reads);
3. **work in place**: ``t = e``, where ``e`` is elementwise (operators and ufuncs) over a *buffer
   that dies here* or a fresh array, of exactly ``t``'s static shape, is printed as that array
   updated in place: ``t = b``, ``t *= u``, ``np.subtract(1.0, t, out=t)``, ``np.exp(t, out=t)``
   (``np.rint(t, out=t)`` for ``np.round``: the same float, which NumPy's round computes with it).
   A buffer is an array this code allocated (the result of an operator, a ufunc, ``@``, a
   reduction, ``np.zeros``: never a parameter, a constant or a view of one: ``x[1:]``, ``x.T``,
   ``x[:, None]``, a name bound to another), float64, read by no later line, and its static shape
   equals the result's (a broadcast result is larger: never written into a smaller operand). The
   operations and their order are unchanged (``a + b`` and ``b + a`` are the same float), so a
   primal value is the float the primal computes. Only in a derivative line, a full-size product
   applied in place is applied factor by factor (``t *= w2; t *= r[:, None]``: a rounding apart,
   and no temporary of the full size). A new array (``X @ w``) is built on in place when a
   ufunc call or two or more operations follow (``r = X @ w; r += b; r -= y``), except in a
   result's line (parameter-sized, read best whole: ``2.0 * (X.T @ r) / n``); an elementwise part
   under a reduction or ``@`` is computed in a buffer that dies at that line
   (``_t1 *= _dz; _t1.sum(axis=0)``), when nothing else in the line reads it.

The first ``+=`` into a fresh ``np.zeros`` (or ``np.zeros_like``) buffer (an index adjoint) is
printed as a store, and a result sharing memory with an earlier one (``dy = dx``: equal gradients)
is a copy. Only parameters converted to float64 arrays (``x = np.asarray(x, dtype=float)``, or
``x.astype(float)`` for a Dask array) are known float64: every buffer is float64, and every operand
met on the way is checked to be bool, an integer or float64 (a float32 constant array is never
applied in place), so the in-place result has the dtype the plain expression has.
``array_facts.Facts`` holds what is known of each name and expression.

The *lazy* specialisation (``lazy=True``: some argument is a Dask array, which
``array_emit.conversions`` keeps) has one more rule. Dask allows ``t *= u`` and
``np.exp(t, out=t)`` when ``t`` is a Dask array, lazily, but not a NumPy buffer updated with a Dask
operand, nor ``out=`` for a function that is not a ufunc. So there a buffer is updated in place
only with operands computed from parameters its own value is computed from
(``array_facts.Sources``: if one of them is a Dask array, so is the buffer); ``np.round`` in
place is printed ``np.rint`` (the same values, a ufunc) in both. The NumPy specialisation has
every argument a NumPy array and needs no such rule.
"""
import ast
import copy

import numpy

from .array_aliases import without_aliases
from .array_facts import Facts, Sources, low_dtype, reads, ufunc_of
from .array_inline import first_stores, inline, plain as _plain
from .fence import dotted

_COMMUTATIVE = (ast.Add, ast.Mult)
_REFLECTED = {ast.Sub: "np.subtract", ast.Div: "np.divide", ast.Pow: "np.power"}
_ELEMENTWISE_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def reuse_buffers(body, prelude, shapes, dims, constants, inlinable=(), derivative=(),
                  results=(), lazy=False, elides=True):
    """The printed body ``body`` of an array gradient, rewritten to work in place.

    Args:
        body: the statements after the prelude, ending with the ``return`` (not modified).
        prelude: the statements before them (the ``np.asarray`` conversions are read here).
        shapes: name -> static shape (a tuple of SymPy dimensions) of each program symbol that has
            one; names missing are inferred from what they are assigned.
        dims: names of the size variables (``n``): 0-d integers.
        constants: name -> NumPy array, the constant arrays the code reads.
        inlinable: names the code invented (step 1 may remove them).
        derivative: names of derivative lines (step 3 may apply their products factor by factor).
        results: the names returned: a fresh operand is not rebuilt in place for these (they have
            their parameters' shapes, and read best as one line: ``2.0 * (X.T @ r) / n``).
        lazy: the code is the lazy specialisation (Dask arguments): the rule of
            ``array_facts.Sources``.
        elides: the library reuses a temporary operand itself (NumPy's temporary elision: ``b +
            X @ w`` adds into the product): one operation on a fresh array is then left as
            printed. False for PyTorch, which allocates every result.

    Returns:
        A new list of statements.
    """
    floats = {p.targets[0].id for p in prelude if _is_float_conversion(p)}
    if not floats or not _single_assignment(body):
        return list(body)
    low = set(floats) | set(dims) | {name for name, value in constants.items()
                                     if low_dtype(numpy.asarray(value).dtype)}
    state = _State(shapes, {d: () for d in dims}, floats, low, set(derivative), set(results),
                   Sources(floats) if lazy else None, elides)
    body = inline([copy.deepcopy(s) for s in body], set(inlinable), shapes)
    body = first_stores(body)
    body = state.run(body)
    arrays = {name for name, shape in state.shapes.items() if shape}
    return without_aliases(body, set(inlinable), arrays, join=elides and not lazy)


def _is_float_conversion(stmt):
    """``x = np.asarray(x, dtype=float)``, or ``array_emit.conversions``' ``x =
    np.asarray(x, dtype=float) if ... else x.astype(float)`` (float64 both ways)."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.IfExp):
        kept = stmt.value.orelse
        if not (isinstance(kept, ast.Call) and isinstance(kept.func, ast.Attribute) and
                kept.func.attr == "astype" and dotted(kept.func.value) == stmt.targets[0].id and
                len(kept.args) == 1 and dotted(kept.args[0]) == "float"):
            return False
        stmt = ast.Assign(stmt.targets, stmt.value.body)
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    return (dotted(call.func) == "np.asarray" and len(call.args) == 1 and
            isinstance(call.args[0], ast.Name) and call.args[0].id == stmt.targets[0].id and
            any(k.arg == "dtype" and isinstance(k.value, ast.Name) and k.value.id == "float"
                for k in call.keywords))


def _single_assignment(body):
    """Whether every name is bound once; ``t = float(t)`` (a scalar result made a float, unless it
    is a 0-d Dask array: ``array_emit.scalar_result_statements``) does not count."""
    seen = set()
    for stmt in _flat(body):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and \
                dotted(stmt.value.func) == "float" and len(stmt.value.args) == 1 and \
                dotted(stmt.value.args[0]) == dotted(stmt.targets[0]):
            continue
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if not isinstance(target, ast.Name) or target.id in seen:
                    return False
                seen.add(target.id)
    return True


def _flat(body):
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.With, ast.If)):
            yield from _flat(stmt.body)


def _name(name, store=False):
    return ast.Name(name, ast.Store() if store else ast.Load())


def _call(spelling, args, out=None):
    node = _name(spelling.split(".")[0])
    for part in spelling.split(".")[1:]:
        node = ast.Attribute(node, part, ast.Load())
    keywords = [] if out is None else [ast.keyword("out", _name(out))]
    return ast.Call(node, args, keywords)


# --- 2 and 3: reordering and working in place -------------------------------------------------
class _State(Facts):
    """The walk over the body: each line's plan, the lines moved, the lines printed."""

    def __init__(self, shapes, scalars, floats, low, derivative, results, sources=None,
                 elides=True):
        super().__init__(shapes, scalars, floats, low)
        self.derivative, self.results, self.sources = derivative, results, sources
        self.elides = elides
        self._reads = {}

    def record(self, target, value):
        if self.sources is not None:
            self.sources.record(target, value)
        super().record(target, value)

    def run(self, body):
        body = list(body)
        out, i, hoisted = [], 0, set()
        while i < len(body):
            stmt = body[i]
            if not _plain(stmt):
                for inner in _flat([stmt]):  # np.where allocates; else it may share memory
                    if isinstance(inner, ast.Assign) and isinstance(inner.targets[0], ast.Name):
                        name = inner.targets[0].id
                        shared = {name} if self.allocates(inner.value) else set()
                        for read in ([] if shared else reads(inner.value)):
                            shared |= self.buffer.get(read, set())
                        self.buffer[name] = shared
                        if self.sources is not None:
                            self.sources.record(name, inner.value)
                out.append(stmt)
                i += 1
                continue
            target = stmt.targets[0].id
            shape = self.shapes.get(target)
            if shape is None:
                shape = self.shape(stmt.value)
                self.shapes[target] = shape
            plan = None
            if shape:
                plan, moved = self.plan(stmt.value, shape, body, i, hoisted, target)
                if moved:  # readers of the buffer go first; come back to this line after them
                    body[i:i] = moved
                    continue
            if plan is None:  # the line as printed, its elementwise parts in dead buffers
                out.extend(self.inner(stmt, body, i, target))
            self.record(target, stmt.value)
            if plan is None:
                out.append(stmt)
            else:
                if isinstance(plan[0], ast.Name):  # the result lives in the leaf's buffer
                    self.buffer[target] |= self.buffer[plan[0].id]
                out.extend(self.emit(target, plan))
            i += 1
        return self.separate(out)

    def separate(self, out):
        """``out`` with each result that shares memory with an earlier one (``dy = dx``: two equal
        gradients) taken as a copy: every result is an array of its own."""
        if not out or not isinstance(out[-1], ast.Return) or out[-1].value is None:
            return out
        seen = set()
        for name in [n.id for n in ast.walk(out[-1].value) if isinstance(n, ast.Name)]:
            buffers = self.buffer.get(name, set())
            if buffers & seen and self.shapes.get(name) != ():
                for stmt in _flat(out):
                    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) \
                            and stmt.targets[0].id == name:
                        stmt.value = ast.Call(ast.Attribute(stmt.value, "copy", ast.Load()), [],
                                              [])
                buffers = {name}
                self.buffer[name] = buffers
            seen |= buffers
        return out

    # the plan of one line
    def plan(self, value, shape, body, i, hoisted, target=None):
        """``(plan, moved)``: how to compute ``value`` in place (None: as printed), or the later
        lines to move before line ``i`` first (the last readers of a buffer it could reuse)."""
        candidates = list(self.spines(value, shape, []))
        for leaf, path in candidates:
            if not isinstance(leaf, ast.Name):
                continue
            if not self.valid(leaf, path):
                continue
            later = [k for k in range(i + 1, len(body)) if self.shares(body[k], leaf.id)]
            if not later:
                return (leaf, path), []
            moved = self.hoistable(body, i, later, hoisted)
            if moved:
                return None, moved
        for leaf, path in candidates:
            if isinstance(leaf, ast.Name) or not path or target in self.results:
                continue
            # else NumPy elides it
            worth = not self.elides or len(path) > 1 or isinstance(path[0][0], ast.Call)
            if worth and self.valid(leaf, path):
                return (leaf, path), []
        return None, []

    def spines(self, node, shape, path):
        """Each ``(leaf, path)``: an operand that could hold the result, with the elementwise
        operations from it up to ``node`` (``(node, operand index)``, innermost first); names
        first, left to right."""
        operands = self.operands(node)
        if operands is not None:
            for k, operand in enumerate(operands):
                yield from self.spines(operand, shape, [(node, k)] + path)
        if isinstance(node, ast.Name):
            if node.id in self.fresh and self.is_float(node) and self.shapes.get(node.id) == shape:
                yield node, path
        elif path and self.allocates(node) and self.is_float(node) and self.shape(node) == shape:
            yield node, path

    def operands(self, node):
        """The operands of an elementwise operation that can be done in place, else None."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ELEMENTWISE_OPS):
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return [node.operand]
        if isinstance(node, ast.Call) and ufunc_of(node) is not None:
            return list(node.args)
        return None

    def valid(self, leaf, path):
        """Whether updating the leaf in place along ``path`` gives the same values and dtype:
        the other operands are bool, integers or float64 (in lazy code computed from the leaf's
        parameters only: ``Sources``), a power is only applied in place to its base, and after
        the first operation nothing reads the leaf's buffer."""
        buffers = self.buffer.get(leaf.id, set()) if isinstance(leaf, ast.Name) else set()
        for step, (node, k) in enumerate(path):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and k != 0:
                return False
            for j, other in enumerate(self.operands(node)):
                if j == k:
                    continue
                if not self.is_low(other) or self.sources is not None and not \
                        self.sources.allows(leaf, other):
                    return False
                if step and any(self.buffer.get(n, set()) & buffers for n in reads(other)):
                    return False
        return True

    def shares(self, stmt, name):
        buffers = self.buffer.get(name, set())
        return any(self.buffer.get(n, set()) & buffers for n in self.reads_of(stmt))

    def reads_of(self, stmt):
        """``reads(stmt)`` of a line not yet rewritten (a later line: it changes only when it is
        the line being placed, and is never a later line again), kept: each line is walked
        once, not once per earlier line (an unrolled loop of 40 steps has ~500 lines)."""
        found = self._reads.get(id(stmt))
        if found is None or found[0] is not stmt:
            found = self._reads[id(stmt)] = (stmt, reads(stmt))
        return found[1]

    def hoistable(self, body, i, later, hoisted):
        """The lines ``later`` (after line ``i``) and what they need from between, when they can
        all go before line ``i``: plain assignments only, none read what line ``i`` or a line left
        in place defines, and only plain assignments between."""
        last = max(later)
        if not all(_plain(s) for s in body[i:last + 1]):
            return None
        defined = {}  # name -> the lines from i on that assign it, in order
        for j in range(i, last + 1):
            defined.setdefault(body[j].targets[0].id, []).append(j)
        moving = set(later)
        for k in sorted(later, reverse=True):
            for name in self.reads_of(body[k]):
                for j in defined.get(name, ()):
                    if j < k:
                        if j == i:
                            return None
                        moving.add(j)
        changed = True
        while changed:  # what the moved lines need, transitively
            changed = False
            for k in sorted(moving):
                for name in self.reads_of(body[k]):
                    for j in defined.get(name, ()):
                        if j < k and j not in moving:
                            if j == i:
                                return None
                            moving.add(j)
                            changed = True
        if any(id(body[k]) in hoisted for k in moving):
            return None
        moved = [body[k] for k in sorted(moving)]
        for k in sorted(moving, reverse=True):
            del body[k]
        hoisted.update(id(s) for s in moved)
        return moved

    def inner(self, stmt, body, i, line):
        """The statements computing, in a buffer that dies at this line, each elementwise part
        of ``stmt`` under something else (``(_dz * _t1).sum(axis=0)``: ``_t1 *= _dz`` first); the
        part is replaced by the buffer's name in ``stmt``. Only when nothing else in the line
        reads the buffer."""
        before = []

        def visit(node, under_elementwise):
            operands = self.operands(node)
            shape = self.shape(node) if operands is not None and not under_elementwise else None
            if shape and node is not stmt.value:
                for leaf, path in self.spines(node, shape, []):
                    if not isinstance(leaf, ast.Name) or not self.valid(leaf, path):
                        continue
                    if any(self.shares(s, leaf.id) for s in body[i + 1:]):
                        continue
                    outside = reads(stmt.value)
                    for name in reads(node):
                        outside.remove(name)
                    if any(self.buffer.get(n, set()) & self.buffer.get(leaf.id, set())
                           for n in outside):
                        continue
                    before.extend(self.emit(leaf.id, (leaf, path), line))
                    return _name(leaf.id)
            for field, value in ast.iter_fields(node):
                if isinstance(value, ast.expr):
                    setattr(node, field, visit(value, operands is not None))
                elif isinstance(value, list):
                    setattr(node, field, [visit(v, operands is not None)
                                          if isinstance(v, ast.expr) else v for v in value])
            return node

        stmt.value = visit(stmt.value, False)
        return before

    def emit(self, target, plan, line=None):
        """The statements computing ``target`` in place along ``plan`` (in the line of ``line``,
        by default ``target``'s)."""
        leaf, path = plan
        line = target if line is None else line
        lines = []
        if not (isinstance(leaf, ast.Name) and leaf.id == target):
            lines.append(ast.Assign([_name(target, True)], leaf, lineno=None))
        buffers = self.buffer.get(leaf.id, set()) if isinstance(leaf, ast.Name) else set()
        for node, k in path:
            if isinstance(node, ast.BinOp):
                other = node.right if k == 0 else node.left
                # split into steps only what does not read the buffer (it changes in between)
                split = line in self.derivative and not any(
                    self.buffer.get(n, set()) & buffers for n in reads(other))
                if k == 0 or isinstance(node.op, _COMMUTATIVE):
                    lines.extend(self.augmented(target, node.op, other, split))
                else:
                    lines.append(ast.Expr(_call(_REFLECTED[type(node.op)],
                                                [other, _name(target)], target)))
            elif isinstance(node, ast.UnaryOp):
                lines.append(ast.Expr(_call("np.negative", [_name(target)], target)))
            else:
                args = [_name(target) if j == k else a for j, a in enumerate(node.args)]
                # np.round of a float array is np.rint (NumPy's own round calls it), without
                # the Python-level wrapper: a microsecond less per call
                func = _call("np.rint", []).func if dotted(node.func) == "np.round" else node.func
                lines.append(ast.Expr(ast.Call(func, args, [ast.keyword("out", _name(target))])))
        return lines

    def augmented(self, target, op, other, split):
        """``target op= other``; in a derivative line a full-size ``u * v`` (or ``u + v`` into a
        sum) is applied one operand at a time, with no full-size temporary."""
        shape = self.shapes.get(target)
        if split and isinstance(other, ast.BinOp) and self.shape(other) == shape:
            parts = None
            if isinstance(op, ast.Mult) and isinstance(other.op, (ast.Mult, ast.Div)):
                parts = [(op, other.left), (other.op, other.right)]
            elif isinstance(op, ast.Div) and isinstance(other.op, ast.Mult):
                parts = [(op, other.left), (op, other.right)]
            elif isinstance(op, ast.Add) and isinstance(other.op, (ast.Add, ast.Sub)):
                parts = [(op, other.left), (other.op, other.right)]
            elif isinstance(op, ast.Sub) and isinstance(other.op, ast.Add):
                parts = [(op, other.left), (op, other.right)]
            if parts is not None:
                return [line for o, part in parts
                        for line in self.augmented(target, o, part, split)]
        return [ast.AugAssign(_name(target, True), op, other)]



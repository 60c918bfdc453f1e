"""Working in place: the last step of printing an array gradient for NumPy (``reuse_buffers``).

As printed, every intermediate of an array gradient is a fresh array kept alive until the return,
where hand-written NumPy updates one or two working arrays in place. This pass rewrites the printed
body (straight-line code, every name bound once) in three steps, each keeping every value as it
was (the exceptions are said):

1. **inline** a name read once (one the code invents: an anonymous ``product``, an adjoint ``_dH``,
   a common term; never a parameter, a primal variable, a result or a stopped value) into the plain
   assignment that reads it, when only plain assignments lie between: ``H = np.tanh(b1 + X @ W1)``;
2. **reorder**: a plain assignment that is the last reader of a buffer another line could reuse is
   moved up, with what it needs, before that line (nothing between them writes what it reads);
3. **work in place**: ``t = e``, where ``e`` is elementwise (operators and ufuncs) over a *buffer
   that dies here* or a fresh array, of exactly ``t``'s static shape, is printed as that array
   updated in place: ``t = b``, ``t *= u``, ``np.subtract(1.0, t, out=t)``, ``np.exp(t, out=t)``.
   A buffer is an array this code allocated (the result of an operator, a ufunc, ``@``, a
   reduction, ``np.zeros``: never a parameter, a constant or a view of one: ``x[1:]``, ``x.T``,
   ``x[:, None]``, a name bound to another), float64, read by no later line, and its static shape
   equals the result's (a broadcast result is larger: never written into a smaller operand). The
   operations and their order are unchanged (``a + b`` and ``b + a`` are the same float), so a
   primal value is the float the primal computes. Only in a derivative line, a full-size product
   applied in place is applied factor by factor (``t *= w2; t *= r[:, None]``: a rounding apart,
   and no temporary of the full size). A fresh operand is only rebuilt in place when a ufunc call
   is on the way (NumPy already reuses the temporaries of operators on large arrays itself), or a
   buffer is reused.

The first ``+=`` into a fresh ``np.zeros`` (or ``np.zeros_like``) buffer (an index adjoint) is
printed as a store. Nothing here runs unless every parameter is converted to a float64 array first
(``x = np.asarray(x, dtype=float)``, or ``x.astype(float)`` for a Dask array): then every buffer is
float64, and every operand met on the way is a bool, an integer or float64 (checked), so the
in-place result has the dtype the plain expression has.

Dask arrays (``array_emit.conversions`` keeps them) allow ``t *= u`` and ``np.exp(t, out=t)`` when
``t`` is a Dask array, lazily, but not a NumPy buffer updated with a Dask operand, nor ``out=`` for
a function that is not a ufunc. So a buffer is updated in place only with operands computed from
parameters its own value is computed from (``sources``: if one of them is a Dask array, so is the
buffer), and ``np.round`` in place is printed ``np.rint`` (the same values, a ufunc).
"""
import ast
import copy

import numpy

from .shapes import ONE

_REDUCTIONS = frozenset({"sum", "max", "min", "prod", "mean"})
_ALLOCATING_CALLS = frozenset({"np.where", "np.zeros", "np.ones", "np.concatenate", "np.stack",
                               "np.clip", "np.round", "np.cumsum", "np.outer"})
_NUMPY_CONSTRUCTORS = frozenset({"np.zeros", "np.ones", "np.full", "np.eye", "np.arange",
                                 "np.array"})
_COMMUTATIVE = (ast.Add, ast.Mult)
_REFLECTED = {ast.Sub: "np.subtract", ast.Div: "np.divide", ast.Pow: "np.power"}
_ELEMENTWISE_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def reuse_buffers(body, prelude, shapes, dims, constants, inlinable=(), derivative=(), results=()):
    """The printed body ``body`` of an array gradient rewritten to work in place (module text).

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

    Returns:
        A new list of statements.
    """
    floats = {p.targets[0].id for p in prelude if _is_float_conversion(p)}
    if not floats or not _single_assignment(body):
        return list(body)
    low = set(floats) | set(dims) | {name for name, value in constants.items()
                                     if _low_dtype(numpy.asarray(value).dtype)}
    state = _State(shapes, {d: () for d in dims}, floats, low, set(derivative), set(results))
    body = _inline([copy.deepcopy(s) for s in body], set(inlinable), shapes)
    body = _stores(body)
    return state.run(body)


def _is_float_conversion(stmt):
    """``x = np.asarray(x, dtype=float)``, or ``array_emit.conversions``' ``x =
    np.asarray(x, dtype=float) if ... else x.astype(float)`` (float64 both ways)."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.IfExp):
        kept = stmt.value.orelse
        if not (isinstance(kept, ast.Call) and isinstance(kept.func, ast.Attribute) and
                kept.func.attr == "astype" and _dotted(kept.func.value) == stmt.targets[0].id and
                len(kept.args) == 1 and _dotted(kept.args[0]) == "float"):
            return False
        stmt = ast.Assign(stmt.targets, stmt.value.body)
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    return (_dotted(call.func) == "np.asarray" and len(call.args) == 1 and
            isinstance(call.args[0], ast.Name) and call.args[0].id == stmt.targets[0].id and
            any(k.arg == "dtype" and isinstance(k.value, ast.Name) and k.value.id == "float"
                for k in call.keywords))


def _low_dtype(dtype):
    """bool, an integer or float64: what meets a float64 array and leaves it float64."""
    return dtype.kind in "biu" or dtype == numpy.float64


def _single_assignment(body):
    seen = set()
    for stmt in _flat(body):
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


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _reads(node):
    """Names read by a statement or expression (an augmented target is read too)."""
    found = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        found.append(node.target.id)
    return found


def _plain(stmt):
    """An assignment of a name at the top level (the only statements moved or merged)."""
    return isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)


def _name(name, store=False):
    return ast.Name(name, ast.Store() if store else ast.Load())


def _call(dotted, args, out=None):
    node = _name(dotted.split(".")[0])
    for part in dotted.split(".")[1:]:
        node = ast.Attribute(node, part, ast.Load())
    keywords = [] if out is None else [ast.keyword("out", _name(out))]
    return ast.Call(node, args, keywords)


def _ufunc(call):
    """The NumPy ufunc an ``np.f(...)`` call is (positional arguments only), else None."""
    name = _dotted(call.func)
    if call.keywords or name is None or not name.startswith("np.") or name.count(".") != 1:
        return None
    found = getattr(numpy, name[3:], None)
    if isinstance(found, numpy.ufunc) and found.nout == 1 and found.nin == len(call.args):
        return found
    if name == "np.round" and len(call.args) == 1:
        return numpy.round
    return None


# --- 1. inlining ------------------------------------------------------------------------------
def _inline(body, inlinable, shapes):
    changed = True
    while changed:
        changed = False
        counts = {}
        for stmt in body:
            for name in _reads(stmt):
                counts[name] = counts.get(name, 0) + 1
        for i, stmt in enumerate(body):
            if not _plain(stmt) or stmt.targets[0].id not in inlinable:
                continue
            name = stmt.targets[0].id
            if counts.get(name) != 1:
                continue
            j = next(k for k in range(i + 1, len(body)) if name in _reads(body[k]))
            if not all(_plain(s) for s in body[i + 1:j + 1]) or not _on_spine(body[j].value,
                                                                               name):
                continue
            if name in shapes:  # what the program knows of the value goes with it
                stmt.value.symgrad_shape = shapes[name]
            body[j] = _Substitute(name, stmt.value).visit(body[j])
            del body[i]
            changed = True
            break
    return body


def _on_spine(node, name):
    """Whether ``name`` is read in ``node`` through elementwise operations only (where the
    line could still be computed in place), not inside ``@``, a reduction or a call."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        return _on_spine(node.left, name) or _on_spine(node.right, name)
    if isinstance(node, ast.UnaryOp):
        return _on_spine(node.operand, name)
    if isinstance(node, ast.Call) and _ufunc(node) is not None:
        return any(_on_spine(a, name) for a in node.args)
    return False


class _Substitute(ast.NodeTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.value)
        return node


def _stores(body):
    """The first ``z[i] += g`` right after ``z = np.zeros(shape)`` (or ``np.zeros_like(p,
    shape=...)``) as ``z[i] = g``."""
    out = []
    for stmt in body:
        previous = out[-1] if out else None
        if (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and
                isinstance(stmt.target, ast.Subscript) and
                isinstance(stmt.target.value, ast.Name) and _plain(previous) and
                previous.targets[0].id == stmt.target.value.id and
                isinstance(previous.value, ast.Call) and
                _dotted(previous.value.func) in ("np.zeros", "np.zeros_like") and
                stmt.target.value.id not in _reads(stmt.value)):
            out.append(ast.Assign([stmt.target], stmt.value, lineno=None))
            continue
        out.append(stmt)
    return out


# --- 2 and 3: reordering and working in place -------------------------------------------------
class _State:
    """What is known of each name while the body is walked in order."""

    def __init__(self, shapes, scalars, floats, low, derivative, results):
        self.shapes = dict(shapes)
        self.shapes.update(scalars)
        for name in floats:
            self.shapes.setdefault(name, ())
        self.floats = set(floats)  # names holding a float64 array (rank >= 1) or a float64 value
        self.low = set(low)  # names of dtype bool, an integer or float64
        self.derivative, self.results = derivative, results
        self.buffer = {}  # name -> the set of buffers (names that allocated) it may share memory with
        self.fresh = set()  # names that allocated their buffer
        self.sources = {name: {name} for name in floats}  # name -> the parameters it is computed from

    def run(self, body):
        body = list(body)
        out, i, hoisted = [], 0, set()
        while i < len(body):
            stmt = body[i]
            if not _plain(stmt):
                for inner in _flat([stmt]):  # may share memory with anything it reads
                    if isinstance(inner, ast.Assign) and isinstance(inner.targets[0], ast.Name):
                        shared = set()
                        for name in _reads(inner.value):
                            shared |= self.buffer.get(name, set())
                        self.buffer[inner.targets[0].id] = shared
                        self.sources[inner.targets[0].id] = self.sources_of(inner.value)
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
        return out

    # facts about names and expressions
    def sources_of(self, node):
        """The parameters ``node`` is computed from (not through ``.shape``: a size is an int).
        A constructor (``np.zeros(shape)``, ``np.full``) makes a NumPy array whatever its
        arguments: none."""
        if isinstance(node, ast.Call) and _dotted(node.func) in _NUMPY_CONSTRUCTORS:
            return set()
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim", "dtype"):
            return set()
        if isinstance(node, ast.Name):
            return set(self.sources.get(node.id, ()))
        found = set()
        for child in ast.iter_child_nodes(node):
            found |= self.sources_of(child)
        return found

    def record(self, target, value):
        self.sources[target] = self.sources_of(value)
        if self.is_float(value):
            self.floats.add(target)
        if self.is_low(value):
            self.low.add(target)
        if self.allocates(value):
            self.buffer[target] = {target}
            self.fresh.add(target)
        else:  # a name, a view, anything else: may share memory with what it reads
            shared = set()
            for name in _reads(value):
                shared |= self.buffer.get(name, set())
            self.buffer[target] = shared

    def shape(self, node):
        """The static shape of a printed expression, or None when not known here."""
        if hasattr(node, "symgrad_shape"):
            return node.symgrad_shape
        if isinstance(node, ast.Name):
            return self.shapes.get(node.id)
        if isinstance(node, ast.Constant):
            return ()
        if isinstance(node, ast.UnaryOp):
            return self.shape(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = self.shape(node.left), self.shape(node.right)
            if isinstance(node.op, ast.MatMult):
                return _matmul(left, right)
            return _broadcast(left, right)
        if isinstance(node, ast.Attribute) and node.attr == "T":
            inner = self.shape(node.value)
            return None if inner is None else tuple(reversed(inner))
        if isinstance(node, ast.Subscript):
            return self.expanded(node)
        if isinstance(node, ast.Call):
            if _ufunc(node) is not None:
                return _broadcast(*[self.shape(a) for a in node.args])
            if _dotted(node.func) == "np.where" and len(node.args) == 3:
                return _broadcast(*[self.shape(a) for a in node.args])
            if isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS:
                return self.reduced(node)
        return None

    def expanded(self, node):
        """``x[:, None]``, ``x[None]``: the shape of ``x`` with size-1 axes put in."""
        inner = self.shape(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if inner is None:
            return None
        shape, k = [], 0
        for item in items:
            if isinstance(item, ast.Constant) and item.value is None:
                shape.append(ONE)
            elif isinstance(item, ast.Slice) and item.lower is None and item.upper is None and \
                    item.step is None and k < len(inner):
                shape.append(inner[k])
                k += 1
            else:
                return None
        return tuple(shape) + tuple(inner[k:])

    def reduced(self, node):
        inner = self.shape(node.func.value)
        if inner is None or node.args:
            return None
        keywords = {k.arg: k.value for k in node.keywords}
        if set(keywords) - {"axis", "keepdims"}:
            return None
        axis = keywords.get("axis")
        if axis is None:
            axes = set(range(len(inner)))
        else:
            items = axis.elts if isinstance(axis, ast.Tuple) else [axis]
            if not all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in items):
                return None
            axes = {a.value % len(inner) for a in items} if inner else set()
        keep = keywords.get("keepdims")
        keep = isinstance(keep, ast.Constant) and keep.value is True
        return tuple(ONE if k in axes else d for k, d in enumerate(inner)
                     if keep or k not in axes)

    def allocates(self, node):
        """Whether evaluating ``node`` makes a new array (never a view of another)."""
        if isinstance(node, ast.BinOp) or isinstance(node, ast.UnaryOp) and isinstance(
                node.op, ast.USub):
            return True
        if isinstance(node, ast.Call):
            if _ufunc(node) is not None or _dotted(node.func) in _ALLOCATING_CALLS:
                return not node.keywords or _dotted(node.func) == "np.where"
            return isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS
        return False

    def is_float(self, node):
        """Whether ``node`` is surely a float64 array of rank >= 1 (or a float64 number)."""
        if isinstance(node, ast.Name):
            return node.id in self.floats
        if isinstance(node, ast.BinOp):  # float64 with int, bool or float64: float64
            return self.is_float(node.left) and self.is_low(node.right) or \
                self.is_float(node.right) and self.is_low(node.left)
        if isinstance(node, ast.UnaryOp):
            return self.is_float(node.operand)
        if isinstance(node, ast.Subscript) or isinstance(node, ast.Attribute) and node.attr == "T":
            return self.is_float(node.value) and self.is_low(node)  # a view, or a gather
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in ("np.zeros", "np.ones") and not node.keywords:
                return True
            if name == "np.where" and len(node.args) == 3:
                return self.is_float(node.args[1]) or self.is_float(node.args[2])
            if _ufunc(node) is not None:
                return any(self.is_float(a) for a in node.args) and self.is_low(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS:
                return self.is_float(node.func.value)
        return False

    def is_low(self, node):
        """Whether ``node`` is surely of dtype bool, an integer or float64 (Python numbers too)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and not isinstance(n.value, (bool, int, float)) and \
                    n.value is not None:
                return False
        called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
        return all(n.id in self.low or n.id == "np" for n in ast.walk(node)
                   if isinstance(n, ast.Name) and id(n) not in called)

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
            worth = len(path) > 1 or isinstance(path[0][0], ast.Call)  # else NumPy elides it
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
        if isinstance(node, ast.Call) and _ufunc(node) is not None:
            return list(node.args)
        return None

    def valid(self, leaf, path):
        """Whether updating the leaf in place along ``path`` gives the same values and dtype:
        the other operands are bool, integers or float64, computed from the leaf's parameters
        only (a Dask operand never meets a NumPy buffer), a power is only applied in place to its
        base, and after the first operation nothing reads the leaf's buffer."""
        buffers = self.buffer.get(leaf.id, set()) if isinstance(leaf, ast.Name) else set()
        sources = self.sources_of(leaf)
        for step, (node, k) in enumerate(path):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and k != 0:
                return False
            for j, other in enumerate(self.operands(node)):
                if j == k:
                    continue
                if not self.is_low(other) or not self.sources_of(other) <= sources:
                    return False
                if step and any(self.buffer.get(n, set()) & buffers for n in _reads(other)):
                    return False
        return True

    def shares(self, stmt, name):
        buffers = self.buffer.get(name, set())
        return any(self.buffer.get(n, set()) & buffers for n in _reads(stmt))

    def hoistable(self, body, i, later, hoisted):
        """The lines ``later`` (after line ``i``) and what they need from between, when they can
        all go before line ``i``: plain assignments only, none read what line ``i`` or a line left
        in place defines, and only plain assignments between."""
        last = max(later)
        if not all(_plain(s) for s in body[i:last + 1]):
            return None
        moving = set(later)
        for k in sorted(later, reverse=True):
            for name in _reads(body[k]):
                for j in range(i, k):
                    if body[j].targets[0].id == name:
                        if j == i:
                            return None
                        moving.add(j)
        changed = True
        while changed:  # what the moved lines need, transitively
            changed = False
            for k in sorted(moving):
                for name in _reads(body[k]):
                    for j in range(i, k):
                        if body[j].targets[0].id == name and j not in moving:
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
                    outside = _reads(stmt.value)
                    for name in _reads(node):
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
                    self.buffer.get(n, set()) & buffers for n in _reads(other))
                if k == 0 or isinstance(node.op, _COMMUTATIVE):
                    lines.extend(self.augmented(target, node.op, other, split))
                else:
                    lines.append(ast.Expr(_call(_REFLECTED[type(node.op)],
                                                [other, _name(target)], target)))
            elif isinstance(node, ast.UnaryOp):
                lines.append(ast.Expr(_call("np.negative", [_name(target)], target)))
            else:  # np.round has no out= on Dask: np.rint is the same rounding, a ufunc
                args = [_name(target) if j == k else a for j, a in enumerate(node.args)]
                func = _call("np.rint", []).func if _dotted(node.func) == "np.round" else node.func
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


def _broadcast(*shapes):
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(-rank, 0):
        found = ONE
        for s in shapes:
            if len(s) < -axis or s[axis] == ONE:
                continue
            if found == ONE:
                found = s[axis]
            elif found != s[axis]:
                return None
        result.append(found)
    return tuple(result)


def _matmul(a, b):
    if a is None or b is None or not 1 <= len(a) <= 2 or not 1 <= len(b) <= 2:
        return None
    return tuple(a[:-1]) + tuple(b[1:])

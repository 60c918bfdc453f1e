"""Working in place for PyTorch: the NumPy pass (``array_buffers``) run on a torch body.

PyTorch tensors are mutable and every elementwise function takes ``out=``, so the rewrite that
makes a NumPy gradient update one or two working arrays in place (``t += b``, ``np.tanh(t,
out=t)``, ``np.subtract(1.0, t, out=t)``) applies to PyTorch as well, and pays more there:
PyTorch's CPU allocator returns large blocks to the system, so every fresh temporary of the
full size is paid again in page faults (at 50000 x 128 float64, ``b1 + X @ W1`` costs as much as
the product). ``torch_in_place`` spells the torch body the NumPy way (the elementwise functions
of ``rules.RULES`` whose NumPy spelling is a ufunc, ``x.amax`` as ``x.max``), runs
``array_emit.in_place`` on it and spells the result back (``np.subtract`` as ``torch.sub``,
``np.rint`` as ``torch.round``, ``.copy()`` as ``.clone()``). It leaves the body as printed when
anything in it is not spelled back, or when a line would update a tensor with an operand that
overlaps it (``t *= t.T``: PyTorch refuses overlapping in-place operands, NumPy copies them).

dtypes: the NumPy pass updates a buffer in place only with operands of the buffer's dtype or
lower (it knows every NumPy parameter is float64). A torch parameter keeps its dtype, so the pass
is told that only the array parameters (rank >= 1) are floats, and when a line updates a buffer
with another array, the generated code first gives every array parameter one dtype, the widest
(``torch.promote_types``; ``.to`` of the dtype a tensor has is the tensor): float32 data stay float32, and mixed float32 and
float64 arrays compute in float64, as PyTorch's own type promotion computes an operation of the
two. 0-d parameters (a bias ``b``, a hyperparameter) are left as they are and never meet a buffer
in place (a 0-d tensor does not promote an array of its kind).
"""
import ast
import copy

import numpy

from .array_emit import in_place
from .backends import backend
from .fence import dotted
from .printer import dotted_name
from .program import fresh_name
from .rules import RULES, spelling

# the functions the NumPy pass prints in place, beyond the elementwise rows, as PyTorch spells them
_BACK = {"np.subtract": "torch.sub", "np.divide": "torch.div", "np.power": "torch.pow",
         "np.negative": "torch.neg", "np.rint": "torch.round", "np.where": "torch.where",
         "np.zeros": "torch.zeros"}
_METHODS = {"amax": "max", "amin": "min"}  # torch method -> NumPy method (read back inverted)


def _elementwise():
    """torch spelling -> NumPy spelling of every elementwise row whose NumPy function is a ufunc
    (``torch.tanh`` -> ``np.tanh``, ``torch.pow`` -> ``np.power``)."""
    torch = backend("torch")
    found = {}
    for rule in RULES:
        name = spelling(rule, "numpy")
        printed = spelling(rule, "torch")
        if not name or not printed or not name.startswith("np.") or name.count(".") != 1:
            continue
        ufunc = getattr(numpy, name[3:], None)
        if isinstance(ufunc, numpy.ufunc) and ufunc.nout == 1 or name == "np.round":
            found.setdefault(torch.spelling(printed), name)
    found.update({"torch.where": "np.where", "torch.zeros": "np.zeros"})
    return found


_FORWARD = None


def _forward():
    global _FORWARD
    if _FORWARD is None:
        _FORWARD = _elementwise()
    return _FORWARD


class _Respell(ast.NodeTransformer):
    """Calls respelled through ``names`` (dotted function -> dotted function) and ``methods``
    (method name -> method name); ``self.stray``: a name of ``stray_prefix`` left unmapped."""

    def __init__(self, names, methods, stray_prefix):
        self.names, self.methods, self.prefix, self.stray = names, methods, stray_prefix, False

    def visit_Call(self, node):
        self.generic_visit(node)
        name = dotted(node.func)
        if name in self.names:
            node.func = ast.copy_location(dotted_name(self.names[name]), node.func)
        elif name is not None and name.startswith(self.prefix):
            self.stray = True
        elif isinstance(node.func, ast.Attribute) and node.func.attr in self.methods:
            node.func.attr = self.methods[node.func.attr]
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "np" and \
                f"np.{node.attr}" not in self.names and self.prefix == "np.":
            self.stray = True
        return node


def integer_names(program):
    """The names ``program`` binds to tensors of integers (``torch.arange(n)``, ``torch.argmax``,
    triangle indices, ``stop_gradient`` of one): what indexes, and what the printer reads as
    ``steps.to(X.dtype)`` where it computes with it (``printer.integer_names``): PyTorch computes
    an int tensor times a Python float in its default dtype, float32 (NumPy: float64)."""
    from .array_indexing import ARANGE, TRI_INDICES
    from .array_values import ARGMAX, ARGMIN, ARGSORT
    from .functions import StopGradient
    kinds = tuple(rule.node for rule in (ARGMAX, ARGMIN, ARGSORT, TRI_INDICES))
    found = set()
    for a in program.assignments:
        expr = getattr(a, "expr", None)
        if isinstance(expr, StopGradient):
            expr = expr.args[0]
        if isinstance(expr, kinds) or expr in found or isinstance(expr, ARANGE.node) and \
                integer_steps(expr):
            found.add(a.target)
    return {s.name for s in found}


def integer_steps(node):
    """Whether the ``np.arange`` node ``node`` counts in ints (an int tensor in PyTorch)."""
    return all(v.is_integer for v in node.params)


def torch_in_place(program, body, arrays, results, stops, invented):
    """``body`` (a printed torch gradient after its prologue, ending with its ``return``) rewritten
    to work in place, or ``body`` itself when nothing changes or the rewrite cannot be spelled in
    PyTorch.

    Args:
        program: the derivative ``Program`` (its shape table, names).
        body: the statements (not modified).
        arrays: the names of the parameters that are arrays of rank >= 1, in parameter order.
        results, stops, invented: as ``array_emit.in_place``.

    Returns:
        A list of statements: when a line updates a buffer with another array, it starts with the
        parameters' dtype made one (``dtype_lines``).
    """
    if not arrays:
        return list(body)
    forward = _forward()
    if any(isinstance(n, ast.Name) and n.id == "np" for s in body for n in ast.walk(s)):
        return list(body)
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
           n.func.attr in ("max", "min", "copy") for s in body for n in ast.walk(s)):
        return list(body)  # ``.max`` is kept for the spelling of ``amax``
    spelled = _Respell(forward, _METHODS, "\0")
    numpy_body = [spelled.visit(copy.deepcopy(s)) for s in body]
    prelude = [ast.Assign([ast.Name(p, ast.Store())], ast.Call(
        dotted_name("np.asarray"), [ast.Name(p, ast.Load())],
        [ast.keyword("dtype", ast.Name("float", ast.Load()))]), lineno=None) for p in arrays]
    rewritten = in_place(program, numpy_body, prelude, results, stops, invented,
                         elides=False)
    back = dict(_BACK)
    back.update({n: t for t, n in forward.items() if n not in back})
    respelled = _Respell(back, {**{n: m for m, n in _METHODS.items()}, "copy": "clone"}, "np.")
    rewritten = [respelled.visit(s) for s in rewritten]
    if respelled.stray or _overlapping(rewritten):
        return list(body)
    if ast.dump(ast.Module(rewritten, [])) == ast.dump(ast.Module(list(body), [])):
        return list(body)
    if _meets_arrays(rewritten, set(arrays)):
        taken = {n.id for s in rewritten for n in ast.walk(s) if isinstance(n, ast.Name)}
        taken |= set(program.param_names)
        return dtype_lines(arrays, fresh_name("dtype", taken), fresh_name("array", taken)) + \
            rewritten
    return rewritten


def dtype_lines(arrays, widest="dtype", each="array"):
    """The parameters ``arrays`` converted to their widest dtype, computed in the name ``widest``:
    ``dtype = torch.promote_types(X.dtype, w.dtype)`` for two or three parameters, a loop over the
    others (each in the name ``each``) for more, then ``X, w = X.to(dtype), w.to(dtype)`` (``.to``
    of a tensor's own dtype is the tensor itself, no copy); nothing for one parameter."""
    if len(arrays) < 2:
        return []

    def name(text, store=False):
        return ast.Name(text, ast.Store() if store else ast.Load())

    def promoted(dtype, p):
        return ast.Call(dotted_name("torch.promote_types"), [
            dtype, ast.Attribute(name(p), "dtype", ast.Load())], [])
    first = ast.Attribute(name(arrays[0]), "dtype", ast.Load())
    if len(arrays) <= 3:
        dtype = first
        for p in arrays[1:]:
            dtype = promoted(dtype, p)
        lines = [ast.Assign([name(widest, True)], dtype, lineno=None)]
    else:
        lines = [ast.Assign([name(widest, True)], first, lineno=None), ast.For(
            name(each, True), ast.Tuple([name(p) for p in arrays[1:]], ast.Load()), [
                ast.Assign([name(widest, True)], promoted(name(widest), each), lineno=None)],
            [], lineno=None)]
    converted = ast.Assign(
        [ast.Tuple([name(p, True) for p in arrays], ast.Store())],
        ast.Tuple([ast.Call(ast.Attribute(name(p), "to", ast.Load()), [name(widest)], [])
                   for p in arrays], ast.Load()), lineno=None)
    return lines + [converted]


def _in_place_statements(body):
    """``(target, operands)`` of each statement updating a name in place: ``t op= u`` and
    ``f(..., out=t)`` (the operands: every argument but the written one)."""
    for stmt in body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            yield stmt.target.id, [stmt.value]
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            out = [k.value for k in stmt.value.keywords if k.arg == "out"]
            if out and isinstance(out[0], ast.Name):
                target = out[0].id
                yield target, [a for a in stmt.value.args
                               if not (isinstance(a, ast.Name) and a.id == target)]


_ALLOCATING_METHODS = frozenset({"sum", "amax", "amin", "mean", "prod", "clone"})


def _allocates(node):
    """Whether ``node`` surely makes a new tensor (an operator, an elementwise function of the
    table, ``torch.where``, a reduction), never a view of what it reads."""
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)):
        return True
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        if name in _forward() or name in _BACK.values():
            return True
        return isinstance(node.func, ast.Attribute) and node.func.attr in _ALLOCATING_METHODS
    return False


class _Aliases:
    """For the plain assignments of a body, in order: ``root``, the name a name is bound to
    through plain renamings (``_dproduct = H``: the same tensor), and ``viewed``, the roots whose
    memory a name may be a view of (``u = t.T``, ``u = x[1:]``, ``u = t.reshape(...)``)."""

    def __init__(self, body):
        self.roots, self.views = {}, {}
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name):
                name, value = stmt.targets[0].id, stmt.value
                if isinstance(value, ast.Name):
                    self.roots[name] = self.root(value.id)
                    self.views[name] = self.viewed(value.id)
                elif _allocates(value):
                    self.roots[name], self.views[name] = name, set()
                else:
                    found = set()
                    for n in ast.walk(value):
                        if isinstance(n, ast.Name):
                            found |= {self.root(n.id)} | self.viewed(n.id)
                    self.roots[name], self.views[name] = name, found

    def root(self, name):
        return self.roots.get(name, name)

    def viewed(self, name):
        return self.views.get(name, set())


def _overlapping(body):
    """Whether a line updates a tensor in place with an operand that may overlap it without being
    it (``t *= t.T``, ``t *= u`` with ``u = t[::-1]``): PyTorch raises on those (the very same
    tensor, ``t *= t``, is allowed)."""
    aliases = _Aliases(body)
    for target, operands in _in_place_statements(body):
        mine = aliases.root(target)
        for operand in operands:
            if _views_of(operand, mine, aliases, whole=True):
                return True
    return False


def _views_of(node, root, aliases, whole):
    """Whether ``node``, an operand of an update of the tensor ``root``, reads a view of it
    (``whole``: ``node`` itself is the operand, where the tensor itself is allowed). A new tensor
    (``2.0 * t.T``) is computed before the update and holds no view."""
    if isinstance(node, ast.Name):
        return root in aliases.viewed(node.id) or not whole and aliases.root(node.id) == root
    if isinstance(node, ast.Attribute) and node.attr in ("shape", "dtype", "device"):
        return False
    if _allocates(node):
        return False
    return any(_views_of(child, root, aliases, False) for child in ast.iter_child_nodes(node)
               if isinstance(child, ast.expr))


def _meets_arrays(body, arrays):
    """Whether a line updates a buffer in place with an operand that reads an array (anything but
    numbers and sizes): the dtypes must then be one."""
    assigned = {s.targets[0].id for s in body if isinstance(s, ast.Assign) and
                isinstance(s.targets[0], ast.Name)}
    for target, operands in _in_place_statements(body):
        for operand in operands:
            if any(isinstance(n, ast.Name) and (n.id in arrays or n.id in assigned) and
                   n.id != target for n in ast.walk(operand)):
                return True
    return False

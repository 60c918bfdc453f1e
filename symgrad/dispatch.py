"""The fast path of a repeated call of an array gradient: a guard made for the last call's arguments.

``specialise.Specialisations`` finds the build for a call's library kind and pattern; once a call
has returned, ``guard`` makes a function (``call``) that an ``ArrayGradientFunction`` calls
directly (its ``functools.partial`` target) until a call differs: it takes the generated
function's parameters (so it binds a call as that function does), tests that the call gives the
same ones, each of exactly the same type, each array of exactly the same shape, and calls the
build; any other call goes the long way (``slow``). The guard is a function of its own
parameters (not ``*args`` mapped through ``getattr``): about 0.25 us for two arguments where
two tuples built in C and compared cost about 0.8 us.

``unchecked`` is the build's own code without what a repeated call has already proved: the
``np.asarray(X, dtype=float)`` of an argument that is a float64 NumPy array (it returns ``X``
itself) and the size checks (``if y.shape[0] != n: raise ValueError(...)``), which read only the
arguments' shapes and passed for these shapes and types. Its lines are the build's (same file name,
same line numbers), so a traceback shows the lines of ``.source``.
"""
import ast
import functools

import numpy

FLOAT64 = numpy.dtype(float)
_SAFE = (float, int, bool)
"""Types (besides NumPy arrays and scalars) whose ``np.asarray(v, dtype=float)`` has a shape that
the type alone gives (``()``): a repeated call of these types and shapes passes the size checks
the first passed."""

_FACTORIES = {}  # (count, shaped positions, float64 positions) -> compiled factory


def converted_shape_known(kind):
    """Whether ``np.asarray(v, dtype=float).shape`` is ``v.shape`` (``()`` for a number) for
    every value ``v`` of type ``kind``: an exact NumPy array, a NumPy scalar, a Python number."""
    return kind is numpy.ndarray or kind in _SAFE or issubclass(kind, numpy.generic)


def guard(args, names, function, slow, float64=(), posonly=0):
    """The function an ``ArrayGradientFunction`` calls after a call with ``args`` has returned.

    It takes the parameters ``names`` (the generated function's first ``len(args)``, so a call
    binds positional and keyword arguments as that function does) and calls ``function`` with
    them when the call gives each of them and nothing else, each of exactly its type in
    ``args``, each array (a value with ``shape``) of exactly its shape there, and those at the
    positions ``float64`` float64 NumPy arrays (``dtype is FLOAT64``); any other call goes to
    ``slow`` as it was made (``_passed``). Its first ``posonly`` parameters are positional-only,
    as the generated function's (a keyword for one goes to ``slow``, which raises TypeError)."""
    types = [type(a) for a in args]
    shaped = tuple(i for i, a in enumerate(args) if getattr(a, "shape", None) is not None)
    key = (tuple(names[:len(args)]), shaped, tuple(float64), min(posonly, len(args)))
    factory = _FACTORIES.get(key)
    if factory is None:
        factory = _FACTORIES[key] = _factory(*key)
    return factory(*types, *(args[i].shape for i in shaped), FLOAT64, function,
                   functools.partial(_passed, slow, key[0]), _MISSING)


_MISSING = object()  # the guard's default: a parameter the call did not give


def _passed(slow, names, values, rest, kwargs):
    """``slow`` called as the guard was: the values given up to the first one missing by
    position, those after it by name, then ``rest`` and ``kwargs``."""
    given = next((k for k, v in enumerate(values) if v is _MISSING), len(values))
    named = {n: v for n, v in zip(names[given:], values[given:]) if v is not _MISSING}
    return slow(*values[:given], *rest, **named, **kwargs)


def _name(name, store=False):
    return ast.Name(name, ast.Store() if store else ast.Load())


def _is(left, right):
    return ast.Compare(left, [ast.Is()], [right])


def _factory(names, shaped, float64, posonly=0):
    """``factory(T0, ..., S<i> for i in shaped, F, function, slow, missing)`` → the guard, built
    as an AST: ``def call(w=missing, X=missing, *rest, **kwargs): if not rest and not kwargs and
    type(w) is T0 and ... and w.shape == S0 and w.dtype is F ...: return function(w, X)``, then
    ``return slow((w, X), rest, kwargs)``. The factory's own names start with a prefix no
    parameter has."""
    prefix = "_guard_"
    while any(n.startswith(prefix) for n in names):
        prefix += "_"
    rest, kwargs, missing = f"{prefix}rest", f"{prefix}kwargs", f"{prefix}missing"
    tests = [ast.UnaryOp(ast.Not(), _name(rest)), ast.UnaryOp(ast.Not(), _name(kwargs))]
    tests += [_is(ast.Call(_name("type"), [_name(a)], []), _name(f"{prefix}T{i}"))
              for i, a in enumerate(names)]
    tests += [ast.Compare(ast.Attribute(_name(names[i]), "shape", ast.Load()), [ast.Eq()],
                          [_name(f"{prefix}S{i}")]) for i in shaped]
    tests += [_is(ast.Attribute(_name(names[i]), "dtype", ast.Load()), _name(f"{prefix}F"))
              for i in float64]
    fast = ast.Return(ast.Call(_name(f"{prefix}function"), [_name(a) for a in names], []))
    slow = ast.Return(ast.Call(_name(f"{prefix}slow"), [
        ast.Tuple([_name(a) for a in names], ast.Load()), _name(rest), _name(kwargs)], []))
    call = ast.FunctionDef(
        "call", ast.arguments([ast.arg(a) for a in names[:posonly]],
                              [ast.arg(a) for a in names[posonly:]], ast.arg(rest), [], [],
                              ast.arg(kwargs), [_name(missing) for _ in names]),
        [ast.If(ast.BoolOp(ast.And(), tests), [fast], []), slow], [], None)
    parameters = [f"T{i}" for i in range(len(names))] + [f"S{i}" for i in shaped] + [
        "F", "function", "slow", "missing"]
    factory = ast.FunctionDef("factory", ast.arguments(
        [], [ast.arg(prefix + p) for p in parameters], None, [], [], None, []),
        [call, ast.Return(_name("call"))], [], None)
    module = ast.fix_missing_locations(ast.Module([factory], []))
    namespace = {}
    exec(compile(module, "<symgrad call guard>", "exec"), namespace)  # noqa: S102 - our own AST
    return namespace["factory"]


def unchecked(function, source, float64):
    """``function`` (compiled from ``source``, NumPy code) without the conversion lines of the
    parameters named in ``float64`` and without its size checks: the first ``if ...: raise
    ValueError(...)`` statements whose tests read only the arguments' shapes and the sizes the code
    reads from them (not a parameter's value: the check of a static ``range()`` bound stays).
    Compiled with ``function``'s file name and globals from ``source`` parsed again, so its line
    numbers are ``source``'s."""
    tree = ast.parse(source)
    definition = tree.body[0]
    sizes, kept, start = set(), [], True
    for stmt in definition.body:
        if start:
            converted = _converts(stmt)
            if converted is not None:
                if converted not in float64:
                    kept.append(stmt)
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                kept.append(stmt)  # the docstring
                continue
            if _size_read(stmt):
                sizes.add(stmt.targets[0].id)
                kept.append(stmt)
                continue
            if _raises_value_error(stmt):
                if not _reads_shapes_only(stmt.test, sizes):
                    kept.append(stmt)
                continue
            start = False
        kept.append(stmt)
    definition.body = kept
    namespace = {}
    exec(compile(tree, function.__code__.co_filename, "exec"),  # noqa: S102 - our own text
         function.__globals__, namespace)
    return namespace[definition.name]


def _converts(stmt):
    """The parameter a line ``X = np.asarray(X, dtype=float)`` converts, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)):
        return None
    call, name = stmt.value, stmt.targets[0].id
    if ast.unparse(call.func) == "np.asarray" and len(call.args) == 1 and isinstance(
            call.args[0], ast.Name) and call.args[0].id == name and [
                (k.arg, ast.unparse(k.value)) for k in call.keywords] == [("dtype", "float")]:
        return name
    return None


def _size_read(stmt):
    """Whether a line is ``n = X.shape[0]``."""
    if not isinstance(stmt, ast.Assign):
        return False
    value = stmt.value
    return (len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(value, ast.Subscript) and _shape_of_name(value.value)
            and isinstance(value.slice, ast.Constant))


def _shape_of_name(node):
    """Whether ``node`` is ``X.shape`` or ``X.ndim`` of a name."""
    return isinstance(node, ast.Attribute) and node.attr in ("shape", "ndim") and isinstance(
        node.value, ast.Name)


def _raises_value_error(stmt):
    return (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1
            and isinstance(stmt.body[0], ast.Raise) and isinstance(stmt.body[0].exc, ast.Call)
            and ast.unparse(stmt.body[0].exc.func) == "ValueError")


def _reads_shapes_only(node, sizes):
    """Whether an expression reads nothing but ``X.shape`` or ``X.ndim`` of names, the names in
    ``sizes``, ints and ``tuple``: a function of the arguments' shapes."""
    if _shape_of_name(node) or isinstance(node, ast.Constant) and type(node.value) is int:
        return True
    if isinstance(node, ast.Name):
        return node.id in sizes
    if isinstance(node, ast.Call):
        return (isinstance(node.func, ast.Name) and node.func.id == "tuple" and not node.keywords
                and all(_reads_shapes_only(a, sizes) for a in node.args))
    if isinstance(node, (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Tuple,
                         ast.Subscript)):
        children = [c for c in ast.iter_child_nodes(node)
                    if not isinstance(c, (ast.cmpop, ast.boolop, ast.operator, ast.unaryop,
                                          ast.expr_context))]
        return all(_reads_shapes_only(c, sizes) for c in children)
    return False

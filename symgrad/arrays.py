"""The array table: every NumPy function symgrad reads on arrays, one row each (beside RULES).

Elementwise work stays SymPy: ``np.exp(x - m)`` is ``exp(x - m)`` with array symbols read element by
element (``rules.RULES`` applies, SymPy differentiates the scalar body once, and broadcasting is
resolved when the gradient is built). Everything else (reductions, contractions, layout, indexing)
is an *array node*: an opaque SymPy function whose last argument is a ``Static`` holding its
build-time parameters (axes, keepdims, an index), each bound to an assignment of its own.

How to add a row. Append an ``ArrayRule`` (``array_nodes``) to ``ARRAY_RULES`` giving:

- ``python``: the dotted names of the callables it stands for (``"numpy.cumsum"``; a name under
  ``scipy.`` is looked up once the user's code has imported its module); ``methods``: the
  ``ndarray`` method names (``"cumsum"``); TensorFlow / ``jax.numpy`` spellings of the same
  function go in ``SPELLINGS`` below;
- ``signature``: the call's parameters, ``(name, default)`` pairs (``REQUIRED`` for none);
- ``read(ctx, **arguments)``: the value of the call, either an elementwise SymPy expression (then
  that is the whole row: ``np.clip`` is ``Min(Max(x, lo), hi)``), a tuple of values, or an array
  node (``row.make(*inputs, params=(...))``, which the frontend binds to a name). ``ctx``
  (``array_arguments.Arguments``) checks the arguments: ``ctx.array(v)``, ``ctx.axes(v, rank)``,
  ``ctx.flag(v)``, ``ctx.integer(v)``, ``ctx.new_shape(v, shape)``, ``ctx.shape(e)``,
  ``ctx.fail(message, hint)``; ``ctx.bind(node, label)`` names a node, ``ctx.constant(array,
  name)`` a constant made at build time; a function with no derivative reads its input with
  ``ctx.value_only(v)`` (refused where a gradient flows through it, see ``array_values``); the
  reads of the rows without a node of their own are in ``array_reads``;
- for a row with a node of its own (its functions go in ``array_ops``, ``array_indexing``,
  ``array_linalg`` or ``array_values``): ``shape(node, input_shapes, shapes)`` → the output shape
  (``node.params`` is the tuple given to ``make``); ``vjp(node, g, i, ctx)`` → the contribution
  of the output cotangent ``g`` to input ``i``, exactly that input's shape, built from the
  constructors of ``array_ops`` and SymPy (``ctx.out`` is the node's value, ``ctx.shape(e)`` any
  shape, ``ctx.unbroadcast(e, shape)`` sums back); ``numpy(printer, node)`` → the ``ast`` of its
  NumPy spelling (``printer.node(e)`` prints an input, ``array_nodes.dims_ast`` a shape);
  ``label``, the name its value gets in the generated code; ``integer=True`` for a node whose
  value is an index (``np.argmax``), which may then index an array; ``empty``, the number a
  row's value is when an operand has no element (a sum: 0, a product: 1, a contraction: 0) and
  ``linear=True`` where an operand of zeros makes it 0 (``sum``, ``@``, layout): such a node is
  read as that constant (``ArrayReader._of_nothing``), so no derivative flows through it;
  ``elementwise=True`` for a row whose value is computed elementwise of the operands its ``read``
  asked for (``ctx.array``, ``ctx.condition``): the value keeps their broadcast shape where SymPy
  folds it (``np.where(c, 1.0, 1.0)`` is ``1.0`` to SymPy, an array to NumPy).

``tests/test_arrays.py`` and ``tests/test_array_rows.py`` check the rows against finite
differences.
"""
import ast
import importlib

import sympy

from .array_casts import CAST_ROWS
from .array_nodes import REQUIRED, ArrayNode, ArrayRule
from .array_linalg import (CONCATENATE, CUMSUM, DET, EINSUM, INV, LOGABSDET, NP_MATMUL, SLOGDET,
                           SLOGDET_SIGN, SOLVE, read_stack)
from .array_indexing import (ARANGE, ARRAY_OF, EYE, INDEX, INDEX_ADJOINT, TRI_INDICES,
                             TRIL_INDICES, TRIU_INDICES, index)
from .array_reads import (_binary, _read_clip, _read_diag, _read_diff, _read_full, _read_inner,
                          _read_like, _read_logaddexp, _read_logsumexp, _read_mean, _read_norm,
                          _read_outer, _read_round, _read_squeeze, _read_take,
                          _read_take_along_axis, _read_trace, _read_var, _read_where)
from .array_shifts import SHIFT_ROWS
from .array_values import VALUE_ROWS
from .array_ops import (_AXIS, BROADCAST_TO, EXPAND_DIMS, MATMUL, MAX, MIN, PROD, RESHAPE,
                        RESULT, SUM, TRANSPOSE, WHERE, broadcast_to, expand_dims, matmul,
                        transpose)

__all__ = ["ARRAY_RULES", "ArrayNode", "REQUIRED", "SPELLINGS", "broadcast_to", "expand_dims",
           "index", "matmul", "numpy_name", "rule_for_callable", "rule_for_method",
           "rule_for_name", "transpose"]
from .rules import LAZY_MODULES, resolve_pending


# --- the table ----------------------------------------------------------------------------------
_MOMENT = (("a", REQUIRED), ("axis", None), ("dtype", None), ("out", None), ("ddof", 0),
           ("keepdims", False))
MEAN = ArrayRule("mean", ("numpy.mean",), ("mean",), _AXIS, read=_read_mean)
SQUEEZE = ArrayRule("squeeze", ("numpy.squeeze",), ("squeeze",), (("a", REQUIRED),
                                                                  ("axis", None)),
                    read=_read_squeeze)
TAKE = ArrayRule("take", ("numpy.take",), ("take",), (("a", REQUIRED), ("indices", REQUIRED),
                                                    ("axis", None)), read=_read_take)

ARRAY_RULES = (
    SUM, MAX, MIN, PROD, MEAN, MATMUL, TRANSPOSE, RESHAPE, BROADCAST_TO, EXPAND_DIMS, SQUEEZE,
    INDEX, TAKE, INDEX_ADJOINT, ARRAY_OF, ARANGE, WHERE, RESULT, CONCATENATE, INV, DET, SLOGDET,
    LOGABSDET, SLOGDET_SIGN, SOLVE, EINSUM, NP_MATMUL, CUMSUM, EYE, TRIU_INDICES, TRIL_INDICES,
    TRI_INDICES, *VALUE_ROWS, *CAST_ROWS, *SHIFT_ROWS,
    ArrayRule("zeros", ("numpy.zeros",), (), (("shape", REQUIRED), ("dtype", None)),
              read=_read_full(sympy.Float(0.0))),
    ArrayRule("ones", ("numpy.ones",), (), (("shape", REQUIRED), ("dtype", None)),
              read=_read_full(sympy.Float(1.0))),
    ArrayRule("full", ("numpy.full",), (), (("shape", REQUIRED), ("fill_value", REQUIRED),
                                            ("dtype", None)), read=_read_full(None)),
    ArrayRule("zeros_like", ("numpy.zeros_like",), (), (("a", REQUIRED), ("dtype", None)),
              read=_read_like(sympy.Float(0.0))),
    ArrayRule("ones_like", ("numpy.ones_like",), (), (("a", REQUIRED), ("dtype", None)),
              read=_read_like(sympy.Float(1.0))),
    ArrayRule("full_like", ("numpy.full_like",), (), (("a", REQUIRED), ("fill_value", REQUIRED),
                                                      ("dtype", None)), read=_read_like(None)),
    ArrayRule("where", ("numpy.where",), (), (("condition", REQUIRED), ("x", REQUIRED),
                                              ("y", REQUIRED)), read=_read_where, elementwise=True),
    ArrayRule("clip", ("numpy.clip",), ("clip",), (("a", REQUIRED), ("a_min", REQUIRED),
                                                   ("a_max", REQUIRED)), read=_read_clip,
              elementwise=True),
    ArrayRule("outer", ("numpy.outer",), (), (("a", REQUIRED), ("b", REQUIRED)),
              read=_read_outer),
    ArrayRule("inner", ("numpy.inner",), (), (("a", REQUIRED), ("b", REQUIRED)),
              read=_read_inner),
    ArrayRule("logaddexp", ("numpy.logaddexp",), (), (("x1", REQUIRED), ("x2", REQUIRED)),
              read=_read_logaddexp, elementwise=True),
    ArrayRule("norm", ("numpy.linalg.norm",), (), (("x", REQUIRED), ("ord", None), ("axis", None),
                                                   ("keepdims", False)), read=_read_norm),
    ArrayRule("var", ("numpy.var",), ("var",), _MOMENT, read=_read_var(False)),
    ArrayRule("std", ("numpy.std",), ("std",), _MOMENT, read=_read_var(True)),
    ArrayRule("trace", ("numpy.trace",), ("trace",), (("a", REQUIRED), ("offset", 0),
                                                      ("axis1", 0), ("axis2", 1),
                                                      ("dtype", None), ("out", None)),
              read=_read_trace),
    ArrayRule("diag", ("numpy.diag",), (), (("v", REQUIRED), ("k", 0)), read=_read_diag),
    ArrayRule("take_along_axis", ("numpy.take_along_axis",), (),
              (("arr", REQUIRED), ("indices", REQUIRED), ("axis", REQUIRED)),
              read=_read_take_along_axis),
    ArrayRule("diff", ("numpy.diff",), (), (("a", REQUIRED), ("n", 1), ("axis", -1),
                                            ("prepend", None), ("append", None)),
              read=_read_diff),
    ArrayRule("stack", ("numpy.stack",), (), (("arrays", REQUIRED), ("axis", 0)),
              read=read_stack),
    ArrayRule("add", ("numpy.add",), (), (("x1", REQUIRED), ("x2", REQUIRED)),
              read=_binary(ast.Add)),
    ArrayRule("subtract", ("numpy.subtract",), (), (("x1", REQUIRED), ("x2", REQUIRED)),
              read=_binary(ast.Sub)),
    ArrayRule("multiply", ("numpy.multiply",), (), (("x1", REQUIRED), ("x2", REQUIRED)),
              read=_binary(ast.Mult)),
    ArrayRule("divide", ("numpy.divide", "numpy.true_divide"), (),
              (("x1", REQUIRED), ("x2", REQUIRED)), read=_binary(ast.Div)),
    ArrayRule("mod", ("numpy.mod", "numpy.remainder"), (), (("x1", REQUIRED), ("x2", REQUIRED)),
              read=_binary(ast.Mod)),  # d/dx1 1, d/dx2 -floor(x1 / x2): autograd's, JAX's
    ArrayRule("reciprocal", ("numpy.reciprocal",), (), (("x", REQUIRED),),
              read=lambda ctx, x: ctx.reader.binary(ast.Div(), sympy.Float(1.0), ctx.array(x),
                                                    ctx.node, ctx.frame)),
    ArrayRule("round", ("numpy.round", "numpy.around", "numpy.rint"), ("round",),
              (("a", REQUIRED), ("decimals", 0)), read=_read_round, elementwise=True),
    ArrayRule("negative", ("numpy.negative",), (), (("x", REQUIRED),),
              read=lambda ctx, x: -ctx.array(x), elementwise=True),
    ArrayRule("logsumexp", ("scipy.special.logsumexp",), (),
              (("a", REQUIRED), ("axis", None), ("b", None), ("keepdims", False),
               ("return_sign", False)), read=_read_logsumexp),
)

SPELLINGS = {
    "tf.reduce_sum": "numpy.sum", "tf.reduce_max": "numpy.max", "tf.reduce_min": "numpy.min",
    "tf.reduce_mean": "numpy.mean", "tf.reduce_prod": "numpy.prod", "tf.matmul": "numpy.matmul",
    "tf.transpose": "numpy.transpose", "tf.reshape": "numpy.reshape", "tf.square": "numpy.square",
    "tf.multiply": "numpy.multiply", "tf.add": "numpy.add", "tf.subtract": "numpy.subtract",
    "tf.divide": "numpy.divide", "tf.pow": "numpy.power", "tf.exp": "numpy.exp",
    "tf.log": "numpy.log", "tf.math.log": "numpy.log", "tf.tanh": "numpy.tanh",
    "tf.sqrt": "numpy.sqrt", "tf.abs": "numpy.abs", "tf.maximum": "numpy.maximum",
    "tf.minimum": "numpy.minimum", "tf.where": "numpy.where", "tf.expand_dims": "numpy.expand_dims",
    "tf.squeeze": "numpy.squeeze", "tf.zeros_like": "numpy.zeros_like",
    "tf.ones_like": "numpy.ones_like", "tf.clip_by_value": "numpy.clip",
}
"""TensorFlow spellings read as the NumPy function they mean; ``jnp.<f>`` and ``jax.numpy.<f>``
are read as ``numpy.<f>`` without a row here."""


def numpy_name(dotted, obj=None):
    """The ``numpy.<f>`` name a TensorFlow or ``jax.numpy`` spelling means, or None; ``obj``, the
    function the spelling gave, counts too (``import jax.numpy as np``: ``np.sum`` is
    ``jax.numpy.sum``)."""
    if dotted is not None and dotted in SPELLINGS:
        return SPELLINGS[dotted]
    for prefix in ("jnp.", "jax.numpy."):
        if dotted is not None and dotted.startswith(prefix):
            return "numpy." + dotted[len(prefix):]
    module, name = getattr(obj, "__module__", None), getattr(obj, "__name__", None)
    if isinstance(module, str) and module.split(".")[:2] == ["jax", "numpy"] and name:
        return "numpy" + module[len("jax.numpy"):] + "." + name  # jax.numpy.linalg.inv too
    return None


def _resolve(dotted):
    module, _, attr = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None


def _index_rules():
    by_object, by_name, methods, pending = {}, {}, {}, []
    for rule in ARRAY_RULES:
        for dotted in rule.python:
            by_name[dotted] = rule
            if dotted.startswith(LAZY_MODULES):  # looked up once the user's code imports it
                pending.append((dotted, rule))
                continue
            obj = _resolve(dotted)
            if obj is not None:
                by_object[id(obj)] = (obj, rule)
        for method in rule.methods:
            methods[method] = rule
    return by_object, by_name, methods, pending


_BY_OBJECT, _BY_NAME, _METHODS, _PENDING = _index_rules()


def rule_for_callable(obj):
    """The array row whose Python spelling is the object ``obj``, or None."""
    found = _BY_OBJECT.get(id(obj))
    if found is None and _PENDING and resolve_pending(_PENDING, _BY_OBJECT):
        found = _BY_OBJECT.get(id(obj))
    return found[1] if found is not None and found[0] is obj else None


def rule_for_name(dotted):
    """The array row of a ``numpy.<f>`` name, or None."""
    return _BY_NAME.get(dotted)


def rule_for_method(name):
    """The array row of the ``ndarray`` method ``name`` (``sum``, ``reshape``), or None."""
    return _METHODS.get(name)

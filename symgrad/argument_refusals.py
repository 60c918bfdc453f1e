"""The refusals a user meets passing parameters in a container or integer labels as an argument.

A dict of parameters (``p["w"]``), a tuple of them (``w, b = params``) and integer labels given
when called (``logp[np.arange(n), labels]``) are not in the language; each refusal says so, names
the parameter, and gives the form that is (each array its own parameter; one-hot labels or a
module-level constant). The readers (``frontend``, ``array_frontend``, ``array_index``,
``arrays``) choose them with ``parameter_in``; the texts are here, once.
"""
import ast

SEPARATE = ("pass each array or number as its own parameter: def f(w, b, X) with "
            "wrt=('w', 'b') (or wrt=None: every parameter without a default)")
ONE_HOT = ("pass one-hot labels Y (shape (n, k), 1.0 at each label) and write "
           "np.sum(Y * logp, axis=1) for logp[np.arange(n), labels], or make the labels a "
           "module-level constant (an int array)")


def parameter_in(node, frame):
    """The first name in ``node`` that is a parameter of the function being read (its own
    frame, not an inlined helper's), or None."""
    args = getattr(frame.node, "args", None)
    if not frame.primary or not isinstance(args, ast.arguments) or node is None:
        return None
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    return next((n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in params),
                None)


def index_argument(call, frame):
    """The first parameter named in the arguments of ``call`` after its first (the indices of
    ``np.take_along_axis(x, IDX, axis=1)``), or None."""
    rest = call.args[1:] + [k.value for k in call.keywords]
    return next(filter(None, (parameter_in(a, frame) for a in rest)), None)


def string_key(node, frame):
    """(what, hint) for ``p["w"]``: a str index (a dict of parameters)."""
    name = parameter_in(node.value, frame)
    what = f"the parameter `{name}`" if name else "a value"
    return (f"indexing {what} with a string is not supported (a dict of parameters)", SEPARATE)


def unpacked(name):
    """(what, hint) for ``w, b = params`` with ``params`` a parameter (a tuple of parameters)."""
    return (f"unpacking the parameter `{name}` is not supported (a tuple or list of parameters)",
            SEPARATE)


def labels(name):
    """(what, hint) for an index array that is the argument ``name`` (integer labels)."""
    return (f"indexing with `{name}`, an argument, is not supported (integer labels given at "
            "the call)", ONE_HOT)

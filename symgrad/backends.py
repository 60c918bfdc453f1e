"""The backends: for each library symgrad prints gradients for, what its generated code imports and
how the printer spells what differs from NumPy.

A ``Backend`` is the printer's setting for one library. Which function a SymPy class prints as is
a column of ``rules.RULES`` (``math``, ``numpy``, ``jax``, ``torch``, ``array_api``); how an array
node prints is its row's ``numpy`` printer, with the NumPy names it calls spelled for the backend
(``names`` here) and, where the library needs another form, an entry of the array table's backend
columns (``array_backends.PRINTERS``). Nothing else in symgrad knows the libraries: ``emit`` asks
its backend for the lines that differ (the conversion of the arguments, a constant result, the
test of an ``assert`` on arrays) and whether arrays may be written in place (``mutable``: JAX
arrays are immutable).

Importing this module imports none of the libraries: ``namespace`` imports the backend's modules
when a gradient is compiled, and a missing one is an ``OptionError`` naming the extra to install.
"""
import ast
import importlib
import importlib.util
from dataclasses import dataclass, field

from .errors import OptionError


@dataclass(frozen=True)
class Backend:
    """One library generated code may be printed for.

    Attributes:
        name: the ``backend=`` value ("math", "numpy", "jax", "torch", "array_api").
        module: the name the generated code calls functions through ("math", "np", "jnp",
            "torch", "xp").
        imports: the import lines an exported module starts with.
        packages: the top-level modules that must be importable.
        extra: the ``pip install 'symgrad[extra]'`` that installs them (None: always present).
        vectorised: elementwise on arrays: a branch is a ``where``, ``and`` a ``logical_and``
            (every backend but "math").
        mutable: arrays may be written in place (``z[1:] += g``); False for JAX.
        names: NumPy function names (after ``np.``) spelled otherwise in this library, for the
            array rows and written calls (elementwise functions have their ``rules`` column).
        literal: the constructor an exported module writes a constant array of the primal's
            module with (``torch.tensor([0, 2], dtype=torch.int64)``): a name the import lines
            bind, whose module also has the dtypes, ``nan`` and ``inf`` (None: no arrays).
        dask: its code may be called with Dask arrays, whose sizes may be unknown (``nan``), so
            the code refuses those (only "array_api", through ``array_api_compat``; the numpy
            backend's lazy specialisation does the same).
    """

    name: str
    module: str
    imports: str
    packages: tuple = ()
    extra: str = None
    vectorised: bool = True
    mutable: bool = True
    names: dict = field(default_factory=dict)
    literal: str = None
    dask: bool = False

    def spelling(self, dotted):
        """The name of the NumPy function ``dotted`` ("np.concatenate") in this library
        ("torch.cat"); any other name as it is."""
        if self.name in ("math", "numpy") or not dotted.startswith("np."):
            return dotted
        rest = dotted[len("np."):]
        return f"{self.module}.{self.names.get(rest, rest)}"

    def require(self):
        """Raise ``OptionError`` naming the extra to install when a package is missing."""
        for package in self.packages:
            if importlib.util.find_spec(package) is None:
                how = f"pip install 'symgrad[{self.extra}]'" if self.extra else \
                    f"pip install {package}"
                raise OptionError(f"backend {self.name!r} needs {package}, which is not "
                                  f"installed: {how}")

    def bound(self):
        """The names the import lines bind (``{"jnp"}``), without importing anything."""
        names = set()
        for statement in ast.parse(self.imports).body:
            for alias in statement.names:
                names.add(alias.asname or alias.name.split(".")[0])
        return names

    def namespace(self):
        """The names the generated code reads, imported now (``{"jnp": jax.numpy}``)."""
        self.require()
        tree = ast.parse(self.imports)
        names = {}
        for statement in tree.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    module = importlib.import_module(alias.name)
                    if alias.asname is None:
                        names[alias.name.split(".")[0]] = importlib.import_module(
                            alias.name.split(".")[0])
                    else:
                        names[alias.asname] = module
            else:
                module = importlib.import_module(statement.module)
                for alias in statement.names:  # a name, or a submodule not imported yet
                    found = getattr(module, alias.name, None)
                    if found is None:
                        found = importlib.import_module(f"{statement.module}.{alias.name}")
                    names[alias.asname or alias.name] = found
        return names


BACKENDS = {
    "math": Backend("math", "math", "import math", vectorised=False),
    "numpy": Backend("numpy", "np", "import numpy as np", packages=("numpy",),
                     literal="np.array"),
    "jax": Backend("jax", "jnp", "import jax.numpy as jnp", packages=("jax",), extra="jax",
                   mutable=False, literal="jnp.array"),
    "torch": Backend("torch", "torch", "import torch", packages=("torch",), extra="torch",
                     names={"power": "pow", "concatenate": "cat", "transpose": "permute",
                            "max": "amax", "min": "amin"}, literal="torch.tensor"),
    "array_api": Backend("array_api", "xp", "from array_api_compat import array_namespace, "
                         "device, is_numpy_array, numpy as compat_numpy",
                         packages=("array_api_compat",), extra="array-api",
                         mutable=False,
                         names={"power": "pow", "concatenate": "concat",
                                "transpose": "permute_dims", "cumsum": "cumulative_sum"},
                         literal="compat_numpy.asarray", dask=True),
}
"""Backend name → its ``Backend``, in the order the documentation lists them. ``array_api`` is
not ``mutable``: one text must also run on JAX arrays."""


def backend(name):
    """The ``Backend`` called ``name``.

    Raises:
        OptionError: ``name`` is not one of ``BACKENDS``.
    """
    try:
        return BACKENDS[name]
    except (KeyError, TypeError):
        raise OptionError(f"backend must be one of {tuple(BACKENDS)}, not {name!r}") from None


# --- the lines ``emit`` asks its backend for -----------------------------------------------------
def _name(text):
    return ast.Name(text, ast.Load())


def _attribute(dotted):
    parts = dotted.split(".")
    node = _name(parts[0])
    for part in parts[1:]:
        node = ast.Attribute(node, part, ast.Load())
    return node


def _converted(spec, name, array=False):
    """The argument ``name`` as an array of the backend: a float array keeps its dtype, a Python
    number becomes a float64 array (as Python floats are); JAX and PyTorch make other arrays
    float64 arrays too, the Array API leaves them (its namespace comes from the arrays), and
    converts a NumPy array to it (``xp.asarray`` of an array of ``xp`` is the array itself):
    ``array``, a parameter of rank 1 or more, is never a number."""
    x = _name(name)
    if spec.name == "jax":  # jnp.result_type(x, float): float32 stays, a Python float is float64
        return ast.Call(_attribute("jnp.asarray"), [x], [ast.keyword("dtype", ast.Call(
            _attribute("jnp.result_type"), [x, _name("float")], []))])
    if spec.name == "torch":  # detach: no autograd tape (torch.no_grad semantics)
        floating = ast.BoolOp(ast.And(), [ast.Call(_attribute("torch.is_tensor"), [x], []),
                                          ast.Call(ast.Attribute(x, "is_floating_point",
                                                                 ast.Load()), [], [])])
        return ast.IfExp(floating, ast.Call(ast.Attribute(x, "detach", ast.Load()), [], []),
                         ast.Call(_attribute("torch.as_tensor"), [x], [ast.keyword(
                             "dtype", _attribute("torch.float64"))]))
    converted = ast.Call(_attribute("xp.asarray"), [x], [])
    if array:
        return converted
    number = ast.Call(_name("isinstance"), [x, ast.Tuple([_name("int"), _name("float")],
                                                         ast.Load())], [])
    return ast.IfExp(number, ast.Call(_attribute("xp.asarray"), [x], [ast.keyword(
        "dtype", _attribute("xp.float64"))]), converted)


def _namespace(params, arrays):
    """``xp = array_namespace(*[a for a in (X, w) if not is_numpy_array(a)] or [X])``: the
    library of the arrays ``arrays`` (the parameters of rank 1 or more) that are not NumPy's
    (NumPy arrays mixed with Dask or torch ones are then converted to it), and NumPy's when every
    one is a NumPy array. Without array parameters, of every parameter that is neither a NumPy
    array nor a number, else NumPy's (``array_namespace`` takes no numbers alone)."""
    a = _name("a")
    plain = ast.Call(_name("is_numpy_array"), [a], [])
    if arrays:
        fallback = ast.List([_name(arrays[0])], ast.Load())
    else:
        plain = ast.BoolOp(ast.Or(), [plain, ast.Call(_name("isinstance"), [a, ast.Tuple(
            [_name("int"), _name("float")], ast.Load())], [])])
        fallback = ast.List([ast.Call(_attribute("compat_numpy.asarray"), [ast.Constant(0.0)],
                                      [])], ast.Load())
    others = ast.ListComp(_name("a"), [ast.comprehension(
        ast.Name("a", ast.Store()), ast.Tuple([_name(p) for p in arrays or params], ast.Load()),
        [ast.UnaryOp(ast.Not(), plain)], 0)])
    return [ast.Assign([ast.Name("xp", ast.Store())], ast.Call(_name("array_namespace"), [
        ast.Starred(ast.BoolOp(ast.Or(), [others, fallback]), ast.Load())], []), lineno=None)]


def prologue(name, params, hyperparameters=(), arrays=(), dask_flag=None):
    """The first lines of a function of the backend ``name``: the Array API's namespace
    (``xp = array_namespace(...)``: ``_namespace``), then each parameter in ``params`` (names)
    converted to an array of the backend, then each of ``hyperparameters`` (the parameters with a
    default, such as ``delta=1.0``) to an array of the first parameter's dtype and device, so
    that float32 data gives float32 results; nothing for "math" (and "numpy", whose conversion
    ``emit`` prints). ``arrays``: the parameters of rank 1 or more (never numbers). ``dask_flag``:
    the Array API code's name for whether ``xp`` is Dask's, bound last when the code reads it
    (its linear algebra: ``array_linalg_lazy``): ``on_dask = hasattr(X, 'map_blocks')`` of the
    first parameter, an array of ``xp`` by then, as every array of the code is."""
    spec = backend(name)
    if spec.name in ("math", "numpy") or not params:
        return []
    lines = []
    if spec.name == "array_api":
        lines.extend(_namespace((*params, *hyperparameters),
                                [p for p in (*params, *hyperparameters) if p in arrays]))
    for p in params:
        lines.append(ast.Assign([ast.Name(p, ast.Store())], _converted(spec, p, p in arrays),
                                lineno=None))
    reference = _name(params[0])
    like = [ast.keyword("dtype", ast.Attribute(reference, "dtype", ast.Load()))]
    if spec.name == "torch":
        like.append(ast.keyword("device", ast.Attribute(reference, "device", ast.Load())))
    if spec.name == "array_api":
        like.append(ast.keyword("device", ast.Call(_name("device"), [reference], [])))
    function = {"jax": "jnp.asarray", "torch": "torch.as_tensor", "array_api": "xp.asarray"}
    for p in hyperparameters:
        lines.append(ast.Assign([ast.Name(p, ast.Store())], ast.Call(
            _attribute(function[spec.name]), [_name(p)], like), lineno=None))
    if dask_flag is not None and spec.name == "array_api":
        lines.append(ast.Assign([ast.Name(dask_flag, ast.Store())], ast.Call(_name("hasattr"), [
            reference, ast.Constant("map_blocks")], []), lineno=None))
    return lines

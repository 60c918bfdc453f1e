"""The command line (``python -m symgrad`` and the ``symgrad`` script):

    show FILE:FUNC [--kind K] [--wrt x,y] [--backend B] [--strategy S] [--latex]
                   [--shapes X=n,d w=d]     print the generated gradient (or K: value_and_grad,
                                            jacobian, hessian, vjp)
    check FILE:F FILE:DF [--wrt x,y] [--points N] [--rtol R] [--seed S] [--strategy S]
                   [--shapes X=n,d w=d]     check a hand-derived gradient
    export FILE:FUNC -o OUT.py [--force] [--kind K] [--wrt x,y] [--backend B] [--strategy S]
                   [--shapes X=n,d w=d]     write a standalone module
    cache info|clear                        show the disk cache folder, its entries and size;
                                            delete the entries
    --version                               print symgrad's version


Each subcommand is a function ``_<name>(args)`` that returns an exit status, registered in
``_build_parser`` with ``set_defaults(run=...)``; FILE:FUNC arguments are parsed by ``target`` and
loaded by ``load_function``, so a new subcommand (``check FILE:F FILE:DF``,
``export FILE:FUNC -o OUT.py``) is a parser entry and a few lines of body.

Every mistake a user can make (a missing file, a file that fails to import, a missing name, a name
that is not a function, anything symgrad rejects) prints one line ``symgrad: error: ...`` on stderr
and exits with status 2, as argparse does for bad arguments. Anything else is a bug in symgrad and
keeps its traceback.
"""
import argparse
import difflib
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys

from . import __version__, api, diskcache
from .backends import BACKENDS
from .check import check_grad
from .cli_arguments import positive_int, shapes_option, target, tolerance, wrt_option
from .differentiate import STRATEGIES
from .errors import ShapesNeededError, SymgradError, UnsupportedSyntaxError
from .export import latex, write_module

USAGE_ERROR = 2  # argparse's own status for bad arguments
KINDS = ("grad", "value_and_grad", "jacobian", "hessian", "vjp")  # the family members, by name
LISTED_FUNCTIONS = 10  # "no function named" lists at most this many of the file's functions


class CommandError(Exception):
    """A user error the command line reports as one line on stderr, with exit status 2."""


def _shapes(args):
    """The ``shapes=`` dict of ``--shapes`` (None without it; scalars left out).

    Raises:
        CommandError: a parameter given twice.
    """
    if not getattr(args, "shapes", None):
        return None
    shapes = {}
    for name, dims in (pair for group in args.shapes for pair in group):
        if name in shapes:
            raise CommandError(f"--shapes gives {name} twice")
        shapes[name] = dims
    return {name: dims for name, dims in shapes.items() if dims}


def load_function(spec):
    """Import the file of ``spec`` as a module and return the function it names.

    The file's folder is put first on ``sys.path`` while it is imported, so its own imports of
    neighbouring modules work; its ``if __name__ == "__main__":`` block does not run.

    Args:
        spec: a ``Target``.

    Returns:
        The Python function (or ``GradientFunction``) bound to ``spec.name`` in that module.

    Raises:
        CommandError: the file is missing or fails to import, the name is not bound in it, or it
            is bound to something other than a function.
    """
    module = _import_file(spec.path)
    obj = module
    for i, part in enumerate(spec.name.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            where = spec.path if i == 0 else ".".join(spec.name.split(".")[:i])
            raise CommandError(f"{where} has no function `{part}`{_suggest(obj, part)}") from None
    if not (inspect.isfunction(obj) or isinstance(obj, api.GradientFunction)):
        raise CommandError(f"`{spec.name}` in {spec.path} is {_a(type(obj).__name__)}, not a "
                           "function: name a function defined with `def`")
    return obj


def _import_file(path):
    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise CommandError(f"{path}: not a file")
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    name = _module_name(path)
    loader = importlib.machinery.SourceFileLoader(name, path)  # any suffix, not only .py
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    previous = sys.modules.get(name)
    sys.modules[name] = module  # dataclasses and pickle look the module up while it runs
    sys.path.insert(0, folder)
    try:
        loader.exec_module(module)
    except BaseException as exc:
        _restore(name, previous)
        if isinstance(exc, SyntaxError):  # the file's own syntax, or a grad() at module level
            raise CommandError(f"{_location(exc)}: {_one_line(exc.msg or str(exc))}") from None
        if isinstance(exc, (Exception, SystemExit)):  # the module's code: report, no traceback
            detail = _one_line(str(exc))
            raise CommandError(f"cannot import {_shown(path)}: {type(exc).__name__}"
                               + (f": {detail}" if detail else "")) from None
        raise  # KeyboardInterrupt
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    return module


def _module_name(path):
    """The file's stem, unless another module already uses that name."""
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() else "_" + re.sub(r"\W", "_", stem)
    existing = sys.modules.get(name)
    if existing is None or getattr(existing, "__file__", None) == path:
        return name
    return "_symgrad_file_" + name


def _restore(name, previous):
    if previous is None:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = previous


def _suggest(namespace, name):
    """A close match, then the functions ``namespace`` defines (not those it imports)."""
    home = getattr(namespace, "__name__", None) if inspect.ismodule(namespace) else getattr(
        namespace, "__module__", None)
    functions = sorted(key for key in vars(namespace) if not key.startswith("__")
                       and _defined_in(getattr(namespace, key, None), home))
    close = difflib.get_close_matches(name, functions, n=1)
    hint = f": did you mean `{close[0]}`?" if close else ""
    if not functions:
        return hint + " (it defines no functions)"
    listed = ", ".join(functions[:LISTED_FUNCTIONS])
    more = len(functions) - LISTED_FUNCTIONS
    listed += f" and {more} more" if more > 0 else ""
    return f"{hint} (functions: {listed})"


def _defined_in(value, module_name):
    while isinstance(value, api.GradientFunction):  # a @symgrad.grad def is a function
        value = value.primal
    return inspect.isfunction(value) and value.__module__ == module_name


def _a(noun):
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _shown(path):
    """``path`` relative to the current folder when it is inside it, else as is."""
    if not path or path.startswith("<"):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _location(exc):
    """``file:line:col`` of a ``SyntaxError`` (``offset`` is 1-based, as compilers print it)."""
    place = _shown(exc.filename or "<unknown>")
    if exc.lineno:
        place += f":{exc.lineno}"
        if exc.offset:
            place += f":{exc.offset}"
    return place


def _one_line(text):
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def _describe(error):
    """The one line reported for a ``SymgradError``."""
    if isinstance(error, UnsupportedSyntaxError) and error.filename:
        return f"{_location(error)}: {_one_line(error.msg or str(error))}"
    return _one_line(str(error))


# --- subcommands ---------------------------------------------------------------------------------
def _gradient(args):
    """The ``GradientFunction`` that ``show`` and ``export`` print or write.

    A name bound to a ``GradientFunction`` (a function decorated with ``@symgrad.grad``) is
    that object itself, unless ``--kind``, ``--wrt``, ``--backend``, ``--strategy`` or
    ``--shapes`` asks for another build: then of the function the decorator differentiated,
    with the decorator's options (``wrt``, ``stop_gradients``, ...) where the command line
    gives none.
    """
    function = load_function(args.target)
    shapes = _shapes(args)
    asked = (args.kind, args.wrt, args.backend, args.strategy, shapes)
    kind, options = args.kind, {}
    if isinstance(function, api.GradientFunction):
        if asked == (None, None, None, None, None) and function.source is not None:
            return function
        kind, options = kind or function.kind, dict(function.options or {})
        function = function.primal
    for name in ("wrt", "backend", "strategy"):  # the command line's, else the decorator's
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    options = {name: value for name, value in options.items() if value is not None}
    options.setdefault("strategy", "auto")
    if shapes is None:
        options.setdefault("backend", "math")
    gradient = getattr(api, kind or "grad")(function, shapes=shapes, **options)
    if gradient.source is None:  # array code, built per shape at its first call
        raise _shapes_needed(args.target.name, function)
    return gradient


def _shapes_needed(name, function):
    """The refusal of array code without ``--shapes`` (``show``, ``export`` and ``check``),
    naming ``function``'s parameters."""
    params = ", ".join(inspect.signature(function).parameters)
    return CommandError(f"`{name}` computes with arrays: give their shapes, NAME=DIMS for each "
                        f"parameter of {name}({params}), e.g. --shapes X=n,d w=d (names for "
                        "sizes, 1 for a size-1 axis, x= for a number)")


def _show(args):
    """``show FILE:FUNC [--kind K] [--wrt x,y] [--backend B] [--strategy S] [--latex]``: print
    the generated source (or, with ``--latex``, each derivative as LaTeX)."""
    gradient = _gradient(args)
    if args.latex:
        for name, text in zip(gradient.program.output_names, latex(gradient)):
            print(f"{name} = {text}")
        return 0
    print(gradient.source, end="" if gradient.source.endswith("\n") else "\n")
    return 0


def _check(args):
    """``check FILE:F FILE:DF [--wrt x,y] [--points N] [--rtol R] [--seed S] [--strategy S]``:
    print the report; status 0 unless "different" (then 1)."""
    function, hand = load_function(args.target), load_function(args.hand)
    options = {}
    if isinstance(function, api.GradientFunction):  # a @symgrad.grad name: check its primal
        options = function.options or {}
        if options.get("stop_gradients"):
            raise CommandError(f"`{args.target.name}` is built with stop_gradients=, which check "
                               "does not take: write the stopped values as stop_gradient(...) "
                               "in the function, or check it from Python")
        function = function.primal
    wrt = args.wrt if args.wrt is not None else options.get("wrt")
    try:
        report = check_grad(function, hand, wrt=wrt, points=args.points, rtol=args.rtol,
                            seed=args.seed, strategy=args.strategy or options.get("strategy")
                            or "auto",
                            shapes=_shapes(args))
    except ShapesNeededError:
        raise _shapes_needed(args.target.name, function) from None
    print(report)
    return 1 if report.verdict == "different" else 0


def _export(args):
    """``export FILE:FUNC -o OUT.py [--force] [--kind K] [--wrt x,y] [--backend B]
    [--strategy S]``: write a standalone module."""
    gradient = _gradient(args)
    try:
        write_module(gradient, args.output, args.force, "pass --force to replace it")
    except OSError as exc:
        raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"wrote {args.output}: {gradient.func.__name__}")
    return 0


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="symgrad",
        description="Differentiate a Python function symbolically into readable gradient code.")
    parser.add_argument("--version", action="version", version=f"symgrad {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = commands.add_parser(
        "show", help="print the generated gradient of FILE:FUNC",
        description="Print the Python source symgrad generates for the gradient of FUNC in FILE.")
    show.add_argument("target", type=target, metavar="FILE:FUNC",
                      help="a Python file and the name of a function defined in it")
    _add_build_options(show)
    show.add_argument("--latex", action="store_true", help="print each derivative as LaTeX")
    show.set_defaults(run=_show)

    check = commands.add_parser(
        "check", help="check a hand-derived gradient FILE:DF of FILE:F",
        description="Compare a hand-derived gradient with symgrad's, symbolically and at points "
                    "(decided at 50 digits). Exit status 0 when they agree, 1 when they differ.")
    check.add_argument("target", type=target, metavar="FILE:F", help="the function")
    check.add_argument("hand", type=target, metavar="FILE:DF",
                       help="its hand-derived gradient (same parameters, results in wrt order)")
    check.add_argument("--wrt", type=wrt_option, default=None, metavar="NAMES",
                       help="parameters or intermediate variables the gradient is with respect "
                            "to (default: every parameter without a default)")
    check.add_argument("--points", type=positive_int, default=None, metavar="N",
                       help="number of random points (default: 10), or with --shapes of "
                            "random sizes (default: 5)")
    check.add_argument("--rtol", type=tolerance, default=1e-9, metavar="R",
                       help="relative tolerance on |df - symgrad| / max(1, |symgrad|) "
                            "(default: 1e-9)")
    check.add_argument("--seed", type=int, default=0, metavar="S",
                       help="seed of the random points (default: 0)")
    _add_strategy(check)
    _add_shapes(check)
    check.set_defaults(run=_check)

    export_parser = commands.add_parser(
        "export", help="write the gradient of FILE:FUNC as a standalone module",
        description="Write a module that holds the gradient and imports only its backend's "
                    "library (math, numpy, jax.numpy, torch or array_api_compat; scipy.special "
                    "where the gradient calls it), with the constant arrays it reads.")
    export_parser.add_argument("target", type=target, metavar="FILE:FUNC",
                               help="a Python file and the name of a function defined in it")
    export_parser.add_argument("-o", "--output", required=True, metavar="OUT.py",
                               help="the file to write")
    export_parser.add_argument("--force", action="store_true",
                               help="replace OUT.py if it exists (never the source file)")
    _add_build_options(export_parser)
    export_parser.set_defaults(run=_export)

    cache = commands.add_parser(
        "cache", help="show or clear the disk cache of built gradients",
        description="info: the cache folder, its number of entries and size; clear: delete them.")
    cache.add_argument("action", choices=("info", "clear"))
    cache.set_defaults(run=_cache)
    return parser


def _cache(args):
    """``cache info``: the folder, its entries and size; ``cache clear``: delete the entries."""
    where, entries, size = diskcache.info()
    if where is None:
        print(f"the disk cache is off ({diskcache.ENVIRONMENT} is set to '')")
        return 0
    if args.action == "clear":
        removed = diskcache.clear()
        print(f"removed {removed} {'entry' if removed == 1 else 'entries'} from {where}")
        return 0
    print(f"folder: {where}\nentries: {entries}\nsize: {size / 1024:.1f} KiB ({size} bytes)")
    return 0


def _add_build_options(parser):
    parser.add_argument("--kind", choices=KINDS, default=None,
                        help="which derivative: grad (the default), value_and_grad, jacobian "
                             "(FUNC returns a tuple), hessian, vjp (a tuple, with cotangents)")
    parser.add_argument("--wrt", type=wrt_option, default=None, metavar="NAMES",
                        help="what to differentiate with respect to: parameter or intermediate "
                             "names, or parameter indices, separated by commas (default: every "
                             "parameter without a default)")
    parser.add_argument("--backend", choices=tuple(BACKENDS), default=None,
                        help="math (floats: the default for scalar code), numpy (elementwise "
                             "on arrays: the default for array code, given --shapes), jax, "
                             "torch or array_api (docs/backends.md)")
    _add_strategy(parser)
    _add_shapes(parser)


def _add_shapes(parser):
    parser.add_argument("--shapes", type=shapes_option, nargs="+", action="extend",
                        metavar="NAME=DIMS",
                        help="the shapes of array parameters, e.g. --shapes X=n,d w=d: "
                             "dimension names (or 1 for a size-1 axis), comma-separated; "
                             "scalars left out (or x=)")


def _add_strategy(parser):
    parser.add_argument("--strategy", choices=STRATEGIES, default=None,
                        help="how the derivative is built: auto (the default), symbolic or "
                             "reverse")


def main(argv=None):
    """Run the command line.

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 on success, 1 when ``check`` finds the gradients different, 2 on a
        usage error or any error symgrad reports (one line
        ``symgrad: error: ...`` on stderr, no traceback); ``--help`` prints usage and returns 0.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed usage and its error line
        return exc.code if isinstance(exc.code, int) else USAGE_ERROR
    try:
        return args.run(args)
    except CommandError as exc:
        message = str(exc)
    except SymgradError as exc:
        message = _describe(exc)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    return USAGE_ERROR

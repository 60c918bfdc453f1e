"""The argument types of the command line (argparse ``type=`` functions): ``FILE:FUNC``, ``--wrt``,
``--shapes``, whole numbers and tolerances. Each raises ``argparse.ArgumentTypeError`` with the
message argparse prints (exit status 2).
"""
import argparse
import re
from dataclasses import dataclass

_INDEX = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class Target:
    """A ``FILE:FUNC`` argument.

    Attributes:
        path: the file as the user typed it.
        name: the function's name in that file; dots reach attributes (``Model.energy``).
    """

    path: str
    name: str

    def __str__(self):
        return f"{self.path}:{self.name}"


def target(text):
    """Parse a ``FILE:FUNC`` argument (an argparse ``type``).

    The last colon separates the two, so ``C:\\work\\model.py:energy`` also works.

    Args:
        text: the argument, e.g. ``"examples/spring_chain.py:energy"``.

    Returns:
        A ``Target``.

    Raises:
        argparse.ArgumentTypeError: no colon, or an empty file or function name.
    """
    path, colon, name = text.rpartition(":")
    if not colon or not path or not name:
        raise argparse.ArgumentTypeError(
            f"expected FILE:FUNC (e.g. model.py:energy), not {text!r}")
    return Target(path, name)


def wrt_option(text):
    """Parse ``--wrt``: comma-separated names (parameters or intermediate variables) or parameter
    indices (an argparse ``type``).

    Args:
        text: e.g. ``"x"``, ``"x,y"``, ``"0,2"``; a trailing comma (``"x,"``) asks for a tuple
            of one.

    Returns:
        One name or index for a single item (the gradient is then one value), else a tuple of them
        (the gradient is a tuple in that order).

    Raises:
        argparse.ArgumentTypeError: an empty item, or an item that is neither a name nor an integer.
    """
    items = [item.strip() for item in text.split(",")]
    single = len(items) == 1
    if not single and items[-1] == "":
        items.pop()
    parsed = []
    for item in items:
        if _INDEX.fullmatch(item):
            parsed.append(int(item))
        elif item.isidentifier():
            parsed.append(item)
        else:
            raise argparse.ArgumentTypeError(
                f"expected parameter names or indices separated by commas (e.g. x,y or 0,1), "
                f"not {text!r}")
    return parsed[0] if single else tuple(parsed)


def shapes_option(text):
    """Parse one ``--shapes`` argument: ``NAME=DIMS`` items, DIMS the comma-separated dimension
    names or sizes of the parameter's axes (an argparse ``type``); several items may share one
    argument, separated by spaces (``"X=n,d w=d"``).

    Args:
        text: e.g. ``"X=n,d"``, ``"b=1,d"`` (``1``: an axis of size 1), ``"x="`` (a scalar:
            the same as leaving it out).

    Returns:
        A list of ``(name, dims)`` pairs, ``dims`` a tuple of str and int.

    Raises:
        argparse.ArgumentTypeError: an item without ``=``, a name that is not an identifier, an
            empty dimension (``n,,d``), or a dimension that is neither a name nor an int >= 1.
    """
    items = text.split()
    if not items:
        raise argparse.ArgumentTypeError("expected NAME=DIMS (e.g. X=n,d w=d), not ''")
    parsed = []
    for item in items:
        name, equals, dims = item.partition("=")
        if not equals or not name.isidentifier():
            raise argparse.ArgumentTypeError(
                f"expected NAME=DIMS with DIMS dimension names or sizes separated by commas "
                f"(e.g. X=n,d w=d; x= for a scalar), not {item!r}")
        shape = []
        for d in dims.split(",") if dims else ():
            if d.isidentifier():
                shape.append(d)
            elif d.isdigit() and int(d) >= 1:
                shape.append(int(d))
            else:
                raise argparse.ArgumentTypeError(
                    f"{item!r}: each dimension is a name (n) or a size >= 1 (1 for a size-1 "
                    f"axis), not {d!r}")
        parsed.append((name, tuple(shape)))
    return parsed


def positive_int(text):
    """An argparse ``type``: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, not {text!r}")
    return value


def tolerance(text):
    """An argparse ``type``: a finite float >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 <= value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a number >= 0 (e.g. 1e-9), not {text!r}")
    return value

"""symgrad: differentiate Python source symbolically into readable, compiled gradient code.

Public names only; see ``symgrad.api`` and the README. Importing symgrad does not import SymPy: a
gradient found in the disk cache is compiled from its stored source, and the first build imports
the pipeline. ``check_grad``, ``assert_grad`` and ``GradientCheck`` are loaded (with SymPy) on first
use.
"""
__version__ = "0.1.0"

from .api import clear_cache, grad, hessian, jacobian, value_and_grad, vjp  # noqa: E402
from .errors import (CacheWarning, OptionError, OutputShapeError,  # noqa: E402
                     SourceUnavailableError, StaleGradientError, SymgradError,
                     UnsupportedSyntaxError)
from .export import export, latex  # noqa: E402
from .function import GradientFunction  # noqa: E402
from .stop import stop_gradient  # noqa: E402

_CHECK = ("GradientCheck", "assert_grad", "check_grad")  # in symgrad.check, which needs SymPy


def __getattr__(name):
    if name in _CHECK:
        from . import check
        return getattr(check, name)
    raise AttributeError(f"module 'symgrad' has no attribute {name!r}")


__all__ = [
    "CacheWarning", "GradientCheck", "GradientFunction", "OptionError", "OutputShapeError",
    "SourceUnavailableError", "StaleGradientError", "SymgradError", "UnsupportedSyntaxError",
    "assert_grad",
    "check_grad", "clear_cache", "export", "grad", "hessian", "jacobian", "latex",
    "stop_gradient", "value_and_grad", "vjp", "__version__",
]

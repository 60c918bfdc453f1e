"""symgrad: differentiate Python source symbolically into readable, compiled gradient code.

Public names only; see ``symgrad.api`` and the README.
"""
from .api import GradientFunction, clear_cache, grad, hessian, jacobian, value_and_grad, vjp
from .check import GradientCheck, assert_grad, check_grad
from .errors import (OptionError, OutputShapeError, SourceUnavailableError, SymgradError,
                     UnsupportedSyntaxError)
from .export import export, latex
from .rules import stop_gradient

__version__ = "0.1.0"

__all__ = [
    "GradientCheck", "GradientFunction", "assert_grad", "check_grad", "clear_cache", "export", "latex", "OptionError", "OutputShapeError", "SourceUnavailableError",
    "SymgradError", "UnsupportedSyntaxError", "grad", "hessian", "jacobian", "stop_gradient",
    "value_and_grad", "vjp", "__version__",
]

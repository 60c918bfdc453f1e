"""symgrad: differentiate Python source symbolically into readable, compiled gradient code.

Public names only; see ``symgrad.api`` and the README.
"""
from .api import GradientFunction, grad
from .errors import (OptionError, OutputShapeError, SourceUnavailableError, SymgradError,
                     UnsupportedSyntaxError)
from .rules import stop_gradient

__version__ = "0.1.0"

__all__ = [
    "GradientFunction", "OptionError", "OutputShapeError", "SourceUnavailableError",
    "SymgradError", "UnsupportedSyntaxError", "grad", "stop_gradient", "__version__",
]

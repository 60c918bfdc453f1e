"""Every ``>>>`` example in symgrad's public docstrings runs and prints what it claims."""
import doctest
import importlib

import pytest

MODULES = ["symgrad.api", "symgrad.stop", "symgrad.check", "symgrad.export"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

"""Tests that generate primal functions write them to real module files, since symgrad reads source."""
import importlib.util
import itertools

_counter = itertools.count()


def load_module(directory, source, prefix):
    """Write ``source`` to a new ``<prefix>_<n>.py`` in ``directory`` (a Path) and import it."""
    name = f"{prefix}_{next(_counter)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

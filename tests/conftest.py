"""Session set-up: the suite never reads or writes the user's real symgrad cache.

``SYMGRAD_CACHE_DIR`` is set, before any test runs, to a fresh temporary folder (under ``TMPDIR``,
which ``.ci/run`` points inside the clone), removed at the end of the session; subprocesses inherit
it.
"""
import os
import shutil
import tempfile

_CACHE_DIR = tempfile.mkdtemp(prefix="symgrad-test-cache-")
os.environ["SYMGRAD_CACHE_DIR"] = _CACHE_DIR


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)

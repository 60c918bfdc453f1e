"""The generated code pasted in README.md and docs/*.md is what the code generates now.

Each marked block (tests/docs_blocks.py: ``<!-- output -->``, ``<!-- generated: ... -->``) is made
again from this checkout and must equal the pasted text exactly; ``python tests/regen_docs.py``
rewrites the pages when it does not. A block needing a library that is not installed is skipped,
saying which.
"""
import difflib
import sys
import types

import pytest

import docs_blocks

_RESULTS = {}


def _blocks():
    params = []
    for path in docs_blocks.pages():
        for block in docs_blocks.Page(path).blocks:
            if block.kind in ("output", "generated"):
                params.append(pytest.param(path, block.line, id=f"{path}:{block.line}"))
    return params


def _result(path, line):
    if path not in _RESULTS:
        _RESULTS[path] = {block.line: (block, expected, reason)
                          for block, expected, reason in docs_blocks.Page(path).results()}
    return _RESULTS[path][line]


def test_every_page_has_marked_blocks():
    """A page that shows generated code (a line ``def grad_...`` in a fence) marks the block."""
    for path in docs_blocks.pages():
        page = docs_blocks.Page(path)
        marked = {line for block in page.blocks for line in range(block.start, block.stop)}
        lines = page.text.split("\n")
        fence = False
        for i, text in enumerate(lines):
            if text.startswith("```"):
                fence = not fence
            elif fence and text.startswith(("def grad_", "def value_and_grad_", "def jacobian_",
                                             "def hessian_", "def vjp_")):
                assert i in marked, (f"{path}:{i + 1} shows generated code in a block without a "
                                     "marker (tests/docs_blocks.py says how to mark it)")


@pytest.mark.parametrize("path, line", _blocks())
def test_block_is_regenerated_code(path, line):
    block, expected, reason = _result(path, line)
    if expected is None:
        pytest.skip(reason)
    if block.body != expected:
        diff = "\n".join(difflib.unified_diff(block.body, expected, "pasted", "generated now",
                                              lineterm=""))
        pytest.fail(f"{path}:{line}: the pasted block is not what the code generates now; "
                    f"run `{docs_blocks.FIX}` to rewrite it.\n{diff}", pytrace=False)


PAGE = '''Text.

<!-- file: demo.py
import math
-->
<!-- file: demo.py -->
```python
def cube(x):
    return x ** 3
```
<!-- generated: demo.py:cube -->
```python
def grad_cube(x):
    """stale"""
```
<!-- run: tour.py -->
```python
import symgrad
from demo import cube
print(symgrad.grad(cube, wrt="x").source)
print(1 + 1)
```
<!-- output -->
```
def grad_cube(x):
    return 0.0

2
```
'''

GRAD_CUBE = ['def grad_cube(x):',
             '    """Gradient of cube (demo.py, line 4) with respect to x."""',
             '    dcube_dx = 3.0 * (x * x)',
             '    return dcube_dx']


def test_a_stale_block_is_found_and_rewritten_once(monkeypatch):
    """The machinery itself: a hand-made page whose two blocks are stale. Both are found, rewritten
    to the code ``grad`` prints (the file's line 4: the hidden piece first), the output's other
    lines kept; rewriting again changes nothing. Another module named like a page's file (a test's
    ``model``) is set aside while the page runs, and put back."""
    other = types.ModuleType("demo")
    monkeypatch.setitem(sys.modules, "demo", other)
    page = docs_blocks.Page("demo.md", PAGE)
    results = page.results()
    assert [(block.kind, block.body == expected) for block, expected, _ in results] == [
        ("generated", False), ("output", False)]
    text, reasons = page.regenerate()
    assert reasons == []
    again = docs_blocks.Page("demo.md", text)
    assert [expected for _, expected, _ in again.results()] == [GRAD_CUBE, GRAD_CUBE + ["", "2"]]
    assert again.regenerate() == (text, [])
    assert sys.modules["demo"] is other


def test_segments_of_printed_output():
    lines = ["(1.0, 2.0)", "def grad_f(x):", "    a = 1", "", "    return a", "", "3.0",
             "def g(y):", "    return y"]
    assert docs_blocks.segments(lines) == [(1, 5), (7, 9)]


EXACT_PAGE = '''<!-- file: demo.py -->
```python
def cube(x):
    return x ** 3
```
<!-- run: tour.py -->
```python
print(1 + 1)
```
<!-- output: exact -->
```
3
```
<!-- commands: exact -->
```
$ D=demo.py
$ python -m symgrad show $D:cube; echo "exit status $?"
stale
$ python -m symgrad show $D:missing; echo "exit status $?"
```
'''


def test_an_exact_block_compares_every_line():
    """``output: exact`` and ``commands: exact`` blocks are made whole from the run: the printed
    number, a transcript's variables read, its commands' output and exit statuses."""
    page = docs_blocks.Page("demo.md", EXACT_PAGE)
    (output, printed, _), (commands, transcript, _) = page.results()
    assert output.body == ["3"] and printed == ["2"]
    assert commands.body != transcript
    assert transcript == (["$ D=demo.py", '$ python -m symgrad show $D:cube; echo "exit status $?"']
                          + GRAD_CUBE[:1] + [
        '    """Gradient of cube (demo.py, line 1) with respect to x."""'] + GRAD_CUBE[2:] + [
        "exit status 0", '$ python -m symgrad show $D:missing; echo "exit status $?"',
        "symgrad: error: demo.py has no function `missing` (functions: cube)", "exit status 2"])
    text, _ = page.regenerate()
    assert docs_blocks.Page("demo.md", text).regenerate() == (text, [])
    with pytest.raises(ValueError, match="not 'whole'"):
        docs_blocks.Page("demo.md", EXACT_PAGE.replace("output: exact", "output: whole")).results()


def test_an_exact_block_keeps_its_rounding_level_worst_size():
    """check_grad's "worst random size" line at a rounding-level error (the size and the error
    depend on the CPU's BLAS kernels) keeps the shown line; any other difference is compared."""
    shown = ["check_grad: equal", "  worst random size n=6, d=5: dl_dw (relative error 3.33e-16 in "
             "float64)", "  worst random size n=4, d=6: dl_dw (relative error 0.01 in float64)"]
    printed = ["check_grad: equal", "  worst random size n=5, d=6: dl_dw (relative error 4.3e-16 in "
               "float64)", "  worst random size n=4, d=6: dl_dw (relative error 0.02 in float64)"]
    assert docs_blocks._rounding_kept(shown, printed) == shown[:2] + printed[2:]
    assert docs_blocks._rounding_kept(shown[:1], printed) == printed

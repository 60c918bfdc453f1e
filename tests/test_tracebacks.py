"""A refusal's traceback reads like Python's: the user's line, the call into symgrad, the message.

The frames symgrad ran through to find the problem are left out (as JAX filters its tracebacks);
``SYMGRAD_FULL_TRACEBACK=1`` keeps them. The exception object itself is unchanged.
"""
import os
import subprocess
import sys
import textwrap
import traceback

import pytest

import symgrad

SYMGRAD_DIR = os.path.dirname(symgrad.__file__)


@pytest.fixture(autouse=True)
def trimmed(monkeypatch):
    """Trimmed tracebacks, whatever the environment of the test run says."""
    monkeypatch.delenv("SYMGRAD_FULL_TRACEBACK", raising=False)


def looping(x):
    while x > 1:
        x = x / 2
    return x


WHILE_LINE = looping.__code__.co_firstlineno + 1


def pair(x):
    return x, 2.0 * x


def square(x):
    return x * x


def dsquare_two_parameters(x, y):
    return 2.0 * x


def frames_of(call):
    """Call ``call()``, which must raise a SymgradError: (the error, its traceback frames, the
    first being this function's own)."""
    try:
        call()
    except symgrad.SymgradError as error:
        return error, traceback.extract_tb(error.__traceback__)
    raise AssertionError("no SymgradError raised")


def line_of(marker):
    """The number of the first line in this file holding ``marker``."""
    with open(__file__, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    return 1 + [i for i, line in enumerate(lines) if marker in line][0]


def test_a_refusal_from_grad_shows_the_users_line_and_grad():
    error, frames = frames_of(lambda: symgrad.grad(looping))  # call: grad-looping
    assert isinstance(error, symgrad.UnsupportedSyntaxError)
    assert [(os.path.basename(f.filename), f.name) for f in frames] == [
        ("test_tracebacks.py", "frames_of"), ("test_tracebacks.py", "<lambda>"),
        ("api.py", "grad")]
    assert frames[1].lineno == line_of("# call: grad-looping")
    text = "".join(traceback.format_exception(error))
    assert text.count('  File "') == 4  # three frames, then SyntaxError's own "File" line
    assert f'File "{__file__}", line {WHILE_LINE}\n    while x > 1:\n' in text
    assert text.rstrip().endswith("UnsupportedSyntaxError: `while` loops are not supported: "
                                  "rewrite as `for i in range(N)` with N known when the gradient "
                                  "is built")
    assert "During handling" not in text and "direct cause" not in text


@pytest.mark.parametrize("call, entry", [
    (lambda: symgrad.grad(wrt="z")(square), "<lambda>"),
    (lambda: symgrad.value_and_grad(looping), "value_and_grad"),
    (lambda: symgrad.jacobian(looping), "jacobian"),
    (lambda: symgrad.hessian(pair), "hessian"),
    (lambda: symgrad.vjp(square), "vjp"),
    (lambda: symgrad.grad(symgrad.grad(square), stop_gradients="x"), "grad"),
    (lambda: symgrad.check_grad(square, dsquare_two_parameters), "check_grad"),
    (lambda: symgrad.check_grad(looping, square), "check_grad"),
    (lambda: symgrad.assert_grad(looping, square), "assert_grad"),
    (lambda: symgrad.export(square, "unused.py"), "export"),
    (lambda: symgrad.latex(square), "latex"),
])
def test_every_public_entry_trims_its_refusals(call, entry):
    error, frames = frames_of(call)
    # frames_of and the lambda here (the user's code), then the one public function
    assert [f.filename for f in frames[:2]] == [__file__, __file__]
    assert len(frames) == 3
    assert frames[-1].name == entry
    assert os.path.dirname(frames[-1].filename) == SYMGRAD_DIR


def test_the_full_traceback_on_request_is_the_same_exception(monkeypatch):
    short, short_frames = frames_of(lambda: symgrad.grad(looping))
    monkeypatch.setenv("SYMGRAD_FULL_TRACEBACK", "1")
    symgrad.clear_cache()
    full, full_frames = frames_of(lambda: symgrad.grad(looping))
    assert len(full_frames) > 5  # frontend, source reading ... are all there
    assert any(os.path.basename(f.filename) == "frontend.py" for f in full_frames)
    assert type(full) is type(short) and str(full) == str(short)
    assert (full.filename, full.lineno, full.offset, full.text, full.hint) == (
        short.filename, short.lineno, short.offset, short.text, short.hint)
    monkeypatch.setenv("SYMGRAD_FULL_TRACEBACK", "0")  # 0 means off, like unset
    assert len(frames_of(lambda: symgrad.grad(looping))[1]) == len(short_frames) == 3


def test_a_script_prints_two_frames_and_the_caret(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""\
        import symgrad


        def halve(x):
            while x > 1:
                x = x / 2
            return x


        g = symgrad.grad(halve)
        """))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(SYMGRAD_DIR))
    env.pop("SYMGRAD_FULL_TRACEBACK", None)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=60)
    lines = done.stderr.splitlines()
    assert done.returncode == 1
    assert lines[:3] == ["Traceback (most recent call last):",
                         f'  File "{script}", line 10, in <module>',
                         "    g = symgrad.grad(halve)"]
    assert [line for line in lines if line.startswith('  File "')] == [
        f'  File "{script}", line 10, in <module>',
        f'  File "{os.path.join(SYMGRAD_DIR, "api.py")}", line '
        f'{lines[lines.index("    g = symgrad.grad(halve)") + 2].split("line ")[1]}',
        f'  File "{script}", line 5']
    assert lines[-1].startswith("symgrad.errors.UnsupportedSyntaxError: `while` loops")


def test_chaining_reads_as_if_symgrad_were_one_frame():
    # raised while the user handles a KeyError: the KeyError is the context, as Python would show
    try:
        try:
            {}["missing"]
        except KeyError:
            symgrad.grad(square, wrt="z")
    except symgrad.OptionError as error:
        assert isinstance(error.__context__, KeyError)
        text = "".join(traceback.format_exception(error))
        assert "During handling of the above exception, another exception occurred" in text
        assert text.count('  File "') == 3  # the KeyError's line, this test's line, grad
    # outside an except block there is no context
    error, _ = frames_of(lambda: symgrad.grad(square, wrt="z"))
    assert error.__context__ is None


def test_an_internal_context_is_replaced_by_the_users(monkeypatch):
    from symgrad import api

    def failing_build(*args, **kwargs):
        try:
            raise LookupError("internal")
        except LookupError:
            raise symgrad.OptionError("refused")  # noqa: B904 - an implicit context on purpose

    monkeypatch.setattr(api, "build", failing_build)
    error, frames = frames_of(lambda: symgrad.grad(square))
    assert str(error) == "refused" and error.__context__ is None and len(frames) == 3
    monkeypatch.setenv("SYMGRAD_FULL_TRACEBACK", "1")
    error, _ = frames_of(lambda: symgrad.grad(square))
    assert isinstance(error.__context__, LookupError)

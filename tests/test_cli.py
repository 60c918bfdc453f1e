"""The command line: ``python -m symgrad show FILE:FUNC [--wrt ...]`` and its one-line errors."""
import math
import os
import subprocess
import sys
import textwrap

import pytest

from symgrad import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPRING_CHAIN = os.path.join("examples", "spring_chain.py")
with open(os.path.join(ROOT, SPRING_CHAIN), encoding="utf-8") as _file:
    ENERGY_LINE = 1 + [line.startswith("def energy(") for line in _file].index(True)


def run(*args, cwd=ROOT):
    """``python -m symgrad ARGS`` in a subprocess: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "symgrad", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def compiled(source, name):
    namespace = {"math": math}
    exec(source, namespace)  # noqa: S102 - the source symgrad printed
    return namespace[name]


def minus_force(x1, x2, x3):
    """-F for examples/spring_chain.py (walls at 0 and 4, k = 4, 2, 2, 4, rest length 0.25)."""
    return (4 * (x1 - 0.25) - 2 * (x2 - x1 - 0.25),
            2 * (x2 - x1 - 0.25) - 2 * (x3 - x2 - 0.25),
            2 * (x3 - x2 - 0.25) - 4 * (4 - x3 - 0.25))


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# --- show ------------------------------------------------------------------------------------
def test_show_in_a_subprocess_prints_the_gradient_of_a_real_example():
    status, out, err = run("show", f"{SPRING_CHAIN}:energy")
    assert (status, err) == (0, "")
    assert out.startswith("def grad_energy(x1, x2, x3):\n")
    assert out.splitlines()[1].strip() == (f'"""Gradient of energy (spring_chain.py, '
                                           f'line {ENERGY_LINE}) with respect to x1, x2, x3."""')
    assert out.rstrip().endswith("return denergy_dx1, denergy_dx2, denergy_dx3")
    gradient = compiled(out, "grad_energy")
    for x in [(1.0, 2.0, 3.0), (0.75, 2.0, 3.25), (-1.0, 0.5, 7.0)]:
        assert gradient(*x) == pytest.approx(minus_force(*x), rel=1e-12, abs=1e-12)


def test_show_prints_the_same_source_as_grad(in_root, capsys):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import spring_chain
    finally:
        sys.path.remove(os.path.join(ROOT, "examples"))
    import symgrad
    assert cli.main(["show", f"{SPRING_CHAIN}:energy"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == symgrad.grad(spring_chain.energy).source


@pytest.mark.parametrize("wrt, returned", [
    ("x2", "return denergy_dx2"),
    ("1", "return denergy_dx2"),
    ("-2", "return denergy_dx2"),
    ("x1,x3", "return denergy_dx1, denergy_dx3"),
    ("0,2", "return denergy_dx1, denergy_dx3"),
    ("x3, x1", "return denergy_dx3, denergy_dx1"),
    ("x2,", "return denergy_dx2,"),
])
def test_show_wrt(in_root, capsys, wrt, returned):
    assert cli.main(["show", f"{SPRING_CHAIN}:energy", f"--wrt={wrt}"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.rstrip().splitlines()[-1].strip() == returned
    names = [part.strip() for part in wrt.split(",") if part.strip()]
    gradient = compiled(out, "grad_energy")
    value = gradient(1.0, 2.0, 3.0)
    full = minus_force(1.0, 2.0, 3.0)
    order = [int(n) if n.lstrip("-").isdigit() else int(n[1]) - 1 for n in names]
    expected = tuple(full[i] for i in order)
    if "," not in wrt:  # one name or index: one value, not a tuple
        assert value == pytest.approx(expected[0])
    else:
        assert value == pytest.approx(expected)


def test_show_wrt_names_the_parameters_in_the_docstring(in_root, capsys):
    assert cli.main(["show", f"{SPRING_CHAIN}:energy", "--wrt", "x1,x3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].strip() == (
        f'"""Gradient of energy (spring_chain.py, line {ENERGY_LINE}) with respect to x1, x3."""')


def test_show_loads_the_files_own_imports_and_not_its_main_block(tmp_path, capsys):
    (tmp_path / "cli_helpers_mod.py").write_text("def square(t):\n    return t * t\n")
    (tmp_path / "model.py").write_text(textwrap.dedent("""\
        from cli_helpers_mod import square

        def f(x):
            return square(x) + 3 * x

        if __name__ == "__main__":
            raise SystemExit("the main block must not run")
        """))
    path_before = list(sys.path)
    try:
        assert cli.main(["show", f"{tmp_path / 'model.py'}:f"]) == 0
    finally:
        sys.modules.pop("cli_helpers_mod", None)
    out, err = capsys.readouterr()
    assert err == ""
    assert compiled(out, "grad_f")(2.0) == 7.0
    assert sys.path == path_before


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0
    assert "show" in capsys.readouterr().out


# --- errors: one line on stderr, status 2, never a traceback ---------------------------------
BAD = textwrap.dedent("""\
    import math

    LIMIT = 3


    def looping(x):
        while x > 1:
            x = x / 2
        return x


    def unknown_name(x):
        return undefined_helper(x) + 1


    def pair(x, y):
        return x, y


    def unknown_derivative(x):
        return math.gamma(x)


    def good(x, y):
        return x * y
    """)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "broken.py").write_text("def f(x:\n    return x\n")
    (tmp_path / "needs.py").write_text("import symgrad_no_such_module\n\ndef f(x):\n    return x\n")
    (tmp_path / "raises.py").write_text("raise RuntimeError('boom at import')\n")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "folder").mkdir()
    return tmp_path


ERRORS = [
    (["show", "missing.py:f"], "missing.py: no such file"),
    (["show", "folder:f"], "folder: not a file"),
    (["show", "broken.py:f"], "broken.py:1:6: "),
    (["show", "needs.py:f"],
     "cannot import needs.py: ModuleNotFoundError: No module named 'symgrad_no_such_module'"),
    (["show", "raises.py:f"], "cannot import raises.py: RuntimeError: boom at import"),
    (["show", "exits.py:f"], "cannot import exits.py: SystemExit: 3"),
    (["show", "bad.py:nothing"], "bad.py has no function `nothing`"),
    (["show", "bad.py:lopping"], "bad.py has no function `lopping`: did you mean `looping`?"),
    (["show", "bad.py:LIMIT"], "`LIMIT` in bad.py is an int, not a function"),
    (["show", "bad.py:math"], "`math` in bad.py is a module, not a function"),
    (["show", "bad.py:looping"], "bad.py:7:5: `while` loops are not supported: "),
    (["show", "bad.py:unknown_name"], "bad.py:13:12: "),
    (["show", "bad.py:unknown_derivative"], "bad.py:21:12: "),
    (["show", "bad.py:pair"], "grad needs a function returning one number"),
    (["show", "bad.py:good", "--wrt", "z"], "'z'"),
    (["show", "bad.py:good", "--wrt", "5"], "wrt index 5 is out of range"),
    (["show", "bad.py:good", "--wrt", "x,x"], "twice"),
]


@pytest.mark.parametrize("argv, expected", ERRORS, ids=[" ".join(a[1:]) for a, _ in ERRORS])
def test_user_errors_print_one_line_and_exit_2(files, capsys, argv, expected):
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert err.startswith("symgrad: error: ")
    assert expected in err


def test_unsupported_syntax_names_file_line_and_column_in_a_subprocess(files):
    status, out, err = run("show", "bad.py:looping", cwd=files)
    assert (status, out) == (2, "")
    assert err == ("symgrad: error: bad.py:7:5: `while` loops are not supported: rewrite as "
                   "`for i in range(N)` with N known when the gradient is built\n")


@pytest.mark.parametrize("argv", [[], ["show"], ["show", "no_colon.py"], ["frobnicate", "a:b"],
                                  ["show", "a.py:f", "--wrt", "x-y"]])
def test_bad_arguments_exit_2_with_usage(capsys, argv):
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: symgrad")
    assert "error:" in err and "Traceback" not in err


# --- check, export and show --latex (SPEC section 3) ---------------------------------------------
LOGISTIC = '''\
import math


def loss(w, b):
    return math.log(1.0 + math.exp(-(2.0 * w + b)))


def loss_grad(w, b):
    s = 1.0 / (1.0 + math.exp(2.0 * w + b))
    return -2.0 * s, -s


def loss_grad_wrong(w, b):
    s = 1.0 / (1.0 + math.exp(2.0 * w + b))
    return 2.0 * s, -s
'''


def test_check_exit_status_follows_the_verdict(tmp_path, capsys):
    from symgrad import cli
    path = tmp_path / "logistic.py"
    path.write_text(LOGISTIC)
    assert cli.main(["check", f"{path}:loss", f"{path}:loss_grad"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal")
    assert cli.main(["check", f"{path}:loss", f"{path}:loss_grad_wrong"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("check_grad: different") and "dloss_dw" in out


def test_export_writes_a_module_that_runs(tmp_path, capsys):
    import subprocess
    import sys
    from symgrad import cli
    path = tmp_path / "logistic.py"
    path.write_text(LOGISTIC)
    out_file = tmp_path / "loss_grad_module.py"
    assert cli.main(["export", f"{path}:loss", "-o", str(out_file)]) == 0
    assert "wrote" in capsys.readouterr().out
    result = subprocess.run([sys.executable, "-c", "import loss_grad_module as m; "
                             "print(m.grad_loss(0.0, 0.0))"], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    # at w = b = 0: s = 1/2, so the gradient is (-1, -1/2)
    assert result.stdout.strip() == "(-1.0, -0.5)"


def test_show_latex_prints_each_derivative(tmp_path, capsys):
    from symgrad import cli
    path = tmp_path / "poly.py"
    path.write_text("def poly(x, y):\n    return x * x * y\n")
    assert cli.main(["show", f"{path}:poly", "--latex"]) == 0
    assert capsys.readouterr().out.splitlines() == ["dpoly_dx = 2 x y", "dpoly_dy = x^{2}"]


def test_show_of_a_decorated_function_prints_its_own_source(tmp_path, capsys):
    from symgrad import cli
    path = tmp_path / "decorated.py"
    path.write_text("import symgrad\n\n\n@symgrad.grad\ndef energy(x, y):\n"
                    "    return x * x + y * y\n")
    assert cli.main(["show", f"{path}:energy"]) == 0
    assert capsys.readouterr().out.startswith("def grad_energy(x, y):")

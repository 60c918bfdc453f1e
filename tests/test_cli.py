"""The command line: ``python -m symgrad show FILE:FUNC [--wrt ...]`` and its one-line errors."""
import json
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


# --- check, export and show --latex (docs/checking.md, docs/export.md) ----------------------------
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


GATHER = textwrap.dedent("""\
    import numpy as np

    INDEX = np.array([0, 2, 0])
    WEIGHTS = np.array([0.5, 1.5, -2.0])


    def gather(E):
        return np.sum(WEIGHTS[:, None] * E[INDEX] ** 2)
    """)


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "array_api"])
def test_export_backend_writes_the_constants_it_reads(tmp_path, capsys, backend):
    """``export --backend B`` of code reading module constants: the module imports only B's
    library, defines INDEX and WEIGHTS with it, and gives 2 * WEIGHTS * E added into the rows
    INDEX picks (row 0 twice) in a fresh process; ``show --backend B`` prints the same function."""
    pytest.importorskip({"numpy": "numpy", "jax": "jax", "torch": "torch",
                         "array_api": "array_api_compat"}[backend])
    from symgrad.backends import BACKENDS
    (tmp_path / "gather.py").write_text(GATHER)
    out_file = tmp_path / f"gather_{backend}.py"
    assert cli.main(["export", f"{tmp_path / 'gather.py'}:gather", "--backend", backend,
                     "--shapes", "E=n,k", "-o", str(out_file)]) == 0  # in process: the CLI's
    assert capsys.readouterr().err == ""  # own subprocess path is tested above
    text = out_file.read_text()
    assert [line for line in text.splitlines() if line.startswith(("import ", "from "))] == [
        BACKENDS[backend].imports]
    assert f"INDEX = {BACKENDS[backend].literal}([0, 2, 0], dtype=" in text
    assert cli.main(["show", f"{tmp_path / 'gather.py'}:gather", "--backend", backend,
                     "--shapes", "E=n,k"]) == 0
    shown, err = capsys.readouterr()
    assert err == "" and shown in text
    argument = {"numpy": "E", "jax": "__import__('jax.numpy').numpy.asarray(E)",
                "torch": "__import__('torch').from_numpy(E)", "array_api": "E"}[backend]
    code = ("import jax; jax.config.update('jax_enable_x64', True)\n" if backend == "jax" else "")
    code += (f"import json\nimport numpy as np\nimport gather_{backend} as m\n"
             "E = np.arange(8.0).reshape(4, 2) / 3.0\n"
             f"print(json.dumps(np.asarray(m.grad_gather({argument})).tolist()))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    E = [[row * 2 / 3.0, (row * 2 + 1) / 3.0] for row in range(4)]
    want = [[2 * (0.5 + -2.0) * E[0][j] for j in range(2)], [0.0, 0.0],
            [2 * 1.5 * E[2][j] for j in range(2)], [0.0, 0.0]]
    got = json.loads(done.stdout)
    assert got == [[pytest.approx(v, rel=1e-12, abs=0) for v in row] for row in want]


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


def test_show_with_shapes_of_a_decorated_function_keeps_its_wrt_and_stop_gradients(tmp_path,
                                                                                    capsys):
    """``--shapes`` builds again from the primal: with the decorator's wrt and stop_gradients
    (they were dropped: every parameter differentiated, the stopped target moving)."""
    import numpy as np
    from symgrad import cli
    path = tmp_path / "decorated_loss.py"
    path.write_text("import numpy as np\nimport symgrad\n\n\n"
                    "@symgrad.grad(wrt='w', stop_gradients='t')\ndef loss(w, X, y):\n"
                    "    t = 0.5 * y + 0.1 * np.sum(w)\n"
                    "    r = X @ w - t\n    return np.sum(r * r)\n")
    assert cli.main(["show", f"{path}:loss", "--shapes", "w=d", "X=n,d", "y=n"]) == 0
    source = capsys.readouterr().out
    assert "def grad_loss(w, X, y):" in source and "with respect to w." in source
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - the printed gradient, run as a user would paste it
    X = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])
    y, w = np.array([1.0, -2.0, 0.5]), np.array([0.3, -0.7])
    t = 0.5 * y + 0.1 * np.sum(w)  # stopped: d/dw sum (Xw - t)^2 = 2 X^T (Xw - t)
    np.testing.assert_allclose(namespace["grad_loss"](w, X, y), 2 * X.T @ (X @ w - t),
                               rtol=1e-14)
    assert cli.main(["show", f"{path}:loss", "--shapes", "w=d", "X=n,d", "y=n", "--wrt",
                     "w,y"]) == 0  # what the command line gives wins
    assert "with respect to w, y." in capsys.readouterr().out


# --- --version, --kind, --strategy, check --points/--rtol/--seed, the function list, --force -----
def test_version_prints_the_package_version(capsys):
    import symgrad
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"symgrad {symgrad.__version__}\n"
    status, out, err = run("--version")
    assert (status, out, err) == (0, f"symgrad {symgrad.__version__}\n", "")


KIND_FILE = '''\
import math


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def poly(x, y):
    return x * x * y + y ** 3
'''


@pytest.mark.parametrize("kind, target, args, expected", [
    # poly = x^2 y + y^3: gradient (2xy, x^2 + 3y^2), Hessian ((2y, 2x), (2x, 6y))
    ("grad", "poly", (1.5, -2.0), (-6.0, 14.25)),
    ("value_and_grad", "poly", (1.5, -2.0), (-12.5, (-6.0, 14.25))),
    ("hessian", "poly", (1.5, -2.0), ((-4.0, 3.0), (3.0, -12.0))),
    # polar: rows (cos t, -r sin t), (sin t, r cos t); vjp with cotangents (1, 0) is row 0
    ("jacobian", "polar", (2.0, 0.0), ((1.0, -0.0), (0.0, 2.0))),
    ("vjp", "polar", (2.0, 0.0, 1.0, 0.0), (1.0, 0.0)),
])
def test_show_kind_prints_that_member_of_the_family(tmp_path, capsys, kind, target, args,
                                                    expected):
    path = tmp_path / "kinds.py"
    path.write_text(KIND_FILE)
    assert cli.main(["show", f"{path}:{target}", "--kind", kind]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith(f"def {kind}_{target}(")
    assert compiled(out, f"{kind}_{target}")(*args) == expected  # exact in floats here


def test_show_kind_latex_and_export_kind(tmp_path, capsys):
    path = tmp_path / "kinds.py"
    path.write_text(KIND_FILE)
    assert cli.main(["show", f"{path}:poly", "--kind", "hessian", "--latex"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "d2poly_dx_dx = 2 y", "d2poly_dx_dy = 2 x", "d2poly_dy_dx = 2 x", "d2poly_dy_dy = 6 y"]
    out_file = tmp_path / "poly_hessian.py"
    assert cli.main(["export", f"{path}:poly", "--kind", "hessian", "-o", str(out_file)]) == 0
    assert capsys.readouterr().out == f"wrote {out_file}: hessian_poly\n"
    assert compiled(out_file.read_text(), "hessian_poly")(1.5, -2.0) == ((-4.0, 3.0), (3.0, -12.0))


def test_a_bad_kind_is_a_usage_error(capsys):
    assert cli.main(["show", "a.py:f", "--kind", "laplacian"]) == 2
    assert "invalid choice: 'laplacian'" in capsys.readouterr().err


@pytest.mark.parametrize("strategy", ["auto", "symbolic", "reverse"])
def test_strategy_is_passed_to_show_export_and_check(in_root, capsys, tmp_path, strategy):
    import symgrad
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import spring_chain
    finally:
        sys.path.remove(os.path.join(ROOT, "examples"))
    assert cli.main(["show", f"{SPRING_CHAIN}:energy", "--strategy", strategy]) == 0
    out = capsys.readouterr().out
    assert out == symgrad.grad(spring_chain.energy, strategy=strategy).source
    assert compiled(out, "grad_energy")(1.0, 2.0, 3.0) == pytest.approx(minus_force(1.0, 2.0, 3.0))
    out_file = tmp_path / "energy_grad.py"
    assert cli.main(["export", f"{SPRING_CHAIN}:energy", "--strategy", strategy,
                     "-o", str(out_file)]) == 0
    assert out_file.read_text().endswith(out)
    capsys.readouterr()
    spring = tmp_path / "spring_hand.py"
    spring.write_text(f"def minus_force(x1, x2, x3):\n    return {minus_force_source()}\n")
    assert cli.main(["check", f"{SPRING_CHAIN}:energy", f"{spring}:minus_force",
                     "--strategy", strategy, "--points", "2"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal, basis symbolic")


def minus_force_source():
    return ("(4 * (x1 - 0.25) - 2 * (x2 - x1 - 0.25), 2 * (x2 - x1 - 0.25) - 2 * (x3 - x2 - 0.25), "
            "2 * (x3 - x2 - 0.25) - 4 * (4 - x3 - 0.25))")


def test_check_points_rtol_and_seed_reach_check_grad(tmp_path, capsys):
    import symgrad
    path = tmp_path / "logistic.py"
    path.write_text(LOGISTIC)
    sys.path.insert(0, str(tmp_path))
    try:
        import logistic
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("logistic", None)
    for argv, options in [([], {}), (["--points", "3"], dict(points=3)),
                          (["--seed", "7"], dict(seed=7)),
                          (["--points", "4", "--seed", "2"], dict(points=4, seed=2))]:
        assert cli.main(["check", f"{path}:loss", f"{path}:loss_grad", *argv]) == 0
        out = capsys.readouterr().out
        assert out == str(symgrad.check_grad(logistic.loss, logistic.loss_grad, **options)) + "\n"
        assert f"({options.get('points', 10)} points, " in out.replace("wrt w, b, ", "(")
    # the wrong gradient is off by 4s / max(1, 2s) <= 2: different at rtol 1, equal at rtol 5
    assert cli.main(["check", f"{path}:loss", f"{path}:loss_grad_wrong", "--rtol", "1"]) == 1
    assert "rtol 1)" in capsys.readouterr().out.splitlines()[0]
    assert cli.main(["check", f"{path}:loss", f"{path}:loss_grad_wrong", "--rtol", "5"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal, basis numeric (wrt w, b, 10 "
                                              "points, rtol 5)")


@pytest.mark.parametrize("argv, expected", [
    (["--points", "0"], "argument --points: expected a whole number >= 1, not '0'"),
    (["--points", "many"], "argument --points: expected a whole number >= 1, not 'many'"),
    (["--rtol", "-1"], "argument --rtol: expected a number >= 0 (e.g. 1e-9), not '-1'"),
    (["--rtol", "nan"], "argument --rtol: expected a number >= 0 (e.g. 1e-9), not 'nan'"),
    (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
])
def test_bad_check_options_are_usage_errors(capsys, argv, expected):
    assert cli.main(["check", "a.py:f", "a.py:df", *argv]) == 2
    assert expected in capsys.readouterr().err


def test_check_of_the_black_scholes_greeks(capsys):
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                        "check_black_scholes.py")
    assert cli.main(["check", f"{path}:call", f"{path}:greeks"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal, basis numeric")
    assert cli.main(["check", f"{path}:call", f"{path}:greeks_wrong_vega"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("check_grad: different, basis numeric")
    assert "  dblack_scholes_call_dsigma differs: " in out and out.count("differs") == 1


def test_check_accepts_a_decorated_gradient_as_df(tmp_path, capsys):
    path = tmp_path / "decorated.py"
    path.write_text("import symgrad\n\n\ndef energy(x, y):\n    return x * x * y\n\n\n"
                    "denergy = symgrad.grad(energy)\n")
    assert cli.main(["check", f"{path}:energy", f"{path}:denergy"]) == 0
    assert capsys.readouterr().out.startswith("check_grad: equal, basis symbolic")


def test_no_function_named_lists_every_function_or_the_first_ten(tmp_path, capsys):
    few = tmp_path / "few.py"
    few.write_text("import math\nfrom os.path import join\n\nSCALE = 2.0\n\n\n"
                   "def b(x):\n    return x\n\n\ndef a(x):\n    return x\n\n\n"
                   "class Model:\n    def energy(self, x):\n        return x\n")
    assert cli.main(["show", f"{few}:nothing"]) == 2
    assert capsys.readouterr().err == (
        f"symgrad: error: {few} has no function `nothing` (functions: a, b)\n")
    many = tmp_path / "many.py"
    many.write_text("".join(f"def f{i:02d}(x):\n    return x\n\n\n" for i in range(13)))
    assert cli.main(["show", f"{many}:g"]) == 2
    assert capsys.readouterr().err == (
        f"symgrad: error: {many} has no function `g` (functions: f00, f01, f02, f03, f04, f05, "
        "f06, f07, f08, f09 and 3 more)\n")
    assert cli.main(["show", f"{many}:f07x"]) == 2
    err = capsys.readouterr().err
    assert "has no function `f07x`: did you mean `f07`? (functions: f00, " in err
    assert cli.main(["show", f"{few}:Model.enrgy"]) == 2
    assert capsys.readouterr().err == (
        "symgrad: error: Model has no function `enrgy`: did you mean `energy`? "
        "(functions: energy)\n")
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    assert cli.main(["show", f"{empty}:f"]) == 2
    assert capsys.readouterr().err == (
        f"symgrad: error: {empty} has no function `f` (it defines no functions)\n")


def test_force_is_named_by_its_flag(tmp_path, capsys):
    path = tmp_path / "logistic.py"
    path.write_text(LOGISTIC)
    out_file = tmp_path / "loss_grad.py"
    out_file.write_text("# mine\n")
    assert cli.main(["export", f"{path}:loss", "-o", str(out_file)]) == 2
    err = capsys.readouterr().err
    assert err == f"symgrad: error: {out_file} exists: pass --force to replace it\n"
    assert out_file.read_text() == "# mine\n"
    assert cli.main(["export", f"{path}:loss", "-o", str(out_file), "--force"]) == 0
    assert "def grad_loss(w, b):" in out_file.read_text()

"""The family on array code beyond grad: latex in matrix notation, a standalone export that
defines the constant arrays the code reads, and the command line's --shapes."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symgrad
from symgrad import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "benchmarks"))
import array_workloads as workloads  # noqa: E402

SHAPES = {"w": ("d",), "X": ("n", "d"), "y": ("n",)}


def least_squares(w, b, X, y):
    n = X.shape[0]
    return np.sum((X @ w + b - y) ** 2) / (2 * n)


# --- latex ---------------------------------------------------------------------------------------
def test_latex_of_least_squares_is_matrix_notation():
    gradient = symgrad.grad(least_squares, wrt=("w", "b"), shapes=SHAPES)
    assert symgrad.latex(gradient) == (r"\frac{X^{T} \left(b - y + X w\right)}{n}",
                                       r"\frac{\sum \left(b - y + X w\right)}{n}")


def test_latex_writes_hadamard_products_reductions_by_axis_and_elementwise_fractions():
    mlp = symgrad.grad(workloads.mlp, wrt="b1", shapes=workloads.SHAPES["A6"])
    (db1,) = symgrad.latex(mlp)
    assert db1.startswith(r"\frac{2 \sum_{\text{axis } 0} \left(w_{2} \odot \left(1 - \tanh^{2}")
    assert r"{\left(- y + \left(\tanh{\left(b_{1} + X W_{1} \right)}\right) w_{2}\right)}" \
           r"_{[:, \text{None}]}" in db1
    logistic = symgrad.grad(workloads.logistic, wrt="w", shapes=workloads.SHAPES["A2"])
    assert symgrad.latex(logistic) == (
        r"0.02 w - \frac{X^{T} \left(\frac{y}{e^{y \odot X w} + 1}\right)}{n}",)


def test_latex_of_slices_and_their_scatter_add():
    (text,) = symgrad.latex(symgrad.grad(workloads.rosenbrock, shapes={"x": ("n",)}))
    assert text.startswith(r"\operatorname{scatter\_add}\left(")
    assert r"\text{ at } [:-1],\ 200 {x}_{[1:]} - 200 \left({x}_{[:-1]}\right)^{2} \text{ at } " \
           r"[1:]\right)" in text


def test_latex_of_array_code_built_at_call_needs_a_call():
    gradient = symgrad.grad(least_squares, wrt="w")
    with pytest.raises(symgrad.OptionError, match="first call"):
        symgrad.latex(gradient)
    rng = np.random.default_rng(0)
    gradient(rng.standard_normal(2), 0.5, rng.standard_normal((3, 2)), rng.standard_normal(3))
    assert symgrad.latex(gradient) == (r"\frac{X^{T} \left(b - y + X w\right)}{n}",)


# --- export of code reading constant arrays ------------------------------------------------------
WEIGHTS = np.array([0.5, 1.5, -2.0, 0.1])
MIX = np.arange(30.0).reshape(5, 6) / 7.0
PICK = np.array([0, 2, 2, 1])
HUGE = np.ones(20000)


def weighted(x, v):
    return np.sum(WEIGHTS * x ** 2) + np.sum(np.tanh(MIX @ v)) + np.sum(x[PICK] ** 3)


def huge(x):
    return np.sum(HUGE * x)


def test_export_defines_the_constant_arrays_it_reads(tmp_path):
    gradient = symgrad.grad(weighted, shapes={"x": (4,), "v": (6,)})
    path = tmp_path / "weighted_gradient.py"
    symgrad.export(gradient, path)
    text = path.read_text()
    assert "WEIGHTS = np.array([0.5, 1.5, -2.0, 0.1], dtype=np.float64)" in text
    assert "PICK = np.array([0, 2, 2, 1], dtype=np.int64)" in text
    assert "], dtype=np.float64).reshape((5, 6))" in text  # MIX, wrapped at 100 columns
    assert max(len(line) for line in text.splitlines()) <= 100
    imports = [line for line in text.splitlines() if line.startswith(("import", "from"))]
    assert imports == ["import numpy as np"]
    namespace = {}
    exec(compile(text, str(path), "exec"), namespace)  # noqa: S102 - a fresh namespace
    np.testing.assert_array_equal(namespace["MIX"], MIX)
    assert namespace["PICK"].dtype == PICK.dtype
    rng = np.random.default_rng(1)
    x, v = rng.standard_normal(4), rng.standard_normal(6)
    dx, dv = namespace["grad_weighted"](x, v)
    expected_dx = 2 * WEIGHTS * x + np.bincount(PICK, 3 * x[PICK] ** 2, minlength=4)
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-13)
    np.testing.assert_allclose(dv, MIX.T @ (1 - np.tanh(MIX @ v) ** 2), rtol=1e-13)
    ours = gradient(x, v)
    np.testing.assert_array_equal(dx, ours[0])
    np.testing.assert_array_equal(dv, ours[1])


def test_export_refuses_a_constant_too_large_for_a_literal(tmp_path):
    gradient = symgrad.grad(huge, shapes={"x": ("n",)})
    with pytest.raises(symgrad.OptionError, match=r"`HUGE` is a constant array of 20000 "
                                                  r"elements \(more than 10000\)"):
        symgrad.export(gradient, tmp_path / "huge.py")
    assert not (tmp_path / "huge.py").exists()


# --- the command line ----------------------------------------------------------------------------
MODULE = textwrap.dedent("""\
    import numpy as np


    def least_squares(w, b, X, y):
        n = X.shape[0]
        return np.sum((X @ w + b - y) ** 2) / (2 * n)


    def least_squares_grad(w, b, X, y):
        r = (X @ w + b - y) / X.shape[0]
        return X.T @ r, r.sum()


    def least_squares_grad_wrong(w, b, X, y):
        r = (X @ w + b - y) / (2 * X.shape[0])
        return X.T @ r, r.sum()


    def rowwise(W, b):
        return np.sum(np.exp(W + b))
    """)


@pytest.fixture
def module(tmp_path, monkeypatch):
    (tmp_path / "ls.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_show_with_shapes_prints_the_array_gradient(module, capsys):
    status = cli.main(["show", "ls.py:least_squares", "--wrt", "w,b", "--shapes", "X=n,d",
                       "w=d", "y=n", "b="])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("def grad_least_squares(w, b, X, y):\n")
    assert "    n = X.shape[0]\n    d = X.shape[1]\n" in out
    assert "    dleast_squares_dw = _t0 * (X.T @ _dproduct)\n" in out
    assert out.endswith("    return dleast_squares_dw, dleast_squares_db\n")


def test_shapes_in_one_argument_and_size_one_axes(module, capsys):
    assert cli.main(["show", "ls.py:rowwise", "--shapes", "W=n,d b=1,d"]) == 0
    out = capsys.readouterr().out
    assert "    if b.shape[1] != d:\n" in out  # b's first axis has size 1: not a named size
    assert "    drowwise_db = drowwise_dW.sum(axis=0, keepdims=True)\n" in out


def test_show_latex_with_shapes(module, capsys):
    assert cli.main(["show", "ls.py:least_squares", "--wrt", "w,b", "--latex", "--shapes",
                     "X=n,d", "w=d", "y=n"]) == 0
    assert capsys.readouterr().out == (
        "dleast_squares_dw = \\frac{X^{T} \\left(b - y + X w\\right)}{n}\n"
        "dleast_squares_db = \\frac{\\sum \\left(b - y + X w\\right)}{n}\n")


def test_check_with_shapes(module, capsys):
    shapes = ["--shapes", "X=n,d", "w=d", "y=n"]
    assert cli.main(["check", "ls.py:least_squares", "ls.py:least_squares_grad", "--wrt", "w,b",
                     *shapes]) == 0
    out = capsys.readouterr().out
    assert out.startswith("check_grad: equal, basis symbolic (wrt w, b, 5 points")
    assert cli.main(["check", "ls.py:least_squares", "ls.py:least_squares_grad_wrong", "--wrt",
                     "w,b", *shapes]) == 1
    assert "dleast_squares_dw differs at [0], [1] on the shape n=3, d=2" in capsys.readouterr().out


def test_export_with_shapes(module, capsys):
    assert cli.main(["export", "ls.py:least_squares", "-o", "out.py", "--wrt", "w", "--shapes",
                     "X=n,d", "w=d", "y=n"]) == 0
    assert capsys.readouterr().out == "wrote out.py: grad_least_squares\n"
    namespace = {}
    exec((module / "out.py").read_text(), namespace)  # noqa: S102 - a fresh namespace
    rng = np.random.default_rng(2)
    w, X, y = rng.standard_normal(3), rng.standard_normal((5, 3)), rng.standard_normal(5)
    np.testing.assert_allclose(namespace["grad_least_squares"](w, 0.5, X, y),
                               X.T @ (X @ w + 0.5 - y) / 5, rtol=1e-13)


@pytest.mark.parametrize("spec, message", [
    (["X=n,,d"], "argument --shapes: 'X=n,,d': each dimension is a name (n) or a size >= 1 "
                 "(1 for a size-1 axis), not ''"),
    (["X"], "argument --shapes: expected NAME=DIMS with DIMS dimension names or sizes separated "
            "by commas (e.g. X=n,d w=d; x= for a scalar), not 'X'"),
    (["X=n,0"], "not '0'"),
    (["X=n,-1"], "not '-1'"),
    (["3X=n"], "not '3X=n'"),
    ([], "argument --shapes: expected at least one argument"),
    (["Z=n"], "symgrad: error: shapes names 'Z', which is not a parameter of `least_squares` "
              "('w', 'b', 'X', 'y')"),
    (["X=n,d", "X=d"], "symgrad: error: --shapes gives X twice"),
])
def test_malformed_shapes_are_usage_errors(module, capsys, spec, message):
    assert cli.main(["show", "ls.py:least_squares", "--shapes", *spec]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
    assert "Traceback" not in captured.err


def test_array_code_without_shapes_names_the_option(module):
    done = subprocess.run([sys.executable, "-m", "symgrad", "show", "ls.py:least_squares"],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("symgrad: error: `least_squares` computes with arrays: give their "
                           "shapes, NAME=DIMS for each parameter of least_squares(w, b, X, y), "
                           "e.g. --shapes X=n,d w=d (names for sizes, 1 for a size-1 axis, x= "
                           "for a number)\n")


def blocks(x, A):
    return np.sum(x.reshape(2, -1) ** 3) + np.sum(np.einsum("ij,j->i", A, x))


def test_latex_of_layout_without_matrix_notation_is_named_with_its_parameters():
    gradient = symgrad.grad(blocks, wrt="x", shapes={"x": (4,), "A": (4, 4)})
    assert symgrad.latex(gradient) == (  # a broadcast 1 prints as 1
        r"\operatorname{einsum}_{\text{i,ij->j}}\left(1, A\right) + 3 \operatorname{reshape}_{"
        r"\left( 4,\right)}\left(\left(\operatorname{reshape}_{\left( 2, \  2\right)}\left(x"
        r"\right)\right)^{2}\right)",)


MASK = np.array([[True, False], [False, True]])
SMALL = np.array([0.1, 0.2], dtype=np.float32)
NONE = np.zeros((0, 2))


def masked(x):
    return np.sum(np.where(MASK, x, 0.0) * SMALL) + np.sum(np.concatenate((NONE, x)) ** 3)


def test_export_writes_bool_float32_and_empty_constants_exactly(tmp_path):
    gradient = symgrad.grad(masked, shapes={"x": (2, 2)})
    symgrad.export(gradient, tmp_path / "masked.py")
    text = (tmp_path / "masked.py").read_text()
    namespace = {}
    exec(compile(text, "masked.py", "exec"), namespace)  # noqa: S102 - a fresh namespace
    for name, value in (("MASK", MASK), ("SMALL", SMALL), ("NONE", NONE)):  # all three read
        assert namespace[name].dtype == value.dtype and namespace[name].shape == value.shape
        np.testing.assert_array_equal(namespace[name], value)
    assert "MASK = np.array([True, False, False, True], dtype=np.bool_).reshape((2, 2))" in text
    x = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(namespace["grad_masked"](x), gradient(x))


def ratio(x, y, z, w):
    return np.sum(x * y * z / w)


def test_latex_of_an_elementwise_fraction_of_products():
    gradient = symgrad.grad(ratio, wrt=("x", "w"), shapes=dict.fromkeys("xyzw", ("n",)))
    assert symgrad.latex(gradient) == (r"\frac{y \odot z}{w}",
                                       r"- \frac{x \odot y \odot z}{w^{2}}")

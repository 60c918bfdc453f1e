"""The gradient family of docs/family.md: value_and_grad, jacobian, hessian, vjp, export, latex,
the numpy backend. Expected values are derived by hand in the comments."""
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import sympy

import symgrad
from acceptance.cases_public import tf_stopped_product as stopped_product
from symgrad import stop_gradient


def bilinear(x, y):
    return x * y + x ** 2


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def cubic_mix(x, y, z):
    # f = x^2 y + y^3 z + sin(x z)
    return x * x * y + y ** 3 * z + math.sin(x * z)


def guarded_sqrt(x):
    return math.sqrt(x) if x > 0 else 0.0


def clipped(x, y):
    # max/min, a branch and a stop point: exercises np.where, np.maximum and masks
    m = stop_gradient(max(x, y))
    u = math.exp(x - m) + math.exp(y - m)
    v = min(x * y, 1.0) if x > -0.5 else abs(y) ** 3
    return math.log(u) + m + v


# --- hessian ---------------------------------------------------------------------------------
def test_hessian_of_bilinear():
    # f = xy + x^2: f_xx = 2, f_xy = 1, f_yy = 0
    assert symgrad.hessian(bilinear)(1.5, -2.0) == ((2.0, 1.0), (1.0, 0.0))


def test_hessian_is_exactly_symmetric_and_right():
    x, y, z = 0.7, -1.3, 0.4
    h = symgrad.hessian(cubic_mix)(x, y, z)
    # f_xx = 2y - z^2 sin(xz); f_xy = 2x; f_xz = cos(xz) - xz sin(xz)
    # f_yy = 6yz; f_yz = 3y^2; f_zz = -x^2 sin(xz)
    s, c = math.sin(x * z), math.cos(x * z)
    want = ((2 * y - z * z * s, 2 * x, c - x * z * s),
            (2 * x, 6 * y * z, 3 * y * y),
            (c - x * z * s, 3 * y * y, -x * x * s))
    for i in range(3):
        for j in range(3):
            assert h[i][j] == h[j][i]
            assert h[i][j] == pytest.approx(want[i][j], rel=1e-13, abs=1e-15)


def test_hessian_one_wrt_is_a_float():
    assert symgrad.hessian(bilinear, wrt="x")(1.5, -2.0) == 2.0


# --- value_and_grad --------------------------------------------------------------------------
def test_value_and_grad_of_stopped_product():
    # value 3*2*2 = 12; d/dw1 = 0 (stopped), d/dw2 = 3*w1 = 6
    vg = symgrad.value_and_grad(stopped_product)
    assert vg(2.0, 2.0) == (12.0, (0.0, 6.0))
    assert vg.source.startswith("def value_and_grad_tf_stopped_product(w1, w2):")


SWAPPED = False


def chosen_pair(x, y):
    a, b = (x, y) if not SWAPPED else (y, x)  # a build-time choice of two tuples
    c, (d, e) = x, ((y, x) if SWAPPED else (x, y))
    return a * b * b + c * d * e


def test_value_and_grad_of_a_chosen_tuple():
    # a = x, b = y, d = x, e = y: f = x y^2 + x^2 y = 6 + 4.5 at (1.5, 2): df = (y^2 + 2xy,
    # 2xy + x^2) = (10, 8.25); value_and_grad raised "cannot print Tuple" (newcomer trial)
    assert symgrad.value_and_grad(chosen_pair)(1.5, 2.0) == (10.5, (10.0, 8.25))
    assert symgrad.grad(chosen_pair)(1.5, 2.0) == (10.0, 8.25)


def test_value_and_grad_shares_the_primal_work():
    source = symgrad.value_and_grad(cubic_mix).source
    assert source.count("math.sin(") == 1  # the value and the gradient share sin(x*z)
    value, gradient = symgrad.value_and_grad(cubic_mix)(0.7, -1.3, 0.4)
    assert value == pytest.approx(cubic_mix(0.7, -1.3, 0.4), rel=1e-15)
    assert gradient == pytest.approx(symgrad.grad(cubic_mix)(0.7, -1.3, 0.4), rel=1e-15)


# --- jacobian and vjp ------------------------------------------------------------------------
def test_jacobian_of_polar():
    # rows: d(r cos t) = (cos t, -r sin t); d(r sin t) = (sin t, r cos t)
    r, t = 2.0, 0.3
    rows = symgrad.jacobian(polar)(r, t)
    want = ((math.cos(t), -r * math.sin(t)), (math.sin(t), r * math.cos(t)))
    for got_row, want_row in zip(rows, want):
        assert got_row == pytest.approx(want_row, rel=1e-15)


def test_jacobian_one_wrt_gives_one_value_per_row():
    r, t = 2.0, 0.3
    assert symgrad.jacobian(polar, wrt="theta")(r, t) == pytest.approx(
        (-r * math.sin(t), r * math.cos(t)), rel=1e-15)


MASS, HALF_LENGTH = 2.0, 0.5


def coupling(w1, w2, t):
    return MASS * HALF_LENGTH * w1 * w2 * math.cos(t) + 0.5 * MASS * w1 ** 2


def test_value_line_drops_a_folded_factor_of_one_and_keeps_the_primal_float():
    # MASS * HALF_LENGTH and 0.5 * MASS fold to 1.0; 1 * a is a in float: no `1 *` is written
    vg = symgrad.value_and_grad(coupling)
    value_line = vg.source.splitlines()[2]
    assert value_line == "    value = w1 * w2 * math.cos(t) + w1 ** 2", value_line
    for point in [(0.3, -1.7, 2.1), (1e-300, 3.0, 0.5), (-2.5, 0.1, -3.0), (7.0, 11.0, 1.0)]:
        assert vg(*point)[0] == coupling(*point)  # bit-identical to the primal


def test_vjp_takes_cotangents_named_after_the_outputs():
    gf = symgrad.vjp(polar)
    assert gf.source.startswith("def vjp_polar(r, theta, dpolar_0, dpolar_1):")
    r, t, a, b = 2.0, 0.3, 0.5, -1.5
    # J^T (a, b) = (a cos t + b sin t, -a r sin t + b r cos t)
    assert gf(r, t, a, b) == pytest.approx(
        (a * math.cos(t) + b * math.sin(t), -a * r * math.sin(t) + b * r * math.cos(t)),
        rel=1e-15)


def test_grad_of_a_tuple_function_points_to_jacobian_and_vjp():
    with pytest.raises(symgrad.OutputShapeError, match="jacobian"):
        symgrad.grad(polar)
    with pytest.raises(symgrad.OutputShapeError, match="grad"):
        symgrad.vjp(bilinear)


def tanh_times(x):
    return np.tanh(x) * x


def test_vjp_of_elementwise_code_without_shapes_says_it_is_read_as_scalar_code():
    # no array construct, no shapes=: one number as read; the message points to both ways on
    with pytest.raises(symgrad.OutputShapeError) as refusal:
        symgrad.vjp(tanh_times)
    message = str(refusal.value)
    assert "read as scalar code" in message and "use symgrad.grad" in message
    assert "shapes={'x': ('n',)}" in message
    # and that way works: d/dx (tanh(x) x) = tanh(x) + x (1 - tanh(x)^2), elementwise
    x = np.array([0.5, -1.25])
    got = symgrad.vjp(tanh_times, shapes={"x": ("n",)})(x, np.ones(2))
    assert got == pytest.approx(np.tanh(x) + x * (1 - np.tanh(x) ** 2), rel=1e-14)
    # jacobian and hessian build (one number is their case) and the first call with an array
    # says the same: scalar code, pass shapes=
    for kind in (symgrad.jacobian, symgrad.hessian):
        with pytest.raises(symgrad.OptionError, match=r"built from scalar code.*shapes="):
            kind(tanh_times)(x)


# --- export and latex ------------------------------------------------------------------------
def test_export_writes_a_standalone_module(tmp_path):
    gf = symgrad.grad(cubic_mix)
    path = tmp_path / "cubic_mix_grad.py"
    symgrad.export(gf, path)
    text = path.read_text()
    assert text.startswith(f"# Generated by symgrad {symgrad.__version__} from ")
    assert "import math\n" in text and "symgrad" not in text.split("\n", 2)[2]
    subprocess.run([sys.executable, "-m", "py_compile", str(path)], check=True)
    out = subprocess.run(
        [sys.executable, "-c", "import cubic_mix_grad as m; print(repr(m.grad_cubic_mix(0.7, "
         "-1.3, 0.4)))"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.strip() == repr(gf(0.7, -1.3, 0.4))


def test_export_numpy_backend_imports_numpy_only(tmp_path):
    path = tmp_path / "g.py"
    symgrad.export(symgrad.grad(guarded_sqrt, backend="numpy"), path)
    imports = [line for line in path.read_text().splitlines() if line.startswith("import")]
    assert imports == ["import numpy as np"]


def test_latex_shows_derivatives_and_stop_points():
    def shifted(x):
        return x * stop_gradient(x)
    assert symgrad.latex(symgrad.grad(bilinear)) == ("2 x + y", "x")
    assert symgrad.latex(symgrad.grad(shifted)) == (r"\operatorname{stop\_gradient}\left(x\right)",)
    markdown = symgrad.grad(bilinear)._repr_markdown_()
    assert "$2 x + y$" in markdown and "def grad_bilinear(x, y):" in markdown


# --- the numpy backend -----------------------------------------------------------------------
def test_numpy_untaken_branch_never_makes_nan_or_warns():
    gf = symgrad.grad(guarded_sqrt, backend="numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = gf(np.array([0.0, 4.0, -1.0]))
    assert got.tolist() == [0.0, 0.25, 0.0]


@pytest.mark.parametrize("function", [cubic_mix, clipped, bilinear])
def test_numpy_backend_matches_math_backend_elementwise(function):
    n = function.__code__.co_argcount
    points = np.random.default_rng(7).uniform(-2.0, 2.0, size=(n, 1000))
    vectorised = symgrad.grad(function, backend="numpy")(*points)
    scalar = symgrad.grad(function)
    for i in range(points.shape[1]):
        want = scalar(*points[:, i])
        for component, value in zip(vectorised, want):
            assert component[i] == pytest.approx(value, rel=1e-13, abs=1e-15)


def test_numpy_source_references_np_only():
    source = symgrad.grad(clipped, backend="numpy").source
    assert "math." not in source and "np.maximum" in source and "np.where" in source


# --- derivatives attribute -------------------------------------------------------------------
def test_hessian_derivatives_are_sympy_expressions():
    x, y = sympy.symbols("x y", real=True)
    derivatives = symgrad.hessian(bilinear).derivatives
    assert [sympy.simplify(d) for d in derivatives] == [2, 1, 1, 0]


# --- regressions found by review -------------------------------------------------------------
def negated_product(x, y):
    return -x * y


def modulo(x, y):
    return x % y


def power(x, y):
    return x ** y


def overflow_branch(x):
    return math.exp(x) if x < 50.0 else 0.0


def stopped_pair(x, y):
    a, b = stop_gradient((x * y, x + y))
    return a * x + b * y


def test_negated_int_results_are_floats():
    # d(-xy)/dx = -y = -3, d/dy = -x = -2; x % y: d/dx = 1, d/dy = -floor(7/2) = -3
    assert [type(v) for v in symgrad.grad(negated_product)(2, 3)] == [float, float]
    assert symgrad.grad(negated_product)(2, 3) == (-3.0, -2.0)
    got = symgrad.grad(modulo)(7.0, 2.0)
    assert got == (1.0, -3.0) and type(got[1]) is float


def test_power_exponent_derivative_at_zero_base():
    # d/dy 0**y = 0 for y > 0; at y = -1 the power itself raises, and so does its derivative
    assert symgrad.grad(power, wrt="y")(0.0, 2.0) == 0.0
    with pytest.raises(ZeroDivisionError):
        symgrad.grad(power, wrt="y")(0.0, -1.0)


def test_numpy_untaken_branch_does_not_warn_on_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = symgrad.grad(overflow_branch, backend="numpy")(np.array([0.0, 1000.0]))
    assert got.tolist() == [1.0, 0.0]


def test_stop_gradient_of_a_tuple_stops_each_element():
    # a = 6, b = 5 are constants: d(a x + b y) = (a, b)
    assert symgrad.grad(stopped_pair)(2.0, 3.0) == (6.0, 5.0)

"""Inputs found by trying to break symgrad: each must give the right number or a clear error."""
import functools
import importlib
import math
import sys

import pytest

import symgrad


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@doubled
def doubled_cube(x):
    return x ** 3


def no_parameters():
    return 3.0


def rnn(x, w, n=400):
    h = 0.0
    for i in range(n):
        h = math.tanh(w * h + x)
    return h


def erfc_times(x):
    return math.erfc(x) * x


def power_sum(x, n=3):
    s = 0.0
    for k in range(n):
        s = s + x ** (k + 1)
    return s


def power_sum_grad(x, n=3):
    # d/dx (x + x^2 + x^3) = 1 + 2x + 3x^2
    return 1.0 + 2.0 * x + 3.0 * x * x


def root(x):
    return math.sqrt(x)


def root_grad(x):
    return 0.5 / math.sqrt(x)


def test_a_function_wrapped_by_a_decorator_is_refused():
    # its source is the undecorated cube: the gradient would be 12 at 2, the truth is 24
    with pytest.raises(symgrad.SourceUnavailableError, match="wrapped by a decorator"):
        symgrad.grad(doubled_cube)


def test_a_source_edited_after_import_is_refused(tmp_path, monkeypatch):
    module = tmp_path / "edited_module.py"
    module.write_text("def f(x):\n    return x * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    imported = importlib.import_module("edited_module")
    try:
        assert symgrad.grad(imported.f)(2.0) == 4.0
        module.write_text("def f(x):\n    return x * x * x\n")
        symgrad.clear_cache()
        with pytest.raises(symgrad.SourceUnavailableError, match="changed since it was imported"):
            symgrad.grad(imported.f)
    finally:
        sys.modules.pop("edited_module", None)
        symgrad.clear_cache()


def test_no_parameter_or_empty_wrt_is_an_option_error():
    with pytest.raises(symgrad.OptionError, match="no parameter"):
        symgrad.grad(no_parameters)
    with pytest.raises(symgrad.OptionError, match="empty"):
        symgrad.grad(power_sum, wrt=())


def test_a_400_step_loop_builds_and_is_right():
    # forward mode by hand: h' = (1 - h_new^2) (w h' + 1) for x
    gf = symgrad.grad(rnn, wrt="x")
    x, w, h, dh = 0.3, 0.5, 0.0, 0.0
    for _ in range(400):
        h_new = math.tanh(w * h + x)
        dh = (1.0 - h_new * h_new) * (w * dh + 1.0)
        h = h_new
    assert gf(x, w) == pytest.approx(dh, rel=1e-12)


def test_erfc_for_backend_numpy_is_scipys():
    pytest.importorskip("scipy.special")  # without SciPy: an OptionError naming it (test_array_rows)
    g = symgrad.grad(erfc_times, backend="numpy")
    assert "scipy.special.erfc(x)" in g.source
    # d/dx erfc(x) x = erfc(x) - 2 x exp(-x^2) / sqrt(pi)
    expected = math.erfc(0.3) - 0.6 * math.exp(-0.09) / math.sqrt(math.pi)
    assert float(g(0.3)) == pytest.approx(expected, rel=1e-14)


def test_stop_gradients_none_means_none():
    assert symgrad.grad(power_sum, stop_gradients=None)(2.0) == power_sum_grad(2.0)


def test_check_grad_keeps_build_time_parameters_and_notes_raising_points():
    assert symgrad.check_grad(power_sum, power_sum_grad).verdict == "equal"
    report = symgrad.check_grad(root, root_grad, points=[0.0, 4.0])
    assert report.points == [(0.0,), (4.0,)]
    assert report.verdict == "equal" and "raises ZeroDivisionError at (0.0,)" in str(report)


def test_export_never_overwrites_silently(tmp_path):
    gf = symgrad.grad(root)
    target = tmp_path / "root_grad.py"
    symgrad.export(gf, target)
    with pytest.raises(symgrad.OptionError, match="exists"):
        symgrad.export(gf, target)
    symgrad.export(gf, target, overwrite=True)
    with pytest.raises(symgrad.OptionError, match="source file"):
        symgrad.export(gf, __file__, overwrite=True)


def not_positive(x):
    if not x > 0:
        return 2.0 * x
    return 3.0 * x


def test_not_keeps_pythons_branch_at_nan():
    # Python takes the first branch at nan (not (nan > 0) is True): derivative 2, as at -1
    gf = symgrad.grad(not_positive)
    assert (gf(float("nan")), gf(-1.0), gf(1.0)) == (2.0, 2.0, 3.0)


def mod_times(x, y, z):
    return (x % y) * z


def pow_times(x, y, z):
    return x ** y * z


def test_int_arguments_give_float_results_through_mod_and_powers():
    # d/dz (x % y) z = x % y = 1; d/dz x^y z = x^y = 8
    assert symgrad.grad(mod_times)(7, 2, 5) == (5.0, -15.0, 1.0)
    assert [type(v) for v in symgrad.grad(mod_times)(7, 2, 5)] == [float] * 3
    assert type(symgrad.grad(pow_times)(2, 3, 5)[2]) is float


DECORATED = '''\
import symgrad


@symgrad.grad(wrt="x")
def energy(x, y):
    return x * x * y


def denergy(x, y):
    return 2.0 * x * y
'''


def test_cli_export_and_check_of_a_decorated_name(tmp_path, capsys):
    from symgrad import cli
    path = tmp_path / "decorated.py"
    path.write_text(DECORATED)
    out = tmp_path / "out.py"
    assert cli.main(["export", f"{path}:energy", "-o", str(out)]) == 0
    assert "def grad_energy(x, y):" in out.read_text()  # the decorator's gradient, not its 2nd
    assert cli.main(["check", f"{path}:energy", f"{path}:denergy", "--wrt", "x"]) == 0
    assert "check_grad: equal" in capsys.readouterr().out


def exploding_constant(t):
    a = 1.0
    for k in range(3):
        if t:
            a *= math.pow(abs(0.4 - a - a) + 0.25, math.exp(a)) ** 2.0
    return math.floor(a - (a - 2.0)) * 0.001


def test_a_constant_out_of_every_float_range_is_no_still_region():
    """Where ``t`` holds, the loop's constant is about 56.85 ** (2 e ** 28.5): the primal raises
    OverflowError, and SymPy, trying the value as a still region of the branch, computed exp of
    exp of a number and raised MemoryError in mpmath (scalar fuzzer 52-0-3638). Such a value is
    no still region; t only decides branches, so the derivative is 0."""
    assert symgrad.grad(exploding_constant)(0.0) == 0.0
    assert symgrad.value_and_grad(exploding_constant)(0.0) == (0.002, 0.0)
    with pytest.raises(OverflowError):
        exploding_constant(1.0)
    with pytest.raises(OverflowError):
        symgrad.value_and_grad(exploding_constant)(1.0)

"""The text of generated array gradients reads like the hand-written code (the benchmark workloads
A1-A8 of tests/benchmarks/array_workloads.py), and other argument types than float64 arrays give
exactly the values of the float64 call.

- No line only names an array again (``_dZ = _t1`` before ``_dZ -= Y``); every line fits in 100
  columns (``linewrap`` breaks ``raise`` lines and cuts long messages into adjacent literals);
  each size check is one ``if`` raising at once; a zero check only where the size can be 0.
- float32, integer, list and scalar arguments give the gradient of their float64 values, checked
  against the hand-written gradient of the workloads, bit for bit equal to the call with float64
  arrays, whatever the order of the calls (a repeated call's shortcut).
"""
import ast
import os
import sys

import numpy as np
import pytest

import symgrad
from symgrad.linewrap import wrap

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "benchmarks"))
import array_workloads as workloads  # noqa: E402


def built(key):
    workload = workloads.WORKLOADS[key]
    return symgrad.grad(workload.f, wrt=workload.wrt, shapes=workloads.SHAPES[key])


@pytest.mark.parametrize("key", sorted(workloads.WORKLOADS))
def test_workload_code_reads_like_the_hand_code(key):
    source = built(key).source
    assert all(len(line) <= 100 for line in source.splitlines()), source
    definition = ast.parse(source).body[0]
    params = {a.arg for a in definition.args.args}
    for stmt in ast.walk(definition):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
            assert stmt.value.id in params, f"alias line `{ast.unparse(stmt)}`"
        if isinstance(stmt, ast.If):  # a check: one test, one raise, nothing nested
            assert [type(s) for s in stmt.body] == [ast.Raise] and not stmt.orelse, \
                ast.unparse(stmt)
    zero_checks = [s.test for s in definition.body if isinstance(s, ast.If) and isinstance(
        s.test, ast.Compare) and isinstance(s.test.ops[0], ast.Eq)]
    tested = [ast.unparse(t.left) for t in zero_checks]
    assert all(isinstance(t.left, ast.Name) for t in zero_checks), tested  # a size, never n - 1
    assert len(tested) == len(set(tested))


def test_a_alias_lines_are_gone_where_the_hand_code_works_in_place():
    a3 = built("A3").source  # the softmax in Z's buffer, as the hand code computes it
    assert "np.exp(Z, out=Z)" in a3 and "    Z -= Y\n" in a3 and "X.T @ Z / n" in a3
    a6 = built("A6").source  # 1 - H * H in H's buffer
    assert "    H *= H\n    np.subtract(1.0, H, out=H)\n" in a6
    a8 = built("A8").source  # two names of the program's own: joined to the in-place line
    assert "dste_quantize_dw = np.subtract(q, t, out=q)" in a8


def divided(x):
    return np.sum(x) / (x.shape[0] - 1) + np.sum(x * x) / x.shape[0]


def halved(x):
    return np.sum(x) / (2 * x.shape[0]) + np.sum(x * x) / x.shape[0]


def offset_by_two(x):
    return np.sum(x) / (x.shape[0] - 2)


def by_area(X):
    return np.sum(X) / (X.shape[0] * X.shape[1])


def test_a_zero_check_only_where_the_size_can_be_zero():
    """``2 * n`` is 0 only where ``n`` is: one check; ``n - 1`` is 0 at ``n = 1``, which the
    gradient object never calls this build with (a size-1 axis has a build of its own) but the
    code itself (``.function``, an exported module) may meet: a check of its own."""
    for f, count in ((divided, 2), (halved, 1)):
        source = symgrad.grad(f, shapes={"x": ("n",)}).source
        assert source.count("== 0:") == count and "    if n == 0:\n" in source, source
        with pytest.raises(ValueError, match=r"x.shape\[0\] is 0, and the gradient divides"):
            symgrad.grad(f)(np.ones(0))
    x = np.array([1.0, 2.0, 4.0])
    assert np.allclose(symgrad.grad(divided)(x), 0.5 + 2 * x / 3, rtol=1e-15)
    source = symgrad.grad(offset_by_two, shapes={"x": ("n",)}).source
    assert "if n - 2.0 == 0:" in source or "if n - 2 == 0:" in source  # 0 at n = 2
    with pytest.raises(ValueError, match=r"is 0 \(n = x.shape\[0\]\)"):
        symgrad.grad(offset_by_two)(np.ones(2))
    source = symgrad.grad(by_area, shapes={"X": ("n", "d")}).source
    assert source.count("== 0:") == 1  # n * d: 0 where n or d is, a check of its own
    with pytest.raises(ValueError, match="is 0"):
        symgrad.grad(by_area)(np.ones((3, 0)))


def spread(x):
    return np.var(x, ddof=1) + np.std(x, ddof=1)


def test_the_code_of_a_general_size_refuses_size_one_where_it_divides_by_n_minus_1():
    """``np.var``/``np.std`` with ``ddof=1`` divide by ``n - 1``: the code built for general
    sizes, called directly at ``n = 1`` (as an exported module is), raises the ValueError that
    names the size instead of Python's ZeroDivisionError (the gradient object at ``n = 1``
    reads a size-1 build, refused there: the derivative is undefined, NumPy's value is nan)."""
    g = symgrad.grad(spread, shapes={"x": ("n",)})
    assert "    if n - 1.0 == 0:\n" in g.source or "    if n - 1 == 0:\n" in g.source, g.source
    with pytest.raises(ValueError, match=r"n - 1(\.0)? is 0 \(n = x.shape\[0\]\)"):
        g.function(np.array([2.0]))
    x = np.array([1.0, 2.0, 4.0])  # var = sum(d^2)/2, std = sqrt(var): d var = d, d std = d/(2 std)
    deviation = x - x.mean()
    std = np.sqrt(np.sum(deviation ** 2) / 2)
    want = deviation + deviation / (2 * std)
    np.testing.assert_allclose(g.function(x), want, rtol=1e-14)
    np.testing.assert_allclose(g(x), want, rtol=1e-14)
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="undefined"):
        symgrad.grad(spread)(np.array([2.0]))


def test_wrapped_raise_lines_keep_the_message():
    line = ("        raise ValueError(\"grad_least_squares: X.shape[0] is 0, and the gradient "
            "divides by it (the primal's NumPy value is nan or inf there)\")\n")
    wrapped = wrap(line)
    assert all(len(piece) <= 100 for piece in wrapped.splitlines())
    assert len(wrapped.splitlines()) == 2
    original = ast.dump(ast.parse(line.strip()))
    assert ast.dump(ast.parse("\n".join(piece.strip() for piece in wrapped.splitlines()))) == \
        original  # adjacent literals: the same string
    formatted = ("        raise ValueError(f'grad_softmax_cross_entropy_of_logits: W.shape[0] is "
                 "{W.shape[0]}; it must be X.shape[1] = {d if d else n}')\n")
    wrapped = wrap(formatted)
    assert all(len(piece) <= 100 for piece in wrapped.splitlines()), wrapped
    assert "{d if d else n}" in wrapped  # never cut inside a replacement field
    assert ast.dump(ast.parse("\n".join(p.strip() for p in wrapped.splitlines()))) == \
        ast.dump(ast.parse(formatted.strip()))


def test_a_line_with_no_comma_in_reach_breaks_after_a_bracket():
    """The Array API's slogdet on Dask printed a 104-column line: the lambda's body has no comma
    nor operator to break at; it breaks after ``map_blocks(`` (the shallowest opening bracket in
    reach), every line within 100 columns, the same statement."""
    line = ("    _t0 = (A.rechunk(-1).map_blocks(lambda _block: compat_numpy.stack(compat_numpy.linalg"
            ".slogdet(_block)), drop_axis=1, chunks=(2,), dtype=A.dtype) if on_dask else "
            "xp.linalg.slogdet(A))\n")
    wrapped = wrap(line)
    assert all(len(piece) <= 100 for piece in wrapped.splitlines()), wrapped
    assert wrapped.splitlines()[0] == "    _t0 = (A.rechunk(-1).map_blocks("
    assert ast.dump(ast.parse(wrapped.strip())) == ast.dump(ast.parse(line.strip()))
    for backend in ("array_api", "numpy"):  # numpy: its lazy specialisation
        g = symgrad.grad(log_determinant, shapes={"A": ("n", "n")}, backend=backend)
        source = g.source if backend == "array_api" else g.specialisation("lazy").source
        assert "slogdet(_block)" in source
        assert max(len(piece) for piece in source.splitlines()) <= 100, source


def log_determinant(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet ** 2


def as_float32(a):
    return np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) else np.float32(a)


def as_list(a):
    return a.tolist() if isinstance(a, np.ndarray) else a


def as_int(a):
    return np.rint(4 * np.asarray(a)).astype(int) if isinstance(a, np.ndarray) else int(4 * a)


# integer arguments where the workload is defined for them (A7's log(pi) is not, at pi = 0)
INTEGER = ("A1", "A4", "A5", "A8")


@pytest.mark.parametrize("key", sorted(workloads.WORKLOADS))
def test_other_argument_types_give_the_gradient_of_their_float64_values(key):
    workload = workloads.WORKLOADS[key]
    gradient = built(key)
    args = workloads.make_args(key, "small")
    kinds = [as_float32, as_list] + ([as_int] if key in INTEGER else [])
    for kind in kinds:
        given = tuple(kind(a) for a in args)
        floats = tuple(np.asarray(a, dtype=float) if isinstance(a, (np.ndarray, list)) else
                       float(a) for a in given)
        want = workload.hand(*floats)
        for first in (floats, given):  # either call first: the repeated call's shortcut
            second = given if first is floats else floats
            got_first, got_second = gradient(*first), gradient(*second)
            got_again = gradient(*first)
            for got in (got_first, got_second, got_again):
                got = got if isinstance(got, tuple) else (got,)
                assert workloads.max_rel_err(got, want) < 1e-12, (key, kind.__name__)
            for a, b in zip(*(g if isinstance(g, tuple) else (g,) for g in (got_first,
                                                                            got_second))):
                assert np.array_equal(a, b) and type(a) is type(b), (key, kind.__name__)


class Tagged(np.ndarray):
    """A NumPy subclass: ``np.asarray`` makes a plain ndarray of it."""


def test_a_repeated_call_with_other_argument_types_converts_them():
    """The repeated call's shortcut (the last call's shapes and types) never skips a conversion:
    a NumPy scalar, an int, a subclass, a big-endian array or a 0-d array where a float was."""
    workload = workloads.WORKLOADS["A1"]
    gradient = built("A1")
    w, b, X, y = workloads.make_args("A1", "small")
    plain = gradient(w, b, X, y)
    assert gradient(w, b, X, y)[1] == plain[1]
    for args in ((w, np.float64(b), X, y), (w, int(1), X, y), (w, b, X.view(Tagged), y),
                 (w, b, X.astype(">f8"), y), (w, np.array(b), X, y), (w, b, X.astype(np.float32),
                                                                     y)):
        for _ in range(2):  # the second call takes the shortcut of the first
            got = gradient(*args)
            want = workload.hand(*(np.asarray(a, dtype=float) for a in args))
            assert workloads.max_rel_err(got, want) < 1e-12
            assert type(got[0]) is np.ndarray and type(got[1]) is float


def fitted(w, X, y):
    return np.sum((X @ w - y) ** 2) / (2 * X.shape[0])


def test_the_code_refuses_an_argument_of_another_rank(tmp_path):
    """Code built for one rank computes another function at another: built with ``y`` a number,
    an array ``y`` would be summed away (a number for the gradient of w where the right one is
    X^T (X w - y) / n); built with ``y`` of shape (n,), a (4, 1) ``y`` broadcasts ``X @ w - y``
    to (4, 4). Called directly or exported, the code refuses both, naming the shapes."""
    import importlib.util
    X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    w, y = np.zeros(3), np.array([1.0, 2.0, 3.0, 4.0])
    as_number = symgrad.grad(fitted, wrt="w", shapes={"X": ("n", "d"), "w": ("d",)})
    np.testing.assert_allclose(as_number.function(w, X, 2.0), X.T @ (X @ w - 2.0) / 4,
                               rtol=1e-15)
    with pytest.raises(ValueError, match=r"must be w \(d,\), X \(n, d\), y \(\); they are "
                                         r"w \(3,\), X \(4, 3\), y \(4,\)"):
        as_number.function(w, X, y)
    as_array = symgrad.grad(fitted, wrt="w", shapes={"X": ("n", "d"), "w": ("d",), "y": ("n",)})
    path = tmp_path / "fitted_grad.py"
    symgrad.export(as_array, path)
    spec = importlib.util.spec_from_file_location("fitted_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    exported = getattr(module, as_array.function.__name__)
    want = -np.array([1 + 4, 2 + 4, 3 + 4]) / 4  # X^T (X w - y) / n = -X^T y / 4 at w = 0
    np.testing.assert_allclose(exported(w, X, y), want, rtol=1e-15)
    for function in (exported, as_array.function):
        with pytest.raises(ValueError, match=r"y \(n,\); they are .* y \(4, 1\)"):
            function(w, X, y[:, None])
        with pytest.raises(ValueError, match=r"w \(d,\).*they are w \(\)"):
            function(0.0, X, y)
    # the object reads a build for that rank: r_ij = (X w)_j - y_i, sum_ij r_ij X_j / n = -10 *
    # sum_j X_j / 4 at w = 0
    np.testing.assert_allclose(as_array(w, X, y[:, None]), -10 * X.sum(axis=0) / 4, rtol=1e-15)


def column_sum(X, c):
    return np.sum(X * c)


def test_an_axis_built_as_size_one_is_checked():
    g = symgrad.grad(column_sum, wrt="X", shapes={"X": ("n", 3), "c": ("n", 1)})
    c = np.array([[1.0], [2.0]])
    np.testing.assert_array_equal(g.function(np.ones((2, 3)), c), np.broadcast_to(c, (2, 3)))
    with pytest.raises(ValueError, match=r"c.shape\[1\] is 3; it must be 1"):
        g.function(np.ones((2, 3)), np.ones((2, 3)))  # would be X * c elementwise

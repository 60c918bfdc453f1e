"""check_grad on array code: the symbolic verdict on one small concrete shape (symgrad's gradient
and df run on arrays of SymPy symbols) and the float64 one at random sizes, on the benchmark
workloads' hand gradients (right ones equal, wrong ones different, by component and index)."""
import os
import sys

import numpy as np
import pytest

import symgrad

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "benchmarks"))
import array_workloads as workloads  # noqa: E402


@pytest.mark.parametrize("key, basis", [("A1", "symbolic"), ("A2", "symbolic"),
                                        ("A4", "symbolic"), ("A5", "symbolic"),
                                        ("A6", "symbolic"), ("A7", "numeric"),
                                        ("A8", "symbolic")])
def test_workload_hand_gradients_are_equal(key, basis):
    workload = workloads.WORKLOADS[key]
    report = symgrad.check_grad(workload.f, workload.hand, wrt=workload.wrt,
                                shapes=workloads.SHAPES[key])
    assert report.verdict == "equal", str(report)
    assert report.basis == basis and report.symbolic_note is None
    assert report.sizes is not None and report.evaluated == 5
    if basis == "numeric":  # SymPy does not simplify the difference: 50-digit values decided
        assert report.precise_points == 3


def test_concrete_shape_sizes_are_small_and_distinct():
    report = symgrad.check_grad(workloads.least_squares, workloads.least_squares_grad,
                                wrt=("w", "b"), shapes=workloads.SHAPES["A1"])
    assert report.sizes == {"d": 3, "n": 2}  # in order of first appearance in shapes
    assert "simplifies to 0 in every element on the shape d=3, n=2" in str(report)


def test_softmax_hand_gradient_assumes_one_hot_rows():
    # A3's hand gradient is P - Y, right only where every row of Y sums to 1: in general the
    # gradient is P * sum(Y, axis=1) - Y, and check_grad (random Y) says so
    workload = workloads.WORKLOADS["A3"]
    report = symgrad.check_grad(workload.f, workload.hand, wrt="W",
                                shapes=workloads.SHAPES["A3"])
    assert report.verdict == "different" and report.differing == ("dsoftmax_xent_dW",)
    assert len(report.elements["dsoftmax_xent_dW"]) == 6  # every element of W (3 x 2)

    def general(W, X, Y):
        Z = X @ W
        P = np.exp(Z - Z.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        return X.T @ (P * Y.sum(axis=1, keepdims=True) - Y) / X.shape[0]
    assert symgrad.check_grad(workload.f, general, wrt="W",
                              shapes=workloads.SHAPES["A3"]).verdict == "equal"


def least_squares_missing_two(w, b, X, y):  # by hand, forgot the 2 of the square's derivative
    r = (X @ w + b - y) / (2 * X.shape[0])
    return X.T @ r, r.sum()


def test_missing_factor_two_is_different_in_every_element():
    report = symgrad.check_grad(workloads.least_squares, least_squares_missing_two,
                                wrt=("w", "b"), shapes=workloads.SHAPES["A1"])
    assert report.verdict == "different" and report.basis == "numeric"
    assert report.differing == ("dleast_squares_dw", "dleast_squares_db")
    assert report.elements == {"dleast_squares_dw": ((0,), (1,), (2,)), "dleast_squares_db": ((),)}
    assert 0.0 < report.worst_error <= 0.5 + 1e-12  # df is half of symgrad's
    text = str(report)
    assert "dleast_squares_dw differs at [0], [1], [2] on the shape d=3, n=2" in text
    assert "X[0,0]" in text  # the difference of the first element, in the symbols of the shape


def mlp_wrong_bias(W1, b1, w2, X, y):  # the bias gradient of one hidden unit is off
    grads = workloads.mlp_grad(W1, b1, w2, X, y)
    db1 = grads[1].copy()
    db1[1] *= 1.5
    return grads[0], db1, grads[2]


def test_one_wrong_element_is_named_by_index():
    report = symgrad.check_grad(workloads.mlp, mlp_wrong_bias, wrt=("W1", "b1", "w2"),
                                shapes=workloads.SHAPES["A6"])
    assert report.verdict == "different" and report.differing == ("dmlp_db1",)
    assert report.elements == {"dmlp_db1": ((1,),)}
    assert "dmlp_db1 differs at [1] on the shape" in str(report)
    assert "the other 2 of 3 components agree" in str(report)


def rosenbrock_wrong_interior(x):  # 201 for 200 in the interior elements only
    (der,) = workloads.rosenbrock_grad(x)
    der[1:-1] += (x[1:-1] - x[:-2] ** 2)
    return der


def test_wrong_interior_of_rosenbrock():
    report = symgrad.check_grad(workloads.rosenbrock, rosenbrock_wrong_interior, wrt="x",
                                shapes=workloads.SHAPES["A5"])
    assert report.verdict == "different"
    assert report.elements == {"drosenbrock_dx": ((1,),)}  # n = 3: one interior element


def transposed(w, b, X, y):  # a shape mistake: the residuals' gradient (n,) for w's (d,)
    r = (X @ w + b - y) / X.shape[0]
    return r, r.sum()


def test_result_of_another_shape_is_different():
    report = symgrad.check_grad(workloads.least_squares, transposed, wrt=("w", "b"),
                                shapes=workloads.SHAPES["A1"])
    assert report.verdict == "different" and "dleast_squares_dw" in report.differing
    assert "shape (2,) by df, (3,) by symgrad" in str(report)


def uses_floats(w, b, X, y):  # float() of an element: right, but not traceable symbolically
    r = (X @ w + b - y) / X.shape[0]
    return X.T @ r, float(r.sum())


def test_untraceable_df_is_decided_by_numbers_and_says_why():
    report = symgrad.check_grad(workloads.least_squares, uses_floats, wrt=("w", "b"),
                                shapes=workloads.SHAPES["A1"])
    assert report.verdict == "equal" and report.basis == "numeric" and report.sizes is None
    assert report.symbolic_note.startswith("df cannot run on symbolic arrays (TypeError")
    assert "not symbolic: df cannot run on symbolic arrays" in str(report)


def log_of_weights(w, x):
    return np.sum(x * np.log(w))


def test_nan_at_random_points_is_never_equal_by_default():
    # log of a negative weight is nan in both: such draws are redrawn, never compared as equal
    def wrong(w, x):
        return 1.1 * x / w
    report = symgrad.check_grad(log_of_weights, wrong, wrt="w", shapes={"w": ("n",), "x": ("n",)})
    assert report.verdict == "different" and report.evaluated == 5
    assert np.isfinite(report.worst_error)


def powered(x, k=3):  # k is a hyperparameter: it keeps its default, as for scalar code
    total = 0.0
    for _ in range(k):
        total = total + np.sum(x * x)
    return total


def test_hyperparameter_keeps_its_default():
    report = symgrad.check_grad(powered, lambda x, k=3: 2.0 * k * x, wrt="x",
                                shapes={"x": ("n",)})
    assert report.verdict == "equal" and report.basis == "symbolic", str(report)


@pytest.mark.parametrize("points", [0, 2.5, [(1.0,)], True])
def test_points_of_array_code_is_a_number_of_sizes(points):
    with pytest.raises(symgrad.OptionError, match="number of random sizes"):
        symgrad.check_grad(workloads.rosenbrock, workloads.rosenbrock_grad, wrt="x",
                           shapes={"x": ("n",)}, points=points)


def root_of_negative(x):  # its gradient is real nowhere: the root of minus a square, minus 1
    return np.sum(np.sqrt(-(x * x) - 1.0))


def test_nowhere_defined_is_undecided_not_equal():
    report = symgrad.check_grad(root_of_negative, lambda x: 3.0 * x, wrt="x",
                                shapes={"x": ("n",)})
    assert report.verdict == "undecided" and report.basis is None and report.evaluated == 0
    assert "no random size gave finite values" in str(report)


def test_assert_grad_takes_shapes():
    shapes = workloads.SHAPES["A1"]
    report = symgrad.assert_grad(workloads.least_squares, workloads.least_squares_grad,
                                 wrt=("w", "b"), shapes=shapes)
    assert report.basis == "symbolic"
    with pytest.raises(AssertionError, match="dleast_squares_dw differs at"):
        symgrad.assert_grad(workloads.least_squares, least_squares_missing_two, wrt=("w", "b"),
                            shapes=shapes)


WEIGHTS = np.array([0.5, 1.5, -2.0, 0.1])


def weighted(x, v):  # x must have 4 elements (the constant), v as many as x
    return np.sum(WEIGHTS * x ** 2 + np.tanh(v * x))


def test_sizes_the_build_fixed_are_used_for_both_halves():
    def by_hand(x, v):
        t = 1.0 - np.tanh(v * x) ** 2
        return 2.0 * WEIGHTS * x + v * t, x * t
    report = symgrad.check_grad(weighted, by_hand, shapes={"x": ("n",), "v": ("m",)})
    assert report.verdict == "equal" and report.basis == "symbolic", str(report)
    assert report.sizes == {} and report.evaluated == 5  # n = m = 4: no size left to choose
    assert all(sizes == () for sizes in report.points)


def squared_softplus(w, X):
    return np.sum(np.log1p(np.exp(-(X @ w))) ** 2)


def squared_softplus_grad(w, X):
    z = X @ w
    s = np.exp(-z) / (1 + np.exp(-z))
    return -2.0 * X.T @ (np.log1p(np.exp(-z)) * s)


def test_the_report_says_when_the_size_budget_skipped_sympy_on_elements():
    report = symgrad.check_grad(squared_softplus, squared_softplus_grad, wrt="w",
                                shapes={"w": ("d",), "X": ("n", "d")})
    assert (report.verdict, report.basis) == ("equal", "numeric")
    # each element sums 2 terms with exp(-z) in 2 denominators: 2 ** 4 terms over one
    assert report.skipped == tuple(
        f"dsquared_softplus_dw[{k}]: symgrad - df over one denominator would cost 2608 (163 "
        "nodes x 16 terms), above 1000" for k in range(3))
    assert str(report).split("\n")[1] == (
        "  every element agrees within rtol on the shape d=3, n=2 at the 3 points evaluated, at "
        "50 digits: the numbers decided (the symbolic comparison was skipped by size in 3 "
        "elements; in dsquared_softplus_dw[0], symgrad - df over one denominator would cost 2608 "
        "(163 nodes x 16 terms), above 1000)")

"""Array code NumPy users write that symgrad refused (the hostile tester's findings F1, F4, F6,
F16): element conditions combined with ``&``, ``|``, ``~`` and ``np.logical_*``; slices and
elements of a constant index array and ``np.array`` of ints as indices; one-sided ``np.clip``;
and the messages of what stays refused (item assignment, a loop over rows, builtin ``sum``).
Also: constant boolean masks of any rank (``X[MASK2D]``, ``~MASK``, ``MASK & (x > 0)``,
``np.array`` of bools), an index that is an integer of the sizes (``x[len(x) // 2]``),
``np.arange`` as an index array (``logp[np.arange(n), LABELS]``), ``np.var``/``np.std``/
``np.trace``/``np.diag``/``np.diff``/``np.linalg.norm`` along axes, a list of Dask arrays refused
without computing it, and LaTeX of computed indices.

Reference values: central differences along random directions in float64, hand-derived
gradients, and the branch NumPy takes at nan.
"""
import numpy as np
import pytest

import symgrad
from array_differences import assert_directional

RNG = np.random.default_rng(20261212)
IDX = np.array([2, 0, 2, 1])


def gradient_of(f, *args, **options):
    """The gradient at ``args``, checked along one random direction per argument."""
    found = symgrad.grad(f, **options)(*args)
    found = found if isinstance(found, tuple) else (found,)
    for k, g in enumerate(found):
        assert np.shape(g) == np.shape(args[k])
    assert_directional(f, found, args, RNG, rel=1e-7, abs=1e-9)
    return found[0] if len(found) == 1 else found


# --- combined element conditions (F16) -------------------------------------------------------
def inside(x):
    return np.sum(np.where((x > -1) & (x < 1), x ** 3, x))


def outside(x):
    return np.sum(np.where((x > 1) | (x < -1), x ** 3, x))


def negated(x):
    return np.sum(np.where(~(x > 0), x ** 2, 3.0 * x))


def logical(x):
    inner = np.logical_and(x > -1, np.logical_not(x > 0.5))
    return np.sum(np.where(np.logical_or(inner, x > 2), np.sin(x), x ** 2))


def either_side(x):
    return np.sum(np.where((x > 0) | (x <= 0), x ** 2, 3.0 * x))


def test_combined_conditions_choose_per_element():
    x = np.array([-2.5, -0.5, 0.25, 0.75, 1.5, 3.0])
    assert np.array_equal(gradient_of(inside, x), np.where(np.abs(x) < 1, 3 * x ** 2, 1.0))
    assert np.array_equal(gradient_of(outside, x), np.where(np.abs(x) > 1, 3 * x ** 2, 1.0))
    assert np.array_equal(gradient_of(negated, x), np.where(x > 0, 3.0, 2 * x))
    hand = np.where(((x > -1) & ~(x > 0.5)) | (x > 2), np.cos(x), 2 * x)
    assert np.allclose(gradient_of(logical, x), hand, rtol=1e-15)


def test_a_combined_condition_takes_numpys_branch_at_nan():
    x = np.array([np.nan, 0.5, -2.0])
    # ~(nan > 0) is True: the x ** 2 branch (SymPy's Not(x > 0) would be x <= 0, False at nan)
    assert np.array_equal(symgrad.grad(negated)(x), [np.nan, 3.0, -4.0], equal_nan=True)
    # (nan > 0) | (nan <= 0) is False: the 3 x branch (SymPy's Or of the two is True)
    assert np.array_equal(symgrad.grad(either_side)(x), [3.0, 1.0, -4.0])


def scalar_and(x, s):
    return np.sum(x) * (2.0 if (s > 0) & (s < 1) else 1.0)


def numbers_and(x):
    return np.sum(np.where(x & (x > 0), x, 0.0))


def scalar_not(x, s):
    return np.sum(x) * (2.0 if ~(s > 0) else 1.0)


def test_combining_numbers():
    """``&`` of 0-d conditions is Python's ``and`` (fuzzer finding AB7: it was refused); ``~`` of
    one is refused (of a Python bool it is -2 or -1, both true); ``&`` of a number array is."""
    for s, factor in ((0.5, 2.0), (1.5, 1.0), (-0.5, 1.0)):
        assert np.array_equal(symgrad.grad(scalar_and, wrt="x")(np.ones(3), s), [factor] * 3)
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(scalar_not)(np.ones(3), 0.5)
    assert info.value.lineno == scalar_not.__code__.co_firstlineno + 1
    assert "`~` of a condition on numbers" in info.value.what and "`not`" in info.value.hint
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(numbers_and)(np.ones(3))
    assert info.value.offset == len("    return np.sum(np.where(") + 1
    assert "`&` combines conditions" in info.value.what


# --- constant index arrays (F1) -----------------------------------------------------------------
def tail_gather(x):
    return np.sum(x[IDX[1:]] ** 2)


def taken(x):
    return np.sum(x.take(IDX[:2]) ** 3)


def named_slice(x):
    chosen = IDX[:3]
    return np.sum(x[chosen] ** 2)


def int_list_array(x):
    return np.sum(x[np.array([0, 1, 1])] ** 2)


def column_of_constant(E):
    return np.sum(E[:, IDX[0]] ** 2)


def test_slices_and_elements_of_a_constant_index_array_index():
    x = RNG.standard_normal(4)
    assert np.allclose(gradient_of(tail_gather, x), [2 * x[0], 2 * x[1], 2 * x[2], 0.0],
                       rtol=1e-15)
    assert np.allclose(gradient_of(taken, x), [3 * x[0] ** 2, 0.0, 3 * x[2] ** 2, 0.0],
                       rtol=1e-15)
    assert np.allclose(gradient_of(named_slice, x), [2 * x[0], 0.0, 4 * x[2], 0.0], rtol=1e-15)
    assert np.allclose(gradient_of(int_list_array, x), [2 * x[0], 4 * x[1], 0.0, 0.0],
                       rtol=1e-15)
    E = RNG.standard_normal((3, 4))
    hand = np.zeros_like(E)
    hand[:, 2] = 2 * E[:, 2]
    assert np.allclose(gradient_of(column_of_constant, E), hand, rtol=1e-15)
    assert "E[:, 2]" in symgrad.grad(column_of_constant, shapes={"E": ("n", "d")}).source


# --- one-sided np.clip (F4) --------------------------------------------------------------------
def clipped_above(x):
    return np.sum(np.clip(x, None, 0.1) ** 2)


def clipped_below(x):
    return np.sum(np.clip(x, -0.5, None) ** 3)


def test_a_clip_with_one_bound():
    x = np.array([-1.0, -0.2, 0.05, 0.4])
    assert np.allclose(gradient_of(clipped_above, x), 2 * np.minimum(x, 0.1) * (x < 0.1),
                       rtol=1e-15)
    assert np.allclose(gradient_of(clipped_below, x), 3 * x ** 2 * (x > -0.5), rtol=1e-15)


# --- what stays refused says it is about arrays (F6) -----------------------------------------
def copied_and_set(x):
    y = x.copy()
    y[0] = 0.0
    return np.sum(y ** 2)


def over_rows(X):
    t = 0.0
    for row in X:
        t += np.sum(row ** 2)
    return t


def builtin_sum(x):
    return sum(x ** 2)


def copy_only(x):
    return np.sum(x.copy() ** 2)


def sorted_in_place(x):
    x.sort()
    return x[0] * 2.0


def filled_in_place(x):
    y = x * 2.0
    y.fill(1.0)
    return np.sum(y)


@pytest.mark.parametrize("f, k, what, hint", [
    (copied_and_set, 2, "item or slice assignment", "np.where"),
    (over_rows, 2, "loop over the elements of an array", "vectorise"),
    (builtin_sum, 1, "the builtin `sum` of an array", "np.sum(x)"),
    (sorted_in_place, 1, "`.sort()` changes the array in place", "y = np.sort(y)"),
    (filled_in_place, 2, "`.fill()` changes the array in place", "np.full_like"),
])
def test_array_refusals_speak_of_arrays(f, k, what, hint):
    shape = (3, 2) if f is over_rows else (3,)
    shapes = {f.__code__.co_varnames[0]: ("n", "d")[:len(shape)]}
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(f, shapes=shapes)
    assert info.value.lineno == f.__code__.co_firstlineno + k
    assert what in info.value.what and hint in info.value.hint, str(info.value)
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(f)(np.ones(shape))  # without shapes=: read as scalar code first
    assert info.value.lineno == f.__code__.co_firstlineno + k
    assert "array" in info.value.what and "of a number is not" not in info.value.what
    assert "np." in info.value.hint, str(info.value)


def test_a_copy_is_the_value():
    x = RNG.standard_normal(5)
    assert np.allclose(gradient_of(copy_only, x), 2 * x, rtol=1e-15)


# --- minor forms (F15) and degenerate sizes (F8) -----------------------------------------------
MASK = np.array([True, False, True, True])


def default_row(X, i=1):
    return np.sum(X[i] ** 2)


def transposed(X):
    return np.sum(X.transpose(1, 0) @ X)


def masked(x):
    return np.sum(x[MASK] ** 2)


def last_row(X):
    n = X.shape[0]
    return np.sum(X[n - 1] ** 2)


def second_half(X):
    return np.sum(X[len(X) // 2:] ** 2)


def test_minor_forms_numpy_users_write():
    X = RNG.standard_normal((5, 3))
    hand = np.zeros_like(X)
    hand[1] = 2 * X[1]
    assert np.allclose(gradient_of(default_row, X), hand, rtol=1e-15)
    with pytest.raises(ValueError, match="grad_default_row was built for i=1, a range"):
        symgrad.grad(default_row)(X, 2)  # an int default used as an index is fixed at build
    assert np.allclose(gradient_of(transposed, X), np.broadcast_to(  # sum(X.T @ X) is
        2 * X.sum(axis=1)[:, None], X.shape), rtol=1e-14)  # sum_k (sum_i X_ki)^2
    x = RNG.standard_normal(4)
    assert np.allclose(gradient_of(masked, x), 2 * x * MASK, rtol=1e-15)
    with pytest.raises(ValueError, match="x.shape\\[0\\] is 5; it must be 4"):
        symgrad.grad(masked)(np.ones(5))  # NumPy raises IndexError for a mask of another length
    hand = np.zeros_like(X)
    hand[-1] = 2 * X[-1]
    assert np.allclose(gradient_of(last_row, X), hand, rtol=1e-15)
    hand = 2 * X * (np.arange(5) >= 2)[:, None]
    assert np.allclose(gradient_of(second_half, X), hand, rtol=1e-15)
    assert "X[n // 2:]" in symgrad.grad(second_half, shapes={"X": ("n", "d")}).source


def mean_square(X, w, y):
    r = X @ w - y
    return np.sum(r ** 2) / X.shape[0]


def unbiased_variance(x):
    return np.sum((x - np.mean(x)) ** 2) / (len(x) - 1)


def test_degenerate_sizes_raise_naming_the_size():
    with pytest.raises(ValueError, match=r"grad_mean_square: X.shape\[0\] is 0, and the gradient "
                       "divides by it"):
        symgrad.grad(mean_square)(np.ones((0, 3)), np.ones(3), np.ones(0))  # not ZeroDivision
    x = np.array([1.0, 2.0, 4.0])
    assert np.allclose(gradient_of(unbiased_variance, x), (x - x.mean()), rtol=1e-14)
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(unbiased_variance)(np.array([2.0]))  # one element: len(x) - 1 is 0
    assert "for arrays of these sizes" in info.value.what and "every call" not in str(info.value)
    assert info.value.lineno == unbiased_variance.__code__.co_firstlineno + 1


def reciprocal_of_zero(X):
    t = X[:, None] * np.full((1, 3), 0.5)
    c = np.reciprocal(2.0 - 2.0)
    return np.sum(t) * c


def test_undefined_constant_is_not_blamed_on_sizes():
    """``np.reciprocal(2.0 - 2.0)`` is inf at every size: the refusal says so, and no size-1 axis
    (that of ``np.full((1, 3), 0.5)``) is blamed (array fuzzer 134-934)."""
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(reciprocal_of_zero)(np.ones(2))
    assert "for every input" in info.value.what and "NumPy gives inf or nan" in info.value.what
    assert "sizes" not in str(info.value)
    assert info.value.lineno == reciprocal_of_zero.__code__.co_firstlineno + 2


def weighted(X, w, C=np.array([2.0, 1.0, 0.5])):
    return np.sum((X @ (w * C)) ** 2)


def test_a_constant_array_default_is_a_hyperparameter():
    X, w = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    C = np.array([2.0, 1.0, 0.5])
    gX, gw = gradient_of(weighted, X, w)
    r = X @ (w * C)
    assert np.allclose(gw, 2 * C * (X.T @ r), rtol=1e-14)
    assert np.allclose(gX, 2 * np.outer(r, w * C), rtol=1e-14)
    other = np.ones(3)  # another value for the hyperparameter: the same build
    gX, gw = symgrad.grad(weighted)(X, w, other)
    assert np.allclose(gw, 2 * X.T @ (X @ w), rtol=1e-14)
    gC = symgrad.grad(weighted, wrt="C")(X, w)
    assert np.allclose(gC, 2 * w * (X.T @ r), rtol=1e-14)
    built = symgrad.grad(weighted, shapes={"X": ("n", "d"), "w": ("d",)})
    assert "def grad_weighted(X, w, C=C_default):" in built.source
    assert np.allclose(built(X, w)[1], 2 * C * (X.T @ r), rtol=1e-14)


def chained_mask(x):
    return np.sum(np.where(-1 < x < 1, x ** 3, x))


def test_the_hint_of_a_chained_comparison_is_accepted_code():
    with pytest.raises(symgrad.UnsupportedSyntaxError) as info:
        symgrad.grad(chained_mask)(np.ones(3))
    assert "np.where((a < x) & (x < b), ...)" in info.value.hint
    assert "not supported" not in info.value.hint
    x = np.array([-2.0, 0.5, 3.0])
    assert np.array_equal(gradient_of(inside, x), [1.0, 0.75, 1.0])  # that form, (x > -1) & ...


# --- constant boolean masks of any rank, an index computed from a size ------------------------
GRID = np.array([[True, False, True], [False, True, True]])
CUBE = np.zeros((2, 3, 2), dtype=bool)
CUBE[0, 1, 0] = CUBE[1, 2, 1] = CUBE[1, 0, 0] = True


def mask_cubes(X):
    return np.sum(X[GRID] ** 3)


def mask_where(X):
    return np.sum(np.where(GRID, X, 0) ** 2)


def mask_negated(X):
    return np.sum(X[~GRID] ** 2) + np.sum(np.where(GRID & (X > 0), X, 0.0))


def mask_beside_an_int(X):
    return np.sum(np.sin(X[GRID, 1]))


def mask_after_ellipsis(X):
    return np.sum(X[..., GRID] ** 2)


def mask_of_rank_three(X):
    return np.sum(X[CUBE] * X[CUBE])


def literal_mask(X):
    return np.sum(X[np.array([[True, False, True], [False, False, True]])] ** 2)


@pytest.mark.parametrize("k", [2, 5])
def test_a_constant_mask_of_rank_two_indexes_as_numpy_does(k):
    X = RNG.standard_normal((2, 3, k))
    M = GRID[:, :, None]
    assert np.allclose(gradient_of(mask_cubes, X), np.where(M, 3 * X ** 2, 0.0), rtol=1e-15)
    assert np.allclose(gradient_of(mask_where, X[:, :, 0]), np.where(GRID, 2 * X[:, :, 0], 0.0),
                       rtol=1e-15)
    hand = np.where(GRID, 0.0, 2 * X[:, :, 0]) + np.where(GRID & (X[:, :, 0] > 0), 1.0, 0.0)
    assert np.allclose(gradient_of(mask_negated, X[:, :, 0]), hand, rtol=1e-15)
    hand = np.zeros_like(X)
    hand[:, :, 1] = np.where(GRID, np.cos(X[:, :, 1]), 0.0)
    assert np.allclose(gradient_of(mask_beside_an_int, X), hand, rtol=1e-15)
    Y = RNG.standard_normal((k, 2, 3))
    assert np.allclose(gradient_of(mask_after_ellipsis, Y), np.where(GRID, 2 * Y, 0.0),
                       rtol=1e-15)
    literal = np.array([[True, False, True], [False, False, True]])
    assert np.array_equal(gradient_of(literal_mask, X), np.where(literal[:, :, None], 2 * X, 0.0))
    Z = RNG.standard_normal((2, 3, 2, k))
    assert np.allclose(gradient_of(mask_of_rank_three, Z), np.where(CUBE[..., None], 2 * Z, 0.0),
                       rtol=1e-15)


def test_a_mask_of_the_wrong_shape_is_refused_at_its_axes():
    with pytest.raises(symgrad.UnsupportedSyntaxError) as error:
        symgrad.grad(mask_cubes, shapes={"X": (3, 3)})
    assert "a boolean mask of shape (2, 3) for axes of sizes (3, 3)" in str(error.value)
    assert error.value.lineno == mask_cubes.__code__.co_firstlineno + 1
    with pytest.raises(symgrad.UnsupportedSyntaxError) as error:
        symgrad.grad(mask_cubes, shapes={"X": ("n",)})
    assert "a boolean mask of rank 2 for 1 axis" in str(error.value)


def middle_times_first(x):
    return x[len(x) // 2] * x[0]


def row_before_middle(X):
    return np.sum(X[X.shape[0] // 2 - 1] ** 2) + np.sum(X[:, X.shape[1] // 2])


@pytest.mark.parametrize("n", [5, 6])
def test_an_index_computed_from_a_size(n):
    x = RNG.standard_normal(n)
    hand = np.zeros(n)
    hand[n // 2] += x[0]
    hand[0] += x[n // 2]
    assert np.array_equal(gradient_of(middle_times_first, x), hand)
    X = RNG.standard_normal((n, n + 1))
    hand = np.zeros_like(X)
    hand[n // 2 - 1] = 2 * X[n // 2 - 1]
    hand[:, (n + 1) // 2] += 1.0
    assert np.array_equal(gradient_of(row_before_middle, X), hand)
    assert "item = x[n // 2]" in symgrad.grad(middle_times_first).source


def test_a_list_of_dask_arrays_is_refused_without_computing():
    da = pytest.importorskip("dask.array")
    from dask.callbacks import Callback

    computed = []

    class Counting(Callback):
        def _start(self, dsk):
            computed.append(dsk)

    parts = [da.from_array(np.arange(3.0), chunks=2), da.ones(3, chunks=2)]
    for shapes in (None, {"X": ("n", "d")}):
        g = symgrad.grad(mask_where if shapes is None else row_before_middle, shapes=shapes)
        with Counting(), pytest.raises(TypeError) as error:
            g(parts)
        assert str(error.value).startswith("X is a list holding a dask Array: making one NumPy "
                                           "array of the list would compute it")
    assert computed == []


# --- np.arange as an index array: one element per row (cross-entropy with integer labels) ------
LABELS = np.array([2, 0, 1, 1])


def picked_by_constant_rows(Z):
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(LABELS)), LABELS])


def picked_by_sized_rows(Z):
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(Z.shape[0]), LABELS])


def diagonal_by_steps(A):
    return np.sum(A[np.arange(len(A)), np.arange(len(A))] ** 2)


@pytest.mark.parametrize("k", [3, 5])
def test_np_arange_indexes_one_element_per_row(k):
    Z = RNG.standard_normal((4, k))
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    hand = (P - np.eye(k)[LABELS]) / 4  # softmax minus the one-hot labels, over the mean's 4
    assert np.allclose(gradient_of(picked_by_sized_rows, Z), hand, rtol=1e-13)
    assert np.allclose(gradient_of(picked_by_constant_rows, Z), hand, rtol=1e-13)
    W = RNG.standard_normal((6, k))  # np.arange(4) picks the first 4 rows of any number
    hand = np.zeros_like(W)
    P = np.exp(W[:4]) / np.exp(W[:4]).sum(axis=1, keepdims=True)
    hand[:4] = (P - np.eye(k)[LABELS]) / 4
    assert np.allclose(gradient_of(picked_by_constant_rows, W), hand, rtol=1e-13)
    A = RNG.standard_normal((k, k))
    assert np.array_equal(gradient_of(diagonal_by_steps, A), np.diag(2 * np.diag(A)))


def test_np_arange_of_a_size_beside_constant_labels_fixes_that_size():
    g = symgrad.grad(picked_by_sized_rows, shapes={"Z": ("n", "k")})
    assert "steps = np.arange(4)" in g.source  # n is the labels' count
    with pytest.raises(ValueError, match="Z.shape\\[0\\] is 5; it must be 4"):
        g(np.zeros((5, 3)))


# --- np.var, np.std, np.trace, np.diff, np.linalg.norm along axes -------------------------------
def spread(X):
    return np.sum(np.var(X, axis=0)) + np.std(X[:, 0], ddof=1) + X.var(axis=1, keepdims=True)[0, 0]


def trace_terms(A):
    return np.trace(A) ** 2 + np.trace(A @ A.T) + A.trace()


def second_differences(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x))


def row_norms(X):
    return np.sum(np.linalg.norm(X, axis=1)) + np.linalg.norm(X) ** 2


@pytest.mark.parametrize("n", [4, 7])
def test_moments_traces_differences_and_norms_along_axes(n):
    X = RNG.standard_normal((n, 3))
    centred = X - X.mean(axis=0)
    column = X[:, 0] - X[:, 0].mean()
    hand = 2 * centred / n
    hand[:, 0] += column / ((n - 1) * np.std(X[:, 0], ddof=1))
    hand[0] += 2 * (X[0] - X[0].mean()) / 3
    assert np.allclose(gradient_of(spread, X), hand, rtol=1e-12)
    A = RNG.standard_normal((n, n))
    assert np.allclose(gradient_of(trace_terms, A), 2 * np.trace(A) * np.eye(n) + 2 * A + np.eye(n),
                       rtol=1e-13)
    x = RNG.standard_normal(n + 2)
    D = np.diff(np.eye(n + 2), n=2, axis=0)  # the second-difference matrix: D @ x = np.diff(x, 2)
    hand = 2 * D.T @ (D @ x)
    hand[0] -= 1.0
    hand[-1] += 1.0
    assert np.allclose(gradient_of(second_differences, x), hand, rtol=1e-12)
    assert np.allclose(gradient_of(row_norms, X),
                       X / np.linalg.norm(X, axis=1, keepdims=True) + 2 * X, rtol=1e-13)


def test_a_trace_is_the_diagonal_summed_as_numpy_sums_it():
    g = symgrad.grad(trace_terms, shapes={"A": ("n", "n")})
    assert "diagonal = A[steps, steps]" in g.source
    A = np.array([[1e16, 3.0], [2.0, 1.0]])
    assert symgrad.value_and_grad(trace_terms)(A)[0] == trace_terms(A)


def test_latex_prints_indices_computed_when_called():
    # an index array the code computes (np.arange of a size) and an index of the sizes: the
    # spec holds SymPy values there, which latex printed as names (and raised on) before
    text = symgrad.latex(symgrad.grad(trace_terms, shapes={"A": ("n", "n")}))[0]
    assert r"[\operatorname{arange}\left(n\right), \operatorname{arange}\left(n\right)]" in text
    text = symgrad.latex(symgrad.grad(middle_times_first, shapes={"x": ("n",)}))[0]
    assert r"{x}_{[\left\lfloor{\frac{n}{2}}\right\rfloor]}" in text


def diagonal_squares(A):
    return np.sum(np.diag(A) ** 2)


def diagonal_matrix(v):
    return np.sum(np.diag(v))


@pytest.mark.parametrize("n", [3, 5])
def test_the_diagonal_of_a_matrix(n):
    A = RNG.standard_normal((n, n))
    assert np.array_equal(gradient_of(diagonal_squares, A), np.diag(2 * np.diag(A)))
    B = RNG.standard_normal((n, n + 2))  # a wide matrix: its n diagonal elements
    hand = np.zeros_like(B)
    hand[np.arange(n), np.arange(n)] = 2 * np.diag(B)
    assert np.array_equal(gradient_of(diagonal_squares, B), hand)
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="np.diag is supported for a matrix"):
        symgrad.grad(diagonal_matrix, shapes={"v": ("n",)})


def past_the_end(x):
    return x[len(x)] ** 2


def from_the_end_by_half(x):
    return x[-(len(x) // 2)] ** 2


def test_an_index_of_the_sizes_is_checked_and_counts_from_the_end_as_python_does():
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="index n is out of range for size n"):
        symgrad.grad(past_the_end, shapes={"x": ("n",)})
    for n in (4, 5):
        x = RNG.standard_normal(n)
        hand = np.zeros(n)
        hand[-(n // 2)] = 2 * x[-(n // 2)]
        assert np.array_equal(gradient_of(from_the_end_by_half, x), hand)


PICKS = np.array([[2], [0], [1], [1]])


def taken_along_rows(Z):
    return np.sum(np.take_along_axis(Z, PICKS, axis=1) ** 2)


def taken_along_argmax(Z):
    picked = np.argmax(symgrad.stop_gradient(Z), axis=1)[:, None]
    return np.sum(np.take_along_axis(Z, picked, axis=1))


@pytest.mark.parametrize("k", [3, 6])
def test_take_along_axis_of_constant_indices(k):
    Z = RNG.standard_normal((4, k))
    hand = np.zeros_like(Z)
    rows = np.arange(4)
    hand[rows, PICKS[:, 0]] = 2 * Z[rows, PICKS[:, 0]]
    assert np.array_equal(gradient_of(taken_along_rows, Z), hand)
    with pytest.raises(symgrad.UnsupportedSyntaxError, match="np.take_along_axis is supported "
                       "with a constant int array"):
        symgrad.grad(taken_along_argmax, shapes={"Z": ("n", "k")})


def einsum_trace(A):
    return np.einsum("ii->", A) ** 2 + np.einsum("ii", A)


def einsum_scaled_diagonal(A, x):
    return np.sum(np.einsum("ii,i->i", A, x) ** 2)


def einsum_apart(T):
    return np.sum(np.einsum("iji->j", T) ** 2)


@pytest.mark.parametrize("n", [3, 5])
def test_einsum_with_a_repeated_letter_takes_the_diagonal(n):
    A, x = RNG.standard_normal((n, n)), RNG.standard_normal(n)
    assert np.allclose(gradient_of(einsum_trace, A), (2 * np.trace(A) + 1) * np.eye(n),
                       rtol=1e-14)
    assert np.allclose(gradient_of(einsum_scaled_diagonal, A, x)[0],
                       np.diag(2 * np.diag(A) * x ** 2), rtol=1e-14)
    T = RNG.standard_normal((n, 2, n))
    s = np.einsum("iji->j", T)
    hand = np.zeros_like(T)
    for i in range(n):
        hand[i, :, i] = 2 * s
    assert np.allclose(gradient_of(einsum_apart, T), hand, rtol=1e-14)

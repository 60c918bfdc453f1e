"""``y += e`` on a NumPy array updates the array itself: every other name that refers to it (or
to a view of it) sees the new values. symgrad reads the update as a new value of ``y`` alone, so
where another name shares the array the gradient was of another function (``y = x; y += 1.0;
np.sum(x * y)`` is ``sum((x + 1) ** 2)``, gradient ``2 (x + 1)``; symgrad gave ``2 x + 1``):
that update is refused, at its line. An update that does not broadcast to ``y``'s shape, where
NumPy raises, is refused too. Updates of arrays no other name holds are read as before."""
import numpy as np
import pytest

import symgrad
from symgrad import stop_gradient
from array_differences import elementwise

TABLE = np.array([1.0, 2.0, 3.0])


def alias(x):
    y = x
    y += 1.0
    return np.sum(x * y)  # the primal: sum((x + 1) ** 2)


def alias_scaled(x):
    y = x
    y *= 2.0
    return np.sum(x)  # the primal: sum(2 x)


def stopped_alias(x):
    y = stop_gradient(x)
    y *= 3.0
    return np.sum(x)  # the primal: sum(3 x), x itself tripled


def view(x):
    y = x[1:]
    y *= 2.0
    return np.sum(x ** 2)  # x[1:] doubled in x


def transposed(X):
    Y = X.T
    Y -= 1.0
    return np.sum(X * X)


def reshaped(X):
    y = X.reshape(-1)
    y += 1.0
    return np.sum(X ** 2)


def _center(v):
    v -= np.mean(v)
    return v


def helper_mutates_argument(x):
    c = _center(x)
    return np.sum(c * x)  # x is centred in place: sum(c ** 2)


def constant_updated(x):
    t = TABLE
    t += x  # TABLE itself changes, for every later call
    return np.sum(t ** 2)


def default_updated(x, C=np.ones(3)):
    C *= x
    return np.sum(C)


def in_a_branch(x):
    if np.sum(x) > 0.0:
        y = x
    else:
        y = x * 2.0
    y += 1.0
    return np.sum(x * y)


def in_a_tuple(x, w):
    a, b = x, w
    a += 1.0
    return np.sum(a * x)


def wider(x, y):
    z = x * 1.0
    z += y[:, None]  # NumPy: non-broadcastable output operand
    return np.sum(z)


@pytest.mark.parametrize("f, shapes, line", [
    (alias, {"x": ("n",)}, "y += 1.0"),
    (alias_scaled, {"x": ("n",)}, "y *= 2.0"),
    (stopped_alias, {"x": ("n",)}, "y *= 3.0"),
    (view, {"x": ("n",)}, "y *= 2.0"),
    (transposed, {"X": ("n", "d")}, "Y -= 1.0"),
    (reshaped, {"X": ("n", "d")}, "y += 1.0"),
    (helper_mutates_argument, {"x": ("n",)}, "v -= np.mean(v)"),
    (constant_updated, {"x": (3,)}, "t += x"),
    (default_updated, {"x": (3,)}, "C *= x"),
    (in_a_branch, {"x": ("n",)}, "y += 1.0"),
    (in_a_tuple, {"x": ("n",), "w": ("n",)}, "a += 1.0"),
    (wider, {"x": ("n",), "y": ("n",)}, "z += y[:, None]"),
], ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.parametrize("at_call", [False, True], ids=["shapes", "at-call"])
def test_an_update_of_a_shared_array_is_refused(f, shapes, line, at_call):
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        if at_call:
            args = [np.ones(3)] * len([s for s in shapes])
            symgrad.grad(f, wrt=tuple(shapes))(*[a.reshape(3, 1) if len(shapes[k]) == 2 else a
                                                 for a, k in zip(args, shapes)])
        else:
            symgrad.grad(f, wrt=tuple(shapes), shapes=shapes)
    assert caught.value.text.split("#")[0].strip() == line
    assert "in place" in str(caught.value)


def test_the_refused_gradient_was_a_wrong_number():
    """What the primal computes, by central differences: 2 (x + 1) for ``alias``."""
    x = np.array([1.0, 2.0])
    h = 1e-6
    fd = [(alias(x + h * e) - alias(x - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(fd, [4.0, 6.0], rtol=1e-6)


# --- updates no other name sees: read as before -------------------------------------------
def residual(X, w, y):
    r = X @ w
    r -= y
    return np.sum(r ** 2)  # 2 X^T (X w - y)


def parameter_updated(x):
    x -= 0.5
    return np.sum(x ** 2)  # 2 (x - 0.5): nobody else holds x


def accumulated(x):
    total = np.zeros(3)
    for k in range(1, 3):
        total += k * x
    return np.sum(total ** 2)  # total = 3 x: 18 x


def rebound_first(x):
    y = x
    x = x * 2.0
    y += 1.0  # the argument's array, which no name reads after
    return np.sum(x * y)  # 2 x (x + 1): 4 x + 2


def fresh_in_a_branch(x):
    if np.sum(x) > 0.0:
        y = x * 3.0
    else:
        y = x * 2.0
    y += 1.0
    return np.sum(x * y)  # sum(x) > 0: 3x^2 + x, 6 x + 1


def copied(x):
    y = x.copy()
    y += 1.0
    return np.sum(x * y)  # 2 x + 1


@pytest.mark.parametrize("f, args, expected", [
    (residual, (np.array([[1.0, 2.0], [0.0, 1.0], [1.0, -1.0]]), np.array([0.5, -1.0]),
                np.array([1.0, 0.0, 2.0])), None),
    (parameter_updated, (np.array([1.0, 2.0]),), [1.0, 3.0]),
    (accumulated, (np.array([1.0, -2.0, 0.5]),), [18.0, -36.0, 9.0]),
    (rebound_first, (np.array([1.0, 2.0]),), [6.0, 10.0]),
    (fresh_in_a_branch, (np.array([1.0, 2.0]),), [7.0, 13.0]),
    (copied, (np.array([1.0, 2.0]),), [3.0, 5.0]),
], ids=lambda v: getattr(v, "__name__", None))
def test_an_update_no_other_name_sees_is_read(f, args, expected):
    got = symgrad.grad(f, wrt=0)(*[a.copy() for a in args])
    if expected is None:  # residual: 2 X^T (X w - y), by hand
        X, w, y = args
        expected = 2.0 * X.T @ (X @ w - y)
        got = symgrad.grad(f, wrt=1)(*[a.copy() for a in args])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


# --- what a helper returns ------------------------------------------------------------------
def _layer(x, W):
    return x @ W


def _scaled(x):
    out = 2.0 * x
    return out


def _same(x):
    return x


def _first(x):
    return x[0]


def helper_result_updated(X, W, b):
    h = _layer(X, W)
    h += b  # a new array: read as h = h + b
    return np.sum(h ** 2)


def named_result_updated(x):
    y = _scaled(x)
    y += 1.0
    return np.sum(x * y)  # x (2x + 1): 4 x + 1


def returned_parameter_updated(x):
    y = _same(x)
    y += 1.0  # x itself
    return np.sum(x * y)


def returned_row_updated(X):
    r = _first(X)
    r *= 2.0  # a view of X's first row
    return np.sum(X)


def zipped(x, w):
    total = 0.0
    for a, b in zip((x,), (w,)):
        a += b  # x itself
        total = total + np.sum(a * x)
    return total


def test_a_helper_returning_a_new_array_may_be_updated():
    X = np.array([[1.0, 2.0], [0.5, -1.0]])
    W = np.array([[0.3], [-0.2]])
    b = np.array([0.1])
    dW = symgrad.grad(helper_result_updated, wrt="W")(X, W, b)
    np.testing.assert_allclose(dW, 2.0 * X.T @ (X @ W + b), rtol=1e-12)  # by hand
    np.testing.assert_allclose(symgrad.grad(named_result_updated)(np.array([1.0, 2.0])),
                               [5.0, 9.0], rtol=1e-12)


@pytest.mark.parametrize("f, shapes, line", [
    (returned_parameter_updated, {"x": ("n",)}, "y += 1.0"),
    (returned_row_updated, {"X": ("n", "d")}, "r *= 2.0"),
    (zipped, {"x": ("n",), "w": ("n",)}, "a += b"),
], ids=lambda v: getattr(v, "__name__", None))
def test_a_helper_returning_its_argument_is_a_share(f, shapes, line):
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f, wrt=tuple(shapes), shapes=shapes)
    assert caught.value.text.split("#")[0].strip() == line


# --- lists: `+=` extends the list itself ---------------------------------------------------
def list_alias(x, y):
    a = [x]
    b = a
    b += [y]
    return sum(a)  # the primal: x + y (symgrad gave (1.0, 0.0))


def _add_square(terms, x):
    terms += [x ** 2]


def list_extended_by_helper(x):
    terms = [x]
    _add_square(terms, x)
    return sum(terms)  # the primal: x + x ** 2, 7.0 at 3.0 (symgrad gave 1.0)


def row_of_a_table(x, y):
    rows = [[x], [y]]
    first = rows[0]
    first += [y]
    return sum(rows[0]) + sum(rows[1])  # x + 2 y


def list_accumulated(x):
    acc = []
    for k in range(3):
        acc += [x ** k]
    return sum(acc)  # 1 + x + x ** 2: 1 + 2 x


def tuple_extended(x, y):
    a = (x,)
    b = a
    b += (y,)  # a new tuple: a is still (x,)
    return sum(a) + 2.0 * sum(b)  # 3 x + 2 y


@pytest.mark.parametrize("f, line, who", [
    (list_alias, "b += [y]", "`a`"),
    (list_extended_by_helper, "terms += [x ** 2]", "`terms` of the caller"),
    (row_of_a_table, "first += [y]", "`rows`"),
], ids=lambda v: getattr(v, "__name__", None))
def test_extending_a_shared_list_is_refused(f, line, who):
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f)
    assert caught.value.text.strip() == line
    assert "extends the list" in str(caught.value) and who in str(caught.value)


def test_a_list_no_other_name_sees_and_a_tuple_are_read():
    assert symgrad.grad(list_accumulated)(2.0) == 5.0
    assert symgrad.grad(tuple_extended)(1.0, 2.0) == (3.0, 2.0)


# --- a sharer read no more sees no change --------------------------------------------------
def alias_not_read_after(x, b):
    out = x
    out += b  # x changes too, but nothing reads x after: sum((x + b) ** 2)
    return np.sum(out ** 2)


def alias_read_in_a_later_loop_step(x):
    y = x
    total = 0.0
    for k in range(2):
        total = total + np.sum(x * y)  # the second step reads x after the update
        y += 1.0
    return total


def alias_read_by_a_closure(x):
    def norm():
        return np.sum(x ** 2)
    y = x
    y *= 2.0
    return norm()  # reads x, doubled


def test_an_alias_no_later_line_reads_is_no_share():
    x, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    dx, db = symgrad.grad(alias_not_read_after)(x.copy(), b)
    np.testing.assert_allclose(dx, 2.0 * (x + b), rtol=1e-12)  # by hand
    np.testing.assert_allclose(db, 2.0 * (x + b), rtol=1e-12)


@pytest.mark.parametrize("f, line", [(alias_read_in_a_later_loop_step, "y += 1.0"),
                                     (alias_read_by_a_closure, "y *= 2.0")],
                         ids=lambda v: getattr(v, "__name__", None))
def test_an_alias_read_later_is_a_share(f, line):
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(f, shapes={"x": ("n",)})
    assert caught.value.text.strip() == line


def _collect(x, seen=[]):  # noqa: B006 (the gotcha under test)
    seen += [x]
    return sum(seen)


def mutable_default(x):
    return _collect(x)  # x on the first call, 2 x on the second: the default list grows


def test_extending_a_list_default_is_refused():
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(mutable_default)
    assert caught.value.text.split("#")[0].strip() == "seen += [x]"
    assert "kept between calls" in str(caught.value)


TERMS = [1.0]


def module_list_extended(x):
    t = TERMS
    t += [x]  # TERMS itself grows, for every later call
    return sum(t)


def test_extending_a_module_list_is_refused():
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(module_list_extended)
    assert caught.value.text.split("#")[0].strip() == "t += [x]"
    assert TERMS == [1.0]


ROWS = np.array([0, 2, 0])


def gathered_updated(E):
    G = E[ROWS]  # an index array: a copy
    G += 1.0
    return np.sum(G * E[:1])


def test_an_update_of_a_gathered_copy_is_read():
    E = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    got = symgrad.grad(gathered_updated)(E.copy())
    np.testing.assert_allclose(got, elementwise(gathered_updated, E), rtol=1e-6)


def int_array_updated(x):
    c = np.arange(3)
    c += 0.5  # NumPy: UFuncTypeError (a float result into an int array)
    return np.sum(x * c)


def int_array_doubled(x):
    c = np.arange(len(x))
    c *= 2  # ints stay ints: read as c = 2 c
    return np.sum(x * c)


def test_a_float_update_of_an_int_array_is_refused():
    with pytest.raises(TypeError):  # the premise: the primal raises (UFuncTypeError)
        int_array_updated(np.ones(3))
    with pytest.raises(symgrad.UnsupportedSyntaxError) as caught:
        symgrad.grad(int_array_updated)(np.ones(3))
    assert caught.value.text.split("#")[0].strip() == "c += 0.5"
    np.testing.assert_array_equal(symgrad.grad(int_array_doubled)(np.ones(3)), [0.0, 2.0, 4.0])

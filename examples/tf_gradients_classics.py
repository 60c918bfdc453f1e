"""The three classic `tf.gradients` experiments (TensorFlow's API docs), written as plain Python.

1. Sum of paths. b = 2a and c = a + b: the gradient of c reaches `a` by two routes, directly (1)
   and through b (2), and the routes add: dc/da = 1 + 2 = 3. `tf.gradients(c, [a, b])` also
   answers dc/db = 1 for the tensor b (what b is computed from held fixed): wrt=("a", "b").
2. A stopped product. a = 3 w1 and b = stop_gradient(a) * w2 at w1 = w2 = 2: b depends on w1 only
   through the stopped `a`, so db/dw1 = 0 (TF: None with UnconnectedGradients.NONE, symgrad:
   unconnected="none"), and db/dw2 = a = 6.
3. Two routes, one stopped. c = a + b and e = stop_gradient(c) + (a + b): the stopped copy of a + b
   contributes nothing but the other copy still carries the gradient: (de/da, de/db) = (1, 1).

Run from the repository root: python examples/tf_gradients_classics.py
"""
import symgrad
from symgrad import stop_gradient


def sum_of_paths(a):
    b = 2 * a
    c = a + b
    return c


def stopped_product(w1, w2):
    a = w1 * 3.0
    b = stop_gradient(a) * w2
    return b


def two_routes(a, b):
    c = a + b
    e = stop_gradient(c) + (a + b)
    return e


def main():
    g = symgrad.grad(sum_of_paths)
    print(g.source)
    assert g(1.0) == 3.0 and g(-7.5) == 3.0, f"dc/da = 1 + 2 = 3 everywhere, got {g(1.0)}"
    print("ok: sum_of_paths: dc/da = 3 (1 directly + 2 through b)")
    g = symgrad.grad(sum_of_paths, wrt=("a", "b"))  # b is an intermediate
    assert g(1.0) == (3.0, 1.0), f"tf.gradients(c, [a, b]) is [3.0, 1.0], got {g(1.0)}"
    print("ok: sum_of_paths: (dc/da, dc/db) = (3.0, 1.0), as tf.gradients(c, [a, b])")

    g = symgrad.grad(stopped_product)
    print(g.source)
    assert g(2.0, 2.0) == (0.0, 6.0), f"expected (0.0, 6.0) at w1 = w2 = 2, got {g(2.0, 2.0)}"
    print("ok: stopped_product: (db/dw1, db/dw2) = (0.0, 6.0)")
    g_none = symgrad.grad(stopped_product, unconnected="none")
    assert g_none(2.0, 2.0) == (None, 6.0), (
        f"with unconnected='none' expected (None, 6.0), got {g_none(2.0, 2.0)}")
    print("ok: stopped_product with unconnected='none': (None, 6.0), as TF's "
          "UnconnectedGradients.NONE")

    g = symgrad.grad(two_routes)
    print(g.source)
    for a, b in [(1.0, 2.0), (-3.0, 0.5)]:
        assert g(a, b) == (1.0, 1.0), f"expected (1.0, 1.0) at a={a}, b={b}, got {g(a, b)}"
    value = two_routes(1.0, 2.0)
    assert value == 6.0, f"the forward value counts both copies: 3 + 3 = 6, got {value}"
    print("ok: two_routes: (de/da, de/db) = (1.0, 1.0), the unstopped copy carries the gradient")


if __name__ == "__main__":
    main()

"""Three masses on a line, joined by four springs between walls at 0 and WALL = 4.

    wall |--k1--(x1)--k2--(x2)--k3--(x3)--k4--| wall        k1 = k4 = K_OUTER, k2 = k3 = K_INNER

Each spring stores 0.5 * k * (length - REST)**2. The force on a mass is minus the derivative of the
energy, so by hand (a stretched spring pulls its two ends together):

    F1 = -k1 (x1 - REST)           + k2 (x2 - x1 - REST)
    F2 = -k2 (x2 - x1 - REST)      + k3 (x3 - x2 - REST)
    F3 = -k3 (x3 - x2 - REST)      + k4 (WALL - x3 - REST)

At equilibrium every spring carries the same tension T: length_i = REST + T / k_i, and the lengths
add up to WALL: 4 REST + T (2/K_OUTER + 2/K_INNER) = WALL. With REST = 0.25, K_OUTER = 4 and
K_INNER = 2 that is 1 + T * 1.5 = 4, so T = 2, the lengths are 0.75, 1.25, 1.25, 0.75 and the
masses rest at

    x1 = 0.75, x2 = 2.0, x3 = 3.25.

The second derivatives form the stiffness matrix

    [[k1 + k2, -k2, 0], [-k2, k2 + k3, -k3], [0, -k3, k3 + k4]].

Run from the repository root: python examples/spring_chain.py
"""
import symgrad

WALL = 4.0
K_OUTER = 4.0
K_INNER = 2.0
REST = 0.25


def spring(k, length):
    return 0.5 * k * (length - REST) ** 2


def energy(x1, x2, x3):
    return (spring(K_OUTER, x1) + spring(K_INNER, x2 - x1) + spring(K_INNER, x3 - x2)
            + spring(K_OUTER, WALL - x3))


def force(x1, x2, x3):
    """The force on each mass, derived by hand (see the module docstring)."""
    k1, k2, k3, k4 = K_OUTER, K_INNER, K_INNER, K_OUTER
    return (-k1 * (x1 - REST) + k2 * (x2 - x1 - REST),
            -k2 * (x2 - x1 - REST) + k3 * (x3 - x2 - REST),
            -k3 * (x3 - x2 - REST) + k4 * (WALL - x3 - REST))


EQUILIBRIUM = (0.75, 2.0, 3.25)


def main():
    g = symgrad.grad(energy)
    print(g.source)

    for x in [(1.0, 2.0, 3.0), (0.5, 1.0, 3.9), (-1.0, 5.0, 2.0), EQUILIBRIUM]:
        expected = tuple(-f for f in force(*x))
        got = g(*x)
        assert all(abs(a - b) <= 1e-12 * (1 + abs(b)) for a, b in zip(got, expected)), (
            f"gradient at {x} should be minus the force {expected}, got {got}")
    print("ok: grad energy = -force at four configurations")

    at_rest = g(*EQUILIBRIUM)
    assert all(abs(d) <= 1e-12 for d in at_rest), (
        f"the gradient should vanish at the equilibrium {EQUILIBRIUM}, got {at_rest}")
    print(f"ok: grad energy{EQUILIBRIUM} = {at_rest}: the chain is at rest there")

    # released from rest elsewhere, gradient descent slides into the same equilibrium
    x = (1.0, 1.5, 3.5)
    for _ in range(200):
        x = tuple(xi - 0.1 * di for xi, di in zip(x, g(*x)))
    assert all(abs(a - b) <= 1e-9 for a, b in zip(x, EQUILIBRIUM)), (
        f"gradient descent should reach {EQUILIBRIUM}, reached {x}")
    print(f"ok: gradient descent from (1.0, 1.5, 3.5) reaches {tuple(round(v, 9) for v in x)}")

    # a gradient can be differentiated again: its rows are the stiffness matrix
    k1, k2, k3, k4 = K_OUTER, K_INNER, K_INNER, K_OUTER
    stiffness = ((k1 + k2, -k2, 0.0), (-k2, k2 + k3, -k3), (0.0, -k3, k3 + k4))
    for i, name in enumerate(("x1", "x2", "x3")):
        row = symgrad.grad(symgrad.grad(energy, wrt=name))(1.0, 2.0, 3.0)
        assert row == stiffness[i], f"d2 energy / d{name} dx should be {stiffness[i]}, got {row}"
    print(f"ok: second derivatives = stiffness matrix {stiffness}")


if __name__ == "__main__":
    main()

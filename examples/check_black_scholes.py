"""Checking the textbook Black-Scholes Greeks, which SymPy cannot prove equal to the derivative.

The price of a European call is C = S N(d1) - K exp(-rT) N(d2), with
d1 = (log(S/K) + (r + sigma^2/2) T) / (sigma sqrt(T)) and d2 = d1 - sigma sqrt(T). Its Greeks, as
every textbook gives them, are

    delta = dC/dS = N(d1)                 dC/dK = -exp(-rT) N(d2)
    theta = dC/dT = S phi(d1) sigma / (2 sqrt(T)) + r K exp(-rT) N(d2)
    rho   = dC/dr = K T exp(-rT) N(d2)    vega  = dC/dsigma = S phi(d1) sqrt(T)

They hold because S phi(d1) = K exp(-rT) phi(d2), an identity SymPy's simplify does not find. So
symgrad.check_grad decides by evaluating both gradients at 50 significant digits at the points:
the textbook Greeks are "equal" (basis "numeric"), and a vega off by 1 % is "different", named.

The call price and the Greeks are the acceptance cases' own (black_scholes_call,
black_scholes_greeks and black_scholes_greeks_wrong_vega in tests/acceptance/cases_usage.py), read
from there so that one copy of each exists.

Run from the repository root: python examples/check_black_scholes.py
"""
import os
import sys

import symgrad

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests",
                                "acceptance"))
from cases_usage import black_scholes_call as call  # noqa: E402
from cases_usage import black_scholes_greeks as greeks  # noqa: E402
from cases_usage import black_scholes_greeks_wrong_vega as greeks_wrong_vega  # noqa: E402

MARKET = [(100.0, 95.0, 0.5, 0.03, 0.2), (100.0, 120.0, 2.0, 0.01, 0.35),
          (50.0, 50.0, 0.1, 0.0, 0.6)]  # S, K, T (years), r, sigma


def main():
    print(symgrad.grad(call).source)

    right = symgrad.check_grad(call, greeks)
    print(right)
    assert (right.verdict, right.basis) == ("equal", "numeric"), right
    print("ok: the textbook Greeks are equal to symgrad's gradient at 50 digits (10 points)")

    market = symgrad.check_grad(call, greeks, points=MARKET)
    print(market)
    assert market.verdict == "equal" and market.evaluated == len(MARKET), market
    print("ok: also at market-like points (S = 100, K = 95, T = 0.5 years ...)")

    wrong = symgrad.check_grad(call, greeks_wrong_vega)
    print(wrong)
    assert wrong.verdict == "different" and wrong.differing == (
        "dblack_scholes_call_dsigma",), wrong
    print(f"ok: the wrong vega is caught and named: {wrong.differing[0]} is {wrong.got!r} by "
          f"hand, {wrong.expected!r} by symgrad at {wrong.worst_point}")


if __name__ == "__main__":
    main()

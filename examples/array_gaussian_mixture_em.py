"""A 1-D Gaussian mixture fitted by EM: the M-step as a gradient with stopped responsibilities.

For data x_i and K components (weights pi_k, means mu_k, standard deviations sigma_k), with

    log_p_ik = log pi_k - log sigma_k - (x_i - mu_k)^2 / (2 sigma_k^2) - log(2 pi) / 2

the E-step computes the responsibilities r_ik = softmax_k(log_p_ik), and the M-step maximises
Q = sum_ik r_ik log_p_ik with r held fixed. Wrapping r in stop_gradient says exactly that, so by
hand

    d Q / d mu_k = sum_i r_ik (x_i - mu_k) / sigma_k^2

and setting it to 0 gives the closed-form M-step mu_k = sum_i r_ik x_i / sum_i r_ik. Q is
quadratic in mu_k with curvature -sum_i r_ik / sigma_k^2, so one Newton step from any mu lands on
that closed form: that is the M-step for the means here. (The same gradient is also the gradient
of the log-likelihood itself at the current parameters, Fisher's identity, checked below.) The
weights and widths take their usual closed-form updates. EM never lowers the log-likelihood.

Run from the repository root: python examples/array_gaussian_mixture_em.py
"""
import math

import numpy as np

import symgrad
from symgrad import stop_gradient

HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
TRUTH = dict(pi=np.array([0.3, 0.7]), mu=np.array([-2.0, 1.5]), sigma=np.array([0.6, 1.0]))
ITERATIONS = 12


def m_step_objective(mu, x, sigma, pi):
    d = x[:, None] - mu[None, :]
    log_p = np.log(pi) - np.log(sigma) - 0.5 * (d / sigma) ** 2 - HALF_LOG_2PI
    m = np.max(log_p, axis=1, keepdims=True)
    e = np.exp(log_p - m)
    r = stop_gradient(e / np.sum(e, axis=1, keepdims=True))
    return np.sum(r * log_p)


def log_likelihood(mu, x, sigma, pi):
    d = x[:, None] - mu[None, :]
    log_p = np.log(pi) - np.log(sigma) - 0.5 * (d / sigma) ** 2 - HALF_LOG_2PI
    m = stop_gradient(np.max(log_p, axis=1, keepdims=True))
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(log_p - m), axis=1)))


def responsibilities(mu, x, sigma, pi):
    log_p = np.log(pi) - np.log(sigma) - 0.5 * ((x[:, None] - mu) / sigma) ** 2 - HALF_LOG_2PI
    e = np.exp(log_p - np.max(log_p, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def by_hand(mu, x, sigma, pi):
    """sum_i r_ik (x_i - mu_k) / sigma_k^2, see the module docstring."""
    r = responsibilities(mu, x, sigma, pi)
    return np.sum(r * (x[:, None] - mu), axis=0) / sigma ** 2


def synthetic_data(n=400, seed=2):
    rng = np.random.default_rng(seed)
    component = rng.choice(2, size=n, p=TRUTH["pi"])
    return rng.normal(TRUTH["mu"][component], TRUTH["sigma"][component])


def main():
    shapes = {"mu": ("k",), "x": ("n",), "sigma": ("k",), "pi": ("k",)}
    g = symgrad.grad(m_step_objective, wrt="mu", shapes=shapes)
    g_loglik = symgrad.grad(log_likelihood, wrt="mu", shapes=shapes)
    print(g.source)

    x = synthetic_data()
    mu, sigma, pi = np.array([-0.5, 0.5]), np.array([1.0, 1.0]), np.array([0.5, 0.5])
    previous = -math.inf
    for iteration in range(ITERATIONS + 1):
        value = log_likelihood(mu, x, sigma, pi)
        print(f"iteration {iteration:2d}: log-likelihood {value:10.4f}  mu {np.round(mu, 4)}  "
              f"sigma {np.round(sigma, 4)}  pi {np.round(pi, 4)}")
        assert value >= previous - 1e-9, f"EM lowered the log-likelihood: {previous} -> {value}"
        previous = value

        dmu = g(mu, x, sigma, pi)
        assert dmu.shape == mu.shape, f"gradient shape {dmu.shape}, expected {mu.shape}"
        assert np.allclose(dmu, by_hand(mu, x, sigma, pi), rtol=1e-10, atol=1e-10), (
            f"iteration {iteration}: by hand {by_hand(mu, x, sigma, pi)}, symgrad {dmu}")
        assert np.allclose(dmu, g_loglik(mu, x, sigma, pi), rtol=1e-9, atol=1e-9), (
            f"iteration {iteration}: dQ/dmu {dmu} differs from dlogL/dmu "
            f"{g_loglik(mu, x, sigma, pi)}")

        r = responsibilities(mu, x, sigma, pi)
        counts = np.sum(r, axis=0)
        new_mu = mu + sigma ** 2 * dmu / counts          # the Newton step on the quadratic Q
        closed_form = r.T @ x / counts
        assert np.allclose(new_mu, closed_form, rtol=1e-12, atol=1e-12), (
            f"iteration {iteration}: Newton step {new_mu}, closed form {closed_form}")
        mu = new_mu
        sigma = np.sqrt(np.sum(r * (x[:, None] - mu) ** 2, axis=0) / counts)
        pi = counts / len(x)
    print(f"ok: dQ/dmu = sum_i r_ik (x_i - mu_k) / sigma_k^2 (= dlogL/dmu) at all "
          f"{ITERATIONS + 1} iterations, and the Newton step on it is the closed-form M-step")
    print(f"ok: the log-likelihood rose at every iteration, to {previous:.4f}")

    assert np.allclose(mu, TRUTH["mu"], atol=0.2), f"means {mu}, truth {TRUTH['mu']}"
    assert np.allclose(pi, TRUTH["pi"], atol=0.1), f"weights {pi}, truth {TRUTH['pi']}"
    print(f"ok: fitted means {np.round(mu, 3)} (truth {TRUTH['mu']}), weights {np.round(pi, 3)} "
          f"(truth {TRUTH['pi']})")


if __name__ == "__main__":
    main()

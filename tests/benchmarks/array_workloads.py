"""Array benchmark workloads A1-A8, with hand-written NumPy gradients (the practical limit).

Each workload is a plain NumPy function of arrays, written the way a practitioner writes it: `np.*`
calls, `@`, broadcasting, slicing, reductions with `axis=`/`keepdims=`, module constants, and
`stop_gradient` where the algorithm needs it. Each `*_grad` is a hand-written, vectorised gradient
(no Python loop over elements, in-place updates where they save a pass), returning one array (or
float) per `wrt` name, in `wrt` order.

`WORKLOADS` maps a key (A1..A8) to a `Workload`: the function, its hand gradient, the `wrt`
parameter names, a data generator and the two sizes `small` and `large`. `make_args(key, size)`
returns the arguments of the function, in its parameter order, from a fixed seed (same arrays in
every process). `SHAPES` gives, per key, the `shapes=` argument that builds symgrad's gradient
before the first call.

These are the product owner's peer-benchmark workloads (same functions, sizes and seeds), kept here
so that `tests/benchmarks/bench_arrays.py` runs from a clone alone; `tests/test_array_workloads.py`
checks every hand gradient against symgrad's and a central difference.
"""
from typing import Callable, NamedTuple

import numpy as np

from symgrad import stop_gradient


SEED = 20261201
LAM = 0.01       # A2: L2 penalty weight
S = 16.0         # A8: quantiser steps per unit (weights rounded to multiples of 1/16)


# --------------------------------------------------------------------------
# A1
def least_squares(w, b, X, y):
    """A1: least squares of a linear model (TensorFlow's linear-regression example)."""
    n = X.shape[0]
    return np.sum((X @ w + b - y) ** 2) / (2 * n)


def least_squares_grad(w, b, X, y):
    """The hand-written gradient of `least_squares`: one value per wrt name, in wrt order."""
    r = X @ w
    r += b
    r -= y
    r /= X.shape[0]                    # residuals / n
    return X.T @ r, r.sum()


def least_squares_data(rng, n, d):
    """The arguments of `least_squares` drawn from `rng` at the given sizes, in parameter order."""
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 0.5 + 0.1 * rng.standard_normal(n)
    w = 0.5 * rng.standard_normal(d)
    return w, 0.1, X, y


# --------------------------------------------------------------------------
# A2
def logistic(w, X, y):
    """A2: L2-regularised logistic regression, labels y in {-1, +1}."""
    return np.mean(np.log1p(np.exp(-y * (X @ w)))) + LAM * np.sum(w * w)


def logistic_grad(w, X, y):
    """The hand-written gradient of `logistic`: one value per wrt name, in wrt order."""
    m = X @ w
    m *= y                             # margins y_i x_i.w
    np.exp(m, out=m)
    m += 1.0
    np.divide(y, m, out=m)             # y / (1 + e^margin) = y sigmoid(-margin)
    m *= -1.0 / X.shape[0]             # d loss / d (X w)
    g = X.T @ m
    g += (2.0 * LAM) * w
    return (g,)


def logistic_data(rng, n, d):
    """The arguments of `logistic` drawn from `rng` at the given sizes, in parameter order."""
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    w = 0.3 * rng.standard_normal(d)
    return w, X, y


# --------------------------------------------------------------------------
# A3
def softmax_xent(W, X, Y):
    """A3: batched softmax cross-entropy of a linear classifier, max shift stopped."""
    Z = X @ W
    Z = Z - stop_gradient(np.max(Z, axis=1, keepdims=True))
    return -np.mean(np.sum(Y * (Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))), axis=1))


def softmax_xent_grad(W, X, Y):
    """The hand-written gradient of `softmax_xent`: one value per wrt name, in wrt order."""
    Z = X @ W
    Z -= Z.max(axis=1, keepdims=True)
    np.exp(Z, out=Z)
    Z /= Z.sum(axis=1, keepdims=True)  # softmax probabilities P
    Z -= Y                             # P - Y: the rows of Y sum to 1 (one-hot)
    Z *= 1.0 / X.shape[0]
    return (X.T @ Z,)


def softmax_xent_data(rng, n, d, classes):
    """The arguments of `softmax_xent` drawn from `rng` at the given sizes, in parameter order."""
    X = rng.standard_normal((n, d))
    labels = np.argmax(X @ rng.standard_normal((d, classes)) + rng.gumbel(size=(n, classes)), axis=1)
    Y = np.zeros((n, classes))
    Y[np.arange(n), labels] = 1.0
    W = rng.standard_normal((d, classes)) / np.sqrt(d)
    return W, X, Y


# --------------------------------------------------------------------------
# A4
def logsumexp(x):
    """A4: numerically stable log-sum-exp of a vector; the shift m is a stop-gradient."""
    m = stop_gradient(np.max(x))
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_grad(x):
    """The hand-written gradient of `logsumexp`: one value per wrt name, in wrt order."""
    e = x - x.max()
    np.exp(e, out=e)
    e /= e.sum()                       # softmax(x)
    return (e,)


def logsumexp_data(rng, n):
    """The arguments of `logsumexp` drawn from `rng` at the given sizes, in parameter order."""
    return (3.0 * rng.standard_normal(n),)


# --------------------------------------------------------------------------
# A5
def rosenbrock(x):
    """A5: vectorised n-dimensional Rosenbrock function (scipy.optimize.rosen)."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_grad(x):
    # scipy.optimize.rosen_der, written out
    """The hand-written gradient of `rosenbrock`: one value per wrt name, in wrt order."""
    xm = x[1:-1]
    xm_m1 = x[:-2]
    xm_p1 = x[2:]
    der = np.zeros_like(x)
    der[1:-1] = (200 * (xm - xm_m1**2) - 400 * (xm_p1 - xm**2) * xm - 2 * (1 - xm))
    der[0] = -400 * x[0] * (x[1] - x[0]**2) - 2 * (1 - x[0])
    der[-1] = 200 * (x[-1] - x[-2]**2)
    return (der,)


def rosenbrock_data(rng, n):
    """The arguments of `rosenbrock` drawn from `rng` at the given sizes, in parameter order."""
    return (rng.normal(1.0, 0.5, n),)


# --------------------------------------------------------------------------
# A6
def mlp(W1, b1, w2, X, y):
    """A6: two-layer tanh MLP (one hidden layer, scalar output) with mean squared error."""
    H = np.tanh(X @ W1 + b1)
    p = H @ w2
    return np.mean((p - y) ** 2)


def mlp_grad(W1, b1, w2, X, y):
    """The hand-written gradient of `mlp`: one value per wrt name, in wrt order."""
    H = X @ W1
    H += b1
    np.tanh(H, out=H)
    r = H @ w2
    r -= y
    r *= 2.0 / X.shape[0]              # d loss / d p
    g_w2 = H.T @ r
    np.multiply(H, H, out=H)           # H is not needed any more: turn it into d loss / d (X W1 + b1)
    np.subtract(1.0, H, out=H)
    H *= r[:, None]
    H *= w2
    return X.T @ H, H.sum(axis=0), g_w2


def mlp_data(rng, n, d, hidden):
    """The arguments of `mlp` drawn from `rng` at the given sizes, in parameter order."""
    X = rng.standard_normal((n, d))
    y = np.tanh(X @ (rng.standard_normal((d, hidden)) / np.sqrt(d))) @ rng.standard_normal(hidden)
    y += 0.1 * rng.standard_normal(n)
    W1 = rng.standard_normal((d, hidden)) / np.sqrt(d)
    b1 = 0.1 * rng.standard_normal(hidden)
    w2 = rng.standard_normal(hidden) / np.sqrt(hidden)
    return W1, b1, w2, X, y


# --------------------------------------------------------------------------
# A7
def gmm_em(mu, log_sigma, x, pi):
    """A7: EM objective of a 1-D Gaussian mixture: responsibilities (the E-step) are stopped.

    sum over data i and components k of resp_ik * log(pi_k N(x_i | mu_k, sigma_k)),
    sigma = exp(log_sigma); resp is the posterior of k given x_i at the current parameters."""
    sigma = np.exp(log_sigma)
    z = (x[:, None] - mu[None, :]) / sigma[None, :]
    logp = np.log(pi)[None, :] - 0.5 * np.log(2 * np.pi) - log_sigma[None, :] - 0.5 * z ** 2
    a = np.exp(logp - np.max(logp, axis=1, keepdims=True))
    resp = stop_gradient(a / np.sum(a, axis=1, keepdims=True))
    return np.sum(resp * logp)


def gmm_em_grad(mu, log_sigma, x, pi):
    """The hand-written gradient of `gmm_em`: one value per wrt name, in wrt order."""
    inv_sigma = np.exp(-log_sigma)
    z = x[:, None] - mu
    z *= inv_sigma                     # standardised residuals (n, K)
    r = z * z
    r *= -0.5
    r += np.log(pi) - 0.5 * np.log(2 * np.pi) - log_sigma
    r -= r.max(axis=1, keepdims=True)
    np.exp(r, out=r)
    r /= r.sum(axis=1, keepdims=True)  # responsibilities (n, K)
    r_sum = r.sum(axis=0)
    r *= z
    g_mu = r.sum(axis=0) * inv_sigma   # sum_i r_ik z_ik / sigma_k
    r *= z
    g_log_sigma = r.sum(axis=0) - r_sum  # sum_i r_ik (z_ik**2 - 1)
    return g_mu, g_log_sigma


def gmm_em_data(rng, n, K):
    """The arguments of `gmm_em` drawn from `rng` at the given sizes, in parameter order."""
    true_mu = np.linspace(-4.0, 4.0, K)
    true_sigma = rng.uniform(0.5, 1.5, K)
    pi = rng.dirichlet(np.full(K, 5.0))
    k = rng.choice(K, size=n, p=pi)
    x = true_mu[k] + true_sigma[k] * rng.standard_normal(n)
    mu = true_mu + 0.5 * rng.standard_normal(K)
    log_sigma = np.log(true_sigma) + 0.2 * rng.standard_normal(K)
    return mu, log_sigma, x, pi


# --------------------------------------------------------------------------
# A8
def ste_quantize(w, t):
    """A8: straight-through quantiser of a weight vector (round to 1/S), square loss to a target."""
    q = w + stop_gradient(np.round(w * S) / S - w)
    return np.sum((q - t) ** 2)


def ste_quantize_grad(w, t):
    """The hand-written gradient of `ste_quantize`: one value per wrt name, in wrt order."""
    g = w * S
    np.round(g, out=g)
    g /= S                             # q = round(w S) / S; the straight-through d q / d w is 1
    g -= t
    g *= 2.0
    return (g,)


def ste_quantize_data(rng, n):
    """The arguments of `ste_quantize` drawn from `rng` at the given sizes, in parameter order."""
    return rng.standard_normal(n), rng.standard_normal(n)


# --------------------------------------------------------------------------
# Registry
class Workload(NamedTuple):
    f: Callable            # the primal: plain NumPy
    hand: Callable         # hand-written gradient: one value per wrt name, in wrt order
    wrt: tuple             # parameter names differentiated with respect to
    make: Callable         # make(rng, **sizes[size]) -> the arguments of f, in parameter order
    sizes: dict            # "small" / "large" -> keyword arguments of make
    desc: str


WORKLOADS = {
    "A1": Workload(least_squares, least_squares_grad, ("w", "b"), least_squares_data,
                   {"small": dict(n=1000, d=10), "large": dict(n=10**6, d=10)},
                   "least squares sum((X@w + b - y)**2)/(2n)"),
    "A2": Workload(logistic, logistic_grad, ("w",), logistic_data,
                   {"small": dict(n=1000, d=20), "large": dict(n=200000, d=20)},
                   "L2-regularised logistic regression, log1p(exp(-y*(X@w)))"),
    "A3": Workload(softmax_xent, softmax_xent_grad, ("W",), softmax_xent_data,
                   {"small": dict(n=256, d=32, classes=10), "large": dict(n=100000, d=64, classes=10)},
                   "softmax cross-entropy, stopped row max, one-hot Y"),
    "A4": Workload(logsumexp, logsumexp_grad, ("x",), logsumexp_data,
                   {"small": dict(n=1000), "large": dict(n=10**6)},
                   "stable log-sum-exp of a vector, stopped max"),
    "A5": Workload(rosenbrock, rosenbrock_grad, ("x",), rosenbrock_data,
                   {"small": dict(n=1000), "large": dict(n=10**6)},
                   "vectorised Rosenbrock (hand = scipy rosen_der)"),
    "A6": Workload(mlp, mlp_grad, ("W1", "b1", "w2"), mlp_data,
                   {"small": dict(n=256, d=16, hidden=32), "large": dict(n=50000, d=64, hidden=128)},
                   "two-layer tanh MLP + MSE"),
    "A7": Workload(gmm_em, gmm_em_grad, ("mu", "log_sigma"), gmm_em_data,
                   {"small": dict(n=1000, K=3), "large": dict(n=10**6, K=5)},
                   "1-D Gaussian-mixture EM objective, stopped responsibilities"),
    "A8": Workload(ste_quantize, ste_quantize_grad, ("w",), ste_quantize_data,
                   {"small": dict(n=1000), "large": dict(n=10**6)},
                   "straight-through quantiser round(w*S)/S + square loss"),
}
SIZES = ("small", "large")


# symgrad's shapes= per workload: dimension names for arrays, scalars left out
SHAPES = {
    "A1": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "A2": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "A3": {"W": ("d", "k"), "X": ("n", "d"), "Y": ("n", "k")},
    "A4": {"x": ("n",)},
    "A5": {"x": ("n",)},
    "A6": {"W1": ("d", "h"), "b1": ("h",), "w2": ("h",), "X": ("n", "d"), "y": ("n",)},
    "A7": {"mu": ("K",), "log_sigma": ("K",), "x": ("n",), "pi": ("K",)},
    "A8": {"w": ("n",), "t": ("n",)},
}


def make_args(key, size, seed=SEED):
    """The arguments of workload `key` at `size`, in parameter order; the same arrays every call."""
    wl = WORKLOADS[key]
    rng = np.random.default_rng([seed, int(key[1:]), SIZES.index(size)])
    return tuple(wl.make(rng, **wl.sizes[size]))


def param_names(f):
    """The positional parameter names of `f`, in order."""
    return list(f.__code__.co_varnames[:f.__code__.co_argcount])


def wrt_indices(key):
    """Positions of the wrt names among the function's parameters."""
    wl = WORKLOADS[key]
    names = param_names(wl.f)
    return tuple(names.index(n) for n in wl.wrt)


def shape_text(key, size):
    """'n=1000, d=10' for the tables."""
    return ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}"
                     for k, v in WORKLOADS[key].sizes[size].items())


def max_rel_err(got, ref):
    """Largest, over the wrt values, of max|got - ref| / max(max|got|, max|ref|) (inf-norm relative
    error of each array; exact equality is 0). inf on a shape mismatch or a non-finite value."""
    worst = 0.0
    if len(got) != len(ref):
        return float("inf")
    for g, r in zip(got, ref):
        g = np.asarray(g, dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        if g.shape != r.shape or not (np.all(np.isfinite(g)) and np.all(np.isfinite(r))):
            return float("inf")
        scale = max(np.max(np.abs(g), initial=0.0), np.max(np.abs(r), initial=0.0))
        err = np.max(np.abs(g - r), initial=0.0)
        if err:
            worst = max(worst, float(err / scale))
    return worst

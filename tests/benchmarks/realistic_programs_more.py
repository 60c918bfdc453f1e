"""More programs for realistic.py (control flow, sequence models, metric losses), plain NumPy as
in realistic_programs.py."""
import math

import numpy as np
from scipy.special import logsumexp, softmax

from symgrad import stop_gradient


# ---- second batch: more control flow and spellings ------------------------------------------
def _stats(v):
    return v.mean(), v.std()


def zscore(x):
    m, s = _stats(x)
    return np.sum(((x - m) / s) ** 3)


def shape_unpack(X, w):
    n, d = X.shape
    return np.sum((X @ w) ** 2) / n + np.sum(w ** 2) / d


def repeated_layer(X, W):
    for _ in range(3):
        X = np.tanh(X @ W)
    return np.sum(X)


def kalman_arrays(A, m0, y1, y2):
    m = m0
    P = np.eye(2)
    ll = 0.0
    for y in (y1, y2):
        m = A @ m
        P = A @ P @ A.T + 0.1 * np.eye(2)
        r = y - m
        S = P + 0.5 * np.eye(2)
        ll = ll + r @ np.linalg.solve(S, r) + np.log(np.linalg.det(S))
        K = P @ np.linalg.inv(S)
        m = m + K @ r
        P = P - K @ P
    return ll


def ndim_branch(x):
    if x.ndim == 1:
        x = x[None, :]
    return np.sum(np.mean(x, axis=1) ** 2)


def bce(z, y):
    p = 1.0 / (1.0 + np.exp(-z))
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def softplus(x):
    return np.sum(np.logaddexp(0.0, x)) + np.sum(np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0))


def sigmoid_big(z):
    return np.sum(1.0 / (1.0 + np.exp(-z)))


def scalar_param(X, s):
    return np.sum(np.exp(s * X)) + s ** 2


def ranges(x):
    return np.max(x) - np.min(x) + np.abs(x).max()


def einsums(x, y, A, B):
    return (np.einsum("i,i->", x, y) + np.sum(np.einsum("ij,ij->i", A, B) ** 2)
            + np.einsum("ii", A @ A.T))


def neg_shape(X):
    return np.sum(X) / X.shape[-1] + np.mean(X, axis=(0, 1))


def log_where(x):
    return np.sum(np.where(x > 0, np.log(np.abs(x) + 1e-300), 0.0) * x)


def em_weights(mu, logw, x):
    d = x[:, None] - mu[None, :]
    logp = -0.5 * d ** 2 + logw - logsumexp(logw)
    r = stop_gradient(softmax(logp, axis=1))
    return -np.sum(r * logp)


def pairwise_loop(P):
    e = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            d = P[i] - P[j]
            e = e + 1.0 / np.sqrt(d @ d + 0.01)
    return e


def nested_helpers(W, X):
    def act(z):
        return np.where(z > 0, z, 0.1 * z)

    def layer(h):
        return act(h @ W)
    return np.sum(layer(layer(X)) ** 2)


def item_float(x):
    s = float(np.sum(x ** 2))
    return s * np.sum(x)


def triu_pairs(X):
    n = X.shape[0]
    i, j = np.triu_indices(n, k=1)
    D = X[i] - X[j]
    return np.sum(np.sqrt(np.sum(D ** 2, axis=1)))


def grav_loops(m1, m2, m3, x1, x2, x3):
    ms = [m1, m2, m3]
    xs = [x1, x2, x3]
    e = 0.0
    for i in range(len(xs)):
        for j in range(i):
            e -= ms[i] * ms[j] / math.sqrt((xs[i] - xs[j]) ** 2 + 0.01)
    return e


def sum_over_list(a, b, c):
    vals = [a, b * 2, c ** 2]
    total = 0
    for v in vals:
        total += v * v
    return total / len(vals)


def max_builtin_ties(a, b, c):
    return max(a, b, c) + min(a * a, b) + abs(c - a)


# ---- third batch: sequence models, metric losses -------------------------------------------
T_STEPS = 3


def rnn(W, U, X, h0):
    h = h0
    for t in range(T_STEPS):
        h = np.tanh(W @ h + U @ X[t])
    return np.sum(h ** 2)


def rnn_rows(W, X):
    h = np.zeros(W.shape[0])
    total = 0.0
    for x_t in (X[0], X[1], X[2]):
        h = np.tanh(W @ h + x_t)
        total = total + h @ h
    return total


def conv1d(w, x):
    K = 3
    n = len(x)
    out = w[0] * x[0:n - 2]
    for k in range(1, K):
        out = out + w[k] * x[k:n - 2 + k]
    return np.sum(out ** 2)


def triplet(A, P, N, margin=0.5):
    dp = np.sum((A - P) ** 2, axis=1)
    dn = np.sum((A - N) ** 2, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


def cosine(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def kl(p_logits, q):
    p = softmax(p_logits)
    return np.sum(p * (np.log(p) - np.log(q)))


def batchnorm(X, g, b):
    mu = X.mean(axis=0)
    var = X.var(axis=0)
    Xh = (X - mu) / np.sqrt(var + 1e-5)
    run = stop_gradient(0.9 * mu)
    return np.sum((g * Xh + b) ** 2) + np.sum(run * g)


def grad_clip_loss(w, X, y):
    r = X @ w - y
    r = np.clip(r, -1.0, 1.0)
    return np.sum(r ** 2) + 0.5 * np.sum(np.abs(w))


def sorted_w1(x, y):
    xs = x[np.argsort(stop_gradient(x))]
    ys = y[np.argsort(stop_gradient(y))]
    return np.mean(np.abs(xs - ys))


def gmm_full(mu, logs, x):
    d = (x[:, None] - mu[None, :]) / np.exp(logs)[None, :]
    lp = -0.5 * d ** 2 - logs[None, :]
    return -np.sum(logsumexp(lp, axis=1))


def lj_triu_k(P, eps=1.0, sigma=1.0):
    n = P.shape[0]
    i, j = np.triu_indices(n, k=1)
    r2 = np.sum((P[i] - P[j]) ** 2, axis=1)
    sr6 = (sigma ** 2 / r2) ** 3
    return 4.0 * eps * np.sum(sr6 ** 2 - sr6)


def polar_energy(r, theta):
    x = r * np.cos(theta)
    y = r * np.sin(theta)
    return np.sum(x ** 2 + 2.0 * y ** 2) + np.sum(np.diff(theta) ** 2)


# ---- in-place updates of arrays no other name reads ----------------------------------------
def residual_inplace(w, X, y):
    r = X @ w
    r -= y
    r *= 0.5
    return np.sum(r ** 2)


def accumulate_inplace(W, X):
    h = np.zeros(X.shape[0])
    for k in range(2):
        h += np.tanh(X @ W[:, k])
    out = h
    out += 1.0
    return np.sum(out ** 2)

"""Programs people write (ML losses, physics energies, statistics), for realistic.py to check
symgrad against jax.grad and central differences. Each is plain NumPy; realistic.py makes a JAX
copy by swapping ``np`` for ``jax.numpy`` in the function's globals."""
import math

import numpy as np
from scipy.special import logsumexp, log_softmax, softmax

from symgrad import stop_gradient

MASK = np.array([True, True, False, True])
LABELS = np.array([2, 0, 1, 1])
EPS = 1e-5


# ---- ML losses ------------------------------------------------------------------------------
def xent_logits(Z, Y):
    m = stop_gradient(np.max(Z, axis=-1, keepdims=True))
    lse = np.log(np.sum(np.exp(Z - m), axis=-1, keepdims=True)) + m
    return -np.mean(np.sum(Y * (Z - lse), axis=-1))


def xent_labels(Z):
    logp = Z - logsumexp(Z, axis=1, keepdims=True)
    return -np.mean(logp[np.arange(4), LABELS])


def xent_scipy(Z, Y):
    return -np.sum(Y * log_softmax(Z, axis=1)) / Z.shape[0]


def softmax_sq(Z, Y):
    p = softmax(Z, axis=-1)
    return np.sum((p - Y) ** 2)


def softmax_manual(z):
    e = np.exp(z - stop_gradient(z.max()))
    p = e / e.sum()
    return p @ np.arange(len(z)) * 1.0 + p[0]


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def huber_scalar(r, delta=1.0):
    if abs(r) <= delta:
        return 0.5 * r * r
    elif r > 0:
        return delta * (r - 0.5 * delta)
    else:
        return delta * (-r - 0.5 * delta)


def hinge(X, w, y):
    margins = 1.0 - y * (X @ w)
    return np.mean(np.maximum(0.0, margins)) + 0.01 * np.sum(w ** 2)


def sq_hinge(X, w, y):
    return np.sum(np.clip(1.0 - y * X.dot(w), 0.0, None) ** 2)


def focal(z, y, gamma=2.0, alpha=0.25):
    p = 1.0 / (1.0 + np.exp(-z))
    pt = np.where(y > 0.5, p, 1.0 - p)
    at = np.where(y > 0.5, alpha, 1.0 - alpha)
    return -np.sum(at * (1.0 - pt) ** gamma * np.log(pt))


def label_smoothing(Z, Y, eps=0.1):
    k = Z.shape[1]
    Ys = Y * (1.0 - eps) + eps / k
    logp = Z - stop_gradient(Z.max(axis=1)[:, None])
    logp = logp - np.log(np.exp(logp).sum(axis=1))[:, None]
    return -(Ys * logp).sum() / len(Z)


def layer_norm(X, g, b):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    Y = (X - mu) / np.sqrt(var + EPS) * g + b
    return np.sum(Y ** 3)


def layer_norm_var(X, g, b):
    mu = np.mean(X, axis=1, keepdims=True)
    sd = np.std(X, axis=1, keepdims=True)
    return np.sum(np.tanh((X - mu) / (sd + EPS) * g[None, :] + b))


def attention(Q, K, V):
    d = Q.shape[-1]
    S = Q @ K.T / np.sqrt(d)
    n = S.shape[0]
    causal = np.tril(np.ones((n, n)))
    S = np.where(causal > 0, S, -1e9)
    S = S - stop_gradient(S.max(axis=-1, keepdims=True))
    A = np.exp(S)
    A = A / A.sum(axis=-1, keepdims=True)
    return np.sum((A @ V) ** 2)


def attention_inf(Q, K, V):
    S = np.einsum("id,jd->ij", Q, K)
    n = S.shape[0]
    keep = np.arange(n)[:, None] >= np.arange(n)[None, :]
    S = np.where(keep, S, -np.inf)
    A = softmax(S, axis=1)
    return np.sum(np.einsum("ij,jd->id", A, V) ** 2)


def mlp(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1 + b1)
    out = H @ W2 + b2
    return 0.5 * np.mean((out - Y) ** 2) + 1e-3 * (np.sum(W1 * W1) + np.sum(W2 * W2))


def mlp_relu(W1, W2, X, y):
    H = np.maximum(X @ W1, 0.0)
    return np.sum((H @ W2 - y) ** 2)


def mlp_layers(W1, W2, X):
    h = X
    for W in (W1, W2):
        h = np.tanh(h @ W)
    return np.sum(h)


def weight_decay(w, lam=0.01):
    return np.sum(np.log1p(w ** 2)) + lam / 2 * w @ w


# ---- physics ------------------------------------------------------------------------------
def springs(x, k=1.0, L=1.0):
    d = x[1:] - x[:-1]
    return 0.5 * k * np.sum((d - L) ** 2)


def springs_2d(P):
    d = P[1:] - P[:-1]
    r = np.sqrt(np.sum(d ** 2, axis=1))
    return np.sum((r - 1.0) ** 2)


def lj_triu(P):
    i, j = np.triu_indices(P.shape[0], 1)
    d = P[i] - P[j]
    r2 = np.sum(d * d, axis=-1)
    inv6 = 1.0 / r2 ** 3
    return np.sum(4.0 * (inv6 ** 2 - inv6))


def lj_loops(x1, y1, x2, y2, x3, y3):
    xs = (x1, x2, x3)
    ys = (y1, y2, y3)
    e = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            r2 = (xs[i] - xs[j]) ** 2 + (ys[i] - ys[j]) ** 2
            s6 = 1.0 / r2 ** 3
            e += 4.0 * (s6 * s6 - s6)
    return e


def gravity(P, m, soft=0.1):
    D = P[:, None, :] - P[None, :, :]
    r = np.sqrt(np.sum(D ** 2, axis=-1) + soft ** 2)
    M = m[:, None] * m[None, :]
    n = P.shape[0]
    off = 1.0 - np.eye(n)
    return -0.5 * np.sum(off * M / r)


# ---- statistics -----------------------------------------------------------------------------
def gauss_nll(mu, log_sigma, x):
    s = np.exp(log_sigma)
    return np.sum(0.5 * ((x - mu) / s) ** 2 + log_sigma + 0.5 * np.log(2 * np.pi))


def student_t(mu, log_s, x, nu=3.0):
    s = np.exp(log_s)
    z = (x - mu) / s
    return -np.sum(-(nu + 1) / 2 * np.log1p(z ** 2 / nu) - log_s)


def logreg_logaddexp(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z)) / len(y)


def poisson(w, X, y):
    eta = X @ w
    return np.sum(np.exp(eta) - y * eta)


def mixture_em(mu, x):
    d = x[:, None] - mu[None, :]
    logr = -0.5 * d ** 2
    r = stop_gradient(np.exp(logr - logsumexp(logr, axis=1, keepdims=True)))
    return np.sum(r * 0.5 * d ** 2)


def mixture_ll(mu, x, w):
    d = x[:, None] - mu[None, :]
    return -np.sum(logsumexp(-0.5 * d ** 2 + np.log(w), axis=1))


def kalman(q, r, y1, y2, y3):
    m, P = 0.0, 1.0
    ll = 0.0
    for y in (y1, y2, y3):
        P = P + q
        S = P + r
        K = P / S
        ll += 0.5 * (math.log(S) + (y - m) ** 2 / S)
        m = m + K * (y - m)
        P = (1 - K) * P
    return ll


# ---- Python control flow --------------------------------------------------------------------
def _sq(u):
    return u * u


def _norm2(a, b):
    return _sq(a) + _sq(b)


def helpers(x, y):
    r2 = _norm2(x, y)
    a, b = x * 2, y * 3
    r2 += a * b
    r2 *= 0.5
    return r2 if r2 > 1 else -r2


def comprehension(x):
    return sum([x ** k / (k + 1) for k in range(4)])


def early_ret(x, y):
    if x > y:
        return x - y
    if x == y:
        return 0.0 * x
    return (y - x) ** 2


def shape_branch(x):
    if x.shape[0] > 3:
        return np.sum(x[:3] ** 2)
    return np.sum(x ** 2)


def value_branch(x):
    s = np.sum(x)
    if s > 0:
        return s ** 2
    elif s > -1:
        return -s
    return np.sum(np.abs(x))


def zero_d(x, c):
    return np.sum(x * c) + c ** 2


def size1(X):
    return np.sum(np.squeeze(X, axis=1) ** 2) + np.sum(X.mean(axis=(0, 1)))


def axis_tuple(X):
    return np.sum(np.max(X, axis=(0, 2)) ** 2) + X.sum(axis=(-1, -2)) @ np.ones(X.shape[0])


def fancy(E):
    return np.sum(E[np.array([0, 2, 0])] ** 2) + np.sum(E[:, np.array([1])])


def masked_const(x):
    return np.sum(x[MASK] ** 2) + np.sum(np.where(MASK, x, 0.0))


def einsum_batch(A, B):
    return np.sum(np.einsum("bij,bjk->bik", A, B) ** 2)


def cumsum_diff(x):
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.diff(x) ** 2)


def broadcast_none(x, y):
    return np.sum(np.exp(-(x[:, None] - y[None, :]) ** 2))


def clip_ties(x):
    return np.sum(np.clip(x, -1.0, 1.0) * x)


def max_min(x, y):
    return np.sum(np.maximum(x, y) ** 2 - np.minimum(x, y))


def abs_prod(x):
    return np.prod(x) + np.sum(np.abs(x))


def linalg(A, b):
    s, ld = np.linalg.slogdet(A)
    return ld + b @ np.linalg.solve(A, b) + np.trace(A @ A.T)


def norms(x, X):
    return np.linalg.norm(x) + np.linalg.norm(X) + np.sum(np.linalg.norm(X, axis=1))


from realistic_programs_more import *  # noqa: E402,F401,F403  (the second and third batches)

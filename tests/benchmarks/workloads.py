"""Benchmark workloads W1-W10 for symgrad, with hand-written gradients (the practical limit).

Each workload is an ordinary Python function of float arguments in the plain style symgrad reads:
math functions, `sg` for stop_gradient, the builtins `round` and `max`, literals, and (W3, W10)
for-loops. Each `*_grad` is a hand-written gradient, as a person would write it for speed;
`tests/test_workloads.py` checks each against symgrad's gradient and a central finite difference.
`WORKLOADS` maps a key (W1..W10) to its function, hand gradient, evaluation point and description.

W1-W7 mirror the workloads of the product owner's side-by-side peer table (autograd, JAX, PyTorch,
SymPy, SymEngine, Tangent), same functions and points, so the figures compare. W8-W10 are the
cases a new user measured: log-sum-exp with an unstopped `max`, the Black-Scholes call price with
its five Greeks, and an explicit Euler loop. `tests/benchmarks/bench_workloads.py` times them.
"""
from math import cos, erf, exp, log, sin, sqrt

try:
    from symgrad import stop_gradient as sg
except ImportError:  # readable without symgrad installed
    def sg(x):
        """stop_gradient: the identity when evaluated; a constant to differentiation."""
        return x


# --------------------------------------------------------------------------
# W1
def rosenbrock(x, y):
    """W1: Rosenbrock function in 2 variables."""
    return (1.0 - x)**2 + 100.0*(y - x**2)**2


def rosenbrock_grad(x, y):
    u = y - x*x
    return (-2.0*(1.0 - x) - 400.0*x*u, 200.0*u)


# --------------------------------------------------------------------------
# W2
def logreg(w0, w1, w2, w3, w4, w5, w6, w7, w8, w9):
    """W2: logistic-regression loss of one sample (label +1), 10 weights.

    The features x0..x9 are the literal constants below."""
    z = (0.5*w0
         - 1.2*w1
         + 0.3*w2
         + 2.0*w3
         - 0.7*w4
         + 1.1*w5
         - 0.4*w6
         + 0.9*w7
         - 1.5*w8
         + 0.6*w9)
    return log(1.0 + exp(-z))


def logreg_grad(w0, w1, w2, w3, w4, w5, w6, w7, w8, w9):
    z = (0.5*w0
         - 1.2*w1
         + 0.3*w2
         + 2.0*w3
         - 0.7*w4
         + 1.1*w5
         - 0.4*w6
         + 0.9*w7
         - 1.5*w8
         + 0.6*w9)
    s = -1.0 / (1.0 + exp(z))          # d loss / dz = -sigmoid(-z)
    return (0.5*s, -1.2*s, 0.3*s, 2.0*s, -0.7*s, 1.1*s, -0.4*s, 0.9*s, -1.5*s, 0.6*s)


# --------------------------------------------------------------------------
# W3
DEEP_DEPTH = 30


def deep(x):
    """W3: 'deep' composition: t = sin(t)*t + cos(t), 30 times, in a for-loop."""
    t = x
    for _ in range(30):
        t = sin(t)*t + cos(t)
    return t


def deep_grad(x):
    # one input, so forward mode is optimal: d/dt [t*sin t + cos t] = t*cos t
    t = x
    dt = 1.0
    for _ in range(30):
        c = cos(t)
        dt = dt*(t*c)
        t = sin(t)*t + c
    return (dt,)


def deep_n(x, depth):
    """W3 with a variable depth, for the expression-swell study only."""
    t = x
    for _ in range(depth):
        t = sin(t)*t + cos(t)
    return t


# --------------------------------------------------------------------------
# W4
def wide(
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,
        a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27,
        a28, a29, a30, a31, a32, a33, a34, a35, a36, a37, a38, a39, a40,
        a41, a42, a43, a44, a45, a46, a47, a48, a49, a50, a51, a52, a53,
        a54, a55, a56, a57, a58, a59, a60, a61, a62, a63, a64, a65, a66,
        a67, a68, a69, a70, a71, a72, a73, a74, a75, a76, a77, a78, a79,
        a80, a81, a82, a83, a84, a85, a86, a87, a88, a89, a90, a91, a92,
        a93, a94, a95, a96, a97, a98, a99):
    """W4: 'wide' function of 100 args: sum_i exp(-(a_i - a_(i+1))**2), written out straight-line."""
    return (exp(-(a0 - a1)**2)
            + exp(-(a1 - a2)**2)
            + exp(-(a2 - a3)**2)
            + exp(-(a3 - a4)**2)
            + exp(-(a4 - a5)**2)
            + exp(-(a5 - a6)**2)
            + exp(-(a6 - a7)**2)
            + exp(-(a7 - a8)**2)
            + exp(-(a8 - a9)**2)
            + exp(-(a9 - a10)**2)
            + exp(-(a10 - a11)**2)
            + exp(-(a11 - a12)**2)
            + exp(-(a12 - a13)**2)
            + exp(-(a13 - a14)**2)
            + exp(-(a14 - a15)**2)
            + exp(-(a15 - a16)**2)
            + exp(-(a16 - a17)**2)
            + exp(-(a17 - a18)**2)
            + exp(-(a18 - a19)**2)
            + exp(-(a19 - a20)**2)
            + exp(-(a20 - a21)**2)
            + exp(-(a21 - a22)**2)
            + exp(-(a22 - a23)**2)
            + exp(-(a23 - a24)**2)
            + exp(-(a24 - a25)**2)
            + exp(-(a25 - a26)**2)
            + exp(-(a26 - a27)**2)
            + exp(-(a27 - a28)**2)
            + exp(-(a28 - a29)**2)
            + exp(-(a29 - a30)**2)
            + exp(-(a30 - a31)**2)
            + exp(-(a31 - a32)**2)
            + exp(-(a32 - a33)**2)
            + exp(-(a33 - a34)**2)
            + exp(-(a34 - a35)**2)
            + exp(-(a35 - a36)**2)
            + exp(-(a36 - a37)**2)
            + exp(-(a37 - a38)**2)
            + exp(-(a38 - a39)**2)
            + exp(-(a39 - a40)**2)
            + exp(-(a40 - a41)**2)
            + exp(-(a41 - a42)**2)
            + exp(-(a42 - a43)**2)
            + exp(-(a43 - a44)**2)
            + exp(-(a44 - a45)**2)
            + exp(-(a45 - a46)**2)
            + exp(-(a46 - a47)**2)
            + exp(-(a47 - a48)**2)
            + exp(-(a48 - a49)**2)
            + exp(-(a49 - a50)**2)
            + exp(-(a50 - a51)**2)
            + exp(-(a51 - a52)**2)
            + exp(-(a52 - a53)**2)
            + exp(-(a53 - a54)**2)
            + exp(-(a54 - a55)**2)
            + exp(-(a55 - a56)**2)
            + exp(-(a56 - a57)**2)
            + exp(-(a57 - a58)**2)
            + exp(-(a58 - a59)**2)
            + exp(-(a59 - a60)**2)
            + exp(-(a60 - a61)**2)
            + exp(-(a61 - a62)**2)
            + exp(-(a62 - a63)**2)
            + exp(-(a63 - a64)**2)
            + exp(-(a64 - a65)**2)
            + exp(-(a65 - a66)**2)
            + exp(-(a66 - a67)**2)
            + exp(-(a67 - a68)**2)
            + exp(-(a68 - a69)**2)
            + exp(-(a69 - a70)**2)
            + exp(-(a70 - a71)**2)
            + exp(-(a71 - a72)**2)
            + exp(-(a72 - a73)**2)
            + exp(-(a73 - a74)**2)
            + exp(-(a74 - a75)**2)
            + exp(-(a75 - a76)**2)
            + exp(-(a76 - a77)**2)
            + exp(-(a77 - a78)**2)
            + exp(-(a78 - a79)**2)
            + exp(-(a79 - a80)**2)
            + exp(-(a80 - a81)**2)
            + exp(-(a81 - a82)**2)
            + exp(-(a82 - a83)**2)
            + exp(-(a83 - a84)**2)
            + exp(-(a84 - a85)**2)
            + exp(-(a85 - a86)**2)
            + exp(-(a86 - a87)**2)
            + exp(-(a87 - a88)**2)
            + exp(-(a88 - a89)**2)
            + exp(-(a89 - a90)**2)
            + exp(-(a90 - a91)**2)
            + exp(-(a91 - a92)**2)
            + exp(-(a92 - a93)**2)
            + exp(-(a93 - a94)**2)
            + exp(-(a94 - a95)**2)
            + exp(-(a95 - a96)**2)
            + exp(-(a96 - a97)**2)
            + exp(-(a97 - a98)**2)
            + exp(-(a98 - a99)**2))


def wide_grad(
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,
        a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27,
        a28, a29, a30, a31, a32, a33, a34, a35, a36, a37, a38, a39, a40,
        a41, a42, a43, a44, a45, a46, a47, a48, a49, a50, a51, a52, a53,
        a54, a55, a56, a57, a58, a59, a60, a61, a62, a63, a64, a65, a66,
        a67, a68, a69, a70, a71, a72, a73, a74, a75, a76, a77, a78, a79,
        a80, a81, a82, a83, a84, a85, a86, a87, a88, a89, a90, a91, a92,
        a93, a94, a95, a96, a97, a98, a99):
    # written out straight-line like wide() itself: term i is
    # exp(-d_i**2) with d_i = a_i - a_(i+1); t_i = its derivative wrt a_i
    d0 = a0 - a1
    t0 = -2.0*d0*exp(-d0*d0)
    d1 = a1 - a2
    t1 = -2.0*d1*exp(-d1*d1)
    d2 = a2 - a3
    t2 = -2.0*d2*exp(-d2*d2)
    d3 = a3 - a4
    t3 = -2.0*d3*exp(-d3*d3)
    d4 = a4 - a5
    t4 = -2.0*d4*exp(-d4*d4)
    d5 = a5 - a6
    t5 = -2.0*d5*exp(-d5*d5)
    d6 = a6 - a7
    t6 = -2.0*d6*exp(-d6*d6)
    d7 = a7 - a8
    t7 = -2.0*d7*exp(-d7*d7)
    d8 = a8 - a9
    t8 = -2.0*d8*exp(-d8*d8)
    d9 = a9 - a10
    t9 = -2.0*d9*exp(-d9*d9)
    d10 = a10 - a11
    t10 = -2.0*d10*exp(-d10*d10)
    d11 = a11 - a12
    t11 = -2.0*d11*exp(-d11*d11)
    d12 = a12 - a13
    t12 = -2.0*d12*exp(-d12*d12)
    d13 = a13 - a14
    t13 = -2.0*d13*exp(-d13*d13)
    d14 = a14 - a15
    t14 = -2.0*d14*exp(-d14*d14)
    d15 = a15 - a16
    t15 = -2.0*d15*exp(-d15*d15)
    d16 = a16 - a17
    t16 = -2.0*d16*exp(-d16*d16)
    d17 = a17 - a18
    t17 = -2.0*d17*exp(-d17*d17)
    d18 = a18 - a19
    t18 = -2.0*d18*exp(-d18*d18)
    d19 = a19 - a20
    t19 = -2.0*d19*exp(-d19*d19)
    d20 = a20 - a21
    t20 = -2.0*d20*exp(-d20*d20)
    d21 = a21 - a22
    t21 = -2.0*d21*exp(-d21*d21)
    d22 = a22 - a23
    t22 = -2.0*d22*exp(-d22*d22)
    d23 = a23 - a24
    t23 = -2.0*d23*exp(-d23*d23)
    d24 = a24 - a25
    t24 = -2.0*d24*exp(-d24*d24)
    d25 = a25 - a26
    t25 = -2.0*d25*exp(-d25*d25)
    d26 = a26 - a27
    t26 = -2.0*d26*exp(-d26*d26)
    d27 = a27 - a28
    t27 = -2.0*d27*exp(-d27*d27)
    d28 = a28 - a29
    t28 = -2.0*d28*exp(-d28*d28)
    d29 = a29 - a30
    t29 = -2.0*d29*exp(-d29*d29)
    d30 = a30 - a31
    t30 = -2.0*d30*exp(-d30*d30)
    d31 = a31 - a32
    t31 = -2.0*d31*exp(-d31*d31)
    d32 = a32 - a33
    t32 = -2.0*d32*exp(-d32*d32)
    d33 = a33 - a34
    t33 = -2.0*d33*exp(-d33*d33)
    d34 = a34 - a35
    t34 = -2.0*d34*exp(-d34*d34)
    d35 = a35 - a36
    t35 = -2.0*d35*exp(-d35*d35)
    d36 = a36 - a37
    t36 = -2.0*d36*exp(-d36*d36)
    d37 = a37 - a38
    t37 = -2.0*d37*exp(-d37*d37)
    d38 = a38 - a39
    t38 = -2.0*d38*exp(-d38*d38)
    d39 = a39 - a40
    t39 = -2.0*d39*exp(-d39*d39)
    d40 = a40 - a41
    t40 = -2.0*d40*exp(-d40*d40)
    d41 = a41 - a42
    t41 = -2.0*d41*exp(-d41*d41)
    d42 = a42 - a43
    t42 = -2.0*d42*exp(-d42*d42)
    d43 = a43 - a44
    t43 = -2.0*d43*exp(-d43*d43)
    d44 = a44 - a45
    t44 = -2.0*d44*exp(-d44*d44)
    d45 = a45 - a46
    t45 = -2.0*d45*exp(-d45*d45)
    d46 = a46 - a47
    t46 = -2.0*d46*exp(-d46*d46)
    d47 = a47 - a48
    t47 = -2.0*d47*exp(-d47*d47)
    d48 = a48 - a49
    t48 = -2.0*d48*exp(-d48*d48)
    d49 = a49 - a50
    t49 = -2.0*d49*exp(-d49*d49)
    d50 = a50 - a51
    t50 = -2.0*d50*exp(-d50*d50)
    d51 = a51 - a52
    t51 = -2.0*d51*exp(-d51*d51)
    d52 = a52 - a53
    t52 = -2.0*d52*exp(-d52*d52)
    d53 = a53 - a54
    t53 = -2.0*d53*exp(-d53*d53)
    d54 = a54 - a55
    t54 = -2.0*d54*exp(-d54*d54)
    d55 = a55 - a56
    t55 = -2.0*d55*exp(-d55*d55)
    d56 = a56 - a57
    t56 = -2.0*d56*exp(-d56*d56)
    d57 = a57 - a58
    t57 = -2.0*d57*exp(-d57*d57)
    d58 = a58 - a59
    t58 = -2.0*d58*exp(-d58*d58)
    d59 = a59 - a60
    t59 = -2.0*d59*exp(-d59*d59)
    d60 = a60 - a61
    t60 = -2.0*d60*exp(-d60*d60)
    d61 = a61 - a62
    t61 = -2.0*d61*exp(-d61*d61)
    d62 = a62 - a63
    t62 = -2.0*d62*exp(-d62*d62)
    d63 = a63 - a64
    t63 = -2.0*d63*exp(-d63*d63)
    d64 = a64 - a65
    t64 = -2.0*d64*exp(-d64*d64)
    d65 = a65 - a66
    t65 = -2.0*d65*exp(-d65*d65)
    d66 = a66 - a67
    t66 = -2.0*d66*exp(-d66*d66)
    d67 = a67 - a68
    t67 = -2.0*d67*exp(-d67*d67)
    d68 = a68 - a69
    t68 = -2.0*d68*exp(-d68*d68)
    d69 = a69 - a70
    t69 = -2.0*d69*exp(-d69*d69)
    d70 = a70 - a71
    t70 = -2.0*d70*exp(-d70*d70)
    d71 = a71 - a72
    t71 = -2.0*d71*exp(-d71*d71)
    d72 = a72 - a73
    t72 = -2.0*d72*exp(-d72*d72)
    d73 = a73 - a74
    t73 = -2.0*d73*exp(-d73*d73)
    d74 = a74 - a75
    t74 = -2.0*d74*exp(-d74*d74)
    d75 = a75 - a76
    t75 = -2.0*d75*exp(-d75*d75)
    d76 = a76 - a77
    t76 = -2.0*d76*exp(-d76*d76)
    d77 = a77 - a78
    t77 = -2.0*d77*exp(-d77*d77)
    d78 = a78 - a79
    t78 = -2.0*d78*exp(-d78*d78)
    d79 = a79 - a80
    t79 = -2.0*d79*exp(-d79*d79)
    d80 = a80 - a81
    t80 = -2.0*d80*exp(-d80*d80)
    d81 = a81 - a82
    t81 = -2.0*d81*exp(-d81*d81)
    d82 = a82 - a83
    t82 = -2.0*d82*exp(-d82*d82)
    d83 = a83 - a84
    t83 = -2.0*d83*exp(-d83*d83)
    d84 = a84 - a85
    t84 = -2.0*d84*exp(-d84*d84)
    d85 = a85 - a86
    t85 = -2.0*d85*exp(-d85*d85)
    d86 = a86 - a87
    t86 = -2.0*d86*exp(-d86*d86)
    d87 = a87 - a88
    t87 = -2.0*d87*exp(-d87*d87)
    d88 = a88 - a89
    t88 = -2.0*d88*exp(-d88*d88)
    d89 = a89 - a90
    t89 = -2.0*d89*exp(-d89*d89)
    d90 = a90 - a91
    t90 = -2.0*d90*exp(-d90*d90)
    d91 = a91 - a92
    t91 = -2.0*d91*exp(-d91*d91)
    d92 = a92 - a93
    t92 = -2.0*d92*exp(-d92*d92)
    d93 = a93 - a94
    t93 = -2.0*d93*exp(-d93*d93)
    d94 = a94 - a95
    t94 = -2.0*d94*exp(-d94*d94)
    d95 = a95 - a96
    t95 = -2.0*d95*exp(-d95*d95)
    d96 = a96 - a97
    t96 = -2.0*d96*exp(-d96*d96)
    d97 = a97 - a98
    t97 = -2.0*d97*exp(-d97*d97)
    d98 = a98 - a99
    t98 = -2.0*d98*exp(-d98*d98)
    return (t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7,
            t9 - t8, t10 - t9, t11 - t10, t12 - t11, t13 - t12, t14 - t13, t15 - t14,
            t16 - t15, t17 - t16, t18 - t17, t19 - t18, t20 - t19, t21 - t20, t22 - t21,
            t23 - t22, t24 - t23, t25 - t24, t26 - t25, t27 - t26, t28 - t27, t29 - t28,
            t30 - t29, t31 - t30, t32 - t31, t33 - t32, t34 - t33, t35 - t34, t36 - t35,
            t37 - t36, t38 - t37, t39 - t38, t40 - t39, t41 - t40, t42 - t41, t43 - t42,
            t44 - t43, t45 - t44, t46 - t45, t47 - t46, t48 - t47, t49 - t48, t50 - t49,
            t51 - t50, t52 - t51, t53 - t52, t54 - t53, t55 - t54, t56 - t55, t57 - t56,
            t58 - t57, t59 - t58, t60 - t59, t61 - t60, t62 - t61, t63 - t62, t64 - t63,
            t65 - t64, t66 - t65, t67 - t66, t68 - t67, t69 - t68, t70 - t69, t71 - t70,
            t72 - t71, t73 - t72, t74 - t73, t75 - t74, t76 - t75, t77 - t76, t78 - t77,
            t79 - t78, t80 - t79, t81 - t80, t82 - t81, t83 - t82, t84 - t83, t85 - t84,
            t86 - t85, t87 - t86, t88 - t87, t89 - t88, t90 - t89, t91 - t90, t92 - t91,
            t93 - t92, t94 - t93, t95 - t94, t96 - t95, t97 - t96, t98 - t97, -t98)


# --------------------------------------------------------------------------
# W5
def ste(x, w):
    """W5: straight-through estimator x + sg(round(x) - x), then a square loss."""
    q = x + sg(round(x) - x)
    return (w*q - 2.0)**2


def ste_grad(x, w):
    q = x + (round(x) - x)
    r = 2.0*(w*q - 2.0)
    return (r*w, r*q)


# --------------------------------------------------------------------------
# W6
def lse(a0, a1, a2, a3, a4, a5, a6, a7):
    """W6: numerically stable log-sum-exp of 8 args; the shift m is a stop-gradient."""
    m = sg(max(a0, a1, a2, a3, a4, a5, a6, a7))
    return m + log(exp(a0 - m) + exp(a1 - m) + exp(a2 - m) + exp(a3 - m)
                   + exp(a4 - m) + exp(a5 - m) + exp(a6 - m) + exp(a7 - m))


def lse_grad(a0, a1, a2, a3, a4, a5, a6, a7):
    m = max(a0, a1, a2, a3, a4, a5, a6, a7)
    e0 = exp(a0 - m)
    e1 = exp(a1 - m)
    e2 = exp(a2 - m)
    e3 = exp(a3 - m)
    e4 = exp(a4 - m)
    e5 = exp(a5 - m)
    e6 = exp(a6 - m)
    e7 = exp(a7 - m)
    r = 1.0/(e0 + e1 + e2 + e3 + e4 + e5 + e6 + e7)
    return (e0*r, e1*r, e2*r, e3*r, e4*r, e5*r, e6*r, e7*r)


# --------------------------------------------------------------------------
# W7
def springs(x1, y1, x2, y2, x3, y3):
    """W7: energy of 3 masses (1, 2, 1.5) in a triangle of springs, under gravity.

    Springs (stiffness, rest length): 1-2 (10, 1.0), 2-3 (15, 1.2), 1-3 (20, 1.5)."""
    r12 = sqrt((x1 - x2)**2 + (y1 - y2)**2)
    r23 = sqrt((x2 - x3)**2 + (y2 - y3)**2)
    r13 = sqrt((x1 - x3)**2 + (y1 - y3)**2)
    e_springs = 0.5*10.0*(r12 - 1.0)**2 + 0.5*15.0*(r23 - 1.2)**2 + 0.5*20.0*(r13 - 1.5)**2
    e_gravity = 9.81*(1.0*y1 + 2.0*y2 + 1.5*y3)
    return e_springs + e_gravity


def springs_grad(x1, y1, x2, y2, x3, y3):
    dx12 = x1 - x2
    dy12 = y1 - y2
    dx23 = x2 - x3
    dy23 = y2 - y3
    dx13 = x1 - x3
    dy13 = y1 - y3
    r12 = sqrt(dx12*dx12 + dy12*dy12)
    r23 = sqrt(dx23*dx23 + dy23*dy23)
    r13 = sqrt(dx13*dx13 + dy13*dy13)
    c12 = 10.0*(r12 - 1.0)/r12
    c23 = 15.0*(r23 - 1.2)/r23
    c13 = 20.0*(r13 - 1.5)/r13
    return (c12*dx12 + c13*dx13,
            c12*dy12 + c13*dy13 + 9.81,
            c23*dx23 - c12*dx12,
            c23*dy23 - c12*dy12 + 19.62,
            -c23*dx23 - c13*dx13,
            -c23*dy23 - c13*dy13 + 14.715)


# --------------------------------------------------------------------------
# W8
def lse_max(a, b, c, d, e):
    """W8: log-sum-exp of 5 args shifted by an unstopped max (its derivative terms cancel)."""
    m = max(a, b, c, d, e)
    return m + log(exp(a - m) + exp(b - m) + exp(c - m) + exp(d - m) + exp(e - m))


def lse_max_grad(a, b, c, d, e):
    # the softmax: the shift's contribution, dm * (1 - sum of the softmax), is 0
    m = max(a, b, c, d, e)
    ea = exp(a - m)
    eb = exp(b - m)
    ec = exp(c - m)
    ed = exp(d - m)
    ee = exp(e - m)
    r = 1.0/(ea + eb + ec + ed + ee)
    return (ea*r, eb*r, ec*r, ed*r, ee*r)


# --------------------------------------------------------------------------
# W9
def black_scholes(S, K, T, r, sigma):
    """W9: Black-Scholes price of a European call; its gradient is the five Greeks."""
    d1 = (log(S/K) + (r + 0.5*sigma**2)*T) / (sigma*sqrt(T))
    d2 = d1 - sigma*sqrt(T)
    n1 = 0.5*(1.0 + erf(d1/sqrt(2.0)))
    n2 = 0.5*(1.0 + erf(d2/sqrt(2.0)))
    return S*n1 - K*exp(-r*T)*n2


def black_scholes_grad(S, K, T, r, sigma):
    # the textbook Greeks (delta, dC/dK, theta as dC/dT, rho, vega), using
    # S*phi(d1) = K*exp(-r*T)*phi(d2)
    sqrt_t = sqrt(T)
    vol = sigma*sqrt_t
    d1 = (log(S/K) + (r + 0.5*sigma*sigma)*T) / vol
    n1 = 0.5*(1.0 + erf(d1*0.7071067811865476))
    n2 = 0.5*(1.0 + erf((d1 - vol)*0.7071067811865476))
    disc_n2 = exp(-r*T)*n2
    s_phi1 = S*exp(-0.5*d1*d1)*0.3989422804014327
    return (n1, -disc_n2, 0.5*s_phi1*sigma/sqrt_t + r*K*disc_n2, K*T*disc_n2, s_phi1*sqrt_t)


# --------------------------------------------------------------------------
# W10
def euler(x, v, k, c):
    """W10: 10 explicit Euler steps of a damped oscillator x'' = -k x - c x'; the final energy."""
    for _ in range(10):
        x, v = x + 0.1*v, v + 0.1*(-k*x - c*v)
    return 0.5*k*x*x + 0.5*v*v


def euler_grad(x, v, k, c):
    # reverse mode by hand: the forward steps, then the adjoints back through them
    xs = []
    vs = []
    for _ in range(10):
        xs.append(x)
        vs.append(v)
        x, v = x + 0.1*v, v + 0.1*(-k*x - c*v)
    bx = k*x
    bv = v
    bk = 0.5*x*x
    bc = 0.0
    for i in range(9, -1, -1):
        bk -= 0.1*xs[i]*bv
        bc -= 0.1*vs[i]*bv
        bx, bv = bx - 0.1*k*bv, 0.1*bx + (1.0 - 0.1*c)*bv
    return (bx, bv, bk, bc)


# --------------------------------------------------------------------------
# Registry: id -> (function, hand gradient, benchmark point, short description)
WIDE_POINT = (
    0.0, 0.446666, -0.002216, -0.220326, 0.397645, 0.569395, 0.02005,
    0.102745, 0.743665, 0.608696, 0.115441, 0.4904, 0.999917, 0.606545,
    0.311281, 0.893623, 1.151709, 0.615745, 0.608656, 1.259331, 1.211633,
    0.686133, 0.982131, 1.54424, 1.216277, 0.851565, 1.386395, 1.726172,
    1.21667, 1.121071, 1.768092, 1.809845, 1.264949, 1.476494, 2.079762,
    1.825646, 1.400745, 1.877238, 2.292236, 1.821687, 1.640829, 2.270867,
    2.402256, 1.851245, 1.97473, 2.606805, 2.433326, 1.958839, 2.367472,
    2.849543, 2.42957, 2.168606, 2.768711, 2.987919, 2.444211, 2.477995,
    3.125882, 3.038029, 2.525665, 2.858433, 3.397931, 3.039024, 2.704898,
    3.262789, 3.566038, 3.042887, 2.987333, 3.637684, 3.638534, 3.100848,
    3.351438, 3.937434, 3.648724, 3.25001, 3.754349, 4.135985, 3.646187,
    3.503651, 4.143063, 4.233714, 3.683827, 3.84776, 4.468288, 4.257336,
    3.804052, 4.244695, 4.697315, 4.252921, 4.027702, 4.643016, 4.82256,
    4.273864, 4.348597, 4.99092, 4.863552, 4.366934, 4.73516, 5.249774,
    4.861822, 4.560064,
)

WORKLOADS = {
    "W1": (rosenbrock, rosenbrock_grad, (-1.2, 1.0),
           "Rosenbrock, 2 args"),
    "W2": (logreg, logreg_grad, (0.1, -0.2, 0.3, 0.05, -0.15, 0.25, -0.3, 0.12, 0.08, -0.1),
           "logistic-regression loss of 1 sample, 10 weights"),
    "W3": (deep, deep_grad, (0.7,),
           "deep: t = sin(t)*t + cos(t), 30 times (for-loop), 1 arg"),
    "W4": (wide, wide_grad, WIDE_POINT,
           "wide: sum of exp(-(a_i - a_(i+1))**2), 100 args"),
    "W5": (ste, ste_grad, (1.3, 0.8),
           "straight-through estimator + square loss, 2 args"),
    "W6": (lse, lse_grad, (0.3, -1.2, 2.5, 0.7, 1.9, -0.4, 2.2, 0.1),
           "stable log-sum-exp with sg(max), 8 args"),
    "W7": (springs, springs_grad, (0.0, 0.0, 1.1, 0.2, 0.4, 1.3),
           "3 masses + 3 springs + gravity, 6 args"),
    "W8": (lse_max, lse_max_grad, (0.3, -1.2, 2.5, 0.7, 1.9),
           "log-sum-exp with an unstopped max, 5 args"),
    "W9": (black_scholes, black_scholes_grad, (100.0, 95.0, 0.5, 0.03, 0.2),
           "Black-Scholes call price, gradient = the five Greeks, 5 args"),
    "W10": (euler, euler_grad, (1.0, 0.0, 4.0, 0.3),
            "10 explicit Euler steps of a damped oscillator, final energy, 4 args"),
}

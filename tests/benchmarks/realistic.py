"""Check symgrad on programs people write (realistic_programs.py: ML losses, physics energies,
statistics, Python control flow) against jax.grad and central differences, at several points
including ties, zeros and boundaries. Prints a line for each program and each disagreement
(convention differences are expected: ties split, abs'(0) = 0, stop_gradient against
differences, a finite difference across a jump).

    PYTHONPATH=$PWD SYMGRAD_CACHE_DIR= python tests/benchmarks/realistic.py [NAME ...]
    ... realistic.py --backends [NAME ...]   # jax, jax.jit, torch, array_api, Dask, float32
    ... realistic.py --backends --api        # array_api with array_api_strict and torch inputs

Needs jax (and torch, dask, array_api_strict for --backends).
"""
import inspect
import sys
import traceback
import types

import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
import realistic_programs as P  # noqa: E402
import symgrad  # noqa: E402

import jax  # noqa: E402
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jss  # noqa: E402

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


def onehot(n, k):
    Y = np.zeros((n, k))
    Y[np.arange(n), rng.integers(0, k, n)] = 1.0
    return Y


def spd(n):
    A = r(n, n)
    return A @ A.T + n * np.eye(n)


POINTS = {
    "xent_logits": [(r(4, 3), onehot(4, 3)), (np.zeros((4, 3)), onehot(4, 3)),
                    (np.array([[1.0, 1.0, 0.0]] * 4), onehot(4, 3))],
    "xent_labels": [(r(4, 3),), (np.zeros((4, 3)),)],
    "xent_scipy": [(r(4, 3), onehot(4, 3)), (np.ones((2, 3)), onehot(2, 3))],
    "softmax_sq": [(r(3, 4), onehot(3, 4)), (np.zeros((3, 4)), onehot(3, 4))],
    "softmax_manual": [(r(5),), (np.array([1.0, 1.0, 0.0]),)],
    "huber": [(r(6) * 2,), (np.array([1.0, -1.0, 0.0, 2.0]),)],
    "huber_scalar": [(0.3,), (1.0,), (-1.0,), (-3.0,), (2.5,), (0.0,)],
    "hinge": [(r(5, 3), r(3), np.sign(r(5))), (np.eye(3), np.array([1.0, 0.0, 0.0]),
                                               np.array([1.0, 1.0, -1.0]))],
    "sq_hinge": [(r(5, 3), r(3), np.sign(r(5))), (np.eye(3), np.array([1.0, 0.0, 0.0]),
                                                  np.array([1.0, 1.0, -1.0]))],
    "focal": [(r(5), (r(5) > 0).astype(float)), (np.zeros(3), np.array([0.0, 1.0, 1.0]))],
    "label_smoothing": [(r(4, 3), onehot(4, 3))],
    "layer_norm": [(r(3, 4), r(4), r(4))],
    "layer_norm_var": [(r(3, 4), r(4), r(4))],
    "attention": [(r(4, 3), r(4, 3), r(4, 2))],
    "attention_inf": [(r(4, 3), r(4, 3), r(4, 2))],
    "mlp": [(r(3, 5), r(5), r(5, 2), r(2), r(7, 3), r(7, 2))],
    "mlp_relu": [(r(3, 5), r(5), r(7, 3), r(7))],
    "mlp_layers": [(r(3, 3), r(3, 2), r(4, 3))],
    "weight_decay": [(r(4),), (np.zeros(3),)],
    "springs": [(np.cumsum(r(5)),), (np.arange(4.0),)],
    "springs_2d": [(r(5, 2),)],
    "lj_triu": [(np.array([[0.0, 0.0], [1.1, 0.0], [0.0, 1.2], [1.0, 1.3]]),)],
    "lj_loops": [(0.0, 0.0, 1.1, 0.1, 0.2, 1.3)],
    "gravity": [(r(4, 3), np.abs(r(4)) + 0.5)],
    "gauss_nll": [(0.3, -0.2, r(6)), (r(6), r(6), r(6))],
    "student_t": [(0.3, -0.2, r(6))],
    "logreg_logaddexp": [(r(3), r(6, 3), np.sign(r(6))), (np.zeros(3), r(6, 3), np.sign(r(6)))],
    "poisson": [(r(3) * 0.3, r(6, 3), rng.poisson(2.0, 6).astype(float))],
    "mixture_em": [(r(3), r(8))],
    "mixture_ll": [(r(3), r(8), np.array([0.2, 0.5, 0.3]))],
    "kalman": [(0.5, 0.3, 1.0, 0.2, -0.5)],
    "helpers": [(0.3, 0.4), (1.0, 2.0), (-1.0, 0.5)],
    "comprehension": [(0.7,), (0.0,)],
    "early_ret": [(1.0, 2.0), (2.0, 1.0), (1.5, 1.5)],
    "shape_branch": [(r(5),), (r(2),)],
    "value_branch": [(np.abs(r(3)),), (np.array([-0.2, -0.1]),), (np.array([-3.0, 1.0]),)],
    "zero_d": [(r(3), 0.5), (r(3), np.array(0.5))],
    "size1": [(r(4, 1),)],
    "axis_tuple": [(r(3, 4, 2),), (np.ones((2, 2, 2)),)],
    "fancy": [(r(3, 2),)],
    "masked_const": [(r(4),)],
    "einsum_batch": [(r(2, 3, 4), r(2, 4, 2))],
    "cumsum_diff": [(r(5),)],
    "broadcast_none": [(r(3), r(4))],
    "clip_ties": [(np.array([-2.0, -1.0, 0.0, 1.0, 3.0]),)],
    "max_min": [(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 4.0]))],
    "abs_prod": [(np.array([1.0, 0.0, -2.0]),), (r(4),), (np.array([0.0, 0.0, 3.0]),)],
    "linalg": [(spd(3), r(3))],
    "norms": [(r(3), r(2, 3))],
    "zscore": [(r(5),)],
    "shape_unpack": [(r(4, 3), r(3))],
    "repeated_layer": [(r(4, 3), r(3, 3) * 0.5)],
    "kalman_arrays": [(np.array([[1.0, 0.1], [0.0, 1.0]]), r(2), r(2), r(2))],
    "ndim_branch": [(r(4),), (r(2, 3),)],
    "bce": [(r(5), (r(5) > 0).astype(float)), (np.array([40.0, -40.0, 0.0]), np.array([1.0, 0.0, 1.0]))],
    "softplus": [(r(5),), (np.array([800.0, -800.0, 0.0]),)],
    "sigmoid_big": [(r(3),), (np.array([-800.0, 800.0, 0.0]),)],
    "scalar_param": [(r(3, 2), 0.3), (r(3, 2), np.array(0.3))],
    "ranges": [(r(5),), (np.array([1.0, 3.0, 3.0, -3.0]),)],
    "einsums": [(r(3), r(3), r(3, 3), r(3, 3))],
    "neg_shape": [(r(2, 3),)],
    "log_where": [(np.array([1.0, -1.0, 0.0, 2.0]),)],
    "em_weights": [(r(3), r(3), r(6))],
    "pairwise_loop": [(r(3, 2),)],
    "nested_helpers": [(r(3, 3), r(4, 3))],
    "item_float": [(r(3),)],
    "triu_pairs": [(r(4, 2),)],
    "grav_loops": [(1.0, 2.0, 3.0, 0.0, 1.0, 3.0)],
    "sum_over_list": [(1.0, 2.0, 3.0)],
    "max_builtin_ties": [(1.0, 2.0, 0.5), (2.0, 2.0, 2.0), (1.0, 1.0, 1.0)],
    "rnn": [(r(2, 2) * 0.5, r(2, 3), r(3, 3), r(2))],
    "rnn_rows": [(r(2, 2) * 0.5, r(3, 2))],
    "conv1d": [(r(3), r(6)), (r(3), r(3))],
    "triplet": [(r(4, 2), r(4, 2), r(4, 2)), (np.zeros((2, 2)), np.ones((2, 2)), np.ones((2, 2)))],
    "cosine": [(r(3), r(3))],
    "kl": [(r(4), np.array([0.1, 0.2, 0.3, 0.4]))],
    "batchnorm": [(r(5, 3), r(3), r(3))],
    "grad_clip_loss": [(r(3), r(5, 3), r(5)), (np.zeros(3), np.eye(3), np.array([1.0, -1.0, 0.5]))],
    "sorted_w1": [(r(4), r(4))],
    "gmm_full": [(r(3), r(3) * 0.3, r(6))],
    "lj_triu_k": [(np.array([[0.0, 0.0], [1.1, 0.0], [0.0, 1.2], [1.0, 1.3]]),)],
    "polar_energy": [(np.abs(r(4)) + 0.5, r(4))],
    "residual_inplace": [(r(3), r(5, 3), r(5))],
    "accumulate_inplace": [(r(3, 2), r(4, 3))],
}


def jax_copy(f):
    g = dict(f.__globals__)
    g.update(np=jnp, stop_gradient=jax.lax.stop_gradient, logsumexp=jss.logsumexp,
             softmax=jax.nn.softmax, log_softmax=jax.nn.log_softmax)
    sub = {}
    for name, v in g.items():
        if isinstance(v, types.FunctionType) and v.__module__ == f.__module__ and v is not f:
            sub[name] = types.FunctionType(v.__code__, g, name, v.__defaults__)
    g.update(sub)
    return types.FunctionType(f.__code__, g, f.__name__, f.__defaults__)


def central(f, args, k, h=1e-6):
    x = np.asarray(args[k], dtype=float)
    out = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        a = [np.array(v, dtype=float) if isinstance(v, np.ndarray) else v for v in args]
        xp = x.copy(); xp[idx] += h
        xm = x.copy(); xm[idx] -= h
        a[k] = xp if x.ndim else float(xp)
        fp = f(*a)
        a[k] = xm if x.ndim else float(xm)
        fm = f(*a)
        out[idx] = (fp - fm) / (2 * h)
    return out


def close(a, b, tol=1e-6):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    return np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def positional(f):
    return [p.name for p in inspect.signature(f).parameters.values()
            if p.default is inspect.Parameter.empty]


def check(name, backend="numpy_default"):
    f = getattr(P, name)
    names = positional(f)
    try:
        g = symgrad.grad(f, wrt=tuple(range(len(names))))
    except symgrad.SymgradError as e:
        print(f"{name}: REFUSED {type(e).__name__}: {e}")
        return
    jf = jax_copy(f)
    for pi, args in enumerate(POINTS[name]):
        try:
            got = g(*args)
        except Exception as e:
            kind = "REFUSED" if isinstance(e, symgrad.SymgradError) else "CRASH"
            print(f"{name}[{pi}]: {kind} {type(e).__name__}: {e}")
            if kind == "CRASH":
                traceback.print_exc(limit=-3)
            continue
        try:
            jg = jax.grad(jf, argnums=tuple(range(len(names))))(
                *[jnp.asarray(a, dtype=jnp.float64) if isinstance(a, np.ndarray) else float(a)
                  for a in args])
        except Exception as e:
            jg = None
            print(f"{name}[{pi}]: (jax failed: {type(e).__name__}: {str(e)[:80]})")
        for k, nm in enumerate(names):
            fd = central(f, args, k)
            ok_fd = close(got[k], fd, 1e-5)
            ok_jax = jg is None or close(got[k], jg[k], 1e-9)
            if not (ok_fd and ok_jax):
                print(f"{name}[{pi}] d/d{nm}: MISMATCH symgrad={np.round(np.asarray(got[k], float), 8).tolist()} "
                      f"jax={None if jg is None else np.round(np.asarray(jg[k]), 8).tolist()} "
                      f"fd={np.round(fd, 6).tolist()}")
        else:
            pass
    print(f"{name}: checked {len(POINTS[name])} points")




_FAMILY = True


def _convert(backend, a):
    import torch
    if not isinstance(a, np.ndarray):
        return a
    if backend == "torch":
        return torch.tensor(a)
    if backend in ("jax", "jax.jit"):
        return jnp.asarray(a)
    if backend == "array_api-strict":
        import array_api_strict as xps
        return xps.asarray(a)
    if backend == "array_api-torch":
        return torch.tensor(a)
    if backend == "float32":
        return a.astype(np.float32)
    if backend == "dask":
        import dask.array as da
        return da.from_array(a, chunks=2)
    return a


def check_backends(name, backends=("jax", "jax.jit", "torch", "array_api", "dask", "float32")):
    if "--api" in sys.argv:
        backends = ("array_api-strict", "array_api-torch")
        global _FAMILY
        _FAMILY = False
    """The gradient of each backend against the numpy backend's at every point, and the family
    (value_and_grad, hessian against jax.hessian, vjp of the scalar output)."""
    f = getattr(P, name)
    names = positional(f)
    wrt = tuple(range(len(names)))
    try:
        ref = symgrad.grad(f, wrt=wrt)
    except symgrad.SymgradError:
        return
    for pi, args in enumerate(POINTS[name]):
        try:
            want = ref(*args)
        except symgrad.SymgradError:
            continue
        for be in backends:
            try:
                kind = {"jax.jit": "jax", "float32": "numpy", "dask": "numpy"}.get(be, be)
                kind = "array_api" if be.startswith("array_api") else kind
                g = symgrad.grad(f, wrt=wrt, backend=kind)
                call = jax.jit(g) if be == "jax.jit" else g
                got = call(*[_convert(be, a) for a in args])
                if be == "dask":
                    got = tuple(np.asarray(v.compute() if hasattr(v, "compute") else v)
                                for v in got)
                tol = 1e-3 if be == "float32" else 1e-9
                for k, nm in enumerate(names):
                    gk = got[k].detach() if hasattr(got[k], "detach") else got[k]
                    gk = np.asarray(np.from_dlpack(gk) if be == "array_api-strict" and
                                    hasattr(gk, "__dlpack__") else gk, dtype=float)
                    if not close(gk, want[k], tol):
                        print(f"{name}[{pi}] {be} d/d{nm}: MISMATCH got={gk.tolist()} "
                              f"numpy={np.asarray(want[k]).tolist()}")
            except Exception as e:
                kind = "REFUSED" if isinstance(e, symgrad.SymgradError) else "CRASH"
                print(f"{name}[{pi}] {be}: {kind} {type(e).__name__}: {str(e)[:200]}")
        if not _FAMILY:
            continue
        try:
            vg = symgrad.value_and_grad(f, wrt=wrt)(*args)
            if not close(vg[0], f(*args), 1e-12):
                print(f"{name}[{pi}] value_and_grad value {vg[0]} != primal {f(*args)}")
            for k in range(len(names)):
                if not close(vg[1][k], want[k], 1e-12):
                    print(f"{name}[{pi}] value_and_grad grad {k} differs")
        except Exception as e:
            print(f"{name}[{pi}] value_and_grad: {type(e).__name__}: {str(e)[:200]}")
        if any(isinstance(a, np.ndarray) for a in args):  # vjp: tuples and arrays
            try:
                defaults = [p.default for p in inspect.signature(f).parameters.values()
                            if p.default is not inspect.Parameter.empty]  # vjp drops them
                v = symgrad.vjp(f, wrt=wrt)(*args, *defaults, 2.0)
                for k in range(len(names)):
                    if not close(v[k], 2.0 * np.asarray(want[k]), 1e-12):
                        print(f"{name}[{pi}] vjp {k} differs: {v[k]} vs 2*{want[k]}")
            except Exception as e:
                print(f"{name}[{pi}] vjp: {type(e).__name__}: {str(e)[:200]}")
        if all(not isinstance(a, np.ndarray) for a in args):
            try:
                h = symgrad.hessian(f, wrt=wrt)(*args)
                jh = jax.hessian(jax_copy(f), argnums=wrt)(*[float(a) for a in args])
                if not close(np.array(h, dtype=float), np.array(jh, dtype=float), 1e-7):
                    print(f"{name}[{pi}] hessian {h} vs jax {jh}")
            except Exception as e:
                print(f"{name}[{pi}] hessian: {type(e).__name__}: {str(e)[:200]}")
    print(f"{name}: backends checked")


if __name__ == "__main__":
    backends = "--backends" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(POINTS)
    for n in names:
        try:
            (check_backends if backends else check)(n)
        except Exception:
            print(f"{n}: HARNESS/BUILD CRASH")
            traceback.print_exc(limit=-4)

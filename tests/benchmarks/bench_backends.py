"""Benchmark symgrad's gradients on each backend against the library's own autodiff, A1-A8.

Not collected by pytest; run by hand (JAX and PyTorch installed):

    python tests/benchmarks/bench_backends.py [--only A1,A3] [--sizes small,large] [--repeat 7]
                                              [--threads 1]

All in one process, per workload (array_workloads.py, beside this file) and size, the per-call
time of:

- symgrad's jax gradient under ``jax.jit`` against ``jax.jit(jax.grad(f))``, f the workload with
  ``jax.numpy`` for ``numpy`` (and ``jax.lax.stop_gradient``), float64 (``jax_enable_x64``);
- symgrad's torch gradient against ``torch.autograd.grad`` of f with torch functions, eager, on
  the same float64 CPU tensors (the forward pass and the backward pass timed together, as a
  training step pays them);
- symgrad's numpy gradient against the hand-written NumPy gradient;

with each ratio (symgrad / the other: below 1 is faster). Times are the best of --repeat
interleaved rounds; a JAX result is waited for (``block_until_ready``). Every gradient is checked
against the hand-written one (relative 1e-9) before it is timed.
"""
import argparse
import math
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def rebound(f, **names):
    """``f`` with some of its global names bound to other objects (``np`` to ``jax.numpy``)."""
    return types.FunctionType(f.__code__, dict(f.__globals__, **names), f.__name__,
                              f.__defaults__, f.__closure__)


def torch_numpy(torch):
    """The NumPy functions the workloads call, as torch functions (numbers become tensors)."""
    def tensor(x):
        return x if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=torch.float64)

    def reduction(name):
        def reduce(x, axis=None, keepdims=False):
            function = getattr(torch, name)
            if axis is None:
                return function(x)
            return function(x, dim=axis, keepdim=keepdims)
        return reduce
    return types.SimpleNamespace(
        sum=reduction("sum"), mean=reduction("mean"), max=reduction("amax"),
        min=reduction("amin"), exp=lambda x: torch.exp(tensor(x)),
        log=lambda x: torch.log(tensor(x)), log1p=lambda x: torch.log1p(tensor(x)),
        tanh=torch.tanh, round=torch.round, pi=math.pi, sqrt=lambda x: torch.sqrt(tensor(x)),
        maximum=torch.maximum, where=torch.where, abs=torch.abs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help="comma-separated keys, e.g. A1,A3")
    parser.add_argument("--sizes", default="small,large", help="comma-separated: small,large")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved timing rounds")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (0: leave as is)")
    options = parser.parse_args()
    if options.threads:
        for variable in THREAD_VARIABLES:
            os.environ[variable] = str(options.threads)
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    sys.path.insert(0, HERE)
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np
    import torch
    if options.threads:
        torch.set_num_threads(options.threads)

    import array_workloads as workloads
    import symgrad
    from bench_arrays import human_time, per_call

    keys = options.only.split(",") if options.only else list(workloads.WORKLOADS)
    sizes = options.sizes.split(",")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, jax {jax.__version__}, "
          f"torch {torch.__version__}, symgrad {symgrad.__version__}; "
          f"best of {options.repeat} rounds, {options.threads or 'default'} thread(s)")
    print(f"{'':3} {'size':5} {'sg-jax jit':>10} {'jax.grad jit':>12} {'ratio':>6} "
          f"{'sg-torch':>9} {'autograd':>9} {'ratio':>6} {'sg-numpy':>9} {'hand':>9} {'ratio':>6}")
    shim = torch_numpy(torch)
    for key in keys:
        w = workloads.WORKLOADS[key]
        shapes = workloads.SHAPES[key]
        index = [w.f.__code__.co_varnames.index(name) for name in w.wrt]
        sg = {b: symgrad.grad(w.f, wrt=w.wrt, shapes=shapes, backend=b)
              for b in ("numpy", "jax", "torch")}
        jax_f = rebound(w.f, np=jnp, stop_gradient=jax.lax.stop_gradient)
        jax_grad = jax.jit(jax.grad(jax_f, argnums=tuple(index)))
        sg_jax = jax.jit(sg["jax"])
        torch_f = rebound(w.f, np=shim, stop_gradient=lambda v: v.detach())

        def autograd(*args):
            leaves = [a.detach().requires_grad_() if k in index else a
                      for k, a in enumerate(args)]
            return torch.autograd.grad(torch_f(*leaves), [leaves[k] for k in index])

        for size in sizes:
            args = workloads.make_args(key, size)
            jargs = tuple(jnp.asarray(a) for a in args)
            targs = tuple(torch.as_tensor(a, dtype=torch.float64) for a in args)
            want = w.hand(*args)
            checks = {"sg-numpy": sg["numpy"](*args), "sg-jax": sg_jax(*jargs),
                      "jax.grad": jax_grad(*jargs), "sg-torch": sg["torch"](*targs),
                      "autograd": autograd(*targs)}
            for name, got in checks.items():
                got = tuple(np.asarray(g) for g in (got if isinstance(got, tuple) else (got,)))
                worst = workloads.max_rel_err(got, want)
                assert worst < 1e-9, f"{key} {size} {name}: differs from the hand gradient by {worst}"

            def blocked(f):
                return lambda *a: jax.block_until_ready(f(*a))
            t_sj, t_jg = per_call((blocked(sg_jax), blocked(jax_grad)), jargs, options.repeat)
            t_st, t_ag = per_call((sg["torch"], autograd), targs, options.repeat)
            t_sn, t_hand = per_call((sg["numpy"], w.hand), args, options.repeat)
            print(f"{key:3} {size:5} {human_time(t_sj):>10} {human_time(t_jg):>12} "
                  f"{t_sj / t_jg:6.2f} {human_time(t_st):>9} {human_time(t_ag):>9} "
                  f"{t_st / t_ag:6.2f} {human_time(t_sn):>9} {human_time(t_hand):>9} "
                  f"{t_sn / t_hand:6.2f}", flush=True)


if __name__ == "__main__":
    main()

"""Benchmark symgrad's gradients on each backend against the library's own autodiff, A1-A8.

Not collected by pytest; run by hand (JAX and PyTorch installed):

    python tests/benchmarks/bench_backends.py [--only A1,A3] [--sizes small,large] [--repeat 7]
                                              [--threads 1] [--spread]

All in one process, per workload (array_workloads.py, beside this file) and size, the per-call
time of:

- symgrad's jax gradient under ``jax.jit`` against ``jax.jit(jax.grad(f))``, f the workload with
  ``jax.numpy`` for ``numpy`` (and ``jax.lax.stop_gradient``), float64 (``jax_enable_x64``);
- symgrad's torch gradient against ``torch.autograd.grad`` of f with torch functions, eager, on
  the same float64 CPU tensors (the forward pass and the backward pass timed together, as a
  training step pays them);
- symgrad's numpy gradient against the hand-written NumPy gradient;

with each ratio (symgrad / the other: below 1 is faster). The two functions of a pair are timed
in --repeat interleaved rounds (each round a timeit of as many calls as fill about 0.2 s); a
time is the median over the rounds, a ratio the median of the rounds' ratios, and the spread
(``[low-high]``, with --spread) the smallest and largest round's ratio: on a loaded machine the
rounds differ, and a ratio within one round compares the two under the same load. A JAX result is
waited for (``block_until_ready``). With --threads 1 (the default) BLAS, PyTorch and XLA's CPU
runtime (``XLA_FLAGS``) use one thread each. Every gradient is checked against the hand-written
one (relative 1e-9) before it is timed.
"""
import argparse
import math
import os
import sys
import types

from measure import human_time, limit_threads, paired, workload_arguments

HERE = os.path.dirname(os.path.abspath(__file__))


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
    workload_arguments(parser)
    parser.add_argument("--spread", action="store_true", help="print each ratio's range")
    options = parser.parse_args()
    limit_threads(options.threads)
    if options.threads == 1 and "XLA_FLAGS" not in os.environ:
        os.environ["XLA_FLAGS"] = ("--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")
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

    keys = options.only.split(",") if options.only else list(workloads.WORKLOADS)
    sizes = options.sizes.split(",")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, jax {jax.__version__}, "
          f"torch {torch.__version__}, symgrad {symgrad.__version__}; "
          f"median of {options.repeat} rounds, {options.threads or 'default'} thread(s)")
    width = 17 if options.spread else 6
    print(f"{'':3} {'size':5} {'sg-jax jit':>10} {'jax.grad jit':>12} {'ratio':>{width}} "
          f"{'sg-torch':>9} {'autograd':>9} {'ratio':>{width}} {'sg-numpy':>9} {'hand':>9} "
          f"{'ratio':>{width}}")
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
            line = f"{key:3} {size:5}"
            for (pair, a), widths in zip(
                    (((blocked(sg_jax), blocked(jax_grad)), jargs),
                     ((sg["torch"], autograd), targs), ((sg["numpy"], w.hand), args)),
                    ((10, 12), (9, 9), (9, 9))):
                mine, theirs, ratio, low, high = paired(pair, a, options.repeat)
                spread = f" [{low:.2f}-{high:.2f}]" if options.spread else ""
                line += (f" {human_time(mine):>{widths[0]}} {human_time(theirs):>{widths[1]}} "
                         f"{ratio:6.2f}{spread}")
            print(line, flush=True)


if __name__ == "__main__":
    main()

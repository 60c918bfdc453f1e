"""Benchmark symgrad's gradients on each backend against the library's own autodiff, A1-A8.

Not collected by pytest; run by hand (JAX and PyTorch installed):

    python tests/benchmarks/bench_backends.py [--only A1,A3] [--sizes small,large] [--repeat 21]
                                              [--pairs jax,torch,numpy] [--threads 1] [--spread]
                                              [--control] [--hlo]

All in one process, per workload (array_workloads.py, beside this file) and size, the per-call
time of:

- symgrad's jax gradient under ``jax.jit`` against ``jax.jit(jax.grad(f))``, f the workload with
  ``jax.numpy`` for ``numpy`` (and ``jax.lax.stop_gradient``), float64 (``jax_enable_x64``);
- symgrad's torch gradient against ``torch.autograd.grad`` of f with torch functions, eager, on
  the same float64 CPU tensors (the forward pass and the backward pass timed together, as a
  training step pays them);
- symgrad's numpy gradient against the hand-written NumPy gradient;

with each ratio (symgrad / the other: below 1 is faster). The two functions of a pair are called
with the same argument buffers, each three times before any timing (``jax.jit`` compiles at the
first), then timed in --repeat interleaved rounds (``measure.paired``: each round one common
number of calls of each, filling about 0.1 s, the order alternating between rounds). Printed:
each one's least and median time over the rounds, the ratio of the least times ("min") and the
median of the rounds' ratios ("median"; with --spread the least and largest round's ratio). On a
loaded machine the least time is the least disturbed one, and a ratio within one round compares
the two under the same load. A JAX result is waited for (``block_until_ready``). With --threads
1 (the default) BLAS, PyTorch and XLA's Eigen runtime (``XLA_FLAGS=--xla_cpu_multi_thread_eigen=false``)
use one thread each, for both sides; XLA may still split one fused loop across the CPUs (--cpu 1
pins the process to one). Every gradient is checked
against the hand-written one (relative 1e-9) before it is timed.

--control adds the pair "jax=": ``jax.jit(jax.grad(f))`` against a second ``jax.jit`` of the same
``jax.grad(f)`` (the same compiled program): how far a ratio moves when nothing differs. --hlo
prints, per workload and size, what XLA compiled for each side of the jax pair
(``jax.jit(g).lower(*args).compile()``): its cost analysis (flops, transcendentals, bytes
accessed), the number of kernels the program runs (the instructions of its entry computation but
parameters, constants, bitcasts and tuples) and whether the two optimised HLO texts are the same
once names, metadata and layouts are dropped.
"""
import argparse
import collections
import math
import os
import re
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


def hlo_summary(compiled):
    """``(kernels, {cost: value}, normalised text)`` of a ``jax`` compiled program: the
    instructions of its entry computation that run (not parameters, constants, bitcasts, tuples),
    XLA's cost analysis (flops, transcendentals, bytes accessed) and the optimised HLO text
    without its file and stack tables, metadata, layouts and with names numbered in order."""
    text = compiled.as_text()
    costs = compiled.cost_analysis()
    costs = costs[0] if isinstance(costs, (list, tuple)) else costs
    costs = {key: costs.get(key, 0.0) for key in ("flops", "transcendentals", "bytes accessed")}
    lines, table = [], False
    for line in text.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            table = True
        elif table or line.startswith("HloModule"):
            table = table and line.strip() != ""
        elif line.strip():
            line = re.sub(r", metadata=\{[^}]*\}", "", line)
            lines.append(re.sub(r"\{[0-9,]*\}(?=[ ,)])", "", line))
    names = {}
    lines = [re.sub(r"%[\w.\-]+", lambda m: names.setdefault(m.group(0), f"%{len(names)}"), line)
             for line in lines]
    entry = lines[next(k for k, line in enumerate(lines) if line.startswith("ENTRY")):]
    kernels = sum(1 for line in entry if re.search(r"= \S+ ([a-z\-]+)\(", line) and not re.search(
        r"= \S+ (parameter|constant|bitcast|tuple|get-tuple-element)\(", line))
    return kernels, costs, "\n".join(lines)


def print_hlo(key, size, mine, theirs, args):
    """One line: what XLA compiled for the two jitted functions (``hlo_summary``), and the
    instructions (opcode and shape) that one program has more of than the other."""
    (k1, c1, t1), (k2, c2, t2) = [hlo_summary(f.lower(*args).compile()) for f in (mine, theirs)]
    costs = ", ".join(f"{name} {c1[name]:.4g} / {c2[name]:.4g}" for name in c1)
    ops = [collections.Counter(re.findall(r"= (\S+ [a-z\-]+)\(", text)) for text in (t1, t2)]
    more = [", ".join(f"{n} {op}" for op, n in sorted((a - b).items())) or "-"
            for a, b in ((ops[0], ops[1]), (ops[1], ops[0]))]
    print(f"{key:3} {size:5} HLO sg-jax / jax.grad: kernels {k1} / {k2}, {costs}; "
          + ("the same program" if t1 == t2 else
             f"only in sg-jax: {more[0]}; only in jax.grad: {more[1]}"), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    workload_arguments(parser)
    parser.add_argument("--pairs", default="jax,torch,numpy",
                        help="comma-separated: jax,torch,numpy (what to time)")
    parser.add_argument("--spread", action="store_true", help="print each ratio's range")
    parser.add_argument("--control", action="store_true",
                        help="also time jax.grad against itself (the noise of a ratio)")
    parser.add_argument("--hlo", action="store_true",
                        help="print what XLA compiled for each side of the jax pair")
    parser.add_argument("--cpu", type=int, default=None,
                        help="run on this CPU only (os.sched_setaffinity)")
    options = parser.parse_args()
    limit_threads(options.threads)
    if options.threads == 1 and "XLA_FLAGS" not in os.environ:
        os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false"
    if options.cpu is not None:
        os.sched_setaffinity(0, {options.cpu})
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
    pairs = options.pairs.split(",") + (["jax="] if options.control else [])
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, jax {jax.__version__}, "
          f"torch {torch.__version__}, symgrad {symgrad.__version__}; {options.repeat} rounds, "
          f"{options.threads or 'default'} thread(s), XLA_FLAGS={os.environ.get('XLA_FLAGS')!r}"
          + (f", CPU {options.cpu}" if options.cpu is not None else ""))
    print(f"{'':3} {'size':5} {'pair':20} {'symgrad min':>11} {'median':>9} {'other min':>10} "
          f"{'median':>9} {'ratio min':>9} {'median':>7}" + ("  [range]" if options.spread else ""))
    names = {"jax": "sg-jax/jax.grad jit", "torch": "sg-torch/autograd",
             "numpy": "sg-numpy/hand", "jax=": "jax.grad/jax.grad"}
    shim = torch_numpy(torch)
    for key in keys:
        w = workloads.WORKLOADS[key]
        shapes = workloads.SHAPES[key]
        index = [w.f.__code__.co_varnames.index(name) for name in w.wrt]
        sg = {b: symgrad.grad(w.f, wrt=w.wrt, shapes=shapes, backend=b)
              for b in ("numpy", "jax", "torch")}
        jax_f = rebound(w.f, np=jnp, stop_gradient=jax.lax.stop_gradient)
        jax_grad = jax.jit(jax.grad(jax_f, argnums=tuple(index)))
        jax_grad_again = jax.jit(jax.grad(jax_f, argnums=tuple(index)))
        sg_jax = jax.jit(sg["jax"])
        torch_f = rebound(w.f, np=shim, stop_gradient=lambda v: v.detach())

        def autograd(*args):
            leaves = [a.detach().requires_grad_() if k in index else a
                      for k, a in enumerate(args)]
            return torch.autograd.grad(torch_f(*leaves), [leaves[k] for k in index])

        def blocked(f):
            return lambda *a: jax.block_until_ready(f(*a))

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
            if options.hlo:
                print_hlo(key, size, sg_jax, jax_grad, jargs)
            timed = {"jax": ((blocked(sg_jax), blocked(jax_grad)), jargs),
                     "torch": ((sg["torch"], autograd), targs),
                     "numpy": ((sg["numpy"], w.hand), args),
                     "jax=": ((blocked(jax_grad_again), blocked(jax_grad)), jargs)}
            for pair in pairs:
                functions, a = timed[pair]
                m = paired(functions, a, options.repeat)
                spread = f"  [{m.low:.2f}-{m.high:.2f}]" if options.spread else ""
                print(f"{key:3} {size:5} {names[pair]:20} {human_time(m.first_min):>11} "
                      f"{human_time(m.first_median):>9} {human_time(m.second_min):>10} "
                      f"{human_time(m.second_median):>9} {m.min_ratio:9.2f} "
                      f"{m.median_ratio:7.2f}{spread}", flush=True)


if __name__ == "__main__":
    main()

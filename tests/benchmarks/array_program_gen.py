"""Random vectorised NumPy programs for the array fuzzer (``fuzz_arrays.py``), typed by shape.

A shape is a tuple of *labels*: a named size (``"n"``, ``"d"``, ``"k"``: one build serves every
size, so the fuzzer calls each build at two sizes; a named size may be *fixed*, given to
``shapes=`` as an int, and then constant arrays may have it), ``1`` (a size-1 axis, given to
``shapes=`` as 1) or an int >= 2 (an axis made by a constant index array, ``np.stack`` or
``np.concatenate``). ``Gen.expr(shape, depth)`` draws an expression tree (``Node``) of exactly that
shape from the operations of the supported array language; ``Program`` (``array_programs``)
holds the parameters, the module constants, the statements (intermediate names, an ``if`` on a
scalar computed from arrays) and the returned scalar, and prints the module's source; trees
shrink by replacing a node with a child of its shape or with a plain leaf (``Program.shrunk``).

Every named size is at least 2 when called, so the ints 0, 1, -1 index any axis; values stay
bounded (inputs in [-1, 1], ``exp`` of bounded arguments, matrices inverted are 3 I + 0.3 tanh(M)).
"""

import array_program_wide

NAMED = ("n", "d", "k")


class Node:
    """An expression: ``fmt`` formatted with the children's texts; ``shape`` its labels."""

    def __init__(self, shape, fmt, kids=(), ref=None):
        self.shape, self.fmt, self.kids, self.ref = tuple(shape), fmt, list(kids), ref

    def text(self):
        return self.fmt.format(*[k.text() for k in self.kids])

    def nodes(self):
        yield self
        for k in self.kids:
            yield from k.nodes()

    def size(self):
        return 1 + sum(k.size() for k in self.kids)


UNARY = [
    "np.sin({0})", "np.cos({0})", "np.tanh({0})", "np.exp(0.3 * np.tanh({0}))", "({0}) ** 2",
    "({0}) ** 3", "np.sqrt(1.0 + ({0}) ** 2)", "np.log(1.0 + ({0}) ** 2)", "np.log1p(({0}) ** 2)",
    "np.abs({0})", "np.arctan({0})", "1.0 / (1.5 + ({0}) ** 2)", "-({0})", "np.square({0})",
    "np.expm1(0.2 * ({0}))", "np.sinh(0.3 * ({0}))", "np.cosh(0.3 * ({0}))",
    "np.maximum({0}, 0.1)", "np.minimum({0}, -0.2)", "np.clip({0}, -0.5, 0.5)",
    "np.clip({0}, None, 0.3)", "np.where({0} > 0.2, {0}, 0.3 * ({0}))",
    "np.where(({0}) < 0.0, np.sin({0}), ({0}) ** 2)", "2.0 * ({0})", "({0}) / 3.0",
    "np.round({0})", "np.sqrt(np.abs({0}) + 1.0)", "np.arcsinh({0})", "({0}).clip(-0.4, 0.6)",
    "np.where((({0}) > -0.5) & (({0}) < 0.5), ({0}) ** 2, 0.25)", "np.exp(-({0}) ** 2)",
    "np.negative({0})", "np.power({0}, 2)", "np.floor({0}) + ({0})", "np.sign({0}) * ({0})",
    "stop_gradient({0})", "stop_gradient({0}) * ({0})",
    "({0}) + stop_gradient(np.round({0}) - ({0}))",
]
SPECIAL = [
    "scipy.special.erf({0})", "scipy.special.erfc({0})", "scipy.special.expit({0})",
    "scipy.special.logit(0.1 + 0.8 * scipy.special.expit({0}))",
    "scipy.special.xlogy(1.5 + ({0}) ** 2, 1.5 + ({0}) ** 2)",
    "scipy.special.gammaln(1.5 + ({0}) ** 2)",
    "scipy.special.digamma(1.5 + ({0}) ** 2)",
]
BINARY = [
    "({0}) + ({1})", "({0}) - ({1})", "({0}) * ({1})", "({0}) / (1.5 + ({1}) ** 2)",
    "np.maximum({0}, {1})", "np.minimum({0}, {1})", "np.logaddexp({0}, {1})", "np.add({0}, {1})",
    "np.multiply({0}, {1})", "np.where(({0}) > ({1}), ({0}) * 2.0, ({1}) - 1.0)",
    "np.where(({0}) <= 0.1, np.exp(0.2 * ({1})), ({0}) * ({1}))", "np.subtract({0}, {1})",
    "({0}) * stop_gradient({1})",
]
REDUCTIONS = ["np.sum({0}{axis})", "np.mean({0}{axis})", "np.max({0}{axis})", "np.min({0}{axis})",
              "np.prod(np.tanh({0}) * 0.5 + 1.0{axis})", "({0}).sum({axis1})",
              "({0}).mean({axis1})",
              "({0}).max({axis1})", "({0}).min({axis1})", "np.amax({0}{axis})",
              "scipy.special.logsumexp({0}{axis})", "np.var({0}{axis})", "np.std({0}{axis})"]


class Gen:
    """Draws nodes for one program (``rng`` a ``random.Random``)."""

    def __init__(self, rng, params, fixed, special=True, wide=False, folds=None):
        self.rng = rng
        self.folds = folds              # a random.Random drawing array_program_wide.FOLDS, or None
        self.wide = wide                # also the rows of array_program_wide
        self.params = params            # {name: shape}
        self.fixed = fixed              # {label: size} for the named sizes given as ints
        self.special = special
        self.consts = []                # module-level constant lines
        self.interms = []               # (name, shape) bound before the current statement
        self.helpers = []               # module-level helper defs
        self.preludes = {}              # label -> the triu line defining i_<label>, j_<label>
        self.labels = sorted({a for s in params.values() for a in s if isinstance(a, str)})

    # --- sizes -------------------------------------------------------------------------------
    def size_text(self, label):
        if not isinstance(label, str):
            return str(label)
        places = [(p, k) for p, s in sorted(self.params.items()) for k, a in enumerate(s)
                  if a == label]
        p, k = self.rng.choice(places)
        if k == 0 and self.rng.random() < 0.4:
            return f"len({p})"
        return f"{p}.shape[{k}]"

    def shape_text(self, shape):
        parts = [self.size_text(a) for a in shape]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def is_constant_shape(self, shape):
        return all(not isinstance(a, str) or a in self.fixed for a in shape)

    def concrete(self, shape):
        return tuple(self.fixed.get(a, a) for a in shape)

    def pick_label(self, one=0.15):
        if self.rng.random() < one or not self.labels:
            return 1
        return self.rng.choice(self.labels)

    def random_shape(self, rank=None):
        rank = self.rng.choice([0, 1, 1, 2, 2, 3]) if rank is None else rank
        return tuple(self.pick_label() for _ in range(rank))

    # --- leaves ------------------------------------------------------------------------------
    def view(self, name, have, want):
        """An index of ``name`` (shape ``have``) giving shape ``want``, or None: kept axes in
        order (maybe reversed), ints for the others, None for a size-1 axis of ``want``."""
        rng = self.rng

        def match(i, j):
            if j == len(want):
                return [[self.int_for(a) for a in have[i:]]]
            out = []
            for i2 in range(i, len(have)):
                if have[i2] == want[j]:
                    for rest in match(i2 + 1, j + 1):
                        keep = rng.choice([":", ":", "::-1"]) if have[i2] != 1 else ":"
                        out.append([self.int_for(a) for a in have[i:i2]] + [keep] + rest)
                    break  # the first match only: enough choices
            if want[j] == 1:
                for rest in match(i, j + 1):
                    out.append(["None"] + rest)
            return out

        options = match(0, 0)
        if not options:
            return None
        items = rng.choice(options)
        whole = len(items)  # every axis of `have` named (and the None's): `...` is then one axis
        while items and items[-1] == ":":
            items.pop()
        if not items:
            return ""
        if len(items) >= 2 and items[0] == ":" and rng.random() < 0.3 and ":" not in items[1:] \
                and len(items) == whole:  # else `X[..., 0]` of (n, d, n) took the last axis for
            # the middle one (70-12: einsum of X[..., 0] as (n, d), numpy raised; the draw of the
            # random number is kept, so a seed names the program it named, with `:` for `...`)
            items = ["..."] + items[1:]
        return f"[{', '.join(items)}]"

    def int_for(self, label):
        return self.rng.choice(["0", "-1"] if label == 1 else ["0", "1", "-1"])

    def leaf(self, shape):
        rng = self.rng
        options = []
        for name, have in sorted(self.params.items()) + [(n, s) for n, s in self.interms]:
            if have == shape:
                options += [(name, have, "")] * 3
            v = self.view(name, have, shape) if have else None  # a float is not indexed
            if v is not None and len(have) <= len(shape) + 2:
                options.append((name, have, v))
        if options and rng.random() < 0.9:
            name, have, index = rng.choice(options)
            if not index:
                return Node(shape, name)
            return Node(shape, "{0}" + index, [Node(have, name)])
        return self.constant(shape)

    def constant(self, shape):
        rng = self.rng
        if shape == ():
            return Node(shape, rng.choice(["0.7", "1.5", "-0.4", "2.0"]))
        if self.is_constant_shape(shape) and rng.random() < 0.5:
            dims = self.concrete(shape)
            name = f"C{len(self.consts)}"
            values = [round(rng.uniform(-1, 1), 3) for _ in range(_prod(dims))]
            self.consts.append(f"{name} = np.array({values}).reshape({dims})")
            return Node(shape, name)
        text = self.shape_text(shape)
        forms = [f"np.full({text}, 0.5)", f"np.ones({text}) * 0.3", f"np.zeros({text}) + 0.2"]
        if len(shape) == 1 and shape[0] != 1:
            forms.append(f"np.arange({self.size_text(shape[0])}) * 0.25")
        if len(shape) == 2 and shape[0] == shape[1] and isinstance(shape[0], str):
            forms.append(f"np.eye({self.size_text(shape[0])})")
        if len(shape) == 1 and shape[0] == 2:
            forms.append("np.array([0.5, -0.25])")
        return Node(shape, rng.choice(forms))

    def broadcast_leaf(self, shape):
        """A product of views, one per named axis (each a size-1 axis elsewhere)."""
        parts = []
        for k, a in enumerate(shape):
            if isinstance(a, str):
                sub = tuple(a if i == k else 1 for i in range(len(shape)))
                parts.append(self.leaf(sub))
        if not parts:
            return self.constant(shape)
        node = parts[0]
        for p in parts[1:]:
            node = Node(shape, "({0}) * ({1})", [node, p])
        if node.shape != shape:  # only size-1 axes beyond: add the constant of the shape
            node = Node(shape, "({0}) + ({1})", [node, self.constant(shape)])
        return node

    # --- composites --------------------------------------------------------------------------
    def expr(self, shape, depth):
        shape = tuple(shape)
        rng = self.rng
        if depth <= 0 or rng.random() < 0.15:
            leaf = self.leaf(shape)
            if leaf.fmt.startswith(("np.full", "np.ones", "np.zeros", "C", "np.arange", "np.eye",
                                    "np.array")) and rng.random() < 0.7:
                return self.broadcast_leaf(shape) if shape else leaf
            return leaf
        makers = [(self.unary, 4), (self.binary, 5), (self.reduction, 3), (self.product, 2),
                  (self.layout, 2), (self.indexing, 2), (self.joined, 1), (self.linalg, 1),
                  (self.cumulative, 1), (self.helper, 1), (self.sizes, 1), (self.gathered, 2)]
        if self.wide:
            makers.append((lambda s, d: array_program_wide.maker(self, s, d), 5))
        while True:
            maker = rng.choices([m for m, _ in makers], [w for _, w in makers])[0]
            node = maker(shape, depth - 1)
            if node is not None:
                assert node.shape == shape, (maker, node.shape, shape, node.text())
                return node

    def unary(self, shape, depth):
        table = UNARY + (SPECIAL if self.special else []) + (
            array_program_wide.UNARY if self.wide else [])
        if not shape:  # a scalar parameter is a Python float: no array methods
            table = [t for t in table if not any(m in t for m in (").clip",)
                                                 + array_program_wide.METHODS
                                                 + array_program_wide.NOT_SCALAR)]
        fmt = self.rng.choice(table)
        if self.folds is not None and self.folds.random() < 0.15:
            fmt = self.folds.choice(array_program_wide.FOLDS)
        return Node(shape, fmt, [self.expr(shape, depth)])

    def parent(self, shape):
        """A shape that broadcasts to ``shape``: leading axes dropped, some axes made 1."""
        rng = self.rng
        s = list(shape)
        if s and rng.random() < 0.3:
            s = s[rng.randint(1, len(s)):]
        if s and rng.random() < 0.3:
            s[rng.randrange(len(s))] = 1
        return tuple(s)

    def binary(self, shape, depth):
        rng = self.rng
        first, second = shape, self.parent(shape)
        if rng.random() < 0.5:
            first, second = second, first
        if rng.random() < 0.15 and len(shape) >= 1:  # (n, 1) with (1, d) style
            first = tuple(1 if i == len(shape) - 1 else a for i, a in enumerate(shape))
            second = tuple(a if i == len(shape) - 1 else 1 for i, a in enumerate(shape))
            if _broadcast(first, second) != shape:
                first, second = shape, shape
        return Node(shape, rng.choice(BINARY), [self.expr(first, depth), self.expr(second, depth)])

    def reduction(self, shape, depth):
        rng = self.rng
        fmt = rng.choice(REDUCTIONS)
        if "logsumexp" in fmt and not self.special:
            fmt = "np.sum({0}{axis})"
        if rng.random() < 0.25 or shape == ():
            inner = self.random_shape(rng.choice([1, 2, 2, 3]))
            if shape == ():
                if rng.random() < 0.3:
                    fmt = rng.choice(["np.linalg.norm({0})", fmt])
                return Node(shape, fmt.format("{0}", axis="", axis1=""), [self.expr(inner, depth)])
            if rng.random() < 0.5 and "{axis}" in fmt:  # keepdims over every axis, then broadcast
                full = tuple(1 for _ in inner)
                if _broadcast(full, shape) == shape and len(full) <= len(shape):
                    text = fmt.format("{0}", axis=", axis=None, keepdims=True", axis1="")
                    if "keepdims" in text and "np.std" not in text:
                        return Node(shape, "({0}) + ({1})", [Node(full, text, [self.expr(
                            inner, depth)]), self.expr(shape, depth)])
        keep = rng.random() < 0.3
        if keep:
            ones = [i for i, a in enumerate(shape) if a == 1]
            if not ones:
                return None
            positions = [rng.choice(ones)]
            inner = list(shape)
            for p in positions:
                inner[p] = self.pick_label(one=0.0)
        else:
            count = rng.choice([1, 1, 2]) if len(shape) < 2 else 1
            inner = list(shape)
            positions = []
            for _ in range(count):
                p = rng.randint(0, len(inner))
                inner.insert(p, self.pick_label(one=0.1))
                positions = [q + (q >= p) for q in positions] + [p]
            positions.sort()
        if "norm" in fmt or rng.random() < 0.1 and len(positions) == 1:
            fmt = "np.linalg.norm({0}{axis})"
        ax = positions[0] if len(positions) == 1 else tuple(positions)
        if isinstance(ax, int) and rng.random() < 0.3:
            ax -= len(inner)
        axis = f", axis={ax}" + (", keepdims=True" if keep else "")
        axis1 = f"axis={ax}" + (", keepdims=True" if keep else "")
        return Node(shape, fmt.format("{0}", axis=axis, axis1=axis1), [self.expr(tuple(inner),
                                                                                depth)])

    def product(self, shape, depth):
        rng = self.rng
        inner = self.pick_label(one=0.1)
        if shape == ():
            kind = rng.choice(["@", "dot", "inner", "einsum", "einsum2"])
            if kind == "einsum2":
                m = (inner, self.pick_label())
                return Node(shape, "np.einsum('ij,ij->', {0}, {1})",
                            [self.expr(m, depth), self.expr(m, depth)])
            fmt = {"@": "({0}) @ ({1})", "dot": "np.dot({0}, {1})", "inner": "np.inner({0}, {1})",
                   "einsum": "np.einsum('i,i->', {0}, {1})"}[kind]
            return Node(shape, fmt, [self.expr((inner,), depth), self.expr((inner,), depth)])
        if len(shape) == 1:
            p = shape[0]
            kind = rng.choice(["mv", "vm", "einsum", "dot", "matmul"])
            if kind == "vm":
                return Node(shape, "({0}) @ ({1})", [self.expr((inner,), depth),
                                                     self.expr((inner, p), depth)])
            fmt = {"mv": "({0}) @ ({1})", "einsum": "np.einsum('ij,j->i', {0}, {1})",
                   "dot": "np.dot({0}, {1})", "matmul": "np.matmul({0}, {1})"}[kind]
            return Node(shape, fmt, [self.expr((p, inner), depth), self.expr((inner,), depth)])
        if len(shape) == 2:
            p, q = shape
            kind = rng.choice(["mm", "outer", "einsum", "dot", "einsumT"])
            if kind == "outer" and p != 1 and q != 1:
                return Node(shape, "np.outer({0}, {1})", [self.expr((p,), depth),
                                                           self.expr((q,), depth)])
            if kind == "einsumT":
                return Node(shape, "np.einsum('ji,jk->ik', {0}, {1})",
                            [self.expr((inner, p), depth), self.expr((inner, q), depth)])
            fmt = {"mm": "({0}) @ ({1})", "einsum": "np.einsum('ij,jk->ik', {0}, {1})",
                   "dot": "np.dot({0}, {1})", "outer": "({0}) @ ({1})"}[kind]
            return Node(shape, fmt, [self.expr((p, inner), depth), self.expr((inner, q), depth)])
        if len(shape) == 3:
            b, p, q = shape
            return Node(shape, rng.choice(["({0}) @ ({1})", "np.matmul({0}, {1})",
                                           "np.einsum('bij,bjk->bik', {0}, {1})"]),
                        [self.expr((b, p, inner), depth), self.expr((b, inner, q), depth)])
        return None

    def layout(self, shape, depth):
        rng = self.rng
        kind = rng.choice(["T", "transpose", "squeeze", "expand", "reshape", "reshape1",
                           "newaxis"])
        if kind == "T" and len(shape) == 2:
            fmt = rng.choice(["({0}).T", "np.transpose({0})", "({0}).transpose()",
                              "({0}).transpose(1, 0)"])
            return Node(shape, fmt, [self.expr(shape[::-1], depth)])
        if kind == "transpose" and len(shape) == 3:
            perm = list(range(3))
            rng.shuffle(perm)
            inner = [None] * 3
            for out_axis, in_axis in enumerate(perm):
                inner[in_axis] = shape[out_axis]
            return Node(shape, f"np.transpose({{0}}, {tuple(perm)})", [self.expr(tuple(inner),
                                                                                depth)])
        if kind == "squeeze" and len(shape) < 3:
            p = rng.randint(0, len(shape))
            inner = shape[:p] + (1,) + shape[p:]
            if 1 not in shape and rng.random() < 0.5:
                return Node(shape, rng.choice(["np.squeeze({0})", "({0}).squeeze()"]),
                            [self.expr(inner, depth)])
            return Node(shape, rng.choice([f"np.squeeze({{0}}, axis={p})",
                                           f"({{0}}).squeeze({p})"]), [self.expr(inner, depth)])
        if kind in ("expand", "newaxis") and 1 in shape:
            p = rng.choice([i for i, a in enumerate(shape) if a == 1])
            inner = shape[:p] + shape[p + 1:]
            if kind == "expand":
                return Node(shape, f"np.expand_dims({{0}}, {p})", [self.expr(inner, depth)])
            items = [":"] * p + ["None"]
            if p == len(shape) - 1 and rng.random() < 0.5:
                items = ["...", "None"]
            if not inner:  # a 0-d value may be a Python float: not subscriptable (g-1509)
                return Node(shape, "np.expand_dims({0}, 0)", [self.expr(inner, depth)])
            return Node(shape, f"({{0}})[{', '.join(items)}]", [self.expr(inner, depth)])
        if kind == "reshape" and shape:
            same = [n for n, s in sorted(self.params.items()) if s == shape]
            if same and rng.random() < 0.5:
                return Node(shape, f"({{0}}).reshape(-1)[::-1].reshape({rng.choice(same)}.shape)",
                            [self.expr(shape, depth)])
            inner = list(shape)
            inner.insert(rng.randint(0, len(inner)), 1)
            target = self.shape_text(shape)
            if len(shape) == 1 and rng.random() < 0.5:
                target = "-1"
            return Node(shape, rng.choice([f"({{0}}).reshape({target})",
                                           f"np.reshape({{0}}, {target})"]),
                        [self.expr(tuple(inner), depth)])
        if kind == "reshape1" and len(shape) == 2 and shape[1] == 1:
            return Node(shape, "({0}).reshape(-1, 1)", [self.expr(shape[:1], depth)])
        return None

    def indexing(self, shape, depth):
        rng = self.rng
        kind = rng.choice(["int", "slice-reduce", "reverse", "rotate", "ellipsis"])
        if kind == "int":
            p = rng.randint(0, len(shape))
            label = self.pick_label()
            inner = shape[:p] + (label,) + shape[p:]
            items = [":"] * p + [self.int_for(label)]
            return Node(shape, f"({{0}})[{', '.join(items)}]", [self.expr(inner, depth)])
        if kind == "ellipsis" and shape:
            label = self.pick_label()
            return Node(shape, f"({{0}})[..., {self.int_for(label)}]",
                        [self.expr(shape + (label,), depth)])
        if kind == "slice-reduce" and self.labels:
            p = rng.randint(0, len(shape))
            label = rng.choice(self.labels)
            inner = shape[:p] + (label,) + shape[p:]
            sl = rng.choice(["1:", ":-1", "::2", "1::2", "-2:", "::-2", "-2::-1", ":1"])
            items = [":"] * p + [sl]
            red = rng.choice(["np.sum", "np.max", "np.mean"])
            return Node(shape, f"{red}(({{0}})[{', '.join(items)}], axis={p})",
                        [self.expr(inner, depth)])
        if kind == "reverse" and shape and shape[0] != 1:
            p = rng.choice([i for i, a in enumerate(shape) if a != 1])
            items = [":"] * p + ["::-1"]
            return Node(shape, f"({{0}})[{', '.join(items)}]", [self.expr(shape, depth)])
        if kind == "rotate" and shape and isinstance(shape[0], str):
            p = rng.choice([i for i, a in enumerate(shape) if isinstance(a, str)])
            pre = ":, " * p
            return Node(shape, f"np.concatenate([({{0}})[{pre}1:], ({{0}})[{pre}:1]], axis={p})",
                        [self.expr(shape, depth)])
        return None

    def gathered(self, shape, depth):
        """Constant index arrays (with repeats), np.take, triangle indices."""
        rng = self.rng
        if shape == () and self.labels and rng.random() < 0.4:
            label = rng.choice(self.labels)
            if label not in self.preludes:
                k = rng.choice([0, 1])
                self.preludes[label] = (f"i_{label}, j_{label} = np.triu_indices("
                                        f"{self.size_text(label)}, {k})")
            if rng.random() < 0.5:
                return Node(shape, f"np.sum(({{0}})[i_{label}] * ({{1}})[j_{label}])",
                            [self.expr((label,), depth), self.expr((label,), depth)])
            return Node(shape, f"np.sum((({{0}})[i_{label}, j_{label}]) ** 2)",
                        [self.expr((label, label), depth)])
        ints = [i for i, a in enumerate(shape) if isinstance(a, int) and a >= 2]
        if not ints:
            return None
        p = rng.choice(ints)
        m = shape[p]
        values = [rng.choice([0, 1, -1, 0]) for _ in range(m)]
        label = rng.choice(self.labels) if self.labels else 1
        if label == 1:
            values = [0] * m
        inner = shape[:p] + (label,) + shape[p + 1:]
        if rng.random() < 0.5:
            name = f"IDX{len(self.consts)}"
            self.consts.append(f"{name} = np.array({values})")
        else:
            name = f"np.array({values})"
        form = rng.choice(["index", "take"])
        if form == "take":
            return Node(shape, f"np.take({{0}}, {name}, axis={p})", [self.expr(inner, depth)])
        items = [":"] * p + [name]
        if p == len(shape) - 1 and p > 0 and rng.random() < 0.5:
            items = ["...", name]
        return Node(shape, f"({{0}})[{', '.join(items)}]", [self.expr(inner, depth)])

    def joined(self, shape, depth):
        rng = self.rng
        ints = [i for i, a in enumerate(shape) if a == 2]
        if not ints:
            return None
        p = rng.choice(ints)
        if rng.random() < 0.5:
            inner = shape[:p] + shape[p + 1:]
            return Node(shape, f"np.stack([{{0}}, {{1}}], axis={p})",
                        [self.expr(inner, depth), self.expr(inner, depth)])
        inner = shape[:p] + (1,) + shape[p + 1:]
        return Node(shape, f"np.concatenate([{{0}}, {{1}}], axis={p})",
                    [self.expr(inner, depth), self.expr(inner, depth)])

    def well(self, label, depth):
        return Node((label, label), f"3.0 * np.eye({self.size_text(label)}) + 0.3 * np.tanh({{0}})",
                    [self.expr((label, label), depth)])

    def linalg(self, shape, depth):
        rng = self.rng
        named = [a for a in self.labels]
        if not named:
            return None
        if shape == ():
            label = rng.choice(named)
            fmt = rng.choice(["np.linalg.det({0})", "np.linalg.slogdet({0})[1]",
                              "np.sum(np.linalg.inv({0}))"])
            return Node(shape, fmt, [self.well(label, depth)])
        if len(shape) == 2 and shape[0] == shape[1] and isinstance(shape[0], str):
            return Node(shape, "np.linalg.inv({0})", [self.well(shape[0], depth)])
        if len(shape) in (1, 2) and isinstance(shape[0], str):
            return Node(shape, "np.linalg.solve({0}, {1})", [self.well(shape[0], depth),
                                                             self.expr(shape, depth)])
        return None

    def cumulative(self, shape, depth):
        if not shape:
            return None
        if len(shape) == 1 and self.rng.random() < 0.5:
            return Node(shape, "np.cumsum({0})", [self.expr(shape, depth)])
        p = self.rng.randrange(len(shape))
        return Node(shape, f"np.cumsum({{0}}, axis={p})", [self.expr(shape, depth)])

    def helper(self, shape, depth):
        rng = self.rng
        name = f"helper{len(self.helpers)}"
        body = rng.choice(UNARY[:20]).format("u")
        if rng.random() < 0.5:
            self.helpers.append(f"def {name}(u, scale=2.0):\n    return scale * {body}\n")
        else:
            self.helpers.append(f"def {name}(u):\n    w = {body}\n    return w + u * 0.5\n")
        return Node(shape, f"{name}({{0}})", [self.expr(shape, depth)])

    def sizes(self, shape, depth):
        params = sorted(self.params.items())
        name, s = self.rng.choice(params)
        if not s:
            return None
        text = self.rng.choice([f"{name}.size", f"{name}.ndim", f"len({name})",
                                f"{name}.shape[{len(s) - 1}]"])
        return Node(shape, f"({{0}}) / (1.0 + {text})", [self.expr(shape, depth)])


def _prod(dims):
    out = 1
    for d in dims:
        out *= d
    return out


def _broadcast(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)

"""LaTeX of the gradient of array code, in index-free matrix notation (``latex`` of array code).

Each array node of a derivative prints as the mathematics it is: ``A @ B`` as ``A B``, a transpose
as ``A^{T}``, a reduction over every axis as ``\\sum`` (``\\max``, ``\\min``, ``\\prod``), over
some axes with them as a subscript (``\\sum_{\\text{axis } 0}``), ``np.linalg.inv(A)`` as
``A^{-1}``, ``det`` as ``\\det``, a product of two or more arrays as the elementwise (Hadamard)
product ``\\odot``; scalar factors (``\\frac{1}{n}``) and elementwise functions (``\\tanh``,
powers, fractions of arrays: elementwise) print as SymPy prints them. Layout that has no index-free
spelling prints readably as the NumPy it is (``x_{[1:]}`` for ``x[1:]``, ``y_{[:, \\text{None}]}``
for ``y[:, None]``; a scatter-add of pieces into slices as ``\\operatorname{scatter\\_add}(g
\\text{ at } [1:], \\dots)``); any other node as ``\\operatorname{name}(\\dots)``, with its shape,
subscripts or axis below (``\\operatorname{reshape}_{\\left(2, n\\right)}``,
``\\operatorname{einsum}_{\\text{ij,j->i}}``). Which factors are arrays come from the derivative's
shapes (``Program.arrays``).
"""
import sympy
from sympy.printing.latex import LatexPrinter

_REDUCTIONS = {"sum": r"\sum", "max": r"\max", "min": r"\min", "prod": r"\prod"}


class ArrayLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer, with array nodes and Hadamard products (see the module)."""

    def __init__(self, shapes):
        super().__init__()
        self.shapes = shapes

    def _is_array(self, expr):
        try:
            return bool(self.shapes.of(expr))
        except Exception:  # noqa: BLE001 - a factor whose shape is unknown prints as SymPy's
            return False

    def _grouped(self, expr):
        """``expr`` bare when it is an atom, an inverse, an index or a result, else in
        parentheses."""
        text = self._print(expr)
        if expr.is_Atom or getattr(expr, "rule", None) is not None and expr.rule.name in (
                "result", "inv", "index", "expand_dims"):
            return text
        return rf"\left({text}\right)"

    def _print_Function(self, expr, exp=None):
        rule = getattr(expr, "rule", None)
        if rule is None:
            return super()._print_Function(expr, exp)
        text = self._array_node(rule.name, expr)
        return text if exp is None else rf"\left({text}\right)^{{{exp}}}"

    def _array_node(self, name, expr):
        inputs, params = expr.inputs, expr.params
        if name == "result":
            return self._print(inputs[0])
        if name == "matmul":
            a, b = inputs
            return f"{self._operand(a)} {self._operand(b)}"
        if name == "transpose" and len(params[0]) == 2:
            return f"{self._grouped(inputs[0])}^{{T}}"
        if name in _REDUCTIONS:
            axes, _keepdims, rank = params
            below = "" if len(axes) == rank else "_{\\text{axis } %s}" % ", ".join(map(str, axes))
            return rf"{_REDUCTIONS[name]}{below} {self._grouped(inputs[0])}"
        if name == "inv":
            return f"{self._grouped(inputs[0])}^{{-1}}"
        if name in ("det", "logabsdet"):  # log|det A| reads its pair (sign, log|det A|)
            matrix = inputs[0] if name == "det" else inputs[0].inputs[0]
            inner = rf"\det {self._grouped(matrix)}"
            return inner if name == "det" else rf"\log \left|{inner}\right|"
        if name == "slogdet_sign":
            return rf"\operatorname{{sign}} \det {self._grouped(inputs[0].inputs[0])}"
        if name == "svd_item":  # U, s, V^H of the SVD of A
            matrix = self._grouped(inputs[0].inputs[0])
            return rf"{('U', 's', 'V^{H}')[params[0]]}_{{\operatorname{{svd}} {matrix}}}"
        if name == "expand_dims":
            rank = len(self.shapes.of(expr))
            spec = ", ".join(r"\text{None}" if k in params[0] else ":" for k in range(rank))
            return rf"{{{self._grouped(inputs[0])}}}_{{[{spec}]}}"
        if name == "index":
            return rf"{{{self._grouped(inputs[0])}}}_{{[{_spec(params, self._print)}]}}"
        if name == "index_adjoint":  # zeros of the input's shape, each piece added at its index
            pieces = r",\ ".join(rf"{self._print(g)} \text{{ at }} [{_spec(spec, self._print)}]"
                                  for g, spec in zip(inputs, params[1]))
            return rf"\operatorname{{scatter\_add}}\left({pieces}\right)"
        if name == "broadcast_to":
            return self._print(inputs[0])
        if name == "where_adjoint":
            c, a, b = inputs
            return self._print(sympy.Piecewise((a, c), (b, True), evaluate=False))
        below = {"reshape": lambda: self._print(sympy.Tuple(*params[0])),
                 "einsum": lambda: rf"\text{{{params[0]}}}",
                 "cumsum": lambda: rf"\text{{axis }} {params[0]}",
                 "concatenate": lambda: rf"\text{{axis }} {params[0]}"}.get(name)
        if name == "arange":  # no inputs: its bounds are its parameters, as NumPy writes them
            start, stop, step = params
            inputs = [stop] if start == 0 and step == 1 else [start, stop] + (
                [step] if step != 1 else [])
        arguments = ", ".join(self._print(a) for a in inputs)
        label = rf"\operatorname{{{name.replace('_', chr(92) + '_')}}}"
        return label + ("" if below is None else f"_{{{below()}}}") + \
            rf"\left({arguments}\right)"

    def _operand(self, expr):
        """A matrix product's operand: bare when a symbol, a transpose or a product, else in
        parentheses."""
        if expr.is_Symbol or getattr(expr, "rule", None) is not None and expr.rule.name in (
                "transpose", "matmul", "inv"):
            return self._print(expr)
        return rf"\left({self._print(expr)}\right)"

    def _print_Mul(self, expr):
        arrays = [f for f in expr.args if self._is_array(f) and not _is_reciprocal(f)]
        if len(arrays) < 2:
            return super()._print_Mul(expr)
        below = [f for f in expr.args if self._is_array(f) and _is_reciprocal(f)]
        rest = expr.func(*[f for f in expr.args if f not in arrays and f not in below])
        text = r" \odot ".join(self._hadamard_factor(f) for f in arrays)
        if below:  # an elementwise fraction
            denominator = self._print(expr.func(*[1 / f for f in below]))
            text = rf"\frac{{{text}}}{{{denominator}}}"
        elif rest != 1 and rest != -1:
            text = rf"\left({text}\right)"
        if rest == 1:
            return text
        return f"- {text}" if rest == -1 else f"{self._print(rest)} {text}"

    def _hadamard_factor(self, expr):
        if expr.is_Add:
            return rf"\left({self._print(expr)}\right)"
        return self._print(expr)


def _is_reciprocal(factor):
    return factor.is_Pow and factor.exp.is_negative


def _spec(spec, show):
    return ", ".join(_index_item(item, show) for item in spec)


def _index_item(item, show):
    """One entry of an index node's spec as NumPy writes it (``1:``, ``::2``, ``0``, ``[0, 2]``);
    ``show`` prints a SymPy value (a size, ``n // 2``; an index the code computes)."""
    kind = item[0]
    if kind in ("int", "at") and isinstance(item[1], sympy.Basic):  # x[n // 2], x[i]
        return show(item[1])
    if kind == "int":
        return str(item[1])
    if kind == "slice":
        start, stop, step = (("" if v is None else show(v) if isinstance(v, sympy.Basic) else
                              str(v)) for v in item[1:])
        return f"{start}:{stop}" + (f":{step}" if step else "")
    if isinstance(item[1], sympy.Basic):  # an index array computed when called
        return show(item[1])
    return item[1].replace("_", "\\_") if item[1] is not None else str(list(item[3]))


def array_latex(program, derivatives):
    """The LaTeX of each derivative of an array ``program`` (None → "").

    Args:
        program: the derivative ``Program`` (its ``arrays`` give the shapes).
        derivatives: the SymPy expressions of its outputs, in the parameters.

    Returns:
        A tuple of str, one per derivative.
    """
    printer = ArrayLatexPrinter(program.arrays.shapes)
    return tuple("" if d is None else printer.doprint(d) for d in derivatives)

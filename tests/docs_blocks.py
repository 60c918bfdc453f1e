"""Generated code pasted in README.md and docs/*.md, regenerated from the code (docs/design.md).

A fenced block is checked when an HTML comment on the line before its fence (invisible when the
Markdown is rendered) says how to make it again:

- ``<!-- file: NAME.py -->`` (a ``python`` block): a piece of the page's file ``NAME.py``. The
  pieces of one name are joined in page order, two blank lines apart, into a file written to a
  temporary folder with the page's other files, so the docstrings of generated code name it and
  its lines (``(model.py, line 8)``). A comment holding lines of code after its first line
  (``<!-- file: model.py`` ... ``-->``) is a piece not shown on the page, such as its imports.
- ``<!-- run: NAME.py -->``: a piece of ``NAME.py`` that is also run, in page order, in one
  namespace per file (so ``tour.py``'s snippets run top to bottom); what it prints is kept.
- ``<!-- output -->``: the block shows what the last run piece printed; each generated function in
  it (a line ``def name(`` and the indented lines after it) must be the one that run printed, in
  order. The other lines (numbers, messages) are not compared. ``<!-- output: exact -->``: every
  line is, as printed (a report whose numbers are the point: ``check_grad``'s).
- ``<!-- commands -->``: a transcript; each line ``$ python -m symgrad ...`` is run (in the page's
  folder, where ``examples/`` is the repository's) and ``$ cat FILE`` prints the file; its
  generated functions are compared as for an output (``<!-- commands: exact -->``: every line).
  ``$ NAME=value`` sets a variable a later line reads as ``$NAME``, and a command ending in
  ``; echo "exit status $?"`` prints its exit status after its output.
- ``<!-- generated: SPEC | SPEC ... -->``: the block is exactly the ``.source`` of each SPEC, a
  blank line apart. SPEC is ``NAME.py:function`` (a file of the page, or of the repository:
  ``examples/spring_chain.py:energy``; a function a call of literals returns:
  ``model.py:make_iterate(2)``) followed by options: ``kind=grad`` (or
  ``value_and_grad``, ``jacobian``, ``hessian``, ``vjp``; ``> options`` differentiates the result
  again: ``f.py:f wrt=x > wrt=x,y`` is ``grad(grad(f, wrt="x"), wrt=("x", "y"))``),
  ``wrt=x,eps`` (one name: that name; several, or ending in a comma: a tuple; digits: an index),
  ``backend=jax``, ``strategy=reverse``, ``stop_gradients=a,b``, ``unconnected=none`` and
  ``shapes=X=n,d;w=d;y=n`` (a scalar: ``t=``); ``specialisation=lazy`` shows
  ``.specialisation("lazy").source``, the code Dask arrays run.

A block whose run or backend needs a library that is not installed (JAX, PyTorch, Dask, the Array
API packages) is skipped, saying which. ``tests/test_docs_blocks.py`` compares every block;
``python tests/regen_docs.py`` rewrites them in place.
"""
import ast
import contextlib
import importlib.util
import io
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = "python tests/regen_docs.py"
_FENCE = re.compile(r"^(\s*)```")
_MARKER = re.compile(r"^<!-- (file|run|output|commands|generated)\b:?\s*(.*?)\s*(-->)?$")
_DEF = re.compile(r"^def \w+\(")
_ASSIGNMENT = re.compile(r"(\w+)=(\S+)")  # a transcript's ``$ F=examples/model.py``
_VARIABLE = re.compile(r"\$(\w+)")
_STATUS = '; echo "exit status $?"'
_OPTIONAL = {"jax": "jax", "torch": "torch", "array_api": "array_api_compat", "dask": "dask"}
_OPTIONAL_MODULES = ("jax", "torch", "dask", "distributed", "array_api_compat",
                     "array_api_strict")


_ROUNDING = re.compile(r"^\s*worst random size .*\(relative error ([0-9.e+-]+) in float64\)$")


def _rounding_kept(shown, printed):
    """``printed`` with each ``check_grad`` line "worst random size ...: name (relative error E in
    float64)" whose E is rounding (at most 1e-13) replaced by the shown line at the same place when
    that one is rounding too: which size is worst, and E, depend on the CPU's BLAS kernels (the
    same seed gave 3.33e-16 at n=6, d=5 on one machine and 4.3e-16 on another)."""
    def rounding(line):
        match = _ROUNDING.match(line)
        return match is not None and float(match.group(1)) <= 1e-13
    kept = list(printed)
    for i, line in enumerate(printed[:len(shown)]):
        if rounding(line) and rounding(shown[i]):
            kept[i] = shown[i]
    return kept


@contextlib.contextmanager
def _cwd(folder):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _printed_only(backend):
    """Build for ``backend`` without importing its library (JAX and PyTorch take seconds to
    import): the generated function is compiled against placeholders and never called; only its
    ``.source`` is read. The library must still be installed (``api`` checks that first)."""
    from symgrad import backends

    if backend not in _OPTIONAL or backend == "dask":
        yield
        return
    namespace = backends.Backend.namespace
    backends.Backend.namespace = lambda self: dict.fromkeys(self.bound())
    try:
        yield
    finally:
        backends.Backend.namespace = namespace


def pages():
    """The Markdown files checked: README.md and docs/*.md, as paths relative to the root."""
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
    return ["README.md"] + [os.path.join("docs", n) for n in names]


class Block:
    """One fenced block with its marker: ``kind`` is file, run, output or generated (or hidden:
    a piece of a file given inside the comment); ``body`` its lines; ``start``, ``stop`` the
    indices (0-based, in the page's lines) of its first line and of its closing fence."""

    def __init__(self, kind, argument, body, start, stop):
        self.kind, self.argument, self.body = kind, argument, body
        self.start, self.stop = start, stop

    @property
    def line(self):
        return self.start + 1


def parse(text):
    """The marked blocks of a page's text, in order. Raises ValueError for a marker not followed by
    a fence, or a fence left open."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = _MARKER.match(lines[i])
        if not m:
            if _FENCE.match(lines[i]):  # an unmarked block: skip to its closing fence
                i = _close(lines, i) + 1
            else:
                i += 1
            continue
        kind, argument, closed = m.group(1), m.group(2), m.group(3)
        if not closed:  # a hidden piece: the comment's lines up to -->
            j = i + 1
            while lines[j].strip() != "-->":
                j += 1
            blocks.append(Block("hidden", argument, lines[i + 1:j], i + 1, j))
            i = j + 1
            continue
        if i + 1 >= len(lines) or not _FENCE.match(lines[i + 1]):
            raise ValueError(f"line {i + 1}: the marker {lines[i]!r} must be followed by a fence")
        stop = _close(lines, i + 1)
        blocks.append(Block(kind, argument, lines[i + 2:stop], i + 2, stop))
        i = stop + 1
    return blocks


def _close(lines, i):
    for j in range(i + 1, len(lines)):
        if lines[j].strip() == "```":
            return j
    raise ValueError(f"line {i + 1}: the fence is never closed")


def segments(lines):
    """The generated functions in printed output: each ``def`` line at column 0 and the lines after
    it that are indented (a blank line belongs to it when an indented line follows)."""
    found, i = [], 0
    while i < len(lines):
        if not _DEF.match(lines[i]):
            i += 1
            continue
        j = i + 1
        while j < len(lines):
            if lines[j].startswith((" ", "\t")):
                j += 1
            elif lines[j] == "" and j + 1 < len(lines) and lines[j + 1].startswith((" ", "\t")):
                j += 1
            else:
                break
        found.append((i, j))
        i = j
    return found


def _value_list(text):
    items = [item for item in text.split(",") if item]
    values = tuple(int(item) if item.isdigit() else item for item in items)
    return values[0] if len(values) == 1 and not text.endswith(",") else values


def parse_spec(spec):
    """``NAME.py:function key=value ... > key=value ...`` -> (file, function, stages): one
    (kind, options for ``symgrad``) per stage, each stage differentiating the one before."""
    target, _, rest = spec.strip().partition(" ")
    file, _, function = target.partition(":")
    return file, function, [_stage(text, spec) for text in rest.split(">")]


def _stage(text, spec):
    kind, options = "grad", {}
    for word in text.split():
        key, _, value = word.partition("=")
        if key == "kind":
            kind = value
        elif key == "wrt":
            options["wrt"] = _value_list(value)
        elif key == "stop_gradients":
            options["stop_gradients"] = tuple(v for v in value.split(",") if v)
        elif key == "shapes":
            shapes = {}
            for part in value.split(";"):
                name, _, dims = part.partition("=")
                shapes[name] = tuple(int(d) if d.isdigit() else d for d in dims.split(",") if d)
            options["shapes"] = shapes
        elif key in ("backend", "strategy", "unconnected", "specialisation"):
            options[key] = value
        else:
            raise ValueError(f"unknown option {key!r} in {spec!r}")
    return kind, options


def _missing(stages):
    for _, options in stages:
        backend = options.get("backend")
        module = _OPTIONAL.get(backend)
        if module and importlib.util.find_spec(module) is None:
            return f"backend {backend!r} needs {module}, which is not installed"
    return None


class Page:
    """Runs one page's pieces and regenerates its marked blocks.

    ``results()`` gives, per checked block (output or generated), ``(block, expected, reason)``:
    ``expected`` the block's lines as the code makes them now, or None with ``reason`` saying why
    it was skipped."""

    def __init__(self, path, text=None):
        self.path = path
        if text is None:
            with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
                text = handle.read()
        self.text = text
        self.blocks = parse(text)

    def results(self):
        import symgrad  # after the caller has set SYMGRAD_CACHE_DIR

        folder = tempfile.mkdtemp(prefix="symgrad-docs-")
        files, offsets = {}, {}
        for block in self.blocks:
            if block.kind in ("file", "run", "hidden"):
                pieces = files.setdefault(block.argument, [])
                offsets[id(block)] = sum(len(p) + 2 for p in pieces)
                pieces.append(list(block.body))
        for name, pieces in files.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write("\n\n\n".join("\n".join(p) for p in pieces) + "\n")
        namespaces, modules, out, skipped, results = {}, {}, None, {}, []
        saved_path, saved_modules = list(sys.path), set(sys.modules)
        stems = {os.path.splitext(name)[0] for name in files}  # another ``model`` may be loaded
        shadowed = {stem: sys.modules.pop(stem) for stem in stems if stem in sys.modules}
        sys.path.insert(0, folder)
        try:
            for block in self.blocks:
                if block.kind == "run":
                    name = block.argument
                    namespace = namespaces.setdefault(
                        name, {"__name__": "__main__", "__file__": os.path.join(folder, name)})
                    if name in skipped:
                        out = None
                        continue
                    padded = "\n" * offsets[id(block)] + "\n".join(block.body) + "\n"
                    buffer = io.StringIO()
                    try:
                        with contextlib.redirect_stdout(buffer), _cwd(folder):
                            exec(compile(padded, os.path.join(folder, name), "exec"), namespace)
                    except ModuleNotFoundError as error:
                        if error.name not in _OPTIONAL_MODULES:
                            raise
                        skipped[name] = f"{name} needs {error.name}, which is not installed"
                        out = None
                        continue
                    except Exception as error:
                        raise RuntimeError(f"{self.path}:{block.line}: running this piece of "
                                           f"{name} raised {error!r}") from error
                    out = (name, buffer.getvalue().split("\n"))
                elif block.kind == "output":
                    if out is None:
                        reason = next(iter(skipped.values()), "no run piece before this output")
                        results.append((block, None, reason))
                        continue
                    results.append((block, self._output(block, out), None))
                elif block.kind == "commands":
                    printed = self._commands(block, folder)
                    results.append((block, self._output(block, ("the commands", printed)), None))
                elif block.kind == "generated":
                    reason, sources = None, []
                    for spec in block.argument.split(" | "):
                        file, function, stages = parse_spec(spec)
                        reason = _missing(stages)
                        if reason:
                            break
                        name, _, call = function.partition("(")
                        if file in namespaces:
                            f = namespaces[file][name]
                        else:
                            f = getattr(self._module(modules, folder, file), name)
                        if call:  # a closure: make_iterate(2)
                            f = f(*ast.literal_eval("(" + call[:-1] + ",)"))
                        for kind, options in stages:
                            options = dict(options)
                            specialisation = options.pop("specialisation", None)
                            with _printed_only(options.get("backend")):
                                f = getattr(symgrad, kind)(f, cache=False, **options)
                            if specialisation:  # the lazy code Dask arrays run
                                f = f.specialisation(specialisation)
                        sources.append(f.source.strip("\n"))
                    expected = None if reason else "\n\n".join(sources).split("\n")
                    results.append((block, expected, reason))
        finally:
            sys.path[:] = saved_path
            for name in set(sys.modules) - saved_modules | stems:
                module = sys.modules.get(name)
                if os.path.dirname(getattr(module, "__file__", None) or "") == folder:
                    del sys.modules[name]
            sys.modules.update(shadowed)
        return results

    def _commands(self, block, folder):
        from symgrad import cli

        if not os.path.exists(os.path.join(folder, "examples")):
            os.symlink(os.path.join(ROOT, "examples"), os.path.join(folder, "examples"))
        printed, variables = [], {}
        for line in block.body:
            if not line.startswith("$ "):
                continue
            printed.append(line)
            assignment = _ASSIGNMENT.fullmatch(line[2:])
            if assignment:
                variables[assignment.group(1)] = assignment.group(2)
                continue
            command, status = line[2:], line.endswith(_STATUS)
            command = command[:-len(_STATUS)] if status else command
            words = [_VARIABLE.sub(lambda m: variables[m.group(1)], w) for w in command.split()]
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), \
                    _cwd(folder):
                if words[:3] == ["python", "-m", "symgrad"]:
                    code = cli.main(words[3:])
                elif words[0] == "cat" and len(words) == 2:
                    with open(words[1], encoding="utf-8") as handle:
                        buffer.write(handle.read())
                    code = 0
                else:
                    raise ValueError(f"{self.path}:{block.line}: cannot run {line!r}")
            printed += buffer.getvalue().rstrip("\n").split("\n")
            if status:
                printed.append(f"exit status {code}")
        return printed

    def _module(self, modules, folder, file):
        if file not in modules:
            name = os.path.splitext(os.path.basename(file))[0]
            path = os.path.join(folder, file)
            if not os.path.exists(path):  # a file of the repository: examples/spring_chain.py
                path, name = os.path.join(ROOT, file), "docs_" + name
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            modules[file] = module
        return modules[file]

    def _output(self, block, out):
        """What an output block must show: the run's printed lines (``exact``), or the block's
        own lines with the generated functions the run printed (``_merge``)."""
        if block.argument not in ("", "exact"):
            raise ValueError(f"{self.path}:{block.line}: an output is `<!-- output -->` or "
                             f"`<!-- output: exact -->`, not {block.argument!r}")
        if block.argument == "exact":
            printed = out[1]
            return _rounding_kept(block.body, printed[:-1] if printed[-1:] == [""] else printed)
        return self._merge(block, out)

    def _merge(self, block, out):
        """The block's lines with each generated function replaced by the one the run printed.
        Raises ValueError when the run printed another number of functions."""
        name, printed = out
        old, new = segments(block.body), segments(printed)
        if len(old) != len(new):
            raise ValueError(f"{self.path}:{block.line}: the block shows {len(old)} generated "
                             f"functions, the run of {name} printed {len(new)}")
        lines, last = [], 0
        for (i, j), (k, m) in zip(old, new):
            lines += block.body[last:i] + printed[k:m]
            last = j
        return lines + block.body[last:]

    def regenerate(self):
        """The page's text with every checked block as the code makes it now (skipped blocks kept),
        and the list of skip reasons."""
        lines = self.text.split("\n")
        reasons = []
        for block, expected, reason in reversed(self.results()):
            if expected is None:
                reasons.append(f"{self.path}:{block.line}: {reason}")
            else:
                lines[block.start:block.stop] = expected
        return "\n".join(lines), reasons[::-1]

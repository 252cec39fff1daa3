"""Writing numpy code for a graph (chapter 21).

``generate(gm)`` turns an op-level graph whose nodes carry their values'
``meta["val"]`` (shapes and dtypes) into the source of one Python function:

* a value is a numpy array (a tensor's ``_data``), named after its node;
* an op with a *lowering* becomes one numpy expression (``np.matmul(a, b)``,
  ``a.reshape(...)``, ``np.add(a, b)``), any other op a call of minitorch's own op
  (``_call``), its arguments wrapped as tensors: the generated code never needs
  to know every op;
* a few ops that a GPT spends its time in get the backend's own numpy functions
  instead (GELU with its slope, attention, an embedding's gradient, a ``cat`` of
  copies): they do the same work with fewer passes over memory;
* an elementwise op writes into one of its inputs when that input is a buffer this
  code made and nothing reads afterwards (``_Storage`` tracks who may still read
  a buffer, views included): a chain of them then needs no new memory at all;
* such a chain becomes a *kernel*, a function that runs the whole chain on one
  block of rows at a time, so the block stays in the CPU's cache between ops.
"""

import operator

import numpy as np

from .._tensor import Tensor
from ..ops import aten

__all__ = ["generate"]

# Elementwise ops: the numpy ufunc, and how the op's arguments map to its inputs.
_UFUNCS = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
           "add_scalar": "add", "mul_scalar": "multiply", "div_scalar": "divide",
           "sub_scalar": "subtract", "neg": "negative", "exp": "exp", "log": "log",
           "tanh": "tanh", "sqrt": "sqrt", "abs": "absolute", "maximum": "maximum",
           "minimum": "minimum", "reciprocal": "reciprocal", "sin": "sin", "cos": "cos",
           "relu": "maximum", "pow_scalar": "power", "log1p": "log1p", "expm1": "expm1"}
_BLOCK = 1 << 15          # elements per block of a kernel
_BLOCKED_FROM = 1 << 17   # kernels on fewer elements run in one go


def _op_name(node):
    t = node.target
    return t.__name__ if type(t) is aten.Op else None


def _val(node):
    return node.meta.get("val") if hasattr(node, "meta") else None


def _is_float_tensor(x):
    return isinstance(x, Tensor) and x._data.dtype.kind == "f"


def _elementwise(node):
    """Is this node an elementwise op on float tensors that the code can write itself?"""
    name = _op_name(node)
    if name not in _UFUNCS or not _is_float_tensor(_val(node)):
        return False
    out = _val(node)._data.dtype
    for a in node.args:
        if hasattr(a, "op"):
            v = _val(a)
            if not _is_float_tensor(v) or v._data.dtype != out:
                return False
        elif not isinstance(a, (int, float)) or isinstance(a, bool):
            return False
    return True


class _Storage:
    """Which buffer each value lives in, and the last node that reads each buffer
    (through any value that lives in it)."""

    FRESH = ("mm", "bmm", "matmul", "cat", "sum", "sum_dim", "mean", "mean_dim",
             "clone", "embedding")
    VIEWS = ("view", "reshape", "transpose", "permute", "expand", "unsqueeze", "squeeze",
             "t", "detach", "alias", "array_of", "split", "unsafe_view")

    def __init__(self, nodes):
        self.of = {}                # node -> storage id
        self.fresh = set()          # storages this code allocated
        self.last_read = {}         # storage -> index of the last node reading it
        self.escapes = set()        # storages that leave the function
        for i, node in enumerate(nodes):
            name = _op_name(node)
            source = next((a for a in node.args if hasattr(a, "op")), None)
            if node.op == "call_function" and (name in self.VIEWS or
                                               node.target is operator.getitem and
                                               _op_name(source) == "split"):
                self.of[node] = self.of.get(source, source)
            else:
                self.of[node] = node
                if node.op == "call_function" and (name in self.FRESH or _elementwise(node)):
                    self.fresh.add(node)
        for i, node in enumerate(nodes):
            for a in node.all_input_nodes:
                storage = self.of.get(a, a)
                if node.op == "output":
                    self.escapes.add(storage)
                self.last_read[storage] = i

    def writable_input(self, node, index):
        """An input of ``node`` whose buffer it may overwrite: made here, the input's own
        buffer (not a view's), read by nothing after ``node``, not returned."""
        out = _val(node)._data
        for a in node.args:
            if not hasattr(a, "op"):
                continue
            storage = self.of.get(a)
            if storage is a and a in self.fresh and storage not in self.escapes and \
                    self.last_read.get(storage) == index:
                v = _val(a)._data
                if v.shape == out.shape and v.dtype == out.dtype:
                    return a
        return None

    def dead_buffer(self, a, index, like):
        """Is ``a`` all of a buffer this code made, read by nothing after node ``index``,
        not returned, with ``like``'s shape and dtype?  Then an op may write its result
        into ``a`` (``out=``) instead of into new memory.  ``a`` may be a reshaped view
        of the buffer (a matrix product's result seen with a batch's shape)."""
        if not hasattr(a, "op"):
            return False
        storage = self.of.get(a)
        if storage not in self.fresh or storage in self.escapes or \
                self.last_read.get(storage) != index:
            return False
        v = _val(a)._data
        if v.shape != like.shape or v.dtype != like.dtype:
            return False
        while a is not storage:         # reshapes only: every element once, in order
            if _op_name(a) not in ("view", "reshape", "unsafe_view"):
                return False
            a = a.args[0]
        return True


class _Writer:
    def __init__(self, gm):
        self.gm = gm
        self.nodes = list(gm.graph.nodes)
        self.storage = _Storage(self.nodes)
        self.globals = {"np": np, "T": Tensor._wrap, "_call": _call}
        self.names = {}
        self.lines, self.kernels = [], []
        self.done = set()
        self._freed = set()
        self.already_transposed = set()

    # ----- names and argument text ---------------------------------------------------------
    def expr(self, a):
        if hasattr(a, "op"):
            return self.names[a]
        if isinstance(a, tuple):
            return "(" + "".join(self.expr(x) + ", " for x in a) + ")"
        if isinstance(a, list):
            return "[" + ", ".join(self.expr(x) for x in a) + "]"
        if a is None or isinstance(a, (bool, int, str)):
            return repr(a)
        if isinstance(a, float):
            return repr(a) if np.isfinite(a) else f"float({str(a)!r})"
        return self.constant(a)

    def tensor_expr(self, a):
        """An argument of one of minitorch's ops: tensor values as tensors again."""
        if hasattr(a, "op"):
            return f"T({self.names[a]})" if isinstance(_val(a), Tensor) else self.names[a]
        if isinstance(a, (tuple, list)) and any(hasattr(x, "op") for x in a):
            inner = ", ".join(self.tensor_expr(x) for x in a)
            return f"({inner},)" if isinstance(a, tuple) else f"[{inner}]"
        return self.expr(a)

    def constant(self, value, hint="const"):
        name = f"_{hint}{len(self.globals)}"
        self.globals[name] = value
        return name

    def global_op(self, target):
        name = repr(target).replace("minitorch.ops.aten.", "aten_").replace(".", "_")
        self.globals[name] = target
        return name

    # ----- the function -----------------------------------------------------------------
    def write(self):
        """``def call(args)``: the inputs come in a list that the function empties, so
        that each input can be freed after its last use (``del``), as the values made
        inside are."""
        params = []
        self.last_use = {}
        for i, node in enumerate(self.nodes):
            for a in node.all_input_nodes:
                self.last_use[a] = i
        self._copies_into_cats()
        for node in self.nodes:
            if node.op == "placeholder":
                params.append(node.name)
                self.names[node] = node.name
        if params:
            self.lines.append(f"{', '.join(params)}, = args")
            self.lines.append("args.clear()")
        for node in self.nodes:
            if node.op == "placeholder" and isinstance(_val(node), Tensor):
                self.lines.append(f"{node.name} = {node.name}._data")
        for i, node in enumerate(self.nodes):
            if node.op == "placeholder" or node in self.done:
                continue
            before = len(self.lines)
            if node.op == "get_attr":
                value = self.gm
                for atom in node.target.split("."):
                    value = getattr(value, atom)
                self.names[node] = self.constant(
                    value._data if isinstance(value, Tensor) else value, "c")
            elif node.op == "output":
                self.lines.append("return (" + "".join(
                    self._returned(a) + ", " for a in node.args[0]) + ")")
            elif _elementwise(node):
                self._chain(i, node)
            else:
                self._statement(node)
            if node.op != "output" and len(self.lines) > before:
                self._free_after(i, node)
        body = "\n".join("    " + line for line in self.lines)
        kernels = "".join(k + "\n\n" for k in self.kernels)
        return f"{kernels}def call(args):\n{body}\n", self.globals

    def _copies_into_cats(self):
        """A ``cat`` along the last dim whose parts are each ``view(clone(x))``, read by
        nothing else (attention's q, k, v gradients, heads merged back): each ``x`` is
        copied once, straight into its place in the result (``cat_last``), instead of
        into a clone and then again into the result."""
        self.cat_parts = {}
        for node in self.nodes:
            parts = _cat_sources(node)
            if parts is None:
                continue
            self.cat_parts[node] = parts
            index = self.nodes.index(node)
            for view in node.args[1:]:
                self.done.update((view, view.args[0]))      # written by the cat
            for source in parts:
                self.last_use[source] = max(self.last_use[source], index)

    def _free_after(self, i, node):
        """``del`` the values whose last reader was just written (the chain it started
        included), so that their memory can be reused at once."""
        covered = {i} | {self.nodes.index(n) for n in self.done if n in self.names or
                         n.users and self.nodes.index(n) >= i}
        dead = [a for a, last in self.last_use.items()
                if last in covered and a in self.names and a.op != "get_attr" and
                not self.names[a].startswith("_") and a not in self._freed]
        if not node.users and node in self.names:
            dead.append(node)
        dead = [a for a in dict.fromkeys(dead) if a not in self._freed]
        if dead:
            self._freed.update(dead)
            self.lines[-1] += f";  del {', '.join(self.names[a] for a in dead)}"

    def _returned(self, a):
        if a is None:
            return "None"
        name = self.expr(a)
        return f"T({name})" if isinstance(_val(a), Tensor) else name

    # ----- one op ----------------------------------------------------------------------------
    def _statement(self, node):
        name = node.name
        self.names[node] = name
        code = self._lowering(node)
        if code is None:
            args = ", ".join(self.tensor_expr(a) for a in node.args)
            kwargs = "".join(f", {k}={self.expr(v)}" for k, v in node.kwargs.items())
            comma = "," if len(node.args) == 1 else ""
            code = f"_call({self.global_op(node.target)}, ({args}{comma}){kwargs})"
            code += f"  # {node.target!r}"
        self.lines.append(f"{name} = {code}")

    def _lowering(self, node):
        """A numpy expression for the node, or None (then minitorch's op is called)."""
        if node.target is operator.getitem:
            return f"{self.expr(node.args[0])}[{node.args[1]!r}]"
        if node in self.cat_parts:
            self.globals["cat_last"] = _cat_last
            parts = self.cat_parts[node]
            trailing = tuple(_val(parts[0]).shape)[_val(node).ndim - 1:]
            return f"cat_last([{', '.join(self.expr(x) for x in parts)}], {trailing!r})"
        special = self._gelu(node) or self._attention(node) or \
            self._embedding_backward(node)
        if special is not None:
            return special
        name = _op_name(node) or (node.target.__name__ if isinstance(node.target, aten.MethodOp)
                                  else None)
        val = _val(node)
        a = [self.expr(x) for x in node.args]
        if name in ("detach", "alias", "array_of"):
            return a[0]
        if not isinstance(val, Tensor) and name != "split":
            return None
        shape = tuple(val.shape) if isinstance(val, Tensor) else None
        if name in ("mm", "bmm", "matmul"):
            return self._product(node, a)
        if name == "relu_grad" and val._data.dtype.kind == "f":
            return f"np.multiply({a[0]}, {a[1]} > 0{self._into(node, node.args[0], val._data)})"
        if name in ("view", "unsafe_view", "reshape", "unsqueeze", "squeeze"):
            return f"{a[0]}.reshape({shape!r})"
        if node in self.already_transposed:
            return a[0]                     # the product was computed transposed
        if name == "transpose":
            return f"np.swapaxes({a[0]}, {a[1]}, {a[2]})"
        if name == "t":
            return f"{a[0]}.T"
        if name == "permute":
            return f"{a[0]}.transpose({a[1]})"
        if name == "expand":
            return f"np.broadcast_to({a[0]}, {shape!r})"
        if name == "clone":
            return f"{a[0]}.copy()"
        if name == "sum" and val._data.dtype.kind == "f":
            return f"np.asarray({a[0]}.sum(), dtype={a[0]}.dtype)"
        if name == "sum_dim" and val._data.dtype.kind == "f":
            return f"{a[0]}.sum(axis={node.args[1]!r}, keepdims={node.args[2]!r})"
        if name == "split":
            return self._split(node, a[0])
        if name == "cat":
            return f"np.concatenate([{', '.join(a[1:])}], axis={node.args[0]!r})"
        return None

    def _product(self, node, a):
        """``np.matmul``; when the product's only reader transposes it (a weight's
        gradient, ``(x.T @ g).T``), the transposed product instead (``g.T @ x``): the
        same numbers, stored row by row as the weight is."""
        users = list(node.users)
        if len(users) == 1 and node.target.__name__ == "mm" and _op_name(users[0]) in \
                ("transpose", "t") and users[0].args[1:] in ((), (0, 1), (1, 0)):
            self.already_transposed.add(users[0])
            return f"np.matmul({a[1]}.T, {a[0]}.T)"
        return f"np.matmul({a[0]}, {a[1]})"

    def _gelu(self, node):
        """GELU with its context: minitorch's own kernel, which computes the slope that
        the backward multiplies by, so the context *is* the slope."""
        target = node.target
        if type(target) is aten.WithCtx and target.op.__name__ == "gelu" and \
                node.args[1] == "none" and _is_float_tensor(_val(node.args[0])):
            self.globals["gelu_and_slope"] = _gelu_and_slope
            return f"gelu_and_slope({self.expr(node.args[0])})"
        if type(target) is aten.OpBackward and target.op.__name__ == "gelu" and \
                _gelu_slope_of(node.args[0]):
            grad = node.args[1]
            into = self._into(node, grad, _val(grad)._data) if _is_float_tensor(_val(grad)) \
                else ""
            return f"(np.multiply({self.expr(grad)}, {self.expr(node.args[0])}{into}), None)"
        return None

    def _attention(self, node):
        """Scaled dot-product attention without dropout or grouped heads: the backend's
        own kernels (``attention_and_saved``, ``attention_backward``), whose context is
        the dense query, key and value and the weights, so that the backward copies
        nothing again, and whose row reductions are faster on short rows (maximum by
        halves, sums by ``np.einsum``)."""
        target = node.target
        if type(target) is aten.WithCtx and _plain_attention(node):
            self.globals["attention_and_saved"] = _attention_and_saved
            q, k, v, bias, _, scale, _ = (self.expr(a) for a in node.args)
            needs = tuple(node.kwargs.get("needs", ()))[:3]
            return f"attention_and_saved({q}, {k}, {v}, {bias}, {scale}, {needs!r})"
        if type(target) is aten.OpBackward and target.op.__name__ == \
                "scaled_dot_product_attention" and _attention_saved_by_us(node.args[0]):
            self.globals["attention_backward"] = _attention_backward
            return f"attention_backward({self.expr(node.args[0])}, {self.expr(node.args[1])})"
        return None

    def _embedding_backward(self, node):
        """An embedding's gradient for its table: eager's row sums (``add_rows``) called on
        the arrays (``embedding_rows_backward``), without the op's dispatch."""
        target = node.target
        if type(target) is aten.OpBackward and target.op.__name__ == "embedding" and \
                len(node.args) == 2 and _is_float_tensor(_val(node.args[1])):
            self.globals["embedding_rows_backward"] = _embedding_rows_backward
            return f"embedding_rows_backward({self.expr(node.args[0])}, " \
                f"{self.expr(node.args[1])})"
        return None

    def _into(self, node, a, like):
        """``, out=a`` when ``node`` may write its result into ``a``'s memory (a gradient
        that nothing reads afterwards): the same values, no new buffer."""
        if self.storage.dead_buffer(a, self.nodes.index(node), like):
            return f", out={self.expr(a)}"
        return ""

    def _split(self, node, a):
        source = _val(node.args[0]).shape
        dim = node.args[2] % len(source)
        sizes = node.args[1]
        if isinstance(sizes, int):
            sizes = [sizes] * ((source[dim] + sizes - 1) // sizes)
        edges, total = [], 0
        for s in sizes[:-1]:
            total += s
            edges.append(total)
        return f"tuple(np.split({a}, {edges!r}, axis={dim}))"

    # ----- elementwise chains: fused into a kernel ------------------------------------------------
    def _chain(self, i, node):
        """``node`` and the elementwise nodes after it that each overwrite the one before:
        one kernel."""
        chain = [node]
        while True:
            nxt = self._next_in_chain(chain[-1], i)
            if nxt is None:
                break
            chain.append(nxt)
        for n in chain:
            self.done.add(n)
        out = self.storage.writable_input(node, i)
        if len(chain) == 1:
            self._single(node, out)
        else:
            self._kernel(chain, out)

    def _next_in_chain(self, node, start):
        """The node that continues the chain after ``node``, or None.  The kernel is
        written where the chain starts (node ``start``), so each of its other inputs
        must be computed before that."""
        users = list(node.users)
        if len(users) != 1 or not _elementwise(users[0]):
            return None
        user = users[0]
        j = self.nodes.index(user)
        if self.storage.writable_input(user, j) is not node:
            return None
        if any(n.op != "placeholder" and n not in self.done and self.nodes.index(n) > start
               for n in user.all_input_nodes if n is not node):
            return None          # another input is computed after the chain's start
        return user

    def _call_text(self, node, inputs, out):
        """The ufunc call for ``node``; ``inputs`` maps its node arguments to text."""
        name = _op_name(node)
        ufunc = f"np.{_UFUNCS[name]}"
        args = [inputs.get(a, None) if hasattr(a, "op") else repr(a) for a in node.args]
        if name == "relu":
            args = args + ["0.0"]
        if name == "pow_scalar" and node.args[1] == 2:
            ufunc, args = "np.square", args[:1]
        tail = f", out={out}" if out else ""
        return f"{ufunc}({', '.join(args)}{tail})"

    def _single(self, node, out):
        self.names[node] = node.name
        inputs = {a: self.names[a] for a in node.all_input_nodes}
        target = self.names[out] if out is not None else None
        self.lines.append(f"{node.name} = {self._call_text(node, inputs, target)}")

    def _kernel(self, chain, out):
        """A function that runs the chain block by block into one buffer."""
        k = len(self.kernels)
        for n in chain:
            n.meta["kernel"] = f"kernel{k}"     # for pictures: draw_fx boxes each kernel
        last = chain[-1]
        val = _val(last)._data
        external = []
        for n in chain:
            for a in n.all_input_nodes:
                if a not in chain and a not in external:
                    external.append(a)
        names = {a: f"in{j}" for j, a in enumerate(external)}
        blocked = val.ndim >= 1 and val.size >= _BLOCKED_FROM and val.shape[0] > 1

        def piece(a):
            v = _val(a)._data
            if blocked and v.ndim == val.ndim and v.shape[0] == val.shape[0]:
                return f"{names[a]}[b]"
            return names[a]
        body, buf = [], "buf[b]" if blocked else "buf"
        for j, n in enumerate(chain):
            inputs = {a: piece(a) for a in n.all_input_nodes if a not in chain}
            if j > 0:
                inputs[chain[j - 1]] = buf
            body.append(self._call_text(n, inputs, buf))
        ops = ", ".join(_op_name(n) for n in chain)
        lines = [f"def kernel{k}(buf, {', '.join(names[a] for a in external)}):",
                 f"    # {ops}, in one buffer" + (" in blocks of rows" if blocked else "")]
        if blocked:
            rows = max(1, _BLOCK // max(1, val.size // val.shape[0]))
            lines.append(f"    for start in range(0, {val.shape[0]}, {rows}):")
            lines.append(f"        b = slice(start, start + {rows})")
            lines += ["        " + line for line in body]
        else:
            lines += ["    " + line for line in body]
        lines.append("    return buf")
        self.kernels.append("\n".join(lines))
        self.globals[f"kernel{k}"] = None       # filled in when the source runs
        if out is not None:
            buffer = self.names[out]
        else:
            buffer = f"np.empty({val.shape!r}, dtype=np.{val.dtype.name})"
        args = ", ".join(self.names[a] for a in external)
        self.names[last] = last.name
        self.lines.append(f"{last.name} = kernel{k}({buffer}, {args})")


def _gelu_and_slope(x):
    from ..nn._functions.activation import gelu_and_slope_arrays
    return gelu_and_slope_arrays(x)


def _gelu_slope_of(node):
    """Is ``node`` the context of a GELU lowered to ``gelu_and_slope`` (in this graph, or
    saved by a forward graph that lowered it: a placeholder whose value is GELU's node
    with its slope kept)?"""
    if node.op == "placeholder":
        ctx = _val(node)
        return getattr(ctx, "approximate", None) == "none" and \
            getattr(ctx, "slope", None) is not None
    if node.target is not operator.getitem:
        return False
    source = node.args[0]
    return type(source.target) is aten.WithCtx and source.target.op.__name__ == "gelu" \
        and source.args[1] == "none"


def _plain_attention(node):
    """Is ``node`` attention ``with_ctx`` on float arrays of one dtype, without dropout's
    mask and with one key head per query head (what ``_attention_and_saved`` does)?"""
    target = node.target
    if type(target) is not aten.WithCtx or target.op.__name__ != \
            "scaled_dot_product_attention" or len(node.args) != 7:
        return False
    q, k, v, bias, keep, _, groups = node.args
    values = [_val(a) for a in (q, k, v)]
    return keep is None and groups == 1 and all(_is_float_tensor(x) for x in values) and \
        len({x._data.dtype for x in values}) == 1 and \
        (bias is None or isinstance(bias, np.ndarray))


def _attention_saved_by_us(node):
    """Is ``node`` the context of an attention that ``_attention`` lowered (in this graph,
    or saved by the forward graph: a placeholder whose traced value is attention's
    autograd node, without dropout or grouped heads)?"""
    if node.op == "placeholder":
        ctx = _val(node)
        return getattr(ctx, "keep", 0) is None and getattr(ctx, "groups", 0) == 1 and \
            getattr(ctx, "weights", None) is not None and \
            getattr(ctx, "weights").dtype.kind == "f"
    return node.target is operator.getitem and _plain_attention(node.args[0])


def _row_max(scores):
    """The maximum of each row (last dim), kept as a column: the two halves of the rows
    compared elementwise, again and again.  Exactly ``scores.max(-1, keepdims=True)``
    (a maximum does not round), in a few wide passes instead of one reduction per row
    of a few dozen numbers, which numpy does slowly."""
    top = scores
    while top.shape[-1] > 1:
        half = top.shape[-1] // 2
        pairs = np.maximum(top[..., :half], top[..., half:2 * half])
        if top.shape[-1] % 2:
            np.maximum(pairs[..., :1], top[..., -1:], out=pairs[..., :1])
        top = pairs
    return top


def _attention_and_saved(query, key, value, bias, scale, needs):
    """``softmax(q k^T * scale + bias) @ v`` and what its backward needs: the operations
    of ``attention_weights`` (chapter 15), with the row maximum of ``_row_max`` and the
    row sums of ``np.einsum`` (the same sums, added in another order)."""
    from ..nn._functions.attention import _dense
    q, k, v = _dense(query), _dense(key), _dense(value)
    scores = np.matmul(q * q.dtype.type(scale), np.swapaxes(k, -1, -2))
    if bias is not None:
        scores += bias
    top = _row_max(scores)
    if bias is not None:
        top[~np.isfinite(top)] = 0
    np.subtract(scores, top, out=scores)
    np.exp(scores, out=scores)
    total = np.einsum("...j->...", scores)[..., None]     # faster than .sum(-1) on short rows
    if bias is not None:
        total[total == 0] = 1
    scores /= total
    saved = (q, k, v, scores, scale, needs, query.shape, key.shape, value.shape)
    return np.matmul(scores, v), saved


def _attention_backward(saved, grad):
    """The gradients of query, key and value from ``_attention_and_saved``'s context: the
    operations of ``ScaledDotProductAttention.backward_on_arrays`` without dropout or
    grouped heads, on the dense arrays the forward already made, the rows' dot products
    by ``np.einsum``."""
    from ..nn._functions.attention import _dense, _fit
    if not isinstance(saved, tuple):        # attention's own context: its own backward
        return _call(aten.lookup("scaled_dot_product_attention").backward,
                     (saved, Tensor._wrap(grad)))
    q, k, v, weights, scale, needs, q_shape, k_shape, v_shape = saved
    need_q, need_k, need_v = (tuple(needs) + (True,) * 3)[:3]
    grad = _dense(grad)
    grad_q = grad_k = grad_v = None
    if need_v:
        grad_v = _fit(np.matmul(np.swapaxes(weights, -1, -2), grad), v_shape)
    if need_q or need_k:
        d = np.matmul(grad, np.swapaxes(v, -1, -2))
        d -= np.einsum("...j,...j->...", d, weights)[..., None]     # rows' dot products
        d *= weights
        d *= d.dtype.type(scale)
        if need_q:
            grad_q = _fit(np.matmul(d, k), q_shape)
        if need_k:
            grad_k = _fit(np.matmul(np.swapaxes(d, -1, -2), q), k_shape)
    return grad_q, grad_k, grad_v, None, None, None, None


def _embedding_rows_backward(ctx, grad):
    """``Embedding.backward_on_arrays`` (chapter 11) called directly on the arrays: the
    rows summed by index with ``add_rows`` (eager's bits, without a node's dispatch)."""
    from ..nn._functions.normalization import _scatter_rows
    indices, = ctx.saved_arrays
    return _scatter_rows(grad, indices, ctx.n_rows, ctx.padding_idx, ctx.by_freq), \
        None, None, None


def _cat_sources(node):
    """For a ``cat`` along the last dim of ``view(clone(x))`` parts (each read only by
    the cat, each ``x`` the part with its last dim split, all of one shape and float
    dtype): the ``x``; otherwise None."""
    if _op_name(node) != "cat" or not _is_float_tensor(_val(node)):
        return None
    out = _val(node)._data
    dim, views = node.args[0], node.args[1:]
    if dim % out.ndim != out.ndim - 1 or len(set(views)) != len(views) or not views:
        return None
    sources = []
    for view in views:
        clone = view.args[0] if _op_name(view) == "view" else None
        if clone is None or _op_name(clone) != "clone" or len(view.users) != 1 or \
                len(clone.users) != 1 or len(clone.args) != 1:
            return None
        x, v = _val(clone.args[0]), _val(view)._data
        if not _is_float_tensor(x) or x._data.dtype != out.dtype or \
                x._data.shape[:out.ndim - 1] != v.shape[:-1] or \
                int(np.prod(x._data.shape[out.ndim - 1:])) != v.shape[-1]:
            return None
        sources.append(clone.args[0])
    if len({_val(x)._data.shape for x in sources}) != 1:
        return None
    return sources


def _cat_last(parts, trailing):
    """The parts (each ``lead + trailing``) side by side along a last dim of
    ``len(parts) * prod(trailing)``: each copied once into its place."""
    lead = parts[0].shape[:parts[0].ndim - len(trailing)]
    out = np.empty(lead + (len(parts),) + tuple(trailing), dtype=parts[0].dtype)
    for i, part in enumerate(parts):
        out[(slice(None),) * len(lead) + (i,)] = part
    return out.reshape(lead + (-1,))


def _call(op, args, **kwargs):
    """Call one of minitorch's ops from generated code (its tensor arguments wrapped
    with ``T``); the tensors it returns come back as arrays."""
    return _arrays(op(*args, **kwargs))


def _arrays(x):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, tuple):
        return tuple(_arrays(r) for r in x)
    return x


def generate(gm):
    """The source of a function computing ``gm``'s graph with numpy, and its globals."""
    return _Writer(gm).write()

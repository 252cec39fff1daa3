"""AOT autograd: a forward and a backward graph, traced ahead of time through
minitorch's own engine (chapter 20).

A captured graph says what the forward computes.  To compile training too, the
backward must be a graph as well.  ``trace_joint`` gets it by *running* things, with
a recorder (``_JointRecorder``) at two places:

* at the ops' interposition point (``function.transform_apply``), as in chapter 19:
  every op of the forward, run on example inputs, becomes a node;
* at the engine's call of each node's backward (``Node._run_backward``): then
  ``autograd.grad`` runs minitorch's real engine, and each backward it calls becomes
  nodes.  For the simple ops (``+``, views, matrix products...) the node's own
  tensor ``backward`` runs, so its ops are recorded one by one and a compiler can
  fuse them; for the others (layer norm, attention, GELU...) the node becomes one
  call of the op's own backward on the op's *context*, which the forward node then
  returns beside its result (``op.with_ctx``).

The engine decides everything else as it always does: the order, the sums of
gradients that meet, the zeros for gradients that never arrive.  The joint graph is
then *functionalized* (an in-place op becomes its out-of-place twin) and
*partitioned*: the forward graph returns, besides its results, every value the
backward reads (the *saved* values), and the backward graph starts from those and
the tangents.  ``aot_module_simplified`` wraps the two compiled graphs in one
``autograd.Function``, so a compiled forward records one node, whose backward runs
the compiled backward graph.
"""

import functools
import operator

from .._tensor import Tensor
from ..autograd import function, grad_mode
from ..autograd.function import BackwardCFunction, Function, _bind_arguments
from ..fx import Graph, GraphModule, Interpreter
from ..nn import Module
from ..ops import aten
from ..ops._common import BuiltinBackward

__all__ = ["aot_module_simplified", "aot_function", "make_boxed_func", "trace_joint", "partition", "nop",
           "JointGraph"]


# Ops whose tensor ``backward`` is made of ops only (no numpy on values): the recorder
# runs it, so that their backward is recorded op by op.  The others are called whole.
_OPS_BACKWARD = {"add", "add_scalar", "sub", "sub_scalar", "r_sub", "mul", "mul_scalar", "div",
                 "div_scalar", "neg", "view", "unsafe_view", "transpose", "t", "permute",
                 "expand", "unsqueeze", "squeeze", "clone", "split", "cat", "stack",
                 "addmm", "mm", "bmm", "sum", "sum_dim", "mean", "mean_dim", "exp",
                 "tanh", "sigmoid", "to_copy", "slice", "select", "unbind", "sum_to_size",
                 "relu"}

# In-place ops and their out-of-place twins (same arguments).
FUNCTIONAL = {"add_inplace": "add", "sub_inplace": "sub", "mul_inplace": "mul",
              "div_inplace": "div", "relu_inplace": "relu"}


class Unsupported(RuntimeError):
    """AOT autograd cannot trace this graph (the backend then runs it as captured)."""


class _JointRecorder:
    """Records ops (forward) and the engine's backward calls into one graph."""

    def __init__(self):
        self.graph = Graph()
        self.node_of = {}           # id(tensor) -> node
        self.node_of_array = {}     # id(numpy array) -> node
        self.keep = []
        self.ctx_node = {}          # id(autograd node) -> forward op node
        self.phase = "forward"
        self.backward_nodes = []
        self.constants = []
        self.running_original = False

    # ----- values --------------------------------------------------------------------------
    def bind(self, t, node):
        self.node_of[id(t)] = node
        self.node_of_array[id(t._data)] = node
        self.keep.append(t)
        node.meta["val"] = t

    def arg(self, a):
        """An op's argument as a graph argument."""
        if isinstance(a, Tensor):
            node = self.node_of.get(id(a)) or self.node_of_array.get(id(a._data))
            if node is None:
                node = self._constant(a)
            return node
        if type(a).__module__ == "numpy" and hasattr(a, "shape"):
            node = self.node_of_array.get(id(a))
            if node is not None:
                return self.graph.call_function(aten.method_op("array_of"), (node,))
            return a
        if isinstance(a, (list, tuple)):
            items = [self.arg(x) for x in a]
            return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
        return a

    def _constant(self, t):
        """A tensor no recorded op made (zeros the engine filled in): kept as it is."""
        node = self.graph.get_attr(f"_tensor_constant{len(self.constants)}")
        self.constants.append((node.target, t))
        self.bind(t, node)
        return node

    # ----- the interposition point ------------------------------------------------------
    def apply(self, cls, args, kwargs):
        if kwargs:
            args = _bind_arguments(cls, args, kwargs)
        op = aten.op_for(cls)
        graph_args = self.arg(args)
        saved = function.transform_apply[0]
        function.transform_apply[0] = None
        try:
            result = op.apply(*args) if isinstance(op, aten.MethodOp) else cls.apply(*args)
        finally:
            function.transform_apply[0] = saved
        node = self.graph.call_function(op, tuple(graph_args))
        self._bind_result(node, result)
        if self.phase == "forward":
            first = result[0] if isinstance(result, (tuple, list)) and result else result
            grad_fn = getattr(first, "_grad_fn", None)
            if grad_fn is not None:
                self.ctx_node[id(grad_fn)] = node
                self.keep.append(grad_fn)
        else:
            self.backward_nodes.append(node)
        return result

    def _bind_result(self, node, result):
        if isinstance(result, Tensor):
            self.bind(result, node)
        elif isinstance(result, (tuple, list)):
            for i, r in enumerate(result):
                if isinstance(r, Tensor):
                    item = self.graph.call_function(operator.getitem, (node, i))
                    self.bind(r, item)
                    if self.phase == "backward":
                        self.backward_nodes.append(item)

    # ----- the engine's calls -------------------------------------------------------------
    def run_backward(self, original, node, grad_outputs, owned):
        """The engine calls a node's backward: record it."""
        if self.running_original:       # a node's own backward calling its base class's
            return original(node, grad_outputs, owned)
        cls = node._forward_cls
        op = aten.op_for(cls)
        n = len(node._next_edges)
        if op.__name__ in _OPS_BACKWARD:
            results = node._apply(grad_outputs)         # its ops come to ``apply``
            return results, [False] * n
        forward = self.ctx_node.get(id(node))
        if forward is None:
            raise Unsupported(f"a backward node ({type(node).__name__}) that no traced "
                              "forward op made")
        results, _ = self._unrecorded(original, node, grad_outputs, owned)
        context = self._context_of(forward, node)
        grads = [None if g is None else self.arg(g) for g in grad_outputs]
        call = self.graph.call_function(op.backward, (context, *grads))
        self.backward_nodes.append(call)
        for i, r in enumerate(results):
            if isinstance(r, Tensor):
                item = self.graph.call_function(operator.getitem, (call, i))
                self.backward_nodes.append(item)
                self.bind(r, item)
        return results, [False] * n

    def _unrecorded(self, original, node, grad_outputs, owned):
        """The node's real backward, its ops not recorded: the graph calls ``op.backward``
        instead."""
        saved, function.transform_apply[0] = function.transform_apply[0], None
        self.running_original = True
        try:
            return original(node, grad_outputs, owned)
        finally:
            function.transform_apply[0] = saved
            self.running_original = False

    def _context_of(self, forward, node):
        """Make the forward node return its op's context too (``op.with_ctx``)."""
        if forward.target.__class__ is aten.WithCtx:
            return forward.meta["ctx_node"]
        op = forward.target
        users = list(forward.users)
        with self.graph.inserting_after(forward):
            result = self.graph.call_function(operator.getitem, (forward, 0))
            context = self.graph.call_function(operator.getitem, (forward, 1))
        for user in users:
            user.replace_input_with(forward, result)
        for key, n in list(self.node_of.items()):
            if n is forward:
                self.node_of[key] = result
        for key, n in list(self.node_of_array.items()):
            if n is forward:
                self.node_of_array[key] = result
        forward.target = op.with_ctx
        forward.kwargs = {"needs": tuple(node.needs_input_grad)}
        forward.meta["ctx_node"] = context
        context.meta["val"] = node
        result.meta = {k: v for k, v in forward.meta.items() if k == "val"}
        return context

    # ----- installing it ----------------------------------------------------------------
    def __enter__(self):
        self._saved = function.transform_apply[0]
        function.transform_apply[0] = self.apply
        self._patched = []
        for cls in (BackwardCFunction, BuiltinBackward):
            original = cls.__dict__["_run_backward"]
            self._patched.append((cls, original))
            setattr(cls, "_run_backward",
                    lambda node, g, o, _orig=original: self.run_backward(_orig, node, g, o))
        return self

    def __exit__(self, *exc):
        function.transform_apply[0] = self._saved
        for cls, original in self._patched:
            setattr(cls, "_run_backward", original)


class JointGraph:
    """The traced joint graph and what the partitioner needs to know about it."""

    def __init__(self, graph, n_primals, n_tangents, n_outputs, diff_inputs, constants,
                 backward_nodes, tangent_outputs):
        self.graph, self.constants = graph, constants
        self.n_primals, self.n_tangents, self.n_outputs = n_primals, n_tangents, n_outputs
        self.diff_inputs = diff_inputs          # which primals get a gradient
        self.backward_nodes = backward_nodes
        self.tangent_outputs = tangent_outputs  # which outputs have a tangent


def _example(x):
    """A private copy of an example input (in-place ops must not touch the caller's)."""
    if not isinstance(x, Tensor):
        return x
    copy = Tensor._wrap(x._data.copy())
    if x._requires_grad:
        copy.requires_grad_(True)
    return copy


def trace_joint(gm, example_inputs, tangent_outputs=None):
    """Trace ``gm``'s forward on copies of ``example_inputs`` and the engine's backward
    from its outputs (those in ``tangent_outputs``, all float ones by default)."""
    rec = _JointRecorder()
    primals = [_example(x) for x in example_inputs]
    for i, p in enumerate(primals):
        node = rec.graph.placeholder(f"primals_{i + 1}")
        if isinstance(p, Tensor):
            rec.bind(p, node)
    with rec, grad_mode.enable_grad():
        outputs = tuple(gm(*primals))
    if tangent_outputs is None:
        tangent_outputs = [i for i, o in enumerate(outputs)
                           if isinstance(o, Tensor) and o._requires_grad]
    tangent_outputs = [i for i in tangent_outputs
                       if isinstance(outputs[i], Tensor) and outputs[i]._requires_grad]
    diff_inputs = [i for i, p in enumerate(primals) if isinstance(p, Tensor)
                   and p._requires_grad]
    tangents = []
    for j, i in enumerate(tangent_outputs):
        t = Tensor._wrap(outputs[i]._data * 0 + 1)
        tangents.append(t)
        rec.bind(t, rec.graph.placeholder(f"tangents_{j + 1}"))
    grad_nodes = [None] * len(primals)
    if tangents and diff_inputs:
        from .. import autograd
        rec.phase = "backward"
        with rec, grad_mode.no_grad():
            grads = autograd.grad([outputs[i] for i in tangent_outputs],
                                  [primals[i] for i in diff_inputs], tangents,
                                  retain_graph=True, allow_unused=True)
        for i, g in zip(diff_inputs, grads):
            grad_nodes[i] = None if g is None else rec.arg(g)
    output_nodes = [rec.arg(o) for o in outputs]   # (after backward: a node may now
    rec.graph.output(tuple(output_nodes) + tuple(grad_nodes))      # return its context)
    _functionalize(rec.graph)
    return JointGraph(rec.graph, len(primals), len(tangents), len(outputs), diff_inputs,
                      rec.constants, set(rec.backward_nodes), tangent_outputs)


def _functionalize(graph):
    """In-place ops become their out-of-place twins: the traced values already say that
    the new value is a new node, so only the op must stop writing into its input.  An
    in-place op called with its context (``mul_inplace.with_ctx``) becomes its twin's,
    and the backward that reads that context (``mul_inplace.backward``) the twin's."""
    twins = {}                      # forward node -> its twin op
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        if isinstance(target, aten.Op) and target.__name__.endswith("_inplace"):
            node.target = _twin(node)
        elif isinstance(target, aten.WithCtx) and target.op.__name__.endswith("_inplace"):
            twins[node] = _twin(node, target.op)
            node.target = twins[node].with_ctx
        elif isinstance(target, aten.OpBackward) and target.op.__name__.endswith("_inplace"):
            forward = node.args[0].args[0]          # context = getitem(forward, 1)
            node.target = twins[forward].backward


def _twin(node, op=None):
    op = op or node.target
    twin = FUNCTIONAL.get(op.__name__)
    if twin is None or len(node.args) > 2:
        raise Unsupported(f"no out-of-place twin for {op}")
    if len(node.args) == 2 and not hasattr(node.args[1], "op") and twin != "relu":
        twin += "_scalar"                   # ``x.add_(1)``: add_scalar(x, 1)
    return aten.lookup(twin)


def partition(joint):
    """Split the joint graph into a forward graph, returning its outputs and the values
    the backward reads, and a backward graph from those values and the tangents."""
    graph = joint.graph
    output = next(n for n in graph.nodes if n.op == "output")
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    primals, tangents = placeholders[:joint.n_primals], placeholders[joint.n_primals:]
    backward = set(joint.backward_nodes) | set(tangents)
    saved = []
    for node in graph.nodes:
        if node in backward or node.op == "output":
            continue
        if any(u in backward or (u.op == "output" and _is_grad_use(u, node, joint))
               for u in node.users):
            saved.append(node)
    fw_outputs = list(output.args[0][:joint.n_outputs])
    forward_graph = _subgraph(graph, [n for n in graph.nodes if n not in backward
                                      and n.op != "output"], fw_outputs + saved)
    bw_inputs = saved + tangents
    bw_nodes = [n for n in graph.nodes if n in backward and n.op != "placeholder"]
    grads = list(output.args[0][joint.n_outputs:])
    backward_graph = _subgraph(graph, bw_inputs + bw_nodes, grads, inputs=bw_inputs)
    return forward_graph, backward_graph, len(saved)


def _is_grad_use(output, node, joint):
    grads = output.args[0][joint.n_outputs:]
    return any(g is node for g in grads)


def _subgraph(graph, nodes, outputs, inputs=()):
    """A new graph of ``nodes`` (in order): ``inputs`` become placeholders."""
    new, env = Graph(), {}
    for n in inputs:
        env[n] = new.placeholder(n.name)
        env[n].meta = dict(n.meta)
    for n in nodes:
        if n in env:
            continue
        env[n] = new.node_copy(n, lambda x: env[x])
    new.output(tuple(None if o is None else (env[o] if hasattr(o, "op") else o)
                     for o in outputs))
    new.eliminate_dead_code()
    return new


# ----- running the two graphs --------------------------------------------------------------------
def nop(gm, example_inputs):
    """The "compiler" of ``aot_eager``: the graph module, run op by op without autograd."""
    def run(*args):
        saved = function.transform_apply[0]
        function.transform_apply[0] = None
        try:
            with grad_mode.no_grad():
                return gm(*args)
        finally:
            function.transform_apply[0] = saved
    return run


def _module(graph, constants):
    root = Module()
    for name, t in constants:
        root.register_buffer(name, t)
    return GraphModule(root, graph, "GraphModule")


def aot_module_simplified(gm, example_inputs, fw_compiler, bw_compiler=None,
                          tangent_outputs=None, lazy_backward=False):
    """``gm`` compiled for training: a callable whose results record one autograd node,
    the compiled backward graph behind it.  ``fw_compiler``/``bw_compiler`` turn each
    graph module into a callable (``nop`` runs it as it is).  The backward graph is
    compiled now, or with ``lazy_backward`` at the first backward (as ``aot_function``
    does, like PyTorch's)."""
    bw_compiler = bw_compiler or fw_compiler
    if tangent_outputs is None:
        tangent_outputs = gm.meta.get("tangent_outputs") if hasattr(gm, "meta") else None
    needs_grad = grad_mode.is_grad_enabled() and any(
        isinstance(x, Tensor) and x._requires_grad for x in example_inputs)
    joint = trace_joint(gm, example_inputs, tangent_outputs if needs_grad else [])
    if not needs_grad or not joint.tangent_outputs or not joint.diff_inputs:
        forward_graph = _subgraph(joint.graph, [n for n in joint.graph.nodes
                                                if n.op != "output" and
                                                n not in joint.backward_nodes],
                                  list(_outputs(joint.graph)[:joint.n_outputs]))
        compiled = fw_compiler(_module(forward_graph, joint.constants), example_inputs)
        return _inference(compiled)
    forward_graph, backward_graph, n_saved = partition(joint)
    fw_module = _module(forward_graph, joint.constants)
    bw_module = _module(backward_graph, joint.constants)
    compiled_fw = fw_compiler(fw_module, example_inputs)
    compiled_bw = [] if lazy_backward else [bw_compiler(bw_module, _examples(bw_module))]

    def backward_compiled():
        if not compiled_bw:
            compiled_bw.append(bw_compiler(bw_module, _examples(bw_module)))
        return compiled_bw[0]
    return _training(compiled_fw, backward_compiled, joint, n_saved, gm)


def _examples(gm):
    """The values the trace gave ``gm``'s inputs: a compiler's example inputs."""
    return [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]


def _outputs(graph):
    return next(n for n in graph.nodes if n.op == "output").args[0]


def _inference(compiled):
    def run(*args):
        with grad_mode.no_grad():
            return _call(compiled, args)
    return run


def _call(compiled, args):
    """Call a compiled graph, boxed (one list of arguments) if it says it takes them so."""
    if getattr(compiled, "_boxed_call", False):
        return compiled(list(args))
    return compiled(*args)


def _training(compiled_fw, backward_compiled, joint, n_saved, gm):
    n_out, diff_inputs, tangent_outputs = joint.n_outputs, joint.diff_inputs, \
        joint.tangent_outputs

    class CompiledFunction(Function):
        _returns_new_gradients = True       # the engine may keep them as .grad uncopied

        @staticmethod
        def forward(ctx, *primals):
            ctx.set_materialize_grads(False)        # a missing gradient stays None
            results = _call(compiled_fw, primals)
            ctx.saved = results[n_out:]
            ctx.primals = primals
            outs = results[:n_out]
            ctx.mark_non_differentiable(*[o for o in outs if isinstance(o, Tensor)
                                          and o._data.dtype.kind != "f"])
            ctx.shapes = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                          for o in outs]
            return tuple(outs)

        @staticmethod
        def backward(ctx, *grads):
            if any(g is not None for i, g in enumerate(grads) if i not in tangent_outputs):
                return _recompute_backward(gm, ctx.primals, grads, diff_inputs)
            tangents = [grads[i] if grads[i] is not None else
                        Tensor._wrap(_zeros(*ctx.shapes[i])) for i in tangent_outputs]
            args = list(ctx.saved) + tangents
            ctx.saved = None                 # the saved values go as the graph frees them
            compiled_bw = backward_compiled()
            boxed = getattr(compiled_bw, "boxed", None)
            in_grads = boxed(args) if boxed is not None else _call(compiled_bw, args)
            return tuple(in_grads)

    def run(*primals):
        return CompiledFunction.apply(*primals)
    return run


def _zeros(shape, dtype):
    import numpy as np
    return np.zeros(shape, dtype=dtype)


def _recompute_backward(gm, primals, grads, diff_inputs):
    """A gradient reached an output the backward graph was not traced for: run the
    forward again, op by op, and let the engine differentiate it."""
    from .. import autograd
    inputs = [Tensor._wrap(p._data).requires_grad_(True) if i in diff_inputs else p
              for i, p in enumerate(primals)]
    with grad_mode.enable_grad():
        outs = tuple(gm(*inputs))
    pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and
             isinstance(o, Tensor) and o._requires_grad]
    found = autograd.grad([o for o, _ in pairs], [inputs[i] for i in diff_inputs],
                          [g for _, g in pairs], allow_unused=True)
    result = [None] * len(primals)
    for i, g in zip(diff_inputs, found):
        result[i] = g
    return tuple(result)


def aot_function(fn, fw_compiler, bw_compiler=None):
    """``fn`` (a function of tensors) compiled with AOT autograd, as PyTorch's
    ``aot_function``: on the first call its joint graph is traced on that call's inputs
    (no capture, no guards: later calls must pass inputs like the first's), and every
    call runs the compiled forward, whose result records one ``CompiledFunction``
    node."""
    compiled = []

    def as_tuple(*args):
        result = fn(*args)
        return result if isinstance(result, tuple) else (result,)

    @functools.wraps(fn)
    def run(*args):
        if not compiled:
            compiled.append(aot_module_simplified(as_tuple, list(args), fw_compiler,
                                                  bw_compiler, lazy_backward=True))
        results = compiled[0](*args)
        return results[0] if len(results) == 1 else results
    return run


def make_boxed_func(f):
    """``f`` taking its arguments as one list (PyTorch's *boxed* calling convention, which
    lets a compiled graph free each input as soon as it is done with it)."""
    def boxed(args):
        return f(*args)
    boxed._boxed_call = True
    return boxed

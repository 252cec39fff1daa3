"""Backends: what turns a captured graph into something to run (chapters 19-21).

A backend is any callable ``backend(gm, example_inputs)`` that returns a callable
with the graph's inputs and outputs.  ``minitorch.compile`` calls it once for each
graph it captures.  Three come with minitorch:

* ``"eager"``: the graph module itself (the captured ops, run one by one);
* ``"aot_eager"``: AOT autograd (chapter 20) with no compiler: the forward and
  backward graphs traced through the engine, run one op at a time;
* ``"inductor"`` (the default): AOT autograd, then minitorch's numpy compiler
  (chapter 21): decompositions, fusion, and generated numpy code.
"""

from .exc import InvalidBackend

__all__ = ["register_backend", "lookup_backend", "list_backends"]

_BACKENDS = {}
_DEBUG = set()


def register_backend(compiler_fn=None, name=None, tags=()):
    """Add a backend under ``name`` (its function name by default); a decorator too."""
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name, tags)
    _BACKENDS[name or compiler_fn.__name__] = compiler_fn
    if "debug" in tags:
        _DEBUG.add(name or compiler_fn.__name__)
    return compiler_fn


def lookup_backend(backend):
    if callable(backend):
        return backend
    if backend not in _BACKENDS:
        raise InvalidBackend(backend)
    return _BACKENDS[backend]


def list_backends(exclude_tags=("debug", "experimental")):
    """The names of the registered backends (without the debugging ones, by default)."""
    return sorted(n for n in _BACKENDS if not (exclude_tags and n in _DEBUG))


@register_backend(tags=("debug",))
def eager(gm, example_inputs, **kwargs):
    """Run the captured graph as it is."""
    return gm.forward


@register_backend(tags=("debug",))
def aot_eager(gm, example_inputs, **kwargs):
    """AOT autograd's forward and backward graphs, each run op by op."""
    from .._functorch.aot_autograd import aot_module_simplified, nop
    return per_shape(gm, example_inputs, lambda g, ex: aot_module_simplified(
        g, ex, fw_compiler=nop, bw_compiler=nop))


@register_backend
def inductor(gm, example_inputs, **kwargs):
    """AOT autograd, then minitorch's numpy code generator."""
    from .._inductor.compile_fx import compile_fx
    return per_shape(gm, example_inputs, lambda g, ex: compile_fx(g, ex, **kwargs))


def per_shape(gm, example_inputs, compile_one):
    """A graph captured with dynamic sizes, compiled once per set of input shapes:
    minitorch's compilers generate code for fixed shapes (PyTorch's generate code
    that takes the sizes as arguments)."""
    from .._tensor import Tensor
    from ..ops import aten
    sym_size = aten.method_op("sym_size")
    if not any(n.target is sym_size for n in gm.graph.nodes):
        return compile_one(gm, example_inputs)
    compiled = {}

    def run(*inputs):
        key = tuple((x._data.shape, x.dtype, x._requires_grad) if isinstance(x, Tensor)
                    else x for x in inputs)
        fn = compiled.get(key)
        if fn is None:
            fn = compiled[key] = compile_one(gm, list(inputs))
        return fn(*inputs)
    run.compiled = compiled
    return run

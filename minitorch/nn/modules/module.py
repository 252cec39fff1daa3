"""``nn.Module``: the base class of every layer and model (chapters 7 and 8, "Module internals I" and "II").

A Module is a small bookkeeping machine.  Its ``__init__`` creates a few
ordered dicts, and everything else reads or writes them:

* ``_parameters``, ``_buffers`` and ``_modules`` hold what ``__setattr__``
  registers when you write ``self.weight = Parameter(...)``,
  ``self.register_buffer("mean", t)`` or ``self.fc = Linear(2, 3)``;
  ``_non_persistent_buffers_set`` names the buffers ``state_dict`` leaves out;
* the hook dicts (``_forward_pre_hooks``, ``_forward_hooks``,
  ``_backward_hooks``, ``_state_dict_hooks``, ``_load_state_dict_pre_hooks``...)
  hold functions that ``__call__`` and ``state_dict`` call at fixed points;
* ``training`` is the flag ``train()``/``eval()`` set on the whole tree.

Modules nest: ``_modules`` makes a tree, and the iterators (``parameters``,
``named_modules``...), ``apply``, ``train``, ``state_dict`` and ``__repr__``
all walk that tree in the same order: a module's own entries first, then its
children in registration order.

Calling a module runs ``__call__`` = ``_wrapped_call_impl``, which calls
``_call_impl`` (as in PyTorch 2.x): with no hooks anywhere it is just
``forward``; otherwise global then local forward pre-hooks, backward-hook
set-up on the inputs, ``forward``, global then local forward hooks, and
backward-hook set-up on the outputs.  If any step raises, the forward hooks
registered with ``always_call=True`` still run before the error propagates.

``load_state_dict`` walks the tree and lets each module load its own entries
with ``_load_from_state_dict`` (PyTorch's extension point: a layer overrides
it to read old checkpoints), then runs the load post-hooks and raises all the
errors together.
"""

import contextlib
import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._dtype import dtype as _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.graph import clear_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from ._backward_hook import BackwardHook

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]


# ----- hooks that run for every module -------------------------------------------------
# Global hooks run before each module's own hooks of the same kind.
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()        # ids of hooks called with kwargs too
_global_forward_hooks_always_called = OrderedDict()      # ids of hooks run even if forward fails
_global_backward_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()


def register_module_forward_pre_hook(hook):
    """Run ``hook(module, args)`` before the forward of *every* module.  Returns a removable handle.

    Like a module's own pre-hook, a non-None return value replaces the
    positional arguments (a single value is wrapped in a tuple).
    """
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Run ``hook(module, args, output)`` after the forward of *every* module; a non-None
    return value replaces the output.  ``with_kwargs`` and ``always_call`` mean what they
    mean for ``Module.register_forward_hook``.  Returns a removable handle."""
    ### BEGIN SOLUTION 8.1
    handle = RemovableHandle(_global_forward_hooks, _global_forward_hooks_with_kwargs,
                             _global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle
    ### END SOLUTION 8.1


def register_module_full_backward_hook(hook):
    """Run ``hook(module, grad_input, grad_output)`` in the backward of *every* module."""
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook):
    """Run ``hook(module, grad_output)`` when the gradients of *every* module's outputs are ready."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


# ----- small helpers ----------------------------------------------------------------------
_TENSOR_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor",
                      "int64": "LongTensor", "bool": "BoolTensor"}


def _typename(obj):
    """How error messages name a value's type: ``minitorch.FloatTensor``, ``int``, ``mypkg.Thing``."""
    if isinstance(obj, Tensor):
        return "minitorch." + _TENSOR_TYPE_NAMES.get(obj.dtype.name, "Tensor")
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"


def _addindent(text, spaces):
    """Indent every line but the first (a child's repr sits after ``(name): ``)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


# Device types PyTorch knows; minitorch runs on the first one only.
_DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "ipu", "hip", "xla", "meta", "mtia", "hpu", "ve",
                 "vulkan", "lazy", "fpga", "maia", "mkldnn", "opengl", "opencl", "ideep",
                 "privateuseone")


def _cpu_only_message(call, device_type):
    return (f"{call}: minitorch runs on the CPU only, so {device_type} is not available. Keep the "
            "model and its data on the CPU: use 'cpu' or leave the device out.")


def _device_type(device):
    """``"cuda"`` for ``"cuda:0"``, a device object with a ``.type``, or an int (a CUDA index)."""
    if isinstance(device, int) and not isinstance(device, bool):
        return "cuda"
    if isinstance(device, str):
        return device.split(":")[0]
    return str(getattr(device, "type", device))


def _check_cpu(call, device):
    kind = _device_type(device)
    if kind == "cpu":
        return
    if kind == "cuda" and not isinstance(device, int):      # PyTorch's type for cuda
        raise AssertionError("Torch not compiled with CUDA enabled: "
                             + _cpu_only_message(f"{call}({str(device)!r})", kind))
    if kind in _DEVICE_TYPES:
        raise RuntimeError(_cpu_only_message(f"{call}({str(device)!r})", kind))
    raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                       f"string: {device}")


_TO_KEYWORDS = ("device", "dtype", "non_blocking", "copy", "memory_format")


def _dtype_from_to_arguments(call, args, kwargs):
    """The dtype asked for by ``to(...)``'s arguments (None if none), after checking that
    any device given is the CPU.  ``non_blocking`` and ``memory_format`` change nothing here."""
    for name in kwargs:
        if name not in _TO_KEYWORDS:
            raise TypeError(f"to() got an unexpected keyword argument '{name}'")
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, _dtype):
            dtype = arg
        elif arg is not None and not isinstance(arg, bool):
            device = arg
    if device is not None:
        _check_cpu(call, device)
    return dtype


_NON_FULL_HOOK_ADVICE = "Please use register_full_backward_hook to get the documented behavior."


def _warn_if_hook_misses_gradients(inputs, outputs, grad_fn):
    """PyTorch's FutureWarnings for a legacy backward hook (``register_backward_hook``),
    which sits on the output's ``grad_fn`` and so sees that node's gradients only: the
    module's inputs and outputs are missed when forward recorded several nodes."""
    outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
    if not (isinstance(outputs, tuple) and all(isinstance(o, Tensor) for o in outputs)):
        return _future_warning(
            "Using non-full backward hooks on a Module that does not return a single Tensor or "
            "a tuple of Tensors is deprecated and will be removed in future versions. This hook "
            f"will be missing some of the grad_output. {_NON_FULL_HOOK_ADVICE}")
    if not all(isinstance(i, Tensor) for i in inputs):
        return _future_warning(
            "Using non-full backward hooks on a Module that does not take as input a single "
            "Tensor or a tuple of Tensors is deprecated and will be removed in future versions. "
            f"This hook will be missing some of the grad_input. {_NON_FULL_HOOK_ADVICE}")
    output_nodes = {o.grad_fn for o in outputs if o.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and grad_fn not in output_nodes):
        _future_warning("Using a non-full backward hook when outputs are nested in python data "
                        "structure is deprecated and will be removed in future versions. This "
                        "hook will be missing some grad_output.")
    elif len(output_nodes) > 1:
        _future_warning("Using a non-full backward hook when outputs are generated by different "
                        "autograd Nodes is deprecated and will be removed in future versions. "
                        "This hook will be missing some grad_output. " + _NON_FULL_HOOK_ADVICE)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != \
            {node for node, _ in grad_fn.next_functions}:
        _future_warning("Using a non-full backward hook when the forward contains multiple "
                        "autograd Nodes is deprecated and will be removed in future versions. "
                        "This hook will be missing some grad_input. " + _NON_FULL_HOOK_ADVICE)


def _future_warning(message):
    warnings.warn(message, FutureWarning, stacklevel=4)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not know."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _forward_unimplemented(self, *args, **kwargs):
    """The ``forward`` of a Module subclass that did not define one.

    Define ``forward`` in your subclass, and call the module (``model(x)``)
    rather than ``model.forward(x)``: only the call runs the registered hooks.
    """
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class for all neural network modules: subclass it, create layers and
    parameters in ``__init__`` (after ``super().__init__()``), compute in ``forward``."""

    # Format versions, for checkpoints: ``_version`` is stored in each
    # state_dict's ``_metadata`` so a layer can upgrade an old checkpoint.
    dump_patches = False
    _version = 1
    call_super_init = False
    _is_full_backward_hook = None

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments; "
                            "Module.__init__ takes none (pass yours to your own __init__).")
        # object.__setattr__ skips our __setattr__: these values need no registering,
        # and its checks would only cost time.
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_modules", {})

    forward = _forward_unimplemented

    # ================================================================================
    # Registration
    # ================================================================================
    def register_parameter(self, name, param):
        """Add ``param`` (a Parameter, or None for an optional one) under ``name``.

        Refused: before ``Module.__init__`` (AttributeError "cannot assign parameter
        before Module.__init__() call"), a bad name (``_check_new_name``), a value that
        is not a Parameter (TypeError "cannot assign '<type>' object to parameter
        '<name>' (minitorch.nn.Parameter or None required)"), a parameter that is not
        a leaf, e.g. one that does not require grad changed in place by a tensor that
        does (ValueError "Cannot assign non-leaf Tensor to parameter '<name>'. Model
        parameters must be created explicitly. To express '<name>' as a function of
        another Tensor, compute the value in the forward() method.").
        """
        ### BEGIN SOLUTION 7.1
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(minitorch.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method.")
        else:
            self._parameters[name] = param
        ### END SOLUTION 7.1

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (e.g. BatchNorm's running mean).

        Buffers appear in ``buffers()``; persistent ones (the default) also in
        ``state_dict()``.  ``_non_persistent_buffers_set`` holds the names of the
        others, as last registered: registering a name again with ``persistent=True``
        takes it out.  ``tensor`` may be None.  Refused: before
        ``Module.__init__`` (AttributeError "cannot assign buffer before
        Module.__init__() call"), a bad name (``_check_new_name``), a value that is
        not a Tensor (TypeError "cannot assign '<type>' object to buffer '<name>'
        (minitorch Tensor or None required)").
        """
        ### BEGIN SOLUTION 7.1
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(minitorch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        ### END SOLUTION 7.1

    def add_module(self, name, module):
        """Add ``module`` (or None) as a child called ``name``.

        Refused: a value that is not a Module (TypeError "<type> is not a Module
        subclass"), a name that is not a string (TypeError "module name should be a
        string. Got <type>"), one that already names another attribute (KeyError
        "attribute '<name>' already exists"), a dotted one (KeyError "module name
        can't contain \".\", got: <name>") or an empty one (KeyError "module name
        can't be empty string \"\"").
        """
        ### BEGIN SOLUTION 7.1
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module
        ### END SOLUTION 7.1

    register_module = add_module

    def _check_new_name(self, name, kind, registry):
        """The checks ``register_parameter`` and ``register_buffer`` share: a TypeError for
        a name that is not a string ("<kind> name should be a string. Got <type>"), a
        KeyError for a dotted name ("<kind> name can't contain \".\""), an empty one
        ("<kind> name can't be empty string \"\"") or one that already names another
        attribute, one of the class's included, e.g. ``forward`` ("attribute '<name>'
        already exists")."""
        ### BEGIN SOLUTION 7.1
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")
        ### END SOLUTION 7.1

    # ----- attribute access: where registration happens ----------------------------
    def __setattr__(self, name, value):
        """Register ``value`` under ``name`` by its kind (chapter 7).

        * A ``Parameter`` goes into ``_parameters`` (through ``register_parameter``),
          after ``name`` is removed from the instance dict, ``_buffers`` and
          ``_modules``.  Before ``Module.__init__`` ran: AttributeError "cannot assign
          parameters before Module.__init__() call".
        * For a name already in ``_parameters``, None is stored there; any other value
          is a TypeError ("cannot assign '<type>' as parameter '<name>'
          (minitorch.nn.Parameter or None expected)").
        * A ``Module`` goes into ``_modules``, after ``name`` is removed from the instance
          dict, ``_parameters`` and ``_buffers``.  Before ``Module.__init__``:
          AttributeError "cannot assign module before Module.__init__() call".
        * For a name already in ``_modules``, None is stored there; any other value is a
          TypeError ("cannot assign '<type>' as child module '<name>'
          (minitorch.nn.Module or None expected)").
        * An ``nn.Buffer`` is registered as a buffer (``register_buffer``, with its
          ``persistent`` flag).
        * For a name already in ``_buffers``, a Tensor or None replaces the entry; any
          other value is a TypeError ("cannot assign '<type>' as buffer '<name>'
          (minitorch.nn.Buffer, minitorch.Tensor or None expected)").
        * Anything else is a plain attribute (``object.__setattr__``).
        """
        ### BEGIN SOLUTION 7.1
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() "
                                     "call")
            self._forget(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(minitorch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() "
                                         "call")
                self._forget(name, self.__dict__, self._parameters, self._buffers)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (minitorch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer):       # nn.Buffer(t): register it
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (minitorch.nn.Buffer, minitorch.Tensor or "
                                        "None expected)")
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)
        ### END SOLUTION 7.1

    def _forget(self, name, *registries):
        """Remove ``name`` from the other places an attribute could live."""
        ### BEGIN SOLUTION 7.1
        for registry in registries:
            if name in registry:
                del registry[name]
        self.__dict__.get("_non_persistent_buffers_set", set()).discard(name)
        ### END SOLUTION 7.1

    def __getattr__(self, name):
        """Called only when normal lookup fails: the entry ``name`` of ``_parameters``,
        ``_buffers`` or ``_modules`` (in that order), else AttributeError "'<Class>' object
        has no attribute '<name>'".  Read the dicts from ``self.__dict__``: before
        ``__init__`` they may not exist, and ``self._parameters`` would call this again."""
        ### BEGIN SOLUTION 7.1
        # Only called when normal lookup fails: parameters, buffers and children
        # live in the dicts, not in the instance's __dict__.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        ### END SOLUTION 7.1

    def __delattr__(self, name):
        """Remove ``name`` from whichever of ``_parameters``, ``_buffers`` (and the set of
        non-persistent buffers) and ``_modules`` holds it, else delete the plain attribute;
        AttributeError "'<Class>' object has no attribute '<name>'" when there is none."""
        ### BEGIN SOLUTION 7.1
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        elif name not in self.__dict__ and not hasattr(type(self), name):
            # Python 3.10's own message is only the name: say it as 3.11 and later do
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        else:
            object.__delattr__(self, name)
        ### END SOLUTION 7.1

    def __dir__(self):
        """The usual attribute names plus every registered parameter, buffer and child,
        sorted, without names that start with a digit (``Sequential``'s children)."""
        ### BEGIN SOLUTION 7.1
        attrs = list(object.__dir__(self)) + list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(key for key in set(attrs) if not key[0].isdigit())
        ### END SOLUTION 7.1

    # ================================================================================
    # Walking the tree
    # ================================================================================
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yield ``(dotted_name, module)`` for self and every descendant, parents first.
        A module reachable twice is yielded once (unless ``remove_duplicate=False``)."""
        ### BEGIN SOLUTION 7.2
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            child_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, child_prefix, remove_duplicate)
        ### END SOLUTION 7.2

    def modules(self):
        """Every module of the tree, self first."""
        ### BEGIN SOLUTION 7.2
        for _, module in self.named_modules():
            yield module
        ### END SOLUTION 7.2

    def named_children(self):
        """Yield ``(name, module)`` for the direct children, each module once."""
        ### BEGIN SOLUTION 7.2
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module
        ### END SOLUTION 7.2

    def children(self):
        """Every direct child module, each once."""
        ### BEGIN SOLUTION 7.2
        for _, module in self.named_children():
            yield module
        ### END SOLUTION 7.2

    def _named_members(self, members_of, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted_name, value)`` for the entries ``members_of(module)`` gives,
        module by module in ``named_modules`` order; a tensor shared by several
        modules is yielded once."""
        ### BEGIN SOLUTION 7.2
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in members_of(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value
        ### END SOLUTION 7.2

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted_name, parameter)``: own parameters first, then each child's."""
        ### BEGIN SOLUTION 7.2
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)
        ### END SOLUTION 7.2

    def parameters(self, recurse=True):
        """Every parameter of the tree (what you hand to an optimizer), each once."""
        ### BEGIN SOLUTION 7.2
        for _, param in self.named_parameters(recurse=recurse):
            yield param
        ### END SOLUTION 7.2

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted_name, buffer)`` for the buffers of the tree (of this module only
        with ``recurse=False``), each once unless ``remove_duplicate=False``."""
        ### BEGIN SOLUTION 7.2
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)
        ### END SOLUTION 7.2

    def buffers(self, recurse=True):
        """Every buffer of the tree, each once."""
        ### BEGIN SOLUTION 7.2
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf
        ### END SOLUTION 7.2

    # ================================================================================
    # Acting on the whole tree
    # ================================================================================
    def apply(self, fn):
        """Call ``fn(module)`` on every child (recursively) and then on self; returns self.
        The usual use: custom weight initialisation."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def train(self, mode=True):
        """Set training mode (``mode=True``) or evaluation mode on self and all descendants.
        Only layers that behave differently (Dropout, BatchNorm) care; it does not turn off
        autograd."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``.  Use ``no_grad()`` as well to stop recording."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Make every parameter require grad, or (False) freeze them all."""
        if not isinstance(requires_grad, bool):
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (the default), or to zeros."""
        for p in self.parameters():
            clear_grad(p, set_to_none)

    def _apply(self, fn):
        """Replace every parameter's and buffer's values by ``fn(tensor)``, children first.
        Parameters stay the same objects (only their data changes), so optimizers keep working."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                new = fn(param)
            if new is not param:
                param.data = new
                if param.grad is not None:
                    param.grad = fn(param.grad)
        self._buffers.update({name: fn(buf) for name, buf in self._buffers.items()
                              if buf is not None})
        return self

    def to(self, *args, **kwargs):
        """Convert floating point parameters and buffers to a dtype, in place; returns self.

        Takes PyTorch's forms: ``to(dtype)``, ``to(device)``,
        ``to(device, dtype)``, ``to(tensor)`` (its dtype) and the keywords
        ``device``, ``dtype``, ``non_blocking``, ``memory_format``.  The CPU is
        the only device: ``"cpu"`` is accepted, ``"cuda"`` raises PyTorch's
        AssertionError, another device type a RuntimeError.  Parameters stay the same objects, so an
        optimizer built earlier still updates them.
        """
        dtype = _dtype_from_to_arguments("Module.to", args, kwargs)
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype}")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def cpu(self):
        """Already there: minitorch has only the CPU."""
        return self

    def cuda(self, device=None):
        """Refused: minitorch runs on the CPU only."""
        raise AssertionError("Torch not compiled with CUDA enabled: "
                             + _cpu_only_message("Module.cuda()", "cuda"))

    def float(self):
        """Floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Refused: minitorch has no float16 dtype."""
        raise NotImplementedError("Module.half(): minitorch has no float16 dtype (only float32 and "
                                  "float64). Use .float() or .double() instead.")

    def bfloat16(self):
        """Refused: minitorch has no bfloat16 dtype."""
        raise NotImplementedError("Module.bfloat16(): minitorch has no bfloat16 dtype (only "
                                  "float32 and float64). Use .float() or .double() instead.")

    # ================================================================================
    # Finding a member by its dotted name
    # ================================================================================
    def get_submodule(self, target):
        """The module at ``target``, a dotted path like ``"encoder.layers.0"`` ("" is self)."""
        if target == "":
            return self
        module = self
        for name in target.split("."):
            if not hasattr(module, name):
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            module = getattr(module, name)
            if not isinstance(module, Module):
                raise AttributeError(f"`{name}` is not an nn.Module")
        return module

    def get_parameter(self, target):
        """The parameter at a dotted path like ``"encoder.0.weight"``."""
        module, name = self._owner_and_name(target)
        value = getattr(module, name)
        if not isinstance(value, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return value

    def get_buffer(self, target):
        """The buffer at a dotted path like ``"bn.running_mean"``."""
        module, name = self._owner_and_name(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    def _owner_and_name(self, target):
        """``("a.b.c")`` -> (the module ``a.b``, ``"c"``), checking ``c`` exists."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module, name

    # ================================================================================
    # Printing
    # ================================================================================
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text between the parentheses of this module's repr.  Layers override it
        (``in_features=3, out_features=4, bias=True``); several lines are allowed."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        # A loop, not a comprehension (a call of its own before Python 3.12): one frame
        # per level of the tree, so that a tree 300 deep prints, as in PyTorch.
        child_lines = []
        for name, module in self._modules.items():
            child_lines.append(f"({name}): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if len(extra_lines) == 1 and not child_lines:
            text += extra_lines[0]              # the one-line case: Linear(in_features=...)
        elif lines:
            text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    # ================================================================================
    # Calling: hooks around forward
    # ================================================================================
    def _call_impl(self, *args, **kwargs):
        """Run ``forward`` with every registered hook around it (chapter 8).

        With no hook at all (neither the module's nor the global ones), just
        ``forward``.  Otherwise, in this order: the forward pre-hooks, global then the
        module's (``_run_forward_pre_hooks``), which may replace the arguments; when
        there are full backward hooks (``_get_backward_hooks`` splits them from the
        legacy non-full ones) or backward pre-hooks (global then the module's
        ``_backward_pre_hooks``, gathered here), a ``BackwardHook(self, full hooks,
        pre-hooks)`` wraps the arguments (``setup_input_hook``: page 08c,
        book/08c_backward_hooks.ipynb, "Backward hooks on a module", explains it);
        ``forward``; the forward hooks, global then the module's
        (``_run_forward_hooks``, noting in ``called`` which ran), which may replace the
        output; the ``BackwardHook`` wraps the output (``setup_output_hook``; when the
        output is neither a Tensor nor a tuple, first PyTorch's UserWarning "For
        backward hooks to be called, module output should be a Tensor or a tuple of
        Tensors but received <type>"); legacy non-full backward hooks go on the
        output's ``grad_fn`` (``_register_non_full_backward_hooks``).
        If anything raises, the ``always_call`` forward hooks that have not run yet
        run (``_run_always_called_hooks``) and the error goes on.
        """
        ### BEGIN SOLUTION 8.1
        forward_call = self.forward
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return forward_call(*args, **kwargs)        # the fast path: no hooks at all

        result, called = None, set()      # called: ids of the forward hooks that have run
        try:
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
            backward_pre_hooks = [*_global_backward_pre_hooks.values(),
                                  *self._backward_pre_hooks.values()]

            args, kwargs = self._run_forward_pre_hooks(args, kwargs)

            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = forward_call(*args, **kwargs)

            result = self._run_forward_hooks(args, kwargs, result, called)

            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be "
                                  "a Tensor or a tuple of Tensors but received "
                                  f"{type(result)}")
                result = bw_hook.setup_output_hook(result)

            if non_full_backward_hooks:
                self._register_non_full_backward_hooks(args, result,
                                                       non_full_backward_hooks)
            return result
        except Exception:
            # forward hooks registered with always_call=True run even when the call failed
            self._run_always_called_hooks(args, kwargs, result, called)
            raise
        ### END SOLUTION 8.1

    def _wrapped_call_impl(self, *args, **kwargs):
        """What ``module(x)`` runs (``__call__``).  In PyTorch it may call a compiled
        version of the module (``model.compile()``); minitorch has none, so it calls
        ``_call_impl``."""
        return self._call_impl(*args, **kwargs)

    def compile(self, *args, **kwargs):
        """Compile this module in place (chapter 19): its ``forward`` becomes
        ``minitorch.compile``'s version, so calls (hooks around it) run compiled and the
        state dict keeps its keys.  (PyTorch compiles ``_call_impl``, hooks included.)"""
        from ..._dynamo.eval_frame import compile_model
        compiled = compile_model(type(self).forward.__get__(self), *args, **kwargs)
        code = getattr(compiled, "_minitorch_compiled", None)
        if code is not None:            # the capture tracks this module's state
            code.module = self
        self.__dict__["forward"] = compiled

    __call__ = _wrapped_call_impl

    def _run_forward_pre_hooks(self, args, kwargs):
        """Global then local pre-hooks.  A returned value replaces the arguments: a
        single value is wrapped in a tuple; ``with_kwargs`` hooks return ``(args, kwargs)``
        (anything else but None is a RuntimeError "forward pre-hook must return None or
        a tuple of (new_args, new_kwargs), but got <value>.")."""
        ### BEGIN SOLUTION 8.1
        for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(),
                                             self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs
        ### END SOLUTION 8.1

    def _run_forward_hooks(self, args, kwargs, result, called=None):
        """Global then local forward hooks; a non-None return value replaces the output.
        The id of each hook is added to ``called`` before it runs."""
        ### BEGIN SOLUTION 8.1
        for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
            if called is not None:
                called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or \
                    hook_id in _global_forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        return result
        ### END SOLUTION 8.1

    def _run_always_called_hooks(self, args, kwargs, result, called):
        """After a failed call: the ``always_call`` forward hooks that have not run yet
        (global then the module's; each at most once per call), with the output so far
        (None if forward raised).  An error in one of them would hide the error that
        matters, so it only becomes a UserWarning "module forward hook with
        ``always_call=True`` raised an exception that was silenced as another error was
        raised in forward: <error>" ("global module forward hook ..." for a global one)."""
        ### BEGIN SOLUTION 8.1
        hooks = [(i, h, "global ") for i, h in _global_forward_hooks.items()
                 if i in _global_forward_hooks_always_called]
        hooks += [(i, h, "") for i, h in self._forward_hooks.items()
                  if i in self._forward_hooks_always_called]
        for hook_id, hook, scope in hooks:
            if hook_id in called:
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs or \
                        hook_id in _global_forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            except Exception as error:
                warnings.warn(f"{scope}module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {error}", stacklevel=3)
        ### END SOLUTION 8.1

    def _get_backward_hooks(self):
        """Split the backward hooks into full ones (the usual) and legacy non-full ones."""
        full = list(_global_backward_hooks.values())
        non_full = []
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        elif self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _register_non_full_backward_hooks(self, args, result, hooks):
        """Legacy ``register_backward_hook``: hook the grad_fn of the first output tensor.
        That node sees the gradients of its own inputs only, which are the module's inputs
        only when forward recorded a single node: otherwise PyTorch warns, and so do we."""
        var = result
        while not isinstance(var, Tensor):
            var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
        grad_fn = var.grad_fn
        if grad_fn is None:
            return
        for hook in hooks:
            wrapper = functools.partial(hook, self)
            functools.update_wrapper(wrapper, hook)
            grad_fn.register_hook(wrapper)
        _warn_if_hook_misses_gradients(args, result, grad_fn)

    # ----- registering hooks ---------------------------------------------------------
    @staticmethod
    def _add_hook(hooks, hook, prepend=False, flags=()):
        """Store ``hook`` in ``hooks`` under a fresh handle id; ``flags`` are dicts that mark
        the id (e.g. ``with_kwargs``) and are cleaned up by ``handle.remove()`` too."""
        ### BEGIN SOLUTION 8.1
        handle = RemovableHandle(hooks, *flags)
        hooks[handle.id] = hook
        for flag in flags:
            flag[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle
        ### END SOLUTION 8.1

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before each ``forward``.

        It may return None (keep the arguments), a tuple of new positional
        arguments, or a single value (used as the only argument).  With
        ``with_kwargs=True`` it is called as ``hook(module, args, kwargs)`` and
        returns None or ``(args, kwargs)``.  Returns a handle whose ``remove()``
        unregisters the hook.
        """
        ### BEGIN SOLUTION 8.1
        flags = (self._forward_pre_hooks_with_kwargs,) if with_kwargs else ()
        return self._add_hook(self._forward_pre_hooks, hook, prepend, flags)
        ### END SOLUTION 8.1

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Call ``hook(module, args, output)`` after each ``forward``; a non-None
        return value replaces the output.  Changing ``args`` here no longer affects
        forward, which has already run."""
        ### BEGIN SOLUTION 8.1
        flags = (self._forward_hooks_with_kwargs,) if with_kwargs else ()
        if always_call:
            flags += (self._forward_hooks_always_called,)
        return self._add_hook(self._forward_hooks, hook, prepend, flags)
        ### END SOLUTION 8.1

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_output)`` when the gradients of the outputs are ready;
        a returned tuple replaces ``grad_output``."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_input, grad_output)`` once the gradients of the module's
        inputs are computed.  Both are tuples with one entry per positional argument
        (per output), None where there is no tensor; a returned tuple replaces ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Legacy backward hook on the grad_fn of the output; prefer ``register_full_backward_hook``."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        return self._add_hook(self._backward_hooks, hook)

    # ================================================================================
    # state_dict / load_state_dict
    # ================================================================================
    def _register_state_dict_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata)`` at the end of
        ``state_dict()``; a non-None return value replaces the state dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        return self._add_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata)`` at the end of
        ``state_dict()``.  It may edit the state dict in place, and must return None
        (unlike the older ``_register_state_dict_hook``, whose hooks may replace it)."""
        hook._from_public_api = True
        return self._add_hook(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """Call ``hook(module, prefix, keep_vars)`` at the start of ``state_dict()``."""
        return self._add_hook(self._state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """Call ``hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries
        (``hook(module, ...)`` with ``with_module=True``).  It may edit ``state_dict``."""
        if with_module:
            hook = functools.partial(hook, self)
        return self._add_hook(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Call ``hook(module, incompatible_keys)`` after a successful ``load_state_dict``."""
        return self._add_hook(self._load_state_dict_post_hooks, hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own parameters and persistent buffers into ``destination``."""
        ### BEGIN SOLUTION 8.2
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        ### END SOLUTION 8.2

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered dict of every parameter and persistent buffer of the tree, by dotted
        name.

        Values are detached tensors sharing memory with the module (so a later
        training step changes them too: copy them, or save them, to keep a
        snapshot); ``keep_vars=True`` gives the Parameters themselves.
        The legacy positional form ``state_dict(destination, prefix, keep_vars)``
        still works, with a FutureWarning "Positional args are being deprecated, use
        kwargs instead." (PyTorch adds a link to its documentation).
        """
        ### BEGIN SOLUTION 8.2
        if args:    # the legacy positional form state_dict(destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead.",
                          FutureWarning, stacklevel=2)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                if getattr(hook, "_from_public_api", False):
                    raise RuntimeError("state_dict post-hook must return None")
                destination = result
        return destination
        ### END SOLUTION 8.2

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        """Load this module's own entries (not its children's): copy each value into its
        parameter or buffer, in place.  With ``local_metadata["assign_to_params_buffers"]``
        (``load_state_dict(assign=True)``) the checkpoint's tensor takes the place instead.

        Problems are appended to the three lists, not raised; ``load_state_dict``
        reports them all at the end.  A subclass overrides this to read old
        checkpoints: edit ``state_dict`` (keys start with ``prefix``), then call
        ``super()._load_from_state_dict(...)``.
        """
        ### BEGIN SOLUTION 8.2
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {name: p for name, p in self._parameters.items() if p is not None}
        persistent = self._non_persistent_buffers_set
        local_state.update((name, b) for name, b in self._buffers.items()
                           if b is not None and name not in persistent)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "minitorch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                continue
            if param.ndim == 0 and tuple(value.shape) == (1,):   # as PyTorch: 0.3-era files
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        self._assign_loaded(name, param, value)
                    else:
                        param.copy_(value)
            except Exception as error:
                error_msgs.append(f'While copying the parameter named "{key}", whose '
                                  f"dimensions in the model are {param.shape} and whose "
                                  f"dimensions in the checkpoint are {value.shape}, an "
                                  f"exception occurred : {error.args}.")
        if strict:
            unexpected_keys += _unexpected_keys(self, state_dict, prefix, local_state)
        ### END SOLUTION 8.2

    def _assign_loaded(self, name, old, value):
        """``load_state_dict(assign=True)``: ``value`` itself replaces ``old`` (a parameter
        stays a Parameter, with the same ``requires_grad``)."""
        ### BEGIN SOLUTION 8.2
        if isinstance(old, Parameter):
            if isinstance(value, Parameter):
                value.requires_grad_(old.requires_grad)
            else:
                value = Parameter(value, requires_grad=old.requires_grad)
        setattr(self, name, value)
        ### END SOLUTION 8.2

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from ``state_dict`` into this tree's parameters and buffers, in
        place.

        With ``strict=True`` (the default) the keys must match ``state_dict()``'s
        exactly.  Shapes must always match; values are converted to each
        tensor's dtype.  With ``assign=True`` the checkpoint's tensors replace
        the module's instead of being copied (keeping their dtype).  Returns
        ``(missing_keys, unexpected_keys)``.

        Each module loads its own entries with ``_load_from_state_dict``, parents
        before children; errors are collected and raised together at the end.
        A failed non-strict load keeps what it copied, as PyTorch's does; a
        failed strict load puts every value back (PyTorch's keeps them): when it
        raises, the model is as it was.

        A ``state_dict`` that is not a mapping is a TypeError "Expected state_dict to
        be dict-like, got <type>.".  Otherwise the problems raise one RuntimeError,
        "Error(s) in loading state_dict for <Class>:" and then each problem after
        "\\n\\t": with ``strict``, first 'Missing key(s) in state_dict: "<key>", "<key>". '
        and 'Unexpected key(s) in state_dict: "<key>". ' (see ``_unexpected_keys``);
        then, per entry, in the order they were met, 'While copying the parameter named
        "<key>", expected minitorch.Tensor or Tensor-like object from checkpoint but
        received <type>' for a value that is not a Tensor (``<type>`` as ``type(value)``
        prints, e.g. <class 'int'>), and "size mismatch for <key>: copying a param with
        shape <checkpoint's shape> from checkpoint, the shape in current model is
        <model's shape>." when the shapes differ (the same number of elements in
        another shape is a mismatch too).
        """
        ### BEGIN SOLUTION 8.2
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)     # pre-hooks may edit it: work on a copy
        if metadata is not None:
            state_dict._metadata = metadata
        with _restored_on_error(self) if strict else contextlib.nullcontext():
            _load_tree(self, state_dict, "", metadata, assign, missing_keys,
                       unexpected_keys, error_msgs)
            if strict:
                if unexpected_keys:
                    error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)))
                if missing_keys:
                    error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)))
            if error_msgs:
                raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                    self._get_name(), "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)
        ### END SOLUTION 8.2


def _load_tree(module, state_dict, prefix, metadata, assign, missing_keys, unexpected_keys,
               error_msgs):
    """Load ``module``'s own entries, then each child's (given the entries under its
    prefix), then run ``module``'s load post-hooks."""
    ### BEGIN SOLUTION 8.2
    local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
    if assign:
        local_metadata["assign_to_params_buffers"] = True
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, missing_keys,
                                 unexpected_keys, error_msgs)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}
            _load_tree(child, child_state, child_prefix, metadata, assign, missing_keys,
                       unexpected_keys, error_msgs)
    incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, incompatible) is not None:
            raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` "
                                 "are not expected to return new values, if incompatible_keys "
                                 "need to be modified, it should be done inplace.")
    ### END SOLUTION 8.2


def _unexpected_keys(module, state_dict, prefix, local_state):
    """The keys under ``prefix`` that ``module`` cannot place, in ``state_dict``'s order.
    Take the rest of the key after ``prefix``: with no dot, it must be the name of one
    of ``local_state``'s entries; with a dot, the part before the first dot must be the
    name of one of the module's children (the child judges the rest).  So with a child
    "0", "0" alone is unexpected here, while "0.weight.x" is left to the child (which
    reports it: "weight" names none of its children)."""
    ### BEGIN SOLUTION 8.2
    unexpected = []
    for key in state_dict:
        if key.startswith(prefix):
            first, dot, _ = key[len(prefix):].partition(".")
            if (first not in module._modules) if dot else (first not in local_state):
                unexpected.append(key)
    return unexpected
    ### END SOLUTION 8.2


@contextlib.contextmanager
def _restored_on_error(root):
    """If the block raises, put every parameter and buffer of the tree back: the same
    objects in the modules' dicts, holding the values they had."""
    ### BEGIN SOLUTION 8.2
    saved = [(m, dict(m._parameters), dict(m._buffers)) for m in root.modules()]
    values = {id(t): (t, t.detach().clone()) for _, params, buffers in saved
              for t in (*params.values(), *buffers.values()) if t is not None}
    try:
        yield
    except BaseException:
        for module, params, buffers in saved:
            module._parameters.clear()
            module._parameters.update(params)
            module._buffers.clear()
            module._buffers.update(buffers)
        with no_grad():
            for tensor, value in values.values():
                tensor.copy_(value)
        raise
    ### END SOLUTION 8.2

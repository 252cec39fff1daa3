"""Devices: minitorch runs on the CPU only, and says so clearly for anything else.

PyTorch code mentions devices everywhere (``device = "cuda" if
torch.cuda.is_available() else "cpu"``, ``x.to(device)``, ``model.cuda()``).
With minitorch ``torch.cuda.is_available()`` is False, ``torch.device("cuda")``
can still be constructed (as in PyTorch), and putting data there raises an
error that names cuda and says this library runs on the CPU only.
"""

import types

from . import _dtype

__all__ = ["device", "cuda", "backends", "accelerator", "set_default_device",
           "get_default_device", "parse_to", "no_cuda_error"]


class device:
    """A device name: ``device("cpu")``, ``device("cuda", 0)``, ``device("cuda:1")``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        if not isinstance(type, str):
            raise TypeError(f"device() expects a string such as 'cpu', got "
                            f"{type.__class__.__name__}")
        if ":" in type:
            type, _, number = type.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{number}'")
            index = int(number)
        if type not in _KNOWN_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(sorted(_KNOWN_TYPES))} device type "
                               f"at start of device string: {type}")
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_KNOWN_TYPES = {"cpu", "cuda", "mps", "meta", "xpu", "hip", "xla", "lazy", "vulkan", "mkldnn",
                "opengl", "opencl", "ideep", "ve", "fpga", "maia", "hpu", "mtia",
                "privateuseone"}


def no_cuda_error(what="cuda", error=None):
    """The error for data put on device ``what``, of the type PyTorch 2.13 raises.

    A build of PyTorch without CUDA raises an ``AssertionError`` ("Torch not compiled
    with CUDA enabled") for tensors made on or moved to ``cuda``; an index alone
    (``to(0)``) and other device types (``mps``...) get a ``RuntimeError``.  ``error``
    forces the type where PyTorch uses another one for the same refusal.
    """
    kind = what.split(":")[0]
    advice = (f"minitorch runs on the CPU only, so tensors cannot be moved to '{what}'. Use "
              "device='cpu' (code that picks 'cuda' if torch.cuda.is_available() else 'cpu' "
              "works as it is).")
    if kind == "cuda":
        return (error or AssertionError)(f"Torch not compiled with CUDA enabled: {advice}")
    if kind == "mps":
        return (error or RuntimeError)(
            f"PyTorch is not linked with support for mps devices: {advice}")
    return (error or RuntimeError)(f"{kind} is not available: {advice}")


def check_device(value):
    """Accept None, "cpu", device("cpu"); refuse any other device clearly."""
    if value is None:
        return
    if isinstance(value, int) and not isinstance(value, bool):
        raise RuntimeError(f"Cannot access accelerator device when none is available: "
                           f"minitorch runs on the CPU only, so there is no device {value}. "
                           "Use device='cpu'.")
    d = device(value) if not isinstance(value, device) else value
    if d.type != "cpu":
        raise no_cuda_error(str(d))


def _looks_like_device(x):
    return isinstance(x, (str, device)) or isinstance(x, int) and not isinstance(x, bool)


def parse_to(args, kwargs):
    """The dtype and copy flag of ``x.to(...)``: ``to(dtype)``, ``to(device)``,
    ``to(device, dtype)``, ``to(other_tensor)``, with keywords as in PyTorch."""
    unknown = set(kwargs) - {"dtype", "device", "non_blocking", "copy", "memory_format"}
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    dtype = kwargs.get("dtype")
    check_device(kwargs.get("device"))
    rest = list(args)
    if rest and hasattr(rest[0], "_data") and hasattr(rest[0], "dtype"):   # a tensor
        dtype = rest.pop(0).dtype
    elif rest and _looks_like_device(rest[0]):
        check_device(rest.pop(0))
    if rest and (isinstance(rest[0], _dtype.dtype) or rest[0] in (float, int, bool)):
        dtype = _dtype.as_dtype(rest.pop(0), "to")
    if rest and isinstance(rest[0], bool):       # non_blocking
        rest.pop(0)
    if rest and isinstance(rest[0], bool):       # copy
        kwargs = dict(kwargs, copy=rest.pop(0))
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments: {args!r}; "
                        "expected to(dtype), to(device[, dtype]) or to(tensor)")
    if dtype in (float, int, bool):
        dtype = _dtype.as_dtype(dtype, "to")
    if dtype is not None and not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"to(): dtype must be a minitorch dtype, not {dtype!r}")
    return dtype, bool(kwargs.get("copy", False))


_TYPE_NAMES = {f"torch.{d.type_name}Tensor": d for d in
               (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.int64, _dtype.int32,
                _dtype.int16, _dtype.int8, _dtype.uint8, _dtype.bool)}


def dtype_from_type_name(value):
    """``x.type(torch.float64)`` or ``x.type("torch.DoubleTensor")``."""
    if isinstance(value, _dtype.dtype):
        return value
    if isinstance(value, str):
        name = value.replace("minitorch.", "torch.")
        if name.startswith("torch.cuda."):
            raise no_cuda_error(error=RuntimeError)
        if name in _TYPE_NAMES:
            return _TYPE_NAMES[name]
    raise ValueError(f"invalid type: {value!r}; use a dtype such as minitorch.float64 or a "
                     "name such as 'torch.DoubleTensor'")


def _is_available():
    return False


def _device_count():
    return 0


cuda = types.ModuleType("minitorch.cuda", "CUDA is not available: minitorch runs on the CPU only.")
cuda.is_available = _is_available
cuda.device_count = _device_count
cuda.manual_seed = lambda seed: None
cuda.manual_seed_all = lambda seed: None
cuda.synchronize = lambda device=None: None
cuda.empty_cache = lambda: None
cuda.is_initialized = _is_available


backends = types.ModuleType("minitorch.backends", "Accelerator back ends: none, CPU only.")
backends.mps = types.ModuleType("minitorch.backends.mps")
backends.mps.is_available = _is_available
backends.mps.is_built = _is_available
backends.cudnn = types.ModuleType("minitorch.backends.cudnn")
backends.cudnn.is_available = _is_available
backends.cudnn.deterministic = False
backends.cudnn.benchmark = False


def _no_accelerator(*args, **kwargs):
    raise RuntimeError("Cannot access accelerator device when none is available. minitorch "
                       "runs on the CPU only: check torch.accelerator.is_available() first.")


def _current_accelerator(check_available=False):
    """The accelerator's device, or None: minitorch has none (PyTorch's answer on a CPU)."""
    return None


accelerator = types.ModuleType(
    "minitorch.accelerator", "The current accelerator: none, so code that picks "
    "torch.accelerator.current_accelerator() if torch.accelerator.is_available() else 'cpu' "
    "chooses the CPU.")
accelerator.is_available = _is_available
accelerator.device_count = _device_count
accelerator.current_accelerator = _current_accelerator
for _name in ("current_device_index", "current_device_idx", "set_device_index",
              "set_device_idx", "synchronize", "empty_cache", "current_stream", "set_stream",
              "memory_allocated", "max_memory_allocated", "memory_reserved",
              "max_memory_reserved", "memory_stats", "reset_peak_memory_stats"):
    setattr(accelerator, _name, _no_accelerator)
del _name


def set_default_device(device):
    """Where new tensors go: the CPU (or None, the same).  PyTorch accepts "cuda" here
    and fails at the next creation; minitorch refuses it at once, with the same error."""
    check_device(device)


def get_default_device():
    """Always ``device(type='cpu')``."""
    return _CPU


_CPU = device("cpu")

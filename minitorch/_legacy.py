"""``torch.FloatTensor([...])`` and its kin: the constructors of PyTorch before 0.4 (chapter 3).

Old tutorials build tensors with one class per dtype: ``FloatTensor(data)``,
``LongTensor(2, 3)``.  Today ``torch.tensor(data, dtype=...)`` and
``torch.empty(2, 3, dtype=...)`` say the same; these names remain so that such
code runs.  Each is also a type test: ``isinstance(x, torch.FloatTensor)`` is
true for a float32 tensor, as ``x.type()`` reports ``'torch.FloatTensor'``.
"""

import numbers

from . import _dtype, _creation, _device
from ._tensor import Tensor, Size

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class tensortype(type):
    """The class of ``FloatTensor`` and its kin: calling one builds a tensor of its dtype."""

    def __instancecheck__(cls, other):
        return isinstance(other, Tensor) and other.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        if device is not None and _device.device(device).type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{_device.device(device).type} was passed: minitorch runs on "
                               "the CPU only")
        if not args:
            return _creation.empty(0, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return cls._alias(args[0])
        if len(args) == 1 and isinstance(args[0], Size) or _all_ints(args):
            return _creation.empty(*args, dtype=cls.dtype)
        if len(args) > 1:
            raise TypeError(f"new() received an invalid combination of arguments: {cls.__name__}"
                            f" takes one sequence of values or sizes as ints, got {len(args)} "
                            "arguments")
        return cls._from_data(args[0])

    def _alias(cls, tensor):
        if tensor.dtype != cls.dtype:
            raise TypeError(f"expected {cls.dtype} (got {tensor.dtype}): convert it first, "
                            f"e.g. tensor.to({cls.dtype})")
        return tensor.view_as(tensor)       # a view: same memory, same graph

    def _from_data(cls, data):
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        if isinstance(data, numbers.Number):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__}): "
                            f"write {cls.__name__}([{data}]) for one value")
        return _creation.tensor(data, dtype=cls.dtype)


def _all_ints(args):
    return all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args)


def _legacy_type(dtype):
    name = dtype.type_name + "Tensor"
    return tensortype(name, (), {"dtype": dtype, "__module__": "minitorch",
                                 "__doc__": f"``{name}(data)``: a {dtype} tensor "
                                            "(the pre-0.4 constructor)."})


FloatTensor = _legacy_type(_dtype.float32)
DoubleTensor = _legacy_type(_dtype.float64)
HalfTensor = _legacy_type(_dtype.float16)
LongTensor = _legacy_type(_dtype.int64)
IntTensor = _legacy_type(_dtype.int32)
ShortTensor = _legacy_type(_dtype.int16)
CharTensor = _legacy_type(_dtype.int8)
ByteTensor = _legacy_type(_dtype.uint8)
BoolTensor = _legacy_type(_dtype.bool)

"""``minitorch.ops.aten`` names every op (chapters 19-21): a graph shows
``minitorch.ops.aten.sin``, never a class path, whether the op defines its forward or
inherits it (``Sin`` inherits ``_SavesInput``'s, ``Log1p`` ``_OfInput``'s)."""

import pytest

import minitorch
from minitorch.ops import aten, exponential, pointwise, rounding, trig
from minitorch.nn._functions import activation

pytestmark = pytest.mark.chapter19


@pytest.mark.parametrize("cls, name", [
    (trig.Sin, "sin"), (trig.Cos, "cos"), (exponential.Log1p, "log1p"),
    (exponential.Expm1, "expm1"), (rounding.Floor, "floor"),
    (pointwise.TanhGrad, "tanh_grad"), (pointwise.Exp, "exp"),
])
def test_ops_that_inherit_their_forward_have_a_name_too(cls, name):
    op = aten.op_for(cls)
    assert repr(op) == f"minitorch.ops.aten.{name}"
    assert aten.lookup(name) is op


def test_where_two_ops_share_a_class_name_the_tensor_methods_op_has_the_plain_one():
    x = minitorch.tensor([0.5], requires_grad=True)
    assert aten.lookup("log1p").function is x.log1p().grad_fn._forward_cls \
        is exponential.Log1p
    assert aten.lookup("log1p_activation").function is activation.Log1p
    assert aten.lookup("erf").function is exponential.Erf


def test_base_classes_that_inherit_their_forward_are_not_ops():
    names = {op.function.__name__ for op in aten.all_ops().values()
             if hasattr(op, "function") and not getattr(op, "is_method", False)}
    assert "Function" not in names and "BuiltinFunction" not in names

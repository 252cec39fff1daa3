"""forward_ad's API as PyTorch 2.13's: dual levels, make_dual/unpack_dual and their errors,
tangents through views and in-place ops, reverse mode through tangents, Function.jvp in
both styles.  Expected values and messages from PyTorch 2.13 on the same calls."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD

from ..doubling import Doubling

pytestmark = pytest.mark.chapter12

d = torch.float64
x = torch.tensor([0.5, -1.0, 2.0], dtype=d)
y = torch.tensor([1.5, 0.25, -0.75], dtype=d)
v = torch.tensor([1.0, 2.0, -1.0], dtype=d)


def test_make_dual_needs_a_level():
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, v)


def test_unpack_dual_is_a_namedtuple_and_gives_none_without_tangent():
    primal, tangent = fwAD.unpack_dual(x)
    assert primal is x and tangent is None
    with fwAD.dual_level():
        unpacked = fwAD.unpack_dual(fwAD.make_dual(x, v))
        assert type(unpacked).__name__ == "UnpackedDualTensor"
        assert unpacked._fields == ("primal", "tangent")
        assert unpacked.tangent is v and fwAD.unpack_dual(unpacked.primal).tangent is None


@pytest.mark.parametrize("call, error, message", [
    (lambda: fwAD.make_dual(x, torch.ones(4, dtype=d)), RuntimeError,
     "Trying to set a forward gradient that has a different size than that of the original "
     "Tensor, this is not supported. Tensor is of size [3] while the given forward gradient "
     "is of size [4]."),
    (lambda: fwAD.make_dual(torch.arange(3), torch.arange(3)), ValueError,
     "Expected primal to be floating point or complex, but got: torch.int64"),
    (lambda: fwAD.enter_dual_level(), RuntimeError,
     "Nested forward mode AD is not supported at the moment"),
    (lambda: fwAD.make_dual(x, v, level=10 ** 6), RuntimeError, "Invalid level given to"),
])
def test_errors_inside_a_level(call, error, message):
    with fwAD.dual_level():
        with pytest.raises(error) as info:
            call()
    assert message.replace("torch.", "minitorch.") in str(info.value)


def test_exit_without_a_level():
    with pytest.raises(RuntimeError, match="Dual level must be a positive number."):
        fwAD.exit_dual_level()


def test_tangents_are_dropped_when_the_level_exits():
    with fwAD.dual_level():
        out = fwAD.make_dual(x, v) * 2
        assert fwAD.unpack_dual(out).tangent.tolist() == [2.0, 4.0, -2.0]
    assert fwAD.unpack_dual(out).tangent is None


def test_a_dtype_mismatch_is_kept_as_given():
    with fwAD.dual_level():
        tangent = v.float()
        assert fwAD.unpack_dual(fwAD.make_dual(x, tangent)).tangent is tangent


def test_views_carry_views_of_the_tangent():
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        z = dual.unsqueeze(0).expand(2, 3).reshape(6)[1:4]
        assert fwAD.unpack_dual(z).tangent.tolist() == [2.0, -1.0, 1.0]
        assert fwAD.unpack_dual(torch.cat([dual, x])).tangent.tolist() == [1.0, 2.0, -1.0,
                                                                            0.0, 0.0, 0.0]


def test_an_in_place_change_through_a_view_updates_the_base_tangent():
    with fwAD.dual_level():
        t = v.clone()
        dual = fwAD.make_dual(x.clone(), t)
        dual[:2].mul_(3.0)
        assert fwAD.unpack_dual(dual).tangent.tolist() == [3.0, 6.0, -1.0]
        assert t.tolist() == [3.0, 6.0, -1.0]        # as in PyTorch: the tangent itself
        w = fwAD.make_dual(x, v).clone()
        w.add_(fwAD.make_dual(y, y))
        w.exp_()
        np.testing.assert_allclose(fwAD.unpack_dual(w).tangent.numpy(),
                                   [18.472640247326627, 1.062824743667283,
                                    -6.1081001755582225], rtol=1e-12)


def test_reverse_mode_through_a_tangent():
    leaf = x.clone().requires_grad_()
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(torch.sin(fwAD.make_dual(leaf, v)) * leaf).tangent
        tangent.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), [0.6378697925882713, -0.6023373578795135,
                                                   2.234741690198506], rtol=1e-12)


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        result = a.exp()
        ctx.save_for_backward(result)
        ctx.save_for_forward(result)
        return result

    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_tensors[0]

    @staticmethod
    def jvp(ctx, t):
        return t * ctx.saved_tensors[0] * 2     # twice the truth: shows that jvp is used


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(a):
        return a ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        raise AssertionError("not used")

    @staticmethod
    def jvp(ctx, t):
        a, = ctx.saved_tensors
        return 3 * a ** 2 * t


def test_function_jvp_in_both_styles():
    with fwAD.dual_level():
        out = Exp.apply(fwAD.make_dual(x, v))
        np.testing.assert_allclose(fwAD.unpack_dual(out).tangent.numpy(),
                                   [3.2974425414002564, 1.4715177646857693,
                                    -14.7781121978613], rtol=1e-12)
        assert fwAD.unpack_dual(Cube.apply(fwAD.make_dual(x, v))).tangent.tolist() == \
            [0.75, 6.0, -12.0]


def test_a_function_without_jvp_says_what_to_write():
    with fwAD.dual_level():
        with pytest.raises(NotImplementedError, match="You must implement the jvp function "
                           "for custom autograd.Function to use it with forward mode AD."):
            Doubling.apply(fwAD.make_dual(x, v))


def test_save_for_forward_takes_tensors_only():
    class Bad(Exp):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_forward(3)
            return a * 1
    with fwAD.dual_level():
        with pytest.raises(AssertionError, match="save_for_forward expects all arguments to be "
                           "tensors"):
            Bad.apply(fwAD.make_dual(x, v))


def test_no_level_means_no_transform_on_the_op_path():
    from minitorch.autograd import function
    assert function.transform_apply[0] is None
    with fwAD.dual_level():
        assert function.transform_apply[0] is not None
    assert function.transform_apply[0] is None


def _doubling_with_jvp(returns):
    """A custom Function computing 2x whose jvp returns ``returns(tangent)``."""
    class DoublingWithJvp(Doubling):
        @staticmethod
        def jvp(ctx, tangent):
            return returns(tangent)
    return DoublingWithJvp


# Expected messages from PyTorch 2.13, for a (2, 3) float64 input with a tangent.
@pytest.mark.parametrize("returns, message", [
    (lambda t: torch.zeros(3, 4, dtype=t.dtype),
     "Trying to set a forward gradient that has a different size than that of the original "
     "Tensor, this is not supported. Tensor is of size [2, 3] while the given forward "
     "gradient is of size [3, 4]."),
    (lambda t: (t, t),
     "Function's jvp returned an invalid number of forward gradients (expected 1 but got 2)"),
    (lambda t: 1.5, "expected Variable or None (got float) for grad output 0."),
])
def test_a_custom_jvp_result_is_checked_as_pytorch_checks_it(returns, message):
    with fwAD.dual_level():
        x = fwAD.make_dual(torch.ones(2, 3, dtype=torch.float64),
                           torch.ones(2, 3, dtype=torch.float64))
        with pytest.raises(RuntimeError) as info:
            _doubling_with_jvp(returns).apply(x)
    assert str(info.value) == message


class _Product(torch.autograd.Function):
    """``a * b`` in the setup_context style; its jvp records the tangents it was given."""
    seen = []

    @staticmethod
    def forward(a, b):
        return a * b

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.set_materialize_grads(_Product.materialize)
        ctx.save_for_forward(*inputs)

    @staticmethod
    def jvp(ctx, ta, tb):
        _Product.seen.append((None if ta is None else ta.tolist(),
                              None if tb is None else tb.tolist()))
        a, b = ctx.saved_tensors
        terms = [tan * other for tan, other in ((ta, b), (tb, a)) if tan is not None]
        return terms[0] if len(terms) == 1 else terms[0] + terms[1]

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


@pytest.mark.parametrize("materialize, seen", [
    (True, [([1.0, 1.0], [0.0, 0.0]), ([0.0, 0.0], [2.0, 2.0])]),
    (False, [([1.0, 1.0], None), (None, [2.0, 2.0])]),      # PyTorch 2.13
])
def test_set_materialize_grads_false_gives_jvp_none_for_missing_tangents(materialize, seen):
    _Product.materialize, _Product.seen = materialize, []
    a = torch.tensor([1.0, 2.0], dtype=d)
    b = torch.tensor([3.0, 4.0], dtype=d)
    with fwAD.dual_level():
        first = _Product.apply(fwAD.make_dual(a, torch.ones(2, dtype=d)), b)
        second = _Product.apply(a, fwAD.make_dual(b, torch.full((2,), 2.0, dtype=d)))
        assert fwAD.unpack_dual(first).tangent.tolist() == [3.0, 4.0]
        assert fwAD.unpack_dual(second).tangent.tolist() == [2.0, 4.0]
    assert _Product.seen == seen
    _Product.seen = []
    out = torch.func.jvp(lambda z: _Product.apply(z, b), (a,), (torch.ones(2, dtype=d),))
    assert out[1].tolist() == [3.0, 4.0] and _Product.seen == seen[:1]

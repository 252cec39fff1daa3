"""vmap of a custom Function with ``generate_vmap_rule=True`` (chapter 13): the Function is
applied once to the whole batch, its forward, setup_context, backward and jvp run per
example under vmap, so gradients come from its own backward, as in PyTorch 2.13 (whose
values are written in here). Running forward's ops on the batch instead differentiates
forward, which a Function with a backward of its own does not do."""

import pytest

import minitorch as torch
from minitorch.func import grad, jacfwd, jacrev, jvp, vmap

pytestmark = pytest.mark.chapter13

Function = torch.autograd.Function


class Twice(Function):
    """A backward twice forward's derivative: which of the two a gradient follows shows."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * 1.0

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return 2 * g


class Scale(Function):
    """x * w * k with x saved, w kept as an attribute and k a number."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x, w, k):
        return x * w * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w, k = inputs
        ctx.save_for_backward(x)
        ctx.w, ctx.k, ctx.shape = w, k, tuple(x.shape)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        assert tuple(g.shape) == ctx.shape          # one example's gradient
        return g * ctx.w * ctx.k, g * x * ctx.k, None


class Square(Function):
    """x * x, x saved for backward and the output for jvp; ``shapes`` lists the shapes
    setup_context was given."""
    generate_vmap_rule = True
    shapes = []

    @staticmethod
    def forward(x):
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        Square.shapes.append(tuple(inputs[0].shape))
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def jvp(ctx, t):
        out, = ctx.saved_tensors          # the output: not x * x's true tangent
        return out * t


def rows():
    return torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)


def test_the_gradient_comes_from_the_functions_backward():
    x = rows()
    out = vmap(Twice.apply)(x)
    assert type(out.grad_fn).__name__ == "VmappedTwiceBackward"
    out.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]


@pytest.mark.parametrize("transform", ["vmap(grad)", "grad(vmap)", "vmap(vmap)"])
def test_composed_transforms_use_the_backward_too(transform):
    t = torch.ones(3, 2)
    if transform == "vmap(grad)":
        got = vmap(grad(lambda r: Twice.apply(r).sum()))(t)
    elif transform == "grad(vmap)":
        got = grad(lambda b: vmap(Twice.apply)(b).sum())(t)
    else:
        x = rows()
        vmap(vmap(Twice.apply))(x).sum().backward()
        got = x.grad
    assert got.tolist() == [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]


def test_an_input_that_is_not_mapped_gets_the_sum_of_the_examples_gradients():
    x, w = rows(), torch.tensor([10., 20.], requires_grad=True)
    out = vmap(Scale.apply, in_dims=(0, None, None))(x, w, 3.0)
    assert out.tolist() == [[30.0, 120.0], [90.0, 240.0], [150.0, 360.0]]
    (out * torch.tensor([1., -1.])).sum().backward()
    assert x.grad.tolist() == [[30.0, -60.0], [30.0, -60.0], [30.0, -60.0]]
    assert w.grad.tolist() == [27.0, -36.0]
    per_example = vmap(grad(lambda r: Scale.apply(r, w.detach(), 2.0).sum()))(x.detach())
    assert per_example.tolist() == [[20.0, 40.0], [20.0, 40.0], [20.0, 40.0]]


def test_setup_context_sees_one_example_and_each_saved_tensor_is_packed_once():
    packs = []
    Square.shapes.clear()

    x = rows()
    with torch.autograd.graph.saved_tensors_hooks(
            lambda t: packs.append(tuple(t.shape)) or t, lambda t: t):
        out = vmap(Square.apply)(x)
    out.sum().backward()
    assert Square.shapes == [(2,)] and packs == [(3, 2)]
    assert x.grad.tolist() == [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]


def test_forward_mode_uses_the_functions_jvp():
    class Cube(Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("forward mode does not call backward")

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return 30 * x * x * t                   # ten times the true tangent

    x = torch.tensor([[1., 2.], [3., 4.]])
    assert jvp(vmap(Cube.apply), (x,), (torch.ones(2, 2),))[1].tolist() == [
        [30.0, 120.0], [270.0, 480.0]]
    assert vmap(jacfwd(Cube.apply))(x).tolist() == [
        [[30.0, 0.0], [0.0, 120.0]], [[270.0, 0.0], [0.0, 480.0]]]


def test_jacrev_of_a_vmapped_function_uses_the_backward():
    got = jacrev(lambda t: vmap(Twice.apply)(t))(torch.ones(2, 1))
    assert got.tolist() == [[[[2.0], [0.0]]], [[[0.0], [2.0]]]]


def test_without_a_jvp_forward_mode_raises_pytorchs_error():
    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        jvp(vmap(Twice.apply), (torch.ones(2, 2),), (torch.ones(2, 2),))


def test_marking_an_input_dirty_is_refused_and_non_differentiable_is_ignored():
    class AddOne(Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            x.add_(1)
            return x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_dirty(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError):
        vmap(AddOne.apply)(torch.zeros(3, 2))

    class WithMask(Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * 2, (x > 0).float()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, g, g_mask):
            return 2 * g

    x = rows()
    doubled, mask = vmap(WithMask.apply)(x)
    assert (doubled.requires_grad, mask.requires_grad) == (True, True)   # as PyTorch 2.13
    doubled.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]


def test_an_input_it_saved_and_changed_in_place_after_is_caught_at_backward():
    x = rows() * 1
    out = vmap(Square.apply)(x)
    x.mul_(5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_backward_and_jvp_each_read_what_was_saved_for_them():
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    assert jvp(vmap(Square.apply), (x.detach(),), (torch.ones(2, 2),))[1].tolist() == [
        [1.0, 4.0], [9.0, 16.0]]
    vmap(Square.apply)(x).sum().backward()
    assert x.grad.tolist() == [[2.0, 4.0], [6.0, 8.0]]

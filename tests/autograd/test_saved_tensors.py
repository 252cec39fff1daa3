"""Saved tensors: _saved_self/_saved_result, version counters, the in-place check, hooks."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd.graph import saved_tensors_hooks

pytestmark = pytest.mark.chapter5


@pytest.mark.task("5.3")
def test_pow_saves_the_input_itself():
    x = minitorch.rand(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self)
    assert x is y.grad_fn._saved_self
    assert y.grad_fn._saved_exponent == 2


@pytest.mark.task("5.3")
def test_exp_saves_an_equal_copy_of_its_output():
    x = minitorch.rand(5, requires_grad=True)
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert y.equal(saved)
    assert y is not saved
    assert np.shares_memory(saved.detach().numpy(), y.detach().numpy())
    assert saved.grad_fn is y.grad_fn     # its link back is restored on unpack


@pytest.mark.task("5.3")
def test_mul_saves_only_what_the_gradients_need():
    # PyTorch 2.13: d(a*b)/da = b, so with only `a` requiring grad only `other` is kept.
    a = minitorch.ones(2, requires_grad=True)
    b = minitorch.ones(2)
    y = a * b
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other is b
    z = a * a
    assert z.grad_fn._saved_self is a and z.grad_fn._saved_other is a


def test_views_and_detach_share_the_version_counter():
    x = minitorch.ones(3)
    v, d, w = x[1:], x.detach(), x.view(3)
    v.add_(1)
    assert (x._version, v._version, d._version, w._version) == (1, 1, 1, 1)
    assert x.tolist() == [1.0, 2.0, 2.0]
    d.mul_(2)
    assert x._version == 2


def test_data_has_its_own_version_counter():
    x = minitorch.ones(3)
    dd = x.data
    dd.add_(1)
    assert x._version == 0 and dd._version == 1
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_every_inplace_op_bumps_the_version():
    x = minitorch.ones(3)
    for op in (lambda t: t.add_(1), lambda t: t.sub_(1), lambda t: t.mul_(2), lambda t: t.div_(2),
               lambda t: t.zero_(), lambda t: t.fill_(3), lambda t: t.copy_(minitorch.ones(3)),
               lambda t: t.__setitem__(0, 5.0)):
        before = x._version
        op(x)
        assert x._version == before + 1


@pytest.mark.task("5.2")
def test_modified_saved_tensor_is_detected():
    p = minitorch.ones(2, requires_grad=True)
    q = p * 2
    s = q ** 2          # saves q
    q.add_(1)
    # (the message as PyTorch 2.13 words it, up to its hint)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch\."
                       r"FloatTensor \[2\]\], which is output 0 of Add, is at version 1; "
                       r"expected version 0 instead"):
        s.grad_fn._saved_self       # unpacking checks the version, as backward does


@pytest.mark.task("5.2")
def test_a_modified_leaf_is_named_by_its_shape_only():
    leaf = minitorch.ones(2, requires_grad=True)
    other = leaf.detach()
    s = leaf * other                # saves other, a tensor no node made
    other.add_(1)
    with pytest.raises(RuntimeError, match=r"inplace operation: \[torch\.FloatTensor \[2\]\] "
                       r"is at version 1; expected version 0 instead"):
        s.grad_fn._saved_other


@pytest.mark.task("5.2")
def test_a_modified_saved_output_is_named_by_the_node_that_saved_it():
    # A saved output is named after the node that made and saved it (Exp here), not after
    # whatever grad_fn the tensor has now (Add, once add_ has rebased it).
    x = minitorch.ones(2, requires_grad=True)
    y = x.exp()                     # ExpBackward0 saves its output y
    y.add_(1)
    exp_node = y.grad_fn.next_functions[0][0]
    # (the message as PyTorch 2.13 words it, up to its hint)
    with pytest.raises(RuntimeError, match=r"inplace operation: \[torch\.FloatTensor \[2\]\], "
                       r"which is output 0 of Exp, is at version 1; expected version 0 "
                       r"instead"):
        exp_node._saved_result


@pytest.mark.task("5.3")
def test_modification_of_unsaved_tensor_is_fine():
    p = minitorch.ones(2, requires_grad=True)
    q = p * 2
    s = q.sigmoid()     # saves its result, not q
    q.add_(1)
    assert s.grad_fn._saved_result.tolist() == s.tolist()


@pytest.mark.task("5.2")
def test_modification_through_a_view_is_detected():
    p = minitorch.ones(4, requires_grad=True)
    q = p.exp()
    s = q ** 2          # saves q
    q.detach()[1:].mul_(3)      # a view of a detached alias: one version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.grad_fn._saved_self


def test_inplace_on_non_leaf_rebases_the_graph():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(1)
    assert y.grad_fn.name() == "AddBackward0"
    y.mul_(y.detach().clone())
    y.sum().backward()
    # y = (2x + 1) * c with c = (2x + 1) held constant
    assert x.grad.tolist() == [6.0, 10.0]


@pytest.mark.task("4.2")
def test_inplace_op_that_overwrites_its_own_saved_operand_is_detected():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(y.detach())      # the saved operand shares y's memory, so the product overwrote it
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_setitem_on_non_leaf():
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = minitorch.tensor(10.0, requires_grad=True)
    y = x * 1
    y[1] = v * 2
    assert y.grad_fn.name() == "torch::autograd::CopySlices"     # PyTorch's name
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    assert v.grad.item() == 2.0


@pytest.mark.task("5.3")
def test_saved_tensors_hooks_pack_and_unpack():
    packed = []

    def pack(t):
        packed.append(t.shape)
        return ("box", t.detach().clone())

    def unpack(box):
        assert box[0] == "box"
        return box[1]

    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    assert packed == [(2,), (2,)]
    mul = y.grad_fn.next_functions[0][0]
    assert mul._saved_self.tolist() == [1.0, 2.0]       # through unpack


@pytest.mark.task("5.3")
def test_saved_tensors_hooks_nest_and_only_apply_inside():
    calls = []
    x = minitorch.ones(1, requires_grad=True)
    with saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t):
            x.exp()
        x.exp()
    x.exp()
    assert calls == ["inner", "outer"]


def _detaching_hooks():
    return saved_tensors_hooks(lambda t: t.detach().clone(), lambda packed: packed)


def test_unpacked_tensors_keep_their_place_in_the_graph():
    # PyTorch 2.13: what the unpack hook returns comes back as a new tensor on its memory,
    # with the saved tensor's graph link: grad_fn for a saved output or non-leaf input,
    # the leaf's AccumulateGrad for a leaf; as returned if the saved tensor needed no grad.
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    c = minitorch.tensor([1.0, 2.0], requires_grad=True) * 1
    w = minitorch.tensor([5.0, 6.0])
    ones = minitorch.ones(2)
    with saved_tensors_hooks(lambda t: None, lambda packed: ones):
        e = a.exp()
        m = a * c
        n = a * w
    out = e.grad_fn._saved_result
    assert out is not ones and out.grad_fn is e.grad_fn and out.requires_grad
    leaf = m.grad_fn._saved_self
    assert leaf is not ones and leaf.grad_fn is None and leaf.requires_grad and leaf.is_leaf
    other = m.grad_fn._saved_other
    assert other is not ones and other.grad_fn is c.grad_fn and other.requires_grad
    assert n.grad_fn._saved_other is ones


def test_double_backward_through_hooked_saved_tensors():
    # PyTorch 2.13: exp -> [e, e^2] twice; (a * a).sum() -> [2, 4] then [2, 2]
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with _detaching_hooks():
        h = a.exp().sum()
    (g,) = minitorch.autograd.grad(h, a, create_graph=True)
    assert g.grad_fn.name() == "MulBackward0"
    (g2,) = minitorch.autograd.grad(g.sum(), a)
    assert np.allclose(g2.numpy(), np.exp([1.0, 2.0]))
    with _detaching_hooks():
        h = (a * a).sum()
    (g,) = minitorch.autograd.grad(h, a, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and g.grad_fn.name() == "AddBackward0"
    (g2,) = minitorch.autograd.grad(g.sum(), a)
    assert g2.tolist() == [2.0, 2.0]


def test_saved_tensors_are_packed_and_unpacked_in_pytorchs_order():
    # PyTorch 2.13: AddmmBackward0 packs (and unpacks) mat1 before mat2, MmBackward0 mat2
    # before self, MulBackward0 other before self.
    events = []

    def pack(t):
        events.append(("pack", tuple(t.shape)))
        return t

    def unpack(t):
        events.append(("unpack", tuple(t.shape)))
        return t

    bias = minitorch.zeros(3, requires_grad=True)
    mat1 = minitorch.ones(2, 4, requires_grad=True)
    mat2 = minitorch.ones(4, 3, requires_grad=True)
    expected = {"addmm": [(2, 4), (4, 3)], "linear": [(2, 4), (4, 3)],
                "mm": [(4, 3), (2, 4)], "mul": [(2, 1), (2, 4)]}
    ops = {"addmm": lambda: minitorch.addmm(bias, mat1, mat2),
           "linear": lambda: minitorch.nn.functional.linear(mat1, mat2.t(), bias),
           "mm": lambda: mat1 @ mat2,
           "mul": lambda: mat1 * minitorch.ones(2, 1, requires_grad=True)}
    for name, op in ops.items():
        events.clear()
        with saved_tensors_hooks(pack, unpack):
            y = op()
        y.sum().backward()
        order = expected[name]
        assert events == [("pack", s) for s in order] + [("unpack", s) for s in order], name

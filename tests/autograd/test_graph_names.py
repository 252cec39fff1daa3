"""The recorded graph, node by node, as PyTorch builds it (chapter 4).

Each row: an expression over the leaves below, and the graph under its result
written as ``Name(child:input_nr, ...)``, with ``None:0`` for an input that
needs no gradient (Python numbers are inputs too: ``x + 2`` has two edges).
The leaf node's own name carries a C++ namespace in PyTorch
(``torch::autograd::AccumulateGrad``); the table drops it, and
``test_leaf_and_copy_node_names`` checks the full names.
"""

import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F

pytestmark = pytest.mark.chapter4


def walk(node, depth=6):
    if node is None:
        return "None"
    name = node.name().replace("torch::autograd::", "")
    if depth == 0 or not node.next_functions:
        return name
    inner = ", ".join(f"{walk(child, depth - 1)}:{nr}" for child, nr in node.next_functions)
    return f"{name}({inner})"


def leaves():
    return dict(x=torch.tensor([1., 2.], requires_grad=True), y=torch.tensor([3., 4.], requires_grad=True),
                m=torch.tensor([[1., 2.], [3., 4.]], requires_grad=True), c=torch.tensor([5., 6.]),
                torch=torch, nn=nn, F=F)


GRAPHS = [
    ('x + 2', 'AddBackward0(AccumulateGrad:0, None:0)'),
    ('2 + x', 'AddBackward0(AccumulateGrad:0, None:0)'),
    ('x + c', 'AddBackward0(AccumulateGrad:0, None:0)'),
    ('x - 2', 'SubBackward0(AccumulateGrad:0, None:0)'),
    ('2 - x', 'RsubBackward1(AccumulateGrad:0)'),
    ('x - y', 'SubBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x * 2', 'MulBackward0(AccumulateGrad:0, None:0)'),
    ('2 * x', 'MulBackward0(AccumulateGrad:0, None:0)'),
    ('x * c', 'MulBackward0(AccumulateGrad:0, None:0)'),
    ('x * y', 'MulBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x / 2', 'DivBackward0(AccumulateGrad:0, None:0)'),
    ('2 / x', 'MulBackward0(ReciprocalBackward0(AccumulateGrad:0):0, None:0)'),
    ('x / y', 'DivBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x / c', 'DivBackward0(AccumulateGrad:0, None:0)'),
    ('c / x', 'DivBackward0(None:0, AccumulateGrad:0)'),
    ('x ** 2', 'PowBackward0(AccumulateGrad:0)'),
    ('x ** 0.5', 'PowBackward0(AccumulateGrad:0)'),
    ('2 ** x', 'PowBackward2(AccumulateGrad:0)'),
    ('x ** y', 'PowBackward1(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x ** torch.tensor(2.)', 'PowBackward1(AccumulateGrad:0, None:0)'),
    ('x ** x', 'PowBackward1(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.pow(2, x)', 'PowBackward2(AccumulateGrad:0)'),
    ('-x', 'NegBackward0(AccumulateGrad:0)'),
    ('x.neg()', 'NegBackward0(AccumulateGrad:0)'),
    ('x + True', 'AddBackward0(AccumulateGrad:0, None:0)'),
    ('x.add(y, alpha=2)', 'AddBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x.sub(y, alpha=2)', 'SubBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x + 1.5 * y', 'AddBackward0(AccumulateGrad:0, MulBackward0(AccumulateGrad:0, None:0):0)'),
    ('torch.add(x, y)', 'AddBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x.exp()', 'ExpBackward0(AccumulateGrad:0)'),
    ('x.log()', 'LogBackward0(AccumulateGrad:0)'),
    ('x.sqrt()', 'SqrtBackward0(AccumulateGrad:0)'),
    ('x.abs()', 'AbsBackward0(AccumulateGrad:0)'),
    ('x.relu()', 'ReluBackward0(AccumulateGrad:0)'),
    ('x.sigmoid()', 'SigmoidBackward0(AccumulateGrad:0)'),
    ('x.tanh()', 'TanhBackward0(AccumulateGrad:0)'),
    ('x.sign()', 'SignBackward0(AccumulateGrad:0)'),
    ('x.clamp(min=0)', 'ClampBackward1(AccumulateGrad:0)'),
    ('x.clamp(max=1)', 'ClampBackward1(AccumulateGrad:0)'),
    ('x.clamp(0, 1)', 'ClampBackward1(AccumulateGrad:0)'),
    ('x.clamp(min=torch.tensor(0.))', 'ClampBackward0(AccumulateGrad:0, None:0, None:0)'),
    ('x.masked_fill(c > 5, 0.)', 'MaskedFillBackward0(AccumulateGrad:0)'),
    ('torch.where(c > 5, x, y)', 'WhereBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.where(c > 5, x, 0.)', 'WhereBackward0(AccumulateGrad:0, None:0)'),
    ('torch.maximum(x, y)', 'MaximumBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.max(x, y)', 'MaximumBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x.sum()', 'SumBackward0(AccumulateGrad:0)'),
    ('x.sum(0)', 'SumBackward1(AccumulateGrad:0)'),
    ('x.sum(dim=0, keepdim=True)', 'SumBackward1(AccumulateGrad:0)'),
    ('m.sum((0, 1))', 'SumBackward1(AccumulateGrad:0)'),
    ('x.sum(dtype=torch.float64)', 'SumBackward0(AccumulateGrad:0)'),
    ('x.mean()', 'MeanBackward0(AccumulateGrad:0)'),
    ('m.mean(0)', 'MeanBackward1(AccumulateGrad:0)'),
    ('x.max()', 'MaxBackward1(AccumulateGrad:0)'),
    ('m.max(0)[0]', 'MaxBackward0(AccumulateGrad:0)'),
    ('m.max(dim=1, keepdim=True).values', 'MaxBackward0(AccumulateGrad:0)'),
    ('x.min()', 'MinBackward1(AccumulateGrad:0)'),
    ('m.min(1)[0]', 'MinBackward0(AccumulateGrad:0)'),
    ('x.softmax(0)', 'SoftmaxBackward0(AccumulateGrad:0)'),
    ('x.log_softmax(0)', 'LogSoftmaxBackward0(AccumulateGrad:0)'),
    ('F.softmax(m, dim=1)', 'SoftmaxBackward0(AccumulateGrad:0)'),
    ('F.log_softmax(m, 1)', 'LogSoftmaxBackward0(AccumulateGrad:0)'),
    ('m.reshape(4)', 'ViewBackward0(AccumulateGrad:0)'),
    ('m.view(4)', 'ViewBackward0(AccumulateGrad:0)'),
    ('m.view(-1)', 'ViewBackward0(AccumulateGrad:0)'),
    ('x.reshape(2)', 'ViewBackward0(AccumulateGrad:0)'),
    ('x.view(2)', 'ViewBackward0(AccumulateGrad:0)'),
    ('m.flatten()', 'ViewBackward0(AccumulateGrad:0)'),
    ('x.flatten()', 'None'),
    ('m.t()', 'TBackward0(AccumulateGrad:0)'),
    ('m.T', 'PermuteBackward0(AccumulateGrad:0)'),
    ('x.t()', 'TBackward0(AccumulateGrad:0)'),
    ('x.T', 'PermuteBackward0(AccumulateGrad:0)'),
    ('m.transpose(0, 1)', 'TransposeBackward0(AccumulateGrad:0)'),
    ('m.permute(1, 0)', 'PermuteBackward0(AccumulateGrad:0)'),
    ('m.mT', 'TransposeBackward0(AccumulateGrad:0)'),
    ('x.unsqueeze(0)', 'UnsqueezeBackward0(AccumulateGrad:0)'),
    ('m.unsqueeze(1).squeeze()', 'SqueezeBackward0(UnsqueezeBackward0(AccumulateGrad:0):0)'),
    ('x.unsqueeze(0).squeeze(0)', 'SqueezeBackward1(UnsqueezeBackward0(AccumulateGrad:0):0)'),
    ('x[None]', 'UnsqueezeBackward0(AccumulateGrad:0)'),
    ('x.expand(3, 2)', 'ExpandBackward0(AccumulateGrad:0)'),
    ('x.expand(2)', 'ExpandBackward0(AccumulateGrad:0)'),
    ('x.expand_as(m)', 'ExpandBackward0(AccumulateGrad:0)'),
    ('m.narrow(0, 0, 1)', 'SliceBackward0(AccumulateGrad:0)'),
    ('m.select(1, 0)', 'SelectBackward0(AccumulateGrad:0)'),
    ('m[0]', 'SelectBackward0(AccumulateGrad:0)'),
    ('m[:, 0]', 'SelectBackward0(AccumulateGrad:0)'),
    ('m[0, 1]', 'SelectBackward0(SelectBackward0(AccumulateGrad:0):0)'),
    ('x[0:1]', 'SliceBackward0(AccumulateGrad:0)'),
    ('x[[0, 1]]', 'IndexBackward0(AccumulateGrad:0)'),
    ('x[torch.tensor([1, 0])]', 'IndexBackward0(AccumulateGrad:0)'),
    ('x[c > 5]', 'IndexBackward0(AccumulateGrad:0)'),
    ('m[..., 0]', 'SelectBackward0(AccumulateGrad:0)'),
    ('x[::1]', 'SliceBackward0(AccumulateGrad:0)'),
    ('m[torch.tensor([[True, False], [False, True]])]', 'IndexBackward0(AccumulateGrad:0)'),
    ('x.clone()', 'CloneBackward0(AccumulateGrad:0)'),
    ('x.float()', 'None'),
    ('x.double()', 'ToCopyBackward0(AccumulateGrad:0)'),
    ('x.to(torch.float64)', 'ToCopyBackward0(AccumulateGrad:0)'),
    ('x.contiguous()', 'None'),
    ('x.view_as(y)', 'ViewBackward0(AccumulateGrad:0)'),
    ('torch.cat([x, y])', 'CatBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.cat([x, c])', 'CatBackward0(AccumulateGrad:0, None:0)'),
    ('torch.cat([x])', 'CatBackward0(AccumulateGrad:0)'),
    ('torch.stack([x, y])', 'StackBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.stack([x])', 'StackBackward0(AccumulateGrad:0)'),
    ('x @ y', 'DotBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('m @ x', 'MvBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('x @ m',
     'SqueezeBackward4(MmBackward0(UnsqueezeBackward0(AccumulateGrad:0):0, '
     'AccumulateGrad:0):0)'),
    ('m @ m', 'MmBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('m.mm(m)', 'MmBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.matmul(m, x)', 'MvBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ('torch.ones(3, 2) @ m', 'MmBackward0(None:0, AccumulateGrad:0)'),
    ('x.sum_to_size(1)', 'SumBackward1(AccumulateGrad:0)'),
    ('m.sum_to_size(1, 2)', 'SumBackward1(AccumulateGrad:0)'),
    ('x.unbind(0)[1]', 'UnbindBackward0(AccumulateGrad:0)'),
    ('x.split(1)[1]', 'SplitBackward0(AccumulateGrad:0)'),
    ('x.chunk(2)[0]', 'SplitBackward0(AccumulateGrad:0)'),
    ('F.relu(x)', 'ReluBackward0(AccumulateGrad:0)'),
    ('F.linear(m, m)', 'MmBackward0(AccumulateGrad:0, TBackward0(AccumulateGrad:0):0)'),
    ('F.linear(m, m, x)',
     'AddmmBackward0(AccumulateGrad:0, AccumulateGrad:0, TBackward0(AccumulateGrad:0):0)'),
    ('F.linear(x, m, x)',
     'ViewBackward0(AddmmBackward0(AccumulateGrad:0, ViewBackward0(AccumulateGrad:0):0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('F.linear(m[None], m, x)',
     'ViewBackward0(AddmmBackward0(AccumulateGrad:0, '
     'ViewBackward0(UnsqueezeBackward0(AccumulateGrad:0):0):0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('F.linear(x, m)',
     'SqueezeBackward4(MmBackward0(UnsqueezeBackward0(AccumulateGrad:0):0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('F.mse_loss(x, c)', 'MseLossBackward0(AccumulateGrad:0, None:0)'),
    ('F.mse_loss(x, y)', 'MseLossBackward0(AccumulateGrad:0, AccumulateGrad:0)'),
    ("F.mse_loss(x, c, reduction='sum')", 'MseLossBackward0(AccumulateGrad:0, None:0)'),
    ("F.mse_loss(x, c, reduction='none')", 'MseLossBackward0(AccumulateGrad:0, None:0)'),
    ('F.cross_entropy(m, torch.tensor([0, 1]))',
     'NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0)'),
    ('F.cross_entropy(x, torch.tensor(1))',
     'NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0)'),
    ("F.cross_entropy(m, torch.tensor([0, 1]), reduction='sum')",
     'NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0)'),
    ('F.cross_entropy(m, torch.tensor([[0.5, 0.5], [0., 1.]]))',
     'DivBackward1(NegBackward0(SumBackward0(MulBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0, '
     'None:0):0):0):0)'),
    ("F.cross_entropy(m, torch.tensor([[0.5, 0.5], [0., 1.]]), reduction='none')",
     'NegBackward0(SumBackward1(MulBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0, None:0):0):0)'),
    ("F.cross_entropy(m, torch.tensor([0, 1]), reduction='sum', label_smoothing=0.1)",
     'AddBackward0(MulBackward1(NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0):0):0, '
     'MulBackward1(SumBackward0(MaskedFillBackward0(NegBackward0(SumBackward1(LogSoftmaxBackward0'
     ':0):0):0):0):0):0)'),
    ("F.nll_loss(torch.ones(2, 3, 2, 2, requires_grad=True), torch.zeros(2, 2, 2).long())",
     'NllLoss2DBackward0(AccumulateGrad:0)'),
    ("F.nll_loss(torch.ones(2, 3, 4, requires_grad=True), torch.zeros(2, 4).long(), "
     "reduction='none')",
     'ViewBackward0(NllLoss2DBackward0(ViewBackward0(AccumulateGrad:0):0):0)'),
    ("nn.LayerNorm(2, elementwise_affine=False)(m)",
     'NativeLayerNormBackward0(AccumulateGrad:0, None:0, None:0)'),
    ("nn.Conv2d(1, 1, 1, bias=False)(torch.ones(1, 1, 2, 2, requires_grad=True))",
     'ConvolutionBackward0(AccumulateGrad:0, AccumulateGrad:0, None:0)'),
    ("nn.Embedding(3, 2)(torch.tensor([0, 2]))", 'EmbeddingBackward0(AccumulateGrad:0)'),
    ('F.nll_loss(m, torch.tensor([0, 1]))', 'NllLossBackward0(AccumulateGrad:0)'),
    ('F.dropout(m, 0.0)', 'None'),
    ('F.dropout(m, 0.5, training=False)', 'None'),
    ('F.dropout(m, 1.0)', 'MulBackward0(AccumulateGrad:0, None:0)'),
    ('torch.sigmoid(x)', 'SigmoidBackward0(AccumulateGrad:0)'),
    ('torch.tanh(x)', 'TanhBackward0(AccumulateGrad:0)'),
    ('nn.Linear(2, 3)(m)',
     'AddmmBackward0(AccumulateGrad:0, AccumulateGrad:0, TBackward0(AccumulateGrad:0):0)'),
    ('nn.Linear(2, 3)(x)',
     'ViewBackward0(AddmmBackward0(AccumulateGrad:0, ViewBackward0(AccumulateGrad:0):0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('nn.Linear(2, 3, bias=False)(m)',
     'MmBackward0(AccumulateGrad:0, TBackward0(AccumulateGrad:0):0)'),
    ('nn.Linear(2, 3, bias=False)(x)',
     'SqueezeBackward4(MmBackward0(UnsqueezeBackward0(AccumulateGrad:0):0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('nn.Linear(2, 3)(torch.ones(4, 2, 2, requires_grad=True))',
     'ViewBackward0(AddmmBackward0(AccumulateGrad:0, ViewBackward0(AccumulateGrad:0):0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('nn.Linear(2, 3)(torch.ones(2, 2))',
     'AddmmBackward0(AccumulateGrad:0, None:0, TBackward0(AccumulateGrad:0):0)'),
    ('nn.Linear(2, 3)(torch.ones(0, 2))',
     'AddmmBackward0(AccumulateGrad:0, None:0, TBackward0(AccumulateGrad:0):0)'),
    ('nn.MSELoss()(nn.Linear(2, 1)(torch.ones(3, 2)), torch.zeros(3, 1))',
     'MseLossBackward0(AddmmBackward0(AccumulateGrad:0, None:0, '
     'TBackward0(AccumulateGrad:0):0):0, None:0)'),
    ("nn.MSELoss(reduction='sum')(x, c)", 'MseLossBackward0(AccumulateGrad:0, None:0)'),
    ('nn.CrossEntropyLoss()(m, torch.tensor([0, 1]))',
     'NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0)'),
    ("nn.CrossEntropyLoss(reduction='none')(m, torch.tensor([0, 1]))",
     'NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad:0):0)'),
    ('nn.BatchNorm1d(2)(m)',
     'NativeBatchNormBackward0(AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0)'),
    ('nn.BatchNorm1d(2).eval()(m)',
     'NativeBatchNormBackward0(AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0)'),
    ('nn.BatchNorm1d(2, affine=False)(m)',
     'NativeBatchNormBackward0(AccumulateGrad:0, None:0, None:0)'),
    ('nn.BatchNorm1d(2, track_running_stats=False)(m)',
     'NativeBatchNormBackward0(AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0)'),
    ('nn.BatchNorm1d(2)(m[None].expand(3, 2, 2).permute(1, 2, 0))',
     'N'
     'a'
     't'
     'i'
     'v'
     'e'
     'B'
     'a'
     't'
     'c'
     'h'
     'N'
     'o'
     'r'
     'm'
     'B'
     'ackward0(PermuteBackward0(ExpandBackward0(UnsqueezeBackward0(AccumulateGrad:0):0):0):0, '
     'AccumulateGrad:0, AccumulateGrad:0)'),
    ('nn.ReLU()(x)', 'ReluBackward0(AccumulateGrad:0)'),
    ('nn.Sigmoid()(x)', 'SigmoidBackward0(AccumulateGrad:0)'),
    ('nn.Tanh()(x)', 'TanhBackward0(AccumulateGrad:0)'),
    ('nn.Dropout(0.0)(m)', 'None'),
    ('nn.Dropout(0.5).eval()(m)', 'None'),
    ('nn.Softmax(dim=1)(m)', 'SoftmaxBackward0(AccumulateGrad:0)'),
    ('nn.LogSoftmax(dim=1)(m)', 'LogSoftmaxBackward0(AccumulateGrad:0)'),
    ('nn.Identity()(m)', 'None'),
    ('nn.Sequential(nn.Linear(2, 2), nn.ReLU())(m)',
     'ReluBackward0(AddmmBackward0(AccumulateGrad:0, AccumulateGrad:0, '
     'TBackward0(AccumulateGrad:0):0):0)'),
    ('nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))(torch.ones(3, 2))',
     'AddmmBackward0(AccumulateGrad:0, TanhBackward0(AddmmBackward0(AccumulateGrad:0, None:0, '
     'TBackward0(AccumulateGrad:0):0):0):0, TBackward0(AccumulateGrad:0):0)'),
]


@pytest.mark.parametrize("expression, graph", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_graph(expression, graph):
    torch.manual_seed(0)
    out = eval(expression, leaves())
    assert walk(out.grad_fn) == graph


def test_leaf_and_copy_node_names():
    x = torch.tensor([1., 2.], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and type(acc).__name__ == "AccumulateGrad"
    assert acc.next_functions == () and acc.variable is x
    y = x * 1
    y[0] = 5
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    z = torch.zeros(2)
    z.copy_(x)
    assert z.grad_fn.name() == "torch::autograd::CopyBackwards"


def test_in_place_ops_name_their_node():
    x = torch.tensor([1., 2.], requires_grad=True)
    names = []
    for act in (lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.div_(2), lambda t: t.sub_(1),
                lambda t: t.zero_(), lambda t: t.fill_(3), lambda t: t.fill_(torch.tensor(3.))):
        t = x * 1
        act(t)
        names.append(t.grad_fn.name())
    assert names == ["AddBackward0", "MulBackward0", "DivBackward0", "SubBackward0", "ZeroBackward0", "FillBackward2",
                     "FillBackward3"]


def test_multi_output_edges_carry_the_output_number():
    x = torch.tensor([1., 2.], requires_grad=True)
    a, b = x.unbind(0)
    assert [nr for _, nr in (b * a).grad_fn.next_functions] == [1, 0]
    v, i = torch.tensor([[1., 5.], [7., 3.]], requires_grad=True).max(0)
    assert v.grad_fn.name() == "MaxBackward0" and i.grad_fn is None and not i.requires_grad


def test_max_with_a_tensor_argument_is_the_elementwise_maximum():
    x = torch.tensor([1., 3.], requires_grad=True)
    out = torch.max(x, torch.tensor([1., 3.]))
    assert out.grad_fn.name() == "MaximumBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [0.5, 0.5]


def test_sequence_numbers_grow_with_creation():
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 2
    b = a * 2
    assert a.grad_fn._sequence_nr() < b.grad_fn._sequence_nr()


def test_builtin_nodes_also_have_saved_tensors_a_deliberate_difference():
    """PyTorch's built-in nodes only have ``_saved_self``... (``saved_tensors`` raises
    AttributeError); minitorch's are Functions like the reader's, so both work."""
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * x
    assert y.grad_fn._saved_self is x
    assert [t is x for t in y.grad_fn.saved_tensors] == [True, True]


def test_calling_a_node_returns_one_gradient_per_edge():
    """``grad_fn(grad)`` as PyTorch 2.13 answers it: one value per entry of
    ``next_functions`` (none for an argument that is not a graph input, such as a
    ``dim`` or an exponent), a bare tensor when there is one, () for a leaf's node."""
    x = torch.ones(2, 3, requires_grad=True)
    singles = [x.sum(0), x ** 2, x.clamp(min=0), x.view(6), x.exp()]
    pair = x * 2
    acc = pair.grad_fn.next_functions[0][0]
    with torch.no_grad():
        for t in singles:
            result = t.grad_fn(torch.ones_like(t))
            assert isinstance(result, torch.Tensor), t.grad_fn.name()
            assert result.shape == x.shape
        assert singles[0].grad_fn(torch.ones(3)).tolist() == [[1.0] * 3] * 2
        assert singles[1].grad_fn(torch.ones(2, 3)).tolist() == [[2.0] * 3] * 2
        both = pair.grad_fn(torch.ones(2, 3))
        assert type(both) is tuple and len(both) == 2 and both[1] is None
        assert both[0].tolist() == [[2.0] * 3] * 2
        assert acc(torch.ones(2, 3)) == () and x.grad.tolist() == [[1.0] * 3] * 2


def test_a_leaf_node_prints_and_numbers_as_in_pytorch():
    """PyTorch: ``<AccumulateGrad object at 0x...>`` (its name() keeps the C++
    namespace), and sequence number 2**64 - 1, the largest, so it runs first."""
    x = torch.tensor([1., 2.], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert repr(acc).startswith("<AccumulateGrad object at 0x")
    assert acc._sequence_nr() == 18446744073709551615
    y = x.exp()
    assert repr(y.grad_fn).startswith("<ExpBackward0 object at 0x")


def test_calling_a_node_needs_one_gradient_per_output():
    """PyTorch 2.13 refuses a node called with the wrong number of gradients:
    ``TypeError: expected 2 arguments, got 1 instead`` for unbind's node, which
    has two outputs; chapter 4's exercise on output numbers relies on it."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u, v = x.unbind()
    node, exp_node = u.grad_fn, x.exp().grad_fn
    with torch.no_grad():
        for grads in [(torch.tensor(1.0),), (torch.tensor(1.0),) * 3]:
            with pytest.raises(TypeError, match=f"expected 2 arguments, got {len(grads)} "
                                                "instead"):
                node(*grads)
        with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
            exp_node(torch.ones(2), torch.ones(2))
        assert node(torch.tensor(1.0), torch.tensor(2.0)).tolist() == [1.0, 2.0]

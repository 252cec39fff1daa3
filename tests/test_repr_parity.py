"""How things print, as in PyTorch 2.13 (chapter 3 for tensors, chapter 7 for modules).

Compared after ``minitorch`` is replaced by ``torch``: the package's name is the one
difference allowed.  The layout rules include the line wrap: when the closing
``dtype=...``, ``requires_grad=True)`` or ``grad_fn=<...>)`` would take the last line
past 80 columns, it moves to a line of its own, indented under the data.
"""

import pytest

import minitorch as torch
import minitorch.nn as nn

pytestmark = pytest.mark.chapter3


def shown(obj):
    return repr(obj).replace("minitorch.", "torch.").replace("minitorch", "torch")


TENSORS = [
    ('torch.tensor([1., 2.])', 'tensor([1., 2.])'),
    ('torch.tensor([1.5, 2.25])', 'tensor([1.5000, 2.2500])'),
    ('torch.tensor([1, 2])', 'tensor([1, 2])'),
    ('torch.tensor([True, False])', 'tensor([ True, False])'),
    ('torch.tensor(3.)', 'tensor(3.)'),
    ('torch.tensor(3)', 'tensor(3)'),
    ('torch.tensor(True)', 'tensor(True)'),
    ('torch.tensor([])', 'tensor([])'),
    ('torch.zeros(0, 3)', 'tensor([], size=(0, 3))'),
    ('torch.zeros(2, 0)', 'tensor([], size=(2, 0))'),
    ('torch.tensor([], dtype=torch.int64)', 'tensor([], dtype=torch.int64)'),
    ('torch.tensor([1., 2.], dtype=torch.float64)', 'tensor([1., 2.], dtype=torch.float64)'),
    ('torch.tensor([1, 2], dtype=torch.float64)', 'tensor([1., 2.], dtype=torch.float64)'),
    ('torch.tensor(2.5, dtype=torch.float64)', 'tensor(2.5000, dtype=torch.float64)'),
    ('torch.tensor([0.1, 0.2], dtype=torch.float64)',
     'tensor([0.1000, 0.2000], dtype=torch.float64)'),
    ('torch.tensor([1e-5, 1.])', 'tensor([1.0000e-05, 1.0000e+00])'),
    ('torch.tensor([1e10, 1.])', 'tensor([1.0000e+10, 1.0000e+00])'),
    ('torch.tensor([123456.789])', 'tensor([123456.7891])'),
    ('torch.tensor([1e-10])', 'tensor([1.0000e-10])'),
    ("torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5])",
     'tensor([   nan,    inf,   -inf, 1.5000])'),
    ("torch.tensor([float('nan'), 1.])", 'tensor([nan, 1.])'),
    ('torch.tensor([-0.0, 0.0])', 'tensor([-0., 0.])'),
    ('torch.tensor([-1.5, 2.])', 'tensor([-1.5000,  2.0000])'),
    ('torch.tensor([[1., 2.], [3., 4.]])', 'tensor([[1., 2.],\n        [3., 4.]])'),
    ('torch.tensor([[1, -20], [300, 4]])', 'tensor([[  1, -20],\n        [300,   4]])'),
    ('torch.tensor([[[1., 2.]], [[3., 4.]]])', 'tensor([[[1., 2.]],\n\n        [[3., 4.]]])'),
    ('torch.arange(12.).reshape(2, 2, 3)',
     'tensor([[[ 0.,  1.,  2.],\n'
     '         [ 3.,  4.,  5.]],\n'
     '\n'
     '        [[ 6.,  7.,  8.],\n'
     '         [ 9., 10., 11.]]])'),
    ('torch.arange(2000)', 'tensor([   0,    1,    2,  ..., 1997, 1998, 1999])'),
    ('torch.arange(1001.)', 'tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])'),
    ('torch.arange(2000.).reshape(40, 50)',
     'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n'
     '         4.9000e+01],\n'
     '        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n'
     '         9.9000e+01],\n'
     '        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n'
     '         1.4900e+02],\n'
     '        ...,\n'
     '        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n'
     '         1.8990e+03],\n'
     '        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n'
     '         1.9490e+03],\n'
     '        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n'
     '         1.9990e+03]])'),
    ('torch.arange(100)',
     'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n'
     '        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n'
     '        36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,\n'
     '        54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n'
     '        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89,\n'
     '        90, 91, 92, 93, 94, 95, 96, 97, 98, 99])'),
    ('torch.arange(30.)',
     'tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n'
     '        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n'
     '        28., 29.])'),
    ('torch.arange(25) * 1000',
     'tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n'
     '        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000,\n'
     '        20000, 21000, 22000, 23000, 24000])'),
    ('torch.linspace(0, 1, 12)',
     'tensor([0.0000, 0.0909, 0.1818, 0.2727, 0.3636, 0.4545, 0.5455, 0.6364, 0.7273,\n'
     '        0.8182, 0.9091, 1.0000])'),
    ('torch.tensor([1e-3, 1e3])', 'tensor([1.0000e-03, 1.0000e+03])'),
    ('torch.tensor([0.001, 1000.5])', 'tensor([1.0000e-03, 1.0005e+03])'),
    ('torch.tensor([1e8, 1.])', 'tensor([1.0000e+08, 1.0000e+00])'),
    ('torch.tensor([1e9])', 'tensor([1.0000e+09])'),
    ('torch.tensor([100000000.])', 'tensor([100000000.])'),
    ('torch.tensor([1.123456789])', 'tensor([1.1235])'),
    ('torch.tensor([12345678.])', 'tensor([12345678.])'),
    ('torch.ones(2, requires_grad=True)', 'tensor([1., 1.], requires_grad=True)'),
    ('torch.ones(2, requires_grad=True) * 2', 'tensor([2., 2.], grad_fn=<MulBackward0>)'),
    ('torch.ones(2, requires_grad=True).sum()', 'tensor(2., grad_fn=<SumBackward0>)'),
    ('torch.ones(2, dtype=torch.float64, requires_grad=True)',
     'tensor([1., 1.], dtype=torch.float64, requires_grad=True)'),
    ('torch.ones(2, dtype=torch.float64, requires_grad=True) * 2',
     'tensor([2., 2.], dtype=torch.float64, grad_fn=<MulBackward0>)'),
    ('torch.ones(8, requires_grad=True)',
     'tensor([1., 1., 1., 1., 1., 1., 1., 1.], requires_grad=True)'),
    ('torch.ones(9, requires_grad=True)',
     'tensor([1., 1., 1., 1., 1., 1., 1., 1., 1.], requires_grad=True)'),
    ('torch.ones(10, requires_grad=True)',
     'tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1.], requires_grad=True)'),
    ('torch.ones(11, requires_grad=True) * 2',
     'tensor([2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2.], grad_fn=<MulBackward0>)'),
    ('torch.arange(9.).requires_grad_()',
     'tensor([0., 1., 2., 3., 4., 5., 6., 7., 8.], requires_grad=True)'),
    ('torch.arange(10.).requires_grad_()',
     'tensor([0., 1., 2., 3., 4., 5., 6., 7., 8., 9.], requires_grad=True)'),
    ('torch.arange(11.).requires_grad_() * 1',
     'tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10.],\n'
     '       grad_fn=<MulBackward0>)'),
    ('torch.arange(12.).requires_grad_() * 1',
     'tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n'
     '       grad_fn=<MulBackward0>)'),
    ('torch.arange(14.).requires_grad_() * 1',
     'tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.],\n'
     '       grad_fn=<MulBackward0>)'),
    ('torch.tensor([1.5] * 7, requires_grad=True)',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000],\n'
     '       requires_grad=True)'),
    ('torch.tensor([1.5] * 8, requires_grad=True)',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000],\n'
     '       requires_grad=True)'),
    ('torch.tensor([1.5] * 9, requires_grad=True)',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000],'
     '\n'
     '       requires_grad=True)'),
    ('torch.tensor([1.5] * 10, requires_grad=True) * 1',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000,\n'
     '        1.5000], grad_fn=<MulBackward0>)'),
    ('torch.tensor([1.5] * 7, dtype=torch.float64, requires_grad=True)',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000],\n'
     '       dtype=torch.float64, requires_grad=True)'),
    ('torch.tensor([1.5] * 6, dtype=torch.float64, requires_grad=True) * 2',
     'tensor([3., 3., 3., 3., 3., 3.], dtype=torch.float64, grad_fn=<MulBackward0>)'),
    ('torch.tensor([1.5] * 5, dtype=torch.float64, requires_grad=True) * 2',
     'tensor([3., 3., 3., 3., 3.], dtype=torch.float64, grad_fn=<MulBackward0>)'),
    ('torch.tensor([1.5] * 12)',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000,\n'
     '        1.5000, 1.5000, 1.5000])'),
    ('torch.tensor([1.5] * 13)',
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000,\n'
     '        1.5000, 1.5000, 1.5000, 1.5000])'),
    ('torch.tensor([[1.5] * 7] * 2, requires_grad=True)',
     'tensor([[1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000],\n'
     '        [1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000]],\n'
     '       requires_grad=True)'),
    ('torch.tensor([[1.5] * 7] * 2, requires_grad=True) * 2',
     'tensor([[3., 3., 3., 3., 3., 3., 3.],\n'
     '        [3., 3., 3., 3., 3., 3., 3.]], grad_fn=<MulBackward0>)'),
    ('torch.arange(6.).reshape(2, 3).requires_grad_() @ torch.ones(3, 2)',
     'tensor([[ 3.,  3.],\n'
     '        [12., 12.]], grad_fn=<MmBackward0>)'),
    ('torch.tensor([100., 200.], requires_grad=True) * 2',
     'tensor([200., 400.], grad_fn=<MulBackward0>)'),
    ('torch.tensor(1., requires_grad=True) * 2', 'tensor(2., grad_fn=<MulBackward0>)'),
    ('torch.tensor([1, 2]) * 1000000', 'tensor([1000000, 2000000])'),
    ('torch.tensor([1.5, 2.5]).double()', 'tensor([1.5000, 2.5000], dtype=torch.float64)'),
    ('torch.tensor([1.0], dtype=torch.float64)', 'tensor([1.], dtype=torch.float64)'),
    ('torch.tensor([True] * 30)',
     'tensor([True, True, True, True, True, True, True, True, True, True, True, True,\n'
     '        True, True, True, True, True, True, True, True, True, True, True, True,\n'
     '        True, True, True, True, True, True])'),
    ('torch.zeros(3, 1, 2)', 'tensor([[[0., 0.]],\n\n        [[0., 0.]],\n\n        [[0., 0.]]])'),
    ('torch.tensor([[]])', 'tensor([], size=(1, 0))'),
    ('torch.tensor([[1.]], requires_grad=True).t()', 'tensor([[1.]], grad_fn=<TBackward0>)'),
    ('torch.nn.Parameter(torch.ones(2))',
     'Parameter containing:\n'
     'tensor([1., 1.], requires_grad=True)'),
    ('torch.nn.Parameter(torch.ones(2), requires_grad=False)',
     'Parameter containing:\n'
     'tensor([1., 1.])'),
    ('torch.nn.Parameter(torch.ones(2, dtype=torch.float64))',
     'Parameter containing:\n'
     'tensor([1., 1.], dtype=torch.float64, requires_grad=True)'),
    ('torch.nn.Parameter(torch.tensor([1.5] * 12))',
     'Parameter containing:\n'
     'tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000,\n'
     '        1.5000, 1.5000, 1.5000], requires_grad=True)'),
    ('torch.nn.Parameter(torch.tensor(2.))',
     'Parameter containing:\n'
     'tensor(2., requires_grad=True)'),
    ('torch.ones(2, requires_grad=True).detach()', 'tensor([1., 1.])'),
    ('torch.tensor([0.5, 0.25]).softmax(0)', 'tensor([0.5622, 0.4378])'),
    ('torch.tensor([1.5]) > 0', 'tensor([True])'),
    ('torch.ones(2, 2) * 0.1', 'tensor([[0.1000, 0.1000],\n        [0.1000, 0.1000]])'),
    ('torch.tensor([1.0e-4, 1.0])', 'tensor([1.0000e-04, 1.0000e+00])'),
    ('torch.tensor([9.9999e-5, 1.0])', 'tensor([9.9999e-05, 1.0000e+00])'),
    ('torch.tensor([1.0, 1000.])', 'tensor([   1., 1000.])'),
    ('torch.tensor([1.0, 1001.])', 'tensor([1.0000e+00, 1.0010e+03])'),
    ('torch.tensor([2 ** 40])', 'tensor([1099511627776])'),
    ('torch.tensor([-2 ** 62, 5])', 'tensor([-4611686018427387904,                    5])'),
    ('torch.tensor([[0.1, 0.22], [0.333, 4444.]])',
     'tensor([[1.0000e-01, 2.2000e-01],\n'
     '        [3.3300e-01, 4.4440e+03]])'),
]


@pytest.mark.parametrize("expression, expected", TENSORS, ids=[t[0] for t in TENSORS])
def test_tensor_repr(expression, expected):
    assert shown(eval(expression, {"torch": torch})) == expected


OBJECTS = [
    ('torch.Size([2, 3])', 'torch.Size([2, 3])'),
    ('torch.Size([])', 'torch.Size([])'),
    ('torch.ones(2, 3).shape', 'torch.Size([2, 3])'),
    ('torch.float32', 'torch.float32'),
    ('torch.int64', 'torch.int64'),
    ('torch.bool', 'torch.bool'),
    ('torch.float64', 'torch.float64'),
    ('torch.ones(2).dtype', 'torch.float32'),
    ('nn.Linear(2, 3)', 'Linear(in_features=2, out_features=3, bias=True)'),
    ('nn.Linear(2, 3, bias=False)', 'Linear(in_features=2, out_features=3, bias=False)'),
    ('nn.ReLU()', 'ReLU()'),
    ('nn.Sigmoid()', 'Sigmoid()'),
    ('nn.Tanh()', 'Tanh()'),
    ('nn.Dropout(0.25)', 'Dropout(p=0.25, inplace=False)'),
    ('nn.Dropout()', 'Dropout(p=0.5, inplace=False)'),
    ('nn.BatchNorm1d(4)',
     'BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)'),
    ('nn.BatchNorm1d(4, momentum=None, affine=False)',
     'BatchNorm1d(4, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=True)'),
    ('nn.MSELoss()', 'MSELoss()'),
    ("nn.MSELoss(reduction='sum')", 'MSELoss()'),
    ('nn.CrossEntropyLoss()', 'CrossEntropyLoss()'),
    ('nn.Softmax(dim=1)', 'Softmax(dim=1)'),
    ('nn.LogSoftmax(dim=-1)', 'LogSoftmax(dim=-1)'),
    ('nn.Identity()', 'Identity()'),
    ('nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))',
     'Sequential(\n'
     '  (0): Linear(in_features=2, out_features=3, bias=True)\n'
     '  (1): ReLU()\n'
     '  (2): Linear(in_features=3, out_features=1, bias=True)\n'
     ')'),
    ('nn.Sequential()', 'Sequential()'),
    ('nn.ModuleList([nn.ReLU(), nn.Tanh()])', 'ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)'),
    ('nn.ModuleList()', 'ModuleList()'),
    ('nn.Sequential(nn.Sequential(nn.ReLU()), nn.ModuleList([nn.Tanh()]))',
     'Sequential(\n'
     '  (0): Sequential(\n'
     '    (0): ReLU()\n'
     '  )\n'
     '  (1): ModuleList(\n'
     '    (0): Tanh()\n'
     '  )\n'
     ')'),
    ('nn.Sequential(*[nn.ReLU() for _ in range(3)])',
     'Sequential(\n'
     '  (0): ReLU()\n'
     '  (1): ReLU()\n'
     '  (2): ReLU()\n'
     ')'),
    ('nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)])',
     'Sequential(\n'
     '  (0): Linear(in_features=2, out_features=2, bias=True)\n'
     '  (1): Linear(in_features=2, out_features=2, bias=True)\n'
     '  (2): Linear(in_features=2, out_features=2, bias=True)\n'
     ')'),
    ('nn.Module()', 'Module()'),
    ('torch.ones(2, 2).max(0)',
     'torch.return_types.max(\n'
     'values=tensor([1., 1.]),\n'
     'indices=tensor([0, 0]))'),
    ('torch.tensor([3., 1.]).max(dim=0)',
     'torch.return_types.max(\n'
     'values=tensor(3.),\n'
     'indices=tensor(0))'),
    ('nn.Linear(2, 3).weight.shape', 'torch.Size([3, 2])'),
]


@pytest.mark.parametrize("expression, expected", OBJECTS, ids=[o[0] for o in OBJECTS])
def test_object_repr(expression, expected):
    assert shown(eval(expression, {"torch": torch, "nn": nn})) == expected


def test_str_of_a_tensor_is_its_repr():
    x = torch.tensor([[1.5, 2.0]], requires_grad=True) * 2
    assert str(x) == repr(x)


def test_format_of_a_0d_integer_tensor_is_the_number():
    assert f"{torch.tensor(3)}" == "3" and f"{torch.tensor(2.5):.3f}" == "2.500"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{torch.ones(2):.2f}"


def test_max_with_dim_returns_a_named_tuple_called_max():
    r = torch.ones(2, 2).max(0)
    assert type(r).__name__ == "max" and r.values.tolist() == [1.0,
                                                               1.0] and r.indices.tolist() == [0, 0]


def test_shape_slices_are_sizes():
    s = torch.ones(2, 3).shape
    assert type(s[1:]).__name__ == "Size" and type(s + (4,)).__name__ == "Size"


def test_nodes_with_a_namespaced_name_print_without_it():
    # PyTorch 2.13: name() keeps the C++ namespace, repr and grad_fn=<...> drop it:
    #   ((<AccumulateGrad object at 0x...>, 0), (None, 0))
    #   tensor([2.], grad_fn=<CopyBackwards>)
    x = torch.tensor([1.0], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"
    assert repr(acc).startswith("<AccumulateGrad object at 0x")
    z = torch.zeros(1)
    z.copy_(x * 2)
    assert z.grad_fn.name() == "torch::autograd::CopyBackwards"
    assert repr(z) == "tensor([2.], grad_fn=<CopyBackwards>)"
    assert repr(z.grad_fn).startswith("<CopyBackwards object at 0x")

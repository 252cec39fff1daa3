"""Misuse of nn: Module registration and attributes, every layer's constructor and
forward, containers, Parameter, nn.functional and nn.init (chapter 7).  PyTorch
2.13's exception types and wording; see tests/misuse.py."""

import pytest

import minitorch as torch
import minitorch.nn as nn
from tests.misuse import Row, check, namespace, params

pytestmark = pytest.mark.chapter7


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, x):
        return self.act(self.fc1(x))


N = "net = Net()\n"

LAYERS = [
    Row("nn.Linear(2.5, 3)", TypeError),
    Row("nn.Linear(-1, 3)", RuntimeError, "Trying to create tensor with negative dimension -1"),
    Row("nn.Linear(2)", TypeError, "missing 1 required positional argument: 'out_features'"),
    Row("nn.Linear(2, 3, bogus=1)", TypeError, "unexpected keyword argument 'bogus'"),
    Row("nn.Linear(2, 3, dtype=torch.int64)", RuntimeError,
        "Only Tensors of floating point and complex dtype can require gradients"),
    Row("nn.Linear(2, 3)(torch.ones(3, 3))", RuntimeError,
        r"mat1 and mat2 shapes cannot be multiplied \(3x3 and 2x3\)"),
    Row("nn.Linear(2, 3)(torch.ones(2, dtype=torch.int64))", RuntimeError,
        "mat1 and mat2 must have the same dtype, but got Long and Float"),
    Row("nn.Linear(2, 3)(torch.ones(2, dtype=torch.float64))", RuntimeError,
        "mat1 and mat2 must have the same dtype, but got Double and Float"),
    Row("nn.Linear(2, 3)(torch.ones(4, 2, dtype=torch.float64))", RuntimeError,
        "must have the same dtype"),
    Row("nn.Linear(2, 3)([1., 2.])", TypeError,
        r"linear\(\): argument 'input' \(position 1\) must be Tensor, not list"),
    Row("nn.Linear(2, 3)(torch.tensor(1.))", RuntimeError,
        "both arguments to linear need to be at least 1D, but they are 0D and 2D"),
    Row("nn.Linear(2, 3)()", TypeError, "missing 1 required positional argument: 'input'"),
    Row("nn.ReLU()([1.])", TypeError, "must be Tensor, not list"),
    Row("nn.ReLU()(torch.tensor([True]))", RuntimeError, "Boolean inputs not supported for relu"),
    Row("nn.Softmax(dim=3)(torch.ones(2))", IndexError, "Dimension out of range"),
    Row("nn.Dropout(1.5)", ValueError,
        "dropout probability has to be between 0 and 1, but got 1.5"),
    Row("nn.Dropout(-0.1)", ValueError,
        "dropout probability has to be between 0 and 1, but got -0.1"),
    Row("nn.Dropout(0.5)(torch.ones(3, dtype=torch.int64))", RuntimeError,
        "result type Float can't be cast"),
    Row("nn.BatchNorm1d(-1)", RuntimeError, "negative dimension"),
    Row("nn.BatchNorm1d(3)(torch.ones(2, 2))", RuntimeError,
        "running_mean should contain 2 elements not 3"),
    Row("nn.BatchNorm1d(3)(torch.ones(1, 3))", ValueError,
        r"Expected more than 1 value per channel when training, got input size (mini)?torch.Size\(\[1, 3\]\)"),
    Row("nn.BatchNorm1d(3)(torch.ones(3))", ValueError,
        r"expected 2D or 3D input \(got 1D input\)"),
    Row("nn.BatchNorm1d(3)(torch.ones(2, 3, 4, 5))", ValueError,
        r"expected 2D or 3D input \(got 4D input\)"),
    Row("nn.BatchNorm1d(3)(torch.ones(2, 3, dtype=torch.int64))", NotImplementedError,
        "\"batch_norm\" not implemented for 'Long'"),
    Row("nn.BatchNorm1d(3)(torch.ones(2, 3, dtype=torch.float64))", RuntimeError,
        "mixed dtype \\(CPU\\): all inputs must share same"),
    Row("nn.MSELoss()(torch.ones(2))", TypeError,
        "missing 1 required positional argument: 'target'"),
    Row("nn.MSELoss()(torch.ones(2, 3), torch.ones(3, 2))", RuntimeError,
        "must match the size of tensor b"),
    Row("nn.MSELoss()(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))", NotImplementedError,
        "\"mse_cpu\" not implemented for 'Long'"),
    Row("nn.MSELoss(reduction='bogus')(torch.ones(1), torch.ones(1))", ValueError,
        "bogus is not a valid value for reduction"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0, 3]))", IndexError,
        "Target 3 is out of bounds"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([-5, 1]))", IndexError,
        "Target -5 is out of bounds"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0., 1.]))", RuntimeError,
        "expected target dtype to be Long or Byte, but got Float"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0]))", ValueError,
        r"Expected input batch_size \(2\) to match target batch_size \(1\)"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor(1))", ValueError,
        r"Expected input batch_size \(2\) to match target batch_size \(0\)"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3, dtype=torch.int64), torch.tensor([0, 1]))", NotImplementedError,
        "not implemented for 'Long'"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.ones(2, 2))", RuntimeError,
        "0D or 1D target tensor expected, multi-target not supported"),
    Row("nn.CrossEntropyLoss(weight=torch.ones(2))(torch.ones(2, 3), torch.tensor([0, 1]))", RuntimeError,
        "weight tensor should be defined either for all 3 classes or no classes"),
    Row("nn.CrossEntropyLoss(weight=[1., 1., 1.])(torch.ones(2, 3), torch.tensor([0, 1]))", TypeError,
        "cannot assign 'list' object to buffer 'weight'"),
    Row("nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0, 1]), 5)", TypeError),
    Row("F.cross_entropy(torch.tensor([[1., 2., 0.5]]), torch.tensor([1]), label_smoothing=1.5)", RuntimeError,
        "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    Row("F.cross_entropy(torch.tensor([[1., 2., 0.5]]), [1])", TypeError,
        "argument 'target' .* must be Tensor, not list"),
    Row("F.cross_entropy([[1., 2., 0.5]], torch.tensor([1]))", TypeError,
        "argument 'input' .* must be Tensor, not list"),
    Row("F.cross_entropy(torch.tensor(1.), torch.tensor(0))", RuntimeError,
        "Expected floating point type for target with class probabilities, got Long"),
    Row("F.relu([1., 2.])", TypeError, "must be Tensor, not list"),
    Row("F.linear(torch.ones(2), [1., 2.])", TypeError,
        "argument 'weight' .* must be Tensor, not list"),
    Row("F.linear([1.], torch.ones(1, 1))", TypeError,
        "argument 'input' .* must be Tensor, not list"),
    Row("F.linear(torch.ones(2, 3), torch.ones(4, 3, dtype=torch.float64))", RuntimeError,
        "same dtype"),
    Row("F.softmax([1., 2.], 0)", AttributeError, plain=False),
    Row("F.log_softmax(torch.ones(2), dim=5)", IndexError, "Dimension out of range"),
    Row("F.dropout([1.], 0.5)", TypeError, "must be Tensor, not list"),
    Row("F.dropout(torch.ones(2), 0.5, training='x')", TypeError, "must be bool, not str"),
    Row("F.dropout(torch.ones(3), p=1.5)", ValueError,
        "dropout probability has to be between 0 and 1, but got 1.5"),
    Row("F.nll_loss(torch.ones(2, 3), torch.tensor([0, 5]))", IndexError,
        "Target 5 is out of bounds"),
    Row("nn.init.uniform_(torch.empty(2), 3, 1)", RuntimeError, "uniform_ expects to return a \\[from, to\\) range, but found "
        "from=3 > to=1"),
    Row("nn.init.uniform_(torch.empty(2, dtype=torch.int64))", NotImplementedError,
        "not implemented for 'Long'"),
    Row("nn.init.kaiming_uniform_(torch.empty(3))", ValueError,
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
    Row("nn.init.xavier_uniform_(torch.empty(3))", ValueError, "fewer than 2 dimensions"),
    Row("nn.init.kaiming_uniform_(torch.empty(2, 3), mode='bogus')", ValueError,
        "Mode bogus not supported"),
    Row("nn.init.kaiming_uniform_(torch.empty(2, 3), nonlinearity='bogus')", ValueError,
        "Unsupported nonlinearity bogus"),
    Row("nn.init.calculate_gain('bogus')", ValueError, "Unsupported nonlinearity bogus"),
    Row("nn.init.calculate_gain('leaky_relu', 'x')", ValueError,
        "negative_slope x not a valid number"),
    Row("nn.init.constant_(torch.ones(2))", TypeError,
        "missing 1 required positional argument: 'val'"),
]

CONTAINERS = [
    Row("nn.Sequential(nn.ReLU())[1]", IndexError, "index 1 is out of range"),
    Row("nn.Sequential(nn.ReLU())[-2]", IndexError, "index -2 is out of range"),
    Row("nn.Sequential(nn.ReLU())['a']", TypeError),
    Row("nn.Sequential(nn.ReLU(), 3)", TypeError, "int is not a Module subclass"),
    Row("nn.Sequential(nn.ReLU()).append(3)", TypeError, "int is not a Module subclass"),
    Row("nn.ModuleList([nn.ReLU()])[1]", IndexError, "index 1 is out of range"),
    Row("nn.ModuleList([nn.ReLU()])(torch.ones(1))", NotImplementedError,
        "Module \\[ModuleList\\] is missing the required \"forward\" function"),
    Row("nn.ModuleList([3])", TypeError, "int is not a Module subclass"),
    Row("nn.ModuleList([nn.ReLU()]).append(3)", TypeError, "int is not a Module subclass"),
    Row("nn.ModuleList(3)", TypeError,
        "ModuleList.extend should be called with an iterable, but got int"),
    Row("nn.Module()(torch.ones(1))", NotImplementedError,
        "Module \\[Module\\] is missing the required \"forward\" function"),
    Row("nn.Parameter(torch.tensor([1, 2]))", RuntimeError,
        "Only Tensors of floating point and complex dtype can require gradients"),
    Row("nn.Parameter([1., 2.])", AttributeError, plain=False),
    Row("nn.Parameter(torch.ones(2), requires_grad='x')", TypeError, "must be bool, not str"),
]

REGISTRATION = [
    Row(N + "net.foo", AttributeError, "'Net' object has no attribute 'foo'", plain=False),
    Row(N + "del net.foo", AttributeError, "'Net' object has no attribute 'foo'", plain=False),
    Row(N + "net.fc1.weight = torch.ones(3, 2)", TypeError,
        r"cannot assign '(mini)?torch.FloatTensor' as parameter 'weight' \((mini)?torch.nn.Parameter or None expected\)"),
    Row(N + "net.fc1.weight = 5", TypeError, r"cannot assign 'int' as parameter 'weight'"),
    Row(N + "net.fc1 = 5", TypeError,
        r"cannot assign 'int' as child module 'fc1' \((mini)?torch.nn.Module or None expected\)"),
    Row(N + "net.steps = 5", TypeError, "cannot assign 'int' as buffer 'steps'"),
    Row(N + "net.register_buffer('fc1', torch.ones(1))", KeyError,
        "attribute 'fc1' already exists"),
    Row(N + "net.register_buffer('a.b', torch.ones(1))", KeyError,
        "buffer name can.{1,2}t contain"),
    Row(N + "net.register_buffer('', torch.ones(1))", KeyError,
        "buffer name can.{1,2}t be empty string"),
    Row(N + "net.register_buffer('b', [1.])", TypeError,
        "cannot assign 'list' object to buffer 'b'"),
    Row(N + "net.register_buffer(3, torch.ones(1))", TypeError,
        "buffer name should be a string. Got int"),
    Row(N + "net.register_parameter('fc1', nn.Parameter(torch.ones(1)))", KeyError,
        "attribute 'fc1' already exists"),
    Row(N + "net.register_parameter('p', torch.ones(1))", TypeError,
        r"cannot assign '(mini)?torch.FloatTensor' object to parameter 'p'"),
    Row(N + "net.register_parameter('a.b', nn.Parameter(torch.ones(1)))", KeyError,
        "parameter name can.{1,2}t contain"),
    Row(N + "net.register_parameter('', nn.Parameter(torch.ones(1)))", KeyError,
        "parameter name can.{1,2}t be empty string"),
    Row(N + "net.register_parameter('steps', nn.Parameter(torch.ones(1)))", KeyError,
        "attribute 'steps' already exists"),
    Row(N + "net.add_module('fc1.x', nn.ReLU())", KeyError,
        "module name can.{1,2}t contain .*got: fc1.x"),
    Row(N + "net.add_module('', nn.ReLU())", KeyError, "module name can.{1,2}t be empty string"),
    Row(N + "net.add_module('x', 5)", TypeError, "int is not a Module subclass"),
    Row(N + "net.add_module(5, nn.ReLU())", TypeError, "module name should be a string. Got int"),
    Row(N + "net.add_module('steps', nn.ReLU())", KeyError, "attribute 'steps' already exists"),
    Row(N + "net.get_submodule('fc9')", AttributeError, "Net has no attribute `fc9`", plain=False),
    Row(N + "net.get_submodule('fc1.weight')", AttributeError, "`weight` is not an nn.Module"),
    Row(N + "net.get_parameter('fc1.nope')", AttributeError, "Linear has no attribute `nope`",
        plain=False),
    Row(N + "net.apply(5)", TypeError, "'int' object is not callable", plain=False),
    Row(N + "net.train('x')", ValueError, "training mode is expected to be boolean"),
    Row(N + "net.requires_grad_('x')", TypeError, "must be bool, not str"),
    Row(N + "net.to(torch.int64)", TypeError,
        "nn.Module.to only accepts floating point or complex dtypes"),
    Row("class M(nn.Module):\n    def __init__(self):\n        self.fc = nn.Linear(1, 1)\nM()", AttributeError,
        r"cannot assign module before Module.__init__\(\) call"),
    Row("class M(nn.Module):\n    def __init__(self):\n        self.p = nn.Parameter(torch.ones(1))\nM()", AttributeError,
        r"cannot assign parameters before Module.__init__\(\) call"),
    Row("class M(nn.Module):\n    def __init__(self):\n        self.register_buffer('b', torch.ones(1))\nM()", AttributeError,
        r"cannot assign buffer before Module.__init__\(\) call"),
]

ROWS = LAYERS + CONTAINERS + REGISTRATION
NAMES = namespace(Net=Net)


@pytest.mark.parametrize("row", params(ROWS))
def test_misuse(row):
    check(row, NAMES)

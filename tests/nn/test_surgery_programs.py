"""PyTorch's pruning and parametrizations tutorials, as programs of our own that use the
same API (no torchvision, no tutorial text): each runs unchanged on minitorch, and its printed
output must equal what the same program printed on PyTorch 2.13 (the expected texts below
were produced by running it there, with ``minitorch`` renamed ``torch``).

Before comparing, ``minitorch`` is read as ``torch``, object addresses as ``0x...`` and hook
ids (a global counter in both) as ``ID``.  Weights are set from a formula rather than a
random generator, so the values printed are the same in both; random pruning prints only
counts.
"""

import contextlib
import io
import re

import pytest

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter8b]

PRUNING_SETUP = '''
import minitorch as torch
from minitorch import nn
import minitorch.nn.functional as F
import minitorch.nn.utils.prune as prune


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def fixed_weights(model):
    """Values that do not depend on a random generator, all different."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            steps = torch.arange(p.numel(), dtype=torch.float64)
            p.copy_(torch.sin(steps * 1.37 + i).view(p.shape).float() / 4)
    return model


def sparsity(t):
    return round(100.0 * float(torch.sum(t == 0)) / float(t.nelement()), 2)
'''

PROGRAMS = {
    "inspect_then_prune_one_layer": PRUNING_SETUP + '''
model = fixed_weights(LeNet())
module = model.conv1
print([(name, tuple(p.shape)) for name, p in module.named_parameters()])
print(list(module.named_buffers()))
prune.random_unstructured(module, name="weight", amount=0.3)
print([name for name, _ in module.named_parameters()])
print([name for name, _ in module.named_buffers()])
print(int(module.weight_mask.sum()), module.weight_mask.shape)
print(bool((module.weight == module.weight_orig * module.weight_mask).all()))
print(module._forward_pre_hooks)
prune.l1_unstructured(module, name="bias", amount=3)
print([name for name, _ in module.named_parameters()])
print(module.bias_mask)
print(module.bias)
print(module._forward_pre_hooks)
out = model(torch.ones(1, 1, 32, 32))
print(out.shape)
''',
    "iterative_pruning_and_remove": PRUNING_SETUP + '''
model = fixed_weights(LeNet())
module = model.conv1
prune.l1_unstructured(module, name="weight", amount=0.3)
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight_mask.sum(dim=(1, 2, 3)))
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(list(hook))
print(model.state_dict().keys())
prune.remove(module, "weight")
print([name for name, _ in module.named_parameters()])
print(list(module.named_buffers()))
print(sparsity(module.weight))
''',
    "prune_many_layers": PRUNING_SETUP + '''
new_model = fixed_weights(LeNet())
for name, module in new_model.named_modules():
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name="weight", amount=0.2)
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())
print(prune.is_pruned(new_model))
print([sparsity(m.weight) for m in new_model.children()])
''',
    "global_pruning": PRUNING_SETUP + '''
model = fixed_weights(LeNet())
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured,
                          amount=0.2)
for name in ["conv1", "conv2", "fc1", "fc2", "fc3"]:
    print("Sparsity in {}.weight: {:.2f}%".format(
        name, sparsity(getattr(model, name).weight)))
total = sum(float(torch.sum(getattr(model, n).weight == 0))
            for n in ["conv1", "conv2", "fc1", "fc2", "fc3"])
count = sum(float(getattr(model, n).weight.nelement())
            for n in ["conv1", "conv2", "fc1", "fc2", "fc3"])
print("Global sparsity: {:.2f}%".format(100.0 * total / count))
''',
    "custom_pruning_method": PRUNING_SETUP + '''
class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = fixed_weights(LeNet())
foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)
print(type(list(model.fc3._forward_pre_hooks.values())[0]).__name__)
''',
}

PARAM_SETUP = '''
import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.utils.parametrize as parametrize


def fixed(layer):
    with torch.no_grad():
        n = layer.weight.numel()
        layer.weight.copy_(torch.sin(torch.arange(n, dtype=torch.float64) * 1.37)
                           .view(layer.weight.shape).float())
        layer.bias.zero_()
    return layer


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class SkewSymmetric(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)
'''

PROGRAMS.update({
    "symmetric_and_skew": PARAM_SETUP + '''
layer = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
print(torch.allclose(A, A.T))
print(A)
layer = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", SkewSymmetric())
print(torch.allclose(layer.weight, -layer.weight.T))
print(layer.weight)
print(layer)
print(layer.parametrizations.weight.original)
print(type(layer).__name__, parametrize.type_before_parametrizations(layer).__name__)
''',
    "caching": PARAM_SETUP + '''
class NoisyParametrization(nn.Module):
    def forward(self, X):
        print("Computing the Parametrization")
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
print("Here, layer.weight is recomputed every time we call it")
foo = layer.weight + layer.weight.T
bar = layer.weight.sum()
with parametrize.cached():
    print("Here, it is computed just the first time layer.weight is called")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
''',
    "concatenating": PARAM_SETUP + '''
class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # (I + X)(I - X)^{-1}
        return torch.linalg.solve(self.Id - X, self.Id + X)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", SkewSymmetric())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)
layer_orthogonal = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer_orthogonal, "weight", SkewSymmetric())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)
layer_spd = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print(torch.dist(X, X.T) < 1e-5, (torch.linalg.eigvalsh(X) > 0.).all())
print(layer)
print([name for name, _ in layer.named_buffers()])
X.sum().backward()
print(layer_spd.parametrizations.weight.original.grad.abs().sum() > 0)
''',
    "right_inverse": PARAM_SETUP + '''
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


layer = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", Symmetric())
X = torch.tensor([[1.0, 2.0, 3.0], [2.0, 5.0, 6.0], [3.0, 6.0, 9.0]])
print(torch.allclose(layer.weight, layer.weight.T))
layer.weight = X
print(torch.allclose(layer.weight, X))
print(layer.parametrizations.weight.original)


class Halves(nn.Module):
    def forward(self, X0, X1):
        return X0 + X1

    def right_inverse(self, Z):
        return Z / 2, Z / 2


layer = fixed(nn.Linear(2, 2))
parametrize.register_parametrization(layer, "weight", Halves())
print(layer.state_dict().keys())
print(layer.parametrizations.weight.original0)
layer.weight = torch.tensor([[4.0, 2.0], [0.0, -2.0]])
print(layer.parametrizations.weight.original1)
''',
    "removing": PARAM_SETUP + '''
layer = fixed(nn.Linear(3, 3))
print("Before:")
print(layer)
print(layer.weight)
parametrize.register_parametrization(layer, "weight", SkewSymmetric())
print("\\nParametrized:")
print(layer)
print(layer.weight)
parametrize.remove_parametrizations(layer, "weight")
print("\\nAfter. Weight has skew-symmetric values but it is unconstrained:")
print(layer)
print(layer.weight)
layer = fixed(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", SkewSymmetric())
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print("\\nAfter, keeping the original values:")
print(layer)
print(layer.weight)
''',
})


# What each program printed on PyTorch 2.13 (normalized as above).
EXPECTED = {
    'inspect_then_prune_one_layer': """\
[('weight', (6, 1, 5, 5)), ('bias', (6,))]
[]
['bias', 'weight_orig']
['weight_mask']
105 torch.Size([6, 1, 5, 5])
True
OrderedDict([(ID, <torch.nn.utils.prune.RandomUnstructured object at 0x...>)])
['weight_orig', 'bias_orig']
tensor([1., 0., 0., 1., 0., 1.])
tensor([ 0.2104,  0.0000, -0.0000, -0.2305,  0.0000,  0.2500],
       grad_fn=<MulBackward0>)
OrderedDict([(ID, <torch.nn.utils.prune.RandomUnstructured object at 0x...>), (ID, <torch.nn.utils.prune.L1Unstructured object at 0x...>)])
torch.Size([1, 10])
""",
    'iterative_pruning_and_remove': """\
tensor([18.,  0.,  0.,  0., 18., 17.])
[<torch.nn.utils.prune.L1Unstructured object at 0x...>, <torch.nn.utils.prune.LnStructured object at 0x...>]
odict_keys(['conv1.bias', 'conv1.weight_orig', 'conv1.weight_mask', 'conv2.weight', 'conv2.bias', 'fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias', 'fc3.weight', 'fc3.bias'])
['bias', 'weight']
[]
64.67
""",
    'prune_many_layers': """\
dict_keys(['conv1.weight_mask', 'conv2.weight_mask', 'fc1.weight_mask', 'fc2.weight_mask', 'fc3.weight_mask'])
True
[20.0, 20.0, 40.0, 40.0, 40.0]
""",
    'global_pruning': """\
Sparsity in conv1.weight: 20.67%
Sparsity in conv2.weight: 20.00%
Sparsity in fc1.weight: 20.00%
Sparsity in fc2.weight: 19.99%
Sparsity in fc3.weight: 19.88%
Global sparsity: 20.00%
""",
    'custom_pruning_method': """\
tensor([0., 1., 0., 1., 0., 1., 0., 1., 0., 1.])
FooBarPruningMethod
""",
    'symmetric_and_skew': """\
True
tensor([[ 0.0000,  0.9799,  0.3909],
        [ 0.9799, -0.7196,  0.5369],
        [ 0.3909,  0.5369, -0.9994]], grad_fn=<AddBackward0>)
True
tensor([[ 0.0000,  0.9799,  0.3909],
        [-0.9799,  0.0000,  0.5369],
        [-0.3909, -0.5369,  0.0000]], grad_fn=<SubBackward0>)
ParametrizedLinear(
  in_features=3, out_features=3, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): SkewSymmetric()
    )
  )
)
Parameter containing:
tensor([[ 0.0000,  0.9799,  0.3909],
        [-0.8240, -0.7196,  0.5369],
        [ 0.9338, -0.1645, -0.9994]], requires_grad=True)
ParametrizedLinear Linear
""",
    'caching': """\
Computing the Parametrization
Here, layer.weight is recomputed every time we call it
Computing the Parametrization
Computing the Parametrization
Computing the Parametrization
Here, it is computed just the first time layer.weight is called
Computing the Parametrization
""",
    'concatenating': """\
tensor(True)
tensor(True)
tensor(True) tensor(True)
ParametrizedLinear(
  in_features=3, out_features=3, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): SkewSymmetric()
      (1): CayleyMap()
    )
  )
)
['parametrizations.weight.1.Id']
tensor(True)
""",
    'right_inverse': """\
True
True
Parameter containing:
tensor([[1., 2., 3.],
        [0., 5., 6.],
        [0., 0., 9.]], requires_grad=True)
odict_keys(['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1'])
Parameter containing:
tensor([[ 0.0000,  0.4900],
        [ 0.1954, -0.4120]], requires_grad=True)
Parameter containing:
tensor([[ 2.,  1.],
        [ 0., -1.]], requires_grad=True)
""",
    'removing': """\
Before:
Linear(in_features=3, out_features=3, bias=True)
Parameter containing:
tensor([[ 0.0000,  0.9799,  0.3909],
        [-0.8240, -0.7196,  0.5369],
        [ 0.9338, -0.1645, -0.9994]], requires_grad=True)

Parametrized:
ParametrizedLinear(
  in_features=3, out_features=3, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): SkewSymmetric()
    )
  )
)
tensor([[ 0.0000,  0.9799,  0.3909],
        [-0.9799,  0.0000,  0.5369],
        [-0.3909, -0.5369,  0.0000]], grad_fn=<SubBackward0>)

After. Weight has skew-symmetric values but it is unconstrained:
Linear(in_features=3, out_features=3, bias=True)
Parameter containing:
tensor([[ 0.0000,  0.9799,  0.3909],
        [-0.9799,  0.0000,  0.5369],
        [-0.3909, -0.5369,  0.0000]], requires_grad=True)

After, keeping the original values:
Linear(in_features=3, out_features=3, bias=True)
Parameter containing:
tensor([[ 0.0000,  0.9799,  0.3909],
        [-0.8240, -0.7196,  0.5369],
        [ 0.9338, -0.1645, -0.9994]], requires_grad=True)
""",
}


def normalized(text):
    """The printed text without what varies: the library's name, addresses, hook ids, and
    OrderedDict's repr, which Python 3.12 changed from ``OrderedDict([(k, v)])`` to
    ``OrderedDict({k: v})`` (the expected texts are in the older form)."""
    text = text.replace("minitorch", "torch")
    text = re.sub(r"0x[0-9a-f]+", "0x...", text)
    text = re.sub(r"OrderedDict\(\{(.*)\}\)", _older_ordered_dict, text)
    return re.sub(r"\((\d+), <", "(ID, <", text)


def _older_ordered_dict(match):
    items = re.sub(r"(\d+): <", r"(\1, <", match.group(1))
    return "OrderedDict([" + re.sub(r">(, |$)", r">)\1", items) + "])"


def run(code):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "<tutorial program>", "exec"), {"__name__": "__program__"})
    return printed.getvalue()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    assert normalized(run(PROGRAMS[name])) == EXPECTED[name]


def test_every_program_has_pytorchs_output():
    assert sorted(PROGRAMS) == sorted(EXPECTED)

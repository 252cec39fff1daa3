"""The seed documents' Module code, run with only ``import torch`` changed to ``import minitorch as torch``.

* seed 000 (Korean): the tour of nn.Module: ``forward`` missing, ``apply``,
  ``train``/``eval``, ``extra_repr``/``__repr__``, forward (pre-)hooks, full
  backward hooks and the order ``_call_impl`` runs them in;
* seed 003 (Chinese): overriding ``__call__`` around ``self._call_impl``;
* seed 004 (Korean): a ``Linear`` module built on ``LinearFunction``, printed
  through its ``extra_repr``;
* seed 002 (Japanese): freezing a pretrained model, replacing its last layer,
  and optimising only that layer's parameters.
"""

import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.optim as optim


from tests.seed_code import Linear, LinearFunction

pytestmark = [pytest.mark.chapter7, pytest.mark.chapter8]


@pytest.mark.task("7.2")
def test_seed004_linear_module_prints_its_extra_repr(capsys):
    linear = Linear(10, 20)
    print(linear)
    assert capsys.readouterr().out == "Linear(input_features=10, output_features=20, bias=True)\n"
    assert [n for n, _ in linear.named_parameters()] == ["weight", "bias"]
    assert all(-0.1 <= v <= 0.1 for v in linear.weight.detach().numpy().ravel())
    no_bias = Linear(3, 2, bias=False)
    assert repr(no_bias) == "Linear(input_features=3, output_features=2, bias=False)"
    assert no_bias.bias is None and list(no_bias._parameters) == ["weight", "bias"]


@pytest.mark.task("8.1")
def test_seed004_the_typo_in_forward_fails_as_in_pytorch():
    # The seed writes ``self,bias``: PyTorch raises NameError for the undefined ``bias`` too.
    with pytest.raises(NameError, match="bias"):
        Linear(2, 3)(torch.randn(4, 2))


@pytest.mark.task("8.1")
def test_seed004_module_on_linear_function_with_the_typo_fixed():
    class FixedLinear(Linear):
        def forward(self, input):
            return LinearFunction.apply(input, self.weight, self.bias)

    layer = FixedLinear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    out = layer(x)
    assert out.grad_fn.name() == "LinearFunctionBackward"
    assert out.allclose(torch.nn.functional.linear(x, layer.weight, layer.bias))
    out.sum().backward()
    assert layer.bias.grad.tolist() == [4.0, 4.0]
    assert layer.weight.grad.allclose(x.detach().sum(0).expand(2, 3))


# ----- seed 003: overriding __call__ around _call_impl (verbatim) ---------------------------
class MyModule(nn.Module):
    def __call__(self, *args, **kwargs):
        print('before')
        output = self._call_impl(*args, **kwargs)
        print('after')


@pytest.mark.task("8.1")
def test_seed003_call_override(capsys):
    class WithForward(MyModule):
        def forward(self, x):
            print("forward")
            return x

    m = WithForward()
    m.register_forward_pre_hook(lambda module, input: print("pre-hook"))
    m.register_forward_hook(lambda module, input, output: print("hook"))
    assert m(torch.ones(1)) is None          # the seed's __call__ returns nothing
    assert capsys.readouterr().out == "before\npre-hook\nforward\nhook\nafter\n"


def test_seed003_attribute_groups():
    m = nn.Module()
    parameter_related = ["_parameters", "_buffers", "_non_persistent_buffers_set", "_state_dict_hooks",
                         "_load_state_dict_pre_hooks", "_modules"]
    computation_related = ["training", "_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
                           "_is_full_backward_hook"]
    assert all(name in vars(m) for name in parameter_related + computation_related)
    assert (nn.Module.dump_patches, nn.Module._version) == (False, 1)


# ----- seed 000: the tour of nn.Module --------------------------------------------------
@pytest.mark.task("8.1")
def test_seed000_forward_unimplemented():
    with pytest.raises(NotImplementedError):
        nn.Module()(torch.ones(1))


@pytest.mark.task("7.2")
def test_seed000_apply_post_order_train_eval():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Dropout()))
    visited = []
    model.apply(lambda module: visited.append(module._get_name()))
    assert visited == ["Linear", "ReLU", "Dropout", "Sequential", "Sequential"]
    model.eval()
    assert [m.training for m in model.modules()] == [False] * 5
    model.train()
    assert [m.training for m in model.modules()] == [True] * 5
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        model.train("False")


@pytest.mark.task("7.1")
def test_seed000_extra_repr_one_liner_and_children():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.act = nn.ReLU()

        def extra_repr(self):
            return "note=demo"

    assert repr(nn.Linear(4, 2)) == "Linear(in_features=4, out_features=2, bias=True)"
    assert repr(Block()) == ("Block(\n  note=demo\n  (fc): Linear(in_features=4, out_features=2, bias=True)\n"
                             "  (act): ReLU()\n)")


@pytest.mark.task("8.1")
def test_seed000_call_impl_hooks():
    log = []
    layer = nn.Linear(2, 1)
    layer.register_forward_pre_hook(lambda module, input: input[0] * 2)        # a single value: wrapped in a tuple
    layer.register_forward_hook(lambda module, input, output: output + 100)    # replaces the output
    layer.register_full_backward_hook(
        lambda module, grad_input, grad_output: log.append((len(grad_input), len(grad_output))))
    x = torch.ones(1, 2, requires_grad=True)
    out = layer(x)
    expected = torch.nn.functional.linear(x * 2, layer.weight, layer.bias) + 100
    assert out.allclose(expected)
    out.sum().backward()
    assert log == [(1, 1)]
    assert x.grad.allclose(layer.weight.detach() * 2)


# ----- seed 002: freezing a pretrained model ----------------------------------------------
class PretrainedStandIn(nn.Module):
    """Stands in for ``torchvision.models.resnet18(pretrained=True)``: a body and an ``fc`` head."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 512), nn.ReLU())
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        return self.fc(self.body(x))


def test_seed002_freeze_replace_last_layer_optimize_only_it():
    model = PretrainedStandIn()
    for param in model.parameters():
        param.requires_grad = False
    # Replace the last fully-connected layer
    # Parameters of newly constructed modules have requires_grad=True by default
    model.fc = nn.Linear(512, 100)
    # Optimize only the classifier
    optimizer = optim.SGD(model.fc.parameters(), lr=1e-2, momentum=0.9)

    body_before = [p.clone() for p in model.body.parameters()]
    fc_before = model.fc.weight.clone()
    x = torch.randn(4, 8)
    target = torch.tensor([1, 5, 7, 99])
    loss = nn.CrossEntropyLoss()(model(x), target)
    assert loss.requires_grad
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert all(p.grad is None for p in model.body.parameters())
    assert all(p.equal(q) for p, q in zip(model.body.parameters(), body_before))
    assert not model.fc.weight.equal(fc_before)
    assert [name for name, p in model.named_parameters() if p.requires_grad] == ["fc.weight", "fc.bias"]
    # no intermediate buffers are recorded until the graph reaches the trainable head
    assert model.body(x).grad_fn is None

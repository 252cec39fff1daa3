"""Misuse of Module hooks and state dicts (chapter 8).  PyTorch 2.13's exception
types and wording; see tests/misuse.py."""

import pytest

import minitorch as torch
import minitorch.nn as nn
from tests.misuse import Row, check, namespace, params

pytestmark = pytest.mark.chapter8


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, x):
        return self.act(self.fc1(x))


N = "net = Net()\n"
RUN = "net(torch.ones(1, 2, requires_grad=True)).sum().backward()"

ROWS = [
    Row(N + "net.register_forward_hook(lambda m, a, o: None, bogus=1)", TypeError,
        "unexpected keyword argument 'bogus'"),
    Row(N + "net.register_forward_hook(lambda m, a: None)\nnet(torch.ones(1, 2))", TypeError,
        "takes 2 positional arguments but 3 were given", plain=False),
    Row(N + "net.register_forward_pre_hook(lambda m: None)\nnet(torch.ones(1, 2))", TypeError,
        "takes 1 positional argument but 2 were given", plain=False),
    Row(N + "net.register_forward_pre_hook(lambda m, a: (1, 2))\nnet(torch.ones(1, 2))", TypeError,
        "forward\\(\\) takes 2 positional arguments but 3 were given", plain=False),
    Row(N + "net.register_forward_pre_hook(lambda m, a: 5)\nnet(torch.ones(1, 2))", TypeError,
        r"linear\(\): argument 'input' \(position 1\) must be Tensor, not int"),
    Row(N + "net.register_full_backward_hook(lambda m, gi, go: (torch.ones(5),))\n" + RUN, RuntimeError,
        "hook 'hook' has changed the size of value"),
    Row(N + "net.register_full_backward_hook(lambda m, gi, go: 3)\n" + RUN, TypeError,
        "object of type 'int' has no len\\(\\)"),
    Row(N + "net.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))\n" + RUN, RuntimeError,
        "Backward hook returned an invalid number of grad_input, got 2, but expected 1"),
    Row(N + "net.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))\n" + RUN, RuntimeError,
        "Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"),
    Row(N + "net.register_full_backward_hook(lambda m, gi, go: None)\nnet.register_backward_hook(lambda m, gi, go: None)",
        RuntimeError, "Cannot use both regular backward hooks and full backward hooks on a single Module"),
    Row("r = nn.ReLU(inplace=True)\nr.register_full_backward_hook(lambda m, gi, go: None)\n"
        "r(torch.ones(2, requires_grad=True) * 1)", RuntimeError,
        "Output 0 of BackwardHookFunction is a view and is being modified inplace"),
    Row(N + "net.register_state_dict_post_hook(lambda m, sd, prefix, local: {'replaced': True})\nnet.state_dict()",
        RuntimeError, "state_dict post-hook must return None"),
    Row(N + "net.load_state_dict({'fc1.weight': torch.ones(5)}, strict=False)", RuntimeError,
        r"Error\(s\) in loading state_dict for Net:\n\tsize mismatch for fc1.weight: copying a param with shape "
        r"(mini)?torch.Size\(\[5\]\) from checkpoint, the shape in current model is (mini)?torch.Size\(\[3, 2\]\)"),
    Row(N + "sd = net.state_dict()\ndel sd['fc1.bias']\nnet.load_state_dict(sd)", RuntimeError,
        r"Error\(s\) in loading state_dict for Net:\n\tMissing key\(s\) in state_dict: \"fc1.bias\""),
    Row(N + "sd = net.state_dict()\nsd['extra'] = torch.ones(1)\nnet.load_state_dict(sd)", RuntimeError,
        r"Unexpected key\(s\) in state_dict: \"extra\""),
    Row(N + "sd = net.state_dict()\nsd['fc1.bias'] = [1., 2., 3.]\nnet.load_state_dict(sd)", RuntimeError,
        "While copying the parameter named \"fc1.bias\", expected (mini)?torch.Tensor or Tensor-like object from checkpoint "
        "but received <class 'list'>"),
    Row(N + "net.load_state_dict([])", TypeError,
        "Expected state_dict to be dict-like, got <class 'list'>"),
    Row(N + "net.load_state_dict(5)", TypeError,
        "Expected state_dict to be dict-like, got <class 'int'>"),
    Row(N + "net.state_dict(5)", TypeError, plain=False),
]
NAMES = namespace(Net=Net)


@pytest.mark.parametrize("row", params(ROWS))
def test_misuse(row):
    check(row, NAMES)


@pytest.mark.task("8.2")
def test_a_failed_non_strict_load_has_copied_the_good_entries():
    """PyTorch copies every entry that fits before it raises for the one that does not."""
    net = Net()
    sd = {k: torch.full(v.shape, 7.0) for k, v in net.state_dict().items()}
    sd["fc1.weight"] = torch.zeros(5, 5)
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):
        net.load_state_dict(sd, strict=False)
    assert net.fc1.bias.tolist() == [7.0, 7.0, 7.0] and net.steps.tolist() == [7.0]

"""The order in which PyTorch's engine runs nodes and fires hooks (chapters 4 and 5).

Among ready nodes the most recently created runs first, except that a leaf's
AccumulateGrad node outranks every other node; when one node makes several
AccumulateGrad nodes ready at once they run in the order of that node's inputs.
A node that is reached but receives no gradient at all still runs: a custom
Function's backward gets zeros (or None under ``set_materialize_grads(False)``),
and a tensor hook on an output that got no gradient is called with None.
"""

import pytest

import minitorch as torch
from minitorch.autograd import Function

pytestmark = pytest.mark.chapter5


def trace(root, log):
    """Log every node of the graph below ``root`` as it runs, and the leaves' hooks."""
    seen = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        name = node.name().replace("torch::autograd::", "")
        node.register_prehook(lambda grads, name=name: log.append(name))
        stack.extend(child for child, _ in node.next_functions)


def leaves(log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    x.register_hook(lambda g: log.append("hook x"))
    y.register_hook(lambda g: log.append("hook y"))
    return x, y


ORDERS = [
    ("x * y", lambda x, y: (x * y).sum(),
     ["SumBackward0", "MulBackward0", "hook x", "AccumulateGrad", "hook y", "AccumulateGrad"]),
    ("y * x", lambda x, y: (y * x).sum(),
     ["SumBackward0", "MulBackward0", "hook y", "AccumulateGrad", "hook x", "AccumulateGrad"]),
    ("x + y", lambda x, y: (x + y).sum(),
     ["SumBackward0", "AddBackward0", "hook x", "AccumulateGrad", "hook y", "AccumulateGrad"]),
    ("cat([x, y])", lambda x, y: torch.cat([x, y]).sum(),
     ["SumBackward0", "CatBackward0", "hook x", "AccumulateGrad", "hook y", "AccumulateGrad"]),
    ("stack([y, x])", lambda x, y: torch.stack([y, x]).sum(),
     ["SumBackward0", "StackBackward0", "hook y", "AccumulateGrad", "hook x", "AccumulateGrad"]),
    ("(x @ y) * x", lambda x, y: ((x @ y) * x).sum(),
     ["SumBackward0", "MulBackward0", "DotBackward0", "hook x", "AccumulateGrad", "hook y", "AccumulateGrad"]),
    ("x*y + y*x", lambda x, y: (x * y).sum() + (y * x).sum(),
     ["AddBackward0", "SumBackward0", "MulBackward0", "SumBackward0", "MulBackward0", "hook x", "AccumulateGrad",
      "hook y", "AccumulateGrad"]),
    ("(x + y) * (y + x)", lambda x, y: ((x + y) * (y + x)).sum(),
     ["SumBackward0", "MulBackward0", "AddBackward0", "AddBackward0", "hook x", "AccumulateGrad", "hook y",
      "AccumulateGrad"]),
    ("(x * 2) * y", lambda x, y: ((x * 2) * y).sum(),
     ["SumBackward0", "MulBackward0", "hook y", "AccumulateGrad", "MulBackward0", "hook x", "AccumulateGrad"]),
    ("(x * 2) + (y * 3)", lambda x, y: ((x * 2) + (y * 3)).sum(),
     ["SumBackward0", "AddBackward0", "MulBackward0", "hook y", "AccumulateGrad", "MulBackward0", "hook x",
      "AccumulateGrad"]),
    ("x.sum() + y.sum()", lambda x, y: x.sum() + y.sum(),
     ["AddBackward0", "SumBackward0", "hook y", "AccumulateGrad", "SumBackward0", "hook x", "AccumulateGrad"]),
]


@pytest.mark.parametrize("build, expected", [o[1:] for o in ORDERS], ids=[o[0] for o in ORDERS])
def test_order_of_nodes_and_leaf_hooks(build, expected):
    log = []
    x, y = leaves(log)
    out = build(x, y)
    trace(out.grad_fn, log)
    out.backward()
    assert log == expected


class Two(Function):
    """Two outputs; backward logs what it receives."""
    log = None

    @staticmethod
    def forward(ctx, x, materialize=True):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        Two.log.append(("backward", None if ga is None else ga.tolist(),
                        None if gb is None else gb.tolist()))
        ga = torch.zeros(2) if ga is None else ga
        gb = torch.zeros(2) if gb is None else gb
        return ga * 2 + gb * 3, None


class Drop(Function):
    """Passes no gradient on."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return None, None


@pytest.mark.task("6.8")
@pytest.mark.parametrize("materialize, expected", [(True, [0.0, 0.0]), (False, None)],
                         ids=["zeros", "None"])
def test_a_function_whose_outputs_got_no_gradient_still_runs(materialize, expected):
    Two.log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = Two.apply(x, materialize)
    (Drop.apply(a, b).sum() + x.sum()).backward()
    assert Two.log == [("backward", expected, expected)]
    assert x.grad.tolist() == [1.0, 1.0]


@pytest.mark.task("6.8")
def test_the_other_output_gets_zeros_or_none():
    for materialize, other in ((True, [0.0, 0.0]), (False, None)):
        Two.log = []
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a, b = Two.apply(x, materialize)
        a.sum().backward()
        assert Two.log == [("backward", [1.0, 1.0], other)]


@pytest.mark.task("6.8")
def test_a_hook_on_an_output_that_got_no_gradient_is_called_with_none():
    Two.log = []
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = Two.apply(x)
    b.register_hook(lambda g: seen.append(("b", g)))
    a.register_hook(lambda g: seen.append(("a", g.tolist())))
    a.sum().backward()
    assert seen == [("b", None), ("a", [1.0, 1.0])]


@pytest.mark.task("5.4")
def test_leaf_hook_fires_once_with_the_summed_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    got = []
    x.register_hook(lambda g: got.append(g.tolist()))
    (x * 2 + x * 3).sum().backward()
    assert got == [[5.0, 5.0]]


@pytest.mark.task("5.4")
def test_post_accumulate_grad_hook():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0]]

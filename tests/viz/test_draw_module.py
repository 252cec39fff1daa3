"""draw_module: the DOT it emits for module trees (structure, not pixels)."""

import re

import pytest

import minitorch as torch
from minitorch.viz import RendererNotFoundError, draw_module, to_svg

pytestmark = pytest.mark.chapter7


def boxes(source):
    """{node id: label text without HTML tags}."""
    out = {}
    for node_id, html in re.findall(r"^\t(n\d+) \[label=<(.*)>\]$", source, re.M):
        out[node_id] = re.sub(r"(<[^>]+>)+", "|", html).strip("|")
    return out


def edges(source):
    return re.findall(r"^\t(n\d+) -> (n\d+)(.*)$", source, re.M)


class FakeModule:
    """Just the public surface draw_module uses, so it does not depend on minitorch.nn."""

    def __init__(self, children=(), parameters=(), buffers=(), non_persistent=()):
        self._children = list(children)
        self._parameters = dict(parameters)
        self._buffers = dict(buffers)
        self._non_persistent_buffers_set = set(non_persistent)

    def named_children(self):
        return iter(self._children)


class Block(FakeModule):
    pass


def test_fake_module_tree():
    w = torch.ones(2, 3, requires_grad=True)
    frozen = torch.ones(3)
    mean = torch.zeros(3)
    leaf_a = Block(parameters={"w": w, "b": frozen})
    leaf_b = Block(buffers={"mean": mean, "scratch": torch.zeros(1)}, non_persistent={"scratch"})
    root = FakeModule(children=[("first", leaf_a), ("second", leaf_b)])
    src = draw_module(root).source
    b = boxes(src)
    assert b["n0"] == "FakeModule"
    assert b["n1"].split("|") == ["first: Block", "w (2, 3) requires_grad=True",
                                  "b (3,) requires_grad=False"]
    assert b["n2"].split("|") == ["second: Block", "mean (3,) buffer",
                                  "scratch (1,) buffer, not persistent"]
    assert [(u, v) for u, v, _ in edges(src)] == [("n0", "n1"), ("n0", "n2")]


def test_deep_fake_tree_is_numbered_depth_first_without_recursion():
    node = Block()
    root = node
    for i in range(3000):
        child = Block()
        node._children.append((f"c{i}", child))
        node = child
    src = draw_module(root).source
    assert len(edges(src)) == 3000
    b = boxes(src)
    assert b["n1"] == "c0: Block" and b["n3000"] == "c2999: Block"


def test_shared_submodule_is_one_box_with_two_arrows():
    shared = Block()
    root = FakeModule(children=[("a", shared), ("b", shared)])
    src = draw_module(root).source
    assert len(boxes(src)) == 2
    e = edges(src)
    assert [(u, v) for u, v, _ in e] == [("n0", "n1"), ("n0", "n1")]
    assert "label=b" in e[1][2]


def test_none_parameter_and_buffer():
    m = FakeModule(parameters={"bias": None}, buffers={"stat": None})
    assert boxes(draw_module(m).source)["n0"].split("|")[1:] == ["bias: None", "stat: None (buffer)"]


def test_real_modules():
    nn = pytest.importorskip("minitorch.nn")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.BatchNorm1d(4))
    model.register_buffer("scale", torch.ones(2), persistent=False)
    model[0].bias.requires_grad_(False)
    src = draw_module(model).source
    b = boxes(src)
    assert b["n0"].split("|") == ["Sequential", "scale (2,) buffer, not persistent"]
    assert b["n1"].split("|") == ["0: Linear", "weight (4, 3) requires_grad=True",
                                  "bias (4,) requires_grad=False"]
    assert b["n2"] == "1: ReLU"
    assert b["n3"].split("|")[0] == "2: BatchNorm1d"
    assert "running_mean (4,) buffer" in b["n3"]
    assert [(u, v) for u, v, _ in edges(src)] == [("n0", "n1"), ("n0", "n2"), ("n0", "n3")]
    assert src == draw_module(model).source


def test_nested_real_modules():
    nn = pytest.importorskip("minitorch.nn")

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
            self.head = nn.Linear(2, 1)

    src = draw_module(Net()).source
    titles = [label.split("|")[0] for label in boxes(src).values()]
    assert titles == ["Net", "body: Sequential", "0: Linear", "1: Tanh", "head: Linear"]
    assert [(u, v) for u, v, _ in edges(src)] == [("n0", "n1"), ("n1", "n2"), ("n1", "n3"),
                                                  ("n0", "n4")]


def test_names_are_escaped_for_the_html_label():
    m = FakeModule(parameters={"a<b&c": torch.ones(1)})
    src = draw_module(m).source
    assert "a&lt;b&amp;c (1,)" in src
    try:
        svg = to_svg(draw_module(m))
    except RendererNotFoundError:
        pytest.skip("no Graphviz renderer here")
    assert "a&lt;b&amp;c" in svg


@pytest.mark.chapter8b
def test_details_show_plain_attributes_pre_hooks_and_generated_properties():
    import minitorch.nn as nn
    import minitorch.nn.utils.parametrize as parametrize
    import minitorch.nn.utils.prune as prune

    layer = nn.Linear(3, 2)
    assert boxes(draw_module(layer, details=True).source) == boxes(draw_module(layer).source)
    prune.l1_unstructured(layer, "weight", amount=2)
    b = boxes(draw_module(layer, details=True).source)
    assert b["n0"].split("|") == ["Linear", "bias (2,) requires_grad=True",
                                  "weight_orig (2, 3) requires_grad=True",
                                  "weight_mask (2, 3) buffer",
                                  "weight (2, 3) plain attribute",
                                  "forward pre-hook: L1Unstructured"]
    prune.remove(layer, "weight")

    class Double(nn.Module):
        def forward(self, x):
            return 2 * x

    parametrize.register_parametrization(layer, "weight", Double())
    b = boxes(draw_module(layer, details=True).source)
    assert b["n0"].split("|") == ["ParametrizedLinear", "bias (2,) requires_grad=True",
                                  "weight: property of ParametrizedLinear"]
    assert b["n2"].split("|") == ["weight: ParametrizationList",
                                  "original (2, 3) requires_grad=True"]

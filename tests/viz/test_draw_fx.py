"""draw_fx: the DOT it emits for fx graphs (structure, not pixels)."""

import re

import pytest

import minitorch as torch
import minitorch.fx as fx
from minitorch.fx.passes.shape_prop import ShapeProp
from minitorch.viz import draw_fx

pytestmark = pytest.mark.chapter18


def boxes(source):
    """{node id: (label text without HTML tags, fill colour)}."""
    found = re.findall(r"^\t(n\d+) \[label=<(.*)> fillcolor=\"?([#\w]+)\"?\]$", source, re.M)
    return {i: (re.sub(r"(<[^>]+>)+", "|", label).strip("|"), colour)
            for i, label, colour in found}


def edges(source):
    return re.findall(r"^\t(n\d+) -> (n\d+)$", source, re.M)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)) + x.sum()


def test_one_box_per_node_in_program_order_with_arrows_to_users():
    gm = fx.symbolic_trace(Net())
    source = draw_fx(gm).source
    assert boxes(source) == {"n0": ("x|input", "#dde7f5"), "n1": ("lin|module lin", "white"),
                             "n2": ("relu|relu", "white"), "n3": ("sum_1|.sum", "white"),
                             "n4": ("add|add", "white"), "n5": ("output|output", "#e6e6e6")}
    assert sorted(edges(source)) == [("n0", "n1"), ("n0", "n3"), ("n1", "n2"), ("n2", "n4"),
                                     ("n3", "n4"), ("n4", "n5")]
    assert draw_fx(gm.graph).source == source           # a Graph or its module
    assert draw_fx(gm).source == source                 # the same text on every run


def test_shapes_from_shape_prop_and_highlighted_nodes():
    gm = fx.symbolic_trace(Net())
    ShapeProp(gm).propagate(torch.ones(2, 4))
    found = boxes(draw_fx(gm, highlight=["relu"]).source)
    assert found["n2"] == ("relu|relu|[2, 3]", "#fbd9a9")
    assert found["n3"][0] == "sum_1|.sum|[]"


def test_get_attr_nodes_read_the_module():
    g = fx.Graph()
    w = g.get_attr("lin.weight")
    g.output(g.call_function(torch.neg, (w,)))
    found = boxes(draw_fx(g).source)
    assert found["n0"] == ("lin_weight|self.lin.weight", "#dde7f5")
    assert found["n1"][0] == "neg|neg"


@pytest.mark.chapter21
def test_the_nodes_of_a_fused_kernel_sit_in_one_dashed_box():
    g = fx.Graph()
    x = g.placeholder("x")
    exp = g.call_function(torch.exp, (x,))
    neg = g.call_function(torch.neg, (exp,))
    g.output(g.call_function(torch.sum, (neg,)))
    exp.meta["kernel"] = neg.meta["kernel"] = "kernel0"     # as the backend records it
    source = draw_fx(g).source
    cluster = re.search(r"subgraph cluster_kernel0 \{(.*?)\n\t\}", source, re.S)
    assert cluster is not None and "label=kernel0" in cluster.group(1)
    assert "style=dashed" in cluster.group(1)
    assert re.findall(r"^\t\t(n\d+) \[", cluster.group(1), re.M) == ["n1", "n2"]
    assert set(boxes(source)) == {"n0", "n3", "n4"}       # the others stay outside

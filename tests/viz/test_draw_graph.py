"""draw_graph: the DOT it emits for autograd graphs (structure, not pixels)."""

import re
import sys

import pytest

import minitorch as torch
from minitorch.viz import draw_graph

pytestmark = pytest.mark.chapter4


def nodes(source):
    """{node id: label} of the DOT source."""
    return dict(re.findall(r'^\t(n\d+) \[label=("[^"]*"|\S+)', source, re.M))


def edges(source):
    return re.findall(r"^\t(n\d+) -> (n\d+)", source, re.M)


def labels(source):
    return [lab.strip('"') for lab in nodes(source).values()]


def ids_by_first_line(source, first_line):
    return [n for n, lab in nodes(source).items() if lab.strip('"').split("\\n")[0] == first_line]


def test_nodes_named_as_node_name_reports():
    x = torch.ones(2, 3, requires_grad=True)
    w = torch.ones(3, requires_grad=True)
    y = (x * w).sum()
    src = draw_graph(y).source
    assert labels(src).count("SumBackward0") == 1
    assert labels(src).count("MulBackward0") == 1
    assert labels(src).count("AccumulateGrad") == 2
    assert y.grad_fn.name() == "SumBackward0"


def test_edges_follow_next_functions_toward_the_leaves():
    x = torch.ones(2, 3, requires_grad=True)
    w = torch.ones(3, requires_grad=True)
    y = (x * w).sum()
    src = draw_graph(y, names={"x": x, "w": w})
    src = src.source
    result, = ids_by_first_line(src, "result")
    summ, = ids_by_first_line(src, "SumBackward0")
    mul, = ids_by_first_line(src, "MulBackward0")
    acc = ids_by_first_line(src, "AccumulateGrad")
    x_id, = ids_by_first_line(src, "x")
    w_id, = ids_by_first_line(src, "w")
    assert sorted(edges(src)) == sorted([(result, summ), (summ, mul), (mul, acc[0]), (mul, acc[1]),
                                         (acc[0], x_id), (acc[1], w_id)])


def test_one_edge_per_next_function_even_to_the_same_node():
    x = torch.ones(3, requires_grad=True)
    y = x * x
    assert len(y.grad_fn.next_functions) == 2
    src = draw_graph(y).source
    mul, = ids_by_first_line(src, "MulBackward0")
    acc, = ids_by_first_line(src, "AccumulateGrad")      # one node for the one leaf
    assert edges(src).count((mul, acc)) == 2


def test_result_label_has_name_shape_dtype():
    x = torch.ones(2, 3, requires_grad=True)
    y = x.exp()
    assert 'label="y\\n(2, 3)\\nfloat32"' in draw_graph(y, names={"y": y}).source
    assert 'label="result\\n(2, 3)\\nfloat32"' in draw_graph(y).source


def test_leaf_named_by_identity_not_by_equality():
    x = torch.ones(3, requires_grad=True)
    twin = torch.ones(3, requires_grad=True)        # equal values, another object
    src = draw_graph(x * 2, names={"twin": twin}).source
    assert not ids_by_first_line(src, "twin")
    assert ids_by_first_line(draw_graph(x * 2, names={"x": x}).source, "x")
    unnamed = draw_graph(x * 2).source
    assert 'label="(3,)\\nfloat32"' in unnamed          # an unnamed leaf shows its shape


def test_show_leaves_false_draws_no_leaf_boxes():
    x = torch.ones(3, requires_grad=True)
    src = draw_graph((x * 2).sum(), names={"x": x}, show_leaves=False).source
    assert not ids_by_first_line(src, "x")
    assert ids_by_first_line(src, "AccumulateGrad")


def test_several_results_share_their_graph():
    x = torch.ones(3, requires_grad=True)
    h = x * 2
    a, b = h.exp(), h.tanh()
    src = draw_graph(a, b).source
    assert ids_by_first_line(src, "result 0") and ids_by_first_line(src, "result 1")
    assert labels(src).count("MulBackward0") == 1      # drawn once, reached twice
    mul, = ids_by_first_line(src, "MulBackward0")
    assert sum(1 for _, v in edges(src) if v == mul) == 2


def test_a_leaf_result_is_drawn_as_a_leaf():
    x = torch.ones(3, requires_grad=True)
    src = draw_graph(x, names={"x": x}).source
    assert len(nodes(src)) == 1 and not edges(src)


def test_saved_tensors_shown_with_their_names_and_identity():
    x = torch.ones(2, 3, requires_grad=True)
    w = torch.ones(3, requires_grad=True)
    y = (x * w).exp()
    src = draw_graph(y, names={"x": x, "w": w}, show_saved=True).source
    assert "_saved_self (is x)\\n(2, 3)" in src
    assert "_saved_other (is w)\\n(3,)" in src
    # exp saves its result: equal to y but another object, so it is not "is y"
    assert "_saved_result\\n(2, 3)" in src
    assert "is y" not in draw_graph(y, names={"y": y}, show_saved=True).source
    assert "_saved" not in draw_graph(y).source       # off by default


def test_saved_tensors_of_a_custom_function():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g

    x = torch.ones(4, requires_grad=True)
    y = Square.apply(x)
    src = draw_graph(y, names={"x": x}, show_saved=True).source
    assert y.grad_fn.name() in labels(src)
    assert "saved_tensors[0] (is x)\\n(4,)" in src


def test_saved_tensors_freed_after_backward():
    x = torch.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    src = draw_graph(y, show_saved=True).source
    assert src.count("freed") == 2                    # _saved_self and _saved_other of the mul
    assert "_saved_self\\nfreed" in src


def test_versions_show_an_in_place_change_after_saving():
    x = torch.ones(3, requires_grad=True)
    h = x * 2
    y = h * h
    with torch.no_grad():
        h.add_(1)
    src = draw_graph(y, show_saved=True, show_versions=True).source
    assert "saved at version 0, now 1" in src
    assert "color=red" in src
    clean = draw_graph(x * x, show_saved=True, show_versions=True).source
    assert "version 0" in clean and "now" not in clean


def test_source_identical_across_runs():
    def build():
        x = torch.ones(2, 2, requires_grad=True)
        w = torch.ones(2, 2, requires_grad=True)
        loss = ((x @ w).relu() * x).sum()
        return draw_graph(loss, names={"x": x, "w": w, "loss": loss},
                          show_saved=True, show_versions=True).source
    first, second = build(), build()
    assert first == second
    assert "0x" not in first


def test_not_a_tensor_is_a_clear_type_error():
    import pytest
    with pytest.raises(TypeError, match="argument 0 is a list"):
        draw_graph([1, 2])


def test_deep_graph_does_not_recurse():
    x = torch.ones(1, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)       # any recursion over the depth would fail at once
    try:
        src = draw_graph(y).source
    finally:
        sys.setrecursionlimit(limit)
    assert labels(src).count("MulBackward0") == 10_000
    assert len(edges(src)) == 10_000 + 2          # result->first node, the chain, AccumulateGrad->leaf


def diamond_with_values():
    """x feeds two branches that meet again; h keeps its gradient."""
    x = torch.tensor(0.5, requires_grad=True)
    w = torch.tensor([2.0, 1.0], requires_grad=True)
    h = x * w
    h.retain_grad()
    z = (h.sin() + h).sum()
    return {"x": x, "w": w, "h": h, "z": z}


def test_show_values_writes_values_before_backward_and_gradients_after():
    names = diamond_with_values()
    before = labels(draw_graph(names["z"], names=names, show_values=True).source)
    assert "x\\n()\\nvalue 0.5" in before
    assert "w\\n(2,)\\nvalue [2, 1]" in before
    assert "MulBackward0\\nh: value [1, 0.5]" in before
    assert not any("grad" in lab for lab in before)
    names["z"].backward()
    after = labels(draw_graph(names["z"], names=names, show_values=True).source)
    # dz/dh = cos(h) + 1, dz/dx = sum(w * (cos(h) + 1)), dz/dw = x * (cos(h) + 1)
    assert "MulBackward0\\nh: value [1, 0.5]\\nh: grad [1.54, 1.878]" in after
    assert "x\\n()\\nvalue 0.5\\ngrad 4.958" in after
    assert "w\\n(2,)\\nvalue [2, 1]\\ngrad [0.7702, 0.9388]" in after


def test_show_values_off_by_default_and_large_tensors_show_their_shape():
    x = torch.ones(2, 3, requires_grad=True)
    y = (x * 2).sum()
    assert not any("value" in lab for lab in labels(draw_graph(y, names={"x": x}).source))
    shown = labels(draw_graph(y, names={"x": x}, show_values=True).source)
    assert "x\\n(2, 3)\\nvalue (2, 3)" in shown

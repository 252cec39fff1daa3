"""draw_refs: the DOT it emits for pictures of references (structure, not pixels)."""

import re
import sys
import weakref

import numpy as np

import minitorch as torch
from minitorch.viz import draw_refs
import pytest

pytestmark = [pytest.mark.chapter1, pytest.mark.chapter2]


class Thing:
    """A user class, as the memory chapters write them."""


def nodes(source):
    return dict(re.findall(r'^\t(n\d+) \[label=("[^"]*"|\S+)', source, re.M))


def edge_lines(source):
    return re.findall(r"^\t(n\d+) -> (n\d+)(.*)$", source, re.M)


def first_line(lab):
    return lab.strip('"').split("\\n")[0]


def node_line(source, node_id):
    return re.search(rf"^\t{node_id} \[.*$", source, re.M).group(0)


def name_target(source, name):
    """The node the variable ``name`` points at."""
    name_id, = [n for n, lab in nodes(source).items() if lab.strip('"') == name]
    target, = [v for u, v, _ in edge_lines(source) if u == name_id]
    return target


def refs_of(source, node_id):
    return int(re.search(r"refs: (\d+)", nodes(source)[node_id]).group(1))


def test_attribute_edges_skip_the_dict_indirection():
    a = Thing()
    a.child = Thing()
    a.number = 3                              # not drawn: not an object worth a box
    src = draw_refs({"a": a}).source
    a_id = name_target(src, "a")
    out = [(v, rest) for u, v, rest in edge_lines(src) if u == a_id]
    assert len(out) == 1 and "label=child" in out[0][1]
    assert "__dict__" not in src and "dict" not in src
    assert sum(first_line(lab) == "Thing" for lab in nodes(src).values()) == 2


def test_container_edges_labelled_with_index_and_key():
    t0, t1 = Thing(), Thing()
    src = draw_refs({"lst": [t0, t1], "d": {"k": t0}}).source
    assert 'label="[0]"' in src and 'label="[1]"' in src and "label=\"['k']\"" in src
    assert "list (len 2)" in src and "dict (len 1)" in src


def test_refcount_of_an_object_only_a_list_references_is_one():
    lst = [Thing()]
    src = draw_refs({"lst": lst}).source
    lst_id = name_target(src, "lst")
    thing_id, = [v for u, v, _ in edge_lines(src) if u == lst_id]
    assert refs_of(src, thing_id) == 1
    assert refs_of(src, lst_id) == 1          # the variable lst


def test_refcount_matches_sys_getrefcount_minus_its_argument():
    a = Thing()
    b = a
    holder = [a, a]
    expected = sys.getrefcount(a) - 1         # a, b and holder's two slots
    assert expected == 4
    src = draw_refs({"a": a}).source
    assert refs_of(src, name_target(src, "a")) == expected
    src = draw_refs([a, holder]).source       # a list of roots is not counted either
    assert refs_of(src, "n0") == expected
    del b, holder


def test_the_count_grows_with_references_not_drawn():
    a = Thing()
    before = refs_of(draw_refs({"a": a}).source, "n0")
    hidden = {"somewhere": a}
    assert refs_of(draw_refs({"a": a}).source, "n0") == before + 1
    del hidden


def test_refcounts_can_be_switched_off():
    assert "refs:" not in draw_refs({"a": Thing()}, show_refcounts=False).source


def test_weak_reference_is_dashed_and_labelled_weak():
    a = Thing()
    r = weakref.ref(a)
    src = draw_refs({"a": a, "r": r}).source
    r_id, a_id = name_target(src, "r"), name_target(src, "a")
    (u, v, rest), = [e for e in edge_lines(src) if e[0] == r_id]
    assert v == a_id and "style=dashed" in rest and "weak" in rest
    assert refs_of(src, a_id) == 1            # a weak reference does not count


def test_dead_weak_reference_points_to_dead():
    a = Thing()
    r = weakref.ref(a)
    del a
    src = draw_refs({"r": r}).source
    r_id = name_target(src, "r")
    (u, v, rest), = [e for e in edge_lines(src) if e[0] == r_id]
    assert "style=dashed" in rest
    assert re.search(rf"^\t{v} \[label=dead", src, re.M)
    assert "weakref (dead)" in src


def test_weak_value_dictionary_references_are_weak():
    a = Thing()
    cache = weakref.WeakValueDictionary({"a": a})
    src = draw_refs({"cache": cache}).source
    cache_id = name_target(src, "cache")
    (u, v, rest), = [e for e in edge_lines(src) if e[0] == cache_id]
    assert "style=dashed" in rest and "['a']" in rest


def test_cycle_is_red_and_nothing_else_is():
    a, b, c = Thing(), Thing(), Thing()
    a.other, b.other = b, a                   # a <-> b: a cycle
    a.tail = c                                # not on the cycle
    src = draw_refs({"a": a}).source
    a_id = name_target(src, "a")
    red_edges = [(u, v) for u, v, rest in edge_lines(src) if "color=red" in rest]
    assert len(red_edges) == 2
    b_id = [v for u, v in red_edges if u == a_id][0]
    assert (b_id, a_id) in red_edges
    c_id = [v for u, v, rest in edge_lines(src) if u == a_id and "tail" in rest][0]
    assert "color=red" in node_line(src, a_id) and "color=red" in node_line(src, b_id)
    assert "color=red" not in node_line(src, c_id)
    assert "color=red" not in draw_refs({"a": a}, highlight_cycles=False).source


def test_self_reference_is_a_cycle():
    a = Thing()
    a.me = a
    src = draw_refs({"a": a}).source
    a_id = name_target(src, "a")
    assert any(u == v == a_id and "color=red" in rest for u, v, rest in edge_lines(src))


def test_cycle_through_a_weak_reference_is_not_red():
    a, b = Thing(), Thing()
    a.other = b
    b.back = weakref.ref(a)                   # DeZero's fix: the way back is weak
    assert "color=red" not in draw_refs({"a": a}).source


def test_minitorch_tensors_nodes_and_arrays():
    x = torch.ones(3, requires_grad=True)
    y = (x * x).sum()
    src = draw_refs({"y": y}, depth=4).source
    labs = [first_line(lab) for lab in nodes(src).values()]
    assert "Tensor ()" in labs and "SumBackward0" in labs and "MulBackward0" in labs
    assert any(lab.startswith("ndarray ()") for lab in labs)
    assert "label=grad_fn" in src and 'label="next_functions[0]"' in src
    assert "color=red" not in src             # minitorch's graph has no cycles


def test_depth_limits_how_far_references_are_followed():
    chain = Thing()
    node = chain
    for _ in range(10):
        node.next = Thing()
        node = node.next
    assert len(nodes(draw_refs({"chain": chain}, depth=3).source)) == 1 + 4   # name + 4 objects


def test_max_nodes_limits_the_picture_and_says_so():
    big = [Thing() for _ in range(10)]
    src = draw_refs({"big": big}, max_nodes=5).source
    assert sum(first_line(lab) == "Thing" for lab in nodes(src).values()) == 4
    assert "more objects not drawn (max_nodes=5)" in src


def test_modules_functions_and_classes_are_skipped():
    a = Thing()
    a.module, a.func, a.cls, a.array = np, len, Thing, np.zeros(2)
    src = draw_refs({"a": a}).source
    labs = [first_line(lab) for lab in nodes(src).values()]
    assert sorted(labs) == sorted(["a", "Thing", "ndarray (2,) float64"])


def test_source_identical_across_runs():
    def build():
        a, b = Thing(), Thing()
        a.other, b.other = b, a
        a.items = {b, a}
        r = weakref.ref(b)
        return draw_refs({"a": a, "r": r}).source
    first, second = build(), build()
    assert first == second and "0x" not in first


def test_drawing_keeps_no_reference():
    a = Thing()
    a.child = Thing()
    r = weakref.ref(a.child)
    before = sys.getrefcount(a)
    g = draw_refs({"a": a, "r": r})
    assert sys.getrefcount(a) == before
    del a
    assert r() is None                        # freed at once: the picture holds nothing
    assert "Thing" in g.source

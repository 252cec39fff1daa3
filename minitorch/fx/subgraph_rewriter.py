"""``replace_pattern``: find a small graph inside a big one and replace it (chapter 18).

The pattern and the replacement are ordinary functions, traced into graphs.  A match
is found by walking back from the pattern's result: each pattern node must meet a
graph node with the same opcode and target whose arguments match in turn, and a
pattern input (placeholder) matches any value.  The matched nodes must not be read
from outside the match (except the result), or removing them would break a reader.
Each match is then replaced by a copy of the replacement graph, its inputs bound to
what the pattern's inputs matched.
"""

from collections import namedtuple

from .graph_module import GraphModule
from .node import Node

__all__ = ["replace_pattern", "Match"]

Match = namedtuple("Match", ["anchor", "nodes_map"])


def replace_pattern(gm, pattern, replacement):
    """Replace every non-overlapping match of ``pattern`` in ``gm`` by ``replacement``
    (functions or GraphModules with the same inputs); returns the matches."""
    from ._symbolic_trace import symbolic_trace
    pattern_graph = _graph_of(pattern, symbolic_trace)
    replacement_graph = _graph_of(replacement, symbolic_trace)
    anchor = _single_result(pattern_graph)
    pattern_inputs = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    matches, taken = [], set()
    for node in list(gm.graph.nodes):
        nodes_map = {}
        if node in taken or not _match(anchor, node, nodes_map):
            continue
        inner = [g for p, g in nodes_map.items() if p.op != "placeholder"]
        if any(g in taken for g in inner) or _read_from_outside(inner, nodes_map[anchor]):
            continue
        taken.update(inner)
        matches.append(Match(anchor, nodes_map))
    for match in matches:
        _replace(gm.graph, match, pattern_inputs, replacement_graph, anchor)
    gm.graph.lint()
    gm.recompile()
    return matches


def _graph_of(fn, trace):
    return fn.graph if isinstance(fn, GraphModule) else trace(fn).graph


def _single_result(graph):
    output = next(n for n in graph.nodes if n.op == "output")
    result = output.args[0]
    if not isinstance(result, Node):
        raise NotImplementedError("replace_pattern: the pattern must return one value")
    return result


def _match(pattern_node, node, nodes_map):
    """Does ``pattern_node`` match ``node``?  Fills ``nodes_map`` (pattern -> graph) and
    leaves it as it was if not."""
    if pattern_node in nodes_map:
        return nodes_map[pattern_node] is node
    if pattern_node.op == "placeholder":
        nodes_map[pattern_node] = node
        return True
    if (pattern_node.op, pattern_node.target) != (node.op, node.target) or \
            len(pattern_node.args) != len(node.args) or \
            set(pattern_node.kwargs) != set(node.kwargs):
        return False
    saved = dict(nodes_map)
    nodes_map[pattern_node] = node
    pairs = list(zip(pattern_node.args, node.args)) + \
        [(pattern_node.kwargs[k], node.kwargs[k]) for k in pattern_node.kwargs]
    for p_arg, g_arg in pairs:
        if not _match_arg(p_arg, g_arg, nodes_map):
            nodes_map.clear()
            nodes_map.update(saved)
            return False
    return True


def _match_arg(p_arg, g_arg, nodes_map):
    if isinstance(p_arg, Node):
        return isinstance(g_arg, Node) and _match(p_arg, g_arg, nodes_map)
    if isinstance(p_arg, (tuple, list)):
        return type(p_arg) is type(g_arg) and len(p_arg) == len(g_arg) and \
            all(_match_arg(p, g, nodes_map) for p, g in zip(p_arg, g_arg))
    return not isinstance(g_arg, Node) and p_arg == g_arg


def _read_from_outside(inner, result):
    members = set(inner)
    return any(user not in members for node in inner if node is not result
               for user in node.users)


def _replace(graph, match, pattern_inputs, replacement_graph, anchor):
    result = match.nodes_map[anchor]
    inputs = [match.nodes_map[p] for p in pattern_inputs]
    val_map = dict(zip([n for n in replacement_graph.nodes if n.op == "placeholder"],
                       inputs))
    readers = [n for n in graph.nodes if n in result.users]     # in program order
    with graph.inserting_before(readers[0] if readers else result.next):
        new_result = graph.graph_copy(replacement_graph, val_map)
    result.replace_all_uses_with(new_result)
    matched = {g for p, g in match.nodes_map.items() if p.op != "placeholder"}
    for node in reversed(list(graph.nodes)):       # readers before what they read
        if node in matched and not node.users:
            graph.erase_node(node)

"""draw_refs: a picture of which Python objects reference which (chapters 1 and 2).

Objects are found by following references breadth-first from the roots, and
numbered n0, n1, ... in that order, so the same code gives the same DOT text.
"""

import functools
import re
import sys
import types
import weakref
from collections import deque

import numpy as np

from ._render import new_digraph, label

__all__ = ["draw_refs"]

MAX_ITEMS = 20          # references drawn per object; the rest are summarised in a note
_IMMORTAL = 1 << 28     # Python 3.12+ gives immortal objects (None, small ints...) a huge count

_SKIPPED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
            types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
            types.GetSetDescriptorType, types.MemberDescriptorType, types.CodeType, types.FrameType,
            types.GeneratorType, types.CoroutineType, types.CellType, property, staticmethod,
            classmethod, functools.partial)
_CONTAINERS = (list, tuple, dict, set, frozenset)
_WEAK_CONTAINERS = (weakref.WeakValueDictionary, weakref.WeakKeyDictionary, weakref.WeakSet)
_PROXIES = (weakref.ProxyType, weakref.CallableProxyType)
_DEAD = object()        # the target of a dead weak reference
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

STRONG_EDGE = {}
WEAK_EDGE = {"style": "dashed", "label": "weak"}
CYCLE = "red"


def draw_refs(objects, *, depth=3, show_refcounts=True, highlight_cycles=True, max_nodes=60):
    """A picture of the references among ``objects`` and what they reference.

    ``objects`` is a dict ``{"a": a, ...}`` (each root gets an arrow from its
    name, as a variable references its object) or a list.  From the roots,
    references are followed ``depth`` steps among objects worth drawing:
    instances of your classes, minitorch tensors and graph nodes, lists,
    tuples, dicts and sets that hold such objects, weak references and numpy
    arrays (drawn, not entered).  Modules, classes, functions, numbers and
    strings are left out, and ``obj.__dict__`` is not drawn: an edge goes
    straight from an object to an attribute's value, labelled with its name.

    Strong references are solid arrows; weak references dashed, labelled
    "weak", pointing to "dead" once the object is gone.  With
    ``highlight_cycles`` the objects and references of a reference cycle
    (strong references only: a cycle through a weak reference frees by
    reference counting) are red.

    With ``show_refcounts`` each object shows "refs: N", its reference count:
    the references to it from anywhere (variables, containers, other objects,
    IPython's output history...), not only the ones drawn, without the
    references ``draw_refs`` holds while it runs and without those from
    ``objects`` itself.  So ``sys.getrefcount(a)`` shows N + 1 (its argument)
    in the same place.  Python 3.12+ makes some objects immortal (None, small
    ints); they show "refs: immortal".

    Objects are numbered in the order they are found, so the DOT text is the
    same on every run; the one exception is the members of a set that look
    alike (same type, same repr apart from addresses), which a set keeps in
    address order.
    """
    found, depths, names, in_roots, skipped = _discover(objects, depth, max_nodes)
    edges, notes = _edges(found, depths, depth)
    counts = _refcounts(found, in_roots) if show_refcounts else None
    labels = [_object_label(obj) for obj in found]
    del found                                      # counting is done: hold nothing longer than needed
    on_cycle, cycle_edges = _cycles(len(labels), edges) if highlight_cycles else (set(), set())
    return _dot(labels, counts, names, edges, notes, skipped, max_nodes, on_cycle, cycle_edges)


# ----- what is worth drawing -------------------------------------------------

def _kind(obj):
    """How ``obj`` is drawn: 'weakref', 'weakproxy', 'weakcontainer', 'array', 'container',
    'instance', or None (not drawn)."""
    from .._tensor import Tensor
    from ..autograd.graph import Node
    if type(obj) in _PROXIES:                  # before isinstance: a proxy passes for its referent
        return "weakproxy"
    if isinstance(obj, weakref.ref):
        return "weakref"
    if isinstance(obj, _WEAK_CONTAINERS):
        return "weakcontainer"
    if isinstance(obj, (Tensor, Node)):
        return "instance"
    if isinstance(obj, np.ndarray):
        return "array"
    if isinstance(obj, _CONTAINERS):
        return "container"
    if isinstance(obj, _SKIPPED) or type(obj).__module__ == "builtins":
        return None
    if hasattr(obj, "__dict__") or _slot_names(type(obj)):
        return "instance"
    return None


def _worth_drawing(obj, levels=3):
    """Drawn objects, and containers that (within a few levels) hold one."""
    kind = _kind(obj)
    if kind != "container":
        return kind is not None
    if levels == 0:
        return False
    items = obj.items() if isinstance(obj, dict) else obj
    for n, item in enumerate(items):
        if n >= 1000:
            return False
        pair = item if isinstance(obj, dict) else (item,)
        if any(_kind(x) not in (None, "container") or
               (_kind(x) == "container" and _worth_drawing(x, levels - 1)) for x in pair):
            return True
    return False


def _slot_names(cls):
    """Names of the slots instances of ``cls`` have (not cached: a cache would keep classes alive)."""
    names = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        for name in ([slots] if isinstance(slots, str) else slots):
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return tuple(names)


# ----- the references of one object -----------------------------------------

def _references(obj):
    """``(label, target, weak)`` for each reference ``obj`` holds to something worth drawing
    (``target`` is _DEAD for a dead weak reference)."""
    kind = _kind(obj)
    if kind == "weakref":
        target = obj()
        return [("", _DEAD if target is None else target, True)]
    if kind == "weakcontainer":
        return _weak_container_references(obj)
    if kind == "container":
        return [(lab, t, False) for lab, t in _container_items(obj) if _worth_drawing(t)]
    if kind == "instance":
        return [(lab, t, False) for lab, t in _attributes(obj) if _worth_drawing(t)]
    return []


def _container_items(obj):
    if isinstance(obj, dict):
        for key, value in obj.items():
            if _worth_drawing(key):
                yield "key", key
            yield f"[{_short(key)}]", value
    elif isinstance(obj, (set, frozenset)):
        for item in sorted(obj, key=_stable_key):
            yield "", item
    else:
        for i, item in enumerate(obj):
            yield f"[{i}]", item


_TENSOR_NAMES = {"_grad_fn": "grad_fn", "_grad": "grad"}


def _attributes(obj):
    """``(name, value)`` of the attributes an object stores (slots, then ``__dict__``).
    A graph node's edges are shown as ``next_functions[i]``, not as its inner tuples."""
    from .._tensor import Tensor
    from ..autograd.graph import Node
    is_node = isinstance(obj, Node)
    if is_node:
        for i, (node, _) in enumerate(obj.next_functions):
            if node is not None:
                yield f"next_functions[{i}]", node
    renames = _TENSOR_NAMES if isinstance(obj, Tensor) else {}
    for name in _slot_names(type(obj)):
        if is_node and name == "_next_edges":
            continue
        descriptor = getattr(type(obj), name, None)
        try:
            value = descriptor.__get__(obj, type(obj)) if isinstance(
                descriptor, types.MemberDescriptorType) else object.__getattribute__(obj, name)
        except AttributeError:      # an empty slot
            continue
        yield renames.get(name, name), value
    if hasattr(obj, "__dict__") and isinstance(vars(obj), dict):
        for name, value in vars(obj).items():
            yield renames.get(name, name), value


def _weak_container_references(obj):
    if isinstance(obj, weakref.WeakValueDictionary):
        refs = [(f"[{_short(k)}]", r()) for k, r in obj.data.items()]
        return [(lab, _DEAD if t is None else t, True) for lab, t in refs]
    if isinstance(obj, weakref.WeakKeyDictionary):
        out = []
        for r, value in obj.data.items():
            key = r()
            out.append(("key", _DEAD if key is None else key, True))
            if _worth_drawing(value):
                out.append(("value", value, False))
        return out
    return [("", _DEAD if r() is None else r(), True) for r in sorted(obj.data, key=_stable_key)]


def _short(key):
    text = _ADDRESS.sub("0x…", repr(key))
    return text if len(text) <= 20 else text[:19] + "…"


def _stable_key(obj):
    """Sort key for set members that does not depend on addresses."""
    target = obj() if isinstance(obj, weakref.ref) else obj
    return type(target).__name__, _ADDRESS.sub("", repr(target))


# ----- walking ---------------------------------------------------------------

def _discover(objects, depth, max_nodes):
    """Breadth-first from the roots.  Returns the objects found (the only list
    holding them), their depths, the roots' names ``(name, index)``, how many
    times each found object is referenced by ``objects`` itself, and how many
    objects were left out because of ``max_nodes``."""
    pairs = list(objects.items()) if isinstance(objects, dict) else [(None, o) for o in objects]
    found, depths, index, names, skipped = [], [], {}, [], 0
    for name, obj in pairs:
        if id(obj) not in index:
            index[id(obj)] = len(found)
            found.append(obj)
            depths.append(0)
        if name is not None:
            names.append((str(name), index[id(obj)]))
    in_roots = [0] * len(found)
    for _, obj in pairs:
        in_roots[index[id(obj)]] += 1
    del pairs, obj
    queue = deque(range(len(found)))
    while queue:
        i = queue.popleft()
        if depths[i] >= depth:
            continue
        for _, target, _ in _references(found[i])[:MAX_ITEMS]:
            if target is _DEAD or id(target) in index:
                continue
            if len(found) >= max_nodes:
                skipped += 1
                continue
            index[id(target)] = len(found)
            found.append(target)
            depths.append(depths[i] + 1)
            in_roots.append(0)
            queue.append(len(found) - 1)
    return found, depths, names, in_roots, skipped


def _edges(found, depths, depth):
    """Every reference between drawn objects: ``(source, target, label, weak)`` with
    target an index, or "dead".  Notes: ``(source, text)`` for references left out."""
    index = {id(obj): i for i, obj in enumerate(found)}
    edges, notes = [], []
    for i, obj in enumerate(found):
        refs = _references(obj)
        mine = []
        for lab, target, weak in refs[:MAX_ITEMS]:
            if target is _DEAD:
                mine.append((i, "dead", lab, weak))
            elif id(target) in index:
                mine.append((i, index[id(target)], lab, weak))
        if isinstance(obj, (set, frozenset, weakref.WeakSet)):   # unordered: order by number
            mine.sort(key=lambda e: (e[1] == "dead", e[1] if e[1] != "dead" else 0))
        edges += mine
        if len(refs) > MAX_ITEMS:
            notes.append((i, f"{len(refs) - MAX_ITEMS} more references"))
    return edges, notes


def _refcounts(found, in_roots):
    """Reference counts of the found objects, without the references draw_refs holds
    (the ``found`` list, the argument of ``sys.getrefcount``) or ``objects`` holds.

    What ``sys.getrefcount(found[i])`` adds is measured, not assumed: on an object only
    one list references, the same expression must read 1."""
    probe = [object()]
    overhead = sys.getrefcount(probe[0]) - 1
    counts = []
    for i in range(len(found)):
        counts.append(sys.getrefcount(found[i]) - overhead - 1 - in_roots[i])
    return counts


def _cycles(n, edges):
    """Objects and strong references that lie on a reference cycle.

    A strong edge u -> v is on a cycle when u can be reached from v again
    (u == v is a self-reference); found by a breadth-first search per object,
    which is fine at the sizes a picture can show."""
    succ = [[] for _ in range(n)]
    for u, v, _, weak in edges:
        if not weak and v != "dead":
            succ[u].append(v)
    reach = [_reachable(succ, start) for start in range(n)]
    cycle_edges = {(u, v) for u in range(n) for v in succ[u] if u in reach[v]}
    return {u for u, _ in cycle_edges}, cycle_edges


def _reachable(succ, start):
    seen, queue = {start}, deque([start])
    while queue:
        for v in succ[queue.popleft()]:
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return seen


# ----- drawing ---------------------------------------------------------------

def _object_label(obj):
    from .._tensor import Tensor
    from ..autograd.graph import Node
    kind = _kind(obj)
    if isinstance(obj, Tensor):
        return f"{type(obj).__name__} {_shape(obj.shape)}"
    if isinstance(obj, Node):
        return obj.name().rsplit("::", 1)[-1]
    if kind == "array":
        return f"ndarray {_shape(obj.shape)} {obj.dtype}"
    if kind == "container" or kind == "weakcontainer":
        return f"{type(obj).__name__} (len {len(obj)})"
    if kind == "weakref":
        return "weakref" if obj() is not None else "weakref (dead)"
    if kind == "weakproxy":
        return "weakproxy"
    if kind is None:
        return f"{type(obj).__name__}: {_short(obj)}"
    return type(obj).__name__


def _shape(shape):
    shape = tuple(shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _count_text(count):
    return "refs: immortal" if count >= _IMMORTAL else f"refs: {count}"


def _dot(labels, counts, names, edges, notes, skipped, max_nodes, on_cycle, cycle_edges):
    graph = new_digraph("references")
    for i, text in enumerate(labels):
        lines = [text] + ([_count_text(counts[i])] if counts is not None else [])
        style = {"shape": "box", "style": "rounded,filled", "fillcolor": "#f4f4f4"}
        if i in on_cycle:
            style.update(color=CYCLE, fontcolor=CYCLE, penwidth="2")
        graph.node(f"n{i}", label(*lines), **style)
    extra = iter(range(len(labels), 10**9))    # ids of the helper nodes come after the objects'
    for name, i in names:
        name_id = f"n{next(extra)}"
        graph.node(name_id, label(name), shape="plaintext")
        graph.edge(name_id, f"n{i}")
    for u, v, lab, weak in edges:
        if v == "dead":
            v_id = f"n{next(extra)}"
            graph.node(v_id, "dead", shape="plaintext", fontcolor="#777777")
        else:
            v_id = f"n{v}"
        attrs = dict(WEAK_EDGE) if weak else dict(STRONG_EDGE)
        if lab:
            attrs["label"] = f"{lab} (weak)" if weak else lab
        if not weak and (u, v) in cycle_edges:
            attrs.update(color=CYCLE, fontcolor=CYCLE, penwidth="2")
        graph.edge(f"n{u}", v_id, **attrs)
    for u, text in notes:
        note_id = f"n{next(extra)}"
        graph.node(note_id, label(text), shape="plaintext", fontcolor="#777777")
        graph.edge(f"n{u}", note_id, style="dotted")
    if skipped:
        graph.node(f"n{next(extra)}", label(f"{skipped} more objects not drawn (max_nodes={max_nodes})"),
                   shape="plaintext", fontcolor="#777777")
    return graph

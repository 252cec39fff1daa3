"""Hostile checkpoints: every malformed file gives CheckpointError, in bounded time and memory.

A checkpoint from a stranger is data, not a program, and cannot exhaust the
machine that loads it.  These tests build damaged and malicious files in
memory (truncations, byte flips, manifests with values of the wrong JSON
type, deep nesting, zip bombs, absurd ``.npy`` headers, big-endian values)
and point ``minitorch.load`` at files that never end (``/dev/zero``, a
FIFO).  Every case must be refused with CheckpointError, or, where a change
is harmless (a flipped timestamp), load the original object.  Memory is
measured with tracemalloc; time is only guarded by a generous alarm, so a
hang fails the test instead of stalling the suite.
"""

import functools
import io
import json
import math
import os
import random
import signal
import struct
import tracemalloc
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch import optim
from minitorch.serialization import CheckpointError

pytestmark = pytest.mark.chapter10

MiB = 1 << 20


# ----- guards -----------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _alarm():
    """Fail (instead of hanging forever) if one test runs for a minute: every case here
    should take milliseconds."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hang(signum, frame):
        raise TimeoutError("minitorch.load did not finish within 60 seconds")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def peak_memory_of(function):
    """Peak bytes allocated (Python objects and numpy arrays) while ``function`` runs."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ----- building checkpoints ---------------------------------------------------------------
def reference_object():
    """What PyTorch users save: a state dict (with _metadata), an optimizer state dict
    (int keys, tuples, bools, None, 0-d tensors), and assorted values."""
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    opt = optim.Adam(m.parameters(), lr=0.01)
    m(torch.randn(5, 3)).sum().backward()
    opt.step()
    return {"model": m.state_dict(), "optimizer": opt.state_dict(), "epoch": 3,
            "history": [0.5, float("nan")], "flags": (True, None),
            "mask": torch.tensor([True, False]), "weight": nn.Parameter(torch.ones(2))}


def to_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


@functools.lru_cache(maxsize=None)
def reference_bytes():
    """The reference checkpoint, made on first use (not at import: in a student's release the
    tasks it needs may still be stubs, and a failing import would stop every other test)."""
    return to_bytes(reference_object())


def members_of(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def make_zip(members, compression=zipfile.ZIP_STORED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


def manifest_of(data):
    return json.loads(dict(members_of(data))["manifest.json"])


def with_manifest(data, manifest):
    """``data`` with its manifest replaced (a dict, or raw text/bytes)."""
    text = manifest if isinstance(manifest, (str, bytes)) else json.dumps(manifest)
    return make_zip([(name, text if name == "manifest.json" else content)
                     for name, content in members_of(data)])


def npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def one_tensor_checkpoint(dtype="float32", shape=(2,), values=None):
    """Manifest entry for one tensor, and a zip with given ``.npy`` content."""
    manifest = {"format": "minitorch-checkpoint", "version": 1,
                "object": {"tensor": 0, "dtype": dtype, "shape": list(shape),
                           "requires_grad": False, "parameter": False}}
    return make_zip([("manifest.json", json.dumps(manifest)), ("tensors/0.npy", values)])


def npy_with_header(header, version=(1, 0), data=b""):
    """An ``.npy`` member with a hand-written header dict literal."""
    text = header.encode("latin1")
    length = struct.pack("<H" if version[0] == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes(version) + length + text + data


def patch_central_entry(data, name, **fields):
    """Overwrite fields of ``name``'s central directory entry (flags, method, compressed
    and uncompressed sizes) in a zip's bytes, leaving everything else as it was."""
    offsets = {"flags": (8, "<H"), "method": (10, "<H"), "compressed": (20, "<I"),
               "size": (24, "<I")}
    data = bytearray(data)
    start = 0
    while True:
        start = data.index(b"PK\x01\x02", start)
        name_length = struct.unpack_from("<H", data, start + 28)[0]
        if data[start + 46:start + 46 + name_length] == name.encode():
            break
        start += 4
    for field, value in fields.items():
        offset, layout = offsets[field]
        struct.pack_into(layout, data, start + offset, value)
    return bytes(data)


# ----- outcomes ---------------------------------------------------------------------------
def load_bytes(data):
    return torch.load(io.BytesIO(data))


def refused(data, match=None):
    with pytest.raises(CheckpointError, match=match):
        load_bytes(data)


def outcome(data):
    """"refused", or the loaded object after checking every tensor in it is usable."""
    try:
        obj = load_bytes(data)
    except CheckpointError:
        return "refused"
    for tensor in tensors_in(obj):
        repr(tensor), tensor.dtype, tensor.sum()
    return obj


def tensors_in(obj):
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def same(a, b):
    """Deep equality that treats nan as equal and compares container types and tensor flags."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        x, y = a.detach().numpy(), b.detach().numpy()
        return (a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
                and np.array_equal(x, y, equal_nan=a.dtype.is_floating_point))
    if isinstance(a, dict):
        return (list(a) == list(b) and all(same(a[k], b[k]) for k in a)
                and same(getattr(a, "_metadata", None), getattr(b, "_metadata", None)))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def test_reference_checkpoint_round_trips():
    assert same(load_bytes(reference_bytes()), reference_object())


# ----- damage -----------------------------------------------------------------------------
def test_truncations_at_many_offsets_are_refused():
    rng = random.Random(1)
    size = len(reference_bytes())
    cuts = set(range(0, 64)) | set(range(size - 64, size))
    cuts |= {rng.randrange(size) for _ in range(150)}
    for cut in sorted(cuts):
        assert outcome(reference_bytes()[:cut]) == "refused", f"truncated at {cut}"


def test_single_byte_flips_are_refused_or_harmless():
    """A flip in a field nothing reads (a timestamp, "version made by") may load the original
    object; anything else must be refused.  Nothing else may escape."""
    rng = random.Random(2)
    original = load_bytes(reference_bytes())
    refusals = 0
    for _ in range(300):
        data = bytearray(reference_bytes())
        offset = rng.randrange(len(data))
        data[offset] ^= rng.randrange(1, 256)
        result = outcome(bytes(data))
        if result == "refused":
            refusals += 1
        else:
            assert same(result, original), f"a flip at {offset} changed what loads"
    assert refusals > 200


def test_byte_changes_inside_members_with_valid_checksums_are_refused_or_usable():
    """Change bytes inside one member (mostly its first 200: the .npy header, the manifest's
    start) and re-zip it, so that checksums match and only the content checks remain."""
    members = members_of(reference_bytes())
    rng = random.Random(4)
    refusals = 0
    for _ in range(300):
        changed = rng.randrange(len(members))
        content = bytearray(members[changed][1])
        for _ in range(rng.randrange(1, 4)):
            end = min(len(content), 200) if rng.random() < 0.7 else len(content)
            content[rng.randrange(end)] = rng.randrange(256)
        data = make_zip([(name, bytes(content) if i == changed else original)
                         for i, (name, original) in enumerate(members)])
        refusals += outcome(data) == "refused"
    assert refusals > 200


def manifest_positions(node, path=()):
    """Every (container, key) inside a JSON tree, depth first."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        yield path + (key,)
        if isinstance(value, (dict, list)):
            yield from manifest_positions(value, path + (key,))


def replaced(tree, path, value):
    tree = json.loads(json.dumps(tree))
    node = tree
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return tree


OTHER_JSON_VALUES = [None, True, 0, -1, 2.5, 10 ** 30, "x", [], {}, [[]], {"list": 1},
                     {"tensor": 0}, {"float": "1e5"}]


def test_manifest_values_of_other_json_types_are_refused_or_valid():
    """Replace each value in a real manifest by values of other JSON types.  Structural
    places (tensor fields, tags, key/value pairs) must be refused; a swapped plain value
    (an epoch number turned into a string) is a valid, different checkpoint."""
    manifest = manifest_of(reference_bytes())
    positions = list(manifest_positions(manifest))
    rng = random.Random(3)
    cases = [(path, value) for path in positions for value in OTHER_JSON_VALUES]
    refusals = 0
    for path, value in rng.sample(cases, 300):
        result = outcome(with_manifest(reference_bytes(), replaced(manifest, path, value)))
        refusals += result == "refused"
    assert refusals > 150


def nested_lists(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("change, why", [
    (lambda m: m["object"]["dict"][0][1].update(extra=1), "unknown keys"),
    (lambda m: m.update(extra=1), "unknown keys"),
    (lambda m: m.update(version=True), "version True"),
    (lambda m: m.update(version=3), "version 3"),
    (lambda m: m.update(version=0), "version 0"),
    (lambda m: m.update(storages=[]), "unknown keys"),            # version 1 has no storages
    (lambda m: m["object"]["dict"][0][1].update(storage=0, offset=0, stride=[1]), "unknown keys"),
    (lambda m: m["object"]["dict"].append(["s", {"size": [2]}]), "format version 1 has not"),
    (lambda m: m["object"]["dict"].append(m["object"]["dict"][0]), "repeats the key"),
    (lambda m: m["object"]["dict"][0][1].update(tensor=True), "natural number"),
    (lambda m: m["object"]["dict"][0][1].update(tensor=-1), "natural number"),
    (lambda m: m["object"]["dict"][0][1].update(tensor=7), "other than 0, 1, 2"),
    (lambda m: m["object"]["dict"][0][1].update(dtype="complex64"), "unsupported dtype"),
    (lambda m: m["object"]["dict"][0][1].update(dtype="object"), "unsupported dtype"),
    (lambda m: m["object"]["dict"][0][1].update(shape=[-2]), "shape"),
    (lambda m: m["object"]["dict"][0][1].update(shape=[1] * 40), "shape"),
    (lambda m: m["object"]["dict"][0][1].update(shape=[2.0]), "shape"),
    (lambda m: m["object"]["dict"][0][1].update(shape=[2 ** 63]), "shape"),
    (lambda m: m["object"]["dict"][0][1].update(shape=[2 ** 40] * 3), "larger than any array"),
    (lambda m: m.update(version=nested_lists(400)), "version a JSON list"),
    (lambda m: m["object"]["dict"].append(["k", {"list": [], "tuple": nested_lists(400)}]),
     "cannot decode"),
    (lambda m: m["object"]["dict"][0][1].update(requires_grad=1), "flags"),
    (lambda m: m["object"]["dict"][0][1].update(dtype="int64", requires_grad=True),
     "requires grad"),
    (lambda m: m["object"].update(ordered="yes"), "ordered"),
    (lambda m: m["object"].update(metadata={"list": []}), "_metadata to a plain dict"),
    (lambda m: m["object"]["dict"].append([{"list": []}, 1]), "as a dict key"),
    (lambda m: m["object"]["dict"].append([["k"], 1]), "where a value was expected"),
    (lambda m: m["object"]["dict"].append(["k", {"float": "1e308"}]), "special float"),
    (lambda m: m["object"]["dict"].append(["k", {"list": [], "tuple": []}]), "cannot decode"),
    (lambda m: m["object"]["dict"].append(["k", 1, 2]), "pair"),
    (lambda m: m.update(object={"tensor": 0, "dtype": "float32", "shape": [2],
                                "requires_grad": False, "parameter": False,
                                "again": {"tensor": 0}}), "unknown keys"),
])
def test_manifest_outside_the_schema_is_refused(change, why):
    data = to_bytes({"w": torch.ones(2), "n": 1})
    manifest = manifest_of(data)
    change(manifest)
    refused(with_manifest(data, manifest), why)


def _view_node(m, i):
    """The description of the i-th of the two views saved by the version-2 tests below."""
    return m["object"]["list"][i]


@pytest.mark.parametrize("change, why", [
    (lambda m: _view_node(m, 1).update(offset=7), "outside its storage"),
    (lambda m: _view_node(m, 1).update(offset=-1), "outside its storage"),
    (lambda m: _view_node(m, 1).update(stride=[-2]), "outside its storage"),
    (lambda m: _view_node(m, 1).update(stride=[5]), "outside its storage"),
    (lambda m: _view_node(m, 1).update(stride=[2 ** 62]), "outside its storage"),
    (lambda m: _view_node(m, 1).update(stride=[2 ** 70]), "offset or strides"),
    (lambda m: _view_node(m, 1).update(stride=[1, 1]), "offset or strides"),
    (lambda m: _view_node(m, 1).update(stride=1), "offset or strides"),
    (lambda m: _view_node(m, 1).update(offset=1.5), "offset or strides"),
    (lambda m: _view_node(m, 1).update(shape=[10 ** 6]), "outside its storage"),
    (lambda m: _view_node(m, 1).update(storage=1), "does not list"),
    (lambda m: _view_node(m, 1).update(storage=-1), "does not list"),
    (lambda m: _view_node(m, 1).update(dtype="float64"), "in a storage of dtype"),
    (lambda m: _view_node(m, 1).pop("offset"), "only some of"),
    (lambda m: m["storages"][0].update(size=10 ** 6), "need"),
    (lambda m: m["storages"][0].update(size=2 ** 62), "size that is not"),
    (lambda m: m["storages"][0].update(size=-1), "size that is not"),
    (lambda m: m["storages"][0].update(dtype="object"), "unsupported dtype"),
    (lambda m: m["storages"][0].update(extra=1), "other keys"),
    (lambda m: m.update(storages={}), "JSON list"),
    (lambda m: m["storages"].append({"dtype": "float32", "size": 1}), "no storages/1.npy"),
    (lambda m: m.update(storages=[]), "does not list"),
    (lambda m: m["object"]["list"].append({"size": [-1]}), "natural numbers"),
    (lambda m: m["object"]["list"].append({"dtype_name": "complex64"}), "unknown dtype"),
])
def test_views_in_a_storage_outside_the_schema_are_refused(change, why):
    base = torch.arange(6.0)
    data = to_bytes([base[0:3], base[3:6]])
    manifest = manifest_of(data)
    assert manifest["version"] == 2 and _view_node(manifest, 1)["offset"] == 3
    change(manifest)
    refused(with_manifest(data, manifest), why)


def test_sizes_dtypes_and_views_load_back():
    base = torch.arange(6.0)
    loaded = load_bytes(to_bytes([base[0:3], base[3:6].view(3), torch.Size([2, 3]),
                                  torch.float64, torch.int64]))
    assert [t.tolist() for t in loaded[:2]] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert loaded[2] == torch.Size([2, 3]) and loaded[3:] == [torch.float64, torch.int64]


def test_manifest_text_that_is_not_plain_json_is_refused():
    data = to_bytes({"w": 1.0})
    manifest = json.dumps(manifest_of(data))
    refused(with_manifest(data, manifest.replace("1.0", "NaN")), "not valid JSON")
    refused(with_manifest(data, manifest.replace("1.0", "1" * 5000)), "not valid JSON")
    refused(with_manifest(data, manifest.replace("1.0", "1e400")), "out of range")
    refused(with_manifest(data, b"\xff\xfe\x00garbage"), "not valid JSON")
    refused(with_manifest(data, manifest + "]"), "not valid JSON")


def tensor_describing_manifest(values_node):
    return {"format": "minitorch-checkpoint", "version": 1, "object": values_node}


@pytest.mark.parametrize("depth", [65, 300, 900, 100_000])
def test_deeply_nested_manifests_are_refused(depth):
    text = '{"list": [' * depth + ']}' * depth
    manifest = '{"format": "minitorch-checkpoint", "version": 1, "object": ' + text + "}"
    refused(make_zip([("manifest.json", manifest)]), "nest")


def test_deep_dict_keys_are_refused():
    key = "1"
    for _ in range(70):
        key = '{"tuple": [' + key + "]}"
    manifest = ('{"format": "minitorch-checkpoint", "version": 1, "object": '
                '{"dict": [[' + key + ', 1]], "ordered": false}}')
    refused(make_zip([("manifest.json", manifest)]), "nests containers")


# ----- archives that are not what the manifest says ---------------------------------------
def test_unreferenced_duplicate_and_missing_members_are_refused():
    members = members_of(to_bytes({"w": torch.ones(2)}))
    refused(make_zip(members + [("notes.txt", b"hello")]), "does not describe")
    refused(make_zip(members + [("tensors/1.npy", npy(np.ones(2, np.float32)))]),
            "does not describe")
    with pytest.warns(UserWarning, match="Duplicate name"):
        duplicated = make_zip(members + [members[1]])
    refused(duplicated, "same name")
    refused(make_zip(members[:1]), "missing")


@pytest.mark.parametrize("fields, why", [
    ({"flags": 0x1}, "encrypted"),
    ({"flags": 0x41}, "encrypted"),
    ({"flags": 0x20}, "patched"),
    ({"method": 12}, "compression method 12"),
    ({"method": 14}, "compression method 14"),
    ({"method": 99}, "compression method 99"),
    ({"compressed": 7}, "stored uncompressed"),
])
def test_encrypted_and_unsupported_members_are_refused(fields, why):
    data = to_bytes({"w": torch.ones(2)})
    refused(patch_central_entry(data, "tensors/0.npy", **fields), why)
    refused(patch_central_entry(data, "manifest.json", **fields), why)


# ----- zip bombs --------------------------------------------------------------------------
def test_small_file_declaring_a_huge_member_is_refused_before_inflating():
    # The manifest and the member agree on a 1 GiB tensor; the file is a few hundred bytes.
    shape = [1 << 28]
    stored = one_tensor_checkpoint(shape=shape, values=npy(np.zeros(4, np.float32)))
    huge = (1 << 30) + 128
    for method, compressed in [(zipfile.ZIP_STORED, huge), (zipfile.ZIP_DEFLATED, 64)]:
        data = patch_central_entry(stored, "tensors/0.npy", method=method,
                                   compressed=compressed, size=huge)
        peak = peak_memory_of(lambda: refused(data, "inflate|more than the"))
        assert peak < 4 * MiB


def test_a_real_highly_compressible_member_over_the_limit_is_refused():
    values = 8 << 20                                       # 32 MiB of float32 zeros
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(tensor_describing_manifest(
            {"tensor": 0, "dtype": "float32", "shape": [values], "requires_grad": False,
             "parameter": False})))
        with archive.open("tensors/0.npy", "w") as member:
            member.write(npy_with_header(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % values))
            for _ in range(32):
                member.write(bytes(MiB))
    data = buffer.getvalue()
    assert len(data) < MiB
    peak = peak_memory_of(lambda: refused(data, "inflate"))
    assert peak < 4 * MiB


def test_a_deflated_manifest_that_inflates_too_far_is_refused():
    padding = " " * (8 * MiB)
    manifest = '{"format": "minitorch-checkpoint", "version": 1, "object": 1' + padding + "}"
    data = make_zip([("manifest.json", manifest)], compression=zipfile.ZIP_DEFLATED)
    peak = peak_memory_of(lambda: refused(data, "inflate"))
    assert peak < 4 * MiB


def test_an_unused_huge_member_is_never_read():
    data = make_zip(members_of(to_bytes({"w": torch.ones(2)}))
                    + [("junk.bin", b"\0" * 1000)], compression=zipfile.ZIP_DEFLATED)
    data = patch_central_entry(data, "junk.bin", size=0xFFFFFFFE)       # claims 4 GiB
    peak = peak_memory_of(lambda: refused(data, "does not describe"))
    assert peak < 4 * MiB


def test_a_manifest_over_the_size_limit_is_refused(monkeypatch):
    import minitorch.serialization as serialization
    monkeypatch.setattr(serialization, "MAX_MANIFEST_BYTES", 1000)
    refused(to_bytes({f"key{i}": i for i in range(200)}), "over the limit")


# ----- .npy members -----------------------------------------------------------------------
@pytest.mark.parametrize("values, why", [
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (10**12,), }"),
     "unreadable"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
                     data=bytes(8)), "shape"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
                     data=bytes(8)), "shape"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "9" * 5000 + ",), }"),
     "header"),
    (npy_with_header("{'descr': ('<f4', (10**12,)), 'fortran_order': False, 'shape': (2,), }"),
     "unreadable"),
    (npy_with_header("{'descr': ('<f4', (1000000000000,)), 'fortran_order': False, "
                     "'shape': (2,), }", data=bytes(8)), "unreadable|stores"),
    (npy_with_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
                     data=bytes(8)), "stores"),
    (npy_with_header("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
                     data=bytes(8)), "stores"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': 'no', 'shape': (2,), }",
                     data=bytes(8)), "unreadable"),
    (npy_with_header("[1, 2, 3]", data=bytes(8)), "unreadable"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                     data=bytes(8)), "unreadable"),
    (npy_with_header("(" * 1500 + ")" * 1500, data=bytes(8)), "unreadable"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                     version=(3, 0), data=bytes(8)), "version 3.0"),
    (b"\x93NUMPY\x01\x00\xff\xff" + b" " * 100, "header"),
    (b"\x93NUMPY\x02\x00\xff\xff\xff\xff" + bytes(8), "header"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                     data=bytes(7)), "long"),
    (npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                     data=bytes(9)), "long"),
    (b"PK\x03\x04" + bytes(20), "not a numpy"),
    (npy(np.ones(2, ">f4")), "stores >f4"),
    (npy(np.ones(2, np.float64)), "stores <f8"),
    (npy(np.ones(2, np.int32)), "stores <i4"),
    (npy(np.ones((2, 1), np.float32)), "shape"),
])
def test_npy_members_are_checked_before_their_values_are_read(values, why):
    refused(one_tensor_checkpoint(values=values), why)


def test_absurd_npy_shapes_use_no_memory():
    values = npy_with_header("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (1000000000000,), }", data=bytes(8))
    for declared in ([2], [10 ** 12]):
        data = one_tensor_checkpoint(shape=declared, values=values)
        peak = peak_memory_of(lambda: refused(data))
        assert peak < 4 * MiB


@pytest.mark.parametrize("dtype, array", [
    ("float32", np.arange(3, dtype=">f4")),
    ("float64", np.arange(3, dtype=">f8")),
    ("int64", np.arange(3, dtype=">i8")),
])
def test_big_endian_members_are_refused(dtype, array):
    refused(one_tensor_checkpoint(dtype=dtype, shape=(3,), values=npy(array)), "stores >")


def test_bool_values_other_than_0_and_1_are_refused():
    values = bytearray(npy(np.array([True, False])))
    values[-1] = 7
    refused(one_tensor_checkpoint(dtype="bool", values=bytes(values)), "other than 0 and 1")


def test_npy_headers_in_another_valid_form_load():
    """Headers other writers may produce (keys reordered, no padding) go through numpy's
    own reader and load."""
    values = np.array([1.5, -2.0], np.float32).tobytes()
    header = npy_with_header("{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
                             data=values)
    assert load_bytes(one_tensor_checkpoint(values=header)).tolist() == [1.5, -2.0]


def test_fortran_ordered_members_load_in_c_order():
    """Older saves of transposed tensors wrote fortran_order=True; they load, C-ordered."""
    array = np.arange(6, dtype=np.float32).reshape(2, 3).T
    loaded = load_bytes(one_tensor_checkpoint(shape=(3, 2), values=npy(array)))
    assert loaded.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert loaded.numpy().flags.c_contiguous


# ----- sources that never end -------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_refused():
    with pytest.raises(CheckpointError, match="character device"):
        torch.load("/dev/zero")
    with open("/dev/zero", "rb") as stream:
        with pytest.raises(CheckpointError, match="character device"):
            torch.load(stream)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc here")
def test_proc_files_that_cannot_seek_to_their_end_are_refused():
    with pytest.raises(CheckpointError, match="not a zip archive"):
        torch.load("/proc/self/status")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.ckpt"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match="FIFO"):
        torch.load(fifo)


@pytest.mark.skipif(not hasattr(os, "pipe"), reason="no pipes here")
def test_unseekable_stream_is_refused():
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as stream, os.fdopen(write_end, "wb"):
        with pytest.raises(CheckpointError, match="cannot seek.*io.BytesIO"):
            torch.load(stream)

"""minitorch.save / minitorch.load: round trips, no code execution, atomic writes, clear errors."""

import io
import json
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch import optim
from minitorch.serialization import CheckpointError

pytestmark = pytest.mark.chapter10


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def test_state_dict_round_trip_keeps_order_dtypes_shapes_values(tmp_path):
    m = model()
    m(torch.randn(5, 3))                       # moves the BatchNorm buffers
    sd = m.state_dict()
    path = tmp_path / "model.ckpt"
    torch.save(sd, path)
    loaded = torch.load(path)
    assert isinstance(loaded, OrderedDict) and list(loaded) == list(sd)
    for key in sd:
        assert loaded[key].dtype == sd[key].dtype and loaded[key].shape == sd[key].shape
        assert loaded[key].equal(sd[key])
    assert loaded["1.num_batches_tracked"].dtype == torch.int64
    assert loaded._metadata == sd._metadata
    fresh = model()
    nn.init.zeros_(fresh[0].weight)
    fresh.load_state_dict(loaded)
    x = torch.randn(2, 3)
    assert fresh.eval()(x).equal(m.eval()(x))


def test_round_trip_of_optimizer_state_and_nested_values(tmp_path):
    m = model()
    opt = optim.Adam(m.parameters(), lr=0.01)
    torch.nn.functional.cross_entropy(m(torch.randn(5, 3)), torch.tensor([0, 1, 0, 1, 1])).backward()
    opt.step()
    checkpoint = {"model": m.state_dict(), "optimizer": opt.state_dict(), "epoch": 3,
                  "note": "best", "history": [0.5, float("nan"), float("inf")], "flags": (True, None)}
    torch.save(checkpoint, tmp_path / "all.ckpt")
    loaded = torch.load(tmp_path / "all.ckpt")
    assert list(loaded) == list(checkpoint)
    assert loaded["epoch"] == 3 and loaded["note"] == "best" and loaded["flags"] == (True, None)
    assert loaded["history"][0] == 0.5 and np.isnan(loaded["history"][1]) and loaded["history"][2] == float("inf")
    assert list(loaded["optimizer"]["state"]) == [0, 1, 2, 3, 4, 5]     # int keys stay ints
    assert loaded["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    opt2 = optim.Adam(model().parameters())
    opt2.load_state_dict(loaded["optimizer"])
    assert opt2.state_dict()["state"][0]["exp_avg"].equal(opt.state_dict()["state"][0]["exp_avg"])


def test_tensor_flags_and_sharing(tmp_path):
    p = nn.Parameter(torch.tensor([1.0, 2.0], dtype=torch.float64))
    t = torch.ones(2, requires_grad=True)
    torch.save({"p": p, "t": t, "again": t, "b": torch.tensor([True, False]), "s": torch.tensor(3.5)},
               tmp_path / "x.ckpt")
    loaded = torch.load(tmp_path / "x.ckpt")
    assert isinstance(loaded["p"], nn.Parameter) and loaded["p"].dtype == torch.float64
    assert loaded["t"].requires_grad and loaded["again"] is loaded["t"]
    assert loaded["b"].dtype == torch.bool and loaded["s"].shape == () and loaded["s"].item() == 3.5


def test_file_objects(tmp_path):
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(6).reshape(2, 3)}, buffer)
    buffer.seek(0)
    assert torch.load(buffer)["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_format_is_a_zip_with_a_json_manifest_and_npy_arrays(tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "f.ckpt")
    with zipfile.ZipFile(tmp_path / "f.ckpt") as archive:
        names = archive.namelist()
        manifest = json.loads(archive.read("manifest.json"))
    assert names == ["manifest.json", "tensors/0.npy"]
    assert manifest["format"] == "minitorch-checkpoint" and manifest["version"] == 1
    assert not any(name.endswith(".pkl") for name in names)


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="Save model.state_dict\\(\\) instead"):
        torch.save(nn.Linear(1, 1), tmp_path / "m.ckpt")
    with pytest.raises(TypeError, match="got an object of type function"):
        torch.save({"f": lambda: 0}, tmp_path / "m.ckpt")
    assert not os.listdir(tmp_path)         # nothing written, no temp file left


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_pickles_are_never_loaded(tmp_path):
    # A zip that smuggles an object-dtype array (which only pickle could read).
    path = tmp_path / "evil.ckpt"
    torch.save({"w": torch.ones(2)}, path)
    with zipfile.ZipFile(path) as archive:
        manifest = archive.read("manifest.json")
    payload = io.BytesIO()
    np.save(payload, np.array([_Boom()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", manifest)
        archive.writestr("tensors/0.npy", payload.getvalue())
    with pytest.raises(CheckpointError, match="stores \\|O values"):
        torch.load(path)
    # A PyTorch-style checkpoint (a zip with data.pkl) is recognised and refused.
    torch_like = tmp_path / "model.pt"
    with zipfile.ZipFile(torch_like, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps({"a": 1}))
    with pytest.raises(CheckpointError, match="looks like a PyTorch checkpoint"):
        torch.load(torch_like)
    # A bare pickle file.
    bare = tmp_path / "bare.pkl"
    bare.write_bytes(pickle.dumps(_Boom()))
    with pytest.raises(CheckpointError, match="not a zip archive"):
        torch.load(bare)


def test_tensors_refuse_pickle():
    with pytest.raises(TypeError, match="use minitorch.save"):
        pickle.dumps(torch.ones(1))


def test_truncated_file_gives_clear_error(tmp_path):
    path = tmp_path / "t.ckpt"
    torch.save(model().state_dict(), path)
    data = path.read_bytes()
    for cut in (10, len(data) // 2, len(data) - 5):
        path.write_bytes(data[:cut])
        with pytest.raises(CheckpointError, match="is not a valid minitorch checkpoint"):
            torch.load(path)


def test_corrupted_bytes_give_clear_error(tmp_path):
    path = tmp_path / "c.ckpt"
    torch.save({"w": torch.zeros(100)}, path)
    data = bytearray(path.read_bytes())
    start = data.index(b"\x93NUMPY") + 200          # inside the array's values
    data[start] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="fails its checksum|damaged"):
        torch.load(path)


def test_foreign_files_give_clear_errors(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(CheckpointError, match="not a zip archive.*minitorch.save"):
        torch.load(text)
    other_zip = tmp_path / "other.zip"
    with zipfile.ZipFile(other_zip, "w") as archive:
        archive.writestr("readme.md", "hi")
    with pytest.raises(CheckpointError, match="has no manifest.json"):
        torch.load(other_zip)
    wrong = tmp_path / "wrong.zip"
    with zipfile.ZipFile(wrong, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"format": "something-else"}))
    with pytest.raises(CheckpointError, match="does not describe a minitorch checkpoint"):
        torch.load(wrong)
    assert issubclass(CheckpointError, RuntimeError)


def test_manifest_disagreeing_with_array_is_refused(tmp_path):
    path = tmp_path / "m.ckpt"
    torch.save({"w": torch.zeros(2, 3)}, path)
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        array = archive.read("tensors/0.npy")
    manifest["object"]["dict"][0][1]["shape"] = [3, 2]
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.writestr("tensors/0.npy", array)
    with pytest.raises(CheckpointError, match="but the manifest says"):
        torch.load(path)


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "model.ckpt"
    torch.save({"version": 1}, path)
    original = path.read_bytes()
    import minitorch.serialization as serialization

    real_write = serialization._write_npy
    calls = []

    def crash_midway(archive, name, array):
        calls.append(1)
        if len(calls) == 2:                   # after the first array was written
            raise OSError("disk full")
        return real_write(archive, name, array)

    monkeypatch.setattr(serialization, "_write_npy", crash_midway)
    with pytest.raises(OSError, match="disk full"):
        torch.save({"a": torch.ones(1000), "b": torch.ones(1000)}, path)
    assert path.read_bytes() == original                  # old content intact
    assert os.listdir(tmp_path) == ["model.ckpt"]         # no temp file left behind
    monkeypatch.setattr(serialization, "_write_npy", real_write)
    torch.save({"a": torch.ones(3)}, path)
    assert torch.load(path)["a"].tolist() == [1.0, 1.0, 1.0]


def test_load_accepts_pytorch_keyword_arguments(tmp_path):
    torch.save({"w": torch.ones(1)}, tmp_path / "k.ckpt")
    assert torch.load(tmp_path / "k.ckpt", map_location="cpu", weights_only=True)["w"].tolist() == [1.0]


# ----- what PyTorch users save comes back as torch.load returns it ------------------------
# Expected values below were read off torch 2.13's torch.save/torch.load.

def round_trip(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer)


def test_bare_tensors_round_trip():
    loaded = round_trip(torch.tensor(3))                 # torch: tensor(3), torch.int64
    assert type(loaded) is torch.Tensor and loaded.dtype == torch.int64 and loaded.shape == ()
    assert loaded.item() == 3 and not loaded.requires_grad
    values = torch.tensor([[0.1, -0.0], [float("nan"), 1e-310]], dtype=torch.float64)
    loaded = round_trip(values)
    assert loaded.dtype == torch.float64 and loaded.shape == (2, 2)
    assert np.array_equal(loaded.numpy(), values.numpy(), equal_nan=True)
    assert np.signbit(loaded.numpy()[0, 1])
    assert round_trip(torch.tensor([True, False])).tolist() == [True, False]
    assert round_trip(torch.zeros(0, 3)).shape == (0, 3)


def test_optimizer_state_dict_comes_back_with_pytorchs_types():
    m = model()
    opt = optim.Adam(m.parameters(), lr=0.01)
    m(torch.randn(5, 3)).sum().backward()
    opt.step()
    loaded = round_trip(opt.state_dict())
    # torch: {'state': {0: {'step': tensor(1.), 'exp_avg': ..., 'exp_avg_sq': ...}, ...},
    #         'param_groups': [{'lr': 0.01, 'betas': (0.9, 0.999), 'eps': 1e-08,
    #                           'weight_decay': 0, 'amsgrad': False, ..., 'params': [0, 1, ...]}]}
    assert type(loaded) is dict and type(loaded["state"]) is dict
    assert list(loaded["state"]) == [0, 1, 2, 3, 4, 5]
    assert all(type(key) is int for key in loaded["state"])
    step = loaded["state"][0]["step"]
    assert step.shape == () and step.dtype == torch.float32 and step.item() == 1.0
    assert list(loaded["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    group = loaded["param_groups"][0]
    assert type(loaded["param_groups"]) is list and type(group) is dict
    assert type(group["betas"]) is tuple and group["betas"] == (0.9, 0.999)
    assert group["params"] == [0, 1, 2, 3, 4, 5]
    assert group["amsgrad"] is False and group["weight_decay"] == 0 and group["eps"] == 1e-08
    assert type(group["weight_decay"]) is int


def test_state_dict_comes_back_as_an_ordered_dict_of_detached_tensors():
    loaded = round_trip(model().state_dict())
    # torch: OrderedDict, _metadata OrderedDict([('', {'version': 1}), ('0', {'version': 1}), ...]);
    # every value a plain Tensor with requires_grad=False.
    assert type(loaded) is OrderedDict and type(loaded._metadata) is OrderedDict
    assert loaded._metadata[""] == {"version": 1}
    assert all(type(v) is torch.Tensor and not v.requires_grad for v in loaded.values())
    assert not hasattr(round_trip(OrderedDict(a=1)), "_metadata")    # torch: no _metadata


def test_containers_and_keys_keep_their_types():
    saved = {"p": 1, "tt": (1, [2, (3,)]), 1: "int", 1.5: "float", None: "none", (1, 2): "tuple",
             "od": OrderedDict(b=2, a=1), "empty": ([], (), {}), "big": 2 ** 70, "s": "é\u2603"}
    loaded = round_trip(saved)
    # torch: ['p', 'tt', 1, 1.5, None, (1, 2), ...] with the same types
    assert list(loaded) == ["p", "tt", 1, 1.5, None, (1, 2), "od", "empty", "big", "s"]
    assert [type(k) for k in loaded][2:6] == [int, float, type(None), tuple]
    assert loaded["tt"] == (1, [2, (3,)]) and type(loaded["tt"][1]) is list
    assert type(loaded["od"]) is OrderedDict and list(loaded["od"]) == ["b", "a"]
    assert loaded["empty"] == ([], (), {}) and loaded["big"] == 2 ** 70
    assert loaded["s"] == "é\u2603"


def test_requires_grad_and_parameters_as_in_pytorch():
    t = torch.ones(2, requires_grad=True)
    (t * 2).sum().backward()
    nonleaf = t * 2
    saved = [nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2), requires_grad=False),
             t, nonleaf, torch.ones(2)]
    p, frozen, leaf, was_nonleaf, plain = round_trip(saved)
    # torch: Parameter/True, Parameter/False, Tensor/True (grad not saved),
    # Tensor/True leaf without grad_fn, Tensor/False
    assert type(p) is nn.Parameter and p.requires_grad
    assert type(frozen) is nn.Parameter and not frozen.requires_grad
    assert type(leaf) is torch.Tensor and leaf.requires_grad and leaf.grad is None
    assert was_nonleaf.requires_grad and was_nonleaf.is_leaf and was_nonleaf.grad_fn is None
    assert not plain.requires_grad


def test_views_saved_together_share_memory_again():
    base = torch.arange(12.0).reshape(3, 4)
    column, transposed = base[:, 1], base.t()
    loaded = round_trip({"base": base, "column": column, "t": transposed, "again": column,
                         "expanded": torch.ones(3).expand(4, 3)})
    assert loaded["column"].tolist() == [1.0, 5.0, 9.0]
    assert loaded["t"].tolist() == base.t().tolist()
    assert loaded["expanded"].tolist() == [[1.0] * 3] * 4
    assert loaded["again"] is loaded["column"]               # torch: the same object too
    # as in torch, tensors that shared memory when saved share it after loading
    loaded["base"][0, 1] = 100.0
    assert loaded["column"][0].item() == 100.0 and loaded["t"][1, 0].item() == 100.0
    # ... but they are not views of each other for autograd (torch: _base is None too)
    assert loaded["column"]._base is None and loaded["column"]._version == 0
    with zipfile.ZipFile(_saved_bytes({"base": base, "column": column})) as archive:
        assert archive.namelist() == ["manifest.json", "storages/0.npy"]
        manifest = json.loads(archive.read("manifest.json"))
    assert manifest["version"] == 2 and manifest["storages"] == [{"dtype": "float32", "size": 12}]
    # Views of one tensor without the tensor itself: only the span they cover is stored.
    big = torch.arange(1000.0)
    first, second = big[10:12], big[20:22]
    loaded = round_trip([first, second])
    assert loaded[0].tolist() == [10.0, 11.0] and loaded[1].tolist() == [20.0, 21.0]
    with zipfile.ZipFile(_saved_bytes([first, second])) as archive:
        assert json.loads(archive.read("manifest.json"))["storages"][0]["size"] == 12
    # A small view of a big tensor saves only its own values (torch saves the whole storage).
    small = round_trip(torch.zeros(100_000)[:2])
    assert small.tolist() == [0.0, 0.0]
    buffer = io.BytesIO()
    torch.save(torch.zeros(100_000)[:2], buffer)
    assert len(buffer.getvalue()) < 2000


def _saved_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return buffer


def test_tensors_are_written_little_endian_in_c_order():
    buffer = io.BytesIO()
    torch.save(torch.arange(6.0).reshape(2, 3).t(), buffer)
    with zipfile.ZipFile(buffer) as archive:
        header = archive.read("tensors/0.npy")[:128]
    assert b"'descr': '<f4'" in header and b"'fortran_order': False" in header


def test_nesting_is_limited_to_max_depth():
    from minitorch.serialization import MAX_DEPTH
    deep = 1
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert round_trip(deep) == deep
    with pytest.raises(ValueError, match=f"nested at most {MAX_DEPTH} deep"):
        round_trip([deep])
    itself = []
    itself.append(itself)
    with pytest.raises(ValueError, match="contains itself"):
        round_trip(itself)


def test_tensor_keys_are_refused_when_saving():
    # torch pickles tensor keys; minitorch keys are plain data so they come back hashable.
    with pytest.raises(TypeError, match="keys are strings, numbers, None or tuples"):
        round_trip({torch.ones(1): 1})


def test_deflated_archives_within_the_ratio_load():
    buffer = io.BytesIO()
    torch.save({"w": torch.randn(100), "b": torch.zeros(10)}, buffer)
    buffer.seek(0)
    with zipfile.ZipFile(buffer) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    rezipped = io.BytesIO()
    with zipfile.ZipFile(rezipped, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members:
            archive.writestr(name, content)
    rezipped.seek(0)
    assert torch.load(rezipped)["b"].tolist() == [0.0] * 10


def test_loading_reads_values_without_extra_copies(tmp_path):
    import tracemalloc
    values = torch.zeros(4 << 20)                           # 16 MiB
    torch.save(values, tmp_path / "big.ckpt")
    tracemalloc.start()
    try:
        loaded = torch.load(tmp_path / "big.ckpt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert loaded.shape == (4 << 20,)
    assert peak < 16 * 2 ** 20 + 4 * 2 ** 20                # the values, and a chunk or two


# ----- paths, file objects, and how files are written --------------------------------------
def test_paths_and_file_objects_are_accepted(tmp_path):
    obj = {"w": torch.ones(2)}
    torch.save(obj, tmp_path / "p.ckpt")                          # pathlib.Path
    torch.save(obj, str(tmp_path / "s.ckpt"))                     # str
    torch.save(obj, os.fsencode(tmp_path / "b.ckpt"))             # bytes
    with open(tmp_path / "f.ckpt", "wb") as stream:
        torch.save(obj, stream)                                   # an open file
    for name in ("p.ckpt", "s.ckpt", "b.ckpt", "f.ckpt"):
        assert torch.load(tmp_path / name)["w"].tolist() == [1.0, 1.0]
        with open(tmp_path / name, "rb") as stream:
            assert torch.load(stream)["w"].tolist() == [1.0, 1.0]
    assert torch.load(str(tmp_path / "s.ckpt"))["w"].tolist() == [1.0, 1.0]


def test_load_of_a_missing_file_or_a_folder_raises_like_pytorch(tmp_path):
    with pytest.raises(FileNotFoundError):
        torch.load(tmp_path / "missing.ckpt")
    with pytest.raises(IsADirectoryError):
        torch.load(tmp_path)


def test_save_into_a_folder_or_a_missing_folder_says_so(tmp_path):
    with pytest.raises(IsADirectoryError, match="needs a file name, and this is a folder"):
        torch.save(1, tmp_path)
    with pytest.raises(FileNotFoundError, match="folder to save into does not exist"):
        torch.save(1, tmp_path / "nowhere" / "x.ckpt")
    assert os.listdir(tmp_path) == []


def test_long_file_names_can_be_saved(tmp_path):
    path = tmp_path / ("a" * 250 + ".pt")                   # 253 bytes: near NAME_MAX (255)
    torch.save({"w": torch.ones(1)}, path)
    torch.save({"w": torch.ones(2)}, path)
    assert torch.load(path)["w"].tolist() == [1.0, 1.0]
    assert os.listdir(tmp_path) == [path.name]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_get_the_umasks_permissions(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        torch.save(1, tmp_path / "new.ckpt")              # torch: 0o644 under umask 022
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "new.ckpt").st_mode & 0o777 == mode


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_an_existing_file_keeps_its_permissions(tmp_path):
    path = tmp_path / "private.ckpt"
    torch.save(1, path)
    os.chmod(path, 0o640)
    torch.save(2, path)                                     # torch: still 0o640
    assert os.stat(path).st_mode & 0o777 == 0o640 and torch.load(path) == 2


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_save_writes_through_symbolic_links(tmp_path):
    real_folder, link_folder = tmp_path / "real", tmp_path / "links"
    real_folder.mkdir()
    link_folder.mkdir()
    target, link = real_folder / "model.ckpt", link_folder / "latest.ckpt"
    torch.save(1, target)
    os.symlink(target, link)
    torch.save({"w": torch.ones(3)}, link)
    assert os.path.islink(link)                              # torch: the link stays a link
    assert torch.load(target)["w"].tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(real_folder) == ["model.ckpt"] and os.listdir(link_folder) == ["latest.ckpt"]
    dangling = link_folder / "next.ckpt"
    os.symlink(real_folder / "next-target.ckpt", dangling)
    torch.save(2, dangling)                                 # like open(dangling, "wb")
    assert torch.load(real_folder / "next-target.ckpt") == 2 and os.path.islink(dangling)


def test_pytorchs_load_and_save_options():
    # as PyTorch 2.13: map_location may name the CPU in any form; pickle's options pass;
    # CUDA, unknown devices, unknown keywords and mmap on a file object are refused
    buffer = _saved_bytes({"x": torch.ones(2)})
    for location in ("cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        buffer.seek(0)
        assert torch.load(buffer, map_location=location)["x"].tolist() == [1.0, 1.0]
    buffer.seek(0)
    assert torch.load(buffer, weights_only=False, encoding="latin1")["x"].tolist() == [1.0, 1.0]
    for location, error in (("cuda", "Attempting to deserialize object on a CUDA device"),
                            ("xyz", "don't know how to restore data location")):
        buffer.seek(0)
        with pytest.raises(RuntimeError, match=error):
            torch.load(buffer, map_location=location)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        torch.load(buffer, bogus=1)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        torch.load(buffer, mmap=True)
    out = io.BytesIO()
    torch.save({"x": 1}, out, pickle_protocol=4)
    out.seek(0)
    assert torch.load(out) == {"x": 1}


@pytest.mark.parametrize("dtype", [torch.float16, torch.int32, torch.int16, torch.int8,
                                   torch.uint8])
def test_every_dtype_save_writes_load_reads(dtype):
    # save wrote these dtypes, and load refused its own file ("unsupported dtype").
    # torch.load(torch.save(t)) gives t back, dtype and values, for each of them.
    t = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=dtype)
    buffer = io.BytesIO()
    torch.save({"t": t, "view": t.t()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert loaded["t"].dtype == dtype and loaded["t"].tolist() == [[1, 2, 3], [4, 5, 6]]
    assert loaded["view"].tolist() == [[1, 4], [2, 5], [3, 6]]

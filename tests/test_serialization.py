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
    with pytest.raises(CheckpointError, match="cannot be read"):
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

    real_save = np.save
    calls = []

    def crash_midway(file, array, allow_pickle=False):
        calls.append(1)
        if len(calls) == 2:                   # after the first array was written
            raise OSError("disk full")
        return real_save(file, array, allow_pickle=allow_pickle)

    monkeypatch.setattr(serialization.np, "save", crash_midway)
    with pytest.raises(OSError, match="disk full"):
        torch.save({"a": torch.ones(1000), "b": torch.ones(1000)}, path)
    assert path.read_bytes() == original                  # old content intact
    assert os.listdir(tmp_path) == ["model.ckpt"]         # no temp file left behind
    monkeypatch.setattr(serialization.np, "save", real_save)
    torch.save({"a": torch.ones(3)}, path)
    assert torch.load(path)["a"].tolist() == [1.0, 1.0, 1.0]


def test_load_accepts_pytorch_keyword_arguments(tmp_path):
    torch.save({"w": torch.ones(1)}, tmp_path / "k.ckpt")
    assert torch.load(tmp_path / "k.ckpt", map_location="cpu", weights_only=True)["w"].tolist() == [1.0]

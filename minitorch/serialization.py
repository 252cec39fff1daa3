"""``minitorch.save`` and ``minitorch.load``: checkpoints that cannot run code (chapter 6).

``torch.save`` pickles, and unpickling a file can run any code its author
wanted.  minitorch writes a plain zip archive instead:

* ``manifest.json`` describes the saved object: nested dicts (their key
  order, and a state dict's ``_metadata``), lists and tuples, numbers,
  strings, None, and for each tensor its dtype, shape and the name of the
  file holding its values;
* ``tensors/<n>.npy`` holds the values, one numpy ``.npy`` file per tensor,
  read back with ``allow_pickle=False``.

Loading only ever builds those types, so a checkpoint from a stranger is
data, not a program.  Saving is atomic: the archive is written to a
temporary file in the same folder, flushed to disk, and renamed over the
target, so a crash mid-save leaves the old file (or none), never half of a
new one.  A truncated, corrupted or foreign file is refused with an error
that says so.
"""

import io
import json
import math
import os
import tempfile
import zipfile
from collections import OrderedDict

import numpy as np

from ._tensor import Tensor

__all__ = ["save", "load"]

FORMAT = "minitorch-checkpoint"
VERSION = 1
MANIFEST = "manifest.json"
_DTYPES = {"float32", "float64", "int64", "bool"}


# ----- encoding: Python object -> JSON-able description + arrays -------------------------
class _Encoder:
    """Turns an object into a JSON-able tree; tensors become references to arrays."""

    def __init__(self):
        self.arrays = []        # (archive name, numpy array)
        self._tensor_ids = {}   # id(tensor) -> index in self.arrays (shared tensors are stored once)
        self._keep_alive = []

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, np.integer)):
            return int(obj)
        if isinstance(obj, (float, np.floating)):
            value = float(obj)
            return value if math.isfinite(value) else {"float": repr(value)}
        if isinstance(obj, Tensor):
            return self._encode_tensor(obj)
        if isinstance(obj, dict):
            node = {"dict": [[self.encode(k), self.encode(v)] for k, v in obj.items()],
                    "ordered": isinstance(obj, OrderedDict)}
            metadata = getattr(obj, "_metadata", None)
            if metadata is not None:
                node["metadata"] = self.encode(metadata)
            return node
        if isinstance(obj, list):
            return {"list": [self.encode(v) for v in obj]}
        if isinstance(obj, tuple):
            return {"tuple": [self.encode(v) for v in obj]}
        from .nn.modules.module import Module
        hint = " Save model.state_dict() instead." if isinstance(obj, Module) else ""
        raise TypeError(
            "minitorch.save can store tensors, numbers, strings, None, and dicts, lists and tuples of "
            f"them, but got an object of type {type(obj).__name__}.{hint}")

    def _encode_tensor(self, t):
        index = self._tensor_ids.get(id(t))
        if index is None:
            index = self._tensor_ids[id(t)] = len(self.arrays)
            self.arrays.append((f"tensors/{index}.npy", t._data))
            self._keep_alive.append(t)
        from .nn.parameter import Parameter
        return {"tensor": index, "dtype": t.dtype.name, "shape": list(t.shape),
                "requires_grad": t.requires_grad, "parameter": isinstance(t, Parameter)}


def _write_archive(fileobj, obj):
    encoder = _Encoder()
    manifest = {"format": FORMAT, "version": VERSION, "object": encoder.encode(obj)}
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, json.dumps(manifest))
        for name, array in encoder.arrays:
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            archive.writestr(name, buffer.getvalue())


def save(obj, f):
    """Save ``obj`` (a state dict, an optimizer's state dict, or dicts/lists of tensors
    and numbers) to the path ``f``, or to a writable binary file object.

    Writing to a path is atomic: the file either keeps its old content or
    gets the complete new one.
    """
    if hasattr(f, "write"):
        _write_archive(f, obj)
        return
    path = os.fspath(f)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp_path = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as tmp:
            _write_archive(tmp, obj)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        try:
            os.unlink(tmp_path)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def _fsync_folder(folder):
    """Make the rename itself durable (best effort: not every platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ----- decoding ---------------------------------------------------------------------------
class CheckpointError(RuntimeError):
    """The file is not a readable minitorch checkpoint."""


def _bad(name, why):
    return CheckpointError(
        f"{name} is not a valid minitorch checkpoint: {why}. Checkpoints are written by "
        "minitorch.save(); if this one was, the file is damaged (re-save it, or restore a copy).")


class _Decoder:
    def __init__(self, archive, name):
        self.archive = archive
        self.name = name
        self.tensors = {}

    def decode(self, node):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        if isinstance(node, dict):
            if "tensor" in node:
                return self._decode_tensor(node)
            if "dict" in node:
                return self._decode_dict(node)
            if "list" in node:
                return [self.decode(v) for v in node["list"]]
            if "tuple" in node:
                return tuple(self.decode(v) for v in node["tuple"])
            if "float" in node:
                return float(node["float"])
        raise _bad(self.name, f"its manifest holds an entry it cannot decode ({str(node)[:60]})")

    def _decode_dict(self, node):
        result = OrderedDict() if node.get("ordered") else {}
        for pair in node["dict"]:
            key, value = pair
            key = self.decode(key)
            result[key] = self.decode(value)
        if "metadata" in node:
            result = OrderedDict(result) if not isinstance(result, OrderedDict) else result
            result._metadata = self.decode(node["metadata"])
        return result

    def _decode_tensor(self, node):
        index = node["tensor"]
        if index in self.tensors:
            return self.tensors[index]
        if node["dtype"] not in _DTYPES:
            raise _bad(self.name, f"unsupported dtype {node['dtype']!r}")
        try:
            raw = self.archive.read(f"tensors/{int(index)}.npy")
            array = np.load(io.BytesIO(raw), allow_pickle=False)
        except KeyError:
            raise _bad(self.name, f"the values of tensor {index} are missing") from None
        except (ValueError, OSError, EOFError) as error:
            raise _bad(self.name, f"the values of tensor {index} cannot be read ({error})") from None
        if array.dtype.name != node["dtype"] or list(array.shape) != node["shape"]:
            raise _bad(self.name, f"tensor {index} has dtype {array.dtype.name} and shape "
                                  f"{list(array.shape)}, but the manifest says {node['dtype']} "
                                  f"and {node['shape']}")
        tensor = Tensor._wrap(array)
        if node.get("parameter"):
            from .nn.parameter import Parameter
            tensor = Parameter(tensor, requires_grad=bool(node.get("requires_grad")))
        elif node.get("requires_grad"):
            tensor.requires_grad_(True)
        self.tensors[index] = tensor
        return tensor


def load(f, map_location=None, weights_only=True, **kwargs):
    """Read an object written by ``minitorch.save`` from the path (or binary file object) ``f``.

    ``map_location`` and ``weights_only`` are accepted for compatibility with
    PyTorch code and ignored: minitorch has one device, and its checkpoints
    can only ever hold data.
    """
    name = repr(getattr(f, "name", "the file") if hasattr(f, "read") else os.fspath(f))
    try:
        archive = zipfile.ZipFile(f)
    except zipfile.BadZipFile:
        raise _bad(name, "it is not a zip archive (it may be truncated, or a file of another kind)") from None
    with archive:
        names = set(archive.namelist())
        if MANIFEST not in names:
            if any(n.endswith("data.pkl") for n in names):
                raise _bad(name, "it looks like a PyTorch checkpoint (torch.save pickles objects, "
                                 "and minitorch never loads pickles)")
            raise _bad(name, "it has no manifest.json")
        try:
            corrupt = archive.testzip()
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise _bad(name, f"its archive is damaged ({error})") from None
        if corrupt is not None:
            raise _bad(name, f"{corrupt} fails its checksum")
        try:
            manifest = json.loads(archive.read(MANIFEST))
        except (ValueError, UnicodeDecodeError):
            raise _bad(name, "its manifest is not valid JSON") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise _bad(name, "its manifest does not describe a minitorch checkpoint")
        if manifest.get("version") != VERSION:
            raise _bad(name, f"it uses format version {manifest.get('version')}, and this minitorch "
                             f"reads version {VERSION}")
        try:
            return _Decoder(archive, name).decode(manifest["object"])
        except (KeyError, TypeError, ValueError) as error:
            raise _bad(name, f"its manifest is inconsistent ({type(error).__name__}: {error})") from None

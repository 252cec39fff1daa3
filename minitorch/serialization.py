"""``minitorch.save`` and ``minitorch.load``: checkpoints that cannot run code (chapter 10).

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
temporary file next to the target, flushed to disk, and renamed over it,
so a crash mid-save leaves the old file (or none), never half of a new
one.  As with ``open(path, "wb")``, the file is written through symbolic
links, a new file gets the permissions the umask allows, and an existing
file keeps its own.  A truncated, corrupted or foreign file is refused with an error
that says so.
"""

import contextlib
import errno
import io
import json
import math
import os
import secrets
import stat
import zipfile
from collections import OrderedDict

import numpy as np

from ._tensor import Tensor

__all__ = ["save", "load", "CheckpointError"]

FORMAT = "minitorch-checkpoint"
VERSION = 1
MANIFEST = "manifest.json"
_DTYPES = {name: np.dtype(name) for name in ("float32", "float64", "int64", "bool")}

MAX_DEPTH = 64                   # containers nested in containers (state dicts need about 4)
MAX_NDIM = 32                    # dimensions of one tensor
MAX_MANIFEST_BYTES = 64 << 20    # about 400,000 tensors' descriptions
MAX_NPY_HEADER_BYTES = 4096      # numpy writes about 128
MAX_INFLATION = 32               # uncompressed / compressed size of deflated members
INFLATION_ALLOWANCE = 1 << 20    # bytes that may inflate beyond that, over the whole archive
_READ_CHUNK = 1 << 20
_NPY_MAGIC = b"\x93NUMPY"
_SMALLEST_ZIP = 22               # an empty archive: just the end-of-directory record
# Encrypted (bit 0), patched data (5), strong encryption (6), masked headers (13).
_UNSUPPORTED_FLAGS = 0x1 | 0x20 | 0x40 | 0x2000


class CheckpointError(RuntimeError):
    """The file is not a readable minitorch checkpoint (damaged, foreign, or outside the format)."""


# ===== saving ============================================================================
class _Encoder:
    """Turns an object into a JSON-able tree; tensors become references to numbered arrays."""

    def __init__(self):
        self.arrays = []        # numpy arrays, in tensor-number order
        self._tensor_ids = {}   # id(tensor) -> number (the same tensor object is stored once)
        self._keep_alive = []   # keeps those ids valid while encoding

    def encode(self, obj, depth=0):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, (int, np.integer)):
            return int(obj)
        if isinstance(obj, (float, np.floating)):
            return _encode_float(float(obj))
        if isinstance(obj, Tensor):
            return self._encode_tensor(obj)
        if isinstance(obj, (dict, list, tuple)):
            _check_save_depth(depth)
            return self._encode_container(obj, depth + 1)
        from .nn.modules.module import Module
        hint = " Save model.state_dict() instead." if isinstance(obj, Module) else ""
        raise TypeError(
            "minitorch.save can store tensors, numbers, strings, None, and dicts, lists and tuples "
            f"of them, but got an object of type {type(obj).__name__}.{hint}")

    def _encode_container(self, obj, depth):
        if isinstance(obj, list):
            return {"list": [self.encode(v, depth) for v in obj]}
        if isinstance(obj, tuple):
            return {"tuple": [self.encode(v, depth) for v in obj]}
        node = {"dict": [[_encode_key(k, depth), self.encode(v, depth)] for k, v in obj.items()],
                "ordered": isinstance(obj, OrderedDict)}
        metadata = getattr(obj, "_metadata", None)
        if metadata is not None and node["ordered"]:
            node["metadata"] = self.encode(metadata, depth)
        return node

    def _encode_tensor(self, t):
        number = self._tensor_ids.get(id(t))
        if number is None:
            number = self._tensor_ids[id(t)] = len(self.arrays)
            self.arrays.append(np.asarray(t._data))
            self._keep_alive.append(t)
        from .nn.parameter import Parameter
        return {"tensor": number, "dtype": t.dtype.name, "shape": list(t.shape),
                "requires_grad": t.requires_grad, "parameter": isinstance(t, Parameter)}


def _encode_float(value):
    """Finite floats are JSON numbers; nan and infinities (not JSON) are tagged strings."""
    return value if math.isfinite(value) else {"float": repr(value)}


def _encode_key(key, depth):
    """Dict keys: scalars, or tuples of them, so that they come back hashable and equal."""
    if key is None or isinstance(key, (bool, str)):
        return key
    if isinstance(key, (int, np.integer)) and not isinstance(key, np.bool_):
        return int(key)
    if isinstance(key, (float, np.floating)):
        return _encode_float(float(key))
    if isinstance(key, tuple):
        _check_save_depth(depth)
        return {"tuple": [_encode_key(k, depth + 1) for k in key]}
    raise TypeError(
        "minitorch.save can store dicts whose keys are strings, numbers, None or tuples of "
        f"them, but got a key of type {type(key).__name__}. Use a string key instead.")


def _check_save_depth(depth):
    if depth >= MAX_DEPTH:
        raise ValueError(
            f"minitorch.save can store containers nested at most {MAX_DEPTH} deep, and this object "
            "is nested deeper (or contains itself). Flatten it before saving.")


def _write_npy(archive, name, array):
    """One tensor's values as a little-endian, C-ordered ``.npy`` member, streamed in chunks."""
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    array = array.astype(array.dtype.newbyteorder("<"), copy=False)
    huge = array.nbytes + MAX_NPY_HEADER_BYTES >= (1 << 31) - 1     # zip64 sizes needed
    with archive.open(name, "w", force_zip64=huge) as member:
        np.lib.format.write_array(member, array, allow_pickle=False)


def _write_archive(fileobj, manifest_text, arrays):
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, manifest_text)
        for number, array in enumerate(arrays):
            _write_npy(archive, _member_name(number), array)


def _member_name(number):
    return f"tensors/{number}.npy"


def save(obj, f):
    """Save ``obj`` (a tensor, a state dict, an optimizer's state dict, or dicts, lists and
    tuples of tensors, numbers, strings and None) to ``f``: a path (str, bytes or
    ``pathlib.Path``) or a writable binary file object such as ``io.BytesIO``.

    Writing to a path is atomic: the file either keeps its old content or
    gets the complete new one.  Symbolic links are written through, a new
    file gets the umask's permissions and an existing file keeps its own.
    """
    encoder = _Encoder()
    root = encoder.encode(obj)
    manifest_text = json.dumps({"format": FORMAT, "version": VERSION, "object": root},
                               allow_nan=False)
    if hasattr(f, "write"):
        _write_archive(f, manifest_text, encoder.arrays)
        return
    target = _save_target(f)
    _replace_atomically(target, lambda stream: _write_archive(stream, manifest_text, encoder.arrays))


def _save_target(f):
    """The real file a save to ``f`` must replace: symbolic links resolved, folder checked."""
    path = os.fsdecode(os.fspath(f))
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise IsADirectoryError(
            errno.EISDIR, "minitorch.save needs a file name, and this is a folder", path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(
            errno.ENOENT, "the folder to save into does not exist (create it first, for "
            "example with os.makedirs)", folder)
    return target


def _replace_atomically(target, write):
    """Call ``write(stream)`` on a new temporary file next to ``target``, then rename it over."""
    folder = os.path.dirname(target)
    fd, tmp_path = _create_temp_file(folder)
    try:
        with os.fdopen(fd, "wb") as stream:
            _copy_permissions(target, stream.fileno())
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_path)
        raise
    _fsync_folder(folder)


def _create_temp_file(folder):
    """A new file with a short random name (any target name fits beside it) and mode 0o666
    less the umask, exactly like a file that ``open(path, "wb")`` creates."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp_path = os.path.join(folder, f".minitorch-{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp_path, flags, 0o666), tmp_path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "could not create a temporary file to save into", folder)


def _copy_permissions(target, fd):
    """An existing file keeps its permissions (a private checkpoint stays private)."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode) and hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(mode))


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

"""``minitorch.save`` and ``minitorch.load``: checkpoints are data, never programs (chapter 10).

``torch.save`` pickles, and unpickling a file can run any code its author
wanted.  minitorch writes a plain zip archive instead:

* ``manifest.json`` describes the saved object: nested dicts (their key
  order, and a state dict's ``_metadata``), lists and tuples, numbers,
  strings, None, and for each tensor its dtype, shape, flags and the number
  of the file holding its values;
* ``tensors/<n>.npy`` holds the values of tensor ``n`` (numbered 0, 1, ...
  in the order they are first met), one little-endian, C-ordered numpy
  ``.npy`` file per tensor.

The threat model: a checkpoint from a stranger is data, not a program, and
cannot exhaust your machine.  So ``load`` only ever builds the types listed
above, and it checks a file against the format before it trusts any number
in it:

* only regular files and seekable file objects are read (``/dev/zero``, a
  FIFO or a pipe would never end);
* the archive must hold exactly the members the manifest names, stored or
  deflated, unencrypted; nothing else in it is ever read;
* every size is checked before anything is inflated or allocated: a
  member's declared size must match its tensor's dtype and shape, and no
  member may inflate more than ``MAX_INFLATION`` times;
* the manifest is checked against the schema (known keys only, values of
  the right JSON types, at most ``MAX_DEPTH`` nested containers) before
  any tensor is read, and each ``.npy`` header is checked (dtype,
  byte order, shape, length) before its values are read.

Every malformed file gives a :class:`CheckpointError` that says what is
wrong, in time and memory bounded by the file's size.

Saving is atomic: the archive is written to a temporary file next to the
target, flushed to disk and renamed over it, so a crash mid-save leaves the
old file (or none), never half of a new one.  As with ``open(path, "wb")``,
the file is written through symbolic links, a new file gets the
permissions the umask allows, and an existing file keeps its own.

Tensors that share memory (views of one tensor, saved together) share it
again after loading, as with ``torch.save``: their values are stored once,
as a *storage* (``storages/<s>.npy``, the span of memory they cover), and
each such tensor is described by its storage, offset and strides.  A tensor
that shares memory with no other saved tensor is stored alone, with only its
own values (``torch.save`` would store its whole base).  The same tensor
object saved twice comes back as one object.

Besides tensors and containers, a checkpoint can hold ``Size`` objects and
dtypes.  Version 2 of the format added storages, sizes and dtypes; a file
that uses none of them is written as version 1, which older minitorch reads.
"""

import ast
import contextlib
import errno
import io
import json
import math
import os
import pickle
import re
import secrets
import stat
import struct
import warnings
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from . import _dtype
from ._tensor import Size, Tensor

__all__ = ["save", "load", "CheckpointError"]

FORMAT = "minitorch-checkpoint"
VERSION = 2                      # the newest version written; every version up to it is read
MANIFEST = "manifest.json"
# Every dtype minitorch has (save writes each of them, so load must read each of them).
_DTYPES = {name: np.dtype(name) for name in ("float32", "float64", "float16", "int64", "int32",
                                             "int16", "int8", "uint8", "bool")}
_DTYPE_OBJECTS = {d.name: d for d in (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.int64,
                                      _dtype.int32, _dtype.int16, _dtype.int8, _dtype.uint8,
                                      _dtype.bool)}

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


class _EmptyCheckpointError(CheckpointError, EOFError):
    """An empty file: also an EOFError, which PyTorch raises for it."""


class _NotAnArchiveError(CheckpointError, pickle.UnpicklingError):
    """A file that is not a zip archive at all: also pickle's UnpicklingError, which PyTorch
    raises for it (it reads such files as old-style pickles)."""


class _MissingFolderError(FileNotFoundError, RuntimeError):
    """Saving into a folder that does not exist: a FileNotFoundError that is also the
    RuntimeError PyTorch raises."""


# ===== saving ============================================================================
class _Encoder:
    """Turns an object into a JSON-able tree; tensors become references to numbered arrays
    (or to spans of shared storages, see ``_Storages``)."""

    def __init__(self, obj):
        self.arrays = []        # numpy arrays of the tensors stored alone, in number order
        self._tensor_ids = {}   # id(tensor) -> number (the same tensor object is stored once)
        self._keep_alive = []   # keeps those ids valid while encoding
        self.storages = _Storages(_tensors_in(obj))
        self.version = 2 if self.storages.arrays else 1

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
        if isinstance(obj, Size):
            self.version = 2
            return {"size": [int(n) for n in obj]}
        if isinstance(obj, _dtype.dtype):
            self.version = 2
            return {"dtype_name": obj.name}
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
        from .nn.parameter import Parameter
        node = {"dtype": t.dtype.name, "shape": list(t.shape),
                "requires_grad": t.requires_grad, "parameter": isinstance(t, Parameter)}
        view = self.storages.view_of(t)
        if view is not None:
            node["storage"], node["offset"], node["stride"] = view
            node["tensor"] = self._number(t, None)
        else:
            node["tensor"] = self._number(t, t._data)
        return node

    def _number(self, t, array):
        """The number of tensor ``t`` (a new one the first time it is met); ``array`` is
        what stores its values (None for a tensor kept in a storage)."""
        number = self._tensor_ids.get(id(t))
        if number is None:
            number = self._tensor_ids[id(t)] = len(self.arrays)
            self.arrays.append(None if array is None else np.asarray(array))
            self._keep_alive.append(t)
        return number


def _tensors_in(obj, depth=0):
    """Every tensor in ``obj`` (containers searched as ``save`` will encode them)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (dict, list, tuple)) and depth < MAX_DEPTH:
        for value in (obj.values() if isinstance(obj, dict) else obj):
            yield from _tensors_in(value, depth + 1)


class _Storages:
    """The memory shared by the tensors saved together.

    Tensors whose arrays are views of one numpy buffer (a tensor and its views,
    or several views of one tensor) are grouped; each group with two or more
    tensor objects becomes a storage: the span of that buffer the group covers,
    saved once.  Each tensor of a group is then described by where it sits in
    the span: an offset and strides, in elements.
    """

    def __init__(self, tensors):
        self.arrays = []      # the spans, in storage-number order
        self._views = {}      # id(tensor) -> [storage, offset, strides]
        groups = {}
        for t in tensors:
            root = _root_buffer(t._data) if type(t._data) is np.ndarray else None
            if root is not None:
                groups.setdefault(id(root), (root, {}))[1][id(t)] = t
        for root, members in groups.values():
            if len(members) > 1:
                self._add(root, list(members.values()))

    def _add(self, root, tensors):
        item = root.dtype.itemsize
        start = root.__array_interface__["data"][0]
        places = {}
        for t in tensors:
            a = t._data
            offset, rest = divmod(a.__array_interface__["data"][0] - start, item)
            if a.dtype != root.dtype or rest or any(s % item for s in a.strides) or a.size == 0:
                continue                      # stored alone instead
            strides = [s // item for s in a.strides]
            low = offset + sum((n - 1) * s for n, s in zip(a.shape, strides) if s < 0)
            high = offset + sum((n - 1) * s for n, s in zip(a.shape, strides) if s > 0)
            places[id(t)] = (offset, strides, low, high)
        if len(places) < 2:
            return
        low = min(p[2] for p in places.values())
        high = max(p[3] for p in places.values())
        flat = np.lib.stride_tricks.as_strided(root, shape=(root.size,), strides=(item,))
        number = len(self.arrays)
        self.arrays.append(flat[low:high + 1])
        for key, (offset, strides, _, _) in places.items():
            self._views[key] = [number, offset - low, strides]

    def view_of(self, t):
        return self._views.get(id(t))


def _root_buffer(array):
    """The contiguous numpy array that owns (or wraps) ``array``'s memory, or None."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    flags = root.flags
    return root if flags.c_contiguous or flags.f_contiguous else None


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


def _write_archive(fileobj, manifest_text, arrays, storages):
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, manifest_text)
        for number, array in enumerate(arrays):
            if array is not None:
                _write_npy(archive, _member_name(number), array)
        for number, array in enumerate(storages):
            _write_npy(archive, _storage_name(number), array)


def _member_name(number):
    return f"tensors/{number}.npy"


def _storage_name(number):
    return f"storages/{number}.npy"


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` (a tensor, a state dict, an optimizer's state dict, or dicts, lists and
    tuples of tensors, numbers, strings, None, sizes and dtypes) to ``f``: a path (str,
    bytes or ``pathlib.Path``) or a writable binary file object such as ``io.BytesIO``.

    Writing to a path is atomic: the file either keeps its old content or
    gets the complete new one.  Symbolic links are written through, a new
    file gets the umask's permissions and an existing file keeps its own.
    PyTorch's other parameters (pickle options) are accepted and change nothing.
    """
    if not (hasattr(f, "write") or isinstance(f, (str, bytes, os.PathLike))):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             f"'write' attribute (got {type(f).__name__})")
    encoder = _Encoder(obj)
    root = encoder.encode(obj)
    manifest = {"format": FORMAT, "version": encoder.version, "object": root}
    if encoder.storages.arrays:
        manifest["storages"] = [{"dtype": _dtype.from_numpy_dtype(a.dtype).name,
                                 "size": int(a.size)} for a in encoder.storages.arrays]
    manifest_text = json.dumps(manifest, allow_nan=False)

    def write(stream):
        _write_archive(stream, manifest_text, encoder.arrays, encoder.storages.arrays)

    if hasattr(f, "write"):
        write(f)
        return
    _replace_atomically(_save_target(f), write)


def _save_target(f):
    """The real file a save to ``f`` must replace: symbolic links resolved, folder checked."""
    path = os.fsdecode(os.fspath(f))
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise IsADirectoryError(
            errno.EISDIR, "minitorch.save needs a file name, and this is a folder", path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise _MissingFolderError(
            f"Parent directory {os.path.dirname(os.path.abspath(path))} does not exist. The "
            "folder to save into does not exist (create it first, for example with "
            "os.makedirs).")
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


# ===== loading ===========================================================================
# pickle's options, which PyTorch passes on to its unpickler: accepted, nothing to do here
_PICKLE_LOAD_OPTIONS = ("encoding", "errors", "fix_imports", "buffers")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read an object written by ``minitorch.save`` from ``f``: a path (str, bytes or
    ``pathlib.Path``) or a seekable binary file object.

    A missing path raises FileNotFoundError and a folder IsADirectoryError;
    anything that is not a valid checkpoint raises :class:`CheckpointError`
    (an empty file also counts as an EOFError, a file that is no zip archive
    as a ``pickle.UnpicklingError``, as in PyTorch).  ``map_location`` may
    name the CPU (a string, a device, a dict or a function, as in PyTorch);
    a CUDA device is refused.  ``weights_only`` changes nothing: a minitorch
    checkpoint can only ever hold data.
    """
    for option in pickle_load_args:
        if option not in _PICKLE_LOAD_OPTIONS:
            raise TypeError(f"load() got an unexpected keyword argument '{option}' (PyTorch "
                            "passes such options on to pickle, and pickle has no such option)")
    _check_map_location(map_location)
    if not (hasattr(f, "read") or isinstance(f, (str, bytes, os.PathLike))):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can "
                             "only torch.load from a file that is seekable. Please pre-load the "
                             "data into a buffer like io.BytesIO and try to load from it instead.")
    if mmap and hasattr(f, "read"):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with _open_source(f) as (stream, name):
        return _read_checkpoint(stream, name)


def _check_map_location(location):
    """The CPU, said in any of PyTorch's ways, or None; CUDA and unknown devices refused."""
    if location is None or callable(location):
        return
    places = location.values() if isinstance(location, Mapping) else (location,)
    for place in places:
        kind = str(getattr(place, "type", place)).split(":")[0]
        if kind == "cuda":
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU. (minitorch "
                "runs on the CPU only.)")
        if kind != "cpu":
            raise RuntimeError(f"don't know how to restore data location of a tensor (tagged "
                               f"with {kind}): minitorch runs on the CPU only, so use "
                               "map_location='cpu' or leave it out")


def _bad(name, why, advice=None):
    advice = advice or ("Checkpoints are written by minitorch.save(); if this one was, the file "
                        "is damaged (re-save it, or restore a copy)")
    return CheckpointError(f"{name} is not a valid minitorch checkpoint: {why}. {advice}.")


# ----- opening: regular files and seekable streams only ----------------------------------
@contextlib.contextmanager
def _open_source(f):
    """Yield ``(binary stream, name for messages)`` for a path or a file object."""
    if hasattr(f, "read"):
        name = getattr(f, "name", None)
        name = repr(name) if isinstance(name, (str, bytes)) else "the file object"
        _require_seekable_stream(f, name)
        yield f, name
        return
    path = os.fspath(f)
    fd = _open_regular_file(path)
    with os.fdopen(fd, "rb") as stream:
        yield stream, repr(path)


def _open_regular_file(path):
    """Open ``path`` for reading after checking it is a regular file, without ever blocking
    on a FIFO or touching a device; the check is repeated on the opened file."""
    _require_regular(os.stat(path).st_mode, path)          # FileNotFoundError as PyTorch
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    try:
        _require_regular(os.fstat(fd).st_mode, path)       # replaced since the stat?
        if nonblocking:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _require_regular(mode, path):
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(mode):
        raise _bad(repr(path), f"it is {_file_kind(mode)}, not a regular file",
                   "minitorch.load reads files written by minitorch.save (to read from a stream, "
                   "copy it into io.BytesIO first)")


def _file_kind(mode):
    kinds = [(stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def _require_seekable_stream(f, name):
    seekable = getattr(f, "seekable", None)
    if seekable is None or not seekable():
        raise _bad(name, "the file object cannot seek, and a zip archive is read from its end",
                   "Read it into io.BytesIO first (from a source you trust to end)")
    try:
        mode = os.fstat(f.fileno()).st_mode
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return                                             # in-memory streams have no fd
    if not stat.S_ISREG(mode):
        raise _bad(name, f"the file object reads from {_file_kind(mode)}, not a regular file",
                   "Pass a file written by minitorch.save")


def _stream_size(stream):
    """Bytes from the stream's position to its end (a file's size as the system reports it:
    files in /proc say 0 and cannot seek to their end)."""
    here = stream.tell()
    try:
        return os.fstat(stream.fileno()).st_size - here
    except (AttributeError, OSError, ValueError):           # in-memory streams have no fd
        pass
    size = stream.seek(0, io.SEEK_END)
    stream.seek(here)
    return size - here


# ----- the archive ------------------------------------------------------------------------
# What zipfile and zlib raise on malformed input (zipfile reports an encrypted or strangely
# compressed member with RuntimeError or NotImplementedError, a bad offset with OSError).
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError,
                   ValueError, NotImplementedError, RuntimeError, struct.error, OverflowError)


def _read_checkpoint(stream, name):
    """Check the archive, its manifest and every member's size, then read the values and build."""
    try:
        size = _stream_size(stream)
    except _ARCHIVE_ERRORS as error:
        raise _bad(name, f"its size cannot be read ({type(error).__name__}: {error})") from None
    _check_zip_magic(stream, size, name)
    try:
        if size < _SMALLEST_ZIP:
            raise zipfile.BadZipFile("shorter than any zip archive")
        archive = zipfile.ZipFile(stream)
    except zipfile.BadZipFile:
        raise _bad(name, "it is not a zip archive (it may be truncated, or a file of another "
                         "kind)") from None
    except _ARCHIVE_ERRORS as error:
        raise _bad(name, f"its zip directory is damaged ({type(error).__name__}: "
                         f"{error})") from None
    with archive:
        try:
            specs, storage_specs, root = _check_checkpoint(archive, size, name)
            arrays = [None if spec.view else _read_tensor_values(
                          archive, _member_name(number), f"tensor {number}", spec, name)
                      for number, spec in enumerate(specs)]
            storages = [_read_tensor_values(archive, _storage_name(number),
                                            f"storage {number}", spec, name)
                        for number, spec in enumerate(storage_specs)]
        except CheckpointError:
            raise
        except _ARCHIVE_ERRORS as error:
            raise _bad(name, f"its archive is damaged ({type(error).__name__}: {error})") from None
    return _Builder(specs, arrays, storages).build(root)


def _check_zip_magic(stream, size, name):
    """An empty file, or one that does not start as a zip archive does, is no checkpoint at
    all (PyTorch then tries to read an old-style pickle and fails with EOFError or
    UnpicklingError: the errors raised here are those too)."""
    here = stream.tell()
    start = stream.read(4)
    stream.seek(here)
    if not start:               # (a size of 0 alone proves nothing: files in /proc say 0)
        raise _EmptyCheckpointError(f"{name} is not a valid minitorch checkpoint: it is empty. "
                                    "Checkpoints are written by minitorch.save(); if this one "
                                    "was, the save did not complete (save it again)")
    if start != b"PK\x03\x04" and start != b"PK\x05\x06":
        error = _bad(name, "it is not a zip archive (it may be truncated, or a file of another "
                           "kind)")
        raise _NotAnArchiveError(*error.args)


def _check_checkpoint(archive, size, name):
    """Everything that can be checked before reading a tensor's values; returns the tensor
    specs (in number order) and the manifest's object tree."""
    members = _members_by_name(archive, name)
    manifest_info = members[MANIFEST]
    _check_storage(manifest_info, name)
    if manifest_info.compress_size > size:
        raise _bad(name, f"its manifest declares {manifest_info.compress_size} bytes, more than "
                         f"the {size} bytes of the file")
    if manifest_info.file_size > MAX_MANIFEST_BYTES:
        raise _bad(name, f"its manifest is {manifest_info.file_size} bytes long, over the limit "
                         f"of {MAX_MANIFEST_BYTES}")
    manifest = _parse_manifest(_read_member(archive, manifest_info), name)
    checker = _ManifestChecker(name)
    specs = checker.check(manifest)
    _check_members(members, specs, checker.storages, size, name)
    return specs, checker.storages, manifest["object"]


def _members_by_name(archive, name):
    infos = archive.infolist()
    members = {info.filename: info for info in infos}
    if len(members) != len(infos):
        raise _bad(name, "its archive holds two members with the same name")
    if MANIFEST not in members:
        if any(n.endswith("data.pkl") for n in members):
            raise _bad(name, "it looks like a PyTorch checkpoint (torch.save pickles objects, "
                             "and minitorch never loads pickles)",
                       "Load it with PyTorch, and save its tensors with minitorch.save")
        raise _bad(name, "it has no manifest.json")
    return members


def _check_storage(info, name):
    """A member must be unencrypted, stored or deflated, and not inflate absurdly."""
    where = f"its member {_brief(info.filename)}"
    if info.flag_bits & _UNSUPPORTED_FLAGS:
        raise _bad(name, f"{where} is encrypted or patched, and checkpoints never are")
    if info.compress_type == zipfile.ZIP_STORED:
        if info.compress_size != info.file_size:
            raise _bad(name, f"{where} is stored uncompressed but declares {info.compress_size} "
                             f"bytes in the archive and {info.file_size} bytes of content")
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        if info.file_size > MAX_INFLATION * info.compress_size + INFLATION_ALLOWANCE:
            raise _bad(name, f"{where} would inflate from {info.compress_size} to "
                             f"{info.file_size} bytes, more than {MAX_INFLATION} times")
    else:
        raise _bad(name, f"{where} uses compression method {info.compress_type}, and checkpoints "
                         "are stored or deflated")


def _check_members(members, specs, storages, size, name):
    """The archive holds exactly the manifest, one member per tensor stored alone and one per
    storage, each of the size its dtype and shape need, and together no more than the file
    can inflate to."""
    stored = [(_member_name(number), spec) for number, spec in enumerate(specs)
              if spec.view is None]
    stored += [(_storage_name(number), spec) for number, spec in enumerate(storages)]
    expected = {MANIFEST} | {member for member, _ in stored}
    extra = sorted(set(members) - expected)
    if extra:
        raise _bad(name, f"its archive holds members the manifest does not describe "
                         f"({_brief(extra[:3])})")
    missing = sorted(expected - set(members))
    if missing:
        raise _bad(name, f"the values of a tensor are missing (there is no {missing[0]})")
    for member, spec in stored:
        info = members[member]
        _check_storage(info, name)
        need = spec.nbytes
        if not need <= info.file_size <= need + 12 + MAX_NPY_HEADER_BYTES:
            raise _bad(name, f"{info.filename} holds {info.file_size} bytes, but its values "
                             f"(dtype {spec.dtype}, shape {list(spec.shape)}) need {need} bytes "
                             "and a short header")
    compressed = sum(info.compress_size for info in members.values())
    inflated = sum(info.file_size for info in members.values())
    if compressed > size:
        raise _bad(name, f"its members declare {compressed} bytes of data, more than the "
                         f"{size} bytes of the file")
    if inflated > MAX_INFLATION * compressed + INFLATION_ALLOWANCE:
        raise _bad(name, f"its members would inflate from {compressed} to {inflated} bytes, "
                         f"more than {MAX_INFLATION} times")


def _read_member(archive, info):
    """A member's content (its size was checked; zipfile verifies the CRC at the end)."""
    with archive.open(info) as member:
        return _read_exactly(member, info.file_size)


def _read_exactly(stream, count):
    chunks = []
    left = count
    while left > 0:
        chunk = stream.read(min(left, _READ_CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# ----- the manifest -----------------------------------------------------------------------
def _refuse_constant(token):
    raise ValueError(f"{token} is not JSON")


def _parse_manifest(raw, name):
    try:
        return json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        raise _bad(name, "its manifest is nested too deeply") from None
    except ValueError as error:      # includes JSONDecodeError and UnicodeDecodeError
        raise _bad(name, f"its manifest is not valid JSON ({error})") from None


class _TensorSpec:
    """What the manifest says about one tensor."""

    __slots__ = ("dtype", "shape", "requires_grad", "parameter", "view")

    def __init__(self, dtype, shape, requires_grad, parameter, view=None):
        self.dtype, self.shape = dtype, shape
        self.requires_grad, self.parameter = requires_grad, parameter
        self.view = view        # (storage, offset, strides) for a tensor kept in a storage

    @property
    def nbytes(self):
        return math.prod(self.shape) * _DTYPES[self.dtype].itemsize

    def _key(self):
        return (self.dtype, self.shape, self.requires_grad, self.parameter, self.view)

    def __eq__(self, other):
        return isinstance(other, _TensorSpec) and self._key() == other._key()

    __hash__ = None


# The manifest's nodes: a JSON object with one of these tags, and exactly these keys.
_NODE_KEYS = {
    "float": ({"float"}, set()),
    "list": ({"list"}, set()),
    "tuple": ({"tuple"}, set()),
    "dict": ({"dict", "ordered"}, {"metadata"}),
    "tensor": ({"tensor", "dtype", "shape", "requires_grad", "parameter"},
               {"storage", "offset", "stride"}),
    "size": ({"size"}, set()),
    "dtype_name": ({"dtype_name"}, set()),
}
_VIEW_KEYS = {"storage", "offset", "stride"}
_VERSION_2_TAGS = ("size", "dtype_name")
_FLOAT_WORDS = {"nan", "inf", "-inf"}     # float() of each is a new object: nan keys stay apart
_MAX_ELEMENTS = 1 << 63          # no array has more elements or bytes


def _brief(value):
    """A short description of an untrusted value, safe to put in a message (no deep repr)."""
    if value is None or type(value) in (bool, int, float, str):
        text = repr(value) if type(value) is not int or abs(value) < 10 ** 30 else "a huge number"
        return text if len(text) <= 60 else text[:57] + "..."
    if type(value) in (list, tuple) and all(type(v) is str for v in value):
        return _brief(", ".join(value))
    if type(value) is tuple:
        return f"a tuple of {len(value)} items"
    return f"a JSON {'object' if type(value) is dict else type(value).__name__}"


class _ManifestChecker:
    """Checks the manifest against the format before anything else is read, and collects
    the tensors it describes.  Recursion is bounded by ``MAX_DEPTH``."""

    def __init__(self, name):
        self.name = name
        self.tensors = {}       # number -> _TensorSpec
        self.storages = []      # _TensorSpec of each storage: its dtype and (size,)
        self.version = VERSION

    def fail(self, why):
        return _bad(self.name, f"its manifest {why}")

    def check(self, manifest):
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise _bad(self.name, "its manifest does not describe a minitorch checkpoint")
        version = manifest.get("version")
        if type(version) is not int or not 1 <= version <= VERSION:
            raise _bad(self.name, f"it uses format version {_brief(version)}, and this minitorch "
                                  f"reads versions 1 to {VERSION}", "Upgrade minitorch to read it")
        self.version = version
        optional = {"storages"} if version >= 2 else set()
        self.require_keys(manifest, {"format", "version", "object"}, optional, "the top level")
        self.storage_list(manifest.get("storages", []))
        self.value(manifest["object"], 0)
        numbers = sorted(self.tensors)
        if numbers != list(range(len(numbers))):
            raise self.fail("numbers its tensors other than 0, 1, 2, ...")
        return [self.tensors[number] for number in numbers]

    def require_keys(self, node, required, optional, what):
        keys = set(node)
        if not required <= keys <= required | optional:
            unknown = sorted(keys - required - optional)
            absent = sorted(required - keys)
            raise self.fail(f"has {what} with unknown keys ({_brief(unknown[:5])}) or missing "
                            f"keys ({_brief(absent)})")

    def scalar(self, node):
        """True for a JSON scalar the format allows (finite numbers only)."""
        if node is None or type(node) in (bool, int, str):
            return True
        if type(node) is float:
            if not math.isfinite(node):
                raise self.fail("holds a number out of range")
            return True
        return False

    def tag(self, node, depth):
        if type(node) is not dict:
            raise self.fail(f"holds a JSON {type(node).__name__} where a value was expected")
        tags = [tag for tag in _NODE_KEYS if tag in node]
        if len(tags) != 1:
            raise self.fail(f"holds an entry it cannot decode (with keys {_brief(sorted(node))})")
        required, optional = _NODE_KEYS[tags[0]]
        if self.version < 2:
            if tags[0] in _VERSION_2_TAGS:
                raise self.fail(f"holds a {tags[0]!r} entry, which format version 1 has not")
            optional = set() if tags[0] == "tensor" else optional
        self.require_keys(node, required, optional, f"a {tags[0]!r} entry")
        if tags[0] in ("list", "tuple", "dict") and depth >= MAX_DEPTH:
            raise self.fail(f"nests containers more than {MAX_DEPTH} deep")
        return tags[0]

    def value(self, node, depth):
        if self.scalar(node):
            return
        tag = self.tag(node, depth)
        if tag == "float":
            self.float_word(node)
        elif tag in ("list", "tuple"):
            for item in self.items(node, tag):
                self.value(item, depth + 1)
        elif tag == "dict":
            self.dict(node, depth)
        elif tag == "size":
            sizes = node["size"]
            if type(sizes) is not list or not all(type(n) is int and n >= 0 for n in sizes):
                raise self.fail("holds a size that is not a list of natural numbers")
        elif tag == "dtype_name":
            if type(node["dtype_name"]) is not str or node["dtype_name"] not in _DTYPE_OBJECTS:
                raise self.fail(f"names the unknown dtype {_brief(node['dtype_name'])}")
        else:
            self.tensor(node)

    def storage_list(self, storages):
        if type(storages) is not list:
            raise self.fail("lists its storages in something other than a JSON list")
        for number, storage in enumerate(storages):
            if type(storage) is not dict or set(storage) != {"dtype", "size"}:
                raise self.fail(f"describes storage {number} with other keys than dtype and size")
            dtype, size = storage["dtype"], storage["size"]
            if type(dtype) is not str or dtype not in _DTYPES:
                raise self.fail(f"gives storage {number} the unsupported dtype {_brief(dtype)}")
            if type(size) is not int or not 0 <= size < _MAX_ELEMENTS // _DTYPES[dtype].itemsize:
                raise self.fail(f"gives storage {number} a size that is not a natural number "
                                "an array can have")
            self.storages.append(_TensorSpec(dtype, (size,), False, False))

    def items(self, node, tag):
        if type(node[tag]) is not list:
            raise self.fail(f"holds a {tag!r} entry whose items are not a JSON list")
        return node[tag]

    def float_word(self, node):
        if type(node["float"]) is not str or node["float"] not in _FLOAT_WORDS:
            raise self.fail("holds a special float other than nan, inf or -inf")

    def dict(self, node, depth):
        if type(node["ordered"]) is not bool:
            raise self.fail("holds a dict whose 'ordered' flag is not true or false")
        if "metadata" in node:
            if not node["ordered"]:
                raise self.fail("gives _metadata to a plain dict (only OrderedDicts carry it)")
            self.value(node["metadata"], depth + 1)
        seen = set()
        for pair in self.items(node, "dict"):
            if type(pair) is not list or len(pair) != 2:
                raise self.fail("holds a dict item that is not a [key, value] pair")
            key = self.key(pair[0], depth + 1)
            if key in seen:
                raise self.fail(f"repeats the key {_brief(key)} in one dict")
            seen.add(key)
            self.value(pair[1], depth + 1)

    def key(self, node, depth):
        """Keys are scalars or tuples of keys; returns the key's value (to find repeats)."""
        if self.scalar(node):
            return node
        tag = self.tag(node, depth)
        if tag == "float":
            self.float_word(node)
            return float(node["float"])
        if tag == "tuple":
            return tuple(self.key(item, depth + 1) for item in self.items(node, "tuple"))
        raise self.fail(f"uses a {tag} as a dict key (keys are numbers, strings, None or tuples)")

    def tensor(self, node):
        number, dtype, shape = node["tensor"], node["dtype"], node["shape"]
        if type(number) is not int or number < 0:
            raise self.fail("numbers a tensor with something other than a natural number")
        if type(dtype) is not str or dtype not in _DTYPES:
            raise self.fail(f"gives tensor {number} the unsupported dtype {_brief(dtype)}")
        if (type(shape) is not list or len(shape) > MAX_NDIM
                or not all(type(n) is int and 0 <= n < _MAX_ELEMENTS for n in shape)):
            raise self.fail(f"gives tensor {number} a shape that is not a list of at most "
                            f"{MAX_NDIM} natural numbers")
        if math.prod(shape) * _DTYPES[dtype].itemsize >= _MAX_ELEMENTS:
            raise self.fail(f"gives tensor {number} a shape larger than any array can be")
        flags = node["requires_grad"], node["parameter"]
        if not all(type(flag) is bool for flag in flags):
            raise self.fail(f"gives tensor {number} flags that are not true or false")
        if flags[0] and dtype not in ("float32", "float64"):
            raise self.fail(f"says tensor {number} of dtype {dtype} requires grad (only floating "
                            "point tensors can)")
        view = self.view(node, number, dtype, shape)
        spec = _TensorSpec(dtype, tuple(shape), *flags, view)
        if self.tensors.setdefault(number, spec) != spec:
            raise self.fail(f"describes tensor {number} twice, differently")

    def view(self, node, number, dtype, shape):
        """Where a tensor kept in a storage sits: checked to lie inside the storage."""
        present = _VIEW_KEYS & set(node)
        if not present:
            return None
        if present != _VIEW_KEYS:
            raise self.fail(f"gives tensor {number} only some of storage, offset and stride")
        storage, offset, strides = node["storage"], node["offset"], node["stride"]
        if type(storage) is not int or not 0 <= storage < len(self.storages):
            raise self.fail(f"places tensor {number} in a storage it does not list")
        size = self.storages[storage].shape[0]
        if self.storages[storage].dtype != dtype:
            raise self.fail(f"places tensor {number} of dtype {dtype} in a storage of dtype "
                            f"{self.storages[storage].dtype}")
        if (type(offset) is not int or type(strides) is not list or len(strides) != len(shape)
                or not all(type(n) is int and abs(n) < _MAX_ELEMENTS for n in strides)):
            raise self.fail(f"gives tensor {number} an offset or strides that are not integers "
                            "(one stride per dimension)")
        if 0 in shape:
            inside = 0 <= offset <= size
        else:
            low = offset + sum((n - 1) * st for n, st in zip(shape, strides) if st < 0)
            high = offset + sum((n - 1) * st for n, st in zip(shape, strides) if st > 0)
            inside = 0 <= low and high < size
        if not inside:
            raise self.fail(f"places tensor {number} outside its storage")
        return (storage, offset, tuple(strides))


# ----- tensor values ----------------------------------------------------------------------
def _read_tensor_values(archive, member_name, what, spec, name):
    """Read ``member_name`` (``tensors/<n>.npy`` or ``storages/<n>.npy``) after checking its
    header against ``spec``; returns a native-endian, C-ordered array."""
    info = archive.getinfo(member_name)
    where = f"{what} ({info.filename})"
    with archive.open(info) as member:
        header_size, fortran, file_dtype = _read_npy_header(member, spec, where, name)
        if header_size + spec.nbytes != info.file_size:
            raise _bad(name, f"{where} is {info.file_size} bytes long, but its header and "
                             f"values take {header_size + spec.nbytes}")
        flat = _read_values(member, math.prod(spec.shape), file_dtype, where, name)
        if member.read(1):
            raise _bad(name, f"{where} goes on after its values")
    if spec.dtype == "bool" and flat.view(np.uint8).max(initial=0) > 1:
        raise _bad(name, f"{where} holds bool values other than 0 and 1")
    array = flat.reshape(spec.shape, order="F" if fortran else "C")
    if fortran:
        array = array.copy(order="C")
    return array.astype(_DTYPES[spec.dtype], copy=False)     # native byte order


def _read_npy_header(member, spec, where, name):
    """Read and check a ``.npy`` header; returns (its length, fortran_order, file dtype)."""
    prefix = _read_exactly(member, 10)
    if len(prefix) < 10 or not prefix.startswith(_NPY_MAGIC):
        raise _bad(name, f"{where} is not a numpy .npy array")
    version = (prefix[6], prefix[7])
    if version == (2, 0):
        prefix += _read_exactly(member, 2)
    elif version != (1, 0):
        raise _bad(name, f"{where} uses .npy version {version[0]}.{version[1]}, and checkpoints "
                         "use 1.0 or 2.0")
    length = int.from_bytes(prefix[8:], "little")
    if length > MAX_NPY_HEADER_BYTES:
        raise _bad(name, f"{where} has a {length}-byte header, over the limit of "
                         f"{MAX_NPY_HEADER_BYTES}")
    text = _read_exactly(member, length).decode("latin1")
    descr, fortran, shape = _parse_npy_header(text, where, name)
    if type(descr) is not str or descr not in _FILE_DESCRS[spec.dtype]:
        stored = descr if type(descr) is str and len(descr) <= 16 else "structured or unknown"
        raise _bad(name, f"{where} stores {stored} values, and the manifest says "
                         f"little-endian {spec.dtype}")
    if shape != spec.shape:
        raise _bad(name, f"{where} has shape {_brief(str(list(shape)))}, but the manifest says "
                         f"{list(spec.shape)}")
    return len(prefix) + length, fortran, np.dtype(descr)


# The header numpy writes for the dtypes a checkpoint holds, e.g.
# {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }  padded with spaces to "\n".
_USUAL_NPY_HEADER = re.compile(r"\{'descr': '(<f4|<f8|<i8|\|b1|\|u1)', 'fortran_order': (False|True), "
                               r"'shape': \(((?:\d+, )*(?:\d+,?)?)\), \} *\n")
# The .npy dtype strings accepted for each dtype: little-endian, or native on big-endian machines.
_FILE_DESCRS = {name: {dtype.newbyteorder("<").str, dtype.str} for name, dtype in _DTYPES.items()}


def _parse_npy_header(text, where, name):
    """(descr, fortran_order, shape) from a header's text (at most MAX_NPY_HEADER_BYTES):
    the usual form with a regular expression, any other as a Python literal (which cannot
    run code) that must be a dict with exactly numpy's three keys and values of their types."""
    usual = _USUAL_NPY_HEADER.fullmatch(text)
    if usual:
        shape = tuple(int(n) for n in usual[3].replace(",", " ").split())
        return usual[1], usual[2] == "True", shape
    try:
        with warnings.catch_warnings():            # compiling may warn about odd escapes
            warnings.simplefilter("ignore")
            fields = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as error:
        raise _bad(name, f"{where} has an unreadable .npy header ({type(error).__name__}: "
                         f"{_brief(str(error))})") from None
    if type(fields) is not dict or set(fields) != {"descr", "fortran_order", "shape"}:
        raise _bad(name, f"{where} has an unreadable .npy header (not a dict of descr, "
                         "fortran_order and shape)")
    shape = fields["shape"]
    if (type(fields["fortran_order"]) is not bool or type(shape) is not tuple
            or not all(type(n) is int for n in shape)):
        raise _bad(name, f"{where} has an unreadable .npy header (its fortran_order is not a "
                         "bool, or its shape not a tuple of ints)")
    return fields["descr"], fields["fortran_order"], shape


def _read_values(member, count, dtype, where, name):
    """Read exactly ``count`` values into a new array, a chunk at a time."""
    flat = np.empty(count, dtype=dtype)
    target = memoryview(flat.view(np.uint8))
    done = 0
    while done < len(target):
        chunk = member.read(min(len(target) - done, _READ_CHUNK))
        if not chunk:
            raise _bad(name, f"{where} ends before its values do")
        target[done:done + len(chunk)] = chunk
        done += len(chunk)
    return flat


# ----- building the object ----------------------------------------------------------------
class _Builder:
    """Builds the saved object from a checked manifest and the tensors' values."""

    def __init__(self, specs, arrays, storages=()):
        self.specs = specs
        self.arrays = arrays
        self.storages = storages
        self.tensors = {}

    def build(self, node):
        if type(node) is not dict:
            return node
        if "float" in node:
            return float(node["float"])
        if "list" in node:
            return [self.build(item) for item in node["list"]]
        if "tuple" in node:
            return tuple(self.build(item) for item in node["tuple"])
        if "dict" in node:
            return self._build_dict(node)
        if "size" in node:
            return Size(node["size"])
        if "dtype_name" in node:
            return _DTYPE_OBJECTS[node["dtype_name"]]
        return self._tensor(node["tensor"])

    def _build_dict(self, node):
        result = OrderedDict() if node["ordered"] else {}
        for key, value in node["dict"]:
            result[self.build(key)] = self.build(value)
        if "metadata" in node:
            result._metadata = self.build(node["metadata"])
        return result

    def _tensor(self, number):
        if number not in self.tensors:
            spec = self.specs[number]
            tensor = Tensor._wrap(self._values(number, spec))
            if spec.parameter:
                from .nn.parameter import Parameter
                tensor = Parameter(tensor, requires_grad=spec.requires_grad)
            elif spec.requires_grad:
                tensor.requires_grad_(True)
            self.tensors[number] = tensor
        return self.tensors[number]

    def _values(self, number, spec):
        """The tensor's own array, or its place in a storage (checked to lie inside it)."""
        if spec.view is None:
            return self.arrays[number]
        storage, offset, strides = spec.view
        base = self.storages[storage]
        item = base.dtype.itemsize
        if 0 in spec.shape:
            return np.empty(spec.shape, dtype=base.dtype)
        return np.lib.stride_tricks.as_strided(base[offset:], shape=spec.shape,
                                               strides=[st * item for st in strides])

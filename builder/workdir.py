"""The work directory of one build: tier arrays spilled to disk and the manifest that lets an
interrupted build resume from its last finished tier. It lives next to the database and is
removed when the build ends, whether it succeeded or failed (an interrupted one is kept)."""
from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeAlias, overload

import numpy as np

from tablebase.builder.manifest import Manifest
from tablebase.db.engine import database_file

# Every array kind has one dtype; files are raw little-endian arrays named KIND_PLY.bin.
DTYPES: dict[str, np.dtype[Any]] = {"codes": np.dtype("<i8"), "term": np.dtype("i1"),
                                    "scores": np.dtype("i1")}
# A tier's array: in memory, or read from its file (or part files) piece by piece.
TierArray: TypeAlias = "np.ndarray | DiskArray | JoinedArray"


def work_path(database: str, spec_name: str, under: str | None = None) -> Path:
    """Where the work directory of building `spec_name` into `database` goes: next to the
    database, or inside `under` (a directory every worker of a cluster shares) when given."""
    slug = re.sub(r"[^A-Za-z0-9_.-]", "_", spec_name)
    if under is not None:
        return Path(under).resolve() / f"tablebase.{slug}.work"
    file = database_file(database)
    if file is None:  # a server's database, or one in memory
        return Path.cwd() / f".tablebase.{slug}.work"
    db = Path(file).resolve()
    return db.parent / f".{db.name}.{slug}.work"


# Arrays up to this size are kept in memory once written, so that reading them back opens no
# file (a small build's cost was mostly opening files, about 0.3 ms each here); with `defer`,
# they reach the disk only at the next checkpoint, so a build of a second or less writes none.
_KEEP_BYTES = 1 << 22
# The manifest is a checkpoint: rewritten at most this often, and whenever `save_manifest`
# is told to (the start, interruptions). A crash loses at most this much finished work.
_CHECKPOINT_SECONDS = 1.0


class WorkDir:
    """Tier arrays and the resume manifest of one build."""

    def __init__(self, path: Path, *, defer: bool = False) -> None:
        self.path = path
        self.manifest = Manifest()
        # With defer, small arrays wait in memory for the next checkpoint (only this process
        # reads them: a cluster's workers read the files, so its builds do not defer).
        self.defer = defer
        self._kept: dict[str, np.ndarray] = {}
        self._pending: set[str] = set()
        self._saved_at = 0.0

    def exists(self) -> bool:
        """Whether a previous build left this directory behind."""
        return (self.path / "manifest.json").exists()

    def start(self, manifest: Manifest) -> None:
        """Start afresh: remove whatever is there and write `manifest`, the new one."""
        self.remove()
        self.path.mkdir(parents=True)
        self.manifest = manifest
        self.save_manifest()

    def load_manifest(self) -> Manifest:
        """Read the manifest a previous build left (ValueError if it is not one)."""
        with open(self.path / "manifest.json", encoding="utf-8") as f:
            self.manifest = Manifest.from_json(json.load(f))
        return self.manifest

    def save_manifest(self, *, now: bool = True) -> None:
        """Write the manifest atomically: a reader sees the old one or the new one, never half.
        With `now` false, only if the last write is over a second old (a checkpoint).

        Nothing is fsynced: after a power loss the manifest may be older than the files or the
        files older than the manifest, and `intact` (checked before resuming) tells.
        """
        if not now and time.monotonic() - self._saved_at < _CHECKPOINT_SECONDS:
            return
        self._saved_at = time.monotonic()
        for name in sorted(self._pending):  # the files first: the manifest lists only those
            data = self._kept[name]
            tmp = self.path / f"{name}.tmp"
            data.tofile(tmp)
            os.replace(tmp, self.path / name)
            self._record(name, zlib.crc32(data.data), data.nbytes)
        self._pending.clear()
        tmp = self.path / "manifest.json.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            # dumps with no indent: the C encoder, much faster
            f.write(json.dumps(self.manifest.to_json()))
        os.replace(tmp, self.path / "manifest.json")

    def _record(self, name: str, crc: int, size: int) -> None:
        self.manifest.files[name] = (crc, size)

    def intact(self) -> bool:
        """Whether every array the manifest lists is on disk with the size and CRC-32 recorded."""
        for name, (crc, size) in self.manifest.files.items():
            path = self.path / name
            try:
                if path.stat().st_size != size:
                    return False
                found = 0
                with open(path, "rb") as f:
                    while block := f.read(1 << 24):
                        found = zlib.crc32(block, found)
            except OSError:
                return False
            if found != crc:
                return False
        return True

    def remove(self) -> None:
        """Delete the directory and everything in it."""
        self._kept.clear()
        self._pending.clear()
        shutil.rmtree(self.path, ignore_errors=True)

    def _keep(self, name: str, data: np.ndarray, *, on_disk: bool = True,
              owned: bool = False) -> None:
        """Keep a small array (a copy, unless `owned`: nobody else holds it)."""
        if data.nbytes <= _KEEP_BYTES:
            kept = data if owned else data.copy()
            kept.setflags(write=False)
            self._kept[name] = kept
            if not on_disk:
                self._pending.add(name)

    # --- arrays --------------------------------------------------------------

    def _file(self, kind: str, ply: int) -> Path:
        return self.path / f"{kind}_{ply}.bin"

    def put(self, kind: str, ply: int, array: np.ndarray) -> None:
        """Store one tier's array of `kind`, atomically."""
        tmp = self.path / f"{kind}_{ply}.tmp"
        data = np.ascontiguousarray(array, dtype=DTYPES[kind])
        if self.defer and data.nbytes <= _KEEP_BYTES:
            self._keep(self._file(kind, ply).name, data, on_disk=False)
            return
        data.tofile(tmp)
        os.replace(tmp, self._file(kind, ply))
        self._record(self._file(kind, ply).name, zlib.crc32(data.data), data.nbytes)
        self._keep(self._file(kind, ply).name, data)

    def writer(self, kind: str, ply: int) -> ArrayWriter:
        """A writer that appends chunks of one tier's array, made visible on close."""
        return ArrayWriter(self.path / f"{kind}_{ply}.tmp", self._file(kind, ply), DTYPES[kind],
                           self._record, self._keep, defer=self.defer)

    def add_parts(self, kind: str, ply: int, written: list[tuple[str, int, int]]) -> None:
        """Record one tier's array of `kind` as the part files (name, CRC-32, size) that a
        cluster's workers wrote, one per code range in code order (see `write_part`)."""
        for name, crc, size in written:
            self._record(name, crc, size)
        self.manifest.parts[f"{kind}_{ply}"] = len(written)

    def parts(self, kind: str, ply: int) -> int:
        """How many part files hold one tier's array (0: it is one file)."""
        return int(self.manifest.parts.get(f"{kind}_{ply}", 0))

    @overload
    def get(self, kind: str, ply: int, *, in_memory: Literal[True] = ...) -> np.ndarray: ...

    @overload
    def get(self, kind: str, ply: int, *, in_memory: bool) -> TierArray: ...

    def get(self, kind: str, ply: int, *, in_memory: bool = True) -> TierArray:
        """One tier's array of `kind`: read into memory, or read piece by piece from disk."""
        path, dtype = self._file(kind, ply), DTYPES[kind]
        if path.name in self._kept:
            return self._kept[path.name]
        parts = self.parts(kind, ply)
        if parts:
            return read_parts(self.path, kind, ply, parts, in_memory=in_memory)
        if in_memory or path.stat().st_size == 0:
            return np.fromfile(path, dtype=dtype)
        return DiskArray(path, dtype)

    def nbytes(self, kind: str, ply: int) -> int:
        """The size of one stored array, in bytes."""
        kept = self._kept.get(self._file(kind, ply).name)
        if kept is not None:
            return kept.nbytes
        parts = self.parts(kind, ply)
        if parts:
            return sum(part_path(self.path, kind, ply, i).stat().st_size for i in range(parts))
        return self._file(kind, ply).stat().st_size

    def delete(self, kind: str, ply: int) -> None:
        """Remove one stored array (it is no longer needed)."""
        self._kept.pop(self._file(kind, ply).name, None)
        self._pending.discard(self._file(kind, ply).name)
        self._file(kind, ply).unlink(missing_ok=True)
        for index in range(self.manifest.parts.pop(f"{kind}_{ply}", 0)):
            part_path(self.path, kind, ply, index).unlink(missing_ok=True)

    def scratch(self, name: str) -> Path:
        """A path for a temporary file inside the work directory."""
        return self.path / name


def part_path(path: Path, kind: str, ply: int, index: int) -> Path:
    """Where part `index` (a code range) of one tier's array of `kind` goes."""
    return path / f"{kind}_{ply}.part{index}.bin"


def private_tmp(final: Path) -> Path:
    """A temporary name for `final` that no other process or thread writing it uses (two runs
    of one cluster task may write the same file at once)."""
    return final.with_name(f"{final.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def write_part(path: Path, kind: str, ply: int, index: int, array: np.ndarray
               ) -> tuple[str, int, int]:
    """Write one part file atomically (a worker rerun after a lost worker writes the same
    bytes again); return its name, CRC-32 and size for the manifest (`WorkDir.add_parts`)."""
    final = part_path(path, kind, ply, index)
    data = np.ascontiguousarray(array, dtype=DTYPES[kind])
    tmp = private_tmp(final)
    data.tofile(tmp)
    os.replace(tmp, final)
    return final.name, zlib.crc32(data.data), data.nbytes


@overload
def read_parts(path: Path, kind: str, ply: int, parts: int, *,
               in_memory: Literal[True] = ...) -> np.ndarray: ...


@overload
def read_parts(path: Path, kind: str, ply: int, parts: int, *,
               in_memory: bool) -> np.ndarray | JoinedArray: ...


def read_parts(path: Path, kind: str, ply: int, parts: int, *, in_memory: bool = True
               ) -> np.ndarray | JoinedArray:
    """One tier's array of `kind` from its `parts` part files, joined in order."""
    files = [part_path(path, kind, ply, i) for i in range(parts)]
    if in_memory:
        return np.concatenate([np.fromfile(f, dtype=DTYPES[kind]) for f in files])
    return JoinedArray([DiskArray(f, DTYPES[kind]) for f in files])


class ArrayWriter:
    """Appends chunks to a raw array file; the file takes its final name only on `close`.
    A small array is also handed to `keep`; with `defer`, it is only handed over (and the
    work directory writes it at its next checkpoint) unless it outgrows the kept size."""

    def __init__(self, tmp: Path, final: Path, dtype: np.dtype,
                 record: Callable[[str, int, int], None],
                 keep: Callable[..., None] | None = None, *, defer: bool = False) -> None:
        self._tmp, self._final, self._dtype, self._record = tmp, final, dtype, record
        self._keep = keep
        self._chunks: list[np.ndarray] | None = [] if keep is not None else None
        self._file = None if defer and keep is not None else open(tmp, "wb")
        self._crc = 0
        self.count = 0

    def append(self, chunk: np.ndarray) -> None:
        """Append a chunk of values."""
        data = np.ascontiguousarray(chunk, dtype=self._dtype)
        self.count += len(data)
        if self._chunks is not None:
            if self.count * self._dtype.itemsize <= _KEEP_BYTES:
                self._chunks.append(data.copy())
                if self._file is None:
                    return
            else:
                if self._file is None:  # too big to defer: the file after all
                    self._file = open(self._tmp, "wb")
                    for early in self._chunks:
                        early.tofile(self._file)
                        self._crc = zlib.crc32(early.data, self._crc)
                self._chunks = None
        assert self._file is not None  # opened above once the chunks outgrew the kept size
        data.tofile(self._file)
        self._crc = zlib.crc32(data.data, self._crc)

    def close(self) -> None:
        """Finish the file, give it its final name and record its CRC-32 for `intact`."""
        kept = None
        if self._chunks is not None:
            kept = np.concatenate(self._chunks) if self._chunks else np.empty(0, self._dtype)
        if self._file is None:
            assert self._keep is not None and kept is not None
            self._keep(self._final.name, kept, on_disk=False, owned=True)
            return
        self._file.close()
        os.replace(self._tmp, self._final)
        self._record(self._final.name, self._crc, self.count * self._dtype.itemsize)
        if self._keep is not None and kept is not None:
            self._keep(self._final.name, kept, owned=True)


class DiskArray:
    """A read-only array in a raw file, read piece by piece with pread.

    Unlike a memory map, the pages it has read do not stay in the process's resident set,
    so streaming through tiers larger than the memory budget stays within it.
    """

    def __init__(self, path: Path, dtype: np.dtype) -> None:
        self.dtype = np.dtype(dtype)
        self._fd = os.open(path, os.O_RDONLY)
        self._len = os.fstat(self._fd).st_size // self.dtype.itemsize
        self._base = 0  # the file's first row that is this array's row 0 (see `narrow`)

    def __len__(self) -> int:
        return self._len

    def _read(self, start: int, stop: int) -> np.ndarray:
        count = max(0, stop - start)
        data = os.pread(self._fd, count * self.dtype.itemsize,
                        (self._base + start) * self.dtype.itemsize)
        return np.frombuffer(data, dtype=self.dtype)

    def __getitem__(self, key: int | slice | np.ndarray) -> np.ndarray | np.generic:
        if isinstance(key, slice):
            start, stop, step = key.indices(self._len)
            if step != 1:
                raise IndexError("a DiskArray reads contiguous slices only")
            return self._read(start, stop)
        if isinstance(key, (int, np.integer)):
            i = int(key) + (self._len if int(key) < 0 else 0)
            if not 0 <= i < self._len:
                raise IndexError(f"index {int(key)} out of range for length {self._len}")
            return self._read(i, i + 1)[0]
        index = np.asarray(key)
        if index.size == 0:
            return np.empty(0, dtype=self.dtype)
        low = int(index.min())
        # Indexes come in ascending chunks: read the span they cover, then pick.
        return self._read(low, int(index.max()) + 1)[index - low]

    def rank(self, value: int | None, past: int) -> int:
        """How many values of this ascending array are below `value` (None: `past`), found by
        bisection (a few reads)."""
        # Its rows are numpy integers, which the stubs do not count as comparable with an int.
        return past if value is None else bisect.bisect_left(self, value)  # type: ignore[type-var]

    def narrow(self, low: int | None, high: int | None) -> DiskArray:
        """Keep only the values in [low, high) (None: unbounded) of this ascending array;
        return the array."""
        start, stop = self.rank(low, 0), self.rank(high, self._len)
        self._base, self._len = self._base + start, max(0, stop - start)
        return self

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        whole = self._read(0, self._len)
        return whole if dtype is None else whole.astype(dtype)

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()


class JoinedArray:
    """Part files read as one array (contiguous slices and single items), like a DiskArray."""

    def __init__(self, parts: list[DiskArray]) -> None:
        self._parts = parts
        self._starts = np.cumsum([0] + [len(p) for p in parts])
        self.dtype = parts[0].dtype if parts else np.dtype(np.int64)

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __getitem__(self, key: int | slice | np.ndarray) -> np.ndarray | np.generic:
        if isinstance(key, np.ndarray):  # rows in ascending chunks, as DiskArray takes them
            if key.size == 0:
                return np.empty(0, dtype=self.dtype)
            low = int(key.min())
            return np.asarray(self[low : int(key.max()) + 1])[key - low]
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step != 1:
                raise IndexError("a JoinedArray reads contiguous slices only")
            pieces = []
            for part, first in zip(self._parts, self._starts[:-1]):
                a, b = max(start - first, 0), min(stop - first, len(part))
                if a < b:
                    pieces.append(np.asarray(part[int(a) : int(b)]))
            return np.concatenate(pieces) if pieces else np.empty(0, dtype=self.dtype)
        i = int(key) + (len(self) if int(key) < 0 else 0)
        if not 0 <= i < len(self):
            raise IndexError(f"index {int(key)} out of range for length {len(self)}")
        at = int(np.searchsorted(self._starts, i, side="right")) - 1
        return self._parts[at][i - int(self._starts[at])]

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        whole = np.asarray(self[0 : len(self)])
        return whole if dtype is None else whole.astype(dtype)

    def close(self) -> None:
        """Close every part's file."""
        for part in self._parts:
            part.close()

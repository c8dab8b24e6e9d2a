"""Where builder/ranked.py keeps a tier while it solves it: each position's count, score and exit
state (int16 each), whole in memory, or, where a tier is past the room the memory budget
leaves, in files beside the tier folder and in memory a slice at a time (out of core).

A round of the solve tells the parents of its decided positions; out of core those parents
are first sorted into buckets by the slice they fall in (in memory up to a cap, the rest
appended to a file a slice) and each slice is then told once. The files are mapped and a
slice's pages are unmapped once it is told: what the process holds is a slice and the
buckets' memory, whatever the tier's size; the rest is the page cache's, which the kernel
writes back and reclaims as it needs.
"""
from __future__ import annotations

import ctypes
import mmap
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from tablebase.compiled import njit

# What a tier holds a position while it is solved: its count, score and exit state.
BYTES_A_POSITION = 6
# Out of core: the share of the room the buckets of a round hold in memory before they go to
# their files, and the fewest positions a slice (below, the build is refused: it would be all
# file traffic).
BUCKET_SHARE = 8
LEAST_SLICE = 1 << 22
# The told parents of a round wait in files up to 4 bytes each and this many bytes a position
# of the tier: a round that tells more (a morris tier's first rounds tell some 18 parents a
# position) tells them in several passes over the slices.
FILE_BYTES_A_POSITION = 8
# A slice's told parents are uint32s within it (index * 2 + 1 where lost).
LARGEST_SLICE = (1 << 31) - 1


def slices_for(size: int, room: int | None) -> int:
    """How many slices a tier of `size` positions is solved in, given `room` bytes for its
    working arrays (None: no limit): 1 is whole in memory."""
    if room is None or size * BYTES_A_POSITION <= room:
        return 1
    per_slice = max(room - room // BUCKET_SHARE, 1) // BYTES_A_POSITION
    return -(-size // max(per_slice, 1))


def least_room(size: int) -> int:
    """The fewest bytes of room a tier of `size` positions is solved in (out of core, its
    slices as small as the build allows)."""
    need = min(size, LEAST_SLICE) * BYTES_A_POSITION
    return need + need // (BUCKET_SHARE - 1)


class TierWork:
    """The working arrays of a tier of `size` positions: in `slices` slices of equal length
    (the last shorter), each a (lo, counts, scores, exits) view while it is held. One slice is
    kept in memory for good; more are mapped from files in `spill` (which the caller removes)
    and a slice's pages are let go once its block ends: what the process holds of them is
    the slice in use, the rest is the page cache's (written back as the kernel sees fit)."""

    def __init__(self, name: str, size: int, slices: int, spill: Path | None) -> None:
        self.size = size
        self.step = min(-(-max(size, 1) // slices), LARGEST_SLICE) if slices > 1 else size
        self.slices = -(-size // self.step) if slices > 1 and size else 1
        self.edges = [min(s * self.step, size) for s in range(self.slices + 1)]
        self.bucket_cap = self.step * BYTES_A_POSITION // (BUCKET_SHARE - 1)
        if self.slices == 1:
            self._arrays = tuple(np.empty(size, dtype=np.int16) for _ in range(3))
            return
        if spill is None:
            raise ValueError(f"tier {name}: out of core needs a folder for its files")
        spill.mkdir(parents=True, exist_ok=True)
        # The scores are a .npy file of their own (the solved tier, as np.save writes it).
        self.scores_path = spill / f"{name}.scores.npy"
        np.lib.format.open_memmap(self.scores_path, mode="w+", dtype=np.int16,
                                  shape=(size,)).flush()
        with open(self.scores_path, "rb") as f:
            np.lib.format.read_magic(f)
            np.lib.format.read_array_header_1_0(f)
            header = f.tell()
        rest = spill / f"{name}.work"
        with open(rest, "wb") as f:
            f.truncate(4 * size)
        self._maps = [_mapped(self.scores_path), _mapped(rest)]
        scores = np.frombuffer(self._maps[0], dtype=np.int16, count=size, offset=header)
        counts, exits = np.frombuffer(self._maps[1], dtype=np.int16).reshape(2, size)
        self._arrays = (counts, scores, exits)
        self.buckets = Buckets(self, spill / f"{name}.bucket")

    @contextmanager
    def slice(self, s: int, dense: bool = True
              ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """Slice s as (its first index, counts, scores, exits); out of core, read ahead
        whole where the block touches much of it (`dense`: a few pages touched are read
        alone), and its pages let go after the block."""
        lo, hi = self.edges[s], self.edges[s + 1]
        counts, scores, exits = views = tuple(a[lo:hi] for a in self._arrays)
        if self.slices > 1:
            # Dense: read the slice ahead whole; sparse: fault in the pages touched alone (a
            # fault's readahead would read some 32 pages for each).
            for view in views:
                _advise(view, 0 if dense else getattr(mmap, "MADV_RANDOM", 0))  # 0: normal
                if dense:
                    _advise(view, getattr(mmap, "MADV_WILLNEED", 0))
        try:
            yield lo, counts, scores, exits
        finally:
            if self.slices > 1:
                for view in views:
                    let_go(view)

    def scores(self) -> np.ndarray:
        """Every score of the tier (out of core: mapped from its file, read only)."""
        if self.slices == 1:
            return self._arrays[1]
        self._arrays = ()
        for mapped in self._maps:
            mapped.flush()
        self._maps = []
        return np.load(self.scores_path, mmap_mode="r")


def _mapped(path: Path) -> mmap.mmap:
    with open(path, "r+b") as f:
        return mmap.mmap(f.fileno(), 0)


_PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True) if hasattr(mmap, "MADV_DONTNEED") else None


def let_go(view: np.ndarray) -> None:
    """Unmap the whole pages of `view` from this process, which must be a view of a shared
    file mapping (its data stays in the page cache and the file; of memory of the process's
    own, it would be lost): they leave the process's resident set until read again."""
    _advise(view, getattr(mmap, "MADV_DONTNEED", 0))


def _advise(view: np.ndarray, advice: int) -> None:
    """madvise the whole pages of a view of a mapping (nothing where there is no madvise)."""
    if _libc is None or view.nbytes == 0:
        return
    start = -(-view.ctypes.data // _PAGE) * _PAGE
    end = (view.ctypes.data + view.nbytes) // _PAGE * _PAGE
    if end > start:
        _libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), advice)


class Buckets:
    """The told parents of a round by the slice they fall in, each a uint32 within its slice
    (index * 2 + 1 where the child told is lost): in memory up to the work's cap, then
    appended to a file a slice; `full` once the files hold FILE_BYTES_A_POSITION a position of
    the tier (the round then tells what it has and goes on: a pass over the slices more)."""

    def __init__(self, work: TierWork, stem: Path) -> None:
        self.work = work
        self.stem = stem
        self.held: list[list[np.ndarray]] = [[] for _ in range(work.slices)]
        self.held_bytes = 0
        self.spilled = [0] * work.slices
        self.file_cap = FILE_BYTES_A_POSITION * work.size

    def add(self, order: np.ndarray, starts: np.ndarray) -> None:
        """Put told parents into their slices' buckets: `order` as `by_slice` sorts them,
        slice s's from starts[s] to starts[s + 1]."""
        for s in range(self.work.slices):
            if starts[s] < starts[s + 1]:
                self.held[s].append(order[starts[s]:starts[s + 1]])
        self.held_bytes += order.nbytes
        if self.held_bytes > self.work.bucket_cap:
            for s in range(self.work.slices):
                if self.held[s]:
                    with open(self._path(s), "ab") as f:
                        for part in self.held[s]:
                            part.tofile(f)
                            self.spilled[s] += len(part)
                    self.held[s] = []
            self.held_bytes = 0

    def full(self) -> bool:
        """Whether the files hold as many told parents as they may."""
        return 4 * sum(self.spilled) >= self.file_cap

    def count(self, s: int) -> int:
        """How many told parents wait for slice s."""
        return self.spilled[s] + sum(len(part) for part in self.held[s])

    def take(self, s: int, piece: int) -> Iterator[np.ndarray]:
        """Slice s's told parents, at most `piece` at a time; then its bucket is empty."""
        if self.spilled[s]:
            with open(self._path(s), "rb") as f:
                for _ in range(0, self.spilled[s], piece):
                    yield np.fromfile(f, dtype=np.uint32, count=piece)
            self._path(s).unlink()
            self.spilled[s] = 0
        parts, self.held[s] = self.held[s], []
        self.held_bytes -= sum(p.nbytes for p in parts)
        yield from parts

    def _path(self, s: int) -> Path:
        return self.stem.with_name(f"{self.stem.name}{s}")


def remove_spill(spill: Path) -> None:
    """Remove a tier's out-of-core files (a build killed mid-tier leaves some)."""
    shutil.rmtree(spill, ignore_errors=True)


@njit(cache=True, nogil=True)
def by_slice(told, step, slices):  # type: ignore[no-untyped-def]
    """`told` (int64s, index * 2 + 1 where lost) ordered by the slice its parents fall in
    (index // step), each a uint32 within its slice, and where each slice's run starts (a
    counting sort)."""
    starts = np.zeros(slices + 1, dtype=np.int64)
    for t in range(told.shape[0]):
        starts[min((told[t] >> 1) // step, slices - 1) + 1] += 1
    for s in range(slices):
        starts[s + 1] += starts[s]
    at = starts[:-1].copy()
    out = np.empty(told.shape[0], dtype=np.uint32)
    for t in range(told.shape[0]):
        s = min((told[t] >> 1) // step, slices - 1)
        out[at[s]] = told[t] - 2 * s * step
        at[s] += 1
    return out, starts

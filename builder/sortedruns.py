"""Sorted runs of codes: deduplicating more codes than fit in memory, and merging sorted
arrays (in memory or mapped from disk) chunk by chunk in code order."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablebase.builder.threads import split_rows
from tablebase.builder.workdir import DiskArray
from tablebase.compiled import njit


def sorted_unique(codes: np.ndarray, runs: bool = False) -> np.ndarray:
    """The distinct values of `codes`, sorted (sorts `codes` in place); `runs`: `codes` is a
    few sorted runs end to end, which a stable sort (timsort) merges in linear time."""
    # np.unique hashes in numpy 2.x, which is several times slower than sorting int64 here.
    codes.sort(kind="stable" if runs else None)
    keep = np.empty(len(codes), dtype=bool)
    keep[:1] = True
    np.not_equal(codes[1:], codes[:-1], out=keep[1:])
    return codes[keep]


def merge_cuts(runs: Sequence[Any], chunk: int) -> Iterator[list[slice]]:
    """Split sorted runs into consecutive value ranges, one slice per run, at most `chunk`
    elements from each run per range; every value of a range is below every value of the next."""
    pos = [0] * len(runs)
    while True:
        live = [i for i, run in enumerate(runs) if pos[i] < len(run)]
        if not live:
            return
        # The cut is the smallest of the runs' chunk-th next values: no run gives more than
        # `chunk` values up to it, and the run that holds it gives exactly that many.
        cut = min(runs[i][min(pos[i] + chunk, len(runs[i])) - 1] for i in live)
        slices = []
        for i, run in enumerate(runs):
            window = run[pos[i] : pos[i] + chunk]
            end = pos[i] + int(np.searchsorted(window, cut, side="right"))
            slices.append(slice(pos[i], end))
            pos[i] = end
        yield slices


def merge_unique(runs: Sequence[Any], chunk: int) -> Iterator[np.ndarray]:
    """The sorted distinct values of sorted runs (each without duplicates), in ascending chunks."""
    for slices in merge_cuts(runs, chunk):
        parts = [np.asarray(run[s]) for run, s in zip(runs, slices) if s.stop > s.start]
        if len(parts) == 1:  # one run alone in this range: sorted and distinct already
            yield parts[0]
        elif parts:
            yield sorted_unique(np.concatenate(parts), runs=True)


@njit(cache=True, nogil=True)
def _squeeze(codes: np.ndarray) -> int:
    """Move the distinct values of sorted `codes` to its front, in order; return how many."""
    n = min(codes.shape[0], 1)
    for i in range(1, codes.shape[0]):
        if codes[i] != codes[n - 1]:
            codes[n] = codes[i]
            n += 1
    return n


def _sort_squeeze(codes: np.ndarray) -> int:
    """Sort `codes` in place and move its distinct values to its front; return how many."""
    codes.sort()
    return _squeeze(codes)


class UniqueCollector:
    """Collects codes in batches and yields them back sorted and distinct, within a memory bound.

    One buffer, kept for the collector's life (fresh pages for every batch, or a copy of every
    run, cost a fault a page): the runs lie end to end at its front, and a batch is written
    after them (in place by `room` and `commit`, or copied in by `add`). Once `buffer_items`
    wait, each core sorts and deduplicates a part of the batch in place, into a run, and the
    runs are moved down to close the gaps the duplicates left; runs are written to disk once
    they hold more than `memory_items` codes; the result is a k-way merge.
    """

    def __init__(self, buffer_items: int, memory_items: int, scratch: Callable[[str], Path]) -> None:
        self.buffer_items = max(1, buffer_items)
        self.memory_items = max(1, memory_items)
        self._scratch = scratch
        self._space = np.empty(0, dtype=np.int64)
        self._base = 0  # where the runs in the buffer end and the batch begins
        self._buffered = 0
        self._runs: list[np.ndarray] = []
        self._in_memory = 0
        self._files: list[Path] = []
        self.spilled = 0  # runs written to disk, for reports and tests

    def room(self, items: int) -> np.ndarray:
        """A view of the buffer's next `items` free places: write codes there, then `commit`."""
        if self._buffered + items > self.buffer_items:
            self._flush()
        end = self._base + self._buffered + items
        if end > len(self._space):
            # np.empty: untouched pages cost nothing, so room for every run in memory at once.
            # The runs so far stay where they are (views keep the old buffer) and the batch
            # moves to the new one.
            grown = np.empty(max(self.memory_items + 2 * self.buffer_items, self._buffered + items),
                             dtype=np.int64)
            grown[: self._buffered] = self._space[self._base : self._base + self._buffered]
            self._space, self._base = grown, 0
        start = self._base + self._buffered
        return self._space[start : start + items]

    def commit(self, items: int) -> None:
        """Count the first `items` places of the last `room` as written."""
        self._buffered += items

    def add(self, codes: np.ndarray) -> None:
        """Add a batch of codes (duplicates welcome)."""
        self.room(len(codes))[:] = codes
        self.commit(len(codes))

    def _flush(self) -> None:
        if not self._buffered:
            return
        base = self._base
        codes = self._space[base : base + self._buffered]
        self._buffered = 0
        # A run per core, sorted in place at once (numpy's sort releases the GIL), each then
        # moved down next to the run before it; the merge joins them.
        for start, n in split_rows(len(codes), lambda _, a, b: (a, _sort_squeeze(codes[a:b]))):
            run = self._space[self._base : self._base + n]
            if start + base != self._base:
                run[:] = codes[start : start + n]  # moving down: numpy copies overlaps safely
            self._runs.append(run)
            self._base += n
            self._in_memory += n
        if self._in_memory > self.memory_items:
            self._spill()

    def _spill(self) -> None:
        merged = np.concatenate(list(merge_unique(self._runs, self.buffer_items)) or
                                [np.empty(0, np.int64)]) if len(self._runs) > 1 else self._runs[0]
        path = self._scratch(f"run_{len(self._files)}.bin")
        merged.astype(np.int64).tofile(path)
        self._files.append(path)
        self._runs, self._in_memory, self._base = [], 0, 0
        self.spilled += 1

    def chunks(self, chunk: int) -> Iterator[np.ndarray]:
        """The sorted distinct codes of everything added, in ascending chunks."""
        self._flush()
        runs = list(self._runs) + [DiskArray(p, np.dtype(np.int64)) for p in self._files]
        try:
            if len(runs) == 1:
                for start in range(0, len(runs[0]), chunk):
                    yield np.asarray(runs[0][start : start + chunk])
            else:
                yield from merge_unique(runs, chunk)
        finally:
            del runs
            for path in self._files:
                path.unlink(missing_ok=True)
            self._files, self._runs, self._base, self._in_memory = [], [], 0, 0

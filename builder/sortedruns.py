"""Sorted runs of codes: deduplicating more codes than fit in memory, and merging sorted
arrays (in memory or mapped from disk) chunk by chunk in code order."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablebase.builder.threads import split_rows
from tablebase.builder.workdir import DiskArray


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


class UniqueCollector:
    """Collects codes in batches and yields them back sorted and distinct, within a memory bound.

    Batches are sorted and deduplicated into runs once `buffer_items` codes wait; runs are
    written to disk once they hold more than `memory_items` codes; the result is a k-way merge.
    """

    def __init__(self, buffer_items: int, memory_items: int, scratch: Callable[[str], Path]) -> None:
        self.buffer_items = max(1, buffer_items)
        self.memory_items = max(1, memory_items)
        self._scratch = scratch
        self._buffer: list[np.ndarray] = []
        self._buffered = 0
        self._runs: list[np.ndarray] = []
        self._in_memory = 0
        self._files: list[Path] = []
        self.spilled = 0  # runs written to disk, for reports and tests

    def add(self, codes: np.ndarray) -> None:
        """Add a batch of codes (duplicates welcome)."""
        self._buffer.append(codes)
        self._buffered += len(codes)
        if self._buffered >= self.buffer_items:
            self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        codes = np.concatenate(self._buffer)
        self._buffer, self._buffered = [], 0
        # A run per core, sorted at once (numpy's sort releases the GIL); the merge joins them.
        for run in split_rows(len(codes), lambda _, a, b: sorted_unique(codes[a:b])):
            self._runs.append(run)
            self._in_memory += len(run)
        if self._in_memory > self.memory_items:
            self._spill()

    def _spill(self) -> None:
        merged = np.concatenate(list(merge_unique(self._runs, self.buffer_items)) or
                                [np.empty(0, np.int64)]) if len(self._runs) > 1 else self._runs[0]
        path = self._scratch(f"run_{len(self._files)}.bin")
        merged.astype(np.int64).tofile(path)
        self._files.append(path)
        self._runs, self._in_memory = [], 0
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
            self._files, self._runs = [], []

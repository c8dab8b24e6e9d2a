"""The runs of the bitboard search (gravity.solve on bitboard_arrays.py's arrays) under a budget: a
first bounded run in the caller's thread, then threads sharing the table stopped at the budget,
or many boards in one compiled call; each gives the kernel's out[] and the nodes it took.
searcher.py turns them into Solutions."""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tablebase.query.search import gravity
from tablebase.query.search.bitboard_arrays import Bitboards

# A solve first runs this many nodes in the caller's thread, where a timed budget has more than
# INLINE_SECONDS left: most positions end there, without starting a thread. A batch gives each
# board as many in its one compiled call.
INLINE_NODES, INLINE_SECONDS = 1 << 14, 0.05
# How often a timed search looks at the clock (and the progress line is redrawn).
_POLL = 0.05

Run = tuple[list[int], int, int]  # out[] of the kernel, the nodes and table hits it took


def idle_cores() -> int:
    """Cores of this process's set that nothing else is running on now (Linux: the runnable
    tasks of /proc/loadavg, the least of a few looks, less this thread; elsewhere: all but
    one). A helper thread on a busy core would only take turns with the search it helps."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        runnable = min(int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])
                       for _ in range(3))
    except (OSError, ValueError, IndexError):
        return cores - 1
    return max(0, cores - runnable)


class Watch(NamedTuple):  # a tuple: made at every solve, in a microsecond less than a dataclass
    """What stops a run: a deadline (time.monotonic()), a cancel flag; and who hears of its
    progress (nodes, table hits so far)."""

    deadline: float | None = None
    cancel: threading.Event | None = None
    progress: Callable[[int, int], None] | None = None

    def stopped(self) -> bool:
        """Whether the time is up or the run was cancelled."""
        return ((self.deadline is not None and time.monotonic() >= self.deadline)
                or (self.cancel is not None and self.cancel.is_set()))

    @property
    def idle(self) -> bool:
        """Nothing to watch: no deadline, flag or progress."""
        return self.deadline is None and self.cancel is None and self.progress is None

    def roomy(self) -> bool:
        """Whether a first bounded run fits the time left (more than INLINE_SECONDS)."""
        return self.deadline is None or self.deadline - time.monotonic() > INLINE_SECONDS


def cells_of(board: Sequence[int]) -> np.ndarray:
    """A board's cell values as uint8 (a tuple the fast way)."""
    if isinstance(board, tuple):
        # Writable, as a batch's cells are: a read-only array would compile the search again.
        return np.frombuffer(bytearray(board), dtype=np.uint8)
    return np.asarray(board, dtype=np.uint8)


def run(bits: Bitboards, cells: np.ndarray, nodes: int | None, watch: Watch,
        inline: bool = True) -> Run:
    """Solve one board within `nodes` (None: no limit) under `watch`: first INLINE_NODES in this
    thread (with `inline`, where the time allows), then on the idle cores."""
    ctl, base = bits.ctl, bits.total
    ctl[gravity.LIMIT] = limit = (1 << 62) if nodes is None else base + nodes
    if watch.stopped():  # a finished game or a win at once, else at most 1,024 nodes
        ctl[gravity.STOP] = 1
        out = bits.solve(cells, 0).tolist()
        ctl[gravity.STOP] = 0
        return _done(bits, out, base, out[gravity.DONE], out[gravity.DONE + 1])
    done = hits = 0
    if inline and INLINE_NODES and watch.roomy():
        ctl[gravity.LIMIT] = min(limit, base + INLINE_NODES)
        out = bits.solve(cells, 0, alone=True).tolist()
        ctl[gravity.LIMIT] = limit
        done, hits = out[gravity.DONE], out[gravity.DONE + 1]
        if out[gravity.ABORTED] == 0 or base + done >= limit:
            return _done(bits, out, base, done, hits)
    out, more, found = _threads(bits, cells, watch)
    return _done(bits, out, base, done + more, hits + found)


def _done(bits: Bitboards, out: list[int], base: int, done: int, hits: int) -> Run:
    bits.total = base + done
    return out, done, hits


def _threads(bits: Bitboards, cells: np.ndarray, watch: Watch) -> Run:
    """The kernel's out[] of the best thread (one that finished, else the bounds all proved),
    and the nodes and table hits of all threads.

    Lazy SMP: every thread solves the same board, sharing the table (each entry one word, so a
    thread reads another's whole or not at all, and every entry is a proved bound: any mix of
    them is sound); the first to finish stops the others."""
    outs, ctl = bits.outs, bits.ctl

    def work(t: int) -> None:
        bits.solve(cells, t)
        if outs[t, gravity.ABORTED] == 0 and ctl[gravity.STOP] == 0:
            ctl[gravity.STOP] = 2  # done: the other threads stop

    threads = min(bits.threads, 1 + idle_cores())
    workers = [threading.Thread(target=work, args=(t,))
               for t in range(1 if watch.idle else 0, threads)]
    try:
        for worker in workers:
            worker.start()
        if watch.idle:
            work(0)
        while alive := [worker for worker in workers if worker.is_alive()]:
            wait = _POLL if watch.deadline is None else min(_POLL, watch.deadline - time.monotonic())
            alive[0].join(max(wait, 0.0))
            if watch.progress is not None:
                watch.progress(bits.nodes, bits.hits)
            if watch.stopped() and ctl[gravity.STOP] == 0:
                ctl[gravity.STOP] = 1
    finally:  # Ctrl-C included: stop the kernels before leaving them running
        if ctl[gravity.STOP] == 0:
            ctl[gravity.STOP] = 1
        for worker in workers:
            worker.join()
        ctl[gravity.STOP] = 0
    ran = outs[:threads]
    done, hits = int(ran[:, gravity.DONE].sum()), int(ran[:, gravity.DONE + 1].sum())
    for row in ran:
        if row[gravity.ABORTED] == 0:
            return row.tolist(), done, hits
    best = outs[0].tolist()  # every thread stopped by the budget: the bounds any one proved
    best[gravity.LOW] = int(ran[:, gravity.LOW].max())
    best[gravity.HIGH] = int(ran[:, gravity.HIGH].min())
    return best, done, hits


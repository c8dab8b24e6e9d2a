"""Running the compiled kernels on both cores: a row range split in one piece per core, on
plain threads (every kernel releases the GIL; no numba threading layer, since a Dask worker may
call them from several threads at once), or on this thread alone inside `one_thread`."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import numpy as np

THREADS = max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else (os.cpu_count() or 1)))
PARALLEL_ROWS = 1 << 14  # below this, a second thread costs more than it saves
T = TypeVar("T")
_pool: ThreadPoolExecutor | None = None


_local = threading.local()


@contextmanager
def one_thread() -> Iterator[None]:
    """Within the block, kernels called from this thread use this thread alone (a cluster's
    worker: its cores are already the cluster's other workers)."""
    before = getattr(_local, "alone", False)
    _local.alone = True
    try:
        yield
    finally:
        _local.alone = before


def in_parallel(rows: int) -> bool:
    """Whether `split_rows` splits `rows` rows over the cores."""
    return THREADS > 1 and rows >= PARALLEL_ROWS and not getattr(_local, "alone", False)


def split_rows(rows: int, work: Callable[[int, int, int], T], size: int | None = None
               ) -> list[T]:
    """Run work(piece, start, stop) over [0, rows) in one piece per core when `rows` is
    large (or `size`, where each row is much work: a row for each of many positions), else
    work(0, 0, rows) here."""
    global _pool
    if rows < THREADS or not in_parallel(rows if size is None else size):
        return [work(0, 0, rows)]
    if _pool is None:
        _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="tablebase-kernel")
    edges = np.linspace(0, rows, THREADS + 1).astype(np.int64)
    futures = [_pool.submit(work, piece, int(a), int(b))
               for piece, (a, b) in enumerate(zip(edges[:-1], edges[1:]))]
    return [f.result() for f in futures]

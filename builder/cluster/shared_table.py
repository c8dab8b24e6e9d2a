"""The lookup table that the workers of one machine share while a cluster solves.

A byte per code (score + OFFSET, 0 for absent: builder/codetable.py) in a file of /dev/shm,
which every worker of the machine maps: no worker loads tier p+1 into a table of its own. Each
owner writes its range's scores into its machine's table once it has solved them. Before solving
tier p, a task makes sure that its machine's table holds every range of tier p+1: the ranges
solved on other machines (or before a resumed build) are read from the work directory, once per
machine, under a lock. A marker file beside the table says which ranges it holds, so a range
half written by a worker that died is written again. The files are named after the solve (a new
name each time) and the machine; the client removes them when the solve ends.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from tablebase.builder.codetable import put_scores
from tablebase.builder.workdir import DTYPES, part_path

_SHM = Path("/dev/shm")
_lock = threading.Lock()
_mapped: dict[str, np.ndarray] = {}  # this worker's maps, by table file


def machine_id() -> str | None:
    """This machine's boot id (Linux), or None where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def can_share() -> bool:
    """Whether this worker's machine can hold a shared table (a boot id and /dev/shm)."""
    return machine_id() is not None and _SHM.is_dir()


def new_name() -> str:
    """The name of a solve's tables (each machine's file adds the machine to it)."""
    import uuid

    return f"tablebase-{uuid.uuid4().hex}"


def _file(name: str) -> Path:
    return _SHM / f"{name}-{(machine_id() or 'none')[:13]}.lookup"


def _beside(name: str, suffix: str) -> Path:
    """A file beside this machine's table: a range's marker, or the lock."""
    table = _file(name)
    return table.with_name(f"{table.name}.{suffix}")


def slots(name: str, cells: int) -> np.ndarray:
    """This machine's table of solve `name` (made by the first worker to ask, sparse: pages
    are taken as they are written), mapped once per worker while the solve lasts."""
    path = _file(name)
    with _lock:
        found = _mapped.get(str(path))
        if found is not None:
            return found
        for other in list(_mapped):  # a new solve: the last one's maps go
            del _mapped[other]
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_size != 3 ** cells:
                os.ftruncate(fd, 3 ** cells)  # the same size again changes nothing
        finally:
            os.close(fd)
        table = np.memmap(path, dtype=np.uint8, mode="r+", shape=(3 ** cells,))
        _mapped[str(path)] = table
        return table


def publish(name: str, cells: int, ply: int, index: int, codes: np.ndarray,
            scores: np.ndarray) -> None:
    """Write range `index` of solved tier `ply` into this machine's table, then its marker
    (idempotent: a range solved again after a lost worker writes the same bytes)."""
    put_scores(slots(name, cells), codes, scores)
    _beside(name, f"{ply}.{index}").touch()


def complete(name: str, cells: int, work: Path, ply: int, parts: int) -> int:
    """Make this machine's table hold all `parts` ranges of solved tier `ply`, reading those
    it lacks from the work directory (one worker of the machine at a time); how many it read."""
    if all(_beside(name, f"{ply}.{k}").exists() for k in range(parts)):
        return 0
    import fcntl

    read = 0
    with open(_beside(name, "lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the worker dies
        for k in range(parts):
            if not _beside(name, f"{ply}.{k}").exists():
                publish(name, cells, ply, k,
                        np.fromfile(part_path(work, "codes", ply, k), DTYPES["codes"]),
                        np.fromfile(part_path(work, "scores", ply, k), DTYPES["scores"]))
                read += 1
    return read


def forget(name: str) -> None:
    """Unmap this worker's table of solve `name` and remove its machine's files (a removed
    file of /dev/shm keeps its memory while anyone maps it)."""
    with _lock:
        _mapped.clear()
    for path in _SHM.glob(f"{name}-*"):
        path.unlink(missing_ok=True)

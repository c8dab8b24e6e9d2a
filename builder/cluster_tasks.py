"""The tasks of a cluster build (builder/cluster.py), run on its workers: one task a code
range a tier, each reading and writing files in the work directory that every worker shares.

  enumerate   owner j of tier p merges the children that the tasks of tier p-1 sent to its
              code range (each piece already sorted and distinct), classifies and writes its
              range of tier p, expands its open positions with the same kernels and
              deduplication as one process (marks in a bitmap, or sorted runs), and writes the
              distinct children of each code range of tier p+1 once, in one file per owner.
  solve       owner j of tier p reads tier p+1 once per worker (all its ranges, into a lookup
              table it keeps while the tier lasts), solves its range, writes its scores and
              packs its range's blocks: on a server database it writes them itself, on SQLite
              it hands the rows to the client, the file's one writer.

A task's inputs are files that stay until the tasks that read them have all finished, and it
writes each output whole under a temporary name (os.replace), so Dask may rerun any task on
another worker when one dies. Nothing here imports Dask, except to ask the worker its size.
"""
from __future__ import annotations


import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tablebase.builder.codetable import CodeTable, bitmap_bytes
from tablebase.builder.enumerator import OPEN, children, classify, distinct_children
from tablebase.builder.executor import tier_values
from tablebase.builder.game.root import Root
from tablebase.builder.kernels import OFFSET
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.retrograde import solve_tier
from tablebase.builder.sortedruns import merge_unique, sorted_unique
from tablebase.builder.threads import one_thread
from tablebase.builder.workdir import (DTYPES, ArrayWriter, DiskArray, part_path,
                                       private_tmp, read_parts, write_part)
from tablebase.db.blocks import BlockRow
from tablebase.db.writer import BlockTarget

# Codes each task samples from the children it sends, for the client to cut the next tier.
SAMPLE = 2048
# Lookup tables of tier p+1 for solving, as the client chooses them per tier.
# SHARED: one direct table in a file of /dev/shm that every worker of one machine maps; each
# owner writes its range's scores into it once, so no worker loads the tier. The mode names
# the file: "shared:/dev/shm/tablebase-....lookup", a new name for every solve.
DIRECT, SORTED, SHARED = "direct", "sorted", "shared"


@dataclass
class RangeDone:
    """What one enumerate task reports: its range's counts and files, what it sent on."""

    counts: tuple[int, int, int, int]  # canonical, reachable, terminal, terminal canonical
    files: dict[str, tuple[str, int, int]]  # kind -> (name, CRC-32, size) of its part files
    first: int | None  # its range's first code (None: empty)
    sent: list[int]  # children sent to each owner of the next tier
    sample: np.ndarray  # ascending codes spread evenly over the children it sent
    spilled: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class RangeSolved:
    """What one solve task reports: its range's values, scores file, blocks or checksum."""

    values: tuple[int, int, int]
    file: tuple[str, int, int]
    checksum: str | None
    blocks: list[BlockRow] | None
    seconds: dict[str, float] = field(default_factory=dict)


def kids_path(path: Path, ply: int, source: int, owner: int) -> Path:
    """The children of tier `ply` that task `source` of the tier before sent to `owner`."""
    return path / f"kids_{ply}.{source}-{owner}.bin"


def _worker_threads() -> int:
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return 1


def _cores() -> AbstractContextManager[None]:
    """Kernels on the threads this worker was given: one thread, unless it has more."""
    return one_thread() if _worker_threads() <= 1 else nullcontext()


def _plan() -> MemoryPlan:
    """This worker's memory plan: its memory limit, else half the machine."""
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        limit = None
    return MemoryPlan.for_budget(int(limit) if limit else None)


# Per worker process: the marking table (kept between tiers: its bitmaps cost a page fault
# per page the first time) and the lookup table of the tier being solved from.
_kept: dict[str, tuple[str, CodeTable]] = {}
_lock = threading.Lock()


def _marking_table(root: Root, plan: MemoryPlan) -> CodeTable:
    # Bitmaps rather than a byte per code: reading the marks back scans the whole table on
    # every worker, every tier, and bitmaps are an eighth of the bytes to scan.
    bits = plan.direct_fits(bitmap_bytes(root.cells))
    direct = not bits and plan.direct_fits(3 ** root.cells)
    key = f"{root.spec.name}|{root.key}|{direct}|{bits}"  # a whole board's root key is ""
    found = _kept.get("mark")
    if found is not None and found[0] == key:
        return found[1]
    _kept.pop("mark", None)
    table = CodeTable(root.cells, direct=direct, bits=bits)
    _kept["mark"] = (key, table)
    return table


def _writer(final: Path, record: Callable[[str, int, int], None]) -> ArrayWriter:
    """A writer of one output file under a name no other run of the same task uses."""
    kind = final.name.split("_")[0]
    return ArrayWriter(private_tmp(final), final, DTYPES["codes" if kind == "kids" else kind],
                       record)


def _split(chunk: np.ndarray, cuts: list[int]) -> list[np.ndarray]:
    """An ascending chunk cut at the inner cuts, one piece per owner."""
    at = np.searchsorted(chunk, cuts, side="left")
    return np.split(chunk, at)


def enumerate_range(root: Root, path: str, ply: int, index: int, sources: int,
                    cuts_next: list[int] | None, own: bool) -> RangeDone:
    """Owner `index` of tier `ply`: merge the children the `sources` tasks of tier ply-1 sent
    it, classify and write its range (with `own`; else read the range written before, as a
    resumed build does), then send the distinct children of its open positions to the owners
    of tier ply+1, whose ranges start at `cuts_next` (None: tier `ply` is the last)."""
    work, seconds = Path(path), {"merge": 0.0, "expand": 0.0, "send": 0.0}
    with _cores(), _lock:
        plan = _plan()
        chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
        records: dict[str, tuple[str, int, int]] = {}
        counts = [0, 0, 0, 0]
        first: list[int] = []

        def record(name: str, crc: int, size: int) -> None:
            records[name.split("_")[0]] = (name, crc, size)

        def parents() -> Iterator[np.ndarray]:
            start = time.perf_counter()
            if own:
                pieces = [DiskArray(kids_path(work, ply, s, index), DTYPES["codes"])
                          for s in range(sources)]
                out = {kind: _writer(part_path(work, kind, ply, index), record)
                       for kind in ("codes", "term")}
                for codes in merge_unique(pieces, chunk_rows):
                    term, orbits = classify(root, ply, codes)
                    out["codes"].append(codes)
                    out["term"].append(term)
                    closed = term != OPEN
                    counts[0] += len(codes)
                    counts[1] += int(orbits.sum())
                    counts[2] += int(orbits[closed].sum())
                    counts[3] += int(closed.sum())
                    if not first:
                        first.append(int(codes[0]))
                    seconds["merge"] += time.perf_counter() - start
                    yield codes[~closed]
                    start = time.perf_counter()
                for writer in out.values():
                    writer.close()
                for piece in pieces:
                    piece.close()
            else:
                codes = np.fromfile(part_path(work, "codes", ply, index), DTYPES["codes"])
                term = np.fromfile(part_path(work, "term", ply, index), DTYPES["term"])
                seconds["merge"] += time.perf_counter() - start
                yield codes[term == OPEN]
                start = time.perf_counter()
            seconds["merge"] += time.perf_counter() - start

        sent: list[int] = []
        sample = np.empty(0, np.int64)
        spilled = 0
        if cuts_next is None:  # the last tier: classified and written, nothing to expand
            for _ in parents():
                pass
        else:
            table = _marking_table(root, plan)
            incoming = sum(kids_path(work, ply, s, index).stat().st_size // 8
                           for s in range(sources)) if own else 0
            try:
                start = time.perf_counter()
                source, collector = distinct_children(
                    root, ply, parents(), incoming or 1 << 30, plan, table,
                    lambda name: work / f"spill_{ply}.{index}.{name}")
                seconds["expand"] = time.perf_counter() - start - seconds["merge"]
                start = time.perf_counter()
                sent, sample = _send(work, ply + 1, index, cuts_next, source)
                seconds["send"] = time.perf_counter() - start
                spilled = collector.spilled
            except BaseException:
                _kept.pop("mark", None)  # marks may be left set: never reuse the table
                raise
        return RangeDone(tuple(counts), records, first[0] if first else None,  # type: ignore[arg-type]
                         sent, sample, spilled, seconds)


def _send(work: Path, ply: int, index: int, cuts: list[int], chunks: Iterator[np.ndarray]
          ) -> tuple[list[int], np.ndarray]:
    """Write ascending chunks of tier `ply` codes to one file per owner (split at `cuts`);
    return how many went to each, and a sample spread evenly over them."""
    owners = len(cuts) + 1
    out = [_writer(kids_path(work, ply, index, k), lambda *_: None) for k in range(owners)]
    samples, weights = [], []
    for chunk in chunks:
        for k, piece in enumerate(_split(chunk, cuts)):
            if len(piece):
                out[k].append(piece)
        take = np.linspace(0, len(chunk) - 1, min(len(chunk), SAMPLE)).astype(np.int64)
        samples.append(chunk[take])
        weights.append(np.full(len(take), len(chunk) / max(1, len(take))))
    for writer in out:
        writer.close()
    sample = np.concatenate(samples) if samples else np.empty(0, np.int64)
    if len(sample) > SAMPLE:  # thin out to codes evenly spread over what was sent
        spread = np.cumsum(np.concatenate(weights))
        at = np.searchsorted(spread, (np.arange(SAMPLE) + 0.5) * spread[-1] / SAMPLE)
        sample = sample[np.minimum(at, len(sample) - 1)]
    return [writer.count for writer in out], sample


# --- solving ---------------------------------------------------------------------------------

def _next_tier(root: Root, path: str, ply: int, parts: int, mode: str) -> CodeTable:
    """Tier `ply` (the one being solved from) as a lookup table, read once per worker. The
    table itself is kept from tier to tier: a direct table's pages are faulted in once."""
    if parts == 0:
        return CodeTable(root.cells, direct=False)  # the last tier: nothing to look up
    work = Path(path)
    stamp = [part_path(work, "scores", ply, i).stat() for i in range(parts)]
    kind = f"{root.spec.name}|{root.key}|{mode}"  # a whole board's root key is ""
    tier = f"{path}|{ply}|{[(s.st_size, s.st_mtime_ns) for s in stamp]}"
    with _lock:
        found = _kept.get("next")
        if found is not None and found[0] == f"{kind}|{tier}":
            return found[1]
        table = found[1] if found is not None and found[0].startswith(f"{kind}|") else None
        _kept.pop("next", None)  # a table of another kind is freed before the new one is made
        if table is None:
            table = CodeTable(root.cells, direct=mode == DIRECT)
        try:
            table.load(read_parts(work, "codes", ply, parts),
                       read_parts(work, "scores", ply, parts))
        except BaseException:
            table.clear()
            raise
        _kept["next"] = (f"{kind}|{tier}", table)
        return table


def _shared_slots(root: Root, file: str) -> np.ndarray:
    """This worker's map of the SHARED table in `file` (made by the client, 3**cells bytes),
    kept while the solve lasts (a new solve names a new file)."""
    key = f"{file}|{root.cells}"
    with _lock:
        found = _kept.get("shared")
        if found is not None and found[0] == key:
            return found[1]  # type: ignore[return-value]
        _kept.pop("shared", None)
        slots = np.memmap(file, dtype=np.uint8, mode="r+", shape=(3 ** root.cells,))
        _kept["shared"] = (key, slots)  # type: ignore[assignment]
        return slots


def forget_shared() -> None:
    """Unmap this worker's SHARED table: the client removes the file once the solve ends, and
    a removed file of /dev/shm keeps its memory while anyone maps it."""
    with _lock:
        _kept.pop("shared", None)


def _publish(slots: np.ndarray, codes: np.ndarray, scores: np.ndarray) -> None:
    """Write a range's scores into the SHARED table (idempotent: a range solved again after a
    lost worker writes the same bytes)."""
    step = 1 << 22
    for start in range(0, len(codes), step):
        slots[np.asarray(codes[start : start + step], dtype=np.int64)] = (
            np.asarray(scores[start : start + step]).astype(np.int16) + OFFSET).astype(np.uint8)


def publish_range(root: Root, path: str, ply: int, index: int, file: str) -> None:
    """Write part `index` of solved tier `ply` into the SHARED table in `file` (a resumed
    build's first tier, solved before the table existed)."""
    work = Path(path)
    _publish(_shared_slots(root, file), np.fromfile(part_path(work, "codes", ply, index),
                                                   DTYPES["codes"]),
             np.fromfile(part_path(work, "scores", ply, index), DTYPES["scores"]))


def solve_range(root: Root, path: str, ply: int, index: int, parts_next: int, mode: str,
                target: BlockTarget | None, blocks: tuple[int, int, int, int],
                kids: np.ndarray | None = None, *scored: np.ndarray) -> RangeSolved:
    """Owner `index` of tier `ply`: its scores, tier ply+1 being solved, written to its part
    file; its blocks packed for `target` (`blocks`: the first block's number, the next
    range's first code, and the range's bounds [low, high)). `kids` with `scored`: its
    distinct children and their scores, answered by the owners of tier ply+1 (a tier too
    large to load on every worker); else tier ply+1 is loaded here, as `mode` says."""
    work, seconds = Path(path), {}
    with _cores():
        start = time.perf_counter()
        shared = mode.partition(":")[2] if mode.startswith(SHARED + ":") else None
        if shared is not None:
            table = CodeTable.over(root.cells, _shared_slots(root, shared))
        elif kids is None:
            table = _next_tier(root, path, ply + 1, parts_next, mode)
        else:
            table = CodeTable(root.cells, direct=False)
            table.load(kids, np.concatenate(scored) if scored else np.empty(0, np.int8))
        codes = np.fromfile(part_path(work, "codes", ply, index), DTYPES["codes"])
        term = np.fromfile(part_path(work, "term", ply, index), DTYPES["term"])
        seconds["load"] = time.perf_counter() - start
        start = time.perf_counter()
        plan = _plan()
        scores = solve_tier(root, ply, codes, term, table,
                            plan.chunk_rows(root.cells, len(root.symmetries)))
        file = write_part(work, "scores", ply, index, scores)
        seconds["solve"] = time.perf_counter() - start
        if shared is not None:
            start = time.perf_counter()
            _publish(_shared_slots(root, shared), codes, scores)
            seconds["load"] += time.perf_counter() - start
        start = time.perf_counter()
        rows, checksum = None, None
        if target is not None and len(codes):
            first_index, next_code, low, high = blocks
            rows, checksum = target.store(root.ply + ply, first_index, codes, scores, next_code,
                                          low, high)
        seconds["pack"] = time.perf_counter() - start
        return RangeSolved(tier_values(scores), file, checksum, rows, seconds)


def expand_range(root: Root, path: str, ply: int, index: int) -> np.ndarray:
    """The sorted distinct canonical children of the open positions of range `index` of `ply`."""
    with _cores():
        work = Path(path)
        codes = np.fromfile(part_path(work, "codes", ply, index), DTYPES["codes"])
        codes = codes[np.fromfile(part_path(work, "term", ply, index), DTYPES["term"]) == OPEN]
        kids = list(children(root, codes, ply))
        return sorted_unique(np.concatenate(kids)) if kids else np.empty(0, dtype=np.int64)


def range_piece(codes: np.ndarray, low: int | None, high: int | None) -> np.ndarray:
    """The codes of a sorted array in [low, high) (None: unbounded), as a copy."""
    a = 0 if low is None else int(np.searchsorted(codes, low, side="left"))
    b = len(codes) if high is None else int(np.searchsorted(codes, high, side="left"))
    return codes[a:b].copy()


def lookup_range(path: str, ply: int, index: int, *pieces: np.ndarray) -> list[np.ndarray]:
    """The scores of each piece of codes, all within range `index` of tier `ply`: the owner of
    that range answers the lookups routed to it."""
    work = Path(path)
    table = CodeTable(0, direct=False)
    table.load(np.fromfile(part_path(work, "codes", ply, index), DTYPES["codes"]),
               np.fromfile(part_path(work, "scores", ply, index), DTYPES["scores"]))
    return [table.lookup(piece) if len(piece) else np.empty(0, dtype=np.int8)
            for piece in pieces]

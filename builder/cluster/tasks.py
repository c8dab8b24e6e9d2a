"""The tasks of a cluster build (builder/cluster/executor.py), run on its workers: one task a
code range a tier, each reading and writing files in the work directory that every worker shares.

  enumerate   owner j of tier p merges the children that the tasks of tier p-1 sent to its
              code range (each piece already sorted and distinct), classifies and writes its
              range of tier p, expands its open positions with the same kernels and
              deduplication as one process (marks in a bitmap, or sorted runs), and writes its
              distinct children once, in one ascending file, of which each owner of tier p+1
              reads the part in its range (found by bisection); it reports an even sample of
              its range, from which the client cuts tier p+1.
  solve       owner j of tier p looks tier p+1 up in its machine's shared table (where one
              fits: builder/cluster/shared_table.py), else reads it once per worker (all its
              ranges, into a lookup table it keeps while the tier lasts); it solves its
              range, writes its scores and
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
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tablebase.builder.cluster import shared_table
from tablebase.builder.codetable import CodeTable, bitmap_bytes
from tablebase.builder.enumerator import children, classify, distinct_children
from tablebase.builder.executor import tier_values
from tablebase.builder.games.tier_kernels import OPEN, TableRoot
from tablebase.builder.memory import MemoryPlan, steady_malloc
from tablebase.builder.retrograde import solve_tier
from tablebase.builder.sortedruns import merge_unique, sorted_unique
from tablebase.builder.threads import one_thread
from tablebase.builder.workdir import (
    DTYPES,
    ArrayWriter,
    DiskArray,
    part_path,
    private_tmp,
    read_parts,
    write_part,
)
from tablebase.db.blocks import BlockRow
from tablebase.db.writer import BlockTarget

# Codes each task samples from the children it sends, for the client to cut the next tier.
SAMPLE = 2048
# Lookup tables of tier p+1 for solving, as the client chooses them per tier.
# SHARED: one direct table per machine that its workers share (builder/cluster/shared_table.py);
# the mode names the solve's tables: "shared:tablebase-...", a new name for every solve.
DIRECT, SORTED, SHARED = "direct", "sorted", "shared"


@dataclass
class RangeDone:
    """What one enumerate task reports: its range's counts and files, a sample of its codes."""

    counts: tuple[int, int, int, int]  # canonical, reachable, terminal, terminal canonical
    files: dict[str, tuple[str, int, int]]  # kind -> (name, CRC-32, size) of its part files
    first: int | None  # its range's first code (None: empty)
    sample: np.ndarray  # ascending codes of its range, spread evenly over its positions
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
    fetched: int = 0  # ranges of tier p+1 read into its machine's shared table first


def kids_path(path: Path, ply: int, source: int) -> Path:
    """The distinct children in tier `ply` of the open positions of range `source` of the tier
    before, ascending: each owner of tier `ply` reads the part that falls in its range."""
    return path / f"kids_{ply}.{source}.bin"


def range_bounds(cuts: list[int], index: int) -> tuple[int | None, int | None]:
    """Range `index`'s codes [low, high) of a tier cut at `cuts` (None: unbounded)."""
    return (cuts[index - 1] if index else None), (cuts[index] if index < len(cuts) else None)


def incoming(path: str, ply: int, sources: int, cuts: list[int]) -> list[int]:
    """How many children the `sources` tasks of tier ply-1 sent to each range of tier `ply`."""
    sizes = [0] * (len(cuts) + 1)
    for s in range(sources):
        data = DiskArray(kids_path(Path(path), ply, s), DTYPES["codes"])
        try:
            at = [0, *(data.rank(cut, 0) for cut in cuts), len(data)]
        finally:
            data.close()
        for j in range(len(sizes)):
            sizes[j] += at[j + 1] - at[j]
    return sizes


def _worker_threads() -> int:
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return 1


def _in_task() -> AbstractContextManager[None]:
    """A task's setting on this worker: arrays reused rather than faulted in afresh, kernels
    on the threads the worker was given (one thread, unless it has more)."""
    steady_malloc()
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
_pool: tuple[int, ThreadPoolExecutor] | None = None  # packing threads, where it has several


def _pack_pool() -> ThreadPoolExecutor | None:
    """Threads to pack blocks on, one per thread this worker was given (None: just one)."""
    global _pool
    threads = _worker_threads()
    if threads <= 1:
        return None
    with _lock:
        if _pool is None or _pool[0] != threads:
            _pool = (threads, ThreadPoolExecutor(threads, thread_name_prefix="tablebase-pack"))
        return _pool[1]


def _marking_table(root: TableRoot, plan: MemoryPlan) -> CodeTable:
    # Bitmaps rather than a byte per code: reading the marks back scans the whole table on
    # every worker, every tier, and bitmaps are an eighth of the bytes to scan.
    bits = plan.direct_fits(bitmap_bytes(root.cells))
    direct = not bits and plan.direct_fits(3 ** root.cells)
    key = f"{root.game_name}|{root.key}|{direct}|{bits}"  # a whole board's root key is ""
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


def enumerate_range(root: TableRoot, path: str, ply: int, index: int, sources: int,
                    cuts: list[int], expand: bool, own: bool) -> RangeDone:
    """Owner `index` of tier `ply` (cut at `cuts`): merge what the `sources` tasks of tier
    ply-1 sent to its range, classify and write it (with `own`; else read the range written
    before, as a resumed build does), then, with `expand`, write the distinct children of its
    open positions in one file for the owners of tier ply+1; report a sample of its range,
    from which the client cuts tier ply+1."""
    work, seconds = Path(path), {"merge": 0.0, "expand": 0.0, "send": 0.0}
    with _in_task(), _lock:
        plan = _plan()
        chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
        records: dict[str, tuple[str, int, int]] = {}
        counts = [0, 0, 0, 0]
        first: list[int] = []
        sampler = _Sampler()
        pieces = [DiskArray(kids_path(work, ply, s), DTYPES["codes"])
                  .narrow(*range_bounds(cuts, index)) for s in range(sources)] if own else []

        def record(name: str, crc: int, size: int) -> None:
            records[name.split("_")[0]] = (name, crc, size)

        def parents() -> Iterator[np.ndarray]:
            start = time.perf_counter()
            if own:
                out = {kind: _writer(part_path(work, kind, ply, index), record)
                       for kind in ("codes", "term")}
                for codes in merge_unique(pieces, chunk_rows):
                    term, orbits = classify(root, ply, codes)
                    out["codes"].append(codes)
                    out["term"].append(term)
                    sampler.add(codes)
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
                sampler.add(codes)
                seconds["merge"] += time.perf_counter() - start
                yield codes[term == OPEN]
                start = time.perf_counter()
            seconds["merge"] += time.perf_counter() - start

        spilled = 0
        if not expand:  # the last tier: classified and written, nothing to expand
            for _ in parents():
                pass
        else:
            table = _marking_table(root, plan)
            arrived = sum(len(piece) for piece in pieces)
            try:
                start = time.perf_counter()
                source, collector = distinct_children(
                    root, ply, parents(), arrived or 1 << 30, plan, table,
                    lambda name: work / f"spill_{ply}.{index}.{name}")
                seconds["expand"] = time.perf_counter() - start - seconds["merge"]
                start = time.perf_counter()
                out = _writer(kids_path(work, ply + 1, index), lambda *_: None)
                for chunk in source:
                    out.append(chunk)
                out.close()
                seconds["send"] = time.perf_counter() - start
                spilled = collector.spilled
            except BaseException:
                _kept.pop("mark", None)  # marks may be left set: never reuse the table
                raise
        return RangeDone(tuple(counts), records, first[0] if first else None,  # type: ignore[arg-type]
                         sampler.sample(), spilled, seconds)


class _Sampler:
    """An evenly spread sample of the ascending chunks it is shown, at most SAMPLE codes."""

    def __init__(self) -> None:
        self._codes: list[np.ndarray] = []
        self._weights: list[np.ndarray] = []

    def add(self, chunk: np.ndarray) -> None:
        """Sample one chunk (at most SAMPLE codes of it, each standing for its share)."""
        take = np.linspace(0, len(chunk) - 1, min(len(chunk), SAMPLE)).astype(np.int64)
        self._codes.append(np.asarray(chunk)[take])
        self._weights.append(np.full(len(take), len(chunk) / max(1, len(take))))

    def sample(self) -> np.ndarray:
        """The sample: thinned out to SAMPLE codes evenly spread over all that were shown."""
        sample = np.concatenate(self._codes) if self._codes else np.empty(0, np.int64)
        if len(sample) > SAMPLE:
            spread = np.cumsum(np.concatenate(self._weights))
            at = np.searchsorted(spread, (np.arange(SAMPLE) + 0.5) * spread[-1] / SAMPLE)
            sample = sample[np.minimum(at, len(sample) - 1)]
        return sample


# --- solving ---------------------------------------------------------------------------------

def _next_tier(root: TableRoot, path: str, ply: int, parts: int, mode: str) -> CodeTable:
    """Tier `ply` (the one being solved from) as a lookup table, read once per worker. The
    table itself is kept from tier to tier: a direct table's pages are faulted in once."""
    if parts == 0:
        return CodeTable(root.cells, direct=False)  # the last tier: nothing to look up
    work = Path(path)
    stamp = [part_path(work, "scores", ply, i).stat() for i in range(parts)]
    kind = f"{root.game_name}|{root.key}|{mode}"  # a whole board's root key is ""
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


def solve_range(root: TableRoot, path: str, ply: int, index: int, parts_next: int, mode: str,
                target: BlockTarget | None, blocks: tuple[int, int, int, int],
                kids: np.ndarray | None = None, *scored: np.ndarray) -> RangeSolved:
    """Owner `index` of tier `ply`: its scores, tier ply+1 being solved, written to its part
    file; its blocks packed for `target` (`blocks`: the first block's number, the next
    range's first code, and the range's bounds [low, high)). `kids` with `scored`: its
    distinct children and their scores, answered by the owners of tier ply+1 (a tier too
    large to load on every worker); else tier ply+1 is loaded here, as `mode` says."""
    work, seconds = Path(path), {}
    with _in_task():
        start = time.perf_counter()
        shared = mode.partition(":")[2] if mode.startswith(SHARED + ":") else None
        fetched = 0
        if shared is not None:
            fetched = shared_table.complete(shared, root.cells, work, ply + 1, parts_next)
            table = CodeTable.over(root.cells, shared_table.slots(shared, root.cells))
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
            shared_table.publish(shared, root.cells, ply, index, codes, scores)
            seconds["load"] += time.perf_counter() - start
        start = time.perf_counter()
        rows, checksum = None, None
        if target is not None and len(codes):
            first_index, next_code, low, high = blocks
            rows, checksum = target.store(root.ply + ply, first_index, codes, scores, next_code,
                                          low, high, _pack_pool())
        seconds["pack"] = time.perf_counter() - start
        return RangeSolved(tier_values(scores), file, checksum, rows, seconds, fetched)


def expand_range(root: TableRoot, path: str, ply: int, index: int) -> np.ndarray:
    """The sorted distinct canonical children of the open positions of range `index` of `ply`."""
    with _in_task():
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

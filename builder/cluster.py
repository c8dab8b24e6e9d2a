"""Builds on a Dask cluster: the enumerate and solve stages mapped over partitions of each tier.

The tasks call the single-process build's own pure per-chunk functions (`children`, `classify`,
`solve_tier`) and read and write tiers in the work directory, which every worker must share:

  enumerate ply p -> p+1   parents --expand--> children, sorted and distinct per partition
                           --route by code range (cuts at quantiles of a sample)--> owners,
                           which deduplicate, classify and write their slice of tier p+1;
                           the client joins the slices in code order into the tier file.
  solve ply p              partitions of tier p --solve_tier--> scores, gathered in order;
                           each worker reads tier p+1 once from the work directory (a
                           broadcast through the shared disk) and keeps it while solving p.

Every task is a pure function of files that stay until the build ends, so Dask may rerun any
of them when a worker dies. Dask is imported only here, and only when a cluster is opened.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from tablebase.builder.codetable import CodeTable
from tablebase.builder.enumerator import OPEN, TierCounts, children, classify
from tablebase.builder.game.root import Root
from tablebase.builder.kernels import one_thread
from tablebase.builder.memory import MemoryPlan, peak_bytes, reset_peak
from tablebase.builder.progress import ProgressFactory
from tablebase.builder.retrograde import solve_tier
from tablebase.builder.sortedruns import sorted_unique
from tablebase.builder.workdir import DTYPES, DiskArray, WorkDir

EXTRA_HINT = "pip install 'tablebase[cluster]'"
# Tiers smaller than this are one partition: a task costs milliseconds of scheduling.
_SMALL_TIER = 1 << 15
# Codes each partition contributes to the sample that cuts a tier into owner ranges.
_SAMPLE = 256
_PAGE = 4096
_DIRECT_MAX = 1 << 26
# The share of a worker's memory that tier p+1 (9 bytes a position) may take to be broadcast
# to every worker for solving; a larger tier is looked up by its owners instead.
_BROADCAST_SHARE = 0.25


class ClusterError(RuntimeError):
    """The cluster cannot be used: Dask is not installed, or the scheduler cannot be reached."""


# --- the tasks (run on workers; module-level so that they pickle by name) --------------------

def _read(path: str, kind: str, ply: int, start: int, stop: int) -> np.ndarray:
    """Rows [start, stop) of one stored tier array."""
    array = WorkDir(Path(path)).get(kind, ply, in_memory=False)
    try:
        return np.array(array[start:stop])
    finally:
        if isinstance(array, DiskArray):
            array.close()


def expand_part(root: Root, path: str, ply: int, start: int, stop: int,
                chunk_rows: int) -> np.ndarray:
    """The sorted distinct canonical children of the open parents in rows [start, stop) of tier `ply`."""
    with one_thread():  # this worker's kernels on this worker's core alone
        codes = _read(path, "codes", ply, start, stop)
        codes = codes[_read(path, "term", ply, start, stop) == OPEN]
        kids = list(children(root, codes, ply, chunk_rows))
        return sorted_unique(np.concatenate(kids)) if kids else np.empty(0, dtype=np.int64)


def sample_part(codes: np.ndarray, count: int) -> np.ndarray:
    """Up to `count` evenly spaced codes of a sorted array."""
    if len(codes) <= count:
        return codes.copy()
    return codes[np.linspace(0, len(codes) - 1, count).astype(np.int64)]


def range_piece(codes: np.ndarray, low: int | None, high: int | None) -> np.ndarray:
    """The codes of a sorted array in [low, high) (None: unbounded), as a copy."""
    a = 0 if low is None else int(np.searchsorted(codes, low, side="left"))
    b = len(codes) if high is None else int(np.searchsorted(codes, high, side="left"))
    return codes[a:b].copy()


def part_file(path: str, kind: str, ply: int, index: int) -> Path:
    """Where owner `index` writes its slice of one tier array."""
    return Path(path) / f"{kind}_{ply}.part{index}.bin"


def own_range(root: Root, path: str, ply: int, index: int, chunk_rows: int,
              *pieces: np.ndarray) -> tuple[int, int, int, int]:
    """Deduplicate one code range of tier `ply`, classify it and write its slice files.

    Returns (canonical, reachable, terminal, terminal canonical) of the range. A rerun after a
    lost worker writes the same files again, atomically."""
    with one_thread():  # this worker's kernels on this worker's core alone
        codes = sorted_unique(np.concatenate(pieces)) if pieces else np.empty(0, dtype=np.int64)
        term = np.empty(len(codes), dtype=np.int8)
        reachable = terminal = 0
        for start in range(0, len(codes), chunk_rows):
            part_term, orbits = classify(root, ply, codes[start : start + chunk_rows])
            term[start : start + chunk_rows] = part_term
            reachable += int(orbits.sum())
            terminal += int(orbits[part_term != OPEN].sum())
        for kind, array in (("codes", codes.astype("<i8")), ("term", term)):
            final = part_file(path, kind, ply, index)
            tmp = final.with_suffix(f".{os.getpid()}.tmp")
            array.tofile(tmp)
            os.replace(tmp, final)
        return len(codes), reachable, terminal, int(np.count_nonzero(term != OPEN))


_loaded: dict[str, Any] = {"key": None, "table": None}
_loaded_lock = threading.Lock()


def _next_tier(root: Root, path: str, ply: int, direct: bool) -> CodeTable:
    """Tier `ply` (the one being solved from) as a lookup table, read once per worker."""
    work = WorkDir(Path(path))
    scores_file = work.path / f"scores_{ply}.bin"
    if not scores_file.exists():
        return CodeTable(root.cells, direct=False)  # the last tier: nothing to look up
    stat = scores_file.stat()
    key = f"{path}|{root.key}|{ply}|{stat.st_size}|{stat.st_mtime_ns}|{direct}"
    with _loaded_lock:
        if _loaded["key"] != key:
            _loaded["key"] = _loaded["table"] = None  # free the old tier before reading the new
            table = CodeTable(root.cells, direct=direct)
            table.load(work.get("codes", ply), work.get("scores", ply))
            _loaded["key"], _loaded["table"] = key, table
        return _loaded["table"]


def solve_part(root: Root, path: str, ply: int, start: int, stop: int, chunk_rows: int,
               direct: bool) -> np.ndarray:
    """Scores (for the side to move) of rows [start, stop) of tier `ply`, tier ply+1 being solved."""
    with one_thread():  # this worker's kernels on this worker's core alone
        table = _next_tier(root, path, ply + 1, direct)
        return solve_tier(root, ply, _read(path, "codes", ply, start, stop),
                          _read(path, "term", ply, start, stop), table, chunk_rows)


def lookup_range(path: str, ply: int, start: int, stop: int,
                 *pieces: np.ndarray) -> list[np.ndarray]:
    """The scores of each piece of codes, all within rows [start, stop) of tier `ply`: the
    owner of that range answers the lookups routed to it."""
    table = CodeTable(0, direct=False)
    table.load(_read(path, "codes", ply, start, stop), _read(path, "scores", ply, start, stop))
    return [table.lookup(piece) if len(piece) else np.empty(0, dtype=np.int8)
            for piece in pieces]


def solve_part_routed(root: Root, path: str, ply: int, start: int, stop: int, chunk_rows: int,
                      kids: np.ndarray, *scored: np.ndarray) -> np.ndarray:
    """Scores of rows [start, stop) of tier `ply`, given the scores of their sorted distinct
    children `kids` (answered by the owners of tier ply+1, in code order)."""
    with one_thread():  # this worker's kernels on this worker's core alone
        table = CodeTable(root.cells, direct=False)
        table.load(kids, np.concatenate(scored) if scored else np.empty(0, dtype=np.int8))
        return solve_tier(root, ply, _read(path, "codes", ply, start, stop),
                          _read(path, "term", ply, start, stop), table, chunk_rows)


# --- the client side ------------------------------------------------------------------------

def _spans(rows: int, per_part: int, parts_at_least: int) -> list[tuple[int, int]]:
    """Row ranges covering [0, rows): one for a small tier, else at least `parts_at_least`."""
    if rows <= _SMALL_TIER:
        return [(0, rows)]
    parts = max(parts_at_least, -(-rows // max(1, per_part)))
    edges = np.linspace(0, rows, parts + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _cuts(sample: np.ndarray, owners: int) -> list[int | None]:
    """Owner range edges: None, cuts at quantiles of the sample, None."""
    sample = np.sort(sample)
    if owners <= 1 or len(sample) < owners:
        return [None, None]
    inner = np.unique(sample[(np.arange(1, owners) * len(sample)) // owners])
    return [None, *(int(c) for c in inner), None]


class DaskExecutor:
    """Runs a build's enumerate and solve stages on the workers of a Dask client."""

    def __init__(self, client: Any) -> None:
        self.client = client

    @property
    def workers(self) -> int:
        """The number of workers the scheduler knows now."""
        return max(1, len(self.client.scheduler_info()["workers"]))

    def _memory_limit(self) -> int:
        limits = [w.get("memory_limit") or 0 for w in self.client.scheduler_info()["workers"].values()]
        return min((m for m in limits if m), default=0)

    def reset_peaks(self) -> None:
        """Start every worker's peak-memory figure afresh."""
        self.client.run(reset_peak)

    def worker_peaks(self) -> list[int]:
        """Each worker's peak resident bytes since `reset_peaks` (or its start)."""
        return sorted(self.client.run(peak_bytes).values())

    def _gather(self, futures: Sequence[Any], sizes: Sequence[int], bar: Any) -> list[Any]:
        """The results of `futures`, in order, advancing `bar` by a future's size as it ends."""
        from distributed import as_completed

        index = {f.key: i for i, f in enumerate(futures)}
        results: list[Any] = [None] * len(futures)
        for done, result in as_completed(futures, with_results=True):
            results[index[done.key]] = result
            bar.update(sizes[index[done.key]])
        return results

    def enumerate(self, root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                  done: list[TierCounts], progress: ProgressFactory,
                  on_tier: Callable[[list[TierCounts]], None]) -> list[TierCounts]:
        """Enumerate the tiers after `done` on the cluster; return the counts of all tiers."""
        path, counts = str(work.path), list(done)
        chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
        if not counts:
            first = own_range(root, path, 0, 0, chunk_rows, np.zeros(1, dtype=np.int64))
            counts.append(self._join(work, 0, [first]))
            on_tier(counts)
        submit = self.client.submit
        with progress(desc=f"enumerate {root.name}", total=root.cells, initial=counts[-1].ply,
                      unit="tier") as bar:
            while counts[-1].ply < root.cells and counts[-1].canonical > counts[-1].terminal_canonical:
                ply, rows = counts[-1].ply, counts[-1].canonical
                owners = 2 * self.workers
                spans = _spans(rows, chunk_rows, owners)
                parts = [submit(expand_part, root, path, ply, a, b, chunk_rows, pure=False)
                         for a, b in spans]
                edges: list[int | None] = [None, None]  # a small tier: one owner
                with progress(desc=f"  ply {ply} -> {ply + 1}", total=rows, unit="pos",
                              unit_scale=True) as inner:
                    if len(parts) > 1:
                        # Only the samples travel to the client, as each partition ends.
                        samples = self._gather([submit(sample_part, p, _SAMPLE, pure=False)
                                                for p in parts], [b - a for a, b in spans], inner)
                        edges = _cuts(np.concatenate(samples), owners)
                # Route: each owner takes its code range from every partition, on the worker
                # that holds the partition; only the ranges travel.
                owned = [submit(own_range, root, path, ply + 1, i, chunk_rows,
                                *(parts if len(edges) == 2 else
                                  [submit(range_piece, p, low, high, pure=False) for p in parts]),
                                pure=False)
                         for i, (low, high) in enumerate(zip(edges[:-1], edges[1:]))]
                del parts
                counts.append(self._join(work, ply + 1, self.client.gather(owned)))
                del owned
                on_tier(counts)
                bar.update(1)
                bar.set_postfix(ply=ply + 1, positions=counts[-1].canonical)
        return counts

    def _join(self, work: WorkDir, ply: int, ranges: list[tuple[int, int, int, int]]) -> TierCounts:
        """Join the owners' slices of a tier, in code order, into its tier files."""
        for kind in ("codes", "term"):
            out = work.writer(kind, ply)
            for index in range(len(ranges)):
                part = part_file(str(work.path), kind, ply, index)
                out.append(np.fromfile(part, dtype=DTYPES[kind]))
                part.unlink()
            out.close()
        canonical, reachable, terminal, terminal_canonical = (sum(c) for c in zip(*ranges))
        return TierCounts(ply, canonical, reachable, terminal, terminal_canonical)

    def solve(self, root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
              counts: list[TierCounts], solved_from: int | None, progress: ProgressFactory,
              on_tier: Callable[[int, np.ndarray], None]) -> None:
        """Solve every tier below `solved_from` on the cluster, deepest first."""
        path = str(work.path)
        top = len(counts) if solved_from is None else solved_from
        chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
        size = 3 ** root.cells
        # Every worker loads tier p+1 into its own table, so a direct table's load (a page
        # fault per stored code) is paid once per worker: use one only while it is small
        # (4x4k4: 43 MB), dense and well within a worker's memory; else sorted arrays, whose
        # load is a read of the tier file (5x4k4+gravity solves 3x faster so).
        limit = self._memory_limit() or plan.working
        direct = (size <= min(limit // 2, _DIRECT_MAX)
                  and sum(t.canonical for t in counts) * _PAGE >= size)
        with progress(desc=f"solve {root.name}", total=len(counts), initial=len(counts) - top,
                      unit="tier") as bar:
            for ply in reversed(range(top)):
                spans = _spans(counts[ply].canonical, chunk_rows, 2 * self.workers)
                nxt = counts[ply + 1].canonical if ply + 1 < len(counts) else 0
                if 9 * nxt <= limit * _BROADCAST_SHARE:
                    parts = [self.client.submit(solve_part, root, path, ply, a, b, chunk_rows,
                                                direct, pure=False) for a, b in spans]
                else:
                    parts = self._solve_routed(root, work, ply, spans, nxt, chunk_rows)
                with progress(desc=f"  ply {ply}", total=counts[ply].canonical, unit="pos",
                              unit_scale=True) as inner:
                    scores = np.concatenate(
                        self._gather(parts, [b - a for a, b in spans], inner))
                del parts
                work.put("scores", ply, scores)
                on_tier(ply, scores)
                bar.update(1)
                bar.set_postfix(ply=ply)

    def _solve_routed(self, root: Root, work: WorkDir, ply: int, spans: list[tuple[int, int]],
                      nxt: int, chunk_rows: int) -> list[Any]:
        """Futures of the scores of each span of tier `ply`, tier ply+1 being too large to
        broadcast: each partition's distinct children go by code range to the owner of that
        range of tier ply+1, which looks them up; the answers come back to the partition."""
        from operator import getitem

        submit, path = self.client.submit, str(work.path)
        owners = _spans(nxt, max(1, -(-nxt // (2 * self.workers))), 2 * self.workers)
        codes = work.get("codes", ply + 1, in_memory=False)
        edges = [None, *(int(codes[a]) for a, _ in owners[1:]), None]
        kids = [submit(expand_part, root, path, ply, a, b, chunk_rows, pure=False)
                for a, b in spans]
        answers = [submit(lookup_range, path, ply + 1, a, b,
                          *[submit(range_piece, k, low, high, pure=False) for k in kids],
                          pure=False)
                   for (a, b), low, high in zip(owners, edges[:-1], edges[1:])]
        return [submit(solve_part_routed, root, path, ply, a, b, chunk_rows, kids[j],
                       *[submit(getitem, answer, j, pure=False) for answer in answers],
                       pure=False)
                for j, (a, b) in enumerate(spans)]


@contextmanager
def open_cluster(workers: int | None = None, scheduler: str | None = None,
                 memory_limit: str | int = "auto") -> Iterator[DaskExecutor]:
    """A Dask executor: a local cluster of `workers` processes (one thread each), or the
    existing cluster whose scheduler listens at `scheduler` (tcp://HOST:PORT). Raises
    ClusterError when Dask is missing or the scheduler cannot be reached."""
    try:
        import logging

        from distributed import Client, LocalCluster
    except ImportError as e:
        raise ClusterError(f"a cluster build needs Dask distributed: {EXTRA_HINT}") from e
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from e
        try:
            yield DaskExecutor(client)
        finally:
            client.close()
        return
    if workers is None or workers < 1:
        raise ClusterError(f"a local cluster needs at least one worker, found {workers}")
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           memory_limit=memory_limit, dashboard_address=":0",
                           silence_logs=logging.ERROR)
    try:
        client = Client(cluster)
        try:
            yield DaskExecutor(client)
        finally:
            client.close()
    finally:
        cluster.close()

"""Builds on a Dask cluster: each worker owns a code range of every tier, for the whole build.

One task a range a tier (builder/cluster/tasks.py), on the worker that owns the range:

  enumerate ply p    owner j merges what the owners of tier p-1 sent to its range, classifies
                     and writes it, expands its open positions (deduplicated locally with the
                     kernels of one process) and writes its children once, in one sorted
                     file whose parts the owners of tier p+1 read. The client only cuts the
                     ranges: it expands a sample of tier p's distinct positions (which its
                     owners report) and cuts tier p+1 at quantiles of their children.
  solve ply p        owner j loads tier p+1 once (every worker keeps it while tier p lasts),
                     solves its range, writes its scores and packs its blocks; the client
                     inserts the blocks in code order (SQLite: one writer), or the workers
                     write them themselves (PostgreSQL). A tier p+1 too large to load on every
                     worker is looked up by its owners instead: each range's children go to
                     the owners of tier p+1, which answer with their scores.

The tasks read and write files in the work directory, which every worker must share; every
task can be rerun from files that stay until the build no longer needs them, so a worker that
dies costs its tasks, not the build. Dask is imported only here, and only when a cluster is
opened.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from tablebase.builder.cluster import shared_table
from tablebase.builder.cluster.cuts import next_cuts
from tablebase.builder.cluster.tasks import (
    DIRECT,
    SHARED,
    SORTED,
    RangeDone,
    RangeSolved,
    enumerate_range,
    expand_range,
    incoming,
    kids_path,
    lookup_range,
    range_piece,
    solve_range,
)
from tablebase.builder.codetable import SPARSE, CodeTable
from tablebase.builder.executor import SolvedTier
from tablebase.builder.games.tier_kernels import TableRoot
from tablebase.builder.manifest import TierCounts, TierRanges
from tablebase.builder.memory import MemoryPlan, peak_bytes, reset_peak
from tablebase.builder.progress import ProgressFactory
from tablebase.builder.workdir import WorkDir
from tablebase.db.blocks import blocks_of
from tablebase.db.checksum import TableChecksum
from tablebase.db.writer import BlockTarget

EXTRA_HINT = "pip install 'tablebase[cluster]'"


# How long a cluster left with no worker (all lost at once) waits for one to come back.
_REJOIN_SECONDS = 60
# The share of a worker's memory that the lookup table of tier p+1 may take to be loaded on
# every worker for solving; a larger tier is looked up by its owners instead.
_BROADCAST_SHARE = 0.25


class ClusterError(RuntimeError):
    """The cluster cannot be used: Dask is not installed, or the scheduler cannot be reached."""


class DaskExecutor:
    """Runs a build's enumerate and solve stages on the workers of a Dask client."""

    def __init__(self, client: Any) -> None:
        self.client = client
        # Worker-seconds per task phase (merge, expand, send; load, solve, pack), summed over
        # the build, and the client's own seconds between tiers: the build's profile.
        self.profile: dict[str, float] = {}
        self.shared_table: str | None = None  # the name of the last solve's shared tables

    @property
    def workers(self) -> int:
        """The number of workers the scheduler knows now."""
        return max(1, len(self.client.scheduler_info()["workers"]))

    def _addresses(self) -> list[str]:
        """The workers' addresses; with none (all lost, their nannies restarting them), the
        first to come back within a minute, else ClusterError."""
        found = sorted(self.client.scheduler_info()["workers"])
        if not found:
            try:
                self.client.wait_for_workers(1, timeout=_REJOIN_SECONDS)
            except TimeoutError:
                raise ClusterError(f"the cluster has no worker, and none joined within"
                                   f" {_REJOIN_SECONDS} s") from None
            found = sorted(self.client.scheduler_info()["workers"])
        return found

    def _memory_limit(self) -> int:
        limits = [w.get("memory_limit") or 0 for w in self.client.scheduler_info()["workers"].values()]
        return min((m for m in limits if m), default=0)

    def reset_peaks(self) -> None:
        """Start every worker's peak-memory figure afresh."""
        self.client.run(reset_peak)

    def worker_peaks(self) -> list[int]:
        """Each worker's peak resident bytes since `reset_peaks` (or its start)."""
        return sorted(self.client.run(peak_bytes).values())

    def _run(self, fn: Callable[..., Any], calls: list[tuple[Any, ...]], sizes: Sequence[int],
             bar: Any, meanwhile: Callable[[], None] | None = None) -> list[Any]:
        """fn(*call) for every call, call i on worker i (or another if it is gone), results in
        order; `bar` advances by a call's size as it ends; `meanwhile` runs here once they are
        submitted."""
        addresses = self._addresses()
        futures = [self.client.submit(fn, *call, pure=False, workers=addresses[i % len(addresses)],
                                      allow_other_workers=True)
                   for i, call in enumerate(calls)]
        if meanwhile is not None:
            meanwhile()
        return self._gather(futures, sizes, bar)

    def _gather(self, futures: list[Any], sizes: Sequence[int], bar: Any) -> list[Any]:
        """The futures' results in order, `bar` advanced by a future's size as it ends; their
        phases' seconds added to the profile."""
        from distributed import as_completed

        index = {f.key: i for i, f in enumerate(futures)}
        results: list[Any] = [None] * len(futures)
        for done, result in as_completed(futures, with_results=True):
            results[index[done.key]] = result
            bar.update(sizes[index[done.key]])
        for result in results:
            for phase, seconds in getattr(result, "seconds", {}).items():
                self.profile[phase] = self.profile.get(phase, 0.0) + seconds
        return results

    def _tick(self, phase: str, since: float) -> float:
        now = time.perf_counter()
        self.profile[phase] = self.profile.get(phase, 0.0) + now - since
        return now

    # --- enumerate -------------------------------------------------------------------------

    def enumerate(self, root: TableRoot, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                  done: list[TierCounts], progress: ProgressFactory,
                  on_tier: Callable[[list[TierCounts]], None]) -> list[TierCounts]:
        """Enumerate the tiers after `done` on the cluster; return the counts of all tiers."""
        path, counts, owners = str(work.path), list(done), self.workers
        clock = time.perf_counter()
        # Each pass owns tier `ply`, cut at `cuts`, from what `sources` tasks of tier ply-1
        # sent (one file each); tier ply+1 is cut from the samples of tier `ply` its tasks
        # report (distinct positions, so the cuts hold equal shares of positions).
        if not counts:
            ply, sources, cuts = 0, 1, []
            np.zeros(1, np.int64).tofile(kids_path(work.path, 0, 0))
        else:
            last = counts[-1]
            if last.ply == root.cells or last.canonical == last.terminal_canonical:
                return counts
            # Resumed: send tier `last.ply`'s children again, from its range files.
            parts = work.parts("codes", last.ply)
            cuts = work.manifest.ranges[last.ply].cuts
            sizes = work.manifest.ranges[last.ply].sizes
            with progress(desc=f"  ply {last.ply} -> {last.ply + 1}", total=last.canonical,
                          unit="pos", unit_scale=True) as inner:
                sent = self._run(enumerate_range, [(root, path, last.ply, i, 0, cuts, True,
                                                    False) for i in range(parts)], sizes, inner)
            ply, sources = last.ply + 1, parts
            cuts = next_cuts(root, last.ply, [r.sample for r in sent], sizes, owners)
        with progress(desc=f"enumerate {root.name}", total=root.cells, initial=ply,
                      unit="tier") as bar:
            while True:
                arriving = incoming(path, ply, sources, cuts)
                clock = self._tick("client", clock)
                with progress(desc=f"  ply {ply} -> {ply + 1}", total=sum(arriving), unit="pos",
                              unit_scale=True) as inner:
                    sent = self._run(enumerate_range,
                                     [(root, path, ply, j, sources, cuts, ply < root.cells, True)
                                      for j in range(len(cuts) + 1)], arriving, inner)
                clock = time.perf_counter()
                counts.append(self._tier_enumerated(work, ply, cuts, sent))
                for source in range(sources):
                    kids_path(work.path, ply, source).unlink(missing_ok=True)
                on_tier(counts)
                bar.update(1)
                bar.set_postfix(ply=ply, positions=counts[-1].canonical)
                if ply == root.cells or counts[-1].canonical == counts[-1].terminal_canonical:
                    break
                sizes = [r.counts[0] for r in sent]
                ply, sources = ply + 1, len(cuts) + 1
                cuts = next_cuts(root, ply - 1, [r.sample for r in sent], sizes, owners)
        for left in work.path.glob("kids_*"):  # what the last tier's tasks sent: nothing
            left.unlink()
        return counts

    def _tier_enumerated(self, work: WorkDir, ply: int, cuts: list[int],
                         done: list[RangeDone]) -> TierCounts:
        """Record a tier's range files, cuts and sizes in the manifest; return its counts."""
        for kind in ("codes", "term"):
            work.add_parts(kind, ply, [r.files[kind] for r in done])
        work.manifest.ranges[ply] = TierRanges(cuts, [r.counts[0] for r in done],
                                               [r.first for r in done])
        work.manifest.spilled_runs += sum(r.spilled for r in done)
        # How unevenly the cuts shared the tier: the largest range over the mean, summed.
        sizes = [r.counts[0] for r in done]
        self.profile["largest ranges"] = self.profile.get("largest ranges", 0) + max(sizes)
        self.profile["mean ranges"] = self.profile.get("mean ranges", 0) + sum(sizes) / len(sizes)
        return TierCounts(ply, *(sum(r.counts[i] for r in done) for i in range(4)))

    # --- solve -----------------------------------------------------------------------------

    def solve(self, root: TableRoot, work: WorkDir, plan: MemoryPlan, table: CodeTable,
              counts: list[TierCounts], solved_from: int | None, progress: ProgressFactory,
              target: BlockTarget | None, on_tier: Callable[[SolvedTier], None]) -> None:
        """Solve every tier below `solved_from` on the cluster, deepest first: with one lookup
        table per machine in /dev/shm, which its workers share, where one fits."""
        top = len(counts) if solved_from is None else solved_from
        size = 3 ** root.cells
        limit = self._memory_limit() or plan.working
        shared = None
        if self._lookup(size, 0, counts, limit) == DIRECT and all(
                self.client.run(shared_table.can_share).values()):
            shared = shared_table.new_name()
        self.shared_table = shared  # the name, or None: for the tests and the bench's profile
        try:
            self._solve_tiers(root, work, counts, top, shared, limit, progress, target, on_tier)
        finally:
            if shared is not None:
                shared_table.forget(shared)  # the client's machine may be a worker's too
                try:
                    self.client.run(shared_table.forget, shared)
                except Exception:  # noqa: BLE001 - a lost worker has unmapped it already
                    pass

    def _solve_tiers(self, root: TableRoot, work: WorkDir, counts: list[TierCounts], top: int,
                     shared: str | None, limit: int, progress: ProgressFactory,
                     target: BlockTarget | None, on_tier: Callable[[SolvedTier], None]) -> None:
        """Solve tiers top-1 down to 0, each on the cluster."""
        path, size = str(work.path), 3 ** root.cells
        clock = time.perf_counter()
        with progress(desc=f"solve {root.name}", total=len(counts), initial=len(counts) - top,
                      unit="tier") as bar:
            # The client stores tier p's blocks while the workers solve tier p-1.
            pending: list[tuple[int, list[RangeSolved]]] = []

            def finish() -> None:
                while pending:
                    self._tier_solved(work, *pending.pop(), target, on_tier, bar)

            for ply in reversed(range(top)):
                tier = work.manifest.ranges[ply]
                nxt = counts[ply + 1].canonical if ply + 1 < len(counts) else 0
                parts_next = work.parts("codes", ply + 1) if nxt else 0
                mode = (f"{SHARED}:{shared}" if shared is not None
                        else self._lookup(size, nxt, counts, limit))
                calls = [(root, path, ply, j, parts_next, mode, target,
                          self._block_place(tier, j, size)) for j in range(len(tier.sizes))]
                clock = self._tick("client", clock)
                with progress(desc=f"  ply {ply}", total=counts[ply].canonical, unit="pos",
                              unit_scale=True) as inner:
                    if mode is None:
                        finish()
                        solved = self._solve_routed(root, work, ply, calls, tier.sizes, inner)
                    else:
                        solved = self._run(solve_range, calls, tier.sizes, inner, finish)
                pending.append((ply, solved))
                clock = time.perf_counter()
            clock = self._tick("client", clock)
            finish()

    def _tier_solved(self, work: WorkDir, ply: int, solved: list[RangeSolved],
                     target: BlockTarget | None, on_tier: Callable[[SolvedTier], None],
                     bar: Any) -> None:
        """Record a solved tier: its range files, checksum and values; its blocks stored."""
        start = time.perf_counter()
        work.add_parts("scores", ply, [r.file for r in solved])
        checksum = TableChecksum()
        for r in solved:
            if r.checksum is not None:
                checksum.merge(r.checksum)
        blocks = ([row for r in solved for row in (r.blocks or [])]
                  if target is not None and target.url is None else None)
        values = tuple(sum(r.values[i] for r in solved) for i in range(3))
        self.profile["ranges fetched"] = (self.profile.get("ranges fetched", 0)
                                          + sum(r.fetched for r in solved))
        on_tier(SolvedTier(ply, values, None, blocks, checksum.hexdigest()))  # type: ignore[arg-type]
        bar.update(1)
        bar.set_postfix(ply=ply)
        self._tick("client", start)

    def _lookup(self, size: int, nxt: int, counts: list[TierCounts], limit: int) -> str | None:
        """How every worker holds tier p+1 (`nxt` positions) to solve tier p; None: it is too
        large to load on every worker, and its owners answer the lookups."""
        # A direct table (a byte per code) where it fits half a worker's memory and the
        # tiers are dense enough in it (5x4k4+gravity's are not: 2.4 s of page faults a
        # worker); every worker keeps its own from tier to tier. Else
        # binary search in the tier as read: a hash table's fill is paid again on every worker,
        # and measured on Connect Four 6x4 it cost more than it saved (one worker 32.4 s hashed,
        # 28.5 s sorted; two workers 21.2 s and 17.1 s).
        if size <= limit // 2 and sum(t.canonical for t in counts) * SPARSE >= size:
            return DIRECT
        if 9 * nxt <= limit * _BROADCAST_SHARE:
            return SORTED
        return None

    @staticmethod
    def _block_place(tier: TierRanges, j: int, size: int) -> tuple[int, int, int, int]:
        """Range j's first block number, the next range's first code, and its code bounds."""
        sizes, firsts, cuts = tier.sizes, tier.firsts, tier.cuts
        after = [f for f in firsts[j + 1 :] if f is not None]
        low = cuts[j - 1] if j else 0
        high = cuts[j] if j < len(cuts) else size
        return (sum(blocks_of(n) for n in sizes[:j]), after[0] if after else size, low, high)

    def _solve_routed(self, root: TableRoot, work: WorkDir, ply: int, calls: list[tuple[Any, ...]],
                      sizes: list[int], bar: Any) -> list[RangeSolved]:
        """Solve tier `ply` range by range, tier ply+1 being too large to load on every worker:
        each range's distinct children go by code range to the owners of tier ply+1, which look
        them up; the answers come back to the range's owner."""
        from operator import getitem

        submit, path = self.client.submit, str(work.path)
        cuts = work.manifest.ranges[ply + 1].cuts
        edges: list[int | None] = [None, *cuts, None]
        kids = [submit(expand_range, root, path, ply, j, pure=False) for j in range(len(calls))]
        answers = [submit(lookup_range, path, ply + 1, k,
                          *[submit(range_piece, k_, low, high, pure=False) for k_ in kids],
                          pure=False)
                   for k, (low, high) in enumerate(zip(edges[:-1], edges[1:]))]
        futures = [submit(solve_range, *call, kids[j],
                          *[submit(getitem, answer, j, pure=False) for answer in answers],
                          pure=False)
                   for j, call in enumerate(calls)]
        return self._gather(futures, sizes, bar)


@contextmanager
def open_cluster(workers: int | None = None, scheduler: str | None = None,
                 memory_limit: str | int = "auto", threads: int | None = None
                 ) -> Iterator[DaskExecutor]:
    """A Dask executor: a local cluster of `workers` processes, each running its tasks'
    kernels on `threads` threads (default: an equal share of this machine's cores, at least
    one), or the existing cluster whose scheduler listens at `scheduler` (tcp://HOST:PORT),
    whose workers use the threads they were started with. Raises ClusterError when Dask is
    missing or the scheduler cannot be reached."""
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
    if threads is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        threads = max(1, (cores or 1) // workers)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
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

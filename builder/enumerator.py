"""Enumerate every position reachable from a table's root, as sorted canonical codes, tier by tier.

A tier is the set of positions with the same number of stones on the root's free cells (its
ply, counted from the root: the board's own ply is the root's plus this). Terminal positions are
kept but not expanded. Children are generated on whole chunks of a tier by the tier's compiled
kernels (the root binds them: builder/games/tier_kernels.py; builder/kernels.py runs them on
both cores), deduplicated within the memory plan (marked in a bitmap or byte table, or sorted), and each
finished tier is written to the work directory.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from tablebase.builder import cyclic, kernels
from tablebase.builder.codetable import CodeTable
from tablebase.builder.games.tier_kernels import OPEN
from tablebase.builder.games.tier_kernels import TableRoot as Root
from tablebase.builder.manifest import TierCounts
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.builder.sortedruns import UniqueCollector
from tablebase.builder.workdir import WorkDir

# In a tier's "term" array: the score of a terminal position, or OPEN for one still to play.


def children(root: Root, codes: np.ndarray, ply: int,
             chunk_rows: int = 1 << 18) -> Iterator[np.ndarray]:
    """The canonical children of non-terminal parents `codes` at `ply`, a chunk of parents at
    a time (duplicates and all)."""
    for start in range(0, len(codes), chunk_rows):
        yield kernels.expand(root.tier_kernels(ply), np.asarray(codes[start : start + chunk_rows]))


def collect_children(root: Root, codes: np.ndarray, ply: int, chunk_rows: int,
                     collector: UniqueCollector) -> None:
    """`children`, written straight into `collector`'s buffer."""
    tier = root.tier_kernels(ply)
    for start in range(0, len(codes), chunk_rows):
        part = np.asarray(codes[start : start + chunk_rows])
        kids = kernels.expand(tier, part, collector.room(len(part) * tier.room))
        collector.commit(len(kids))


def mark_children(root: Root, codes: np.ndarray, ply: int, table: CodeTable) -> None:
    """Mark every canonical child of non-terminal parents `codes` at `ply` in `table`'s
    bitmaps (or its direct byte table)."""
    kernels.mark(root.tier_kernels(ply), codes, table.mark_targets())


def classify(root: Root, ply: int, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(term, orbit sizes) of sorted canonical codes: term is the terminal score or OPEN."""
    codes = np.asarray(codes)
    if root.cyclic_tier(ply):  # either side may be to move: the tier's own rules say
        return cyclic.terms(root, codes), cyclic.orbits(root, codes)
    return kernels.classify(root.tier_kernels(ply), codes)


def distinct_children(root: Root, ply: int, parents: Iterable[np.ndarray], opened: int,
                      plan: MemoryPlan, table: CodeTable, scratch: Callable[[str], Path],
                      collector: UniqueCollector | None = None
                      ) -> tuple[Iterator[np.ndarray], UniqueCollector]:
    """The distinct canonical children of the open parents at `ply` (`opened` of them, in
    chunks), as ascending chunks, and the collector that sorted them (its `spilled` runs):
    `collector`, an empty one whose buffer is reused, or a new one.

    Every parent is expanded before the first chunk is yielded: marked in `table`'s bitmaps
    (or byte table) where reading the marks back pays, else sorted in runs within `plan`."""
    chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
    # Reading marks back scans the whole bitmap (or byte table): for large tiers only.
    use_marks = table.can_mark and table.mark_bytes <= 64 * opened * (root.cells - ply)
    if collector is None:
        collector = UniqueCollector(plan.buffer_items, plan.run_items, scratch)
    for block in parents:
        if use_marks:
            mark_children(root, block, ply, table)
        else:
            collect_children(root, block, ply, chunk_rows, collector)
    return (table.marked(chunk_rows) if use_marks else collector.chunks(chunk_rows)), collector


def _store_tier(root: Root, work: WorkDir, ply: int, chunks: Iterator[np.ndarray]) -> TierCounts:
    """Write a tier's codes and term arrays from ascending chunks of its codes; return its counts."""
    codes_out, term_out = work.writer("codes", ply), work.writer("term", ply)
    canonical = reachable = terminal = terminal_canonical = 0

    def append(chunk: np.ndarray, term: np.ndarray) -> None:
        codes_out.append(chunk)
        term_out.append(term)
    # A chunk is written (and its CRC taken) on a thread of its own while the next is merged
    # and classified: both release the GIL, and they were a serial sixth of the stage.
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending: Future[None] | None = None
        for chunk in chunks:
            term, orbits = classify(root, ply, chunk)
            if pending is not None:
                pending.result()
            pending = writer.submit(append, chunk, term)
            closed = term != OPEN
            canonical += len(chunk)
            reachable += int(orbits.sum())
            terminal += int(orbits[closed].sum())
            terminal_canonical += int(closed.sum())
        if pending is not None:
            pending.result()
    codes_out.close()
    term_out.close()
    return TierCounts(ply, canonical, reachable, terminal, terminal_canonical)


def enumerate_tiers(root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                    done: list[TierCounts], progress: ProgressFactory = NO_PROGRESS,
                    on_tier: Callable[[list[TierCounts]], None] | None = None) -> list[TierCounts]:
    """Enumerate the tiers after those in `done` (which are already in `work`); return all counts."""
    counts = list(done)
    if not counts:
        first = np.array([root.start_code], dtype=np.int64)
        if root.cyclic_tier(0):  # a start in the movement phase
            first = cyclic.enumerate_cyclic(root, first, progress)
        counts.append(_store_tier(root, work, 0, iter([first])))
        if on_tier is not None:
            on_tier(counts)
    chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
    # One collector for every tier: its buffer's pages are faulted in once, not once a tier.
    collector = UniqueCollector(plan.buffer_items, plan.run_items, work.scratch)
    with progress(desc=f"enumerate {root.name}", total=root.last_ply, initial=counts[-1].ply,
                  unit="tier") as bar:
        while counts[-1].ply < root.last_ply \
                and counts[-1].canonical > counts[-1].terminal_canonical:
            ply = counts[-1].ply
            codes = work.get("codes", ply, in_memory=plan.fits(work.nbytes("codes", ply)))
            term = work.get("term", ply, in_memory=plan.fits(work.nbytes("term", ply)))
            opened = counts[-1].canonical - counts[-1].terminal_canonical
            with progress(desc=f"  ply {ply} -> {ply + 1}", total=len(codes), unit="pos",
                          unit_scale=True) as inner:
                def parents() -> Iterator[np.ndarray]:
                    for start in range(0, len(codes), chunk_rows):
                        block = np.asarray(codes[start : start + chunk_rows])
                        yield block[np.asarray(term[start : start + chunk_rows]) == OPEN]
                        inner.update(min(chunk_rows, len(codes) - start))
                source, _ = distinct_children(root, ply, parents(), opened, plan, table,
                                              work.scratch, collector)
            if root.cyclic_tier(ply + 1):
                # The last placement's boards enter the movement phase; its tier is all they
                # reach by steps (a closure, not one ply deeper: steps can come back).
                entries = np.concatenate([np.empty(0, np.int64), *source])
                closed = cyclic.enumerate_cyclic(root, entries, progress)
                source = (closed[i:i + chunk_rows] for i in range(0, len(closed), chunk_rows))
            counts.append(_store_tier(root, work, ply + 1, source))
            work.manifest.spilled_runs += collector.spilled
            collector.spilled = 0
            del codes, term
            if on_tier is not None:
                on_tier(counts)
            bar.update(1)
            bar.set_postfix(ply=ply + 1, positions=counts[-1].canonical)
    return counts

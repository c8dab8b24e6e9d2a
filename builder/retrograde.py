"""Retrograde analysis: values and depths of every canonical position, deepest tier first.

Every move goes to the next tier, so solving tier p needs only tier p+1, read back from the
work directory; a cyclic tier (where stones move, the last: the movement phase) is solved
within itself first (builder/cyclic.py, with the kernels its game gives), and the tiers before
read it as any next tier. A position's score is the best `backup` of its children's scores,
found by the tier's kernels (builder/games/tier_kernels.py) against the next tier's scores
(db/scores.py is the one place that fixes the order of outcomes; the compiled `backup` of
builder/games/grid/kernel.py is its twin, tested equal on every score).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tablebase.builder import cyclic, kernels
from tablebase.builder.codetable import CodeTable
from tablebase.builder.games.tier_kernels import OPEN
from tablebase.builder.games.tier_kernels import TableRoot as Root
from tablebase.builder.manifest import TierCounts
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressBar, ProgressFactory
from tablebase.builder.workdir import TierArray, WorkDir


def solve_tier(root: Root, ply: int, codes: TierArray, term: TierArray, table: CodeTable,
               chunk_rows: int, bar: ProgressBar | None = None) -> np.ndarray:
    """Scores of one tier for the side to move, with the next tier already loaded in `table`."""
    scores = np.empty(len(codes), dtype=np.int8)
    lookup, tier = table.arrays(), root.tier_kernels(ply)
    for start in range(0, len(codes), chunk_rows):
        part = slice(start, start + chunk_rows)
        here = np.asarray(term[part])
        # Terminal positions keep their score (the kernel copies it), open ones get their best
        # move's: one pass over the tier, no gathering of the open rows.
        best = kernels.solve(tier, np.asarray(codes[part]), here, lookup, scores[part])
        if (best == kernels.UNSET).any():
            raise RuntimeError(f"a non-terminal position at ply {ply} of {root.name} has no move")
        if bar is not None:
            bar.update(int(np.count_nonzero(here == OPEN)))
    return scores


def solve_tiers(root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                counts: list[TierCounts], solved_from: int | None,
                progress: ProgressFactory = NO_PROGRESS,
                on_tier: Callable[[int, np.ndarray, TierArray], None] | None = None) -> None:
    """Solve every tier below `solved_from` (tiers from it up are already solved in `work`);
    `on_tier` gets each tier's ply, scores and codes as it is solved."""
    top = len(counts) if solved_from is None else solved_from
    chunk_rows = plan.chunk_rows(root.cells, len(root.symmetries))
    above: tuple[np.ndarray, np.ndarray] | None = None  # the tier just solved, in memory
    with progress(desc=f"solve {root.name}", total=len(counts), initial=len(counts) - top,
                  unit="tier") as bar:
        for ply in reversed(range(top)):
            if ply + 1 < len(counts):
                # Binary search reads the next tier at random: it must be in memory (the tier
                # just solved, as it is, rather than read again).
                table.load(*(above or (work.get("codes", ply + 1), work.get("scores", ply + 1))))
            above = None
            codes, term = _get(work, plan, "codes", ply), _get(work, plan, "term", ply)
            open_count = counts[ply].canonical - counts[ply].terminal_canonical
            if root.cyclic_tier(ply):
                # The movement phase: a graph with cycles, solved within its own tier.
                scores = cyclic.solve_cyclic(root, np.asarray(codes), np.asarray(term),
                                             progress)
            else:
                with progress(desc=f"  ply {ply}", total=open_count, unit="pos",
                              unit_scale=True) as inner:
                    scores = solve_tier(root, ply, codes, term, table, chunk_rows, inner)
            table.clear()
            work.put("scores", ply, scores)
            if on_tier is not None:
                on_tier(ply, scores, codes)
            if isinstance(codes, np.ndarray):
                above = (codes, scores)
            del codes, term, scores
            bar.update(1)
            bar.set_postfix(ply=ply)


def _get(work: WorkDir, plan: MemoryPlan, kind: str, ply: int) -> TierArray:
    return work.get(kind, ply, in_memory=plan.fits(work.nbytes(kind, ply)))

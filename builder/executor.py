"""The executor seam of the build: who runs the per-chunk functions of enumeration and solving.

The pipeline calls one executor for both stages. The local executor is the single-process
path; builder/cluster/ runs the same compiled kernels over code ranges on a Dask cluster,
whose workers also pack (and on a server database write) the blocks of their ranges. Either
gives the same positions, so the table cannot tell them apart (the same checksum).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tablebase.builder.codetable import CodeTable
from tablebase.builder.enumerator import enumerate_tiers
from tablebase.builder.games.tier_kernels import TableRoot
from tablebase.builder.manifest import TierCounts
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import ProgressFactory
from tablebase.builder.retrograde import solve_tiers
from tablebase.builder.workdir import TierArray, WorkDir
from tablebase.db.blocks import BlockRow
from tablebase.db.writer import BlockTarget


@dataclass
class SolvedTier:
    """One solved tier, as the solver hands it to the pipeline: its scores, for the pipeline to
    pack; or its blocks packed by a cluster's workers (rows for the client to insert, or None
    where the workers wrote them) and the checksum of its positions."""

    ply: int
    values: tuple[int, int, int]  # wins, draws, losses for the side to move
    scores: np.ndarray | None = None
    blocks: list[BlockRow] | None = None
    checksum: str | None = None
    codes: TierArray | None = None  # its codes, where the solver has them at hand


def tier_values(scores: np.ndarray) -> tuple[int, int, int]:
    """Wins, draws and losses for the side to move among `scores`."""
    return (int(np.count_nonzero(scores > 0)), int(np.count_nonzero(scores == 0)),
            int(np.count_nonzero(scores < 0)))


class Executor(Protocol):
    """Runs the enumerate and solve stages of one build over the tiers in a work directory."""

    def enumerate(self, root: TableRoot, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                  done: list[TierCounts], progress: ProgressFactory,
                  on_tier: Callable[[list[TierCounts]], None]) -> list[TierCounts]:
        """Enumerate the tiers after `done` into `work`; return the counts of all tiers."""
        ...

    def solve(self, root: TableRoot, work: WorkDir, plan: MemoryPlan, table: CodeTable,
              counts: list[TierCounts], solved_from: int | None, progress: ProgressFactory,
              target: BlockTarget | None, on_tier: Callable[[SolvedTier], None]) -> None:
        """Solve every tier below `solved_from` into `work`, deepest first; `target`: where
        the blocks of a packed table go (None: the rows layout)."""
        ...


class LocalExecutor:
    """This process alone: the builder's own loops over chunks."""

    def enumerate(self, root: TableRoot, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                  done: list[TierCounts], progress: ProgressFactory,
                  on_tier: Callable[[list[TierCounts]], None]) -> list[TierCounts]:
        """Enumerate in this process (tablebase.builder.enumerator.enumerate_tiers)."""
        return enumerate_tiers(root, work, plan, table, done, progress, on_tier)

    def solve(self, root: TableRoot, work: WorkDir, plan: MemoryPlan, table: CodeTable,
              counts: list[TierCounts], solved_from: int | None, progress: ProgressFactory,
              target: BlockTarget | None, on_tier: Callable[[SolvedTier], None]) -> None:
        """Solve in this process (tablebase.builder.retrograde.solve_tiers); the pipeline packs."""
        solve_tiers(root, work, plan, table, counts, solved_from, progress,
                    lambda ply, scores, codes: on_tier(
                        SolvedTier(ply, tier_values(scores), scores, codes=codes)))


LOCAL = LocalExecutor()

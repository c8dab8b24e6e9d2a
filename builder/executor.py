"""The executor seam of the build: who runs the per-chunk functions of enumeration and solving.

The pipeline calls one executor for both stages. The local executor is the single-process
path, unchanged; builder/cluster.py maps the same pure per-chunk functions (`children`,
`classify`, `solve_tier`) over partitions on a Dask cluster. Either gives the same tier files,
so the write stage, and the table it writes, cannot tell them apart.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from tablebase.builder.codetable import CodeTable
from tablebase.builder.enumerator import TierCounts, enumerate_tiers
from tablebase.builder.game.root import Root
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import ProgressFactory
from tablebase.builder.retrograde import solve_tiers
from tablebase.builder.workdir import WorkDir


class Executor(Protocol):
    """Runs the enumerate and solve stages of one build over the tiers in a work directory."""

    def enumerate(self, root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                  done: list[TierCounts], progress: ProgressFactory,
                  on_tier: Callable[[list[TierCounts]], None]) -> list[TierCounts]:
        """Enumerate the tiers after `done` into `work`; return the counts of all tiers."""
        ...

    def solve(self, root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
              counts: list[TierCounts], solved_from: int | None, progress: ProgressFactory,
              on_tier: Callable[[int, np.ndarray], None]) -> None:
        """Solve every tier below `solved_from` into `work`, deepest first."""
        ...


class LocalExecutor:
    """This process alone: the builder's own loops over chunks."""

    def enumerate(self, root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
                  done: list[TierCounts], progress: ProgressFactory,
                  on_tier: Callable[[list[TierCounts]], None]) -> list[TierCounts]:
        """Enumerate in this process (tablebase.builder.enumerator.enumerate_tiers)."""
        return enumerate_tiers(root, work, plan, table, done, progress, on_tier)

    def solve(self, root: Root, work: WorkDir, plan: MemoryPlan, table: CodeTable,
              counts: list[TierCounts], solved_from: int | None, progress: ProgressFactory,
              on_tier: Callable[[int, np.ndarray], None]) -> None:
        """Solve in this process (tablebase.builder.retrograde.solve_tiers)."""
        solve_tiers(root, work, plan, table, counts, solved_from, progress, on_tier)


LOCAL = LocalExecutor()

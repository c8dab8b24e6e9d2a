"""What a build of a game given as a class reports (a walk's, builder/graph_build.py, or a build
of ranked tiers, builder/ranked_table.py), and the helpers both stages share.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from tablebase.builder.manifest import StageFigures
from tablebase.builder.memory import peak_bytes, reset_peak
from tablebase.db.errors import NotATablebaseError
from tablebase.db.records import PlyCounts
from tablebase.db.store import open_store


@dataclass
class GameBuildReport:
    """What a finished build of a game given as a class found, and how long each stage took."""

    name: str
    root: str  # '' for the game from its start, else the start's key (an endgame table)
    reachable: int  # positions, every image of an orbit counted
    canonical: int  # positions stored: one an orbit
    terminal: int
    root_value: int  # +1, 0, -1 for the side to move at the start
    root_depth: int | None  # None: a draw by endless play
    plies: list[PlyCounts]
    stages: dict[str, StageFigures] = field(default_factory=dict)
    memory_budget: int = 0
    tiers: int = 0  # a game built as ranked tiers: how many (0: built by a walk)
    resumed_tiers: int = 0  # of them, finished by earlier commands (their seconds in "solve")

    @property
    def seconds(self) -> float:
        """Total wall seconds over all stages."""
        return sum(s.seconds for s in self.stages.values())


def complete_table(database: str, name: str, root: str) -> bool:
    """Whether `database` already holds a complete table of `name` from `root`."""
    if "://" not in database and not os.path.exists(database):
        return False
    try:
        store = open_store(database)
    except NotATablebaseError:  # an empty database, say: the write stage makes the schema
        return False
    try:
        return any(g.complete and g.root == root for g in store.games(name))
    finally:
        store.close()


class stage:
    """Times a stage and records its peak memory in `stages`."""

    def __init__(self, stages: dict[str, StageFigures], name: str) -> None:
        self.stages, self.name = stages, name

    def __enter__(self) -> None:
        reset_peak()
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.stages[self.name] = StageFigures(time.perf_counter() - self.start, peak_bytes())

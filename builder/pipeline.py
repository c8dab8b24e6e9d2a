"""The build pipeline: enumerate, solve, write, with progress, timings and peak memory per stage."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata

import numpy as np

from builder.codetable import CodeTable
from builder.enumerator import Tier, enumerate_tiers
from builder.game.spec import Spec
from builder.game.values import Value, depth_of, value_of
from builder.memory import peak_bytes, reset_peak
from builder.progress import NO_PROGRESS, ProgressFactory
from builder.retrograde import solve
from db.engine import open_database
from db.writer import (GameParams, GameSummary, PlyCounts, abandon_build, begin_build,
                       finish_build, write_positions)

STAGES = ("enumerate", "solve", "write")


def tool_version() -> str:
    """This package's version, as installed."""
    try:
        return importlib_metadata.version("tablebase")
    except importlib_metadata.PackageNotFoundError:
        return "0+unknown"


def default_memory_budget() -> int:
    """Half of the machine's physical memory, in bytes."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 4 << 30


@dataclass
class StageFigures:
    """Wall seconds and peak resident bytes of one stage."""

    seconds: float = 0.0
    peak_bytes: int = 0


@dataclass
class BuildReport:
    """What a finished build found and how long each stage took."""

    spec: Spec
    reachable: int
    canonical: int
    terminal: int
    root_value: Value
    root_depth: int
    plies: list[PlyCounts]
    stages: dict[str, StageFigures] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        """Total wall seconds over all stages."""
        return sum(s.seconds for s in self.stages.values())


class _Stage:
    """Times a stage and records its peak memory into `figures`."""

    def __init__(self, figures: StageFigures) -> None:
        self.figures = figures

    def __enter__(self) -> _Stage:
        self._reset = reset_peak()
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.figures.seconds = time.perf_counter() - self._start
        self.figures.peak_bytes = peak_bytes()


def ply_counts(tiers: list[Tier], scores: list[np.ndarray]) -> list[PlyCounts]:
    """Per-ply counts of positions (with images, canonical, terminal) and canonical ones by value."""
    out = []
    for tier, tier_scores in zip(tiers, scores):
        out.append(PlyCounts(
            ply=tier.ply, reachable=tier.reachable, canonical=len(tier.codes),
            terminal=tier.terminal_reachable,
            wins=int(np.count_nonzero(tier_scores > 0)),
            draws=int(np.count_nonzero(tier_scores == 0)),
            losses=int(np.count_nonzero(tier_scores < 0))))
    return out


def build(spec: Spec, database: str, *, force: bool = False,
          progress: ProgressFactory = NO_PROGRESS, memory_budget: int | None = None,
          write_chunk: int = 1 << 17) -> BuildReport:
    """Strongly solve `spec` and store it in `database` (a path or SQLAlchemy URL).

    Raises GameExistsError if the game is complete there and `force` is false. On any
    failure or interruption the database keeps no complete-looking table of the new build.
    """
    budget = memory_budget if memory_budget is not None else default_memory_budget()
    figures = {stage: StageFigures() for stage in STAGES}
    params = GameParams(spec.name, spec.width, spec.height, spec.k, spec.gravity, spec.misere)
    with open_database(database, writable=True) as engine:
        handle = begin_build(engine, params, force=force)
        try:
            # The direct table costs one byte per possible code; keep it within a third of the budget.
            table = CodeTable(spec.cells, direct_bytes_limit=budget // 3)
            with _Stage(figures["enumerate"]):
                tiers = enumerate_tiers(spec, table, progress)
            with _Stage(figures["solve"]):
                scores = solve(spec, tiers, table, progress)
            del table
            plies = ply_counts(tiers, scores)
            total = sum(len(t.codes) for t in tiers)
            with _Stage(figures["write"]), progress(desc=f"write {spec.name}", total=total,
                                                     unit="pos", unit_scale=True) as bar:
                for tier, tier_scores in zip(tiers, scores):
                    empties = spec.cells - tier.ply
                    for start in range(0, len(tier.codes), write_chunk):
                        chunk = tier_scores[start : start + write_chunk]
                        write_positions(engine, handle, tier.codes[start : start + write_chunk],
                                        np.full(len(chunk), tier.ply, np.int8),
                                        value_of(chunk), depth_of(chunk, empties))
                        bar.update(len(chunk))
            root_score = int(scores[0][0])
            root_value = Value(int(value_of(np.array([root_score]))[0]))
            root_depth = int(depth_of(np.array([root_score]), spec.cells)[0])
            report = BuildReport(
                spec=spec, reachable=sum(p.reachable for p in plies), canonical=total,
                terminal=sum(p.terminal for p in plies), root_value=root_value,
                root_depth=root_depth, plies=plies, stages=figures)
            finish_build(engine, handle, GameSummary(
                reachable=report.reachable, canonical=total, terminal=report.terminal,
                terminal_canonical=sum(int(t.terminal.sum()) for t in tiers),
                wins=sum(p.wins for p in plies), draws=sum(p.draws for p in plies),
                losses=sum(p.losses for p in plies), root_value=int(root_value),
                root_depth=root_depth, tool_version=tool_version(),
                build_seconds=report.seconds,
                stages={name: {"seconds": f.seconds, "peak_bytes": f.peak_bytes}
                        for name, f in figures.items()}), plies)
        except BaseException:
            abandon_build(engine, handle)
            raise
    return report

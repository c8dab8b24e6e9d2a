"""The build of a game that comes as ranked tiers (`Game.tiers()`: a morris game, say): its tiers
solved one by one into a work folder (builder/ranked_build.py: each finished tier a file, so
an interrupted build resumes at the first tier it had not finished), then stored in the tiered
layout (db/tiered.py) and published atomically. Nothing touches the database before every
tier is solved; the folder is removed once the table is published.
"""
from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from tablebase.builder.game_report import GameBuildReport, complete_table, stage
from tablebase.builder.games.protocol import Game
from tablebase.builder.games.ranked_tiers import RANKED_WIN, RankedGame, score_outcome
from tablebase.builder.manifest import StageFigures
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.builder.ranked_build import (
    FIXED_BYTES,
    TierFigures,
    build_tiers,
    check_room,
    load_tier,
    out_of_core,
    read_manifest,
)
from tablebase.builder.ranked_work import BYTES_A_POSITION
from tablebase.builder.workdir import work_path
from tablebase.db.engine import database_file
from tablebase.db.errors import GameExistsError
from tablebase.db.facts import LAYOUT_TIERED_8192
from tablebase.db.keyed_writer import KeyedBuild, open_keyed_build
from tablebase.db.records import GameParams, GameSummary, PlyCounts, table_label
from tablebase.db.tiered import TIER_BLOCKS, TierRows, tier_order
from tablebase.version import tool_version

# Indices a chunk written at once (a transaction): whole blocks, of any tiered layout.
_WRITE_CHUNK = 128 * max(TIER_BLOCKS.values())


# How a build stores its tiers (db/tiered.py): blocks of 8,192 found by an integer id.
TABLE_LAYOUT = LAYOUT_TIERED_8192
# Indices a second on two cores, measured building nine men's morris again (docs/benchmarks.md,
# 2026-12-05): its movement phase's cyclic tiers 9.2e9 indices in 3,817 s of their own with the
# sets ranked by byte tables (2.4 million a second; 4,553 s before them), its placement tiers
# (loop-free, one read of the tier below a move) 1.87e10 indices in 2,468 s with the children
# ranked so too (7.6 million a second; 6.3 to 6.6 before). What an estimate assumes; not a
# promise.
_CYCLIC_RATE = 2.4e6
_LOOP_FREE_RATE = 7.5e6
# A tier solved out of core, against the same tier in memory: nine men's morris's 8-7 under
# --memory 4 in 622 s against 586 (docs/benchmarks.md); 6-5 in 4 slices 1.25 times.
_OUT_OF_CORE_SLOWER = 1.2
# The table's bytes an index, to check the disk holds it before anything is solved: nine men's
# morris's blocks take 3.1 bits an index, six men's morris's 2.8
# (docs/benchmarks.md); half a byte is above both. What an estimate assumes; a table that takes
# more fails in its write stage, its tiers kept.
_TABLE_BYTES_AN_INDEX = 0.5
# Indices a second the write stage reads, packs and stores: nine men's morris's 2.8e10 at zstd
# 11 in 1,249 s in its build (2.2e7 a second; docs/benchmarks.md), a little kept in hand.
_WRITE_RATE = 2.0e7
# Builds smaller than this many indices go unannounced (seconds).
_WORTH_SAYING = 10 ** 8


def table_bytes(tiers: RankedGame) -> int:
    """About how many bytes the table of `tiers` takes in the database (an estimate made
    before they are solved)."""
    return int(_TABLE_BYTES_AN_INDEX * sum(t.size for t in tiers.ranked_tiers()))


def estimate_text(tiers: RankedGame, folder: Path, memory_budget: int) -> str | None:
    """What a build of `tiers` still has to do (the tiers `folder` has not finished) within
    `memory_budget`: indices, disk, memory, the tiers solved out of core and hours, in words;
    None where it is small."""
    done = read_manifest(folder, tiers.name) if folder.exists() else {}
    left = [t for t in tiers.ranked_tiers() if t.name not in done]
    indices = sum(t.size for t in left)
    if indices < _WORTH_SAYING:
        return None
    out = [t for t in left if out_of_core(t, memory_budget)]
    seconds = sum(t.size / (_LOOP_FREE_RATE if not t.room else _CYCLIC_RATE
                            / (_OUT_OF_CORE_SLOWER if t in out else 1)) for t in left)
    seconds += sum(t.size for t in tiers.ranked_tiers()) / _WRITE_RATE
    memory = min(max(t.size * (BYTES_A_POSITION if t.room else 2) for t in left) + FIXED_BYTES,
                 memory_budget)
    resumed = f" ({len(done)} finished before: resumed)" if done else ""
    beyond = (f", {len(out)} of them out of core ({', '.join(t.name for t in out[:4])}"
              f"{', ...' if len(out) > 4 else ''})" if out else "")
    return (f"{indices:,} positions in {len(left)} tiers{resumed}{beyond};"
            f" {2 * indices / 2**30:.1f} GiB of tier files beside the database and about"
            f" {table_bytes(tiers) / 2**30:.1f} GiB for the table,"
            f" {memory / 2**30:.1f} GiB of memory at most; about {seconds / 3600:.1f} hours on"
            " two cores")


class TiersKept(KeyboardInterrupt):
    """A build of ranked tiers interrupted: where the tiers it finished are kept."""


def build_tiered(game: Game, tiers: RankedGame, database: str, *, force: bool = False,
                 progress: ProgressFactory = NO_PROGRESS, memory_budget: int | None = None,
                 work_dir: str | None = None,
                 announce: Callable[[str], None] | None = None) -> GameBuildReport:
    """Strongly solve `game` from its start as the ranked tiers `tiers` and store the table in
    `database`. The tiers are solved in a folder beside the database (inside `work_dir` where
    given) that a build run again resumes. GameExistsError if the table is complete and
    `force` is false, BuildTooLargeError where a tier would not fit the memory budget or the
    tiers the disk (each before any work), TierFileError for a damaged tier file.
    `announce`, where given, is told what a large build has still to do before it starts."""
    label = table_label(game.name, "", keyed=True)
    if not force and complete_table(database, game.name, ""):
        raise GameExistsError(f"{label} is already built; add --force to rebuild it")
    plan = MemoryPlan.for_budget(memory_budget)
    folder = work_path(database, game.name, work_dir)
    file = database_file(database)  # a build that cannot finish says so first
    check_room(tiers, folder, plan.budget,
               table=None if file is None else (Path(file).parent, table_bytes(tiers)))
    said = estimate_text(tiers, folder, plan.budget)
    if said is not None and announce is not None:
        announce(said)
    earlier = read_manifest(folder, tiers.name) if folder.exists() else {}
    stages: dict[str, StageFigures] = {}
    with stage(stages, "solve"):
        try:
            done = build_tiers(tiers, folder, plan.budget, progress)
        except KeyboardInterrupt as e:
            kept = len(read_manifest(folder, tiers.name))
            raise TiersKept(f"the {kept} tiers finished are kept in {folder}: the same command"
                            " resumes there") from e
    # A resumed build's solve stage counts the tiers earlier commands finished, at the seconds
    # each took, so the table records what its whole build cost (its peak: this command's).
    solved = stages["solve"]
    stages["solve"] = StageFigures(solved.seconds + sum(f.seconds for f in earlier.values()),
                                   solved.peak_bytes)
    root_tier, root_index = tiers.locate(game.start())
    root_value, root_depth = score_outcome(int(load_tier(folder, done[root_tier])[root_index]))
    figures = list(done.values())
    positions = sum(f.positions for f in figures)
    report = GameBuildReport(game.name, "", positions, sum(f.size for f in figures), 0,
                             root_value, root_depth, [], stages, plan.budget,
                             len(figures), resumed_tiers=len(earlier))
    params = GameParams(game.name, 0, 0, 0, False, False, "", keyed=True)
    with stage(stages, "write"), open_keyed_build(database, params, force=force,
                                                   layout=TABLE_LAYOUT) as build:
        checksum, lost = write_tiers(build, folder, figures, progress)
        report.terminal = sum(lost)
        report.plies = tier_counts(figures, lost)
        build.finish(GameSummary(
            reachable=positions, canonical=report.canonical, terminal=report.terminal,
            terminal_canonical=report.terminal, wins=sum(f.wins for f in figures),
            draws=sum(f.draws for f in figures), losses=sum(f.losses for f in figures),
            root_value=root_value, root_depth=-1 if root_depth is None else root_depth,
            tool_version=tool_version(), build_seconds=report.seconds,
            stages={name: {"seconds": s.seconds, "peak_bytes": s.peak_bytes}
                    for name, s in stages.items()}, checksum=checksum), report.plies)
    shutil.rmtree(folder, ignore_errors=True)
    return report


def in_key_order(figures: list[TierFigures]) -> list[TierFigures]:
    """The tiers in the order the layout numbers them in (db/tiered.py's tier_order)."""
    return sorted(figures, key=lambda f: tier_order(f.name))


def tier_counts(figures: list[TierFigures], lost: list[int]) -> list[PlyCounts]:
    """The table's counts, a row a tier, numbered as the layout numbers its tiers (the `ply`
    of a row: in_key_order's); `lost`, each tier's positions lost at once, in that order."""
    return [PlyCounts(k, f.positions, f.positions, lost_at_once, f.wins, f.draws, f.losses)
            for k, (f, lost_at_once) in enumerate(zip(in_key_order(figures), lost))]


def write_tiers(build: KeyedBuild, folder: Path, figures: list[TierFigures],
                progress: ProgressFactory = NO_PROGRESS) -> tuple[str, list[int]]:
    """Write the finished tiers `figures` of `folder` into a build of the tiered layout,
    in_key_order; return the table's checksum and how many positions of each tier, in that
    order, are lost at once (no move)."""
    checksum = hashlib.blake2b(digest_size=8)
    lost: list[int] = []
    with progress(desc="write", total=sum(f.size for f in figures), unit="pos",
                  unit_scale=True) as bar:
        def chunks() -> Iterator[TierRows]:
            for f in in_key_order(figures):
                scores = load_tier(folder, f)
                lost.append(0)
                for start in range(0, f.size, _WRITE_CHUNK):
                    part = np.asarray(scores[start:start + _WRITE_CHUNK])
                    lost[-1] += int(np.count_nonzero(part == -RANKED_WIN))
                    yield TierRows(f.name, start, part)
                    bar.update(len(part))
        build.write(chunks(), checksum)
    return checksum.hexdigest(), lost


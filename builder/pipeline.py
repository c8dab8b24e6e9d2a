"""The build pipeline: enumerate, solve, write, with progress, timings and peak memory per stage.

One pipeline for every table: a whole-game table is the endgame table whose root is the game's
start, so the enumerator and the solver never ask which kind they build; and it knows a table
only through its root (builder/games/tier_kernels.py's TableRoot, which the registry gives for a
spec), so it never asks which family of games it builds either.

Tiers go to a work directory next to the database as they are finished; its manifest lets an
interrupted build resume from the last finished tier. The write stage merges all tiers in code
order, so the database only ever appends to the end of its table.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tablebase.builder import cyclic
from tablebase.builder.codetable import SPARSE, CodeTable, bitmap_bytes, hash_bytes
from tablebase.builder.estimate import estimate_build
from tablebase.builder.executor import LOCAL, Executor, SolvedTier
from tablebase.builder.game_report import GameBuildReport
from tablebase.builder.games.errors import (
    BuildTooLargeError,
    InvalidPositionError,
    InvalidSpecError,
)
from tablebase.builder.games.registry import keyed_game, table_root
from tablebase.builder.games.tier_kernels import TableRoot
from tablebase.builder.games.values import Value
from tablebase.builder.graph_build import build_game
from tablebase.builder.kernels import warm_up
from tablebase.builder.manifest import MANIFEST_VERSION, Manifest, StageFigures, TierCounts
from tablebase.builder.memory import MemoryPlan, peak_bytes, reset_peak, steady_malloc
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.builder.sortedruns import merge_cuts
from tablebase.builder.workdir import WorkDir, work_path
from tablebase.db.checksum import TableChecksum
from tablebase.db.engine import open_database
from tablebase.db.facts import DEFAULT_CACHE_BYTES, LAYOUT_PACKED
from tablebase.db.records import PositionArrays
from tablebase.db.scores import NO_DEPTH, depth_of, value_of
from tablebase.db.writer import (
    BlockTarget,
    BuildHandle,
    GameParams,
    GameSummary,
    PlyCounts,
    abandon_build,
    begin_build,
    blocks_written,
    finish_build,
    write_blocks,
    write_positions,
    write_tier,
)
from tablebase.version import tool_version

STAGES = ("enumerate", "solve", "write")


@dataclass
class BuildReport:
    """What a finished build found, how long each stage took, and how it used memory."""

    root: TableRoot
    reachable: int
    canonical: int
    terminal: int
    root_value: Value
    root_depth: int | None  # None: a draw by endless play
    plies: list[PlyCounts]
    stages: dict[str, StageFigures] = field(default_factory=dict)
    memory_budget: int = 0
    lookup: str = "sorted"  # how solving found children's scores: "direct", "hashed" or "sorted"
    spilled_runs: int = 0
    resumed_stage: str | None = None
    load_seconds: float = 0.0  # loading the compiled kernels, the process's first build only

    @property
    def name(self) -> str:
        """The game as the catalogue names it (its spec)."""
        return self.root.game_name

    @property
    def direct_table(self) -> bool:
        """Whether solving looked children up in a direct table by code."""
        return self.lookup == "direct"

    @property
    def seconds(self) -> float:
        """Total wall seconds over all stages."""
        return sum(s.seconds for s in self.stages.values())


class _Stage:
    """Times a stage and records its peak memory, in the report and the manifest."""

    def __init__(self, work: WorkDir, name: str) -> None:
        self.work, self.name = work, name

    def __enter__(self) -> _Stage:
        reset_peak()
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.work.manifest.stages[self.name] = StageFigures(
                time.perf_counter() - self._start, peak_bytes())
            self.work.save_manifest(now=False)


_loaded: set[type] = set()  # the kinds of root whose kernels this process has loaded


def _load_kernels(root: TableRoot) -> None:
    if type(root) not in _loaded:
        warm_up(root)
        _loaded.add(type(root))


def _check_cyclic(root: TableRoot, layout: str, executor: Executor) -> None:
    """Refuse, before anything starts, what a table with a cyclic tier (a tier whose positions
    can come back, as the movement phase of stones that move) is not built with yet."""
    if not any(root.cyclic_tier(t) for t in range(root.last_ply + 1)):
        return
    if layout != LAYOUT_PACKED:
        raise InvalidSpecError(f"{root.game_name}: a game whose positions can come back is"
                               " stored packed only (its cyclic tier has no ply a row could"
                               " name)")
    if executor is not LOCAL:
        raise InvalidSpecError(f"{root.game_name}: a game whose positions can come back is"
                               " built on this machine only (its cyclic tier is solved as a"
                               " whole); leave out --workers and --scheduler")


def work_slug(root: TableRoot) -> str:
    """The name of a table's work directory: the game, and a digest of an endgame root."""
    if root.is_whole:
        return root.game_name
    return f"{root.game_name}@{hashlib.sha1(root.key.encode()).hexdigest()[:12]}"


def build(spec: object, database: str, *, root: Sequence[int] | str | None = None,
          force: bool = False, resume: bool = False, progress: ProgressFactory = NO_PROGRESS,
          memory_budget: int | None = None, write_chunk: int = 1 << 17,
          executor: Executor = LOCAL, work_dir: str | None = None,
          layout: str = LAYOUT_PACKED, yes: bool = False) -> BuildReport | GameBuildReport:
    """Strongly solve `spec` (its text, or a parsed Spec) from `root` (cell values; None: the
    start, a whole-game table) and store the table in `database` (a path or SQLAlchemy URL); a
    class spec (docs/games.md) by builder/graph_build.py (`root`: a position's text), its
    GameBuildReport.

    An endgame table holds every position reachable from its root, one per orbit of the
    root's stabiliser. `memory_budget` is in bytes (default: half the machine's memory). With
    `resume`, an interrupted build of the same spec continues from its last finished tier;
    without it, any unfinished build starts over. Raises GameExistsError if the game is complete and
    `force` is false. A failure removes the work directory and the unfinished table; an
    interruption (KeyboardInterrupt) keeps both for `resume`. Either way no game reads as
    complete until the last, atomic step. `executor` runs enumeration and solving (default:
    this process; builder/cluster/: a Dask cluster); `work_dir` is the directory the tier
    files go under (default: next to the database), one that every worker can read.
    `layout` is how the table is stored: "packed" (blocks, the default) or "rows" (one SQL
    row per position). A build estimated past a billion positions or the free disk
    (builder/estimate.py) raises BuildTooLargeError before it starts, unless `yes`.
    """
    game = keyed_game(spec) if isinstance(spec, str) else None
    if game is not None:
        if root is not None and not isinstance(root, str):
            raise InvalidPositionError(f"{game.name}: a start is given as the game's text")
        return build_game(game, database, start=root, force=force, progress=progress,
                          memory_budget=memory_budget, work_dir=work_dir)
    assert not isinstance(root, str), "a grid game's root is given as cell values"
    table = table_root(spec, root)
    _check_cyclic(table, layout, executor)
    estimate = estimate_build(table, database, work_dir)
    reason = estimate.refusal()
    if reason is not None and not yes:
        raise BuildTooLargeError(
            f"{table.name}: not started, {reason}: {estimate.text()}; build from a position"
            " with more stones, or go ahead anyway with --yes (yes=True from Python)")
    # Outside the stages' timings: the first build of a process loads the compiled kernels.
    start = time.perf_counter()
    _load_kernels(table)
    steady_malloc()
    load_seconds = time.perf_counter() - start
    plan = MemoryPlan.for_budget(memory_budget)
    if table.cyclic_tier(table.last_ply) and cyclic.bytes_needed(estimate.positions) \
            > plan.working and not yes:
        raise BuildTooLargeError(
            f"{table.name}: not started, its movement phase is solved in memory, about"
            f" {cyclic.bytes_needed(estimate.positions) / 2**20:,.0f} MiB for"
            f" {estimate.positions:,} positions, past the budget's"
            f" {plan.working / 2**20:,.0f} MiB; give a larger --memory, or go ahead anyway"
            " with --yes (yes=True from Python)")
    params = GameParams(table.game_name, *table.catalogue(), root=table.key)
    # Tier arrays wait in memory for a checkpoint only where no other process reads them.
    work = WorkDir(work_path(database, work_slug(table), work_dir), defer=executor is LOCAL)
    manifest = _resumable(work, table, layout) if resume else None
    # SQLite's page cache gets a sixteenth of the working memory, at most its usual 256 MiB.
    cache = min(plan.working // 16, DEFAULT_CACHE_BYTES)
    with open_database(database, writable=True, cache_bytes=cache) as engine:
        handle = begin_build(engine, params, force=force, layout=layout, coded_cells=table.code_digits,
                             resume_table=manifest.table if manifest else None,
                             supports=_supports(table))
        resumed_stage = None
        if manifest is not None and manifest.table == handle.table_name:
            resumed_stage = _stage_of(manifest)
        else:
            work.start(Manifest(spec=table.game_name, root=table.key, tool_version=tool_version(),
                                table=handle.table_name, layout=layout))
        try:
            report = _run(table, work, plan, engine, handle, progress, write_chunk, executor)
        except KeyboardInterrupt:
            work.save_manifest()  # every finished tier, for --resume
            raise
        except BaseException:
            abandon_build(engine, handle)
            work.remove()
            raise
    work.remove()
    report.resumed_stage = resumed_stage
    report.load_seconds = load_seconds
    return report


def _supports(table: TableRoot) -> tuple[int, ...]:
    """Which digit of a code each digit's stone needs (db/ranking.py), -1 none."""
    return table.supports()


def _resumable(work: WorkDir, root: TableRoot, layout: str) -> Manifest | None:
    """The manifest of an interrupted build of this table by this tool in `layout`, or None."""
    if not work.exists():
        return None
    try:
        manifest = work.load_manifest()
    except (OSError, ValueError):
        return None
    same = (manifest.version == MANIFEST_VERSION and manifest.spec == root.game_name
            and manifest.root == root.key
            and manifest.tool_version == tool_version() and manifest.layout == layout)
    # A power loss can leave the manifest and the files out of step: then start over.
    return manifest if same and work.intact() else None


def _stage_of(manifest: Manifest) -> str:
    """Where a resumed build picks up, in words."""
    if not manifest.enumerated:
        return f"enumerate, continuing after ply {max(len(manifest.tiers) - 1, 0)}"
    if manifest.solved_from != 0:
        top = manifest.solved_from if manifest.solved_from is not None else len(manifest.tiers)
        return f"solve, continuing at ply {top - 1}"
    if manifest.layout == LAYOUT_PACKED:
        return "write, every ply's blocks written"
    return "write, continuing after the positions already written"


def _run(root: TableRoot, work: WorkDir, plan: MemoryPlan, engine: Any, handle: BuildHandle,
         progress: ProgressFactory, write_chunk: int, executor: Executor) -> BuildReport:
    m = work.manifest
    table = CodeTable(root.code_digits, direct=plan.direct_fits(3 ** root.code_digits),
                      bits=plan.direct_fits(bitmap_bytes(root.code_digits)))
    counts = list(m.tiers)
    parts: dict[int, list[tuple[int, np.ndarray | slice]]] = {}  # a cyclic tier's, as written
    if not m.enumerated:
        with _Stage(work, "enumerate"):
            def tier_done(done: list[TierCounts]) -> None:
                m.tiers = list(done)
                work.save_manifest(now=False)
            counts = executor.enumerate(root, work, plan, table, counts, progress, tier_done)
            m.enumerated = True
    if m.solved_from != 0:
        with _Stage(work, "solve"):
            def solved(tier: SolvedTier) -> None:
                m.values[tier.ply] = tier.values
                if handle.layout == LAYOUT_PACKED:
                    # Packed as soon as solved: the blocks are written before the manifest
                    # says the tier is done (a resumed build writes a ply again harmlessly).
                    ply = root.ply + tier.ply
                    if tier.scores is not None:
                        codes = work.get("codes", tier.ply) if tier.codes is None else tier.codes
                        tier.checksum = _write_tier(root, engine, handle, tier.ply,
                                                    np.asarray(codes), tier.scores, parts)
                    elif tier.blocks is not None:
                        write_blocks(engine, handle, ply, tier.blocks)
                    else:
                        blocks_written(handle, ply, counts[tier.ply].canonical)
                    m.checksums[tier.ply] = tier.checksum
                m.solved_from = tier.ply
                work.save_manifest(now=False)
            # A direct table pays for every page it touches, loading each tier and clearing it.
            # Where positions are sparse among the 3**cells codes, a hash table of each tier
            # is faster: measured with the compiled solver, 5x4k4+gravity (one position per
            # 1,800 table bytes) solves in 0.28-0.43 s hashed, 0.39 s by binary search and
            # 0.9-1.2 s by rank in a bitmap, and 4x4k4 (one per 35) in 0.18 s direct against
            # 0.26-0.29 s hashed.
            # A fresh table either way: the marking bitmaps are not needed any more.
            if table.direct and sum(t.canonical for t in counts) * SPARSE >= table.size:
                table = CodeTable(root.code_digits, direct=True)
            else:
                largest = max(t.canonical for t in counts)
                # The hash table and the tier it holds, as loaded, must share the working memory.
                table = CodeTable(root.code_digits, direct=False,
                                  hashed=plan.direct_fits(hash_bytes(largest)))
            target = BlockTarget.of(engine, handle) if handle.layout == LAYOUT_PACKED else None
            executor.solve(root, work, plan, table, counts, m.solved_from, progress, target,
                           solved)
    lookup = "direct" if table.direct else "hashed" if table.hashed else "sorted"
    del table
    # Stored plies count every stone on the board, the root's included (and where stones
    # move, the side to move's digit: the movement phase is two stored plies, x's and o's).
    plies = [PlyCounts(root.ply + t.ply, t.reachable, t.canonical, t.terminal, *m.values[t.ply])
             for t in counts]
    if counts and root.cyclic_tier(counts[-1].ply):
        last = counts[-1].ply
        plies[-1:] = cyclic.stored_counts(root, np.asarray(work.get("codes", last)),
                                          np.asarray(work.get("term", last)),
                                          np.asarray(work.get("scores", last)), parts.get(last))
    total = sum(t.canonical for t in counts)
    with _Stage(work, "write"):
        if handle.layout == LAYOUT_PACKED:
            whole = TableChecksum()
            for t in counts:
                whole.merge(m.checksums[t.ply])  # type: ignore[arg-type]  # packed: all set
            checksum = whole.hexdigest()
        else:
            checksum = _write(root, work, plan, counts, engine, handle, write_chunk, progress)
    # The root's score: tier 0's one position, or where a start in the movement phase makes
    # tier 0 the whole movement tier, the start's among them.
    first = np.asarray(work.get("codes", 0))
    root_score = int(work.get("scores", 0)[int(np.searchsorted(first, root.start_code))])
    root_value = Value(int(np.sign(root_score)))
    root_depth = int(depth_of(np.array([root_score]), root.draw_depth(root.ply))[0])
    endless = not root.draws_have_depth and root_value == Value.DRAW  # a draw by endless play
    stages = {name: replace(m.stages[name]) for name in STAGES}
    report = BuildReport(
        root=root, reachable=sum(p.reachable for p in plies), canonical=total,
        terminal=sum(p.terminal for p in plies), root_value=root_value,
        root_depth=None if endless else root_depth,
        plies=plies, stages=stages, memory_budget=plan.budget,
        lookup=lookup, spilled_runs=m.spilled_runs)
    start = time.perf_counter()
    finish_build(engine, handle, GameSummary(
        reachable=report.reachable, canonical=total, terminal=report.terminal,
        terminal_canonical=sum(t.terminal_canonical for t in counts),
        wins=sum(p.wins for p in plies), draws=sum(p.draws for p in plies),
        losses=sum(p.losses for p in plies), root_value=int(root_value),
        root_depth=NO_DEPTH if endless else root_depth,
        tool_version=tool_version(), build_seconds=report.seconds,
        stages={name: {"seconds": f.seconds, "peak_bytes": f.peak_bytes}
                for name, f in stages.items()}, checksum=checksum), plies)
    # The final commit (which drops the previous table on --force) is part of writing: the
    # report counts it, though the figures stored with the game could not include it. No
    # peak was reset since the write stage began, so the peak now covers both.
    stages["write"].seconds += time.perf_counter() - start
    stages["write"].peak_bytes = max(stages["write"].peak_bytes, peak_bytes())
    return report


def _write_tier(root: TableRoot, engine: Any, handle: BuildHandle, tier: int, codes: np.ndarray,
                scores: np.ndarray, parts: dict[int, list[tuple[int, np.ndarray | slice]]]) -> str:
    """Pack one solved tier (`write_tier`); a cyclic tier's as the plies it is stored under
    (the movement phase's two: the side to move's digit counts as a stone), kept in `parts`."""
    ply = root.ply + tier
    if not root.cyclic_tier(tier):
        return write_tier(engine, handle, ply, codes, scores)
    checksum = TableChecksum()
    parts[tier] = cyclic.stored_parts(root, codes)
    for at, part in parts[tier]:
        checksum.merge(write_tier(engine, handle, at, codes[part], scores[part]))
    return checksum.hexdigest()


def _write(root: TableRoot, work: WorkDir, plan: MemoryPlan, counts: list[TierCounts], engine: Any,
           handle: BuildHandle, write_chunk: int, progress: ProgressFactory) -> str:
    """Rows layout: append every position to the build's table in code order; return the
    table's checksum (over code, ply, value and depth: the same whatever the layout)."""
    codes = [work.get("codes", t.ply, in_memory=False) for t in counts]
    scores = [work.get("scores", t.ply, in_memory=False) for t in counts]
    checksum = TableChecksum()
    # Rows up to this code were committed by the interrupted run this one resumes.
    after = handle.last_code
    with progress(desc=f"write {root.name}", total=sum(t.canonical for t in counts),
                  unit="pos", unit_scale=True) as bar:
        # A merge step takes up to `per_tier` codes from every tier; each row then costs about
        # 150 bytes as the Python ints the driver binds.
        per_tier = max(256, min(write_chunk, plan.working // 4 // 150) // max(1, len(counts)))
        for slices in merge_cuts(codes, per_tier):
            chunk = np.concatenate([np.asarray(c[s]) for c, s in zip(codes, slices)])
            chunk_scores = np.concatenate([np.asarray(c[s]) for c, s in zip(scores, slices)])
            plies = np.concatenate([np.full(s.stop - s.start, root.ply + t.ply, dtype=np.int16)
                                    for t, s in zip(counts, slices)])
            order = np.argsort(chunk, kind="stable")
            chunk, chunk_scores, plies = chunk[order], chunk_scores[order], plies[order]
            value = value_of(chunk_scores)
            depth = depth_of(chunk_scores, root.draw_depth(plies.astype(np.int16)))
            checksum.add(chunk, plies, value, depth)
            if after is not None:
                new = chunk > after
                chunk, plies, value, depth = chunk[new], plies[new], value[new], depth[new]
            if len(chunk):
                write_positions(engine, handle, PositionArrays(chunk, plies, value, depth))
            bar.update(int(sum(s.stop - s.start for s in slices)))
    return checksum.hexdigest()

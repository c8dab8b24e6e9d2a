"""The build of a game whose positions are Python values (a `Game`: a user's class): walk
every position reachable from the start (builder/graph.py), solve them by retrograde analysis
with child counters (builder/graph_solve.py), then store them in the keyed layout (db/keyed.py)
and publish the table atomically. Nothing touches the database before the walk and the solve
have finished: a fault of the class, the memory budget passed or an interruption leave it as it
was.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

import numpy as np

from tablebase.builder.game_report import GameBuildReport, complete_table, stage
from tablebase.builder.games.errors import InvalidPositionError
from tablebase.builder.games.protocol import Game
from tablebase.builder.graph import OPEN, Graph, check_walk_fits, walk
from tablebase.builder.graph_solve import NO_DEPTH, solve_graph
from tablebase.builder.manifest import StageFigures
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.errors import GameExistsError
from tablebase.db.keyed import KeyedRows
from tablebase.db.keyed_writer import KeyedBuild, open_keyed_build
from tablebase.db.records import GameParams, GameSummary, PlyCounts, table_label
from tablebase.version import tool_version

STAGES = ("walk", "solve", "write")
_WRITE_CHUNK = 1 << 16
# Keys sorted on another thread while the solve runs, where there are more than this many (a
# thread, and importing concurrent.futures, cost more than sorting fewer).
_SORT_ALONGSIDE = 1 << 15


def build_game(game: Game, database: str, *, start: str | None = None, force: bool = False,
               progress: ProgressFactory = NO_PROGRESS, memory_budget: int | None = None,
               workers: int | None = None, work_dir: str | None = None,
               announce: Callable[[str], None] | None = None) -> GameBuildReport:
    """Strongly solve `game` from its start (or from the position `start` names: an endgame
    table) and store the table in `database` (a path or SQLAlchemy URL).

    Raises GameExistsError if the table is complete and `force` is false (before any work),
    GameFault for a fault of the game's code, InvalidPositionError for a start that cannot be
    read or is already over, BuildTooLargeError once the walk passes `memory_budget` bytes
    (default: half the machine's memory): in every case with nothing written. `workers`:
    the processes that call the class in a large walk of small ints (builder/graph.py's
    `walk`; default one a core). A game that comes as ranked tiers (`Game.tiers()`) is built
    from its start tier by tier (builder/ranked_table.py), in a folder beside the database
    (inside `work_dir` where given) that an interrupted build resumes; `announce` is told
    what a large one has to do before it starts."""
    if start is None:
        tiers = game.tiers()
        if tiers is not None:
            from tablebase.builder.ranked_table import build_tiered
            return build_tiered(game, tiers, database, force=force, progress=progress,
                                memory_budget=memory_budget, work_dir=work_dir,
                                announce=announce)
    position = game.start() if start is None else game.read(start)
    # A table from another start is named by its position's smallest text (as users see it).
    root = "" if start is None else game.root_key(position)
    if start is not None and game.outcome(position) is not None:
        raise InvalidPositionError(f"{game.name}: the game is already over at {start!r:.80};"
                                   " there is nothing to solve from it")
    label = table_label(game.name, root, keyed=True)
    if not force and complete_table(database, game.name, root):
        raise GameExistsError(f"{label} is already built; add --force to rebuild it")
    plan = MemoryPlan.for_budget(memory_budget)
    if start is None:  # a game's bound is of the positions its start reaches
        check_walk_fits(game, plan.budget)
    stages: dict[str, StageFigures] = {}
    with stage(stages, "walk"):
        graph = walk(game, position, plan.budget, progress, workers=workers)
    with stage(stages, "solve"):
        if graph.ranked is None and graph.size > _SORT_ALONGSIDE:
            from concurrent.futures import ThreadPoolExecutor

            # The keys' sort (numpy, without the GIL) on the other core while this one solves.
            with ThreadPoolExecutor(1) as other:
                ranking = other.submit(graph.rank)
                value, depth = solve_graph(graph, progress)
                graph.ranked = ranking.result()
        else:
            value, depth = solve_graph(graph, progress)
            if graph.ranked is None:
                graph.ranked = graph.rank()
    # Where the game is over: an outcome, or no move and none (lost at once).
    ended = (graph.term != OPEN) | (np.diff(graph.first) == 0)
    plies = _ply_counts(graph, value, ended)
    root_depth = int(depth[0])
    report = GameBuildReport(game.name, root, int(graph.orbit.sum()), graph.size,
                             sum(p.terminal for p in plies),
                             int(value[0]), None if root_depth == NO_DEPTH else root_depth,
                             plies, stages, plan.budget)
    params = GameParams(game.name, 0, 0, 0, False, False, root, keyed=True)
    with stage(stages, "write"), open_keyed_build(database, params, force=force) as build:
        checksum = _write(build, game, graph, value, depth, progress)
        build.finish(GameSummary(
            reachable=report.reachable, canonical=report.canonical, terminal=report.terminal,
            terminal_canonical=int(np.count_nonzero(ended)),
            wins=sum(p.wins for p in plies), draws=sum(p.draws for p in plies),
            losses=sum(p.losses for p in plies), root_value=report.root_value,
            root_depth=root_depth, tool_version=tool_version(), build_seconds=report.seconds,
            stages={name: {"seconds": f.seconds, "peak_bytes": f.peak_bytes}
                    for name, f in stages.items()}, checksum=checksum), plies)
    return report


def _ply_counts(graph: Graph, value: np.ndarray, ended: np.ndarray) -> list[PlyCounts]:
    """Counts by ply (the fewest moves from the start), each in one pass over the graph."""
    n = int(graph.ply.max()) + 1 if graph.size else 0

    def count(weights: np.ndarray | None = None) -> list[int]:
        return np.bincount(graph.ply, weights, minlength=n).astype(np.int64).tolist()
    orbit = graph.orbit.astype(np.float64)  # bincount's weights: exact below 2**53
    rows = zip(count(orbit), count(), count(orbit * ended), count((value > 0) * 1.0),
               count((value == 0) * 1.0), count((value < 0) * 1.0))
    return [PlyCounts(ply, *row) for ply, row in enumerate(rows)]


def _write(build: KeyedBuild, game: Game, graph: Graph, value: np.ndarray, depth: np.ndarray,
           progress: ProgressFactory) -> str:
    """Append every position in key order; return the table's checksum."""
    checksum = hashlib.blake2b(digest_size=8)
    ranked = graph.ranked
    assert ranked is not None  # ranked beside the solve
    # The keys in key order, gathered at once (numpy's take over references: faster than a list
    # comprehension's lookups in a random order); numbers' keys made as they are written.
    ordered = graph.numbers[ranked] if graph.numbers is not None \
        else np.array(graph.keys, dtype=object)[ranked]

    def keys(start: int) -> list[str]:
        part = ordered[start:start + _WRITE_CHUNK].tolist()
        made = game.plain_keys(part) if graph.numbers is not None else part
        assert made is not None  # numbers are plain
        return made
    with progress(desc="write", total=graph.size, unit="pos", unit_scale=True) as bar:
        # Chunk by chunk: the store packs the next while it writes one.
        def chunks() -> Iterator[KeyedRows]:
            for start in range(0, graph.size, _WRITE_CHUNK):
                part = ranked[start:start + _WRITE_CHUNK]
                yield KeyedRows(keys(start), graph.ply[part], value[part], depth[part])
                bar.update(len(part))
        build.write(chunks(), checksum)
    return checksum.hexdigest()

"""Verify a stored table from scratch: every position re-derived from its children and the
rules, every child present, every row reachable, the counts and the build-time checksum.

The derivation deliberately shares no search code with builder/: children are made by adding
a stone to the parent's digits and canonicalised through the symmetry maps (first_pass.py compiled,
plain.py in numpy), looked up in a hash table or by binary search, and the outcome rule is
spelt out on values and depths (not on scores). Where stones move, the movement phase's steps
come from the rules kernel (movement.py).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.registry import grid_game
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.errors import DamagedTableError
from tablebase.db.records import Damage, GameRecord
from tablebase.query.answer_records import Position
from tablebase.query.errors import QueryError
from tablebase.query.table_view import TableView
from tablebase.query.tablebase import Tablebase
from tablebase.query.verify.plain import Checker, check_chunk
from tablebase.query.verify.tiers import Tally, open_tiers


@dataclass(frozen=True)
class Inconsistency:
    """One thing wrong with a table: what kind, at which position (if any), and the evidence."""

    kind: str
    message: str
    code: int | None = None
    ply: int | None = None
    picture: str = ""


@dataclass
class VerifyReport:
    """The outcome of verifying one game's table."""

    spec: str
    positions: int = 0
    problems: int = 0
    first: list[Inconsistency] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether the table passed every check."""
        return self.problems == 0


class _Collector:
    def __init__(self, report: VerifyReport, root: Root, limit: int) -> None:
        self.report, self.root, self.spec, self.limit = report, root, root.spec, limit
        self.game = grid_game(root.spec)

    def add(self, kind: str, message: str, code: int | None = None, ply: int | None = None) -> None:
        self.report.problems += 1
        self.report.by_kind[kind] = self.report.by_kind.get(kind, 0) + 1
        # The table-wide findings (checksum, counts: no ply) come at the end of the read but
        # head the report, so none is crowded out.
        if len(self.report.first) < self.limit * 4 or ply is None:
            picture = ""
            if code is not None and 0 <= code < 3 ** self.root.code_digits:
                picture = self.game.picture(self.root.positions_of(np.array([code]))[0])
            self.report.first.append(Inconsistency(kind, message, code, ply, picture))


def verify_table(tb: Tablebase, spec: Spec, progress: ProgressFactory = NO_PROGRESS,
                 limit: int = 10, chunk: int = 1 << 16, root: Position | None = None,
                 memory_budget: int | None = None, thorough: bool = False) -> VerifyReport:
    """Check every stored position of a table of `spec` (`root`: the endgame table's root in
    any orientation; None for the whole board); the report lists the first problems, fewest
    stones first.

    Tier by tier, like the builder, from the full board down: tier p is checked chunk by
    chunk against tier p+1, and only those two are in memory (about 11 bytes a position
    each, and the largest pair must fit). A packed table is read ply by ply, its blocks
    decoded (and checked) on every core; a table of rows, read in code order, is filed by ply
    in a temporary directory first. Every row read goes into the checksum and the counts,
    compared with the build's at the end. `memory_budget` (bytes; default: half the
    machine's) sizes the chunks. First the database file's own check (SQLite's quick_check;
    integrity_check with `thorough`): damage found there is reported alone, since what it
    holds cannot be read; so is damage met on the way (every damaged block of a packed table,
    a catalogue row that fails its check, a page SQLite cannot read).
    """
    try:
        return _verify(tb, spec, progress, limit, chunk, root, memory_budget, thorough)
    except DamagedTableError as e:
        return VerifyReport(spec.name, problems=1, by_kind={"damaged": 1},
                            first=[Inconsistency("damaged", str(e))])


# verify's independent checkers of a cyclic tier, by the name a family gives
# (GridGame.cyclic_checker): each knows its family's rules itself, so a family without one
# here is refused rather than checked by another family's rules.
CYCLIC_CHECKERS = ("steps",)  # movement.py


def _verify(tb: Tablebase, spec: Spec, progress: ProgressFactory, limit: int, chunk: int,
            root: Position | None, memory_budget: int | None, thorough: bool) -> VerifyReport:
    game = tb.record(spec, root)
    table = grid_game(spec).table_root(game.root)
    if table.cyclic_tier(table.last_ply) and grid_game(spec).cyclic_checker not in CYCLIC_CHECKERS:
        raise QueryError(f"{spec.name}: verify has no independent checker of its tables' tier"
                         " whose positions repeat")
    plan = MemoryPlan.for_budget(memory_budget)
    # Each parent row costs its digits, a child array per cell and their canonical images.
    chunk = max(256, min(chunk, plan.working // 8 // (40 * spec.cells + 16 * len(table.symmetries))))
    report = VerifyReport(spec.name)
    found = _Collector(report, table, limit)
    # The compiled pass needs numba's runtime, about 150 MB: under a small budget, numpy alone.
    checker = (Checker(table, plan.working // 4) if plan.budget < _COMPILED_BUDGET
               else _compiled_checker(table, plan.working // 4))
    view = tb.table(spec, root)
    problems = [f"the database file: {line}" for line in tb.integrity(thorough)]
    if problems:
        return _damaged(spec, game, [(message, None) for message in problems], limit)
    tally = Tally(checker, found)
    try:
        _check_tiers(view, table, checker, found, tally, chunk, progress)
    except DamagedTableError:
        # A packed table's blocks are checked as its plies are read: at the first damage,
        # every damaged block is looked for (a table of rows has none to name).
        damage = view.damage()
        if not damage:
            raise
        return _damaged(spec, game, _named(damage), limit)
    tally.finish(tb, game)
    report.positions = int(tally.per_ply[:, 0].sum())
    report.first.sort(key=lambda p: (p.ply if p.ply is not None else -1, p.code or 0))
    report.first = report.first[:limit]
    return report


def _named(damage: list[Damage]) -> list[tuple[str, int | None]]:
    return [(f"{d.where} is damaged ({d.reason}); rebuild the table with --force", d.ply)
            for d in damage]


def _damaged(spec: Spec, game: GameRecord, damage: list[tuple[str, int | None]],
             limit: int) -> VerifyReport:
    """The report of a damaged table: damage cannot be read past, so nothing else can be
    checked; every damaged part is named."""
    report = VerifyReport(spec.name, positions=game.canonical or 0)
    found = _Collector(report, grid_game(spec).table_root(game.root), limit)
    for message, ply in damage:
        found.add("damaged", message, None, ply)
    report.first = report.first[:limit]
    return report


def _check_tiers(view: TableView, table: Root, checker: Any, found: _Collector, tally: Tally,
                 chunk: int, progress: ProgressFactory) -> None:
    """Check every tier against the next, from the full board down to the root's ply, and
    that every row of a tier is reached from the one above it. Where stones move, the
    movement phase's two plies come first and are held as one tier (`movement`), checked
    once the last placement's ply has marked the rows it reaches."""
    origin = "the empty board" if table.is_whole else "the root"
    last = table.ply + table.last_ply  # where stones move, x's movement ply; o's is next
    cyclic = table.cyclic_tier(table.last_ply)
    with progress(desc=f"verify {table.name}", total=view.count, unit="pos",
                  unit_scale=True) as bar, open_tiers(view, tally, chunk, progress) as tiers:
        below = None  # tier p+1: codes, value, depth, has_parent
        held: tuple[np.ndarray, ...] = ()  # o's movement rows until x's come
        cut, pending = 0, False  # where o's rows begin in the movement tier; not yet checked
        for ply, codes, value, depth in tiers:
            if cyclic and ply >= last:
                held = (codes, value, depth) if ply > last else held
                if ply == last:  # x's rows, then o's (whose codes are all larger)
                    cut, pending = len(codes), True
                    below = (*(np.concatenate([mine, *held[i:i + 1]])
                               for i, mine in enumerate((codes, value, depth))),
                             np.zeros(cut + (len(held[0]) if held else 0), dtype=bool))
                continue
            n = len(codes)
            here = (codes, value, depth, np.zeros(n, dtype=bool))
            empty = (np.empty(0, np.int64), np.empty(0, np.int8), np.empty(0, np.int8),
                     np.zeros(0, dtype=bool))
            for start in range(0, n, chunk):
                part = slice(start, start + chunk)
                against = below if below is not None else empty
                # The compiled pass clears most rows; the flagged ones are checked again
                # here, which words what is wrong with them.
                flagged, counts = checker.flag(codes[part], value[part], depth[part], ply,
                                               against)
                if flagged is None:
                    counts = counts + check_chunk(table, codes[part], value[part], depth[part],
                                                  against, found, ply)
                elif flagged.any():
                    rows = np.flatnonzero(flagged)
                    check_chunk(table, codes[part][rows], value[part][rows],
                                depth[part][rows], against, found, ply)
                tally.counted[ply] += counts
                bar.update(len(codes[part]))
            if below is not None:  # every parent of tier ply + 1 has now been seen
                checker.settle(below)
                if pending:
                    _movement(table, below, cut, checker, found, tally, bar.update, origin)
                    pending = False
                else:
                    _unreachable(found, below, ply + 1, origin, found.limit)
            below = here
        start = table.start_code  # the root's row: 0, or where stones move the start's code
        at = int(np.searchsorted(below[0], start)) if below is not None else 0
        if below is None or at == len(below[0]) or below[0][at] != start:
            what = "the empty board" if table.is_whole else "the endgame's root"
            found.add("root", f"the root position ({what}) is not stored", start, table.ply)
        elif below is not None:
            below[3][at] = True  # the root needs no parent
            tally.root_row = (int(below[1][at]), int(below[2][at]))
        if below is not None:
            checker.settle(below)
            if pending:  # a start in the movement phase: its tier is the table's first
                _movement(table, below, cut, checker, found, tally, bar.update, origin)
            else:
                _unreachable(found, below, table.ply, origin, found.limit)


def _movement(table: Root, tier: tuple[np.ndarray, ...], cut: int, checker: Any,
              found: _Collector, tally: Tally, tick: Callable[[int], None], origin: str) -> None:
    """Check the movement tier (x's rows, then from `cut` o's) by a walk from the rows the
    last placement reaches, or the start (movement.py, compiled whatever the budget: its steps
    are), then report the rows the walk never came to."""
    from tablebase.query.verify.movement import check_movement  # imports numba
    last = table.ply + table.last_ply
    tally.counted[last:last + 2] += check_movement(table, tier, cut, found, checker.hash_bytes,
                                                   tick)
    for ply, part in ((last, slice(0, cut)), (last + 1, slice(cut, None))):
        _unreachable(found, tuple(a[part] for a in tier), ply, origin, found.limit,
                     "no walk by steps from the positions the last placement reaches (or the"
                     " start) comes here")


_COMPILED_BUDGET = 512 << 20  # bytes of --memory from which verify uses its compiled pass


def _compiled_checker(root: Root, hash_bytes: int) -> Any:
    from tablebase.query.verify.first_pass import TierChecker  # imports numba: only when it is used
    return TierChecker(root, hash_bytes)


def _unreachable(found: _Collector, tier: tuple[np.ndarray, ...], ply: int, origin: str,
                 limit: int, why: str = "no stored position leads here") -> None:
    """Report the rows of a finished tier that no stored parent leads to."""
    codes, has_parent = tier[0], tier[3]
    lonely = np.flatnonzero(~has_parent)
    for i in lonely[: limit * 4]:
        found.add("unreachable", f"{why}, so it cannot be reached from {origin}", int(codes[i]),
                  ply)
    extra = len(lonely) - min(len(lonely), limit * 4)
    if extra:
        found.report.problems += extra
        found.report.by_kind["unreachable"] = found.report.by_kind.get("unreachable", 0) + extra



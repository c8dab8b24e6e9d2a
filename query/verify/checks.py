"""Verify a stored table from scratch: every position re-derived from its children and the
rules, every child present, every row reachable, the counts and the build-time checksum.

The derivation deliberately shares no search code with builder/: children are made by adding
a stone to the parent's digits and canonicalised through the symmetry maps, looked up by
binary search, and the outcome rule is spelt out on values and depths (not on scores).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tablebase.builder.game.codec import encode_many
from tablebase.builder.game.geometry import line_ends, lines
from tablebase.builder.game.root import Root
from tablebase.builder.game.spec import Spec
from tablebase.builder.game.symmetry import orbit_sizes
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.errors import DamagedTableError
from tablebase.db.records import Damage, GameRecord
from tablebase.query.notation import draw_board
from tablebase.query.records import Position
from tablebase.query.table_view import TableView
from tablebase.query.tablebase import Tablebase
from tablebase.query.verify.tiers import Tally, open_tiers

WIN, DRAW, LOSS = 1, 0, -1


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

    def add(self, kind: str, message: str, code: int | None = None, ply: int | None = None) -> None:
        self.report.problems += 1
        self.report.by_kind[kind] = self.report.by_kind.get(kind, 0) + 1
        # The table-wide findings (checksum, counts: no ply) come at the end of the read but
        # head the report, so none is crowded out.
        if len(self.report.first) < self.limit * 4 or ply is None:
            picture = ""
            if code is not None and 0 <= code < 3 ** self.root.cells:
                board = self.root.boards_of(np.array([code]))[0]
                picture = draw_board(self.spec, [int(d) for d in board])
            self.report.first.append(Inconsistency(kind, message, code, ply, picture))


def _words(value: int) -> str:
    return {WIN: "win", DRAW: "draw", LOSS: "loss"}.get(int(value), f"value {value}")


def _has_line(spec: Spec, boards: np.ndarray, player: int) -> np.ndarray:
    """Whether `player` has made a line, line by line (independent of the builder's bitmasks):
    k in a row, and under +exact neither cell beyond its ends theirs."""
    found = np.zeros(len(boards), dtype=bool)
    for line, ends in zip(lines(spec), line_ends(spec)):
        made = np.all(boards[:, line] == player, axis=1)
        for end in ends[ends >= 0]:
            made &= boards[:, end] != player
        found |= made
    return found


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


def _verify(tb: Tablebase, spec: Spec, progress: ProgressFactory, limit: int, chunk: int,
            root: Position | None, memory_budget: int | None, thorough: bool) -> VerifyReport:
    game = tb.record(spec, root)
    table = Root.from_key(spec, game.root)
    plan = MemoryPlan.for_budget(memory_budget)
    # Each parent row costs its digits, a child array per cell and their canonical images.
    chunk = max(256, min(chunk, plan.working // 8 // (40 * spec.cells + 16 * len(table.symmetries))))
    report = VerifyReport(spec.name)
    found = _Collector(report, table, limit)
    # The compiled pass needs numba's runtime, about 150 MB: under a small budget, numpy alone.
    checker = (_Checker(table) if plan.budget < _COMPILED_BUDGET
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
    found = _Collector(report, Root.from_key(spec, game.root), limit)
    for message, ply in damage:
        found.add("damaged", message, None, ply)
    report.first = report.first[:limit]
    return report


def _check_tiers(view: TableView, table: Root, checker: Any, found: _Collector, tally: Tally,
                 chunk: int, progress: ProgressFactory) -> None:
    """Check every tier against the next, from the full board down to the root's ply, and
    that every row of a tier is reached from the one above it."""
    origin = "the empty board" if table.is_whole else "the root"
    with progress(desc=f"verify {table.name}", total=view.count, unit="pos",
                  unit_scale=True) as bar, open_tiers(view, tally, chunk, progress) as tiers:
        below = None  # tier p+1: codes, value, depth, has_parent
        for ply, codes, value, depth in tiers:
            n = len(codes)
            here = (codes, value, depth, np.zeros(n, dtype=bool))
            empty = (np.empty(0, np.int64), np.empty(0, np.int8), np.empty(0, np.int8),
                     np.zeros(0, dtype=bool))
            for start in range(0, n, chunk):
                part = slice(start, start + chunk)
                against = below if below is not None else empty
                # The compiled pass clears most rows; the flagged ones are checked again
                # here, which words what is wrong with them.
                flagged, positions = checker.flag(codes[part], value[part], depth[part], ply,
                                                  against)
                tally.reachable += positions
                if flagged is None:
                    _check_chunk(table, codes[part], value[part], depth[part], against,
                                 found, ply)
                elif flagged.any():
                    rows = np.flatnonzero(flagged)
                    _check_chunk(table, codes[part][rows], value[part][rows],
                                 depth[part][rows], against, found, ply)
                bar.update(len(codes[part]))
            if below is not None:  # every parent of tier ply + 1 has now been seen
                checker.settle(below)
                _unreachable(found, below, ply + 1, origin, found.limit)
            below = here
        if below is None or not len(below[0]) or below[0][0] != 0:
            what = "the empty board" if table.is_whole else "the endgame's root"
            found.add("root", f"the root position ({what}) is not stored", 0, table.ply)
        if below is not None:
            checker.settle(below)
            has_parent = below[3]
            if len(has_parent) and below[0][0] == 0:
                has_parent[0] = True  # the root needs no parent
            _unreachable(found, below, table.ply, origin, found.limit)


_COMPILED_BUDGET = 512 << 20  # bytes of --memory from which verify uses its compiled pass


class _Checker:
    """Verify without the compiled pass: numpy checks every row (`flag` gives None)."""

    def __init__(self, root: Root) -> None:
        self.root = root

    def flag(self, codes: np.ndarray, value: np.ndarray, depth: np.ndarray, ply: int,
             below: tuple[np.ndarray, ...]) -> tuple[np.ndarray | None, int]:
        return None, int(self.orbit_sizes(codes).sum())

    def settle(self, below: tuple[np.ndarray, ...]) -> None:
        pass  # numpy marks has_parent itself

    def orbit_sizes(self, codes: np.ndarray) -> np.ndarray:
        return orbit_sizes(self.root.images_many(codes))


def _compiled_checker(root: Root, hash_bytes: int) -> Any:
    from tablebase.query.verify.kernel import TierChecker  # imports numba: only when it is used
    return TierChecker(root, hash_bytes)


def _unreachable(found: _Collector, tier: tuple[np.ndarray, ...], ply: int, origin: str,
                 limit: int) -> None:
    """Report the rows of a finished tier that no stored parent leads to."""
    codes, has_parent = tier[0], tier[3]
    lonely = np.flatnonzero(~has_parent)
    for i in lonely[: limit * 4]:
        found.add("unreachable", "no stored position leads here, so it cannot be reached from"
                  f" {origin}", int(codes[i]), ply)
    extra = len(lonely) - min(len(lonely), limit * 4)
    if extra:
        found.report.problems += extra
        found.report.by_kind["unreachable"] = found.report.by_kind.get("unreachable", 0) + extra


def _check_chunk(root: Root, part: np.ndarray, value: np.ndarray, depth: np.ndarray,
                 below: tuple[np.ndarray, ...], found: _Collector, ply: int | None = None) -> None:
    """Check one chunk of a tier (its codes, values and depths) against `below`, the next
    tier as (codes, values, depths, has_parent), marking the rows of `below` it leads to."""
    spec = root.spec
    n, cells = len(part), spec.cells
    codes, kid_values, kid_depths, has_parent = below
    boards = root.boards_of(part)  # whole boards, the root's stones too
    stones = np.count_nonzero(boards, axis=1)
    declared = stones if ply is None else np.full(n, ply)
    xs, os_ = np.count_nonzero(boards == 1, axis=1), np.count_nonzero(boards == 2, axis=1)
    bad = ((stones != declared) | ~((xs == os_) | (xs == os_ + 1))
           | ~np.isin(value, (WIN, DRAW, LOSS)) | (depth < 0) | (depth > cells - stones))
    bad |= root.canonical_many(part) != part
    for i in np.flatnonzero(bad):
        found.add("bad-row", f"row (ply {int(declared[i])}, {_words(value[i])},"
                  f" depth {int(depth[i])}) is not a canonical position with that many"
                  " stones, or its value or depth is out of range", int(part[i]), int(stones[i]))
    ok = ~bad
    last = np.where(stones % 2 == 1, 1, 2)
    mover = 3 - last
    won = np.zeros(n, dtype=bool)
    for player in (1, 2):
        won |= (last == player) & _has_line(spec, boards, player) & (stones > 0)
    full = stones == cells
    terminal = ok & (won | full)
    want_value = np.where(won, WIN if spec.misere else LOSS, DRAW)
    for i in np.flatnonzero(terminal & ((value != want_value) | (depth != 0))):
        found.add("terminal", f"the game is over here ({_words(want_value[i])} for the side to"
                  f" move, depth 0) but the table says {_words(value[i])} in {int(depth[i])}",
                  int(part[i]), int(stones[i]))
    open_rows = np.flatnonzero(ok & ~terminal)
    if open_rows.size == 0:
        return
    b = boards[open_rows]
    any_loss = np.zeros(len(open_rows), dtype=bool)
    any_draw = np.zeros(len(open_rows), dtype=bool)
    fastest = np.full(len(open_rows), 1 << 30)
    slowest = np.full(len(open_rows), -1)
    for cell in root.free.tolist():  # the root's stones never move: only its free cells play
        legal = b[:, cell] == 0
        if spec.gravity and cell + spec.width < cells:
            legal &= b[:, cell + spec.width] != 0
        at = np.flatnonzero(legal)
        if at.size == 0:
            continue
        kid_boards = b[at].copy()
        kid_boards[:, cell] = mover[open_rows[at]]
        kids = root.canonical_many(encode_many(kid_boards[:, root.free]))
        if len(codes):
            where = np.minimum(np.searchsorted(codes, kids), len(codes) - 1)
            present = codes[where] == kids
        else:
            where, present = np.zeros(len(kids), dtype=np.int64), np.zeros(len(kids), dtype=bool)
        for j in np.flatnonzero(~present)[:3]:
            found.add("missing-child", f"the child after a stone on cell {cell} (canonical code"
                      f" {int(kids[j])}) is not stored", int(part[open_rows[at[j]]]),
                      int(stones[open_rows[at[j]]]))
        has_parent[where[present]] = True
        at, where = at[present], where[present]
        kid_value, kid_depth = kid_values[where], kid_depths[where].astype(np.int64)
        # The child's value is the opponent's: its loss is our win, and so on.
        any_loss[at] |= kid_value == LOSS
        any_draw[at] |= kid_value == DRAW
        fastest[at] = np.where(kid_value == LOSS, np.minimum(fastest[at], kid_depth + 1), fastest[at])
        slowest[at] = np.where(kid_value == WIN, np.maximum(slowest[at], kid_depth + 1), slowest[at])
    want_v = np.where(any_loss, WIN, np.where(any_draw, DRAW, LOSS))
    want_d = np.where(any_loss, fastest, np.where(any_draw, cells - stones[open_rows], slowest))
    got_v, got_d = value[open_rows], depth[open_rows]
    for i in np.flatnonzero((got_v != want_v) | (got_d != want_d)):
        found.add("value" if got_v[i] != want_v[i] else "depth",
                  f"the table says {_words(got_v[i])} in {int(got_d[i])}, but its children give"
                  f" {_words(want_v[i])} in {int(want_d[i])}",
                  int(part[open_rows[i]]), int(stones[open_rows[i]]))

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

from builder.game.codec import digits, encode_many, weighted_sum
from builder.game.geometry import lines
from builder.game.root import Root
from builder.game.spec import Spec
from builder.game.symmetry import orbit_sizes
from builder.progress import NO_PROGRESS, ProgressFactory
from db.checksum import TableChecksum
from db.reader import GameRecord, iter_positions, probe_game, read_plies
from query.notation import draw_board

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
        if len(self.report.first) < self.limit * 4:
            picture = ""
            if code is not None and 0 <= code < 3 ** self.root.cells:
                board = self.root.boards_of(np.array([code]))[0]
                picture = draw_board(self.spec, [int(d) for d in board])
            self.report.first.append(Inconsistency(kind, message, code, ply, picture))


def _words(value: int) -> str:
    return {WIN: "win", DRAW: "draw", LOSS: "loss"}.get(int(value), f"value {value}")


def _has_line(spec: Spec, boards: np.ndarray, player: int) -> np.ndarray:
    """Whether `player` has k in a row, line by line (independent of the builder's bitmasks)."""
    found = np.zeros(len(boards), dtype=bool)
    for line in lines(spec):
        found |= np.all(boards[:, line] == player, axis=1)
    return found


def verify_table(engine: Any, spec: Spec, progress: ProgressFactory = NO_PROGRESS,
                 limit: int = 10, chunk: int = 1 << 16, root: str = "") -> VerifyReport:
    """Check every stored position of a table of `spec` (`root` as stored: '' for the whole
    board); the report lists the first problems, fewest stones first."""
    game = probe_game(engine, spec.name, root)
    table = Root.from_key(spec, root)
    report = VerifyReport(spec.name)
    found = _Collector(report, table, limit)
    codes, ply, value, depth = _load(engine, game, found)
    report.positions = len(codes)
    _check_counts(engine, game, table, codes, ply, value, found)
    # The root has no stone on its free cells: code 0, whatever the root.
    if len(codes) == 0 or codes[0] != 0:
        what = "the empty board" if table.is_whole else "the endgame's root"
        found.add("root", f"the root position ({what}) is not stored", 0, table.ply)
    has_parent = np.zeros(len(codes), dtype=bool)
    with progress(desc=f"verify {table.name}", total=len(codes), unit="pos",
                  unit_scale=True) as bar:
        for start in range(0, len(codes), chunk):
            part = slice(start, start + chunk)
            _check_chunk(table, codes, ply, value, depth, start, codes[part], found, has_parent)
            bar.update(len(codes[part]))
    has_parent[codes == 0] = True
    origin = "the empty board" if table.is_whole else "the root"
    for i in np.flatnonzero(~has_parent)[: limit * 4]:
        found.add("unreachable", "no stored position leads here, so it cannot be reached from"
                  f" {origin}", int(codes[i]), int(ply[i]))
    extra = int(np.count_nonzero(~has_parent)) - min(int(np.count_nonzero(~has_parent)), limit * 4)
    if extra:
        report.problems += extra
        report.by_kind["unreachable"] = report.by_kind.get("unreachable", 0) + extra
    report.first.sort(key=lambda p: (p.ply if p.ply is not None else -1, p.code or 0))
    report.first = report.first[:limit]
    return report


def _load(engine: Any, game: GameRecord, found: _Collector
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    parts = list(iter_positions(engine, game))
    if not parts:
        return (np.empty(0, np.int64), np.empty(0, np.int16), np.empty(0, np.int8),
                np.empty(0, np.int8))
    checksum = TableChecksum()
    for part in parts:  # chunk by chunk: the hash's temporaries cost 8 bytes a row each
        checksum.add(*part)
    codes, ply, value, depth = (np.concatenate([p[i] for p in parts]) for i in range(4))
    if checksum.hexdigest() != game.checksum:
        found.add("checksum", f"the table's checksum is {checksum.hexdigest()}, but the build"
                  f" recorded {game.checksum}")
    return codes, ply, value, depth


def _check_counts(engine: Any, game: GameRecord, root: Root, codes: np.ndarray,
                  ply: np.ndarray, value: np.ndarray, found: _Collector) -> None:
    def compare(what: str, recorded: int | None, actual: int) -> None:
        if recorded != actual:
            found.add("count", f"{what}: the game record says {recorded}, the table has {actual}")

    reachable = 0
    for start in range(0, len(codes), 1 << 18):  # chunks: images cost 8 bytes per map and cell
        part = codes[start : start + (1 << 18)]
        part = part[(part >= 0) & (part < 3 ** root.cells)]
        if len(part):
            image_codes = weighted_sum(digits(part, root.cells), root.image_weights)
            reachable += int(orbit_sizes(image_codes).sum())
    compare("canonical positions", game.canonical, len(codes))
    compare("reachable positions", game.reachable, reachable)
    compare("wins", game.wins, int(np.count_nonzero(value == WIN)))
    compare("draws", game.draws, int(np.count_nonzero(value == DRAW)))
    compare("losses", game.losses, int(np.count_nonzero(value == LOSS)))
    for p in read_plies(engine, game):
        at = ply == p.ply
        compare(f"canonical positions at ply {p.ply}", p.canonical, int(np.count_nonzero(at)))
        compare(f"wins at ply {p.ply}", p.wins, int(np.count_nonzero(at & (value == WIN))))
        compare(f"draws at ply {p.ply}", p.draws, int(np.count_nonzero(at & (value == DRAW))))
        compare(f"losses at ply {p.ply}", p.losses, int(np.count_nonzero(at & (value == LOSS))))


def _check_chunk(root: Root, codes: np.ndarray, ply: np.ndarray, value: np.ndarray,
                 depth: np.ndarray, start: int, part: np.ndarray, found: _Collector,
                 has_parent: np.ndarray) -> None:
    spec = root.spec
    n, cells = len(part), spec.cells
    rows = np.arange(start, start + n)
    sane = (part >= 0) & (part < 3 ** root.cells)
    for i in rows[~sane]:
        found.add("bad-row", f"code {int(codes[i])} is not a code of a {spec.name} board",
                  None, int(ply[i]))
    boards = root.boards_of(np.where(sane, part, 0))  # whole boards, the root's stones too
    stones = np.count_nonzero(boards, axis=1)
    xs, os_ = np.count_nonzero(boards == 1, axis=1), np.count_nonzero(boards == 2, axis=1)
    bad = sane & ((stones != ply[rows]) | ~((xs == os_) | (xs == os_ + 1))
                  | ~np.isin(value[rows], (WIN, DRAW, LOSS)) | (depth[rows] < 0)
                  | (depth[rows] > cells - stones))
    bad |= sane & (root.canonical_many(np.where(sane, part, 0)) != part)
    for i in np.flatnonzero(bad):
        found.add("bad-row", f"row (ply {int(ply[start + i])}, {_words(value[start + i])},"
                  f" depth {int(depth[start + i])}) is not a canonical position with that many"
                  " stones, or its value or depth is out of range", int(part[i]), int(stones[i]))
    ok = sane & ~bad
    last = np.where(stones % 2 == 1, 1, 2)
    mover = 3 - last
    won = np.zeros(n, dtype=bool)
    for player in (1, 2):
        won |= (last == player) & _has_line(spec, boards, player) & (stones > 0)
    full = stones == cells
    terminal = ok & (won | full)
    want_value = np.where(won, WIN if spec.misere else LOSS, DRAW)
    for i in np.flatnonzero(terminal & ((value[rows] != want_value) | (depth[rows] != 0))):
        found.add("terminal", f"the game is over here ({_words(want_value[i])} for the side to"
                  f" move, depth 0) but the table says {_words(value[start + i])} in"
                  f" {int(depth[start + i])}", int(part[i]), int(stones[i]))
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
        where = np.minimum(np.searchsorted(codes, kids), len(codes) - 1)
        present = codes[where] == kids
        for j in np.flatnonzero(~present)[:3]:
            found.add("missing-child", f"the child after a stone on cell {cell} (canonical code"
                      f" {int(kids[j])}) is not stored", int(part[open_rows[at[j]]]),
                      int(stones[open_rows[at[j]]]))
        has_parent[where[present]] = True
        at, where = at[present], where[present]
        kid_value, kid_depth = value[where], depth[where].astype(np.int64)
        # The child's value is the opponent's: its loss is our win, and so on.
        any_loss[at] |= kid_value == LOSS
        any_draw[at] |= kid_value == DRAW
        fastest[at] = np.where(kid_value == LOSS, np.minimum(fastest[at], kid_depth + 1), fastest[at])
        slowest[at] = np.where(kid_value == WIN, np.maximum(slowest[at], kid_depth + 1), slowest[at])
    want_v = np.where(any_loss, WIN, np.where(any_draw, DRAW, LOSS))
    want_d = np.where(any_loss, fastest, np.where(any_draw, cells - stones[open_rows], slowest))
    got_v, got_d = value[start + open_rows], depth[start + open_rows]
    for i in np.flatnonzero((got_v != want_v) | (got_d != want_d)):
        found.add("value" if got_v[i] != want_v[i] else "depth",
                  f"the table says {_words(got_v[i])} in {int(got_d[i])}, but its children give"
                  f" {_words(want_v[i])} in {int(want_d[i])}",
                  int(part[open_rows[i]]), int(stones[open_rows[i]]))

"""Verify a stored table from scratch: every position re-derived from its children and the
rules, every child present, every row reachable, the counts and the build-time checksum.

The derivation deliberately shares no search code with builder/: children are made by adding
a stone to the parent's digits and canonicalised through the symmetry maps, looked up by
binary search, and the outcome rule is spelt out on values and depths (not on scores).
"""
from __future__ import annotations

import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tablebase.builder.game.codec import encode_many
from tablebase.builder.game.geometry import line_ends, lines
from tablebase.builder.game.root import Root
from tablebase.builder.game.spec import Spec
from tablebase.builder.game.symmetry import orbit_sizes
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.checksum import TableChecksum
from tablebase.db.errors import DamagedTableError
from tablebase.db.records import GameRecord
from tablebase.query.notation import draw_board
from tablebase.query.records import Position
from tablebase.query.tablebase import Tablebase

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

    Tier by tier, like the builder: one pass streams the table (in code order) into a file
    per ply in a temporary directory, checking the checksum and the counts on the way; then
    tier p is checked chunk by chunk against tier p+1, the only tier held in memory (about
    11 bytes a position). `memory_budget` (bytes; default: half the machine's) sizes the
    chunks; the largest tier must fit. First the database file's own check (SQLite's
    quick_check; integrity_check with `thorough`) and every block of a packed table: damage
    found there is reported alone, since what it holds cannot be read; so is damage met on the
    way (a catalogue row that fails its check, a page SQLite cannot read).
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
    checker = _Checker(table) if plan.budget < _COMPILED_BUDGET else _compiled_checker(table)
    damaged: list[tuple[str, int | None]] = [
        (f"the database file: {line}", None) for line in tb.integrity(thorough)]
    if not damaged:
        damaged = [(f"{d.where} is damaged ({d.reason}); rebuild the table with --force", d.ply)
                   for d in tb.table(spec, root).damage()]
    if damaged:
        # Damage cannot be read past, so nothing else can be checked: name every one.
        report.positions = game.canonical or 0
        for message, ply in damaged:
            found.add("damaged", message, None, ply)
        report.first = report.first[:limit]
        return report
    with tempfile.TemporaryDirectory(prefix="tablebase-verify-") as tmp:
        tiers = _split(tb, game, checker, Path(tmp), found, chunk, progress)
        report.positions = sum(tiers.values())
        stored = tiers.get(table.ply, 0) > 0
        if not stored or _read(Path(tmp), table.ply, "codes", 0, 1)[:1].tolist() != [0]:
            what = "the empty board" if table.is_whole else "the endgame's root"
            found.add("root", f"the root position ({what}) is not stored", 0, table.ply)
        origin = "the empty board" if table.is_whole else "the root"
        with progress(desc=f"verify {table.name}", total=report.positions, unit="pos",
                      unit_scale=True) as bar:
            below = None  # tier p+1: codes, value, depth, has_parent
            for ply in range(spec.cells, table.ply - 1, -1):
                n = tiers.get(ply, 0)
                codes, value, depth = (_read(Path(tmp), ply, kind, 0, n)
                                       for kind in ("codes", "value", "depth"))
                here = (codes, value, depth, np.zeros(n, dtype=bool))
                empty = (np.empty(0, np.int64), np.empty(0, np.int8), np.empty(0, np.int8),
                         np.zeros(0, dtype=bool))
                for start in range(0, n, chunk):
                    part = slice(start, start + chunk)
                    against = below if below is not None else empty
                    # The compiled pass clears most rows; the flagged ones are checked again
                    # here, which words what is wrong with them.
                    flagged = checker.flag(codes[part], value[part], depth[part], ply, against)
                    if flagged is None:
                        _check_chunk(table, codes[part], value[part], depth[part], against,
                                     found, ply)
                    elif flagged.any():
                        rows = np.flatnonzero(flagged)
                        _check_chunk(table, codes[part][rows], value[part][rows],
                                     depth[part][rows], against, found, ply)
                    bar.update(len(codes[part]))
                if below is not None:  # every parent of tier ply + 1 has now been seen
                    _unreachable(found, below, ply + 1, origin, limit)
                below = here
            if below is not None:
                has_parent = below[3]
                if len(has_parent) and below[0][0] == 0:
                    has_parent[0] = True  # the root needs no parent
                _unreachable(found, below, table.ply, origin, limit)
    report.first.sort(key=lambda p: (p.ply if p.ply is not None else -1, p.code or 0))
    report.first = report.first[:limit]
    return report


_COMPILED_BUDGET = 512 << 20  # bytes of --memory from which verify uses its compiled pass


class _Checker:
    """Verify without the compiled pass: numpy checks every row (`flag` gives None)."""

    def __init__(self, root: Root) -> None:
        self.root = root

    def flag(self, codes: np.ndarray, value: np.ndarray, depth: np.ndarray, ply: int,
             below: tuple[np.ndarray, ...]) -> np.ndarray | None:
        return None

    def orbit_sizes(self, codes: np.ndarray) -> np.ndarray:
        return orbit_sizes(self.root.images_many(codes))


def _compiled_checker(root: Root) -> Any:
    from tablebase.query.verify.kernel import TierChecker  # imports numba: only when it is used
    return TierChecker(root)


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


def _split(tb: Tablebase, game: GameRecord, checker: Any, tmp: Path, found: _Collector,
           batch: int, progress: ProgressFactory) -> dict[int, int]:
    """Stream the table into one file per ply (codes, value, depth, each in code order),
    checking the checksum and every recorded count on the way; return rows per ply.

    The table is read (its blocks decoded and merged) on this thread while another takes the
    chunk read before it: hashes it, counts its orbits and files its rows by ply."""
    root = checker.root
    checksum = TableChecksum()
    tiers: dict[int, int] = {}
    per_ply: dict[int, list[int]] = {}  # ply -> [canonical, wins, draws, losses]
    reachable = [0]
    files: dict[tuple[int, str], Any] = {}

    def take(codes: np.ndarray, ply: np.ndarray, value: np.ndarray, depth: np.ndarray) -> None:
        checksum.add(codes, ply, value, depth)
        sane = (codes >= 0) & (codes < 3 ** root.cells)
        if sane.any():
            reachable[0] += int(checker.orbit_sizes(codes[sane]).sum())
        in_range = sane & (ply >= root.ply) & (ply <= root.spec.cells)
        for i in np.flatnonzero(~in_range)[:8]:
            found.add("bad-row", f"code {int(codes[i])} at ply {int(ply[i])} is not a"
                      f" position of this table", None, int(ply[i]))
        # The chunk's rows by ply (a stable sort keeps each ply's rows in code order).
        rows = np.flatnonzero(in_range)
        rows = rows[np.argsort(ply[rows], kind="stable")]
        plies = ply[rows]
        cuts = np.flatnonzero(plies[1:] != plies[:-1]) + 1
        for part in np.split(rows, cuts) if len(rows) else []:
            p = int(ply[part[0]])
            v = value[part]
            counts = per_ply.setdefault(p, [0, 0, 0, 0])
            counts[0] += len(part)
            for k, want in enumerate((WIN, DRAW, LOSS), 1):
                counts[k] += int(np.count_nonzero(v == want))
            for kind, data in (("codes", codes), ("value", value), ("depth", depth)):
                handle = files.get((p, kind))
                if handle is None:
                    handle = files[(p, kind)] = open(tmp / f"{kind}_{p}.bin", "wb")
                data[part].astype(_DTYPES[kind]).tofile(handle)
            tiers[p] = tiers.get(p, 0) + len(part)

    try:
        with progress(desc=f"read {root.name}", total=game.canonical or 0, unit="pos",
                      unit_scale=True) as bar, ThreadPoolExecutor(1) as pool:
            waiting: Future[None] | None = None
            for chunk in tb.table(root.spec, root.board).positions(batch):
                if waiting is not None:
                    waiting.result()
                waiting = pool.submit(take, *chunk)
                bar.update(len(chunk[0]))
            if waiting is not None:
                waiting.result()
    finally:
        for handle in files.values():
            handle.close()
    if checksum.hexdigest() != game.checksum:
        found.add("checksum", f"the table's checksum is {checksum.hexdigest()}, but the build"
                  f" recorded {game.checksum}")
    _check_counts(tb, game, per_ply, reachable[0], found)
    return tiers


_DTYPES = {"codes": np.int64, "value": np.int8, "depth": np.int8}


def _read(tmp: Path, ply: int, kind: str, start: int, stop: int) -> np.ndarray:
    """Rows start..stop of one ply's file (empty when the ply has none)."""
    path = tmp / f"{kind}_{ply}.bin"
    dtype = np.dtype(_DTYPES[kind])
    if stop <= start or not path.exists():
        return np.empty(0, dtype=dtype)
    return np.fromfile(path, dtype=dtype, count=stop - start, offset=start * dtype.itemsize)


def _check_counts(tb: Tablebase, game: GameRecord, per_ply: dict[int, list[int]], reachable: int,
                  found: _Collector) -> None:
    def compare(what: str, recorded: int | None, actual: int) -> None:
        if recorded != actual:
            found.add("count", f"{what}: the game record says {recorded}, the table has {actual}")

    total = [sum(c[k] for c in per_ply.values()) for k in range(4)]
    compare("canonical positions", game.canonical, total[0])
    compare("reachable positions", game.reachable, reachable)
    compare("wins", game.wins, total[1])
    compare("draws", game.draws, total[2])
    compare("losses", game.losses, total[3])
    for p in tb.plies(game):
        got = per_ply.get(p.ply, [0, 0, 0, 0])
        compare(f"canonical positions at ply {p.ply}", p.canonical, got[0])
        compare(f"wins at ply {p.ply}", p.wins, got[1])
        compare(f"draws at ply {p.ply}", p.draws, got[2])
        compare(f"losses at ply {p.ply}", p.losses, got[3])


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

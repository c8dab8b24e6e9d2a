"""Where `verify` gets its tiers, one ply at a time from the full board down to the root, and
what it counts on the way. A packed table streams ply by ply from db/ (its blocks decoded on
both cores), so only the two tiers being compared are ever in memory; a table of rows, which
db/ reads in code order only, is first filed by ply into a temporary directory. Every row read
is tallied (`Tally`): the checksum, the counts, the orbits, and rows no position can be.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.registry import grid_game
from tablebase.builder.kernels import split_rows
from tablebase.builder.progress import ProgressFactory
from tablebase.builder.threads import THREADS
from tablebase.db.checksum import TableChecksum
from tablebase.db.records import GameRecord
from tablebase.db.scores import NO_DEPTH
from tablebase.query.table_view import TableView
from tablebase.query.tablebase import Tablebase
from tablebase.query.verify.plain import Found, said

WIN, DRAW, LOSS = 1, 0, -1
# Rows hashed at once by the checksum: its temporaries are a few times 8 bytes a row.
_HASHED = 1 << 20


class Tier(NamedTuple):
    """One ply's stored rows in code order."""

    ply: int
    codes: np.ndarray
    value: np.ndarray
    depth: np.ndarray


class Tally:
    """What verify counts over every row it reads, in any order and any chunks: the checksum,
    rows, wins, draws and losses per ply, the positions the rows stand for (`reachable`, the
    sum of their orbits: the check adds the tiers' rows, whose images it makes anyway; `add`
    only rows in no tier), and rows that are no position of the table (`checker`: the
    table's orbit counter, with its Root)."""

    def __init__(self, checker: Any, found: Found) -> None:
        self.checker, self.root, self.found = checker, checker.root, found
        self.checksum = TableChecksum()
        self.top = top_ply(self.root)
        # [ply] -> rows, wins, draws, losses
        self.per_ply = np.zeros((self.root.spec.cells + 1, 4), np.int64)
        # [ply] -> positions (orbits), terminal positions, terminal rows: the check adds them
        self.counted = np.zeros((self.root.spec.cells + 1, 3), np.int64)
        self.reachable = 0  # positions of rows in no tier
        self.root_row: tuple[int, int] | None = None  # the root's value and depth, if stored

    def add(self, codes: np.ndarray, ply: np.ndarray, value: np.ndarray,
            depth: np.ndarray) -> np.ndarray | None:
        """Tally a chunk of rows; return the indices of those in this table's plies (None:
        every row)."""
        self._hash(codes, ply, value, depth)
        root, limit = self.root, 3 ** self.root.code_digits
        if len(codes) and ply.min() == ply.max() and root.ply <= ply[0] <= self.top and (
                codes.min() >= 0 and codes.max() < limit):
            # One ply, every row sane (a packed table's tier): the counts without the masks.
            self.per_ply[ply[0]] += [len(value), *(np.count_nonzero(value == want)
                                                   for want in (WIN, DRAW, LOSS))]
            return None
        sane = (codes >= 0) & (codes < limit)
        in_range = sane & (ply >= root.ply) & (ply <= self.top)
        stray = sane & ~in_range  # in no tier: the check, which counts the tiers', never sees it
        if stray.any():
            self.reachable += int(self.checker.orbit_sizes(codes[stray]).sum())
        for i in np.flatnonzero(~in_range)[:8]:
            self.found.add("bad-row", f"code {int(codes[i])} at ply {int(ply[i])} is not a"
                           " position of this table", None, int(ply[i]))
        rows = np.flatnonzero(in_range)
        plies, values = ply[rows].astype(np.int64), value[rows]
        size = len(self.per_ply)
        self.per_ply[:, 0] += np.bincount(plies, minlength=size)
        for k, want in enumerate((WIN, DRAW, LOSS), 1):
            self.per_ply[:, k] += np.bincount(plies[values == want], minlength=size)
        return rows

    def _hash(self, codes: np.ndarray, ply: np.ndarray, value: np.ndarray,
              depth: np.ndarray) -> None:
        # numpy lets go of the GIL in its loops: the halves of each slice hash on both cores.
        for start in range(0, len(codes), _HASHED):
            def piece(_: int, a: int, b: int) -> str:
                part = TableChecksum()
                part.add(*(x[start + a:start + b] for x in (codes, ply, value, depth)))
                return part.hexdigest()
            for digest in split_rows(min(_HASHED, len(codes) - start), piece):
                self.checksum.merge(digest)

    def finish(self, tb: Tablebase, game: GameRecord) -> None:
        """Compare the tally with what the build recorded: its checksum and every count."""
        if self.checksum.hexdigest() != game.checksum:
            self.found.add("checksum", f"the table's checksum is {self.checksum.hexdigest()},"
                           f" but the build recorded {game.checksum}")

        def compare(what: str, recorded: int | None, actual: int) -> None:
            if recorded != actual:
                self.found.add("count", f"{what}: the game record says {recorded}, the table"
                               f" has {actual}")

        total, counted = self.per_ply.sum(axis=0).tolist(), self.counted.sum(axis=0).tolist()
        compare("canonical positions", game.canonical, total[0])
        compare("reachable positions", game.reachable, counted[0] + self.reachable)
        compare("terminal positions", game.terminal, counted[1])
        compare("terminal canonical positions", game.terminal_canonical, counted[2])
        for k, what in enumerate(("wins", "draws", "losses"), 1):
            compare(what, getattr(game, what), total[k])
        for p in tb.plies(game):
            got = self.per_ply[p.ply].tolist() if p.ply < len(self.per_ply) else [0] * 4
            seen = self.counted[p.ply].tolist() if p.ply < len(self.counted) else [0] * 3
            compare(f"canonical positions at ply {p.ply}", p.canonical, got[0])
            compare(f"reachable positions at ply {p.ply}", p.reachable, seen[0])
            compare(f"terminal positions at ply {p.ply}", p.terminal, seen[1])
            for k, what in enumerate(("wins", "draws", "losses"), 1):
                compare(f"{what} at ply {p.ply}", getattr(p, what), got[k])
        self._root(game)

    def _root(self, game: GameRecord) -> None:
        """The root's value and depth as the game record gives them (where stones move, a draw
        by endless play has none) against its stored row's."""
        if self.root_row is None or game.root_value is None:
            return  # no root stored: the check says so
        value, depth = self.root_row
        endless = not grid_game(self.root.spec).draws_have_depth and value == DRAW
        stored = (value, NO_DEPTH if endless else depth)
        if (game.root_value, game.root_depth) != stored:
            recorded = said(game.root_value, game.root_depth or 0, game.root_depth == NO_DEPTH)
            self.found.add("root", f"the game record says the root is {recorded}, the table has"
                           f" {said(value, depth, endless)}")


def top_ply(root: Root) -> int:
    """The highest stored ply of a table: the full board's, or where stones move o's ply of the
    movement phase (its side-to-move digit counted as a stone)."""
    return root.ply + root.last_ply + (1 if root.cyclic_tier(root.last_ply) else 0)


@contextmanager
def open_tiers(view: TableView, tally: Tally, batch: int,
               progress: ProgressFactory) -> Iterator[Iterator[Tier]]:
    """The table's tiers from the full board down to its root's ply, each tallied as it is
    read (a packed table's blocks decoded on every core); a table of rows is filed by ply
    first (`batch` rows at a time). After the last tier, the tally is complete."""
    root = tally.root
    plies = range(top_ply(root), root.ply - 1, -1)
    if view.by_ply:
        with ThreadPoolExecutor(THREADS, thread_name_prefix="tablebase-verify") as pool:
            yield _streamed(view, plies, tally, pool)
        return
    with tempfile.TemporaryDirectory(prefix="tablebase-verify-") as tmp:
        rows = _split(view, tally, Path(tmp), batch, progress)
        yield (Tier(ply, *(_read(Path(tmp), ply, kind, rows.get(ply, 0))
                           for kind in ("codes", "value", "depth"))) for ply in plies)


def _streamed(view: TableView, plies: range, tally: Tally,
              pool: ThreadPoolExecutor) -> Iterator[Tier]:
    for ply, part in zip(plies, view.tiers(plies, pool)):
        tally.add(*part)
        yield Tier(ply, part.codes, part.value, part.depth)


def _split(view: TableView, tally: Tally, tmp: Path, batch: int,
           progress: ProgressFactory) -> dict[int, int]:
    """Stream a table of rows into one file per ply (codes, value, depth, each in code order),
    tallying every row; return rows per ply.

    The table is read on this thread while another takes the chunk read before it: tallies
    it and files its rows by ply."""
    tiers: dict[int, int] = {}
    files: dict[tuple[int, str], Any] = {}

    def take(codes: np.ndarray, ply: np.ndarray, value: np.ndarray, depth: np.ndarray) -> None:
        rows = tally.add(codes, ply, value, depth)
        if rows is None:
            rows = np.arange(len(codes))
        # The chunk's rows by ply (a stable sort keeps each ply's rows in code order).
        rows = rows[np.argsort(ply[rows], kind="stable")]
        plies = ply[rows]
        cuts = np.flatnonzero(plies[1:] != plies[:-1]) + 1
        for part in np.split(rows, cuts) if len(rows) else []:
            p = int(ply[part[0]])
            for kind, data in (("codes", codes), ("value", value), ("depth", depth)):
                handle = files.get((p, kind))
                if handle is None:
                    handle = files[(p, kind)] = open(tmp / f"{kind}_{p}.bin", "wb")
                data[part].astype(_DTYPES[kind]).tofile(handle)
            tiers[p] = tiers.get(p, 0) + len(part)

    try:
        with progress(desc=f"read {tally.root.name}", total=view.count, unit="pos",
                      unit_scale=True) as bar, ThreadPoolExecutor(1) as pool:
            waiting: Future[None] | None = None
            for chunk in view.positions(batch):
                if waiting is not None:
                    waiting.result()
                waiting = pool.submit(take, *chunk)
                bar.update(len(chunk[0]))
            if waiting is not None:
                waiting.result()
    finally:
        for handle in files.values():
            handle.close()
    return tiers


_DTYPES = {"codes": np.int64, "value": np.int8, "depth": np.int8}


def _read(tmp: Path, ply: int, kind: str, rows: int) -> np.ndarray:
    """One ply's file whole (empty when the ply has none)."""
    path = tmp / f"{kind}_{ply}.bin"
    dtype = np.dtype(_DTYPES[kind])
    if not rows or not path.exists():
        return np.empty(0, dtype=dtype)
    return np.fromfile(path, dtype=dtype, count=rows)


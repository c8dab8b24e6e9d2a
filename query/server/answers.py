"""What the HTTP API answers, as JSON-ready dicts in the shapes of query/shapes.py: the games
a database holds, one position with its moves, a perfect line, a game's statistics and many
boards at once. Knows nothing of HTTP; raises the typed errors the app maps to status codes.

One `Answers` serves one database, opened read-only. Its tables are read on sqlite3
connections that belong to the thread that opened them, so each thread gets its own
Tablebase (uvicorn answers on its one event-loop thread).
"""
from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tablebase.builder.games.grid import Spec, Value, parse_spec
from tablebase.builder.games.grid.position_text import read_position
from tablebase.builder.games.grid.position_texts import read_positions
from tablebase.builder.games.registry import grid_game
from tablebase.db.errors import GameNotBuiltError, MissingDatabaseError
from tablebase.db.facts import TIERED_LAYOUTS
from tablebase.db.records import GameRecord
from tablebase.query.errors import QueryError
from tablebase.query.search.fallback import (
    DEFAULT_SEARCH_SECONDS,
    examine_tables,
    line_from_tables,
    search_line,
    search_moves,
)
from tablebase.query.search.solving import refuse_unsearchable, searchable, searcher
from tablebase.query.shapes import (
    game_json,
    line_json,
    moves_json,
    probe_json,
    probe_json_many,
    stats_json,
)
from tablebase.query.tablebase import Tablebase
from tablebase.query.wording import json_kind

if TYPE_CHECKING:
    from tablebase.query.search.searcher import Searcher

# Bounds on one request: a batch of boards, the request body, the text of a query.
MAX_BATCH = 10_000
MAX_BODY_BYTES = 2 << 20
MAX_QUERY_CHARS = 4096

# How long the list of games (and so each table's checksum, the ETag) is trusted before it is
# read again: a table never changes once built, but a new game may be built beside it.
GAMES_TTL_SECONDS = 2.0

class TooLargeError(QueryError, ValueError):
    """A request beyond the server's bounds: too many boards, too long a query or body."""


class Answers:
    """The answers of the HTTP API from one database, opened read-only (with searches allowed,
from none while its file does not exist: every position is then searched)."""

    def __init__(self, db: str, search: float | None = DEFAULT_SEARCH_SECONDS) -> None:
        self.db = db
        self.search = search  # seconds to search a position no table holds (None: refuse)
        self._local = threading.local()
        self._games: list[GameRecord] = []
        self._games_read = -float("inf")
        self._stats: dict[tuple[str, str | None, str], dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._counting = threading.Lock()

    def tablebase(self) -> Tablebase:
        """This thread's Tablebase on the database."""
        tb = getattr(self._local, "tb", None)
        if tb is None:
            tb = self._local.tb = Tablebase(self.db)
        return tb

    def tables(self) -> Tablebase | None:
        """This thread's Tablebase, or None while there is no database file and searches
        answer (each call looks again: a file built while the server runs is served)."""
        try:
            return self.tablebase()
        except MissingDatabaseError:
            if self.search is None:
                raise
            return None

    def close(self) -> None:
        """Close this thread's Tablebase."""
        tb = getattr(self._local, "tb", None)
        if tb is not None:
            tb.close()
            self._local.tb = None

    # --- the catalogue ---------------------------------------------------------------

    def _records(self, fresh: bool = False) -> list[GameRecord]:
        """The complete tables' records, read again when older than GAMES_TTL_SECONDS."""
        with self._lock:
            now = time.monotonic()
            if fresh or now - self._games_read > GAMES_TTL_SECONDS:
                tb = self.tables()
                self._games = [] if tb is None else [g for g in tb.catalogue() if g.complete]
                self._games_read = now
            return self._games

    def games(self) -> list[dict[str, Any]]:
        """The `info --json` objects of every complete table, by spec."""
        records = self._records()
        if not records:  # no database file, say: searches answer
            return []
        tb = self.tablebase()
        # Only a tiered table's game is asked (by its registry name): a class served with
        # --game is stored under its name, which names no class to load here.
        return [game_json(g, tb.plies(g), tb.game(g.spec).tier_counts(g)
                          if g.layout in TIERED_LAYOUTS else None) for g in records]

    def games_tag(self) -> str:
        """A tag that changes whenever the list of complete games or any of their tables does."""
        return "-".join(f"{g.spec}:{g.checksum}" for g in self._records())

    def checksum(self, spec: Spec) -> str:
        """The ETag of `spec`'s answers: its table's build-time checksum, or with endgame
        tables beside it (any of which may answer), a digest of all their checksums.

        Raises GameNotBuiltError if the database holds no complete table of the game.
        """
        for fresh in (False, True):
            sums = sorted(str(g.checksum) for g in self._records(fresh) if g.spec == spec.name)
            if len(sums) == 1:
                return sums[0]
            if sums:
                return hashlib.sha1("-".join(sums).encode()).hexdigest()[:16]
        self.tablebase()  # no database file at all: that is the error to give
        raise GameNotBuiltError(f"{spec.name} has not been built in this database")

    # --- positions -------------------------------------------------------------------

    def spec(self, text: str) -> Spec:
        """The game named `text` (raises InvalidSpecError, a ValueError, if it names none)."""
        tb = self.tables()
        return parse_spec(text) if tb is None else tb.spec(text)

    def board(self, spec: Spec, board: str | None, moves: str | None) -> tuple[int, ...]:
        """The position named by `board` (any form builder/games/grid/position_text.py
        reads; default: the empty board), then a move list."""
        for name, text in (("board", board), ("moves", moves)):
            if text is not None and len(text) > MAX_QUERY_CHARS:
                raise TooLargeError(f"{name} is {len(text):,} characters long; at most"
                                    f" {MAX_QUERY_CHARS:,} are accepted")
        return read_position(spec, board, moves).board

    def moves(self, spec: Spec, board: tuple[int, ...]) -> dict[str, Any]:
        """The `moves --json` object of a position: its value and depth, every move best first,
        and the root of the table that holds it (so that a page opened on it shows that table);
        by search within `search` seconds where no table holds it."""
        started = time.monotonic()
        found = self.moves_from_tables(spec, board)
        return found if found is not None else self.moves_by_search(spec, board, started)

    def moves_from_tables(self, spec: Spec, board: tuple[int, ...]) -> dict[str, Any] | None:
        """`moves` from the tables; None where no table holds the position and a search may
        answer it (`moves_by_search`); the tables' error otherwise."""
        try:
            return self._from_tables(examine_tables, moves_json, spec, board)
        except GameNotBuiltError:
            if self.search is not None:  # in one line, before a search thread is asked for
                refuse_unsearchable(spec)
            raise

    def moves_by_search(self, spec: Spec, board: tuple[int, ...], started: float,
                        cancel: threading.Event | None = None) -> dict[str, Any]:
        """`moves` by search, done within `search` seconds of `started` (a time.monotonic()),
        stopped early when `cancel` is set; on any thread."""
        return self._by_search(search_moves, moves_json, spec, board, started, cancel)

    def _from_tables(self, find: Callable[..., Any], shape: Callable[..., dict[str, Any]],
                     spec: Spec, board: tuple[int, ...]) -> dict[str, Any] | None:
        """shape(spec, board, *found) of what find(tables, spec, board, search) found in the
        tables; None where it found that a search should answer."""
        # A game search does not take (positions that repeat): the tables answer or say why not.
        search = self.search if searchable(spec) else None
        found = find(self.tables(), spec, board, search)
        return None if found is None else shape(spec, board, *found)

    def _by_search(self, run: Callable[..., Any], shape: Callable[..., dict[str, Any]],
                   spec: Spec, board: tuple[int, ...], started: float,
                   cancel: threading.Event | None) -> dict[str, Any]:
        """shape(spec, board, *found) of what run(...) found by search, on this thread's kept
        searcher, within `search` seconds of `started`."""
        assert self.search is not None  # the tables answered or raised otherwise
        found = run(self.tables(), spec, board, self.search, cancel, started,
                    self._searcher(spec))
        return shape(spec, board, *found)

    def _searcher(self, spec: Spec) -> Searcher:
        """This thread's searcher of `spec`, kept while its tables are the same: its
        transposition table (proved bounds only) makes the next position of the same game
        cheaper. One per thread, its memory held from the start, so that the server's memory
        is flat and bounded by the pool's size."""
        key = (spec.name, self.games_tag())
        kept = getattr(self._local, "searcher", None)
        if kept is None or kept[0] != key:
            self._local.searcher = None  # the old one's memory is freed before the new is made
            made = searcher(self.tables(), spec)
            made.arrays.reserve()
            kept = self._local.searcher = (key, made)
        return kept[1]

    def line(self, spec: Spec, board: tuple[int, ...]) -> dict[str, Any]:
        """The `line --json` object of a position: a perfect line to the end of the game; by
        search within `search` seconds where no table holds it."""
        started = time.monotonic()
        found = self.line_from_tables(spec, board)
        return found if found is not None else self.line_by_search(spec, board, started)

    def line_from_tables(self, spec: Spec, board: tuple[int, ...]) -> dict[str, Any] | None:
        """`line` from the tables; None where no table holds the position and a search may
        answer it (`line_by_search`); the tables' error otherwise."""
        return self._from_tables(line_from_tables, line_json, spec, board)

    def line_by_search(self, spec: Spec, board: tuple[int, ...], started: float,
                       cancel: threading.Event | None = None) -> dict[str, Any]:
        """`line` by search, done within `search` seconds of `started` (a time.monotonic()),
        stopped early when `cancel` is set; on any thread."""
        return self._by_search(search_line, line_json, spec, board, started, cancel)

    def stats(self, spec: Spec, root: str | None = None) -> dict[str, Any]:
        """Counts of stored positions per ply by value, and per value by depth (cached), of the
        whole-board table or of the endgame table rooted at `root` (board text)."""
        key = (spec.name, root, self.checksum(spec))
        with self._counting:  # one count at a time: a second asker waits for the first's
            found = self._stats.get(key)
            if found is None:
                found = self._stats[key] = _stats(spec, self.tablebase(), root)
        return found

    def probe_many(self, spec: Spec, texts: Any) -> list[dict[str, Any]]:
        """The `probe --json` objects of a list of positions (each text in any form
        builder/games/grid/position_text.py reads), through the bulk lookup.

        Raises for the first position that cannot be read (ValueError), cannot arise
        (ValueError) or is not in the table (KeyError), naming its place in the list.
        """
        if not isinstance(texts, list):
            raise _BadBatch(f"expected a JSON list of board texts or moves, found {json_kind(texts)}")
        if len(texts) > MAX_BATCH:
            raise TooLargeError(f"{len(texts):,} boards in one request; at most {MAX_BATCH:,}"
                                " are accepted")
        if not all(isinstance(text, str) for text in texts):
            i = next(i for i, text in enumerate(texts) if not isinstance(text, str))
            raise _BadBatch(f"board {i + 1} of {len(texts)}: expected board text or moves, found"
                            f" {json_kind(texts[i])}")
        tb, game = self.tablebase(), grid_game(spec)
        read = read_positions(spec, texts)
        if read.errors:
            first = min(read.errors)
            raise _at(read.errors[first], first, len(texts))
        positions = read.cells
        if not any(t.root is None for t in tb.tables(spec)):
            # Only endgame tables: each position may sit in a different one, so ask one by one.
            answers = []
            for i, position in enumerate(positions.tolist()):
                try:
                    answers.append(probe_json(spec, position, tb.probe(spec, tuple(position))))
                except (QueryError, ValueError, KeyError) as e:
                    raise _at(e, i, len(texts)) from None
            return answers
        codes = game.codes_of(positions)
        found = tb.table(spec).get_many(codes)
        if not found.found.all():
            first = int(np.flatnonzero(~found.found)[0])
            try:
                tb.probe(spec, tuple(positions[first].tolist()))
            except (QueryError, ValueError, KeyError) as e:
                raise _at(e, first, len(texts)) from None
        stones = game.stones_of_plies(found.ply)
        sides = game.sides_of(codes, stones)
        return probe_json_many(spec, game.texts_of(positions[:, :spec.cells], stones, sides),
                               sides.tolist(), found.value.tolist(), found.depth.tolist(),
                               found.ply.tolist())


class _BadBatch(QueryError, ValueError):
    """A batch body that is not a list of board texts."""


def _at(error: Exception, index: int, total: int) -> Exception:
    """The same error, its message prefixed with the board's place in the batch."""
    return type(error)(f"board {index + 1} of {total}: {error}")


def _stats(spec: Spec, tb: Tablebase, root: str | None = None) -> dict[str, Any]:
    """Per-ply counts by value and per-value depth histograms of a whole table."""
    table = tb.table(spec, root).load()
    ply = table.ply.astype(np.int64)
    value = table.value.astype(np.int64) + 1  # 0 loss, 1 draw, 2 win
    depth = table.depth.astype(np.int64)
    plies = int(ply.max()) + 1 if len(ply) else 0
    per_ply = np.bincount(ply * 3 + value, minlength=plies * 3).reshape(plies, 3)
    # Where stones move, a stored draw's depth means nothing (a draw by endless play has none).
    decided = depth if grid_game(spec).draws_have_depth else depth[value != 1]
    top = int(decided.max()) + 1 if len(decided) else 0
    depths = {Value(v - 1).word: np.bincount(depth[value == v], minlength=top).tolist()
              for v in (2, 1, 0)}
    return stats_json(spec, per_ply.tolist(), depths)

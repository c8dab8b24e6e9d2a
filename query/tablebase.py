"""The probing API: a position's value and depth, every move's value, the perfect moves and a
perfect line, all read from a built table; best moves are derived by probing children. One
table read in bulk (many codes at once, the table as arrays) is a `TableView`, from `table`.

A position is looked up through its canonical code; moves are reported in the caller's own
orientation. Values are always for the side to move, except a move's value, which is for the
player making the move (lichess reports the value of the position after it instead).

    >>> from tablebase import build, open_tablebase
    >>> report = build("3x3k3", "tablebase.db")
    >>> with open_tablebase("tablebase.db") as tb:
    ...     tb.probe("3x3k3", "x.o/.x./...")
    Probe(value=<Value.DRAW: 0>, depth=6, to_move='o', terminal=False, ply=3)
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from tablebase.builder.games.grid import (
    InvalidSpecError,
    Spec,
    parse_spec,
)
from tablebase.builder.games.registry import grid_game
from tablebase.db.facts import DEFAULT_DATABASE
from tablebase.db.records import GameRecord, PlyCounts
from tablebase.db.store import open_store
from tablebase.query import probing
from tablebase.query.answer_records import MoveInfo, Position, Probe, Step, TableInfo
from tablebase.query.errors import MissingPositionError
from tablebase.query.misses import missing_error
from tablebase.query.table_view import TableView
from tablebase.query.tables import OpenTables, StoredTable

if TYPE_CHECKING:
    from tablebase.query.game_answers import GameAnswers


class Tablebase:
    """Answers from the tables of one database, opened read-only. Use `open_tablebase`.

    Every method takes the game as a spec string (`"3x3k3"`, `"tictactoe"`) or a Spec, and a
    position as text (board text `"x.o/.x./..."`, board text then moves, moves from the empty
    board `"b2 a1"`, Pons' column digits with +gravity), a Reading, a sequence of cell values
    (0 empty, 1 x, 2 o, row-major from the top-left), or a code. Bad input raises a ValueError subclass
    (`InvalidPositionError`) naming the fault; a game the database has not built raises
    `GameNotBuiltError` (a LookupError). `table` gives one table to read in bulk.
    """

    def __init__(self, db: str = DEFAULT_DATABASE) -> None:
        self.db = db
        self._store = open_store(db)
        self._tables = OpenTables(self._store)
        self._specs: dict[str, Spec] = {}
        self._games: dict[str, GameAnswers] = {}

    def close(self) -> None:
        """Close the database."""
        for answers in self._games.values():
            answers.close()
        self._tables.close()

    def game(self, spec: str) -> GameAnswers:
        """The answers of a game given as a Python class (`PATH.py:Class` or
        `package.module:Class`, docs/games.md): `probe`, `moves` and `line` of positions given
        as the class's text. InvalidSpecError where `spec` names no such class."""
        found = self._games.get(spec)
        if found is None:
            # Here, not at the top: a probe of tablebase's own games starts without them.
            from tablebase.builder.games.registry import keyed_game
            from tablebase.query.game_answers import GameAnswers

            game = keyed_game(spec)
            if game is None:
                raise InvalidSpecError(f"{spec!r:.80} names no game class (PATH.py:Class or"
                                       " package.module:Class)")
            found = self._games[spec] = GameAnswers(game, self._store)
        return found

    # --- the catalogue and table selection -------------------------------------------

    def spec(self, spec: str | Spec) -> Spec:
        """The Spec named by a spec string (or the Spec itself)."""
        if isinstance(spec, Spec):
            return spec
        found = self._specs.get(spec)
        if found is None:
            from tablebase.builder.games.registry import is_keyed_spec

            if is_keyed_spec(spec):  # its answers are a GameAnswers of their own
                raise InvalidSpecError(f"{spec!r:.80} is a game whose positions are its own"
                                       f" values: ask tb.game({spec!r:.80}) (docs/games.md)")
            found = self._specs[spec] = parse_spec(spec)
        return found

    @property
    def name(self) -> str:
        """The database as messages name it: its path, or its URL without the password."""
        return self._store.name

    def catalogue(self, spec: str | Spec | None = None) -> list[GameRecord]:
        """Every stored table (of `spec`, if given), complete or not, by spec: the whole-board
        table first, then the endgame tables by root. DamagedTableError if a complete table's
        catalogue row fails its check: a damaged catalogue lists nothing."""
        records = self._store.games(None if spec is None else self.spec(spec).name)
        for record in records:
            if record.complete:
                self._store.check(record)
        return records

    def plies(self, record: GameRecord) -> list[PlyCounts]:
        """The per-ply counts of a complete table of the catalogue."""
        return self._store.plies(record)

    def record(self, spec: str | Spec, root: Position | None = None) -> GameRecord:
        """The catalogue record of the complete table `root` names (see `table`)."""
        return self.table(spec, root).record

    def tables(self, spec: str | Spec) -> list[TableInfo]:
        """The complete tables of a game: the whole board (root None) first, then each endgame
        table by root, with its count of stored positions."""
        spec = self.spec(spec)
        return [TableInfo(None if t.whole else t.root.position, t.reader.count,
                          t.root.cells, len(t.root.symmetries)) for t in self._tables.of(spec)]

    def table(self, spec: str | Spec, root: Position | None = None) -> TableView:
        """One complete table, to read in bulk (see TableView): the whole-board table, or with
        `root` (a position, any orientation) the endgame table rooted there. A root no table
        has raises MissingTableError (a KeyError)."""
        spec = self.spec(spec)
        return TableView(self._tables, spec,
                         None if root is None else self.read_board(spec, root))

    def integrity(self, thorough: bool = False) -> list[str]:
        """The database file's own check (SQLite's quick_check, or with `thorough` its
        integrity_check): one line per problem, none for a sound file (or a server)."""
        return self._store.integrity(thorough)

    # --- reading positions -------------------------------------------------------------

    def read_board(self, spec: str | Spec, position: Position) -> tuple[int, ...]:
        """The cell values of a position given in any accepted form (read, not yet checked;
        where stones move, checked and followed by the side to move:
        builder/games/stones/notation.py)."""
        return grid_game(self.spec(spec)).read(position).board

    def _missing(self, spec: Spec, position: tuple[int, ...]) -> Exception:
        """The error for a position no table holds (query/misses.py)."""
        game, tables = grid_game(spec), self._tables.of(spec)

        def holder(parent: tuple[int, ...]) -> StoredTable | None:
            found = probing.locate(game, tables, parent)
            return None if found is None or found[3] == 0 else found[0]
        return missing_error(game, position, tables, holder, self.name)

    # --- one position ------------------------------------------------------------

    def probe(self, spec: str | Spec, position: Position) -> Probe:
        """Value (for the side to move) and depth (plies to the end) of `position`.

        Raises MissingPositionError (a KeyError) when no table holds the position: the rules
        reach it from no table's root (or their search gave up), or no endgame table covers it;
        DamagedTableError (a DatabaseError) when a table lacks a position the rules reach from
        its root; an InvalidPositionError (a ValueError) for a board that cannot be read or
        cannot arise.
        """
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        return self._tables.read(spec, lambda: probing.probe(
            grid_game(spec), self._tables.of(spec), board, self._miss(spec)))

    def _miss(self, spec: Spec) -> probing.Missing:
        return lambda position: self._missing(spec, position)

    def _moves(self, spec: Spec, position: tuple[int, ...]
               ) -> tuple[Probe, list[MoveInfo], StoredTable]:
        return probing.moves(grid_game(spec), self._tables.of(spec), position, self._miss(spec),
                             self.name)

    def examine(self, spec: str | Spec, position: Position
                ) -> tuple[Probe, list[MoveInfo], tuple[int, ...] | None]:
        """`probe`, `moves` and the root of the table that holds `position` (None: the
        whole-board table, else the root as the table stores it), read at once."""
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        probe, moves, table = self._tables.read(spec, lambda: self._moves(spec, board))
        return probe, moves, None if table.whole else table.root.position

    def get(self, spec: str | Spec, position: Position, default: Probe | None = None
            ) -> Probe | None:
        """Like `probe`, but returns `default` instead of raising MissingPositionError."""
        try:
            return self.probe(spec, position)
        except MissingPositionError:
            return default

    def moves(self, spec: str | Spec, position: Position) -> list[MoveInfo]:
        """Every legal move, best first: wins fastest first, then draws, then losses slowest first.

        A move's value is for the player making it (the negation of the value of the position
        it leads to, which is for the opponent); its depth is that position's depth. Moves are
        named and numbered in the orientation `position` was given in; empty once the game is
        over.
        """
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        return self._tables.read(spec, lambda: self._moves(spec, board)[1])

    def best_moves(self, spec: str | Spec, position: Position) -> list[MoveInfo]:
        """The moves that keep the position's perfect value and depth (see `moves`)."""
        return [m for m in self.moves(spec, position) if m.best]

    def line(self, spec: str | Spec, position: Position) -> list[Step]:
        """A perfect line from `position` to the end of the game; its length is the depth.

        At each step the first of the best moves (in cell order) is played.
        """
        return self.moving_line(spec, position)[0]

    def moving_line(self, spec: str | Spec, position: Position) -> tuple[list[Step], bool]:
        """`line`, and whether it stops because a position came back (where positions repeat,
        a draw by endless play is followed until one does)."""
        spec = self.spec(spec)
        start = self.read_board(spec, position)
        return self._tables.read(spec, lambda: probing.line(
            grid_game(spec), self._tables.of(spec), start, self._miss(spec), self.name))


@contextmanager
def open_tablebase(db: str = DEFAULT_DATABASE) -> Iterator[Tablebase]:
    """Open a database of built games read-only, as a context manager yielding a Tablebase.

    `db` is a SQLite file path or a SQLAlchemy URL; raises DatabaseError (a StorageError)
    when it cannot be opened or is not a tablebase database.
    """
    tb = Tablebase(os.fspath(db))
    try:
        yield tb
    finally:
        tb.close()

"""The probing API: a position's value and depth, every move's value, the perfect moves and a
perfect line, all read from a built table; best moves are derived by probing children.

A position is looked up through its canonical code; moves are reported in the caller's own
orientation. Values are always for the side to move, except a move's value, which is for the
player making the move (lichess reports the value of the position after it instead).

    from query import open_tablebase
    with open_tablebase("tablebase.db") as tb:
        tb.probe("3x3k3", "x.o/.x./...")   # Probe(value=<Value.LOSS: -1>, depth=4, to_move='o', ...)
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Protocol, TypeVar

import numpy as np

from builder.game import (EMPTY, O, X, InvalidPositionError, Spec, Value, canonical_board,
                          check_position, decode, open_cells, parse_spec, score)
from builder.game.symmetry import canonical_many_lookup
from db.errors import DatabaseError
from db.facts import DEFAULT_DATABASE
from db.sqlite_direct import PositionArrays, SqliteFile
from query.errors import ImpossiblePositionError, MissingPositionError, NotationError
from query.notation import board_text, move_name, parse_board, to_move_name

# A position as callers give it: board text, cell values, or a code.
Position = str | Sequence[int] | int

_VALUES = {-1: Value.LOSS, 0: Value.DRAW, 1: Value.WIN}


def _plies(n: int) -> str:
    return f"{n} pl{'y' if n == 1 else 'ies'}"


@dataclass(frozen=True)
class Probe:
    """What the table says about one position.

    `value` is for the side to move (`to_move`, 'x' or 'o'); `depth` is plies to the end under
    perfect play (0 exactly when the position is `terminal`); `ply` counts the stones.
    """

    value: Value
    depth: int
    to_move: str
    terminal: bool
    ply: int

    def __str__(self) -> str:
        return f"{self.to_move} to move: {self.value.word} in {_plies(self.depth)}"


@dataclass(frozen=True)
class MoveInfo:
    """One legal move: its name and cell in the caller's orientation, its value for the player
    making it, the depth (plies to the end) of the position it leads to, and whether it keeps
    the position's perfect value and depth."""

    move: str
    cell: int
    value: Value
    depth: int
    best: bool


@dataclass(frozen=True)
class Step:
    """One move of a perfect line: who plays it (`player`), its value for that player, the
    plies left after it (`depth`), and the board after it as cell values."""

    move: str
    cell: int
    player: str
    value: Value
    depth: int
    board: tuple[int, ...]


@dataclass(frozen=True)
class ManyProbes:
    """Answers for many codes at once, as equal-length arrays in the order asked.

    `value` (-1 loss, 0 draw, 1 win) is for the side to move, `depth` in plies, `ply` the
    stones on the board; where `found` is False the table lacks the code and the other
    arrays hold 0, -1 and -1.
    """

    value: np.ndarray
    depth: np.ndarray
    ply: np.ndarray
    found: np.ndarray


T = TypeVar("T")


class _Positions(Protocol):
    """One game's stored table: db.sqlite_direct.SqlitePositions or db.reader.PositionReader."""

    canonical: int
    table: str

    def snapshot(self) -> AbstractContextManager[None]: ...

    def fetch(self, code: int) -> tuple[int, int, int] | None: ...

    def fetch_many(self, codes: Sequence[int]) -> dict[int, tuple[int, int, int]]: ...

    def chunks(self, batch: int = ...) -> Iterator[PositionArrays]: ...

    def load(self) -> PositionArrays: ...


class Tablebase:
    """Answers from the tables of one database, opened read-only. Use `open_tablebase`.

    Every method takes the game as a spec string (`"3x3k3"`, `"tictactoe"`) or a Spec, and a
    position as board text (`"x.o/.x./..."`), a sequence of cell values (0 empty, 1 x, 2 o,
    row-major from the top-left), or a code. Bad input raises a ValueError subclass
    (`InvalidPositionError`) naming the fault; a game the database has not built raises
    `db.errors.GameNotBuiltError`.
    """

    def __init__(self, db: str = DEFAULT_DATABASE) -> None:
        self.db = db
        # A local SQLite file is read on the plain sqlite3 driver (see db/sqlite_direct.py);
        # anything else, and every error message about the database, goes through db.engine,
        # imported only then because importing its driver layer costs a third of a second.
        self._file = SqliteFile.open(db)
        self._engine: Any = None  # a db.engine engine, opened only when needed
        if self._file is None:
            self._engine = self._open_engine()
        self._games: dict[Spec, _Positions] = {}
        self._arrays: dict[Spec, PositionArrays] = {}
        self._specs: dict[str, Spec] = {}

    def _open_engine(self) -> Any:
        from db.engine import open_engine
        return open_engine(self.db, writable=False)

    def close(self) -> None:
        """Close the database."""
        for positions in self._games.values():
            close = getattr(positions, "close", None)
            if close is not None:
                close()
        self._games.clear()
        self._arrays.clear()
        if self._file is not None:
            self._file.close()
        if self._engine is not None:
            self._engine.dispose()

    # --- plumbing ------------------------------------------------------------

    def spec(self, spec: str | Spec) -> Spec:
        """The Spec named by a spec string (or the Spec itself)."""
        if isinstance(spec, Spec):
            return spec
        found = self._specs.get(spec)
        if found is None:
            found = self._specs[spec] = parse_spec(spec)
        return found

    def _positions(self, spec: Spec) -> _Positions:
        positions = self._games.get(spec)
        if positions is None:
            positions = self._file.positions(spec.name) if self._file is not None else None
            if positions is None:
                from db.reader import PositionReader, probe_game
                if self._engine is None:
                    self._engine = self._open_engine()
                # Raises GameNotBuiltError with the reason when the game has no complete table.
                positions = PositionReader(self._engine, probe_game(self._engine, spec.name))
            self._games[spec] = positions
        return positions

    def _read(self, spec: Spec, read: Callable[[], T]) -> T:
        """Run `read` in one snapshot of the game's table. If a concurrent `build --force`
        swapped in a new table since this Tablebase looked, look again and retry once: a
        reader sees the old complete table or the new one, never a mixture."""
        positions = self._positions(spec)
        try:
            with positions.snapshot():
                return read()
        except DatabaseError:
            if not self._swapped(spec, positions):
                raise
        with self._positions(spec).snapshot():
            return read()

    def _swapped(self, spec: Spec, positions: _Positions) -> bool:
        """Forget the cached table of `spec`; whether the game now has a different one."""
        self._games.pop(spec, None)
        self._arrays.pop(spec, None)
        close = getattr(positions, "close", None)
        if close is not None:
            close()
        # Raises GameNotBuiltError if the game lost its complete table meanwhile.
        return self._positions(spec).table != positions.table

    def read_board(self, spec: str | Spec, position: Position) -> tuple[int, ...]:
        """The cell values of a position given in any accepted form (read, not yet checked)."""
        spec = self.spec(spec)
        if isinstance(position, str):
            return parse_board(spec, position)
        if isinstance(position, Integral) and not isinstance(position, bool):
            code = int(position)
            if not 0 <= code < 3 ** spec.cells:
                raise NotationError(
                    f"code {code} is out of range for {spec.name}: codes run from 0 to"
                    f" {3 ** spec.cells - 1}")
            return decode(code, spec.cells)
        try:
            board = tuple(int(v) for v in position)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise NotationError(
                f"a position is board text, a sequence of cell values or a code, found"
                f" {type(position).__name__} {position!r:.60}") from None
        if len(board) != spec.cells or any(v not in (EMPTY, X, O) for v in board):
            check_position(spec, board)  # raises, naming the wrong size or the bad value
        return board

    def _missing(self, spec: Spec, board: tuple[int, ...]) -> Exception:
        """The error for a board the table lacks: impossible, or possible but unreachable."""
        text = board_text(spec, board)
        try:
            check_position(spec, board)
        except InvalidPositionError as e:
            return ImpossiblePositionError(f"position {text!r} ({spec.name}): {e}")
        return MissingPositionError(
            f"position {text!r} ({spec.name}) cannot be reached from the empty board, so the"
            " table does not hold it")

    def _probe_board(self, spec: Spec, board: tuple[int, ...]) -> Probe:
        # Only reachable positions are stored, and symmetry keeps stone counts, lines and
        # floating stones, so a board found in the table is a legal one: checking it is
        # needed only to explain a miss.
        row = self._positions(spec).fetch(canonical_board(spec, board))
        if row is None:
            raise self._missing(spec, board)
        ply, value, depth = row
        return Probe(_VALUES[value], depth, to_move_name(ply), depth == 0, ply)

    def _moves_board(self, spec: Spec, board: tuple[int, ...], probe: Probe) -> list[MoveInfo]:
        if probe.terminal:
            return []
        mover = X if probe.ply % 2 == 0 else O
        children = []
        for cell in open_cells(spec, board):
            child = list(board)
            child[cell] = mover
            children.append((cell, canonical_board(spec, child)))
        rows = self._positions(spec).fetch_many([code for _, code in children])
        scored = []
        for cell, code in children:
            row = rows.get(code)
            if row is None:
                raise MissingPositionError(
                    f"the {spec.name} table lacks the position after {move_name(spec, cell)} from"
                    f" {board_text(spec, board)!r}, a stored position: the table is incomplete;"
                    f" rebuild it with: tablebase build {spec.name} --force")
            value, depth = _VALUES[-row[1]], row[2]
            scored.append((score(value, depth + 1), cell, value, depth))
        scored.sort(key=lambda s: (-s[0], s[1]))  # best first; ties in cell order
        top = scored[0][0]
        return [MoveInfo(move_name(spec, cell), cell, value, depth, key == top)
                for key, cell, value, depth in scored]

    # --- one position ------------------------------------------------------------

    def probe(self, spec: str | Spec, position: Position) -> Probe:
        """Value (for the side to move) and depth (plies to the end) of `position`.

        Raises MissingPositionError (a KeyError) when the table does not hold the position,
        which for a possible board means it cannot be reached from the empty board, and an
        InvalidPositionError (a ValueError) for a board that cannot be read or cannot arise.
        """
        spec = self.spec(spec)
        board = self.read_board(spec, position)
        return self._read(spec, lambda: self._probe_board(spec, board))

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
        return self._read(spec, lambda: self._moves_board(spec, board,
                                                          self._probe_board(spec, board)))

    def best_moves(self, spec: str | Spec, position: Position) -> list[MoveInfo]:
        """The moves that keep the position's perfect value and depth (see `moves`)."""
        return [m for m in self.moves(spec, position) if m.best]

    def line(self, spec: str | Spec, position: Position) -> list[Step]:
        """A perfect line from `position` to the end of the game; its length is the depth.

        At each step the first of the best moves (in cell order) is played.
        """
        spec = self.spec(spec)
        start = self.read_board(spec, position)

        def walk() -> list[Step]:
            board = start
            probe = self._probe_board(spec, board)
            steps: list[Step] = []
            while not probe.terminal:
                best = self._moves_board(spec, board, probe)[0]
                child = list(board)
                child[best.cell] = X if probe.ply % 2 == 0 else O
                board = tuple(child)
                steps.append(Step(best.move, best.cell, probe.to_move, best.value, best.depth,
                                  board))
                probe = self._probe_board(spec, board)
            return steps
        return self._read(spec, walk)

    # --- many positions -------------------------------------------------------------

    def table(self, spec: str | Spec) -> PositionArrays:
        """The game's whole table in code order, loaded once and kept (canonical codes only)."""
        spec = self.spec(spec)
        arrays = self._arrays.get(spec)
        if arrays is None:
            arrays = self._read(spec, lambda: self._positions(spec).load())
            self._arrays[spec] = arrays
        return arrays

    def get_many(self, spec: str | Spec, codes: np.ndarray | Sequence[int]) -> ManyProbes:
        """Answers for many codes (any orientation) at once; `found` marks those the table holds.

        The first call loads the game's whole table into memory (see `table`).
        """
        spec = self.spec(spec)
        asked = np.asarray(codes)
        if asked.ndim != 1 or not (asked.size == 0 or np.issubdtype(asked.dtype, np.integer)):
            raise NotationError(
                f"codes must be a one-dimensional array of integers, found shape {asked.shape}"
                f" and dtype {asked.dtype}")
        asked = asked.astype(np.int64, copy=False)
        if asked.size and (asked.min() < 0 or asked.max() >= 3 ** spec.cells):
            bad = int(asked[(asked < 0) | (asked >= 3 ** spec.cells)][0])
            raise NotationError(
                f"code {bad} is out of range for {spec.name}: codes run from 0 to"
                f" {3 ** spec.cells - 1}")
        table = self.table(spec)
        n = len(asked)
        value = np.zeros(n, dtype=np.int8)
        depth = np.full(n, -1, dtype=np.int8)
        ply = np.full(n, -1, dtype=np.int8)
        if n == 0 or len(table.codes) == 0:
            return ManyProbes(value, depth, ply, np.zeros(n, dtype=bool))
        wanted = canonical_many_lookup(spec, asked)
        # Binary search for the queries in sorted order: random order misses the cache on
        # every step and costs several times the sort.
        order = np.argsort(wanted, kind="stable")
        index = np.empty(n, dtype=np.int64)
        index[order] = np.searchsorted(table.codes, wanted[order])
        np.minimum(index, len(table.codes) - 1, out=index)
        found = table.codes[index] == wanted
        hit = index[found]
        value[found], depth[found], ply[found] = table.value[hit], table.depth[hit], table.ply[hit]
        return ManyProbes(value, depth, ply, found)

    def probe_many(self, spec: str | Spec, codes: np.ndarray | Sequence[int]) -> ManyProbes:
        """Like `get_many`, but raises MissingPositionError if the table lacks any of the codes."""
        spec = self.spec(spec)
        answers = self.get_many(spec, codes)
        if not answers.found.all():
            missing = np.flatnonzero(~answers.found)
            first = int(np.asarray(codes)[missing[0]])
            raise MissingPositionError(
                f"{len(missing):,} of {len(answers.found):,} codes are not in the {spec.name}"
                f" table (they cannot be reached from the empty board); the first is code"
                f" {first}, {board_text(spec, decode(first, spec.cells))!r}")
        return answers

    def positions(self, spec: str | Spec, batch: int = 1 << 16) -> Iterator[PositionArrays]:
        """Every stored (canonical) position in code order, `batch` at a time, as arrays."""
        spec = self.spec(spec)
        self._read(spec, lambda: None)  # follow a swapped table before streaming from it
        positions = self._positions(spec)
        with positions.snapshot():
            yield from positions.chunks(batch)

    def count(self, spec: str | Spec) -> int:
        """How many positions the game's table holds (one per symmetry orbit)."""
        return self._positions(self.spec(spec)).canonical


@contextmanager
def open_tablebase(db: str = DEFAULT_DATABASE) -> Iterator[Tablebase]:
    """Open a database of built games read-only, as a context manager yielding a Tablebase.

    `db` is a SQLite file path or a SQLAlchemy URL; raises db.errors.DatabaseError when it
    cannot be opened or is not a tablebase database.
    """
    tb = Tablebase(os.fspath(db))
    try:
        yield tb
    finally:
        tb.close()

"""Answers for positions no table holds, by search with the stored tables at its leaves: the
one place that decides when the command line, the HTTP API and the course-file audit fall
back to search (probe, moves, a perfect line), and what a searched move says (its value or
only what was proved). Solving itself is solving.py's."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from tablebase.builder.games.grid import Spec, Value, mover_at, open_cells
from tablebase.builder.games.grid.notation import move_name, player_name
from tablebase.builder.games.grid.position_text import Reading, reading_of
from tablebase.db.errors import GameNotBuiltError, MissingDatabaseError
from tablebase.query.answer_records import MoveInfo, Probe, Step
from tablebase.query.errors import MissingPositionError
from tablebase.query.search.solving import (
    Searched,
    budget,
    refuse_unsearchable,
    searcher,
    solve,
    tablebase_at,
)

if TYPE_CHECKING:
    from tablebase.query.search.searcher import Searcher, Solution
    from tablebase.query.tablebase import Tablebase

T = TypeVar("T")
# A position as the faces hand it over: read (builder/games/grid/position_text.py), or cell values.
Asked = Reading | tuple[int, ...]

# Seconds `probe`, `moves` and the HTTP API search a position no table holds, unless told.
DEFAULT_SEARCH_SECONDS = 2.0


@dataclass(frozen=True)
class SearchedMove:
    """One legal move by search: its name and cell, what is proved of its value for the player
    making it ([low, high]) and of the depth after it, and whether it keeps the position's."""

    move: str
    cell: int
    low: Value
    high: Value
    depth: int | None
    best: bool

    @property
    def value(self) -> Value | None:
        """The move's value, or None while only bounds are known."""
        return self.low if self.low == self.high else None


def _table_misses(tb: Tablebase | None, spec: Spec, error: Exception) -> bool:
    """Whether `error` from a table lookup means no table covers the position (search may
    answer), rather than that it cannot be reached (a whole-board table lacks it). A table that
    lacks a position the rules reach from its root raises DamagedTableError, which is never
    searched past (query/misses.py)."""
    if tb is None or isinstance(error, (GameNotBuiltError, MissingDatabaseError)):
        return True
    return isinstance(error, MissingPositionError) and not any(
        t.root is None for t in tb.tables(spec))


def _from_tables(tb: Tablebase | None, spec: Spec, search: float | None,
                 read: Callable[[Tablebase], T]) -> T | None:
    """read(tb): the tables' answer; None where no table covers the position and `search`
    allows a search; otherwise the tables' error."""
    try:
        if tb is None:
            raise GameNotBuiltError(f"{spec.name} has not been built")
        return read(tb)
    except (GameNotBuiltError, MissingPositionError) as e:
        if search is None or not _table_misses(tb, spec, e):
            raise
        return None


def probe_or_search(tb: Tablebase | None, spec: Spec, position: Asked,
                    search: float | None = DEFAULT_SEARCH_SECONDS,
                    engine: Searcher | None = None) -> Probe | Searched:
    """The table's answer for `position`, or (where no table holds it and `search` seconds are
    allowed) the search's; otherwise the table's error."""
    started = time.monotonic()
    found = _from_tables(tb, spec, search, lambda t: t.probe(spec, position))
    if found is not None:
        return found
    return solve(tb, spec, position, budget(seconds=search), engine=engine, started=started)


Examined = tuple[Probe | Searched, Sequence[MoveInfo | SearchedMove], tuple[int, ...] | None]


def examine_tables(tb: Tablebase | None, spec: Spec, position: Asked,
                   search: float | None = DEFAULT_SEARCH_SECONDS) -> Examined | None:
    """`Tablebase.examine`'s answer; None where no table holds `position` and `search` allows
    a search (`search_moves` answers then); otherwise the tables' error."""
    return _from_tables(tb, spec, search, lambda t: t.examine(spec, position))


def search_moves(tb: Tablebase | None, spec: Spec, position: Asked, seconds: float,
                 cancel: threading.Event | None = None, started: float | None = None,
                 engine: Searcher | None = None) -> Examined:
    """The position and every move by search, all within `seconds` of `started` (a
    time.monotonic(); default now), making the searcher included; setting `cancel` stops it
    as if the time were up. The work goes best value first: the position (up to half the
    time), then every move's value, bounded by the position's (no move is better for its
    player than the position: one null window settles most), then the depths; what the time
    did not decide is left unproved, as bounds where some are proved."""
    refuse_unsearchable(spec)
    started = time.monotonic() if started is None else started
    deadline = started + seconds
    engine = engine or searcher(tb, spec)
    root = solve(tb, spec, position, budget(seconds=seconds / 2, cancel=cancel), engine=engine,
                 started=started)
    board = root.board
    s = root.solution
    if s.depth == 0:
        return root, [], None
    mover = mover_at(root.ply)
    # What each child is known to be, for the side to move there: at least the negation of
    # the position's upper bound. The move that keeps a proved value and depth is exact.
    known: dict[int, tuple[Value, Value, int | None]] = {}
    for cell in open_cells(spec, board):
        known[cell] = (Value(-s.high), Value.WIN, None)
        if cell == s.move and s.value is not None and s.depth is not None:
            known[cell] = (Value(-s.value), Value(-s.value), s.depth - 1)

    def settle(cells: list[int], depth: bool) -> None:
        for i, cell in enumerate(cells):
            low, high, _ = known[cell]
            share = max(0.0, deadline - time.monotonic()) / (len(cells) - i)
            child = tuple(mover if c == cell else v for c, v in enumerate(board))
            found = engine.solve(child, budget(seconds=share, cancel=cancel),
                                 known=(low, high), depth=depth, move=False)
            known[cell] = (found.low, found.high, found.depth)

    settle([c for c, (low, high, _) in known.items() if low != high], depth=False)
    settle([c for c, (low, high, d) in known.items() if low == high and d is None], depth=True)
    moves = [(cell, Value(-high), Value(-low), d) for cell, (low, high, d) in known.items()]
    return root, _ranked(spec, s, moves), None


def moves_or_search(tb: Tablebase | None, spec: Spec, position: Asked,
                    search: float | None = DEFAULT_SEARCH_SECONDS) -> Examined:
    """`Tablebase.examine`, or where no table holds `position` (and `search` allows), the
    position and every move by search within `search` seconds in all (None for the table's
    root: no table holds it)."""
    return _or_search(examine_tables, search_moves, tb, spec, position, search)


def _or_search(tables: Callable[..., T | None], searched: Callable[..., T],
               tb: Tablebase | None, spec: Spec, position: Asked, search: float | None) -> T:
    """tables(tb, spec, position, search): the tables' answer; where that is None (no table
    holds the position and `search` allows), searched(...) within `search` seconds of now."""
    started = time.monotonic()
    found = tables(tb, spec, position, search)
    if found is not None:
        return found
    assert search is not None  # tables() raised otherwise
    return searched(tb, spec, position, search, started=started)


Lined = tuple[Probe | Searched, list[Step]]


def line_from_tables(tb: Tablebase | None, spec: Spec, position: Asked,
                     search: float | None = DEFAULT_SEARCH_SECONDS) -> Lined | None:
    """The tables' probe and perfect line of `position`; None where no table holds it and
    `search` allows a search (`search_line` answers then); otherwise the tables' error."""
    return _from_tables(tb, spec, search,
                        lambda t: (t.probe(spec, position), t.line(spec, position)))


def search_line(tb: Tablebase | None, spec: Spec, position: Asked, seconds: float,
                cancel: threading.Event | None = None, started: float | None = None,
                engine: Searcher | None = None) -> Lined:
    """The position and a perfect line from it by search, all within `seconds` of `started` (a
    time.monotonic(); default now): the position solved, the move that keeps its value and
    depth played, the position after it solved, and so on to the end of the game. Each step
    is proved; where the time runs out before the next is, the line stops short of the end
    (its last step's depth is then not 0)."""
    started = time.monotonic() if started is None else started
    engine = engine or searcher(tb, spec)
    root = solve(tb, spec, position, budget(seconds=seconds, cancel=cancel), engine=engine,
                 started=started)
    steps: list[Step] = []
    here = root
    while True:
        s = here.solution
        if s.value is None or s.depth in (None, 0) or s.move is None:
            return root, steps
        child = list(here.board)
        child[s.move] = mover_at(here.ply)
        steps.append(Step(move_name(spec, s.move), s.move, player_name(mover_at(here.ply)),
                          s.value, s.depth - 1, tuple(child)))
        here = solve(tb, spec, reading_of(child, played=True),
                     budget(seconds=seconds, cancel=cancel), engine=engine, started=started)


def line_or_search(tb: Tablebase | None, spec: Spec, position: Asked,
                   search: float | None = DEFAULT_SEARCH_SECONDS) -> Lined:
    """`Tablebase.probe` and `line`, or where no table holds `position` (and `search`
    allows), the position and a perfect line by search within `search` seconds in all."""
    return _or_search(line_from_tables, search_line, tb, spec, position, search)


def _ranked(spec: Spec, root: Solution, moves: list[tuple[int, Value, Value, int | None]]
            ) -> list[SearchedMove]:
    """The searched moves best first (known values by score, then bounds), each marked best
    when it keeps the root's value (and depth, where both are proved)."""
    def key(m: tuple[int, Value, Value, int | None]) -> tuple[float, int]:
        cell, low, high, depth = m
        if low != high:
            return (int(low) + int(high)) / 2, cell
        if low == Value.WIN:
            return 2 - (depth or 0) / 1000, cell
        if low == Value.LOSS:
            return -2 + (depth or 0) / 1000, cell
        return 0, cell

    def best(low: Value, high: Value, depth: int | None, cell: int) -> bool:
        if root.value is None or low != high or low != root.value:
            return cell == root.move
        if root.depth is None or depth is None or root.value == Value.DRAW:
            return True
        return depth + 1 == root.depth

    ordered = sorted(moves, key=lambda m: (-key(m)[0], key(m)[1]))
    return [SearchedMove(move_name(spec, cell), cell, low, high, depth, best(low, high, depth, cell))
            for cell, low, high, depth in ordered]


@contextmanager
def open_for_answers(db: str, searching: bool) -> Iterator[Tablebase | None]:
    """The database's Tablebase (closed on leaving), or None when there is no database and
    `searching` (search answers without tables); a missing database is an error otherwise."""
    try:
        tb: Tablebase | None = tablebase_at(db)
    except MissingDatabaseError:
        if not searching:
            raise
        tb = None
    try:
        yield tb
    finally:
        if tb is not None:
            tb.close()

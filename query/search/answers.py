"""Answers for positions no table holds, by search with the stored tables at its leaves: the
one place that decides when the command line and the HTTP API fall back to search, and what a
searched answer says (its value or only what was proved, and that it came from search)."""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from tablebase.builder.game import Spec, Value, check_position, mover_at, open_cells, parse_spec
from tablebase.builder.game.errors import InvalidSpecError, SearchLimitError
from tablebase.builder.game.orders import stone_order
from tablebase.builder.game.root import Root
from tablebase.db.errors import GameNotBuiltError, MissingDatabaseError
from tablebase.query.errors import ImpossiblePositionError, MissingPositionError
from tablebase.query.notation import (
    board_text,
    game_over_text,
    move_name,
    parse_board,
    parse_position,
    to_move_name,
)
from tablebase.query.records import MoveInfo, Probe
from tablebase.query.tablebase import Tablebase
from tablebase.query.tables import LOAD_LIMIT

if TYPE_CHECKING:
    from tablebase.query.search.board import LeafTable
    from tablebase.query.search.engine import Budget, Progress, Searcher, Solution

# The search itself (query/search/engine.py, kernel.py) loads numba: it is imported where a
# search runs, so that every command that may fall back to search does not start slower.
T = TypeVar("T")

# Seconds `probe`, `moves` and the HTTP API search a position no table holds, unless told.
DEFAULT_SEARCH_SECONDS = 2.0
# Positions solved together where a list or a file of them is solved (answers.solve_each).
SOLVE_BATCH = 256
# Tables of more positions stay out of the search's leaves (each is loaded whole, about 10
# bytes a position).
LEAF_LIMIT = LOAD_LIMIT


@dataclass(frozen=True)
class Searched:
    """A position answered by search: the board, and what search proved about it."""

    spec: Spec
    board: tuple[int, ...]
    solution: Solution

    @property
    def ply(self) -> int:
        """Stones on the board."""
        return sum(1 for v in self.board if v)

    @property
    def to_move(self) -> str:
        """'x' or 'o'."""
        return to_move_name(self.ply)

    @property
    def move(self) -> str | None:
        """The name of a move that keeps the value (and depth, where proved)."""
        cell = self.solution.move
        return None if cell is None else move_name(self.spec, cell)

    def __str__(self) -> str:
        s = self.solution
        if s.depth == 0 and s.value is not None:
            return game_over_text(s.value, self.to_move)
        return f"{self.to_move} to move: {s.known} (by search)"

    @property
    def effort(self) -> str:
        """'12,345 nodes in 0.04 s (308,625 a second), 3 table hits'."""
        s = self.solution
        return (f"{s.nodes:,} nodes in {s.seconds:.2f} s ({s.rate:,.0f} a second),"
                f" {s.table_hits:,} table hit{'' if s.table_hits == 1 else 's'}")


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


def refuse_moving(spec: Spec) -> None:
    """InvalidSpecError where stones move: positions repeat, and the search walks no cycles."""
    if spec.moving:
        raise InvalidSpecError(f"{spec.name}: stones move, so positions can repeat, and search"
                               f" does not take such games; build its table (tablebase build"
                               f" {spec.name}) and ask that")


def check_searchable(spec: Spec, board: Sequence[int]) -> None:
    """Raise ImpossiblePositionError unless `board` can arise in play (a search answers only
    those); InvalidSpecError for a game whose positions repeat, which search does not take."""
    refuse_moving(spec)
    text = board_text(spec, board)
    try:
        check_position(spec, board)
    except ValueError as e:
        raise ImpossiblePositionError(f"position {text!r} ({spec.name}): {e}") from None
    try:
        order = stone_order(spec, board)
    except SearchLimitError as e:  # its message counts boards ("board 1"): say which one
        raise SearchLimitError(f"position {text!r} ({spec.name}): {e}; it is not searched"
                               ) from None
    if order is None:
        raise ImpossiblePositionError(
            f"position {text!r} ({spec.name}): no order of alternating moves, x first, builds"
            " it without the game ending first: it cannot be reached")


def leaves(tb: Tablebase | None, spec: Spec) -> list[LeafTable]:
    """The stored tables of `spec` small enough to load whole, as search leaves."""
    from tablebase.query.search.board import leaf_table

    if tb is None:
        return []
    try:
        infos = tb.tables(spec)
    except GameNotBuiltError:
        return []
    found = []
    for info in infos:
        if info.positions > LEAF_LIMIT:
            continue
        table = tb.table(spec, info.root).load()
        root = Root.whole(spec) if info.root is None else Root(spec, tuple(info.root))
        found.append(leaf_table(root, table.codes, table.value, table.depth))
    return found


def searcher(tb: Tablebase | None, spec: Spec, use_tables: bool = True) -> Searcher:
    """A Searcher of `spec` with the database's tables at its leaves (unless `use_tables` is
    False)."""
    from tablebase.query.search.engine import Searcher

    return Searcher(spec, leaves(tb, spec) if use_tables else ())


def budget(seconds: float | None = None, nodes: int | None = None,
           cancel: threading.Event | None = None) -> Budget:
    """A search budget of `seconds` and `nodes` (None: no limit), stopped early when `cancel`
    is set."""
    from tablebase.query.search.engine import Budget

    return Budget(seconds, nodes, cancel)


def solve(tb: Tablebase | None, spec: Spec, board: Sequence[int], limit: Budget | None = None,
          progress: Progress | None = None, use_tables: bool = True,
          engine: Searcher | None = None, started: float | None = None) -> Searched:
    """Solve a legal position by search (tables at the leaves), within `limit` (None: no
    limit), whose seconds count from `started` (a time.monotonic(); default: when the search
    itself starts), so that checking the board and loading the leaves are paid from them."""
    board = tuple(int(v) for v in board)
    check_searchable(spec, board)
    engine = engine or searcher(tb, spec, use_tables)
    limit = limit or budget()
    if started is not None and limit.seconds is not None:
        left = max(0.0, started + limit.seconds - time.monotonic())
        limit = dataclasses.replace(limit, seconds=left)
    return Searched(spec, board, engine.solve(board, limit, progress))


def search_positions(spec: str | Spec, positions: Iterable[Sequence[int] | str], *,
                     seconds: float | None = None, nodes: int | None = None,
                     db: str | None = None) -> Iterator[Searched]:
    """Solve positions one after another (each a line `parse_position` reads, or cell values)
    with one searcher, whose transposition table carries over from one to the next: each
    within `seconds` and `nodes` (None: no limit), with the tables of the database `db` (if
    given) at the leaves. Raises at the first position that cannot be read or reached, after
    yielding the answers before it."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    tb = None if db is None else Tablebase(db)
    # A list is read ahead and solved in batches; any other iterable one position at a time.
    batch = SOLVE_BATCH if isinstance(positions, (list, tuple)) else 1
    try:
        for _, answer in solve_each(tb, spec, positions, budget(seconds, nodes), batch):
            if isinstance(answer, Exception):
                raise answer
            yield answer
    finally:
        if tb is not None:
            tb.close()


def solve_each(tb: Tablebase | None, spec: Spec, positions: Iterable[Sequence[int] | str],
               limit: Budget, batch: int = 1
               ) -> Iterator[tuple[int, Searched | ValueError | SearchLimitError]]:
    """(number from 1, answer) for each position, in order, or the error that one gives instead
    (InvalidPositionError, NotationError, ImpossiblePositionError, SearchLimitError); one
    searcher for all. With `batch` > 1, up to that many positions are read ahead and solved
    together (Searcher.solve_many: on Connect Four boards their first nodes in one compiled
    call), each within `limit` for its own search; with 1, each is answered before the next
    is read (standard input read as it comes), its `limit` counted from reading it. Blank
    lines and lines starting with '#' are skipped (still counted)."""
    engine = searcher(tb, spec)
    pending: list[tuple[int, tuple[int, ...]]] = []

    def solved() -> Iterator[tuple[int, Searched]]:
        found = engine.solve_many([board for _, board in pending], limit)
        yield from ((n, Searched(spec, board, s)) for (n, board), s in zip(pending, found))
        pending.clear()

    for number, position in enumerate(positions, 1):
        if isinstance(position, str) and (not position.strip()
                                          or position.lstrip().startswith("#")):
            continue
        started = time.monotonic()
        try:
            board = (parse_position(spec, position) if isinstance(position, str)
                     else tuple(int(v) for v in position))
            if batch <= 1:
                yield number, solve(tb, spec, board, limit, engine=engine, started=started)
                continue
            check_searchable(spec, board)
        except (ValueError, SearchLimitError) as e:
            yield from solved()
            yield number, e
            continue
        pending.append((number, board))
        if len(pending) >= batch:
            yield from solved()
    yield from solved()


def load_search() -> None:
    """Load the compiled search and the reachability test it checks boards with (numba's
    cache: about half a second, once per process; the first run after a change compiles), by
    solving small boards of each kind: tic-tac-toe, a five-in-a-row board (its draw proofs)
    and a gravity board (the bitboard search). A server does this before it answers, so that
    no request's budget pays for it and every search can be stopped at once."""
    for name, nodes in (("3x3k3", None), ("5x5k5", 20_000), ("4x4k3+gravity", None)):
        spec = parse_spec(name)
        solve(None, spec, (0,) * spec.cells, budget(nodes=nodes))


def search_position(spec: str | Spec, position: Sequence[int] | str, *,
                    seconds: float | None = None, nodes: int | None = None,
                    db: str | None = None) -> Searched:
    """Solve a position (board text or cell values) by search within `seconds` and `nodes`
    (None: no limit), with the tables of the database `db` (if given) at the leaves."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    board = parse_board(spec, position) if isinstance(position, str) else tuple(position)
    tb = None if db is None else Tablebase(db)
    try:
        return solve(tb, spec, board, budget(seconds, nodes))
    finally:
        if tb is not None:
            tb.close()


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


def probe_or_search(tb: Tablebase | None, spec: Spec, board: tuple[int, ...],
                    search: float | None = DEFAULT_SEARCH_SECONDS,
                    engine: Searcher | None = None) -> Probe | Searched:
    """The table's answer for `board`, or (where no table holds it and `search` seconds are
    allowed) the search's; otherwise the table's error."""
    started = time.monotonic()
    found = _from_tables(tb, spec, search, lambda t: t.probe(spec, board))
    if found is not None:
        return found
    return solve(tb, spec, board, budget(seconds=search), engine=engine, started=started)


Examined = tuple[Probe | Searched, Sequence[MoveInfo | SearchedMove], tuple[int, ...] | None]


def examine_tables(tb: Tablebase | None, spec: Spec, board: tuple[int, ...],
                   search: float | None = DEFAULT_SEARCH_SECONDS) -> Examined | None:
    """`Tablebase.examine`'s answer; None where no table holds `board` and `search` allows a
    search (`search_moves` answers then); otherwise the tables' error."""
    return _from_tables(tb, spec, search, lambda t: t.examine(spec, board))


def search_moves(tb: Tablebase | None, spec: Spec, board: tuple[int, ...], seconds: float,
                 cancel: threading.Event | None = None, started: float | None = None,
                 engine: Searcher | None = None) -> Examined:
    """The position and every move by search, all within `seconds` of `started` (a
    time.monotonic(); default now), making the searcher included; setting `cancel` stops it
    as if the time were up. The work goes best value first: the position (up to half the
    time), then every move's value, bounded by the position's (no move is better for its
    player than the position: one null window settles most), then the depths; what the time
    did not decide is left unproved, as bounds where some are proved."""
    refuse_moving(spec)
    started = time.monotonic() if started is None else started
    deadline = started + seconds
    engine = engine or searcher(tb, spec)
    root = solve(tb, spec, board, budget(seconds=seconds / 2, cancel=cancel), engine=engine,
                 started=started)
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


def moves_or_search(tb: Tablebase | None, spec: Spec, board: tuple[int, ...],
                    search: float | None = DEFAULT_SEARCH_SECONDS) -> Examined:
    """`Tablebase.examine`, or where no table holds `board` (and `search` allows), the
    position and every move by search within `search` seconds in all (None for the table's
    root: no table holds it)."""
    started = time.monotonic()
    found = examine_tables(tb, spec, board, search)
    if found is not None:
        return found
    assert search is not None  # examine_tables raised otherwise
    return search_moves(tb, spec, board, search, started=started)


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
        tb: Tablebase | None = Tablebase(db)
    except MissingDatabaseError:
        if not searching:
            raise
        tb = None
    try:
        yield tb
    finally:
        if tb is not None:
            tb.close()

"""Solving positions by search, with the stored tables at its leaves: one position, a batch or
a file of them (read as every face reads a position, builder/games/grid/position_text.py), each
checked first where its reading does not prove it can arise; the searchers a thread keeps
between calls; and what a searched answer says (`Searched`)."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from tablebase.builder.games.errors import ImpossiblePositionError, InvalidSpecError, SearchLimitError
from tablebase.builder.games.grid import Spec, check_position, parse_spec
from tablebase.builder.games.grid.notation import board_text, move_name, to_move_name
from tablebase.builder.games.grid.orders import FOUND, order_status, stone_order
from tablebase.builder.games.grid.position_text import Reading, read_position
from tablebase.builder.games.grid.position_texts import Readings, read_positions
from tablebase.builder.games.registry import grid_game
from tablebase.db.errors import GameNotBuiltError
from tablebase.query.search.control import LeafTable, leaf_table
from tablebase.query.tables import LOAD_LIMIT
from tablebase.query.wording import game_over_text

if TYPE_CHECKING:
    from tablebase.query.search.searcher import Budget, Progress, Searcher, Solution
    from tablebase.query.tablebase import Tablebase

# The search itself (query/search/searcher.py, compiled_search.py) loads numba: it is imported where a
# search runs, so that every command that may fall back to search does not start slower.

# Positions solved together where a list or a file of them is solved (solve_each).
SOLVE_BATCH = 256
# Tables of more positions stay out of the search's leaves (each is loaded whole, about 10
# bytes a position).
LEAF_LIMIT = LOAD_LIMIT
# Games whose searcher a thread keeps for `search_position` (each holds its transposition
# table, address space touched as the searches fill it: 64 MiB on gravity bitboards,
# 130 MiB for other boards, 115 MiB past 64 cells; board.py, bitboard_arrays.py).
KEPT_GAMES = 4


@dataclass(frozen=True)
class Searched:
    """A position answered by search: the board, and what search proved about it."""

    spec: Spec
    board: tuple[int, ...]
    solution: Solution

    @property
    def ply(self) -> int:
        """Stones on the board."""
        return len(self.board) - self.board.count(0)

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


def searchable(spec: Spec) -> bool:
    """Whether the search takes the game: not where stones move (positions repeat, and the
    search walks no cycles)."""
    return not grid_game(spec).positions_repeat


def refuse_unsearchable(spec: Spec) -> None:
    """InvalidSpecError for a game the search does not take (`searchable`)."""
    if not searchable(spec):
        raise InvalidSpecError(f"{spec.name}: stones move, so positions can repeat, and search"
                               f" does not take such games; build its table (tablebase build"
                               f" {spec.name}) and ask that")


def check_searchable(spec: Spec, board: Sequence[int]) -> None:
    """Raise ImpossiblePositionError unless `board` can arise in play (a search answers only
    those); InvalidSpecError for a game whose positions repeat, which search does not take.
    The rules' compiled test first (builder/games/grid/orders.py: the counts, the lines, floating
    stones and an order of moves, in microseconds); where it refuses, the checks that say why."""
    refuse_unsearchable(spec)
    if len(board) == spec.cells and set(board) <= {0, 1, 2} and order_status(
            spec, np.array(board, dtype=np.uint8)[None, :])[0] == FOUND:
        return
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


def check_readings(spec: Spec, read: Readings) -> None:
    """Add to `read.errors` the error of each position that can not arise in play, of those its
    reading did not prove can (board text): all of them in one compiled call, the rules' own
    (builder/games/grid/orders.py: cheap on gravity boards, a look at the lines elsewhere); then
    each it refuses by `check_searchable`, which says why."""
    rows = [i for i in range(len(read)) if i not in read.errors and not read.played[i]]
    if not rows:
        return
    status = order_status(spec, read.cells[rows])
    for i in (i for i, s in zip(rows, status.tolist()) if s != FOUND):
        try:
            check_searchable(spec, read.cells[i].tolist())
        except (ValueError, SearchLimitError) as e:
            read.errors[i] = e  # type: ignore[assignment]  # the searches' own limit, too


def leaves(tb: Tablebase | None, spec: Spec) -> list[LeafTable]:
    """The stored tables of `spec` small enough to load whole, as search leaves."""
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
        view = tb.table(spec, info.root)
        table = view.load()
        found.append(leaf_table(view.table_root, table.codes, table.value, table.depth))
    return found


def searcher(tb: Tablebase | None, spec: Spec, use_tables: bool = True) -> Searcher:
    """A Searcher of `spec` with the database's tables at its leaves (unless `use_tables` is
    False)."""
    from tablebase.query.search.searcher import Searcher

    return Searcher(spec, leaves(tb, spec) if use_tables else ())


def budget(seconds: float | None = None, nodes: int | None = None,
           cancel: threading.Event | None = None) -> Budget:
    """A search budget of `seconds` and `nodes` (None: no limit), stopped early when `cancel`
    is set."""
    from tablebase.query.search.searcher import Budget

    return Budget(seconds, nodes, cancel)


def solve(tb: Tablebase | None, spec: Spec, position: Reading | Sequence[int],
          limit: Budget | None = None, progress: Progress | None = None,
          use_tables: bool = True, engine: Searcher | None = None,
          started: float | None = None) -> Searched:
    """Solve a position that can arise in play (checked, unless its Reading was `played`) by
    search (tables at the leaves), within `limit` (None: no limit), whose seconds count from
    `started` (a time.monotonic(); default: when the search itself starts), so that checking
    the board and loading the leaves are paid from them."""
    refuse_unsearchable(spec)
    if isinstance(position, Reading):
        board = position.board
        if not position.played:
            check_searchable(spec, board)
    else:
        board = tuple(int(v) for v in position)
        check_searchable(spec, board)
    engine = engine or searcher(tb, spec, use_tables)
    return Searched(spec, board, engine.solve(board, _left(limit or budget(), started),
                                              progress))


def _left(limit: Budget, started: float | None) -> Budget:
    """`limit` with its seconds counted from `started` (None: from now)."""
    if started is None or limit.seconds is None:
        return limit
    return budget(max(0.0, started + limit.seconds - time.monotonic()), limit.nodes,
                  limit.cancel)



def tablebase_at(db: str) -> Tablebase:
    """The Tablebase of `db`, its storage layer imported only now (a search without one skips it)."""
    from tablebase.query.tablebase import Tablebase

    return Tablebase(db)


def search_positions(spec: str | Spec, positions: Iterable[Sequence[int] | str], *,
                     seconds: float | None = None, nodes: int | None = None,
                     db: str | None = None) -> Iterator[Searched]:
    """Solve positions one after another (each text in any form a position is read in, or
    cell values) with one searcher, whose transposition table carries over from one to the
    next: each within `seconds` and `nodes` (None: no limit), with the tables of the database
    `db` (if given) at the leaves. Raises at the first position that cannot be read or
    reached, after yielding the answers before it."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    tb = None if db is None else tablebase_at(db)
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


Answer = tuple[int, Searched | ValueError | SearchLimitError]


def solve_each(tb: Tablebase | None, spec: Spec, positions: Iterable[Sequence[int] | str],
               limit: Budget, batch: int = 1) -> Iterator[Answer]:
    """(number from 1, answer) for each position, in order, or the error that one gives instead
    (InvalidPositionError, NotationError, ImpossiblePositionError, SearchLimitError); one
    searcher for all. With `batch` > 1, up to that many positions are read ahead, read in one
    compiled call and solved together (Searcher.solve_many: on Connect Four boards their
    first nodes in one compiled call), each within `limit` for its own search; with 1, each
    is answered before the next is read (standard input read as it comes), its `limit`
    counted from reading it. Blank lines and lines starting with '#' are skipped (still
    counted)."""
    refuse_unsearchable(spec)
    engine = searcher(tb, spec)
    pending: list[tuple[int, Any]] = []
    for number, position in enumerate(positions, 1):
        if isinstance(position, str) and (not position.strip()
                                          or position.lstrip().startswith("#")):
            continue
        pending.append((number, position))
        if len(pending) >= batch:
            yield from _solved(tb, spec, engine, pending, limit, batch)
            pending = []
    yield from _solved(tb, spec, engine, pending, limit, batch)


def _solved(tb: Tablebase | None, spec: Spec, engine: Searcher, pending: list[tuple[int, Any]],
            limit: Budget, batch: int) -> Iterator[Answer]:
    """solve_each's answers for one batch of (number, position)."""
    if not pending:
        return
    started = time.monotonic()
    read = read_positions(spec, [p for _, p in pending], compiled=True)
    check_readings(spec, read)
    good = [i for i in range(len(pending)) if i not in read.errors]
    boards = read.cells.tolist()
    if not good:
        found = []
    elif batch <= 1:  # one position: its limit counted from reading it
        found = [engine.solve(boards[i], _left(limit, started)) for i in good]
    else:
        found = engine.solve_many(read.cells[good] if len(good) < len(pending) else read.cells,
                                  limit)
    solutions = dict(zip(good, found))
    for i, (number, _) in enumerate(pending):
        error = read.errors.get(i)
        yield number, error if error is not None else Searched(spec, tuple(boards[i]),
                                                               solutions[i])


_kept = threading.local()


def kept_searcher(spec: Spec, db: str | None = None) -> Searcher:
    """This thread's searcher of `spec` (with the tables of the database `db` at its leaves),
    made on first use and kept with its transposition table, as the server's threads keep
    theirs: the next position of the same game costs its search, not a setup. Made again
    when `db`'s tables of the game change; at most KEPT_GAMES games a thread."""
    kept: dict[tuple[Spec, str | None], tuple[Any, Searcher]] = _kept.__dict__.setdefault(
        "searchers", {})
    key = (spec, db)
    found = kept.get(key)
    if db is None:
        if found is None:
            found = _keep(kept, key, None, searcher(None, spec))
        return found[1]
    tb = tablebase_at(db)
    try:
        try:
            tag = tuple((g.root, g.checksum) for g in tb.catalogue(spec) if g.complete)
        except GameNotBuiltError:
            tag = ()
        if found is None or found[0] != tag:
            found = _keep(kept, key, tag, searcher(tb, spec))
        return found[1]
    finally:
        tb.close()


def _keep(kept: dict[Any, tuple[Any, Searcher]], key: Any, tag: Any, engine: Searcher
          ) -> tuple[Any, Searcher]:
    kept.pop(key, None)
    while len(kept) >= KEPT_GAMES:
        kept.pop(next(iter(kept)))  # the game used least lately
    kept[key] = (tag, engine)
    return kept[key]


def search_position(spec: str | Spec, position: Reading | Sequence[int] | str, *,
                    seconds: float | None = None, nodes: int | None = None,
                    db: str | None = None) -> Searched:
    """Solve a position (text in any form a position is read in, a Reading, or cell values) by
    search within `seconds` and `nodes` (None: no limit), with the tables of the database
    `db` (if given) at the leaves, on this thread's kept searcher of the game (its
    transposition table kept from one call to the next)."""
    spec = _spec(spec) if isinstance(spec, str) else spec
    refuse_unsearchable(spec)
    if isinstance(position, str):
        position = read_position(spec, position, compiled=True)
    return solve(None, spec, position, budget(seconds, nodes), engine=kept_searcher(spec, db))


# The games `search_position` was asked about by name (a name read once, not at every call).
_spec = lru_cache(maxsize=64)(parse_spec)


def load_search() -> None:
    """Load the compiled search, the compiled reading of positions and the reachability test
    it checks boards with (numba's cache: about half a second, once per process; the first
    run after a change compiles), by solving small boards of each kind: tic-tac-toe, a
    five-in-a-row board (its draw proofs) and a gravity board (the bitboard search). A
    server does this before it answers, so that no request's budget pays for it and every
    search can be stopped at once."""
    for name, nodes in (("3x3k3", None), ("5x5k5", 20_000), ("4x4k3+gravity", None)):
        spec = parse_spec(name)
        read = read_positions(spec, ["b1"] * 2, compiled=True)
        solve(None, spec, read.cells[0].tolist(), budget(nodes=nodes))

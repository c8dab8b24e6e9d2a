"""Why a position is not answered, the one place that says it: an impossible board, a board the
rules do not reach from any table's root, a board a damaged table lost, a board nobody could
settle, or one that only an endgame table not built yet would hold (and whether such a table is
within reach here).

A table holds exactly the positions the rules reach from its root, so a miss is "unreachable"
only where the rules' own move-order search (builder/games/grid/orders.py) finds no order of legal
moves from the root; where it finds one, the table is damaged; where it gives up, nothing is
said either way."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tablebase.builder.games.errors import ImpossiblePositionError
from tablebase.builder.games.grid import InvalidPositionError, Spec, check_position, orders, parents
from tablebase.builder.games.grid.counts import reachable_bound, stones_needed
from tablebase.builder.games.grid.game import GridGame
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.grid.root_check import check_root
from tablebase.builder.games.tier_kernels import LARGE_TABLE
from tablebase.db.errors import DamagedTableError
from tablebase.query.errors import MissingPositionError
from tablebase.query.tables import StoredTable, verdict


def missing_error(game: GridGame, board: tuple[int, ...], tables: Sequence[StoredTable],
                  holder: Callable[[tuple[int, ...]], StoredTable | None],
                  database: str) -> Exception:
    """The error for `board` (a position of `game`), which none of `tables` holds (a move's
    position included): impossible; damage, where a table's root reaches it (named by a stored
    parent that is not over, which `holder` finds, else by the move-order search); undecided,
    where that search gave up; unreachable, where a whole-board table does not reach it or no
    game does; or else an endgame table to build. Where the rules cannot say what a root
    reaches (`game.reach_known`), a complete table is taken at its word."""
    spec = game.spec
    text = game.text(board)
    if not game.reach_known:
        if any(t.whole for t in tables):
            return MissingPositionError(f"position {text!r} ({spec.name}) cannot be reached from"
                                        " the empty board, so the table does not hold it")
        return MissingPositionError(
            f"position {text!r} ({spec.name}) is in none of its {len(tables)} endgame tables;"
            f" build the whole board (tablebase build {spec.name}) or a table from it")
    try:
        check_position(spec, board)
    except InvalidPositionError as e:
        return ImpossiblePositionError(f"position {text!r} ({spec.name}): {e}")
    # A stored position that is not over holds every child: a parent so stored names the damage
    # most plainly (and costs lookups only).
    for parent in parents(spec, board):
        table = holder(parent)
        if table is not None:
            return damaged(database, table, f"it holds {board_text(spec, parent)!r} but not"
                                            f" {text!r}, one move later")
    undecided = None
    for table in tables:
        reached = table.reaches(board)
        if reached:
            return damaged(database, table, f"it lacks {text!r}, which legal moves reach from"
                                            f" {_origin(table)}")
        if reached is None and undecided is None:
            undecided = table
    if undecided is not None:
        return _undecided(f"position {text!r} ({spec.name}) is not in the"
                          f" {undecided.root.name} table", undecided)
    whole = any(t.whole for t in tables)
    if whole or verdict(orders.order_status(spec, np.array([board], np.uint8))) is False:
        held = "the table does not hold it" if whole else "no table holds it"
        return MissingPositionError(
            f"position {text!r} ({spec.name}) cannot be reached from the empty board, so {held}")
    missing = (f"no table of {spec.name} holds position {text!r}: it descends from none of"
               " the endgame tables' roots")
    too_far = too_far_for_a_table(spec, board)
    if too_far is not None:
        return MissingPositionError(f"{missing}, and {too_far}")
    return MissingPositionError(missing, build_from=text)


def missing_codes_error(table: StoredTable, codes: np.ndarray, asked: int,
                        database: str) -> Exception:
    """The error for `codes` (any images) that `table` lacks, of `asked` codes: damage where
    legal moves reach any of them from its root, undecided where the search gave up, else
    unreachable."""
    spec = table.root.spec
    boards = table.boards(codes)
    status = orders.order_status(spec, boards, table.root.board)
    reached = verdict(status)
    # The code the explanation is about: the first reached, else the first undecided, else the
    # first.
    about = {True: orders.FOUND, None: orders.GAVE_UP, False: orders.NONE}[reached]
    first = int(np.flatnonzero(status == about)[0])
    text = board_text(spec, tuple(int(v) for v in boards[first]))
    missing = f"{len(codes):,} of {asked:,} codes are not in the {table.root.name} table"
    example = f"code {int(codes[first])}, {text!r}"
    if reached:
        found = int(np.count_nonzero(status == orders.FOUND))
        return damaged(database, table, f"it lacks {found:,} of the {asked:,} codes asked,"
                                        f" which legal moves reach from {_origin(table)} (the"
                                        f" first is {example})")
    if reached is None:
        return _undecided(f"{missing}; for {example}", table)
    return MissingPositionError(f"{missing} (they cannot be reached from {_origin(table)});"
                                f" the first is {example}")


def damaged(database: str, table: StoredTable, what: str) -> DamagedTableError:
    """The error for a table found damaged by what it lacks (`what`: 'it lacks ...')."""
    return DamagedTableError(f"{database}: the {table.root.name} table is damaged: {what}; run"
                             " `tablebase verify`", "a position reachable from its root is missing")


def _origin(table: StoredTable) -> str:
    return "the empty board" if table.whole else "its root"


def _undecided(missing: str, table: StoredTable) -> MissingPositionError:
    """Neither unreachable nor damage: the move-order search gave up (orders.STATES)."""
    return MissingPositionError(
        f"{missing}, and whether it can be reached from {_origin(table)} is not known (the"
        f" search for an order of moves gave up after {orders.STATES:,} states); if it"
        " can, the table is damaged: run `tablebase verify`")


def too_far_for_a_table(spec: Spec, board: Sequence[int]) -> str | None:
    """Why a table from `board` is not worth building here (too many free cells, or estimated
    past a billion positions: builder/games/grid/counts.py), or None when it is."""
    try:
        root = check_root(spec, board)
    except InvalidPositionError:
        symmetries, estimate = 1, None
    else:
        symmetries = len(root.symmetries)
        estimate = reachable_bound(spec, board) // symmetries
        if estimate <= LARGE_TABLE:
            return None
    needed = stones_needed(spec, board, symmetries)
    size = "" if estimate is None else f" (about {estimate:.1e} positions)"
    return (f"it is too far from the end for a table here{size}: a table needs about {needed}"
            " stones on this board")

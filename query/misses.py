"""Why a position is not answered: an impossible board, a board no game reaches, a board a
damaged table lost, or one that only an endgame table not built yet would hold (and whether
such a table is within reach here)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from tablebase.builder.game import InvalidPositionError, Spec, check_position, parents
from tablebase.builder.game.counts import LARGE_TABLE, reachable_bound, stones_needed
from tablebase.builder.game.root import check_root
from tablebase.db.errors import DamagedTableError
from tablebase.query.errors import ImpossiblePositionError, MissingPositionError
from tablebase.query.notation import board_text
from tablebase.query.tables import StoredTable


def missing_error(spec: Spec, board: tuple[int, ...], tables: Sequence[StoredTable],
                  stored_and_open: Callable[[tuple[int, ...]], bool], database: str) -> Exception:
    """The error for `board`, which none of `tables` holds: impossible, damage (a stored
    position that is not over holds every child, so a parent stored without it means a damaged
    table, whatever SQLite said; `stored_and_open` asks), unreachable, or a table to build."""
    text = board_text(spec, board)
    try:
        check_position(spec, board)
    except InvalidPositionError as e:
        return ImpossiblePositionError(f"position {text!r} ({spec.name}): {e}")
    for parent in parents(spec, board):
        if stored_and_open(parent):
            return DamagedTableError(
                f"{database}: a table of {spec.name} is damaged: it holds"
                f" {board_text(spec, parent)!r} but not {text!r}, one move later; run"
                " `tablebase verify`")
    if any(t.whole for t in tables):
        return MissingPositionError(
            f"position {text!r} ({spec.name}) cannot be reached from the empty board, so the"
            " table does not hold it")
    missing = (f"no table of {spec.name} holds position {text!r}: it descends from none of"
               " the endgame tables' roots")
    too_far = too_far_for_a_table(spec, board)
    if too_far is not None:
        return MissingPositionError(f"{missing}, and {too_far}")
    return MissingPositionError(missing, build_from=text)


def too_far_for_a_table(spec: Spec, board: Sequence[int]) -> str | None:
    """Why a table from `board` is not worth building here (too many free cells, or estimated
    past a billion positions: builder/game/counts.py), or None when it is."""
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

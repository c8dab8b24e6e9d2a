"""The rules of play for whole games, the same for every game (a table's values assume
neither: they are the game's own): a game is a draw when a position (its stones and the side to
move) comes up for the third time, or after PLY_LIMIT plies. Only games whose positions repeat
are ever cut short. A turn itself (the moves, a move played, named and read) is the game's
(builder/games/grid/game.py: `grid_game(spec)`).
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.move import Move
from tablebase.query.answer_records import MoveInfo

# A draw is declared when a position comes up this many times in one game...
REPEAT_LIMIT = 3
# ... or after this many plies, longer than any perfect win of these games.
PLY_LIMIT = 1000


def of(info: MoveInfo) -> Move:
    """The move a MoveInfo (as `Tablebase.moves` reports it) describes."""
    return Move(info.start, info.cell, info.take)


def drawn_by_play(history: Sequence[Sequence[int]]) -> str | None:
    """Why a game that has gone through `history` (positions, the current one last) is a draw
    by the rules of play, or None: the current position came up for the REPEAT_LIMIT-th time,
    or PLY_LIMIT plies were played."""
    if len(history) - 1 >= PLY_LIMIT:
        return f"{PLY_LIMIT:,} plies were played"
    current = tuple(history[-1])
    if sum(1 for p in history if tuple(p) == current) >= REPEAT_LIMIT:
        return "the same position came up a third time"
    return None

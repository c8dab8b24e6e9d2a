"""One turn of any game, the same way whether stones are only placed or also move: a position
is a tuple of cell values, followed by the side to move where stones move (`+stonesN`:
builder/games/stones/rules.py); a move is `(start, cell)`, `start` None for a placement and the
cell a stone leaves for a step. The faces that play whole games (play, the GTP engine, the
audit's games and strategies) read, play and name moves through here, and end a game that
would go on forever by the rules of play below.

    position                          move        named
    (0,0,0, 0,0,0, 0,0,0)             (None, 4)   b2          a placement (3x3k3)
    (1,2,0, 0,1,2, 1,0,2, 2)          (1, 2)      b3-c3       a step; o (2) to move

The rules of play (a table's values assume neither: they are the game's own): a game is a
draw when a position (its stones and the side to move) comes up for the third time, or after
PLY_LIMIT plies. Only games whose stones move can repeat, so only they are ever cut short.
"""
from __future__ import annotations

from collections.abc import Sequence

from tablebase.builder.games.grid import PLAYER_NAMES, Spec, legal_moves, side_to_move, transform
from tablebase.builder.games.grid.boards import parse_move, place
from tablebase.builder.games.stones import rules
from tablebase.builder.games.stones.notation import move_text, parse_move_moving
from tablebase.query.records import MoveInfo

Move = rules.Move
# A draw is declared when a position comes up this many times in one game...
REPEAT_LIMIT = 3
# ... or after this many plies, longer than any perfect win of these games.
PLY_LIMIT = 1000


def start(spec: Spec) -> tuple[int, ...]:
    """The empty board as a position (x to move)."""
    empty = (0,) * spec.cells
    return rules.joined(empty, rules.X) if spec.moving else empty


def mover(spec: Spec, position: Sequence[int]) -> int:
    """The side to move (X or O)."""
    return int(position[spec.cells]) if spec.moving else side_to_move(position)


def side(spec: Spec, position: Sequence[int]) -> str:
    """The side to move, 'x' or 'o'."""
    return PLAYER_NAMES[mover(spec, position)]


def stones(spec: Spec, position: Sequence[int]) -> int:
    """The stones on the board."""
    return sum(1 for v in position[:spec.cells] if v)


def legal(spec: Spec, position: Sequence[int]) -> list[Move]:
    """Every legal move, in the rules' order (placements by cell, steps by their start);
    empty once the game is over."""
    if spec.moving:
        return rules.legal(spec, position)
    return [(None, cell) for cell in legal_moves(spec, position)]


def read_move(spec: Spec, position: Sequence[int], text: str) -> Move:
    """The move a name plays (`b2`, `a1-b2`); NotationError if it cannot be read,
    IllegalMoveError if it may not be played now."""
    if spec.moving:
        return parse_move_moving(spec, position, text)
    return None, parse_move(spec, position, text)


def played(spec: Spec, position: Sequence[int], move: Move) -> tuple[int, ...]:
    """The position after `move` (a legal one: `read_move` or `legal` gives them)."""
    if spec.moving:
        return rules.after(spec, position, move)
    return place(position, move[1])


def name(spec: Spec, move: Move) -> str:
    """A move's name: `b2` for a placement, `a1-b2` for a step."""
    return move_text(spec, move)


def of(info: MoveInfo) -> Move:
    """The move a MoveInfo (as `Tablebase.moves` reports it) describes."""
    return info.start, info.cell


def image(spec: Spec, position: Sequence[int], s: int) -> tuple[int, ...]:
    """The position under symmetry map `s` (the side to move stays)."""
    return transform(spec, position[:spec.cells], s) + tuple(position[spec.cells:])


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

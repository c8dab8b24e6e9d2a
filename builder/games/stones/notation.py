"""Notation of games whose stones move (`+stonesN`): a position is board text, then ` x` or
` o` where the stones do not say whose turn it is (the movement phase: `'xo./.xo/x.o o'`), and
a step is `FROM-TO` (`a1-b2`), a placement as in every other game (`b2`).

Positions of these games are held as their cells followed by the side to move (1 x, 2 o:
builder/games/stones/rules.py), so that a code, a board and the side travel together.
"""
from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import EMPTY, O, Spec, X
from tablebase.builder.games.grid.boards import Reading, parse_board, parse_cell, read_cells
from tablebase.builder.games.grid.notation import move_name
from tablebase.builder.games.move import Move
from tablebase.builder.games.stones import rules

_SIDES = {"x": X, "o": O}
_BOARD_CHARS = frozenset("xXoO./")


def read_moving(spec: Spec, position: str | Sequence[int] | int) -> tuple[int, ...]:
    """A position of a game whose stones move, from text (board text, the side, then moves;
    or moves from the empty board), a code, or cell values (then the side, 1 x or 2 o, where
    the stones do not say it); checked, InvalidPositionError or NotationError naming the fault."""
    if isinstance(position, str):
        return parse_moving(spec, position)  # checked there, before its moves are played
    if isinstance(position, Integral) and not isinstance(position, bool):
        code = int(position)
        if not 0 <= code < 2 * 3 ** spec.cells:
            raise NotationError(f"code {code} is out of range for {spec.name}: codes run from 0"
                                f" to {2 * 3 ** spec.cells - 1}")
        found = rules.position_of(spec, code)
    else:
        values = list(position)  # type: ignore[arg-type]
        board = read_cells(spec, values[:spec.cells])
        said = rules.stones_say(spec, board)
        if len(values) == spec.cells and said is None:
            raise NotationError(_no_side(spec))
        if len(values) not in (spec.cells, spec.cells + 1) or \
                (len(values) > spec.cells and values[-1] not in (X, O)):
            raise NotationError(f"a position of {spec.name} is {spec.cells} cell values, then"
                                " the side to move (1 x, 2 o) once every stone is down")
        side = int(values[-1]) if len(values) > spec.cells else said
        assert side is not None  # refused above
        found = rules.joined(board, side)
    rules.check_moving(spec, found)
    return found


def read_moving_position(spec: Spec, position: str | Sequence[int] | int | Reading | None,
                         moves: str | None = None) -> Reading:
    """grid/position_text.py's `read_position` where stones move: the position (as `read_moving`
    reads it; None: the empty board), then `moves` played, as a Reading whose board is the
    cells followed by the side to move."""
    if isinstance(position, Reading):
        found = position.board
    elif position is None:
        found = rules.joined((EMPTY,) * spec.cells, X)
    else:
        found = read_moving(spec, position)
    if moves and moves.strip():
        found = play_moving(spec, moves, found)
    return Reading(found, found[spec.cells])  # the side to move follows the cells


def _no_side(spec: Spec) -> str:
    return (f"every stone of {spec.name} is down, so the stones do not say whose turn it is:"
            " add ' x' or ' o' after the board")


def parse_moving(spec: Spec, text: str) -> tuple[int, ...]:
    """The position a line names: board text, then ` x` or ` o` where needed, then moves; or
    moves from the empty board (none: the empty board)."""
    tokens = text.replace(",", " ").split()
    rest = tokens
    if tokens and len(tokens[0]) > 1 and set(tokens[0]) <= _BOARD_CHARS:
        board = parse_board(spec, tokens[0])
        said = rules.stones_say(spec, board)
        rest = tokens[1:]
        if rest and rest[0].lower() in _SIDES:
            side = _SIDES[rest[0].lower()]
            rest = rest[1:]
        elif said is None:
            raise NotationError(_no_side(spec))
        else:
            side = said
        if len(board) != spec.cells:
            raise NotationError(f"board {text!r}: expected {spec.cells} cells")
        position = rules.joined(board, side)
        rules.check_moving(spec, position)
    else:
        position = rules.joined((EMPTY,) * spec.cells, X)
    return play_moving(spec, " ".join(rest), position)


def play_moving(spec: Spec, text: str, position: Sequence[int]) -> tuple[int, ...]:
    """The position after a move list ("b2 a1 ... a1-b2") played from `position`; raise
    naming the first move that fails and why."""
    current = tuple(position)
    for number, token in enumerate(text.replace(",", " ").split(), 1):
        try:
            move = parse_move_moving(spec, current, token)
        except (NotationError, IllegalMoveError) as e:
            raise type(e)(f"move {number} of {text.strip()!r}: {e}") from None
        current = rules.after(spec, current, move)
    return current


def parse_move_moving(spec: Spec, position: Sequence[int], text: str) -> Move:
    """The move a name plays in `position`: a cell name places, `FROM-TO` steps; NotationError
    if it cannot be read, IllegalMoveError if it may not be played now."""
    board, side = rules.split(spec, position)
    names = {X: "x", O: "o"}
    over = rules.outcome_of(spec, position)
    if over is not None:
        raise IllegalMoveError(f"move {text!r} comes after the end of the game")
    placing = rules.stones_say(spec, board) is not None
    parts = text.strip().lower().split("-")
    if len(parts) > 2:
        raise NotationError(f"cannot read move {text!r}: a step is FROM-TO, such as a1-b2")
    cells = [parse_cell(spec, part) for part in parts]
    if len(cells) == 1:
        if not placing:
            raise IllegalMoveError(f"move {text!r}: every stone is down, so {names[side]} moves"
                                   " one: write FROM-TO, such as a1-b2")
        if board[cells[0]] != EMPTY:
            raise IllegalMoveError(f"move {text!r}: {move_name(spec, cells[0])} is occupied")
        return Move(None, cells[0])
    start, to = cells
    if placing:
        raise IllegalMoveError(f"move {text!r}: {names[side]} still has stones to place; write"
                               " the cell, such as b2")
    if board[start] != side:
        holder = "empty" if board[start] == EMPTY else f"{names[board[start]]}'s stone"
        raise IllegalMoveError(f"move {text!r}: {move_name(spec, start)} holds no stone of"
                               f" {names[side]} ({holder})")
    if board[to] != EMPTY:
        raise IllegalMoveError(f"move {text!r}: {move_name(spec, to)} is occupied")
    if (start, to) not in rules.steps(spec, board, side):
        raise IllegalMoveError(f"move {text!r}: {move_name(spec, to)} is not next to"
                               f" {move_name(spec, start)} (a stone steps to one of the 8 cells"
                               " around it)")
    return Move(start, to)

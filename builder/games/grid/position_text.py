"""One reading of a position, for every face (the command line, the Python API, the HTTP API,
the audit): board text, board text then moves, moves from the empty board, or with +gravity
on at most nine columns Pascal Pons' column digits ("4453" plays d, d, e, c); where stones
move, board text then the side to move (` x`, ` o`) and steps (`a1-b2`). Read into a
`Reading`: the cells, the side to move, and whether legal moves from the empty board reached
it (such a position needs no reachability test before a search).

Board text and moves are written as boards.py reads them; where stones move, board text may
be followed by the side to move, and moves may be steps (../stones/notation.py).

`read_position` reads one, in Python (or by the compiled reader, position_texts_kernel.py, where a
search has loaded it); position_texts.py reads a batch at once.
"""
from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

from tablebase.builder.games.errors import NotationError
from tablebase.builder.games.grid import Spec, X, decode
from tablebase.builder.games.grid.boards import (
    Reading,
    parse_board,
    play_moves,
    play_tokens,
    read_cells,
    reading_of,
)
from tablebase.builder.games.grid.notation import column_name, empty_board, shown

_BOARD_CHARS = frozenset("xXoO./")


def _read_text(spec: Spec, text: str) -> Reading:
    """The position one line of text names (see the module's docstring)."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise NotationError("an empty line names no position")
    if any("/" in token for token in tokens[1:]):  # no move has a '/': a board with spaces
        parse_board(spec, text)  # raises, saying that a space is not a cell
    if set(tokens[0]) <= _BOARD_CHARS or "/" in tokens[0]:  # no move has a '/'
        start = parse_board(spec, tokens[0])
        board = (play_tokens(spec, start, tokens[1:], " ".join(tokens[1:])) if len(tokens) > 1
                 else start)
        return reading_of(board, not any(start))
    if spec.gravity and spec.width <= 9 and len(tokens) == 1 and tokens[0].isdigit():
        columns = []
        for ch in tokens[0]:
            if not 1 <= int(ch) <= spec.width:
                raise NotationError(
                    f"column {ch} in {shown(tokens[0])}: columns run from 1 to {spec.width}")
            columns.append(column_name(int(ch) - 1))
        return reading_of(play_tokens(spec, empty_board(spec), columns, tokens[0]), True)
    return reading_of(play_tokens(spec, empty_board(spec), tokens, text), True)


def read_position(spec: Spec, position: str | Sequence[int] | int | Reading | None = None,
                  moves: str | None = None, compiled: bool = False) -> Reading:
    """The position given in any accepted form, then `moves` played from it: text (board text,
    board text then moves, moves from the empty board, Pons' column digits with +gravity), a
    Reading, a sequence of cell values (0 empty, 1 x, 2 o, row-major from the top-left) or a
    code; None is the empty board. Text is read by the compiled reader first where
    `compiled` (a search loads it anyway: a few microseconds a position, against some
    hundred in Python). Only reads (a NotationError, IllegalMoveError or InvalidPositionError
    names the fault): whether a board not `played` can arise in play is `check_position`'s
    question."""
    if spec.moving:  # stones that move: the side to move may follow the board (../stones/notation.py)
        from tablebase.builder.games.stones.notation import read_moving_position

        return read_moving_position(spec, position, moves)
    if position is None:
        found = Reading(empty_board(spec), X, True)
    elif isinstance(position, Reading):
        found = position
    elif isinstance(position, str):
        got = None
        if compiled:
            from tablebase.builder.games.grid.position_texts_kernel import read_text

            got = read_text(spec, position)
        found = _read_text(spec, position) if got is None else reading_of(*got)
    elif isinstance(position, Integral) and not isinstance(position, bool):
        code = int(position)
        if not 0 <= code < 3 ** spec.cells:
            raise NotationError(
                f"code {code} is out of range for {spec.name}: codes run from 0 to"
                f" {3 ** spec.cells - 1}")
        found = reading_of(decode(code, spec.cells))
    else:
        found = reading_of(read_cells(spec, position))  # type: ignore[arg-type]
    if moves and moves.strip():
        found = reading_of(play_moves(spec, moves, found.board), found.played)
    return found

"""Play against perfect play: the interactive loop behind `tablebase play`, reading and writing
through functions passed in so that a test can script a whole game.

After each of your moves it says what the move did to your value ("that move turned a draw into
a loss"); `hint` shows the perfect moves, `undo` takes back your last move and the reply to it,
`quit` ends the game.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablebase.builder.game import Spec, Value, side_to_move
from tablebase.query.boards import parse_move, place
from tablebase.query.errors import IllegalMoveError, NotationError
from tablebase.query.notation import (
    draw_board,
    empty_board,
    move_name,
    outcome_text,
    player_name,
    plies,
)
from tablebase.query.play.levels import MAX_LEVEL, check_level, choose_move
from tablebase.query.records import known_depth
from tablebase.query.tablebase import MoveInfo, Probe, Tablebase

COMMANDS = ("hint", "undo", "quit")


@dataclass(frozen=True)
class PlayedGame:
    """How a game ended: `result` is 'x' or 'o' (the winner), 'draw', or 'quit'; `moves` are
    the names of the moves played, in order."""

    result: str
    moves: tuple[str, ...]
    board: tuple[int, ...]


def _outcome(value: Value, n: int) -> str:
    return "a draw" if value == Value.DRAW else f"a {value.word} in {plies(n)}"


def judge(before: Probe, chosen: MoveInfo) -> str:
    """What a move did to its player's value: kept it (as fast or not) or turned it into another.

    `before` is the position the move was made in; `chosen` the move, as `Tablebase.moves`
    reports it (value for the player making it, depth of the position after it).
    """
    after = known_depth(chosen.depth) + 1  # to the end, counted from before the move
    if chosen.value != before.value:
        return (f"that move turned {_outcome(before.value, known_depth(before.depth))} into"
                f" {_outcome(chosen.value, after)}")
    if chosen.best and chosen.value == Value.LOSS:
        return f"a perfect move: the longest resistance ({_outcome(chosen.value, after)})"
    if chosen.best:
        return f"a perfect move: it keeps {_outcome(chosen.value, after)}"
    if chosen.value == Value.WIN:
        return (f"that move keeps the win, but slower: in {plies(after)} instead of"
                f" {before.depth}")
    return (f"that move keeps the loss, but sooner: in {plies(after)} instead of"
            f" {before.depth}")


def _winner(probe: Probe) -> str:
    if probe.value == Value.DRAW:
        return "draw"
    # The side to move at a terminal position has lost (normal rules) or won (misere).
    other = "o" if probe.to_move == "x" else "x"
    return probe.to_move if probe.value == Value.WIN else other


def play_game(tb: Tablebase, spec: str | Spec, human: str = "x", *,
              read: Callable[[str], str] = input, write: Callable[[str], None] = print,
              rng: random.Random | None = None, level: int = MAX_LEVEL,
              start: Sequence[int] | None = None) -> PlayedGame:
    """Play one game of `spec` as `human` ('x' or 'o') against the computer, from `start`
    (cell values; default: the empty board; an endgame table's root or any position below it).

    `read(prompt)` returns one line of input (EOFError ends the game like `quit`); `write`
    shows one block of text. The computer plays as a player of `level` would (see
    query.levels; 10, the default, plays a best move, chosen with `rng` among equals, the first
    in cell order without one).
    """
    spec = tb.spec(spec)
    check_level(level)
    if human not in ("x", "o"):
        raise NotationError(f"you play x or o, found {human!r}")
    alone = "; with +gravity a column letter alone" if spec.gravity else ""
    how = "perfectly" if level == MAX_LEVEL else f"at level {level} of {MAX_LEVEL}"
    write(f"{spec.name}: you are {human}, the computer plays {how}. Moves are a column letter"
          f" and a row number, such as {move_name(spec, spec.cells - spec.width)}{alone}."
          f" Also: {', '.join(COMMANDS)}.")
    history = [tuple(start) if start is not None else empty_board(spec)]
    names: list[str] = []
    last: int | None = None
    while True:
        board = history[-1]
        probe = tb.probe(spec, board)
        write(draw_board(spec, board, highlight=last))
        if probe.terminal:
            result = _winner(probe)
            verdict = ("a draw" if result == "draw" else
                       "you win" if result == human else "the computer wins")
            write(f"game over: {verdict}" + ("" if result == "draw" else f" ({result} won)"))
            return PlayedGame(result, tuple(names), board)
        write(str(probe))
        if probe.to_move != human:
            pick = choose_move(tb, spec, board, level, rng)
            write(f"computer ({probe.to_move}) plays {pick.move}")
            history.append(place(board, pick.cell))
            names.append(pick.move)
            last = pick.cell
            continue
        while True:
            try:
                text = read(f"your move ({human}): ").strip().lower()
            except EOFError:
                text = "quit"
            if text in ("quit", "q", "exit"):
                write("game abandoned")
                return PlayedGame("quit", tuple(names), board)
            if text == "":
                continue
            if text == "hint":
                best = tb.best_moves(spec, board)
                write(f"perfect moves: {' '.join(m.move for m in best)}"
                      f" ({outcome_text(probe.value, probe.depth)})")
                continue
            if text == "undo":
                # Back to your previous turn: your last move and the reply to it are taken back.
                turns = [i for i in range(len(history) - 1)
                         if player_name(side_to_move(history[i])) == human]
                if not turns:
                    write("nothing to undo")
                    continue
                del history[turns[-1] + 1:]
                del names[turns[-1]:]
                last = None
                write("took back your last move")
                break
            try:
                cell = parse_move(spec, board, text)
            except (NotationError, IllegalMoveError) as e:
                write(f"{e}; try again, or: {', '.join(COMMANDS)}")
                continue
            chosen = next(m for m in tb.moves(spec, board) if m.cell == cell)
            write(judge(probe, chosen))
            history.append(place(board, cell))
            names.append(chosen.move)
            last = cell
            break

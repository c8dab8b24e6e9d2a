"""Play against perfect play: the interactive loop behind `tablebase play`, reading and writing
through functions passed in so that a test can script a whole game.

After each of your moves it says what the move did to your value ("that move turned a draw into
a loss"); `hint` shows the perfect moves, `undo` takes back your last move and the reply to it,
`quit` ends the game. Where stones move (`+stonesN`), moves are placements, then steps `a1-b2`,
and a game that repeats ends as a draw by the rules of play (query/turns.py).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import Spec, Value
from tablebase.builder.games.grid.notation import draw_board
from tablebase.builder.games.registry import grid_game
from tablebase.query import turns
from tablebase.query.play.levels import MAX_LEVEL, check_level, choose_move
from tablebase.query.tablebase import MoveInfo, Probe, Tablebase
from tablebase.query.wording import outcome_text, plies

COMMANDS = ("hint", "undo", "quit")


@dataclass(frozen=True)
class PlayedGame:
    """How a game ended: `result` is 'x' or 'o' (the winner), 'draw', or 'quit'; `moves` are
    the names of the moves played, in order; `board` the last position (where stones move,
    followed by the side to move); `reason` why a draw was declared by the rules of play (None
    where the game ended by its own rules, or was quit)."""

    result: str
    moves: tuple[str, ...]
    board: tuple[int, ...]
    reason: str | None = None


def _outcome(value: Value, n: int | None) -> str:
    if value == Value.DRAW or n is None:  # a draw's depth is not said (by endless play: none)
        return "a draw"
    return f"a {value.word} in {plies(n)}"


def judge(before: Probe, chosen: MoveInfo) -> str:
    """What a move did to its player's value: kept it (as fast or not) or turned it into another.

    `before` is the position the move was made in; `chosen` the move, as `Tablebase.moves`
    reports it (value for the player making it, depth of the position after it). A draw by
    endless play has no depth, and is only ever kept or turned into something else.
    """
    # To the end, counted from before the move (None: a draw by endless play).
    after = None if chosen.depth is None else chosen.depth + 1
    if chosen.value != before.value:
        return (f"that move turned {_outcome(before.value, before.depth)} into"
                f" {_outcome(chosen.value, after)}")
    if chosen.best and chosen.value == Value.LOSS:
        return f"a perfect move: the longest resistance ({_outcome(chosen.value, after)})"
    if chosen.best:
        return f"a perfect move: it keeps {_outcome(chosen.value, after)}"
    assert after is not None  # a win or a loss: decided, so it has a depth
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
    (a position: cell values, then the side to move where stones move; default: the empty
    board; an endgame table's root or any position below it).

    `read(prompt)` returns one line of input (EOFError ends the game like `quit`); `write`
    shows one block of text. The computer plays as a player of `level` would (see
    query.levels; 10, the default, plays a best move, chosen with `rng` among equals, the first
    in move order without one). A game that repeats is a draw by the rules of play
    (query/turns.py: a position's third time, or turns.PLY_LIMIT plies).
    """
    spec = tb.spec(spec)
    check_level(level)
    if human not in ("x", "o"):
        raise NotationError(f"you play x or o, found {human!r}")
    write(_welcome(spec, human, level))
    history = [tuple(start) if start is not None else grid_game(spec).start()]
    names: list[str] = []
    last: int | None = None
    while True:
        board = history[-1]
        probe = tb.probe(spec, board)
        write(draw_board(spec, board, highlight=last))
        reason = None if probe.terminal else turns.drawn_by_play(history)
        if probe.terminal or reason is not None:
            result = "draw" if reason is not None else _winner(probe)
            verdict = ("a draw" if result == "draw" else
                       "you win" if result == human else "the computer wins")
            why = (f" by the rules of play: {reason}" if reason is not None
                   else f" ({result} won)" if result != "draw" else "")
            write(f"game over: {verdict}{why}")
            return PlayedGame(result, tuple(names), board, reason)
        write(str(probe))
        if probe.to_move != human:
            pick = choose_move(tb, spec, board, level, rng)
            write(f"computer ({probe.to_move}) plays {pick.move}")
            history.append(grid_game(spec).played(board, turns.of(pick)))
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
                worth = (outcome_text(probe.value, probe.depth) if probe.depth is not None
                         else "a draw by endless play")
                write(f"perfect moves: {' '.join(m.move for m in best)} ({worth})")
                continue
            if text == "undo":
                # Back to your previous turn: your last move and the reply to it are taken back.
                mine = [i for i in range(len(history) - 1)
                        if grid_game(spec).side(history[i]) == human]
                if not mine:
                    write("nothing to undo")
                    continue
                del history[mine[-1] + 1:]
                del names[mine[-1]:]
                last = None
                write("took back your last move")
                break
            try:
                move = grid_game(spec).read_move(board, text)
            except (NotationError, IllegalMoveError) as e:
                write(f"{e}; try again, or: {', '.join(COMMANDS)}")
                continue
            chosen = next(m for m in tb.moves(spec, board) if turns.of(m) == move)
            write(judge(probe, chosen))
            history.append(grid_game(spec).played(board, move))
            names.append(chosen.move)
            last = move.cell
            break


def _welcome(spec: Spec, human: str, level: int) -> str:
    """The first line of a game: who plays what, how moves are written, the commands."""
    how = "perfectly" if level == MAX_LEVEL else f"at level {level} of {MAX_LEVEL}"
    moves = grid_game(spec).how_to_move()
    return (f"{spec.name}: you are {human}, the computer plays {how}. {moves}."
            f" Also: {', '.join(COMMANDS)}.")

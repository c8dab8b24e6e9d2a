"""A game given as a Python class (docs/games.md) as a GTP engine: its table answering GTP
commands one line at a time, framed as gtp_engine.py frames tablebase's own games' answers.

The colours: x (or b, black) moves first from the class's start, o (or w, white) second, and
they alternate; a move is the class's move name. `showboard` prints the position's text under
whose turn it is:

    play x to3          =            genmove o   -> = to2
    solve               = x to4      (the winner, and a best move when it is the side to move's)
    showboard           =            x to move
                                     3
"""
from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass, field

from tablebase.query.errors import MissingPositionError, QueryError
from tablebase.query.game_answers import GameAnswers
from tablebase.query.play.game_classes import choose_game_move
from tablebase.query.play.gtp_engine import EXPECTED, GtpError, dispatch, respond
from tablebase.query.play.levels import MAX_LEVEL, check_level

COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands",
            "set_game", "clear_board", "play", "undo", "genmove", "solve", "showboard",
            "timelimit", "quit")
_COLOURS = {"x": "x", "o": "o", "b": "x", "black": "x", "w": "o", "white": "o"}


@dataclass
class GameGtpSession:
    """One engine's state for a game class: its answers, the positions played since the start
    (the class's own values), the level of `genmove` and its random choices.
    `handle(line)` answers one command line."""

    answers: GameAnswers
    level: int = MAX_LEVEL
    rng: random.Random = field(default_factory=random.Random)
    history: list[Hashable] = field(default_factory=list)
    done: bool = False

    def __post_init__(self) -> None:
        check_level(self.level)
        self.history = [self.answers.game.start()]

    @property
    def position(self) -> Hashable:
        """The current position, as the class holds it."""
        return self.history[-1]

    @property
    def to_move(self) -> str:
        """Who moves now: x from the start, then alternately."""
        return "xo"[(len(self.history) - 1) % 2]

    def _moves(self) -> list[tuple[str, Hashable]]:
        return self.answers.game.moves(self.position)

    def _check_colour(self, word: str) -> None:
        colour = _COLOURS.get(word.lower())
        if colour is None:
            raise GtpError(f"invalid color {word!r}: expected x, o, b, w, black or white")
        if not self._moves():
            raise GtpError("the game is over: no move can be played")
        if colour != self.to_move:
            raise GtpError(f"it is {self.to_move}'s turn, not {colour}'s")

    # --- the commands ---------------------------------------------------------------------

    def _set_game(self, args: list[str]) -> str:
        if " ".join(args) != self.answers.game.name:
            raise GtpError(f"this engine plays {self.answers.game.name}, not {' '.join(args)}")
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self.history = [self.answers.game.start()]
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) < 2:
            raise GtpError("play takes a color and a move, e.g. play x " +
                           next((name for name, _ in self._moves()), "MOVE"))
        self._check_colour(args[0])
        said = " ".join(args[1:])  # a class's move names may hold spaces
        moves = self._moves()
        child = next((c for name, c in moves if name == said), None)
        if child is None:
            raise GtpError(f"illegal move {said!r}: " + self.answers.game.refusal(
                self.history[-1], said, [name for name, _ in moves]))
        self.history.append(child)
        return ""

    def _undo(self, args: list[str]) -> str:
        if len(self.history) == 1:
            raise GtpError("cannot undo: no move has been played")
        self.history.pop()
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("genmove takes a color, e.g. genmove " + self.to_move)
        self._check_colour(args[0])
        move, child = choose_game_move(self.answers, self.position, self.level, self.rng)
        self.history.append(child)
        return move.move

    def _solve(self, args: list[str]) -> str:
        try:
            probe, moves = self.answers.moves_of(self.position)
        except MissingPositionError:
            return "unknown"
        other = "o" if self.to_move == "x" else "x"
        winner = {1: self.to_move, 0: "draw", -1: other}[int(probe.value)]
        if probe.terminal or int(probe.value) < 0:
            return winner
        return f"{winner} {next(m.move for m in moves if m.best)}"

    def _timelimit(self, args: list[str]) -> str:
        # Answers come from the table at once: any time limit is met, so it is only checked.
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("timelimit takes a whole number of seconds")
        return ""

    def _showboard(self, args: list[str]) -> str:
        turn = f"{self.to_move} to move" if self._moves() else "game over"
        return f"\n{turn}\n{self.answers.game.text(self.position)}"

    def _quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    def _answer(self, command: str, args: list[str]) -> str:
        return dispatch(self, COMMANDS, command, args)

    def handle(self, line: str) -> str | None:
        """The response to one command line, ending in the blank line GTP wants; None for a
        line with no command (blank or a comment). A fault of the class's code (a GameError)
        is a '?' answer naming it, as every error is."""
        return respond(self._answer, line, (*EXPECTED, QueryError))

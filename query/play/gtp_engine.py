"""The table as a GTP engine: one game's table answering the text protocol that
`audit --engine` speaks (see query/audit/processes.py) and the course's black/white dialect, one command
per line in, one response per command out. Bad commands get GTP '?' answers, never a crash.

Two dialects, chosen by what the controller says last:

    x/o (audit --engine)          b/w (the course, GoGui)
    boardsize 4 3                 boardsize 3            (N x N)
    play x b2                     play b B2              (columns A.. skipping I; row 1 bottom)
    genmove o   -> = a1           genmove w   -> = A1
    solve       -> = x b2         solve       -> = b C3, = w, = draw, = unknown

Black is x and moves first. A `boardsize` with one number or a colour b/w/black/white switches
to the b/w dialect; `boardsize W H` or a colour x/o switches back. Where stones move
(`+stonesN`), a step is FROM-TO in either dialect (`play x a1-b2`, `play b A1-B2`), and
`showboard` says whose turn it is, which the stones no longer tell.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import GameError, O, Spec, Value, X, parse_spec
from tablebase.builder.games.grid.notation import GTP_COLUMNS, column_name, draw_board, move_name
from tablebase.builder.games.move import Move
from tablebase.builder.games.registry import grid_game
from tablebase.db.errors import StorageError
from tablebase.query import turns
from tablebase.query.errors import MissingPositionError
from tablebase.query.play.levels import MAX_LEVEL, check_level, choose_move
from tablebase.query.tablebase import Tablebase
from tablebase.version import tool_version

COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands",
            "boardsize", "set_game", "clear_board", "play", "undo", "genmove", "solve",
            "showboard", "timelimit", "quit")
# GTP's column letters leave out I, which reads too much like J and 1.
_COLOURS = {"x": X, "o": O, "b": X, "black": X, "w": O, "white": O}


class GtpError(Exception):
    """A command that gets a '?' answer; the message is the answer's text."""


@dataclass
class GtpSession:
    """One engine's state: the game, the moves played, the dialect and the level of `genmove`.

    `tb` is an open Tablebase (tablebase.query.tablebase); `handle(line)` answers one command line.
    """

    tb: Tablebase
    spec: Spec
    level: int = MAX_LEVEL
    rng: random.Random = field(default_factory=random.Random)
    history: list[tuple[int, ...]] = field(default_factory=list)
    black_white: bool = False
    done: bool = False

    def __post_init__(self) -> None:
        check_level(self.level)
        self.history = [grid_game(self.spec).start()]

    @property
    def board(self) -> tuple[int, ...]:
        """The current position (where stones move, followed by the side to move)."""
        return self.history[-1]

    # --- names in the current dialect -------------------------------------------------------

    def _colour(self, player: int) -> str:
        if self.black_white:
            return "b" if player == X else "w"
        return "x" if player == X else "o"

    def _point(self, cell: int) -> str:
        if not self.black_white:
            return move_name(self.spec, cell)
        row, col = divmod(cell, self.spec.width)
        return f"{GTP_COLUMNS[col]}{self.spec.height - row}"

    def _move_name(self, move: Move) -> str:
        start, cell = move.start, move.cell
        return self._point(cell) if start is None else f"{self._point(start)}-{self._point(cell)}"

    def _read_colour(self, word: str) -> int:
        player = _COLOURS.get(word.lower())
        if player is None:
            raise GtpError(f"invalid color {word!r}: expected x, o, b, w, black or white")
        self.black_white = word.lower() not in ("x", "o")
        mover = grid_game(self.spec).mover(self.board)
        if player != mover and grid_game(self.spec).legal(self.board):
            raise GtpError(f"it is {self._colour(mover)}'s turn, not {self._colour(player)}'s")
        return player

    def _read_point(self, text: str) -> str:
        """A GTP point (B2) as our cell name (b2)."""
        letters = "".join(ch for ch in text if ch.isalpha()).upper()
        if len(letters) != 1 or letters not in GTP_COLUMNS[: self.spec.width]:
            raise GtpError(f"invalid coordinate {text!r}: columns run A-"
                           f"{GTP_COLUMNS[self.spec.width - 1]} (no I), rows 1-"
                           f"{self.spec.height} from the bottom")
        return column_name(GTP_COLUMNS.index(letters)) + text.strip()[1:]

    def _read_move(self, text: str) -> Move:
        if self.black_white:
            text = "-".join(self._read_point(part) for part in text.split("-"))
        return grid_game(self.spec).read_move(self.board, text)

    # --- the commands ----------------------------------------------------------------------------

    def _boardsize(self, args: list[str]) -> str:
        try:
            sizes = [int(a) for a in args]
        except ValueError:
            raise GtpError(f"boardsize takes numbers, found {' '.join(args)!r}") from None
        if len(sizes) == 1:
            sizes *= 2
            self.black_white = True
        elif len(sizes) == 2:
            self.black_white = False
        else:
            raise GtpError("boardsize takes N (N x N) or WIDTH HEIGHT")
        if tuple(sizes) != (self.spec.width, self.spec.height):
            raise GtpError(f"unacceptable size: this engine plays {self.spec.name},"
                           f" {self.spec.width}x{self.spec.height}")
        self.history = [grid_game(self.spec).start()]
        return ""

    def _set_game(self, args: list[str]) -> str:
        try:
            asked = parse_spec(" ".join(args)).name if args else None
        except GameError as e:
            raise GtpError(str(e)) from None
        if asked != self.spec.name:
            raise GtpError(f"this engine plays {self.spec.name}, not {' '.join(args)}")
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("play takes a color and a move, e.g. play x b2")
        self._read_colour(args[0])
        move = self._read_move(args[1])
        self.history.append(grid_game(self.spec).played(self.board, move))
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self.history = [grid_game(self.spec).start()]
        return ""

    def _undo(self, args: list[str]) -> str:
        if len(self.history) == 1:
            raise GtpError("cannot undo: no move has been played")
        self.history.pop()
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("genmove takes a color, e.g. genmove o")
        self._read_colour(args[0])
        chosen = choose_move(self.tb, self.spec, self.board, self.level, self.rng)
        self.history.append(grid_game(self.spec).played(self.board, turns.of(chosen)))
        return self._move_name(turns.of(chosen))

    def _solve(self, args: list[str]) -> str:
        try:
            probe = self.tb.probe(self.spec, self.board)
        except MissingPositionError:
            return "unknown"
        mover = X if probe.to_move == "x" else O
        if probe.value == Value.DRAW:
            winner = "draw"
        else:
            winner = self._colour(mover if probe.value == Value.WIN else X + O - mover)
        if probe.terminal or probe.value == Value.LOSS:
            return winner
        best = self.tb.best_moves(self.spec, self.board)[0]
        return f"{winner} {self._move_name(turns.of(best))}"

    def _timelimit(self, args: list[str]) -> str:
        # Answers come from the table at once: any time limit is met, so it is only checked.
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("timelimit takes a whole number of seconds")
        return ""

    def _showboard(self, args: list[str]) -> str:
        lines = draw_board(self.spec, self.board).splitlines()
        if self.black_white:
            # The column letters of the dialect in use: GTP's skip I.
            lines[-1] = lines[-1][: len(lines[-1]) - len(lines[-1].lstrip())] + " ".join(
                GTP_COLUMNS[: self.spec.width])
        # Whose turn it is: once every stone is down (+stonesN) the board no longer says it.
        turn = (f"{self._colour(grid_game(self.spec).mover(self.board))} to move"
                if grid_game(self.spec).legal(self.board) else "game over")
        return "\n" + "\n".join([turn, *lines])

    def _quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    def _answer(self, command: str, args: list[str]) -> str:
        return dispatch(self, COMMANDS, command, args)

    def handle(self, line: str) -> str | None:
        """The response to one command line, ending in the blank line GTP wants; None for a
        line with no command (blank or a comment)."""
        return respond(self._answer, line)


# The errors a command's answer may raise that are its '?' text as they stand.
EXPECTED = (GtpError, GameError, NotationError, IllegalMoveError, MissingPositionError,
            StorageError)


def dispatch(session: object, commands: Sequence[str], command: str, args: list[str]) -> str:
    """A session's answer to one command: GTP's own (protocol_version, name, version,
    known_command, list_commands), else the session's `_COMMAND(args)` for one of `commands`;
    GtpError for any other."""
    fixed: dict[str, Callable[[], str]] = {
        "protocol_version": lambda: "2",
        "name": lambda: "tablebase",
        "version": tool_version,
        "known_command": lambda: "true" if args[:1] and args[0] in commands else "false",
        "list_commands": lambda: "\n".join(commands),
    }
    if command in fixed:
        return fixed[command]()
    handler = getattr(session, f"_{command}", None) if command in commands else None
    if handler is None:
        raise GtpError(f"unknown command {command!r}")
    return str(handler(args))


def respond(answer: Callable[[str, list[str]], str], line: str,
            expected: tuple[type[Exception], ...] = EXPECTED) -> str | None:
    """The response to one command line from `answer(command, args)`, with GTP's framing:
    the command's number echoed, `#` comments dropped, '=' and the answer, or '?' and an
    error's message on one line (`expected` errors as they stand, others as an internal
    error), then the blank line GTP wants. None for a line with no command."""
    words = line.split("#", 1)[0].split()
    ident = ""
    if words and words[0].isdigit():
        ident, words = words[0], words[1:]
    if not words:
        return None
    try:
        text, sign = answer(words[0].lower(), words[1:]), "="
    except expected as e:
        text, sign = str(e), "?"
    except Exception as e:  # noqa: BLE001 - the protocol's promise: an answer, never a crash
        text, sign = f"internal error: {type(e).__name__}: {e}", "?"
    if sign == "?":
        text = " ".join(text.splitlines())
    # A multi-line answer starts on the line after the sign, as GTP engines print boards.
    gap = "" if text.startswith("\n") or not text else " "
    return f"{sign}{ident}{gap}{text}\n\n"


class Session(Protocol):
    """What `serve` drives: an engine that answers a command line and says when it is done."""

    done: bool

    def handle(self, line: str) -> str | None: ...


def serve(session: Session, lines: Iterable[str], write: Callable[[str], None]) -> None:
    """Answer each command of `lines` through `write` until `quit` or the end of input."""
    for line in lines:
        response = session.handle(line)
        if response is not None:
            write(response)
        if session.done:
            return

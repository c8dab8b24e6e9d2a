"""Errors of the answering side: every one names what was given and what is wrong with it.

Rooted in built-ins as python-chess does: bad input is a `ValueError` (through the rules
kernel's `InvalidPositionError`), a position the table does not hold is a `KeyError`.
"""
from __future__ import annotations

# Reading positions and moves is the games' (builder/games/); their errors are offered here
# too, where the answering API has always named them (tablebase.query.NotationError).
from tablebase.builder.games.errors import (  # noqa: F401
    IllegalMoveError,
    ImpossiblePositionError,
    NotationError,
    WholeBoardTooLargeError,
)
from tablebase.builder.games.grid import GameError, parse_spec
from tablebase.db.errors import GameNotBuiltError, MissingDatabaseError
from tablebase.db.facts import DEFAULT_DATABASE


class QueryError(Exception):
    """Root of the errors query/ raises."""





class MissingPositionError(QueryError, KeyError):
    """No table holds the position, and the rules say none should: it cannot be reached from
    the empty board, or from the root of any endgame table the database has (or their search
    gave up, and the message says so; a table that lacks a position the rules reach raises
    DamagedTableError instead: query/misses.py). `build_from` is the board text to build an
    endgame table from, when that is the way to an answer."""

    def __init__(self, message: str, build_from: str | None = None) -> None:
        super().__init__(message)
        self.build_from = build_from

    def __str__(self) -> str:
        # KeyError's own __str__ shows the repr of its argument, quotes and all.
        return str(self.args[0]) if self.args else ""


class MissingTableError(QueryError, KeyError):
    """The game has no table with the root asked for (or no whole-board table)."""

    def __init__(self, message: str, board: tuple[int, ...] | None = None,
                 pick_root: bool = False) -> None:
        super().__init__(message)
        self.board = board
        self.pick_root = pick_root  # the game has endgame tables only: the answer names one

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class AuditInputError(QueryError, ValueError):
    """An audit asked for with options that cannot work: a bad --positions, an unknown solver, a
    check the answers cannot support."""


def one_line(message: str) -> str:
    """The message with control characters (newlines included) escaped: errors echo what
    the user typed, and an error is always exactly one line."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)


def error_text(error: Exception, spec: str | None = None, db: str = DEFAULT_DATABASE,
               http: bool = False) -> str:
    """The one-line message of `error`, with the obvious next step where there is one: the
    build command that would answer, naming `spec` (as the user typed it) and `db`. The command
    line and the HTTP API (`http`) say the same, each naming its own way to pick a table."""
    return one_line(f"{error}{_next_step(error, spec, db, http)}")


def _next_step(error: Exception, spec: str | None, db: str, http: bool) -> str:
    db_flag = "" if db == DEFAULT_DATABASE else f" --db {db}"
    try:
        parsed = parse_spec(spec) if spec else None
    except GameError:
        parsed = None
    name = parsed.name if parsed is not None else spec
    if isinstance(error, GameNotBuiltError) and spec:
        if parsed is not None and not parsed.whole_board_fits:
            return f"; build an endgame table: tablebase build {name} --from POSITION{db_flag}"
        return f"; build it with: tablebase build {name}{db_flag}"
    if isinstance(error, MissingPositionError) and error.build_from is not None:
        return (f"; build an endgame table from it: tablebase build {name}"
                f" --from '{error.build_from}'{db_flag}")
    if isinstance(error, MissingTableError) and error.pick_root:
        if http:
            return " (?root=POSITION; /api/games lists the tables)"
        return " (--root POSITION; `tablebase info` lists them)"
    if isinstance(error, MissingTableError) and error.board is not None:
        return "; build it with --from"
    if isinstance(error, WholeBoardTooLargeError) and spec:
        return f". Build an endgame table: tablebase build {spec} --from POSITION{db_flag}"
    if isinstance(error, MissingDatabaseError):
        return f"; build a game first, e.g.: tablebase build tictactoe{db_flag}"
    return ""

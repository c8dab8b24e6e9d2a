"""The `tablebase` command: parse arguments, make one library call, print, and map every
error to one line on stderr with exit status 2 (in `main`, and only there).

Each command family lives in a module of its own (build, ask, audit, ...), which adds its
subcommands through `register`; this module only assembles them and handles errors."""
from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence

from builder.game import GameError, parse_spec
from builder.game.errors import WholeBoardTooLargeError
from db.errors import GameNotBuiltError, MissingDatabaseError, StorageError
from db.facts import DEFAULT_DATABASE
from query.cli import ask, audit, build, info, serve, strategy
from query.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, Parser, UsageError
from query.errors import MissingPositionError, MissingTableError, QueryError

FAMILIES = (build, info, ask, audit, serve, strategy)


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the `tablebase` command."""
    parser = Parser(prog="tablebase",
                    description="Strongly solve tic-tac-toe-like games into a database and"
                                " answer from it.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for family in FAMILIES:
        family.register(commands)
    return parser


def _hint(error: Exception, args: argparse.Namespace | None) -> str:
    """A next step to add to an error message, where there is an obvious one."""
    spec = getattr(args, "spec", None)
    db = getattr(args, "db", DEFAULT_DATABASE)
    db_flag = "" if db == DEFAULT_DATABASE else f" --db {db}"
    if isinstance(error, GameNotBuiltError) and spec and _too_big(spec):
        return f"; build an endgame table: tablebase build {spec} --from POSITION{db_flag}"
    if isinstance(error, GameNotBuiltError) and spec:
        try:
            name = parse_spec(spec).name
        except GameError:
            name = spec
        return f"; build it with: tablebase build {name}{db_flag}"
    if isinstance(error, MissingPositionError) and error.build_from is not None:
        return (f"; build an endgame table from it: tablebase build {spec}"
                f" --from '{error.build_from}'{db_flag}")
    if isinstance(error, MissingTableError) and error.board is not None:
        return "; build it with --from"
    if isinstance(error, WholeBoardTooLargeError) and spec:
        return f". Build an endgame table: tablebase build {spec} --from POSITION{db_flag}"
    if isinstance(error, MissingDatabaseError):
        return f"; build a game first, e.g.: tablebase build tictactoe{db_flag}"
    return ""


def _too_big(spec: str) -> bool:
    try:
        return not parse_spec(spec).whole_board_fits
    except GameError:
        return False


def _one_line(message: str) -> str:
    """The message with control characters (newlines included) escaped: errors echo what
    the user typed, and an error is always exactly one line."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tablebase` command; return its exit status."""
    args = None
    try:
        args = make_parser().parse_args(argv)
        return int(args.run(args))
    except (UsageError, GameError, StorageError, QueryError) as e:
        print(f"tablebase: error: {_one_line(f'{e}{_hint(e, args)}')}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if getattr(args, "command", None) == "build":
            again = " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
                             if a != "--resume")
            print(f"tablebase: interrupted; the table is not complete. Continue with: tablebase"
                  f" {again} --resume (or start over without --resume)", file=sys.stderr)
        else:
            print("tablebase: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK

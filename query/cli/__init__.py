"""The `tablebase` command: parse arguments, make one library call, print, and map every
error to one line on stderr with exit status 2 (in `main`, and only there).

Each command family lives in a module of its own (build, ask, audit, ...), which adds its
subcommands through `register`; this module only assembles them and handles errors. A process
that names its command imports that command's family alone (COMMANDS). `run` is the process's
entry (the `tablebase` script, `python -m tablebase`); `main` the function tests and programs
call."""
from __future__ import annotations

import argparse
import functools
import gc
import importlib
import shlex
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from tablebase.builder.games.grid import GameError
from tablebase.builder.games.registry import is_keyed_spec
from tablebase.db.errors import StorageError
from tablebase.db.facts import DEFAULT_DATABASE
from tablebase.query.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, Parser, UsageError
from tablebase.query.errors import QueryError, error_text, one_line
from tablebase.version import tool_version

# The command families (modules of this folder), in the order `tablebase --help` lists them.
FAMILIES = ("build", "info", "ask", "solve", "proof", "audit", "serve", "strategy")
# Which family registers each command: a process given its command imports that family alone
# (the others' imports are some 40 ms, a sixth of a small game's build); tests/test_cli.py
# checks the table against what the families register.
COMMANDS = {"build": "build", "verify": "build", "info": "info", "probe": "ask", "moves": "ask",
            "line": "ask", "play": "ask", "export": "ask", "solve": "solve",
            "check-proof": "proof", "audit": "audit", "serve": "serve", "strategy": "strategy",
            "genmove": "strategy", "gtp": "strategy"}


class _Version(argparse.Action):
    """--version: the installed version, looked up only when asked (a lookup that imports
    importlib.metadata, some tens of milliseconds of every command's start otherwise)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option: str | None = None) -> None:
        print(f"tablebase {tool_version()}")
        parser.exit()


def make_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the `tablebase` command: every command, or `command`'s family
    alone where COMMANDS names it."""
    parser = Parser(prog="tablebase",
                    description="Strongly solve tic-tac-toe-like games into a database and"
                                " answer from it.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for family in (COMMANDS[command],) if command in COMMANDS else FAMILIES:
        importlib.import_module(f"{__name__}.{family}").register(commands)
    return parser


# Built once a process (for each command): the parser is fixed, and building it is some 4 ms
# (25 commands), paid by every call of main() from Python (a test calls it thousands of times).
_parser = functools.lru_cache(maxsize=None)(make_parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tablebase` command; return its exit status."""
    args = None
    try:
        given = list(sys.argv[1:] if argv is None else argv)
        first = given[0] if given else None
        args = _parser(first if first in COMMANDS else None).parse_args(given)
        return int(args.run(args))
    except (UsageError, GameError, StorageError, QueryError) as e:
        message = error_text(e, getattr(args, "spec", None), getattr(args, "db", DEFAULT_DATABASE))
        print(f"tablebase: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as e:
        building = getattr(args, "command", None) == "build"
        if building and is_keyed_spec(getattr(args, "spec", "")):
            # a class's build writes nothing until its walk and solve are done (a build of
            # ranked tiers says where the tiers it finished are kept)
            print(f"tablebase: interrupted; nothing was written{f'; {e}' if str(e) else ''}",
                  file=sys.stderr)
        elif building:
            again = " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
                             if a != "--resume")
            print(f"tablebase: interrupted; the table is not complete. Continue with: tablebase"
                  f" {again} --resume (or start over without --resume)", file=sys.stderr)
        else:
            print("tablebase: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        # numpy's, where an array could not be had (a limit on the process's address space,
        # or no overcommit): a build publishes only a finished table, so none is left looking
        # complete.
        building = getattr(args, "command", None) == "build"
        print("tablebase: error: out of memory" + ("; the table is not complete (a smaller"
              " --memory budget works in smaller pieces where the build can)" if building
              else ""), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except OSError as e:
        # A file or folder the command could not read or write (read-only, full, missing).
        where = f": {e.filename}" if e.filename else ""
        print(f"tablebase: error: {one_line(e.strerror or str(e))}{where}", file=sys.stderr)
        return EXIT_USAGE


# A command's first second is mostly its start-up: numpy's and numba's imports and numba's
# registries, some half a million objects, none of them garbage, which the collector walks again
# and again as they arrive (about 40 ms of a half-second `solve`). It is off for that second and
# back on after it (a daemon timer), so a command that runs longer collects as usual.
START_UP_SECONDS = 1.0


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """The `tablebase` process: run `main`, then exit with its status."""
    gc.disable()
    timer = threading.Timer(START_UP_SECONDS, gc.enable)
    timer.daemon = True
    timer.start()
    status = main(argv)
    # The interpreter's last collections at exit walk every object still alive: where a search
    # loaded numba (its typing and target registries, some hundred thousand objects) that is
    # about 0.1 s of a command that takes half a second. Frozen, they are left to the process's
    # end instead. Nothing is skipped: the atexit handlers run and stdout and stderr are flushed
    # as before; only garbage cycles, which the end of the process frees anyway, are not walked.
    gc.freeze()
    sys.exit(status)

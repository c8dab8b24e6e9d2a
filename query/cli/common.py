"""What every command family of the `tablebase` command shares: exit statuses, the parser
class that turns argparse's complaints into one line, progress bars, the common options and
the position named on a command line."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, NoReturn

from tablebase.builder.games.grid import Spec
from tablebase.builder.games.grid.position_text import Reading, read_position
from tablebase.builder.games.grid.root import Root
from tablebase.db.facts import DEFAULT_DATABASE

if TYPE_CHECKING:
    from tqdm import tqdm

    from tablebase.builder.progress import ProgressFactory
    from tablebase.query.tablebase import Tablebase

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad command-line arguments (argparse's complaints, turned into one line)."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are raised as UsageError, for `main` to print once."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def progress(quiet: bool) -> ProgressFactory:
    """A tqdm factory on stderr, silent with --quiet or when stderr is not a terminal (then
    without importing tqdm: some tens of milliseconds of a command's start)."""
    if quiet or not sys.stderr.isatty():
        from tablebase.builder.progress import NO_PROGRESS

        return NO_PROGRESS
    from tqdm import tqdm

    def factory(**kwargs: Any) -> tqdm:
        return tqdm(file=sys.stderr, leave=False, dynamic_ncols=True, mininterval=0.2, **kwargs)
    return factory


def open_db(db: str) -> AbstractContextManager[Tablebase]:
    """The database `db` opened for answers (the storage layer imported here, on use: a command
    that never opens a database, `solve` where there is none, starts without it)."""
    from tablebase.query.tablebase import open_tablebase

    return open_tablebase(db)


def note_on_stderr(text: str) -> None:
    """Print 'tablebase: note: TEXT' on stderr, above a progress bar if one is running."""
    from tqdm import tqdm

    tqdm.write(f"tablebase: note: {text}", file=sys.stderr)


def count(n: int, word: str) -> str:
    """'1 position', '2,000 positions'."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def mib(n: int) -> str:
    """Bytes as whole MiB."""
    return f"{n / (1 << 20):,.0f} MiB"


def size(n: int) -> str:
    """Bytes as GiB from one GiB up, else MiB, one decimal."""
    return f"{n / (1 << 30):,.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):,.1f} MiB"


def whole_number(least: int, expected: str, most: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `least` (to `most`); its error says `expected`."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = least - 1
        if n < least or (most is not None and n > most):
            raise argparse.ArgumentTypeError(f"expected {expected}, found {text!r}")
        return n
    return parse


def gib(text: str) -> float:
    """argparse type for --memory: a positive number of GiB."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GiB, found {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of GiB, found {text!r}")
    return value


def db_option(p: argparse.ArgumentParser) -> None:
    """--db PATH|URL."""
    p.add_argument("--db", default=DEFAULT_DATABASE, metavar="PATH|URL",
                   help=f"SQLite file or SQLAlchemy URL (default: {DEFAULT_DATABASE})")


def position_args(p: argparse.ArgumentParser) -> None:
    """SPEC [POSITION] [--moves MOVES] --db --json: how a command names one position."""
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. 3x3k3")
    p.add_argument("position", metavar="POSITION", nargs="?",
                   help="board text, rows top to bottom separated by '/', e.g. x.o/.x./...;"
                        " or moves from the empty board, e.g. \"b2 a1\"; or board text then"
                        " moves; with +gravity also Pascal Pons' column digits, e.g. 4453;"
                        " default: the empty board")
    p.add_argument("--moves", metavar="MOVES",
                   help="moves played from POSITION (or the empty board), e.g. \"b2 a1 c3\":"
                        " column letter and row number, 1 = bottom")
    db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")


def position_from_args(spec: Spec, args: argparse.Namespace) -> Reading:
    """The position named on the command line: POSITION (default: --root where the command has
    it, else the empty board), then --moves, read as every face reads one."""
    start = getattr(args, "position", None)
    if start is None:
        start = getattr(args, "root", None)
    return read_position(spec, start, args.moves)


def root_facts(root: Root) -> str:
    """An endgame table's root in words, for build's and info's reports."""
    return root.facts()


def root_option(p: argparse.ArgumentParser) -> None:
    """--root POSITION: pick an endgame table by its root."""
    p.add_argument("--root", metavar="POSITION",
                   help="the endgame table rooted at POSITION (board text, any orientation;"
                        " default: the whole-board table)")

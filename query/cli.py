"""The `tablebase` command: parse arguments, make one library call, print, and map
every error to one line on stderr with exit status 2 (in `main`, and only there)."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from tqdm import tqdm

from builder.game import GameError, Spec, Value, parse_spec
from builder.pipeline import BuildReport, build
from builder.progress import ProgressFactory
from db.engine import DEFAULT_DATABASE, describe, open_database
from db.errors import DatabaseError, GameNotBuiltError, StorageError
from db.reader import GameRecord, get_game, list_games, probe_game, read_plies

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad command-line arguments (argparse's complaints, turned into one line)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _progress(quiet: bool) -> ProgressFactory:
    """A tqdm factory on stderr, silent with --quiet or when stderr is not a terminal."""
    disable = quiet or not sys.stderr.isatty()

    def factory(**kwargs: Any) -> tqdm:
        return tqdm(file=sys.stderr, disable=disable, leave=False, dynamic_ncols=True,
                    mininterval=0.2, **kwargs)
    return factory


def _outcome_text(value: int | Value, depth: int) -> str:
    """'win in 7 plies', 'draw in 9 plies', 'loss in 0 plies' for the side to move."""
    return f"{Value(value).word} in {depth} pl{'y' if depth == 1 else 'ies'}"


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


# --- build -------------------------------------------------------------------

def _cmd_build(args: argparse.Namespace) -> int:
    spec = parse_spec(args.spec)
    report = build(spec, args.db, force=args.force, progress=_progress(args.quiet))
    _print_build(report, args.db)
    return EXIT_OK


def _print_build(report: BuildReport, db: str) -> None:
    print(f"built {report.spec.name} into {describe(db)}")
    print(f"  positions: {report.reachable:,} reachable, {report.canonical:,} canonical,"
          f" {report.terminal:,} terminal")
    print(f"  empty board: x to move, {_outcome_text(report.root_value, report.root_depth)}")
    print(f"  {'stage':<10}{'seconds':>9}{'peak memory':>14}")
    for name, figures in report.stages.items():
        print(f"  {name:<10}{figures.seconds:>9.2f}{_mib(figures.peak_bytes):>14}")
    print(f"  {'total':<10}{report.seconds:>9.2f}")


# --- info --------------------------------------------------------------------

def _game_json(engine: Any, game: GameRecord) -> dict[str, Any]:
    plies = read_plies(engine, game)
    return {
        "spec": game.spec,
        "reachable": game.reachable,
        "canonical": game.canonical,
        "terminal": game.terminal,
        "root_value": Value(game.root_value).word,
        "root_depth": game.root_depth,
        "per_ply": [{"ply": p.ply, "canonical": p.canonical, "win": p.wins, "draw": p.draws,
                     "loss": p.losses} for p in plies],
    }


def _cmd_info(args: argparse.Namespace) -> int:
    with open_database(args.db) as engine:
        if args.spec is None:
            games = list_games(engine)
            if args.json:
                print(json.dumps([_game_json(engine, g) for g in games if g.complete], indent=2))
            else:
                _print_games(args.db, games)
            return EXIT_OK
        spec = parse_spec(args.spec)
        game = get_game(engine, spec.name)
        if game is not None and not game.complete:
            raise GameNotBuiltError(f"{spec.name} has no complete table (its last build did not"
                                    " finish)")
        game = probe_game(engine, spec.name)
        if args.json:
            print(json.dumps(_game_json(engine, game), indent=2))
        else:
            _print_game(engine, spec, game)
    return EXIT_OK


def _print_games(db: str, games: list[GameRecord]) -> None:
    if not games:
        print(f"{describe(db)} holds no games yet; try: tablebase build tictactoe")
        return
    print(f"{describe(db)} holds {len(games)} game{'s' if len(games) != 1 else ''}:")
    print(f"  {'spec':<22}{'status':<11}{'canonical':>13}{'reachable':>15}  {'empty board':<18}built")
    for g in games:
        if g.complete:
            root = _outcome_text(g.root_value or 0, g.root_depth or 0)
            print(f"  {g.spec:<22}{g.status:<11}{g.canonical:>13,}{g.reachable:>15,}  {root:<18}"
                  f"{g.built_at}")
        else:
            print(f"  {g.spec:<22}{'unfinished':<11}{'-':>13}{'-':>15}  {'-':<18}"
                  "(build did not finish; run the build again)")


def _print_game(engine: Any, spec: Spec, game: GameRecord) -> None:
    rules = "misère: k in a row loses" if spec.misere else "k in a row wins"
    drop = ", stones drop (gravity)" if spec.gravity else ""
    print(f"{game.spec}: {spec.width} columns x {spec.height} rows, k={spec.k} ({rules}{drop})")
    print(f"  positions: {game.reachable:,} reachable, {game.canonical:,} canonical,"
          f" {game.terminal:,} terminal")
    print(f"  empty board: x to move, {_outcome_text(game.root_value or 0, game.root_depth or 0)}")
    print(f"  canonical by value for the side to move: {game.wins:,} win, {game.draws:,} draw,"
          f" {game.losses:,} loss")
    print(f"  built {game.built_at} by tablebase {game.tool_version} (schema {game.schema_version})"
          f" in {game.build_seconds or 0:.2f} s; checksum {game.checksum}")
    print(f"  {'ply':>4}{'reachable':>14}{'canonical':>12}{'terminal':>12}{'win':>11}{'draw':>11}"
          f"{'loss':>11}")
    for p in read_plies(engine, game):
        print(f"  {p.ply:>4}{p.reachable:>14,}{p.canonical:>12,}{p.terminal:>12,}{p.wins:>11,}"
              f"{p.draws:>11,}{p.losses:>11,}")


# --- the parser and the one place errors become messages -----------------------

def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the `tablebase` command."""
    parser = _Parser(prog="tablebase",
                     description="Strongly solve tic-tac-toe-like games into a database and"
                                 " answer from it.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def db_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--db", default=DEFAULT_DATABASE, metavar="PATH|URL",
                       help=f"SQLite file or SQLAlchemy URL (default: {DEFAULT_DATABASE})")

    p = commands.add_parser("build", help="strongly solve a game and store its table",
                            description="Strongly solve SPEC (e.g. 3x3k3, 4x4k4+gravity,"
                                        " tictactoe) and store every position's value and depth.")
    p.add_argument("spec", metavar="SPEC", help="WxHkK[+gravity][+misere], or tictactoe")
    db_option(p)
    p.add_argument("--force", action="store_true", help="rebuild a game that is already built")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_cmd_build)

    p = commands.add_parser("info", help="list the games in a database, or describe one",
                            description="Without SPEC: the games the database holds. With SPEC:"
                                        " its counts per ply and value.")
    p.add_argument("spec", metavar="SPEC", nargs="?", help="the game to describe")
    db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_cmd_info)
    return parser


def _hint(error: Exception, args: argparse.Namespace | None) -> str:
    """A next step to add to an error message, where there is an obvious one."""
    spec = getattr(args, "spec", None)
    db = getattr(args, "db", DEFAULT_DATABASE)
    db_flag = "" if db == DEFAULT_DATABASE else f" --db {db}"
    if isinstance(error, GameNotBuiltError) and spec:
        try:
            name = parse_spec(spec).name
        except GameError:
            name = spec
        return f"; build it with: tablebase build {name}{db_flag}"
    if isinstance(error, DatabaseError) and str(error).endswith("no such database file"):
        return f"; build a game first, e.g.: tablebase build tictactoe{db_flag}"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tablebase` command; return its exit status."""
    args = None
    try:
        args = make_parser().parse_args(argv)
        return int(args.run(args))
    except (UsageError, GameError, StorageError) as e:
        print(f"tablebase: error: {e}{_hint(e, args)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tablebase: interrupted; nothing unfinished was kept", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK

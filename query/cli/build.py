"""Building and checking tables: `build`, `info` and `verify`.

The build and info paths import their heavy modules (the pipeline, tqdm, the database engine)
inside their functions: one `tablebase probe` process must start in well under half a second,
and importing those alone would take most of it."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from builder.game import Spec, parse_spec
from db.errors import GameNotBuiltError
from query.cli.common import (EXIT_MISMATCH, EXIT_OK, db_option, gib, mib, outcome_text,
                              progress, size)
from query.notation import board_text
from query.shapes import game_json

if TYPE_CHECKING:
    from builder.pipeline import BuildReport
    from db.reader import GameRecord


def _cmd_build(args: argparse.Namespace) -> int:
    from builder.pipeline import build

    spec = parse_spec(args.spec)
    budget = None if args.memory is None else int(args.memory * (1 << 30))
    report = build(spec, args.db, force=args.force, resume=args.resume,
                   progress=progress(args.quiet), memory_budget=budget)
    _print_build(report, args.db)
    return EXIT_OK


def _print_build(report: BuildReport, db: str) -> None:
    from db.engine import describe

    print(f"built {report.spec.name} into {describe(db)}")
    print(f"  positions: {report.reachable:,} reachable, {report.canonical:,} canonical,"
          f" {report.terminal:,} terminal")
    print(f"  empty board: x to move, {outcome_text(report.root_value, report.root_depth)}")
    lookup = "direct table by code" if report.direct_table else "sorted arrays"
    spilled = f", {report.spilled_runs} sorted runs spilled to disk" if report.spilled_runs else ""
    print(f"  memory budget {size(report.memory_budget)}: {lookup}{spilled}")
    if report.resumed_stage:
        print(f"  resumed an interrupted build at: {report.resumed_stage}")
    print(f"  {'stage':<10}{'seconds':>9}{'peak memory':>14}")
    for name, figures in report.stages.items():
        print(f"  {name:<10}{figures.seconds:>9.2f}{mib(figures.peak_bytes):>14}")
    print(f"  {'total':<10}{report.seconds:>9.2f}")


# --- info --------------------------------------------------------------------

def _cmd_info(args: argparse.Namespace) -> int:
    from db.engine import open_database
    from db.reader import get_game, list_games, probe_game

    with open_database(args.db) as engine:
        if args.spec is None:
            games = list_games(engine)
            if args.json:
                print(json.dumps([game_json(engine, g) for g in games if g.complete], indent=2))
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
            print(json.dumps(game_json(engine, game), indent=2))
        else:
            _print_game(engine, spec, game)
    return EXIT_OK


def _print_games(db: str, games: list[GameRecord]) -> None:
    from db.engine import describe

    if not games:
        print(f"{describe(db)} holds no games yet; try: tablebase build tictactoe")
        return
    print(f"{describe(db)} holds {len(games)} game{'s' if len(games) != 1 else ''}:")
    print(f"  {'spec':<22}{'status':<11}{'canonical':>13}{'reachable':>15}  {'empty board':<18}built")
    for g in games:
        if g.complete:
            root = outcome_text(g.root_value or 0, g.root_depth or 0)
            print(f"  {g.spec:<22}{g.status:<11}{g.canonical:>13,}{g.reachable:>15,}  {root:<18}"
                  f"{g.built_at}")
        else:
            print(f"  {g.spec:<22}{'unfinished':<11}{'-':>13}{'-':>15}  {'-':<18}"
                  "(build did not finish; run the build again)")


def _print_game(engine: Any, spec: Spec, game: GameRecord) -> None:
    from db.reader import read_plies

    rules = "misère: k in a row loses" if spec.misere else "k in a row wins"
    drop = ", stones drop (gravity)" if spec.gravity else ""
    print(f"{game.spec}: {spec.width} columns x {spec.height} rows, k={spec.k} ({rules}{drop})")
    print(f"  positions: {game.reachable:,} reachable, {game.canonical:,} canonical,"
          f" {game.terminal:,} terminal")
    print(f"  empty board: x to move, {outcome_text(game.root_value or 0, game.root_depth or 0)}")
    print(f"  canonical by value for the side to move: {game.wins:,} win, {game.draws:,} draw,"
          f" {game.losses:,} loss")
    print(f"  built {game.built_at} by tablebase {game.tool_version} (schema {game.schema_version})"
          f" in {game.build_seconds or 0:.2f} s; checksum {game.checksum}")
    print(f"  {'ply':>4}{'reachable':>14}{'canonical':>12}{'terminal':>12}{'win':>11}{'draw':>11}"
          f"{'loss':>11}")
    for p in read_plies(engine, game):
        print(f"  {p.ply:>4}{p.reachable:>14,}{p.canonical:>12,}{p.terminal:>12,}{p.wins:>11,}"
              f"{p.draws:>11,}{p.losses:>11,}")


def _cmd_verify(args: argparse.Namespace) -> int:
    import time

    from builder.game import decode
    from db.engine import describe, open_database
    from query.verify import verify_table

    spec = parse_spec(args.spec)
    start = time.perf_counter()
    with open_database(args.db) as engine:
        report = verify_table(engine, spec, progress=progress(args.quiet or args.json),
                              limit=args.max_problems)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({
            "spec": report.spec, "positions": report.positions, "ok": report.ok,
            "problems": report.problems, "by_kind": report.by_kind, "seconds": round(seconds, 3),
            "first": [{"kind": p.kind, "message": p.message, "code": p.code, "ply": p.ply,
                       "board": None if p.code is None or not p.picture else
                       board_text(spec, decode(p.code, spec.cells))}
                      for p in report.first]}, indent=2))
        return EXIT_OK if report.ok else EXIT_MISMATCH
    rate = report.positions / seconds * 60 if seconds > 0 else 0.0
    if report.ok:
        print(f"{spec.name} in {describe(args.db)}: all {report.positions:,} positions verified"
              f" in {seconds:.1f} s ({rate:,.0f} a minute)")
        print("  every value and depth re-derived from its children and the rules; every child"
              " stored; every row reachable from the empty board; counts and checksum match")
        return EXIT_OK
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(report.by_kind.items()))
    print(f"{spec.name} in {describe(args.db)}: {report.problems:,} inconsistenc{'y' if report.problems == 1 else 'ies'} in"
          f" {report.positions:,} positions ({kinds})")
    for p in report.first:
        where = "" if p.code is None else f" at ply {p.ply}, code {p.code}"
        print(f"\n  {p.kind}{where}: {p.message}")
        if p.picture:
            print("\n".join("    " + line for line in p.picture.splitlines()))
    return EXIT_MISMATCH


def register(commands: Any) -> None:
    """Add build, info and verify to the subcommands."""
    p = commands.add_parser("build", help="strongly solve a game and store its table",
                            description="Strongly solve SPEC (e.g. 3x3k3, 4x4k4+gravity,"
                                        " tictactoe) and store every position's value and depth.")
    p.add_argument("spec", metavar="SPEC", help="WxHkK[+gravity][+misere], or tictactoe")
    db_option(p)
    p.add_argument("--force", action="store_true", help="rebuild a game that is already built")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted build from its last finished tier")
    p.add_argument("--memory", type=gib, metavar="GIB",
                   help="peak memory budget in GiB (default: half of this machine's memory)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_cmd_build)

    p = commands.add_parser("info", help="list the games in a database, or describe one",
                            description="Without SPEC: the games the database holds. With SPEC:"
                                        " its counts per ply and value.")
    p.add_argument("spec", metavar="SPEC", nargs="?", help="the game to describe")
    db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_cmd_info)

    p = commands.add_parser("verify", help="check every stored position from scratch",
                            description="Re-derive every stored position of SPEC from its"
                                        " children and the rules, check that every child is"
                                        " stored and every row reachable, and compare the counts"
                                        " and the build-time checksum. Exit 1 on any"
                                        " inconsistency, 0 when clean.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. 4x3k3")
    db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--max-problems", type=int, default=10, metavar="N",
                   help="show at most N inconsistencies, fewest stones first (default 10)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_verify)

"""The `tablebase` command: parse arguments, make one library call, print, and map
every error to one line on stderr with exit status 2 (in `main`, and only there)."""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from builder.game import GameError, Spec, Value, parse_spec
from db.errors import GameNotBuiltError, MissingDatabaseError, StorageError
from db.facts import DEFAULT_DATABASE
from query.errors import QueryError
from query.export import FORMATS, export_file, export_positions
from query.notation import board_text, draw_board, empty_board, parse_board, play_moves
from query.play import play_game
from query.tablebase import Probe, open_tablebase

# The build and info paths import their heavy modules (the pipeline, tqdm, the database
# engine) inside their functions: one `tablebase probe` process must start in well under
# half a second, and importing those alone would take most of it.
if TYPE_CHECKING:
    from tqdm import tqdm

    from builder.pipeline import BuildReport
    from builder.progress import ProgressFactory
    from db.reader import GameRecord

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad command-line arguments (argparse's complaints, turned into one line)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _progress(quiet: bool) -> ProgressFactory:
    """A tqdm factory on stderr, silent with --quiet or when stderr is not a terminal."""
    from tqdm import tqdm

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


def _size(n: int) -> str:
    return f"{n / (1 << 30):,.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):,.1f} MiB"


# --- build -------------------------------------------------------------------

def _cmd_build(args: argparse.Namespace) -> int:
    from builder.pipeline import build

    spec = parse_spec(args.spec)
    budget = None if args.memory is None else int(args.memory * (1 << 30))
    report = build(spec, args.db, force=args.force, resume=args.resume,
                   progress=_progress(args.quiet), memory_budget=budget)
    _print_build(report, args.db)
    return EXIT_OK


def _gib(text: str) -> float:
    """argparse type for --memory: a positive number of GiB."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GiB, found {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of GiB, found {text!r}")
    return value


def _print_build(report: BuildReport, db: str) -> None:
    from db.engine import describe

    print(f"built {report.spec.name} into {describe(db)}")
    print(f"  positions: {report.reachable:,} reachable, {report.canonical:,} canonical,"
          f" {report.terminal:,} terminal")
    print(f"  empty board: x to move, {_outcome_text(report.root_value, report.root_depth)}")
    lookup = "direct table by code" if report.direct_table else "sorted arrays"
    spilled = f", {report.spilled_runs} sorted runs spilled to disk" if report.spilled_runs else ""
    print(f"  memory budget {_size(report.memory_budget)}: {lookup}{spilled}")
    if report.resumed_stage:
        print(f"  resumed an interrupted build at: {report.resumed_stage}")
    print(f"  {'stage':<10}{'seconds':>9}{'peak memory':>14}")
    for name, figures in report.stages.items():
        print(f"  {name:<10}{figures.seconds:>9.2f}{_mib(figures.peak_bytes):>14}")
    print(f"  {'total':<10}{report.seconds:>9.2f}")


# --- info --------------------------------------------------------------------

def _game_json(engine: Any, game: GameRecord) -> dict[str, Any]:
    from db.reader import read_plies

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
    from db.engine import open_database
    from db.reader import get_game, list_games, probe_game

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
    from db.engine import describe

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
    from db.reader import read_plies

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


# --- answering: probe, moves, line, play, export -----------------------------------

def _board(spec: Spec, args: argparse.Namespace) -> tuple[int, ...]:
    """The position named on the command line: POSITION (default: the empty board), then --moves."""
    board = empty_board(spec) if args.position is None else parse_board(spec, args.position)
    return play_moves(spec, args.moves, board) if args.moves else board


def _probe_json(spec: Spec, board: tuple[int, ...], probe: Probe) -> dict[str, Any]:
    return {"spec": spec.name, "board": board_text(spec, board), "to_move": probe.to_move,
            "ply": probe.ply, "value": probe.value.word, "depth": probe.depth,
            "terminal": probe.terminal}


def _probe_text(probe: Probe) -> str:
    return f"{probe}{' (the game is over)' if probe.terminal else ''}"


def _cmd_probe(args: argparse.Namespace) -> int:
    spec = parse_spec(args.spec)
    board = _board(spec, args)
    with open_tablebase(args.db) as tb:
        probe = tb.probe(spec, board)
    print(json.dumps(_probe_json(spec, board, probe), indent=2) if args.json else _probe_text(probe))
    return EXIT_OK


def _cmd_moves(args: argparse.Namespace) -> int:
    spec = parse_spec(args.spec)
    board = _board(spec, args)
    with open_tablebase(args.db) as tb:
        probe = tb.probe(spec, board)
        moves = tb.moves(spec, board)
    if args.json:
        data = _probe_json(spec, board, probe)
        data["moves"] = [{"move": m.move, "value": m.value.word, "depth": m.depth, "best": m.best}
                         for m in moves]
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(draw_board(spec, board))
    print(_probe_text(probe))
    if not moves:
        print("no legal moves")
        return EXIT_OK
    width = max(4, *(len(m.move) for m in moves))
    print(f"  {'move':<{width}}  {'value':<5}  depth after")
    for m in moves:
        print(f"{'*' if m.best else ' '} {m.move:<{width}}  {m.value.word:<5}  {m.depth:>11}")
    print(f"values are for {probe.to_move}, who makes the move; depth after: plies to the end"
          " after it; * marks the best moves")
    return EXIT_OK


def _cmd_line(args: argparse.Namespace) -> int:
    spec = parse_spec(args.spec)
    board = _board(spec, args)
    with open_tablebase(args.db) as tb:
        probe = tb.probe(spec, board)
        steps = tb.line(spec, board)
    if args.json:
        data = _probe_json(spec, board, probe)
        data["line"] = [{"move": s.move, "player": s.player, "value": s.value.word,
                         "depth": s.depth, "board": board_text(spec, s.board)} for s in steps]
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(f"{board_text(spec, board)}  {_probe_text(probe)}")
    if not steps:
        return EXIT_OK
    print(f"perfect line, {_outcome_text(probe.value, probe.depth)} for {probe.to_move}:"
          f" {' '.join(s.move for s in steps)}")
    number = len(str(len(steps)))
    for i, s in enumerate(steps, 1):
        print(f"  {i:>{number}}. {s.player} {s.move:<4} {board_text(spec, s.board)}")
    print(draw_board(spec, steps[-1].board, highlight=steps[-1].cell))
    return EXIT_OK


def _cmd_play(args: argparse.Namespace) -> int:
    spec = parse_spec(args.spec)
    with open_tablebase(args.db) as tb:
        # input and print are looked up now, not bound at import, so tests can replace them.
        play_game(tb, spec, args.side, read=input, write=print, rng=random.Random(args.seed))
    return EXIT_OK


def _cmd_export(args: argparse.Namespace) -> int:
    spec = parse_spec(args.spec)
    with open_tablebase(args.db) as tb:
        if args.output is None:
            export_positions(tb, spec, sys.stdout, args.format)
            return EXIT_OK
        with _progress(args.quiet)(total=tb.count(spec), unit="pos",
                                   desc=f"export {spec.name}") as bar:
            written = export_file(tb, spec, args.output, args.format, progress=bar.update)
    print(f"exported {written:,} positions of {spec.name} to {args.output} ({args.format})")
    return EXIT_OK


# --- verify ------------------------------------------------------------------

def _cmd_verify(args: argparse.Namespace) -> int:
    import time

    from db.engine import describe, open_database
    from query.notation import board_text
    from builder.game import decode
    from query.verify import verify_table

    spec = parse_spec(args.spec)
    start = time.perf_counter()
    with open_database(args.db) as engine:
        report = verify_table(engine, spec, progress=_progress(args.quiet or args.json),
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


# --- audit ---------------------------------------------------------------------

def _cmd_audit(args: argparse.Namespace) -> int:
    from query.audit import (BUILTIN_PREFIX, audit, audit_builtins, builtin_names, open_candidate,
                             open_engine, parse_selection, report_dict)

    spec = parse_spec(args.spec)
    options: dict[str, Any] = dict(
        selection=parse_selection(args.positions), seed=args.seed,
        every_orientation=args.orientations == "all", check=args.check,
        max_examples=args.max_examples, progress=_progress(args.quiet))
    builtin = args.builtin
    if args.solver is not None and args.solver.startswith(BUILTIN_PREFIX):
        builtin = args.solver[len(BUILTIN_PREFIX):]
    with open_tablebase(args.db) as tb:
        tb.count(spec)  # a game that is not built fails here, before any solver starts
        if builtin is not None:
            audits = audit_builtins(tb, spec, builtin_names(builtin), **options)
            if args.json:
                print(json.dumps(_builtins_json(audits), indent=2))
            else:
                _print_builtins(spec, audits)
            return EXIT_OK if all(a.report.ok for a in audits) else EXIT_MISMATCH
        if args.engine is not None:
            opened = open_engine(args.engine, tb, spec, timeout=args.timeout)
        else:
            opened = open_candidate(args.solver, spec, timeout=args.timeout)
        with opened as candidate:
            report = audit(tb, spec, candidate, **options)
    if args.json:
        print(json.dumps(report_dict(report), indent=2))
    else:
        _print_audit(spec, report)
    return EXIT_OK if report.ok else EXIT_MISMATCH


def _builtins_json(audits: Sequence[Any]) -> list[dict[str, Any]]:
    from query.audit import report_dict

    return [{**report_dict(a.report), "nodes": a.nodes} for a in audits]


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _print_audit(spec: Spec, report: Any) -> None:
    from query.audit import KINDS

    seen = ("each in every distinct image of its orbit" if report.every_orientation
            else f"each in a random image of its orbit (seed {report.seed})")
    print(f"audit of {report.solver} on {spec.name}: {_count(report.positions, 'position')}"
          f" ({report.selection}), {seen}")
    if report.every_orientation:
        print(f"  boards shown: {report.boards:,}")
    answered = sum(report.shapes.values())
    if report.shapes:
        shapes = ", ".join(f"{n:,} as ({shape})" for shape, n in report.shapes.items())
        print(f"  answers: {shapes}")
    applied = ", ".join(f"{c} on {n:,}" for c, n in report.checked.items()) or "none"
    asked = f" (--check {report.check})" if report.check else " (the strongest each answer allows)"
    print(f"  checks: {applied}{asked}")
    if report.check and report.checked.get(report.check, 0) < answered:
        print(f"  note: {answered - report.checked.get(report.check, 0):,} answers gave no"
              f" {report.check}, so it could not be checked on them")
    if report.declined:
        print(f"  declined: {report.declined:,} ({report.declined_note})")
    judged = report.boards - report.declined
    print(f"  agreed: {report.agreed:,} of {judged:,}")
    if report.mismatched:
        where = (f" boards, on {_count(report.mismatched_positions, 'position')}"
                 if report.every_orientation else "")
        print(f"  mismatched: {report.mismatched:,}{where}")
        for kind in KINDS:
            if kind in report.mismatches:
                print(f"    {kind:<18}{report.mismatches[kind]:>8,}")
    if report.restarts:
        print(f"  the solver's process was restarted {_count(report.restarts, 'time')}")
    print(f"  seconds: {report.seconds:.2f}")
    if report.examples:
        print()
        print(f"smallest counterexamples ({len(report.examples)} of"
              f" {_count(report.mismatched_positions, 'position')}, fewest stones first; boards"
              " as shown to the solver):")
    for number, e in enumerate(report.examples, 1):
        print()
        print(f"{number}. {e.kind}: {e.to_move} to move, {_count(e.ply, 'stone')}"
              f" ({board_text(spec, e.board)})")
        for line in draw_board(spec, e.board).splitlines():
            print(f"   {line}")
        best = f"; best moves: {' '.join(e.best_moves)}" if e.best_moves else ""
        print(f"   table:    {_outcome_text(e.value, e.depth)}{best}")
        if e.said:
            print(f"   solver:   {e.said}")
        print(f"   wrong:    {e.detail}")
        if e.refutation:
            lead = f"after the solver's {e.after}: " if e.after is not None else "perfect play: "
            print(f"   refuted:  {lead}{_line_text(e)}")
    if report.ok:
        print(f"all {judged:,} answers agree with the table")


def _line_text(e: Any) -> str:
    """'x b2, o c3, x b1: x wins', the players alternating from the side to move."""
    players = (e.to_move, "o" if e.to_move == "x" else "x")
    moves = ", ".join(f"{players[i % 2]} {m}" for i, m in enumerate(e.refutation))
    if e.refutation_value == Value.DRAW:
        return f"{moves}: a draw"
    return f"{moves}: {players[0] if e.refutation_value == Value.WIN else players[1]} wins"


def _print_builtins(spec: Spec, audits: Sequence[Any]) -> None:
    first = audits[0].report
    seen = ("each in every distinct image of its orbit" if first.every_orientation
            else f"each in a random image of its orbit (seed {first.seed})")
    print(f"textbook solvers on {spec.name}: {_count(first.positions, 'position')}"
          f" ({first.selection}), {seen}")
    print(f"  {'solver':<15}{'checked':>9}{'mismatched':>12}{'nodes from empty':>18}{'seconds':>9}")
    for a in audits:
        r = a.report
        nodes = f"{a.nodes:,}" if a.nodes is not None else "refused"
        print(f"  {a.name:<15}{r.boards - r.declined:>9,}{r.mismatched:>12,}{nodes:>18}"
              f"{r.seconds:>9.2f}")
    for a in audits:
        if a.report.declined:
            print(f"  {a.name} declined {_count(a.report.declined, 'position')}:"
                  f" {a.report.declined_note}")
    for a in audits:
        if not a.report.ok:
            print()
            _print_audit(spec, a.report)


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
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted build from its last finished tier")
    p.add_argument("--memory", type=_gib, metavar="GIB",
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

    def position_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("spec", metavar="SPEC", help="the game, e.g. 3x3k3")
        p.add_argument("position", metavar="POSITION", nargs="?",
                       help="board text, rows top to bottom separated by '/', e.g. x.o/.x./...;"
                            " default: the empty board")
        p.add_argument("--moves", metavar="MOVES",
                       help="moves played from POSITION (or the empty board), e.g. \"b2 a1 c3\":"
                            " column letter and row number, 1 = bottom")
        db_option(p)
        p.add_argument("--json", action="store_true", help="print JSON")

    p = commands.add_parser("probe", help="value and depth of a position",
                            description="The value (win/draw/loss for the side to move) and"
                                        " depth (plies to the end under perfect play) of a"
                                        " position.")
    position_args(p)
    p.set_defaults(run=_cmd_probe)

    p = commands.add_parser("moves", help="every legal move with its value, best first",
                            description="Every legal move with its value for the player making"
                                        " it and the depth after it, best first; * marks the"
                                        " moves that keep the perfect value and depth.")
    position_args(p)
    p.set_defaults(run=_cmd_moves)

    p = commands.add_parser("line", help="a perfect line to the end of the game",
                            description="A perfect line from the position to the end of the"
                                        " game, as moves and boards; its length is the depth.")
    position_args(p)
    p.set_defaults(run=_cmd_line)

    p = commands.add_parser("play", help="play against perfect play in the terminal",
                            description="Play SPEC against perfect play. Type moves such as b2;"
                                        " also hint, undo and quit.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. tictactoe")
    p.add_argument("--as", dest="side", choices=("x", "o"), default="x",
                   help="your side (x moves first; default: x)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the computer's choice among equally good moves")
    db_option(p)
    p.set_defaults(run=_cmd_play)

    p = commands.add_parser("export", help="write every stored position as CSV or JSON Lines",
                            description="Stream every stored (canonical) position of SPEC with"
                                        " the columns board, to_move, ply, value (for the side"
                                        " to move) and depth.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. 4x3k3")
    p.add_argument("--format", choices=FORMATS, default="csv", help="csv (default) or jsonl")
    p.add_argument("--output", metavar="FILE", help="write to FILE (default: standard output)")
    db_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_export)

    p = commands.add_parser(
        "audit", help="check a solver's answers against the table",
        description="Check a solver against the table of SPEC on every stored non-terminal"
                    " position (or those --positions names), each shown in a random image of"
                    " its symmetry orbit: a Python function MODULE:FUNCTION called as"
                    " f(board, to_move), an external program speaking the GTP-style protocol"
                    " (--engine), or the textbook solvers (--builtin). Exit status 1 when any"
                    " answer disagrees with the table.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. tictactoe")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--solver", metavar="MODULE:FUNCTION",
                     help="a Python function f(board, to_move) returning a value, (value, move)"
                          " or (value, move, depth); the current directory is on the import path;"
                          " builtin:NAME names a textbook solver")
    who.add_argument("--engine", metavar="COMMAND",
                     help="an external program speaking the GTP-style protocol (see the README)")
    who.add_argument("--builtin", metavar="NAME|all",
                     help="audit a textbook solver, or all of them, and print their table")
    db_option(p)
    p.add_argument("--positions", metavar="all|sample:N|ply:P",
                   help="all (terminal ones too), N random ones, or those with P stones"
                        " (default: every stored non-terminal position)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for the images shown and the sample (default: 0)")
    p.add_argument("--orientations", choices=("random", "all"), default="random",
                   help="show each position in one random image (default) or in every image")
    p.add_argument("--check", choices=("value", "move", "depth"),
                   help="value; move: also a move that keeps the value; depth: also the exact"
                        " depth (default: the strongest each answer allows)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds per position before the solver is stopped and restarted"
                        " (default: 10)")
    p.add_argument("--max-examples", type=int, default=10, metavar="N",
                   help="counterexamples to show, smallest first (default: 10)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_audit)

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
    if isinstance(error, MissingDatabaseError):
        return f"; build a game first, e.g.: tablebase build tictactoe{db_flag}"
    return ""


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
            db = getattr(args, "db", DEFAULT_DATABASE)
            db_flag = "" if db == DEFAULT_DATABASE else f" --db {db}"
            print(f"tablebase: interrupted; the game is not complete. Continue with: tablebase"
                  f" build {args.spec}{db_flag} --resume (or start over without --resume)",  # type: ignore[union-attr]
                  file=sys.stderr)
        else:
            print("tablebase: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK

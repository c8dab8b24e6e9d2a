"""Auditing other people's solvers and engines against the table: `audit`."""
from __future__ import annotations

import argparse
import json
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from tablebase.builder.games.grid import Spec, parse_spec
from tablebase.builder.games.registry import grid_game, is_keyed_spec
from tablebase.query.audit.selection import EVERY_IMAGE_LIMIT
from tablebase.query.cli.common import (
    EXIT_MISMATCH,
    EXIT_OK,
    db_option,
    note_on_stderr,
    open_db,
    progress,
    whole_number,
)
from tablebase.query.cli.solve import search_options
from tablebase.query.errors import AuditInputError

if TYPE_CHECKING:  # the audit is imported when a command runs (its startup cost)
    from tablebase.query.audit.candidates import Candidate


def _cmd_audit(args: argparse.Namespace) -> int:
    from tablebase.query.audit.by_play import parse_opponent, play_audit
    from tablebase.query.audit.candidates import BUILTIN_PREFIX, open_candidate, open_gtp_engine
    from tablebase.query.audit.estimate import builtins_note, estimate_builtins
    from tablebase.query.audit.positions import audit, audit_builtins, builtin_names
    from tablebase.query.audit.selection import parse_selection
    from tablebase.query.cli.audit_report import print_audit, print_builtins, print_play
    from tablebase.query.shapes import audit_json, builtins_json, play_audit_json

    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.audit(args)
    spec = parse_spec(args.spec)
    every = {"auto": None, "all": True, "random": False}[args.orientations]
    options: dict[str, Any] = dict(
        selection=parse_selection(args.positions), seed=args.seed, every_orientation=every,
        check=args.check, max_examples=args.max_examples, progress=progress(args.quiet),
        root=args.root, strict=args.strict, max_failures=args.max_failures)
    builtin = args.builtin
    if args.solver is not None and args.solver.startswith(BUILTIN_PREFIX):
        builtin = args.solver[len(BUILTIN_PREFIX):]
    if args.play is not None and builtin is not None:
        raise AuditInputError("--play needs a player: --engine or --solver MODULE:FUNCTION")
    opponent = parse_opponent(args.opponent)
    path = _course_file(args.positions)
    if path is not None:
        return _audit_course_file(args, spec, path)
    with open_db(args.db) as tb:
        tb.table(spec, args.root)  # a table the database lacks fails here, before any solver
        if builtin is not None:
            names = builtin_names(builtin, spec)
            if args.root is None:
                note = builtins_note(spec, estimate_builtins(
                    tb, spec, names, options["selection"], args.seed, every))
                if note is not None:
                    note_on_stderr(note)
            audits = audit_builtins(tb, spec, names, **options)
            if args.json:
                print(json.dumps(builtins_json(audits), indent=2))
            else:
                print_builtins(spec, audits)
            return EXIT_OK if all(a.report.ok for a in audits) else EXIT_MISMATCH
        opened: AbstractContextManager[Candidate]
        if args.engine is not None:
            opened = open_gtp_engine(args.engine, spec, timeout=args.timeout, dialect=args.dialect)
        else:
            opened = open_candidate(args.solver, spec, timeout=args.timeout)
        with opened as candidate:
            if args.play is not None:
                start = None if args.root is None else tb.read_board(spec, args.root)
                played = play_audit(tb, spec, candidate, args.play, opponent=opponent,
                                    plays=args.side, seed=args.seed, start=start,
                                    max_examples=args.max_examples, progress=options["progress"])
                if args.json:
                    print(json.dumps(play_audit_json(played), indent=2))
                else:
                    print_play(spec, played)
                return EXIT_OK if played.ok else EXIT_MISMATCH
            report = audit(tb, spec, candidate, notice=note_on_stderr, **options)
    if args.json:
        print(json.dumps(audit_json(report), indent=2))
    else:
        print_audit(spec, report)
    return EXIT_OK if report.ok else EXIT_MISMATCH


def _course_file(positions: str | None) -> str | None:
    """The path of `--positions file:PATH` when the file holds GTP commands (a course test
    file), else None."""
    from tablebase.query.audit.course_file import is_course_file

    if positions is None or not positions.strip().startswith("file:"):
        return None
    path = positions.strip()[len("file:"):].strip()
    return path if is_course_file(path) else None


def _audit_course_file(args: argparse.Namespace, spec: Spec, path: str) -> int:
    """Audit a solver (and the file's own expectations) on a course test file."""
    from tablebase.query.audit.candidates import EngineCandidate, open_candidate, open_gtp_engine
    from tablebase.query.audit.course_file import audit_course_file, read_course_file
    from tablebase.query.audit.estimate import course_note
    from tablebase.query.cli.audit_report import print_course
    from tablebase.query.search.fallback import open_for_answers
    from tablebase.query.shapes import course_json

    if args.builtin is not None or args.play is not None or args.root is not None:
        raise AuditInputError("a course test file is audited with --engine or --solver, without"
                              " --builtin, --play or --root")
    if not grid_game(spec).moves_are_placements:
        raise AuditInputError(f"a course test file plays games whose stones are only placed;"
                              f" in {spec.name} stones move: list its positions one a line"
                              " (board text, then x or o where needed) instead")
    cases = read_course_file(spec, path)  # a bad file fails here, before any solver
    search = args.search  # None (--no-search): only the tables settle a case
    with open_for_answers(args.db, searching=search is not None) as tb:
        opened: AbstractContextManager[Candidate]
        if args.engine is not None:
            opened = open_gtp_engine(args.engine, spec, timeout=args.timeout, dialect=args.dialect)
        else:
            opened = open_candidate(args.solver, spec, timeout=args.timeout)
        with opened as candidate:
            course = (isinstance(candidate, EngineCandidate)
                      and candidate.engine.dialect.name == "course")
            note = course_note(cases, args.timeout, search, course)
            if note is not None:
                note_on_stderr(note)
            with progress(args.quiet)(total=len(cases), unit="case", desc=f"audit {path}") as bar:
                report = audit_course_file(tb, spec, path, candidate, search,
                                           progress=bar.update)
    if args.json:
        print(json.dumps(course_json(report), indent=2))
    else:
        print_course(spec, report)
    return EXIT_OK if report.ok else EXIT_MISMATCH


def register(commands: Any) -> None:
    """Add audit to the subcommands."""
    p = commands.add_parser(
        "audit", help="check a solver's answers against the table",
        description="Check a solver against the table of SPEC on every stored non-terminal"
                    " position (or those --positions names), each shown in every image of its"
                    " symmetry orbit (or a random one, on large games): a Python function"
                    " MODULE:FUNCTION called as f(board, to_move), an external program speaking"
                    " GTP (--engine), or the textbook solvers (--builtin). A player may answer a"
                    " move alone. With --play N, the function or engine plays N whole games"
                    " against the table instead, and each of its moves is judged. Exit status 1"
                    " when any answer disagrees with the table.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. tictactoe")
    p.add_argument("--root", metavar="POSITION",
                   help="audit on the endgame table rooted at POSITION (its positions, or with"
                        " --play, games from it); default: the whole-board table")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--solver", metavar="MODULE:FUNCTION",
                     help="a Python function f(board, to_move) returning a value, (value, move),"
                          " (value, move, depth) or a move alone; the current directory is on the"
                          " import path;"
                          " builtin:NAME names a textbook solver")
    who.add_argument("--engine", metavar="COMMAND",
                     help="an external program speaking GTP (see the README): asked 'solve', or"
                          " 'genmove' when it does not list solve")
    who.add_argument("--builtin", metavar="NAME|all",
                     help="audit a textbook solver, or all of them, and print their table")
    db_option(p)
    p.add_argument("--positions", metavar="SELECTION",
                   help="all (terminal ones too), sample:N (N random ones, spread over plies and"
                        " values), uniform:N, ply:P (those with P stones), depth:D[-D2],"
                        " hardest:N (the longest wins and losses first), file:PATH (one position"
                        " a line: board text or moves; or a course test file of GTP commands"
                        " as gogui-regress reads it, boardsize/timelimit/play/solve/genmove with"
                        " #? [expected] lines, each position answered"
                        " by a table or by search), or several joined by commas, such as"
                        " ply:12,sample:50 (file:PATH last); default: every stored non-terminal"
                        " position")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for the images shown and the sample (default: 0)")
    p.add_argument("--orientations", choices=("auto", "random", "all"), default="auto",
                   help="show each position in one random image or in every image; auto (the"
                        f" default): every image when that is at most {EVERY_IMAGE_LIMIT:,}"
                        " boards in all, else a random one")
    p.add_argument("--max-failures", type=whole_number(1, "a positive whole number"), metavar="N",
                   help="stop once N positions have failed (default: audit them all)")
    p.add_argument("--strict", action="store_true",
                   help="count an engine's '= unknown' as a failure (by default it claims"
                        " nothing and is counted apart)")
    p.add_argument("--check", choices=("value", "move", "depth"),
                   help="value; move: also a move that keeps the value; depth: also the exact"
                        " depth (default: the strongest each answer allows)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds per position before the solver is stopped and restarted"
                        " (default: 10)")
    p.add_argument("--max-examples", type=int, default=10, metavar="N",
                   help="counterexamples to show, smallest first (default: 10)")
    p.add_argument("--dialect", choices=("auto", "plain", "course"), default="auto",
                   help="the engine's GTP dialect: plain (x/o, set_game SPEC), course (b/w, GTP"
                        " coordinates, boardsize N); auto (default): from its list_commands")
    p.add_argument("--play", type=int, metavar="N",
                   help="audit by play: N games from the empty board against the table, judging"
                        " every move of the player's (exit status 1 if any loses value)")
    p.add_argument("--opponent", metavar="perfect|random|level:L",
                   help="with --play, how the table plays: perfect (default), random, or level:L"
                        " (a best move with probability L/10, else a random one)")
    p.add_argument("--as", dest="side", choices=("x", "o", "both"), default="both",
                   help="with --play, the side the player takes (default: both, x in odd games)")
    search_options(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_audit)

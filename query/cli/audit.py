"""Auditing other people's solvers and engines against the table: `audit`."""
from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from builder.game import Spec, Value, parse_spec
from query.cli.common import (EXIT_MISMATCH, EXIT_OK, count, db_option, outcome_text,
                              progress)
from query.notation import board_text, draw_board
from query.tablebase import open_tablebase


def _cmd_audit(args: argparse.Namespace) -> int:
    from query.audit import (BUILTIN_PREFIX, audit, audit_builtins, builtin_names, open_candidate,
                             open_engine, parse_selection, report_dict)

    spec = parse_spec(args.spec)
    options: dict[str, Any] = dict(
        selection=parse_selection(args.positions), seed=args.seed,
        every_orientation=args.orientations == "all", check=args.check,
        max_examples=args.max_examples, progress=progress(args.quiet))
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


def _print_audit(spec: Spec, report: Any) -> None:
    from query.audit import KINDS

    seen = ("each in every distinct image of its orbit" if report.every_orientation
            else f"each in a random image of its orbit (seed {report.seed})")
    print(f"audit of {report.solver} on {spec.name}: {count(report.positions, 'position')}"
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
        where = (f" boards, on {count(report.mismatched_positions, 'position')}"
                 if report.every_orientation else "")
        print(f"  mismatched: {report.mismatched:,}{where}")
        for kind in KINDS:
            if kind in report.mismatches:
                print(f"    {kind:<18}{report.mismatches[kind]:>8,}")
    if report.restarts:
        print(f"  the solver's process was restarted {count(report.restarts, 'time')}")
    print(f"  seconds: {report.seconds:.2f}")
    if report.examples:
        print()
        print(f"smallest counterexamples ({len(report.examples)} of"
              f" {count(report.mismatched_positions, 'position')}, fewest stones first; boards"
              " as shown to the solver):")
    for number, e in enumerate(report.examples, 1):
        print()
        print(f"{number}. {e.kind}: {e.to_move} to move, {count(e.ply, 'stone')}"
              f" ({board_text(spec, e.board)})")
        for line in draw_board(spec, e.board).splitlines():
            print(f"   {line}")
        best = f"; best moves: {' '.join(e.best_moves)}" if e.best_moves else ""
        print(f"   table:    {outcome_text(e.value, e.depth)}{best}")
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
    print(f"textbook solvers on {spec.name}: {count(first.positions, 'position')}"
          f" ({first.selection}), {seen}")
    print(f"  {'solver':<15}{'checked':>9}{'mismatched':>12}{'nodes from empty':>18}{'seconds':>9}")
    for a in audits:
        r = a.report
        nodes = f"{a.nodes:,}" if a.nodes is not None else "refused"
        print(f"  {a.name:<15}{r.boards - r.declined:>9,}{r.mismatched:>12,}{nodes:>18}"
              f"{r.seconds:>9.2f}")
    for a in audits:
        if a.report.declined:
            print(f"  {a.name} declined {count(a.report.declined, 'position')}:"
                  f" {a.report.declined_note}")
    for a in audits:
        if not a.report.ok:
            print()
            _print_audit(spec, a.report)


def register(commands: Any) -> None:
    """Add audit to the subcommands."""
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

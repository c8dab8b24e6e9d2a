"""`solve`: a position's exact value and a move that keeps it, by search with the stored tables
at its leaves and the prover beside it (query/search/settling.py); and the `--search S` /
`--no-search` options of the commands that fall back to search where no table holds a
position."""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from tablebase.builder.games.grid import Spec, parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.registry import is_keyed_spec
from tablebase.query.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    position_args,
    position_from_args,
    progress,
)
from tablebase.query.cli.proof import (
    each_move_command,
    proof_options,
    proofs_text,
    prove_command,
)
from tablebase.query.errors import one_line
from tablebase.query.search.fallback import DEFAULT_SEARCH_SECONDS, open_for_answers
from tablebase.query.search.solving import SOLVE_BATCH, budget, solve_each
from tablebase.query.shapes import answer_json, numbered_json, settled_json


def _seconds(text: str) -> float:
    """argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, found {text!r}")
    return value


def _nodes(text: str) -> int:
    """argparse type: a positive whole number of nodes."""
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number of nodes, found {text!r}")
    return int(text)


def search_options(p: argparse.ArgumentParser) -> None:
    """--search S and --no-search: how a command answers a position no table holds."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--search", metavar="S", type=_seconds, default=DEFAULT_SEARCH_SECONDS,
                       help="where no table holds the position, search it for at most S seconds"
                            f" (default: {DEFAULT_SEARCH_SECONDS:g})")
    group.add_argument("--no-search", dest="search", action="store_const", const=None,
                       help="answer from the tables only")


def _cmd_solve(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):  # a morris game or a class: positions that repeat, no search
        raise UsageError(f"{args.spec.strip()}: solve searches m,n,k boards; this game is"
                         f" answered by its table: tablebase build {args.spec.strip()}, then"
                         " probe, moves or line")
    spec = parse_spec(args.spec)
    if args.positions is not None:
        if args.position is not None or args.moves:
            raise UsageError("--positions reads the positions from a file: give no POSITION"
                             " or --moves with it")
        return _solve_lines(args, spec)
    if args.proof is not None and (args.json or args.no_tables):
        raise UsageError("--proof writes a proof file: give no --json or --no-tables with it")
    if args.each_move and (args.json or args.time is None):
        raise UsageError("--each-move shares out --time over the first moves: give --time S"
                         " and no --json with it")
    position = position_from_args(spec, args)
    if args.each_move:
        return each_move_command(args, spec, position.board)
    if args.proof is not None:
        return prove_command(args, spec, position.board)
    # Imported here: the prover's compiled code loads with it (commands that never search
    # start without it).
    from tablebase.query.search.settling import settle

    with open_for_answers(args.db, searching=True) as tb, \
            progress(args.quiet)(desc=f"solve {spec.name}", unit=" nodes",
                                 bar_format="{desc}{postfix}") as bar:
        started = time.monotonic()
        shown = ["", ""]  # the search's progress, the prover's

        def searching(nodes: int, hits: int) -> None:
            rate = nodes / max(time.monotonic() - started, 1e-9)
            shown[0] = f"{nodes:,} nodes, {rate:,.0f} a second, {hits:,} table hits"
            bar.set_postfix_str("; ".join(filter(None, shown)))

        def proving(claim: str, done: int, moves: int, nodes: int) -> None:
            shown[1] = f"prover: {claim}? {done} of {moves} first moves proved, {nodes:,} nodes"
            bar.set_postfix_str("; ".join(filter(None, shown)))
        settled = settle(tb, spec, position, seconds=args.time, nodes=args.nodes,
                         memory=int(args.memory * (1 << 30)), threads=args.threads,
                         use_tables=not args.no_tables, progress=searching, proving=proving)
    answer = settled.answer
    if args.json:
        print(json.dumps(settled_json(spec, answer.board, settled), indent=2))
        return EXIT_OK
    print(answer if settled.method == "search" else
          f"{answer.to_move} to move: {answer.solution.known} (by proof)")
    if answer.move is not None:
        print(f"best move: {answer.move}")
    if answer.solution.depth != 0:
        print(f"searched {answer.effort}")
    if settled.method == "proof" and settled.proofs is not None:
        print(f"by the prover: {proofs_text(spec, answer.board, settled.proofs)}")
    return EXIT_OK


def _solve_lines(args: argparse.Namespace, spec: Spec) -> int:
    """solve --positions: one answer a line, in order, as each is found; a line that names no
    position gets its error in its place (and on stderr), and the exit status 2 at the end."""
    failed = 0
    with _lines(args.positions) as lines, open_for_answers(args.db, searching=True) as tb, \
            progress(args.quiet)(desc=f"solve {spec.name}", unit=" positions") as bar:
        # A file is read ahead and solved in batches; standard input answered line by line.
        for number, answer in solve_each(tb if not args.no_tables else None, spec, lines,
                                         budget(args.time, args.nodes),
                                         1 if args.positions == "-" else SOLVE_BATCH):
            bar.update(1)
            if isinstance(answer, Exception):
                failed += 1
                message = f"line {number}: {one_line(str(answer))}"
                print(f"tablebase: error: {message}", file=sys.stderr)
                print(json.dumps(numbered_json(number, error=message)) if args.json
                      else f"{number}: error: {one_line(str(answer))}", flush=True)
                continue
            if args.json:
                data = answer_json(spec, answer.board, answer)
                print(json.dumps(numbered_json(number, data)), flush=True)
            else:
                move = "" if answer.move is None else f"; best move {answer.move}"
                print(f"{number}: {board_text(spec, answer.board)}  {answer}{move}", flush=True)
    if failed:
        print(f"tablebase: error: {failed} line{'s' if failed != 1 else ''} named no position"
              " to solve", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


@contextmanager
def _lines(path: str) -> Iterator[TextIO]:
    """The lines of `path` ('-': standard input), or UsageError when it cannot be read."""
    if path == "-":
        yield sys.stdin
        return
    try:
        handle = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    with handle:
        yield handle


def register(commands: Any) -> None:
    """Add solve to the subcommands."""
    p = commands.add_parser(
        "solve", help="the exact value of a position by search and proof, tables at the leaves",
        description="The exact value of a position for the side to move and a move that keeps"
                    " it, by search (alpha-beta with a transposition table), using the"
                    " database's tables where the search reaches a position they hold; on games"
                    " of placed stones under normal rules (no gravity, misere, +exact or moving"
                    " stones, at most 128 cells) the prover runs beside it (df-pn: that the side"
                    " to move cannot win, then that the other side cannot win after one of its"
                    " moves), and a draw it proves ends the search. The depth is given where"
                    " it is proved. When the budget runs out the answer is what was proved so"
                    " far, never a guess.")
    position_args(p)
    p.add_argument("--time", metavar="S", type=_seconds, default=None,
                   help="stop after S seconds of wall time (default: no limit)")
    p.add_argument("--nodes", metavar="N", type=_nodes, default=None,
                   help="stop after N nodes of the search, and N of the prover's (default: no"
                        " limit)")
    p.add_argument("--positions", metavar="FILE",
                   help="solve every position FILE names ('-': standard input), one a line:"
                        " board text, board text then moves, or moves (with +gravity also"
                        " Pascal Pons' column digits, e.g. 4453); one answer a line, in order"
                        " (--time and --nodes apply to each)")
    p.add_argument("--no-tables", action="store_true",
                   help="search alone, without the stored tables at the leaves")
    p.add_argument("--each-move", action="store_true",
                   help="settle each move of the side to move (one of each symmetric set) on"
                        " its own: whether it wins or cannot win after it, by the prover and"
                        " the search side by side, --time shared out evenly over the moves; a"
                        " line a move (with --proof, the position's proof where the moves"
                        " settle it)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    proof_options(p)
    p.set_defaults(run=_cmd_solve)

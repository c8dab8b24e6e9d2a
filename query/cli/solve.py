"""`solve`: a position's exact value and a move that keeps it, by search with the stored tables
at its leaves; and the `--search S` / `--no-search` options of the commands that fall back to
search where no table holds a position."""
from __future__ import annotations

import argparse
import json
from typing import Any

from tablebase.builder.game import parse_spec
from tablebase.query.cli.common import EXIT_OK, board_from_args, position_args, progress
from tablebase.query.search.answers import (DEFAULT_SEARCH_SECONDS, budget, open_for_answers,
                                            solve)
from tablebase.query.shapes import answer_json


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
    spec = parse_spec(args.spec)
    board = board_from_args(spec, args)
    with open_for_answers(args.db, searching=True) as tb, \
            progress(args.quiet)(desc=f"solve {spec.name}", unit=" nodes",
                                 bar_format="{desc}: {postfix}") as bar:
        def shown(nodes: int, hits: int) -> None:
            rate = nodes / max(bar.format_dict["elapsed"], 1e-9)
            bar.set_postfix_str(f"{nodes:,} nodes, {rate:,.0f} a second, {hits:,} table hits")
        answer = solve(tb, spec, board, budget(args.time, args.nodes), progress=shown,
                       use_tables=not args.no_tables)
    if args.json:
        print(json.dumps(answer_json(spec, board, answer), indent=2))
        return EXIT_OK
    print(answer)
    if answer.move is not None:
        print(f"best move: {answer.move}")
    if answer.solution.depth != 0:
        print(f"searched {answer.effort}")
    return EXIT_OK


def register(commands: Any) -> None:
    """Add solve to the subcommands."""
    p = commands.add_parser(
        "solve", help="the exact value of a position by search, tables at the leaves",
        description="The exact value of a position for the side to move and a move that keeps"
                    " it, by search (alpha-beta with a transposition table), using the"
                    " database's tables where the search reaches a position they hold. The"
                    " depth is given where the search proves it. When the budget runs out the"
                    " answer is what was proved so far, never a guess.")
    position_args(p)
    p.add_argument("--time", metavar="S", type=_seconds, default=None,
                   help="stop after S seconds (default: no limit)")
    p.add_argument("--nodes", metavar="N", type=_nodes, default=None,
                   help="stop after N nodes (default: no limit)")
    p.add_argument("--no-tables", action="store_true",
                   help="search alone, without the stored tables at the leaves")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(run=_cmd_solve)

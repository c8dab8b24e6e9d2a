"""Strategies and opponents: `strategy` (smallest proof trees), `genmove` (a move at a level
from 0 random to 10 perfect) and `gtp` (the table as a GTP engine on stdin and stdout)."""
from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.registry import is_keyed_spec
from tablebase.query.cli.common import (
    EXIT_OK,
    UsageError,
    db_option,
    open_db,
    position_args,
    position_from_args,
    progress,
    whole_number,
)
from tablebase.query.play.levels import MAX_LEVEL, MIN_LEVEL
from tablebase.query.play.strategy_sizes import EXPLORE_LIMIT
from tablebase.query.shapes import DEFAULT_MAX_NODES, genmove_json, strategy_json
from tablebase.query.wording import plies


def _level(text: str) -> int:
    """argparse type for --level: a whole number from 0 to 10."""
    try:
        level = int(text)
    except ValueError:
        level = -1
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from {MIN_LEVEL} (random) to {MAX_LEVEL} (perfect),"
            f" found {text!r}")
    return level


def level_option(p: argparse.ArgumentParser, default: int | None = MAX_LEVEL) -> None:
    """--level 0..10 (and --seed N for the random choices)."""
    p.add_argument("--level", type=_level, default=default, metavar="0..10",
                   help="strength: 10 plays a best move, 0 a uniformly random move; level L"
                        " plays a best move with probability L/10, else a random one"
                        f" (default: {default})")


def _cmd_strategy(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.strategy(args)
    from tablebase.query.play.strategy import find_strategy

    spec = parse_spec(args.spec)
    board = position_from_args(spec, args).board
    with open_db(args.db) as tb:
        if args.root is not None:
            tb.table(spec, args.root)  # the endgame table must exist: its own error otherwise
        with progress(args.quiet)(unit="pos", desc=f"strategy {spec.name}") as bar:
            found = find_strategy(tb, spec, board, args.side, progress=bar.update,
                                  limit=args.max_explored)
        if args.dot:
            if len(found) > 1:
                raise UsageError("--dot writes one strategy and the position is a draw, with one"
                                 " for each side: choose one with --side x or --side o")
            with open(args.dot, "w", encoding="utf-8") as out:
                out.write(found[0].dot())
        if args.json:
            shown: Any = [strategy_json(s, args.max_nodes) for s in found]
            print(json.dumps(shown[0] if len(shown) == 1 else shown, indent=2))
            return EXIT_OK
    print(f"{board_text(spec, board)}  ({spec.name})")
    for s in found:
        goal = "a win" if s.goal.word == "win" else "at least a draw"
        first = f"first move {s.first_move}" if s.first_move else "the opponent moves first"
        print(f"{s.side}'s smallest strategy for {goal}: {s.nodes:,} nodes,"
              f" {s.positions:,} distinct positions, longest path {plies(s.depth)}; {first}")
    if args.dot:
        print(f"wrote the strategy as a Graphviz graph to {args.dot}")
    return EXIT_OK


def _cmd_genmove(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.genmove(args)
    from tablebase.query.play.levels import choose_move

    spec = parse_spec(args.spec)
    board = position_from_args(spec, args).board
    with open_db(args.db) as tb:
        probe = tb.probe(spec, board)
        chosen = choose_move(tb, spec, board, args.level, random.Random(args.seed))
    if args.json:
        print(json.dumps(genmove_json(spec, board, probe, args.level, chosen), indent=2))
    else:
        print(chosen.move)
    return EXIT_OK


def _cmd_gtp(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.gtp(args)
    from tablebase.query.play.gtp_engine import GtpSession, serve

    spec = parse_spec(args.spec)
    with open_db(args.db) as tb:
        tb.table(spec)  # a game that is not built fails here, as one line, before any command
        # A controller's stray bytes become '?' answers, not a UnicodeDecodeError.
        sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]

        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()
        serve(GtpSession(tb, spec, args.level, random.Random(args.seed)), sys.stdin, write)
    return EXIT_OK


def register(commands: Any) -> None:
    """Add strategy, genmove and gtp to the subcommands."""
    p = commands.add_parser(
        "strategy", help="the smallest strategy that guarantees a win or a draw",
        description="The smallest strategy (proof tree) for a side from a position: one move"
                    " at the side's turns, every reply at the opponent's, finished games at"
                    " the leaves. Its goal is a win when the side wins, at least a draw when"
                    " the position is a draw. Prints its size in nodes, its distinct"
                    " positions, its longest path and the side's first move.")
    position_args(p)
    p.add_argument("--root", metavar="POSITION",
                   help="start from this endgame table's root when no POSITION is given (the"
                        " table holding the position is found either way)")
    p.add_argument("--side", choices=("x", "o"), default=None,
                   help="whose strategy (default: the winner's; both sides' for a draw); for a"
                        " game class, x is the side to move at POSITION and o the other")
    p.add_argument("--dot", metavar="FILE",
                   help="write the strategy as a Graphviz graph, each position once (needs a"
                        " single side: give --side on a drawn position)")
    p.add_argument("--max-nodes", type=whole_number(0, "a whole number >= 0"),
                   default=DEFAULT_MAX_NODES, metavar="N",
                   help="--json includes the whole tree only up to N nodes (default: 100000)")
    p.add_argument("--max-explored", type=whole_number(1, "a positive whole number"),
                   default=EXPLORE_LIMIT, metavar="N",
                   help="where stones move or a game class's positions repeat, search at most N"
                        f" positions for the strategy (default: {EXPLORE_LIMIT:,})")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_strategy)

    p = commands.add_parser(
        "genmove", help="a move as a player of a level from 0 (random) to 10 (perfect)",
        description="Pick a move for the side to move as a player of --level would: 10 a best"
                    " move (fastest win, slowest loss) at random among equals, 0 a uniformly"
                    " random legal move, level L a best move with probability L/10 and a"
                    " random legal move otherwise.")
    position_args(p)
    level_option(p)
    p.add_argument("--seed", type=int, default=None, help="seed for the random choices")
    p.set_defaults(run=_cmd_genmove)

    p = commands.add_parser(
        "gtp", help="the table as a GTP engine on standard input and output",
        description="Answer GTP commands for SPEC from its table: protocol_version, name,"
                    " version, known_command, list_commands, boardsize, set_game,"
                    " clear_board, play, undo, genmove (at --level), solve, showboard, quit."
                    " Colours x/o with moves such as b2, or b/w with GTP coordinates. A game"
                    " class (PATH.py:Class) takes x (first) and o and its own move names, and"
                    " has no boardsize.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. 3x3k3 or PATH.py:Class")
    db_option(p)
    level_option(p)
    p.add_argument("--seed", type=int, default=None, help="seed for genmove's random choices")
    p.set_defaults(run=_cmd_gtp)

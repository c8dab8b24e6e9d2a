"""Asking the table: `probe`, `moves`, `line`, `play` and `export`. Play imports its module
when it runs: a `probe` process starts without it."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.games.grid.notation import board_text, draw_board
from tablebase.builder.games.registry import is_keyed_spec
from tablebase.query.answer_records import MoveInfo, Probe
from tablebase.query.cli.common import (
    EXIT_OK,
    db_option,
    open_db,
    position_args,
    position_from_args,
    progress,
    root_option,
)
from tablebase.query.cli.solve import search_options
from tablebase.query.cli.strategy import level_option
from tablebase.query.export import FORMATS, export_file, export_positions
from tablebase.query.search.fallback import (
    SearchedMove,
    line_or_search,
    moves_or_search,
    open_for_answers,
    probe_or_search,
)
from tablebase.query.shapes import answer_json, ends_in_a_repeat, line_json, moves_json
from tablebase.query.wording import outcome_text


def _cmd_probe(args: argparse.Namespace) -> int:
    if args.position == "-":
        from tablebase.query.cli.probe_lines import probe_lines
        return probe_lines(args, sys.stdin)
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.probe(args)
    spec = parse_spec(args.spec)
    position = position_from_args(spec, args)
    with open_for_answers(args.db, searching=args.search is not None) as tb:
        answer = probe_or_search(tb, spec, position, args.search)
    if args.json:
        print(json.dumps(answer_json(spec, position.board, answer), indent=2))
    else:
        print(answer)
    return EXIT_OK


def _value(m: MoveInfo | SearchedMove) -> str:
    """A move's value as the table shows it: the word, or what search proved of it."""
    if m.value is not None:
        return m.value.word
    if isinstance(m, SearchedMove) and Value.DRAW in (m.low, m.high) and m.low != m.high:
        return ">=draw" if m.low == Value.DRAW else "<=draw"
    return "?"


def _cmd_moves(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.moves(args)
    spec = parse_spec(args.spec)
    position = position_from_args(spec, args)
    board = position.board
    with open_for_answers(args.db, searching=args.search is not None) as tb:
        probe, moves, table = moves_or_search(tb, spec, position, args.search)
    if args.json:
        print(json.dumps(moves_json(spec, board, probe, moves, table), indent=2))
        return EXIT_OK
    print(draw_board(spec, board))
    print(probe)
    if not moves:  # the probe line has said who won
        return EXIT_OK
    width = max(4, *(len(m.move) for m in moves))
    print(f"  {'move':<{width}}  {'value':<5}  depth after")
    endless = [isinstance(m, MoveInfo) and m.depth is None for m in moves]
    for m, no_depth in zip(moves, endless):
        depth = "-" if no_depth else "?" if m.depth is None else m.depth
        print(f"{'*' if m.best else ' '} {m.move:<{width}}  {_value(m):<5}  {depth:>11}")
    bounded = any(m.value is None and _value(m) != "?" for m in moves)
    unproved = any((m.value is None or m.depth is None) and not no_depth
                   for m, no_depth in zip(moves, endless))
    print(f"values are for {probe.to_move}, who makes the move; depth after: plies to the end"
          " after it; * marks the best moves" + ("; ? not proved within the search's time"
                                                 if unproved else "")
          + ("; - a draw by endless play, which has no depth" if any(endless) else "")
          + ("; >=draw, <=draw: proved no worse, no better than a draw" if bounded else ""))
    return EXIT_OK


def _cmd_line(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.line(args)
    spec = parse_spec(args.spec)
    position = position_from_args(spec, args)
    board = position.board
    with open_for_answers(args.db, searching=args.search is not None) as tb:
        probe, steps = line_or_search(tb, spec, position, args.search)
    if args.json:
        print(json.dumps(line_json(spec, board, probe, steps), indent=2))
        return EXIT_OK
    print(f"{board_text(spec, board)}  {probe}")
    if not steps:
        return EXIT_OK
    value, depth = ((probe.value, probe.depth) if isinstance(probe, Probe)
                    else (probe.solution.value, probe.solution.depth))
    assert value is not None  # a line is given only where the value is known
    print(f"perfect line, {outcome_text(value, depth)} for {probe.to_move}:"
          f" {' '.join(s.move for s in steps)}")
    if ends_in_a_repeat(probe):  # a draw by endless play, followed until a repeat
        print("  (followed until a position repeats: perfect play can go on forever)")
    number = len(str(len(steps)))
    width = max(4, *(len(s.move) for s in steps))
    for i, s in enumerate(steps, 1):
        print(f"  {i:>{number}}. {s.player} {s.move:<{width}} {board_text(spec, s.board)}")
    print(draw_board(spec, steps[-1].board, highlight=steps[-1].cell))
    if steps[-1].depth:  # by search, stopped short (a table's line ends at 0, or repeats)
        print(f"the search's time ran out after {len(steps)} of the line's {depth} moves"
              " (--search S gives it more)")
    return EXIT_OK


def _cmd_play(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.play(args)
    import random

    from tablebase.query.play.terminal import play_game

    spec = parse_spec(args.spec)
    start = position_from_args(spec, args).board if args.position is not None or args.moves else None
    with open_db(args.db) as tb:
        # input and print are looked up now, not bound at import, so tests can replace them.
        play_game(tb, spec, args.side, read=input, write=print, rng=random.Random(args.seed),
                  level=args.level, start=start)
    return EXIT_OK


def _cmd_export(args: argparse.Namespace) -> int:
    if is_keyed_spec(args.spec):
        from tablebase.query.cli import games  # on use: its modules load then
        return games.export(args)
    spec = parse_spec(args.spec)
    root = args.root
    with open_db(args.db) as tb:
        stored = tb.table(spec, root)  # the table exists: nothing is written before an error
        if args.output is None:
            export_positions(tb, spec, sys.stdout, args.format, root=root,
                             with_moves=args.with_moves)
            return EXIT_OK
        with progress(args.quiet)(total=stored.count, unit="pos",
                                  desc=f"export {spec.name}") as bar:
            written = export_file(tb, spec, args.output, args.format, progress=bar.update,
                                  root=root, with_moves=args.with_moves)
    table = spec.name if root is None else f"the {spec.name} endgame table from {root}"
    print(f"exported {written:,} positions of {table} to {args.output} ({args.format})")
    return EXIT_OK


def register(commands: Any) -> None:
    """Add probe, moves, line, play and export to the subcommands."""
    p = commands.add_parser("probe", help="value and depth of a position",
                            description="The value (win/draw/loss for the side to move) and"
                                        " depth (plies to the end under perfect play) of a"
                                        " position; where no table holds it, by search."
                                        " POSITION - reads positions from standard input, one"
                                        " a line, and answers each on a line as it is read.")
    position_args(p)
    search_options(p)
    p.set_defaults(run=_cmd_probe)

    p = commands.add_parser("moves", help="every legal move with its value, best first",
                            description="Every legal move with its value for the player making"
                                        " it and the depth after it, best first; * marks the"
                                        " moves that keep the perfect value and depth; where no"
                                        " table holds the position, by search.")
    position_args(p)
    search_options(p)
    p.set_defaults(run=_cmd_moves)

    p = commands.add_parser("line", help="a perfect line to the end of the game",
                            description="A perfect line from the position to the end of the"
                                        " game, as moves and boards; its length is the depth;"
                                        " where no table holds the position, by search.")
    position_args(p)
    search_options(p)
    p.set_defaults(run=_cmd_line)

    p = commands.add_parser("play", help="play against the table in the terminal",
                            description="Play SPEC against perfect play (or a weaker --level)."
                                        " Type moves such as b2 (and steps such as a1-b2 where"
                                        " stones move); also hint, undo and quit. A position"
                                        " that comes up a third time is a draw.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. tictactoe")
    p.add_argument("position", metavar="POSITION", nargs="?",
                   help="start from this position (board text; default: the empty board), e.g."
                        " an endgame table's root")
    p.add_argument("--moves", metavar="MOVES", help="moves played from POSITION to start from")
    p.add_argument("--as", dest="side", choices=("x", "o"), default="x",
                   help="your side (x moves first; default: x)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the computer's choice among equally good moves")
    level_option(p)
    db_option(p)
    p.set_defaults(run=_cmd_play)

    p = commands.add_parser("export", help="write every stored position as CSV or JSON Lines",
                            description="Stream every stored (canonical) position of SPEC with"
                                        " the columns board, to_move, ply, value (for the side"
                                        " to move) and depth (empty or null for a draw by"
                                        " endless play), and with --with-moves the moves that"
                                        " reach it.")
    p.add_argument("spec", metavar="SPEC", help="the game, e.g. 4x3k3")
    root_option(p)
    p.add_argument("--format", choices=FORMATS, default="csv", help="csv (default) or jsonl")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (default: standard output)")
    p.add_argument("--with-moves", action="store_true",
                   help="add a moves column: moves from the empty board, x first, that reach the"
                        " position (column letters with gravity; FROM-TO steps where stones"
                        " move, whole-board tables only)")
    db_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_export)

"""What a database holds: `info`, every table of every game (the whole board and each endgame
table by its root), or one table in detail."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from tablebase.builder.games.grid import PLAYER_NAMES, Spec, parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.registry import grid_game, is_keyed_spec
from tablebase.db.facts import GAME_LAYOUTS
from tablebase.db.records import GameRecord
from tablebase.query.cli.common import EXIT_OK, count, db_option, open_db, root_facts, root_option, size
from tablebase.query.shapes import game_json
from tablebase.query.wording import outcome_text

if TYPE_CHECKING:
    from tablebase.query.tablebase import Tablebase


def _cmd_info(args: argparse.Namespace) -> int:
    with open_db(args.db) as tb:
        if args.spec is None:
            games = tb.catalogue()
            if args.json:
                print(json.dumps([game_json(g, tb.plies(g)) for g in games if g.complete],
                                 indent=2))
            else:
                _print_games(tb.name, games)
            return EXIT_OK
        if is_keyed_spec(args.spec):
            from tablebase.query.cli import games as classes  # on use: they load then
            return classes.info(tb, args)
        spec = parse_spec(args.spec)
        tables = tb.catalogue(spec)
        endgames_only = not any(g.root == "" for g in tables)
        if args.root is None and endgames_only and len(tables) > 1:  # list them
            if args.json:
                print(json.dumps([game_json(g, tb.plies(g)) for g in tables if g.complete],
                                 indent=2))
            else:
                _print_tables(spec, tables)
            return EXIT_OK
        root: str | tuple[int, ...] | None = args.root
        if root is None and len(tables) == 1 and tables[0].root:
            root = grid_game(spec).table_root(tables[0].root).position  # the one table there is
        game = tb.record(spec, root)
        if args.json:
            print(json.dumps(game_json(game, tb.plies(game)), indent=2))
        else:
            _print_game(tb, spec, game)
            others = [g for g in tables if g.root != game.root]
            if others:
                print()
                _print_tables(spec, others)
    return EXIT_OK


def _root_text(game: GameRecord) -> str:
    if not game.root:
        return "(whole board)" if game.layout not in GAME_LAYOUTS else "(its start)"
    if game.layout in GAME_LAYOUTS:  # a game class's: its root is a position's text
        return game.root
    spec = parse_spec(game.spec)
    return board_text(spec, grid_game(spec).table_root(game.root).position)


def _print_games(db: str, games: list[GameRecord]) -> None:
    if not games:
        print(f"{db} holds no games yet; try: tablebase build tictactoe")
        return
    print(f"{db} holds {count(len(games), 'table')}:")
    w = max(22, 1 + max(len(g.spec) for g in games))  # a long name keeps a space
    lw = max(8, 1 + max(len(g.layout) for g in games))  # and a long layout ("tiered-ids")
    print(f"  {'spec':<{w}}{'status':<11}{'canonical':>13}{'reachable':>15}  {'layout':<{lw}}"
          f"{'root value':<18}root")
    for g in games:
        root = _root_text(g)
        if g.complete:
            value = outcome_text(g.root_value or 0, g.root_plies)
            print(f"  {g.spec:<{w}}{g.status:<11}{g.canonical:>13,}{g.reachable:>15,}  "
                  f"{g.layout:<{lw}}{value:<17} {root}")  # a long value keeps a space
        else:
            print(f"  {g.spec:<{w}}{'unfinished':<11}{'-':>13}{'-':>15}  {'-':<{lw}}{'-':<18}{root}"
                  " (build did not finish; run the build again)")


def _print_tables(spec: Spec, tables: list[GameRecord]) -> None:
    print(f"{spec.name}: {count(len(tables), 'table')}"
          f"{'' if len(tables) == 1 else ' (pick one with --root POSITION)'}:")
    print(f"  {'stones':>6}{'canonical':>13}{'reachable':>15}  {'root value':<22}root")
    for g in tables:
        root = grid_game(spec).table_root(g.root)
        stones = root.ply
        if g.complete:
            mover = PLAYER_NAMES[root.to_move]
            value = f"{mover}: {outcome_text(g.root_value or 0, g.root_plies)}"
            print(f"  {stones:>6}{g.canonical:>13,}{g.reachable:>15,}  {value:<22}"
                  f"{_root_text(g)}")
        else:
            print(f"  {stones:>6}{'-':>13}{'-':>15}  {'unfinished':<22}{_root_text(g)}")


def _storage_text(game: GameRecord) -> str:
    """The table's layout and its size on disk."""
    if game.stored_bytes is None:
        return f"as {game.layout} (size not measured)"
    bits = game.bits_per_position
    per = "" if bits is None else f", {bits:.2f} bits a position"
    stored = game.stored_bytes
    shown = size(stored) if stored >= 1 << 20 else f"{stored / 1024:,.1f} KiB"
    return f"as {game.layout}: {shown}{per}"


def _print_game(tb: Tablebase, spec: Spec, game: GameRecord) -> None:
    root = grid_game(spec).table_root(game.root)
    print(f"{game.spec}: {spec.width} columns x {spec.height} rows, k={spec.k}"
          f" ({grid_game(spec).rules_text()})")
    if game.root:
        print(f"  endgame table from {board_text(spec, root.position)}: {root_facts(root)}")
    print(f"  positions: {game.reachable:,} reachable, {game.canonical:,} canonical,"
          f" {game.terminal:,} terminal")
    where = "empty board: x" if not game.root else f"root: {PLAYER_NAMES[root.to_move]}"
    print(f"  {where} to move, {outcome_text(game.root_value or 0, game.root_plies)}")
    print(f"  canonical by value for the side to move: {game.wins:,} win, {game.draws:,} draw,"
          f" {game.losses:,} loss")
    print(f"  built {game.built_at} by tablebase {game.tool_version} (schema {game.schema_version})"
          f" in {game.build_seconds or 0:.2f} s; checksum {game.checksum}")
    print(f"  stored {_storage_text(game)}")
    print(f"  {'ply':>4}{'reachable':>14}{'canonical':>12}{'terminal':>12}{'win':>11}{'draw':>11}"
          f"{'loss':>11}")
    for p in tb.plies(game):
        print(f"  {ply_label(spec, p.ply):>4}{p.reachable:>14,}{p.canonical:>12,}"
              f"{p.terminal:>12,}{p.wins:>11,}{p.draws:>11,}{p.losses:>11,}")


def ply_label(spec: Spec, ply: int) -> str:
    """A stored ply as `info` shows it: its stones, and where every stone is down and stones
    move, the side to move (`8x`, `8o`: the movement phase is stored as two plies)."""
    return grid_game(spec).ply_label(ply)


def register(commands: Any) -> None:
    """Add info to the subcommands."""
    p = commands.add_parser("info", help="list the tables in a database, or describe one",
                            description="Without SPEC: every table the database holds (whole"
                                        " boards and endgame tables). With SPEC: its whole-board"
                                        " table's counts per ply and value, and its endgame"
                                        " tables; --root picks an endgame table.")
    p.add_argument("spec", metavar="SPEC", nargs="?", help="the game to describe")
    root_option(p)
    db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_cmd_info)

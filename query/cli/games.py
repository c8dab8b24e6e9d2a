"""The commands on a game given as a Python class (`PATH.py:Class`, docs/games.md): build,
probe, moves and line, each one library call (builder/graph_build.py, query/game_answers.py),
printed as text or as query/game_shapes.py's JSON. The command families hand such a spec here."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from tablebase.builder.games.errors import IllegalMoveError
from tablebase.db.facts import TIERED_LAYOUTS
from tablebase.query.cli.common import (
    EXIT_MISMATCH,
    EXIT_OK,
    UsageError,
    open_db,
    progress,
    size,
)
from tablebase.query.wording import outcome_text

if TYPE_CHECKING:
    from tablebase.builder.games.protocol import Game
    from tablebase.db.records import PlyCounts
    from tablebase.query.tablebase import Tablebase


def _start(args: argparse.Namespace, game: Game) -> str | None:
    """The text of the position a command starts from: POSITION (or --from; none: the start),
    then the moves --moves names, played by their names (IllegalMoveError with the game's
    reason where one is not a move there)."""
    text = getattr(args, "position", None) or getattr(args, "root", None)
    said = getattr(args, "moves", None)
    if not said:
        return text
    position = game.start() if text is None else game.read(text)
    for name in said.split():
        pairs = game.moves(position)
        child = next((c for n, c in pairs if n == name), None)
        if child is None:
            reason = game.refusal(position, name, [n for n, _ in pairs])
            raise IllegalMoveError(f"{game.name}: {name!r:.40} at {game.text(position)!r:.80}:"
                                   f" {reason}")
        position = child
    return game.text(position)


def _positions(covered: int, stored: int) -> str:
    """A table's positions in words: where one is stored an orbit of the game's symmetries,
    the orbits' positions are counted, every image of each, which may hold positions play
    never reaches (a symmetry that does not keep the start, such as the colours swapped)."""
    if covered == stored:
        return f"{stored:,} reachable, all stored"
    return f"{stored:,} stored (one an orbit), {covered:,} in their orbits"


def build(args: argparse.Namespace) -> int:
    """`tablebase build PATH.py:Class [--from TEXT]`."""
    import sys

    from tablebase.builder.games.registry import keyed_game
    from tablebase.builder.graph_build import build_game
    from tablebase.db.errors import describe

    if args.scheduler is not None:
        raise UsageError("a game class is built on this machine: leave out --scheduler")
    game = keyed_game(args.spec)
    assert game is not None
    budget = None if args.memory is None else int(args.memory * (1 << 30))
    report = build_game(game, args.db, start=_start(args, game), force=args.force,
                        progress=progress(args.quiet), memory_budget=budget,
                        workers=args.workers, work_dir=args.work_dir,
                        announce=lambda said: print(f"estimate: {said}", file=sys.stderr,
                                                    flush=True))
    where = "" if not report.root else f" from {report.root!r}"
    print(f"built {report.name}{where} into {describe(args.db)}")
    if report.tiers:
        print(f"  positions: {report.reachable:,} in {report.tiers} tiers (one an orbit;"
              f" every arrangement of each tier's stones), {report.terminal:,} lost at once")
    else:
        print(f"  positions: {_positions(report.reachable, report.canonical)},"
              f" {report.terminal:,} terminal")
    print(f"  start: side to move, {outcome_text(report.root_value, report.root_depth)}")
    if report.resumed_tiers:
        print(f"  resumed: {report.resumed_tiers} of the {report.tiers} tiers were finished by"
              " earlier commands (their seconds counted in solve, its peak memory this one's)")
    print(f"  memory budget {size(report.memory_budget)}")
    print(f"  {'stage':<10}{'seconds':>9}{'peak memory':>14}")
    for name, figures in report.stages.items():
        print(f"  {name:<10}{figures.seconds:>9.2f}{size(figures.peak_bytes):>14}")
    print(f"  {'total':<10}{report.seconds:>9.2f}")
    return EXIT_OK


def info(tb: Tablebase, args: argparse.Namespace) -> int:
    """`tablebase info PATH.py:Class`: its tables and their counts by ply."""
    from tablebase.query.shapes import game_json

    answers = tb.game(args.spec)
    name, tables = answers.game.name, answers.tables()
    if args.json:
        print(json.dumps([game_json(g, tb.plies(g), answers.tier_counts(g)) for g in tables],
                         indent=2))
        return EXIT_OK
    for g in tables:
        where = "its start" if not g.root else repr(g.root)
        if g.layout in TIERED_LAYOUTS:
            print(f"{name}, from {where}: {g.reachable or 0:,} positions in ranked tiers (one an"
                  f" orbit; every arrangement of each tier's stones), {g.terminal:,} lost at once")
        else:
            print(f"{name}, from {where}: {_positions(g.reachable or 0, g.canonical or 0)},"
                  f" {g.terminal:,} terminal")
        print(f"  start: side to move, {outcome_text(g.root_value or 0, g.root_plies)}")
        stored = "by tier and index" if g.layout in TIERED_LAYOUTS else "by their text"
        print(f"  stored {stored}: {g.wins:,} win, {g.draws:,} draw, {g.losses:,} loss;"
              f" checksum {g.checksum}")
        counts = answers.tier_counts(g)
        if counts is not None:
            _tier_table(counts)
            continue
        print(f"  {'ply':>4}{'reachable' if g.reachable == g.canonical else 'in orbits':>14}"
              f"{'stored':>12}{'terminal':>12}{'win':>11}"
              f"{'draw':>11}{'loss':>11}")
        for p in tb.plies(g):
            print(f"  {p.ply:>4}{p.reachable:>14,}{p.canonical:>12,}{p.terminal:>12,}"
                  f"{p.wins:>11,}{p.draws:>11,}{p.losses:>11,}")
    return EXIT_OK


def _tier_table(tiers: list[tuple[str, PlyCounts]]) -> None:
    """A tiered table's counts, a line a tier (the stones each side has on the board, and
    after a + those each has still to place; the side to move's first)."""
    if not tiers:
        print("  (no counts by tier: the table was built before they were kept)")
        return
    print("  by tier (the stones each side has on the board, the side to move's first; after the"
          " +, those still to place):")
    print(f"  {'tier':<9}{'positions':>15}{'lost at once':>13}{'win':>15}{'draw':>15}"
          f"{'loss':>15}")
    for name, p in tiers:
        print(f"  {name:<9}{p.canonical:>15,}{p.terminal:>13,}{p.wins:>15,}{p.draws:>15,}"
              f"{p.losses:>15,}")


def verify(args: argparse.Namespace) -> int:
    """`tablebase verify PATH.py:Class [--root TEXT]`: exit 1 where the table is wrong."""
    import time

    from tablebase.query.verify.game_tables import verify_game

    begun = time.perf_counter()
    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        if args.sample is not None and args.sample < 1:
            raise UsageError(f"--sample {args.sample}: give at least 1 position a tier")
        try:
            report = verify_game(answers, args.root, args.max_problems,
                                 progress(args.quiet or args.json), sample=args.sample)
        except ValueError as e:  # a sample of a table verified whole
            if args.sample is None:
                raise
            raise UsageError(str(e)) from e
        db_name = tb.name
    seconds = time.perf_counter() - begun
    if args.json:
        print(json.dumps({"spec": report.name, "positions": report.positions, "ok": report.ok,
                          "problems": report.problems, "seconds": round(seconds, 3)}, indent=2))
    elif report.ok:
        print(f"{report.name} in {db_name}: all {report.positions:,}{report.which} positions"
              f" verified in {seconds:.1f} s")
        print(f"  every value and depth re-derived from its moves; {report.checked}")
    else:
        print(f"{report.name} in {db_name}: {len(report.problems)} problems in"
              f" {report.positions:,} positions")
        for line in report.problems:
            print(f"  {line}")
    return EXIT_OK if report.ok else EXIT_MISMATCH


def play(args: argparse.Namespace) -> int:
    """`tablebase play PATH.py:Class [TEXT] [--as x|o]`: x moves first."""
    import random

    from tablebase.query.play.game_classes import play_class_game

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        play_class_game(answers, args.side == "x", read=input, write=print,
                        rng=random.Random(args.seed), start=_start(args, answers.game))
    return EXIT_OK


def audit(args: argparse.Namespace) -> int:
    """`tablebase audit PATH.py:Class --solver MODULE:FUNCTION`: exit 1 where it disagrees."""
    import os
    import sys

    from tablebase.query.audit.game_classes import audit_class_game
    from tablebase.query.audit.processes import split_target
    from tablebase.query.audit.worker import load_function

    if args.solver is None or args.engine is not None or args.builtin is not None \
            or args.play is not None or args.root is not None:
        raise UsageError("a game class is audited with --solver MODULE:FUNCTION alone")
    module, name = split_target(args.solver)
    sys.path.insert(0, os.getcwd())
    try:
        function = load_function(module, name, os.getcwd())
    finally:
        sys.path.remove(os.getcwd())
    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        report = audit_class_game(answers, function, max_examples=args.max_examples,
                                  progress=progress(args.quiet or args.json))
    if args.json:
        print(json.dumps({"spec": report.name, "solver": args.solver, "positions":
                          report.positions, "agreed": report.agreed, "by_kind": report.by_kind,
                          "examples": [vars(m) for m in report.examples]}, indent=2))
        return EXIT_OK if report.ok else EXIT_MISMATCH
    print(f"audit of {args.solver} on {report.name}: {report.positions:,} positions (every"
          " stored position where play goes on)")
    print(f"  agreed: {report.agreed:,} of {report.positions:,}")
    for kind, n in sorted(report.by_kind.items()):
        print(f"  {kind:<14} {n:>9,}")
    for m in report.examples:
        print(f"  {m.position}{f' (ply {m.ply})' if m.ply >= 0 else ''}: {m.problem}; perfect line:"
              f" {' '.join(m.line) or '(none)'}")
    return EXIT_OK if report.ok else EXIT_MISMATCH


def export(args: argparse.Namespace) -> int:
    """`tablebase export PATH.py:Class [--root TEXT] [--format csv|jsonl] [-o FILE]`."""
    import sys

    from tablebase.query.export import write_whole
    from tablebase.query.game_answers import export_game

    if args.with_moves:
        raise UsageError("--with-moves: a game class's export has no moves column")
    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        if args.output is None:
            export_game(answers, sys.stdout, args.format, args.root)
            return EXIT_OK
        count = answers.tables()[0].canonical or 0
        with progress(args.quiet)(total=count, unit="pos", desc=f"export {answers.game.name}") as bar:
            written = write_whole(args.output, lambda out: export_game(
                answers, out, args.format, args.root, bar.update))
    print(f"exported {written:,} positions of {answers.game.name} to {args.output}"
          f" ({args.format})")
    return EXIT_OK


def probe(args: argparse.Namespace) -> int:
    """`tablebase probe PATH.py:Class [TEXT]`."""
    from tablebase.query.game_shapes import game_probe_json

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        found = answers.probe(_start(args, answers.game))
        name = answers.game.name
    print(json.dumps(game_probe_json(name, found), indent=2) if args.json
          else f"{found.position}  {found}")
    return EXIT_OK


def moves(args: argparse.Namespace) -> int:
    """`tablebase moves PATH.py:Class [TEXT]`."""
    from tablebase.query.game_shapes import game_moves_json

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        found, every = answers.moves(_start(args, answers.game))
        name = answers.game.name
    if args.json:
        print(json.dumps(game_moves_json(name, found, every), indent=2))
        return EXIT_OK
    print(f"{found.position}  {found}")
    if not every:
        return EXIT_OK
    width = max(4, *(len(m.move) for m in every))
    print(f"  {'move':<{width}}  {'value':<5}  depth after  position after")
    for m in every:
        depth = "-" if m.depth is None else m.depth
        print(f"{'*' if m.best else ' '} {m.move:<{width}}  {m.value.word:<5}  {depth:>11}"
              f"  {m.position}")
    endless = any(m.depth is None for m in every)
    print("values are for the side to move, who makes the move; * marks the best moves"
          + ("; - a draw by endless play, which has no depth" if endless else ""))
    return EXIT_OK


def line(args: argparse.Namespace) -> int:
    """`tablebase line PATH.py:Class [TEXT]`."""
    from tablebase.query.game_shapes import game_line_json

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        found, steps, repeats = answers.line(_start(args, answers.game))
        name = answers.game.name
    if args.json:
        print(json.dumps(game_line_json(name, found, steps, repeats), indent=2))
        return EXIT_OK
    print(f"{found.position}  {found}")
    if not steps:
        return EXIT_OK
    print(f"perfect line, {outcome_text(found.value, found.depth)}:"
          f" {' '.join(s.move for s in steps)}")
    if repeats:
        print("  (followed until a position repeats: perfect play can go on forever)")
    number = len(str(len(steps)))
    width = max(4, *(len(s.move) for s in steps))
    for i, s in enumerate(steps, 1):
        print(f"  {i:>{number}}. {s.move:<{width}} {s.position}")
    return EXIT_OK


def strategy(args: argparse.Namespace) -> int:
    """`tablebase strategy PATH.py:Class [TEXT] [--side x|o]`: x is the side to move at TEXT."""
    from tablebase.query.play.game_strategy import find_game_strategy, game_strategy_json
    from tablebase.query.wording import plies

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        with progress(args.quiet or args.json)(unit="pos", desc=f"strategy {answers.game.name}"
                                               ) as bar:
            found = find_game_strategy(answers, _start(args, answers.game), args.side,
                                       progress=bar.update,
                                       limit=args.max_explored)
        name = answers.game.name
    if args.dot:
        if len(found) > 1:
            raise UsageError("--dot writes one strategy and the position is a draw, with one"
                             " for each side: choose one with --side x or --side o")
        with open(args.dot, "w", encoding="utf-8") as out:
            out.write(found[0].dot())
    if args.json:
        shown = [game_strategy_json(s, args.max_nodes) for s in found]
        print(json.dumps(shown[0] if len(shown) == 1 else shown, indent=2))
        return EXIT_OK
    print(f"{answers.game.text(found[0].position)}  ({name}; x is the side to move, o the"
          " other)")
    for s in found:
        who = f"{s.side}, {'the side to move' if s.side == 'x' else 'the other side'}"
        goal = "a win" if s.goal.word == "win" else "at least a draw"
        first = f"first move {s.first_move}" if s.first_move else "the opponent moves first"
        if s.nodes is None:
            print(f"{who}: a strategy for {goal}, a graph of {s.positions:,} positions with"
                  f" cycles (play can go on forever: no finite tree proves the draw); {first}")
        else:
            print(f"{who}: smallest strategy for {goal}, {s.nodes:,} nodes, {s.positions:,}"
                  f" distinct positions, longest path {plies(s.depth or 0)}; {first}")
    if args.dot:
        print(f"wrote the strategy as a Graphviz graph to {args.dot}")
    return EXIT_OK


def genmove(args: argparse.Namespace) -> int:
    """`tablebase genmove PATH.py:Class [TEXT] --level L`: a move for the side to move."""
    import random

    from tablebase.query.play.game_classes import choose_game_move

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        position = answers.position(_start(args, answers.game))
        move, _ = choose_game_move(answers, position, args.level, random.Random(args.seed))
        name, text = answers.game.name, answers.game.text(position)
    if args.json:
        print(json.dumps({"spec": name, "position": text, "level": args.level,
                          "move": move.move, "value": move.value.word, "depth": move.depth,
                          "best": move.best, "after": move.position}, indent=2))
    else:
        print(move.move)
    return EXIT_OK


def gtp(args: argparse.Namespace) -> int:
    """`tablebase gtp PATH.py:Class [--level L] [--seed N]`: GTP on stdin and stdout."""
    import random
    import sys

    from tablebase.query.play.game_gtp import GameGtpSession
    from tablebase.query.play.gtp_engine import serve

    with open_db(args.db) as tb:
        answers = tb.game(args.spec)
        answers.tables()  # a class that is not built fails here, as one line, before any command
        # A controller's stray bytes become '?' answers, not a UnicodeDecodeError.
        sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]

        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()
        serve(GameGtpSession(answers, args.level, random.Random(args.seed)), sys.stdin, write)
    return EXIT_OK

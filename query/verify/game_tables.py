"""Verify a game class's table (docs/games.md) from scratch: every stored position read back
into the class's own position, its value and depth re-derived from its moves' stored answers
by the definitions (not by the builder's child counters), every move's position stored, every
stored position reached from the table's start, and the build-time checksum recomputed.

Local consistency is enough here: a stored win or loss needs a move to a loss (every move to a
win) stored one ply shallower, so every claim rests on a chain that ends where the game is
over; and a drawn depth needs a drawn move one ply shallower, down to a finished draw.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable

from tablebase.builder.games.protocol import Game
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.keyed import raw_block
from tablebase.db.tiered import TieredReader
from tablebase.query.game_answers import GameAnswers
from tablebase.query.verify.verdicts import GameVerifyReport, derive, words


def verify_game(answers: GameAnswers, root: str | None = None, limit: int = 10,
                progress: ProgressFactory = NO_PROGRESS, sample: int | None = None
                ) -> GameVerifyReport:
    """Check the table of `answers`' game from its start (or from the position `root` names);
    at most `limit` problems are described. `sample`: in a table of ranked tiers, re-derive
    that many positions of each tier, drawn at random (ValueError for another table)."""
    game = answers.game
    record, reader = answers.table_from(root)
    if isinstance(reader, TieredReader):
        from tablebase.query.verify.tiered_tables import verify_tiered
        return verify_tiered(answers, record, reader, limit, progress, sample)
    if sample is not None:
        raise ValueError(f"{record.label} is stored by its positions' text and verified whole:"
                         " a sample is for a table of ranked tiers")
    report = GameVerifyReport(game.name)
    stored: dict[str, tuple[int, int | None, int]] = {}
    digest = hashlib.blake2b(digest_size=8)
    for block in reader.chunks():
        digest.update(raw_block(block))
        for key, ply, value, depth in zip(block.keys, block.ply.tolist(), block.value.tolist(),
                                          block.depth.tolist()):
            stored[key] = (value, None if depth < 0 else depth, ply)
    report.positions = len(stored)

    def problem(text: str) -> None:
        if len(report.problems) < limit:
            report.problems.append(text)
        else:
            report.problems.append("")

    if digest.hexdigest() != record.checksum:
        problem(f"the checksum is {digest.hexdigest()}, the build recorded {record.checksum}")
    key_of = _keys_of_images(game, stored, problem)
    start = game.start() if root is None else game.read(root)
    reached = {key_of(start)}
    todo: list[Hashable] = [start]
    with progress(desc=f"verify {game.name}", total=len(stored), unit="pos",
                  unit_scale=True) as bar:
        while todo:
            position = todo.pop()
            key = key_of(position)
            if key not in stored:
                problem(f"{game.text(position)!r}: reached from the start but not stored")
                continue
            outcome = game.outcome(position)
            moves = [] if outcome is not None else game.moves(position)
            answers_of_moves = []
            for _name, child in moves:
                child_key = key_of(child)
                found = stored.get(child_key)
                if found is None:
                    problem(f"{game.text(child)!r}, a move's position from"
                            f" {game.text(position)!r}, is not stored")
                    continue
                answers_of_moves.append(found[:2])
                if child_key not in reached:
                    reached.add(child_key)
                    todo.append(child)
            if len(answers_of_moves) == len(moves):
                value, depth = derive(answers_of_moves, outcome)
                if (value, depth) != stored[key][:2]:
                    problem(f"{game.text(position)!r}: stored {words(*stored[key][:2])}, its"
                            f" moves say {words(value, depth)}")
            bar.update(1)
    unreached = len(stored) - len(reached & stored.keys())
    if unreached:
        some = next(k for k in stored if k not in reached)
        problem(f"{unreached:,} stored positions are not reached from the start, e.g."
                f" {game.text(game.position_of(some))!r}")
    report.problems = [p for p in report.problems if p] + (
        [f"... and {sum(1 for p in report.problems if not p):,} more"]
        if "" in report.problems else [])
    return report


def _keys_of_images(game: Game, stored: dict[str, tuple[int, int | None, int]],
                    problem: Callable[[str], None]) -> Callable[[Hashable], str]:
    """`game.key`, with every image of every stored position keyed up front where the game has
    symmetries (one orbit a stored position rather than one a move: a move's position is an
    image of a stored one, found by a lookup); a stored key that is not its orbit's smallest
    is a problem."""
    if not game.has_symmetries:
        return game.key
    images: dict[Hashable, str] = {}
    for key in stored:
        orbit = game.orbit(game.position_of(key))
        if game.key_of(orbit) != key:
            problem(f"{key!r:.80} is stored, but its orbit's key is {game.key_of(orbit)!r:.80}")
        images.update(dict.fromkeys(orbit, key))

    def key_of(position: Hashable) -> str:
        found = images.get(position)
        return game.key(position) if found is None else found
    return key_of

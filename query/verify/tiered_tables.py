"""Verify a table of ranked tiers (db/tiered.py) from scratch: every block read and checked, the
build-time checksum recomputed, and every stored position (copies aside) turned back into the
game's own position, its value and depth re-derived from its moves' stored answers by the
definitions (game_tables.py's `derive`), not by the builder's kernels: the moves are the
game's own `moves`, its children found where the game's `locate` puts them.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

import numpy as np

from tablebase.builder.games.ranked_tiers import HOLE, RANKED_WIN, RankedGame, score_outcome
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.records import GameRecord, PlyCounts
from tablebase.db.tiered import TieredReader
from tablebase.query.game_answers import GameAnswers, tiers_of
from tablebase.query.verify.verdicts import GameVerifyReport, derive, words


def verify_tiered(answers: GameAnswers, record: GameRecord, reader: TieredReader,
                  limit: int = 10, progress: ProgressFactory = NO_PROGRESS,
                  sample: int | None = None) -> GameVerifyReport:
    """Check the tiered table `record` of `answers`' game; at most `limit` problems are
    described. `sample`: re-derive that many positions of each tier, drawn at random (seed
    0), rather than all; every block is still read and checked."""
    game = answers.game
    tiers = tiers_of(game)
    report = GameVerifyReport(game.name, checked="every block's check; every move's position"
                              " stored; checksum matches",
                              which="" if sample is None else " sampled")
    chosen = None if sample is None else _drawn(tiers, sample)
    more = 0

    def problem(text: str) -> None:
        nonlocal more
        if len(report.problems) < limit:
            report.problems.append(text)
        else:
            more += 1
    digest = hashlib.blake2b(digest_size=8)
    indices = 0
    # Each tier's loss, draw, win, copy and lost-at-once count, as its blocks hold them.
    held: dict[str, np.ndarray] = {}
    with progress(desc=f"verify {game.name}", total=int(record.canonical or 0), unit="pos",
                  unit_scale=True) as bar:
        for tier, first, block in reader.tier_blocks():
            digest.update(block.raw)  # checked against its CRC as it was read
            n = len(block)
            held.setdefault(tier, np.zeros(5, np.int64))[:] += block.tally(-RANKED_WIN)
            if chosen is None:
                picks: list[int] = list(range(n))
            else:
                drawn = chosen.get(tier, _NONE)
                picks = (drawn[(drawn >= first) & (drawn < first + n)] - first).tolist()
            for offset in picks:
                score = block.at(offset)  # in range: the block's header was checked as read
                position = None if score == HOLE else tiers.position(tier, first + offset)
                if position is not None:  # a copy, or no position of the game
                    report.positions += 1
                    _check(answers, position, score, problem)
            bar.update(n)
            indices += n
    _check_counts(answers.tier_counts(record) or [], held, problem)
    if indices != record.canonical:
        problem(f"{indices:,} indices are stored, the build recorded {record.canonical:,}")
    if digest.hexdigest() != record.checksum:
        problem(f"the checksum is {digest.hexdigest()}, the build recorded {record.checksum}")
    if more:
        report.problems.append(f"... and {more:,} more")
    return report


_NONE = np.zeros(0, np.int64)


def _check_counts(counts: list[tuple[str, PlyCounts]], held: dict[str, np.ndarray],
                  problem: Callable[[str], None]) -> None:
    """Whether the table's counts by tier (none: a table built before they were kept) are
    what its blocks hold."""
    for name, p in counts:
        losses, draws, wins, _, lost = held.pop(name, np.zeros(5, np.int64)).tolist()
        if (p.canonical, p.wins, p.draws, p.losses, p.terminal) != (
                wins + draws + losses, wins, draws, losses, lost):
            problem(f"tier {name}: its blocks hold {wins:,} win, {draws:,} draw, {losses:,}"
                    f" loss, {lost:,} lost at once; the table's counts say {p.wins:,},"
                    f" {p.draws:,}, {p.losses:,}, {p.terminal:,}")
    if counts and held:
        problem(f"blocks of tiers the game does not have: {', '.join(sorted(held))}")


def _drawn(tiers: RankedGame, sample: int) -> dict[str, np.ndarray]:
    """`sample` indices of each tier, drawn at random (seed 0), sorted: all of a smaller
    tier."""
    rng = random.Random(0)
    return {t.name: np.array(sorted(rng.sample(range(t.size), min(sample, t.size))), np.int64)
            for t in tiers.ranked_tiers()}


def _check(answers: GameAnswers, position: object, score: int,
           problem: Callable[[str], None]) -> None:
    """Whether the stored score of `position` is what its moves' stored answers say."""
    game = answers.game
    stored = score_outcome(score)
    outcome = game.outcome(position)
    moves = [] if outcome is not None else game.moves(position)
    hits = answers.lookup_positions([child for _, child in moves])
    found = []
    for (_, child), hit in zip(moves, hits):
        if hit is None:
            problem(f"{game.text(child)!r}, a move's position from {game.text(position)!r},"
                    " is not stored")
            return
        found.append((hit[0], None if hit[1] < 0 else hit[1]))
    derived = derive(found, outcome)
    if derived != stored:
        problem(f"{game.text(position)!r}: stored {words(*stored)}, its moves say"
                f" {words(*derived)}")

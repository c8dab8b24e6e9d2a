"""Retrograde analysis: values and depths of every canonical position, deepest tier first.

Every move goes to the next tier, so solving tier p needs only tier p+1. A
position's score is the best `backup` of its children's scores (see values.py
for the one place the order of outcomes is fixed).
"""
from __future__ import annotations

import numpy as np

from builder.codetable import CodeTable
from builder.enumerator import Tier, children
from builder.game.spec import Spec
from builder.game.values import backup
from builder.progress import NO_PROGRESS, ProgressFactory

_UNSET = np.iinfo(np.int8).min  # below every real score (-64)


def solve_tier(spec: Spec, tier: Tier, table: CodeTable) -> np.ndarray:
    """Scores of one tier for the side to move, with the next tier already loaded in `table`."""
    scores = tier.terminal_scores.copy()
    open_rows = np.flatnonzero(~tier.terminal)
    if open_rows.size == 0:
        return scores
    best = np.full(open_rows.size, _UNSET, dtype=np.int8)
    for rows, kids in children(spec, tier.codes[open_rows], tier.ply):
        best[rows] = np.maximum(best[rows], backup(table.lookup(kids)))
    if (best == _UNSET).any():
        raise RuntimeError(f"a non-terminal position at ply {tier.ply} of {spec.name} has no move")
    scores[open_rows] = best
    return scores


def solve(spec: Spec, tiers: list[Tier], table: CodeTable,
          progress: ProgressFactory = NO_PROGRESS) -> list[np.ndarray]:
    """Scores (see values.py) of every tier, indexed by ply, for the side to move."""
    scores: list[np.ndarray] = [np.empty(0, dtype=np.int8)] * len(tiers)
    with progress(desc=f"solve {spec.name}", total=len(tiers), unit="tier") as bar:
        for tier in reversed(tiers):
            if tier.ply + 1 < len(tiers):
                table.load(tiers[tier.ply + 1].codes, scores[tier.ply + 1])
            scores[tier.ply] = solve_tier(spec, tier, table)
            bar.update(1)
            bar.set_postfix(ply=tier.ply)
    table.clear()
    return scores

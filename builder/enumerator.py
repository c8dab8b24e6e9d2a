"""Enumerate every position reachable from the empty board, as sorted canonical codes, tier by tier.

A tier is the set of positions with the same number of stones (ply). Terminal
positions are kept but not expanded. Children are generated on whole tiers with
numpy: a child's symmetric images are its parent's images plus one stone.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from builder.codetable import CodeTable
from builder.game.codec import digits
from builder.game.rules import legal_mask_many, mover_at, terminal_scores_many
from builder.game.spec import Spec
from builder.game.symmetry import image_weights, images_of_digits, orbit_sizes
from builder.progress import NO_PROGRESS, ProgressFactory


@dataclass
class Tier:
    """All canonical positions with `ply` stones."""

    ply: int
    codes: np.ndarray          # sorted canonical codes, int64
    terminal: np.ndarray       # bool, per code
    terminal_scores: np.ndarray  # int8 score of terminal positions (0 elsewhere)
    orbits: np.ndarray         # how many reachable positions each canonical one stands for

    @property
    def reachable(self) -> int:
        """Positions in this tier counted with all their symmetric images."""
        return int(self.orbits.sum())

    @property
    def terminal_reachable(self) -> int:
        """Terminal positions in this tier counted with all their symmetric images."""
        return int(self.orbits[self.terminal].sum())


def children(spec: Spec, codes: np.ndarray, ply: int,
             chunk_rows: int = 1 << 18) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """For non-terminal parents `codes` at `ply`: pairs (parent row indices, canonical child codes)."""
    weights = image_weights(spec)
    stone = mover_at(ply)
    for start in range(0, len(codes), chunk_rows):
        boards = digits(codes[start : start + chunk_rows], spec.cells)
        # (S, N) layout so that the minimum over the orbit reduces whole rows.
        imgs = np.ascontiguousarray(images_of_digits(spec, boards).T)
        legal = legal_mask_many(spec, boards)
        for cell in range(spec.cells):
            rows = np.flatnonzero(legal[:, cell])
            if rows.size:
                kids = (imgs[:, rows] + (stone * weights[cell])[:, None]).min(axis=0)
                yield rows + start, kids


def make_tier(spec: Spec, ply: int, codes: np.ndarray) -> Tier:
    """A tier from its sorted canonical codes: terminal flags, terminal scores, orbit sizes."""
    boards = digits(codes, spec.cells)
    terminal, scores = terminal_scores_many(spec, boards, ply)
    orbits = orbit_sizes(images_of_digits(spec, boards))
    return Tier(ply, codes, terminal, scores, orbits)


def enumerate_tiers(spec: Spec, table: CodeTable,
                    progress: ProgressFactory = NO_PROGRESS,
                    on_tier: Callable[[Tier], None] | None = None) -> list[Tier]:
    """Every reachable canonical position, one Tier per ply from the empty board up."""
    tiers = [make_tier(spec, 0, np.zeros(1, dtype=np.int64))]
    with progress(desc=f"enumerate {spec.name}", total=spec.cells, unit="tier") as bar:
        for ply in range(spec.cells):
            tier = tiers[-1]
            parents = tier.codes[~tier.terminal]
            if parents.size == 0:
                break
            found = table.unique([kids for _, kids in children(spec, parents, ply)])
            tiers.append(make_tier(spec, ply + 1, found))
            if on_tier is not None:
                on_tier(tiers[-1])
            bar.update(1)
            bar.set_postfix(ply=ply + 1, positions=len(found))
    return tiers

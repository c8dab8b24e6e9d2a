"""Where a cluster cuts each tier into code ranges, one per worker: from a sample of the tier
before it (its distinct positions, as its owners report them), expanded by the client, at
quantiles of the sampled children weighted so that each range holds about as many distinct
positions."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablebase.builder.enumerator import children, classify
from tablebase.builder.games.tier_kernels import OPEN, TableRoot

# A tier expected to hold fewer positions than this is one range: a task costs milliseconds.
_SMALL_TIER = 1 << 15


def next_cuts(root: TableRoot, ply: int, samples: Sequence[np.ndarray], sizes: Sequence[int],
              owners: int) -> list[int]:
    """Where to cut tier ply+1 into `owners` code ranges (the inner cuts, ascending; none: one
    range), from samples of tier `ply` (one per range, spread evenly over its `sizes` codes):
    the sampled parents are expanded here and the tier is cut at quantiles of their children."""
    if owners <= 1 or ply >= root.cells or sum(sizes) == 0:
        return []
    found, weights = [np.empty(0, np.int64)], [np.empty(0)]
    for sample, size in zip(samples, sizes):
        sample = np.asarray(sample, dtype=np.int64)
        if not size or not len(sample):
            continue
        term, _ = classify(root, ply, sample)
        kids = np.concatenate([np.empty(0, np.int64), *children(root, sample[term == OPEN], ply)])
        found.append(kids)
        weights.append(np.full(len(kids), size / len(sample)))  # each stands for its range's share
    kids, weight = np.concatenate(found), np.concatenate(weights)
    # The children stand for the tier's, duplicates and all: an upper bound of its size.
    if weight.sum() < _SMALL_TIER:
        return []
    order = np.argsort(kids, kind="stable")
    kids = kids[order]
    # A child reached from k parents is sampled about k times as often as it is stored once:
    # weigh each by 1/k (k: the moves that could have led to it), so that the
    # ranges hold equal numbers of distinct positions, not of children.
    weight = np.cumsum(weight[order] / np.maximum(1, root.last_moves(ply, kids)))
    at = np.searchsorted(weight, weight[-1] * np.arange(1, owners) / owners)
    return sorted({int(c) for c in kids[np.minimum(at, len(kids) - 1)]})

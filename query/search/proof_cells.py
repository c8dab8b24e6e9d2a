"""Cell masks for the proof writer (proof_writer.py): the board's symmetry maps as byte tables
that move a zone, and the pairs a pairing's choice splits into."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


def matching(cells: list[int], need: list[int]) -> list[tuple[int, int]]:
    """Pairs of `cells` (all of them) such that every line mask of `need` holds a pair."""
    first = cells[0]
    for other in cells[1:]:
        pair = (1 << first) | (1 << other)
        rest = [c for c in cells if c not in (first, other)]
        left = [m for m in need if m & pair != pair]
        if not rest:
            if not left:
                return [(first, other)]
            continue
        try:
            return [(first, other)] + matching(rest, left)
        except ValueError:
            continue
    raise ValueError("no matching")


class Maps:
    """The board's symmetry maps, each as a list and as byte tables that move a cell mask by
    the map (or back) in a look-up a byte: a cell at a time cost the writer most of its time.
    query/proof_tables.py has tables like these for the checker, kept apart on purpose: the
    checker shares nothing with what writes the proofs it checks but the rules kernel."""

    def __init__(self, perms: np.ndarray) -> None:
        self.lists: list[list[int]] = perms.tolist()
        self.forward = [self._mover(p) for p in self.lists]
        self.back = [self._mover(np.argsort(p).tolist()) for p in self.lists]

    @staticmethod
    def _mover(perm: list[int]) -> Callable[[int], int]:
        """A function moving a cell mask by `perm` (cell c to perm[c])."""
        n = len(perm)
        rows = []
        for start in range(0, n, 8):
            single = [1 << perm[c] if c < n else 0 for c in range(start, start + 8)]
            row = [0] * 256
            for v in range(1, 256):  # v less its lowest bit, then that bit's cell
                row[v] = row[v & (v - 1)] | single[(v & -v).bit_length() - 1]
            rows.append(row)
        shifts = list(zip(range(0, n, 8), rows))

        def move(zone: int) -> int:
            out = 0
            for shift, row in shifts:
                out |= row[zone >> shift & 255]
            return out
        return move

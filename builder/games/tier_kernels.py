"""What the builder's loop asks of a tier whose positions can come back (a cyclic tier, such as
the movement phase of a game whose stones move): its compiled kernels, bound once to the
table's root, each run over a block of canonical codes on one core (builder/cyclic.py splits
the blocks over both and solves the tier with them). A family that has such tiers gives these
kernels from its folder; the builder never asks which family it holds.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

# In an ends array: a position whose game goes on (every other value is its end's value).
OPEN = np.iinfo(np.int8).min


class CyclicKernels(Protocol):
    """The compiled rules of one cyclic tier. Codes are the table's canonical codes; every
    array is a numpy array the kernel fills in place."""

    room: int  # at most this many children, or parents, of one position

    def ends(self, codes: np.ndarray, out: np.ndarray) -> None:
        """out[i] (int8): where the game is over at codes[i], its value for the side to move
        (1 won, -1 lost, 0 drawn); else OPEN. A position without a move is over (the rules
        say how: where stones move, the side that cannot step has lost)."""
        ...

    def children(self, codes: np.ndarray, out: np.ndarray) -> int:
        """Every move's canonical child of each code, in order, into out (room a code);
        return how many."""
        ...

    def counts(self, codes: np.ndarray, ends: np.ndarray, out: np.ndarray) -> None:
        """out[i] (int32): how many distinct children codes[i] has; 0 where ends[i] is not
        OPEN (the game is over there: `ends` says only that, whatever its other values)."""
        ...

    def parents(self, codes: np.ndarray, out: np.ndarray) -> int:
        """For each codes[i], its distinct canonical parents in the tier's rules (positions
        one move before it, stored or not): their codes into out[0] and i into out[1] (an
        int64 (2, room * len(codes)) array); return how many."""
        ...

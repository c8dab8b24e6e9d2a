"""What the builder's loop asks of a tier: its compiled kernels, bound once to the table's root
(and a loop-free tier's ply), each run over a block of canonical codes on one core (the
builder splits the blocks over both). A loop-free tier's moves all go to the next tier
(TierKernels: builder/enumerator.py and retrograde.py run them); a cyclic tier's positions
can come back (CyclicKernels, such as the movement phase of a game whose stones move:
builder/cyclic.py solves it within itself). A family gives these kernels from its folder, and
the root that names a table (TableRoot) says which kind each tier is; the builder never asks
which family it holds.
"""
from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np

# In an ends array: a position whose game goes on (every other value is its end's value).
OPEN = np.iinfo(np.int8).min
# A table larger than this (stored positions, estimated) is refused without an explicit
# go-ahead: at a million positions a second it is more than a quarter of an hour of work.
LARGE_TABLE = 10 ** 9


class NextTier(NamedTuple):
    """The loaded next tier as a kernel reads it (CodeTable.arrays; how each mode is read:
    tier_lookup.py), unused parts empty, and the scale of its scores: a win in d plies scores
    win - d for the side to move."""

    mode: int            # DIRECT, HASHED or SORTED
    slots: np.ndarray    # DIRECT: a byte per code (uint8)
    keys: np.ndarray     # HASHED: the table's words; SORTED: the sorted codes (int64)
    values: np.ndarray   # SORTED: the codes' scores (int8)
    shift: int           # HASHED: 64 - log2(slots)
    win: int             # the score of a win in 0 plies


class Parameters(NamedTuple):
    """A game's parameters as the catalogue's row stores them beside its name (db/schema.py's
    games); a family without one of them stores 0 or False."""

    width: int
    height: int
    k: int
    gravity: bool
    misere: bool


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

    def orbits(self, codes: np.ndarray, out: np.ndarray) -> None:
        """out[i] (int64): how many positions the orbit of codes[i] holds (each stored once)."""
        ...


class TierKernels(Protocol):
    """The compiled rules of one loop-free tier: every move of its positions goes to the next
    tier. Codes are the table's canonical codes; every array is a numpy array the kernel
    fills in place."""

    room: int  # at most this many moves of one position

    def children(self, codes: np.ndarray, out: np.ndarray) -> int:
        """The canonical child of every move of every code, parent by parent, into out;
        return how many, or -1 where they would not fit."""
        ...

    def mark(self, codes: np.ndarray, target: np.ndarray) -> None:
        """Every canonical child of every code marked in `target`: bit `c & 63` of word
        `c >> 6` of a uint64 bitmap (tier_lookup.set_bit), or byte c of a uint8 table set to 1."""
        ...

    def classify(self, codes: np.ndarray, ends: np.ndarray, orbits: np.ndarray) -> None:
        """ends[i] (int8): where the game is over at codes[i], its value for the side to move
        (1 won, -1 lost, 0 drawn), else OPEN; orbits[i] (int64): its orbit's size."""
        ...

    def solve(self, codes: np.ndarray, term: np.ndarray, lookup: NextTier,
              best: np.ndarray) -> int:
        """best[i] (int8): term[i] where it is not OPEN (a finished position's score), else
        the best of its moves' scores, each its child's score in `lookup` backed up one ply
        (a win in d plies scores lookup.win - d; tier_lookup.UNSET where it has no move).
        Return the first child missing from `lookup`, or tier_lookup.MISSING."""
        ...


class TableRoot(Protocol):
    """What the builder asks of the root a table starts from: its tiers, counted in plies from
    it, each loop-free or cyclic, and their kernels; what the catalogue records of it; what a
    build will cost."""

    @property
    def name(self) -> str:
        """The table, for messages and progress bars."""
        ...

    @property
    def game_name(self) -> str:
        """The game as the catalogue names it (its spec)."""
        ...

    @property
    def key(self) -> str:
        """The root as the catalogue stores it: '' for a whole-game table."""
        ...

    @property
    def is_whole(self) -> bool:
        """Whether the root is the game's start (a whole-game table)."""
        ...

    @property
    def code_digits(self) -> int:
        """The base-3 digits of a code."""
        ...

    def catalogue(self) -> Parameters:
        """The game's parameters as the catalogue's row stores them beside its name."""
        ...

    def supports(self) -> tuple[int, ...]:
        """Which digit of a code each digit's stone needs under it (db/ranking.py), -1 none."""
        ...

    def facts(self) -> str:
        """An endgame table's root in words, for build's and info's reports."""
        ...

    @property
    def draws_have_depth(self) -> bool:
        """Whether a draw has a depth (`draw_depth`) or is endless play, with none."""
        ...

    def draw_depth(self, plies: np.ndarray | int) -> np.ndarray | int:
        """The depth of a draw stored under each ply (as db reads it back)."""
        ...

    def stored_estimate(self, refine: bool = False) -> int:
        """About how many positions the table stores, said before a build starts: a quick
        bound, or with `refine` a closer estimate (about a second's work)."""
        ...

    def last_moves(self, ply: int, codes: np.ndarray) -> np.ndarray:
        """For codes of tier ply+1: how many moves could have led to each (a cluster weighs
        sampled children by it)."""
        ...

    @property
    def start_code(self) -> int:
        """The root's canonical code: tier 0's one position."""
        ...

    @property
    def last_ply(self) -> int:
        """The deepest tier."""
        ...

    @property
    def cells(self) -> int:
        """What sizes a block of codes and its children (a grid's free cells)."""
        ...

    @property
    def symmetries(self) -> np.ndarray:
        """(S, cells): the maps whose least image is a canonical code."""
        ...

    @property
    def ply(self) -> int:
        """The root's own ply: a code of tier t is stored under ply + t, or where its codes
        say (`stored_ply_array`, a cyclic tier's)."""
        ...

    def stored_ply_array(self, codes: np.ndarray) -> np.ndarray:
        """The ply each code is stored under (db keeps a ply's positions together)."""
        ...

    def move_bound(self, ply: int) -> int:
        """At most this many moves from a position of tier `ply`."""
        ...

    def cyclic_tier(self, ply: int) -> bool:
        """Whether tier `ply` is cyclic (its positions can come back)."""
        ...

    def tier_kernels(self, ply: int) -> TierKernels:
        """The kernels of loop-free tier `ply`, bound once."""
        ...

    def cyclic_kernels(self) -> CyclicKernels:
        """The kernels of the cyclic tier, bound once."""
        ...

    def load_kernels(self) -> None:
        """Load (on a machine's first run, compile) the compiled code of its tiers' kernels."""
        ...

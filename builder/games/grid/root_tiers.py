"""What the builder asks of a grid table's root beyond its codes (root.py): its tiers and their
compiled kernels, the catalogue's parameters, a draw's depth, the size estimate and how many
moves can lead to a position (the cluster's cuts). Root takes these from here: the builder
reads them through the TableRoot protocol (builder/games/tier_kernels.py) and never asks
which family it holds.
"""
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from tablebase.builder.games.grid.codec import digits
from tablebase.builder.games.grid.counts import reachable_bound, reachable_estimate
from tablebase.builder.games.grid.rules import possible
from tablebase.builder.games.tier_kernels import CyclicKernels, Parameters, TierKernels

if TYPE_CHECKING:
    from tablebase.builder.games.grid.spec import Spec


class RootTiers:
    """The tiers of a grid table and what the pipeline records of it (a mixin of Root)."""

    spec: Spec
    board: tuple[int, ...]
    if TYPE_CHECKING:  # Root's, which these read
        @property
        def is_whole(self) -> bool: ...
        @property
        def ply(self) -> int: ...
        @property
        def image_weights(self) -> np.ndarray: ...
        @property
        def below(self) -> np.ndarray: ...
        @property
        def symmetries(self) -> np.ndarray: ...
        @property
        def cells(self) -> int: ...
        @property
        def code_digits(self) -> int: ...
        @property
        def last_ply(self) -> int: ...
        def mover(self, ply: int) -> int: ...
        def line_rules(self, player: int) -> tuple[np.ndarray, np.ndarray]: ...

    @property
    def game_name(self) -> str:
        """The game as the catalogue names it: its spec."""
        return self.spec.name

    def catalogue(self) -> Parameters:
        """The parameters the catalogue's row stores beside the name (db/schema.py's games)."""
        spec = self.spec
        return Parameters(spec.width, spec.height, spec.k, self.drops, spec.misere)

    @property
    def draws_have_depth(self) -> bool:
        """Whether a draw has a depth: on a grid it runs to a full board, unless positions can
        come back (stones that move: their last tier is cyclic), where no game is drawn by an
        end and every draw is endless play."""
        return not self.cyclic_tier(self.last_ply)

    def draw_depth(self, plies: np.ndarray | int) -> np.ndarray | int:
        """The depth of a draw stored under each ply: a draw runs to a full board."""
        return self.spec.cells - plies

    def answer_possible(self, value: int, depth: int, ply: int) -> bool:
        """Whether a stored answer, value and depth, can be a position's at `ply` (rules.py's
        `possible` with the cells left empty)."""
        return bool(possible(value, depth, self.spec.cells - ply, self.spec.misere))

    def stored_estimate(self, refine: bool = False) -> int:
        """About how many positions the table stores: the bound of counts.py over the
        symmetries, or with `refine` its sampled estimate (about a second's work)."""
        count = reachable_estimate if refine else reachable_bound
        return count(self.spec, self.board) // len(self.symmetries)

    def last_moves(self, ply: int, codes: np.ndarray) -> np.ndarray:
        """For codes of tier ply+1: how many moves could have led to each (the stones of the
        side that just moved that could have been its last: with gravity, those on top of
        their column)."""
        board = digits(codes, self.cells)
        mine = board == self.mover(ply)
        if self.drops:
            above = np.full(self.cells, -1, dtype=np.int64)
            below = np.asarray(self.below)
            has = below >= 0
            above[below[has]] = np.flatnonzero(has)
            clear = np.ones_like(mine)
            has_above = above >= 0
            clear[:, has_above] = board[:, above[has_above]] == 0
            mine &= clear
        return mine.sum(axis=1)

    @property
    def drops(self) -> bool:
        """Whether a stone falls to the lowest empty cell of its column (+gravity): the
        compiled kernels' rule, with `below` (the cell each stone needs under it)."""
        return self.spec.gravity

    def move_bound(self, ply: int) -> int:
        """A bound on the legal moves of a position at `ply` (plies from the root): its empty
        cells; where stones drop, at most one a column."""
        moves = self.cells - ply
        return min(moves, self.spec.width) if self.drops else moves

    def cyclic_tier(self, ply: int) -> bool:
        """Whether tier `ply` is one whose positions can come back (where stones move, the
        movement phase, the last tier): enumerated as a closure under its moves and solved with
        cycles, not one ply deeper than the tier before (builder/cyclic.py)."""
        return self.spec.moving and ply == self.last_ply

    def cyclic_kernels(self) -> CyclicKernels:
        """The compiled kernels of the cyclic tier, bound to this root once."""
        return self._cyclic

    def tier_kernels(self, ply: int) -> TierKernels:
        """The compiled kernels of loop-free tier `ply` (tier.py), bound once a tier."""
        found = self._tiers.get(ply)
        if found is None:
            from tablebase.builder.games.grid.tier import NO_LINES, GridTier  # numba: builds only

            stone, last, none = self.mover(ply), self.mover(ply - 1), (NO_LINES, NO_LINES)
            # The root is never over (check_root): no ends at tier 0.
            found = self._tiers[ply] = GridTier(
                self.image_weights, self.below, self.drops, stone, self.move_bound(ply), last,
                self.line_rules(last) if ply else none, ply > 0 and ply == self.cells,
                none if self.spec.misere else self.line_rules(stone), self.spec.misere)
        return found

    @cached_property
    def _tiers(self) -> dict[int, TierKernels]:
        return {}

    def __getstate__(self) -> dict[str, object]:
        """The root as a copy for another process carries it (a cluster's task, pickled once a
        task): without the kernels bound to this process's tiers, which that process binds
        anew where it needs them (a tier's, a few arrays: with them, some 120 buffers a task)."""
        state = dict(self.__dict__)
        state.pop("_tiers", None)
        state.pop("_cyclic", None)
        return state

    def load_kernels(self) -> None:
        """Load the loop-free tiers' compiled kernels (tier.py), before a build's timings."""
        from tablebase.builder.games.grid.tier import warm_up

        warm_up()

    @cached_property
    def _cyclic(self) -> CyclicKernels:
        from tablebase.builder.games.stones.tier import StepKernels  # numba: builds alone

        return StepKernels(self.spec, self.image_weights, *self.line_rules(1))

    def supports(self) -> tuple[int, ...]:
        """Which digit of a code each digit's stone needs (db/ranking.py): where stones drop,
        the free cell under it (-1 where it rests on the root's stones or the bottom row);
        else none."""
        if self.drops:
            return tuple(int(c) for c in self.below)
        return (-1,) * self.code_digits

    def facts(self) -> str:
        """An endgame table's root in words, for build's and info's reports."""
        maps = len(self.symmetries)
        if self.spec.moving:  # every cell coded: stones leave the root's cells
            return (f"{self.ply} stones, every cell coded as stones move, {maps} symmetry"
                    f" map{'' if maps == 1 else 's'}")
        return (f"{self.ply} stones, {self.cells} empty cells, {maps} symmetr"
                f"{'y keeps' if maps == 1 else 'ies keep'} the root")


"""The root of a table: the empty board for a whole-board table, any position for an endgame
table. It fixes what a table's codes cover and the rules restricted to them.

A table codes only the root's empty cells ("free cells"), numbered in cell order; the root's
stones are implicit. On this 4x3 root, x to move:

    x . o .      cells   0  1  2  3      free cells  .  0  .  1
    . x . .              4  5  6  7                  2  .  3  4
    o . . .              8  9 10 11                  .  5  6  7

free cell 3 is board cell 6, and a code is base 3 over the 8 free cells (free cell i is the
digit of weight 3**i). For the empty board the free cells are all the cells, so whole-board
codes are exactly the codes of codec.py. A line still counts for a player when the root has
none of the other player's stones on it (and, under +exact, none of theirs beyond its ends);
restricted to the free cells it is a bitmask, and the player has made it once all its free
cells are theirs and none of the free cells beyond its ends (a second bitmask). The table's
symmetry maps are the board's maps that fix the root (its stabiliser), acting on the free
cells.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tablebase.builder.games.grid.codec import EMPTY, O, X, digits, powers, stone_counts, stones_in
from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.root_tiers import RootTiers
from tablebase.builder.games.grid.rules import mover_at
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.grid.symmetry import (
    block_images,
    block_tables,
    canonical_board,
    canonical_many_lookup,
    permutations,
    transform,
)
from tablebase.builder.games.stones.rules import (
    O_TO_MOVE,
    canonical_code,
    placing_plies,
    position_of,
    split,
    stones_say,
)


@dataclass(frozen=True)
class Root(RootTiers):
    """A table's root position on `spec`'s board (`board`: cell values, row-major).

    Where stones move, no stone stays put: a table codes every cell (`board` is empty, the
    whole board's geometry and symmetries) and an endgame table's root is `start`, the position
    its play starts from (its cells, then the side to move: builder/games/stones/rules.py)."""

    spec: Spec
    board: tuple[int, ...]
    start: tuple[int, ...] | None = None

    @classmethod
    def whole(cls, spec: Spec) -> Root:
        """The root of a whole-board table: the empty board."""
        return cls(spec, (EMPTY,) * spec.cells)

    @cached_property  # asked for every position a probe codes
    def is_whole(self) -> bool:
        """Whether this is the empty board (a whole-board table)."""
        return not any(self.board) and self.start is None

    @cached_property
    def ply(self) -> int:
        """Stones on the root board (where stones move, on the start position's)."""
        board = self.board if self.start is None else self.start[:self.spec.cells]
        return sum(1 for v in board if v != EMPTY)

    @property
    def position(self) -> tuple[int, ...]:
        """The root as a position: its board, or where stones move its start position (cells,
        then the side to move; the empty board, x to move, for a whole-board table)."""
        if self.spec.moving:
            return self.start if self.start is not None else (*self.board, X)
        return self.board

    @property
    def to_move(self) -> int:
        """The side to move at the root (X or O)."""
        return self.position[-1] if self.spec.moving else mover_at(self.ply)

    @cached_property
    def start_code(self) -> int:
        """The canonical code of the table's first tier's one position: 0 (the root's free
        cells all empty), or where stones move the start position's."""
        return 0 if self.start is None else self.position_code(self.start)

    def position_code(self, position: Sequence[int]) -> int:
        """The code this table stores `position` under, as given (an orientation in which it
        holds the root): its board's smallest over the table's maps, and where stones move the
        side to move's digit in the movement phase."""
        if not self.spec.moving:
            return canonical_board(self.spec, position) if self.is_whole \
                else self.code_of(position)
        board, side = split(self.spec, position)
        moving_phase = stones_say(self.spec, board) is None
        # The whole board's maps are the whole group: symmetry.py's faster canonical code.
        code = canonical_board(self.spec, board) if self.is_whole else self.code_of(board)
        return code + (O_TO_MOVE * 3 ** self.cells if moving_phase and side == O else 0)

    def on_board(self, codes: np.ndarray) -> np.ndarray:
        """The stones on the board of each of this table's codes (a position's ply): the root's
        and its free cells' (not the side to move's digit, where stones move)."""
        boards = codes % 3 ** self.cells if self.spec.moving else codes
        return stone_counts(boards) + self.ply

    def stored_ply_array(self, codes: np.ndarray) -> np.ndarray:
        """The ply a table stores each of its codes under (db keeps a ply's positions together):
        its non-empty digits and the root's stones; where stones move, the digits alone (every
        cell is coded; the side to move's digit counts, so the last tier is two plies)."""
        return stone_counts(codes) + self._stones_left_out

    def stored_plies(self, codes: Sequence[int]) -> list[int]:
        """`stored_ply_array` as a list (what db asks of the codes it looks up)."""
        if len(codes) > 4:  # one array operation; a few codes are counted quicker in Python
            return self.stored_ply_array(np.array(codes, np.int64)).tolist()
        return [stones_in(c) + self._stones_left_out for c in codes]

    @cached_property
    def _stones_left_out(self) -> int:
        """The stones a code leaves out: the root's, or none where stones move (every cell is
        coded)."""
        return 0 if self.spec.moving else self.ply

    def canonical_codes(self, codes: np.ndarray) -> np.ndarray:
        """Canonical codes of many codes of this table (any image under its symmetries)."""
        if self.spec.moving:  # the board's canonical code, the side to move's digit kept
            side, board = np.divmod(np.asarray(codes, dtype=np.int64), 3 ** self.cells)
            canonical = canonical_many_lookup(self.spec, board) if self.is_whole \
                else self.canonical_many(board)  # the maps that fix the start
            return canonical + side * 3 ** self.cells
        if self.is_whole:
            return canonical_many_lookup(self.spec, codes)
        return self.canonical_many(codes)

    def is_at(self, position: Sequence[int]) -> bool:
        """Whether `position` is this table's root in some orientation (where stones move, the
        side to move included)."""
        if self.spec.moving:
            return self.start is not None \
                and canonical_code(self.spec, position) == canonical_code(self.spec, self.start)
        return any((transform(self.spec, position, s) if s else tuple(position)) == self.board
                   for s in range(len(permutations(self.spec))))

    @cached_property
    def free(self) -> np.ndarray:
        """Board cell of each free cell, ascending."""
        free = np.array([c for c, v in enumerate(self.board) if v == EMPTY], dtype=np.int64)
        free.setflags(write=False)
        return free

    @property
    def cells(self) -> int:
        """Number of free cells: the digits of a code's board."""
        return len(self.free)

    @property
    def code_digits(self) -> int:
        """The digits of a code: a free cell's each, and where stones move the side to move's
        (builder/games/stones/rules.py)."""
        return self.cells + (1 if self.spec.moving else 0)

    @property
    def last_ply(self) -> int:
        """The deepest tier: every free cell filled, or where stones move the one tier of the
        movement phase (every stone down, either side to move)."""
        return placing_plies(self.spec) - self.ply if self.spec.moving else self.cells

    @property
    def key(self) -> str:
        """The root as stored in the database: '' for the empty board, else one digit per cell
        (where stones move: the start position's, then its side to move, 1 x or 2 o)."""
        position = self.board if self.start is None else self.start
        return "" if self.is_whole else "".join(str(v) for v in position)

    @classmethod
    def from_key(cls, spec: Spec, key: str) -> Root:
        """The inverse of `key`."""
        if not key:
            return cls.whole(spec)
        if spec.moving:
            return cls(spec, (EMPTY,) * spec.cells, tuple(int(ch) for ch in key))
        return cls(spec, tuple(int(ch) for ch in key))

    @property
    def name(self) -> str:
        """For messages and progress bars: the spec, and the root's stones if any."""
        return self.spec.name if self.is_whole else f"{self.spec.name} endgame ({self.ply} stones)"

    def mover(self, ply: int) -> int:
        """The player to move after `ply` stones on the free cells."""
        return mover_at(self.ply + ply)

    # --- the rules on the free cells ------------------------------------------------

    @cached_property
    def symmetries(self) -> np.ndarray:
        """The stabiliser acting on free cells: (S, cells) with map s sending free cell i to
        free cell perms[s, i]. Map 0 is the identity."""
        index = self._free_index
        kept = [permutations(self.spec)[s] for s in self.full_maps]
        perms = np.array([index[perm[self.free]] for perm in kept], dtype=np.int64)
        perms = perms.reshape(len(kept), self.cells)
        perms.setflags(write=False)
        return perms

    @cached_property
    def full_maps(self) -> tuple[int, ...]:
        """Indices into permutations(spec) of the board maps that fix the root (where stones
        move, its start position's board: a map keeps the side to move)."""
        fixed = self.board if self.start is None else self.start[:self.spec.cells]
        return tuple(s for s in range(len(permutations(self.spec)))
                     if self.is_whole or transform(self.spec, fixed, s) == fixed)

    @cached_property
    def image_weights(self) -> np.ndarray:
        """(cells, S) int64 with W[i, s] = 3**perms[s, i], so image codes = digits @ W."""
        weights = np.ascontiguousarray(powers(self.cells)[self.symmetries].T)
        weights.setflags(write=False)
        return weights

    def line_rules(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """The lines `player` can still make as int64 bitmasks over free cells (every mask is
        below 2**39), and for each the free cells beyond its ends that must not be theirs
        (0 without +exact): kernel.made_mask's arguments."""
        return self._masks[0 if player == X else 1]

    @cached_property
    def _masks(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        index = self._free_index
        found: tuple[set[tuple[int, int]], set[tuple[int, int]]] = (set(), set())
        for line, ends in zip(lines(self.spec), line_ends(self.spec)):
            stones = {self.board[int(c)] for c in line} - {EMPTY}
            mask = sum(1 << int(index[c]) for c in set(line.tolist()) if index[c] >= 0)
            beyond = [int(e) for e in ends if e >= 0]
            end_mask = sum(1 << int(index[e]) for e in beyond if index[e] >= 0)
            for i, player in enumerate((X, O)):
                if stones <= {player} and all(self.board[e] != player for e in beyond):
                    found[i].add((mask, end_mask))
        out = []
        for pairs in found:
            rows = np.array(sorted(pairs), dtype=np.int64).reshape(len(pairs), 2)
            masks, ends_ = np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 1])
            masks.setflags(write=False)
            ends_.setflags(write=False)
            out.append((masks, ends_))
        return out[0], out[1]

    @cached_property
    def below(self) -> np.ndarray:
        """With gravity: the free cell under each free cell, or -1 when it rests on a stone or
        the bottom row (so it may always be played)."""
        index = self._free_index
        w = self.spec.width
        under = [int(index[c + w]) if c + w < self.spec.cells else -1 for c in self.free]
        out = np.array(under, dtype=np.int64)
        out.setflags(write=False)
        return out

    def holds(self, board: Sequence[int]) -> bool:
        """Whether every stone of the root is on `board` (a full board, in the root's
        orientation): the first condition for `board` to descend from the root."""
        return all(v == EMPTY or board[c] == v for c, v in enumerate(self.board))

    def code_of(self, board: Sequence[int]) -> int:
        """The canonical code of a full board that `holds` the root: its free cells' digits,
        smallest over the stabiliser (pure Python, for one position)."""
        values = [int(board[c]) for c in self.free.tolist()]
        best = None
        for perm in self._perm_lists:
            image = [0] * len(values)
            for i, target in enumerate(perm):
                image[target] = values[i]
            code = 0
            for digit in reversed(image):
                code = code * 3 + digit
            best = code if best is None or code < best else best
        return 0 if best is None else best

    @cached_property
    def _free_index(self) -> np.ndarray:
        """Each board cell's free cell, or -1 for a root's stone."""
        index = np.full(self.spec.cells, -1, dtype=np.int64)
        index[self.free] = np.arange(self.cells)
        return index

    @cached_property
    def _perm_lists(self) -> list[list[int]]:
        return self.symmetries.tolist()

    def positions_of(self, codes: np.ndarray) -> list[tuple[int, ...]]:
        """The positions of many of this table's codes, as the answers hold them: cell values,
        then the side to move where stones move (its digit is in the code)."""
        if self.spec.moving:
            return [position_of(self.spec, code) for code in np.asarray(codes).tolist()]
        codes = np.asarray(codes, dtype=np.int64)
        boards = digits(codes, self.spec.cells) if self.is_whole else self.boards_of(codes)
        return [tuple(board) for board in boards.tolist()]

    def boards_of(self, codes: np.ndarray) -> np.ndarray:
        """The full boards of many codes: an (N, board cells) int8 digit array."""
        free = digits(np.asarray(codes, dtype=np.int64), self.cells)
        out = np.broadcast_to(np.asarray(self.board, dtype=np.int8),
                              (len(free), self.spec.cells)).copy()
        out[:, self.free] = free
        return out

    def canonical_many(self, codes: np.ndarray) -> np.ndarray:
        """The canonical code (smallest over the stabiliser) of each code over the free cells."""
        codes = np.asarray(codes, dtype=np.int64)
        if len(self.symmetries) == 1:
            return codes.copy()
        return self.images_many(codes).min(axis=1)

    def images_many(self, codes: np.ndarray) -> np.ndarray:
        """(N, S) codes of every image of each code under the stabiliser, by table lookups
        (symmetry.block_images: several times faster than digits @ image_weights)."""
        return block_images(self._block_tables, codes)

    @cached_property
    def _block_tables(self) -> np.ndarray:
        """symmetry.block_tables of the stabiliser acting on the free cells."""
        return block_tables(self.symmetries)

"""The rules of the morris games on one int a position: placing, stepping along a line, flying,
closing a mill and what it takes, and when the game is over.

A position is an int (plain, so a table keys it by its repr and it costs no text):

    bits 0 .. P-1      x's stones (bit i: point i, in reading order: boards.py)
    bits P .. 2P-1     o's stones
    bit 2P             the side to move: 0 x, 1 o
    bits 2P+1 .. +4    the stones x has still to place
    bits 2P+5 .. +8    the stones o has still to place

Players place all their stones alternately, x first, then step; so with x to move both have as
many left to place, with o to move o has one more.
"""
from __future__ import annotations

from collections.abc import Iterator

from tablebase.builder.games.morris.boards import Board

PLACE_BITS = 4  # stones still to place fit 4 bits: at most 15 a side


def bits(mask: int) -> Iterator[int]:
    """The indices of the bits set in `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Rules:
    """One morris game's rules: its board, stones a side, and which rules hold. `lines_win`:
    three in a row ends the game at once, nothing is captured (the 3x3 games); else a mill
    captures a stone and a side left with fewer than 3 loses. `flying`: a side down to 3 stones
    with none to place moves to any empty point. `misere`: a line loses (3x3 games only)."""

    def __init__(self, board: Board, stones: int, *, lines_win: bool, flying: bool,
                 misere: bool) -> None:
        self.board = board
        self.stones = stones
        self.lines_win = lines_win
        self.flying = flying
        self.misere = misere
        p = board.points
        self.p = p
        self.full = (1 << p) - 1
        self.side_bit = 1 << (2 * p)
        self.x_place_at = 2 * p + 1
        self.o_place_at = 2 * p + 1 + PLACE_BITS
        self.names = board.names
        self.joins = board.joins
        self.mills = board.mills
        self.mills_at = board.mills_at
        # Each symmetry as tables of 256 over both sides' stones (2P bits, a byte at a time),
        # so a position's image costs a few lookups, not a loop over its points.
        self.stones_mask = (1 << 2 * p) - 1
        self.byte_maps = [self._byte_tables(s) for s in board.symmetries[1:]]

    def _byte_tables(self, perm: tuple[int, ...]) -> list[list[int]]:
        both = [*perm, *(self.p + i for i in perm)]  # o's bits move as x's do
        tables = []
        for shift in range(0, 2 * self.p, 8):
            tables.append([sum(1 << both[shift + b] for b in range(8)
                               if byte >> b & 1 and shift + b < 2 * self.p)
                           for byte in range(256)])
        return tables

    # --- positions as ints ------------------------------------------------------------

    def pack(self, x: int, o: int, o_to_move: int, x_place: int, o_place: int) -> int:
        """The position of these stones, side to move and stones still to place."""
        return (x | o << self.p | o_to_move << (2 * self.p) | x_place << self.x_place_at
                | o_place << self.o_place_at)

    def unpack(self, position: int) -> tuple[int, int, int, int, int]:
        """(x's mask, o's mask, 1 where o is to move, x's and o's stones still to place)."""
        p, full = self.p, self.full
        return (position & full, position >> p & full, position >> (2 * p) & 1,
                position >> self.x_place_at & 15, position >> self.o_place_at & 15)

    def start(self) -> int:
        """The empty board, x to move, every stone still to place."""
        return self.pack(0, 0, 0, self.stones, self.stones)

    def in_mills(self, stones: int) -> int:
        """The points of `stones` that stand in a mill of theirs."""
        covered = 0
        for m in self.mills:
            if stones & m == m:
                covered |= m
        return covered

    def has_line(self, stones: int) -> bool:
        """Whether `stones` fill a line (a mill)."""
        return any(stones & m == m for m in self.mills)

    # --- the rules ---------------------------------------------------------------------

    def outcome(self, position: int) -> int | None:
        """+1/-1 for the side to move where the game is over (a line made by the side that
        has just moved; a side to move left with fewer than 3 stones), else None. A side that
        cannot move has lost too: it has no moves (the protocol's rule)."""
        x, o, o_to_move, x_place, o_place = self.unpack(position)
        if self.lines_win:
            if self.has_line(x if o_to_move else o):
                return 1 if self.misere else -1
            return None
        mine, place = (o, o_place) if o_to_move else (x, x_place)
        if mine.bit_count() + place < 3:
            return -1
        return None

    def moves(self, position: int) -> list[tuple[str, int]]:
        """Every move of the side to move, named (`d2`, `d2-d3`, `d2xg7`, `d2-d3xg7`), with the
        position after it; none where the game is over."""
        if self.outcome(position) is not None:
            return []
        x, o, o_to_move, x_place, o_place = self.unpack(position)
        me, you, mine, yours = (o, x, o_place, x_place) if o_to_move else (x, o, x_place, o_place)
        empty = self.full & ~(x | o)
        names, out = self.names, []
        capture = not self.lines_win and you != 0
        if capture:
            takeable = you & ~self.in_mills(you) or you
        left = mine - 1 if mine else 0
        for origin, to in self.steps(me, empty, mine):
            after = (me ^ (1 << origin) if origin >= 0 else me) | 1 << to
            name = names[to] if origin < 0 else f"{names[origin]}-{names[to]}"
            if capture and any(after & m == m for m in self.mills_at[to]):
                for taken in bits(takeable):
                    out.append((f"{name}x{names[taken]}",
                                self._after(o_to_move, after, you ^ (1 << taken), left, yours)))
            else:
                out.append((name, self._after(o_to_move, after, you, left, yours)))
        return out

    def steps(self, me: int, empty: int, to_place: int) -> Iterator[tuple[int, int]]:
        """(from point, or -1 for a placement; to point) of every placement, step or flight."""
        if to_place:
            for to in bits(empty):
                yield -1, to
            return
        fly = self.flying and me.bit_count() == 3
        joins = self.joins
        for origin in bits(me):
            for to in bits(empty if fly else joins[origin] & empty):
                yield origin, to

    def _after(self, o_to_move: int, me: int, you: int, left: int, yours: int) -> int:
        if o_to_move:
            return self.pack(you, me, 0, yours, left)
        return self.pack(me, you, 1, left, yours)

    def symmetries(self, position: int) -> list[int]:
        """The position's images under the board's symmetries and, once every stone is placed,
        under each (the identity too) with the colours and the side to move swapped: the rules
        are the same for both sides, so each has the position's value. (While stones are still
        to place, the swapped position would break the order of placing, x first, which the
        notation reads as a fault; once they are placed a swapped image reads, though play may
        not reach every one: the tables count them as their orbits' images.)"""
        stones = position & self.stones_mask
        rest = position ^ stones
        images = []
        for tables in self.byte_maps:
            image, v = rest, stones
            for table in tables:
                image |= table[v & 255]
                v >>= 8
            images.append(image)
        if rest >> self.x_place_at:  # stones still to place
            return images
        p, full, side = self.p, self.full, self.side_bit
        return images + [(q >> p & full) | (q & full) << p | (q & side ^ side)
                         for q in (position, *images)]

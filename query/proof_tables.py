"""The lookup tables through which the proof checker (proof_check.py) reads a position, built
once a file from the rules kernel's symmetry maps and lines (nothing of the search): a code's
images, stones and line counts as sums of one entry per 8-cell chunk of the code, and the maps'
action on a zone as an OR of one entry per byte.

A code's chunk b is its base-3 digits 8b .. 8b+7 (cells 8b .. 8b+7), the integer v < 3**8
they spell; entry b * 3**8 + v of a chunk table holds that chunk's share of a sum. The shares
of different chunks touch different cells, so summing them never carries between fields:

    code:   ... | chunk 1: cells 8..15 | chunk 0: cells 0..7 |    (each 3**8 wide)
    board:  | line counts of D | line counts of A | D's cells | A's cells |
                L fields, f bits each               n bits      n bits
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import add

from tablebase.builder.games.grid import Spec, permutations
from tablebase.builder.games.grid.geometry import lines as geometry_lines

CHUNK = 8
BASE = 3 ** CHUNK


def _chunked(cells: int, one: Sequence[int], two: Sequence[int]) -> list[int]:
    """A chunk table: the share of cell c is one[c] where it holds digit 1, two[c] where 2."""
    out: list[int] = []
    for start in range(0, cells, CHUNK):
        table = [0]
        for c in range(start, min(cells, start + CHUNK)):  # digit c - start: 3**(c - start)
            table = table + [x + one[c] for x in table] + [x + two[c] for x in table]
        out += table + [0] * (BASE - len(table))  # a short last chunk: v < 3**(cells - start)
    return out


def _bytewise_sum(cells: int, share: Sequence[int]) -> list[int]:
    """A byte table: entry b * 256 + v is the sum of share[c] over the cells c = 8b + j of the
    bits j of v."""
    out = []
    for start in range(0, cells, 8):
        for v in range(256):
            out.append(sum(share[start + j] for j in range(8) if v >> j & 1 and start + j < cells))
    return out


class BoardTables:
    """The tables of one game and attacker (A; D the other side): `lines` are the distinct
    lines as cell masks, line i's count field at bits f*i .. f*i+f-1 of a count region."""

    def __init__(self, spec: Spec, attacker: int) -> None:
        n = self.cells = spec.cells
        self.attacker = attacker
        self.full, self.limit = (1 << n) - 1, 3 ** n
        self.offsets = range(0, -(-n // CHUNK) * BASE, BASE)  # chunk b's entries from b * BASE
        perms = permutations(spec).tolist()
        assert perms[0] == list(range(n))  # map 0 is the identity: a code is its own image 0
        self.maps = len(perms)
        self.lines = sorted({sum(1 << c for c in set(line))
                             for line in geometry_lines(spec).tolist()})
        lengths = [line.bit_count() for line in self.lines]
        # A field holds a count up to 2**(f-1) - 1 and a flag above it.
        f = self.field = max(lengths, default=0).bit_length() + 1
        fields = len(self.lines) * f
        self.high = sum(1 << (f * i + f - 1) for i in range(len(self.lines)))
        # + full_add sets the flag of a field whose count is its line's length (a line made),
        # + adds[t] of a field whose count is t or more (t <= 2**(f-1)); neither carries out
        # of a field, as no count reaches 2**(f-1).
        self.full_add = sum(((1 << (f - 1)) - size) << (f * i) for i, size in enumerate(lengths))
        self.adds = [sum(((1 << (f - 1)) - t) << (f * i) for i in range(len(self.lines)))
                     for t in range((1 << (f - 1)) + 1)]
        self.one_add = self.adds[1]
        self.region, self.d_shift = (1 << fields) - 1, 2 * n + fields
        in_line = [sum(1 << f * i for i, line in enumerate(self.lines) if line >> c & 1)
                   for c in range(n)]
        # Stones, counts and the images' codes in one sum: A's cells, D's cells, A's counts,
        # D's counts, then the code of map s's image for each s >= 1 (each below 3**n).
        width = self.limit.bit_length()
        self.image_shifts = [2 * n + 2 * fields + width * s for s in range(len(perms) - 1)]
        self.image_mask = (1 << width) - 1
        a_share = [(1 << c) + (in_line[c] << 2 * n) for c in range(n)]
        d_share = [(1 << (n + c)) + (in_line[c] << (2 * n + fields)) for c in range(n)]
        one, two = (a_share, d_share) if attacker == 0 else (d_share, a_share)
        for shift, perm in zip(self.image_shifts, perms[1:]):
            one = [x + (3 ** p << shift) for x, p in zip(one, perm)]
            two = [x + (2 * 3 ** p << shift) for x, p in zip(two, perm)]
        self.board = _chunked(n, one, two)
        # place[digit][c][s]: what a stone `digit` on cell c adds to the code of image s.
        self.place = {digit: [[digit * 3 ** perm[c] for perm in perms] for c in range(n)]
                      for digit in (1, 2)}
        # back[s]: a zone of image s's cells turned back to the board's cells (cell c in it
        # where perm[s][c] is).
        inverses = [[0] * n for _ in perms]
        for s, perm in enumerate(perms):
            for c, image in enumerate(perm):
                inverses[s][image] = c
        self.back = [_bytewise_sum(n, [1 << c for c in inverse]) for inverse in inverses]
        self.byte_offsets = [256 * b for b in range(-(-n // 8))]
        self.count_bytes = _bytewise_sum(n, in_line)
        # through[c]: the lines through cell c, in the order of `lines`.
        self.through = [[line for line in self.lines if line >> c & 1] for c in range(n)]
        # For a pair of two cells as written ("c1-c2", c1 != c2): its cells, and the flags of
        # the lines holding both.
        self.pair_cells = {f"{c1}-{c2}": (1 << c1) | (1 << c2)
                           for c1 in range(n) for c2 in range(n) if c1 != c2}
        self.pair_lines = {word: sum(1 << (f * i + f - 1) for i, line in enumerate(self.lines)
                                     if line & cells == cells)
                           for word, cells in self.pair_cells.items()}

    def read(self, code: int) -> tuple[int, int, int, int, list[int]]:
        """For a code (0 <= code < 3**cells): A's cells, D's cells, the flags of the lines
        either side has made, the flags of the lines open for A (no D stone), and the codes of
        its images under every map (map 0 first: the code itself)."""
        index, rest = [], code
        for offset in self.offsets:
            rest, v = divmod(rest, BASE)
            index.append(offset + v)
        whole, n, mask = sum(map(self.board.__getitem__, index)), self.cells, self.image_mask
        a_counts, d_counts = whole >> 2 * n & self.region, whole >> self.d_shift & self.region
        made = ((a_counts + self.full_add) | (d_counts + self.full_add)) & self.high
        return (whole & self.full, whole >> n & self.full, made,
                self.high & ~(d_counts + self.one_add),
                [code] + [whole >> s & mask for s in self.image_shifts])

    def position(self, code: int) -> tuple[int, int, int, list[int], int, int]:
        """The position a proof's line names, checked as both checkers need it: A's cells,
        D's cells, the lines open for A and the images' codes (as `read` gives them), its
        empty cells and its stones; ValueError where `code` is not a canonical
        code, where the stones are not a count play gives (x as many as o, or one more), or
        where a line is made (the game is over: nothing to prove there)."""
        if not 0 <= code < self.limit:
            raise ValueError(f"{code} is not a canonical code")
        a, d, made, open_flags, images = self.read(code)
        if min(images) != code:
            raise ValueError(f"{code} is not a canonical code")
        empty = self.full & ~(a | d)
        stones = self.cells - empty.bit_count()
        xs = (a if self.attacker == 0 else d).bit_count()
        if xs - (stones - xs) not in (0, 1):
            raise ValueError(f"position {code}: {xs} x stones and {stones - xs} o stones")
        if made:
            raise ValueError(f"position {code} is over: a line is made")
        return a, d, open_flags, images, empty, stones

    def turned_back(self, zone: int, s: int) -> int:
        """A zone in map s's image, in the board's cells (cells past the board dropped)."""
        zone &= self.full
        if s == 0:
            return zone
        octets = zone.to_bytes(len(self.byte_offsets), "little")
        return sum(map(self.back[s].__getitem__, map(add, self.byte_offsets, octets)))

    def line_counts(self, cells: int) -> int:
        """Count fields of a set of cells on the board (a mask): field i, how many line i has."""
        octets = cells.to_bytes(len(self.byte_offsets), "little")
        return sum(map(self.count_bytes.__getitem__, map(add, self.byte_offsets, octets)))

    def at_least(self, counts: int, t: int) -> int:
        """The flags of the count fields holding t or more (t >= 0)."""
        return (counts + self.adds[t]) & self.high if t < len(self.adds) else 0

"""Clobber as a user's game class (`tests/class_games/clobber.py:Clobber3x4`), written from the
rules for the peer comparison with GamesCrafters' GamesmanPy, whose `clobber` plays the same game.

The rules. A board of width x height cells starts full: o and x on a checkerboard, o in the
top-left corner; o moves first. A move takes one of the mover's stones one step up, down, left
or right onto an opponent's stone, which is removed (clobbered); the cell it left is empty. A
player with no move has lost, so whoever moves last wins. Every move removes a stone: positions
never repeat. GamesmanPy's variants "3x4", "5x3" and "3x6" read width first, as ours do; its
start alternates o and x along the cells in row-major order, which is this checkerboard because
all three widths are odd. It uses no symmetries, so neither does this class.

A position is one int (plain ints keep `moves` and `outcome` cheap and the key small):

    bit 0                side to move: 0 o, 1 x
    bits 1 .. n          the mover's stones, cell i at bit 1 + i
    bits n+1 .. 2n       the opponent's stones, cell i at bit n + 1 + i

Cells are numbered row-major from the top-left; a move is named FROM-TO by column letter and row
number, row 1 at the bottom (3x4 shown):

    text  oxo/xox/oxo/xox o     4 | o x o |     cells  0  1  2     names  a4 b4 c4
          (rows top to bottom,  3 | x o x |            3  4  5            a3 b3 c3
           then the side to     2 | o x o |            6  7  8            a2 b2 c2
           move)                1 | x o x |            9 10 11            a1 b1 c1
                                    a b c
"""
from __future__ import annotations

_SIDES = "ox"


class Clobber:
    """Clobber on a board of `width` x `height` cells (see the module's docstring)."""

    name = "clobber"

    def __init__(self, width: int = 3, height: int = 4) -> None:
        if not (1 <= width <= 26 and 1 <= height <= 9):
            raise ValueError(f"board {width}x{height}: expected width 1 to 26, height 1 to 9")
        self.width, self.height = width, height
        self.name = f"clobber-{width}x{height}"
        n = self.cells = width * height
        self._full = (1 << n) - 1
        self._shift = n + 1
        left_col = sum(1 << (r * width) for r in range(height))
        right_col = left_col << (width - 1)
        names = [f"{chr(ord('a') + i % width)}{height - i // width}" for i in range(n)]
        # A step's names indexed by the moving stone's bit.bit_length() (its cell + 1), which
        # saves `moves` a subtraction; "" where the step would leave the board (never asked).

        def steps(delta: int) -> list[str]:
            return [""] + [f"{names[i]}-{names[i + delta]}" if 0 <= i + delta < n else ""
                           for i in range(n)]

        # (the cells a stone may step from, distance, names): right and down (to cell + k),
        # then left and up (to cell - k). A step right or left must stay in its row.
        self._forward = [(self._full & ~right_col, 1, steps(1)), (self._full, width, steps(width))]
        self._backward = [(self._full & ~left_col, 1, steps(-1)), (self._full, width, steps(-width))]
        self._no_right_col = self._full & ~right_col
        self._no_left_col = self._full & ~left_col

    def start(self) -> int:
        """The full checkerboard, o in the top-left corner, o to move."""
        o = sum(1 << i for i in range(self.cells) if (i // self.width + i % self.width) % 2 == 0)
        return o << 1 | (self._full & ~o) << self._shift

    def moves(self, p: int) -> list[tuple[str, int]]:
        """Every (move name, position after it); none where the side to move has no capture."""
        me = (p >> 1) & self._full
        opp = p >> self._shift
        side = (p & 1) ^ 1
        sh = self._shift
        out = []
        for mask, k, names in self._forward:     # the victim sits at the stone's cell + k
            t = me & (opp >> k) & mask
            while t:
                low = t & -t
                t ^= low
                hit = low << k
                out.append((names[low.bit_length()], side | (opp ^ hit) << 1 | (me ^ low | hit) << sh))
        for mask, k, names in self._backward:    # the victim sits at the stone's cell - k
            t = me & (opp << k) & mask
            while t:
                low = t & -t
                t ^= low
                hit = low >> k
                out.append((names[low.bit_length()], side | (opp ^ hit) << 1 | (me ^ low | hit) << sh))
        return out

    def outcome(self, p: int) -> int | None:
        """-1 (the side to move has lost) when it has no capture, else None: play goes on."""
        me = (p >> 1) & self._full
        opp = p >> self._shift
        w = self.width
        if (me & (opp >> 1) & self._no_right_col or me & (opp << 1) & self._no_left_col
                or me & (opp >> w) or me & (opp << w)):
            return None
        return -1

    def text(self, p: int) -> str:
        """Rows top to bottom joined by '/', 'o', 'x' or '.' a cell, then ' ' and the side to move."""
        mover = _SIDES[p & 1]
        other = _SIDES[(p & 1) ^ 1]
        me = p >> 1
        opp = p >> self._shift
        chars = [mover if me >> i & 1 else other if opp >> i & 1 else "." for i in range(self.cells)]
        w = self.width
        rows = ("".join(chars[r * w:(r + 1) * w]) for r in range(self.height))
        return "/".join(rows) + " " + mover

    def read(self, text: str) -> int:
        """The position `text` writes (as `text` does); ValueError saying what is wrong."""
        board, _, mover = text.strip().partition(" ")
        if mover not in ("o", "x"):
            raise ValueError(f"side to move {mover!r} in {text!r}: expected 'o' or 'x' after the board")
        rows = board.split("/")
        if len(rows) != self.height or any(len(row) != self.width for row in rows):
            raise ValueError(f"board {board!r}: expected {self.height} rows of {self.width} cells "
                             "joined by '/'")
        me = opp = 0
        for i, char in enumerate("".join(rows)):
            if char == mover:
                me |= 1 << i
            elif char in "ox":
                opp |= 1 << i
            elif char != ".":
                raise ValueError(f"cell {char!r} in {board!r}: expected 'o', 'x' or '.'")
        return _SIDES.index(mover) | me << 1 | opp << self._shift


class Clobber3x4(Clobber):
    """Clobber on 3 columns by 4 rows (GamesmanPy's variant "3x4")."""

    name = "clobber-3x4"

    def __init__(self) -> None:
        super().__init__(3, 4)


class Clobber5x3(Clobber):
    """Clobber on 5 columns by 3 rows (GamesmanPy's variant "5x3")."""

    name = "clobber-5x3"

    def __init__(self) -> None:
        super().__init__(5, 3)


class Clobber3x6(Clobber):
    """Clobber on 3 columns by 6 rows (GamesmanPy's variant "3x6")."""

    name = "clobber-3x6"

    def __init__(self) -> None:
        super().__init__(3, 6)

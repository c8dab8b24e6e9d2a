"""Infinite tic-tac-toe as a user's game class (`tests/class_games/ttt_inf.py:TicTacToeInfinite`),
written from the rules for the peer comparison with GamesCrafters' GamesmanPy (its `ttt-inf`).

The rules. Tic-tac-toe on 3x3, x first, players alternating, but each player keeps only their
three newest stones: once six stones are down, a player's move places a stone and removes their
own oldest one. The oldest stone still stands while its owner chooses where to play, so they
cannot place on its cell. Three of one's own stones in a row (row, column or diagonal) right
after one's move wins; only the player who just moved can have a line, so the side to move has
lost. No position is a finished draw, and positions repeat: every draw is endless play.
GamesmanPy uses no symmetries for it, so neither does this class.

A position is one short str: the side to move, then the cells of the stones on the board from
the oldest to the newest (at most six); the owners alternate and the newest is the player's
who just moved. Cells are numbered row-major from the top-left; a move is the cell's name:

    position "o04528"            3 | x5 .  o2 |     cells  0 1 2     names  a3 b3 c3
    text     "x5.o2/.o4x3/..x1"  2 | .  o4 x3 |            3 4 5            a2 b2 c2
                                 1 | .  .  x1 |            6 7 8            a1 b1 c1
                                      a  b  c

o to move; the stones went down on cells 0, 4, 5, 2, 8, x first. In the text a stone is its
owner and its age, 1 the newest, as in GamesmanPy's readable strings (`x5|--|o2|...`).

The text needs no side to move: it is the opponent of the age-1 stone's owner (x on the empty
board).
"""
from __future__ import annotations

_CELLS = "012345678"
_NAMES = {c: f"{'abc'[int(c) % 3]}{3 - int(c) // 3}" for c in _CELLS}
_BIT = {c: 1 << int(c) for c in _CELLS}
# The eight lines as masks of their cells' bits.
_LINES = frozenset(sum(1 << c for c in line) for line in (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)))
_OTHER = {"x": "o", "o": "x"}


class TicTacToeInfinite:
    """Infinite tic-tac-toe: each player keeps their three newest stones (see the module)."""

    name = "ttt-inf"

    def start(self) -> str:
        """The empty board, x to move."""
        return "x"

    def moves(self, p: str) -> list[tuple[str, str]]:
        """Every (cell name, position after it); none once the player who just moved has a line."""
        n = len(p)
        if n >= 6 and _BIT[p[-1]] | _BIT[p[-3]] | _BIT[p[-5]] in _LINES:
            return []
        stones = p[1:]
        # Six stones down: the mover's oldest (first in the history) goes as the new one lands.
        kept = _OTHER[p[0]] + (stones[1:] if n == 7 else stones)
        return [(_NAMES[c], kept + c) for c in _CELLS if c not in stones]

    def outcome(self, p: str) -> int | None:
        """-1 (the side to move has lost) when the player who just moved has three in a row."""
        if len(p) >= 6 and _BIT[p[-1]] | _BIT[p[-3]] | _BIT[p[-5]] in _LINES:
            return -1
        return None

    def text(self, p: str) -> str:
        """Rows top to bottom joined by '/': '.' for an empty cell, else owner and age (1 newest)."""
        stones = p[1:]
        last = _OTHER[p[0]]                     # who placed the newest stone
        cells = ["."] * 9
        for i, c in enumerate(reversed(stones)):
            cells[int(c)] = (last if i % 2 == 0 else p[0]) + str(i + 1)
        return "/".join("".join(cells[r * 3:r * 3 + 3]) for r in range(3))

    def read(self, text: str) -> str:
        """The position `text` writes (as `text` does); ValueError saying what is wrong."""
        rows = text.strip().split("/")
        if len(rows) != 3:
            raise ValueError(f"board {text!r}: expected 3 rows joined by '/'")
        ages: dict[int, tuple[str, int]] = {}     # age -> (owner, cell)
        for r, row in enumerate(rows):
            col = i = 0
            while i < len(row):
                char = row[i]
                if char in "xo" and i + 1 < len(row) and row[i + 1] in "123456":
                    age = int(row[i + 1])
                    if age in ages:
                        raise ValueError(f"board {text!r}: two stones of age {age}")
                    ages[age] = (char, r * 3 + col)
                    i += 2
                elif char == ".":
                    i += 1
                else:
                    raise ValueError(f"row {row!r} of {text!r}: expected '.' or a stone "
                                     "such as x1 (owner x or o, age 1 to 6) a cell")
                col += 1
            if col != 3:
                raise ValueError(f"row {row!r} of {text!r}: found {col} cells, expected 3")
        if sorted(ages) != list(range(1, len(ages) + 1)):
            raise ValueError(f"board {text!r}: ages {sorted(ages)}, expected 1, 2, ... with no gap")
        owners = [ages[a][0] for a in range(len(ages), 0, -1)]
        if any(a == b for a, b in zip(owners, owners[1:])):
            raise ValueError(f"board {text!r}: the owners of successive ages must alternate")
        if owners and len(owners) < 6 and owners[0] != "x":
            raise ValueError(f"board {text!r}: with fewer than six stones the oldest is x's "
                             "(x moves first)")
        mover = _OTHER[owners[-1]] if owners else "x"
        p = mover + "".join(str(ages[a][1]) for a in range(len(ages), 0, -1))
        if len(p) == 7 and _BIT[p[-2]] | _BIT[p[-4]] | _BIT[p[-6]] in _LINES:
            raise ValueError(f"board {text!r}: {mover}, to move, already has three in a row")
        return p

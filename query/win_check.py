"""Checking the positions of a proof file that a side wins (claim "x wins within N"), one line
at a time, with nothing of the search: the rules kernel's lines, symmetries and codes, read
through proof_tables.py as the cannot-win check (proof_check.py) reads them.

W is the claim's side (the winner), L the other. Every line says that W wins from its position
within DEPTH plies (an upper bound: W completes a line at the latest on ply DEPTH from it,
whatever L plays). Its position is named and oriented as in a cannot-win proof:

    CODE win DEPTH T                  W to move completes a line at T (DEPTH >= 1)
    CODE play DEPTH M CHILD           W to move plays M; CHILD (proved before) is the code
                                      after it (DEPTH >= 1 + CHILD's)
    CODE forced DEPTH M1 ... Mj CHILD W to move plays M1; L, with no line to complete, faces
                                      exactly one cell B1 where W completes one and must block
                                      there; W plays M2, and so on; Mj leads to CHILD
                                      (DEPTH >= 2(j - 1) + 1 + CHILD's; j >= 2)
    CODE fork DEPTH M T1 T2           W to move plays M, after which L has no line to
                                      complete and W completes one at T1 and another at T2
                                      (DEPTH >= 3; a play to a double, in one line)
    CODE every DEPTH R:CHILD ...      L to move: every empty cell once, each with the code
                                      after it (at least one; DEPTH >= 1 + the largest child's)
    CODE block DEPTH T CHILD          L to move, no line to complete; W completes one at T;
                                      CHILD is the code after L's block at T
                                      (DEPTH >= 2 and >= 1 + CHILD's)
    CODE double DEPTH T1 T2           L to move, no line to complete; W completes a line at T1
                                      and at T2 (DEPTH >= 2)

Why each is sound (by induction on the file's order: every child is proved before its parent,
and a position over, a line made, is never proved):
- win: W's move at T makes k in a row: W wins on the first ply.
- play: W wins within 1 + the child's bound by playing M (the child is not over, so M makes no
  line; a move that does is written `win`).
- block: a reply of L's other than T leaves T empty and W's line through it (k - 1 of W's
  stones and T) untouched, and makes no line of L's (L has none to complete): W completes it
  on the second ply. L's block at T leads to CHILD: 1 + its bound.
- double: L's reply fills at most one of T1 and T2, and neither line holds the other's cell
  (each line's other cells are W's stones): W completes the other on the second ply.
- fork: W's move M makes no line (one that does is written `win`), and leaves the position
  a `double` checks: W wins within 1 + 2 plies.
- every: whatever L plays is a child proved within its bound; with no empty cell the game
  would be a draw, so at least one reply is required.
- forced: each L position on the way is a `block` (checked as one, W's only completing cell
  being B_i, L's block there), each W position a `play`: the bound adds up to
  2(j - 1) + 1 + CHILD's, as the two rows above give, since 1 + a W position's bound >= 2.
"""
from __future__ import annotations

from operator import add

from tablebase.builder.games.grid import Spec
from tablebase.query.proof_tables import BoardTables

WIN_KINDS = ("win", "play", "forced", "fork", "every", "block", "double")


class WinChecker:
    """The per-position checks of a win proof; `depths` maps each proved code to its bound."""

    def __init__(self, spec: Spec, winner: int) -> None:
        self.spec, self.winner = spec, winner
        self.tables = BoardTables(spec, winner)  # its A is W, its D is L
        self.depths: dict[int, int] = {}
        self.kinds: dict[str, int] = {}

    def holds(self, code: int) -> bool:
        """Whether the position `code` is proved so far."""
        return code in self.depths

    def check(self, words: list[str]) -> None:
        """Check one position's line (split into words); ValueError says what fails."""
        code, kind = int(words[0]), words[1]
        if kind not in WIN_KINDS:
            raise ValueError(f"unknown kind {kind!r}, expected one of {', '.join(WIN_KINDS)}")
        depth = int(words[2])
        if code in self.depths:
            raise ValueError(f"position {code} is proved twice")
        w, lo, _, images, empty, stones = self.tables.position(code)
        w_moves = stones % 2 == self.winner
        if w_moves != (kind in ("win", "play", "forced", "fork")):
            raise ValueError(f"position {code}: {'xo'[stones % 2]} is to move, which a {kind}"
                             " line does not take")
        args = words[3:]
        if kind == "win":
            self._completes(w, empty, int(args[0]), code)
            least = 1
        elif kind in ("play", "forced"):
            least = self._moves(code, images, w, lo, empty, kind, args)
        elif kind == "every":
            least = self._every(code, images, empty, args)
        elif kind == "fork":
            m = int(args[0])
            if len(args) != 3 or not (0 <= m < self.tables.cells and empty >> m & 1):
                raise ValueError(f"position {code}: expected fork M T1 T2, M an empty cell")
            w, empty = w | 1 << m, empty & ~(1 << m)
            if any(line & w == line for line in self.tables.through[m]):
                raise ValueError(f"position {code}: the fork's move {m} makes a line (a win"
                                 " line, not a fork)")
            least = self._double(code, w, lo, empty, args[1:]) + 1
        elif kind == "block":
            if self._completions(lo, w, empty):
                raise ValueError(f"position {code}: the loser completes a line at once")
            t1 = int(args[0])
            self._completes(w, empty, t1, code)
            if len(args) != 2:
                raise ValueError(f"position {code}: expected block T CHILD")
            least = max(2, 1 + self._child(code, images, 2 - self.winner, t1, int(args[1]),
                                           empty))
        else:
            least = self._double(code, w, lo, empty, args)
        if depth < least:
            raise ValueError(f"position {code}: depth {depth} is less than the {least} its"
                             " proof gives")
        self.depths[code] = depth
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def _double(self, code: int, w: int, lo: int, empty: int, args: list[str]) -> int:
        """L to move with no line to complete, W completing one at T1 and at T2 (args): the
        least bound (2)."""
        if self._completions(lo, w, empty):
            raise ValueError(f"position {code}: the loser completes a line at once")
        if len(args) != 2 or int(args[0]) == int(args[1]):
            raise ValueError(f"position {code}: expected two cells T1 T2 where the winner"
                             " completes a line")
        self._completes(w, empty, int(args[0]), code)
        self._completes(w, empty, int(args[1]), code)
        return 2

    def _moves(self, code: int, images: list[int], w: int, lo: int, empty: int, kind: str,
               args: list[str]) -> int:
        """play M CHILD, or forced M1 .. Mj CHILD (each L position between, one to block):
        the least bound they give."""
        moves = [int(m) for m in args[:-1]]
        wanted = "one move" if kind == "play" else "two moves or more"
        if (len(moves) != 1) if kind == "play" else (len(moves) < 2):
            raise ValueError(f"position {code}: {kind} takes {wanted}, found {len(moves)}")
        place = self.tables.place
        w_digit, l_digit = self.winner + 1, 2 - self.winner
        for i, m in enumerate(moves[:-1]):
            if not (0 <= m < self.tables.cells and empty >> m & 1):
                raise ValueError(f"position {code}: move {m} of the sequence is not an empty"
                                 " cell")
            w, empty = w | 1 << m, empty & ~(1 << m)
            images = list(map(add, images, place[w_digit][m]))
            if any(line & w == line for line in self.tables.through[m]):
                raise ValueError(f"position {code}: move {m} of the sequence makes a line"
                                 " (a win line, not a sequence)")
            if self._completions(lo, w, empty):
                raise ValueError(f"position {code}: after move {m} of the sequence the loser"
                                 " completes a line")
            blocks = self._completions(w, lo, empty)
            if len(blocks) != 1:
                raise ValueError(f"position {code}: after move {m} of the sequence the loser"
                                 f" has {len(blocks)} cells to block, not one (step {i + 1})")
            b = blocks[0]
            lo, empty = lo | 1 << b, empty & ~(1 << b)
            images = list(map(add, images, place[l_digit][b]))
        child = self._child(code, images, w_digit, moves[-1], int(args[-1]), empty)
        return 2 * (len(moves) - 1) + 1 + child

    def _every(self, code: int, images: list[int], empty: int, args: list[str]) -> int:
        """Every L reply once, each to a proved child: the least bound they give."""
        seen, worst = 0, 0
        for text in args:
            left, right = text.split(":")
            r = int(left)
            if not (0 <= r < self.tables.cells and empty >> r & 1) or seen >> r & 1:
                raise ValueError(f"position {code}: reply {r} is not an empty cell, or twice")
            seen |= 1 << r
            worst = max(worst, self._child(code, images, 2 - self.winner, r, int(right),
                                          empty))
        if seen != empty or not empty:
            raise ValueError(f"position {code}: {(empty & ~seen).bit_count()} of the loser's"
                             " replies are missing" if empty else
                             f"position {code}: the board is full (a draw)")
        return 1 + worst

    def _child(self, code: int, images: list[int], digit: int, c: int, child: int,
               empty: int) -> int:
        """The bound of `child`, which must be the code after a stone `digit` on the empty cell
        c (of `empty`) of the position whose images' codes are `images`, proved before."""
        if not (0 <= c < self.tables.cells and empty >> c & 1):
            raise ValueError(f"position {code}: move {c} is not an empty cell")
        if min(map(add, images, self.tables.place[digit][c])) != child:
            raise ValueError(f"position {code}: {child} is not the code of the position after"
                             f" the move {c}")
        if child not in self.depths:
            raise ValueError(f"position {code}: its child {child} is not proved before it")
        return self.depths[child]

    def _completions(self, mine: int, other: int, empty: int) -> list[int]:
        """The empty cells where `mine` completes a line (k - 1 of its stones, no stone of
        `other`'s: a line's last cell, then empty, as no line is made)."""
        k = self.spec.k
        found = 0
        for line in self.tables.lines:
            if not line & other and (line & mine).bit_count() == k - 1:
                found |= line & empty
        return [c for c in range(self.tables.cells) if found >> c & 1]

    def _completes(self, mine: int, empty: int, c: int, code: int) -> None:
        """ValueError unless `mine` completes a line at the empty cell c."""
        if 0 <= c < self.tables.cells and empty >> c & 1:
            for line in self.tables.through[c]:
                if (line & mine).bit_count() == self.spec.k - 1:
                    return
        raise ValueError(f"position {code}: no line is completed at {c}")

"""Deliberately plain, independent solver of morris games (three men's morris, tapatan, achi, six
and nine men's morris): the rules written again from their statement in issue 59, the boards as
literal lists of point names, plain dictionaries and arrays over the whole reachable graph, no
symmetry, nothing of ours imported. The oracle builder/games/morris/ is compared against, text by
text; for small games only (the 3x3 games in seconds, six-mens-morris+stones4 in minutes).
"""
from __future__ import annotations

import re
import sys
import time
from array import array

WIN, DRAW, LOSS = 1, 0, -1  # for the side to move, as in tests/reference.py

Outcome = tuple[int, int | None]  # (value, depth in plies); a draw by endless play has no depth

# The boards. A point is named by its column letter and row number, row 1 at the bottom; each
# board lists its rows from the top, each row's points left to right: that is the order of the
# points in a position's text (rows separated by '/').
#
#   3x3 (three-mens-morris; tapatan and achi add the two diagonals)
#     a3 - b3 - c3
#     |    |    |
#     a2 - b2 - c2
#     |    |    |
#     a1 - b1 - c1
THREE_ROWS = [["a3", "b3", "c3"], ["a2", "b2", "c2"], ["a1", "b1", "c1"]]
THREE_LINES = [["a3", "b3", "c3"], ["a2", "b2", "c2"], ["a1", "b1", "c1"],
               ["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
DIAGONALS = [["a1", "b2", "c3"], ["a3", "b2", "c1"]]

#   six-mens-morris, two squares joined at their midpoints
#     a5 ------- c5 ------- e5
#     |          |          |
#     |    b4 -- c4 -- d4   |
#     |    |           |    |
#     a3 - b3          d3 - e3
#     |    |           |    |
#     |    b2 -- c2 -- d2   |
#     |          |          |
#     a1 ------- c1 ------- e1
SIX_ROWS = [["a5", "c5", "e5"], ["b4", "c4", "d4"], ["a3", "b3", "d3", "e3"],
            ["b2", "c2", "d2"], ["a1", "c1", "e1"]]
SIX_MILLS = [["a5", "c5", "e5"], ["e1", "e3", "e5"], ["a1", "c1", "e1"], ["a1", "a3", "a5"],
             ["b4", "c4", "d4"], ["d2", "d3", "d4"], ["b2", "c2", "d2"], ["b2", "b3", "b4"]]
SIX_JOINS = [["c5", "c4"], ["c2", "c1"], ["a3", "b3"], ["d3", "e3"]]

#   nine-mens-morris, three squares joined at their midpoints (d5 and d3 are not joined)
#     a7 ----------- d7 ----------- g7
#     |              |              |
#     |    b6 ------ d6 ------ f6   |
#     |    |         |         |    |
#     |    |    c5 - d5 - e5   |    |
#     |    |    |         |    |    |
#     a4 - b4 - c4        e4 - f4 - g4
#     |    |    |         |    |    |
#     |    |    c3 - d3 - e3   |    |
#     |    |         |         |    |
#     |    b2 ------ d2 ------ f2   |
#     |              |              |
#     a1 ----------- d1 ----------- g1
NINE_ROWS = [["a7", "d7", "g7"], ["b6", "d6", "f6"], ["c5", "d5", "e5"],
             ["a4", "b4", "c4", "e4", "f4", "g4"], ["c3", "d3", "e3"], ["b2", "d2", "f2"],
             ["a1", "d1", "g1"]]
NINE_MILLS = [["a7", "d7", "g7"], ["g1", "g4", "g7"], ["a1", "d1", "g1"], ["a1", "a4", "a7"],
              ["b6", "d6", "f6"], ["f2", "f4", "f6"], ["b2", "d2", "f2"], ["b2", "b4", "b6"],
              ["c5", "d5", "e5"], ["e3", "e4", "e5"], ["c3", "d3", "e3"], ["c3", "c4", "c5"],
              ["d5", "d6", "d7"], ["d1", "d2", "d3"], ["a4", "b4", "c4"], ["e4", "f4", "g4"]]

# name: (rows, lines or mills, extra joins, stones a side, captures and the fewer-than-3 loss,
# flying at three). Adjacency is every pair of consecutive points along a line, plus the joins.
BOARDS: dict[str, tuple[list[list[str]], list[list[str]], list[list[str]], int, bool, bool]] = {
    "three-mens-morris": (THREE_ROWS, THREE_LINES, [], 3, False, False),
    "tapatan": (THREE_ROWS, THREE_LINES + DIAGONALS, [], 3, False, False),
    "achi": (THREE_ROWS, THREE_LINES + DIAGONALS, [], 4, False, False),
    "six-mens-morris": (SIX_ROWS, SIX_MILLS, SIX_JOINS, 6, True, False),
    "nine-mens-morris": (NINE_ROWS, NINE_MILLS, [], 9, True, True),
}


class MorrisGame:
    """A morris game from its spec text: a board name, then any of +stonesN and (3x3 games only)
    +misere. A position's text is the points row by row from the top ('x', 'o' or '.'), rows
    separated by '/', a space and the side to move, and while either side has stones to place,
    the stones x and o have still to place: `.../.../... x 3 3`."""

    def __init__(self, spec: str) -> None:
        name, *flags = spec.split("+")
        if name not in BOARDS:
            raise ValueError(f"found game {name!r} in {spec!r}, expected one of {sorted(BOARDS)}")
        rows, lines, joins, stones, self.captures, self.flying = BOARDS[name]
        self.misere = "misere" in flags
        for flag in flags:
            if flag == "misere":
                if self.captures:
                    raise ValueError(f"found +misere in {spec!r}, expected it only on a 3x3 game")
            elif re.fullmatch(r"stones[1-9]\d*", flag):
                stones = int(flag[len("stones"):])
            else:
                raise ValueError(f"found flag {flag!r} in {spec!r}, expected +stonesN or +misere")
        if len(set(flags)) != len(flags) or sum(f.startswith("stones") for f in flags) > 1:
            raise ValueError(f"found flags {flags} in {spec!r}, expected each at most once")
        self.rows = rows
        self.points = [p for row in rows for p in row]
        self.lines = lines
        self.stones = stones
        # A side needs at least one empty point to step into once all are placed; with captures a
        # side starting with fewer than 3 would have lost before it began.
        lowest = 3 if self.captures else 1
        if not lowest <= stones <= (len(self.points) - 1) // 2:
            raise ValueError(f"found {stones} stones a side in {spec!r}, expected {lowest} to"
                             f" {(len(self.points) - 1) // 2}")
        number = {p: i for i, p in enumerate(self.points)}
        self.adjacent: list[list[int]] = [[] for _ in self.points]
        for path in [*lines, *joins]:
            for a, b in zip(path, path[1:]):
                self.adjacent[number[a]].append(number[b])
                self.adjacent[number[b]].append(number[a])
        self.edges = sum(len(n) for n in self.adjacent) // 2
        # The place of each point in the board part of a text (past the '/' separators).
        self.slot: list[int] = []
        for r, row in enumerate(rows):
            start = sum(len(earlier) + 1 for earlier in rows[:r])
            self.slot += [start + c for c in range(len(row))]
        # Every line has three points (checked by the tests). For each point, the places of the
        # other two points of each line through it: "did this move close a mill" asks only the
        # lines through the point the stone went to.
        self.line_slots = [[self.slot[number[p]] for p in line] for line in lines]
        self.partners: list[list[tuple[int, int]]] = [[] for _ in self.points]
        for line in lines:
            i, j, k = (number[p] for p in line)
            self.partners[i].append((self.slot[j], self.slot[k]))
            self.partners[j].append((self.slot[i], self.slot[k]))
            self.partners[k].append((self.slot[i], self.slot[j]))

    # -- texts --------------------------------------------------------------------------------
    def text(self, board: str, side: str, x_left: int, o_left: int) -> str:
        """The position text of a board part (with its '/'), a side to move and stones to place."""
        if x_left or o_left:
            return f"{board} {side} {x_left} {o_left}"
        return f"{board} {side}"

    def start(self) -> str:
        """The empty board, x to move, both sides with all their stones to place."""
        board = "/".join("." * len(row) for row in self.rows)
        return self.text(board, "x", self.stones, self.stones)

    def parse(self, text: str) -> tuple[str, str, int, int]:
        """(board part, side to move, stones x and o have to place) of a position text; raises
        ValueError on a text that is not of this game's form."""
        parts = text.split(" ")
        shape = "/".join("[.xo]" * len(row) for row in self.rows)
        if (len(parts) not in (2, 4) or not re.fullmatch(shape, parts[0])
                or parts[1] not in ("x", "o") or not all(p.isdigit() for p in parts[2:])
                or parts[2:] == ["0", "0"]):
            raise ValueError(f"found {text!r}, expected a position like {self.start()!r}")
        board, side, x_left, o_left = self._split(text)
        # x moves first: at x's turn both have as many left to place, at o's turn o one more.
        if len(parts) == 4 and (x_left > self.stones or o_left != x_left + (side == "o")):
            raise ValueError(f"found {x_left} and {o_left} stones to place with {side} to move in"
                             f" {text!r}, expected equal numbers at x's turn, o one more at o's,"
                             f" at most {self.stones}")
        # Stones only leave the board by capture: without captures, on the board and to place
        # make N a side; with them, at most N.
        for who, left in (("x", x_left), ("o", o_left)):
            held = board.count(who) + left
            if held > self.stones or held < self.stones and not self.captures:
                expected = f"at most {self.stones}" if self.captures else str(self.stones)
                raise ValueError(f"found {held} stones of {who}'s on the board and to place in"
                                 f" {text!r}, expected {expected}")
        return board, side, x_left, o_left

    @staticmethod
    def _split(text: str) -> tuple[str, str, int, int]:
        """`parse` without the checks, for texts this class wrote itself (the solver's)."""
        parts = text.split(" ")
        x_left, o_left = (int(parts[2]), int(parts[3])) if len(parts) == 4 else (0, 0)
        return parts[0], parts[1], x_left, o_left

    # -- rules --------------------------------------------------------------------------------
    def _in_line(self, board: str, point: int, side: str) -> bool:
        """Whether `point`, holding a stone of `side`, lies on a line (mill) of `side`'s stones."""
        return any(board[a] == side and board[b] == side for a, b in self.partners[point])

    def _over(self, board: str, side: str, x_left: int, o_left: int) -> int | None:
        """The value for `side`, to move, if a line or a count has ended the game, else None
        (the game may still be over for want of a move)."""
        other = "o" if side == "x" else "x"
        if not self.captures:
            # Only the side that just moved can have made a line, and it ends the game at once.
            if any(board[a] == other and board[b] == other and board[c] == other
                   for a, b, c in self.line_slots):
                return WIN if self.misere else LOSS
            return None
        left = x_left if side == "x" else o_left
        if board.count(side) + left < 3:
            return LOSS
        return None

    def _successors(self, board: str, side: str, x_left: int,
                    o_left: int) -> list[tuple[str, str]]:
        """Every (move name, position text after it) the placing, stepping, flying and capture
        rules allow `side`, whether or not the game is already over."""
        other = "o" if side == "x" else "x"
        slot, names = self.slot, self.points
        empty = [p for p in range(len(slot)) if board[slot[p]] == "."]
        left = x_left if side == "x" else o_left
        steps: list[tuple[int | None, int]]  # (from point, or None for a placement; to point)
        if left:  # a placement: any empty point, one fewer to place
            steps = [(None, p) for p in empty]
            if side == "x":
                x_left -= 1
            else:
                o_left -= 1
        else:
            mine = [p for p in range(len(slot)) if board[slot[p]] == side]
            fly = self.flying and len(mine) == 3
            steps = [(src, dst) for src in mine for dst in
                     (empty if fly else [q for q in self.adjacent[src] if board[slot[q]] == "."])]
        out = []
        for src, dst in steps:
            after = board
            if src is not None:
                after = after[:slot[src]] + "." + after[slot[src] + 1:]
            after = after[:slot[dst]] + side + after[slot[dst] + 1:]
            name = names[dst] if src is None else f"{names[src]}-{names[dst]}"
            if not (self.captures and self._in_line(after, dst, side)):
                out.append((name, self.text(after, other, x_left, o_left)))
                continue
            theirs = [p for p in range(len(slot)) if after[slot[p]] == other]
            if not theirs:  # nothing to take: the move has no capture
                out.append((name, self.text(after, other, x_left, o_left)))
                continue
            # A mill closed (two at once take one stone too): any of theirs not in a mill of
            # theirs, or any at all when every one is in a mill.
            free = [p for p in theirs if not self._in_line(after, p, other)]
            for victim in free or theirs:
                taken = after[:slot[victim]] + "." + after[slot[victim] + 1:]
                out.append((f"{name}x{names[victim]}", self.text(taken, other, x_left, o_left)))
        return out

    def outcome(self, text: str) -> int | None:
        """The value of `text` for its side to move if the game is over there (+1 win, -1 loss;
        a side with no move has lost), else None."""
        value = self._over(*self.parse(text))
        if value is None and not self._successors(*self.parse(text)):
            return LOSS
        return value

    def moves(self, text: str) -> list[tuple[str, str]]:
        """Every legal move's name and the position text after it; none where the game is over."""
        position = self.parse(text)
        if self._over(*position) is not None:
            return []
        return self._successors(*position)

    # -- the graph and its retrograde analysis --------------------------------------------------
    def _graph(self, starts: list[str] | None = None
               ) -> tuple[list[str], dict[int, int], array, array]:
        """Every position reachable from the start (or from each of `starts`), breadth first
        (terminal ones reached, not expanded): the texts (a position's number is its place
        here), the terminal positions' values, and the children of each as one flat array with
        each position's first entry."""
        texts = list(dict.fromkeys(starts)) if starts else [self.start()]
        number = {text: i for i, text in enumerate(texts)}
        terminal: dict[int, int] = {}
        first_child = array("q", [0])
        children = array("i")
        i = 0
        while i < len(texts):  # the list is its own queue
            position = self._split(texts[i])
            value = self._over(*position)
            kids = [] if value is not None else [after for _, after in self._successors(*position)]
            if not kids:
                terminal[i] = LOSS if value is None else value  # no move: lost
            for kid in kids:
                j = number.get(kid)
                if j is None:
                    j = number[kid] = len(texts)
                    texts.append(kid)
                children.append(j)
            first_child.append(len(children))
            i += 1
        return texts, terminal, first_child, children

    def solve(self, starts: list[str] | None = None) -> dict[str, Outcome]:
        """(value, depth) of every position reachable from the start (or from each of
        `starts`), keyed by its text, for its
        side to move: +1 win, 0 draw, -1 loss, and the plies to the end under perfect play (the
        winner takes its shortest win, the loser its longest loss; terminal positions 0); a draw
        by endless play has depth None.

        Retrograde analysis by rounds of depth: round d holds the positions decided at depth d
        (round 0: the terminal ones). An undecided parent of a loss at depth d wins at d + 1 (no
        shallower lost child, or it would be decided already); an undecided parent whose last
        undecided child is a win at depth d loses at d + 1 (every child a win, this the
        deepest). What no round decides is a draw."""
        texts, terminal, first_child, children = self._graph(starts)
        n = len(texts)
        # Parents, one flat array in the children's order inverted: a counting sort by child.
        first_parent = array("q", [0]) * (n + 1)
        for j in children:
            first_parent[j + 1] += 1
        for j in range(n):
            first_parent[j + 1] += first_parent[j]
        parents = array("i", [0]) * len(children)
        fill = array("q", first_parent)
        unresolved = array("i", [0]) * n  # children not yet known to be wins
        for i in range(n):
            unresolved[i] = first_child[i + 1] - first_child[i]
            for k in range(first_child[i], first_child[i + 1]):
                j = children[k]
                parents[fill[j]] = i
                fill[j] += 1
        del children, fill, first_child
        value = array("b", [DRAW]) * n
        depth = array("i", [-1]) * n  # -1: not decided (yet)
        for i, v in terminal.items():
            value[i], depth[i] = v, 0
        frontier = list(terminal)
        d = 0
        while frontier:
            decided = []
            for c in frontier:
                lost = value[c] == LOSS
                for k in range(first_parent[c], first_parent[c + 1]):
                    p = parents[k]
                    if depth[p] >= 0:
                        continue
                    if lost:
                        value[p], depth[p] = WIN, d + 1
                        decided.append(p)
                    else:
                        unresolved[p] -= 1
                        if unresolved[p] == 0:
                            value[p], depth[p] = LOSS, d + 1
                            decided.append(p)
            frontier = decided
            d += 1
        # One tuple per distinct outcome, shared: millions of positions hold a few hundred.
        shared: dict[tuple[int, int], Outcome] = {}
        result: dict[str, Outcome] = {}
        for i, text in enumerate(texts):
            key = (value[i], depth[i])
            if key not in shared:
                shared[key] = (key[0], None if key[1] < 0 else key[1])
            result[text] = shared[key]
        return result


def main(argv: list[str]) -> int:
    """`python tests/reference_morris.py GAME ...`: solve each game from scratch and print its
    positions, the start's value and depth, and the seconds taken."""
    if not argv:
        print("usage: python tests/reference_morris.py GAME [GAME ...]", file=sys.stderr)
        return 2
    words = {WIN: "win", DRAW: "draw", LOSS: "loss"}
    for spec in argv:
        began = time.perf_counter()
        game = MorrisGame(spec)
        table = game.solve()
        seconds = time.perf_counter() - began
        value, depth = table[game.start()]
        shown = words[value] + ("" if depth is None else f" in {depth}")
        print(f"{spec}: {len(table):,} positions, start {shown}, {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

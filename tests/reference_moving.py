"""Deliberately simple retrograde solver for games whose stones move (+stonesN, +jump, +square):
the rules written again from their statement, plain dictionaries over the whole reachable graph,
no symmetry, nothing of ours imported. The oracle the builder's solver is compared against on
every position; for small games only (3x3 in under a second, 4x4k4+stones4+square in minutes).
"""
from __future__ import annotations

import re
import sys
import time
from functools import lru_cache

WIN, DRAW, LOSS = 1, 0, -1  # for the side to move, as in tests/reference.py

Board = tuple[int, ...]  # cell values, row-major: 0 empty, 1 x, 2 o
Position = tuple[Board, int]  # a board and its side to move (1 x, 2 o)
Move = tuple[int | None, int]  # (from cell, or None for a placement; to cell)
Outcome = tuple[int, int | None]  # (value, depth in plies); a draw has no depth

TEEKO = "5x5k4+stones4+square"
FLAGS = {"jump", "square", "misere", "exact"}
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # the four directions of a line
_REACHABLE: dict[str, frozenset[tuple[tuple[int, ...], int]]] = {}  # spec -> MovingGame.reachable


class MovingGame:
    """A W x H board, cells row-major from the top left; each side has N stones:

        3x3:  0 1 2     cell = row * W + col, row 0 on top
              3 4 5
              6 7 8

    While the side to move has fewer than N stones on the board it places one on an empty cell
    (x first); then it moves one of its stones to an empty neighbouring cell (8 neighbours), or
    with +jump to any empty cell. k in a row (with +exact, a maximal run of exactly k), or with
    +square four stones filling a 2x2 square, ends the game: a win for its maker, a loss with
    +misere. A side to move with no legal move loses; endless play is a draw (no depth)."""

    def __init__(self, spec: str) -> None:
        if spec == "teeko" or spec.startswith("teeko+"):
            spec = TEEKO + spec[len("teeko"):]
        m = re.fullmatch(r"(\d+)x(\d+)k(\d+)((?:\+\w+)*)", spec)
        if not m:
            raise ValueError(f"found spec {spec!r}, expected WxHkK+stonesN and flags")
        self.w, self.h, self.k = int(m[1]), int(m[2]), int(m[3])
        flags = m[4].split("+")[1:]
        stones = [f for f in flags if re.fullmatch(r"stones[1-9]\d*", f)]
        unknown = sorted(set(flags) - set(stones) - FLAGS)
        if unknown or len(stones) != 1 or len(set(flags)) != len(flags):
            raise ValueError(f"found flags {flags} in {spec!r}, expected one +stonesN (N > 0) and"
                             f" any of {sorted(FLAGS)}, each once")
        self.stones = int(stones[0][len("stones"):])
        self.jump, self.square = "jump" in flags, "square" in flags
        self.misere, self.exact = "misere" in flags, "exact" in flags
        self.cells = self.w * self.h
        self.spec = spec
        if min(self.w, self.h, self.k) < 1 or 2 * self.stones >= self.cells:
            raise ValueError(f"found {spec!r}, expected sizes of at least 1 and 2N < W * H")

        def inside(r: int, c: int) -> bool:
            return 0 <= r < self.h and 0 <= c < self.w

        # The 8 cells around each cell, those on the board.
        self.neighbours: list[list[int]] = []
        for r in range(self.h):
            for c in range(self.w):
                self.neighbours.append([(r + dr) * self.w + c + dc for dr in (-1, 0, 1)
                                        for dc in (-1, 0, 1)
                                        if (dr, dc) != (0, 0) and inside(r + dr, c + dc)])
        # Every k cells in a row (each window once: it starts at its first cell), and with
        # +square every 2x2 square.
        self.lines: list[tuple[int, ...]] = []
        self.squares: list[tuple[int, ...]] = []
        for r in range(self.h):
            for c in range(self.w):
                for dr, dc in DIRECTIONS:
                    if inside(r + dr * (self.k - 1), c + dc * (self.k - 1)):
                        self.lines.append(tuple((r + dr * i) * self.w + c + dc * i
                                                for i in range(self.k)))
                if self.square and inside(r + 1, c + 1):
                    self.squares.append((r * self.w + c, r * self.w + c + 1,
                                         (r + 1) * self.w + c, (r + 1) * self.w + c + 1))

    # -- rules ------------------------------------------------------------------------------
    def has_line(self, board: Board, player: int) -> bool:
        """Whether `player` (1 x, 2 o) has a line on `board`: k in a row (with +exact, a maximal
        run of exactly k) or, with +square, a filled 2x2 square."""
        mine = {c for c in range(self.cells) if board[c] == player}
        if any(mine.issuperset(square) for square in self.squares):
            return True
        if self.exact:
            return self._exact_run(board, player)
        return any(mine.issuperset(line) for line in self.lines)

    def _exact_run(self, board: Board, player: int) -> bool:
        """Whether some maximal run of the player's stones in one direction is k long."""
        def mine(r: int, c: int) -> bool:
            return 0 <= r < self.h and 0 <= c < self.w and board[r * self.w + c] == player

        for r in range(self.h):
            for c in range(self.w):
                for dr, dc in DIRECTIONS:
                    if mine(r, c) and not mine(r - dr, c - dc):  # the run's first stone
                        length = 1
                        while mine(r + dr * length, c + dc * length):
                            length += 1
                        if length == self.k:
                            return True
        return False

    def _steps(self, board: Board, side: int) -> list[Move]:
        """The moves the placing and moving rules allow `side`, whatever the lines say."""
        empty = [c for c in range(self.cells) if board[c] == 0]
        if board.count(side) < self.stones:
            return [(None, c) for c in empty]
        out: list[Move] = []
        for src in range(self.cells):
            if board[src] == side:
                targets = empty if self.jump else [c for c in self.neighbours[src] if board[c] == 0]
                out += [(src, dst) for dst in targets]
        return out

    def moves(self, board: Board, side: int) -> list[Move]:
        """The legal moves of `side`, as (from cell or None for a placement, to cell); none if
        the position is terminal (the other side has a line, or `side` cannot move)."""
        if self.has_line(board, 3 - side):
            return []
        return self._steps(board, side)

    def child(self, board: Board, side: int, move: Move) -> Position:
        """The position after `side` plays `move`: the new board, the other side to move."""
        src, dst = move
        after = list(board)
        assert after[dst] == 0 and (src is None or after[src] == side), (board, side, move)
        if src is not None:
            after[src] = 0
        after[dst] = side
        return tuple(after), 3 - side

    def terminal_value(self, board: Board, side: int) -> int | None:
        """The value for `side`, to move, if the game is over (its depth is 0), else None. Only
        the side that just moved can have a line: its last move made it."""
        if self.has_line(board, 3 - side):
            return WIN if self.misere else LOSS
        if not self._steps(board, side):
            return LOSS  # blocked: the side to move cannot move (with +misere too)
        return None

    # -- the graph and its retrograde analysis ------------------------------------------------
    def root(self) -> Position:
        """The empty board, x to move."""
        return tuple([0] * self.cells), 1

    def _graph(self) -> tuple[dict[Position, int], dict[Position, list[Position]]]:
        """Every position reachable from the root (terminal ones reached, not expanded), by
        breadth-first search: its number of children, and its parents."""
        root = self.root()
        children: dict[Position, int] = {}
        parents: dict[Position, list[Position]] = {root: []}
        frontier = [root]
        while frontier:
            nxt = []
            for pos in frontier:
                kids = {self.child(*pos, move) for move in self.moves(*pos)}
                children[pos] = len(kids)
                for kid in kids:
                    if kid not in parents:
                        parents[kid] = []
                        nxt.append(kid)
                    parents[kid].append(pos)
            frontier = nxt
        return children, parents

    def reachable(self) -> set[Position]:
        """Every position reachable from the empty board with x to move, itself included; the
        same board with either side to move counts twice."""
        if self.spec not in _REACHABLE:  # many tests walk the same small game: once a process
            _REACHABLE[self.spec] = frozenset(self._graph()[0])
        return set(_REACHABLE[self.spec])

    def solve_all(self) -> dict[Position, Outcome]:
        """(value, depth) of every reachable position, for its side to move: WIN, DRAW or LOSS
        (1, 0, -1) and the plies to the end under perfect play (the winner takes the shortest
        win, the loser the longest loss); a draw (endless play) has depth None.

        Retrograde analysis by rounds of depth: round d holds the positions decided at depth d
        (round 0: the terminal ones). A parent of a loss at depth d, still undecided, wins at
        d + 1 (no loss of a child was shallower, or it would be decided already); a parent
        whose last undecided child is decided a win at depth d loses at d + 1 (every child a
        win, this one the deepest). What no round decides is a draw."""
        open_children, parents = self._graph()  # children not yet known to be wins
        _REACHABLE.setdefault(self.spec, frozenset(open_children))  # reachable() needs no walk
        result: dict[Position, Outcome] = {}
        frontier = []
        for pos, count in open_children.items():
            if count == 0:
                value = self.terminal_value(*pos)
                assert value is not None, pos
                result[pos] = (value, 0)
                frontier.append(pos)
        depth = 0
        while frontier:
            nxt = []
            for pos in frontier:
                lost = result[pos][0] == LOSS
                for parent in parents[pos]:
                    if parent in result:
                        continue
                    if lost:
                        result[parent] = (WIN, depth + 1)
                        nxt.append(parent)
                    else:
                        open_children[parent] -= 1
                        if open_children[parent] == 0:
                            result[parent] = (LOSS, depth + 1)
                            nxt.append(parent)
            frontier = nxt
            depth += 1
        for pos in open_children:
            if pos not in result:
                result[pos] = (DRAW, None)
        return result


# -- figures: python tests/reference_moving.py [spec ...] --------------------------------------
GAMES = ["3x3k3+stones3", "3x3k3+stones4", "3x3k3+stones3+jump", "4x3k3+stones3",
         "3x3k3+stones3+misere", "4x4k4+stones4+square"]
WORDS = {WIN: "win", DRAW: "draw", LOSS: "loss"}


@lru_cache(maxsize=None)
def solved_game(spec: str) -> tuple[MovingGame, dict[Position, Outcome]]:
    """`spec`'s game and its `solve_all`, once a process: several tests read the same game
    (the answer is a plain dict: read it, never change it)."""
    game = MovingGame(spec)
    return game, game.solve_all()


def report(spec: str) -> str:
    """One line of figures for `spec`, solved from scratch: positions (either side to move
    counted), wins, draws and losses, the empty board's outcome, the greatest depth, seconds."""
    start = time.perf_counter()
    game = MovingGame(spec)
    table = game.solve_all()
    seconds = time.perf_counter() - start
    wins, draws, losses = (sum(1 for v, _ in table.values() if v == value)
                           for value in (WIN, DRAW, LOSS))
    value, depth = table[game.root()]
    deepest = max(d for _, d in table.values() if d is not None)
    root = WORDS[value] + ("" if depth is None else f" {depth}")
    return (f"{spec:22} {len(table):>10,} {wins:>9,} {draws:>9,} {losses:>9,}  {root:8}"
            f" {deepest:>5} {seconds:>8.2f}")


if __name__ == "__main__":
    print(f"{'spec':22} {'positions':>10} {'wins':>9} {'draws':>9} {'losses':>9}  {'empty':8}"
          f" {'max d':>5} {'seconds':>8}")
    for name in sys.argv[1:] or GAMES:
        print(report(name), flush=True)

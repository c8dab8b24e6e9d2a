"""Deliberately simple, independent game code for the tests: its own board handling,
win check, symmetry and a plain recursive negamax. It shares no code with builder/. Games whose
stones move (+stonesN) have their own plain retrograde solver, tests/reference_moving.py,
re-exported here."""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from typing import Any

from tests.reference_moving import MovingGame as MovingGame

WIN, DRAW, LOSS = 1, 0, -1
# Games of at most SHARED_CELLS cells keep one negamax memo and one reachable set a process,
# whichever Game asks (many tests solve tic-tac-toe or 4x3k3 whole, a memo of 4x3k3 is tens of
# MB); a larger game's memo is its Game's own, freed with it.
SHARED_CELLS = 12
_SOLVES: dict[str, Callable[[tuple[int, ...]], tuple[int, int]]] = {}
_REACHABLE: dict[str, frozenset[tuple[int, ...]]] = {}


class Game:
    """A W x H board, k in a row, optional gravity, misere and exact (a run of exactly k wins,
    a longer one does not); cells row-major, row 0 on top."""

    def __init__(self, spec: str) -> None:
        m = re.fullmatch(r"(\d+)x(\d+)k(\d+)((?:\+\w+)*)", spec)
        assert m, spec
        self.w, self.h, self.k = int(m[1]), int(m[2]), int(m[3])
        flags = set(m[4].split("+")[1:])
        self.gravity, self.misere = "gravity" in flags, "misere" in flags
        self.exact = "exact" in flags
        self.n = self.w * self.h
        self.lines: list[tuple[int, ...]] = []
        for r in range(self.h):
            for c in range(self.w):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + dr * i, c + dc * i) for i in range(self.k)]
                    if all(0 <= rr < self.h and 0 <= cc < self.w for rr, cc in cells):
                        line = tuple(rr * self.w + cc for rr, cc in cells)
                        if line not in self.lines:
                            self.lines.append(line)
        # Each line's cells read at once (a tuple of k values, compared with k of one player's):
        # the same test as "every cell of some line is the player's", in C.
        self._read_lines = [itemgetter(*line, *line[:1]) for line in self.lines]
        self._full = {p: (p,) * (self.k + 1) for p in (1, 2)}
        # The images of the board of cell numbers say where each image takes its cells from:
        # the same naive images, read with one C call each.
        self._image_of = [itemgetter(*cells) for cells in self.images(tuple(range(self.n)))]
        self.spec = spec
        memo = lru_cache(maxsize=None)(self._solve)
        self.solve = _SOLVES.setdefault(spec, memo) if self.n <= SHARED_CELLS else memo

    # -- codes: cell i is the digit of 3**i ------------------------------------
    def code(self, board: tuple[int, ...]) -> int:
        # The cells as base-3 digits, the last cell the leading digit.
        return int("".join(map(str, board[::-1])), 3)

    def board(self, code: int) -> tuple[int, ...]:
        out = []
        for _ in range(self.n):
            out.append(code % 3)
            code //= 3
        return tuple(out)

    # -- rules ------------------------------------------------------------------
    def wins(self, board: tuple[int, ...], player: int) -> bool:
        if self.exact:
            return self._exact_run(board, player)
        full = self._full[player]
        return full in [read(board) for read in self._read_lines]

    def _exact_run(self, board: tuple[int, ...], player: int) -> bool:
        """Whether some run of the player's stones (a maximal one, in one of the four
        directions) is exactly k long, counted from its first stone."""
        def mine(r: int, c: int) -> bool:
            return 0 <= r < self.h and 0 <= c < self.w and board[r * self.w + c] == player

        for r in range(self.h):
            for c in range(self.w):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if not mine(r, c) or mine(r - dr, c - dc):
                        continue  # not the first stone of a run in this direction
                    length = 0
                    while mine(r + dr * length, c + dc * length):
                        length += 1
                    if length == self.k:
                        return True
        return False

    def stones(self, board: tuple[int, ...]) -> int:
        return self.n - board.count(0)

    def terminal_value(self, board: tuple[int, ...]) -> int | None:
        """Value for the side to move if the game is over."""
        n = self.stones(board)
        last = 1 if n % 2 == 1 else 2
        if n and self.wins(board, last):
            return WIN if self.misere else LOSS
        if n == self.n:
            return DRAW
        return None

    def moves(self, board: tuple[int, ...]) -> list[int]:
        if self.terminal_value(board) is not None:
            return []
        return self.open_cells(board)

    def open_cells(self, board: tuple[int, ...]) -> list[int]:
        """Where a stone may go, whether or not the game is over."""
        out = []
        for i, v in enumerate(board):
            if v == 0:
                below = i + self.w
                if not self.gravity or below >= self.n or board[below] != 0:
                    out.append(i)
        return out

    def child(self, board: tuple[int, ...], cell: int) -> tuple[int, ...]:
        mover = 1 if self.stones(board) % 2 == 0 else 2
        b = list(board)
        b[cell] = mover
        return tuple(b)

    # -- symmetry ---------------------------------------------------------------
    def images(self, board: tuple[int, ...]) -> list[tuple[int, ...]]:
        """All images under the board's symmetries (listed naively, duplicates allowed)."""
        grid = [list(board[r * self.w:(r + 1) * self.w]) for r in range(self.h)]

        def flat(g: list[list[int]]) -> tuple[int, ...]:
            return tuple(v for row in g for v in row)

        lr = [row[::-1] for row in grid]
        out = [flat(grid), flat(lr)]
        if not self.gravity:
            ud = grid[::-1]
            out += [flat(ud), flat([row[::-1] for row in ud])]
            if self.w == self.h:
                t = [list(col) for col in zip(*grid)]
                out += [flat(t), flat([row[::-1] for row in t]), flat(t[::-1]),
                        flat([row[::-1] for row in t[::-1]])]
        return out

    def canonical(self, board: tuple[int, ...]) -> int:
        if self.n < 2:  # itemgetter of one cell gives the cell, not a tuple
            return min(self.code(b) for b in self.images(board))
        return min(self.code(image(board)) for image in self._image_of)

    # -- plain recursive negamax --------------------------------------------------
    def _solve(self, board: tuple[int, ...]) -> tuple[int, int]:
        """(value, depth) for the side to move: shortest win, longest loss."""
        done = self.terminal_value(board)
        if done is not None:
            return done, 0
        best: tuple[int, int] | None = None
        for cell in self.open_cells(board):  # the game is not over: done is None
            v, d = self.solve(self.child(board, cell))
            mine = (-v, d + 1)
            if best is None or better(mine, best):
                best = mine
        assert best is not None
        return best

    # -- reachable positions ------------------------------------------------------
    def reachable(self) -> set[tuple[int, ...]]:
        if self.n > SHARED_CELLS:
            return reachable_from(self, tuple([0] * self.n))
        if self.spec not in _REACHABLE:
            _REACHABLE[self.spec] = frozenset(reachable_from(self, tuple([0] * self.n)))
        return set(_REACHABLE[self.spec])


@lru_cache(maxsize=None)
def shared_game(spec: str) -> Game:
    """One Game a spec for the process, its negamax memo with it: a board past SHARED_CELLS
    keeps its memo in its Game, and tests that solve the same positions of it again (the
    gravity search's parts, the prover's zones, graded play) share this one."""
    return Game(spec)


def better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether outcome a is better than b for the side choosing."""
    if a[0] != b[0]:
        return a[0] > b[0]
    if a[0] == WIN:
        return a[1] < b[1]
    if a[0] == LOSS:
        return a[1] > b[1]
    return False


def reachable_from(game: Game, root: tuple[int, ...],
                   plies: int | None = None) -> set[tuple[int, ...]]:
    """Every board reachable from `root` (itself included), by plain breadth-first search;
    with `plies`, those within that many moves of it."""
    seen = {root}
    frontier = [root]
    for _ in range(game.n if plies is None else plies):
        nxt = []
        for b in frontier:
            for cell in game.moves(b):
                c = game.child(b, cell)
                if c not in seen:
                    seen.add(c)
                    nxt.append(c)
        frontier = nxt
    return seen


def random_positions(game: Game, stones: range, count: int, seed: int) -> list[tuple[int, ...]]:
    """`count` distinct positions of random games, not over, with a number of stones in
    `stones` (each game played to a target drawn from `stones`), sorted."""
    rng, found = random.Random(seed), set()
    while len(found) < count:
        board, target = tuple([0] * game.n), rng.choice(stones)
        for _ in range(target):
            if not game.moves(board):
                break
            board = game.child(board, rng.choice(game.moves(board)))
        if game.stones(board) == target and game.terminal_value(board) is None:
            found.add(board)
    return sorted(found)


def parse(game: Game, text: str) -> tuple[int, ...]:
    """Board text ('x.o/.x./...', rows top to bottom) as cell values, read independently."""
    flat = text.replace("/", "")
    assert len(flat) == game.n, text
    return tuple(".xo".index(ch) for ch in flat)


def play(game: Game, moves: str) -> tuple[int, ...]:
    """The board after moves like 'd1 d2 c1' (column letter, row number from the bottom)."""
    board = tuple([0] * game.n)
    for move in moves.split():
        col = ord(move[0]) - ord("a")
        row = game.h - int(move[1:])
        cell = row * game.w + col
        assert cell in game.moves(board), (moves, move)
        board = game.child(board, cell)
    return board


# -- plain AND/OR search for short forced wins on boards too big to solve (no gravity) --------
# Two obviously sound shortcuts only: a side that can complete a line does; a side facing two
# cells where the other completes a line (and none of its own) loses within two plies, and
# facing one, only blocking it can last longer.

def completing(game: Game, board: tuple[int, ...], player: int) -> list[int]:
    """The empty cells where `player` would complete a line."""
    if game.exact or game.wins(board, player):  # then try each cell: a move may make an overline
        return [c for c in game.open_cells(board)
                if game.wins(board[:c] + (player,) + board[c + 1:], player)]
    # Otherwise a stone completes a line exactly where the line's other k - 1 cells are its own.
    gaps = set()
    for line in game.lines:
        empty = [c for c in line if board[c] == 0]
        if len(empty) == 1 and all(board[c] in (0, player) for c in line):
            gaps.add(empty[0])
    return [c for c in game.open_cells(board) if c in gaps]


def wins_within(game: Game, board: tuple[int, ...], d: int,
                choose: Callable[[tuple[int, ...]], int | None] | None = None,
                memo: dict | None = None) -> bool:
    """Whether the side to move wins within d plies. With `choose`, only the move it picks is
    tried where the winner moves (every defence is still tried): a check of someone else's
    proof, fast; without, every move is tried: plain, exhaustive, slow."""
    memo = {} if memo is None else memo
    key = ("or", board, d)
    if key not in memo:
        memo[key] = _or(game, board, d, choose, memo)
    return memo[key]


def _or(game: Game, board: tuple[int, ...], d: int, choose: Any, memo: dict) -> bool:
    if game.terminal_value(board) is not None or d < 1:
        return False
    me = 1 if game.stones(board) % 2 == 0 else 2
    if completing(game, board, me):
        return True
    if d < 3:
        return False  # no line now, and the other side moves next
    if choose is not None:
        cell = choose(board)
        cells = [] if cell is None or cell not in game.open_cells(board) else [cell]
    else:
        blocks = completing(game, board, 3 - me)
        cells = blocks[:1] if blocks else game.open_cells(board)
    return any(loses_within(game, game.child(board, c), d - 1, choose, memo) for c in cells)


def loses_within(game: Game, board: tuple[int, ...], d: int,
                 choose: Callable[[tuple[int, ...]], int | None] | None = None,
                 memo: dict | None = None) -> bool:
    """Whether the side to move loses within d plies whatever it plays (see wins_within)."""
    memo = {} if memo is None else memo
    done = game.terminal_value(board)
    if done is not None:
        return done == LOSS
    if d < 2:
        return False
    me = 1 if game.stones(board) % 2 == 0 else 2
    if completing(game, board, me):
        return False
    threats = completing(game, board, 3 - me)
    if len(threats) >= 2:
        return True
    cells = threats if threats else game.open_cells(board)
    return all(wins_within(game, game.child(board, c), d - 1, choose, memo) for c in cells)


# -- the plain negamax of a board with few empty cells, however large the board -------------------

class FewEmpty:
    """The plain negamax (value, depth: shortest win, longest loss) of a board with few empty
    cells on a board of any size (normal rules, no gravity, no +exact), and of every board play
    reaches from it: the memo keyed by the stones on those cells alone, a line checked only
    among the lines through the stone just played (only that stone can complete one)."""

    def __init__(self, game: Game, root: tuple[int, ...]) -> None:
        assert not (game.gravity or game.misere or game.exact), "normal rules only"
        assert game.terminal_value(root) is None, "a game not over"
        self.game, self.root = game, root
        self.empty = [c for c, v in enumerate(root) if v == 0]
        where = {c: i for i, c in enumerate(self.empty)}
        # For each player and empty cell i: the lines through it without a stone of the other
        # player, each as the set of its empty cells (bit j: self.empty[j]); a stone on i
        # completes such a line once the player holds every cell of that set.
        self.through: dict[int, list[list[int]]] = {p: [[] for _ in self.empty] for p in (1, 2)}
        for line in game.lines:
            for p in (1, 2):
                if all(root[c] in (0, p) for c in line):
                    cells = sum(1 << where[c] for c in line if root[c] == 0)
                    for c in line:
                        if root[c] == 0:
                            self.through[p][where[c]].append(cells)
        self.memo: dict[tuple[int, int], tuple[int, int]] = {}

    def solve(self, board: tuple[int, ...]) -> tuple[int, int]:
        """(value, depth) for the side to move of `board`: the root with stones added on its
        empty cells (by play: the game not over before the last)."""
        assert all(board[c] == v for c, v in enumerate(self.root) if v), "not from the root"
        done = self.game.terminal_value(board)
        if done is not None:
            return done, 0
        x = sum(1 << i for i, c in enumerate(self.empty) if board[c] == 1)
        o = sum(1 << i for i, c in enumerate(self.empty) if board[c] == 2)
        return self._solve(x, o)

    def _solve(self, x: int, o: int) -> tuple[int, int]:
        key = (x, o)
        if key not in self.memo:
            stones = self.game.stones(self.root) + bin(x | o).count("1")
            me = 1 if stones % 2 == 0 else 2
            mine = x if me == 1 else o
            free = [i for i in range(len(self.empty)) if not (x | o) >> i & 1]
            # A move that completes a line wins in 1, the best there is: the others need no look.
            if any((mine | 1 << i) & cells == cells for i in free
                   for cells in self.through[me][i]):
                self.memo[key] = (WIN, 1)
                return (WIN, 1)
            best: tuple[int, int] | None = None
            for i in free:
                if len(free) == 1:
                    result = (DRAW, 1)  # the last cell, and no line: the board is full
                else:
                    v, d = self._solve(x | 1 << i, o) if me == 1 else self._solve(x, o | 1 << i)
                    result = (-v, d + 1)
                if best is None or better(result, best):
                    best = result
            assert best is not None  # the board is not full: _solve is not asked about one
            self.memo[key] = best
        return self.memo[key]


# -- a side's forced line with the turn given, whatever the stone counts ------------------------

def can_force_line(game: Game, board: tuple[int, ...], player: int, to_move: int,
                   memo: dict | None = None) -> bool:
    """Whether `player` (1 or 2) can force a line of theirs from `board` with `to_move` moving
    next, the counts of stones being free (extra stones of one side allowed): a line of the
    other side ends the game first, a full board is a draw (normal rules, no gravity)."""
    memo = {} if memo is None else memo
    key = (board, player, to_move)
    if key not in memo:
        if game.wins(board, player):
            memo[key] = True
        elif game.wins(board, 3 - player) or 0 not in board:
            memo[key] = False
        else:
            children = [board[:c] + (to_move,) + board[c + 1:]
                        for c, v in enumerate(board) if v == 0]
            results = (can_force_line(game, child, player, 3 - to_move, memo)
                       for child in children)
            memo[key] = any(results) if to_move == player else all(results)
    return memo[key]

"""A solver with a horizon for games whose stones move (`+stonesN`, with or without `+jump`),
as a student's might be: negamax cut at HORIZON plies, the horizon scored as a draw. Right
wherever the game ends within the horizon; wrong (a draw) on longer wins and losses. k in a
row on any board; the board's size comes from its text, k, N and +jump from the spec.
Standalone: it imports nothing of the project.

    cd tests/audit_samples && tablebase audit 3x3k3+stones3 --solver moving_horizon:solve
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter

HORIZON = 6

Rules = tuple[int, int, int, int, bool]  # width, height, k, stones a side, jump


@lru_cache(maxsize=None)
def _lines(width: int, height: int, k: int) -> tuple[tuple[int, ...], ...]:
    found = []
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= y < height and 0 <= x < width for y, x in cells):
                    found.append(tuple(y * width + x for y, x in cells))
    return tuple(found)


@lru_cache(maxsize=None)
def _line_readers(width: int, height: int, k: int) -> tuple[Callable[[str], object], ...]:
    """Each line's cells read in one call (k > 1: a tuple), to compare with a side's k stones:
    the search's most frequent question, asked this way the search takes half the time."""
    return tuple(itemgetter(*line) for line in _lines(width, height, k))


@lru_cache(maxsize=None)
def _targets(rules: Rules, cell: int) -> tuple[int, ...]:
    width, height, _, _, jump = rules
    r, c = divmod(cell, width)
    return tuple(d for d in range(width * height) if d != cell
                 and (jump or max(abs(d // width - r), abs(d % width - c)) == 1))


def _name(width: int, height: int, cell: int) -> str:
    return "abcdefghij"[cell % width] + str(height - cell // width)


def _moves(rules: Rules, cells: str, me: str) -> list[tuple[int | None, int]]:
    if cells.count(me) < rules[3]:
        return [(None, c) for c, v in enumerate(cells) if v == "."]
    return [(a, b) for a, v in enumerate(cells) if v == me
            for b in _targets(rules, a) if cells[b] == "."]


@lru_cache(maxsize=None)
def _search(rules: Rules, cells: str, me: str, depth: int) -> tuple[int, str | None]:
    """(value for `me`, a best move) within `depth` plies; the horizon counts as a draw."""
    width, height, k = rules[:3]
    other = "o" if me == "x" else "x"
    full = other if k == 1 else (other,) * k
    if any(read(cells) == full for read in _line_readers(width, height, k)):
        return -1, None  # the other side has just made a line
    options = _moves(rules, cells, me)
    if not options:
        return -1, None  # no step: a loss
    if depth == 0:
        return 0, None
    best, best_move = -2, None
    for a, b in options:
        after = list(cells)
        if a is not None:
            after[a] = "."
        after[b] = me
        value = -_search(rules, "".join(after), other, depth - 1)[0]
        if value > best:
            name = _name(width, height, b)
            best = value
            best_move = name if a is None else f"{_name(width, height, a)}-{name}"
            if best == 1:
                break  # a win: no later move can do better (nor replace it: only a better one does)
    return best, best_move


def solver(horizon: int) -> Callable[[str, str, str], tuple[int, str | None]]:
    """A solve(board, to_move, spec) that looks `horizon` plies ahead."""
    def solve(board: str, to_move: str, spec: str) -> tuple[int, str | None]:
        m = re.fullmatch(r"(\d+)x(\d+)k(\d+)(.*)", spec)
        stones = re.search(r"\+stones(\d+)", spec)
        if m is None or stones is None:
            raise ValueError(f"not a game whose stones move: {spec}")
        rules = (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(stones.group(1)),
                 "+jump" in spec)
        return _search(rules, board.replace("/", ""), to_move, horizon)
    return solve


def solve(board: str, to_move: str, spec: str) -> tuple[int, str | None]:
    """(value, move) for the side to move, looking HORIZON plies ahead."""
    return solver(HORIZON)(board, to_move, spec)

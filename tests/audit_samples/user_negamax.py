"""A user's tic-tac-toe negamax, as the README's "Audit your solver" shows it: it answers
(value, move) for the side to move. It has a bug the audit finds (see LINES)."""
from functools import lru_cache

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8),   # rows
         (0, 3, 6), (1, 4, 7), (2, 5, 8),   # columns
         (0, 4, 8)]                         # a diagonal (the other one, 2 4 6, is forgotten)


def solve(board, to_move):
    """board: 'x.o/.x./...' (rows top to bottom); to_move: 'x' or 'o'."""
    value, cell = negamax(board.replace("/", ""), to_move)
    return value, None if cell is None else "abc"[cell % 3] + str(3 - cell // 3)


@lru_cache(maxsize=None)
def negamax(cells, me):
    other = "o" if me == "x" else "x"
    if any(cells[a] == cells[b] == cells[c] == other for a, b, c in LINES):
        return -1, None                     # the opponent just made three in a row
    if "." not in cells:
        return 0, None
    best, best_cell = -2, None
    for i, c in enumerate(cells):
        if c == ".":
            value, _ = negamax(cells[:i] + me + cells[i + 1:], other)
            if -value > best:
                best, best_cell = -value, i
    return best, best_cell

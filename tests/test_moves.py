"""The compiled search's move order (query/search/moves.py `order`) against its rule written
plainly: each move weighed by the lines through it (a line free of the other side's stones
weighs 2 ** (2a + 1) for the mover's a stones on it, one free of the mover's 2 ** 2b for the
other side's b; misere: the lightest first), the table's move first, ties in the given order."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.search.board import Board
from tablebase.query.search.moves import order


def _plain(b: Board, moves: list[int], first: int, me: int) -> list[int]:
    def weight(c: int) -> int:
        key = 0
        for j in range(b.cl_off[c], b.cl_off[c + 1]):
            a, o = int(b.cnt[me, b.cl_idx[j]]), int(b.cnt[1 - me, b.cl_idx[j]])
            key += (1 << min(2 * a + 1, 40) if o == 0 else 0) + (1 << min(2 * o, 40) if a == 0 else 0)
        return 1 << 50 if c == first else -key if b.spec.misere else key
    return sorted(moves, key=lambda c: -weight(c))  # stable: ties keep the given order


@pytest.mark.parametrize("spec_text", ["8x8k5", "9x9k5", "4x4k3+misere"])
def test_the_order_is_the_rule_written_plainly(spec_text: str) -> None:
    spec, rng = parse_spec(spec_text), random.Random(4)
    b = Board(spec, slots_log2=1)
    for _ in range(40):
        board = [0] * spec.cells
        for i, c in enumerate(rng.sample(range(spec.cells), rng.randint(0, spec.cells // 2))):
            board[c] = 1 + i % 2
        b.load(board)
        moves = [c for c in range(spec.cells) if board[c] == 0]
        rng.shuffle(moves)
        first = rng.choice(moves + [-1]) if moves else -1
        me = b.placed % 2
        out, keys = np.array(moves + [0], dtype=np.int64), np.zeros(len(moves) + 1, np.int64)
        order(b.par, b.cl_off, b.cl_idx, b.cnt, out, keys, len(moves), first, me)
        assert out[:len(moves)].tolist() == _plain(b, moves, first, me), board

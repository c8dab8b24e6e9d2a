"""builder/games/grid/decoding.py: a code's images, stones and legal moves read from the decoding table,
against the codec's digits and the rules written out cell by cell."""
from __future__ import annotations

import numpy as np
import pytest

from tablebase.builder.games.grid import decoding, parse_spec
from tablebase.builder.games.grid.boards import play_moves
from tablebase.builder.games.grid.codec import digits, weighted_sum
from tablebase.builder.games.grid.root import Root


@pytest.mark.parametrize("spec_text, moves, step", [
    ("4x4k4", "", -1), ("5x4k4+gravity", "", 5),
    ("7x7k5", "d4 d5 c4 a1 b1 c1 e1 f1 g1 a2 b2 c2 e2 f2 g2 a3", -1),
    ("7x6k4+gravity", "d1 d2 c1 e1 c2 c3", 0)])  # step 0: no one step to the cell below
def test_decoding_by_table_finds_images_stones_and_moves(spec_text: str, moves: str,
                                                         step: int) -> None:
    spec = parse_spec(spec_text)
    root = Root(spec, play_moves(spec, moves)) if moves else Root.whole(spec)
    codes = np.random.default_rng(5).integers(0, 3 ** root.cells, 2_000)
    table = decoding.digit_table(np.ascontiguousarray(root.image_weights))
    below = np.ascontiguousarray(root.below)
    bottom, found_step = decoding.gravity_support(below)
    assert found_step == step or not spec.gravity
    img = np.empty(len(root.symmetries), dtype=np.int64)
    boards = digits(codes, root.cells)

    def bits(cells: list[int]) -> int:
        return sum(1 << c for c in cells)

    for code, board, images in zip(codes, boards, weighted_sum(boards, root.image_weights)):
        occupied, xs = decoding.decode(int(code), table, img)
        assert img.tolist() == images.tolist()
        assert occupied == bits([c for c in range(root.cells) if board[c]])
        assert xs == bits([c for c in range(root.cells) if board[c] == 1])
        # Legal, as the kernels tested cell by cell before: empty, and with gravity resting on
        # the root's stones, the bottom row or a stone.
        legal = [c for c in range(root.cells) if board[c] == 0 and (
            not spec.gravity or below[c] < 0 or board[below[c]] != 0)]
        assert int(decoding.moves_of(occupied, root.cells, spec.gravity, bottom, found_step,
                                  below)) == bits(legal)

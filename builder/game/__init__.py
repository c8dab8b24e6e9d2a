"""The rules kernel: spec, geometry, base-3 codec, symmetry group, rules and values.

A leaf package: it imports only the standard library and numpy.
"""
from __future__ import annotations

from builder.game.codec import EMPTY, O, X, decode, digits, encode
from builder.game.errors import GameError, InvalidPositionError, InvalidSpecError
from builder.game.rules import (check_position, legal_moves, open_cells, outcome, play,
                                side_to_move)
from builder.game.spec import MAX_CELLS, Spec, parse_spec
from builder.game.symmetry import (canonical, canonical_board, canonical_many, permutations,
                                   transform)
from builder.game.values import WIN_SCORE, Value, score

__all__ = [
    "EMPTY", "O", "X", "MAX_CELLS", "WIN_SCORE",
    "GameError", "InvalidPositionError", "InvalidSpecError",
    "Spec", "Value",
    "canonical", "canonical_board", "canonical_many", "check_position", "decode", "digits",
    "encode", "legal_moves", "open_cells", "outcome", "parse_spec", "permutations", "play", "score",
    "side_to_move", "transform",
]

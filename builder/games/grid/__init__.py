"""The grid games' rules: spec, geometry, base-3 codec, symmetry group, rules.

A leaf package: it imports only the standard library and numpy (and numba, on first use of
move orders).
"""
from __future__ import annotations

from tablebase.builder.games.errors import GameError, InvalidPositionError, InvalidSpecError
from tablebase.builder.games.grid.codec import EMPTY, O, X, decode, digits, encode
from tablebase.builder.games.grid.rules import (
                                          PLAYER_NAMES,
                                          check_position,
                                          legal_moves,
                                          mover_at,
                                          open_cells,
                                          outcome,
                                          parents,
                                          play,
                                          side_to_move,
)
from tablebase.builder.games.grid.spec import MAX_CELLS, Spec, parse_spec
from tablebase.builder.games.grid.symmetry import (
                                          canonical,
                                          canonical_board,
                                          canonical_board_map,
                                          canonical_many,
                                          permutations,
                                          transform,
)
from tablebase.builder.games.values import Value

__all__ = [
    "EMPTY", "O", "X", "MAX_CELLS", "PLAYER_NAMES",
    "GameError", "InvalidPositionError", "InvalidSpecError",
    "Spec", "Value",
    "canonical", "canonical_board", "canonical_board_map", "canonical_many", "check_position",
    "decode", "digits",
    "encode", "legal_moves", "mover_at", "open_cells", "outcome", "parents", "parse_spec",
    "permutations",
    "play",
    "side_to_move", "transform",
]

"""A grid game as the generic layers use it: one object a spec (`grid_game` in registry.py)
whose methods are a turn of play, written and read: the start, the side to move, the legal
moves, a move played and named, a position read from what a user gives and written as text.
The faces that play whole games (play, the GTP engine, the audit's games and strategies) and
the answers (query/tablebase.py) go through it and never ask which family they hold.

A position is a tuple of cell values (0 empty, 1 x, 2 o, row-major from the top-left); where
the stones do not always say whose turn it is (stones that move: ../stones/game.py), the side
to move follows the cells. A move is a Move (../move.py): `start` None for a placement, else the
cell a stone leaves; `cell` where it goes (no capture here: `take` is None).

    position                          move        named
    (0,0,0, 0,0,0, 0,0,0)             Move(None, 4)   b2      a placement (3x3k3)
    (1,2,0, 0,1,2, 1,0,2, 2)          Move(1, 2)      b3-c3   a step; o (2) to move

This module is m,n,k's (a stone, once placed, stays), the base of the other grid families'
(../gravity/game.py, ../stones/game.py).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablebase.builder.games.errors import InvalidPositionError
from tablebase.builder.games.grid.boards import Reading, parse_move, place
from tablebase.builder.games.grid.codec import EMPTY, encode, encode_many
from tablebase.builder.games.grid.geometry import line_ends, lines
from tablebase.builder.games.grid.notation import (
    PLAYER_NAMES,
    board_text,
    digit_board_texts,
    draw_board,
    listed_name,
    move_name,
)
from tablebase.builder.games.grid.orders import move_orders, stone_order
from tablebase.builder.games.grid.position_text import read_position
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.grid.root_check import root_of
from tablebase.builder.games.grid.rules import (
    legal_moves,
    open_cells,
    outcome,
    side_to_move,
    stones_on,
)
from tablebase.builder.games.grid.spec import Spec
from tablebase.builder.games.grid.symmetry import canonical_board, transform
from tablebase.builder.games.move import Move, placements


class GridGame:
    """A game whose stones, once placed, stay (m,n,k in a row; +gravity; +misere; +exact).
    Every position's draw is a finished one or leads to one: a draw has a depth."""

    # Whether a position can come back in play (then strategies are graphs, and a line may
    # stop at a repeat), and whether a draw has a depth (plies to a full board; none where a
    # draw is one by endless play).
    positions_repeat = False
    draws_have_depth = True
    # Whether the rules can say which positions a table's root reaches (an order of moves:
    # orders.py), so that a position a table lacks tells damage from a position out of reach.
    reach_known = True
    # Whether every move puts a stone down (none moves one): a course test file's games.
    moves_are_placements = True
    # Whether a stone may go to any empty cell (no drop, no step): the course dialect's games.
    moves_anywhere = True
    # Whether a placed stone falls to the lowest empty cell of its column (what the search's
    # kernels and the bitboard solver play: ../gravity/).
    drops = False
    # Which of verify's independent checkers re-derives the cyclic tier of this family's tables
    # (query/verify/checks.py names them): None where its tables have no cyclic tier.
    cyclic_checker: str | None = None

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    def start(self) -> tuple[int, ...]:
        """The empty board as a position (x to move)."""
        return (EMPTY,) * self.spec.cells

    def mover(self, position: Sequence[int]) -> int:
        """The side to move (X or O)."""
        return side_to_move(position)

    def side(self, position: Sequence[int]) -> str:
        """The side to move, 'x' or 'o'."""
        return PLAYER_NAMES[self.mover(position)]

    def on_board(self, position: Sequence[int]) -> int:
        """The stones on the board."""
        return stones_on(position[:self.spec.cells])

    def board(self, position: Sequence[int]) -> tuple[int, ...]:
        """The cells of a position (without the side to move, where one follows them)."""
        return tuple(position[:self.spec.cells])

    def legal(self, position: Sequence[int]) -> list[Move]:
        """Every legal move, in the rules' order (placements by cell, steps by their start);
        empty once the game is over."""
        return placements(legal_moves(self.spec, position))

    def continuations(self, position: Sequence[int]) -> list[Move]:
        """`legal`'s moves without asking whether the game is over (where a table already
        says it is not: the answers' hot path)."""
        return placements(open_cells(self.spec, position))

    def outcome(self, position: Sequence[int]) -> int | None:
        """The value (1, 0, -1) for the side to move where the game is over, else None."""
        found = outcome(self.spec, position)
        return None if found is None else int(found)

    def read_move(self, position: Sequence[int], text: str) -> Move:
        """The move a name plays (`b2`, `a1-b2`); NotationError if it cannot be read,
        IllegalMoveError if it may not be played now."""
        return Move(None, parse_move(self.spec, position, text))

    def played(self, position: Sequence[int], move: Move) -> tuple[int, ...]:
        """The position after `move` (a legal one: `read_move` or `legal` gives them)."""
        return place(position, move.cell)

    def children(self, position: Sequence[int], moves: Sequence[Move]) -> list[tuple[int, ...]]:
        """`played` of each of `moves` from one position (its side to move found once)."""
        mover = self.mover(position)
        return [place(position, move.cell, mover) for move in moves]

    def name(self, move: Move) -> str:
        """A move's name: `b2` for a placement, `a1-b2` for a step."""
        start, to = move.start, move.cell
        return move_name(self.spec, to) if start is None else \
            f"{move_name(self.spec, start)}-{move_name(self.spec, to)}"

    def image(self, position: Sequence[int], s: int) -> tuple[int, ...]:
        """The position under symmetry map `s` (the side to move stays)."""
        if not s:  # the identity: most look-ups (a whole-board table's)
            return tuple(position)
        cells = self.spec.cells
        return transform(self.spec, position[:cells], s) + tuple(position[cells:])

    def read(self, position: object = None, moves: str | None = None,
             compiled: bool = False) -> Reading:
        """The position given in any form a user may give it (builder/games/grid/position_text.py),
        then `moves` played: a Reading."""
        return read_position(self.spec, position, moves, compiled)  # type: ignore[arg-type]

    def text(self, position: Sequence[int]) -> str:
        """The position as board text (and the side to move, where the stones do not say it)."""
        return board_text(self.spec, position)

    def picture(self, position: Sequence[int]) -> str:
        """The position drawn as a grid of named cells, for reports (verify's findings)."""
        return draw_board(self.spec, position[:self.spec.cells])

    def code(self, position: Sequence[int]) -> int:
        """The whole-board code of a position (not canonical)."""
        return encode(position)

    def codes_of(self, positions: np.ndarray) -> np.ndarray:
        """`code` of many positions at once (rows of cell values, as position_texts.py reads them)."""
        return encode_many(positions) if len(positions) else np.empty(0, dtype=np.int64)

    def canonical_code(self, position: Sequence[int]) -> int:
        """The code the whole-board table stores `position` under: its smallest over the
        board's symmetries."""
        return canonical_board(self.spec, position)

    def build_root(self, position: Sequence[int] | None = None) -> Root:
        """The root of a table to build: the empty board where `position` is None or empty,
        else the position, checked (root_check.py)."""
        return root_of(self.spec, position)

    def table_root(self, key: str) -> Root:
        """The root of a stored table of this game, from the catalogue's key of it ('' for
        the whole board): what its codes are over (grid/root.py)."""
        return Root.from_key(self.spec, key)

    def move_fields(self, move: Move) -> dict[str, str | None]:
        """What an answer's JSON says of a move beyond its name: nothing where stones stay."""
        return {}

    def ply_fields(self, ply: int) -> dict[str, int | str]:
        """The key of a stored ply in counts by ply: `{"ply": stones}`."""
        return {"ply": ply}

    def rules_text(self) -> str:
        """The rules in words, as `info` shows them: `k in a row wins, stones drop (gravity)`."""
        spec = self.spec
        row = "exactly k in a row" if spec.exact else "k in a row"
        said = f"misère: {row} loses" if spec.misere else f"{row} wins"
        return said

    def ply_label(self, ply: int) -> str:
        """A stored ply as `info` shows it: its stones."""
        return str(ply)

    def layout(self) -> dict[str, object]:
        """What the page draws the board from (`/api/SPEC/layout`): its points, each with its
        name and place (`x` from the left, `y` from the top, in a `width` by `height`
        drawing), the start's text, how stones land (`drops`), how many each side has where
        they move (`stones_each`, 0: every stone placed), whether squares win, the run that
        wins (`k`, `exact`), and its title."""
        spec = self.spec
        points = [{"name": move_name(spec, cell), "x": cell % spec.width, "y": cell // spec.width}
                  for cell in range(spec.cells)]
        return {"spec": spec.name, "title": self.title(), "width": spec.width,
                "height": spec.height, "cells": spec.cells, "points": points,
                "start": self.text(self.start()), "k": spec.k, "exact": spec.exact,
                "drops": self.drops, "stones_each": spec.stones, "squares": spec.square,
                "lines": self.drawn_lines()}

    def drawn_lines(self) -> list[dict[str, object]]:
        """Every line that wins (geometry.py's, squares included) as the page draws it: its
        cells, the cells beyond its ends that must not be the player's (none: -1), and
        `closed` for a 2x2 square, its cells in order round it."""
        spec = self.spec
        rows, ends = lines(spec).tolist(), line_ends(spec).tolist()
        squares = (spec.width - 1) * (spec.height - 1) if spec.square else 0
        drawn: list[dict[str, object]] = []
        for i, (row, beyond) in enumerate(zip(rows, ends)):
            cells = list(dict.fromkeys(row))  # a shorter line repeats its first cell
            closed = i >= len(rows) - squares
            if closed:  # (r, c), (r, c+1), (r+1, c), (r+1, c+1): round the square
                cells = [cells[0], cells[1], cells[3], cells[2]]
            drawn.append({"cells": cells, "ends": beyond, "closed": closed})
        return drawn

    def title(self) -> str:
        """The game as people know it: `tic-tac-toe`, `Connect Four 7x6`, `Gomoku 15x15`,
        `Teeko`, else its size and rules in words (or its spec)."""
        spec = self.spec
        w, h, k, name = spec.width, spec.height, spec.k, spec.name
        misere = (" misère" if spec.misere else "") + (f", exactly {k}" if spec.exact else "")
        if name == "5x5k4+stones4+square":
            return "Teeko"
        moving = (f", {spec.stones} {'jumping' if spec.jump else 'moving'} stones"
                  + (", squares win" if spec.square else "")) if spec.stones else ""
        if name.startswith("3x3k3") and not spec.gravity:
            return f"tic-tac-toe{misere}{moving}"
        if spec.gravity and k == 4:
            return f"Connect Four {w}x{h}{misere}"
        if not spec.gravity and k == 5:
            return f"Gomoku {w}x{h}{misere}"
        return f"{w}x{h}, {k} in a row{misere}{moving}" if moving else name

    def how_to_move(self) -> str:
        """How a player writes a move, for `play`'s first line."""
        spec = self.spec
        example = move_name(spec, spec.cells - spec.width)
        return f"Moves are a column letter and a row number, such as {example}"

    def moves_reaching(self, position: Sequence[int]) -> list[Move]:
        """Moves from the start, x first, that reach `position` with every move legal (an
        engine is put into a position so); InvalidPositionError where none does,
        SearchLimitError where the search gave up."""
        order = stone_order(self.spec, position)
        if order is None:
            raise InvalidPositionError(f"no order of moves reaches {self.text(position)!r}")
        return placements(order)

    # --- many positions at once, as an export writes them: boards as (N, cells) digit arrays

    def stones_of_plies(self, plies: np.ndarray) -> np.ndarray:
        """The stones on the board at each of a table's stored plies (its `ply` column)."""
        return plies

    # Whether an endgame table's positions can be listed with moves from the empty board.
    endgame_moves_listed = True

    def sides_of(self, codes: np.ndarray, stones: np.ndarray) -> np.ndarray:
        """The side to move of each position of codes holding `stones` stones (0 x, 1 o)."""
        return stones % 2

    def texts_of(self, boards: np.ndarray, stones: np.ndarray, sides: np.ndarray) -> list[str]:
        """The text of each position (`text`'s, for many)."""
        return digit_board_texts(self.spec, boards)

    def move_lists(self, boards: np.ndarray, stones: np.ndarray, sides: np.ndarray) -> list[str]:
        """For each position, moves from the empty board, x first, that reach it (as a move
        list names them: column letters alone with gravity); InvalidPositionError where none
        does (a damaged table), SearchLimitError where the search gave up."""
        return listed_moves(self.spec, move_orders(self.spec, boards), stones)


def listed_moves(spec: Spec, orders: np.ndarray, ply: np.ndarray) -> list[str]:
    """Each row of cells (padded with -1, which names "") as a move list's names joined by
    spaces, its first `ply` moves."""
    named = _listed_names(spec)[orders].tolist()
    return [" ".join(row[:p]) for row, p in zip(named, ply.tolist())]


def _listed_names(spec: Spec) -> np.ndarray:
    """Each cell's name in a move list, then "" for -1."""
    return np.array([listed_name(spec, c) for c in range(spec.cells)] + [""])

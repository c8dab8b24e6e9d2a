"""Stones that move (`+stonesN`) as the generic layers use a grid game (../grid/game.py): a
position is its cells followed by the side to move, moves are placements and then steps
(`a1-b2`), and a draw is a draw by endless play, with no depth."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablebase.builder.games.errors import InvalidPositionError
from tablebase.builder.games.grid.boards import Reading
from tablebase.builder.games.grid.codec import EMPTY, X
from tablebase.builder.games.grid.game import GridGame, listed_moves
from tablebase.builder.games.grid.notation import digit_board_texts, move_name, to_move_name
from tablebase.builder.games.grid.orders import FOUND, move_orders, order_status
from tablebase.builder.games.move import Move
from tablebase.builder.games.stones import reaching, rules
from tablebase.builder.games.stones.notation import parse_move_moving, read_moving_position


class SteppingGame(GridGame):
    """A game whose stones, once all are down, step (rules.py). Positions repeat, so a draw
    has no depth (endless play)."""

    positions_repeat = True
    draws_have_depth = False
    cyclic_checker = "steps"  # query/verify/movement.py: the movement phase walked by steps
    # What a root reaches is not searched here: a complete table is taken at its word.
    reach_known = False
    moves_are_placements = False
    moves_anywhere = False

    def start(self) -> tuple[int, ...]:
        """The empty board, x to move."""
        return rules.joined(super().start(), X)

    def mover(self, position: Sequence[int]) -> int:
        """The side to move (X or O): the digit after the cells."""
        return int(position[self.spec.cells])

    def legal(self, position: Sequence[int]) -> list[Move]:
        """Placements by cell, then (every stone down) steps by their start; empty once the
        game is over."""
        return rules.legal(self.spec, position)

    def continuations(self, position: Sequence[int]) -> list[Move]:
        """Placements or steps, not asking whether the game is over."""
        return rules.moves_of(self.spec, position)

    def outcome(self, position: Sequence[int]) -> int | None:
        """The value (1, 0, -1) for the side to move where the game is over, else None."""
        return rules.outcome_of(self.spec, position)

    def read_move(self, position: Sequence[int], text: str) -> Move:
        """A placement (`b2`) or a step (`a1-b2`)."""
        return parse_move_moving(self.spec, position, text)

    def played(self, position: Sequence[int], move: Move) -> tuple[int, ...]:
        """The position after `move`, the other side to move."""
        return rules.after(self.spec, position, move)

    def children(self, position: Sequence[int], moves: Sequence[Move]) -> list[tuple[int, ...]]:
        """`played` of each move."""
        return [self.played(position, m) for m in moves]

    def read(self, position: object = None, moves: str | None = None,
             compiled: bool = False) -> Reading:
        """Board text then the side to move where the stones do not say it, then moves (steps
        `a1-b2`): ../stones/notation.py."""
        return read_moving_position(self.spec, position, moves)  # type: ignore[arg-type]

    def picture(self, position: Sequence[int]) -> str:
        """The board drawn, then whose turn it is where the stones do not say it."""
        said = rules.stones_say(self.spec, position[:self.spec.cells])
        return super().picture(position) + ("" if said is not None
                                            else f"\n{self.side(position)} to move")

    def code(self, position: Sequence[int]) -> int:
        """The whole-board code: the board's, and in the movement phase the side's digit."""
        return rules.code_of(self.spec, position)

    def codes_of(self, positions: np.ndarray) -> np.ndarray:
        """`code` of many positions (rows of cells, then the side to move)."""
        return np.array([self.code(p) for p in positions.tolist()], dtype=np.int64)

    def canonical_code(self, position: Sequence[int]) -> int:
        """The code the whole-board table stores `position` under."""
        return rules.canonical_code(self.spec, position)

    def move_fields(self, move: Move) -> dict[str, str | None]:
        """A move's two cells: `from` (None for a placement) and `to`."""
        start, to = move.start, move.cell
        return {"from": None if start is None else move_name(self.spec, start),
                "to": move_name(self.spec, to)}

    def ply_fields(self, ply: int) -> dict[str, int | str]:
        """A stored ply's key with the side to move too: the tables keep the movement phase as
        two plies, x to move (ply 2N) and o to move (2N + 1), both of 2N stones."""
        return {"ply": min(ply, 2 * self.spec.stones), "to_move": to_move_name(ply)}

    def rules_text(self) -> str:
        """The rules in words, with the stones a side and how they move."""
        spec = self.spec
        return (super().rules_text() + f", {spec.stones} stones a side, then each turn one moves"
                + (" to any empty cell" if spec.jump else " to a neighbouring cell")
                + ("; a 2x2 square also counts" if spec.square else ""))

    def ply_label(self, ply: int) -> str:
        """A stored ply: its stones, and once every stone is down the side to move (`8x`, `8o`:
        the movement phase is stored as two plies)."""
        down = rules.placing_plies(self.spec)
        return f"{down}{'xo'[ply - down]}" if ply >= down else str(ply)

    def how_to_move(self) -> str:
        """Placements first, then steps written FROM-TO; a third repeat draws."""
        spec = self.spec
        example = move_name(spec, spec.cells - spec.width)
        return (f"Place each of your {spec.stones} stones on a cell, such as {example}; then"
                f" move one a turn, written FROM-TO, such as {example}-"
                f"{move_name(spec, spec.cells - spec.width + 1)}. A position that comes up a"
                " third time is a draw")

    endgame_moves_listed = False  # its positions can lie many steps past the table's root

    def sides_of(self, codes: np.ndarray, stones: np.ndarray) -> np.ndarray:
        """As the stones say it, or once every stone is down, the code's side digit."""
        sides = stones % 2
        down = stones == 2 * self.spec.stones
        sides[down] = codes[down] // 3 ** self.spec.cells
        return sides

    def texts_of(self, boards: np.ndarray, stones: np.ndarray, sides: np.ndarray) -> list[str]:
        """Board texts followed by ` x` or ` o` where the stones do not say whose turn it is."""
        suffix = np.where(stones == 2 * self.spec.stones, np.where(sides == 1, " o", " x"), "")
        return [text + end for text, end in
                zip(digit_board_texts(self.spec, boards), suffix.tolist())]

    def move_lists(self, boards: np.ndarray, stones: np.ndarray, sides: np.ndarray) -> list[str]:
        """Its stones' placements, x first; where o moves next once every stone is down, the
        placements of a position one x step before it, then that step.

        Such a position before the step always exists for a stored one: x to move, every
        stone down, neither side with a line (x did not have one, o has none since o is to
        move after it), its stones placed in any alternating order, o's last; `order_status`
        finds one."""
        spec = self.spec
        before = boards.copy()
        step = np.full((len(boards), 2), -1, dtype=np.int64)  # (from, to) of the last move
        waiting = np.flatnonzero((stones == 2 * spec.stones) & (sides == 1))
        masks = rules.step_masks(spec)
        for to in range(spec.cells):
            for start in (c for c in range(spec.cells) if int(masks[to]) >> c & 1):
                rows = waiting[(boards[waiting, to] == X) & (boards[waiting, start] == EMPTY)]
                if not len(rows):
                    continue
                back = boards[rows].copy()
                back[:, to], back[:, start] = EMPTY, X
                ok = order_status(spec, back) == FOUND
                before[rows[ok]], step[rows[ok]] = back[ok], (start, to)
                waiting = np.setdiff1d(waiting, rows[ok], assume_unique=True)
        if len(waiting):  # no position play reaches is like this
            text = digit_board_texts(spec, boards[waiting[:1]])[0]
            raise InvalidPositionError(f"no order of moves reaches {text} o: no x step back from"
                                       " it leaves a position play reaches; run `tablebase"
                                       " verify`")
        placed = listed_moves(spec, move_orders(spec, before), np.minimum(stones, 2 * spec.stones))
        names = [move_name(spec, c) for c in range(spec.cells)]
        return [moves if start < 0 else f"{moves} {names[start]}-{names[to]}"
                for moves, (start, to) in zip(placed, step.tolist())]

    def moves_reaching(self, position: Sequence[int]) -> list[Move]:
        """Placements, then steps: a search backwards by un-steps (reaching.py)."""
        return reaching.moves_reaching(self.spec, tuple(position))

    def stones_of_plies(self, plies: np.ndarray) -> np.ndarray:
        """The movement phase is stored as two plies (2N, x to move; 2N + 1, o): 2N stones."""
        return np.minimum(plies, 2 * self.spec.stones)

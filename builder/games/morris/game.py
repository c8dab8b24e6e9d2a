"""The morris games by name: `three-mens-morris`, `tapatan`, `achi`, `six-mens-morris`,
`nine-mens-morris`, with `+stonesN` (the stones a side) and, on the 3x3 boards, `+misere` (a
line loses). The family's game object speaks the game protocol of docs/games.md (positions are
ints: rules.py), so every layer that serves a game given as a Python class serves these.
"""
from __future__ import annotations

from math import comb
from typing import Any

from tablebase.builder.games.errors import InvalidSpecError
from tablebase.builder.games.morris import GAMES, LINE_GAMES, TITLES, notation
from tablebase.builder.games.morris.boards import board
from tablebase.builder.games.morris.rules import Rules
from tablebase.builder.games.morris.tiers import MorrisTiers


class MorrisGame:
    """A morris game as the game protocol asks: its name, start, moves, outcome, text, read
    and symmetries, on int positions (rules.py)."""

    def __init__(self, spec: str) -> None:
        base, *flags = spec.strip().split("+")
        if base not in GAMES:
            raise InvalidSpecError(f"{spec}: not a morris game ({', '.join(GAMES)})")
        board_name, stones, least, most, flying = GAMES[base]
        misere = False
        for flag in flags:
            if flag == "misere" and not misere:
                misere = True
            elif flag.startswith("stones") and flag[6:].isdigit():
                stones = int(flag[6:])
                if not least <= stones <= most:
                    raise InvalidSpecError(f"{spec}: {base} has {least} to {most} stones a side")
            else:
                raise InvalidSpecError(f"{spec}: {flag!r} is not a morris flag (+stonesN,"
                                       " +misere)")
        lines_win = board_name in LINE_GAMES
        if misere and not lines_win:
            raise InvalidSpecError(f"{spec}: +misere is for the 3x3 boards, where a line ends"
                                   " the game")
        self.rules = Rules(board(board_name), stones, lines_win=lines_win, flying=flying,
                           misere=misere)
        self.name = self._name(board_name, stones, misere)
        base = self.name.split("+")[0]
        self.title = TITLES.get(base, base) + (
            f", {stones} stones a side" if "+stones" in self.name else "") + (
            " (misère)" if misere else "")

    @staticmethod
    def _name(board_name: str, stones: int, misere: bool) -> str:
        """The game's one name: achi is tapatan with 4 stones a side."""
        for name, (b, n, _, _, _) in GAMES.items():
            if b == board_name and n == stones:
                return name + ("+misere" if misere else "")
        # No game has these stones on this board: the board's own game (named after it, with
        # other stones than these) and the flag.
        return f"{board_name}+stones{stones}" + ("+misere" if misere else "")

    def start(self) -> int:
        """The empty board, x to move, every stone to place."""
        return self.rules.start()

    def moves(self, position: int) -> list[tuple[str, int]]:
        """Every legal move's name and the position after it."""
        return self.rules.moves(position)

    def outcome(self, position: int) -> int | None:
        """+1/-1 for the side to move where the game is over, else None."""
        return self.rules.outcome(position)

    def text(self, position: int) -> str:
        """The position's text (notation.py)."""
        return notation.text(self.rules, position)

    def read(self, text: str) -> int:
        """The position `text` names; ValueError naming the fault."""
        return notation.read(self.rules, text)

    def symmetries(self, position: int) -> list[int]:
        """Positions of the same value: the board's symmetries and the colours swapped."""
        return self.rules.symmetries(position)

    def why_not(self, position: int, move: str) -> str:
        """Why `move` is not legal at `position`, in one line."""
        return notation.why_not(self.rules, position, move)

    def positions_at_most(self) -> int:
        """At most how many positions play reaches: every split of stones on the board and
        still to place the rules allow, either side to move (a bound: not every board of
        these counts is reached)."""
        p, n = self.rules.board.points, self.rules.stones

        def boards(least: int, most_x: int, most_o: int) -> int:
            return sum(comb(p, a) * comb(p - a, b) for a in range(least, most_x + 1)
                       for b in range(least, most_o + 1))

        # While placing: with x to move both have placed k, with o to move x has one more.
        placing = sum(boards(0, k, k) + boards(0, k + 1, k) for k in range(n))
        least = n if self.rules.lines_win else 2  # with captures: down to the losing 2
        return placing + 2 * boards(least, n, n)

    def ranked(self, placement: bool = True) -> MorrisTiers:
        """The game as ranked tiers (builder/ranked_build.py solves them): the sectors of
        stones on the board and to place, or the movement phase's alone."""
        return MorrisTiers(self.rules, self.name, placement)

    def layout(self) -> dict[str, Any]:
        """What the page draws: the points (name, column from the left, row from the top) and
        the lines between them."""
        b = self.rules.board
        top = max(r for _, r in b.places)
        points = [{"name": n, "x": c, "y": top - r} for n, (c, r) in zip(b.names, b.places)]
        return {"title": self.title, "points": points, "edges": [list(e) for e in b.edges]}

    def marks(self, position: int) -> str:
        """What stands on each point, in the layout's order: `x`, `o` or `.`."""
        return self.text(position).split()[0].replace("/", "")

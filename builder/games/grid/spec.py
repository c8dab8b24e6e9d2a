"""The game spec: board size, k in a row and rule flags, parsed from strings like `4x3k3+gravity`.

Spec strings read width first, as Connect Four's "7x6" does: `4x3k3` is 4 columns by 3 rows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from tablebase.builder.games.errors import InvalidSpecError

# A code is a base-3 number with one digit per cell; 3**39 < 2**63 <= 3**40. A whole-board
# table codes every cell; an endgame table codes only its root's empty cells, so bigger boards
# are fine there, up to the notation's limits: columns a-z, rows numbered 1-99.
MAX_CELLS = 39
MAX_WIDTH, MAX_HEIGHT = 26, 99

ALIASES = {"tictactoe": "3x3k3", "tic-tac-toe": "3x3k3", "teeko": "5x5k4+stones4+square"}
FLAGS = ("gravity", "misere", "exact", "stones", "jump", "square")
# Flags that take a number (`+stones4`: each side has four stones); the rest are on or off.
NUMBERED = ("stones",)

_SPEC_RE = re.compile(r"(\d{1,6})x(\d{1,6})k(\d{1,6})((?:\+[^+]*)*)")


@dataclass(frozen=True)
class Spec:
    """A game: `width` columns, `height` rows, `k` in a row wins (or loses, with `misere`);
    with `gravity` a stone falls to the lowest empty cell of its column; with `exact` only a
    run of exactly k counts (an overline of more than k neither wins nor loses).

    With `stones` = N > 0 the stones move: each side places N stones, then a side with all N
    on the board moves one of them to an empty neighbouring cell (any empty cell with `jump`)
    instead; with `square` four stones of one side filling a 2x2 square also make a line
    (Teeko's rule). Such a game's positions can repeat (builder/games/stones/rules.py)."""

    width: int
    height: int
    k: int
    gravity: bool = False
    misere: bool = False
    exact: bool = False
    stones: int = 0
    jump: bool = False
    square: bool = False

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise InvalidSpecError(
                f"board {self.width}x{self.height} has a side of zero; both sides must be at least 1")
        if self.k < 1:
            raise InvalidSpecError(f"k={self.k}: k must be at least 1")
        if self.k > max(self.width, self.height):
            raise InvalidSpecError(
                f"k={self.k} is larger than both sides of the {self.width}x{self.height} board,"
                " so nobody could ever win")
        # Narrow boards that a whole-board table could hold may be wider than a-z (aa, ab, ...).
        if (self.width > MAX_WIDTH or self.height > MAX_HEIGHT) and self.cells > MAX_CELLS:
            raise InvalidSpecError(
                f"board {self.width}x{self.height} is too large: at most {MAX_WIDTH} columns"
                f" (letters a-z) and {MAX_HEIGHT} rows, or at most {MAX_CELLS} cells")
        if self.stones < 0:
            raise InvalidSpecError(f"+stones{self.stones}: a side needs at least one stone")
        if self.stones and self.gravity:
            raise InvalidSpecError("+stones cannot be combined with +gravity: a stone that"
                                   " moves would have to fall")
        if self.stones and 2 * self.stones >= self.cells:
            raise InvalidSpecError(
                f"+stones{self.stones} on a board of {self.cells} cells: both sides' stones"
                f" must leave a cell empty to move to (at most {(self.cells - 1) // 2} a side)")
        if self.stones and self.cells >= MAX_CELLS:
            raise InvalidSpecError(
                f"{self.width}x{self.height} has {self.cells} cells; a game whose stones move"
                f" is built on at most {MAX_CELLS - 1} (its code also holds the side to move)")
        for flag in ("jump", "square"):
            if getattr(self, flag) and not self.stones:
                raise InvalidSpecError(f"+{flag} is a rule of games whose stones move: add"
                                       " +stonesN (each side's N stones)")

    @property
    def cells(self) -> int:
        """Number of cells on the board."""
        return self.width * self.height

    @property
    def whole_board_fits(self) -> bool:
        """Whether a whole-board table (a code digit for every cell) can be built."""
        return self.cells <= MAX_CELLS

    @property
    def moving(self) -> bool:
        """Whether stones move once placed (`+stonesN`), so that positions can repeat."""
        return self.stones > 0

    def __hash__(self) -> int:
        # Made once a Spec: a Spec keys the caches of its game, its geometry and its symmetry
        # maps, asked a few times an answer (the dataclass's own hashes every field each time).
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.width, self.height, self.k, self.gravity, self.misere, self.exact,
                     self.stones, self.jump, self.square))

    @cached_property  # made once a Spec: every answer a face writes names its game
    def name(self) -> str:
        """The canonical spec string, e.g. `4x4k4+gravity` or `5x5k4+stones4+square`."""
        flags = "".join(f"+{flag}{getattr(self, flag) if flag in NUMBERED else ''}"
                        for flag in FLAGS if getattr(self, flag))
        return f"{self.width}x{self.height}k{self.k}{flags}"

    def __str__(self) -> str:
        return self.name


def parse_spec(text: str) -> Spec:
    """Parse `WxHkK[+gravity][+misere][+exact][+stonesN][+jump][+square]` (or the aliases
    `tictactoe`, `teeko`); raise InvalidSpecError naming the fault."""
    if not isinstance(text, str):
        raise InvalidSpecError(f"a spec is a string such as 3x3k3, found {type(text).__name__}")
    cleaned = text.strip().lower()
    head, plus, rest = cleaned.partition("+")
    cleaned = ALIASES.get(head, head) + plus + rest  # an alias takes more flags: teeko+misere
    shown = text if len(text) <= 40 else text[:37] + "..."
    match = _SPEC_RE.fullmatch(cleaned)
    if match is None:
        raise InvalidSpecError(
            f"cannot read spec {shown!r}: expected WIDTHxHEIGHTkK with optional {_known()},"
            " e.g. 3x3k3, 4x3k3, 4x4k4+gravity, or tictactoe")
    width, height, k = (int(match.group(i)) for i in (1, 2, 3))
    seen: dict[str, bool | int] = {}
    for flag in match.group(4).split("+")[1:]:
        numbered = _NUMBERED_RE.fullmatch(flag)
        name = numbered.group(1) if numbered else flag
        if name not in FLAGS or (name in NUMBERED) != bool(numbered):
            hint = f" (+{name} takes a number, e.g. +{name}3)" if name in NUMBERED else ""
            raise InvalidSpecError(
                f"unknown flag +{flag} in spec {shown!r}{hint}; known flags: {_known()}")
        if name in seen:
            raise InvalidSpecError(f"flag +{name} appears twice in spec {shown!r}")
        seen[name] = int(numbered.group(2)) if numbered else True
    spec = Spec(width, height, k, **seen)  # type: ignore[arg-type]
    # One object for equal specs: the caches a Spec keys (its game, geometry, tables) then
    # find it by identity, where two equal objects cost a dataclass comparison each look-up.
    # Bounded: a server parses whatever specs its clients name.
    if len(_PARSED) >= _PARSED_AT_MOST:
        return _PARSED.get(spec, spec)
    return _PARSED.setdefault(spec, spec)


_PARSED: dict[Spec, Spec] = {}
_PARSED_AT_MOST = 4096


_NUMBERED_RE = re.compile(r"([a-z]+)(\d{1,3})")


def _known() -> str:
    return ", ".join(f"+{flag}{'N' if flag in NUMBERED else ''}" for flag in FLAGS)

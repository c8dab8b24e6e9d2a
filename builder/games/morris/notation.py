"""Morris positions and moves as text.

A position: the points row by row from the top (`x`, `o`, `.`), rows separated by `/`; then the
side to move; then, while any stone is still to be placed, the stones x and o still have to
place. Nine men's morris starts `.../.../.../....../.../.../... x 9 9`.

A move: `d2` (a placement), `d2-d3` (a step or a flight), a capture appended with `x`:
`d2xg7`, `d2-d3xg7`. `why_not` says in one line why a move that is not legal is not.
"""
from __future__ import annotations

import re

from tablebase.builder.games.morris.rules import Rules, bits

_MOVE = re.compile(r"(?P<origin>[a-z]\d+)?(?:-(?P<to>[a-z]\d+))?(?:x(?P<taken>[a-z]\d+))?")


# A point's character from its digit: 0 empty, 1 x, 2 o.
_MARKS = str.maketrans("012", ".xo")
# A point's bit in x's mask and in o's, from its character.
_X_BITS = str.maketrans("xo.", "100")
_O_BITS = str.maketrans("xo.", "010")
# Each board's rows as (start, end) of the points' text, made once a board.
_SPANS: dict[tuple[int, ...], list[tuple[int, int]]] = {}


def text(rules: Rules, position: int) -> str:
    """The position's text. (Drawn from the masks at once, not point by point: a probe prints
    its position, which point by point cost a fifth of it.)"""
    x, o, o_to_move, x_place, o_place = rules.unpack(position)
    p = rules.board.points
    # The masks' binary digits, point 0 first, read as decimal numbers and added: x's 1s and
    # o's 2s fall on their points with no carry (no point holds both).
    flat = str(int(f"{x:0{p}b}"[::-1]) + 2 * int(f"{o:0{p}b}"[::-1])).zfill(p)
    rows = rules.board.rows
    spans = _SPANS.get(rows)
    if spans is None:
        ends = [sum(rows[:k + 1]) for k in range(len(rows))]
        spans = _SPANS[rows] = [(e - n, e) for n, e in zip(rows, ends)]
    marks = flat.translate(_MARKS)
    said = "/".join(marks[a:e] for a, e in spans) + (" o" if o_to_move else " x")
    if x_place or o_place:
        said += f" {x_place} {o_place}"
    return said


def read(rules: Rules, said: str) -> int:
    """The position `said` names: ValueError naming the fault where it names none this game
    can reach by its rules (rows of the wrong length, a side that has placed out of turn, more
    stones than a side has, a game already over by a line of the side to move)."""
    parts = said.split()
    rows = rules.board.rows
    shape = "/".join("." * n for n in rows) if len(parts) not in (2, 4) else ""
    if len(parts) not in (2, 4):
        raise ValueError(f"a position is the points row by row, the side to move and, while"
                         f" stones are to place, how many each side has left: `{shape} x"
                         f" {rules.stones} {rules.stones}`")
    board, side = parts[0], parts[1]
    cells = board.split("/")
    if [len(r) for r in cells] != list(rows) or set(board) - set("xo./"):
        raise ValueError(f"the board is {len(rows)} rows of {', '.join(map(str, rows))} points"
                         f" (x, o or .), from the top: `{'/'.join('.' * n for n in rows)}`")
    if side not in ("x", "o"):
        raise ValueError(f"the side to move is x or o, not {side!r}")
    # Each side's points as binary digits, point 0 last (the lowest bit).
    flat = board.replace("/", "")[::-1]
    x, o = int(flat.translate(_X_BITS), 2), int(flat.translate(_O_BITS), 2)
    o_to_move = int(side == "o")
    x_place = o_place = 0
    if len(parts) == 4:
        if not (parts[2].isdigit() and parts[3].isdigit()):
            raise ValueError("the stones each side has still to place are two numbers")
        x_place, o_place = int(parts[2]), int(parts[3])
    if (x_place or o_place) and o_place - x_place != o_to_move:
        raise ValueError("the sides place in turn, x first: with x to move both have as many"
                         " stones left to place, with o to move o has one more")
    n = rules.stones
    for name, on, left in (("x", x, x_place), ("o", o, o_place)):
        have = on.bit_count() + left
        if have > n or (rules.lines_win and have != n):
            raise ValueError(f"{name} has {have} stones on the board and to place; each side"
                             f" has {n}" + ("" if rules.lines_win else " at most"))
    if rules.lines_win and rules.has_line(o if o_to_move else x):
        raise ValueError("the side to move has a line: the game ended before its move")
    return rules.pack(x, o, o_to_move, x_place, o_place)


def why_not(rules: Rules, position: int, said: str) -> str:
    """Why `said` is not a legal move at `position`, in one line (for a move that `moves`
    does not list)."""
    names = {n: i for i, n in enumerate(rules.names)}
    found = _MOVE.fullmatch(said.strip())
    if not said.strip() or found is None or (found["to"] is None and found["origin"] is None):
        return (f"{said!r} is not a move: a placement `d2`, a step or flight `d2-d3`, a capture"
                " appended `d2xg7`")
    origin: str | None = found["origin"]
    to: str = found["to"] or found["origin"]
    taken: str | None = found["taken"]
    if found["to"] is None:
        origin = None
    for point in (origin, to, taken):
        if point is not None and point not in names:
            return f"{point} is not a point of the board ({' '.join(rules.names)})"
    if rules.outcome(position) is not None or not rules.moves(position):
        return "the game is over"
    x, o, o_to_move, x_place, o_place = rules.unpack(position)
    me, you, mine = (o, x, o_place) if o_to_move else (x, o, x_place)
    empty = rules.full & ~(x | o)
    if mine and origin is not None:
        return f"the side to move has {mine} stones still to place: a move is a point, `{to}`"
    if not mine and origin is None:
        return "every stone is placed: a move steps a stone, `from-to`"
    if origin is not None and not me >> names[origin] & 1:
        return f"{origin} holds no stone of the side to move"
    if not empty >> names[to] & 1:
        return f"{to} is not empty"
    flying = rules.flying and me.bit_count() == 3
    if origin is not None and not rules.joins[names[origin]] >> names[to] & 1:
        if rules.flying and not flying:
            return (f"{origin}-{to} is along no line, and only a side with 3 stones flies"
                    f" (this one has {me.bit_count()})")
        if not flying:
            return f"{origin}-{to} is along no line"
    after = (me ^ (1 << names[origin]) if origin is not None else me) | 1 << names[to]
    closes = any(after & m == m for m in rules.mills_at[names[to]])
    if rules.lines_win:
        return f"{said} captures nothing: a line ends the game" if taken else "not a legal move"
    if closes and you and taken is None:
        return f"{said} closes a mill: name the stone it takes, `{said}x` and a point"
    if taken is not None and not closes:
        return f"{said} closes no mill: it takes nothing"
    if taken is not None and not you >> names[taken] & 1:
        return f"{taken} holds no stone of the other side"
    if taken is not None:
        free = you & ~rules.in_mills(you)
        if free and not free >> names[taken] & 1:
            others = " ".join(rules.names[i] for i in bits(free))
            return f"{taken} stands in a mill and other stones can be taken ({others})"
    return "not a legal move"

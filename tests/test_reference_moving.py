"""tests/reference_moving.py, the oracle for games whose stones move, checked against facts
worked out by hand (counts, a whole tiny game, pictures) and against methods that share nothing
with its retrograde pass: the plain m,n,k oracle of tests/reference.py on the placement phase,
moves found again by comparing boards, a depth-limited recursive search, the board's symmetries
and the local conditions that pin a retrograde solution down."""
from __future__ import annotations

import math
import random

import pytest

from tests.reference import Game, reachable_from
from tests.reference_moving import (
    DRAW,
    LOSS,
    WIN,
    Board,
    MovingGame,
    Outcome,
    Position,
    solved_game,
)

# Small games, solved in well under a second each (4x3k3+stones3: about 1.5 s). With k = 4 on
# 3x3 no line fits: only a square (+square) or a walled-in side ends the game.
SMALL = ["3x3k3+stones3", "3x3k3+stones4", "3x3k3+stones3+jump", "3x3k3+stones3+misere",
         "3x3k2+stones3+exact", "3x3k4+stones4+square", "3x3k4+stones4", "3x1k2+stones1",
         "4x1k2+stones1"]


def solved(spec: str) -> dict[Position, Outcome]:
    return solved_game(spec)[1]  # once a process, shared with the other files' tests


def stones(board: Board) -> int:
    return sum(1 for v in board if v)


def picture(text: str) -> Board:
    """A board from rows of 'x', 'o' and '.', top row first."""
    return tuple(".xo".index(ch) for ch in "".join(text.split()))


# -- the spec --------------------------------------------------------------------------------

def test_specs_flags_in_any_order_and_the_teeko_alias() -> None:
    def rules(g: MovingGame) -> tuple[object, ...]:
        return g.w, g.h, g.k, g.stones, g.jump, g.square, g.misere, g.exact

    assert rules(MovingGame("teeko")) == (5, 5, 4, 4, False, True, False, False)
    assert rules(MovingGame("teeko")) == rules(MovingGame("5x5k4+square+stones4"))
    assert rules(MovingGame("teeko+misere")) == (5, 5, 4, 4, False, True, True, False)
    assert rules(MovingGame("4x3k3+misere+stones3+jump")) == (4, 3, 3, 3, True, False, True, False)
    assert rules(MovingGame("3x3k3+exact+stones2+square")) == (3, 3, 3, 2, False, True, False, True)


@pytest.mark.parametrize("spec", ["3x3k3", "3x3k3+jump", "3x3k3+stones3+gravity", "3x3k3+stones0",
                                  "3x3k3+stones5", "3x3k3+stones3+stones4", "3x3k3+stones3+jump+jump",
                                  "3x3k3+stones3+diagonal", "3x3+stones3", "0x3k3+stones1",
                                  "3x3k0+stones1", "teeko4"])
def test_bad_specs_are_refused(spec: str) -> None:
    with pytest.raises(ValueError):
        MovingGame(spec)


def test_geometry_counted_by_hand() -> None:
    g = MovingGame("3x3k3+stones3")
    # Corners have 3 neighbours, edges 5, the centre 8.
    assert [len(g.neighbours[c]) for c in range(9)] == [3, 5, 3, 5, 8, 5, 3, 5, 3]
    assert sorted(g.neighbours[0]) == [1, 3, 4] and sorted(g.neighbours[5]) == [1, 2, 4, 7, 8]
    # 4x4: 12 + 12 orthogonal and 2 * 9 diagonal neighbouring pairs, each counted from both ends.
    g = MovingGame("4x4k4+stones4+square")
    assert sum(len(n) for n in g.neighbours) == 2 * (12 + 12 + 18)
    assert all(a in g.neighbours[b] for a in range(16) for b in g.neighbours[a])
    assert len(g.lines) == 4 + 4 + 2 and len(g.squares) == 9
    # Teeko: 2 windows of 4 in each of 5 rows and 5 columns, 2 x 2 in each diagonal direction.
    g = MovingGame("teeko")
    assert len(g.lines) == 10 + 10 + 4 + 4 and len(g.squares) == 16
    assert len(MovingGame("3x3k4+stones4").lines) == 0  # no line fits: only blocking ends it


# -- lines, moves and terminal positions, by pictures ------------------------------------------

def test_lines_by_hand() -> None:
    square = picture(". . . ."
                     ". x x ."
                     ". x x ."
                     "o o o .")
    assert MovingGame("4x4k4+stones4+square").has_line(square, 1)
    assert not MovingGame("4x4k4+stones4").has_line(square, 1)
    assert not MovingGame("4x4k4+stones4+square").has_line(square, 2)
    assert MovingGame("4x4k3+stones4").has_line(square, 2)
    # +exact: three in a row is no line of two; a square still is a line with +square.
    assert not MovingGame("4x1k2+stones1+exact").has_line(picture("x x x ."), 1)
    assert MovingGame("4x1k2+stones1+exact").has_line(picture(". x x ."), 1)
    assert MovingGame("4x4k4+stones4+square+exact").has_line(square, 1)
    diagonal = picture("o . x"
                       "o x ."
                       "x . .")
    assert MovingGame("3x3k3+stones3").has_line(diagonal, 1)
    assert not MovingGame("3x3k3+stones3").has_line(diagonal, 2)


@pytest.mark.parametrize("ordinary", ["3x3k3", "4x4k3", "5x5k4", "4x3k2+exact", "5x5k3+exact"])
def test_lines_agree_with_the_plain_oracle(ordinary: str) -> None:
    # tests/reference.py's Game finds lines with code of its own; no +square there.
    plain = Game(ordinary)
    game = MovingGame(ordinary + "+stones1")
    rng = random.Random(7)
    for _ in range(3000):
        board = tuple(rng.choice((0, 1, 2)) for _ in range(game.cells))
        for player in (1, 2):
            assert game.has_line(board, player) == plain.wins(board, player), (ordinary, board)


def test_moves_by_hand() -> None:
    g = MovingGame("3x3k3+stones3")
    assert g.moves(g.root()[0], 1) == [(None, c) for c in range(9)]
    board = picture("x x o"     # 0 1 2
                    "o o x"     # 3 4 5
                    ". . .")    # 6 7 8
    # x's stones at 0 and 1 are walled in; the one at 5 steps down to 7 or 8.
    assert sorted(g.moves(board, 1)) == [(5, 7), (5, 8)]
    # o: 2 is walled in, 3 goes to 6 or 7, 4 to any of the empty row.
    assert sorted(g.moves(board, 2)) == [(3, 6), (3, 7), (4, 6), (4, 7), (4, 8)]
    # With +jump any stone goes to any empty cell.
    jump = MovingGame("3x3k3+stones3+jump")
    assert sorted(jump.moves(board, 1)) == [(s, t) for s in (0, 1, 5) for t in (6, 7, 8)]
    assert g.child(board, 1, (5, 8)) == (picture("x x o o o . . . x"), 2)
    assert g.terminal_value(board, 1) is None and g.terminal_value(board, 2) is None
    # o placing its third stone (x has all three on the board, o has two).
    placing = picture("x x ."
                      "o . x"
                      ". o .")
    assert g.moves(placing, 2) == [(None, c) for c in (2, 4, 6, 8)]
    assert g.child(placing, 2, (None, 4)) == (picture("x x . o o x . o ."), 1)


def test_terminal_positions_by_hand() -> None:
    # x just made a line: o to move has lost (with +misere, won), and has no move.
    made = picture("x x x"
                   "o o ."
                   ". . .")
    for spec, value in [("3x3k3+stones3", LOSS), ("3x3k3+stones3+misere", WIN)]:
        g = MovingGame(spec)
        assert g.terminal_value(made, 2) == value and g.moves(made, 2) == []
    # Four stones each, the one empty cell in a corner walled in by o: x cannot move and loses,
    # with +misere too; with +jump any x stone jumps there.
    walled = picture(". o x"
                     "o o x"
                     "x x o")
    for spec in ["3x3k3+stones4", "3x3k3+stones4+misere"]:
        g = MovingGame(spec)
        assert not g.has_line(walled, 1) and not g.has_line(walled, 2)
        assert g.terminal_value(walled, 1) == LOSS and g.moves(walled, 1) == []
        assert g.terminal_value(walled, 2) is None and sorted(g.moves(walled, 2)) == [(1, 0), (3, 0),
                                                                                      (4, 0)]
    jump = MovingGame("3x3k3+stones4+jump")
    assert jump.terminal_value(walled, 1) is None
    assert sorted(jump.moves(walled, 1)) == [(2, 0), (5, 0), (6, 0), (7, 0)]


# -- the reachable graph ---------------------------------------------------------------------


def children_by_boards(game: MovingGame, board: Board, side: int) -> set[Position]:
    """The children found another way: of all boards differing from `board` in one or two cells,
    each changed cell now empty or the mover's, those where one stone of `side` appeared on an
    empty cell while it had fewer than N, or where one of its stones went to an empty cell a
    king's step away (any, with +jump). None once the other side has a line."""
    if game.has_line(board, 3 - side):
        return set()
    placing = board.count(side) < game.stones
    # Every change of one cell to empty or to the mover's; a board differs in one or two.
    changes = [(c, v) for c in range(game.cells) for v in (0, side) if board[c] != v]
    boards = [(x,) for x in changes] + [(x, y) for i, x in enumerate(changes)
                                        for y in changes[i + 1:] if x[0] != y[0]]
    out: set[Position] = set()
    for diff in boards:
        new = [c for c, v in diff if board[c] == 0 and v == side]
        gone = [c for c, v in diff if board[c] == side and v == 0]
        if len(new) != 1 or len(diff) != 1 + len(gone):
            continue
        cells = list(board)
        for c, v in diff:
            cells[c] = v
        if placing and not gone:
            out.add((tuple(cells), 3 - side))
        elif not placing and len(gone) == 1:
            (r1, c1), (r2, c2) = divmod(gone[0], game.w), divmod(new[0], game.w)
            if game.jump or max(abs(r1 - r2), abs(c1 - c2)) == 1:
                out.add((tuple(cells), 3 - side))
    return out


@pytest.mark.parametrize("spec", SMALL)
def test_moves_make_the_reachable_graph(spec: str) -> None:
    game = MovingGame(spec)
    reachable = game.reachable()
    assert game.root() in reachable
    for board, side in reachable:
        xs, os_ = board.count(1), board.count(2)
        assert xs <= game.stones and os_ <= game.stones and side in (1, 2)
        if xs + os_ < 2 * game.stones:  # placing: x first, so the counts say who moves
            assert (xs, os_) == ((stones(board) + 1) // 2, stones(board) // 2)
            assert side == (1 if xs == os_ else 2)
        moves = game.moves(board, side)
        kids = {game.child(board, side, m) for m in moves}
        assert len(kids) == len(moves)  # no move listed twice, no two moves alike
        assert (game.terminal_value(board, side) is None) == bool(moves)
        assert kids <= reachable


@pytest.mark.parametrize("spec", ["3x3k3+stones3", "3x3k3+stones3+jump", "3x3k4+stones4",
                                  "3x1k2+stones1", "4x1k2+stones1"])
def test_moves_agree_with_the_rules_read_from_boards(spec: str) -> None:
    game = MovingGame(spec)
    for board, side in game.reachable():
        kids = {game.child(board, side, m) for m in game.moves(board, side)}
        assert kids == children_by_boards(game, board, side), (board, side)


def test_reachable_counts_where_no_line_fits() -> None:
    # k = 4 on 3x3: no line, and nobody is walled in while placing, so every order of placing
    # is legal: after p < 8 placements, all boards of ceil(p/2) x and floor(p/2) o, x to move
    # when p is even: C(9, ceil(p/2)) * C(9 - ceil(p/2), floor(p/2)) of them.
    placing = [math.comb(9, (p + 1) // 2) * math.comb(9 - (p + 1) // 2, p // 2) for p in range(8)]
    assert placing == [1, 9, 72, 252, 756, 1260, 1680, 1260]
    expected = {(p, 2 - (p + 1) % 2): n for p, n in enumerate(placing)}
    # 8 stones, x to move: all 9 * C(8, 4) = 630 boards (o's last placement makes each).
    # 8 stones, o to move: x just stepped off the empty cell, so an x stone is next to it: 630
    # less the boards whose empty cell has only o around it, which takes a corner (3
    # neighbours; an edge has 5, the centre 8) and o's 4th stone on one of the 5 other cells:
    # 630 - 4 * 5 = 610. With +jump an x stone may have come from anywhere: 630.
    for spec, o_to_move in [("3x3k4+stones4", 610), ("3x3k4+stones4+jump", 630)]:
        counts: dict[tuple[int, int], int] = {}
        for board, side in MovingGame(spec).reachable():
            counts[stones(board), side] = counts.get((stones(board), side), 0) + 1
        assert counts == {**expected, (8, 1): 630, (8, 2): o_to_move}, spec


def test_where_no_line_fits_only_a_walled_in_side_loses() -> None:
    # The terminal positions: the empty cell a corner with its 3 neighbours all of the other
    # side (the 4th stone on one of the 5 other cells), either side to move: 2 * 4 * 5 = 40, all
    # reachable (o to move needs an x next to the empty cell: there are 3). Every one a loss.
    table = solved("3x3k4+stones4")
    ends = [pos for pos, outcome in table.items() if outcome[1] == 0]
    assert len(ends) == 40 and all(table[pos] == (LOSS, 0) for pos in ends)
    # With +jump nothing ever ends: every position is a draw by endless play.
    assert set(solved("3x3k4+stones4+jump").values()) == {(DRAW, None)}


def test_a_whole_tiny_game_solved_by_hand() -> None:
    # 3x1k2+stones1: cells 0 1 2 in a row, one stone each, no line of two possible; a side to
    # move walled in (at an end cell, the other stone next to it) loses. By hand, from the ends
    # back (X/O: who moves; x's cell, o's cell):
    #   X 0,1 and X 2,1: x walled in, LOSS 0.   O 1,2 and O 1,0: o walled in, LOSS 0.
    #   X 0,2 -> O 1,2 (LOSS 0): WIN 1.          X 2,0 -> O 1,0: WIN 1.
    #   O 2,0 -> X 2,1 (LOSS 0): WIN 1.          O 0,2 -> X 0,1: WIN 1.
    #   X 1,0 -> O 2,0 only (WIN 1): LOSS 2.     X 1,2 -> O 0,2 only: LOSS 2.
    #   o placing after x at 0: at 1 gives X 0,1 (LOSS 0): WIN 1; after x at 2 the same;
    #   after x at 1: X 1,0 or X 1,2 (LOSS 2): WIN 3.  The empty board: WIN 1, 3, 1: LOSS 4.
    def pos(x: int | None, o: int | None, side: int) -> Position:
        return tuple(1 if c == x else 2 if c == o else 0 for c in range(3)), side

    assert solved("3x1k2+stones1") == {
        pos(None, None, 1): (LOSS, 4),
        pos(0, None, 2): (WIN, 1), pos(1, None, 2): (WIN, 3), pos(2, None, 2): (WIN, 1),
        pos(0, 1, 1): (LOSS, 0), pos(2, 1, 1): (LOSS, 0), pos(0, 2, 1): (WIN, 1),
        pos(2, 0, 1): (WIN, 1), pos(1, 0, 1): (LOSS, 2), pos(1, 2, 1): (LOSS, 2),
        pos(1, 2, 2): (LOSS, 0), pos(1, 0, 2): (LOSS, 0), pos(2, 0, 2): (WIN, 1),
        pos(0, 2, 2): (WIN, 1)}
    # 4x1k2+stones1, by hand the same way: every position decided, the empty board LOSS 4
    # (x's every first stone is met by o next to it, at an end or walling it in within 3).
    table = solved("4x1k2+stones1")
    assert table[MovingGame("4x1k2+stones1").root()] == (LOSS, 4)
    assert all(value != DRAW for value, _ in table.values())


# -- the placement phase is the ordinary game ----------------------------------------------------

@pytest.mark.parametrize("spec", ["3x3k3+stones3", "3x3k3+stones4", "3x3k3+stones3+misere",
                                  "3x3k3+stones3+jump", "3x3k2+stones3+exact",
                                  pytest.param("4x3k3+stones3", marks=pytest.mark.slow)])
def test_the_placement_phase_is_the_ordinary_game(spec: str) -> None:
    # Below 2N stones both games have the same moves (a stone on any empty cell) and the same
    # ends (a line: nobody is walled in while placing and the board is never full). A result
    # within d plies from p stones looks at positions of fewer than p + d stones and at ends
    # made at p + d. So the ordinary result (v, d), decided with p + d <= 2N, holds here (an
    # end at 2N stones by a line is one in both; here a side may also be walled in there, but
    # a quicker end would be one the ordinary game has too); and a result here with
    # p + d < 2N holds there (everything it looks at is below 2N stones).
    game = MovingGame(spec)
    n = 2 * game.stones
    plain = Game("".join(f"+{f}" if i else f for i, f in enumerate(spec.split("+"))
                         if not f.startswith("stones") and f != "jump"))
    ordinary = {(b, 1 if stones(b) % 2 == 0 else 2)
                for b in reachable_from(plain, (0,) * plain.n, plies=n)}
    table = solved(spec)
    assert {pos for pos in table if stones(pos[0]) < n} == {p for p in ordinary
                                                            if stones(p[0]) < n}
    assert ordinary <= set(table)  # at 2N stones, x to move: what o's last placement makes
    checked = 0
    for board, side in ordinary:
        p, mine, theirs = stones(board), table[board, side], plain.solve(board)
        if theirs[0] != DRAW and p + theirs[1] <= n:
            assert mine == theirs, (board, side)
            checked += 1
        if mine[0] != DRAW and mine[1] is not None and p + mine[1] < n:
            assert mine == theirs, (board, side)
    assert checked > 100


# -- the solution ----------------------------------------------------------------------------------

def check_solution(game: MovingGame, table: dict[Position, Outcome]) -> None:
    """The conditions that determine a retrograde solution: ends have their value at depth 0;
    a WIN at d has a LOSS child at d - 1 and none shallower; a LOSS at d has only WIN children,
    the deepest at d - 1; a DRAW has no LOSS child and some DRAW child. (They determine it: by
    induction on the true depth, a position is labelled its true outcome; a WIN or LOSS label
    is true, by induction on its depth.)"""
    for pos, (value, depth) in table.items():
        kids = [table[game.child(*pos, m)] for m in game.moves(*pos)]
        end = game.terminal_value(*pos)
        lost = [d for v, d in kids if v == LOSS and d is not None]
        if end is not None:
            assert (value, depth) == (end, 0) and not kids, pos
        elif value == WIN:
            assert lost and depth == min(lost) + 1, pos
        elif value == LOSS:
            won = [d for v, d in kids if v == WIN and d is not None]
            assert len(won) == len(kids) and depth == max(won) + 1, pos
        else:
            assert value == DRAW and depth is None, pos
            assert not lost and (DRAW, None) in kids, pos


@pytest.mark.parametrize("spec", SMALL + ["4x3k3+stones3", "3x3k3+stones3+jump+misere",
                                          "3x3k3+stones4+square", "3x3k2+stones4+square+exact"])
def test_every_position_meets_the_retrograde_conditions(spec: str) -> None:
    game = MovingGame(spec)
    table = solved(spec)
    assert set(table) == game.reachable()
    check_solution(game, table)


class Bounded:
    """Whether the side to move can force a win (or must lose) within t plies: a plain recursion
    over the rules, remembered on (position, t), that stores no depth and knows no retrograde.
    Positions are numbered as they are met (their boards hashed once, not at every visit)."""

    def __init__(self, game: MovingGame) -> None:
        self.game = game
        self.numbers: dict[Position, int] = {}
        self.positions: list[Position] = []
        self.kids: list[tuple[int | None, list[int]] | None] = []  # None: not expanded yet
        self.memo: dict[tuple[bool, int, int], bool] = {}

    def number(self, pos: Position) -> int:
        if pos not in self.numbers:
            self.numbers[pos] = len(self.positions)
            self.positions.append(pos)
            self.kids.append(None)
        return self.numbers[pos]

    def children(self, i: int) -> tuple[int | None, list[int]]:
        """The terminal value of position `i` (None if it goes on) and its children's numbers."""
        found = self.kids[i]
        if found is None:
            pos = self.positions[i]
            found = self.kids[i] = (self.game.terminal_value(*pos),
                                    [self.number(self.game.child(*pos, m))
                                     for m in self.game.moves(*pos)])
        return found

    def wins(self, pos: Position, t: int) -> bool:
        return self.decide(True, self.number(pos), t)

    def loses(self, pos: Position, t: int) -> bool:
        return self.decide(False, self.number(pos), t)

    def decide(self, win: bool, i: int, t: int) -> bool:
        key = (win, i, t)
        known = self.memo.get(key)
        if known is not None:
            return known
        end, kids = self.children(i)
        if end is not None:
            known = end == (WIN if win else LOSS)
        elif t == 0:
            known = False
        else:  # a win: some child lost within t - 1; a loss: every child won within t - 1
            known = not win
            for kid in kids:
                if self.decide(not win, kid, t - 1) == win:
                    known = win
                    break
        self.memo[key] = known
        return known


def agrees_with_bounded(search: Bounded, pos: Position, outcome: Outcome, bound: int) -> bool:
    """Whether `outcome` is what the bounded search finds: a win or loss within its depth and not
    within one ply less, a draw neither won nor lost within `bound` plies."""
    value, depth = outcome
    if value == WIN and depth is not None:
        return search.wins(pos, depth) and (depth == 0 or not search.wins(pos, depth - 1))
    if value == LOSS and depth is not None:
        return search.loses(pos, depth) and (depth == 0 or not search.loses(pos, depth - 1))
    return not search.wins(pos, bound) and not search.loses(pos, bound)


@pytest.mark.parametrize("spec", ["3x3k3+stones3", "3x3k3+stones4", "3x3k3+stones3+jump",
                                  "3x3k3+stones3+misere", "3x3k2+stones3+exact"])
def test_a_bounded_search_agrees_on_every_position(spec: str) -> None:
    # 20 plies: beyond every depth of these games (they stay under 12), so a draw here is at
    # least "no forced result within 20 plies".
    search = Bounded(MovingGame(spec))
    for pos, outcome in solved(spec).items():
        assert agrees_with_bounded(search, pos, outcome, 20), (pos, outcome)


@pytest.mark.slow
def test_a_bounded_search_agrees_on_a_sample_of_4x3() -> None:
    # Depths up to 23 here: 6 wins, 6 losses, and 6 draws neither won nor lost within 15
    # plies (a deeper bound costs seconds a draw: the search then sees most of the game).
    spec = "4x3k3+stones3"
    search, table = Bounded(MovingGame(spec)), solved(spec)
    rng = random.Random(3)
    for value in (WIN, LOSS, DRAW):
        sample = rng.sample(sorted(pos for pos in table if table[pos][0] == value), 6)
        for pos in sample:
            assert agrees_with_bounded(search, pos, table[pos], 15), (pos, table[pos])


def symmetries(w: int, h: int) -> list[list[int]]:
    """Each symmetry of the W x H board as cell -> image cell, from coordinates: flips of rows and
    of columns, and on a square board the transposition too."""
    maps = []
    for transpose in ((False, True) if w == h else (False,)):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                image = []
                for cell in range(w * h):
                    r, c = divmod(cell, w)
                    r, c = (h - 1 - r if flip_rows else r), (w - 1 - c if flip_cols else c)
                    image.append(c * w + r if transpose else r * w + c)
                maps.append(image)
    return maps


@pytest.mark.parametrize("spec", SMALL + ["4x3k3+stones3", "3x3k2+stones4+square+exact"])
def test_symmetric_positions_have_one_outcome(spec: str) -> None:
    # The solver knows no symmetry, so this is a check of it: the rules look the same under
    # every symmetry of the board, so must the reachable set and every outcome.
    game, table = MovingGame(spec), solved(spec)
    maps = symmetries(game.w, game.h)
    assert len({tuple(m) for m in maps}) == (8 if game.w == game.h else 4 if game.h > 1 else 2)
    for (board, side), outcome in table.items():
        for m in maps:
            image = [0] * game.cells
            for cell, v in enumerate(board):
                image[m[cell]] = v
            assert table.get((tuple(image), side)) == outcome, (board, side, m)


@pytest.mark.parametrize("spec", ["3x3k3+stones3", "3x3k3+stones4", "4x3k3+stones3",
                                  "3x3k3+stones3+misere+jump"])
def test_swapping_colours_once_all_stones_are_down(spec: str) -> None:
    # With all 2N stones down the rules no longer tell x from o, so a position and its colour
    # swap (the other side to move) have one outcome, where both are reachable.
    game, table = MovingGame(spec), solved(spec)
    pairs = 0
    for (board, side), outcome in table.items():
        swapped = (tuple((0, 2, 1)[v] for v in board), 3 - side)
        if stones(board) == 2 * game.stones and swapped in table:
            assert table[swapped] == outcome, (board, side)
            pairs += 1
    assert pairs > 500

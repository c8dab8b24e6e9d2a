"""The bitboard search of gravity boards (query/search/gravity.py through engine.Searcher):
every position of small boards against the plain negamax of tests/reference.py, each pruning
rule on a position built to trigger it, Connect Four positions in Pons' notation scored by the
plain search, budgets, two threads, and stored tables at the leaves."""
from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder.games.grid import Value, parse_spec
from tablebase.builder.pipeline import build
from tablebase.query import open_tablebase
from tablebase.query.search import bitboard_arrays as bitboard
from tablebase.query.search import bitsolver, gravity
from tablebase.query.search.bitboard_arrays import Bitboards, bit_of, fits
from tablebase.query.search.searcher import Budget, Searcher
from tablebase.query.search.solving import leaves
from tests.reference import Game, reachable_from, shared_game
from tests.search_sets import read_set

WORDS = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}


def drop(game: Game, moves: str) -> tuple[int, ...]:
    """The board after Pons' moves (1-based column digits), each dropped to the lowest empty
    square of its column."""
    board = tuple([0] * game.n)
    for ch in moves:
        col = int(ch) - 1
        cell = max(c for c in game.open_cells(board) if c % game.w == col)
        board = game.child(board, cell)
    return board


def check(game: Game, searcher: Searcher, board: tuple[int, ...]) -> None:
    """The search's value and depth are the plain negamax's, and its move keeps them."""
    value, depth = game.solve(board)
    s = searcher.solve(board)
    assert (s.value, s.depth) == (WORDS[value], depth), board
    if depth:
        child_value, child_depth = game.solve(game.child(board, s.move))
        assert (-child_value, child_depth + 1) == (value, depth), board
    else:
        assert s.move is None


def test_which_games_take_bitboards() -> None:
    assert fits(parse_spec("7x6k4+gravity")) and fits(parse_spec("8x7k4+gravity"))
    assert not fits(parse_spec("7x6k4+gravity+misere")) and not fits(parse_spec("9x7k4+gravity"))
    assert not fits(parse_spec("4x4k4"))
    assert isinstance(Searcher(parse_spec("4x4k3+gravity"), slots_log2=12).arrays, Bitboards)


@pytest.mark.parametrize("spec", ["4x4k3+gravity", "3x4k3+gravity", "4x3k2+gravity"])
def test_every_position_against_plain_negamax(spec: str) -> None:
    game = shared_game(spec)
    searcher = Searcher(parse_spec(spec), slots_log2=12)  # a small table: entries replaced
    for board in sorted(game.reachable()):
        check(game, searcher, board)


@pytest.mark.parametrize("small", [bitboard.SMALL_SLOTS_LOG2, 1, 30])
def test_five_by_four_sample_against_plain_negamax(small: int, monkeypatch: pytest.MonkeyPatch
                                                   ) -> None:
    """Positions of 6 to 12 empty squares, whose nodes keep their entries in the table's small
    part (of two slots: each entry replaced by the next; of more slots than keys)."""
    monkeypatch.setattr(bitboard, "SMALL_SLOTS_LOG2", small)
    spec, game = parse_spec("5x4k4+gravity"), shared_game("5x4k4+gravity")
    searcher, rng = Searcher(spec, slots_log2=16), random.Random(54)
    for _ in range(40):  # random games stopped at 8 to 14 stones, the game not over
        board = tuple([0] * game.n)
        for _ in range(rng.randint(8, 14)):
            if not game.moves(board):
                break
            board = game.child(board, rng.choice(game.moves(board)))
        check(game, searcher, board)


@pytest.mark.parametrize("spec,slots", [("7x6k4+gravity", 23), ("7x6k4+gravity", 12),
                                        ("8x7k4+gravity", 16), ("4x4k3+gravity", 4)])
def test_each_part_of_the_table_gives_back_the_key_from_bucket_and_tag(spec: str, slots: int
                                                                       ) -> None:
    """A key's slot and tag, in the table's large part (nodes of many empty squares) and its
    small part (few): the slot is a bucket's first, inside its part, and slot and tag give back
    the key's mixed bits, so that no two keys share an entry (the table never confuses them)."""
    bits = Bitboards(parse_spec(spec), slots_log2=slots)
    width, rng = int(bits.bb[2]).bit_length(), random.Random(7)
    large = 1 << (width - int(bits.par[gravity._P_SHIFT]) + 1)
    small = 1 << (width - int(bits.par[gravity._P_SMALL_SHIFT]) + 1)
    # Typed again as the kernel holds them (numba returns Python ints).
    parts = tuple(np.int64(v) if i == 3 else np.uint64(v)
                  for i, v in enumerate(gravity._parts(bits.par, bits.bb)))
    for empty, first, size in ((gravity._SMALL + 1, 0, large), (gravity._SMALL, large, small)):
        shift = int(bits.par[gravity._P_SHIFT if first == 0 else gravity._P_SMALL_SHIFT])
        for _ in range(2000):
            key = rng.getrandbits(width)
            slot, tag = gravity._slot(np.uint64(key), empty, parts)
            assert first <= slot < first + size and slot % 2 == 0
            mixed = (key * int(gravity._MUL)) % (1 << width)
            assert ((slot - first) >> 1) << shift | int(tag) == mixed and int(tag) < 1 << 44
    assert len(bits.tt) == large + small + (bitboard.BUSY if bits.threads > 1 else 0)


@pytest.mark.parametrize("spec", ["7x6k4+gravity", "5x4k3+gravity", "6x5k5+gravity",
                                  "4x4k2+gravity"])
def test_winning_squares_by_bit_tricks_against_the_lines(spec: str) -> None:
    """gravity.wins: the empty squares where a stone completes a line, on random stacked
    boards (any heights and colours, reachable or not) against the reference's line check."""
    game, bits, rng = shared_game(spec), Bitboards(parse_spec(spec), slots_log2=8), random.Random(3)
    for _ in range(300):
        board = [0] * game.n
        for col in range(game.w):
            for row in range(game.h - 1, game.h - 1 - rng.randint(0, game.h), -1):
                board[row * game.w + col] = rng.choice((1, 2))
        mine = sum(1 << bit_of(bits.spec, c) for c, v in enumerate(board) if v == 1)
        mask = sum(1 << bit_of(bits.spec, c) for c, v in enumerate(board) if v)
        # A stone completing a line with k - 1 others: the board holds a line.
        assert bool(gravity.wins(np.uint64(mine), np.uint64(mine), bits.par)) \
            == game.wins(tuple(board), 1)
        if game.wins(tuple(board), 1):
            continue  # every square would "complete" a line already there
        found = int(gravity.wins(np.uint64(mine), np.uint64(int(bits.bb[1]) & ~mask), bits.par))
        want = 0
        for c in range(game.n):
            if board[c] == 0:
                board[c] = 1
                if game.wins(tuple(board), 1):
                    want |= 1 << bit_of(bits.spec, c)
                board[c] = 0
        assert found == want, board


# Each sound pruning rule of the kernel on a 5x4k4+gravity position that triggers it (Pons'
# moves, x first), with the plain negamax's outcome of the position and of every move.
PRUNED = {
    # a win at once, found by bit tricks (x: column 1 holds three)   . . . . .
    # -> win in 1, only in column 1                                   x o . . .
    "a win at once": "121212",                                      # x o . . .  (x to move)
    # a single threat to block (o: column 5 holds three)             . . . . .
    # -> every move but column 5 loses in 2                           . . . . o
    "the only block": "152515",                                     # x . . . o  (x to move)
    # two threats (x: an open three on the bottom row)               . . . . .
    # -> o loses in 2 whatever it plays                               . o o . .
    "two threats": "22334",                                         # . x x x .  (o to move)
    # never below the opponent's winning square (x's diagonal        . . . . .
    # ends on column 2's top square): o in column 2 loses in 2;      . . x . .
    # column 4 alone keeps the draw                                   . o o x .
    "a move under a winning square": "534122433",                   # o x o x x  (o to move)
}


@pytest.mark.parametrize("name", sorted(PRUNED))
def test_each_pruning_rule_against_plain_negamax(name: str) -> None:
    game = shared_game("5x4k4+gravity")
    board = drop(game, PRUNED[name])
    check(game, Searcher(parse_spec("5x4k4+gravity"), slots_log2=16), board)
    s = Searcher(parse_spec("5x4k4+gravity"), slots_log2=16).solve(board)
    keeping = [c for c in game.moves(board)
               if (-game.solve(game.child(board, c))[0], game.solve(game.child(board, c))[1] + 1)
               == game.solve(board)]
    assert s.move in keeping and len(keeping) == (5 if name == "two threats" else 1)


def _pons_set() -> list[tuple[str, int]]:
    rows = [line.split() for line in read_set("connect4_pons.txt")]
    return [(moves, int(score)) for moves, score in rows]


def pons_outcome(cells: int, stones: int, score: int) -> tuple[Value, int]:
    """Value and depth from Pons' score (a win whose move is made after m stones scores
    (cells + 1 - m) // 2): the m of the winner's parity."""
    if score == 0:
        return Value.DRAW, cells - stones
    for m in range(stones, cells):
        winner_moves = (m - stones) % 2 == 0  # the side to move makes the move after m stones
        if (cells + 1 - m) // 2 == abs(score) and winner_moves == (score > 0):
            return (Value.WIN if score > 0 else Value.LOSS), m - stones + 1
    raise AssertionError(score)


@pytest.mark.parametrize("threads", [1, 2])
def test_connect_four_in_pons_notation_scored_by_the_plain_negamax(
        threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/search_positions/connect4_pons.txt: 7x6 positions of 24 to 32 stones, scored by the
    plain negamax (tests/search_sets.py); two threads from the first node (no inline start)."""
    if threads == 2:
        monkeypatch.setattr(bitsolver, "INLINE_NODES", 0)
        monkeypatch.setattr(bitsolver, "idle_cores", lambda: 1)  # a helper however busy the machine
    game, searcher = shared_game("7x6k4+gravity"), Searcher(parse_spec("7x6k4+gravity"), threads=threads)
    rows = _pons_set()
    assert len(rows) >= 30 and {np.sign(score) for _, score in rows} == {-1, 0, 1}
    for moves, score in rows:
        board = drop(game, moves)
        s = searcher.solve(board)
        assert (s.value, s.depth) == pons_outcome(42, len(moves), score), moves
        # The move keeps them: its child scores minus the position's (the search again, a
        # fresh searcher: the same table could only repeat itself).
        child = Searcher(parse_spec("7x6k4+gravity"), slots_log2=16).solve(game.child(board, s.move))
        assert (child.value, child.depth) == (Value(-int(s.value)), s.depth - 1) if s.depth > 1 \
            else child.depth == 0


def test_many_positions_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Searcher.solve_many (their first nodes in one compiled call, the rest one at a time):
    4x4k3+gravity positions against the plain negamax, the Pons-notation set against its
    scores, with a batch of few nodes a board so that some go on after it; a node budget
    stops a board as `solve` would."""
    monkeypatch.setattr(bitsolver, "INLINE_NODES", 64)
    small = shared_game("4x4k3+gravity")
    boards = sorted(small.reachable())[::7]
    for board, s in zip(boards, Searcher(parse_spec("4x4k3+gravity"), slots_log2=10)
                        .solve_many(boards)):
        value, depth = small.solve(board)
        assert (s.value, s.depth) == (WORDS[value], depth), board
        assert s.move is None if depth == 0 else \
            small.solve(small.child(board, s.move)) == (-value, depth - 1)
    spec, game, rows = parse_spec("7x6k4+gravity"), shared_game("7x6k4+gravity"), _pons_set()
    searcher = Searcher(spec)
    found = searcher.solve_many([drop(game, moves) for moves, _ in rows])
    assert any(s.nodes > 64 + 1024 for s in found)  # went on after the batch
    for (moves, score), s in zip(rows, found):
        assert (s.value, s.depth) == pons_outcome(42, len(moves), score), moves
        child = searcher.solve(game.child(drop(game, moves), s.move))
        assert (child.value, child.depth) == (Value(-int(s.value)), s.depth - 1) \
            if s.depth > 1 else child.depth == 0
    empty, at_once = Searcher(spec).solve_many([(0,) * 42, drop(game, "121212")],
                                               Budget(nodes=5_000))
    assert empty.value is None and 5_000 <= empty.nodes < 5_000 + 2 * 1024
    assert (at_once.value, at_once.depth, at_once.move) == (Value.WIN, 1, 2 * 7 + 0)


def test_near_the_end_a_known_root_still_gives_a_move_that_keeps_its_score() -> None:
    """Boards of few empty squares are solved with the whole window, whose root searches its
    moves whatever the table already says of it: solved twice by one searcher (the second time
    the table holds every root and its children: 4x4 boards of 11 to 14 empty squares, where
    nodes use the table; some 80 of each), each answer and its move against the plain negamax."""
    for name, stones in (("4x4k3+gravity", (2, 3, 4, 5)), ("4x4k4+gravity", (2, 3, 4, 5))):
        game = shared_game(name)
        near = reachable_from(game, (0,) * game.n, plies=max(stones))
        boards = [b for b in sorted(near) if sum(1 for v in b if v) in stones]
        boards = boards[::max(1, len(boards) // 80)]
        searcher = Searcher(parse_spec(name), slots_log2=12)
        for _ in range(2):
            for board in boards:
                check(game, searcher, board)


@pytest.mark.parametrize("entry", [True, False])
def test_batches_of_any_size_one_after_another(monkeypatch: pytest.MonkeyPatch,
                                               entry: bool) -> None:
    """A searcher's batches keep their boards' arrays from one to the next of as many boards:
    batches of 3, 3, 5, 1 and 3 boards (tuples, lists, numpy rows), each against the plain
    negamax, none answering with another batch's boards; after the first, the kernel called by
    its compiled entry point, or by numba's dispatcher where there is none."""
    import numpy as np

    from tablebase.query.search import bitboard_arrays as bitboard
    if not entry:
        monkeypatch.setattr(bitboard, "_entry_point", lambda kernel, args: None)
    small = shared_game("4x4k3+gravity")
    boards = sorted(small.reachable())[::11]
    searcher = Searcher(parse_spec("4x4k3+gravity"), slots_log2=10)
    at = 0
    for size, kind in ((3, tuple), (3, list), (5, np.array), (1, tuple), (3, tuple)):
        batch = [kind(board) for board in boards[at:at + size]]
        at += size
        for board, s in zip(batch, searcher.solve_many(batch)):
            value, depth = small.solve(tuple(int(v) for v in board))
            assert (s.value, s.depth) == (WORDS[value], depth), board


def test_two_threads_give_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every 4x4k3+gravity position on two threads sharing a small table (entries replaced
    under both) against the plain negamax, and middle-game 7x6 positions of many nodes."""
    monkeypatch.setattr(bitsolver, "INLINE_NODES", 0)
    monkeypatch.setattr(bitsolver, "idle_cores", lambda: 1)  # a helper however busy the machine
    game = shared_game("4x4k3+gravity")
    searcher = Searcher(parse_spec("4x4k3+gravity"), slots_log2=10, threads=2)
    for board in sorted(game.reachable())[::23]:
        check(game, searcher, board)
    spec, c4 = parse_spec("7x6k4+gravity"), shared_game("7x6k4+gravity")
    one, two = Searcher(spec, threads=1), Searcher(spec, threads=2)
    for moves in read_set("connect4.txt")[::4]:
        board = drop(c4, "".join(str("abcdefg".index(m[0]) + 1) for m in moves.split()))
        a, b = one.solve(board), two.solve(board)
        assert (a.value, a.depth) == (b.value, b.depth) and a.value is not None, moves


@pytest.mark.parametrize("idle", [0, 1])
def test_budgets_stop_it_with_only_what_was_proved(idle: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """On one thread or two (a busy machine or an idle core for the helper)."""
    monkeypatch.setattr(bitsolver, "idle_cores", lambda: idle)
    spec = parse_spec("7x6k4+gravity")
    searcher, empty = Searcher(spec), (0,) * 42
    s = searcher.solve(empty, Budget(nodes=50_000))
    assert (s.value, s.low, s.high, s.depth, s.move) == (None, Value.LOSS, Value.WIN, None, None)
    assert 50_000 <= s.nodes < 50_000 + 2 * 1024
    start = time.monotonic()
    s = searcher.solve(empty, Budget(seconds=0.3))
    assert s.value is None and time.monotonic() - start < 0.3 + 0.2
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    start = time.monotonic()
    s = searcher.solve(empty, Budget(cancel=cancel))
    assert s.value is None and time.monotonic() - start < 0.2 + 0.2
    # Still sound after being stopped: a position of the Pons set, exactly.
    moves, score = _pons_set()[0]
    again = searcher.solve(drop(shared_game("7x6k4+gravity"), moves))
    assert (again.value, again.depth) == pons_outcome(42, len(moves), score)


def test_stored_tables_at_the_leaves(tmp_path: Path) -> None:
    """5x4k4+gravity with an endgame table of an 8-stone position at the leaves: the answers of
    its ancestors are the plain negamax's, and the table is used."""
    spec, game = parse_spec("5x4k4+gravity"), shared_game("5x4k4+gravity")
    db = str(tmp_path / "g.db")
    root = drop(game, "33424153")
    build(spec, db, root=root)
    with open_tablebase(db) as tb:
        held = leaves(tb, spec)
    assert len(held) == 1
    helped = Searcher(spec, held, slots_log2=14)
    for moves in ("3342415", "334241", "33424153", "334241535", "53424133"):
        board = drop(game, moves)
        check(game, helped, board)
    fresh = Searcher(spec, held, slots_log2=14).solve(drop(game, "3342415"))
    assert fresh.table_hits >= 1
    assert fresh.nodes < Searcher(spec, slots_log2=14).solve(drop(game, "3342415")).nodes
    mirrored = "".join(str(6 - int(ch)) for ch in "33424153")  # the root's mirror image
    assert reachable_from(game, drop(game, mirrored))  # a legal board
    check(game, helped, drop(game, mirrored))
    assert Searcher(spec, held, slots_log2=14).solve(drop(game, mirrored)).table_hits >= 1


def test_a_spent_budget_still_says_a_game_is_over() -> None:
    spec, game = parse_spec("7x6k4+gravity"), shared_game("7x6k4+gravity")
    searcher, spent = Searcher(spec), Budget(seconds=0.0)
    over = searcher.solve(drop(game, "1212121"), spent)  # x's four in column 1
    assert (over.value, over.depth, over.move) == (Value.LOSS, 0, None)
    at_once = searcher.solve(drop(game, "121212"), spent)
    assert (at_once.value, at_once.depth, at_once.move) == (Value.WIN, 1, 2 * 7 + 0)  # a3
    assert searcher.solve((0,) * 42, spent).value is None

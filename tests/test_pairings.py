"""The compiled pairing search (query/search/proofs.py on pairings.py's tables) against the search
as first written, plainly in Python: the same answer, the same pairing (the same choices tried in
the same order, the steps counted alike, so that a limit cuts both at the same place), on random
boards of one-word and two-word cell sets; and a defender's reply after which a pairing holds,
against each reply tried in turn."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.search.board import Board
from tablebase.query.search.masks import as_int
from tablebase.query.search.pairings import PairingTables
from tablebase.query.search.proofs import cannot_win, find_pairing, refuting_reply

LIMITS = (1, 7, 64, 512)


class _Limit(Exception):
    """The plain search ran out of steps."""


def _plain_pairing(pt: PairingTables, cnt: np.ndarray, occupied: int, p: int,
                   limit: int) -> tuple[bool, int]:
    """A pairing against player index p's open lines, within `limit` steps: each run with
    windows open for p keeps its choices that avoid the stones (none: no pairing), more cells
    needed than are empty is no pairing, then depth first, the run with the fewest choices
    disjoint from those taken first (the first such run on a tie), its choices in order, one
    step for each choice tried and one for finding none left."""
    runs: list[list[int]] = []
    for r in range(len(pt.run_off) - 1):
        lo, hi = int(pt.run_off[r]), int(pt.run_off[r + 1])
        windows = sum(1 << (j - lo) for j in range(lo, hi) if cnt[1 - p, pt.run_win[j]] == 0)
        if windows:
            first = int(pt.ch_off[r, windows])
            choices = [as_int(pt.ch_mask[first + i]) for i in range(pt.ch_num[r, windows])]
            runs.append([c for c in choices if not c & occupied])
            if not runs[-1]:
                return False, 0
    need = sum(bin(choices[0]).count("1") for choices in runs)
    if need > int(pt.size[0]) - bin(occupied).count("1"):
        return False, 0
    steps = [0]

    def step() -> None:
        steps[0] += 1
        if steps[0] > limit:
            raise _Limit

    def search(used: int, taken: frozenset[int]) -> int | None:
        left = {v: sum(1 for c in runs[v] if not c & used)
                for v in range(len(runs)) if v not in taken}
        if not left:
            return used
        pick = min(left, key=lambda v: (left[v], v))
        if left[pick] == 0:
            return None
        for c in runs[pick]:
            if not c & used:
                step()
                if (found := search(used | c, taken | {pick})) is not None:
                    return found
        step()
        return None

    try:
        found = search(0, frozenset())
    except _Limit:
        return False, 0
    return (True, found) if found is not None else (False, 0)


def _boards(spec_text: str, count: int, seed: int) -> list[list[int]]:
    """Random boards, most with many more o stones than x (so that x's lines are often
    paired), on random cells (the search asks nothing more of a board)."""
    spec, rng = parse_spec(spec_text), random.Random(seed)
    out = []
    for _ in range(count):
        board = [0] * spec.cells
        o, x = rng.randint(0, spec.cells // 2), rng.randint(0, spec.cells // 6)
        for i, c in enumerate(rng.sample(range(spec.cells), o + x)):
            board[c] = 2 if i < o else 1
        out.append(board)
    return out


@pytest.mark.parametrize("spec_text, count", [("5x5k4", 60), ("6x6k5", 60), ("8x8k5", 60),
                                              ("7x6k4", 30), ("9x9k5", 25), ("11x11k6", 10)])
def test_the_pairing_search_is_the_plain_search(spec_text: str, count: int) -> None:
    """The same answer and cells for each side and step limit (9x9 and 11x11: two-word cell
    sets; 11x11k6: runs of seven windows)."""
    b = Board(parse_spec(spec_text), slots_log2=1)
    found = 0
    for board in _boards(spec_text, count, seed=len(spec_text)):
        b.load(board)
        occupied = as_int(b.occupied)
        for p in (0, 1):
            for limit in LIMITS:
                done, zone = find_pairing(p, b.cnt, b.occupied, b.pairing, np.int64(limit))
                plain = _plain_pairing(b.pairing, b.cnt, occupied, p, limit)
                assert (bool(done), as_int(zone)) == plain, (board, p, limit)
                found += bool(done)
    assert found >= count // 3


@pytest.mark.parametrize("spec_text, count", [("6x6k5", 30), ("8x8k5", 30), ("9x9k5", 8)])
def test_a_refuting_reply_is_the_first_reply_after_which_a_pairing_holds(spec_text: str,
                                                                         count: int) -> None:
    """Each empty cell in turn (or the given moves, in their order): the first after which
    cannot_win holds for the other side, and that proof's cells with the reply's."""
    b = Board(parse_spec(spec_text), slots_log2=1)
    rng, found = random.Random(3), 0
    for board in _boards(spec_text, count, seed=5):
        b.load(board)
        me = b.placed % 2
        moves = [c for c in range(len(board)) if board[c] == 0]
        rng.shuffle(moves)
        moves = moves[:rng.choice((1, 3, len(moves)))]
        for limit in (8, 64):
            expected: tuple[int, int] = (-1, 0)
            for c in moves:
                b.place(c, me + 1)
                done, zone = cannot_win(1 - me, b.st, b.cnt, b.occupied, b.pairing,
                                        np.int64(limit))
                b.remove(c)
                if done:
                    expected = (c, as_int(zone) | 1 << c)
                    break
            reply, zone = refuting_reply(me, b.cnt, b.st, b.cl_off, b.cl_idx, b.occupied,
                                         np.array(moves, dtype=np.int64), len(moves), b.pairing,
                                         np.int64(limit))
            assert (int(reply), as_int(zone)) == expected, (board, moves, limit)
            found += reply >= 0
    assert found >= 3


def test_a_run_past_the_windows_listed_leaves_pairings_out() -> None:
    """A run's choices are listed for each set of its open windows (2**W of them): up to
    MAX_WINDOWS (a strip of 12 with k = 4), not past it (14x4k4's 11 would take seconds, a row
    of 26 with k = 3 some 10 GiB): that board is searched without pairings."""
    from tablebase.query.search import pairings

    assert pairings.MAX_WINDOWS == 9
    for text, listed in (("12x4k4", 1), ("14x4k4", 0), ("26x3k3", 0), ("11x11k5", 1)):
        spec = parse_spec(text)
        pt = Board(spec, slots_log2=8).pairing
        assert int(pt.size[2]) == listed, text
        assert listed or (len(pt.run_off) == 1 and pt.ch_off.size <= 2 and pt.ch_hit.size <= 2)


@pytest.mark.parametrize("spec_text", ["4x4k4", "5x4k4"])
def test_without_pairings_no_side_is_claimed_shut_out_but_by_dead_lines(
        spec_text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no run's choices listed (MAX_WINDOWS 0), cannot_win claims only a side without an
    open line (where the listed pairings claim more, on the same positions), and whole solves
    still equal the plain negamax there."""
    from tablebase.builder.games.grid import Value
    from tablebase.query.search import pairings
    from tablebase.query.search.searcher import Searcher
    from tests.reference import FewEmpty, shared_game
    from tests.test_proofs import _positions

    spec, game = parse_spec(spec_text), shared_game(spec_text)
    listed = Board(spec, slots_log2=8)
    monkeypatch.setattr(pairings, "MAX_WINDOWS", 0)
    arrays = Board(spec, slots_log2=8)
    assert int(listed.pairing.size[2]) == 1 and int(arrays.pairing.size[2]) == 0
    searcher = Searcher(spec, slots_log2=16)
    words = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}
    stones = range(6, 11) if spec_text == "4x4k4" else range(9, 14)
    paired = 0
    for board in _positions(spec_text, stones, 8, seed=11):
        for tables in (listed, arrays):
            tables.load(board)
        for p in (0, 1):
            open_lines = int(arrays.st[1 + p]) > 0
            done, _ = cannot_win(p, arrays.st, arrays.cnt, arrays.occupied, arrays.pairing, 512)
            assert bool(done) == (not open_lines), board
            done, _ = cannot_win(p, listed.st, listed.cnt, listed.occupied, listed.pairing, 512)
            paired += bool(done) and open_lines
        value, depth = FewEmpty(game, board).solve(board)
        s = searcher.solve(board)
        assert (s.value, s.depth) == (words[value], depth), board
    assert paired > 0  # the positions are ones where pairings would prove something

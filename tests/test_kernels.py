"""The compiled kernels: bitmaps against Python sets, children against the independent game
code, and whole tables built in every way of deduplicating and looking up codes (byte table,
bitmaps, hash table, sorted arrays; one thread or two) against the plain negamax."""
from __future__ import annotations

import copy
import random
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder import codetable as codetable_module
from tablebase.builder import hashtable, kernels, threads
from tablebase.builder.games import tier_lookup
from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid import tier as grid_tier
from tablebase.builder.games.grid.root import Root
from tablebase.builder.pipeline import build
from tablebase.db.scores import WIN_SCORE, depth_of, value_of
from tests.conftest import game_row, stored_rows
from tests.reference import Game


def test_bitmap_reads_back_sorted_distinct_codes_and_clears() -> None:
    rng = np.random.default_rng(7)
    size = 3 ** 12
    codes = rng.integers(0, size, 20_000)
    words = np.zeros(-(-size // 64), dtype=np.uint64)
    other = np.zeros_like(words)
    # Overlapping halves, as two marking threads leave them (set with numpy, not the kernels).
    for bitmap, part in ((words, codes[:12_000]), (other, codes[8_000:])):
        np.bitwise_or.at(bitmap, part >> 6, np.uint64(1) << (part & 63).astype(np.uint64))
    out = np.empty(1_000 + 64, dtype=np.int64)
    found, word = [], 0
    while word < len(words):
        n, word = kernels.take_bits(words, other, word, out)
        found.extend(out[:n].tolist())
    assert found == sorted(set(codes.tolist()))
    assert not words.any() and not other.any()


@pytest.mark.parametrize("name", ["4x4k4", "4x3k3+gravity", "3x3k3+misere"])
def test_children_are_the_canonical_boards_after_each_legal_move(name: str) -> None:
    game, spec = Game(name), parse_spec(name)
    root = Root.whole(spec)
    rng = random.Random(11)
    boards = []
    for _ in range(300):  # random games, cut at a random ply before they end
        board = tuple([0] * game.n)
        for _ in range(rng.randrange(game.n)):
            if not game.moves(board):
                break
            board = game.child(board, rng.choice(game.moves(board)))
        if game.moves(board):
            boards.append(board)
    for ply in sorted({game.stones(b) for b in boards}):
        here = [b for b in boards if game.stones(b) == ply]
        codes = np.array([game.code(b) for b in here], dtype=np.int64)
        kids = kernels.expand(root.tier_kernels(ply), codes).tolist()
        at = 0
        for board in here:  # each parent's children, parent by parent
            expected = sorted(game.canonical(game.child(board, c)) for c in game.moves(board))
            assert sorted(kids[at : at + len(expected)]) == expected
            at += len(expected)
        assert at == len(kids)


MODES = {  # (byte table, bitmaps, hash table): how children are deduplicated and looked up
    "mark bytes, look up bytes": (True, False, False),
    "mark bits, look up bytes": (True, True, False),
    "mark bits, look up hashed": (False, True, True),
    "sort, look up hashed": (False, False, True),
    "sort, binary search": (False, False, False),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", ["3x3k3+misere", "4x3k3+gravity", "3x3k3+gravity"])
def test_every_table_mode_equals_plain_negamax(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               mode: str, name: str) -> None:
    direct, bits, hashed = MODES[mode]
    real = codetable_module.CodeTable
    monkeypatch.setattr("tablebase.builder.pipeline.CodeTable",
                        lambda cells, **_: real(cells, direct, bits, hashed))
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 8)  # two threads even on small tiers
    monkeypatch.setattr(threads, "THREADS", 2)
    path = tmp_path / "t.db"
    build(parse_spec(name), str(path))
    game = Game(name)
    rows = stored_rows(path, name)
    reachable = game.reachable()
    assert set(rows) == {game.canonical(b) for b in reachable}
    assert game_row(path, name)["reachable"] == len(reachable)  # type: ignore[index]
    for code, (ply, value, depth) in rows.items():
        board = game.board(code)
        assert (ply, value, depth) == (game.stones(board), *game.solve(board)), board


def test_compiled_backup_is_values_backup_on_every_score() -> None:
    from tablebase.builder.games.grid import kernel
    from tablebase.db.scores import WIN_SCORE, backup

    scores = np.arange(-WIN_SCORE, WIN_SCORE + 1)
    assert [kernel.backup(int(x)) for x in scores] == backup(scores).tolist()
    decided = scores[np.abs(scores) > 1]  # a real score is at least WIN_SCORE - 39 away from 0
    assert [kernel.invert(kernel.backup(int(x))) for x in decided] == decided.tolist()


def test_the_compiled_sorted_look_up() -> None:
    keys = np.array([2, 4, 4, 9], dtype=np.int64)
    for key in range(11):
        for lo, hi in ((0, 4), (1, 3), (2, 2)):
            assert tier_lookup.lower_bound(keys, lo, hi, key) == lo + np.searchsorted(keys[lo:hi], key)


def test_expand_refuses_more_moves_than_its_bound() -> None:
    tier = copy.copy(Root.whole(parse_spec("3x3k3")).tier_kernels(0))
    tier.room = 8  # the empty board has 9
    with pytest.raises(RuntimeError, match="more than 8 legal moves"):
        kernels.expand(tier, np.zeros(1, np.int64))


def test_warm_up_loads_every_kernel() -> None:
    kernels.warm_up(Root.whole(parse_spec("3x3k3")))
    for name in ("_expand", "_mark", "_classify", "_solve"):
        assert getattr(grid_tier, name).signatures, name
    assert kernels.take_bits.signatures
    for name in ("hash_fill", "fill_part"):
        assert getattr(hashtable, name).signatures, name
    assert len(grid_tier._mark.signatures) == 2  # into a byte table, and into bitmaps


@pytest.mark.parametrize("n, slots", [(100_000, 1 << 18), (40_000, 1 << 16), (3_000, 1 << 12)])
def test_a_hash_table_filled_on_two_cores_finds_every_code(
        monkeypatch: pytest.MonkeyPatch, n: int, slots: int) -> None:
    """Each half of the table filled by its own thread, the codes whose probe crosses the middle
    (or the end) inserted after: every code is then found with its score, by the plain probe.
    Tables up to 61% full, so that runs of full slots do cross the halves; the table's memory
    held another tier's words before."""
    monkeypatch.setattr(threads, "THREADS", 2)
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 1_000)
    rng = np.random.default_rng(n)
    codes = np.unique(rng.integers(0, 3 ** 20, n * 2))[:n]
    scores = rng.integers(-64, 65, len(codes)).astype(np.int8)
    keys = rng.integers(0, 1 << 60, slots)  # what a larger tier left: fill_hash empties it
    shift = 64 - (slots.bit_length() - 1)
    hashtable.fill_hash(codes, scores, keys, shift)
    assert (keys != tier_lookup.EMPTY_KEY).sum() == len(codes)
    found = keys[[tier_lookup.probe(keys, shift, int(c)) for c in codes]]
    assert (found >> tier_lookup.SCORE_BITS).tolist() == codes.tolist()
    assert [tier_lookup.hashed_score(int(e)) for e in found] == scores.tolist()


def test_a_hash_slot_holds_the_largest_code_and_every_score() -> None:
    """A slot's word keeps a code of HASH_CELLS cells and any score of [-64, 64] apart."""
    top = 3 ** tier_lookup.HASH_CELLS - 1
    for score in (-64, -1, 0, 1, 63, 64):
        entry = int(tier_lookup.entry(top, score))
        assert entry > 0 and entry >> tier_lookup.SCORE_BITS == top
        assert tier_lookup.hashed_score(entry) == score


def test_one_thread_keeps_a_cluster_worker_on_its_own_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "THREADS", 2)
    pieces: list[tuple[int, int]] = []
    kernels.split_rows(100_000, lambda _, a, b: pieces.append((a, b)))
    assert sorted(pieces) == [(0, 50_000), (50_000, 100_000)]
    pieces.clear()
    with kernels.one_thread():
        kernels.split_rows(100_000, lambda _, a, b: pieces.append((a, b)))
    assert pieces == [(0, 100_000)]


def test_a_move_that_makes_a_line_decides_without_look_ups() -> None:
    # X to move on x x . / o o . / . . . : c1 makes a line. Under normal rules that is the best
    # move there is, so with the mover's lines the kernel looks up none of the children (the
    # next tier here is empty: any look-up would fail), and scores the board a win in 1 ply;
    # without them, or with a board that cannot win at once, it must look the children up.
    root = Root.whole(parse_spec("3x3k3"))
    empty = tier_lookup.NextTier(tier_lookup.HASHED, np.zeros(0, np.uint8),
                                 np.full(16, tier_lookup.EMPTY_KEY, np.int64),
                                 np.zeros(0, np.int8), 60, WIN_SCORE)
    open_ = np.full(1, kernels.UNSET, np.int8)
    board = (1, 1, 0, 2, 2, 0, 0, 0, 0)
    wins = np.array([root.code_of(board)], np.int64)
    found = kernels.solve(root.tier_kernels(4), wins, open_, empty)
    assert (int(value_of(found)[0]), int(depth_of(found, 5)[0])) == Game("3x3k3").solve(board)
    blind = copy.copy(root.tier_kernels(4))
    blind.masks = blind.ends_ = grid_tier.NO_LINES  # as under misère: every child counts
    with pytest.raises(LookupError):
        kernels.solve(blind, wins, open_, empty)
    cannot = np.array([root.code_of((1, 0, 0, 0, 2, 0, 0, 0, 0))], np.int64)
    with pytest.raises(LookupError):
        kernels.solve(root.tier_kernels(4), cannot, open_, empty)


@pytest.mark.parametrize("empties", [0, 7, 42])
def test_values_and_depths_of_every_int8_score(empties: int) -> None:
    """A ply's scores (int8, one count of empty cells) read by table give what the score
    layout says, score by score: a win in d is 64 - d, a loss in d is d - 64, a draw is 0 and
    runs to a full board; and what the general path gives for wider scores."""
    scores = np.arange(-128, 128).astype(np.int8)
    want = [0 if s == 0 else (1 if s > 0 else -1) for s in range(-128, 128)]
    want_depth = [empties if s == 0 else np.int8(64 - abs(s)) for s in range(-128, 128)]
    assert value_of(scores).tolist() == want
    assert depth_of(scores, empties).tolist() == want_depth
    assert np.array_equal(depth_of(scores, empties), depth_of(scores.astype(np.int16), empties))

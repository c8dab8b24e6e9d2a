"""The builder's tier loop (builder/enumerator.py, retrograde.py) builds any game whose root
gives loop-free tiers' kernels (builder/games/tier_kernels.py), not only the grid's: random
layered games, their kernels written here in plain Python (reading the next tier as
builder/games/tier_lookup.py lays it out), enumerated and solved in every table mode, and
solved again by a deliberately plain recursion over whole child lists."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder import threads
from tablebase.builder.codetable import CodeTable
from tablebase.builder.enumerator import enumerate_tiers
from tablebase.builder.games import tier_lookup as lk
from tablebase.builder.games.tier_kernels import OPEN
from tablebase.builder.manifest import Manifest
from tablebase.builder.memory import MemoryPlan
from tablebase.builder.retrograde import solve_tiers
from tablebase.builder.workdir import WorkDir
from tablebase.db.scores import WIN_SCORE

WIDTH, CELLS = 40, 6  # a position of tier t, number i: code t * WIDTH + i, below 3**CELLS


@dataclass
class LayeredKernels:
    """One tier of a layered game: kids[c] the moves of position c into the next tier
    (repeats allowed: two moves may reach one position), `over` the values where it ends,
    `sizes` each position's orbit."""

    kids: dict[int, list[int]]
    over: dict[int, int]
    sizes: dict[int, int]
    room: int = 4

    def children(self, codes: np.ndarray, out: np.ndarray) -> int:
        n = 0
        for c in codes.tolist():
            if n + len(self.kids[c]) > len(out):
                return -1
            out[n:n + len(self.kids[c])] = self.kids[c]
            n += len(self.kids[c])
        return n

    def mark(self, codes: np.ndarray, target: np.ndarray) -> None:
        for c in codes.tolist():
            for k in self.kids[c]:
                if target.dtype == np.uint64:
                    target[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
                else:
                    target[k] = 1

    def classify(self, codes: np.ndarray, ends: np.ndarray, orbits: np.ndarray) -> None:
        for i, c in enumerate(codes.tolist()):
            ends[i] = self.over.get(c, OPEN)
            orbits[i] = self.sizes[c]

    def solve(self, codes: np.ndarray, term: np.ndarray, lookup: lk.NextTier,
              best: np.ndarray) -> int:
        for i, c in enumerate(codes.tolist()):
            if term[i] != OPEN:
                best[i] = term[i]
                continue
            top = lk.UNSET
            for k in self.kids[c]:
                score = _read(lookup, k)
                if score is None:
                    return k
                top = max(top, -score + 1 if score > 0 else -score - 1 if score < 0 else 0)
            best[i] = top
        return lk.MISSING


def _read(lookup: lk.NextTier, code: int) -> int | None:
    """A child's score as the builder laid the next tier out, or None where it is not there."""
    if lookup.mode == lk.DIRECT:
        raw = int(lookup.slots[code])
        return None if raw == 0 else raw - lk.OFFSET
    if lookup.mode == lk.HASHED:
        word = int(lookup.keys[lk.probe(lookup.keys, lookup.shift, code)])
        return None if word == lk.EMPTY_KEY else int(lk.hashed_score(word))
    at = int(np.searchsorted(lookup.keys, code))
    found = at < len(lookup.keys) and int(lookup.keys[at]) == code
    return int(lookup.values[at]) if found else None


@dataclass
class LayeredRoot:
    """What the tier loop asks of a table's root (TableRoot), for a random layered game."""

    tiers: list[LayeredKernels]
    name: str = "a layered game"
    start_code: int = 0
    cells: int = CELLS
    ply: int = 0
    symmetries: np.ndarray = field(default_factory=lambda: np.zeros((1, CELLS), np.int64))

    @property
    def last_ply(self) -> int:
        return len(self.tiers) - 1

    def move_bound(self, ply: int) -> int:
        return 4

    def cyclic_tier(self, ply: int) -> bool:
        return False

    def tier_kernels(self, ply: int) -> LayeredKernels:
        return self.tiers[ply]

    def kids(self, code: int) -> list[int]:
        return self.tiers[code // WIDTH].kids.get(code, [])


def _game(seed: int, depth: int) -> LayeredRoot:
    rng = random.Random(seed)
    tiers = []
    for t in range(depth + 1):
        codes = [t * WIDTH + i for i in range(WIDTH)]
        nxt = [(t + 1) * WIDTH + i for i in range(WIDTH)]
        kids = {c: [rng.choice(nxt) for _ in range(rng.choice((0, 1, 2, 3, 4)))]
                if t < depth else [] for c in codes}
        # Where no move is left the game is over (lost or drawn); a few more ends.
        over = {c: rng.choice((-1, -1, 1, 0)) if kids[c] else rng.choice((-1, 0))
                for c in codes if not kids[c] or rng.random() < 0.1}
        tiers.append(LayeredKernels(kids, over, {c: rng.choice((1, 2, 4, 8)) for c in codes}))
    tiers[0].over.pop(0, None)  # the root goes on
    if not tiers[0].kids[0]:
        tiers[0].kids[0] = [WIDTH]
    return LayeredRoot(tiers)


def _plain(root: LayeredRoot, code: int) -> tuple[int, int]:
    """(value, depth) for the side to move, by recursion: the winner hurries, the loser delays;
    a draw's depth is not asked."""
    @lru_cache(maxsize=None)
    def solve(c: int) -> tuple[int, int]:
        t = c // WIDTH
        if c in root.tiers[t].over:
            return root.tiers[t].over[c], 0
        found = [solve(k) for k in root.kids(c)]
        wins = [d for v, d in found if v == -1]
        if wins:
            return 1, min(wins) + 1
        if any(v == 0 for v, _ in found):
            return 0, 0
        return -1, max(d for _, d in found) + 1
    return solve(code)


MODES = {"bytes": (True, False, False), "bits, hashed": (False, True, True),
         "sorted, hashed": (False, False, True), "sorted, searched": (False, False, False)}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("seed", range(4))
def test_a_layered_game_is_enumerated_and_solved_as_plain_recursion_solves_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, seed: int) -> None:
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 4)  # two threads even on these small tiers
    monkeypatch.setattr(threads, "THREADS", 2)
    root = _game(seed, depth=5)
    direct, bits, hashed = MODES[mode]
    work = WorkDir(tmp_path / "work")
    work.start(Manifest(spec="layered"))
    plan = MemoryPlan.for_budget(1 << 30)
    counts = enumerate_tiers(root, work, plan, CodeTable(CELLS, direct, bits), [])
    # Every position reachable from the root, tier by tier, as a plain walk finds them.
    seen, frontier = {0}, [0]
    while frontier:
        reached = {k for c in frontier if c not in root.tiers[c // WIDTH].over
                   for k in root.kids(c)}
        frontier = sorted(reached - seen)
        seen |= reached
    for tier in counts:
        codes = work.get("codes", tier.ply).tolist()
        assert codes == sorted(c for c in seen if c // WIDTH == tier.ply)
        assert tier.reachable == sum(root.tiers[tier.ply].sizes[c] for c in codes)
    solve_tiers(root, work, plan, CodeTable(CELLS, direct, hashed=hashed), counts, None)
    for tier in counts:
        for code, score in zip(work.get("codes", tier.ply).tolist(),
                               work.get("scores", tier.ply).tolist()):
            value, depth = _plain(root, code)
            assert int(np.sign(score)) == value, (seed, code)
            if value:
                assert WIN_SCORE - abs(score) == depth, (seed, code)


def test_a_tier_whose_moves_do_not_fit_its_bound_is_refused(tmp_path: Path) -> None:
    root = _game(0, depth=2)
    root.tiers[0].room = 0  # the root has a move
    work = WorkDir(tmp_path / "work")
    work.start(Manifest(spec="layered"))
    with pytest.raises(RuntimeError, match="more than 0 legal moves"):
        enumerate_tiers(root, work, MemoryPlan.for_budget(1 << 30), CodeTable(CELLS, False), [])

"""builder/cyclic.py solves any cyclic tier its game's kernels describe (builder/games/tier_kernels.py),
not only the stones' movement phase: random graphs with cycles, given as kernels written here
in plain Python, solved by it and by a deliberately plain fixpoint over whole child lists."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
import pytest

from tablebase.builder import cyclic
from tablebase.builder.games.tier_kernels import OPEN
from tablebase.db.scores import WIN_SCORE

WIN, DRAW, LOSS = 1, 0, -1


@dataclass
class GraphKernels:
    """A tier as a graph: kids[c] the moves of position c (repeats allowed, as two moves may
    reach one position), `over` the values of the positions where the game is over."""

    kids: list[list[int]]
    over: dict[int, int]
    ups: list[list[int]] = field(init=False)  # each position's parents
    room: int = field(init=False)

    def __post_init__(self) -> None:
        self.ups = [[] for _ in self.kids]
        for c, kids in enumerate(self.kids):
            for k in set(kids):
                self.ups[k].append(c)
        self.room = max(1, max(map(len, self.kids)), max(map(len, self.ups)))

    def ends(self, codes: np.ndarray, out: np.ndarray) -> None:
        for i, c in enumerate(codes.tolist()):
            out[i] = self.over.get(c, OPEN)

    def children(self, codes: np.ndarray, out: np.ndarray) -> int:
        n = 0
        for c in codes.tolist():
            out[n:n + len(self.kids[c])] = self.kids[c]
            n += len(self.kids[c])
        return n

    def counts(self, codes: np.ndarray, ends: np.ndarray, out: np.ndarray) -> None:
        for i, c in enumerate(codes.tolist()):
            out[i] = len(set(self.kids[c])) if ends[i] == OPEN else 0

    def orbits(self, codes: np.ndarray, out: np.ndarray) -> None:
        out[:] = 1  # no symmetries

    def parents(self, codes: np.ndarray, out: np.ndarray) -> int:
        n = 0
        for i, c in enumerate(codes.tolist()):
            for p in sorted(set(self.ups[c])):
                out[0, n], out[1, n] = p, i
                n += 1
        return n


@dataclass
class GraphRoot:
    """What builder/cyclic.py asks of a table's root."""

    kernels: GraphKernels
    name: str = "a graph"
    ply: int = 0
    last_ply: int = 0

    def cyclic_kernels(self) -> GraphKernels:
        return self.kernels


def _graph(seed: int, n: int) -> GraphKernels:
    rng = random.Random(seed)
    kids = [[rng.randrange(n) for _ in range(rng.choice((0, 1, 2, 3)))] for _ in range(n)]
    # Where no move is left the game is over; a few more ends, drawn ones among them.
    over = {c: rng.choice((LOSS, LOSS, WIN, DRAW)) for c in range(n)
            if not kids[c] or rng.random() < 0.05}
    return GraphKernels(kids, over)


def _plain(g: GraphKernels) -> list[tuple[int, int | None]]:
    """(value, depth) of every position: ends at depth 0; then for d = 1, 2, ... a position is
    won at d if a child is lost at d - 1 and lost at d if every child is won, the deepest at
    d - 1, each judged on its whole list of children; what is never decided is a draw (None:
    no depth; an end drawn at once keeps its 0)."""
    n = len(g.kids)
    value: list[int | None] = [g.over.get(c) for c in range(n)]
    depth: list[int | None] = [0 if c in g.over else None for c in range(n)]
    for d in range(1, 2 * n + 2):  # no depth goes past the positions there are
        decided = []
        for c in range(n):
            if value[c] is not None:
                continue
            kids = [(value[k], depth[k]) for k in g.kids[c]]
            if any(v == LOSS and dk == d - 1 for v, dk in kids):
                decided.append((c, WIN))
            elif all(v == WIN for v, _ in kids) and max(dk for _, dk in kids) == d - 1:
                decided.append((c, LOSS))
        for c, v in decided:
            value[c], depth[c] = v, d
    return [(DRAW, None) if v is None else (v, dd) for v, dd in zip(value, depth)]


@pytest.mark.parametrize("seed", range(6))
def test_a_random_graph_with_cycles_is_solved_as_the_plain_fixpoint_solves_it(seed: int) -> None:
    g = _graph(seed, 300)
    root = GraphRoot(g)
    codes = np.arange(len(g.kids), dtype=np.int64)
    term = cyclic.terms(root, codes)  # type: ignore[arg-type]
    scores = cyclic.solve_cyclic(root, codes, term)  # type: ignore[arg-type]
    want = _plain(g)
    got = [(int(np.sign(s)), None if s == 0 and c not in g.over else
            (0 if s == 0 else WIN_SCORE - abs(int(s)))) for c, s in enumerate(scores.tolist())]
    assert got == want
    assert any(v == DRAW and d is None for v, d in want)  # cycles left undecided: drawn
    assert any(d is not None and d > 2 for _, d in want)  # and depths worth checking


def test_the_closure_finds_every_position_reachable_from_the_entries() -> None:
    g = _graph(7, 400)
    root = GraphRoot(g)
    seen, todo = {0, 5}, [0, 5]
    while todo:
        c = todo.pop()
        if c in g.over:
            continue  # the game is over: no move is played from here
        for k in g.kids[c]:
            if k not in seen:
                seen.add(k)
                todo.append(k)
    found = cyclic.enumerate_cyclic(root, np.array([5, 0]))  # type: ignore[arg-type]
    assert found.tolist() == sorted(seen)


@pytest.mark.parametrize("chunk", [3, 4, 1 << 18])
def test_stored_parts_are_slices_where_the_plies_ascend_else_masks(monkeypatch, chunk: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cyclic, "_CHUNK", chunk)

    class Plies:  # a root whose codes are stored under the ply the code's tens say
        def stored_ply_array(self, codes: np.ndarray) -> np.ndarray:
            return np.asarray(codes) // 10

    ascending = np.array([1, 2, 3, 15, 16, 17, 18, 19, 40, 41, 42])
    parts = cyclic.stored_parts(Plies(), ascending)  # type: ignore[arg-type]
    assert [(p, s.start, s.stop) for p, s in parts] == [(0, 0, 3), (1, 3, 8), (4, 8, 11)]
    mixed = np.array([15, 3, 16, 4, 40])  # not in code order: the plies do not ascend
    parts = cyclic.stored_parts(Plies(), mixed)  # type: ignore[arg-type]
    assert [(p, mixed[m].tolist()) for p, m in parts] == [(0, [3, 4]), (1, [15, 16]), (4, [40])]

"""The symmetry group: it is a group, it keeps outcome and legal moves, and canonical codes are sound."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tablebase.builder.games.grid import (
    canonical,
    canonical_many,
    legal_moves,
    outcome,
    parse_spec,
    permutations,
)
from tablebase.builder.games.grid.symmetry import images, orbit_sizes, transform, transform_cell
from tests.reference import Game

TINY = ["3x3k3", "3x3k3+gravity", "3x3k3+misere", "3x2k2", "2x3k2+gravity", "4x2k2"]


@pytest.mark.parametrize("name, count", [("3x3k3", 8), ("4x4k4", 8), ("4x3k3", 4), ("3x4k3", 4),
                                         ("3x3k3+gravity", 2), ("5x4k4+gravity", 2), ("1x1k1", 8)])
def test_group_size(name: str, count: int) -> None:
    assert len(permutations(parse_spec(name))) == count


@pytest.mark.parametrize("name", TINY + ["4x4k4", "5x4k4"])
def test_maps_form_a_group(name: str) -> None:
    perms = {tuple(p) for p in permutations(parse_spec(name)).tolist()}
    n = len(next(iter(perms)))
    assert tuple(range(n)) in perms
    for a, b in itertools.product(perms, repeat=2):
        assert tuple(b[a[i]] for i in range(n)) in perms  # closed under composition
    for a in perms:
        assert sorted(a) == list(range(n))  # each map is a bijection of the cells


def _reachable(name: str) -> list[tuple[int, ...]]:
    return sorted(Game(name).reachable())


@pytest.mark.parametrize("name", TINY)
def test_maps_keep_outcome_and_moves(name: str) -> None:
    spec = parse_spec(name)
    maps = range(len(permutations(spec)))
    for board in _reachable(name):
        moves, result = legal_moves(spec, board), outcome(spec, board)  # once a board
        for s in maps:
            image = transform(spec, board, s)
            assert outcome(spec, image) == result
            assert sorted(legal_moves(spec, image)) == sorted(transform_cell(spec, m, s) for m in moves)


# Canonical codes read the board's shape and gravity, never the win rule: 3x3k3+misere has
# 3x3k3's very boards and maps, so it is left out here (it stays in the outcome test above).
@pytest.mark.parametrize("name", [name for name in TINY if name != "3x3k3+misere"])
def test_canonical_matches_independent_orbits(name: str) -> None:
    spec, game = parse_spec(name), Game(name)
    boards = _reachable(name)
    codes = np.array([game.code(b) for b in boards], dtype=np.int64)
    canon = canonical_many(spec, codes)
    independent = {b: game.canonical(b) for b in boards}
    assert [int(c) for c in canon] == list(independent.values())
    assert np.array_equal(canonical_many(spec, canon), canon)  # idempotent
    assert all(canonical(spec, int(c)) == int(k) for c, k in zip(codes[:300], canon[:300]))
    # every member of an orbit has the same canonical code (the images of a reachable board
    # are reachable: their independent codes are looked up, not computed again)
    for board, k in zip(boards, canon):
        assert {independent[img] if img in independent else game.canonical(img)
                for img in game.images(board)} == {int(k)}


def test_orbit_sizes_count_distinct_images() -> None:
    spec, game = parse_spec("3x3k3"), Game("3x3k3")
    boards = _reachable("3x3k3")
    codes = np.array([game.code(b) for b in boards], dtype=np.int64)
    sizes = orbit_sizes(images(spec, codes))
    assert [int(s) for s in sizes] == [len({game.code(i) for i in game.images(b)}) for b in boards]

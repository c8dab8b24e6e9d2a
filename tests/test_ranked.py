"""The morris movement phase solved as ranked tiers (builder/ranked.py over the sectors of
builder/games/morris/sectors.py) against tests/reference_morris.py's plain solver, every
position its closure meets looked up through the ranking; the ranking against plain orbits;
and the tier folder's build, resume and refusals (builder/ranked_build.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablebase.builder import ranked, ranked_build, threads
from tablebase.builder.games.errors import BuildTooLargeError
from tablebase.builder.games.morris.boards import board
from tablebase.builder.games.morris.game import MorrisGame
from tablebase.builder.games.morris.rules import Rules
from tablebase.builder.games.morris.sectors import tier_name
from tablebase.builder.games.morris.tiers import MorrisTiers
from tablebase.builder.games.ranked_tiers import HOLE, RANKED_WIN
from tablebase.builder.ranked import solve_tier
from tablebase.builder.ranked_build import (
    TierFigures,
    TierFileError,
    build_tiers,
    load_tier,
    read_manifest,
    tier_path,
)
from tests import reference_morris

# (board, stones, a line wins, captures, flying, misère): the real 3x3 games, and the capture
# rules on the 3x3 boards (with and without flying), whose sectors of 3 and 4 stones take a
# few thousand positions: every rule of the movement phase on a board the plain solver
# finishes in a second.
VARIANTS = {
    "three-mens-morris": ("three-mens-morris", 3, True, False, False, False),
    "three-mens-morris+misere": ("three-mens-morris", 3, True, False, False, True),
    "tapatan": ("tapatan", 3, True, False, False, False),
    "achi": ("tapatan", 4, True, False, False, False),
    "tapatan, captures, flying": ("tapatan", 4, False, True, True, False),
    "3x3, captures, no flying": ("three-mens-morris", 4, False, True, False, False),
}


@pytest.fixture(autouse=True)
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both cores and many chunks even on a few thousand positions: the split and the chunked
    rounds are what a large tier runs."""
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 64)
    monkeypatch.setattr(ranked, "_CHUNK", 256)
    monkeypatch.setattr(ranked, "_LISTED_LEAST", 0)  # shallow exits found by scans, deep listed


def sectors_of(name: str, placement: bool = False
               ) -> tuple[MorrisTiers, reference_morris.MorrisGame]:
    """The ranked tiers of a variant (its movement phase, or the whole game) and the plain
    solver's game under the same rules."""
    board_name, stones, lines_win, captures, flying, misere = VARIANTS[name]
    rules = Rules(board(board_name), stones, lines_win=lines_win, flying=flying, misere=misere)
    plain = reference_morris.MorrisGame(f"{board_name}+stones{stones}"
                                        + ("+misere" if misere else ""))
    plain.captures, plain.flying = captures, flying
    return MorrisTiers(rules, name, placement), plain


def text(points: int, rows: tuple[int, ...], x: int, o: int, side: str) -> str:
    """The plain solver's text of a movement position."""
    cells = "".join("x" if x >> i & 1 else "o" if o >> i & 1 else "." for i in range(points))
    parts, at = [], 0
    for r in rows:
        parts.append(cells[at:at + r])
        at += r
    return "/".join(parts) + " " + side


def masks(position: str) -> tuple[int, int]:
    """(the side to move's stones, the other's) of a plain text."""
    cells, side = position.split()[0].replace("/", ""), position.split()[1]
    x = sum(1 << i for i, c in enumerate(cells) if c == "x")
    o = sum(1 << i for i, c in enumerate(cells) if c == "o")
    return (x, o) if side == "x" else (o, x)


def outcome(score: int) -> tuple[int, int | None]:
    """(value, depth) of a ranked score, as the plain solver gives them."""
    if score == 0:
        return 0, None
    return (1, RANKED_WIN - score) if score > 0 else (-1, RANKED_WIN + score)


def check_against_plain(sectors: MorrisTiers, plain: reference_morris.MorrisGame,
                        solved: dict[str, np.ndarray], sample: int | None = None) -> int:
    """Every position the plain solver reaches from every stored position (both sides to
    move), or `sample` of them at random, equal to its score through the ranking; how many
    were compared."""
    b = sectors.rules.board
    starts = []
    for tier in sectors.ranked_tiers():
        for i in np.flatnonzero(solved[tier.name] != HOLE).tolist():
            me, you = tier.position(i)
            starts += [text(b.points, b.rows, me, you, "x"), text(b.points, b.rows, you, me, "o")]
    truth = plain.solve(starts)
    if sample is not None:
        picked = np.random.default_rng(59).choice(len(truth), sample, replace=False)
        keys = list(truth)
        truth = {keys[i]: truth[keys[i]] for i in picked.tolist()}
    least = 3 if plain.captures else 0
    compared = 0
    for position, expected in truth.items():
        me, you = masks(position)
        if me.bit_count() < least or you.bit_count() < least:
            continue  # a side left with two stones: lost, stored in no tier
        tier = sectors.tier(tier_name(me.bit_count(), you.bit_count()))
        score = int(solved[tier.name][tier.index(me, you)])
        assert score != HOLE, position
        assert outcome(score) == expected, position
        compared += 1
    return compared


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_position_equals_the_plain_solver(name: str) -> None:
    sectors, plain = sectors_of(name)
    solved: dict[str, np.ndarray] = {}
    for tier in sectors.ranked_tiers():
        solved[tier.name] = solve_tier(tier, solved)
    assert check_against_plain(sectors, plain, solved) > 500


@pytest.mark.slow
def test_six_mens_morris_three_stones_equals_the_plain_solver() -> None:
    """A real board and game: six men's morris's sector of three stones a side (mills that
    capture, no flying; some 20,000 positions stored, 312,000 in their orbits, all solved
    plainly; 20,000 of those looked up)."""
    sectors = MorrisGame("six-mens-morris+stones3").ranked(placement=False)
    solved = {t.name: solve_tier(t, {}) for t in sectors.ranked_tiers()}
    assert check_against_plain(sectors, reference_morris.MorrisGame("six-mens-morris+stones3"),
                               solved, sample=20_000) > 19_000


@pytest.mark.parametrize("name", ["tapatan, captures, flying", "achi"])
def test_the_ranking_keeps_one_index_an_orbit(name: str) -> None:
    """Every index is a position; a position's index is its own or it is a copy of another;
    the indices not copies are as many as the orbits under the board's symmetries, counted
    plainly (every image of every placement of the stones)."""
    sectors, _ = sectors_of(name)
    b = sectors.rules.board
    solved: dict[str, np.ndarray] = {}
    for tier in sectors.ranked_tiers():
        scores = solved[tier.name] = solve_tier(tier, solved)
        seen = set()
        for i in range(tier.size):
            me, you = tier.position(i)
            assert me & you == 0 and {me.bit_count(), you.bit_count()} == {tier.a, tier.b}
            assert (tier.index(me, you) == i) == (scores[i] != HOLE)
            seen.add(min(_image(s, me) << b.points | _image(s, you) for s in b.symmetries)
                     | (me.bit_count() << 2 * b.points))
        assert len(seen) == int(np.count_nonzero(scores != HOLE))


def _image(symmetry: tuple[int, ...], mask: int) -> int:
    return sum(1 << symmetry[i] for i in range(len(symmetry)) if mask >> i & 1)


def test_a_build_resumes_where_it_stopped_and_gives_the_same_tiers(tmp_path: Path) -> None:
    sectors, _ = sectors_of("tapatan, captures, flying")
    names = [t.name for t in sectors.ranked_tiers()]
    assert names == ["3-3", "4-3", "4-4"]
    whole = build_tiers(sectors, tmp_path / "whole", 1 << 40)
    assert list(whole) == names
    reported: list[str] = []
    parts = tmp_path / "parts"
    build_tiers(sectors, parts, 1 << 40, until="4-3", report=lambda f: reported.append(f.name))
    assert reported == ["3-3", "4-3"] and not tier_path(parts, "4-4").exists()
    tier_path(parts, "4-4").with_suffix(".npy.partial").write_bytes(b"cut short")
    build_tiers(sectors, parts, 1 << 40, report=lambda f: reported.append(f.name))
    assert reported == names
    build_tiers(sectors, parts, 1 << 40, report=lambda f: reported.append(f.name))
    assert reported == names  # nothing left to solve
    again = read_manifest(parts, sectors.name)
    assert [f.digest for f in again.values()] == [f.digest for f in whole.values()]
    for f in whole.values():
        scores = load_tier(tmp_path / "whole", f)
        assert f.wins + f.draws + f.losses + f.copies == f.size == len(scores)
        assert f.wins == np.count_nonzero((scores > 0))
        assert f.deepest_win == RANKED_WIN - scores[scores > 0].min()


def test_a_changed_or_cut_tier_file_is_refused(tmp_path: Path) -> None:
    sectors, _ = sectors_of("tapatan, captures, flying")
    done = build_tiers(sectors, tmp_path, 1 << 40, until="3-3")
    path = tier_path(tmp_path, "3-3")
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(TierFileError, match="changed since it was written"):
        build_tiers(sectors, tmp_path, 1 << 40)  # 4-3 reads 3-3
    path.write_bytes(bytes(data[:len(data) // 2]))
    with pytest.raises(TierFileError, match="3-3.npy"):
        load_tier(tmp_path, done["3-3"])
    path.unlink()
    with pytest.raises(TierFileError, match="cannot be read"):
        load_tier(tmp_path, done["3-3"])


def test_a_folder_of_another_game_or_a_bad_manifest_is_refused(tmp_path: Path) -> None:
    tapatan, _ = sectors_of("tapatan, captures, flying")
    three, _ = sectors_of("3x3, captures, no flying")
    build_tiers(tapatan, tmp_path, 1 << 40, until="3-3")
    with pytest.raises(TierFileError, match=r"not of '3x3, captures, no flying \(movement\)'"):
        build_tiers(three, tmp_path, 1 << 40)
    (tmp_path / "manifest.json").write_text("{ not json")
    with pytest.raises(TierFileError, match="not a manifest"):
        build_tiers(tapatan, tmp_path, 1 << 40)


def check_whole_game(sectors: MorrisTiers, plain: reference_morris.MorrisGame,
                     solved: dict[str, np.ndarray], sample: int | None = None) -> int:
    """Every position the plain solver reaches from the start (or `sample` of them) equal
    to its score where the tiers store it; how many were compared."""
    truth = plain.solve()
    keys = list(truth)
    if sample is not None:
        keys = [keys[i] for i in np.random.default_rng(59).choice(len(keys), sample,
                                                                   replace=False).tolist()]
    rules = sectors.rules
    compared = 0
    for position in keys:
        board_part, side, *left = position.split()
        x_left, o_left = (int(left[0]), int(left[1])) if left else (0, 0)
        cells = board_part.replace("/", "")
        x = sum(1 << i for i, c in enumerate(cells) if c == "x")
        o = sum(1 << i for i, c in enumerate(cells) if c == "o")
        mine = (o.bit_count() + o_left) if side == "o" else (x.bit_count() + x_left)
        if plain.captures and mine < 3:
            continue  # lost by the count of stones: stored nowhere
        name, index = sectors.locate(rules.pack(x, o, int(side == "o"), x_left, o_left))
        score = int(solved[name][index])
        assert score != HOLE, position
        assert outcome(score) == truth[position], position
        compared += 1
    return compared


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_whole_game_equals_the_plain_solver(name: str) -> None:
    """Placing, then moving: every position reachable from the start."""
    sectors, plain = sectors_of(name, placement=True)
    solved: dict[str, np.ndarray] = {}
    for tier in sectors.ranked_tiers():
        solved[tier.name] = solve_tier(tier, solved)
    assert check_whole_game(sectors, plain, solved) > 500


def test_a_build_past_the_free_disk_is_refused_before_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    sectors, _ = sectors_of("tapatan, captures, flying")
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=1000))
    with pytest.raises(BuildTooLargeError, match=r"GiB free: nothing built"):
        build_tiers(sectors, tmp_path, 1 << 40)
    assert not (tmp_path / "manifest.json").exists()
    # A build up to a tier needs the room of the tiers up to it only.
    first = sectors.ranked_tiers()[0]
    monkeypatch.setattr(shutil, "disk_usage",
                        lambda _: usage._replace(free=2 * first.size + 128))
    assert list(build_tiers(sectors, tmp_path, 1 << 40, until=first.name)) == [first.name]


def test_an_interrupted_build_lists_only_the_tiers_it_finished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebase.builder import ranked_build
    sectors, _ = sectors_of("tapatan, captures, flying")
    real = ranked_build.solve_tier

    def stopped(tier: object, *args: object, **kwargs: object) -> np.ndarray:
        if getattr(tier, "name") == "4-3":
            raise KeyboardInterrupt
        return real(tier, *args, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr(ranked_build, "solve_tier", stopped)
    with pytest.raises(KeyboardInterrupt):
        build_tiers(sectors, tmp_path, 1 << 40)
    assert list(read_manifest(tmp_path, sectors.name)) == ["3-3"]
    assert not tier_path(tmp_path, "4-3").exists()
    monkeypatch.setattr(ranked_build, "solve_tier", real)
    assert list(build_tiers(sectors, tmp_path, 1 << 40)) == ["3-3", "4-3", "4-4"]


def test_a_placement_s_rank_by_insertion_sums_is_the_colex_rank() -> None:
    """placement_kernels.insertion_sums: a set with one point inserted ranks, by one lookup,
    as the combinatorial number system ranks it counted plainly (a sum over its points)."""
    from math import comb

    from tablebase.builder.games.morris.placement_kernels import insertion_sums
    binom = np.array([[comb(n, k) for k in range(26)] for n in range(26)], dtype=np.int64)
    rng = np.random.default_rng(4)
    for _ in range(300):
        a = int(rng.integers(0, 10))
        points = [int(p) for p in rng.choice(24, a, replace=False)]
        packed = sum(1 << p for p in points)
        low, high = np.empty(a + 1, np.int64), np.empty(a + 1, np.int64)
        insertion_sums(np.int64(packed), a, binom, low, high)
        for x in set(range(24)) - set(points):
            k = sum(p < x for p in points)
            plain = sum(comb(p, j) for j, p in enumerate(sorted([*points, x]), 1))
            assert low[k] + comb(x, k + 1) + high[k] == plain


def test_a_build_lets_go_of_a_tier_once_no_tier_left_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiers a build maps to read stay mapped only until the last tier that reads them is
    solved (nine men's morris's resident set otherwise grows by every tier it has read)."""
    import gc
    import weakref

    tiers = MorrisGame("nine-mens-morris+stones3").ranked()
    order = [t.name for t in tiers.ranked_tiers()]
    last = {name: order.index(t.name) for t in tiers.ranked_tiers() for name in t.reads}
    alive: dict[str, weakref.ref[np.ndarray]] = {}
    real = ranked_build.load_tier

    def load(folder: Path, figures: TierFigures) -> np.ndarray:
        scores = real(folder, figures)
        alive[figures.name] = weakref.ref(scores)
        return scores
    monkeypatch.setattr(ranked_build, "load_tier", load)
    held_late: list[str] = []

    def report(figures: TierFigures) -> None:
        gc.collect()
        now = order.index(figures.name)
        held_late.extend(name for name, ref in alive.items()
                         if last[name] < now and ref() is not None)
    ranked_build.build_tiers(tiers, tmp_path, 1 << 32, report=report)
    assert len(alive) >= 3 and held_late == []

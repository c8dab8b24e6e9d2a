"""Ranked tiers solved out of core (builder/ranked_work.py: a tier past the memory budget's room
solved a slice at a time, its arrays and a round's told parents in files): the same scores as
the plain solver and byte for byte the same tier files as a build in memory, whatever the
slices and wherever the told parents wait; a build killed out of core resumes; what a budget
allows and refuses."""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tablebase.builder import ranked, ranked_build, ranked_work, threads
from tablebase.builder.games.errors import BuildTooLargeError
from tablebase.builder.games.morris.game import MorrisGame
from tablebase.builder.ranked import solve_tier
from tablebase.builder.ranked_build import build_tiers, check_room, read_manifest
from tablebase.builder.ranked_table import estimate_text
from tests.test_ranked import check_whole_game, sectors_of


@pytest.fixture(autouse=True)
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both cores and many chunks on a few thousand positions, as a large tier runs."""
    monkeypatch.setattr(threads, "PARALLEL_ROWS", 64)
    monkeypatch.setattr(ranked, "_CHUNK", 256)
    monkeypatch.setattr(ranked, "_LISTED_LEAST", 0)  # shallow exits found by scans, deep listed


def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Budgets in bytes: nothing set aside besides a tier's arrays, slices of a few positions."""
    monkeypatch.setattr(ranked_build, "FIXED_BYTES", 0)
    monkeypatch.setattr(ranked_work, "LEAST_SLICE", 16)


class Spy:
    """Counts the slices a solve held, the told parents it read back from files and the
    rounds told in more than one pass."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.slices = 0
        self.from_files = 0
        self.passes = 0
        take, held, full = (ranked_work.Buckets.take, ranked_work.TierWork.slice,
                            ranked_work.Buckets.full)

        def counted_take(buckets: ranked_work.Buckets, s: int, piece: int):  # type: ignore
            self.from_files += buckets.spilled[s]
            return take(buckets, s, piece)

        def counted_slice(work: ranked_work.TierWork, s: int, dense: bool = True):  # type: ignore
            self.slices = max(self.slices, work.slices)
            return held(work, s, dense)

        def counted_full(buckets: ranked_work.Buckets) -> bool:
            answer = full(buckets)
            self.passes += answer
            return answer
        monkeypatch.setattr(ranked_work.Buckets, "take", counted_take)
        monkeypatch.setattr(ranked_work.TierWork, "slice", counted_slice)
        monkeypatch.setattr(ranked_work.Buckets, "full", counted_full)


# Where a round's told parents wait: the buckets' cap in memory is a slice's bytes / (share -
# 1) (no end, or none), the files' a position's bytes (no end, or a few: rounds told in passes).
@pytest.mark.parametrize("share, files", [(1 + 1e-12, 1 << 20), (10 ** 12, 1 << 20),
                                          (10 ** 12, 0.01)],
                         ids=["told in memory", "told through files", "rounds in passes"])
@pytest.mark.parametrize("name", ["tapatan, captures, flying", "3x3, captures, no flying",
                                  "achi", "three-mens-morris+misere"])
def test_out_of_core_gives_the_scores_in_memory_gives(
        name: str, share: float, files: float, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tier of the whole game, its slices a fifth of it or less."""
    monkeypatch.setattr(ranked_work, "BUCKET_SHARE", share)
    monkeypatch.setattr(ranked_work, "FILE_BYTES_A_POSITION", files)
    spy = Spy(monkeypatch)
    sectors, _ = sectors_of(name, placement=True)
    whole: dict[str, np.ndarray] = {}
    sliced: dict[str, np.ndarray] = {}
    for tier in sectors.ranked_tiers():
        whole[tier.name] = solve_tier(tier, whole)
        room = tier.size * ranked_work.BYTES_A_POSITION // 5
        sliced[tier.name] = np.array(solve_tier(tier, sliced, room=room,
                                                spill=tmp_path / tier.name))
        assert np.array_equal(sliced[tier.name], whole[tier.name]), tier.name
    assert spy.slices >= 5
    assert (spy.from_files > 0) == (share > 2)  # where the told parents waited
    assert (spy.passes > 0) == (files < 1)


# Which exits are found by a scan of the tier and which listed by depth (ranked._DeepExits).
@pytest.mark.parametrize("least, share", [(0, 64), (0, 4), (1 << 40, 64)],
                         ids=["exits by scans", "shallow by scans, deep listed", "all listed"])
def test_out_of_core_equals_the_plain_solver(least: int, share: int, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Placing, then moving, each tier in seven slices: every position reachable from the start
    equal to the plain solver's value and depth."""
    monkeypatch.setattr(ranked, "_LISTED_LEAST", least)
    monkeypatch.setattr(ranked, "_LISTED_SHARE", share)
    sectors, plain = sectors_of("tapatan, captures, flying", placement=True)
    solved: dict[str, np.ndarray] = {}
    for tier in sectors.ranked_tiers():
        solved[tier.name] = solve_tier(tier, solved, room=tier.size, spill=tmp_path / tier.name)
    assert check_whole_game(sectors, plain, solved) > 500


def test_a_build_out_of_core_writes_the_files_of_one_in_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget below the widest tier's arrays: the same tier files (digests) and figures (its
    wins, draws, ... summed a piece of the file at a time) as a build with room for all, and no
    out-of-core file left."""
    spy = Spy(monkeypatch)
    tiers = MorrisGame("nine-mens-morris+stones3").ranked()
    whole = build_tiers(tiers, tmp_path / "whole", 1 << 40)
    assert spy.slices == 1
    small_budget(monkeypatch)
    monkeypatch.setattr(ranked_build, "_SUMMED", 1000)
    widest = max(t.size for t in tiers.ranked_tiers())
    sliced = build_tiers(tiers, tmp_path / "sliced", widest * 2)
    assert spy.slices >= 3
    assert [f.digest for f in sliced.values()] == [f.digest for f in whole.values()]
    assert [replace(f, seconds=0) for f in sliced.values()] == \
        [replace(f, seconds=0) for f in whole.values()]
    assert not (tmp_path / "sliced" / ranked_build.SPILL).exists()


def test_a_build_killed_out_of_core_resumes_and_gives_the_same_tiers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sectors, _ = sectors_of("tapatan, captures, flying")
    whole = build_tiers(sectors, tmp_path / "whole", 1 << 40)
    small_budget(monkeypatch)
    real = ranked._tell_all
    spill = tmp_path / "parts" / ranked_build.SPILL
    calls = 0

    def killed(*args: object) -> list[np.ndarray]:
        nonlocal calls
        calls += spill.exists()  # a tier solved out of core, some rounds in
        if calls == 20:
            raise KeyboardInterrupt
        return real(*args)  # type: ignore[arg-type]
    monkeypatch.setattr(ranked, "_tell_all", killed)
    budget = max(t.size for t in sectors.ranked_tiers()) * 2
    with pytest.raises(KeyboardInterrupt):
        build_tiers(sectors, tmp_path / "parts", budget)
    kept = read_manifest(tmp_path / "parts", sectors.name)
    assert len(kept) < len(whole) and any(spill.iterdir())
    resumed = build_tiers(sectors, tmp_path / "parts", budget)
    assert [f.digest for f in resumed.values()] == [f.digest for f in whole.values()]
    assert not spill.exists()


def test_nine_mens_morris_fits_four_gib_out_of_core_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """4 GiB holds no tier of 8-7's billion positions whole: they are solved out of core, and
    the estimate says which; 3 GiB does not hold the largest loop-free tier's scores: refused
    before anything is built."""
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=1 << 50))
    nine = MorrisGame("nine-mens-morris").ranked()
    check_room(nine, tmp_path / "nine", 4 << 30)
    said = estimate_text(nine, tmp_path / "nine", 4 << 30)
    past = [t.name for t in nine.ranked_tiers() if t.room and 6 * t.size > 2 << 30]
    assert "8-7" in past and said is not None
    assert f"{len(past)} of them out of core ({', '.join(past[:4])}, ...)" in said
    assert "4.0 GiB of memory at most" in said
    roomy = estimate_text(nine, tmp_path / "nine", 64 << 30)
    assert roomy is not None and "out of core" not in roomy
    with pytest.raises(BuildTooLargeError, match=r"tier \S+ holds [\d,]+ positions .* past the"
                                                 r" memory budget of 3.0 GiB: nothing built"):
        build_tiers(nine, tmp_path / "nine", 3 << 30)
    assert not (tmp_path / "nine" / "manifest.json").exists()


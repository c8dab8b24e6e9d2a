"""A game's ranked tiers (builder/games/ranked_tiers.py) solved into a folder, tier by tier, the
fewest stones first: each tier a file of its int16 scores (numpy's .npy, read back mapped),
and a manifest that lists the finished tiers with their figures and digests. A build that
stops (Ctrl-C, a fault, the end of a session) resumes at the first tier the manifest does not
list; a tier file is written beside its final name and renamed once whole, then listed.

This holds what builder/ranked.py computes for games too large to walk whole (nine men's
morris: some 10^10 positions); the tables a user queries are db/'s.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablebase.builder.games.errors import BuildTooLargeError
from tablebase.builder.games.ranked_tiers import (
    HOLE,
    RANKED_WIN,
    LoopFreeTier,
    RankedGame,
    RankedTier,
)
from tablebase.builder.progress import NO_PROGRESS, ProgressBar, ProgressFactory
from tablebase.builder.ranked import solve_tier
from tablebase.builder.ranked_work import (
    FILE_BYTES_A_POSITION,
    least_room,
    let_go,
    remove_spill,
    slices_for,
)
from tablebase.compiled import njit

MANIFEST = "manifest.json"
FORMAT = 1
SPILL = "spill"  # the folder of the out-of-core files of the tier being solved
# Besides a tier's own arrays: the decided positions of a round, a chunk's parents, the
# orbit tables (measured on nine men's morris: under 2 GiB at its largest tiers).
FIXED_BYTES = 2 << 30
# Out of core, a tier's counts and exit states (4 bytes a position) and a round's told parents
# (at most FILE_BYTES_A_POSITION) are files beside the tier files (its scores are its file).
SPILL_BYTES_A_POSITION = 4 + FILE_BYTES_A_POSITION


class TierFileError(ValueError):
    """A tier file that is missing, cut or changed since it was written: one line naming it."""


@dataclass(frozen=True)
class TierFigures:
    """What a finished tier holds and what it cost."""

    name: str
    size: int  # indices, copies included
    seconds: float
    wins: int
    draws: int
    losses: int
    copies: int
    deepest_win: int  # plies; 0 where no position is won
    deepest_loss: int
    digest: str  # blake2b of the file

    @property
    def positions(self) -> int:
        """The positions the tier stores, one an orbit (its copies aside)."""
        return self.size - self.copies


def tier_path(folder: Path, name: str) -> Path:
    """Where tier `name`'s scores live."""
    return folder / f"{name}.npy"


def read_manifest(folder: Path, game: str) -> dict[str, TierFigures]:
    """The finished tiers of `game` in `folder` (none where it has no manifest yet)."""
    path = folder / MANIFEST
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        if data["format"] != FORMAT or data["game"] != game:
            raise TierFileError(f"{folder} holds the tiers of {data['game']!r} (format"
                                f" {data['format']}), not of {game!r}")
        return {t["name"]: TierFigures(**t) for t in data["tiers"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        if isinstance(error, TierFileError):
            raise
        raise TierFileError(f"{path}: not a manifest of ranked tiers ({error})") from None


def _write_manifest(folder: Path, game: str, done: dict[str, TierFigures]) -> None:
    path = folder / MANIFEST
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps({"format": FORMAT, "game": game,
                                   "tiers": [asdict(f) for f in done.values()]}, indent=1))
    os.replace(partial, path)


def _digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            h.update(block)
    return h.hexdigest()


def load_tier(folder: Path, figures: TierFigures) -> np.ndarray:
    """A finished tier's scores, mapped from its file: TierFileError where the file is not the
    one the manifest lists (missing, cut, changed)."""
    path = tier_path(folder, figures.name)
    try:
        if _digest(path) != figures.digest:
            raise TierFileError(f"{path}: changed since it was written (its digest differs"
                                " from the manifest's); delete it and build again")
        scores = np.load(path, mmap_mode="r")
    except (OSError, ValueError) as error:
        if isinstance(error, TierFileError):
            raise
        raise TierFileError(f"{path}: cannot be read ({error}); delete it and build again"
                            ) from None
    if scores.dtype != np.int16 or scores.shape != (figures.size,):
        raise TierFileError(f"{path}: holds {scores.shape} {scores.dtype}, not the"
                            f" {figures.size:,} scores of tier {figures.name}")
    return scores


def working_room(memory_budget: int) -> int:
    """The bytes a tier's working arrays may take under `memory_budget` (what is left besides
    FIXED_BYTES)."""
    return memory_budget - FIXED_BYTES


def least_memory(tier: RankedTier | LoopFreeTier) -> int:
    """The fewest bytes `tier` is solved in: a loop-free tier's scores whole; a tier with
    rounds out of core, its slices the least it allows."""
    return 2 * tier.size if tier.room == 0 else least_room(tier.size)


def out_of_core(tier: RankedTier | LoopFreeTier, memory_budget: int) -> bool:
    """Whether `tier` is solved out of core under `memory_budget` (a tier with rounds whose
    working arrays are past the room the budget leaves)."""
    return tier.room > 0 and slices_for(tier.size, working_room(memory_budget)) > 1


def check_room(game: RankedGame, folder: Path, memory_budget: int, until: str | None = None,
               table: tuple[Path, int] | None = None) -> None:
    """BuildTooLargeError before anything is solved where a tier left to solve (one the
    folder's manifest does not list, up to and with tier `until` where given) would not fit
    the memory budget even out of core, or they would not fit the folder's disk (or, before
    it is made, its parent's). `table`, where given, is a file of about so many bytes to be
    written after the tiers (and beside them: the table they are stored in): it must fit its
    disk too, with the tiers where they share one."""
    done = read_manifest(folder, game.name) if folder.exists() else {}
    tiers = game.ranked_tiers()
    names = [t.name for t in tiers]
    stop = names.index(until) + 1 if until in names else len(names)
    left = [t for t in tiers[:stop] if t.name not in done]
    if left:
        widest = max(left, key=least_memory)
        need = least_memory(widest) + FIXED_BYTES
        if need > memory_budget:
            raise BuildTooLargeError(
                f"{game.name}: tier {widest.name} holds {widest.size:,} positions while it is"
                f" solved (about {need / 2**30:.1f} GiB at the least), past the memory budget"
                f" of {memory_budget / 2**30:.1f} GiB: nothing built")
    disk = sum(2 * t.size + 128 for t in left) + max(
        (SPILL_BYTES_A_POSITION * t.size for t in left if out_of_core(t, memory_budget)),
        default=0)
    # What each file system must hold: the tiers', and the table's (the same one by default).
    tiers_at = _existing(folder)
    wants = [("the tiers left take", tiers_at, disk)]
    if table is not None:
        table_at = _existing(table[0])
        if os.stat(table_at).st_dev == os.stat(tiers_at).st_dev:
            wants = [("the tiers left and the table take about", tiers_at, disk + table[1])]
        else:
            wants.append(("the table takes about", table_at, table[1]))
    for what, where, nbytes in wants:
        free = shutil.disk_usage(where).free
        if nbytes > free:
            raise BuildTooLargeError(f"{game.name}: {what} {nbytes / 2**30:.1f} GiB, {where} has"
                                     f" {free / 2**30:.1f} GiB free: nothing built")


def _existing(path: Path) -> Path:
    """`path`, or the nearest folder above it that exists: where it would be made."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def build_tiers(game: RankedGame, folder: Path, memory_budget: int,
                progress: ProgressFactory = NO_PROGRESS, until: str | None = None,
                report: Callable[[TierFigures], None] | None = None
                ) -> dict[str, TierFigures]:
    """Solve every tier of `game` the manifest in `folder` does not list yet (up to and with
    tier `until`, where given), in order, each written and listed before the next starts;
    return the figures of every finished tier. `report`, where given, is called with each
    tier's figures as it finishes."""
    folder.mkdir(parents=True, exist_ok=True)
    done = read_manifest(folder, game.name)
    tiers = game.ranked_tiers()
    if until is not None and until not in {t.name for t in tiers}:
        raise ValueError(f"{game.name}: no tier {until!r} ({', '.join(t.name for t in tiers)})")
    check_room(game, folder, memory_budget, until)
    # A tier read is kept mapped until the last tier that reads it is solved, then let go: the
    # pages of every tier read would otherwise stay in the process's resident set to the end
    # (nine men's morris: some 18 GiB of file pages by the placement phase's middle).
    last_reader = {name: k for k, tier in enumerate(tiers, 1) for name in tier.reads}
    loaded: dict[str, np.ndarray] = {}
    for k, tier in enumerate(tiers, 1):
        if tier.name not in done:
            for name in tier.reads:
                if name not in loaded:
                    loaded[name] = load_tier(folder, done[name])
            earlier = {name: loaded[name] for name in tier.reads}
            figures = _solve_and_write(tier, earlier, folder, working_room(memory_budget),
                                       _numbered(progress, k, len(tiers)))
            del earlier
            done[tier.name] = figures
            _write_manifest(folder, game.name, done)
            if report is not None:
                report(figures)
        for name in tier.reads:
            if last_reader[name] == k:
                loaded.pop(name, None)
        if tier.name == until:
            break
    return done


def _numbered(progress: ProgressFactory, k: int, n: int) -> ProgressFactory:
    """`progress` with each bar's description led by the tier's place among all (a build of
    hours shows how far it is)."""
    def bar(**kwargs: Any) -> AbstractContextManager[ProgressBar]:
        return progress(**{**kwargs, "desc": f"[{k}/{n}] {str(kwargs.get('desc', '')).strip()}"})
    return bar


def _solve_and_write(tier: RankedTier | LoopFreeTier, earlier: dict[str, np.ndarray],
                     folder: Path, room: int, progress: ProgressFactory) -> TierFigures:
    start = time.perf_counter()
    spill = folder / SPILL
    remove_spill(spill)  # what a build killed out of core left
    scores = solve_tier(tier, earlier, progress, room=room, spill=spill)
    path = tier_path(folder, tier.name)
    partial = path.with_name(path.name + ".partial")
    if isinstance(scores, np.memmap) and Path(str(scores.filename)).parent == spill:
        # Solved out of core: its scores are a .npy file already (np.save's bytes).
        os.replace(str(scores.filename), partial)
        with open(partial, "rb+") as f:
            os.fsync(f.fileno())
    else:
        with open(partial, "wb") as f:
            np.save(f, scores)
            f.flush()
            os.fsync(f.fileno())
    os.replace(partial, path)
    wins, draws, losses, copies, deepest_win, deepest_loss = _figures(scores)
    del scores
    remove_spill(spill)
    return TierFigures(tier.name, tier.size, round(time.perf_counter() - start, 3), wins, draws,
                       losses, copies, deepest_win, deepest_loss, _digest(path))


# Positions summed at a time from a tier's file mapped (out of core): their pages are let go
# after each piece, so the summary adds 128 MiB to the process, not the tier's 2 bytes a position.
_SUMMED = 1 << 26


def _figures(scores: np.ndarray) -> tuple[int, ...]:
    """`_summary` of a tier's scores, a piece at a time (a file mapped: each piece's pages let
    go after it; never memory of the process's own, which letting go would zero)."""
    mapped = isinstance(scores, np.memmap)
    total = np.zeros(6, np.int64)
    for start in range(0, len(scores), _SUMMED):
        piece = scores[start:start + _SUMMED]
        found = _summary(piece)
        if mapped:
            let_go(piece)
        total[:4] += found[:4]
        total[4:] = np.maximum(total[4:], found[4:])
    return tuple(int(v) for v in total)


@njit(cache=True, nogil=True)
def _summary(scores):  # type: ignore[no-untyped-def]
    """(wins, draws, losses, copies, deepest win, deepest loss) of a tier's scores."""
    wins = draws = losses = copies = 0
    deepest_win = deepest_loss = 0
    for i in range(scores.shape[0]):
        s = np.int32(scores[i])
        if s == HOLE:
            copies += 1
        elif s > 0:
            wins += 1
            deepest_win = max(deepest_win, RANKED_WIN - s)
        elif s < 0:
            losses += 1
            deepest_loss = max(deepest_loss, RANKED_WIN + s)
        else:
            draws += 1
    return np.array([wins, draws, losses, copies, deepest_win, deepest_loss])

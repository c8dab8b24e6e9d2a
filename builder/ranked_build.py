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
from tablebase.builder.ranked import BYTES_A_POSITION, solve_tier
from tablebase.compiled import njit

MANIFEST = "manifest.json"
FORMAT = 1
# Besides a tier's own arrays: the decided positions of a round, a chunk's parents, the
# orbit tables (measured on nine men's morris: under 2 GiB at its largest tiers).
FIXED_BYTES = 2 << 30


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


def check_room(game: RankedGame, folder: Path, memory_budget: int) -> None:
    """BuildTooLargeError before anything is solved where a tier left to solve (one the
    folder's manifest does not list) would not fit the memory budget or they would not fit
    the folder's disk (or, before it is made, its parent's)."""
    done = read_manifest(folder, game.name) if folder.exists() else {}
    left = [t for t in game.ranked_tiers() if t.name not in done]
    if not left:
        return
    widest = max(left, key=lambda t: t.size)
    need = widest.size * BYTES_A_POSITION + FIXED_BYTES
    if need > memory_budget:
        raise BuildTooLargeError(
            f"{game.name}: tier {widest.name} holds {widest.size:,} positions while it is"
            f" solved (about {need / 2**30:.1f} GiB), past the memory budget of"
            f" {memory_budget / 2**30:.1f} GiB: nothing built")
    disk = sum(2 * t.size + 128 for t in left)
    where = folder if folder.exists() else folder.parent
    free = shutil.disk_usage(where).free
    if disk > free:
        raise BuildTooLargeError(f"{game.name}: the tiers left take {disk / 2**30:.1f} GiB,"
                                 f" {where} has {free / 2**30:.1f} GiB free: nothing built")


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
    check_room(game, folder, memory_budget)
    if until is not None and until not in {t.name for t in tiers}:
        raise ValueError(f"{game.name}: no tier {until!r} ({', '.join(t.name for t in tiers)})")
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
            figures = _solve_and_write(tier, earlier, folder, _numbered(progress, k, len(tiers)))
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
                     folder: Path, progress: ProgressFactory) -> TierFigures:
    start = time.perf_counter()
    scores = solve_tier(tier, earlier, progress)
    path = tier_path(folder, tier.name)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as f:
        np.save(f, scores)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)
    wins, draws, losses, copies, deepest_win, deepest_loss = (int(v) for v in _summary(scores))
    return TierFigures(tier.name, tier.size, round(time.perf_counter() - start, 3), wins, draws,
                       losses, copies, deepest_win, deepest_loss, _digest(path))


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

"""Which stored positions an audit shows a solver, and in which orientation: the `--positions`
selection, and the image of each position's symmetry orbit it is shown in (random but fixed by
the seed and the code, or every distinct image)."""
from __future__ import annotations

from collections.abc import Sequence

from dataclasses import dataclass

import numpy as np

from tablebase.builder.game import Spec, permutations, transform
from tablebase.db.checksum import mix64
from tablebase.db.records import PositionArrays
from tablebase.query.errors import AuditInputError
from tablebase.query.tablebase import Tablebase

# Without --orientations, every image of every position is shown when that is at most this many.
EVERY_IMAGE_LIMIT = 100_000


@dataclass(frozen=True)
class Selection:
    """Which stored positions to audit: 'non-terminal' (the default), 'all' (terminal ones too),
    'sample' (`number` non-terminal positions drawn at random, spread evenly over the plies and
    values), 'uniform' (drawn at random from all alike), 'ply' (the non-terminal ones
    with `number` stones), 'depth' (the non-terminal ones of depth `number` to `upto`, both
    included) or 'hardest' (the `number` with the longest wins and losses, then the deepest
    draws: where a search cut short goes wrong)."""

    kind: str = "non-terminal"
    number: int | None = None
    upto: int | None = None  # 'depth' only: the largest depth (None: `number` alone)

    def __str__(self) -> str:
        if self.kind == "all":
            return "every stored position, terminal ones included"
        if self.kind == "sample":
            return (f"a random sample of {self.number:,} stored non-terminal positions, spread"
                    " evenly over plies and values")
        if self.kind == "uniform":
            return f"a uniform random sample of {self.number:,} stored non-terminal positions"
        if self.kind == "ply":
            stones = "stone" if self.number == 1 else "stones"
            return f"the stored non-terminal positions with {self.number} {stones}"
        if self.kind == "depth":
            depths = (f"{self.number}" if self.upto in (None, self.number)
                      else f"{self.number} to {self.upto}")
            return f"the stored non-terminal positions of depth {depths}"
        if self.kind == "hardest":
            return (f"the {self.number:,} hardest stored positions (the longest wins and losses"
                    " first, then the deepest draws)")
        return "the stored non-terminal positions"

    @property
    def option(self) -> str:
        """The --positions text that names this selection."""
        if self.number is None:
            return self.kind
        upto = "" if self.upto in (None, self.number) else f"-{self.upto}"
        return f"{self.kind}:{self.number}{upto}"


def parse_selection(text: str | None) -> Selection:
    """The Selection named by `--positions` text: all, sample:N, ply:P or hardest:N (None:
    non-terminal)."""
    if text is None or text.strip() == "non-terminal":
        return Selection()
    cleaned = text.strip().lower()
    if cleaned == "all":
        return Selection("all")
    kind, _, number = cleaned.partition(":")
    low, dash, high = number.partition("-")
    if kind == "depth" and low.isdigit() and (not dash or high.isdigit()):
        if dash and int(high) < int(low):
            raise AuditInputError(f"--positions {text!r}: the depths run from low to high")
        return Selection("depth", int(low), int(high) if dash else None)
    if kind in ("sample", "uniform", "ply", "hardest") and number.isdigit():
        if kind in ("sample", "uniform", "hardest") and int(number) == 0:
            raise AuditInputError(f"--positions {text!r}: a {kind} needs at least one position")
        return Selection(kind, int(number))
    raise AuditInputError(
        f"cannot read --positions {text!r}: expected all, sample:N (N random positions, spread"
        " over plies and values), uniform:N (N random positions), ply:P"
        " (the positions with P stones), depth:D or depth:D1-D2 (those of that depth) or"
        " hardest:N (the N longest wins and losses first)")


def select_positions(tb: Tablebase, spec: Spec, selection: Selection, seed: int = 0,
                     root: Sequence[int] | str | None = None) -> PositionArrays:
    """The stored positions a selection names, in code order (canonical codes and their rows),
    of the whole-board table or of the endgame table rooted at `root`."""
    table = tb.table(spec, root)
    keep = np.ones(len(table.codes), dtype=bool) if selection.kind == "all" else table.depth > 0
    if selection.kind == "ply":
        keep &= table.ply == selection.number
        if not keep.any():
            plies = np.unique(table.ply[table.depth > 0])
            raise AuditInputError(
                f"--positions ply:{selection.number}: {spec.name} has no stored non-terminal"
                f" position with {selection.number} stones (they have {plies.min()} to"
                f" {plies.max()})")
    if selection.kind == "depth":
        top = selection.number if selection.upto is None else selection.upto
        keep &= (table.depth >= selection.number) & (table.depth <= top)
        if not keep.any():
            raise AuditInputError(f"--positions {selection.option}: {spec.name} has no stored"
                                  " non-terminal position of that depth")
    chosen = np.flatnonzero(keep)
    wanted = selection.number
    if selection.kind == "uniform" and wanted is not None and wanted < len(chosen):
        chosen = np.sort(np.random.default_rng(seed).choice(chosen, wanted, replace=False))
    if selection.kind == "sample" and wanted is not None and wanted < len(chosen):
        chosen = _spread(chosen, table.ply[chosen] * 3 + table.value[chosen] + 1, wanted, seed)
    if selection.kind == "hardest" and selection.number is not None:
        # Decided games by depth, longest first, then draws by depth (the fewest stones);
        # ties in code order.
        drawn = table.value[chosen] == 0
        order = np.lexsort((table.codes[chosen], -table.depth[chosen].astype(np.int16), drawn))
        chosen = np.sort(chosen[order[:selection.number]])
    return PositionArrays(table.codes[chosen], table.ply[chosen], table.value[chosen],
                          table.depth[chosen])


def _spread(chosen: np.ndarray, strata: np.ndarray, wanted: int, seed: int) -> np.ndarray:
    """`wanted` of `chosen`, at random, taking one from each stratum in turn: the rare ones (the
    early plies, the decided games among draws) are as well represented as the common ones."""
    shuffled = np.random.default_rng(seed).permutation(len(chosen))
    grouped = shuffled[np.argsort(strata[shuffled], kind="stable")]  # by stratum, random within
    ordered = strata[grouped]
    starts = np.r_[0, np.flatnonzero(np.diff(ordered)) + 1]
    rank = np.arange(len(grouped)) - np.repeat(starts, np.diff(np.r_[starts, len(grouped)]))
    return np.sort(chosen[grouped[np.lexsort((ordered, rank))[:wanted]]])


def orientations(spec: Spec, codes: np.ndarray, seed: int = 0) -> np.ndarray:
    """A random symmetry map (an index into `permutations(spec)`) for each code.

    It depends only on the seed and the code, so a position is shown in the same image whichever
    selection it comes in.
    """
    keyed = np.asarray(codes, dtype=np.int64).astype(np.uint64) ^ mix64(
        np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))
    return (mix64(keyed) % np.uint64(len(permutations(spec)))).astype(np.int64)


def images(spec: Spec, board: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct image of a board under the symmetry maps, in map order (identity first)."""
    seen: dict[tuple[int, ...], None] = {}
    for s in range(len(permutations(spec))):
        seen.setdefault(transform(spec, board, s), None)
    return list(seen)

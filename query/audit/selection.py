"""Which stored positions an audit shows a solver, and in which orientation: the `--positions`
selection, and the image of each position's symmetry orbit it is shown in (random but fixed by
the seed and the code, or every distinct image). Where stones move (`+stonesN`) a position is
its cells followed by the side to move, and a draw (by endless play) has no depth: `depth:D`
and `hardest:N` pass over draws there, and list them after every decided position."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from tablebase.builder.games.grid import Spec, permutations
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.grid.position_texts import read_positions
from tablebase.builder.games.registry import grid_game
from tablebase.db.records import PositionArrays
from tablebase.query.errors import AuditInputError

if TYPE_CHECKING:
    from tablebase.query.tablebase import Tablebase

# Without --orientations, every image of every position is shown when that is at most this many.
EVERY_IMAGE_LIMIT = 100_000


# What a --positions part does: narrow the positions (several may combine), or pick some of
# them (at most one, applied after every narrowing part).
NARROWING = ("all", "ply", "depth", "file")
PICKING = ("sample", "uniform", "hardest")
_USAGE = ("expected all, sample:N (N random positions, spread over plies and values), uniform:N"
          " (N random positions), ply:P (those with P stones), depth:D or depth:D1-D2 (those of"
          " that depth), hardest:N (the N longest wins and losses first) or file:PATH (those in"
          " a file, one a line), or several joined by commas such as ply:12,sample:50")


@dataclass(frozen=True)
class Selection:
    """Which stored positions to audit: 'non-terminal' (the default), 'all' (terminal ones too),
    'sample' (`number` non-terminal positions drawn at random, spread evenly over the plies and
    values), 'uniform' (drawn at random from all alike), 'ply' (the non-terminal ones
    with `number` stones), 'depth' (the non-terminal ones of depth `number` to `upto`, both
    included), 'hardest' (the `number` with the longest wins and losses, then the deepest
    draws: where a search cut short goes wrong) or 'file' (the positions listed in the file
    `path`, one a line, as board text or moves from the empty board, terminal ones included).
    `within` holds the parts of a combination that narrow the positions first (each a Selection
    of a kind in NARROWING), as in ply:12,sample:50."""

    kind: str = "non-terminal"
    number: int | None = None
    upto: int | None = None  # 'depth' only: the largest depth (None: `number` alone)
    path: str | None = None  # 'file' only
    within: tuple[Selection, ...] = ()

    @property
    def parts(self) -> tuple[Selection, ...]:
        """Every part, the narrowing ones first."""
        return (*self.within, self) if self.kind != "non-terminal" else self.within

    def _has(self, kind: str) -> Selection | None:
        return next((p for p in self.parts if p.kind == kind), None)

    def __str__(self) -> str:
        listed, whole = self._has("file"), self._has("all") is not None
        noun = ("stored positions" if listed is not None else
                "stored positions (terminal ones included)" if whole else
                "stored non-terminal positions")
        where = []
        if listed is not None:
            where.append(f"listed in {listed.path}")
        ply = self._has("ply")
        if ply is not None:
            where.append(f"with {ply.number} stone{'' if ply.number == 1 else 's'}")
        depth = self._has("depth")
        if depth is not None:
            where.append(f"of depth {depth.depths}")
        noun = " ".join([noun, " and ".join(where)]) if where else noun
        if self.kind == "sample":
            return f"a random sample of {self.number:,} {noun}, spread evenly over plies and values"
        if self.kind == "uniform":
            return f"a uniform random sample of {self.number:,} {noun}"
        if self.kind == "hardest":
            return (f"the {self.number:,} hardest {noun}: the longest wins and losses first, then"
                    " the deepest draws")
        if whole and not where:
            return "every stored position, terminal ones included"
        return f"the {noun}"

    @property
    def depths(self) -> str:
        """A 'depth' part's depths: '3' or '2 to 4'."""
        return (f"{self.number}" if self.upto in (None, self.number)
                else f"{self.number} to {self.upto}")

    @property
    def option(self) -> str:
        """The --positions text that names this selection."""
        ordered = sorted(self.parts, key=lambda p: p.kind == "file")  # file:PATH goes last
        return ",".join(p._option_part() for p in ordered) or "non-terminal"

    def _option_part(self) -> str:
        if self.kind == "file":
            return f"file:{self.path}"
        if self.number is None:
            return self.kind
        upto = "" if self.upto in (None, self.number) else f"-{self.upto}"
        return f"{self.kind}:{self.number}{upto}"


def parse_selection(text: str | None) -> Selection:
    """The Selection named by `--positions` text: one part (all, sample:N, uniform:N, ply:P,
    depth:D[-D2], hardest:N, file:PATH) or several joined by commas, file:PATH last (None:
    non-terminal)."""
    if text is None or text.strip() == "non-terminal":
        return Selection()
    body, listed, path = text.strip().partition("file:")
    parts = [p.strip() for p in body.split(",")]
    if listed:
        if parts[-1]:
            raise AuditInputError(f"cannot read --positions {text!r}: file:PATH comes last")
        parts[-1] = "file:"
    elif not parts[-1] and len(parts) > 1:
        parts.pop()
    chosen = [_parse_part(text, part, path) for part in parts]
    kinds = [p.kind for p in chosen]
    for kind in set(kinds):
        if kinds.count(kind) > 1:
            raise AuditInputError(f"--positions {text!r} names {kind} twice")
    picks = [p for p in chosen if p.kind in PICKING]
    if len(picks) > 1:
        raise AuditInputError(f"--positions {text!r}: at most one of {', '.join(PICKING)}")
    # In one order whatever the text's, so that equal selections compare and print equal.
    narrowing = tuple(sorted((p for p in chosen if p.kind in NARROWING),
                             key=lambda p: NARROWING.index(p.kind)))
    if picks:
        return replace(picks[0], within=narrowing)
    return replace(narrowing[-1], within=narrowing[:-1])


def _parse_part(text: str, part: str, path: str) -> Selection:
    cleaned = part.lower()
    if cleaned == "all":
        return Selection("all")
    if cleaned == "file:":
        if not path.strip():
            raise AuditInputError(f"--positions {text!r}: file: needs a path, as in"
                                  " file:positions.txt")
        return Selection("file", path=path.strip())
    kind, _, number = cleaned.partition(":")
    low, dash, high = number.partition("-")
    if kind == "depth" and low.isdigit() and (not dash or high.isdigit()):
        if dash and int(high) < int(low):
            raise AuditInputError(f"--positions {text!r}: the depths run from low to high")
        return Selection("depth", int(low), int(high) if dash else None)
    if kind in ("sample", "uniform", "ply", "hardest") and number.isdigit():
        if kind in PICKING and int(number) == 0:
            raise AuditInputError(f"--positions {text!r}: a {kind} needs at least one position")
        return Selection(kind, int(number))
    shown = f" (the part {part!r})" if part != text.strip() else ""
    raise AuditInputError(f"cannot read --positions {text!r}{shown}: {_USAGE}")


def select_positions(tb: Tablebase, spec: Spec, selection: Selection, seed: int = 0,
                     root: Sequence[int] | str | None = None) -> PositionArrays:
    """The stored positions a selection names, in code order (canonical codes and their rows),
    of the whole-board table or of the endgame table rooted at `root`. Where stones move, a
    row's ply is its stones and a draw's depth is -1 (none: `answer_depths` reads it)."""
    table = tb.table(spec, root).load()
    game = grid_game(spec)
    if game.positions_repeat:  # stones on the board, and no depth for an endless draw
        table = PositionArrays(table.codes, game.stones_of_plies(table.ply),
                               table.value, _depth_codes(spec, table.value, table.depth))
    whole = selection._has("all") is not None or selection._has("file") is not None
    keep = np.ones(len(table.codes), dtype=bool) if whole else table.depth != 0
    for part in selection.parts:
        if part.kind == "file":
            keep &= np.isin(table.codes, listed_codes(tb, spec, part.path or "", root))
        if part.kind == "ply":
            keep &= table.ply == part.number
        if part.kind == "depth":
            top = part.number if part.upto is None else part.upto
            keep &= (table.depth >= part.number) & (table.depth <= top)
    if not keep.any():
        raise AuditInputError(f"--positions {selection.option}: {_none_left(table, selection)}")
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


# A draw by endless play's depth among the depths selections compare: none, so below them all.
_ENDLESS = -1


def _depth_codes(spec: Spec, value: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The depths a selection compares: the stored ones, and _ENDLESS for a draw where stones
    move (the table keeps a depth there that means nothing)."""
    if grid_game(spec).draws_have_depth:
        return depth
    return np.where(value == 0, _ENDLESS, depth).astype(np.int16)


def answer_depths(spec: Spec, value: np.ndarray, depth: np.ndarray) -> list[int | None]:
    """The depths of selected positions as answers give them: None for a draw by endless
    play (where stones move)."""
    return [None if d == _ENDLESS else d for d in _depth_codes(spec, value, depth).tolist()]


def stored_positions(tb: Tablebase, spec: Spec, codes: np.ndarray,
                     root: Sequence[int] | str | None = None) -> list[tuple[int, ...]]:
    """The positions of a table's stored codes, as the audit shows them: cell values, then the
    side to move where stones move (the side's digit is in the code)."""
    return tb.table(spec, root).positions_of(codes)


def _none_left(table: PositionArrays, selection: Selection) -> str:
    """Why a selection names no position: the range the table has for a ply or depth asked."""
    open_ = table.depth != 0
    ply, depth = selection._has("ply"), selection._has("depth")
    if ply is not None and not (open_ & (table.ply == ply.number)).any() and open_.any():
        plies = np.unique(table.ply[open_])
        return (f"the table has no stored non-terminal position with {ply.number} stones (they"
                f" have {plies.min()} to {plies.max()})")
    if depth is not None and len(selection.parts) == 1:
        return "the table has no stored non-terminal position of that depth"
    return f"the table has none of {selection}"


def listed_codes(tb: Tablebase, spec: Spec, path: str,
                 root: Sequence[int] | str | None = None) -> np.ndarray:
    """The stored codes of the positions a file lists, one a line (any form a position is read
    in: board text, board text then moves, moves from the empty board such as 'b2 a1', Pons'
    column digits with +gravity; blank lines and lines starting with # are skipped);
    AuditInputError naming the line of one that cannot be read or that the table lacks."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        reason = getattr(e, "strerror", None) or str(e)
        raise AuditInputError(f"cannot read positions from {path}: {reason}") from None
    numbers = [n for n, line in enumerate(lines, 1)
               if line.strip() and not line.strip().startswith("#")]
    read = read_positions(spec, [lines[n - 1] for n in numbers])
    if read.errors:
        first = min(read.errors)
        raise AuditInputError(f"{path} line {numbers[first]}: {read.errors[first]}")
    boards = [tuple(row) for row in read.cells.tolist()]
    if not boards:
        raise AuditInputError(f"{path} lists no position (one a line: board text or moves)")
    try:
        codes = tb.table(spec, root).stored_codes(boards)
    except ValueError as e:
        raise AuditInputError(f"{path}: {e}") from None
    missing = np.flatnonzero(codes < 0)
    if len(missing):
        where = "" if root is None else " endgame"
        raise AuditInputError(
            f"{path} line {numbers[missing[0]]}: the{where} table does not hold"
            f" {board_text(spec, boards[missing[0]])!r}"
            + (f" (nor {len(missing) - 1:,} more)" if len(missing) > 1 else ""))
    return np.unique(codes)


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
    from tablebase.db.checksum import mix64  # compiled: a probe process imports no numba

    keyed = np.asarray(codes, dtype=np.int64).astype(np.uint64) ^ mix64(
        np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))
    return (mix64(keyed) % np.uint64(len(permutations(spec)))).astype(np.int64)


def images(spec: Spec, board: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct image of a board (a position: where stones move, the side to move stays)
    under the symmetry maps, in map order (identity first)."""
    seen: dict[tuple[int, ...], None] = {}
    for s in range(len(permutations(spec))):
        seen.setdefault(grid_game(spec).image(board, s), None)
    return list(seen)

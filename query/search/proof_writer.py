"""Writing out what proving.py proved, as the proof file query/proof_check.py reads (its format
is described there): a walk from the root over the proof tables, each position written once
(keyed by its canonical code), children before parents, every zone worked out again on the
way from the leaves up; a move the tables do not prove where the file needs it is proved then."""
from __future__ import annotations

import gzip
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TextIO

import numpy as np

from tablebase.builder.games.grid import Spec, canonical_board, canonical_board_map, permutations
from tablebase.query.errors import QueryError
from tablebase.query.proof_check import FORMAT, attacker_name
from tablebase.query.search import masks, prooftable, prover
from tablebase.query.search.proof_cells import Maps, matching
from tablebase.query.search.proofs import find_pairing, hit_lines
from tablebase.query.search.proving import Progress, ProofBudget, ProofTable, Proved, prove_no_win

# Nodes a move not proved in the tables may take to prove while writing (it is in most cases
# covered by a table entry at once).
REPROVE_NODES = 1 << 22


class ProofWriteError(QueryError, RuntimeError):
    """The proof could not be written out whole (the tables lost part of it)."""


@contextmanager
def open_proof(path: str | Path) -> Iterator[TextIO]:
    """A text file to write a proof to (gzip-compressed when `path` ends in .gz)."""
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="ascii") as f:
            yield f
    else:
        with open(path, "w", encoding="ascii") as f:
            yield f


# How many positions the writer writes between two calls of its progress callback.
WRITTEN_EVERY = 1 << 12


def write_proof(proved: Proved, path: str | Path, written: Callable[[int], None] | None = None,
                deadline: float | None = None) -> int:
    """Write `proved` (outcome 'proved') to `path`; the number of positions written.
    `written(count)` is called every WRITTEN_EVERY positions (the total is known at the end
    only: the walk finds the proof's positions as it goes). Positions the tables lost are
    proved again by `deadline` (a time.monotonic(); None: no limit), else ProofWriteError."""
    if proved.outcome != "proved":
        raise ProofWriteError(f"{proved.spec.name}: nothing to write: the position was"
                              f" {proved.outcome}, not proved")
    return write_whole(path, lambda part: _write_to(proved, part, _Walk.Options(written,
                                                                               deadline)))


def write_whole(path: str | Path, write: Callable[[Path], int]) -> int:
    """`write(file)` (what it returns) to a file beside `path`, renamed to `path` when whole:
    a walk that fails or is interrupted leaves no file at `path` (the same compression, chosen
    by the name's end). A path that is not a regular file (/dev/null, /dev/stdout, a pipe) is
    written to as it is: renaming over it would put a file in the device's place."""
    final = Path(path)
    if final.exists() and not final.is_file():
        return write(final)
    part = final.with_name(f".{final.name}.part" + (".gz" if final.name.endswith(".gz") else ""))
    try:
        count = write(part)
        os.replace(part, final)
    finally:
        part.unlink(missing_ok=True)
    return count


def writable(path: str | Path) -> None:
    """ProofWriteError unless a proof can be written to `path` (a file beside it, renamed)."""
    final = Path(path)
    if final.is_dir():
        raise ProofWriteError(f"cannot write the proof to {path}: it is a directory")
    if final.exists() and not final.is_file():
        if not os.access(final, os.W_OK):
            raise ProofWriteError(f"cannot write the proof to {path}: not writable")
        return
    folder = final.parent
    if not folder.is_dir():
        raise ProofWriteError(f"cannot write the proof to {path}: no directory {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ProofWriteError(f"cannot write the proof to {path}: the directory {folder} is not"
                              " writable")


def _write_to(proved: Proved, path: Path, options: _Walk.Options) -> int:
    """The walk written to `path` whole, end line included; the number of positions."""
    with open_proof(path) as out:
        walk = _Walk(proved, out, options)
        walk.root()
        out.write(f"end {walk.count}\n")
    return walk.count


class _Walk:
    """The walk over the proof tables, writing each position once."""

    class Options(NamedTuple):
        written: Callable[[int], None] | None = None  # progress: positions written so far
        deadline: float | None = None  # for proofs made again (time.monotonic())

    def __init__(self, proved: Proved, out: TextIO, options: Options = Options()) -> None:
        self.spec: Spec = proved.spec
        self.proved = proved
        self.out = out
        self.perms = permutations(self.spec)
        self.maps = Maps(self.perms)
        b = next(iter(proved.tables.values())).board
        self.line_masks = [sum(1 << c for c in set(line)) for line in b.lines.tolist()]
        self.lines_in: dict[int, list[int]] = {}  # a choice's cells -> lines holding two
        self.matched: dict[tuple[int, tuple[int, ...]], list[tuple[int, int]]] = {}
        self.zones: dict[int, int] = {}  # canonical code -> zone in the canonical orientation
        self.count = 0
        self.written, self.deadline = options
        self.attacker = sum(1 for v in proved.board if v) % 2
        code = canonical_board(self.spec, proved.board)
        out.write(f"{FORMAT}\nspec {self.spec.name}\nclaim {attacker_name(self.attacker)}"
                  f" cannot win\nroot {code}\n")

    # --- the tables' arrays, on the position being walked ------------------------------

    def root(self) -> None:
        """Write the root (the attacker's moves, each first move's proof from its table)."""
        p = self.proved
        board = list(p.board)
        lines, zone = [], 0
        for cell in (c for c, v in enumerate(board) if v == 0):
            child = list(board)
            child[cell] = self.attacker + 1
            rep = self._representative(board, cell)
            if rep in p.tables:
                table = p.tables[rep]
                table.board.load(child)
                z, child_code = self._node(table)
                zone |= z
                lines.append((cell, z, child_code))
        for cell in (c for c, v in enumerate(board) if v == 0):
            if any(m == cell or not z >> cell & 1 for m, z, _ in lines):
                continue  # proved, or covered by a proved move's zone as the writer sees it
            table = next(iter(p.tables.values()))
            table.board.load(board)
            table.board.place(cell, self.attacker + 1)
            z, child_code = self._node_proved(table, board, cell)
            zone |= z
            lines.append((cell, z, child_code))
        self._attack_line(board, lines, zone, None)

    def _representative(self, board: list[int], cell: int) -> int:
        """The first move the prover searched for `cell` (one of each symmetric set)."""
        for g in range(len(self.perms)):
            if all(board[int(self.perms[g, c])] == board[c] for c in range(len(board))):
                image = int(self.perms[g, cell])
                if image in self.proved.tables or image in self.proved.covered:
                    return image
        return cell

    def _node(self, t: ProofTable) -> tuple[int, int]:
        """Write the loaded position's proof (if not written yet); its zone in the board's
        orientation and its canonical code (a parent's line names its children by code)."""
        board = t.board.board.tolist()
        code, g = canonical_board_map(self.spec, board)
        if code not in self.zones:
            self.zones[code] = self._write(t, board, code, g)
        return self.maps.back[g](self.zones[code]), code

    def _write(self, t: ProofTable, board: list[int], code: int, g: int) -> int:
        """Write one position; its zone in the canonical orientation."""
        b, n = t.board, self.spec.cells
        perm, turn = self.maps.lists[g], self.maps.forward[g]
        pn, dn, zone, reason, move, forced = prover.leaf(
            b.par, b.lines, b.cl_off, b.cl_idx, b.ends, b.perms, b.board, b.cnt, b.st, b.bx,
            b.bo, b.pairing, t.ctl, True, self.attacker)
        zone = masks.as_int(zone)
        mine = b.placed % 2 == self.attacker
        head = f"{code}"
        if dn == 0:
            raise ProofWriteError(f"{self.spec.name}: position {code} of the proof is lost for"
                                  " the defender: the tables are wrong")
        if pn == 0 and reason != prover.REPLIED:
            if reason == prover.LINE:
                self._emit(f"{head} line {turn(zone):x} {perm[move]}")
            elif reason == prover.THREATS:
                _, t1, t2, _ = prover.threats(b.cnt, b.board, b.lines, self.spec.k,
                                              1 - self.attacker, 2, b.occupied)
                self._emit(f"{head} threats {turn(zone):x} {perm[t1]} {perm[t2]}")
            elif zone == 0:
                self._emit(f"{head} dead 0")
            else:
                pairs = " ".join(f"{perm[a]}-{perm[c]}" for a, c in self._pairs(t))
                self._emit(f"{head} pairing {turn(zone):x} {pairs}")
            return turn(zone)
        if not mine:
            # A reply the leaf found (a pairing after it), else the table's.
            reply = move if pn == 0 else self._reply(t, board)
            b.place(reply, 2 - self.attacker)
            z, child_code = self._node(t)
            z |= 1 << reply
            b.remove(reply)
            self._emit(f"{head} reply {turn(z):x} {perm[reply]} {child_code}")
            return turn(z)
        explicit: list[tuple[int, int, int]] = []  # move, zone, child's code
        zone = 0
        empties = [c for c in range(n) if board[c] == 0]
        if forced >= 0:
            b.place(forced, self.attacker + 1)
            zone, child_code = self._node_proved(t, board, forced)
            b.remove(forced)
            explicit.append((forced, zone, child_code))
            _, _, _, line = prover.threats(b.cnt, b.board, b.lines, self.spec.k,
                                           1 - self.attacker, 1, b.occupied)
            zone = masks.as_int(hit_lines(masks.of_int(zone | masks.as_int(line), b.words),
                                          np.int64(2), self.attacker, b.cnt, b.lines,
                                          b.occupied))
        else:
            # Moves the table proves first (they are what the search searched), then any
            # move no zone covers yet, proved now if need be.
            proved_first = sorted(empties, key=lambda c: not self._in_table(t, c))
            for c in proved_first:
                if any(not z >> c & 1 for _, z, _ in explicit):
                    continue
                b.place(c, self.attacker + 1)
                z, child_code = self._node_proved(t, board, c)
                b.remove(c)
                explicit.append((c, z, child_code))
                zone |= z
        self._attack_line(board, explicit, zone, forced if forced >= 0 else None, code, g)
        return turn(zone)

    def _attack_line(self, board: list[int], explicit: list[tuple[int, int, int]], zone: int,
                     block: int | None, code: int | None = None,
                     g: int = 0) -> None:
        """The attacker's node: every empty cell, as a child, covered by a child's zone, or
        answered at the block's cell."""
        if code is None:
            code, g = canonical_board_map(self.spec, board)
        perm = self.maps.lists[g]
        parts = []
        for c in (c for c, v in enumerate(board) if v == 0):
            mine = next((child for m, _, child in explicit if m == c), None)
            if mine is not None:
                parts.append(f"{perm[c]}:{mine}")
            elif block is not None:
                parts.append(f"{perm[c]}@{perm[block]}")
            else:
                by = next((m for m, z, _ in explicit if not z >> c & 1), None)
                if by is None:
                    raise ProofWriteError(f"{self.spec.name}: a move of position {code} is"
                                          " neither proved nor covered: the proof is incomplete")
                parts.append(f"{perm[c]}/{perm[by]}")
        block_text = "" if block is None else f" block {perm[block]}"
        self._emit(f"{code} moves {self.maps.forward[g](zone):x}{block_text} {' '.join(parts)}")

    def _in_table(self, t: ProofTable, cell: int) -> bool:
        """Whether the table proves the loaded position's child after `cell`."""
        t.board.place(cell, self.attacker + 1)
        s = t.entry()
        t.board.remove(cell)
        return s >= 0 and bool(t.tfl[s] & prooftable.PROVED)

    def _node_proved(self, t: ProofTable, board: list[int], cell: int) -> tuple[int, int]:
        """_node's zone and code for the loaded position, proved now if the table lacks it."""
        s = t.entry()
        if s < 0 or not t.tfl[s] & prooftable.PROVED:
            child = [int(v) for v in t.board.board]
            found = self._reprove(t, child)
            t.board.load(child)
            if found != 1:
                raise ProofWriteError(f"{self.spec.name}: a position the proof needs was not"
                                      f" proved again within {REPROVE_NODES:,} nodes")
        return self._node(t)

    def _reply(self, t: ProofTable, board: list[int]) -> int:
        """The defender's proved reply on the loaded position (its table entry's move)."""
        s = t.entry()
        if s < 0 or not t.tfl[s] & prooftable.PROVED or t.tmv[s] < 0:
            found = self._reprove(t, board)
            t.board.load(board)
            s = t.entry()
            if found == 1 and (s < 0 or t.tmv[s] < 0):
                # Proved again, but a table at its largest had no slot left to keep the
                # position's entry (a bucket full of proofs): a reply is any whose child the
                # search proves (each child searched anew, its own proof written after).
                reply = self._any_reply(t, board)
                if reply is not None:
                    return reply
            if found != 1 or s < 0 or t.tmv[s] < 0:
                raise ProofWriteError(f"{self.spec.name}: a defender's reply the proof needs"
                                      f" was lost and not found again ({found}, {s},"
                                      f" {t.tmv[s] if s >= 0 else None},"
                                      f" {t.tfl[s] if s >= 0 else None})")
        b = t.board
        _, _, g0 = prover.key_of(b.par, b.bx, b.bo)
        return int(b.inv[g0, int(t.tmv[s])])

    def _any_reply(self, t: ProofTable, board: list[int]) -> int | None:
        """A defender's reply on `board` whose child the table proves, else one the search
        proves within REPROVE_NODES, or None; the table's board is left loaded with `board`."""
        empties = [c for c, v in enumerate(board) if v == 0]
        for c in empties:  # the children's entries survive where the node's own was dropped
            t.board.place(c, 2 - self.attacker)
            s = t.entry()
            t.board.remove(c)
            if s >= 0 and t.tfl[s] & prooftable.PROVED:
                return c
        try:
            for c in empties:
                child = board.copy()
                child[c] = 2 - self.attacker
                if self._reprove(t, child) == 1:
                    return c
            return None
        finally:
            t.board.load(board)

    def _reprove(self, t: ProofTable, board: list[int]) -> int:
        """t.run on `board` within REPROVE_NODES and the time left (the search's budget counts
        the proofs made again here: with a small --memory they can outgrow the search)."""
        if self.deadline is None:
            return t.run(board, self.attacker, REPROVE_NODES)
        late = ProofWriteError(f"{self.spec.name}: proved, but the positions the proof tables"
                               " lost could not be proved again within the time: no proof"
                               " written (more memory keeps them)")
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise late
        timer = threading.Timer(left, lambda: t.ctl.__setitem__(prooftable.STOP, 1))
        timer.start()
        try:
            found = t.run(board, self.attacker, REPROVE_NODES)
        finally:
            timer.cancel()
            t.ctl[prooftable.STOP] = 0
        if found == 0 and time.monotonic() >= self.deadline:
            raise late
        return found

    def _pairs(self, t: ProofTable) -> list[tuple[int, int]]:
        """The pairs of the pairing proofs.py finds on the loaded position, each run's choice
        split into pairs that leave every line open for the attacker holding a whole pair."""
        b = t.board
        pt = b.pairing
        found, used = find_pairing(self.attacker, b.cnt, b.occupied, pt,
                                   prover.PAIRING_LIMIT)
        assert found
        win = pt.win[:len(pt.run_off) - 1]  # each run with windows open took one choice
        # Level lv took run v = level_run[lv]'s choice level_next[lv] - 1 (of those for its
        # open windows win[v]).
        choices = [masks.as_int(pt.ch_mask[pt.ch_off[v, win[v]] + pt.level_next[lv] - 1])
                   for lv in range(int(np.count_nonzero(win))) for v in (pt.level_run[lv],)]
        assert sum(choices) == masks.as_int(used)
        is_open = (b.cnt[1 - self.attacker] == 0).tolist()
        pairs: list[tuple[int, int]] = []
        for mask in choices:
            if mask not in self.lines_in:
                self.lines_in[mask] = [i for i, m in enumerate(self.line_masks)
                                       if (m & mask).bit_count() >= 2]
            key = (mask, tuple(i for i in self.lines_in[mask] if is_open[i]))
            if key not in self.matched:  # choices and their open lines recur all through
                cells = [c for c in range(self.spec.cells) if mask >> c & 1]
                self.matched[key] = matching(cells, [self.line_masks[i] for i in key[1]])
            pairs += self.matched[key]
        return pairs

    def _emit(self, text: str) -> None:
        self.out.write(text + "\n")
        self.count += 1
        if self.written is not None and self.count % WRITTEN_EVERY == 0:
            self.written(self.count)


@dataclass(frozen=True)
class ProofRun:
    """What `prove_to_file` did: what was proved, and the file (None when nothing was
    proved): its positions and bytes, and the seconds writing it took."""

    proved: Proved
    path: str | None
    positions: int
    size: int
    seconds: float


def prove_to_file(spec: Spec, board: Sequence[int], path: str | Path, budget: ProofBudget,
                  progress: Progress | None = None,
                  written: Callable[[int], None] | None = None) -> ProofRun:
    """Prove that the side to move on `board` cannot win (proving.prove_no_win, within
    `budget`) and, if it was proved, write the proof to `path` (`written` as write_proof's).
    A path that cannot be written is refused before the search starts."""
    writable(path)
    started = time.monotonic()
    proved = prove_no_win(spec, board, budget, progress)
    if proved.outcome != "proved":
        return ProofRun(proved, None, 0, 0, 0.0)
    writing = time.monotonic()
    deadline = None if budget.seconds is None else started + budget.seconds
    positions = write_proof(proved, path, written, deadline)
    return ProofRun(proved, str(path), positions, os.path.getsize(path),
                    time.monotonic() - writing)

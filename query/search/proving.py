"""Proving that the side to move cannot win, by prover.py's df-pn: one position's arrays and
proof table (`ProofTable`), and the whole proof of a position (`prove_no_win`): the attacker's
first moves shared out to threads (each with its own table: the compiled search releases the
GIL), each thread taking the next move no proof covers yet, within a budget of seconds, nodes
and memory. What it proved is written out, and checked, by proof_writer.py and query/proof_check.py.
"""
from __future__ import annotations

import mmap
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tablebase.builder.games.grid import Spec, Value, outcome
from tablebase.builder.games.registry import grid_game
from tablebase.query.errors import QueryError
from tablebase.query.search import masks, prooftable, prover
from tablebase.query.search.board import Board, SearchRefusedError
from tablebase.query.search.nodes import children

# Bytes a slot of the proof table takes (keys, numbers, zone, move, flags), with one word a
# cell set; past 64 cells each of the two keys and the zone take a word more.
SLOT_BYTES = 8 + 8 + 8 + 8 + 8 + 2 + 1
DEFAULT_MEMORY = 1 << 30
FIRST_SLOTS = 1 << 16
# Cell sets (keys, zones, live moves, pairings) are masks.py's: one word up to 64 cells, two
# up to 128 (11x11).
MAX_PROOF_CELLS = masks.MAX_CELLS
_POLL = 0.05

Progress = Callable[[int, int, int], None]  # (first moves proved, of how many, nodes so far)


class ProofRefusedError(SearchRefusedError):
    """A game or position the prover does not take (gravity, misere, +exact, over)."""


@dataclass(frozen=True)
class ProofBudget:
    """Seconds and nodes (None: no limit), the proof tables' memory in bytes, threads, and a
    flag another thread may set to stop the proof as if its time were up; `words` forces the
    words a cell set takes (None: one up to 64 cells, two past them; 2 on a smaller board runs
    the wide kernels, for tests that hold them to the narrow ones)."""

    seconds: float | None = None
    nodes: int | None = None
    memory: int = DEFAULT_MEMORY
    threads: int = 2
    cancel: threading.Event | None = None
    words: int | None = None


class ProofTable:
    """One thread's arrays: a Board (compiled_search.py's rules arrays) and a df-pn proof table of
    about `memory` bytes, kept from one `run` to the next while the attacker stays the same.
    Its cell sets take `words` words (None: masks.words of the board's cells)."""

    def __init__(self, spec: Spec, memory: int, words: int | None = None) -> None:
        check_provable(spec)
        self.spec = spec
        self.board = Board(spec, slots_log2=1, words=words)
        width = self.board.words
        slot_bytes = SLOT_BYTES + 3 * 8 * (width - 1)
        # The table starts small and doubles when three quarters full, up to the budget: on
        # some machines each page first touched costs tens of microseconds, so a table of the
        # whole budget from the start made a one-second proof take tens of seconds. Its arrays
        # are the budget's from the start, but as memory mapped and untouched (the system
        # gives a page its memory when first written), and the table the first `slots` of
        # them, doubled in place: no page is written but those the entries land on.
        self.most = max(FIRST_SLOTS, 1 << max(2, (memory // slot_bytes).bit_length() - 1))
        self.ctl = np.zeros(prooftable.CONTROLS, dtype=np.int64)
        self.out = np.zeros(2, dtype=np.uint64)  # proof and disproof numbers
        self.oz = masks.zeros(1, width)  # and the proof's zone
        self.attacker = -1  # the side whose "cannot win" the table's entries are about
        self._arrays = [_untouched(self.most, kind, w) for kind, w in (
            (np.uint64, width), (np.uint64, width), (np.int64, 1), (np.int64, 1),
            (np.uint64, width), (np.int16, 1), (np.uint8, 1))]
        self._make(min(FIRST_SLOTS, self.most))

    def _make(self, slots: int) -> None:
        """The table arrays: the first `slots` slots."""
        self.tk1, self.tk2, self.tpn, self.tdn, self.tz, self.tmv, self.tfl = (
            a[:slots] for a in self._arrays)
        self.slots = slots
        self.ctl[prooftable.ROOM] = slots * 3 // 4 if slots < self.most else 1 << 62

    def _grow(self) -> None:
        """The table, twice as large, holding every entry it held."""
        self._make(self.slots * 2)
        prooftable.double(self.tk1, self.tk2, self.tpn, self.tdn, self.tz, self.tmv, self.tfl,
                          self.ctl)

    def run(self, board: Sequence[int], attacker: int, nodes: int | None = None) -> int:
        """df-pn on `board` for "player index `attacker` cannot win": 1 proved, -1 disproved
        (the attacker wins, or has won), 0 stopped (ctl[STOP] or the nodes ran out)."""
        over = outcome(self.spec, board)
        if over is not None:  # the last mover made a line, or the board is full
            last = (sum(1 for v in board if v) - 1) % 2
            self.out[:] = 0  # a made line's proof needs no zone: no search reaches past it
            self.oz[:] = 0
            return -1 if over != Value.DRAW and last == attacker else 1
        b = self.board
        if attacker != self.attacker:  # entries about the other side would answer wrongly
            self.tfl[:] = 0
            self.ctl[prooftable.FILLED] = 0
            self.attacker = attacker
        ctl = self.ctl
        ctl[prooftable.LIMIT] = (1 << 62) if nodes is None else int(ctl[prooftable.NODES]) + nodes
        while True:
            b.load(board)
            ctl[prooftable.ABORTED] = 0
            prover.prove(b.par, b.lines, b.cl_off, b.cl_idx, b.ends, b.perms, b.inv, b.board,
                         b.cnt, b.st, b.bx, b.bo, b.pairing, self.tk1, self.tk2, self.tpn,
                         self.tdn, self.tz, self.tmv, self.tfl, ctl, attacker, self.out,
                         self.oz)
            if not ctl[prooftable.ABORTED]:
                return 1 if int(self.out[0]) == 0 else -1
            if ctl[prooftable.FILLED] < ctl[prooftable.ROOM] or ctl[prooftable.STOP] or \
                    ctl[prooftable.NODES] >= ctl[prooftable.LIMIT]:
                return 0
            self._grow()  # and on from the root: the entries keep what was found

    def entry(self) -> int:
        """The slot of the loaded board's entry, or -1."""
        b = self.board
        kx, ko, _ = prooftable.key_of(b.par, b.bx, b.bo)
        # uint64 keys: as Python ints they dispatch as int64 and overflow from cell 63 on
        return int(prooftable.find(self.tk1, self.tk2, self.tfl, _words(kx), _words(ko)))

    @property
    def zone(self) -> int:
        """The zone of the last `run`'s proof or disproof (bit c: cell c; the board's cells
        alone: "every cell" is the board's, whatever the words)."""
        return masks.as_int(self.oz[0]) & ((1 << self.spec.cells) - 1)

    @property
    def nodes(self) -> int:
        """Nodes searched so far."""
        return int(self.ctl[prooftable.NODES])

    @property
    def used(self) -> int:
        """Table slots in use."""
        return int(np.count_nonzero(self.tfl))


def _words(key: masks.Mask) -> masks.Mask:
    """A key a compiled call returned (a Python int, or a tuple of two), as uint64 words."""
    return tuple(np.uint64(w) for w in key) if isinstance(key, tuple) else np.uint64(key)


def _untouched(count: int, kind: type, width: int = 1) -> np.ndarray:
    """`count` zeros of `kind` (rows of `width` when more than one) in memory mapped from
    nothing: no page is touched until written (np.zeros may take a block of the heap and
    clear it whole)."""
    size = max(1, count * width * np.dtype(kind).itemsize)
    flat: np.ndarray = np.frombuffer(mmap.mmap(-1, size), dtype=kind, count=count * width)
    return flat if width == 1 else flat.reshape(count, width)


def check_provable(spec: Spec) -> None:
    """ProofRefusedError unless the prover takes `spec`: normal rules, no gravity, not exact
    (zones assume a stone beyond a line changes nothing), stones that stay, 128 cells at most
    (two words a cell set)."""
    if not grid_game(spec).moves_anywhere or spec.misere or spec.exact:
        raise ProofRefusedError(f"{spec.name}: the prover takes games of placed stones under"
                                " normal rules (no gravity, misere, +exact or moving stones)")
    if spec.cells > MAX_PROOF_CELLS:  # its zones and keys are two words at most (masks.py)
        raise ProofRefusedError(f"{spec.name} has {spec.cells} cells; the prover takes boards"
                                f" of at most {MAX_PROOF_CELLS}")


@dataclass
class Proved:
    """What `prove_no_win` found: outcome 'proved' (the side to move cannot win), 'disproved'
    (it wins) or 'unknown' (the budget ran out); the first moves proved (a move outside a
    proved move's zone counts as proved), of how many; nodes, seconds, and the tables that hold
    each proved first move's proof (for the proof file)."""

    spec: Spec
    board: tuple[int, ...]
    outcome: str
    proved: int
    moves: int
    nodes: int
    seconds: float
    tables: dict[int, ProofTable] = field(default_factory=dict)  # first move -> its table
    covered: dict[int, int] = field(default_factory=dict)  # first move -> move whose zone covers it


def prove_no_win(spec: Spec, board: Sequence[int], budget: ProofBudget = ProofBudget(),
                 progress: Progress | None = None) -> Proved:
    """Prove that the side to move on `board` (a position not over) cannot win: each of its
    moves (one of each symmetric set) proved by df-pn on its own, on `budget.threads` threads,
    the next one taken being a move no proved move's zone covers."""
    check_provable(spec)
    board = tuple(int(v) for v in board)
    if outcome(spec, board) is not None:
        raise QueryError(f"{spec.name}: the position is over: nothing to prove")
    start = time.monotonic()
    threads = max(1, budget.threads)
    tables = [ProofTable(spec, budget.memory // threads, budget.words) for _ in range(threads)]
    attacker = sum(1 for v in board if v) % 2
    top = tables[0].board
    top.load(board)
    firsts = _first_moves(top)
    result = Proved(spec, board, "unknown", 0, len(firsts), 0, 0.0)
    lock = threading.Lock()
    zones: dict[int, int] = {}  # proved first move -> its proof's zone (board orientation)
    pending = list(firsts)
    stop = threading.Event()
    deadline = None if budget.seconds is None else start + budget.seconds

    def covered(cell: int) -> int | None:
        return next((m for m, z in zones.items() if not z >> cell & 1), None)

    def work(t: int) -> None:
        table = tables[t]
        while not stop.is_set():
            with lock:
                while pending and (by := covered(pending[0])) is not None:
                    result.covered[pending.pop(0)] = by
                if not pending:
                    return
                cell = pending.pop(0)
            child = list(board)
            child[cell] = attacker + 1
            left = None if budget.nodes is None else budget.nodes - sum(x.nodes for x in tables)
            if left is not None and left <= 0:
                stop.set()
                return
            found = table.run(child, attacker, left)
            with lock:
                if found == 1:
                    zones[cell] = table.zone | (1 << cell)
                    result.tables[cell] = table
                elif found == -1:
                    result.outcome = "disproved"
                    stop.set()
                else:
                    pending.insert(0, cell)
                    stop.set()

    workers = [threading.Thread(target=work, args=(t,), daemon=True) for t in range(threads)]
    for w in workers:
        w.start()
    try:
        while any(w.is_alive() for w in workers):
            workers[0].join(_POLL) if workers[0].is_alive() else next(
                w for w in workers if w.is_alive()).join(_POLL)
            if (deadline is not None and time.monotonic() >= deadline) or (
                    budget.cancel is not None and budget.cancel.is_set()):
                stop.set()
            if stop.is_set():
                for x in tables:
                    x.ctl[prooftable.STOP] = 1
            if progress is not None:
                with lock:
                    done = len(result.tables) + len(result.covered)
                progress(done, len(firsts), sum(x.nodes for x in tables))
    finally:
        stop.set()
        for x in tables:
            x.ctl[prooftable.STOP] = 1
        for w in workers:
            w.join()
        for x in tables:
            x.ctl[prooftable.STOP] = 0
    result.proved = len(result.tables) + len(result.covered)
    if result.outcome != "disproved" and result.proved == len(firsts):
        result.outcome = "proved"
    result.nodes = sum(x.nodes for x in tables)
    result.seconds = time.monotonic() - start
    return result


def first_moves(spec: Spec, board: Sequence[int]) -> list[int]:
    """The moves of `board` (a position not over), one of each set its symmetries make equal,
    best first (the order prove_no_win takes them in)."""
    b = Board(spec, slots_log2=1)
    b.load(board)
    return _first_moves(b)


def _first_moves(b: Board) -> list[int]:
    """The loaded board's moves, one of each set its symmetries make equal, best first."""
    cells = np.zeros(b.spec.cells, dtype=np.int64)
    m = children(b.par, b.bx, b.bo, b.perms, b.board, cells, -1)
    keys = np.zeros(b.spec.cells, dtype=np.int64)
    from tablebase.query.search.moves import order
    order(b.par, b.cl_off, b.cl_idx, b.cnt, cells, keys, m, -1, b.placed % 2)
    return [int(c) for c in cells[:m]]

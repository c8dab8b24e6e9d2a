"""The audit: a solver's answers checked against a built table, position by position. Each stored
position is shown to the solver in a random image of its symmetry orbit (or in every image), its
answer is read and judged, and the report counts mismatches by kind and gives the smallest
counterexamples with the table's perfect line that refutes them.

What a solver may answer for a board and the side to move (always for the side to move):

    value                    1, 0, -1 or 'win', 'draw', 'loss'        allows the check: value
    (value, move)            move: its name such as 'b2', or None     allows: value, move
    (value, move, depth)     depth: plies to the end, perfect play    allows: value, move, depth

`--check move` accepts any move that keeps the position's value; `--check depth` also wants the
exact depth and a move that keeps it. Without a check asked for, each answer gets the strongest
check its shape allows.
"""
from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import index
from typing import Any, Protocol

import numpy as np

from builder.game import (EMPTY, O, X, InvalidPositionError, Spec, Value, decode, parse_spec,
                          permutations, score, transform)
from builder.game.symmetry import images as image_codes
from builder.game.symmetry import orbit_sizes
from builder.progress import NO_PROGRESS, ProgressFactory
from db.sqlite_direct import PositionArrays
from query.engine import (EngineAnswer, Failure, FunctionWorker, GtpEngine, describe_exception,
                          takes_spec)
from query.errors import QueryError
from query.notation import board_text, move_name, parse_move, place, to_move_name
from query.solvers import SOLVERS, SearchTooLargeError
from query.tablebase import Tablebase

CHECKS = ("value", "move", "depth")
# Mismatch kinds, in the order reports list them.
KINDS = ("wrong-value", "non-optimal-move", "illegal-move", "wrong-depth", "exception", "timeout",
         "crash", "bad-answer", "unknown")
DEFAULT_TIMEOUT = 10.0
DEFAULT_EXAMPLES = 10
BUILTIN_PREFIX = "builtin:"

_SHAPES = {("value",): "value", ("value", "move"): "value, move",
           ("value", "depth"): "value, depth", ("value", "move", "depth"): "value, move, depth"}


class AuditInputError(QueryError, ValueError):
    """An audit asked for with options that cannot work: a bad --positions, an unknown solver."""


def _plies(n: int) -> str:
    return f"{n} pl{'y' if n == 1 else 'ies'}"


def _outcome(value: Value, depth: int) -> str:
    return f"{value.word} in {_plies(depth)}"


# --- which positions, in which orientation --------------------------------------------------------

@dataclass(frozen=True)
class Selection:
    """Which stored positions to audit: 'non-terminal' (the default), 'all' (terminal ones too),
    'sample' (`number` non-terminal positions drawn at random) or 'ply' (the non-terminal ones
    with `number` stones)."""

    kind: str = "non-terminal"
    number: int | None = None

    def __str__(self) -> str:
        if self.kind == "all":
            return "every stored position, terminal ones included"
        if self.kind == "sample":
            return f"a random sample of {self.number:,} stored non-terminal positions"
        if self.kind == "ply":
            stones = "stone" if self.number == 1 else "stones"
            return f"the stored non-terminal positions with {self.number} {stones}"
        return "the stored non-terminal positions"

    @property
    def option(self) -> str:
        """The --positions text that names this selection."""
        return self.kind if self.number is None else f"{self.kind}:{self.number}"


def parse_selection(text: str | None) -> Selection:
    """The Selection named by `--positions` text: all, sample:N or ply:P (None: non-terminal)."""
    if text is None or text.strip() == "non-terminal":
        return Selection()
    cleaned = text.strip().lower()
    if cleaned == "all":
        return Selection("all")
    kind, _, number = cleaned.partition(":")
    if kind in ("sample", "ply") and number.isdigit():
        if kind == "sample" and int(number) == 0:
            raise AuditInputError(f"--positions {text!r}: a sample needs at least one position")
        return Selection(kind, int(number))
    raise AuditInputError(
        f"cannot read --positions {text!r}: expected all, sample:N (N random positions) or ply:P"
        " (the positions with P stones)")


def select_positions(tb: Tablebase, spec: Spec, selection: Selection, seed: int = 0
                     ) -> PositionArrays:
    """The stored positions a selection names, in code order (canonical codes and their rows)."""
    table = tb.table(spec)
    keep = np.ones(len(table.codes), dtype=bool) if selection.kind == "all" else table.depth > 0
    if selection.kind == "ply":
        keep &= table.ply == selection.number
        if not keep.any():
            plies = np.unique(table.ply[table.depth > 0])
            raise AuditInputError(
                f"--positions ply:{selection.number}: {spec.name} has no stored non-terminal"
                f" position with {selection.number} stones (they have {plies.min()} to"
                f" {plies.max()})")
    chosen = np.flatnonzero(keep)
    if selection.kind == "sample" and selection.number is not None and selection.number < len(chosen):
        chosen = np.sort(np.random.default_rng(seed).choice(chosen, selection.number, replace=False))
    return PositionArrays(table.codes[chosen], table.ply[chosen], table.value[chosen],
                          table.depth[chosen])


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a well-spread hash of unsigned 64-bit ints (wrapping on purpose)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def orientations(spec: Spec, codes: np.ndarray, seed: int = 0) -> np.ndarray:
    """A random symmetry map (an index into `permutations(spec)`) for each code.

    It depends only on the seed and the code, so a position is shown in the same image whichever
    selection it comes in.
    """
    keyed = np.asarray(codes, dtype=np.int64).astype(np.uint64) ^ _mix(
        np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))
    return (_mix(keyed) % np.uint64(len(permutations(spec)))).astype(np.int64)


def images(spec: Spec, board: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct image of a board under the symmetry maps, in map order (identity first)."""
    seen: dict[tuple[int, ...], None] = {}
    for s in range(len(permutations(spec))):
        seen.setdefault(transform(spec, board, s), None)
    return list(seen)


# --- what a solver said ------------------------------------------------------------------------

@dataclass(frozen=True)
class Reply:
    """A solver's answer for one board, read but not yet judged; values are for the side to move.

    `said` is the answer in the solver's own words (a function's return value, an engine's
    response line; empty when there was none). `failure` is set when there is no readable answer, `declined` when a
    textbook solver refuses the board as too large for it (the board is then skipped).
    """

    said: str
    value: Value | None = None
    move: str | None = None
    depth: int | None = None
    failure: Failure | None = None
    declined: str | None = None

    @property
    def allows(self) -> tuple[str, ...]:
        """The checks this answer's shape allows: value, then move and depth when given."""
        return ("value",) + (("move",) if self.move is not None else ()) + (
            ("depth",) if self.depth is not None else ())

    @property
    def shape(self) -> str:
        """'value', 'value, move', 'value, move, depth' or 'value, depth'."""
        return _SHAPES[self.allows]


def _short(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 80 else text[:77] + "..."


def _bad(said: str, message: str) -> Reply:
    return Reply(said, failure=Failure("bad-answer", message))


def read_return(raw: object) -> Reply:
    """Read what a solver function returned: a value, (value, move) or (value, move, depth).

    A value is 1, 0, -1 (or 'win', 'draw', 'loss') for the side to move; a move is its name such
    as 'b2' (or None); a depth is a whole number of plies. Anything else is a 'bad-answer'.
    """
    said = _short(raw)
    parts = tuple(raw) if isinstance(raw, (tuple, list)) else (raw,)
    if isinstance(raw, (tuple, list)) and len(parts) not in (2, 3):
        return _bad(said, f"returned {said}: a tuple must be (value, move) or (value, move, depth)")
    value = _read_value(parts[0])
    if value is None:
        return _bad(said, f"returned {said}: the value must be 1, 0, -1 or 'win', 'draw', 'loss'"
                          " (for the side to move)")
    move = parts[1] if len(parts) > 1 else None
    if move is not None and not isinstance(move, str):
        return _bad(said, f"returned {said}: the move must be its name such as 'b2' (or None),"
                          f" found {type(move).__name__} {move!r}")
    if isinstance(move, str) and not move.strip():
        move = None
    depth = parts[2] if len(parts) > 2 else None
    if depth is not None:
        try:
            depth = index(depth)
        except TypeError:
            depth = -1
        if depth < 0:
            return _bad(said, f"returned {said}: the depth must be a whole number of plies (or None)")
    return Reply(said, value, move.strip() if move else None, depth)


def _read_value(raw: object) -> Value | None:
    if isinstance(raw, bool):
        return None  # True == 1, but a solver that says True has not said "win"
    if isinstance(raw, str):
        word = raw.strip().lower()
        return Value.from_word(word) if word in ("win", "draw", "loss") else None
    try:
        number = index(raw)
    except TypeError:
        return None
    return Value(number) if number in (-1, 0, 1) else None


# --- solvers under audit ------------------------------------------------------------------------

class Candidate(Protocol):
    """A solver under audit: it answers one board at a time, in the board's own orientation;
    `restarts` counts the times its process had to be started again."""

    label: str

    @property
    def restarts(self) -> int: ...

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply: ...


class FunctionCandidate:
    """A Python function `f(board, to_move)` called in this process (no timeout: for trusted code
    and tests; `ProcessCandidate` runs a user's function safely). Exceptions are reported."""

    def __init__(self, function: Callable[..., Any], label: str | None = None) -> None:
        self.function = function
        self.label = label or getattr(function, "__name__", repr(function))
        self.restarts = 0
        self._takes_spec = takes_spec(function)

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply:
        extra = {"spec": spec.name} if self._takes_spec else {}
        try:
            raw = self.function(board_text(spec, board), _to_move(board), **extra)
        except Exception as e:
            return Reply("", failure=Failure("exception", describe_exception(e)))
        return read_return(raw)


class ProcessCandidate:
    """A user's `MODULE:FUNCTION` called in a worker process, with a timeout per call."""

    def __init__(self, worker: FunctionWorker) -> None:
        self.worker = worker
        self.label = worker.target

    @property
    def restarts(self) -> int:
        return self.worker.restarts

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply:
        answer = self.worker.call(board_text(spec, board), _to_move(board))
        if isinstance(answer, Failure):
            return Reply("", failure=answer)
        return read_return(answer.value)


class BuiltinCandidate:
    """A textbook solver from query.solvers, called in this process on the board's cell values.
    Boards it refuses as too large for it are declined (skipped), not mismatched."""

    def __init__(self, name: str) -> None:
        if name not in SOLVERS:
            raise AuditInputError(
                f"no textbook solver named {name!r}; known: {', '.join(SOLVERS)} (or all)")
        self.name = name
        self.solve = SOLVERS[name]
        self.label = f"{BUILTIN_PREFIX}{name}"
        self.restarts = 0

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply:
        try:
            result = self.solve(spec, board)
        except SearchTooLargeError as e:
            return Reply("declined", declined=str(e))
        move = None if result.move is None else move_name(spec, result.move)
        said = ", ".join([result.value.word] + ([move] if move else []) + (
            [_plies(result.depth)] if result.depth is not None else []))
        return Reply(said, result.value, move, result.depth)


class EngineCandidate:
    """An external program over the GTP-style protocol; each board is set up by a move order
    that reaches it (found in the table), then the engine is asked `solve`."""

    def __init__(self, engine: GtpEngine, tb: Tablebase) -> None:
        self.engine = engine
        self.tb = tb
        self.label = engine.command

    @property
    def restarts(self) -> int:
        return self.engine.restarts

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply:
        order = moves_to(self.tb, spec, board)
        played: list[tuple[str, str]] = []
        current = (EMPTY,) * spec.cells
        for cell in order:
            played.append((_to_move(current), move_name(spec, cell)))
            current = place(current, cell)
        answer = self.engine.solve(played)
        if isinstance(answer, Failure):
            return Reply("", failure=answer)
        return read_engine_answer(answer, _to_move(board))


def read_engine_answer(answer: EngineAnswer, to_move: str) -> Reply:
    """An engine's `= x b2` read as a value for the side to move `to_move`, and its move."""
    if answer.winner == "unknown":
        return Reply(answer.text, failure=Failure("unknown", "answered '= unknown'"))
    value = (Value.DRAW if answer.winner == "draw"
             else Value.WIN if answer.winner == to_move else Value.LOSS)
    return Reply(answer.text, value, answer.move)


def moves_to(tb: Tablebase, spec: Spec, board: tuple[int, ...]) -> list[int]:
    """Cells to play from the empty board, x first, that reach `board` through unfinished stored
    positions (so every move is legal): found backwards, one stone of the last mover at a time.

    Any stored, unfinished predecessor will do: it is reachable, and the last stone is legal on
    it. With gravity only the top stone of a column can have been the last one played.
    """
    current = list(board)
    plies = sum(1 for v in board if v != EMPTY)
    order: list[int] = []
    for ply in range(plies, 0, -1):
        last = X if ply % 2 == 1 else O
        for cell, v in enumerate(current):
            if v != last or (spec.gravity and cell >= spec.width
                             and current[cell - spec.width] != EMPTY):
                continue
            current[cell] = EMPTY
            try:
                before = tb.get(spec, tuple(current))
            except InvalidPositionError:
                before = None  # e.g. a line left standing whose last stone was the other's
            if before is not None and not before.terminal:
                order.append(cell)
                break
            current[cell] = last
        else:
            raise AuditInputError(
                f"no move order reaches {board_text(spec, board)!r} in the {spec.name} table")
    return order[::-1]


def _to_move(board: Sequence[int]) -> str:
    return to_move_name(sum(1 for v in board if v != EMPTY))


# --- judging -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Judgement:
    """The verdict on one answer: `kind` is None when it agrees with the table, else a mismatch
    kind with `detail` saying what is wrong; `checks` are the checks that were applied."""

    kind: str | None
    detail: str
    checks: tuple[str, ...]


def judge(tb: Tablebase, spec: Spec, board: tuple[int, ...], value: Value, depth: int,
          reply: Reply, check: str | None = None) -> Judgement:
    """Judge `reply` for `board` (whose stored value and depth, for the side to move, are given).

    The checks applied are those the reply's shape allows, up to `check` (all of them if None).
    """
    level = len(CHECKS) if check is None else CHECKS.index(check) + 1
    checks = tuple(c for c in reply.allows if CHECKS.index(c) < level)
    if reply.failure is not None:
        return Judgement(reply.failure.kind, reply.failure.message, ())
    assert reply.value is not None
    if reply.value != value:
        return Judgement("wrong-value", f"said {reply.value.word}; the table says"
                                        f" {_outcome(value, depth)}", checks)
    if "move" in checks:
        assert reply.move is not None
        try:
            cell = parse_move(spec, board, reply.move)
        except InvalidPositionError as e:
            return Judgement("illegal-move", str(e), checks)
        after = tb.probe(spec, place(board, cell))
        move_value, move_depth = Value(-after.value), after.depth + 1
        keeps = (score(move_value, move_depth) == score(value, depth) if "depth" in checks
                 else move_value == value)
        if not keeps:
            name = move_name(spec, cell)
            return Judgement("non-optimal-move",
                             f"{name} gives {_outcome(move_value, move_depth)}, where the best"
                             f" moves give {_outcome(value, depth)}", checks)
    if "depth" in checks and reply.depth != depth:
        return Judgement("wrong-depth", f"said {_plies(reply.depth or 0)}; the table says"
                                        f" {_outcome(value, depth)}", checks)
    return Judgement(None, "", checks)


# --- the report ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Counterexample:
    """One board where the solver disagrees with the table, in the orientation it was shown.

    `value` and `depth` are the table's, for `to_move`; `best_moves` keep both. `refutation` is
    the table's perfect line: from the position, or, when `after` is set (a non-optimal move),
    starting with the solver's move `after` and continuing perfectly; `refutation_value` is where
    it ends, for `to_move`.
    """

    kind: str
    board: tuple[int, ...]
    code: int
    ply: int
    to_move: str
    value: Value
    depth: int
    best_moves: tuple[str, ...]
    said: str
    detail: str
    refutation: tuple[str, ...]
    refutation_value: Value
    after: str | None = None


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit. Counts are of boards shown (one per position, or one per distinct
    image with every orientation); `positions` counts stored positions."""

    spec: str
    solver: str
    selection: Selection
    every_orientation: bool
    seed: int
    check: str | None
    positions: int
    boards: int
    agreed: int
    mismatches: dict[str, int]
    mismatched_positions: int
    declined: int
    declined_note: str | None
    shapes: dict[str, int]
    checked: dict[str, int]
    examples: tuple[Counterexample, ...]
    seconds: float
    restarts: int = 0

    @property
    def mismatched(self) -> int:
        """Boards on which the solver disagreed with the table, of every kind."""
        return sum(self.mismatches.values())

    @property
    def ok(self) -> bool:
        """Whether every answer agreed with the table (declined boards aside)."""
        return self.mismatched == 0


@dataclass(order=True)
class _Found:
    ply: int
    code: int
    kind: str = field(compare=False)
    board: tuple[int, ...] = field(compare=False)
    value: Value = field(compare=False)
    depth: int = field(compare=False)
    reply: Reply = field(compare=False)
    detail: str = field(compare=False)


class _Smallest:
    """The `limit` smallest mismatches (fewest stones, then code) of each kind, kept in bounded heaps."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.heaps: dict[str, list[tuple[int, int, _Found]]] = {}

    def add(self, found: _Found) -> None:
        if self.limit <= 0:
            return
        heap = self.heaps.setdefault(found.kind, [])
        item = (-found.ply, -found.code, found)  # a max-heap: the largest is popped
        if len(heap) < self.limit:
            heapq.heappush(heap, item)
        elif item > heap[0]:
            heapq.heapreplace(heap, item)

    def pick(self) -> list[_Found]:
        """At most `limit`, smallest first: the smallest of each kind, then the smallest others."""
        per_kind = {kind: sorted(f for _, _, f in heap) for kind, heap in self.heaps.items()}
        firsts = sorted(found[0] for found in per_kind.values())[: self.limit]
        rest = sorted(f for found in per_kind.values() for f in found[1:])
        return sorted(firsts + rest[: self.limit - len(firsts)])


def audit(tb: Tablebase, spec: Spec | str, candidate: Candidate, *,
          selection: Selection = Selection(), seed: int = 0, every_orientation: bool = False,
          check: str | None = None, max_examples: int = DEFAULT_EXAMPLES,
          progress: ProgressFactory = NO_PROGRESS) -> AuditReport:
    """Audit `candidate` against the table of `spec` on the positions `selection` names.

    Each position is shown in a random image of its orbit (chosen by `seed`), or in every distinct
    image with `every_orientation`. `check` ('value', 'move' or 'depth') caps the checks; None
    applies the strongest each answer's shape allows. The report keeps the `max_examples` smallest
    counterexamples (fewest stones first; the smallest of each kind always among them).
    """
    spec = tb.spec(spec)
    if check is not None and check not in CHECKS:
        raise AuditInputError(f"unknown check {check!r}; known checks: {', '.join(CHECKS)}")
    started = time.perf_counter()
    rows = select_positions(tb, spec, selection, seed)
    maps = orientations(spec, rows.codes, seed).tolist()
    total = (int(orbit_sizes(image_codes(spec, rows.codes)).sum()) if every_orientation
             else len(rows.codes))
    mismatches = dict.fromkeys(KINDS, 0)
    shapes: dict[str, int] = {}
    checked = dict.fromkeys(CHECKS, 0)
    agreed = declined = bad_positions = 0
    declined_note = None
    smallest = _Smallest(max(max_examples, 0))
    with progress(total=total, desc=f"audit {candidate.label}", unit="pos") as bar:
        for i, code in enumerate(rows.codes.tolist()):
            board = decode(code, spec.cells)
            shown = images(spec, board) if every_orientation else [transform(spec, board, maps[i])]
            value, depth = Value(int(rows.value[i])), int(rows.depth[i])
            first: _Found | None = None
            for image in shown:
                reply = candidate.ask(spec, image)
                bar.update(1)
                if reply.declined is not None:
                    declined += 1
                    declined_note = declined_note or reply.declined
                    continue
                if reply.failure is None:
                    shapes[reply.shape] = shapes.get(reply.shape, 0) + 1
                verdict = judge(tb, spec, image, value, depth, reply, check)
                for c in verdict.checks:
                    checked[c] += 1
                if verdict.kind is None:
                    agreed += 1
                    continue
                mismatches[verdict.kind] += 1
                bar.set_postfix(mismatches=sum(mismatches.values()), refresh=False)
                if first is None:
                    first = _Found(int(rows.ply[i]), code, verdict.kind, image, value, depth,
                                   reply, verdict.detail)
            if first is not None:
                bad_positions += 1
                smallest.add(first)
    examples = tuple(_counterexample(tb, spec, found) for found in smallest.pick())
    return AuditReport(
        spec=spec.name, solver=candidate.label, selection=selection,
        every_orientation=every_orientation, seed=seed, check=check, positions=len(rows.codes),
        boards=total, agreed=agreed, mismatches={k: n for k, n in mismatches.items() if n},
        mismatched_positions=bad_positions, declined=declined, declined_note=declined_note,
        shapes=shapes, checked={c: n for c, n in checked.items() if n}, examples=examples,
        seconds=time.perf_counter() - started, restarts=candidate.restarts)


def _counterexample(tb: Tablebase, spec: Spec, found: _Found) -> Counterexample:
    board = found.board
    best = tuple(m.move for m in tb.best_moves(spec, board))
    after, ends = None, found.value
    if found.kind == "non-optimal-move" and found.reply.move is not None:
        cell = parse_move(spec, board, found.reply.move)
        after = move_name(spec, cell)
        child = place(board, cell)
        line = (after,) + tuple(s.move for s in tb.line(spec, child))
        ends = Value(-tb.probe(spec, child).value)
    else:
        line = tuple(s.move for s in tb.line(spec, board))
    return Counterexample(found.kind, board, found.code, found.ply, _to_move(board), found.value,
                          found.depth, best, found.reply.said, found.detail, line, ends, after)


# --- opening solvers, and the textbook solvers' table -----------------------------------------------

@contextmanager
def open_candidate(target: str, spec: Spec, *, directory: str = ".",
                   timeout: float = DEFAULT_TIMEOUT) -> Iterator[Candidate]:
    """The solver named `MODULE:FUNCTION` (run in a worker process, `directory` first on its import
    path) or `builtin:NAME` (a textbook solver), as a context manager.

    Raises SolverImportError (a QueryError) when the module or function cannot be loaded.
    """
    if target.startswith(BUILTIN_PREFIX):
        yield BuiltinCandidate(target[len(BUILTIN_PREFIX):])
        return
    with FunctionWorker(target, spec, directory, _positive(timeout)) as worker:
        yield ProcessCandidate(worker)


@contextmanager
def open_engine(command: str, tb: Tablebase, spec: Spec, *, timeout: float = DEFAULT_TIMEOUT,
                directory: str | None = None) -> Iterator[Candidate]:
    """An external program speaking the GTP-style protocol (see query.engine), as a context
    manager; raises EngineError when it cannot be started or does not play `spec`."""
    with GtpEngine(command, spec, _positive(timeout), directory) as engine:
        yield EngineCandidate(engine, tb)


def _positive(timeout: float) -> float:
    if not timeout > 0:
        raise AuditInputError(f"the timeout must be a positive number of seconds, found {timeout}")
    return timeout


@dataclass(frozen=True)
class BuiltinAudit:
    """One textbook solver's audit, with the nodes it visits solving the empty board (None when it
    refuses the board as too large)."""

    name: str
    report: AuditReport
    nodes: int | None


def builtin_names(which: str) -> list[str]:
    """The textbook solvers `which` names: one name, or 'all'."""
    if which == "all":
        return list(SOLVERS)
    BuiltinCandidate(which)  # raises AuditInputError naming the known solvers
    return [which]


def audit_builtins(tb: Tablebase, spec: Spec | str, names: Sequence[str],
                   **options: Any) -> list[BuiltinAudit]:
    """Audit each named textbook solver (see `audit` for the options) and count its nodes from
    the empty board."""
    spec = tb.spec(spec)
    out = []
    for name in names:
        candidate = BuiltinCandidate(name)
        report = audit(tb, spec, candidate, **options)
        try:
            nodes: int | None = candidate.solve(spec, (EMPTY,) * spec.cells).nodes
        except SearchTooLargeError:
            nodes = None
        out.append(BuiltinAudit(name, report, nodes))
    return out


def report_dict(report: AuditReport) -> dict[str, Any]:
    """The report as plain data for JSON (the shape the README documents)."""
    spec = parse_spec(report.spec)
    return {
        "spec": report.spec,
        "solver": report.solver,
        "selection": report.selection.option,
        "orientations": "all" if report.every_orientation else "random",
        "seed": report.seed,
        "check": report.check,
        "positions": report.positions,
        "boards": report.boards,
        "agreed": report.agreed,
        "mismatched": report.mismatched,
        "mismatched_positions": report.mismatched_positions,
        "mismatches": report.mismatches,
        "declined": report.declined,
        "shapes": report.shapes,
        "checks": report.checked,
        "seconds": round(report.seconds, 3),
        "restarts": report.restarts,
        "examples": [{
            "kind": e.kind, "board": board_text(spec, e.board), "to_move": e.to_move,
            "ply": e.ply, "value": e.value.word, "depth": e.depth,
            "best_moves": list(e.best_moves), "said": e.said, "detail": e.detail,
            "refutation": list(e.refutation), "refutation_value": e.refutation_value.word,
            "after": e.after,
        } for e in report.examples],
    }

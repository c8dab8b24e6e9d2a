"""The audit: a solver's answers checked against a built table, position by position. Each stored
position is shown to the solver in an image of its symmetry orbit (selection.py), its answer is
read (candidates.py) and judged here, and the report counts mismatches by kind and gives the
smallest counterexamples with the table's perfect line that refutes them.

`--check move` accepts any move that keeps the position's value; `--check depth` also wants the
exact depth and a move that keeps it (a player's move alone is then judged by the depth it keeps).
Without a check asked for, each answer gets the strongest check its shape allows. Where stones
move (`+stonesN`), a draw is a draw by endless play: it has no depth to check, and a move keeps it
by keeping the draw.
"""
from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablebase.builder.games.grid import InvalidPositionError, Spec, Value
from tablebase.builder.games.grid.symmetry import images as image_codes
from tablebase.builder.games.grid.symmetry import orbit_sizes
from tablebase.builder.games.registry import grid_game
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.db.scores import score
from tablebase.query.audit.candidates import (
    BuiltinCandidate,
    Candidate,
    Reply,
    refuse_unsearchable_builtins,
    to_move,
)
from tablebase.query.audit.estimate import FIRST_ANSWERS, FIRST_SECONDS, answers_note
from tablebase.query.audit.selection import (
    EVERY_IMAGE_LIMIT,
    Selection,
    answer_depths,
    images,
    orientations,
    select_positions,
    stored_positions,
)
from tablebase.query.audit.solvers import SOLVERS, SearchTooLargeError
from tablebase.query.errors import AuditInputError
from tablebase.query.tablebase import Tablebase
from tablebase.query.wording import outcome_text, plies

CHECKS = ("value", "move", "depth")
# Mismatch kinds, in the order reports list them.
KINDS = ("wrong-value", "non-optimal-move", "illegal-move", "wrong-depth", "exception", "timeout",
         "crash", "bad-answer", "out-of-step", "unknown")
# Kinds where the solver claimed nothing, so there is nothing for a line to refute.
NO_CLAIM = ("exception", "timeout", "crash", "bad-answer", "out-of-step")
DEFAULT_EXAMPLES = 10


@dataclass(frozen=True)
class Judgement:
    """The verdict on one answer: `kind` is None when it agrees with the table, else a mismatch
    kind with `detail` saying what is wrong; `checks` are the checks that were applied."""

    kind: str | None
    detail: str
    checks: tuple[str, ...]


def judge(tb: Tablebase, spec: Spec, board: tuple[int, ...], value: Value, depth: int | None,
          reply: Reply, check: str | None = None) -> Judgement:
    """Judge `reply` for `board` (whose stored value and depth, for the side to move, are given;
    depth None: a draw by endless play).

    The checks applied are those the reply's shape allows, up to `check` (all of them if None).
    A move alone (a player's answer) is judged by the value it keeps, or with `check='depth'` by
    the depth too. Where the game is over, no move is the right move. A draw by endless play
    has no depth to check.
    """
    level = len(CHECKS) if check is None else CHECKS.index(check) + 1
    if reply.failure is not None:
        return Judgement(reply.failure.kind, reply.failure.message, ())
    allows = set(reply.allows)
    if reply.move is None and depth == 0:
        allows.add("move")  # "no move" answers the move question at a finished position
    if reply.move_only and check == "depth":
        allows.add("depth")  # a player's move is then judged by the depth it keeps
    checks = tuple(c for c in CHECKS[:level] if c in allows and (c != "depth" or depth is not None))
    if reply.value is not None and reply.value != value:
        return Judgement("wrong-value", f"said {reply.value.word}; the table says"
                                        f" {outcome_text(value, depth)}", checks)
    if "move" in checks and reply.move is None and depth != 0:
        return Judgement("illegal-move", "gave no move, but the game is not over", checks)
    if "move" in checks and reply.move is not None:
        try:
            move = grid_game(spec).read_move(board, reply.move)
        except InvalidPositionError as e:
            return Judgement("illegal-move", str(e), checks)
        after = tb.probe(spec, grid_game(spec).played(board, move))
        move_value = Value(-after.value)
        move_depth = None if after.depth is None else after.depth + 1
        keeps = (score(move_value, move_depth) == score(value, depth)
                 if "depth" in checks and depth is not None and move_depth is not None
                 else move_value == value)
        if not keeps:
            name = grid_game(spec).name(move)
            return Judgement("non-optimal-move",
                             f"{name} gives {outcome_text(move_value, move_depth)}, where the best"
                             f" moves give {outcome_text(value, depth)}", checks)
    if "depth" in checks and reply.depth is not None and reply.depth != depth:
        return Judgement("wrong-depth", f"said {plies(reply.depth)}; the table says"
                                        f" {outcome_text(value, depth)}", checks)
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
    depth: int | None
    best_moves: tuple[str, ...]
    said: str
    detail: str
    refutation: tuple[str, ...]
    refutation_value: Value
    after: str | None = None


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit. Counts are of boards shown (one per position, or one per distinct
    image with every orientation); `positions` counts stored positions. `orientations_auto` says
    the orientation was chosen by size; `asked` says what an engine is sent (None otherwise)."""

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
    orientations_auto: bool = False
    asked: str | None = None
    gave_up: int = 0  # boards an engine answered '= unknown' on (mismatches only with strict)
    gave_up_positions: int = 0
    stopped_after: int | None = None  # positions audited when max_failures stopped the audit

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
    depth: int | None = field(compare=False)
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
          selection: Selection = Selection(), seed: int = 0, every_orientation: bool | None = False,
          check: str | None = None, max_examples: int = DEFAULT_EXAMPLES,
          progress: ProgressFactory = NO_PROGRESS,
          root: Sequence[int] | str | None = None, strict: bool = False,
          max_failures: int | None = None,
          notice: Callable[[str], None] | None = None) -> AuditReport:
    """Audit `candidate` against the table of `spec` on the positions `selection` names.

    Each position is shown in a random image of its orbit (chosen by `seed`), or in every distinct
    image with `every_orientation` (None: every image when that makes at most EVERY_IMAGE_LIMIT
    boards, else a random one). `check` ('value', 'move' or 'depth') caps the checks; None
    applies the strongest each answer's shape allows. The report keeps the `max_examples` smallest
    counterexamples (fewest stones first; the smallest of each kind always among them).
    With `root` (a position, any orientation) the positions are those of that endgame table.
    An engine that gives up ('= unknown') claims nothing: its boards are counted apart, never
    as mismatches, unless `strict` (then as mismatches of kind 'unknown'). With `max_failures`
    the audit stops once that many positions have failed. `notice`, if given, is called once
    with a note when the first answers, timed, say the audit will take long (estimate.py).
    """
    spec = tb.spec(spec)
    if check is not None and check not in CHECKS:
        raise AuditInputError(f"unknown check {check!r}; known checks: {', '.join(CHECKS)}")
    started = time.perf_counter()
    rows = select_positions(tb, spec, selection, seed, root)
    boards = stored_positions(tb, spec, rows.codes, root)
    depths = answer_depths(spec, rows.value, rows.depth)
    maps = orientations(spec, rows.codes, seed).tolist()
    auto = every_orientation is None
    total = len(rows.codes)
    # Each position has at least one image: past the limit, no need to count them.
    if every_orientation or (auto and total <= EVERY_IMAGE_LIMIT):
        every_images = (int(orbit_sizes(image_codes(spec, rows.codes)).sum()) if root is None
                        else sum(len(images(spec, b)) for b in boards))
        every_orientation = every_images <= EVERY_IMAGE_LIMIT if auto else True
        total = every_images if every_orientation else total
    every_orientation = bool(every_orientation)
    mismatches = dict.fromkeys(KINDS, 0)
    shapes: dict[str, int] = {}
    checked = dict.fromkeys(CHECKS, 0)
    agreed = declined = bad_positions = gave_up = gave_up_positions = 0
    declined_note = None
    smallest = _Smallest(max(max_examples, 0))
    stopped_after = None
    shown_boards = 0  # boards asked so far: all of them unless max_failures stops the audit
    asked, asking_since, timed = 0, time.perf_counter(), False
    with progress(total=total, desc=f"audit {candidate.label}", unit="pos") as bar:
        for i, code in enumerate(rows.codes.tolist()):
            if max_failures is not None and bad_positions >= max_failures:
                stopped_after = i
                break
            board = boards[i]
            shown = (images(spec, board) if every_orientation
                     else [grid_game(spec).image(board, maps[i])])
            value, depth = Value(int(rows.value[i])), depths[i]
            first: _Found | None = None
            unanswered = False
            shown_boards += len(shown)
            for image in shown:
                reply = candidate.ask(spec, image)
                bar.update(1)
                if notice is not None and not timed:
                    asked += 1
                    spent = time.perf_counter() - asking_since
                    if asked >= FIRST_ANSWERS or spent >= FIRST_SECONDS:
                        timed = True  # one note at most
                        note = answers_note(total, asked, spent)
                        if note is not None:
                            notice(note)
                if reply.declined is not None:
                    declined += 1
                    declined_note = declined_note or reply.declined
                    continue
                if reply.gave_up and not strict:
                    gave_up += 1
                    unanswered = True
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
                    first = _Found(grid_game(spec).on_board(image), code, verdict.kind, image, value,
                                   depth, reply, verdict.detail)
            if first is not None:
                bad_positions += 1
                smallest.add(first)
            gave_up_positions += unanswered
    if check == "depth" and shapes and not checked["depth"] and not any(
            "depth" in shape or shape == "move" for shape in shapes):
        raise AuditInputError(
            f"--check depth needs answers that give a depth, (value, move, depth), or a move"
            f" alone (judged by the depth it keeps); {candidate.label} answered"
            f" {', '.join(f'({shape})' for shape in shapes)}: use --check move or --check value")
    if stopped_after is not None:
        total = shown_boards
    examples = tuple(_counterexample(tb, spec, found) for found in smallest.pick())
    return AuditReport(
        spec=spec.name, solver=candidate.label, selection=selection,
        every_orientation=every_orientation, seed=seed, check=check, positions=len(rows.codes),
        boards=total, agreed=agreed, mismatches={k: n for k, n in mismatches.items() if n},
        mismatched_positions=bad_positions, declined=declined, declined_note=declined_note,
        shapes=shapes, checked={c: n for c, n in checked.items() if n}, examples=examples,
        seconds=time.perf_counter() - started, restarts=candidate.restarts,
        orientations_auto=auto, asked=_asked(candidate), gave_up=gave_up,
        gave_up_positions=gave_up_positions, stopped_after=stopped_after)


def _asked(candidate: Candidate) -> str | None:
    engine = getattr(candidate, "engine", None)
    return engine.describe() if engine is not None else None


def _counterexample(tb: Tablebase, spec: Spec, found: _Found) -> Counterexample:
    board = found.board
    best = tuple(m.move for m in tb.best_moves(spec, board))
    after, ends = None, found.value
    if found.kind == "non-optimal-move" and found.reply.move is not None:
        move = grid_game(spec).read_move(board, found.reply.move)
        after = grid_game(spec).name(move)
        child = grid_game(spec).played(board, move)
        line = (after,) + tuple(s.move for s in tb.line(spec, child))
        ends = Value(-tb.probe(spec, child).value)
    elif found.kind in NO_CLAIM:
        line = ()
    else:
        line = tuple(s.move for s in tb.line(spec, board))
    return Counterexample(found.kind, board, found.code, found.ply, to_move(spec, board), found.value,
                          found.depth, best, found.reply.said, found.detail, line, ends, after)


@dataclass(frozen=True)
class BuiltinAudit:
    """One textbook solver's audit, with the nodes it visits solving the empty board (None when it
    refuses the board as too large)."""

    name: str
    report: AuditReport
    nodes: int | None


def builtin_names(which: str, spec: Spec | None = None) -> list[str]:
    """The textbook solvers `which` names: one name, or 'all' (AuditInputError where `spec`'s
    stones move: they cannot search it)."""
    if spec is not None:
        refuse_unsearchable_builtins(spec)
    if which == "all":
        return list(SOLVERS)
    BuiltinCandidate(which)  # raises AuditInputError naming the known solvers
    return [which]


def audit_builtins(tb: Tablebase, spec: Spec | str, names: Sequence[str],
                   **options: Any) -> list[BuiltinAudit]:
    """Audit each named textbook solver (see `audit` for the options) and count its nodes from
    the empty board (from the endgame table's root, with `root=`)."""
    spec = tb.spec(spec)
    refuse_unsearchable_builtins(spec)
    root = options.get("root")
    start = grid_game(spec).start() if root is None else tb.read_board(spec, root)
    out = []
    for name in names:
        candidate = BuiltinCandidate(name)
        report = audit(tb, spec, candidate, **options)
        nodes: int | None = candidate.nodes.get(start)
        if nodes is None:  # the start was not audited (or not in this orientation)
            try:
                nodes = candidate.solve(spec, start).nodes
            except SearchTooLargeError:
                nodes = None
        out.append(BuiltinAudit(name, report, nodes))
    return out

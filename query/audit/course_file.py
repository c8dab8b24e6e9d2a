"""Course test files: the GTP command files the CMPUT 455 assignments hand out, read as they
are, every position answered by a table or by search, and both the solver's answers and the
file's own expectations judged against that truth.

    boardsize 7
    clear_board
    play b D4
    play w C3
    10 solve
    #? [b A3]
    20 genmove b
    #? [draw G1|draw G5]

A command may carry a number in front; `play`, `clear_board` and `boardsize` set the board up,
`solve` and `genmove` are the cases (each judged on the board as it stands), and the `#? [...]`
line after one is what the file expects: alternatives split by `|`, a trailing `*` marking a
known failure. Other commands (`timelimit`, `komi`, ...) are passed over. An expected `solve`
answer names the winner (`b`, `w`, `draw`, or `unknown`) and, when the side to play wins or
draws, a move that does; a `genmove` expectation is a move.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablebase.builder.game import InvalidPositionError, Spec, Value
from tablebase.query.audit.candidates import Candidate, Reply
from tablebase.query.audit.dialects import Dialect
from tablebase.db.errors import GameNotBuiltError
from tablebase.query.errors import AuditInputError, MissingPositionError
from tablebase.query.notation import board_text, move_name, outcome_text, parse_move, place
from tablebase.query.search.answers import Searched, probe_or_search, searcher
from tablebase.query.search.engine import Searcher
from tablebase.query.tablebase import Tablebase

_COMMANDS = {"boardsize", "clear_board", "play", "solve", "genmove"}
_EXPECT = re.compile(r"#\?\s*\[(.*)\]\s*(\*?)\s*$")
_COURSE = Dialect("course")
# The verdicts that are not mismatches: nothing wrong was claimed, or the truth is not known.
FINE = ("right", "unsettled", "gave-up")


@dataclass(frozen=True)
class CourseCase:
    """One `solve` or `genmove` of a file: where it is, the board it asks about, and what the
    file expects (alternatives as written; empty: nothing)."""

    line: int
    command: str
    board: tuple[int, ...]
    expected: tuple[str, ...]
    known_failure: bool = False


@dataclass(frozen=True)
class Truth:
    """A position's value for the side to move, by table or search (value None: not settled
    within the search's time; `known` says what was proved)."""

    value: Value | None
    depth: int | None
    source: str
    known: str


@dataclass(frozen=True)
class Verdict:
    """One answer judged: its words, its kind ('right', 'wrong-value', 'non-optimal-move',
    'illegal-move', 'no-move', 'gave-up', 'unsettled', or a solver failure's kind) and why."""

    said: str
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class CaseResult:
    """A case with its truth, the solver's verdict (None when no solver was asked) and the
    verdicts of the file's expected alternatives."""

    case: CourseCase
    truth: Truth
    solver: Verdict | None
    expected: tuple[Verdict, ...]


@dataclass(frozen=True)
class CourseReport:
    """The audit of one course file."""

    spec: str
    path: str
    solver: str | None
    results: tuple[CaseResult, ...]
    seconds: float

    def count(self, kind: str, of: str = "solver") -> int:
        """How many solver verdicts (or with of='file', file alternatives) are of `kind`."""
        if of == "solver":
            return sum(1 for r in self.results if r.solver is not None and r.solver.kind == kind)
        return sum(1 for r in self.results for v in r.expected if v.kind == kind)

    @property
    def ok(self) -> bool:
        """Whether every settled answer of the solver and every expectation of the file is right."""
        return self.mismatched("solver") == 0 and self.mismatched("file") == 0

    def mismatched(self, of: str) -> int:
        """Settled answers of the solver (of='solver') or of the file ('file') that are wrong."""
        return sum(self.count(kind, of) for kind in self._kinds(of) if kind not in FINE)

    def _kinds(self, of: str) -> set[str]:
        if of == "solver":
            return {r.solver.kind for r in self.results if r.solver is not None}
        return {v.kind for r in self.results for v in r.expected}


def is_course_file(path: str) -> bool:
    """Whether the file at `path` reads as GTP commands (a play, solve, genmove, clear_board or
    boardsize line) rather than one position a line."""
    try:
        with open(path, encoding="utf-8") as f:
            return any(_command(line)[0] in _COMMANDS for line in f)
    except (OSError, UnicodeDecodeError):
        return False  # listed_codes says why it cannot be read


def _command(line: str) -> tuple[str, list[str]]:
    """(command, arguments) of a GTP line, its number dropped; ('', []) for none."""
    words = line.split("#", 1)[0].split()
    if words and words[0].isdigit():
        words = words[1:]
    return (words[0].lower(), words[1:]) if words else ("", [])


def read_course_file(spec: Spec, path: str) -> list[CourseCase]:
    """The cases of a course file; AuditInputError naming the line that cannot be followed."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise AuditInputError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    board = [0] * spec.cells
    cases: list[CourseCase] = []
    for number, line in enumerate(lines, 1):
        expected = _EXPECT.match(line.strip())
        if expected is not None:
            if not cases or cases[-1].line != _last_case_line(lines, number):
                raise AuditInputError(f"{path} line {number}: an expectation follows no solve or"
                                      " genmove")
            alternatives = tuple(a.strip() for a in expected.group(1).split("|") if a.strip())
            last = cases[-1]
            cases[-1] = CourseCase(last.line, last.command, last.board, alternatives,
                                   bool(expected.group(2)))
            continue
        command, args = _command(line)
        where = f"{path} line {number}"
        if command == "boardsize":
            if args[:1] != [str(spec.width)] or spec.width != spec.height:
                raise AuditInputError(f"{where}: boardsize {' '.join(args)}, but the game is"
                                      f" {spec.name}")
        elif command == "clear_board":
            board = [0] * spec.cells
        elif command == "play":
            board = _played(spec, board, args, where)
        elif command in ("solve", "genmove"):
            cases.append(CourseCase(number, command, tuple(board), ()))
    if not cases:
        raise AuditInputError(f"{path} has no solve or genmove command to audit")
    return cases


def _last_case_line(lines: Sequence[str], number: int) -> int:
    """The line number of the last command before line `number` (comments and blanks skipped)."""
    for back in range(number - 1, 0, -1):
        if _command(lines[back - 1])[0]:
            return back
    return 0


def _played(spec: Spec, board: list[int], args: list[str], where: str) -> list[int]:
    """The board after `play COLOUR MOVE`; the colour must be the side to move."""
    if len(args) != 2 or _COURSE.player(args[0]) is None:
        raise AuditInputError(f"{where}: expected 'play b|w MOVE', found 'play {' '.join(args)}'")
    ply = sum(1 for v in board if v)
    if _COURSE.player(args[0]) != "xo"[ply % 2]:
        raise AuditInputError(f"{where}: {args[0]} plays, but {_COURSE.colour('xo'[ply % 2])} is"
                              " to play (black first, then in turn)")
    try:
        cell = parse_move(spec, board, _COURSE.move_in(args[1]))
    except InvalidPositionError as e:
        raise AuditInputError(f"{where}: {e}") from None
    return list(place(board, cell))


class _Oracle:
    """The truth of positions, by table or search (one Searcher for the file, so that what it
    learnt about one case helps the next), each searched for at most `seconds`."""

    def __init__(self, tb: Tablebase | None, spec: Spec, seconds: float | None) -> None:
        self.tb, self.spec, self.seconds = tb, spec, seconds
        self.engine: Searcher = searcher(tb, spec)
        self.known: dict[tuple[int, ...], Truth] = {}

    def truth(self, board: tuple[int, ...]) -> Truth:
        """The truth of a legal board (cached)."""
        found = self.known.get(board)
        if found is None:
            found = self.known[board] = self._settle(board)
        return found

    def _settle(self, board: tuple[int, ...]) -> Truth:
        try:
            answer = probe_or_search(self.tb, self.spec, board, self.seconds, self.engine)
        except (MissingPositionError, GameNotBuiltError) as e:
            if self.seconds is not None:
                raise
            return Truth(None, None, "none", f"unknown: {e}; searching was refused")
        if isinstance(answer, Searched):
            s = answer.solution
            return Truth(s.value, s.depth, "search", s.known)
        return Truth(answer.value, answer.depth, "table", outcome_text(answer.value, answer.depth))


def _read_expected(text: str, command: str, to_move: str) -> Reply:
    """An expected answer in the course's words as a Reply (value for the side to move)."""
    words = text.split()
    if command == "genmove":
        return Reply(text, move=_COURSE.move_in(words[0]) if len(words) == 1 else text)
    winner = words[0].lower() if words else ""
    if winner == "unknown":
        return Reply(text, gave_up=True)
    player = "draw" if winner == "draw" else _COURSE.player(winner)
    if player is None or len(words) > 2:
        return Reply(text, move=text)  # unreadable: judged as an illegal move, naming it
    value = Value.DRAW if player == "draw" else Value.WIN if player == to_move else Value.LOSS
    return Reply(text, value, _COURSE.move_in(words[1]) if len(words) == 2 else None)


def _judge(oracle: _Oracle, board: tuple[int, ...], command: str, truth: Truth,
           reply: Reply) -> Verdict:
    """`reply` against the truth: its value, and the value its move keeps."""
    spec = oracle.spec
    if reply.failure is not None or reply.gave_up:
        return Verdict(reply.said, "gave-up" if reply.gave_up else reply.failure.kind,  # type: ignore[union-attr]
                       "" if reply.failure is None else reply.failure.message)
    if truth.value is None:
        return Verdict(reply.said, "unsettled", f"the search proved only: {truth.known}")
    if reply.value is not None and reply.value != truth.value:
        return Verdict(reply.said, "wrong-value",
                       f"the side to play has a {truth.known}")
    over = truth.depth == 0
    needs_move = not over and (command == "genmove" or truth.value != Value.LOSS)
    if reply.move is None:
        return (Verdict(reply.said, "no-move", "a move that keeps the value was expected")
                if needs_move else Verdict(reply.said, "right"))
    if not needs_move and command == "solve":
        return Verdict(reply.said, "right")  # a lost side's move is not asked for
    try:
        cell = parse_move(spec, board, reply.move)
    except InvalidPositionError as e:
        return Verdict(reply.said, "illegal-move", str(e))
    after = oracle.truth(place(board, cell))
    if after.value is None:
        return Verdict(reply.said, "unsettled",
                       f"{move_name(spec, cell)}: the search proved only {after.known} after it")
    if Value(-after.value) != truth.value:
        return Verdict(reply.said, "non-optimal-move",
                       f"{move_name(spec, cell)} gives {Value(-after.value).word}, where the"
                       f" position is a {truth.value.word}")
    return Verdict(reply.said, "right")


def audit_course_file(tb: Tablebase | None, spec: Spec, path: str,
                      candidate: Candidate | None, search: float | None,
                      progress: Callable[[int], None] | None = None) -> CourseReport:
    """Read the course file at `path`, settle each case by table or search (at most `search`
    seconds a position), and judge the candidate's answers (if any) and the file's."""
    start = time.monotonic()
    cases = read_course_file(spec, path)
    oracle = _Oracle(tb, spec, search)
    results = []
    for case in cases:
        truth = oracle.truth(case.board)
        to_move = "xo"[sum(1 for v in case.board if v) % 2]
        solver = None
        if candidate is not None:
            solver = _judge(oracle, case.board, case.command, truth,
                            candidate.ask(spec, case.board))
        expected = tuple(_judge(oracle, case.board, case.command, truth,
                                _read_expected(text, case.command, to_move))
                         for text in case.expected)
        results.append(CaseResult(case, truth, solver, expected))
        if progress is not None:
            progress(1)
    label = None if candidate is None else getattr(candidate, "label", None)
    return CourseReport(spec.name, path, label, tuple(results), time.monotonic() - start)


def case_title(spec: Spec, case: CourseCase) -> str:
    """'line 12: solve, o to play, 11 stones: ......./...'."""
    ply = sum(1 for v in case.board if v)
    return (f"line {case.line}: {case.command}, {_COURSE.colour('xo'[ply % 2])} to play, {ply}"
            f" stones: {board_text(spec, case.board)}")


"""Course test files audited: each case of a file (read by course_reading.py) settled by a table
or by search, and both the solver's answers and the file's own expectations judged against that
truth.

A question (`solve`, `genmove`) is judged on its board: an expected `solve` answer names the
winner (`b`, `w`, `draw`) and, when the side to play wins or draws, a move that does; a
`genmove` expectation is a point (`pass` or `resign` where the game is over). An expected
`unknown` claims nothing: the course's test (gogui-regress) passes only an engine that answers
`unknown`, that is one that runs out of its time, so an engine that proves the truth there is
counted apart (`proved`), neither right nor wrong. A command that sets something up
(`timelimit`, `boardsize`, `play`, `clear_board`) answers nothing when it succeeds: the empty
answer is what an expectation after it is judged against, and an engine is asked it as the
file says. The file's `timelimit` reaches the engine for the questions that follow.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from tablebase.builder.games.grid import InvalidPositionError, Spec, Value
from tablebase.builder.games.grid.boards import parse_move, place
from tablebase.builder.games.grid.notation import board_text
from tablebase.db.errors import GameNotBuiltError
from tablebase.query.audit.candidates import Candidate, EngineCandidate, Reply
from tablebase.query.audit.course_reading import (
    COURSE,
    SETTINGS,
    CourseCase,
    is_course_file,
    point,
    point_fault,
    read_course_file,
)
from tablebase.query.audit.dialects import told_timelimit
from tablebase.query.audit.processes import Failure
from tablebase.query.errors import MissingPositionError
from tablebase.query.search.fallback import probe_or_search
from tablebase.query.search.searcher import Searcher
from tablebase.query.search.solving import Searched, searcher
from tablebase.query.tablebase import Tablebase
from tablebase.query.wording import outcome_text

__all__ = ["CaseResult", "CourseCase", "CourseReport", "FINE", "Truth", "Verdict",
           "audit_course_file", "case_title", "is_course_file", "read_course_file"]

# The verdicts that are not mismatches: nothing wrong was claimed, or the truth is not known.
FINE = ("right", "unsettled", "gave-up", "unknown", "proved", "not-asked", "not-judged")


@dataclass(frozen=True)
class Truth:
    """A position's value for the side to move, by table or search (value None: not settled;
    `known` says what was proved, or why nothing was)."""

    value: Value | None
    depth: int | None
    source: str
    known: str


@dataclass(frozen=True)
class Verdict:
    """One answer judged: its words, its kind ('right', 'wrong-value', 'non-optimal-move',
    'illegal-move', 'no-move', 'unreadable', 'wrong-answer', 'gave-up', 'unknown', 'proved',
    'unsettled', 'not-asked', 'not-judged', or a solver failure's kind) and why."""

    said: str
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class CaseResult:
    """A case with its truth (None for a command that asks nothing), the solver's verdict (None
    when the solver was not asked) and the verdicts of the file's expected alternatives."""

    case: CourseCase
    truth: Truth | None
    solver: Verdict | None
    expected: tuple[Verdict, ...]


@dataclass(frozen=True)
class CourseReport:
    """The audit of one course file; `notes` say what the engine was told otherwise than the
    file says."""

    spec: str
    path: str
    solver: str | None
    results: tuple[CaseResult, ...]
    seconds: float
    notes: tuple[str, ...] = ()

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
        return sum(self.count(kind, of) for kind in self.kinds(of) if kind not in FINE)

    def kinds(self, of: str) -> list[str]:
        """The kinds of the solver's (of='solver') or the file's ('file') verdicts, sorted."""
        if of == "solver":
            return sorted({r.solver.kind for r in self.results if r.solver is not None})
        return sorted({v.kind for r in self.results for v in r.expected})


class _Oracle:
    """The truth of positions of one game, by table or search (one Searcher for the game, so
    that what it learnt about one case helps the next), each searched for at most `seconds`."""

    def __init__(self, tb: Tablebase | None, spec: Spec, seconds: float | None) -> None:
        self.tb, self.spec, self.seconds = tb, spec, seconds
        self.engine: Searcher | None = None
        self.refused: str | None = None  # why the search cannot take this game
        self.known: dict[tuple[int, ...], Truth] = {}

    def truth(self, board: tuple[int, ...]) -> Truth:
        """The truth of a legal board (cached)."""
        found = self.known.get(board)
        if found is None:
            found = self.known[board] = self._settle(board)
        return found

    def _settle(self, board: tuple[int, ...]) -> Truth:
        from tablebase.query.search.board import SearchRefusedError  # loads the search

        if self.engine is None and self.refused is None and self.seconds is not None:
            try:
                self.engine = searcher(self.tb, self.spec)
            except SearchRefusedError as e:
                self.refused = str(e)  # a table may still hold the position
        seconds = None if self.refused is not None else self.seconds
        try:
            answer = probe_or_search(self.tb, self.spec, board, seconds, self.engine)
        except (MissingPositionError, GameNotBuiltError) as e:
            if seconds is not None:
                raise
            if self.refused is not None:
                return Truth(None, None, "none", f"not settled: no table holds it, and"
                                                 f" {self.refused}")
            return Truth(None, None, "none", f"unknown: {e}; searching was refused")
        if isinstance(answer, Searched):
            s = answer.solution
            return Truth(s.value, s.depth, "search", s.known)
        return Truth(answer.value, answer.depth, "table", outcome_text(answer.value, answer.depth))


def _read_expected(text: str, command: str, to_move: str) -> Reply | Verdict:
    """An expected answer in the course's words as a Reply (value for the side to move), or
    the verdict on one no solver could give."""
    words = text.split()
    if command == "genmove":
        if len(words) != 1:
            return Verdict(text, "unreadable", "a genmove answer is one point, pass or resign")
        passes = words[0].lower() in ("pass", "resign")
        return Reply(text, move=None if passes else COURSE.move_in(words[0]))
    player = "draw" if words[0].lower() == "draw" else COURSE.player(words[0])
    if player is None or len(words) > 2:
        return Verdict(text, "unreadable", "a solve answer is b, w or draw (then a move, where"
                                           " the side to play wins or draws) or unknown")
    value = Value.DRAW if player == "draw" else Value.WIN if player == to_move else Value.LOSS
    return Reply(text, value, COURSE.move_in(words[1]) if len(words) == 2 else None)


def _cell(spec: Spec, board: tuple[int, ...], reply: Reply, gtp: bool) -> tuple[str, int | str]:
    """The reply's move as it was written (D4, Z9: never re-spelt) and the cell it plays on
    `board`, or why it cannot be played. `gtp`: the reply writes GTP points (the course's
    words, an engine of its dialect), else our move names (a function's)."""
    assert reply.move is not None
    if gtp:
        written = reply.said.split()[-1]
        fault = point_fault(spec, board, written)
        cell = point(spec, written)
        if fault is not None:
            return written, fault
        assert cell is not None  # a point with no fault names a cell
        return written, cell
    words = re.split(r"[\s'\"(),=]+", reply.said)
    written = next((w for w in words if w and w.lower() == reply.move), reply.move)
    try:
        return written, parse_move(spec, board, reply.move)
    except InvalidPositionError as e:
        return written, str(e)


def _judge(oracle: _Oracle, board: tuple[int, ...], command: str, truth: Truth,
           reply: Reply, gtp: bool = True) -> Verdict:
    """`reply` against the truth: its value, and the value its move keeps (GTP points, or with
    `gtp` False our move names)."""
    spec = oracle.spec
    if reply.failure is not None or reply.gave_up:
        return Verdict(reply.said, "gave-up" if reply.gave_up else reply.failure.kind,  # type: ignore[union-attr]
                       "" if reply.failure is None else reply.failure.message)
    if truth.value is None:
        return Verdict(reply.said, "unsettled", "the truth is not settled" if truth.source == "none"
                       else f"the search proved only: {truth.known}")
    if reply.value is not None and reply.value != truth.value:
        return Verdict(reply.said, "wrong-value", f"the side to play has a {truth.known}")
    over = truth.depth == 0
    needs_move = not over and (command == "genmove" or truth.value != Value.LOSS)
    if reply.move is None:
        return (Verdict(reply.said, "no-move", "a move that keeps the value was expected")
                if needs_move else Verdict(reply.said, "right"))
    if not needs_move and command == "solve":
        return Verdict(reply.said, "right")  # a lost side's move is not asked for
    written, cell = _cell(spec, board, reply, gtp)
    if isinstance(cell, str):
        return Verdict(reply.said, "illegal-move", cell)
    after = oracle.truth(place(board, cell))
    if after.value is None:
        return Verdict(reply.said, "unsettled", f"{written}: not settled after it ({after.known})")
    if Value(-after.value) != truth.value:
        return Verdict(reply.said, "non-optimal-move",
                       f"{written} gives {Value(-after.value).word}, where the position is a"
                       f" {truth.value.word}")
    return Verdict(reply.said, "right")


def _expects_unknown(truth: Truth) -> Verdict:
    settled = f"; the truth: {truth.known}" if truth.value is not None else ""
    return Verdict("unknown", "unknown", "the course's test passes only '= unknown', an engine"
                                         f" that runs out of its time{settled}")


def _question(oracle: _Oracle, case: CourseCase, candidate: Candidate | None,
              failure: Failure | None) -> CaseResult:
    """A solve or genmove judged: the solver's answer and each expected alternative."""
    truth = oracle.truth(case.board)
    to_move = "xo"[sum(1 for v in case.board if v) % 2]
    solver = None
    only_unknown = bool(case.expected) and all(a.lower() == "unknown" for a in case.expected)
    if failure is not None:
        solver = Verdict("", failure.kind, failure.message)
    elif candidate is not None:
        gtp = isinstance(candidate, EngineCandidate) and candidate.engine.dialect.name == "course"
        solver = _judge(oracle, case.board, case.command, truth,
                        candidate.ask(case.spec, case.board), gtp)
        if only_unknown and solver.kind == "right":
            solver = Verdict(solver.said, "proved", "right by the truth, where the file expects"
                             " 'unknown': gogui-regress fails this test, a test of the time"
                             " limit, though the course welcomes a proof")
        elif only_unknown and solver.kind == "gave-up":
            solver = Verdict(solver.said, "gave-up", "as the file expects")
    expected: list[Verdict] = []
    if case.pattern == "":
        expected.append(Verdict("", "wrong-answer", f"{case.command} always answers something"))
    for text in case.expected:
        if text.lower() == "unknown":
            expected.append(_expects_unknown(truth))
            continue
        read = _read_expected(text, case.command, to_move)
        expected.append(read if isinstance(read, Verdict)
                        else _judge(oracle, case.board, case.command, truth, read))
    return CaseResult(case, truth, solver, tuple(expected))


def _setting(case: CourseCase, engine: EngineCandidate | None) -> CaseResult:
    """A command that sets something up, followed by an expectation: it answers nothing when it
    succeeds (gogui-regress matches the expectation against that), and an engine is asked it."""
    if case.command not in SETTINGS:
        passed = Verdict(case.pattern or "", "not-judged",
                         f"the audit asks no engine '{case.command}'")
        return CaseResult(case, None, None, (passed,))
    fits = _regress_matches(case.pattern or "", "")
    file = Verdict(case.pattern or "", "right" if fits else "wrong-answer",
                   "" if fits else f"'{case.text}' answers nothing when it succeeds")
    solver = None
    if engine is not None:
        answer = _engine_setting(engine, case)
        if answer is None:
            solver = Verdict("", "not-asked", f"the {engine.engine.dialect.name} dialect has no"
                                              f" {case.command}")
        elif isinstance(answer, Failure):
            solver = Verdict("", answer.kind, answer.message)
        else:
            solver = Verdict(f"= {answer}".strip(), "right" if not answer else "wrong-answer",
                             "" if not answer else f"'{case.text}' answers nothing when it"
                                                   " succeeds")
    return CaseResult(case, None, solver, (file,))


def _engine_setting(candidate: EngineCandidate, case: CourseCase) -> str | Failure | None:
    """The engine's answer to a setting command as the file gives it (None: not sent)."""
    engine = candidate.engine
    if case.command == "timelimit":
        return engine.set_timelimit(case.timelimit, force=True)
    if case.command == "boardsize":
        return engine.set_game(case.spec, force=True)
    if case.command == "play":
        assert case.cell is not None
        before = case.board[:case.cell] + (0,) + case.board[case.cell + 1:]
        return candidate.play_test(case.spec, before, case.cell)
    switched = engine.set_game(case.spec)
    return switched if isinstance(switched, Failure) else engine.send([case.text])


def _regress_matches(pattern: str, response: str) -> bool:
    """Whether gogui-regress passes `response` for the expectation `pattern`: a regular
    expression matched against the whole response ('!' in front: must not match)."""
    negated = pattern.startswith("!")
    try:
        found = re.fullmatch(pattern[negated:], response, re.M | re.S) is not None
    except re.error:
        found = pattern[negated:] == response
    return found != negated


def audit_course_file(tb: Tablebase | None, spec: Spec, path: str,
                      candidate: Candidate | None, search: float | None,
                      progress: Callable[[int], None] | None = None) -> CourseReport:
    """Read the course file at `path` (game `spec` until a boardsize), settle each question by
    table or search (at most `search` seconds a position), and judge the candidate's answers
    (if any) and the file's."""
    start = time.monotonic()
    cases = read_course_file(spec, path)
    oracles: dict[Spec, _Oracle] = {}
    engine = candidate if isinstance(candidate, EngineCandidate) else None
    results = []
    for case in cases:
        failure = None
        if engine is not None and case.command != "timelimit":
            told = engine.engine.set_timelimit(case.timelimit)  # the file's, for what follows
            failure = told if isinstance(told, Failure) else None
        if case.question:
            if case.spec not in oracles:
                oracles[case.spec] = _Oracle(tb, case.spec, search)
            results.append(_question(oracles[case.spec], case, candidate, failure))
        else:
            results.append(_setting(case, engine))
        if progress is not None:
            progress(1)
    label = None if candidate is None else getattr(candidate, "label", None)
    notes = () if engine is None or engine.engine.dialect.name != "course" else \
        timelimit_notes(cases, engine.engine.timeout)
    return CourseReport(spec.name, path, label, tuple(results), time.monotonic() - start, notes)


def timelimit_notes(cases: list[CourseCase], timeout: float) -> tuple[str, ...]:
    """What the engine is told for each of the file's timelimits that it cannot be told as is."""
    notes = []
    for wanted in sorted({c.timelimit for c in cases}):
        told = told_timelimit(timeout, wanted)
        if told != wanted:
            why = ("the course's engines take 1 to 100 seconds" if not 1 <= wanted <= 100 else
                   f"a second under --timeout {timeout:g}; --timeout {wanted + 1} sends it whole")
            notes.append(f"the file's timelimit {wanted} is sent as timelimit {told} ({why})")
    return tuple(notes)


def case_title(spec: Spec, case: CourseCase) -> str:
    """'line 12: 10 solve, w to play, 11 stones: ......./...' (the game named when it is not
    `spec`); a setting: 'line 3: 00 timelimit 1'."""
    written = f"{case.id} {case.text}" if case.id is not None else case.text
    if not case.question:
        return f"line {case.line}: {written}"
    ply = sum(1 for v in case.board if v)
    game = "" if case.spec == spec else f" on {case.spec.name}"
    return (f"line {case.line}: {written}, {COURSE.colour('xo'[ply % 2])} to play, {ply}"
            f" stones{game}: {board_text(case.spec, case.board)}")

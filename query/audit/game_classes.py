"""Auditing a solver function against a game class's table (docs/games.md): the function gets
each stored position's text (and, if it has a `spec` parameter, the game's name) and answers
as tablebase's audit reads answers (query/audit/candidates.py): a value ('win', 'draw',
'loss' or 1, 0, -1 for the side to move), (value, move) or (value, move, depth), or a player's
move name alone. Each answer is checked as far as its shape allows: the value, whether the move
keeps the value, the depth. The smallest positions that disagree come with a perfect line.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.query.audit.candidates import read_return
from tablebase.query.audit.processes import describe_exception
from tablebase.query.audit.worker import takes_spec
from tablebase.query.game_answers import GameAnswers, stored_rows


@dataclass
class ClassMismatch:
    """One position a solver answered wrongly: its text, ply, what was wrong and a perfect line."""

    position: str
    ply: int  # -1: a table that keeps no ply (ranked tiers)
    problem: str
    line: list[str] = field(default_factory=list)


@dataclass
class ClassAuditReport:
    """What an audit of a solver on a game class's table found."""

    name: str
    positions: int = 0
    agreed: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    examples: list[ClassMismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every answer agreed with the table."""
        return self.agreed == self.positions


def audit_class_game(answers: GameAnswers, function: Callable[..., Any], *,
                     max_examples: int = 10, progress: ProgressFactory = NO_PROGRESS
                     ) -> ClassAuditReport:
    """Ask `function` about every non-terminal stored position of the table from the game's
    start; check each answer against the table."""
    game = answers.game
    report = ClassAuditReport(game.name)
    named = takes_spec(function)
    reader = answers.readers()[0]
    found: list[ClassMismatch] = []
    with progress(desc=f"audit {game.name}", total=reader.count, unit="pos",
                  unit_scale=True) as bar:
        for block in stored_rows(game, reader):
            for text, ply, value, depth in zip(block.texts(game), block.ply.tolist(),
                                               block.value.tolist(), block.depth.tolist()):
                bar.update(1)
                if depth == 0:
                    continue  # the game is over: nothing to ask
                report.positions += 1
                kind = _judge(answers, function, named, text, value, depth)
                if kind is None:
                    report.agreed += 1
                    continue
                report.by_kind[kind[0]] = report.by_kind.get(kind[0], 0) + 1
                found.append(ClassMismatch(text, ply, kind[1]))
    found.sort(key=lambda m: (m.ply, m.position))
    for m in found[:max_examples]:
        m.line = [s.move for s in answers.line(m.position)[1]]
    report.examples = found[:max_examples]
    return report


def _judge(answers: GameAnswers, function: Callable[..., Any], named: bool, text: str,
           value: int, depth: int) -> tuple[str, str] | None:
    """(kind, what was wrong) of the function's answer at `text`, None where it agrees."""
    try:
        raw = function(text, spec=answers.game.name) if named else function(text)
    except Exception as e:
        return "exception", f"raised {describe_exception(e)}"
    reply = read_return(raw)
    if reply.failure is not None:
        return "bad-answer", reply.failure.message
    words = {1: "win", 0: "draw", -1: "loss"}
    if reply.value is not None and int(reply.value) != value:
        return "wrong-value", f"said {reply.value.word}, the table: {words[value]}"
    if reply.move is not None or reply.move_only:
        moves = answers.moves(text)[1]
        chosen = next((m for m in moves if m.move == reply.move), None)
        if chosen is None:
            return "illegal-move", f"moved {reply.move!r}, not a move here"
        if int(chosen.value) != value:
            return "wrong-move", (f"moved {chosen.move}, a {chosen.value.word}; the position is"
                                  f" a {words[value]}")
    if reply.depth is not None and reply.depth != (None if depth < 0 else depth):
        return "wrong-depth", f"said depth {reply.depth}, the table: {depth}"
    return None

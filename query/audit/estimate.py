"""How long an audit will take, said before it runs long. The textbook solvers are estimated
before they start, from node counts: each searches one sample position per ply (the cheap, late
plies first, within a small time budget), the nodes of the plies not sampled are extrapolated by
the last growth ratio, and nodes become seconds at the rate the samples ran. Other solvers and
engines are timed on their first answers, and the rest is taken to cost the same; a course
file's worst case is said before it starts, from the time each question may take."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from tablebase.builder.games.grid import Spec, decode
from tablebase.builder.games.grid.symmetry import images as image_codes
from tablebase.builder.games.grid.symmetry import orbit_sizes
from tablebase.builder.progress import duration
from tablebase.query.audit.course_reading import CourseCase
from tablebase.query.audit.dialects import told_timelimit
from tablebase.query.audit.selection import EVERY_IMAGE_LIMIT, Selection, select_positions
from tablebase.query.audit.solvers import SOLVERS, SearchTooLargeError
from tablebase.query.tablebase import Tablebase

# Seconds of sample searches per solver: the estimate must cost little next to the audit.
SAMPLE_BUDGET = 0.3
# The textbook solvers are worth a note when expected to take longer than this many seconds.
SLOW = 60.0
# Another solver is timed on its first FIRST_ANSWERS answers (or those of the first
# FIRST_SECONDS), and a note is worth it when the whole audit should take WORTH_SAYING or more.
FIRST_ANSWERS, FIRST_SECONDS, WORTH_SAYING = 8, 5.0, 30.0


@dataclass(frozen=True)
class Estimate:
    """A solver's expected cost on an audit: nodes searched and seconds, both rough."""

    name: str
    nodes: float
    seconds: float


def estimate_builtins(tb: Tablebase, spec: Spec, names: list[str], selection: Selection,
                      seed: int = 0, every_orientation: bool | None = False) -> list[Estimate]:
    """Estimate each named textbook solver's nodes and seconds on the audit these options name."""
    rows = select_positions(tb, spec, selection, seed)
    boards_per_position = 1.0
    if every_orientation or (every_orientation is None and len(rows.codes) <= EVERY_IMAGE_LIMIT):
        boards = int(orbit_sizes(image_codes(spec, rows.codes)).sum())
        if every_orientation or boards <= EVERY_IMAGE_LIMIT:
            boards_per_position = boards / max(len(rows.codes), 1)
    plies: dict[int, tuple[int, int]] = {}  # ply -> (positions, a sample code)
    for code, ply in zip(rows.codes.tolist(), rows.ply.tolist()):
        n, sample = plies.get(ply, (0, code))
        plies[ply] = (n + 1, sample)
    out = []
    for name in names:
        solve = SOLVERS[name]
        nodes_total = spent = 0.0
        searched = 0
        last: float | None = None
        ratio = took = 1.0
        for ply in sorted(plies, reverse=True):  # fewest empty cells, cheapest, first
            n, code = plies[ply]
            # A sample is searched only when it should end within the budget: each costs about
            # the last one's time grown by the same ratio as its nodes (the empty board's sample
            # alone would otherwise cost as much as the audit it estimates).
            if spent == 0 or spent + took * ratio < SAMPLE_BUDGET:
                started = time.perf_counter()
                try:
                    nodes = float(solve(spec, decode(code, spec.cells)).nodes)
                except SearchTooLargeError:
                    break  # the solver declines these plies and every earlier one
                took = time.perf_counter() - started
                spent += took
                searched += int(nodes)
                if last:
                    ratio = max(nodes / last, 1.0)
            else:
                nodes = (last or 1.0) * ratio  # grows as it grew from the ply after
            last = nodes
            nodes_total += nodes * n * boards_per_position
        rate = searched / spent if spent > 0 else float("inf")
        out.append(Estimate(name, nodes_total, nodes_total / rate if rate else 0.0))
    return out


def builtins_note(spec: Spec, estimates: list[Estimate]) -> str | None:
    """The note to print before the textbook solvers run, when they will take minutes."""
    total = sum(e.seconds for e in estimates)
    if total < SLOW:
        return None
    slow = ", ".join(f"{e.name} ~{duration(e.seconds)}" for e in estimates if e.seconds >= SLOW / 4)
    return (f"the textbook solvers may take about {duration(total)} on {spec.name} (estimated"
            f" from node counts on sample positions: {slow}); --positions sample:N or ply:P"
            " audits fewer positions")


def answers_note(boards: int, answered: int, seconds: float) -> str | None:
    """The note once `answered` of `boards` answers took `seconds`, when the rest will take long."""
    each = seconds / max(answered, 1)
    if each * boards < WORTH_SAYING:
        return None
    return (f"this audit may take about {duration(each * boards)}: {boards:,} boards at"
            f" {each:.2g} s an answer (timed on the first {answered}); --positions sample:N or"
            " --max-failures N end sooner")


def course_note(cases: Sequence[CourseCase], timeout: float | None, search: float | None,
                course_engine: bool = False) -> str | None:
    """The note before a course file's audit, when its worst case is long: a course engine may
    take each question's timelimit as it is told it (and a second), and the search `search`
    seconds on each question's position and on the position after each move judged (the
    solver's, with a `timeout`, and the file's). Other solvers are not guessed at."""
    questions = [c for c in cases if c.question]
    engine = 0.0
    if course_engine and timeout is not None:
        engine = sum(min(timeout, told_timelimit(timeout, c.timelimit) + 1) for c in questions)
    positions = len({(c.spec, c.board) for c in questions}) + sum(
        len(c.expected) + (timeout is not None) for c in questions)
    searching = 0.0 if search is None else search * positions
    if engine + searching < WORTH_SAYING:
        return None
    parts = [f"the engine up to {duration(engine)} (its timelimits, as told)"] if engine else []
    if searching:
        parts.append(f"the search up to {search:g} s on each of {positions:,} positions"
                     " (--search S)")
    return (f"this course file may take up to about {duration(engine + searching)}:"
            f" {len(questions):,} question{'' if len(questions) == 1 else 's'};"
            f" {' and '.join(parts)}")

"""The audit reports as text (and the textbook solvers' JSON list): what `tablebase audit` prints."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablebase.builder.games.grid import Spec, Value
from tablebase.builder.games.grid.notation import board_text, draw_board
from tablebase.query.audit.selection import EVERY_IMAGE_LIMIT
from tablebase.query.cli.common import count
from tablebase.query.turns import PLY_LIMIT
from tablebase.query.wording import outcome_text


def _seen(report: Any) -> str:
    seen = ("each in every distinct image of its orbit" if report.every_orientation
            else f"each in a random image of its orbit (seed {report.seed})")
    if report.orientations_auto:
        seen += (f" (chosen: at most {EVERY_IMAGE_LIMIT:,} boards in all)" if report.every_orientation
                 else f" (chosen: every image would be over {EVERY_IMAGE_LIMIT:,} boards)")
    return seen


def print_audit(spec: Spec, report: Any) -> None:
    """The audit report as text: counts, then the smallest counterexamples with their boards."""
    from tablebase.query.audit.positions import KINDS, NO_CLAIM

    print(f"audit of {report.solver} on {spec.name}: {count(report.positions, 'position')}"
          f" ({report.selection}), {_seen(report)}")
    if report.asked:
        print(f"  sends: {report.asked}")
    if report.every_orientation:
        print(f"  boards shown: {report.boards:,}")
    answered = sum(report.shapes.values())
    if report.shapes:
        shapes = ", ".join(f"{n:,} as ({shape})" for shape, n in report.shapes.items())
        print(f"  answers: {shapes}")
    applied = ", ".join(f"{c} on {n:,}" for c, n in report.checked.items())
    if applied:
        asked = (f" (--check {report.check})" if report.check
                 else " (the strongest each answer allows)")
        print(f"  checks: {applied}{asked}")
    else:
        print("  checks: none (no answer could be checked)")
    if report.check and report.checked.get(report.check, 0) < answered:
        print(f"  note: {answered - report.checked.get(report.check, 0):,} answers gave no"
              f" {report.check}, so it could not be checked on them")
    if report.declined:
        print(f"  declined: {report.declined:,} ({report.declined_note})")
    if report.gave_up:
        print(f"  gave up on {report.gave_up:,} boards ({report.gave_up_positions:,} positions):"
              " answered '= unknown', which claims nothing (--strict counts them as failures)")
    if report.stopped_after is not None:
        print(f"  stopped after {report.stopped_after:,} of {report.positions:,} positions:"
              f" {report.mismatched_positions:,} had failed (--max-failures)")
    judged = report.boards - report.declined - report.gave_up
    print(f"  agreed: {report.agreed:,} of {judged:,}")
    if report.mismatched:
        where = (f" boards, on {count(report.mismatched_positions, 'position')}"
                 if report.every_orientation else "")
        print(f"  mismatched: {report.mismatched:,}{where}")
        for kind in KINDS:
            if kind in report.mismatches:
                print(f"    {kind:<18}{report.mismatches[kind]:>8,}")
    if report.restarts:
        print(f"  the solver's process was restarted {count(report.restarts, 'time')}")
    print(f"  seconds: {report.seconds:.2f}")
    if report.examples:
        print()
        print(f"smallest counterexamples ({len(report.examples)} of"
              f" {count(report.mismatched_positions, 'position')}, fewest stones first; boards"
              " as shown to the solver):")
    for number, e in enumerate(report.examples, 1):
        print()
        print(f"{number}. {e.kind}: {e.to_move} to move, {count(e.ply, 'stone')}"
              f" ({board_text(spec, e.board)})")
        for line in draw_board(spec, e.board).splitlines():
            print(f"   {line}")
        best = f"; best moves: {' '.join(e.best_moves)}" if e.best_moves else ""
        print(f"   table:    {outcome_text(e.value, e.depth)}{best}")
        if e.said:
            print(f"   solver:   {e.said}")
        print(f"   wrong:    {e.detail}")
        if e.refutation and e.kind not in NO_CLAIM:
            lead = f"after the solver's {e.after}: " if e.after is not None else "perfect play: "
            print(f"   refuted:  {lead}{_moves_text(e.to_move, e.refutation, e.refutation_value)}")
    if report.ok and judged:
        print(f"all {judged:,} answers agree with the table")
    elif report.ok:
        print("no answer to judge: every board was declined or given up")


def print_builtins(spec: Spec, audits: Sequence[Any]) -> None:
    """The textbook solvers' table, then the full report of each that mismatched."""
    first = audits[0].report
    print(f"textbook solvers on {spec.name}: {count(first.positions, 'position')}"
          f" ({first.selection}), {_seen(first)}")
    print(f"  {'solver':<15}{'checked':>9}{'mismatched':>12}{'nodes from empty':>18}{'seconds':>9}")
    for a in audits:
        r = a.report
        nodes = f"{a.nodes:,}" if a.nodes is not None else "refused"
        print(f"  {a.name:<15}{r.boards - r.declined:>9,}{r.mismatched:>12,}{nodes:>18}"
              f"{r.seconds:>9.2f}")
    for a in audits:
        if a.report.declined:
            print(f"  {a.name} declined {count(a.report.declined, 'position')}:"
                  f" {a.report.declined_note}")
    for a in audits:
        if not a.report.ok:
            print()
            print_audit(spec, a.report)


def print_play(spec: Spec, report: Any) -> None:
    """The audit-by-play report as text: games, moves judged, value-losing moves by ply, results,
    then the first value-losing moves with the table's refuting line."""
    side = {"x": "x", "o": "o", "both": "x and o in turn"}[report.plays]
    start = ("" if not any(report.start[:spec.cells])
             else f" from {board_text(spec, report.start)}")
    print(f"audit by play of {report.player} on {spec.name}: {count(report.games, 'game')}"
          f"{start}, the player as {side}, the table as {report.opponent} (seed {report.seed})")
    if report.asked:
        print(f"  sends: {report.asked}")
    r = report.results
    print(f"  results for the player: {r['win']:,} won, {r['draw']:,} drawn, {r['loss']:,} lost"
          + (f", {r['forfeit']:,} forfeited (no legal move)" if r["forfeit"] else ""))
    if report.ruled_draws:
        print(f"  drawn by the rules of play: {report.ruled_draws:,} (a position came up a third"
              f" time, or {PLY_LIMIT:,} plies were played)")
    print(f"  moves judged: {report.moves_judged:,}")
    print(f"  value-losing moves: {report.lost:,}")
    if report.lost_by_ply:
        print("    by ply: " + ", ".join(f"{ply}: {n:,}" for ply, n in report.lost_by_ply.items()))
    for kind, n in report.kinds.items():
        print(f"    {kind:<18}{n:>8,}")
    if report.restarts:
        print(f"  the player's process was restarted {count(report.restarts, 'time')}")
    print(f"  seconds: {report.seconds:.2f}")
    if report.examples:
        print()
        print(f"first value-losing moves ({len(report.examples)} of {report.lost:,}):")
    for number, e in enumerate(report.examples, 1):
        print()
        print(f"{number}. game {e.game}, {e.to_move} to move, {count(e.ply, 'stone')}"
              f" ({board_text(spec, e.board)})")
        for line in draw_board(spec, e.board).splitlines():
            print(f"   {line}")
        print(f"   table:    {outcome_text(e.value, e.depth)}; best moves: {' '.join(e.best_moves)}")
        print(f"   played:   {e.move}, which gives {outcome_text(e.after_value, e.after_depth)}")
        print(f"   refuted:  {_moves_text(e.to_move, e.refutation, e.after_value)}")
    for number, f in enumerate(report.forfeits, 1):
        print()
        print(f"forfeit {number}. game {f.game}, {f.kind}: {f.to_move} to move"
              f" ({board_text(spec, f.board)})")
        if f.said:
            print(f"   player:   {f.said}")
        print(f"   wrong:    {f.detail}")
    if report.ok:
        print(f"every one of {report.moves_judged:,} moves kept its position's value")


def _moves_text(first: str, moves: Sequence[str], ends: Value) -> str:
    """'x b2, o c3, x b1: x wins' (`ends` is for `first`)."""
    players = (first, "o" if first == "x" else "x")
    text = ", ".join(f"{players[i % 2]} {m}" for i, m in enumerate(moves))
    if ends == Value.DRAW:
        return f"{text}: a draw"
    return f"{text}: {players[0] if ends == Value.WIN else players[1]} wins"


def print_course(spec: Spec, report: Any) -> None:
    """A course file's audit as text: each case's truth and verdicts, then the counts."""
    from tablebase.query.audit.course_file import case_title

    who = report.solver or "no solver"
    print(f"audit of {who} on the course file {report.path} ({spec.name}):"
          f" {count(len(report.results), 'case')}")
    for note in report.notes:
        print(f"  note: {note}")
    for r in report.results:
        print(f"  {case_title(spec, r.case)}")
        if r.truth is not None:
            print(f"    truth ({r.truth.source}): {r.truth.known}")
        if r.solver is not None:
            detail = f": {r.solver.detail}" if r.solver.detail else ""
            print(f"    solver said '{r.solver.said}': {r.solver.kind}{detail}")
        for v in r.expected:
            detail = f": {v.detail}" if v.detail else ""
            print(f"    file expects '{v.said}': {v.kind}{detail}")
    wrong, wrong_file = report.mismatched("solver"), report.mismatched("file")
    print(f"  mismatched: {wrong + wrong_file} ({wrong} of the solver's answers, {wrong_file} of"
          " the file's expectations)")
    for of, name in (("solver", "solver"), ("file", "file")):
        if report.kinds(of):
            print(f"  {name}: " + ", ".join(f"{report.count(k, of)} {k}" for k in report.kinds(of)))
    if report.count("proved"):
        print(f"  proved: {report.count('proved')} where the file expects 'unknown' (right by the"
              " truth; the course's test passes only 'unknown')")
    refused = sum(1 for r in report.results if r.truth is not None and r.truth.value is None
                  and r.truth.source == "none")
    unsettled = report.count("unsettled") + report.count("unsettled", "file")
    why = []
    if refused:
        why.append(f"{count(refused, 'position')} no table holds and the search cannot take")
    timed_out = sum(1 for r in report.results if r.truth is not None and r.truth.value is None
                    and r.truth.source == "search")
    if timed_out or (unsettled and not refused):
        why.append("the search's time ran out before the truth was proved (--search S gives it"
                   " longer)")
    print(f"  {report.seconds:.1f} s" + (f"; unsettled: {'; '.join(why)}" if why else ""))

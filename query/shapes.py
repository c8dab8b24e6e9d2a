"""The JSON shapes of answers, written once: the command line's `--json` output and the HTTP
API return exactly these dicts. Values are words ('win', 'draw', 'loss'): a position's for the
side to move, a move's for the player making it."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tablebase.builder.games.grid import Spec, Value, parse_spec
from tablebase.builder.games.grid.notation import board_text, to_move_name
from tablebase.builder.games.grid.root import Root
from tablebase.builder.games.registry import grid_game
from tablebase.db.facts import GAME_LAYOUTS
from tablebase.db.records import GameRecord, PlyCounts
from tablebase.query import turns
from tablebase.query.answer_records import MoveInfo, Probe, Step

if TYPE_CHECKING:
    from tablebase.query.audit.by_play import PlayReport
    from tablebase.query.audit.course_file import CourseReport
    from tablebase.query.audit.positions import AuditReport, BuiltinAudit
    from tablebase.query.play.strategy_tree import StrategyTree
    from tablebase.query.search.fallback import SearchedMove
    from tablebase.query.search.settling import Settled
    from tablebase.query.search.solving import Searched
    from tablebase.query.verify.checks import VerifyReport

# `strategy --json` includes the whole tree up to this many nodes.
DEFAULT_MAX_NODES = 100_000


def probe_json(spec: Spec, board: Sequence[int], probe: Probe) -> dict[str, Any]:
    """The `probe --json` object: spec, board text, to_move, ply, value, depth, terminal."""
    return {"spec": spec.name, "board": board_text(spec, board), "to_move": probe.to_move,
            "ply": probe.ply, "value": probe.value.word, "depth": probe.depth,
            "terminal": probe.terminal, "source": "table"}


def answer_json(spec: Spec, board: Sequence[int], answer: Probe | Searched) -> dict[str, Any]:
    """`probe_json` of a table's answer; of a searched one, the same keys (value and depth null
    where not proved) with source 'search', what was proved in words, a move that keeps the
    value, and the search's effort."""
    if isinstance(answer, Probe):
        return probe_json(spec, board, answer)
    s, ply = answer.solution, answer.ply
    value = s.value
    return {"spec": spec.name, "board": board_text(spec, board), "to_move": to_move_name(ply),
            "ply": ply, "value": None if value is None else value.word,
            "depth": s.depth, "terminal": s.depth == 0, "source": "search", "proved": s.known,
            "move": answer.move, "nodes": s.nodes, "table_hits": s.table_hits,
            "seconds": round(s.seconds, 3)}


def settled_json(spec: Spec, board: Sequence[int], settled: Settled) -> dict[str, Any]:
    """The `solve --json` object: `answer_json`'s keys for the joined answer (nodes, table hits
    and seconds the search's), then `method`, what settled what it says ('search' or 'proof':
    the value, or a bound of it, by the prover), and the prover's nodes (0 where it did not
    run)."""
    proofs = settled.proofs
    return {**answer_json(spec, board, settled.answer), "method": settled.method,
            "prover_nodes": 0 if proofs is None else proofs.nodes}


def numbered_json(number: int, answer: dict[str, Any] | None = None,
                  error: str | None = None) -> dict[str, Any]:
    """One line of `solve --positions --json`: the line's number, then its `answer_json`
    object, or `error` (the one-line message) where the line named no position to solve."""
    return {"line": number, **(answer or {})} if error is None else {"line": number,
                                                                      "error": error}


def probe_json_many(spec: Spec, texts: Sequence[str], sides: Sequence[int],
                    value: Sequence[int], depth: Sequence[int], ply: Sequence[int]
                    ) -> list[dict[str, Any]]:
    """`probe_json` objects of many positions at once, from their texts, sides to move (0 x,
    1 o) and the arrays of `TableView.get_many` (value -1/0/1 for the side to move, depth,
    ply): a depth below 0 is a draw by endless play, which has none."""
    name, words = spec.name, {int(v): v.word for v in Value}
    return [{"spec": name, "board": text, "to_move": to_move_name(s), "ply": p,
             "value": words[v], "depth": None if d < 0 else d, "terminal": d == 0,
             "source": "table"} for text, s, v, d, p in zip(texts, sides, value, depth, ply)]


def moves_json(spec: Spec, board: Sequence[int], probe: Probe | Searched,
               moves: Sequence[MoveInfo | SearchedMove], table: Sequence[int] | None
               ) -> dict[str, Any]:
    """The `moves --json` object: the probe object (`answer_json`) plus every move, best first,
    and `table`, the root of the table that holds the position as board text (None: the whole
    board, or no table). A searched move's value is null until proved, with its bounds."""
    data = answer_json(spec, board, probe)
    data["moves"] = []
    for m in moves:
        value = m.value
        move = {"move": m.move, "value": None if value is None else value.word,
                "depth": m.depth, "best": m.best}
        if value is None:
            move["at_least"], move["at_most"] = m.low.word, m.high.word  # type: ignore[union-attr]
        if isinstance(m, MoveInfo):  # where stones move: the step's two cells
            move.update(grid_game(spec).move_fields(turns.of(m)))
        data["moves"].append(move)
    data["table"] = None if table is None else board_text(spec, table)
    return data


def line_json(spec: Spec, board: Sequence[int], probe: Probe | Searched,
              steps: Sequence[Step]) -> dict[str, Any]:
    """The `line --json` object: the probe object (`answer_json`'s, for a line by search) plus
    the perfect line, move by move (by search, it may stop short of the end when the time
    ran out: its last step's depth is then not 0); where stones move, `repeats` too: true when
    the line stops because its last position came back (a draw by endless play), false when
    it runs to the end of the game."""
    data = answer_json(spec, board, probe)
    data["line"] = [{"move": s.move, "player": s.player, "value": s.value.word,
                     "depth": s.depth, "board": board_text(spec, s.board)} for s in steps]
    if not grid_game(spec).draws_have_depth:  # positions repeat
        data["repeats"] = ends_in_a_repeat(probe)
    return data


def ends_in_a_repeat(probe: Probe | Searched) -> bool:
    """Whether a perfect line from a position with this answer stops because a position came
    back: a draw by endless play (a table's draw with no depth) never reaches an end."""
    return isinstance(probe, Probe) and probe.depth is None


def _ply_json(spec: Spec, ply: int) -> dict[str, Any]:
    """The key of a stored ply in counts by ply (the game's: `{"ply": stones}`, and where
    stones move the side to move too)."""
    return dict(grid_game(spec).ply_fields(ply))


def game_json(game: GameRecord, plies: Sequence[PlyCounts],
              tiers: Sequence[tuple[str, PlyCounts]] | None = None) -> dict[str, Any]:
    """The `info --json` object of one stored table and its counts per ply: `root` is the
    endgame table's root as board text, None for the whole-board table. A table of ranked
    tiers counts by tier instead (`tiers`, GameAnswers.tier_counts: `per_tier`)."""
    if tiers is not None:
        return {**_catalogue_json(game, game.root or None, None), "per_ply": [],
                "per_tier": [{"tier": name, "positions": p.canonical, "win": p.wins,
                              "draw": p.draws, "loss": p.losses, "lost_at_once": p.terminal}
                             for name, p in tiers]}
    if game.layout in GAME_LAYOUTS:  # a game class's: its root is a position's text
        return {**_catalogue_json(game, game.root or None, None),
                "per_ply": [{"ply": p.ply, "canonical": p.canonical, "win": p.wins,
                             "draw": p.draws, "loss": p.losses} for p in plies]}
    spec = parse_spec(game.spec)
    family = grid_game(spec)
    start = family.table_root(game.root).position
    root = board_text(spec, start) if game.root else None
    return {**_catalogue_json(game, root, family.side(start)),
            "per_ply": [{**_ply_json(spec, p.ply), "canonical": p.canonical, "win": p.wins,
                         "draw": p.draws, "loss": p.losses} for p in plies]}


def _catalogue_json(game: GameRecord, root: str | None, to_move: str | None) -> dict[str, Any]:
    """The catalogue row's part of `game_json`; `to_move` the side to move at the root (None
    for a game class's table: its positions' text names its side)."""
    return {
        "spec": game.spec,
        "root": root,
        "reachable": game.reachable,
        "canonical": game.canonical,
        "terminal": game.terminal,
        "to_move": to_move,
        "root_value": None if game.root_value is None else Value(game.root_value).word,
        "root_depth": game.root_plies,
        "checksum": game.checksum,
        "layout": game.layout,
        "stored_bytes": game.stored_bytes,
    }


def stats_json(spec: Spec, per_ply: Sequence[Sequence[int]],
               depths: dict[str, Sequence[int]]) -> dict[str, Any]:
    """The `/api/{spec}/stats` object, over stored (canonical) positions, values for the side to
    move: `per_ply` rows (loss, draw, win) indexed by stored ply, `depths` word -> counts by
    depth (where stones move, draws are by endless play and have no depth: null)."""
    endless = not grid_game(spec).draws_have_depth
    return {
        "spec": spec.name,
        "counted": "canonical positions (one per symmetry orbit); values for the side to move",
        "positions": int(sum(sum(row) for row in per_ply)),
        "per_ply": [{**_ply_json(spec, ply), "win": int(row[2]), "draw": int(row[1]),
                     "loss": int(row[0])} for ply, row in enumerate(per_ply)],
        "depth": {word: None if endless and word == Value.DRAW.word else
                  [int(n) for n in counts] for word, counts in depths.items()},
    }


def strategy_json(strategy: StrategyTree, max_nodes: int = DEFAULT_MAX_NODES) -> dict[str, Any]:
    """The `strategy --json` object; `tree` is included when `nodes` <= `max_nodes`."""
    s = strategy
    data: dict[str, Any] = {
        "spec": s.spec.name, "board": board_text(s.spec, s.board),
        "to_move": s.to_move, "side": s.side,
        "goal": s.goal.word, "nodes": s.nodes, "positions": s.positions, "depth": s.depth,
        "first_move": s.first_move}
    if s.nodes <= max_nodes:
        data["tree"] = s.tree()
    return data


def genmove_json(spec: Spec, board: Sequence[int], probe: Probe, level: int,
                 chosen: MoveInfo) -> dict[str, Any]:
    """The `genmove --json` object: the position, the level, and the move chosen with its value
    (for the player making it), the depth after it and whether it is a best move."""
    return {"spec": spec.name, "board": board_text(spec, board), "to_move": probe.to_move,
            "level": level, "move": chosen.move, "value": chosen.value.word,
            "depth": chosen.depth, "best": chosen.best}


def audit_json(report: AuditReport) -> dict[str, Any]:
    """The `audit --json` object: what was asked, the counts by kind, the first examples."""
    spec = parse_spec(report.spec)
    return {
        "spec": report.spec,
        "solver": report.solver,
        "selection": report.selection.option,
        "orientations": "all" if report.every_orientation else "random",
        "orientations_auto": report.orientations_auto,
        "asked": report.asked,
        "seed": report.seed,
        "check": report.check,
        "positions": report.positions,
        "boards": report.boards,
        "agreed": report.agreed,
        "mismatched": report.mismatched,
        "mismatched_positions": report.mismatched_positions,
        "mismatches": report.mismatches,
        "declined": report.declined,
        "gave_up": report.gave_up,
        "stopped_after": report.stopped_after,
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


def play_audit_json(report: PlayReport) -> dict[str, Any]:
    """The `audit --play --json` object: the games, the value-losing moves and the forfeits."""
    spec = parse_spec(report.spec)
    return {
        "spec": report.spec, "player": report.player, "games": report.games,
        "as": report.plays, "opponent": report.opponent, "seed": report.seed,
        "start": board_text(spec, report.start), "asked": report.asked,
        "moves_judged": report.moves_judged, "value_losing": report.lost,
        "value_losing_by_ply": {str(k): n for k, n in report.lost_by_ply.items()},
        "results": report.results, "ruled_draws": report.ruled_draws,
        "forfeits_by_kind": report.kinds,
        "seconds": round(report.seconds, 3), "restarts": report.restarts,
        "examples": [{
            "game": e.game, "ply": e.ply, "board": board_text(spec, e.board),
            "to_move": e.to_move, "move": e.move, "value": e.value.word, "depth": e.depth,
            "after_value": e.after_value.word, "after_depth": e.after_depth,
            "best_moves": list(e.best_moves), "refutation": list(e.refutation),
            "moves": list(e.moves)} for e in report.examples],
        "forfeits": [{"game": f.game, "ply": f.ply, "board": board_text(spec, f.board),
                      "to_move": f.to_move, "kind": f.kind, "said": f.said, "detail": f.detail}
                     for f in report.forfeits],
    }


def builtins_json(audits: Sequence[BuiltinAudit]) -> list[dict[str, Any]]:
    """The `--builtin --json` list: each solver's report object with `nodes` added."""
    return [{**audit_json(a.report), "nodes": a.nodes} for a in audits]


def verify_json(report: VerifyReport, table: Root, seconds: float) -> dict[str, Any]:
    """The `verify --json` object: positions checked, whether all is well, the problems by
    kind and the first of them (with the board where a code names one of `table`)."""
    spec = table.spec
    return {
        "spec": report.spec, "positions": report.positions, "ok": report.ok,
        "problems": report.problems, "by_kind": report.by_kind, "seconds": round(seconds, 3),
        "first": [{"kind": p.kind, "message": p.message, "code": p.code, "ply": p.ply,
                   "board": None if p.code is None or not p.picture else
                   board_text(spec, table.boards_of(np.array([p.code]))[0])}
                  for p in report.first]}


def course_json(report: CourseReport) -> dict[str, Any]:
    """The `audit --json` object of a course file: each case with its truth and verdicts."""
    def verdict(v: Any) -> dict[str, Any] | None:
        return None if v is None else {"said": v.said, "kind": v.kind, "detail": v.detail}

    def truth(t: Any) -> dict[str, Any] | None:
        return None if t is None else {"value": None if t.value is None else t.value.word,
                                       "depth": t.depth, "source": t.source, "proved": t.known}
    return {"spec": report.spec, "file": report.path, "solver": report.solver,
            "ok": report.ok, "seconds": round(report.seconds, 3), "notes": list(report.notes),
            "cases": [{"line": r.case.line, "id": r.case.id, "command": r.case.command,
                       "text": r.case.text, "spec": r.case.spec.name,
                       "board": board_text(r.case.spec, r.case.board),
                       "timelimit": r.case.timelimit, "pattern": r.case.pattern,
                       "truth": truth(r.truth),
                       "solver": verdict(r.solver),
                       "expected": [verdict(v) for v in r.expected],
                       "known_failure": r.case.known_failure}
                      for r in report.results]}

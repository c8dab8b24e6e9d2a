"""Audit by play: a player (a GTP engine, or a function) plays whole games against the table, from
the empty board or a given start, and every move it makes is judged: does it keep the value its
position had? This is how programs that cannot be put into a position are audited.

The table plays the other side: perfectly (a random best move), at random, or at `level:L`
(a best move with probability L/10, else a random one). Each game is seeded from `seed`. Where
stones move (`+stonesN`), moves are placements, then steps `a1-b2`, and a game that repeats is a
draw by the rules of play (query/turns.py: a position's third time, or turns.PLY_LIMIT plies).
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tablebase.builder.games.errors import IllegalMoveError, NotationError
from tablebase.builder.games.grid import Spec, Value
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.games.registry import grid_game
from tablebase.builder.progress import NO_PROGRESS, ProgressFactory
from tablebase.query import turns
from tablebase.query.audit.candidates import Candidate, Reply
from tablebase.query.errors import AuditInputError
from tablebase.query.tablebase import Tablebase

SIDES = ("x", "o", "both")
RESULTS = ("win", "draw", "loss", "forfeit")


@dataclass(frozen=True)
class Opponent:
    """How the table plays: 'perfect', 'random', or 'level' (a best move with probability
    `level`/10, else a random legal move)."""

    kind: str = "perfect"
    level: int = 10

    def __str__(self) -> str:
        return f"level:{self.level}" if self.kind == "level" else self.kind

    def choose(self, tb: Tablebase, spec: Spec, board: tuple[int, ...], rng: random.Random) -> str:
        """The table's move on `board` (a move name)."""
        perfect = self.kind == "perfect" or (self.kind == "level" and rng.random() < self.level / 10)
        moves = tb.best_moves(spec, board) if perfect else tb.moves(spec, board)
        return rng.choice(moves).move


def parse_opponent(text: str | None) -> Opponent:
    """The Opponent `--opponent` names: perfect (the default), random or level:L (L from 0 to 10)."""
    cleaned = (text or "perfect").strip().lower()
    if cleaned in ("perfect", "random"):
        return Opponent(cleaned)
    kind, _, number = cleaned.partition(":")
    if kind == "level" and number.isdigit() and int(number) <= 10:
        return Opponent("level", int(number))
    raise AuditInputError(f"cannot read --opponent {text!r}: expected perfect, random or level:L"
                          " with L from 0 (random) to 10 (perfect)")


@dataclass(frozen=True)
class LostValue:
    """One move of the player's that threw value away (values for the player, `to_move`).

    `value`/`depth` are its position's before the move, `after_value`/`after_depth` what the move
    gives (a depth None: a draw by endless play); `refutation` starts with the move and goes on
    with the table's perfect line, ending in `after_value`. `game` counts from 1; `moves` are the
    game's moves before this one.
    """

    game: int
    ply: int
    board: tuple[int, ...]
    to_move: str
    move: str
    value: Value
    depth: int | None
    after_value: Value
    after_depth: int | None
    best_moves: tuple[str, ...]
    refutation: tuple[str, ...]
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Forfeit:
    """A turn where the player gave no legal move (the game is then over): `kind` is a mismatch
    kind (illegal-move, exception, timeout, crash, bad-answer), `detail` what went wrong."""

    game: int
    ply: int
    board: tuple[int, ...]
    to_move: str
    kind: str
    said: str
    detail: str


@dataclass(frozen=True)
class PlayReport:
    """The outcome of an audit by play. `results` counts the player's games by outcome (win, draw,
    loss, or forfeit: it gave no legal move); `lost_by_ply` counts value-losing moves by the stones
    on the board before them; `examples` are the first value-losing moves, in play order;
    `ruled_draws` counts the games declared drawn by the rules of play (query/turns.py)."""

    spec: str
    player: str
    games: int
    plays: str
    opponent: str
    seed: int
    start: tuple[int, ...]
    moves_judged: int
    lost: int
    lost_by_ply: dict[int, int]
    results: dict[str, int]
    examples: tuple[LostValue, ...]
    forfeits: tuple[Forfeit, ...]
    seconds: float
    restarts: int = 0
    asked: str | None = None
    kinds: dict[str, int] = field(default_factory=dict)
    ruled_draws: int = 0

    @property
    def ok(self) -> bool:
        """Whether every move the player made kept its position's value."""
        return self.lost == 0 and not self.forfeits


def play_audit(tb: Tablebase, spec: Spec | str, candidate: Candidate, games: int, *,
               opponent: Opponent = Opponent(), plays: str = "both", seed: int = 0,
               start: Sequence[int] | None = None, max_examples: int = 10,
               progress: ProgressFactory = NO_PROGRESS) -> PlayReport:
    """Play `games` games of `spec` from `start` (default: the empty board), `candidate` playing
    `plays` ('x', 'o' or 'both': x in the odd-numbered games, o in the even ones) and the table
    the other side as `opponent` says; judge each of the candidate's moves by the value it keeps.

    A candidate with `begin_game`/`tell`/`next_move` (a GTP engine) plays on its own board;
    any other is asked `ask(spec, board)` each turn and its move is used.
    """
    spec = tb.spec(spec)
    if games < 1:
        raise AuditInputError(f"--play needs at least one game, found {games}")
    if plays not in SIDES:
        raise AuditInputError(f"--as {plays!r}: expected x, o or both")
    engine = getattr(candidate, "engine", None)
    if engine is not None and engine.commands is not None and "genmove" not in engine.commands:
        raise AuditInputError(f"engine {candidate.label!r} does not list 'genmove', which --play"
                              " asks for")
    root = tuple(start) if start is not None else grid_game(spec).start()
    if tb.probe(spec, root).terminal:
        raise AuditInputError(f"the start {board_text(spec, root)!r} is a finished game")
    started = time.perf_counter()
    rng = random.Random(seed)
    results = dict.fromkeys(RESULTS, 0)
    lost_by_ply: dict[int, int] = {}
    kinds: dict[str, int] = {}
    examples: list[LostValue] = []
    forfeits: list[Forfeit] = []
    judged = ruled = 0
    with progress(total=games, desc=f"play {candidate.label}", unit="game") as bar:
        for game in range(1, games + 1):
            side = plays if plays != "both" else ("x" if game % 2 == 1 else "o")
            outcome, lost = _one_game(tb, spec, candidate, root, side, opponent, rng, game,
                                      examples, forfeits, max_examples)
            ruled += outcome == "ruled"
            results["draw" if outcome == "ruled" else outcome] += 1
            judged += len(lost)
            for ply, kind in lost:
                if kind == "value":
                    lost_by_ply[ply] = lost_by_ply.get(ply, 0) + 1
                elif kind != "kept":
                    kinds[kind] = kinds.get(kind, 0) + 1
            bar.update(1)
    return PlayReport(
        spec=spec.name, player=candidate.label, games=games, plays=plays, opponent=str(opponent),
        seed=seed, start=root, moves_judged=judged, lost=sum(lost_by_ply.values()),
        lost_by_ply=dict(sorted(lost_by_ply.items())), results=results, examples=tuple(examples),
        forfeits=tuple(forfeits[:max_examples]), seconds=time.perf_counter() - started,
        restarts=candidate.restarts,
        asked=engine.describe(play=True) if engine is not None else None, kinds=kinds,
        ruled_draws=ruled)


def _one_game(tb: Tablebase, spec: Spec, candidate: Any, root: tuple[int, ...], side: str,
              opponent: Opponent, rng: random.Random, game: int, examples: list[LostValue],
              forfeits: list[Forfeit], limit: int) -> tuple[str, list[tuple[int, str]]]:
    """Play one game; its result for the candidate ('ruled': a draw by the rules of play), and
    (stones, 'kept'|'value'|kind) per move."""
    own_board = hasattr(candidate, "begin_game")
    judged: list[tuple[int, str]] = []
    board, names = root, []
    history = [root]

    def forfeit(kind: str, said: str, detail: str) -> tuple[str, list[tuple[int, str]]]:
        forfeits.append(Forfeit(game, grid_game(spec).on_board(board), board, side, kind, said, detail))
        judged.append((grid_game(spec).on_board(board), kind))
        return "forfeit", judged

    if own_board:
        failure = candidate.begin_game(spec, root)
        if failure is not None:
            return forfeit(failure.kind, "", failure.message)
    while True:
        probe = tb.probe(spec, board)
        if probe.terminal:
            break
        if turns.drawn_by_play(history) is not None:
            return "ruled", judged
        if probe.to_move != side:
            told = opponent.choose(tb, spec, board, rng)
            if own_board and (failure := candidate.tell(probe.to_move, told)) is not None:
                return forfeit(failure.kind, "", failure.message)
            board = grid_game(spec).played(board, grid_game(spec).read_move(board, told))
            history.append(board)
            names.append(told)
            continue
        reply: Reply = candidate.next_move(board) if own_board else candidate.ask(spec, board)
        if reply.failure is not None:
            return forfeit(reply.failure.kind, reply.said, reply.failure.message)
        if reply.move is None:
            return forfeit("illegal-move", reply.said, "gave no move, but the game is not over")
        try:
            move = grid_game(spec).read_move(board, reply.move)
        except (NotationError, IllegalMoveError) as e:
            return forfeit("illegal-move", reply.said, str(e))
        child = grid_game(spec).played(board, move)
        after = tb.probe(spec, child)
        after_value = Value(-after.value)
        name = grid_game(spec).name(move)
        if after_value != probe.value:
            judged.append((probe.ply, "value"))
            if len(examples) < limit:
                examples.append(LostValue(
                    game, probe.ply, board, side, name, probe.value, probe.depth, after_value,
                    None if after.depth is None else after.depth + 1,
                    tuple(m.move for m in tb.best_moves(spec, board)),
                    (name,) + tuple(s.move for s in tb.line(spec, child)), tuple(names)))
        else:
            judged.append((probe.ply, "kept"))
        board = child
        history.append(board)
        names.append(name)
    final = tb.probe(spec, board)
    value = final.value if final.to_move == side else Value(-final.value)
    return {Value.WIN: "win", Value.DRAW: "draw", Value.LOSS: "loss"}[value], judged


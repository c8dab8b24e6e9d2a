"""The solvers an audit can ask, and reading what they answer: a Python function (here, or in a
worker process), a textbook solver, or an external program over GTP. Each answers one board at a
time, in the board's own orientation, with a `Reply`.

What a solver may answer for a board and the side to move (always for the side to move):

    value                    1, 0, -1 or 'win', 'draw', 'loss'        allows the check: value
    (value, move)            move: its name such as 'b2', or None     allows: value, move
    (value, move, depth)     depth: plies to the end, perfect play    allows: value, move, depth
    move, or (None, move)    a player's answer: a move and no value   allows: move

Where stones move (`+stonesN`), a function is shown the board text alone (`xo./.xo/x.o`) and
the side to move apart, as every other function is, and its moves may be steps (`a1-b2`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from numbers import Real
from operator import index
from typing import Any, Protocol

from tablebase.builder.games.errors import InvalidPositionError, SearchLimitError
from tablebase.builder.games.grid import Spec, Value
from tablebase.builder.games.grid.notation import board_text, move_name
from tablebase.builder.games.grid.orders import stone_order
from tablebase.builder.games.registry import grid_game
from tablebase.query.audit.gtp_client import GtpEngine
from tablebase.query.audit.processes import EngineAnswer, Failure, describe_exception
from tablebase.query.audit.solvers import SOLVERS, SearchTooLargeError
from tablebase.query.audit.worker import FunctionWorker, takes_spec
from tablebase.query.errors import AuditInputError
from tablebase.query.wording import plies

DEFAULT_TIMEOUT = 10.0
BUILTIN_PREFIX = "builtin:"


@dataclass(frozen=True)
class Reply:
    """A solver's answer for one board, read but not yet judged; values are for the side to move.

    `said` is the answer in the solver's own words (a function's return value, an engine's
    response line; empty when there was none). A move-only answer (a player's) has no `value`;
    its `move` may be None, which is right only where the game is over. `failure` is set when
    there is no readable answer, `declined` when a textbook solver refuses the board as too large
    for it (the board is then skipped).
    """

    said: str
    value: Value | None = None
    move: str | None = None
    depth: int | None = None
    failure: Failure | None = None
    declined: str | None = None
    gave_up: bool = False  # an engine's '= unknown': it claims nothing either way

    @property
    def move_only(self) -> bool:
        """Whether this is a player's answer: a move (or no move) and no value."""
        return (self.value is None and self.failure is None and self.declined is None
                and not self.gave_up)

    @property
    def allows(self) -> tuple[str, ...]:
        """The checks this answer's shape allows: value, move and depth, each when given (a
        move-only answer always allows the move check: no move is a claim too)."""
        return ((("value",) if self.value is not None else ())
                + (("move",) if self.move is not None or self.move_only else ())
                + (("depth",) if self.depth is not None else ()))

    @property
    def shape(self) -> str:
        """'value', 'value, move', 'value, move, depth', 'value, depth', 'move' or 'move, depth'."""
        return ", ".join(self.allows)


def _short(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 80 else text[:77] + "..."


def _bad(said: str, message: str) -> Reply:
    return Reply(said, failure=Failure("bad-answer", message))


_VALUE_NEEDED = "the value must be 1, 0, -1 (1.0, 0.0, -1.0 too) or 'win', 'draw', 'loss' (for" \
                " the side to move); a player answers a move name alone, such as 'b2'"
# A string that can be a move name (column letters, then a row number, or a column alone).
_MOVE_LIKE = re.compile(r"[A-Za-z]{1,3}\d{0,4}")


def read_return(raw: object) -> Reply:
    """Read what a solver function returned: a value, (value, move), (value, move, depth), or a
    player's move alone: a move name, None (no move), (None, move) or (None, move, depth).

    A value is 1, 0, -1 (integral floats too) or 'win', 'draw', 'loss' for the side to move; a
    move is its name such as 'b2' (or None); a depth is a whole number of plies. Anything else is
    a 'bad-answer'.
    """
    said = _short(raw)
    if raw is None:
        return Reply(said)  # a player with no move: right only where the game is over
    if isinstance(raw, str) and _MOVE_LIKE.fullmatch(raw.strip()) and raw.strip().lower() not in (
            "win", "draw", "loss"):
        return Reply(said, move=raw.strip())
    parts = tuple(raw) if isinstance(raw, (tuple, list)) else (raw,)
    if isinstance(raw, (tuple, list)) and len(parts) not in (2, 3):
        return _bad(said, f"returned {said}: a tuple must be (value, move) or (value, move, depth)")
    value = _read_value(parts[0])
    if value is None and not (parts[0] is None and len(parts) > 1):
        return _bad(said, f"returned {said}: {_VALUE_NEEDED}")
    move = parts[1] if len(parts) > 1 else None
    if move is not None and not isinstance(move, str):
        return _bad(said, f"returned {said}: the move must be its name such as 'b2' (or None),"
                          f" found {type(move).__name__} {move!r}")
    if isinstance(move, str) and not move.strip():
        move = None
    depth = parts[2] if len(parts) > 2 else None
    if depth is not None:
        depth = _whole(depth)
        if depth is None or depth < 0:
            return _bad(said, f"returned {said}: the depth must be a whole number of plies (or None)")
    return Reply(said, value, move.strip() if move else None, depth)


def _whole(raw: object) -> int | None:
    """An int, or an integral float as an int (OpenSpiel returns floats); None for anything else."""
    if isinstance(raw, bool):
        return None  # True == 1, but a solver that says True has not said "win"
    try:
        return index(raw)  # type: ignore[arg-type]  # anything: TypeError says it is no int
    except TypeError:
        pass
    if isinstance(raw, Real):  # float, numpy's float32 and float64
        number = float(raw)
        return int(number) if number.is_integer() else None
    return None


def _read_value(raw: object) -> Value | None:
    if isinstance(raw, str):
        word = raw.strip().lower()
        return Value.from_word(word) if word in ("win", "draw", "loss") else None
    number = _whole(raw)
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
            raw = self.function(shown_board(spec, board), to_move(spec, board), **extra)
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
        answer = self.worker.call(shown_board(spec, board), to_move(spec, board), spec.name)
        if isinstance(answer, Failure):
            return Reply("", failure=answer)
        return read_return(answer.value)


class BuiltinCandidate:
    """A textbook solver from solvers/, called in this process on the board's cell values.
    Boards it refuses as too large for it are declined (skipped), not mismatched."""

    def __init__(self, name: str, spec: Spec | None = None) -> None:
        if spec is not None:
            refuse_unsearchable_builtins(spec)
        if name not in SOLVERS:
            raise AuditInputError(
                f"no textbook solver named {name!r}; known: {', '.join(SOLVERS)} (or all)")
        self.name = name
        self.solve = SOLVERS[name]
        self.label = f"{BUILTIN_PREFIX}{name}"
        self.restarts = 0
        # Nodes each board's solve visited: every solver here is deterministic (a fresh table
        # each solve), so the count of the empty board is read here when the audit asked it.
        self.nodes: dict[tuple[int, ...], int] = {}

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply:
        try:
            result = self.solve(spec, board)
        except SearchTooLargeError as e:
            return Reply("declined", declined=str(e))
        self.nodes[board] = result.nodes
        move = None if result.move is None else move_name(spec, result.move)
        said = ", ".join([result.value.word] + ([move] if move else []) + (
            [plies(result.depth)] if result.depth is not None else []))
        return Reply(said, result.value, move, result.depth)


class EngineCandidate:
    """An external program over GTP; each board is set up by a move order that reaches it (see
    moves_to), then the engine is asked `solve`, or `genmove` if it cannot solve."""

    def __init__(self, engine: GtpEngine) -> None:
        self.engine = engine
        self.label = engine.command

    @property
    def restarts(self) -> int:
        return self.engine.restarts

    def ask(self, spec: Spec, board: tuple[int, ...]) -> Reply:
        switched = self.engine.set_game(spec)  # a course file's boardsize changes the game
        if isinstance(switched, Failure):
            return Reply("", failure=switched)
        played = _played(spec, board)
        if self.engine.asks == "genmove":
            answer = self.engine.genmove(played, to_move(spec, board))
        else:
            answer = self.engine.solve(played)
        if isinstance(answer, Failure):
            return Reply("", failure=answer)
        return read_engine_answer(answer, to_move(spec, board))

    def play_test(self, spec: Spec, board: tuple[int, ...], cell: int) -> str | Failure:
        """Set up `board` and play `cell` for the side to move (a course file's `play` with an
        expected answer): the engine's answer to that play, or a Failure."""
        switched = self.engine.set_game(spec)
        if isinstance(switched, Failure):
            return switched
        d = self.engine.dialect
        move = f"play {d.colour(to_move(spec, board))} {d.move_out(move_name(spec, cell))}"
        return self.engine.send([*self.engine.setup(_played(spec, board)), move])

    # A whole game on the engine's own board, for audit by play: set up once, then the
    # opponent's moves are told and the engine's are asked with `genmove`.

    def begin_game(self, spec: Spec, board: tuple[int, ...]) -> Failure | None:
        """Clear the engine's board and play the moves that reach `board` (the game's start)."""
        return self.engine.new_game(_played(spec, board))

    def tell(self, player: str, move: str) -> Failure | None:
        """Play the opponent's move on the engine's board."""
        return self.engine.tell(player, move)

    def next_move(self, board: tuple[int, ...]) -> Reply:
        """The engine's move on its own board (which must be `board`), asked with `genmove`."""
        side = to_move(self.engine.spec, board)
        answer = self.engine.genmove(None, side)
        if isinstance(answer, Failure):
            return Reply("", failure=answer)
        return read_engine_answer(answer, side)


def read_engine_answer(answer: EngineAnswer, to_move: str) -> Reply:
    """An engine's `= x b2` read as a value for the side to move `to_move`, and its move; a
    `genmove` answer (no winner) as a move-only reply."""
    if answer.winner is None:
        return Reply(answer.text, move=answer.move)
    if answer.winner == "unknown":
        return Reply(answer.text, failure=Failure("unknown", "answered '= unknown'"),
                     gave_up=True)
    value = (Value.DRAW if answer.winner == "draw"
             else Value.WIN if answer.winner == to_move else Value.LOSS)
    return Reply(answer.text, value, answer.move)


def moves_to(spec: Spec, board: tuple[int, ...]) -> list[int]:
    """Cells to play from the empty board, x first, that reach `board` with every move legal
    (builder.game.orders); AuditInputError when no order reaches it."""
    try:
        order = stone_order(spec, board)
    except SearchLimitError as e:
        raise AuditInputError(f"{board_text(spec, board)!r}: {e}") from None
    if order is None:
        raise AuditInputError(f"no order of moves reaches {board_text(spec, board)!r}")
    return order


def _played(spec: Spec, board: tuple[int, ...]) -> list[tuple[str, str]]:
    """(player, move name) pairs from the empty board, x first, that reach `board` (a
    position: where stones move, placements then steps `a1-b2`)."""
    game = grid_game(spec)
    try:
        moves = game.moves_reaching(board)
    except SearchLimitError as e:
        raise AuditInputError(f"{board_text(spec, board)!r}: {e}") from None
    except InvalidPositionError as e:
        raise AuditInputError(str(e)) from None
    current, played = game.start(), []
    for move in moves:
        played.append((game.side(current), game.name(move)))
        current = game.played(current, move)
    return played


def to_move(spec: Spec, board: Sequence[int]) -> str:
    """The side to move of a position, 'x' or 'o'."""
    return grid_game(spec).side(board)


def shown_board(spec: Spec, board: Sequence[int]) -> str:
    """A position as a solver function is shown it: board text alone (the side to move is
    passed apart, also where stones move and the text would carry it)."""
    return board_text(spec, board[:spec.cells])


def refuse_unsearchable_builtins(spec: Spec) -> None:
    """AuditInputError for the textbook solvers on a game whose stones move: they search games
    that end within their cells, and positions that repeat would send them round forever."""
    if grid_game(spec).positions_repeat:
        raise AuditInputError(
            f"the textbook solvers search games that end when the board is full; in"
            f" {spec.name} stones move and positions repeat, which they cannot search: audit"
            " your own solver with --solver MODULE:FUNCTION or --engine")


@contextmanager
def open_candidate(target: str, spec: Spec, *, directory: str = ".",
                   timeout: float = DEFAULT_TIMEOUT) -> Iterator[Candidate]:
    """The solver named `MODULE:FUNCTION` (run in a worker process, `directory` first on its import
    path) or `builtin:NAME` (a textbook solver), as a context manager.

    Raises SolverImportError (a QueryError) when the module or function cannot be loaded.
    """
    if target.startswith(BUILTIN_PREFIX):
        yield BuiltinCandidate(target[len(BUILTIN_PREFIX):], spec)
        return
    with FunctionWorker(target, spec, directory, _positive(timeout)) as worker:
        yield ProcessCandidate(worker)


@contextmanager
def open_gtp_engine(command: str, spec: Spec, *, timeout: float = DEFAULT_TIMEOUT,
                    directory: str | None = None, dialect: str = "auto") -> Iterator[EngineCandidate]:
    """An external program speaking GTP in `dialect` ('plain', 'course' or 'auto'; see
    gtp_client.py), as a context manager; raises EngineError when it cannot be started or does
    not play `spec`."""
    with GtpEngine(command, spec, _positive(timeout), directory, dialect) as engine:
        yield EngineCandidate(engine)


def _positive(timeout: float) -> float:
    if not timeout > 0:
        raise AuditInputError(f"the timeout must be a positive number of seconds, found {timeout}")
    return timeout

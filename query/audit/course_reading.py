"""Reading a course test file as gogui-regress and the course's engines read it: GTP commands,
each optionally numbered, and after any of them a `#? [...]` line with the answer expected.

    00 timelimit 1          the engine's seconds a question, for the questions that follow
    #?[]                    after any command: here, the empty answer (timelimit succeeds)
    boardsize 5             a new N x N game (spec NxNkK, K the game's): the board cleared
    play b C3               black (x) moves first; GTP points: columns A.. skipping I, rows
    play w D4                 from 1 at the bottom
    160 solve               a question about the board as it stands
    #?[unknown|draw C2]*    alternatives split by |; a trailing * marks a known failure

As gogui-regress does, an expectation belongs to the command on the line just before it (a
blank or a comment between them is an error), `[` and `]` must both be there, and the text
between them is what the command must answer (`[]`: nothing, which is what `boardsize`,
`clear_board`, `play` and `timelimit` answer when they succeed). Commands the course's engines
know but that neither set the board up nor ask about it (`name`, `showboard`, ...) are passed
over; any other command is an error naming its line, as is a move that cannot be played.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace

from tablebase.builder.games.grid import InvalidSpecError, Spec, outcome
from tablebase.builder.games.grid.boards import place
from tablebase.query.audit.dialects import GTP_COLUMNS, Dialect
from tablebase.query.errors import AuditInputError

# The questions: each is a case, judged on the board as it stands.
QUESTIONS = ("solve", "genmove")
# Commands that set the game, the board or the engine's time; each answers nothing when it
# succeeds. One followed by an expectation is a case too.
SETTINGS = ("boardsize", "clear_board", "play", "timelimit", "komi")
# Commands the course's engines know that neither set the board up nor ask about it.
PASSED_OVER = ("protocol_version", "name", "version", "known_command", "list_commands",
               "showboard", "cpu_time", "legal_moves", "gogui-analyze_commands", "gogui-rules_game_id",
               "gogui-rules_board", "gogui-rules_board_size", "gogui-rules_legal_moves",
               "gogui-rules_side_to_move", "gogui-rules_final_result", "quit")
# What marks a file as GTP commands rather than one position a line.
_MARKERS = ("boardsize", "clear_board", "play", "solve", "genmove")
# How the course writes players (b, w) and points (D4).
COURSE = Dialect("course")
# The seconds a question a course engine has until a timelimit says otherwise (the course's
# assignment fixes it).
DEFAULT_TIMELIMIT = 1


@dataclass(frozen=True)
class CourseCase:
    """One command of a file the audit judges: a question (`solve`, `genmove`), or another
    command that an expectation follows. `text` is the command as written (its number, `id`,
    apart); `spec` and `board` the game and board after it; `timelimit` the file's seconds a
    question then in force. `pattern` is the text between the brackets (None:
    no expectation), `expected` its alternatives split by `|`. A `play` keeps its `cell`."""

    line: int
    command: str
    spec: Spec
    board: tuple[int, ...]
    text: str = ""
    id: str | None = None
    pattern: str | None = None
    expected: tuple[str, ...] = ()
    known_failure: bool = False
    timelimit: int = DEFAULT_TIMELIMIT
    cell: int | None = None

    @property
    def question(self) -> bool:
        """Whether this asks about the board (solve, genmove) rather than sets something up."""
        return self.command in QUESTIONS


def is_course_file(path: str) -> bool:
    """Whether the file at `path` reads as GTP commands (a play, solve, genmove, clear_board or
    boardsize line) rather than one position a line."""
    try:
        with open(path, encoding="utf-8") as f:
            return any(_words(line)[1] in _MARKERS for line in f)
    except (OSError, UnicodeDecodeError):
        return False  # listed_codes says why it cannot be read


def _words(line: str) -> tuple[str | None, str, list[str]]:
    """(GTP id, command, arguments) of a command line; a comment after '#' dropped."""
    words = line.split("#", 1)[0].split()
    number = words.pop(0) if words and words[0].isdigit() else None
    return (number, words[0].lower(), words[1:]) if words else (number, "", [])


def read_course_file(spec: Spec, path: str) -> list[CourseCase]:
    """The cases of the course file at `path`, its game `spec` until a `boardsize` changes it;
    AuditInputError naming the line that cannot be followed."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise AuditInputError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    board: tuple[int, ...] = (0,) * spec.cells
    timelimit = DEFAULT_TIMELIMIT
    cases: list[CourseCase] = []
    last: CourseCase | None = None  # the command on the line just before, if any
    for number, raw in enumerate(lines, 1):
        line, where = raw.strip(), f"{path} line {number}"
        if line.startswith("#?"):
            if last is None:
                raise AuditInputError(f"{where}: the expectation {_shown(line)} follows no"
                                      " command (gogui-regress takes the command on the line"
                                      " just before it)")
            expecting = _expectation(line, where, last)
            if last.question:
                cases[-1] = expecting
            else:
                cases.append(expecting)
            last = None
            continue
        last = None
        if not line or line.startswith("#"):
            continue
        gtp_id, command, args = _words(line)
        if not command:
            raise AuditInputError(f"{where}: a number with no command")
        cell = None
        if command == "boardsize":
            spec = _resized(spec, args, where)
            board = (0,) * spec.cells
        elif command == "clear_board":
            board = (0,) * spec.cells
        elif command == "play":
            cell = _played(spec, board, args, where)
            board = place(board, cell)
        elif command == "timelimit":
            timelimit = _seconds(args, where)
        elif command == "genmove":
            _check_colour(board, args, where, "genmove")
        elif command not in QUESTIONS + SETTINGS + PASSED_OVER:
            raise AuditInputError(f"{where}: unknown command '{command}'{_did_you_mean(command)}")
        text = " ".join([command, *args])
        last = CourseCase(number, command, spec, board, text, gtp_id, timelimit=timelimit,
                          cell=cell)
        if last.question:
            cases.append(last)
    if not cases:
        raise AuditInputError(f"{path} has no solve or genmove command, and no expectation, to"
                              " audit")
    return cases


def _expectation(line: str, where: str, case: CourseCase) -> CourseCase:
    """`case` with the expectation of a `#?` line, read as gogui-regress reads it."""
    pattern = line[2:].strip()
    if not pattern:
        return case  # gogui-regress: a test with nothing expected
    known_failure = pattern.endswith("*")
    pattern = pattern[:-1].rstrip() if known_failure else pattern
    if not pattern.startswith("["):
        raise AuditInputError(f"{where}: the expectation {_shown(line)} has no opening '['")
    if not pattern.endswith("]"):
        raise AuditInputError(f"{where}: the expectation {_shown(line)} is not closed by ']'")
    inside = pattern[1:-1].strip()
    alternatives = tuple(a.strip() for a in inside.split("|") if a.strip())
    return replace(case, pattern=inside, expected=alternatives, known_failure=known_failure)


def _resized(spec: Spec, args: list[str], where: str) -> Spec:
    """The N x N game of `boardsize N`, k and rules as `spec`'s."""
    if len(args) != 1 or not args[0].isdigit():
        raise AuditInputError(f"{where}: expected 'boardsize N', found"
                              f" 'boardsize {' '.join(args)}'")
    size = int(args[0])
    if not 1 <= size <= len(GTP_COLUMNS):
        raise AuditInputError(f"{where}: boardsize {size}: GTP points name 1 to"
                              f" {len(GTP_COLUMNS)} columns (A to Z, skipping I)")
    try:
        return replace(spec, width=size, height=size)  # the same rules on the new board
    except InvalidSpecError as e:
        raise AuditInputError(f"{where}: boardsize {size} in a game of {spec.k} in a row: {e}") \
            from None


def _seconds(args: list[str], where: str) -> int:
    if len(args) != 1 or not args[0].isdigit():
        raise AuditInputError(f"{where}: expected 'timelimit SECONDS' (a whole number), found"
                              f" 'timelimit {' '.join(args)}'")
    return int(args[0])


def _played(spec: Spec, board: tuple[int, ...], args: list[str], where: str) -> int:
    """The cell of `play COLOUR POINT`; the colour must be the side to move."""
    if len(args) != 2 or COURSE.player(args[0]) is None:
        raise AuditInputError(f"{where}: expected 'play b|w POINT', found 'play {' '.join(args)}'")
    _check_colour(board, args, where, "play")
    reason = point_fault(spec, board, args[1])
    if reason is not None:
        raise AuditInputError(f"{where}: play {args[0]} {args[1]}: {reason}")
    cell = point(spec, args[1])
    assert cell is not None  # point_fault said it reads
    return cell


def _check_colour(board: tuple[int, ...], args: list[str], where: str, command: str) -> None:
    """The colour named first in `args` must be the side to move."""
    to_move = "xo"[sum(1 for v in board if v) % 2]
    if not args or COURSE.player(args[0]) is None:
        raise AuditInputError(f"{where}: expected '{command} b|w ...', found"
                              f" '{command} {' '.join(args)}'")
    if COURSE.player(args[0]) != to_move:
        said = f"{args[0]} plays" if command == "play" else f"genmove {args[0]}"
        raise AuditInputError(f"{where}: {said}, but {COURSE.colour(to_move)} is to play (black"
                              " first, then in turn)")


def point(spec: Spec, written: str) -> int | None:
    """The cell of a GTP point such as D4 on `spec`'s board (None: it names no cell of it)."""
    m = re.fullmatch(r"([A-Za-z])(\d{1,3})", written.strip())
    if m is None or m.group(1).upper() not in GTP_COLUMNS:
        return None
    col, row = GTP_COLUMNS.index(m.group(1).upper()), int(m.group(2))
    if col >= spec.width or not 1 <= row <= spec.height:
        return None
    return (spec.height - row) * spec.width + col


def point_fault(spec: Spec, board: tuple[int, ...], written: str) -> str | None:
    """Why the point `written` cannot be played on `board`, naming it as written (None: it
    can)."""
    cell = point(spec, written)
    if cell is None:
        return (f"{written} is no point of the {spec.width}x{spec.height} board (columns A to"
                f" {GTP_COLUMNS[spec.width - 1]}, skipping I; rows 1 to {spec.height})")
    if board[cell]:
        return f"{written} is taken (by {COURSE.colour('xo'[board[cell] - 1])})"
    if outcome(spec, board) is not None:
        return f"{written} comes after the end of the game"
    return None


def _did_you_mean(command: str) -> str:
    close = difflib.get_close_matches(command, QUESTIONS + SETTINGS + PASSED_OVER, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def _shown(line: str) -> str:
    return repr(line if len(line) <= 40 else line[:37] + "...")

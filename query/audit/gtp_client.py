"""An external program spoken to in GTP, line by line, in one of two dialects: the plain one
(`x`/`o`, our move names, `set_game SPEC`) and the course one (`b`/`w`, GTP coordinates,
`boardsize N`). `GtpEngine` starts it, finds out what it can answer (`solve`, or only
`genmove`), and kills and restarts it when it crashes, hangs or answers nonsense.

    plain dialect                           course dialect (black = x, moves first)
    -> boardsize 3 3     width, height      -> boardsize 3        an N x N board
    -> set_game 3x3k3    the whole spec     -> timelimit 9        seconds, 1 to 100
    -> clear_board                          -> clear_board
    -> play x b2                            -> play b B2          columns A.. skipping I,
    -> solve                                -> solve              rows from 1 at the bottom
    <- = x b2   (or = o, = draw, = unknown) <- = b B2   (or = w, = draw, = unknown)
    -> genmove o                            -> genmove w
    <- = a1                                 <- = A1

Every response starts with '=' or '?' and ends with a blank line. `--dialect auto` sends
`list_commands` first: a list naming `set_game` means plain, any other list means course, and an
engine that does not know `list_commands` gets the plain dialect (what this client always spoke).
"""
from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence

from tablebase.builder.games.grid import Spec
from tablebase.query.audit.dialects import DIALECTS, Dialect
from tablebase.query.audit.processes import (
    QUIT_GRACE,
    STARTUP_GRACE,
    EngineAnswer,
    EngineStartError,
    Failure,
    GameRefusedError,
    keep_nonblank,
    pump_lines,
    start_failure,
)

# Seconds to wait, after an unreadable answer, for a second response that would show the engine
# answering out of step (one response too many to an earlier command).
STRAY_WAIT = 0.2


def _shown(line: str) -> str:
    """A line of the engine's, cut to fit in a message."""
    return line if len(line) <= 60 else line[:57] + "..."


class GtpEngine:
    """An external program started from `command` (split as a shell would, run without one),
    told the game in `dialect` ('plain', 'course' or 'auto'), and asked `solve` or `genmove`.

    `asks` is 'solve' when the engine lists (or knows) `solve`, else 'genmove'. Each exchange waits
    at most `timeout` seconds; an engine that exits, hangs or answers nonsense is killed and started
    again, and the request comes back as a Failure. Raises EngineStartError when the program cannot
    be started, breaks the handshake or answers neither question, and GameRefusedError when it
    answers '?' to the commands that set the game.
    """

    def __init__(self, command: str, spec: Spec, timeout: float, directory: str | None = None,
                 dialect: str = "auto") -> None:
        if dialect not in DIALECTS:
            raise EngineStartError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
        self.command = command
        self.spec = spec
        self.timeout = timeout
        self.directory = directory
        self.restarts = 0
        self.timelimit: int | None = None  # the seconds asked for (a course file's); None: all
        self.requested = dialect
        self.dialect = Dialect("plain" if dialect == "auto" else dialect)
        self.commands: frozenset[str] | None = None
        self.asks = "solve"
        try:
            self._argv = shlex.split(command)
        except ValueError as e:
            raise EngineStartError(f"cannot read engine command {command!r}: {e}") from None
        if not self._argv:
            raise EngineStartError("the engine command is empty")
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._errors: deque[str] = deque(maxlen=3)
        self._stderr_reader = threading.Thread()
        self._last = ""  # the last command sent: a second response is blamed on it
        self._start(first=True)

    # --- the process --------------------------------------------------------------

    def _start(self, first: bool = False) -> None:
        try:
            process = subprocess.Popen(
                self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1, cwd=self.directory,
                start_new_session=True)  # its own process group, so that a kill takes its children
        except OSError as e:
            why = start_failure(self._argv, e, self.directory)
            raise EngineStartError(f"cannot start engine {self.command!r}: {why}") from None
        self._process = process
        # Fresh queues per process: lines still arriving from a killed one are never read.
        lines: queue.Queue[str | None] = queue.Queue()
        errors: deque[str] = deque(maxlen=3)
        self._lines, self._errors = lines, errors
        threading.Thread(target=pump_lines, args=(process.stdout, lines.put), daemon=True).start()
        self._stderr_reader = threading.Thread(
            target=pump_lines, args=(process.stderr, keep_nonblank(errors)), daemon=True)
        self._stderr_reader.start()
        limit = self.timeout + STARTUP_GRACE
        deadline = time.monotonic() + limit
        if first:
            listed = self._handshake_step("list_commands", deadline, limit, multiline=True)
            if listed is not None:
                self.commands = frozenset(w.lower() for w in listed.split())
            if self.requested == "auto" and self.commands is not None:
                self.dialect = Dialect("plain" if "set_game" in self.commands else "course")
        try:
            steps = self.dialect.handshake(self.spec, self.timeout, self.timelimit)
        except GameRefusedError:
            self._stop()
            raise
        for command, required in steps:
            self._handshake_step(command, deadline, limit, refuses=required)
        if first:
            self.asks = self._find_question(deadline, limit)

    def _handshake_step(self, command: str, deadline: float, limit: float, *,
                        multiline: bool = False, refuses: bool = False) -> str | None:
        """Send one start-up command; its text, or None after '?' (GameRefusedError if `refuses`)."""
        answer = self._request(command, deadline, limit, multiline)
        if isinstance(answer, Failure):
            self._stop()
            raise EngineStartError(
                f"engine {self.command!r} did not complete the handshake: {answer.message}")
        ok, text = answer
        if not ok and refuses:
            self._stop()
            raise GameRefusedError(
                f"engine {self.command!r} answered '? {text}' to '{command}': it does not"
                f" play {self.spec.name}")
        return text if ok else None

    def _find_question(self, deadline: float, limit: float) -> str:
        """'solve' or 'genmove': from list_commands, else from known_command, else 'solve'."""
        known = self.commands
        if known is None:
            said = self._handshake_step("known_command solve", deadline, limit)
            if said is not None and said.lower() != "true":
                said = self._handshake_step("known_command genmove", deadline, limit) or ""
                known = frozenset({"genmove"} if said.lower() == "true" else set())
        if known is None or "solve" in known:
            return "solve"  # an engine that cannot say what it knows is asked what it always was
        if "genmove" in known:
            return "genmove"
        self._stop()
        raise EngineStartError(
            f"engine {self.command!r} knows neither 'solve' nor 'genmove' (its list_commands:"
            f" {' '.join(sorted(known)) or 'nothing'})")

    def describe(self, play: bool = False) -> str:
        """What this client sends, in one line (for the report): per position, or with `play`
        per game."""
        d = self.dialect
        game = " then ".join(c for c, _ in d.handshake(self.spec, self.timeout, self.timelimit))
        x, o = d.colours
        if play:
            return (f"{d.name} dialect ({x}/{o}): {game}; per game clear_board, then in turn"
                    f" play {x} {d.move_out('b2')} (the table's moves) and genmove {o}")
        ask = "solve" if self.asks == "solve" else f"genmove {x}"
        return (f"{d.name} dialect ({x}/{o}): {game}; per position clear_board,"
                f" play {x} {d.move_out('b2')}, ..., {ask}")

    def _stop(self) -> int | None:
        process, self._process = self._process, None
        if process is None:
            return None
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
        code = process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        return code

    def _restart(self) -> None:
        self._stop()
        self.restarts += 1
        self._start()

    def _exit_text(self, when: str) -> str:
        """'the engine exited (status 1) <when>: <its last lines on stderr>'."""
        code = None
        if self._process is not None:
            try:
                code = self._process.wait(QUIT_GRACE)
            except subprocess.TimeoutExpired:
                pass  # it closed its output but lives on; it is killed on restart
            self._stderr_reader.join(QUIT_GRACE)  # its last words on stderr
        said = f": {' | '.join(self._errors)}" if self._errors else ""
        return f"the engine exited (status {code}) {when}{said}"

    # --- requests -----------------------------------------------------------------------

    def _request(self, command: str, deadline: float, limit: float, multiline: bool = False
                 ) -> tuple[bool, str] | Failure:
        """Send one command and wait until `deadline` (`limit` seconds after the exchange began);
        (success, the text after '=' or '?') or a Failure. Only a `multiline` response (such as
        list_commands) is read up to its blank line; other responses end with their first line."""
        process = self._process
        assert process is not None and process.stdin is not None, "the engine is closed"
        stray = self._stray()
        if stray is not None:
            return self._out_of_step(stray)
        try:
            process.stdin.write(command + "\n")
            process.stdin.flush()
        except OSError:
            return Failure("crash", self._exit_text(f"before '{command}'"))
        self._last = command
        collected: list[str] | None = None
        chatter: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0))
            except queue.Empty:
                if chatter:
                    return Failure("bad-answer", f"answered {_shown(chatter[0])!r} to '{command}'"
                                                 f" and no response within {limit:g} s: a"
                                                 " response starts with '=' or '?'")
                return Failure("timeout", f"no answer to '{command}' within {limit:g} s")
            if line is None:
                return Failure("crash", self._exit_text(f"after '{command}'"))
            line = line.strip()
            if collected is not None:
                if not line:
                    return True, "\n".join(collected)
                collected.append(line)
                continue
            if not line:
                continue  # the blank line that ends the previous response
            if line[0] in "=?":
                # GTP allows a command id after the sign; this client sends none, but accepts one.
                text = re.sub(r"^\d+", "", line[1:]).strip()
                if multiline and line[0] == "=":
                    collected = [text] if text else []
                    continue
                return line[0] == "=", text
            # Not a response: passed over, as gogui-regress does (course engines print their
            # search's progress on stdout before answering); a bad answer if none follows.
            chatter.append(line)

    def _stray(self, wait: float = 0.0) -> str | None:
        """A line waiting with no command asked (within `wait` seconds): a second response to
        an earlier command. Blank lines (the ends of responses) are passed over."""
        deadline = time.monotonic() + wait
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0)) if wait \
                    else self._lines.get_nowait()
            except queue.Empty:
                return None
            if line is None:
                self._lines.put(None)  # the end of its output: for the next request to see
                return None
            if line.strip()[:1] in ("=", "?"):  # other lines are chatter, passed over
                return line.strip()

    def _out_of_step(self, stray: str) -> Failure:
        shown = stray if len(stray) <= 40 else stray[:37] + "..."
        return Failure("out-of-step", f"answered out of step: an extra response ({shown!r}) came"
                                      f" after the answer to '{self._last}', so that every later"
                                      " reply would be one late (one response a command)")

    def _unreadable(self, message: str) -> Failure:
        """The failure for an answer that cannot be read (`message` says why, ending with the
        restart): out of step if a second response follows it within STRAY_WAIT, else a bad
        answer; either way the engine is restarted."""
        stray = self._stray(wait=STRAY_WAIT)
        failure = None if stray is None else self._out_of_step(stray)
        self._restart()
        if failure is not None:
            return Failure(failure.kind, f"{failure.message}; the engine was restarted")
        return Failure("bad-answer", message)

    def _exchange(self, commands: Sequence[str], deadline: float) -> str | Failure:
        """Send commands in turn; the text of the last answer, or a Failure (and a restart)."""
        text = ""
        for command in commands:
            answer = self._request(command, deadline, self.timeout)
            if isinstance(answer, Failure):
                self._restart()
                return Failure(answer.kind, f"{answer.message}; the engine was restarted")
            ok, text = answer
            if not ok:
                self._restart()
                return Failure("bad-answer", f"answered '? {text}' to '{command}'; the engine was"
                                             " restarted")
        return text

    def setup(self, moves: Sequence[tuple[str, str]]) -> list[str]:
        """The commands that clear the engine's board and play `moves` ((player, move name))."""
        d = self.dialect
        return ["clear_board", *(f"play {d.colour(p)} {d.move_out(m)}" for p, m in moves)]

    def solve(self, moves: Sequence[tuple[str, str]]) -> EngineAnswer | Failure:
        """Set up the position reached by `moves` ((player, move name) pairs from the empty board,
        x first) and ask `solve`; the answer (winner 'x', 'o', 'draw' or 'unknown'), or a Failure."""
        text = self._exchange([*self.setup(moves), "solve"], time.monotonic() + self.timeout)
        if isinstance(text, Failure):
            return text
        words = text.split()
        winner = "draw" if words and words[0].lower() in ("draw", "unknown") else (
            self.dialect.player(words[0]) if words else None)
        if words and words[0].lower() == "unknown":
            winner = "unknown"
        if winner is None or len(words) > 2 or (winner == "unknown" and len(words) > 1):
            c = self.dialect.colours
            return self._unreadable(f"answered '= {text}' to 'solve', expected '= {c[0]}',"
                                    f" '= {c[1]}', '= draw' (each optionally followed by a"
                                    " move) or '= unknown'; the engine was restarted")
        move = self.dialect.move_in(words[1]) if len(words) == 2 else None
        return EngineAnswer(winner, move, f"= {text}".strip())

    def genmove(self, moves: Sequence[tuple[str, str]] | None, player: str) -> EngineAnswer | Failure:
        """Ask `genmove` for `player` ('x' or 'o'): after setting up `moves` from the empty board,
        or (None) on the engine's board as it stands. The answer has winner None and the move in
        our notation (None for pass or resign), or is a Failure."""
        commands = [] if moves is None else self.setup(moves)
        text = self._exchange([*commands, f"genmove {self.dialect.colour(player)}"],
                              time.monotonic() + self.timeout)
        if isinstance(text, Failure):
            return text
        words = text.split()
        if len(words) != 1:
            return self._unreadable(f"answered '= {text}' to 'genmove', expected one move"
                                    " (or pass, resign); the engine was restarted")
        move = None if words[0].lower() in ("pass", "resign") else self.dialect.move_in(words[0])
        return EngineAnswer(None, move, f"= {text}")

    def send(self, commands: Sequence[str]) -> str | Failure:
        """Send commands in turn (within the timeout); the text of the last answer, or a Failure
        (a '?' answer included; the engine is then started again)."""
        return self._exchange(commands, time.monotonic() + self.timeout)

    def set_game(self, spec: Spec, force: bool = False) -> str | Failure | None:
        """Tell the engine the game `spec` (a course file's `boardsize`), unless it plays it
        already and not `force`: the answer to the first command (None: nothing was sent), or a
        Failure, after which the engine is started again on the game it had."""
        if spec == self.spec and not force:
            return None
        old, self.spec = self.spec, spec
        deadline, first = time.monotonic() + self.timeout, None
        for command, required in self.dialect.handshake(spec, self.timeout, self.timelimit):
            answer = self._request(command, deadline, self.timeout)
            if isinstance(answer, Failure) or (required and not answer[0]):
                self.spec = old  # restarted on the game it had; a later case asks again
                self._restart()
                message = (answer.message if isinstance(answer, Failure)
                           else f"answered '? {answer[1]}' to '{command}'")
                kind = answer.kind if isinstance(answer, Failure) else "bad-answer"
                return Failure(kind, f"{message}; the engine was restarted")
            first = answer[1] if first is None else first
        return first

    def set_timelimit(self, seconds: int | None, force: bool = False) -> str | Failure | None:
        """Ask the engine for `seconds` a question (as told_timelimit keeps it), unless it was
        told that already and not `force`: its answer, a Failure, or None when nothing was sent
        (the plain dialect has no timelimit)."""
        before = self.dialect.timelimit(self.timeout, self.timelimit)
        self.timelimit = seconds  # a restart tells it too
        command = self.dialect.timelimit(self.timeout, seconds)
        if command is None or (command == before and not force):
            return None
        return self.send([command])

    def new_game(self, moves: Sequence[tuple[str, str]]) -> Failure | None:
        """Start a game on the engine's board: clear it and play `moves` (from the empty board)."""
        text = self.send(self.setup(moves))
        return text if isinstance(text, Failure) else None

    def tell(self, player: str, move: str) -> Failure | None:
        """Play the opponent's move on the engine's board."""
        d = self.dialect
        text = self.send([f"play {d.colour(player)} {d.move_out(move)}"])
        return text if isinstance(text, Failure) else None

    def close(self) -> None:
        """Send `quit` and give the engine a moment to exit; kill it if it does not."""
        process = self._process
        if process is not None and process.poll() is None and process.stdin is not None:
            try:
                process.stdin.write("quit\n")
                process.stdin.flush()
                process.wait(QUIT_GRACE)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()

    def __enter__(self) -> GtpEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


"""Solvers that answer from another process, so that a crash or a hang costs one position and not
the audit: a user's Python function in a worker process (`FunctionWorker`), and an external program
speaking the GTP-style text protocol of game-programming course engines (`GtpEngine`).

Every request has a timeout; a process that crashes, hangs or answers nonsense is killed and
started again, and the request comes back as a `Failure` naming what happened. The dialect:

    -> boardsize 3 3           once per start: width, height
    -> set_game 3x3k3          once per start: the whole spec; '?' means "I do not play this game"
    -> clear_board             per position: the empty board,
    -> play x b2               then the moves that reach the position, x first,
    -> play o a1
    -> solve                   and the question: who wins from here, and a move for the side to move
    <- = x b2                  x wins, b2 keeps it; '= o', '= draw' (a move is optional), '= unknown'
    -> quit                    once, at the end

Every response starts with '=' (success) or '?' (failure) and is ended by a blank line, as in GTP.
"""
from __future__ import annotations

import importlib
import inspect
import multiprocessing
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from builder.game import Spec
from query.errors import QueryError

# Timeouts are per request; importing a module or starting a program gets this much more.
STARTUP_GRACE = 30.0
# How long a process asked to quit may take before it is killed.
QUIT_GRACE = 1.0

_TARGET_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


class EngineError(QueryError):
    """A solver process that cannot be used at all: it will not start, load or play the game."""


class SolverImportError(EngineError, ImportError):
    """`MODULE:FUNCTION` that cannot be read, imported or called."""


class EngineStartError(EngineError, OSError):
    """An external program that cannot be started or does not complete the handshake."""


class GameRefusedError(EngineError):
    """An external program that answered '?' to `boardsize` or `set_game`: it does not play the game."""


@dataclass(frozen=True)
class Failure:
    """A request that got no usable answer.

    `kind` is 'exception' (the function raised), 'timeout' (no answer in time), 'crash' (the
    process died) or 'bad-answer' (an answer that cannot be read); `message` says what happened.
    """

    kind: str
    message: str


@dataclass(frozen=True)
class Returned:
    """What a user's function returned for one position, not yet read."""

    value: object


@dataclass(frozen=True)
class EngineAnswer:
    """An engine's answer to `solve`: `winner` is 'x', 'o', 'draw' or 'unknown'; `move` (a move
    name, for the side to move) or None; `text` the response as the engine wrote it."""

    winner: str
    move: str | None
    text: str


# --- a user's function in a worker process ---------------------------------------------------

def split_target(target: str) -> tuple[str, str]:
    """('module', 'function') of `MODULE:FUNCTION`; raise SolverImportError if it is not that."""
    file_name = ".py:" in target or target.endswith(".py")
    if _TARGET_RE.fullmatch(target) and not file_name:
        module, function = target.split(":")
        return module, function
    hint = ""
    if file_name:
        hint = "; give the module's name without .py, and run from its directory"
    elif ":" not in target:
        hint = "; add the function's name after a colon (e.g. my_solver:solve)"
    raise SolverImportError(
        f"cannot read solver {target!r}: expected MODULE:FUNCTION such as my_solver:solve{hint}")


def describe_exception(error: BaseException) -> str:
    """'ValueError: message (at file.py:12)', the place being the innermost frame of the traceback."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        text += f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})"
    return text


def _load(module_name: str, function_name: str, directory: str) -> Any:
    """Import the user's function; raise SolverImportError naming what is wrong."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            raise SolverImportError(
                f"no module named {module_name!r} in {directory} (the current directory) or on"
                " the import path") from None
        raise SolverImportError(f"importing module {module_name!r} failed: {describe_exception(e)}") from None
    except (Exception, SystemExit) as e:
        raise SolverImportError(f"importing module {module_name!r} failed: {describe_exception(e)}") from None
    where = getattr(module, "__file__", None) or module_name
    if not hasattr(module, function_name):
        defined = sorted(name for name, obj in vars(module).items()
                         if callable(obj) and not name.startswith("_")
                         and getattr(obj, "__module__", None) == module.__name__)
        known = f"; it defines: {', '.join(defined)}" if defined else "; it defines no functions"
        raise SolverImportError(
            f"module {module_name!r} ({where}) has no function {function_name!r}{known}")
    function = getattr(module, function_name)
    if not callable(function):
        raise SolverImportError(
            f"{module_name}:{function_name} ({where}) is not a function but"
            f" {type(function).__name__} {function!r:.40}")
    return function


def takes_spec(function: Any) -> bool:
    """Whether the function has a parameter called `spec` (it is then given the spec string)."""
    try:
        return "spec" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _serve(module_name: str, function_name: str, directory: str, spec: str,
           conn: Connection) -> None:
    """The worker process: load the function, then answer (board, to_move) requests until None."""
    # The report owns standard output; whatever the user's code prints goes to standard error.
    sys.stdout = sys.stderr
    sys.path.insert(0, directory)
    try:
        function = _load(module_name, function_name, directory)
    except SolverImportError as e:
        conn.send(("load-error", str(e)))
        return
    extra = {"spec": spec} if takes_spec(function) else {}
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if request is None:
            return
        board, to_move = request
        try:
            result = function(board, to_move, **extra)
        except KeyboardInterrupt:
            return
        except BaseException as e:  # SystemExit too: the function's fault, reported per position
            conn.send(("error", describe_exception(e)))
            continue
        try:
            conn.send(("ok", result))
        except Exception as e:  # the result cannot be pickled
            shown = repr(result)
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            conn.send(("unsendable", f"returned {shown}, which cannot be sent back ({e})"))


class FunctionWorker:
    """A user's function `f(board, to_move)` imported from `MODULE:FUNCTION` and called in a worker
    process, `directory` first on its import path.

    `call` waits at most `timeout` seconds; a worker that hangs or dies is replaced by a fresh
    one. Raises SolverImportError at start when the module or function cannot be loaded. If the
    function has a parameter called `spec` it is also given the spec string (e.g. '3x3k3+gravity').
    """

    def __init__(self, target: str, spec: Spec, directory: str, timeout: float) -> None:
        self.target = target
        self.module, self.function = split_target(target)
        self.spec = spec
        self.directory = os.path.abspath(directory)
        self.timeout = timeout
        self.restarts = 0
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._conn: Connection | None = None
        self._start()

    def _start(self) -> None:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_serve, args=(self.module, self.function, self.directory, self.spec.name, child),
            daemon=True, name=f"audit {self.target}")
        process.start()
        child.close()
        self._process, self._conn = process, parent
        wait = self.timeout + STARTUP_GRACE
        if not parent.poll(wait):
            self._stop()
            raise SolverImportError(f"importing {self.target} took longer than {wait:g} s")
        try:
            tag, message = parent.recv()
        except EOFError:
            code = self._stop()
            raise SolverImportError(
                f"the worker process died while importing {self.target} (exit status {code})") from None
        if tag != "ready":
            self._stop()
            raise SolverImportError(message)

    def _stop(self) -> int | None:
        """Kill the worker; return its exit status."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        process, self._process = self._process, None
        if process is None:
            return None
        if process.is_alive():
            process.kill()
        process.join()
        return process.exitcode

    def _restart(self) -> int | None:
        code = self._stop()
        self.restarts += 1
        self._start()
        return code

    def call(self, board: str, to_move: str) -> Returned | Failure:
        """Call the function on board text and 'x' or 'o'; what it returned, or what went wrong."""
        assert self._conn is not None, "the worker is closed"
        try:
            self._conn.send((board, to_move))
        except OSError:
            code = self._restart()
            return Failure("crash", f"the solver's process had exited (status {code}); restarted")
        if not self._conn.poll(self.timeout):
            self._restart()
            return Failure("timeout", f"no answer within {self.timeout:g} s; the solver's process"
                                      " was stopped and started again")
        try:
            tag, payload = self._conn.recv()
        except EOFError:
            code = self._restart()
            return Failure("crash", f"the solver's process exited (status {code}) without answering;"
                                    " restarted")
        if tag == "ok":
            return Returned(payload)
        return Failure("exception" if tag == "error" else "bad-answer", payload)

    def close(self) -> None:
        """Ask the worker to finish, and kill it if it does not."""
        if self._conn is not None and self._process is not None:
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._process.join(QUIT_GRACE)
        self._stop()

    def __enter__(self) -> FunctionWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- an external program over the GTP-style protocol -------------------------------------------

class GtpEngine:
    """An external program started from `command` (split as a shell would, run without one),
    told the game with `boardsize` and `set_game`, and asked `solve` on positions.

    `solve` waits at most `timeout` seconds for the whole exchange of one position. An engine that
    exits, hangs or answers nonsense is killed and started again; the position comes back as a
    Failure. Raises EngineStartError when the program cannot be started or breaks the handshake,
    and GameRefusedError when it answers '?' to `boardsize` or `set_game`.
    """

    def __init__(self, command: str, spec: Spec, timeout: float, directory: str | None = None) -> None:
        self.command = command
        self.spec = spec
        self.timeout = timeout
        self.directory = directory
        self.restarts = 0
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
        self._start()

    # --- the process --------------------------------------------------------------

    def _start(self) -> None:
        try:
            process = subprocess.Popen(
                self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1, cwd=self.directory,
                start_new_session=True)  # its own process group, so that a kill takes its children
        except OSError as e:
            raise EngineStartError(
                f"cannot start engine {self.command!r}: {e.strerror or e}") from None
        self._process = process
        # Fresh queues per process: lines still arriving from a killed one are never read.
        self._lines = lines = queue.Queue()
        self._errors = errors = deque(maxlen=3)
        threading.Thread(target=_pump, args=(process.stdout, lines.put), daemon=True).start()
        self._stderr_reader = threading.Thread(
            target=_pump, args=(process.stderr, _keep_nonblank(errors)), daemon=True)
        self._stderr_reader.start()
        limit = self.timeout + STARTUP_GRACE
        deadline = time.monotonic() + limit
        for command in (f"boardsize {self.spec.width} {self.spec.height}",
                        f"set_game {self.spec.name}"):
            answer = self._request(command, deadline, limit)
            if isinstance(answer, Failure):
                self._stop()
                raise EngineStartError(
                    f"engine {self.command!r} did not complete the handshake: {answer.message}")
            ok, text = answer
            if not ok:
                self._stop()
                raise GameRefusedError(
                    f"engine {self.command!r} answered '? {text}' to '{command}': it does not"
                    f" play {self.spec.name}")

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

    def _request(self, command: str, deadline: float, limit: float) -> tuple[bool, str] | Failure:
        """Send one command and wait until `deadline` (`limit` seconds after the exchange began);
        (success, the text after '=' or '?') or a Failure."""
        process = self._process
        assert process is not None and process.stdin is not None, "the engine is closed"
        try:
            process.stdin.write(command + "\n")
            process.stdin.flush()
        except OSError:
            return Failure("crash", self._exit_text(f"before '{command}'"))
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0))
            except queue.Empty:
                return Failure("timeout", f"no answer to '{command}' within {limit:g} s")
            if line is None:
                return Failure("crash", self._exit_text(f"after '{command}'"))
            line = line.strip()
            if not line:
                continue  # the blank line that ends the previous response
            if line[0] in "=?":
                # GTP allows a command id after the sign; this client sends none, but accepts one.
                text = re.sub(r"^\d+", "", line[1:]).strip()
                return line[0] == "=", text
            shown = line if len(line) <= 60 else line[:57] + "..."
            return Failure("bad-answer", f"answered {shown!r} to '{command}': a response starts"
                                         " with '=' or '?'")

    def solve(self, moves: Sequence[tuple[str, str]]) -> EngineAnswer | Failure:
        """Set up the position reached by `moves` ((player, move name) pairs from the empty board,
        x first) and ask `solve`; the engine's answer, or what went wrong (the engine is then
        restarted)."""
        deadline = time.monotonic() + self.timeout
        commands = ["clear_board", *(f"play {player} {move}" for player, move in moves), "solve"]
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
        words = text.lower().split()
        if (not words or words[0] not in ("x", "o", "draw", "unknown") or len(words) > 2
                or (words[0] == "unknown" and len(words) > 1)):
            self._restart()
            return Failure("bad-answer", f"answered '= {text}' to 'solve', expected '= x', '= o',"
                                         " '= draw' (each optionally followed by a move) or"
                                         " '= unknown'; the engine was restarted")
        return EngineAnswer(words[0], words[1] if len(words) == 2 else None, f"= {text}".strip())

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


def _pump(stream: Any, put: Any) -> None:
    """Hand every line of `stream` to `put`, then None at the end (run in a reader thread)."""
    try:
        for line in stream:
            put(line)
    except (OSError, ValueError):
        pass  # the stream was closed under us: the process is being stopped
    put(None)


def _keep_nonblank(lines: deque[str]) -> Any:
    def put(line: str | None) -> None:
        if line is not None and line.strip():
            lines.append(line.strip())
    return put

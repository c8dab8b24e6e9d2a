"""What the solvers that answer from another process share: the errors that stop an audit, the
record of a request that failed, and reading a `MODULE:FUNCTION` target. The processes themselves
live in worker.py (a user's Python function) and gtp_client.py (an external program)."""
from __future__ import annotations

import os
import re
import shutil
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Any

from tablebase.query.errors import QueryError

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
    """An engine's answer to `solve`: `winner` is 'x', 'o', 'draw' or 'unknown' (None when it was
    asked `genmove` and answered a move only); `move` (our move name, for the side to move) or
    None; `text` the response as the engine wrote it."""

    winner: str | None
    move: str | None
    text: str


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
    """'ValueError: message (at file.py:12)', the place being the innermost frame of the traceback;
    a message of several lines is folded into one (a report line is one line)."""
    message = " ".join(str(error).split())
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        text += f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})"
    return text


def start_failure(argv: list[str], error: OSError, directory: str | None = None) -> str:
    """Why a program could not start (in `directory`, None: here), naming the real cause: a
    name not on PATH; a program that exists but cannot run is usually its `#!` line naming an
    interpreter this machine lacks, or a missing execute permission; otherwise the system's
    reason."""
    name = argv[0] if argv else ""
    if isinstance(error, FileNotFoundError) and name and "/" not in name and not shutil.which(name):
        # A name without a slash is looked for on PATH only, never in the current directory.
        if os.path.isfile(os.path.join(directory or ".", name)):
            return (f"'{name}' is not on PATH, and a command without a '/' is looked for only"
                    f" there; the file of that name here runs as --engine \"./{name}\" (or"
                    f" \"python3 {name}\")")
        return f"'{name}' is not a file here nor a command on PATH"
    program = shutil.which(name) or name
    if isinstance(error, FileNotFoundError) and program and os.path.isfile(program):
        try:
            with open(program, "rb") as f:
                first = f.readline(200).decode("utf-8", "replace").strip()
        except OSError:
            first = ""
        if first.startswith("#!"):
            interpreter = first[2:].strip().split()[0] if first[2:].strip() else "?"
            return (f"its first line, {first!r}, names the interpreter {interpreter!r}, which"
                    " this machine lacks; run it with an interpreter that exists, e.g."
                    f" --engine \"python3 {program}\"")
        return f"{program} exists, but cannot be run ({error.strerror or error})"
    if isinstance(error, PermissionError) and program and os.path.isfile(program):
        return (f"{program} is not executable (chmod +x {program}, or run it with its interpreter,"
                f" e.g. --engine \"python3 {program}\")")
    return str(error.strerror or error)


def pump_lines(stream: Any, put: Any) -> None:
    """Hand every line of `stream` to `put`, then None at the end (run in a reader thread)."""
    try:
        for line in stream:
            put(line)
    except (OSError, ValueError):
        pass  # the stream was closed under us: the process is being stopped
    put(None)


def keep_nonblank(lines: deque[str]) -> Any:
    """A `put` for pump_lines that keeps the last non-blank lines (stripped) in `lines`."""
    def put(line: str | None) -> None:
        if line is not None and line.strip():
            lines.append(line.strip())
    return put

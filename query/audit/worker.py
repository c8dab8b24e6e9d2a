"""A user's Python function called in a worker process of its own, so that a crash or a hang costs
one position and not the audit: `FunctionWorker` imports `MODULE:FUNCTION` there, calls it with a
timeout per call, and starts a fresh process when the old one hangs or dies."""
from __future__ import annotations

import importlib
import inspect
import multiprocessing
import os
import sys
from multiprocessing.connection import Connection
from typing import Any

from tablebase.builder.games.grid import Spec
from tablebase.query.audit.processes import (
    QUIT_GRACE,
    STARTUP_GRACE,
    Failure,
    Returned,
    SolverImportError,
    describe_exception,
    split_target,
)


def load_function(module_name: str, function_name: str, directory: str) -> Any:
    """Import the user's function; raise SolverImportError naming what is wrong."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            raise SolverImportError(
                f"no module named {module_name!r} in {directory} (the current directory) or on"
                " the import path") from None
        raise SolverImportError(
            f"importing module {module_name!r} failed: {describe_exception(e)}") from None
    except (Exception, SystemExit) as e:
        raise SolverImportError(
            f"importing module {module_name!r} failed: {describe_exception(e)}") from None
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
        function = load_function(module_name, function_name, directory)
    except SolverImportError as e:
        conn.send(("load-error", str(e)))
        return
    given = takes_spec(function)
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if request is None:
            return
        board, to_move, game = request
        extra = {"spec": game or spec} if given else {}
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
        # A fork server started once (imports done there) forks each worker: a fresh
        # interpreter per worker (spawn) paid the package's imports again at every restart.
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([__name__])
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

    def call(self, board: str, to_move: str, spec: str | None = None) -> Returned | Failure:
        """Call the function on board text and 'x' or 'o' (of the game `spec`, None: the
        worker's); what it returned, or what went wrong."""
        assert self._conn is not None, "the worker is closed"
        try:
            self._conn.send((board, to_move, spec))
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

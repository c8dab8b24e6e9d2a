"""Serving the tables over HTTP: `tablebase serve` runs the app of query/server under uvicorn.

Starlette and uvicorn are imported inside the command, so other commands start as fast as
before."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from tablebase.query.cli.common import EXIT_OK, UsageError, db_option, whole_number
from tablebase.query.cli.solve import search_options

if TYPE_CHECKING:
    import socket


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or UsageError saying why there cannot be one."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        raise UsageError(f"cannot listen on {host!r}: {e}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot listen on {host} port {port}: {e.strerror or e}") from None
    sock.set_inheritable(True)
    return sock


def _url(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from tablebase.query.search.fallback import open_for_answers
    from tablebase.query.server.app import (
        DB_VARIABLE,
        GAMES_VARIABLE,
        SEARCH_VARIABLE,
        SEARCHES_VARIABLE,
        make_app,
    )
    from tablebase.query.server.game_routes import ServedGames
    from tablebase.query.server.searches import default_searches

    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, found {args.workers}")
    searches = args.searches or default_searches(args.workers)
    # Open the database once here, so that a foreign file (or with --no-search a missing one)
    # is one line and exit 2 before anything listens; with searches, no file is no tables.
    with open_for_answers(args.db, searching=args.search is not None) as tb:
        served = args.db if tb is not None else f"no database ({args.db} does not exist: by search)"
    games = args.game or []
    named = ServedGames(games).specs  # a class that cannot load: one line, now
    sock = _listen(args.host, args.port)
    options: dict[str, Any] = {"log_level": "warning", "access_log": False,
                               "timeout_graceful_shutdown": 5}
    searching = ("no search" if args.search is None else
                 f"up to {searches} search{'es' if searches != 1 else ''} of {args.search:g} s at"
                 f" once{' per worker' if args.workers != 1 else ''}")
    classes = "".join(f"; {name} at {_url(sock, args.host)}game/{name}" for name in named)
    line = (f"serving {served} at {_url(sock, args.host)} ({args.workers} worker"
            f"{'s' if args.workers != 1 else ''}, {searching}{classes}; Ctrl-C stops)")

    class Announced(uvicorn.Server):
        """Says it serves once it does: its Ctrl-C handler is in place by then (a Ctrl-C in
        the moment before, when asyncio's own handler is, was lost in uvicorn's start-up)."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            print(line, flush=True)

    try:
        if args.workers == 1:
            app = make_app(args.db, args.search, searches, games)
            Announced(uvicorn.Config(app, **options)).run(sockets=[sock])
        else:
            print(line, flush=True)
            # Worker processes build their own app, by name, on the database named here.
            os.environ[DB_VARIABLE] = args.db
            os.environ[SEARCH_VARIABLE] = "" if args.search is None else str(args.search)
            os.environ[SEARCHES_VARIABLE] = str(searches)
            os.environ[GAMES_VARIABLE] = os.pathsep.join(games)
            uvicorn.run("tablebase.query.server.app:app_from_environment", factory=True,
                        workers=args.workers, fd=sock.fileno(), **options)
    except KeyboardInterrupt:
        pass  # uvicorn has shut down cleanly and re-raised Ctrl-C: stopping is the request
    finally:
        sock.close()
    print("stopped", file=sys.stderr)
    return EXIT_OK


def register(commands: Any) -> None:
    """Add serve to the subcommands."""
    p = commands.add_parser("serve", help="answer over HTTP: a JSON API and a page to play on",
                            description="Serve the database's tables over HTTP: a JSON API"
                                        " (/api/games, /api/SPEC?board=..., /api/SPEC/line,"
                                        " /api/SPEC/stats, POST /api/SPEC/probe, /health) and a"
                                        " page at / to explore and play. The database is opened"
                                        " read-only.")
    db_option(p)
    search_options(p)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", default=8000,
                   type=whole_number(0, "a port from 1 to 65535 (or 0 for any free one)", 65535),
                   help="port to listen on; 0 picks a free one (default: 8000)")
    p.add_argument("--game", action="append", metavar="PATH.py:Class",
                   help="serve a game class built into the database too, at /game/NAME and"
                        " /api/class/NAME (docs/games.md); repeatable")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes sharing the port (default: 1)")
    p.add_argument("--searches", metavar="N", default=None,
                   type=whole_number(1, "a whole number of searches, at least 1"),
                   help="searches run at once in each worker process, off the thread that"
                        " answers from the tables; a search asked for beyond them is refused"
                        " with 503 and Retry-After (default: one per core, shared among the"
                        " workers)")
    p.set_defaults(run=_cmd_serve)

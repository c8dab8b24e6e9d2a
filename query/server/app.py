"""The HTTP face of the tablebase: a Starlette app with the JSON API and the page, a thin layer
over query/server/answers.py. Maps errors to status codes with a JSON body `{"error": ...}`
carrying the command line's one-line message; allows any origin; marks answers cacheable with
the table's checksum as their ETag, since a built table never changes.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tablebase.builder.games.grid import GameError
from tablebase.builder.games.registry import grid_game
from tablebase.db.errors import GameNotBuiltError, MissingDatabaseError, StorageError
from tablebase.query.errors import (
    MissingPositionError,
    MissingTableError,
    QueryError,
    error_text,
    one_line,
)
from tablebase.query.search.fallback import DEFAULT_SEARCH_SECONDS
from tablebase.query.search.solving import load_search
from tablebase.query.server.answers import MAX_BODY_BYTES, Answers, TooLargeError
from tablebase.query.server.game_routes import ServedGames, game_routes
from tablebase.query.server.searches import BusyError, SearchPool, default_searches

STATIC = Path(__file__).resolve().parent / "static"
# A body past MAX_BODY_BYTES is read and dropped up to this size (see _read_body).
MAX_DRAIN_BYTES = 256 << 20
# The environment variable that names the database for `app_from_environment` (--workers).
DB_VARIABLE = "TABLEBASE_SERVE_DB"
SEARCH_VARIABLE = "TABLEBASE_SERVE_SEARCH"  # the workers' --search seconds; empty: none
SEARCHES_VARIABLE = "TABLEBASE_SERVE_SEARCHES"  # searches at once in each worker process
GAMES_VARIABLE = "TABLEBASE_SERVE_GAMES"  # the game classes served, joined by os.pathsep

CACHE_ANSWERS = "public, max-age=86400"
POSITION_PARAMS = {"board", "moves"}

Handler = Callable[[Request], Awaitable[Response]]


def error_response(status: int, message: str) -> JSONResponse:
    """A JSON error: `{"error": message}` with `status`, never cached."""
    return JSONResponse({"error": one_line(message)}, status_code=status,
                        headers={"Cache-Control": "no-store"})


def _status(error: Exception) -> int:
    """The status code of an error raised while answering."""
    if isinstance(error, TooLargeError):
        return 413
    if isinstance(error, (GameNotBuiltError, MissingPositionError, MissingTableError,
                          MissingDatabaseError)):
        return 404
    if isinstance(error, (GameError, QueryError, ValueError)):
        return 400
    return 500


def _searched(data: Any, found: Any, request: Request) -> Response:
    """An answer by search: found within a time budget, so not cached as final; its tag a
    digest of what was `found`."""
    digest = hashlib.sha1(json.dumps(found).encode()).hexdigest()[:16]
    return _tagged(data, f"search-{digest}", request, "no-store")


def _tagged(data: Any, tag: str, request: Request, cache: str = CACHE_ANSWERS) -> Response:
    """An answer with its ETag; 304 when the client already holds it."""
    etag = f'"{tag}"'
    headers = {"ETag": etag, "Cache-Control": cache}
    if etag in (request.headers.get("if-none-match") or "").replace(" ", "").split(","):
        return Response(status_code=304, headers=headers)
    return JSONResponse(data, headers=headers)


def make_app(db: str, search: float | None = DEFAULT_SEARCH_SECONDS,
             searches: int | None = None, classes: Sequence[str] = ()) -> ASGIApp:
    """The ASGI app answering from the database `db` (a path or URL), opened read-only; a
    position no table holds is searched for at most `search` seconds (None: refused), on at
    most `searches` threads at once (default: one per core), off the event loop; `classes`:
    the game classes served besides (PATH.py:Class, query/server/game_routes.py)."""
    answers = Answers(db, search)
    served = ServedGames(classes, answers.tablebase)
    pool = SearchPool(searches or default_searches(), search or 0.0)

    def answering(handler: Callable[[Request], Awaitable[Response]]) -> Handler:
        """Run `handler`, turning the errors of bad or unanswerable requests into JSON."""
        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except BusyError as e:
                response = error_response(503, str(e))
                response.headers["Retry-After"] = str(e.retry_after)
                return response
            except (GameError, StorageError, QueryError, ValueError, KeyError) as e:
                message = error_text(e, request.path_params.get("spec"), db, http=True)
                return error_response(_status(e), message)
        return run

    def position_query(request: Request) -> tuple[Any, tuple[int, ...]]:
        unknown = sorted(set(request.query_params) - POSITION_PARAMS)
        if unknown:
            raise _BadRequest(f"unknown parameter {unknown[0]!r}; expected board and/or moves")
        spec = answers.spec(request.path_params["spec"])
        board = answers.board(spec, request.query_params.get("board"),
                              request.query_params.get("moves"))
        return spec, board

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def health(request: Request) -> Response:
        # The search budget lets a page wait long enough for a searched answer.
        searching = None if search is None else {"seconds": search, "running": pool.running,
                                                 "most": pool.size}
        return JSONResponse({"status": "ok", "search": searching},
                            headers={"Cache-Control": "no-store"})

    @answering
    async def games(request: Request) -> Response:
        # The list grows when a game is built, so clients revalidate it (no-cache) by its tag.
        return _tagged(answers.games(), _short(answers.games_tag()), request, "no-cache")

    @answering
    async def position(request: Request) -> Response:
        started = time.monotonic()  # the budget counts from here: waiting is paid from it
        spec, board = position_query(request)
        data = answers.moves_from_tables(spec, board)
        if data is None:  # no table holds it: search, off the event loop
            data = await pool.run(
                lambda cancel: answers.moves_by_search(spec, board, started, cancel),
                request.is_disconnected)
        if data["source"] == "search":
            return _searched(data, data["moves"], request)
        return _tagged(data, answers.checksum(spec), request)

    @answering
    async def line(request: Request) -> Response:
        started = time.monotonic()
        spec, board = position_query(request)
        data = answers.line_from_tables(spec, board)
        if data is None:  # no table holds it: search, off the event loop
            data = await pool.run(
                lambda cancel: answers.line_by_search(spec, board, started, cancel),
                request.is_disconnected)
            return _searched(data, data["line"], request)
        return _tagged(data, answers.checksum(spec), request)

    @answering
    async def stats(request: Request) -> Response:
        unknown = sorted(set(request.query_params) - {"root"})
        if unknown:
            raise _BadRequest(f"unknown parameter {unknown[0]!r}; expected root (or none)")
        spec = answers.spec(request.path_params["spec"])
        # A first count reads the whole table (seconds for Teeko's): off the event loop.
        data = await asyncio.get_running_loop().run_in_executor(
            None, answers.stats, spec, request.query_params.get("root"))
        return _tagged(data, answers.checksum(spec), request)

    @answering
    async def layout(request: Request) -> Response:
        if request.query_params:
            raise _BadRequest(f"unknown parameter {sorted(request.query_params)[0]!r}; this"
                              " takes none")
        spec = answers.spec(request.path_params["spec"])
        return JSONResponse(grid_game(spec).layout())

    @answering
    async def probe(request: Request) -> Response:
        spec = answers.spec(request.path_params["spec"])
        body = await _read_body(request)
        try:
            texts = json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            raise _BadRequest(f"the body is not JSON: {e}") from None
        except RecursionError:  # lists in lists, deeper than the parser goes
            raise _BadRequest("the body is not a JSON list of board texts or moves: it nests"
                              " too deep") from None
        data = answers.probe_many(spec, texts)
        return _tagged(data, answers.checksum(spec), request)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = {404: f"no such page: {request.url.path}",
                   405: f"method {request.method} is not allowed on {request.url.path}"
                   }.get(exc.status_code, str(exc.detail))
        response = error_response(exc.status_code, message)
        response.headers.update(exc.headers or {})
        return response

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error: {type(exc).__name__}")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if search is not None:
            await asyncio.get_running_loop().run_in_executor(None, load_search)
        yield
        pool.close()
        answers.close()

    routes = [
        Route("/", index),
        Route("/health", health),
        Route("/api/games", games),
        Route("/api/{spec}", position),
        Route("/api/{spec}/line", line),
        Route("/api/{spec}/stats", stats),
        Route("/api/{spec}/layout", layout),
        Route("/api/{spec}/probe", probe, methods=["POST"]),
        *game_routes(served, answering, STATIC),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: server_error})
    app.state.answers = answers
    return AnyOrigin(app)


def app_from_environment() -> ASGIApp:
    """The app on the database named by TABLEBASE_SERVE_DB (for uvicorn's worker processes)."""
    search = os.environ.get(SEARCH_VARIABLE, "")
    searches = os.environ.get(SEARCHES_VARIABLE, "")
    games = os.environ.get(GAMES_VARIABLE, "")
    return make_app(os.environ[DB_VARIABLE], float(search) if search else None,
                    int(searches) if searches else None,
                    games.split(os.pathsep) if games else ())


class _BadRequest(QueryError, ValueError):
    """A request the API cannot read: an unknown parameter, a body that is not JSON."""


def _short(tag: str) -> str:
    """A short stable digest of a long tag."""
    import hashlib
    return hashlib.sha256(tag.encode()).hexdigest()[:16]


async def _read_body(request: Request) -> bytes:
    """The request body, refused with TooLargeError past MAX_BODY_BYTES. The rest of a body
    too large is read and dropped, unkept and unparsed, up to MAX_DRAIN_BYTES, so that the
    client, still sending it, reads the refusal (a connection closed on unread data is reset,
    and the client sees that instead); past that it is not read, and the connection closes."""
    declared = request.headers.get("content-length")
    size = int(declared) if declared is not None and declared.isdigit() else None
    if size is not None and size > MAX_DRAIN_BYTES:
        raise _too_large(size)
    chunks, read = [], 0
    async for chunk in request.stream():
        read += len(chunk)
        if read > MAX_DRAIN_BYTES:
            break
        if read <= MAX_BODY_BYTES and (size is None or size <= MAX_BODY_BYTES):
            chunks.append(chunk)
    if read > MAX_BODY_BYTES or (size is not None and size > MAX_BODY_BYTES):
        raise _too_large(size)
    return b"".join(chunks)


def _too_large(size: int | None) -> TooLargeError:
    said = f"{size:,} bytes" if size is not None else f"over {MAX_BODY_BYTES:,} bytes"
    return TooLargeError(f"the body is {said}; at most {MAX_BODY_BYTES:,} are accepted")


class AnyOrigin:
    """ASGI wrapper: `Access-Control-Allow-Origin: *` on every response, errors included, and
    the answer to browsers' preflight requests (a POST of JSON from another origin)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS" and scope["path"].startswith("/api/"):
            await send({"type": "http.response.start", "status": 204, "headers": [
                (b"access-control-allow-origin", b"*"),
                (b"access-control-allow-methods", b"GET, POST, OPTIONS"),
                (b"access-control-allow-headers", b"Content-Type, If-None-Match"),
                (b"access-control-max-age", b"86400")]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_allowed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"access-control-allow-origin", b"*"),
                           (b"access-control-expose-headers", b"ETag")]
                message = {**message, "headers": headers}
            await send(message)
        await self.app(scope, receive, send_allowed)

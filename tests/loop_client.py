"""An HTTP client for an ASGI app that runs the app on an event loop of the calling thread:
httpx's own ASGITransport, driven synchronously, with the app's lifespan run around it.

Starlette's TestClient runs the app on a loop in another thread and crosses over for every
message of every request: some 3.7 ms of CPU a request on top of the app's own work (a
/health answer costs 1 ms here), and more in waits on a loaded machine. The test files that
send thousands of requests (tests/test_server.py, tests/test_server_moving.py) use this; the
app, its routes and middleware, the ASGI messages and httpx's requests and responses are the
same, and an exception the app raises reaches the test as TestClient's would.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx


class _Body(httpx.AsyncByteStream):
    """A request body given as bytes or a (sync) iterator of chunks, handed over chunk by
    chunk: a body with no Content-Length still reaches the app in pieces."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.stream:
            yield chunk


class _LoopTransport(httpx.BaseTransport):
    def __init__(self, app: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.inner = httpx.ASGITransport(app=app)  # raises what the app raises
        self.loop = loop

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def answer() -> httpx.Response:
            sent = httpx.Request(request.method, request.url, headers=request.headers,
                                 stream=_Body(request.stream))
            response = await self.inner.handle_async_request(sent)
            return httpx.Response(response.status_code, headers=response.headers,
                                  content=await response.aread())
        return self.loop.run_until_complete(answer())


async def _lifespan(app: Any, loop: asyncio.AbstractEventLoop,
                    to_app: asyncio.Queue[dict[str, str]],
                    from_app: asyncio.Queue[dict[str, str]]) -> asyncio.Task[None]:
    """Start the app's lifespan; return its task (it waits there for the shutdown)."""
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = loop.create_task(app(scope, to_app.get, from_app.put))
    await to_app.put({"type": "lifespan.startup"})
    message = await from_app.get()
    assert message["type"] == "lifespan.startup.complete", message
    return task


@contextmanager
def loop_client(app: Any) -> Iterator[httpx.Client]:
    """An httpx.Client on `app`, between its lifespan's startup and shutdown."""
    loop = asyncio.new_event_loop()
    to_app: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    from_app: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    task = loop.run_until_complete(_lifespan(app, loop, to_app, from_app))
    try:
        with httpx.Client(transport=_LoopTransport(app, loop),
                          base_url="http://testserver") as client:
            yield client
    finally:
        async def shut_down() -> None:
            await to_app.put({"type": "lifespan.shutdown"})
            message = await from_app.get()
            assert message["type"] == "lifespan.shutdown.complete", message
            await task
        loop.run_until_complete(shut_down())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()

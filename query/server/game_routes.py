"""The HTTP API and the page of games given as Python classes (docs/games.md), which `tablebase
serve --game PATH.py:Class` names: each is served by its name,

    GET /api/class/NAME?position=TEXT        the position and every move (`moves --json`)
    GET /api/class/NAME/line?position=TEXT   a perfect line (`line --json`)
    GET /api/class/NAME/layout               the board's points and lines, where the game has one
    GET /game/NAME                           the page: the position's text, its moves, charts

the position given as the class's text (none: the game's start). Each thread answers on its
own Tablebase, the one query/server/answers.py's `Answers` keeps for it.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from tablebase.builder.games.errors import InvalidSpecError
from tablebase.builder.games.registry import is_named_game, keyed_game
from tablebase.query.errors import MissingTableError
from tablebase.query.game_answers import GameAnswers
from tablebase.query.game_shapes import drawn_moves_json, game_line_json, game_moves_json
from tablebase.query.tablebase import Tablebase

Handler = Callable[[Request], Awaitable[Response]]
# The longest position text a request may carry.
MAX_TEXT = 4096


class ServedGames:
    """The game classes a server answers, by name, on the Tablebase `tablebase()` gives this
    thread (None: the classes only loaded and named, as `serve` checks them before it
    listens)."""

    def __init__(self, specs: Sequence[str],
                 tablebase: Callable[[], Tablebase] | None = None) -> None:
        self.tablebase = tablebase
        self.specs: dict[str, str] = {}
        for spec in specs:
            game = keyed_game(spec)
            if game is None:
                raise InvalidSpecError(f"--game {spec!r:.80}: a game class is PATH.py:Class or"
                                       " package.module:Class")
            self.specs[game.name] = spec

    def answers(self, name: str) -> GameAnswers:
        """This thread's answers of the game `name` (MissingTableError where none is served):
        a class `serve --game` named, or a game its family names by a word (morris)."""
        spec = self.specs.get(name)
        if spec is None and is_named_game(name):
            spec = name
        if spec is None:
            raise MissingTableError(f"no game class named {name!r:.80} is served here (tablebase"
                                    " serve --game PATH.py:Class names them)")
        assert self.tablebase is not None  # a server's: make_app gives it Answers.tablebase
        return self.tablebase().game(spec)


def _position(request: Request) -> str | None:
    unknown = sorted(set(request.query_params) - {"position"})
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r}; expected position (or none)")
    text = request.query_params.get("position")
    if text is not None and len(text) > MAX_TEXT:
        raise ValueError(f"position is {len(text):,} characters long; at most {MAX_TEXT:,}")
    return text


def game_routes(served: ServedGames, answering: Callable[[Handler], Handler],
                static: Path) -> list[Route]:
    """The routes of the served game classes; `answering` turns errors into JSON."""
    def reply(data: dict[str, Any]) -> Response:
        return JSONResponse(data, headers={"Cache-Control": "no-cache"})

    @answering
    async def moves(request: Request) -> Response:
        answers = served.answers(request.path_params["name"])
        position = answers.position(_position(request))
        probe, found = answers.moves_of(position)
        data = game_moves_json(answers.game.name, probe, found)
        drawing = answers.game.drawing()
        if drawing is not None:  # what stands where, and the points each move is clicked on
            marks = answers.game.marks(position, len(drawing["points"]))
            data = drawn_moves_json(data, drawing, marks)
        return reply(data)

    @answering
    async def layout(request: Request) -> Response:
        answers = served.answers(request.path_params["name"])
        return reply({"spec": answers.game.name, **(answers.game.drawing() or {"points": []})})

    @answering
    async def line(request: Request) -> Response:
        answers = served.answers(request.path_params["name"])
        probe, steps, repeats = answers.line(_position(request))
        return reply(game_line_json(answers.game.name, probe, steps, repeats))

    async def page(request: Request) -> Response:
        return FileResponse(static / "game.html", headers={"Cache-Control": "no-cache"})

    return [Route("/api/class/{name}", moves), Route("/api/class/{name}/line", line),
            Route("/api/class/{name}/layout", layout),
            Route("/game/{name}", page)]

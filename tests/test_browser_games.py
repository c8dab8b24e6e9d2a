"""The page of a game given as a Python class (query/server/static/game.js) in a real browser:
Debian's Chromium driven by Playwright against `tablebase serve --game PATH.py:Class`. The
position, its status and every move's value and depth are the table's; clicking a move plays
it; the perfect line and a draw by endless play show; the main page links to the class's page.
Set TABLEBASE_SCREENSHOT=DIR to keep screenshots at 1280 and 375 pixels.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablebase.query.cli import main
from tablebase.query.tablebase import open_tablebase
from tests.test_browser import Server, browser  # noqa: F401 (a fixture, used by name)

HERE = Path(__file__).resolve().parent
TTT = f"{HERE / 'class_games' / 'tictactoe.py'}:TicTacToe"
GRAPH = f"{HERE / 'class_games' / 'graphs.py'}:Graph7"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    db = str(tmp_path_factory.mktemp("classpage") / "classes.db")
    for spec in (TTT, GRAPH, "tictactoe"):  # the main page then lists the classes' pages
        assert main(["build", spec, "--db", db, "--quiet"]) == 0
    server = Server(db, "--game", TTT, "--game", GRAPH)
    yield server, db
    server.stop()


def _page(browser: Any, width: int = 1100) -> tuple[Any, list[str], Any]:
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors, context


def _moves(page: Any) -> list[str]:
    page.wait_for_selector("#moves button")
    return page.eval_on_selector_all("#moves button", "els => els.map(e => e.textContent)")


def test_the_page_shows_and_plays_the_table(served: tuple[Server, str], browser: Any) -> None:
    server, db = served
    page, errors, context = _page(browser)
    page.goto(f"{server.url}game/class-tictactoe?position=x.o/.x./...%20o")
    with open_tablebase(db) as tb:
        answers = tb.game(TTT)
        probe, moves = answers.moves("x.o/.x./... o")
        shown = _moves(page)
        assert page.inner_text("#position") == "x.o/.x./... o"
        assert page.inner_text("#status") == f"{probe}"
        assert shown == [f"{m.move} {m.value.word} {m.depth}" for m in moves]
        assert page.eval_on_selector_all("#moves button.best", "els => els.length") == 1
        page.click("#moves button.best")  # c1 keeps the draw
        page.wait_for_function("document.getElementById('position').textContent"
                               " === 'x.o/.x./..o x'")
        after = answers.moves("x.o/.x./..o x")[1]
        assert _moves(page) == [f"{m.move} {m.value.word} {m.depth}" for m in after]
    page.click("#line-button")
    page.wait_for_selector("#line li")
    assert page.eval_on_selector_all("#line li", "els => els.length") == 5
    page.click("#undo")
    page.wait_for_function("document.getElementById('position').textContent === 'x.o/.x./... o'")
    assert page.eval_on_selector_all("#counts rect", "els => els.length") > 0
    assert errors == []
    context.close()


def test_endless_play_and_the_main_page_link(served: tuple[Server, str], browser: Any) -> None:
    server, db = served
    page, errors, context = _page(browser)
    with open_tablebase(db) as tb:
        answers = tb.game(GRAPH)
        endless = next(m.position for m in answers.moves(None)[1] if m.depth is None) \
            if any(m.depth is None for m in answers.moves(None)[1]) else None
    page.goto(f"{server.url}")
    page.wait_for_selector("header a[href^='/game/']")
    page.click("header a[href='/game/random-graph-7-60']")
    page.wait_for_selector("#moves button")
    assert page.inner_text("#position") == "n0"
    if endless is not None:
        assert any(text.endswith("∞") for text in _moves(page))
    assert errors == []
    context.close()


@pytest.mark.parametrize("width", [1280, 375])
def test_screenshots(served: tuple[Server, str], browser: Any, width: int) -> None:
    server, _ = served
    page, errors, context = _page(browser, width)
    page.goto(f"{server.url}game/class-tictactoe?position=x.o/.x./...%20o")
    _moves(page)
    # Nothing runs off the side of a narrow screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    keep = os.environ.get("TABLEBASE_SCREENSHOT")
    if keep:
        page.screenshot(path=str(Path(keep) / f"class-page-{width}.png"), full_page=True)
    assert errors == []
    context.close()

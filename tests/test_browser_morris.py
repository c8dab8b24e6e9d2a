"""The page of a morris game (query/server/static/points.js over game.js) in a real browser:
the board drawn from the game's points and lines, a placement played with one click, a step
with two, a capture with one more, each landing on the position the table gives for that
move's name; served by its name alone (no --game). Set TABLEBASE_SCREENSHOT=DIR to keep
screenshots at 1280 and 375 pixels.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablebase.builder.games.morris.game import MorrisGame
from tablebase.query.cli import main
from tablebase.query.tablebase import open_tablebase
from tests.test_browser import Server, browser  # noqa: F401 (a fixture, used by name)

SIX = "six-mens-morris+stones3"
# Six men's morris:  a5 - c5 - e5      x to move holds a1 c1 and has one stone to place:
#                    |  b4-c4-d4 |     e1 closes the bottom mill and takes a5 or c5.
#                    a3-b3   d3-e3
#                    |  b2-c2-d2 |
#                    a1 - c1 - e1
PLACING = "oo./.../..../.../xx. x 1 1"
# Every stone placed: x holds a1 c1 e3 (e3-e1 closes the bottom mill), o holds a5 b4 d4.
STEPPING = "o../o.o/...x/.../xx. x"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    db = str(tmp_path_factory.mktemp("morris") / "morris.db")
    for spec in (SIX, "achi"):
        assert main(["build", spec, "--db", db, "--quiet"]) == 0
    server = Server(db)
    yield server, db
    server.stop()


def _after(db: str, position: str, move: str) -> str:
    """The position the table's answers give after `move`."""
    with open_tablebase(db) as tb:
        moves = tb.game(SIX).moves(position)[1]
    return next(m.position for m in moves if m.move == move)


def _click(page: Any, *points: str) -> None:
    for point in points:
        page.click(f'#drawn-board g[data-point="{point}"]')


def _shows(page: Any, position: str) -> None:
    page.wait_for_function(f"document.getElementById('position').textContent === {position!r}")


def test_a_placement_and_a_step_each_with_a_capture(served: tuple[Server, str],
                                                     browser: Any) -> None:
    server, db = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}game/{SIX}?position={PLACING.replace(' ', '%20')}")
    page.wait_for_selector('#drawn-board g[data-point="e1"] .ring')
    # 16 points, 20 lines between them; x's two stones and o's two stand where the text says.
    assert page.eval_on_selector_all("#drawn-board .edge", "els => els.length") == 20
    assert page.eval_on_selector_all("#drawn-board g.point", "els => els.length") == 16
    assert page.eval_on_selector_all("#drawn-board .stone.x", "els => els.length") == 2
    assert page.eval_on_selector_all("#drawn-board .stone.o", "els => els.length") == 2
    # e1 closes a mill: the first click waits for the stone taken.
    assert "win" in page.get_attribute('#drawn-board g[data-point="e1"] .ring', "class")
    _click(page, "e1")
    page.wait_for_selector('#drawn-board g[data-point="a5"] .ring')
    assert page.inner_text("#position") == PLACING
    _click(page, "a5")
    _shows(page, _after(db, PLACING, "e1xa5"))
    # From the moving position: a step is two clicks, a step that closes a mill three.
    page.goto(f"{server.url}game/{SIX}?position={STEPPING.replace(' ', '%20')}")
    page.wait_for_selector('#drawn-board g[data-point="c1"] .ring')
    _click(page, "c1", "c2")
    _shows(page, _after(db, STEPPING, "c1-c2"))
    page.click("#undo")
    _shows(page, STEPPING)
    _click(page, "e3", "e1")
    assert page.inner_text("#position") == STEPPING
    _click(page, "b4")
    _shows(page, _after(db, STEPPING, "e3-e1xb4"))
    assert errors == []
    shots = os.environ.get("TABLEBASE_SCREENSHOT")
    for width in (1280, 375) if shots else ():
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{server.url}game/{SIX}?position={STEPPING.replace(' ', '%20')}")
        page.wait_for_selector("#drawn-board .ring")
        _click(page, "e3", "e1")
        page.screenshot(path=str(Path(shots) / f"morris-{width}.png"), full_page=True)
    context.close()


def test_the_main_page_opens_a_morris_table(served: tuple[Server, str], browser: Any) -> None:
    server, _ = served
    context = browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(server.url)  # only keyed games here: the page opens the first one's own page
    page.wait_for_selector("#drawn-board g.point")
    shown = {"Six Men's Morris, 3 stones a side (six-mens-morris+stones3)": 16, "Achi (achi)": 9}
    page.wait_for_function("document.getElementById('name').textContent.includes('(')")
    name = page.inner_text("#name")  # the game's title, then its name
    assert name in shown
    assert page.eval_on_selector_all("#drawn-board g.point", "els => els.length") == shown[name]
    # A table of ranked tiers counts by tier: a stacked bar a tier, each part named.
    page.wait_for_function("document.getElementById('counts-title').textContent"
                           ".includes('by tier')")
    titles = page.eval_on_selector_all("#counts rect title", "els => els.map(e => e.textContent)")
    tiers = [t.name for t in MorrisGame(name.split("(")[-1][:-1]).ranked().ranked_tiers()]
    assert sorted({t.split(":")[0] for t in titles}) == sorted(f"tier {n}" for n in tiers)
    assert len(titles) == 3 * len(tiers)
    context.close()

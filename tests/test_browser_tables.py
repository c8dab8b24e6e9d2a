"""The page with several tables, in Debian's Chromium: links open the table that holds their
board, bad links still leave a game to play, the value chart puts a near win far from the axis,
the depth digits are readable on every cell, Connect Four drops discs, and a 375 px phone
scrolls nothing sideways. Screenshots at 1280 and 375 px go to TABLEBASE_SCREENSHOTS (a
folder) when it is set, else to the test's temporary folder."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.boards import play_moves
from tablebase.builder.games.grid.notation import board_text
from tablebase.builder.pipeline import build

# `browser` is test_browser.py's fixture: one Chromium per module, launched the same way.
from tests.test_browser import Server, _settled, _shown_board, browser  # noqa: F401

ENDGAME = "7x6k4+gravity"
ROOT_MOVES = "e1 d1 e2 d2 d3 b1 e3 e4 c1 d4 c2 d5 c3 c4 e5 d6 c5 e6 c6 f1 a1 a2"  # 22 stones


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("page") / "tables.db"
    build("3x3k3", str(path))
    build("4x4k4+gravity", str(path))
    build(ENDGAME, str(path), root=play_moves(parse_spec(ENDGAME), ROOT_MOVES))
    return str(path)


@pytest.fixture(scope="module")
def server(db: str) -> Iterator[Server]:
    s = Server(db)
    yield s
    s.stop()


def _page(browser: Any, width: int) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TABLEBASE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_an_endgame_link_opens_its_table(browser: Any, server: Server, tmp_path: Path) -> None:
    spec = parse_spec(ENDGAME)
    root = board_text(spec, play_moves(spec, ROOT_MOVES))
    board = board_text(spec, play_moves(spec, ROOT_MOVES + " a a"))
    page = _page(browser, 1280)
    page.goto(f"{server.url}?spec={quote(ENDGAME)}&board={quote(board)}")
    _settled(page)
    assert _shown_board(page) == board
    assert page.input_value("#game") == f"{ENDGAME}@{root}"
    label = page.eval_on_selector("#game", "s => s.selectedOptions[0].textContent")
    assert label.startswith("Connect Four 7x6 endgame, 22 stones, x to move: ")
    # The counts chart is this table's: its top is the table's largest ply.
    page.wait_for_selector("#counts rect", state="attached")
    stats = page.evaluate(f"fetch('/api/{quote(ENDGAME)}/stats?root={quote(root)}')"
                          ".then(r => r.json())")
    top = max(r["win"] + r["draw"] + r["loss"] for r in stats["per_ply"])
    assert page.eval_on_selector("#counts text", "t => t.textContent") == f"{top:,}"
    # Discs in columns: a click on the top cell of column a drops to its lowest free cell.
    page.click("#board rect[data-cell='0']")
    _settled(page)
    assert _shown_board(page) == board_text(spec, play_moves(spec, ROOT_MOVES + " a a a"))
    page.wait_for_timeout(400)  # the dropped disc lands
    page.screenshot(path=str(_shots(tmp_path) / "page-1280.png"), full_page=True)
    page.click("#new")
    _settled(page)
    assert _shown_board(page) == root
    assert page.errors == []


def test_a_literal_plus_and_bad_links(browser: Any, server: Server) -> None:
    page = _page(browser, 1280)
    page.goto(f"{server.url}?spec=4x4k4+gravity")
    _settled(page)
    assert page.input_value("#game") == "4x4k4+gravity"
    assert page.eval_on_selector_all("#board rect.cell", "els => els.length") == 16
    assert page.is_hidden("#error")
    # A game no table holds opens all the same: its positions are searched, and it says so.
    page.goto(server.url + "?spec=4x4k4")  # proved by search in well under a second
    assert "by search" in _settled(page) and page.is_hidden("#error")
    assert page.eval_on_selector_all("#board rect.cell", "els => els.length") == 16
    for link, fragment in (("?spec=tictactoe&board=xx", "board 'xx'"),
                           ("?spec=banana", "cannot read spec 'banana'")):
        page.goto(server.url + link)
        _settled(page)
        assert fragment in page.inner_text("#error") and page.is_visible("#error"), link
        assert page.eval_on_selector_all("#board rect.open", "els => els.length") > 0, link
        assert "loading" not in page.inner_text("#status")
    assert page.errors == []


def test_a_searched_position_says_what_search_proved(browser: Any, server: Server,
                                                     tmp_path: Path) -> None:
    """A shared link to a 7x7 Gomoku position with 40 empty cells (no table could hold it):
    the page shows the search's answer, says it came from search, and marks d4 best.
    TABLEBASE_SEARCH_SCREENSHOT=PATH keeps its screenshots too (PATH-1280, PATH-375)."""
    # 7x7 five in a row, no table: o to move wins in 5 with d4 (tests/search_positions).
    board = ".....x./.....o./....o../....xx./....o../....xo./....x.."
    for width in (1280, 375):
        page = _page(browser, width)
        page.goto(f"{server.url}?spec=7x7k5&board={quote(board)}")
        page.wait_for_selector("#board rect.open", timeout=20_000)
        status = _settled(page, 25)  # the server's search budget and then some
        assert status == "o to move: win in 5 plies with perfect play (no table holds it; by search)"
        best = page.eval_on_selector_all(
            "#moves button.best", "els => els.map(e => e.textContent.split(/\\s+/)[0])")
        assert "d4" in best
        assert page.input_value("#game") == "7x7k5"
        label = page.eval_on_selector("#game", "s => s.selectedOptions[0].textContent")
        assert label == "Gomoku 7x7 (7x7k5), by search"
        # No stored positions to count: the chart is hidden and the note says why.
        assert page.eval_on_selector("#counts", "e => getComputedStyle(e).display") == "none"
        assert "answered by search" in page.inner_text("#counts-note")
        # Every move shows the same thing on its cell and in the list.
        cells = dict(page.eval_on_selector_all(
            "#board rect.open", "els => els.map(e => [e.dataset.move,"
            " e.nextElementSibling.textContent])"))
        listed = dict(line.split(maxsplit=1) for line in page.eval_on_selector_all(
            "#moves button", "els => els.map(e => e.textContent)"))
        assert sorted(cells) == sorted(listed) and len(cells) == 40
        signs = {"win": "+", "loss": "\u2212"}
        for move, words in listed.items():
            mark = cells[move]
            if words.startswith(("win in", "loss in")):
                value, _, plies = words.split()
                assert mark == f"{signs[value]}{plies}", (move, mark, words)
            else:
                assert (words, mark) in {("?", "?"), ("draw", "="), ("\u2265 draw", "\u2265="),
                                         ("\u2264 draw", "\u2264=")}, (move, mark, words)
        assert listed["d4"].rstrip(" *") == "win in 5" and cells["d4"] == "+5"
        shot = _shots(tmp_path) / f"searched-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get("TABLEBASE_SEARCH_SCREENSHOT"):
            kept = Path(os.environ["TABLEBASE_SEARCH_SCREENSHOT"])
            page.screenshot(path=str(kept.with_name(f"{kept.stem}-{width}{kept.suffix}")),
                            full_page=True)
        assert page.errors == []


def test_a_near_win_is_far_from_the_axis(browser: Any, server: Server, tmp_path: Path) -> None:
    page = _page(browser, 1280)
    page.goto(f"{server.url}?spec=tictactoe&board=xx./oo./...")
    _settled(page)
    page.click("#board rect[data-move='c3']")  # x wins at once
    _settled(page)
    assert page.inner_text("#result") == "game over: x wins"
    assert page.eval_on_selector_all("#board line.win-line", "els => els.length") == 1
    page.screenshot(path=str(_shots(tmp_path) / "page-1280-won.png"))
    ys = page.eval_on_selector_all("#history circle", "els => els.map(e => +e.getAttribute('cy'))")
    axis = page.eval_on_selector("#history line", "l => +l.getAttribute('y1')")
    assert ys[-1] == min(ys) and axis - ys[-1] > 0.9 * axis - 10  # at the top edge
    assert ys[0] < axis  # x to move with a win in 1 already: above the axis
    # Every depth digit reads on its cell (WCAG AA: 4.5:1).
    page.goto(f"{server.url}?spec=tictactoe&board=x.o/.x./...")
    _settled(page)
    cells = page.eval_on_selector_all(
        "#board rect.open", "els => els.map(r => r.getAttribute('fill'))")
    digits = page.eval_on_selector_all("#board text.depth",
                                       "els => els.map(t => t.getAttribute('fill'))")
    assert len(cells) == len(digits) > 0
    for cell, digit in zip(cells, digits):
        assert _contrast(cell, digit) >= 4.5, (cell, digit)
    assert page.errors == []


def _contrast(a: str, b: str) -> float:
    def light(colour: str) -> float:
        if colour.startswith("#"):
            value = colour.lstrip("#")
            rgb = [int(value[i:i + 1] * 2, 16) for i in range(3)] if len(value) == 3 else \
                [int(value[i:i + 2], 16) for i in (0, 2, 4)]
        else:
            rgb = [int(x) for x in colour[colour.index("(") + 1:-1].split(",")]
        lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4
               for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((light(a), light(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_a_phone_scrolls_nothing_sideways(browser: Any, server: Server, tmp_path: Path) -> None:
    spec = parse_spec(ENDGAME)
    board = board_text(spec, play_moves(spec, ROOT_MOVES + " a"))
    page = _page(browser, 375)
    page.goto(f"{server.url}?spec={quote(ENDGAME)}&board={quote(board)}")
    _settled(page)
    page.wait_for_selector("#counts rect", state="attached")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    sizes = page.eval_on_selector_all(".chart text", """els => els.map(t => {
        const svg = t.ownerSVGElement;
        return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width
               / svg.viewBox.baseVal.width; })""")
    assert sizes and min(sizes) >= 11, sizes
    page.screenshot(path=str(_shots(tmp_path) / "page-375.png"), full_page=True)
    page.goto(f"{server.url}?spec=tictactoe&board=x.o/.x./...")
    _settled(page)
    page.click("#board rect[data-move='c1']")
    _settled(page)
    page.screenshot(path=str(_shots(tmp_path) / "page-375-tictactoe.png"), full_page=True)
    assert page.errors == []

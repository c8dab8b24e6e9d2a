"""The page on a game whose stones move (3x3k3+stones3), in Debian's Chromium: a step played by
two clicks (the stone, then its cell), every movable stone showing its best step's value and
the picked stone's cells their steps' values, as the table gives them; draws by endless play
said so; a drawn perfect line that stops where a position repeats; a whole game against
perfect play through both phases; a 375 px phone. Skipped as tests/test_browser.py is.
TABLEBASE_SCREENSHOTS (a folder) keeps page-moving-1280.png and page-moving-375.png."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.notation import board_text
from tablebase.query import open_tablebase
from tablebase.query.wording import outcome_text

# Importing test_browser.py applies its skip rule (no Chromium, no playwright: skipped).
from tests.test_browser import Server, _settled, _shown_board, shared_browser

SPEC = "3x3k3+stones3"
NAMES = [f"{c}{r}" for r in (3, 2, 1) for c in "abc"]  # cell -> name, row-major from the top


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    return table_db(SPEC)


@pytest.fixture(scope="module")
def browser(pytestconfig: pytest.Config) -> Iterator[Any]:
    """Debian's Chromium, the one tests/test_browser.py launches for the whole process."""
    yield from shared_browser(pytestconfig)


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


def _cells(page: Any, selector: str, key: str) -> dict[str, tuple[str, str, str]]:
    """name of the move a cell carries (`key`: move or best) -> (value, depth, mark)."""
    return {m: (v, d, t) for m, v, d, t in page.eval_on_selector_all(selector, f"""els => els.map(e =>
        [e.dataset.{key}, e.dataset.value, e.dataset.depth,
         [...e.parentNode.querySelectorAll('text.depth')].find(t =>
            +t.getAttribute('x') === +e.getAttribute('x') + 50
            && +t.getAttribute('y') > +e.getAttribute('y')
            && +t.getAttribute('y') < +e.getAttribute('y') + 100).textContent])""")}


def _mark(value: str, depth: int | None) -> str:
    """The board's mark of a move, as the page's legend says: + win, = draw, − loss, then the
    plies to the end with that move."""
    plies = "" if depth is None else str(depth + 1)
    return {"win": "+", "draw": "=", "loss": "\u2212"}[value] + ("" if value == "draw" else plies)


def _expected(moves: list[Any]) -> dict[str, tuple[str, str, str]]:
    return {m.move: (m.value.word, "" if m.depth is None else str(m.depth),
                     _mark(m.value.word, m.depth)) for m in moves}


def test_a_step_by_two_clicks(browser: Any, server: Server, db: str, tmp_path: Path) -> None:
    spec = parse_spec(SPEC)
    board = "..x/x.o/oxo x"  # x to move: a win, draws and a loss among the steps
    page = _page(browser, 1280)
    page.goto(f"{server.url}?spec={quote(SPEC)}&board={quote(board)}")
    _settled(page)
    with open_tablebase(db) as tb:
        probe, moves = tb.probe(SPEC, board), tb.moves(SPEC, board)
        assert page.inner_text("#status") == (
            f"x to move: {outcome_text(probe.value, probe.depth)} with perfect play")
        # Before a pick: no cell is open; each movable stone shows its best step (the first of
        # its steps, best first), on the board as in the list.
        assert page.eval_on_selector_all("#board rect.open", "els => els.length") == 0
        best: dict[str, Any] = {}
        for m in moves:
            best.setdefault(m.move.split("-")[0], m)
        shown = _cells(page, "#board rect.movable", "best")
        assert shown == _expected(list(best.values()))
        listed = page.eval_on_selector_all("#moves button", "els => els.map(e => e.textContent)")
        assert [t.split()[0] for t in listed] == [m.move for m in moves]
        for text, m in zip(listed, moves):
            words = "draw (endless play)" if m.depth is None else \
                f"{m.value.word} in {m.depth + 1}"
            assert text.rstrip(" *").split(maxsplit=1)[1].strip() == words
        # Pick the stone with the most kinds of step; its cells show their steps' values.
        stone = max(best, key=lambda s: len({m.value for m in moves if m.move.startswith(s)}))
        cell = NAMES.index(stone)
        page.click(f"#board rect[data-cell='{cell}']")
        assert page.get_attribute("#board rect.picked", "data-cell") == str(cell)
        steps = [m for m in moves if m.move.startswith(f"{stone}-")]
        assert _cells(page, "#board rect.open", "move") == _expected(steps)
        assert f"the stone on {stone}" in page.inner_text("#hint")
        # A second click on the stone lets it go; a third picks it again.
        page.click(f"#board rect[data-cell='{cell}']")
        assert page.eval_on_selector_all("#board rect.open", "els => els.length") == 0
        page.click(f"#board rect[data-cell='{cell}']")
        page.screenshot(path=str(_shots(tmp_path) / "page-moving-1280.png"), full_page=True)
        # The second click, on a drawn step's cell, plays the step.
        step = next(m for m in steps if m.depth is None)
        page.click(f"#board rect[data-move='{step.move}']")
        _settled(page)
        after = board_text(spec, tb.read_board(SPEC, f"{board} {step.move}"))
        assert _shown_board(page) == after and after.endswith(" o")
        assert page.inner_text("#status") == "o to move: draw (endless play) with perfect play"
        assert page.inner_text("#played") == f"x {step.move}"
        start, to = step.move.split("-")
        # The dashed square on the cell the stone went to, the dot on the one it left.
        assert _centre(page, "#board .last-mark") == _centre(page, _cell(to))
        assert _centre(page, "#board .from-mark") == _centre(page, _cell(start))
        best = {}
        for m in tb.moves(SPEC, after):
            best.setdefault(m.move.split("-")[0], m)
        assert _cells(page, "#board rect.movable", "best") == _expected(list(best.values()))
        # Its perfect line is a draw: it stops where a position comes back, and says so.
        line, repeats = tb.moving_line(SPEC, after)
    assert repeats
    page.click("#line-button")
    page.wait_for_selector("#line li.repeats")
    items = page.eval_on_selector_all("#line li", "els => els.map(e => e.textContent)")
    assert [t.split()[1] for t in items[:-1]] == [s.move for s in line]
    assert "comes back: perfect play goes round forever (a draw by endless play)" in items[-1]
    # The value history: both positions on the axis (draws have no depth).
    assert page.eval_on_selector_all("#history circle", "els => els.map(e => e.dataset.valueX)") \
        == ["win", "draw"]
    assert page.errors == []


def test_a_whole_game_against_perfect_play(browser: Any, server: Server, db: str,
                                           tmp_path: Path) -> None:
    """As o against the computer from the empty board, on a phone: placements by one click
    (the best), then steps by two (the one that loses fastest, so that the game ends); the
    computer's moves are the table's first best move each time."""
    page = _page(browser, 375)
    page.goto(server.url)
    _settled(page)
    page.select_option("#game", SPEC)
    page.select_option("#side", "o")
    _settled(page)
    with open_tablebase(db) as tb:
        previous, plies = "", 0
        while not _settled(page).startswith("game over"):
            board = _shown_board(page)
            assert board != previous
            assert page.inner_text("#status").startswith("o to move (you): ")
            moves = tb.moves(SPEC, board)
            # o places its stones well, then steps into the fastest loss it can find.
            stepping = "-" in moves[0].move
            choice = min(moves, key=lambda m: (m.value, m.depth or 0)) if stepping else moves[0]
            if "-" in choice.move:
                start = NAMES.index(choice.move.split("-")[0])
                page.click(f"#board rect[data-cell='{start}']")
                assert page.get_attribute("#board rect.picked", "data-cell") == str(start)
            page.click(f"#board rect[data-move='{choice.move}']")
            previous, plies = board, plies + 1
            assert plies < 30
        final = _shown_board(page)
        probe = tb.probe(SPEC, final)
        assert probe.terminal and probe.to_move == "o" and probe.value.word == "loss"
        played = page.eval_on_selector_all("#played button", "els => els.map(e => e.textContent)")
        assert any("-" in p for p in played)  # the game reached the movement phase
        # Each of the computer's moves (x's) was the first best move where it was played.
        names = [text.split()[1] for text in played]
        for i, text in enumerate(played):
            if text.startswith("x "):
                assert names[i] == tb.moves(SPEC, " ".join(names[:i]))[0].move
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(_shots(tmp_path) / "page-moving-375.png"), full_page=True)
    assert page.errors == []


def _cell(name: str) -> str:
    return f"#board rect[data-cell='{NAMES.index(name)}']"


def _centre(page: Any, selector: str) -> tuple[float, float]:
    """The centre of an element of the board, in the board's units."""
    box = page.eval_on_selector(selector, "e => { const b = e.getBBox();"
                                " return [b.x + b.width / 2, b.y + b.height / 2]; }")
    return box[0], box[1]


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TABLEBASE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder

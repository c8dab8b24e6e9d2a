"""The page of `tablebase serve` in a real browser: Debian's Chromium driven by Playwright,
against a real uvicorn on 127.0.0.1. Plays a whole tic-tac-toe game against perfect play by
clicking, checks every move's colour against the table, opens a shared link, and checks that
a stopped server shows an error instead of hanging.

Skipped, saying so, when no Chromium is installed (`.ci/run` installs it with apt-get).
Set TABLEBASE_SCREENSHOT=PATH to keep the screenshot (docs/screenshot.png is made so).
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.boards import parse_board, play_moves
from tablebase.builder.games.grid.notation import board_text
from tablebase.query import open_tablebase

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "")
                 if p and os.path.exists(p)), None)
if CHROMIUM is None:
    pytest.skip("browser tests skipped: no Chromium (install it: apt-get install chromium)",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api",
                                 reason="browser tests skipped: the playwright package is missing")

# The machine's network is closed and nothing should be fetched: no first-run, sync, updates.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


class Server:
    """`python -m tablebase serve` on a free port of 127.0.0.1, in a child process."""

    def __init__(self, db: str, *extra: str) -> None:
        self.proc = subprocess.Popen(
            # --search 10: the searched positions here take a fifth of a second alone, on search
            # threads that run nicer than the rest; a machine loaded four times over (the suite
            # on two cores beside other work) once ran out of 4 s (a pass needs no more time).
            [sys.executable, "-m", "tablebase", "serve", "--db", db, "--port", "0", "--search",
             "10", *extra], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if found is None:
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line!r} {self.proc.stderr.read()!r}")
        self.url = found.group(0)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.send_signal(signal.SIGINT)  # Ctrl-C: uvicorn's clean shutdown
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    table_db("4x3k3+gravity")
    return table_db("3x3k3")


@pytest.fixture(scope="module")
def server(db: str) -> Iterator[Server]:
    s = Server(db)
    yield s
    s.stop()
    assert s.proc.returncode == 0  # Ctrl-C stops cleanly


_LAUNCHED: dict[str, Any] = {}  # the one Chromium of this pytest process, while it is open


def _close_chromium() -> None:
    if "browser" in _LAUNCHED:
        _LAUNCHED.pop("browser").close()
        _LAUNCHED.pop("driver").stop()


class _CloseWhenDone:
    """Closes the shared Chromium before the first test of another file that does not use it:
    Playwright's event loop counts as running on this thread while it is open, and another
    test's loop (tests/loop_client.py's, asyncio.run's) could not run beside it."""

    def __init__(self) -> None:
        self.file: Path | None = None  # the file of the last test that used it

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if "browser" in getattr(item, "fixturenames", ()):
            self.file = item.path
        elif item.path != self.file:
            _close_chromium()


def shared_browser(config: pytest.Config) -> Iterator[Any]:
    """The Chromium of the browser files a pytest process runs one after another: launched by
    the first (some 3 s of CPU each time), closed before another file's test that does not use
    it or at the session's end. Tests share nothing through it: each opens its own context, and a
    file's contexts left open are closed when the file ends."""
    if "browser" not in _LAUNCHED:
        _LAUNCHED["driver"] = playwright.sync_playwright().start()
        _LAUNCHED["browser"] = _LAUNCHED["driver"].chromium.launch(executable_path=CHROMIUM,
                                                                  args=FLAGS)
        if not config.pluginmanager.is_registered(_CLOSER):
            config.pluginmanager.register(_CLOSER)
            config.add_cleanup(_close_chromium)
    launched = _LAUNCHED["browser"]
    yield launched
    for context in launched.contexts:
        context.close()


_CLOSER = _CloseWhenDone()


@pytest.fixture(scope="module")
def browser(pytestconfig: pytest.Config) -> Iterator[Any]:
    yield from shared_browser(pytestconfig)


@pytest.fixture
def tab(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """A fresh page, and the script errors it raises."""
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page, errors
    context.close()


def _rgb(text: str) -> tuple[int, int, int]:
    r, g, b = (int(x) for x in re.findall(r"\d+", text))
    return r, g, b


def _shown_board(page: Any) -> str:
    """The position the page shows, read from its share link."""
    href = page.get_attribute("#share", "href")
    return parse_qs(urlparse(href).query)["board"][0]


def _settled(page: Any, seconds: float = 10) -> str:
    """Wait until the page has drawn its position and owes no computer move; the status."""
    page.wait_for_selector("body[data-busy='no']", timeout=seconds * 1000)
    return page.inner_text("#status")


def _check_colours(page: Any, tb: Any, board: str) -> list[dict[str, Any]]:
    """Every open cell on the page carries its move's value and depth from the table, in the
    value's colour; faster wins and slower losses are brighter. Returns the cells."""
    cells = page.eval_on_selector_all("#board rect.open", """els => els.map(e => ({
        move: e.dataset.move, value: e.dataset.value, depth: +e.dataset.depth,
        fill: e.getAttribute('fill')}))""")
    moves = {m.move: m for m in tb.moves("3x3k3", board)}
    assert {c["move"] for c in cells} == set(moves)
    for c in cells:
        m = moves[c["move"]]
        assert (c["value"], c["depth"]) == (m.value.word, m.depth)
        r, g, b = _rgb(c["fill"])
        if m.value.word == "win":
            assert g > r + 50 and g > b + 50, c
        elif m.value.word == "draw":
            assert r > 180 and g > 150 and b < 100, c
        else:
            assert r > g + 50 and r > b + 20 and g < 60, c
    for word, brighter_when in (("win", -1), ("loss", 1)):
        ranked = sorted((c for c in cells if c["value"] == word),
                        key=lambda c: brighter_when * c["depth"])
        for dimmer, brighter in zip(ranked, ranked[1:]):
            if dimmer["depth"] != brighter["depth"]:
                assert sum(_rgb(brighter["fill"])) > sum(_rgb(dimmer["fill"])), (dimmer, brighter)
    return cells


def test_play_a_whole_game_against_perfect_play(tab: tuple[Any, list[str]], server: Server,
                                                db: str) -> None:
    page, errors = tab
    page.goto(server.url)
    page.wait_for_selector("#board rect.open")
    with open_tablebase(db) as tb:
        played = 0
        while not _settled(page).startswith("game over"):
            board = _shown_board(page)
            probe = tb.probe("3x3k3", board)
            assert page.inner_text("#status") == (
                f"x to move (you): {probe.value.word} in {probe.depth} plies with perfect play")
            cells = _check_colours(page, tb, board)
            # Throw the game away as soon as a move allows it, so the computer has a win to find.
            choice = next((c for c in cells if c["value"] == "loss"), cells[0])
            page.click(f"#board rect[data-move='{choice['move']}']")
            played += 1
            if played == 2:  # the perfect line from here, as the table gives it
                _settled(page)  # the computer's reply drawn: a line asked before is dropped
                page.click("#line-button")
                page.wait_for_selector("#line li")
        final = _shown_board(page)
        probe = tb.probe("3x3k3", final)
        assert probe.terminal and probe.value.word == "loss" and probe.to_move == "x"
        assert page.inner_text("#status") == "game over: o wins"
        # The value history has a point per position, all of them after x's blunder o's wins.
        points = page.eval_on_selector_all("#history circle", "els => els.map(e => e.dataset.valueX)")
        assert len(points) == probe.ply + 1 and points[-1] == "loss"
        assert page.eval_on_selector_all("#counts rect", "els => els.length") == 3 * 10
    assert errors == []


def test_a_shared_link_opens_its_position(tab: tuple[Any, list[str]], server: Server, db: str,
                                          tmp_path: Path) -> None:
    page, errors = tab
    board = ".../..x/ox."  # o to move: a win, draws, and losses slow and fast
    page.goto(f"{server.url}?spec=tictactoe&board={board}")
    page.wait_for_selector("#board rect.open")
    with open_tablebase(db) as tb:
        probe = tb.probe("3x3k3", board)
        assert page.inner_text("#status") == (
            f"o to move: {probe.value.word} in {probe.depth} plies with perfect play")
        assert page.input_value("#side") == "both"  # a visitor plays both sides at first
        assert _shown_board(page) == board
        cells = _check_colours(page, tb, board)
        assert {c["value"] for c in cells} == {"win", "draw", "loss"}
        best = tb.best_moves("3x3k3", board)[0].move
        line = [s.move for s in tb.line("3x3k3", board)]
    page.click("#line-button")
    page.wait_for_selector("#line li")
    shown = page.eval_on_selector_all("#line li", "els => els.map(e => e.textContent)")
    assert [text.split()[1] for text in shown] == line
    shot = Path(os.environ.get("TABLEBASE_SCREENSHOT") or tmp_path / "page.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page.click(f"#board rect[data-move='{best}']")
    _settled(page)
    after = _shown_board(page)
    spec = parse_spec("3x3k3")
    assert after == board_text(spec, play_moves(spec, best, parse_board(spec, board)))
    page.click("#undo")
    _settled(page)
    assert _shown_board(page) == board
    page.click("#redo")
    _settled(page)
    assert _shown_board(page) == after
    assert errors == []


def test_a_stopped_server_shows_an_error(tab: tuple[Any, list[str]], db: str) -> None:
    page, _ = tab
    own = Server(db)
    try:
        page.clock.install()  # the page's timers, run on; jumped over the 5 s wait below
        page.goto(own.url)
        page.wait_for_selector("#board rect.open")
        own.proc.send_signal(signal.SIGSTOP)  # accepts connections, never answers
        page.click("#board rect[data-cell='4']")
        page.clock.fast_forward(5_000)
        page.wait_for_selector("#error:not([hidden])", timeout=10_000)
        assert "cannot reach the server: no answer within 5 s" in page.inner_text("#error")
        own.proc.send_signal(signal.SIGCONT)
        own.proc.kill()
        own.proc.wait()
        _settled(page)  # back on the position it could show: the move can be tried again
        assert _shown_board(page) == ".../.../..."
        page.click("#board rect[data-cell='0']")  # refused at once by a dead server
        page.wait_for_function("() => document.getElementById('error').textContent"
                               " .includes('Failed to fetch')", timeout=5_000)
        assert page.inner_text("#error").startswith("cannot reach the server")
    finally:
        own.stop()


def test_a_gravity_game_plays_by_column(tab: tuple[Any, list[str]], server: Server,
                                        db: str) -> None:
    page, errors = tab
    page.goto(server.url)
    page.wait_for_selector("#board rect.open")
    page.select_option("#side", "both")
    page.select_option("#game", "4x3k3+gravity")
    page.wait_for_selector("#board rect[data-cell='11']")  # a 4-by-3 board is drawn
    _settled(page)
    with open_tablebase(db) as tb:
        # Only the bottom row is open; a click on the top of column b drops to b1.
        opened = page.eval_on_selector_all("#board rect.open", "els => els.map(e => e.dataset.move)")
        assert sorted(opened) == sorted(m.move for m in tb.moves("4x3k3+gravity", "..../..../...."))
        page.click("#board rect[data-cell='1']")
        _settled(page)
        assert _shown_board(page) == "..../..../.x.."
        page.click("#board rect[data-cell='1']")
        _settled(page)
        assert _shown_board(page) == "..../.o../.x.."
        probe = tb.probe("4x3k3+gravity", "..../.o../.x..")
        assert page.inner_text("#status") == (
            f"x to move: {probe.value.word} in {probe.depth} plies with perfect play")
        counts = page.eval_on_selector_all("#counts rect", "els => els.length")
        assert counts == 3 * (max(r["ply"] for r in _per_ply(tb, "4x3k3+gravity")) + 1)
    assert errors == []


def _per_ply(tb: Any, spec: str) -> list[dict[str, int]]:
    """Plies that hold stored positions, read from the table itself."""
    return [{"ply": int(p)} for p in set(tb.table(spec).load().ply.tolist())]

"""The `tablebase serve` command: refusals as one line and exit 2 before anything listens; a
real uvicorn (one worker and two) answering on loopback, hostile bodies answered in one line,
and stopping cleanly on Ctrl-C."""
from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tablebase.builder.pipeline import build
from tablebase.query.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database of its own (the shared one may hold 4x3k3, which the servers must search),
    read by every server here."""
    path = str(tmp_path_factory.mktemp("serve") / "t.db")
    build("3x3k3", path)
    return path


def _refused(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablebase: error: ") and fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_refusals(tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["serve", "--db", str(tmp_path / "none.db"), "--no-search"], "no such database file",
             capsys)
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    _refused(["serve", "--db", str(tmp_path / "junk.db")], "junk.db", capsys)
    _refused(["serve", "--db", db, "--workers", "0"], "--workers must be at least 1", capsys)
    _refused(["serve", "--db", db, "--port", "http"], "expected a port from 1 to 65535", capsys)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        _refused(["serve", "--db", db, "--port", str(port)],
                 f"cannot listen on 127.0.0.1 port {port}", capsys)


def _get(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _post(port: int, body: bytes) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/api/3x3k3/probe", body=body,
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def _hostile_bodies(port: int) -> None:
    """A body refused before it is all read must still reach the client as an answer (a
    connection closed on unread data is reset), and nested lists must not reach the parser's
    recursion limit as a 500; the server serves on."""
    for body, status, fragment in (
            (b"[" * 100_000, 400, "nests too deep"),
            (b'["' + b"x" * (50 << 20) + b'"]', 413, "at most 2,097,152 are accepted"),
            (b'[["x.o/.x./..."]]', 400, "board 1 of 1: expected board text or moves"),
            (b'"x.o/.x./..."', 400, "expected a JSON list")):
        answered, data = _post(port, body)
        assert answered == status and fragment in str(data["error"]), data
        assert "\n" not in str(data["error"])
    answered, data = _post(port, b'["x.o/.x./...", "b2 a1"]')
    assert answered == 200 and [d["value"] for d in data] == ["draw", "draw"]  # type: ignore[index]


@pytest.mark.parametrize("workers", [1, 2])
def test_serves_on_loopback_and_stops_on_ctrl_c(workers: int, db: str) -> None:
    """Answers from the table and by search; with one worker, hostile bodies too (on the
    server these checks once started one of their own for)."""
    # --search 10: the game searched below takes milliseconds alone, but a machine loaded by
    # the whole suite must still prove it within half the budget.
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", db, "--port", "0",
                             "--workers", str(workers), "--search", "10"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        found = re.match(r"serving .* at (http://127\.0\.0\.1:(\d+)/) \(", line)
        assert found, line
        url = found.group(1)
        for _ in range(100):  # worker processes start after the line is printed
            try:
                status, body = _get(url + "health")
                break
            except OSError:
                time.sleep(0.1)
        assert status == 200 and body["status"] == "ok"
        status, body = _get(url + "api/tictactoe?moves=b2")
        assert status == 200 and body["to_move"] == "o" and body["value"] == "draw"
        # No table of 4x3k3: every worker searches it (the --search budget reached them). A
        # game solved in milliseconds, so that a loaded machine still proves it in budget.
        status, body = _get(url + "api/4x3k3")
        assert status == 200 and body["source"] == "search" and body["value"] == "win"
        if workers == 1:
            _hostile_bodies(int(found.group(2)))
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, err
    assert "Traceback" not in err

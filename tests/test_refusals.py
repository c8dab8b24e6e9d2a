"""What is refused, in one line, before anything is written: builds into read-only files and
folders, builds estimated past a billion positions or the free disk, ports out of range; and
what still works from a read-only place."""
from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from functools import cache
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.builder.games.grid.counts import reachable_bound, reachable_estimate
from tablebase.query.cli import main
from tests.reference import Game, play, reachable_from

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def _one_line(err: str, *fragments: str) -> None:
    assert err.count("\n") == 1 and err.startswith("tablebase: error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


# --- read-only places -----------------------------------------------------------------

@pytest.fixture
def read_only(tmp_path: Path, table_db: Callable[[str], str]) -> Iterator[Path]:
    """A read-only folder holding a copy of a 3x3k3 database: a read-only bind mount as root
    (who may write anything the permissions forbid), the permissions otherwise."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "t.db").write_bytes(Path(table_db("3x3k3")).read_bytes())
    if os.geteuid() != 0:
        (source / "t.db").chmod(0o444)
        source.chmod(0o555)
        yield source
        source.chmod(0o755)
        return
    target = tmp_path / "ro"
    target.mkdir()
    made = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot make a read-only place as root here: {made.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(target)], check=True)
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=True)


def test_a_proof_path_that_cannot_be_written_is_refused_before_the_search(tmp_path: Path) -> None:
    for path, why in ((tmp_path / "none" / "p.proof", "no directory"),
                      (tmp_path, "is a directory")):
        status, out, err = _run("solve", "8x8k5", "--proof", str(path), "--nodes", "100000",
                                "--quiet")
        assert (status, out) == (2, "")
        _one_line(err, str(path), why)
    assert sorted(tmp_path.iterdir()) == []


def test_read_only_places(read_only: Path, tmp_path: Path) -> None:
    db = str(read_only / "t.db")
    before = Path(db).read_bytes()
    status, _, err = _run("build", "4x3k3", "--db", db, "--quiet")
    assert status == 2
    _one_line(err, db, "the file is read-only")
    status, _, err = _run("build", "4x3k3", "--db", str(read_only / "new.db"), "--quiet")
    assert status == 2
    _one_line(err, str(read_only), "is read-only")
    assert not (read_only / "new.db").exists() and Path(db).read_bytes() == before
    # Reading needs no writing.
    assert _run("probe", "3x3k3", "x.o/.x./...", "--db", db) == (0, "o to move: draw in 6 plies\n", "")
    status, out, _ = _run("verify", "3x3k3", "--db", db, "--quiet")
    assert status == 0 and "all 765 positions verified" in out
    status, out, _ = _run("export", "3x3k3", "--db", db)
    assert status == 0 and len(out.splitlines()) == 766
    status, _, err = _run("export", "3x3k3", "--db", db, "-o", str(read_only / "x.csv"), "--quiet")
    assert status == 2
    _one_line(err, str(read_only / "x.csv"))
    # A proof that could not be written is refused before the search (minutes on 8x8k5).
    proof = str(read_only / "p.proof")
    status, out, err = _run("solve", "8x8k5", "--proof", proof, "--nodes", "100000", "--quiet")
    assert (status, out) == (2, "")
    _one_line(err, proof, "not writable")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient
    from tablebase.query.server.app import make_app
    with TestClient(make_app(db)) as client:
        assert client.get("/api/3x3k3", params={"board": "x.o/.x./..."}).json()["depth"] == 6
    assert Path(db).read_bytes() == before


# --- estimates before a build ---------------------------------------------------------

@pytest.mark.parametrize("argv, label", [
    (["build", "30x1k3"], "30x1k3"),
    (["build", "7x6k4+gravity", "--moves", "d d d"], "7x6k4+gravity endgame (3 stones)"),
])
def test_builds_past_reach_are_refused_with_the_estimate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], label: str) -> None:
    db = str(tmp_path / "big.db")
    status, out, err = _run(*argv, "--db", db, "--quiet")
    assert status == 2 and out == ""
    _one_line(err, f"{label}: not started", "positions", "of work space", "--yes")
    assert os.listdir(tmp_path) == []
    # --yes goes ahead: the build starts (and is stopped here as it loads its kernels).
    def stop(_: object) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr("tablebase.builder.pipeline._load_kernels", stop)
    status, out, err = _run(*argv, "--db", db, "--quiet", "--yes")
    assert status == 130 and err.startswith("estimate: about ") and "interrupted" in err


def test_a_small_build_prints_nothing_extra(tmp_path: Path) -> None:
    status, out, err = _run("build", "4x3k3", "--db", str(tmp_path / "t.db"), "--quiet")
    assert status == 0 and err == "" and out.startswith("built 4x3k3 into")


@cache
def _reached(spec: str, moves: str) -> tuple[tuple[int, ...], int]:
    """(the root `moves` reach, the boards the plain search reaches from it): the two estimate
    tests share the slow ones (4x3k3's 111,973 boards: a second of tests/reference.py)."""
    game = Game(spec)
    root = play(game, moves)
    return root, len(reachable_from(game, root))


def test_the_estimate_bounds_what_is_built() -> None:
    """The bound counts boards without wins: never below what the plain search reaches."""
    for spec, moves in [("3x3k3", ""), ("4x3k3", ""), ("3x3k3+gravity", ""),
                        ("4x4k4+gravity", "b1 c1 b2")]:
        root, found = _reached(spec, moves)
        assert reachable_bound(parse_spec(spec), root) >= found


def test_the_estimate_is_near_what_is_built() -> None:
    """The sampled estimate lands within a few per cent of the plain search's count. A board
    drawn beyond a root is tested for reachability from the empty board, not from the root,
    so the estimate of a table under gravity from a root may run a little over."""
    for spec, moves, within in [("3x3k3", "", 0.03), ("4x3k3", "", 0.03),
                                ("3x3k3+gravity", "", 0.03), ("4x4k4", "a1 b2 c3 d4 a4", 0.03),
                                ("4x4k4+gravity", "b1 c1 b2", 0.1),
                                ("5x4k4+gravity", "a1 b1 c1 d1 e1 a2 b2", 0.1)]:
        root, found = _reached(spec, moves)
        estimate = reachable_estimate(parse_spec(spec), root)
        assert abs(estimate - found) <= within * found, (spec, moves, estimate, found)


def test_probe_advice_names_only_a_table_within_reach(tmp_path: Path) -> None:
    db = str(tmp_path / "end.db")
    spec = "7x6k4+gravity"
    near = "e1 d1 e2 d2 d3 b1 e3 e4 c1 d4 c2 d5 c3 c4 e5 d6 c5 e6 c6 f1 a1 a2"
    assert _run("build", spec, "--moves", near + " f2 f3", "--db", db, "--quiet")[0] == 0
    status, _, err = _run("probe", spec, "--moves", "d d d", "--db", db, "--no-search")
    assert status == 2
    _one_line(err, "too far from the end for a table here", "stones on this board")
    assert "tablebase build" not in err
    status, _, err = _run("probe", spec, "--moves", near, "--db", db, "--no-search")
    assert status == 2
    _one_line(err, "build an endgame table from it: tablebase build 7x6k4+gravity --from")


# --- ports ------------------------------------------------------------------------------

@pytest.mark.parametrize("port", ["65536", "99999", "-1"])
def test_ports_out_of_range(port: str, table_db: Callable[[str], str]) -> None:
    status, _, err = _run("serve", "--db", table_db("3x3k3"), "--port", port)
    assert status == 2
    _one_line(err, "expected a port from 1 to 65535 (or 0 for any free one)", repr(port))


@pytest.mark.parametrize("port", ["0", "65535"])
def test_ports_at_the_ends(port: str, table_db: Callable[[str], str]) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db",
                             table_db("3x3k3"), "--port", port], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()  # never left behind, holding its port
            raise
    if port == "65535" and "cannot listen" in err:
        pytest.skip(f"port 65535 is taken on this machine: {err.strip()}")
    found = re.match(r"serving .* at http://127\.0\.0\.1:(\d+)/ ", line)
    assert found, (line, err)
    assert found.group(1) == port if port != "0" else int(found.group(1)) > 0


# --- small faults, each said plainly ----------------------------------------------------

def test_small_faults_are_said_plainly(tmp_path: Path, table_db: Callable[[str], str]) -> None:
    db = table_db("3x3k3")
    status, out, err = _run("probe", "tictactoe", "--moves", "zz", "--db", db)
    assert status == 2
    _one_line(err, "cannot read move 'zz': expected a column letter a-c and a row number 1-3")
    status, out, err = _run("probe", "tictactoe", "x o/ x /   ", "--db", db)
    assert status == 2
    _one_line(err, "a space is not a cell; write '.' for an empty cell")
    status, out, err = _run("build", "3x3k3", "--from", "xxx/ooo/...", "--db", db)
    assert status == 2
    _one_line(err, "position 'xxx/ooo/...' (3x3k3): both x and o have a line")
    assert _run("moves", "tictactoe", "xxx/oo./...", "--db", db)[1].endswith("game over: x won\n")
    assert _run("probe", "tictactoe", "xox/xox/oxo", "--db", db)[1] == "game over: a draw\n"
    # Only endgame tables: export says which to pick, and writes nothing first.
    end = str(tmp_path / "end.db")
    assert _run("build", "4x3k3", "--from", "..../.x../.o..", "--db", end, "--quiet")[0] == 0
    status, out, err = _run("export", "4x3k3", "--db", end)
    assert status == 2 and out == ""
    _one_line(err, "pick one by its root (--root POSITION")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient
    from tablebase.query.server.app import make_app
    with TestClient(make_app(end)) as client:
        error = client.get("/api/4x3k3/stats").json()["error"]
    assert "?root=POSITION" in error and "--root" not in error

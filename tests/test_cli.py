"""The command line: called through main([...]), output read back."""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.query import cli
from tablebase.query.cli import main, make_parser
from tablebase.query.cli import run as run_process

ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_build_then_info(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    status, out, err = run(capsys, "build", "tictactoe", "--db", db, "--quiet")
    assert status == 0, err
    assert "5,478 reachable, 765 canonical, 958 terminal" in out
    assert "draw in 9 plies" in out
    for stage in ("enumerate", "solve", "write"):
        assert stage in out
    assert err == ""  # quiet, and stderr is not a terminal anyway

    status, out, _ = run(capsys, "info", "--db", db)
    assert status == 0 and "3x3k3" in out and "complete" in out

    status, out, _ = run(capsys, "info", "3x3k3", "--db", db)
    assert status == 0 and "958 terminal" in out and "390 win, 151 draw, 224 loss" in out


def test_info_json_has_exactly_the_documented_keys(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    assert run(capsys, "build", "4x3k3", "--db", db, "--quiet")[0] == 0
    status, out, _ = run(capsys, "info", "4x3k3", "--db", db, "--json")
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"spec", "root", "reachable", "canonical", "terminal", "to_move",
                         "root_value", "root_depth", "checksum", "layout", "stored_bytes",
                         "per_ply"}
    assert data["root"] is None and data["to_move"] == "x" and len(data["checksum"]) == 16
    assert data["layout"] == "packed" and 0 < data["stored_bytes"] < 28275
    assert (data["spec"], data["reachable"], data["canonical"]) == ("4x3k3", 111973, 28275)
    assert (data["root_value"], data["root_depth"]) == ("win", 7)
    assert [set(p) for p in data["per_ply"]] == [{"ply", "canonical", "win", "draw", "loss"}] * 13
    assert sum(p["canonical"] for p in data["per_ply"]) == 28275
    assert all(p["canonical"] == p["win"] + p["draw"] + p["loss"] for p in data["per_ply"])
    status, out, _ = run(capsys, "info", "--db", db, "--json")
    assert status == 0 and [g["spec"] for g in json.loads(out)] == ["4x3k3"]


@pytest.mark.parametrize("argv, fragment", [
    (["build", "3x3k4"], "larger than both sides"),
    (["build", "banana"], "cannot read spec 'banana'"),
    (["build", "9x9k5"], "81 cells"),
    (["info", "4x4k4"], "build it with: tablebase build 4x4k4"),
    (["nonsense"], "invalid choice"),
    (["build"], "required: SPEC"),
    (["build", "3x3k3", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_errors_are_one_line_with_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           argv: list[str], fragment: str) -> None:
    db = str(tmp_path / "t.db")
    main(["build", "3x3k3", "--db", db, "--quiet"])
    capsys.readouterr()
    status, out, err = run(capsys, *argv, "--db", db)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("tablebase: error: ")
    assert fragment in err
    assert "Traceback" not in err


def test_out_of_memory_is_one_line_and_leaves_no_complete_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebase.builder import executor

    def no_room(*args: object, **kwargs: object) -> None:
        raise MemoryError("Unable to allocate 3.90 GiB for an array")
    monkeypatch.setattr(executor, "enumerate_tiers", no_room)
    db = str(tmp_path / "t.db")
    status, out, err = run(capsys, "build", "4x3k3", "--db", db, "--quiet")
    assert status == 2 and out == "" and "Traceback" not in err
    assert err == ("tablebase: error: out of memory; the table is not complete (a smaller"
                   " --memory budget works in smaller pieces where the build can)\n")
    monkeypatch.undo()
    status, out, err = run(capsys, "info", "--db", db)
    assert "unfinished" in out.split("4x3k3")[1].split("\n")[0]
    status, out, err = run(capsys, "probe", "4x3k3", "a1", "--db", db)
    assert status == 0 and "(by search)" in out  # no table answers it


def test_rebuild_without_force_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    assert run(capsys, "build", "3x3k3", "--db", db, "--quiet")[0] == 0
    status, _, err = run(capsys, "build", "3x3k3", "--db", db, "--quiet")
    assert status == 2 and "--force" in err
    assert run(capsys, "build", "3x3k3", "--db", db, "--quiet", "--force")[0] == 0


def test_missing_database_is_named_and_not_created(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "nope.db"
    status, _, err = run(capsys, "info", "--db", str(db))
    assert status == 2 and str(db) in err and "no such database file" in err
    assert not db.exists()


def test_commands_name_the_family_that_registers_them() -> None:
    """A process given its command imports that family alone: COMMANDS must say which."""
    from tablebase.query.cli import COMMANDS

    parser = make_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    assert set(subparsers.choices) == set(COMMANDS)  # type: ignore[attr-defined]
    for name in COMMANDS:
        alone = next(a for a in make_parser(name)._actions if a.dest == "command")
        assert name in alone.choices  # type: ignore[attr-defined]


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = make_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for name, sub in subparsers.choices.items():  # type: ignore[attr-defined]
        assert sub.description, name
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0
        assert f"usage: tablebase {name}" in capsys.readouterr().out


class _Timer:
    """A threading.Timer that records how it was set instead of waiting."""

    def __init__(self, seconds: float, function: Callable[[], None]) -> None:
        self.seconds, self.function, self.daemon, self.started = seconds, function, False, False

    def start(self) -> None:
        self.started = True


def test_the_process_entry_exits_with_the_status_after_freezing_the_collector(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The script and `python -m tablebase` run `run` (through tablebase.command), which keeps
    # the collector off for the start-up and leaves the objects alive at exit out of the
    # interpreter's last collections.
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tablebase"] == "tablebase.command:run"
    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(gc.isenabled()))
    timers: list[_Timer] = []
    monkeypatch.setattr(cli.threading, "Timer", lambda *a: timers.append(_Timer(*a)) or timers[-1])
    for argv, status in ((["solve", "3x3k3", "--db", str(tmp_path / "none.db")], 0),
                         (["solve", "3x3k3", "zz"], 2)):
        with pytest.raises(SystemExit) as exit_info:
            run_process(argv)
        assert exit_info.value.code == status and frozen.pop() is False  # off while it started
        timer = timers.pop()
        assert timer.started and timer.daemon and timer.seconds == cli.START_UP_SECONDS
        timer.function()  # the start-up over: the collector is on again for a longer command
        assert gc.isenabled()
    assert "draw in 9 plies" in capsys.readouterr().out


def test_the_command_keeps_openblas_to_one_thread_unless_told(tmp_path: Path) -> None:
    """The entry sets OPENBLAS_NUM_THREADS before numpy loads (its threads spin at import),
    leaving a user's own setting as it is."""
    code = ("import os, sys, types; from tablebase import command;"
            " assert 'numpy' not in sys.modules; stub = types.ModuleType('stub');"
            " stub.run = lambda: print(os.environ.get('OPENBLAS_NUM_THREADS'));"
            " sys.modules['tablebase.query.cli'] = stub; command.run()")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, expected in ((None, "1"), ("3", "3")):
        if given is not None:
            env["OPENBLAS_NUM_THREADS"] = given
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, check=True)
        assert done.stdout.split()[0] == expected


def test_python_dash_m_query_runs_the_command(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tablebase", "build", "3x3k3", "--db",
                           str(tmp_path / "t.db")], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "765 canonical" in proc.stdout

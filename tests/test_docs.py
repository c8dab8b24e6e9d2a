"""Every example in README.md and docs/ runs as written.

The convention (docs/architecture.md, "Examples in the documentation"):
- In a fenced block with no language or `console`, each line starting with `$ ` is a shell
  command; the lines up to the next command are what it prints. The commands of one document
  run in order, in one fresh directory, with the installed `tablebase` first on PATH, so a
  document builds the tables its later examples read.
- A `python` block runs as a script in that same directory, after the commands above it; one
  whose first line is `# file: NAME` is written to NAME instead (a module the text uses).
- A `text` block is output or a command this suite does not run (a server, a cluster, `make`).
A plain `tablebase ARGS` command (no shell syntax) runs through the function the installed
script calls, `tablebase.query.cli.main(ARGS)`, in this process with the document's directory as
its working directory (a fresh process each costs up to a second of imports and compiled code),
and so does the one plain `tablebase ARGS` stage of a pipeline (`printf ... | tablebase gtp ...`,
`tablebase export ... | head -3`: the other stages run under bash, fed its stdout or feeding its
stdin);
a `python` block runs in this process too, as `python -c` would run it there (the directory
first on the import path, `__name__` "__main__", the modules it imports from the directory
forgotten after); anything else runs under bash. tests/test_install.py and tests/test_cli.py
run the installed script itself.
A command must exit 0, or non-zero where what it shows is an error or a failed check; the
first line it shows must appear in what it prints (lines with timings aside). Commands the
suite cannot run here are listed in NOT_RUN with the reason.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent

# Commands the suite does not run, by a pattern of the command line, and why.
NOT_RUN = {
    r"postgresql://|postgres://": "needs a PostgreSQL server (tests/test_postgres.py starts one)",
    r"--scheduler|dask (scheduler|worker)": "needs hand-started Dask processes (tests/test_cluster.py)",
    r"--workers": "a Dask cluster or server workers (tests/test_cluster.py, tests/test_serve_cli.py)",
    r"tablebase serve|curl ": "a server (tests/test_server.py, tests/test_browser.py)",
    r"^make |pip install": "installs (the suite runs on what `make test` installed)",
    r"\b(5x4k4|6x4k4|7x4k4|6x5k4|4x4k4|5x5k4|30x1k3)\b": "a build of minutes or more (make bench)",
    r"build 7x7k5|audit 7x7k5 --root": "a Gomoku endgame of minutes (make bench)",
    r"--engine|gtp_player|course_engine|Gomoku": "an engine program the docs only name",
    r"^tablebase (play|gtp)\b": "interactive (tests/test_play.py, tests/test_gtp_server.py)",
    r"--memory 0\.": "a deliberately tight budget measured by hand",
}
TIMING = re.compile(r"\d+(\.\d+)? ?(s|ms|seconds|minutes)\b|\ba minute\b|MiB|GiB")
FENCE = re.compile(r"^```(\w*)\s*$")
SHELL = re.compile(r"[|&;<>()$`*?~]")  # outside quotes: the command needs bash


def _blocks(path: Path) -> list[tuple[str, list[str], int]]:
    """(language, lines, first line number) of every fenced block."""
    blocks: list[tuple[str, list[str], int]] = []
    language, lines, start = None, [], 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        found = FENCE.match(line)
        if found and language is None:
            language, lines, start = found.group(1), [], number + 1
        elif line.strip() == "```" and language is not None:
            blocks.append((language, lines, start))
            language = None
        elif language is not None:
            lines.append(line)
    assert language is None, f"{path.name}: a block opened at line {start - 1} never closes"
    return blocks


def _examples(path: Path) -> list[tuple[str, str, list[str], int]]:
    """('sh', 'python' or 'file', code, shown output lines (for a file: its name), line
    number) in document order."""
    found: list[tuple[str, str, list[str], int]] = []
    for language, lines, start in _blocks(path):
        if language == "python" and lines and lines[0].startswith("# file: "):
            found.append(("file", "\n".join(lines[1:]) + "\n", [lines[0][8:].strip()], start))
        elif language == "python":
            found.append(("python", "\n".join(lines) + "\n", [], start))
        elif language in ("", "console"):
            for i, line in enumerate(lines):
                if line.startswith("$ "):
                    shown = []
                    for after in lines[i + 1:]:
                        if after.startswith("$ "):
                            break
                        shown.append(after)
                    found.append(("sh", line[2:], shown, start + i))
    return found


def _skipped(command: str) -> str | None:
    for pattern, reason in NOT_RUN.items():
        if re.search(pattern, command):
            return reason
    return None


def _plain(command: str) -> list[str] | None:
    """The arguments of a plain `tablebase ...` command, or None when it needs a shell."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "", command)
    if SHELL.search(unquoted) or not words or words[0] != "tablebase":
        return None
    return words[1:]


def _stages(command: str) -> list[str]:
    """The stages of a shell pipeline, split at each `|` outside quotes."""
    stages, start, quote = [], 0, None
    for i, c in enumerate(command):
        if quote is not None:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "|":
            if command[i + 1:i + 2] == "|" or command[i - 1:i] == "|":
                return [command]  # `||`: not a pipeline
            stages.append(command[start:i].strip())
            start = i + 1
    return [*stages, command[start:].strip()]


def _piped(command: str) -> tuple[str, list[str], str] | None:
    """(what feeds it, the arguments of its plain `tablebase ...` stage, what reads its output)
    of a pipeline with one such stage, or None."""
    stages = _stages(command)
    plain = [i for i, stage in enumerate(stages) if _plain(stage) is not None]
    if len(stages) < 2 or len(plain) != 1:
        return None
    i = plain[0]
    return " | ".join(stages[:i]), _plain(stages[i]) or [], " | ".join(stages[i + 1:])


def _pipeline(command: str, where: Path, env: dict[str, str],
              monkeypatch: pytest.MonkeyPatch) -> tuple[int, str] | None:
    """Exit status and output of a pipeline whose `tablebase` stage runs in this process (the
    other stages under bash, fed and reading as the pipe would), or None if it has none."""
    found = _piped(command)
    if found is None:
        return None
    before, argv, after = found

    def bash(code: str, given: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", code], cwd=where, env=env, input=given,
                              capture_output=True, text=True, timeout=180)
    fed, said = (bash(before, ""), "") if before else (None, "")
    if fed is not None:
        said = fed.stderr
    err = io.StringIO()
    status, out = _in_process(argv, where, monkeypatch, fed.stdout if fed else "", err)
    said += err.getvalue()
    if not after:
        return status, said + out
    read = bash(after, out)
    return read.returncode, said + read.stdout + read.stderr


def _in_process(argv: list[str], where: Path, monkeypatch: pytest.MonkeyPatch, stdin: str = "",
                err: io.StringIO | None = None) -> tuple[int, str]:
    """Exit status and output of `main(argv)` run in `where`, as the installed script runs it;
    `err`: where its stderr goes (default: with its stdout)."""
    from tablebase.query.cli import main
    out = io.StringIO()
    with monkeypatch.context() as m:
        m.chdir(where)
        m.setenv("COLUMNS", "100")
        m.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err or out):
            try:
                status = main(argv)
            except SystemExit as e:  # argparse's usage errors and --help
                status = e.code if isinstance(e.code, int) else 1
            except Exception:  # as a fresh process would show it
                status = 1
                out.write(traceback.format_exc())
    return status, out.getvalue()


def _script_in_process(code: str, where: Path, monkeypatch: pytest.MonkeyPatch
                       ) -> tuple[int, str]:
    """Exit status and output of a python block run in `where` as `python -c CODE` runs it, in
    this process."""
    out = io.StringIO()
    before = set(sys.modules)
    with monkeypatch.context() as m:
        m.chdir(where)
        m.syspath_prepend(str(where))
        m.setenv("COLUMNS", "100")
        m.setattr(sys, "argv", ["-c"])
        m.setattr(sys, "stdin", io.StringIO(""))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            try:
                exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
                status = 0
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else int(e.code is not None)
            except Exception:  # as a fresh process would show it
                status = 1
                out.write(traceback.format_exc())
    for w in caught:  # on its stderr, as a script's would be
        out.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line))
    for name in set(sys.modules) - before:  # a later document's module of the same name is its own
        if str(getattr(sys.modules[name], "__file__", None) or "").startswith(str(where)):
            del sys.modules[name]
    return status, out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_examples_run_as_written(path: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "100"}
    skipped: list[str] = []
    for kind, code, shown, line in _examples(path):
        where = f"{path.name}:{line}"
        if kind == "sh" and (reason := _skipped(code)) is not None:
            skipped.append(f"{where}: {reason}")
            continue
        if kind == "file":
            (tmp_path / shown[0]).write_text(code)
            continue
        if kind == "sh" and (argv := _plain(code)) is not None:
            status, said = _in_process(argv, tmp_path, monkeypatch)
        elif kind == "python":
            status, said = _script_in_process(code, tmp_path, monkeypatch)
        elif kind == "sh" and (piped := _pipeline(code, tmp_path, env, monkeypatch)) is not None:
            status, said = piped
        else:
            run = subprocess.run(["bash", "-c", code], cwd=tmp_path, env=env, capture_output=True,
                                 text=True, timeout=180)
            status, said = run.returncode, run.stdout + run.stderr
        assert "Traceback" not in said, f"{where}: {code}\n{said}"
        failing = any("error:" in s or re.search(r"mismatched: [1-9]", s) for s in shown)
        assert (status != 0) == failing, f"{where}: {code!r} exited {status}\n{said}"
        first = next((s.strip() for s in shown if s.strip() and s.strip() != "..."), None)
        if first is not None and not TIMING.search(first):
            assert first in said, f"{where}: {code!r} did not print {first!r}; it printed\n{said}"

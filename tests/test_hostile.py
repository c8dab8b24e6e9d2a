"""Hostile input: tens of thousands of generated malformed inputs at the spec parser, the
notation parser, the probing API and the command line. The library raises only our own error
types; the command line answers with one line and an exit status, never a traceback."""
from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator

import pytest

from tablebase.builder.games.grid import GameError, parse_spec
from tablebase.builder.games.grid.boards import parse_board, parse_move, play_moves
from tablebase.db.errors import StorageError
from tablebase.query import open_tablebase
from tablebase.query.cli import main
from tablebase.query.errors import QueryError

OURS = (GameError, QueryError, StorageError)
SQL = ["'; DROP TABLE games; --", "\" OR 1=1 --", "1; DELETE FROM games", "%", "_",
       "positions_1_abc", "' UNION SELECT * FROM games --", "\\x00"]
WEIRD = ["", " ", "\t", "\n", "\x00", "\x1b[31m", "\u202e", "\ufeff", "x\u0301", "ｘ", "Ｏ", "😀",
         "ß", "İ", "\udcff", "NaN", "inf", "-1", "-0", "0x10", "1e9", "9" * 40, "+", "/", "//",
         "..", "...", "x" * 10000, "/" * 5000]


def _strings(rng: random.Random, count: int, alphabet: str) -> Iterator[str]:
    pool = alphabet + "".join(WEIRD[:20]) + string.punctuation + string.whitespace
    for i in range(count):
        pick = i % 6
        if pick == 0:
            yield rng.choice(WEIRD + SQL)
        elif pick == 1:
            yield "".join(rng.choice(pool) for _ in range(rng.randint(0, 40)))
        elif pick == 2:
            yield "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        elif pick == 3:  # near misses of valid text
            base = list(rng.choice(["x.o/.x./...", "xo./.../...", "3x3k3", "4x4k4+gravity",
                                    "b2 a1 c3", "a1"]))
            for _ in range(rng.randint(1, 3)):
                base.insert(rng.randint(0, len(base)), rng.choice(pool))
            yield "".join(base)
        elif pick == 4:
            yield str(rng.randint(-10 ** 30, 10 ** 30))
        else:
            yield rng.choice(WEIRD) * rng.randint(1, 200)


def _only_ours(call: Callable[[], object]) -> None:
    try:
        call()
    except OURS:
        pass


def test_spec_parser(tmp_path: object) -> None:
    rng = random.Random(1)
    specs = list(_strings(rng, 6000, "0123456789xk+gravitymisere"))
    specs += [f"{rng.randint(-5, 99999)}x{rng.randint(-5, 99999)}k{rng.randint(-5, 99999)}"
              for _ in range(2000)]
    specs += ["99999x1k1", "1x99999k1", "0x0k0", "-3x3k3", "3x3k-3", "40x1k1", "13x3k3+gravity"]
    accepted = 0
    for text in specs:
        try:
            spec = parse_spec(text)
        except GameError:
            continue
        accepted += 1
        assert spec.cells <= 39 or (spec.width <= 26 and spec.height <= 99)
        assert spec.k <= max(spec.width, spec.height)
    assert accepted < len(specs) // 4  # almost all of this is garbage, and refused


def test_notation_parser() -> None:
    rng = random.Random(2)
    specs = [parse_spec(s) for s in ("3x3k3", "4x3k3", "4x4k4+gravity", "13x3k3", "1x1k1")]
    board = (0,) * 9
    for text in _strings(rng, 12000, "xXoO./abc123 "):
        spec = rng.choice(specs)
        _only_ours(lambda: parse_board(spec, text))
        _only_ours(lambda: play_moves(spec, text))
        _only_ours(lambda: parse_move(parse_spec("3x3k3"), board, text))


@pytest.fixture(scope="module")
def db(table_db: Callable[[str], str]) -> str:
    table_db("3x3k3")
    return table_db("3x3k3+gravity")


def test_probing_api(db: str) -> None:
    rng = random.Random(3)
    with open_tablebase(db) as tb:
        for text in _strings(rng, 4000, "xo./"):
            spec = rng.choice(["3x3k3", "3x3k3+gravity", "4x4k4", text[:20]])
            _only_ours(lambda: tb.probe(spec, text))
            _only_ours(lambda: tb.moves(spec, text))
        for value in [-1, 3 ** 9, 10 ** 30, -(10 ** 30), 2.5, None, b"x..", [9] * 9, [0] * 8,
                      [-1] * 9, ["x"] * 9, object()]:
            _only_ours(lambda: tb.probe("3x3k3", value))  # type: ignore[arg-type]
        for codes in ([-1], [3 ** 9], [[1, 2]], ["a"], [0.5], []):
            _only_ours(lambda: tb.table("3x3k3").get_many(codes))  # type: ignore[arg-type]


def test_command_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(4)
    commands = ["probe", "moves", "line", "info", "export", "verify", "build", "audit", "play",
                "nonsense"]
    runs = 0
    for text in _strings(rng, 1500, "xo./3k+"):
        command = rng.choice(commands)
        argv = [command, rng.choice(["3x3k3", "3x3k3+gravity", text]), text]
        if rng.random() < 0.5:
            argv += ["--moves", rng.choice(["b2 a1", text])]
        if command in ("build", "play"):
            argv = [command, text]  # never actually build or wait for a player
        status = main([*argv, "--db", db])
        out, err = capsys.readouterr()
        assert status in (0, 1, 2), (argv, status)
        assert "Traceback" not in err
        if status == 2:
            assert err.count("\n") == 1 and err.startswith("tablebase: error: "), (argv, err)
        runs += 1
    assert runs == 1500

"""Export: exactly one row per canonical position, readable by a plain CSV or JSON reader, and
each row's value and depth agree with the independent negamax."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.game import canonical, encode, parse_spec
from tablebase.query import open_tablebase
from tablebase.query.export import (COLUMNS, ExportFileError, UnknownFormatError, export_file,
                                    export_positions)
from tablebase.query.notation import parse_board
from tests.reference import Game


def test_csv_has_the_canonical_count_and_reads_back(table_db: Callable[[str], str]) -> None:
    spec, game = parse_spec("3x3k3"), Game("3x3k3")
    out = io.StringIO()
    with open_tablebase(table_db("3x3k3")) as tb:
        written = export_positions(tb, "3x3k3", out, "csv")
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert written == len(rows) == 765
    assert tuple(rows[0]) == COLUMNS
    codes = set()
    for row in rows:
        board = parse_board(spec, row["board"])
        code = encode(board)
        assert canonical(spec, code) == code  # stored positions are canonical
        codes.add(code)
        stones = sum(1 for v in board if v)
        assert int(row["ply"]) == stones
        assert row["to_move"] == ("x" if stones % 2 == 0 else "o")
        value, depth = game.solve(board)
        assert row["value"] == {1: "win", 0: "draw", -1: "loss"}[value]
        assert int(row["depth"]) == depth
    assert len(codes) == 765
    assert rows[0] == {"board": ".../.../...", "to_move": "x", "ply": "0", "value": "draw",
                       "depth": "9"}


def test_jsonl_file_of_4x3k3(table_db: Callable[[str], str], tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    seen = []
    with open_tablebase(table_db("4x3k3")) as tb:
        written = export_file(tb, "4x3k3", str(path), "jsonl", progress=seen.append)
    lines = path.read_text().splitlines()
    assert written == len(lines) == sum(seen) == 28275
    records = [json.loads(line) for line in lines]
    assert all(tuple(r) == COLUMNS for r in records)
    assert records[0] == {"board": "..../..../....", "to_move": "x", "ply": 0, "value": "win",
                          "depth": 7}
    assert {r["value"] for r in records} == {"win", "draw", "loss"}
    assert not (tmp_path / "out.jsonl.part").exists()


def test_export_errors(table_db: Callable[[str], str], tmp_path: Path) -> None:
    with open_tablebase(table_db("3x3k3")) as tb:
        with pytest.raises(UnknownFormatError, match="unknown export format 'xml'"):
            export_positions(tb, "3x3k3", io.StringIO(), "xml")
        missing = tmp_path / "no" / "such" / "dir.csv"
        with pytest.raises(ExportFileError, match="cannot write .*dir.csv"):
            export_file(tb, "3x3k3", str(missing))
        assert list(tmp_path.iterdir()) == []

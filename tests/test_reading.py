"""One reading of a position: every form (board text, board text then moves, moves, Pons'
column digits) read into cells and the side to move, by the Python reader and by the compiled
batch reader alike, checked against tests/reference.py's own play; a batch names each fault in
its place, and the reachability test of a batch of boards agrees with the reference's
breadth-first search on every board of small games."""
from __future__ import annotations

import itertools
import random
import string

import numpy as np
import pytest

from tablebase.builder.games.errors import IllegalMoveError
from tablebase.builder.games.grid import O, X, parse_spec
from tablebase.builder.games.grid.position_text import Reading, read_position
from tablebase.builder.games.grid.position_texts import read_positions
from tablebase.builder.games.grid.position_texts_kernel import read_text
from tests.reference import Game, parse, play

SPECS = ["3x3k3", "4x4k3+gravity", "7x6k4+gravity", "5x4k4+exact", "4x4k3+misere",
         "4x3k3+gravity+exact", "30x1k3", "3x9k3+gravity"]


def _name(game: Game, cell: int) -> str:
    """A cell's move name, written here (column letters past z: aa, ab, ...)."""
    row, col = divmod(cell, game.w)
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(97 + rest) + letters
    return f"{letters}{game.h - row}"


def _game(game: Game, rng: random.Random) -> list[int]:
    """The cells of a random legal game from the empty board, to its end or cut short."""
    board, cells = tuple([0] * game.n), []
    for _ in range(rng.randint(0, game.n)):
        moves = game.moves(board)
        if not moves:
            break
        cell = rng.choice(moves)
        cells.append(cell)
        board = game.child(board, cell)
    return cells


def _board_text(game: Game, board: tuple[int, ...]) -> str:
    rows = ["".join(".xo"[v] for v in board[r * game.w:(r + 1) * game.w]) for r in range(game.h)]
    return "/".join(rows)


def _texts(game: Game, rng: random.Random, count: int) -> list[tuple[str, tuple[int, ...] | None]]:
    """Lines in every form, with the board each names (None where it names none); a share of
    them garbled."""
    out: list[tuple[str, tuple[int, ...] | None]] = []
    for _ in range(count):
        cells = _game(game, rng)
        names = [_name(game, c) for c in cells]
        board = tuple([0] * game.n)
        for c in cells:
            board = game.child(board, c)
        form = rng.randrange(6)
        if form == 0:
            text = rng.choice([" ", ",", ", ", "\t", "  "]).join(names)
        elif form == 1 and game.gravity:  # column letters alone
            text = " ".join(n.rstrip(string.digits) for n in names)
        elif form == 2 and game.gravity and game.w <= 9:  # Pons' digits
            text = "".join(str(c % game.w + 1) for c in cells) or "1"
            if not cells:
                board = play_columns(game, [0])
        elif form == 3:  # board text, then the rest of the moves from it
            cut = rng.randint(0, len(cells))
            start = tuple([0] * game.n)
            for c in cells[:cut]:
                start = game.child(start, c)
            text = " ".join([_board_text(game, start), *names[cut:]])
        elif form == 4:
            text = _board_text(game, board).upper() if rng.random() < 0.3 else \
                _board_text(game, board).replace("/", "")
        else:
            text = " ".join(n.upper() for n in names)
        if rng.random() < 0.25:  # garbled: a character put in, or a move repeated
            at = rng.randint(0, len(text))
            text = text[:at] + rng.choice(["q", "/", "9", "z", "é", "\x00", " a1", ",", "0"]) \
                + text[at:]
            out.append((text, None))
            continue
        out.append((text, board))
    return out


def play_columns(game: Game, columns: list[int]) -> tuple[int, ...]:
    board = tuple([0] * game.n)
    for col in columns:
        cell = max(c for c in game.moves(board) if c % game.w == col)
        board = game.child(board, cell)
    return board


@pytest.mark.parametrize("name", SPECS)
def test_every_form_reads_as_the_reference_plays_it(name: str) -> None:
    spec, game, rng = parse_spec(name), Game(name), random.Random(name)
    lines = _texts(game, rng, 400)
    texts = [t for t, _ in lines]
    python = []
    for text in texts:
        try:
            python.append(read_position(spec, text))
        except ValueError as e:
            python.append(e)
    for compiled in (True, False):
        read = read_positions(spec, texts, compiled=compiled)
        for i, ((text, board), expected) in enumerate(zip(lines, python)):
            if isinstance(expected, Exception):
                assert type(read.errors.get(i)) is type(expected), text
                assert str(read.errors[i]) == str(expected)
                continue
            assert i not in read.errors, (text, read.errors.get(i))
            assert read.reading(i) == expected, text
            one = read_text(spec, text)
            assert one is None or one == (expected.board, expected.played), text
            if board is not None:  # well formed: the compiled reader reads it itself
                assert one is not None and expected.board == board, text
                assert expected.to_move == (X if sum(1 for v in board if v) % 2 == 0 else O)


def test_played_says_whether_moves_from_the_empty_board_reached_it() -> None:
    spec, game = parse_spec("4x4k3+gravity"), Game("4x4k3+gravity")
    assert read_position(spec, "b1 b2 c1") == Reading(play(game, "b1 b2 c1"), O, True)
    assert read_position(spec, "223").played and read_position(spec, "b b, c").played
    assert not read_position(spec, "..../..../.o../.x..").played
    assert read_position(spec, "..../..../.o../.x.. c1").board == play(game, "b1 b2 c1")
    assert read_position(spec, "..../..../..../.... b1").played  # the empty board, then moves
    assert read_position(spec, None, "b1 b2") == read_position(spec, "b1 b2")
    assert read_position(spec, read_position(spec, "b1"), "b2") == read_position(spec, "b1 b2")
    read = read_positions(spec, ["b1 b2 c1", "..../..../.o../.x..", "b1 b2 c1"] * 20,
                          compiled=True)
    assert read.played.tolist() == [True, False, True] * 20
    assert read.reading(1).board == parse(game, "..../..../.o../.x..")


def test_a_batch_names_each_fault_in_its_place() -> None:
    spec = parse_spec("3x3k3")
    texts = ["b2 a1", "b2 b2", "x.o/.q./...", "", "a1 b1 a2 b2 a3 c3", "x.o/.x./...", [1, 2]] * 10
    for compiled in (True, False, None):
        read = read_positions(spec, texts, compiled=compiled)  # type: ignore[arg-type]
        assert sorted(read.errors) == [i for i in range(70) if i % 7 in (1, 2, 3, 4, 6)]
        assert isinstance(read.errors[1], IllegalMoveError) and "b2 is occupied" in str(
            read.errors[1])
        assert "unknown character 'q' at b2" in str(read.errors[2])
        assert str(read.errors[3]) == "an empty line names no position"
        assert "comes after the end of the game (x completed 3 in a row)" in str(read.errors[4])
        assert "board has 2 cells, expected 9" in str(read.errors[6])  # cell values, too few
        with pytest.raises(IllegalMoveError):
            read.reading(1)
        assert read.reading(5).board == parse(Game("3x3k3"), "x.o/.x./...")


@pytest.mark.parametrize("name", ["3x3k3", "3x3k3+gravity", "4x2k2+gravity", "3x3k3+exact"])
def test_a_batch_of_boards_is_checked_as_the_reference_reaches_them(name: str) -> None:
    from tablebase.query.search.solving import check_readings

    spec, game = parse_spec(name), Game(name)
    reachable = game.reachable()
    boards = [b for b in itertools.product((0, 1, 2), repeat=game.n)
              if abs(b.count(1) - b.count(2) - 0.5) <= 0.5]  # the counts a game can have
    texts = [_board_text(game, b) for b in boards]
    read = read_positions(spec, texts)
    check_readings(spec, read)
    refused = {boards[i] for i in read.errors}
    assert refused == set(boards) - reachable
    assert not np.any(read.played[[i for i in range(len(boards)) if boards[i] != boards[0]]])

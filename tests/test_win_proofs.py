"""Proofs of wins (query/search/win_writer.py, query/win_check.py) against tests/reference.py's
plain negamax: every position of every written proof, whatever its kind, is a win for the
claim's side within its bound as the negamax finds; the root's bound is the win's depth; and
every check refuses a line that breaks it, tampered files included."""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tablebase.builder.games.grid import canonical_board, canonical_board_map, decode, parse_spec
from tablebase.builder.games.grid.symmetry import permutations
from tablebase.query.cli import main
from tablebase.query.proof_check import ProofCheckError, check_proof
from tablebase.query.search.proof_writer import ProofWriteError, write_proof
from tablebase.query.search.proving import ProofBudget, prove_no_win
from tablebase.query.search.win_writer import write_win_proof
from tablebase.query.win_check import WIN_KINDS, WinChecker
from tests.reference import (
    Game,
    completing,
    loses_within,
    play,
    random_positions,
    wins_within,
)

# Bounds up to which each line's bound is checked to be its depth by the exhaustive search.
EXHAUSTIVE = 7
# Boards and how many random positions of each (stones drawn from the range) are tried: the
# side to move wins in some, by a line at once up to a win in 11 plies.
CASES = (("4x4k3", range(0, 5), 12), ("4x4k4", range(6, 12), 30), ("5x4k4", range(2, 11), 30))


@pytest.fixture(scope="module")
def proofs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, list[str]]]:
    """The win proofs of the random positions where the side to move wins, each checked, and a
    4x4k3 proof with a block (the writer writes one where the block leads to a position
    written before: one is made here by hand, above a written proof): (spec, the lines)."""
    folder = tmp_path_factory.mktemp("wins")
    out = []
    for text, stones, count in CASES:
        spec, game = parse_spec(text), Game(text)
        for i, board in enumerate(random_positions(game, stones, count, seed=5)):
            path = folder / f"{text}-{i}.proof"
            try:
                written = write_win_proof(spec, board, path)
            except ProofWriteError:
                continue  # not a win for the side to move
            checked = check_proof(path)
            assert (checked.depth, checked.root) == (written.depth, canonical_board(spec, board))
            out.append((text, path.read_text().splitlines()))
    # x to move plays b4, threatening c4 only; o blocks; x wins from there.
    game, path = Game("4x4k3"), folder / "block.proof"
    start, threat, blocked = (play(game, moves) for moves in ("a4 a3", "a4 a3 b4", "a4 a3 b4 c4"))
    below = write_win_proof(SPEC, blocked, path)
    lines = path.read_text().splitlines()
    child = str(canonical_board(SPEC, blocked))
    block = _line(_text(threat), "block", below.depth + 1, 2, child)
    top = _line(_text(start), "play", below.depth + 2, 1, block[0])
    out.append(("4x4k3", [*lines[:2], f"claim x wins within {below.depth + 2}",
                          f"root {top[0]}", *lines[4:-1], " ".join(block), " ".join(top),
                          f"end {len(lines) - 3}"]))
    assert _rejected(folder, out[-1][1]) is None
    return out


def test_every_position_of_every_kind_is_a_win_within_its_bound(proofs) -> None:  # type: ignore[no-untyped-def]
    """Each line's position, decoded from its code: the proof's own moves (forced sequences'
    included), against every defence, win within its bound by the reference's plain AND/OR
    search (its only shortcuts: a line completed at once, two threats, one threat blocked);
    and no play wins faster (the exhaustive search, every move: the bound is the depth, up to
    EXHAUSTIVE plies); and every kind occurs."""
    seen = set()
    for text, lines in proofs:
        game, spec = Game(text), parse_spec(text)
        winner = 0 if lines[2].split()[1] == "x" else 1
        choices = _choices(game, spec, lines, winner)

        def choose(board: tuple[int, ...]) -> int | None:
            code, g = canonical_board_map(spec, board)
            return None if code not in choices else \
                permutations(spec)[g].tolist().index(choices[code])
        memo: dict = {}
        plain: dict = {}
        for line in lines[4:-1]:
            code, kind, depth = line.split()[:3]
            board = decode(int(code), game.n)
            seen.add(kind)
            mine = game.stones(board) % 2 == winner
            within = wins_within if mine else loses_within
            assert within(game, board, int(depth), choose, memo), line
            if int(depth) <= EXHAUSTIVE:  # and no play wins faster: the bound is the depth
                assert not within(game, board, int(depth) - 2, None, plain), line
    assert seen == set(WIN_KINDS)


def _choices(game: Game, spec, lines: list[str], winner: int) -> dict[int, int]:  # type: ignore[no-untyped-def]
    """The winner's move at each winner's position of the proof, forced sequences replayed
    (the loser's block being the one cell where the winner completes a line): canonical code
    -> the move in that code's orientation."""
    choices = {}
    for line in lines[4:-1]:
        code, kind, _, *args = line.split()
        if kind in ("win", "fork"):
            choices[int(code)] = int(args[0])
        elif kind in ("play", "forced"):
            board = decode(int(code), game.n)
            for m in map(int, args[:-1]):
                at, g = canonical_board_map(spec, board)
                choices[at] = permutations(spec)[g].tolist()[m]
                board = game.child(board, m)
                blocks = completing(game, board, winner + 1)
                if len(blocks) == 1 and m != int(args[-2]):
                    board = game.child(board, blocks[0])
    return choices


def _rejected(tmp_path: Path, lines: list[str]) -> str | None:
    """The checker's message for the file of `lines`, None where it passes."""
    path = tmp_path / "w.proof"
    path.write_text("\n".join(lines) + "\n")
    try:
        check_proof(path)
    except ProofCheckError as e:
        return str(e)
    return None


def _edit(lines: list[str], kind: str, edit: Callable[[list[str]], list[str]]) -> list[str]:
    """The lines with the first position of `kind` (a line `edit` changes) edited."""
    for i, text in enumerate(lines):
        words = text.split()
        if words[1:2] == [kind] and words[0].isdigit() and edit(words) != words:
            return lines[:i] + [" ".join(edit(words))] + lines[i + 1:]
    raise AssertionError(f"no {kind} line to edit")


def _other_cell(words: list[str], at: int) -> list[str]:
    """`words` with the cell at `at` moved to the next cell (mod 20 keeps it on 5x4)."""
    cell, _, rest = words[at].partition(":")
    moved = str((int(cell) + 1) % 20) + (":" + rest if rest else "")
    return words[:at] + [moved] + words[at + 1:]


def _richest(proofs) -> list[str]:  # type: ignore[no-untyped-def]
    """The 5x4k4 proof holding the most kinds."""
    return max((lines for text, lines in proofs if text == "5x4k4"),
               key=lambda ls: len({t.split()[1] for t in ls[4:-1]}))


TAMPERINGS: dict[str, tuple[str, Callable[[list[str]], list[str]]]] = {
    "a reply dropped": ("every", lambda w: w[:3] + w[4:]),
    "a reply named twice": ("every", lambda w: w + [w[3]]),
    "a move changed": ("play", lambda w: _other_cell(w, 3)),
    "a sequence's move changed": ("forced", lambda w: _other_cell(w, 4)),
    "a block moved": ("block", lambda w: _other_cell(w, 3)),
    "a threat cell moved": ("double", lambda w: _other_cell(w, 4)),
    "a fork's threat cell moved": ("fork", lambda w: _other_cell(w, 5)),
    "a fork's move changed": ("fork", lambda w: _other_cell(w, 3)),
    "a completing cell moved": ("win", lambda w: _other_cell(w, 3)),
    "a depth lowered": ("every", lambda w: w[:2] + [str(int(w[2]) - 1)] + w[3:]),
    "a forced depth lowered": ("forced", lambda w: w[:2] + [str(int(w[2]) - 1)] + w[3:]),
    "a block for every reply": ("every", lambda w: [w[0], "block", w[2]] + w[3].split(":")),
    "a child renamed": ("play", lambda w: w[:4] + [str(int(w[4]) + 1)]),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_a_tampered_win_proof_is_refused(tmp_path: Path, proofs, name: str) -> None:  # type: ignore[no-untyped-def]
    lines = _richest(proofs)
    assert _rejected(tmp_path, lines) is None
    kind, edit = TAMPERINGS[name]
    try:
        edited = _edit(lines, kind, edit)
    except AssertionError:
        edited = _edit(next(ls for _, ls in proofs if any(f" {kind} " in t for t in ls)),
                       kind, edit)
    assert _rejected(tmp_path, edited) is not None


def test_a_cut_or_overclaimed_win_proof_is_refused(tmp_path: Path, proofs) -> None:  # type: ignore[no-untyped-def]
    lines = _richest(proofs)
    winner, bound = lines[2].split()[1], int(lines[2].split()[-1])
    count = len(lines) - 5  # the positions: all but the header's four lines and the end's
    assert "cut off" in str(_rejected(tmp_path, lines[:-1]))
    assert "cut off" in str(_rejected(tmp_path, lines[:-2] + [f"end {count}"]))
    assert "not proved" in str(_rejected(tmp_path, lines[:-2] + [f"end {count - 1}"]))
    tighter = lines[:2] + [f"claim {winner} wins within {bound - 2}"] + lines[3:]
    assert "within" in str(_rejected(tmp_path, tighter))
    other = "o" if winner == "x" else "x"
    assert "to move" in str(_rejected(tmp_path, lines[:2] + [f"claim {other} wins within"
                                                              f" {bound}"] + lines[3:]))
    for claim in (f"{winner} wins", f"{winner} wins within -3", f"{winner} loses within 3"):
        assert "header" in str(_rejected(tmp_path, lines[:2] + [f"claim {claim}"] + lines[3:]))


def test_a_draw_proof_is_still_checked_and_refused_when_tampered(tmp_path: Path) -> None:
    """A cannot-win proof passes; with a move dropped, or claimed as a win, it is refused."""
    path = tmp_path / "d.proof"
    write_proof(prove_no_win(parse_spec("4x4k4"), (0,) * 16, ProofBudget(memory=1 << 22)), path)
    lines = path.read_text().splitlines()
    assert _rejected(tmp_path, lines) is None
    assert _rejected(tmp_path, _edit(lines, "moves", lambda w: w[:3] + w[4:])) is not None
    win_claim = lines[:2] + ["claim x wins within 16"] + lines[3:]
    assert "unknown kind" in str(_rejected(tmp_path, win_claim))


def test_the_cli_writes_and_checks_a_win_and_refuses_a_tampered_one(tmp_path: Path,
                                                                   capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "w.proof.gz"
    assert main(["solve", "4x4k3", "--proof", str(path), "--quiet"]) == 0
    assert "x to move wins within 5 plies: proved" in capsys.readouterr().out
    assert main(["check-proof", str(path), "--quiet"]) == 0
    assert "x wins within 5 plies from" in capsys.readouterr().out
    path.write_bytes(path.read_bytes()[:-9])  # the gzip stream cut short
    assert main(["check-proof", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


# --- each check of win_check.py, made to fail on a hand-built line ---------------------------

SPEC = parse_spec("4x4k3")


def _line(board_text: str, kind: str, depth: int, *cells: int | str) -> list[str]:
    """A line for the board drawn (rows top to bottom, '.' 'x' 'o'), its cells (ints) turned
    into its canonical orientation, its words (strs: children's codes or raw words) as given."""
    board = [".xo".index(ch) for ch in board_text.replace("/", "")]
    code, g = canonical_board_map(SPEC, board)
    perm = permutations(SPEC)[g].tolist()
    words = [str(perm[c]) if isinstance(c, int) else c for c in cells]
    return [str(code), kind, str(depth), *words]


def _text(board: tuple[int, ...]) -> str:
    return "/".join("".join(".xo"[v] for v in board[r * 4:r * 4 + 4]) for r in range(4))


def _code(board_text: str) -> str:
    return str(canonical_board(SPEC, [".xo".index(ch) for ch in board_text.replace("/", "")]))


# x to move, x completes at 2; o to move, x completes at 2; o to move, x completes at 9 and
# at 13 and o nowhere; a full board, no line made (x to move).
NOW = "xx../oo../..../...."
BLOCK = "xx../o.../..../...."
DOUBLE = "o.../x..o/...x/o.xx"
FULL = "xxoo/ooxx/xxoo/ooxx"
START = "x.../o.../..../...."
# Each check, a line (or lines) that fails it, the message, and the winner (0: x).
CHECKS: dict[str, tuple[list[list[str]], str, int]] = {
    "unknown kind": ([_line(NOW, "wins", 1, 2)], "unknown kind", 0),
    "twice": ([_line(NOW, "win", 1, 2), _line(NOW, "win", 1, 2)], "twice", 0),
    "not canonical": ([["9", "win", "1", "0"]], "not a canonical code", 0),
    "off the codes": ([[str(3 ** 16), "win", "1", "0"]], "not a canonical code", 0),
    "stones": ([_line("xxx./o.../..../....", "win", 1, 3)], "x stones", 0),
    "over": ([_line("xxx./oo../..../....", "win", 1, 3)], "over", 0),
    "side to move": ([_line(BLOCK, "win", 1, 2)], "to move", 0),
    "no line at T": ([_line(NOW, "win", 1, 3)], "no line is completed", 0),
    "depth": ([_line(NOW, "win", 0, 2)], "less than", 0),
    "loser completes": ([_line("xx../oo../x.../....", "double", 2, 2, 8)],
                        "loser completes a line at once", 0),
    "double one cell": ([_line(DOUBLE, "double", 2, 9, 9)], "two cells", 0),
    "double no line": ([_line(DOUBLE, "double", 2, 9, 10)], "no line is completed", 0),
    "block child": ([_line(BLOCK, "block", 2, 2, "7")], "not the code", 0),
    "child not proved": ([_line(BLOCK, "block", 2, 2, _code("xxo./o.../..../...."))],
                         "not proved before", 0),
    "every stone": ([_line(DOUBLE, "every", 3, "0:1")], "not an empty cell", 0),
    "every missing": ([_line(NOW, "win", 1, 2), _line(BLOCK, "every", 3, f"5:{_code(NOW)}")],
                      "replies are missing", 0),
    "every full": ([_line(FULL, "every", 2)], "full", 1),
    "play count": ([_line(START, "play", 9, "1", "2", "3")], "takes one move", 0),
    "forced count": ([_line(START, "forced", 9, "1", "3")], "two moves or more", 0),
    "forced off board": ([_line(START, "forced", 9, "99", "1", "3")], "not an empty cell", 0),
    "forced two blocks": ([_line("x.../..../..x./o..o", "forced", 9, 8, 1, "3")],
                          "cells to block", 0),
    "forced line made": ([_line(NOW, "forced", 9, 2, 3, "4")], "makes a line", 0),
    "forced loser line": ([_line("x.../oo../x.../....", "forced", 9, 12, 3, "4")],
                          "loser completes", 0),
    "fork made a line": ([_line(NOW, "fork", 3, 2, 3, 7)], "makes a line", 0),
    "fork on a stone": ([_line(NOW, "fork", 3, 0, 3, 7)], "M an empty cell", 0),
    "fork loser line": ([_line("x.../oo../x.../....", "fork", 3, 12, 6, 7)],
                        "loser completes", 0),
    "fork one cell": ([_line(START, "fork", 3, 5, 15, 15)], "two cells", 0),
    "fork no line": ([_line(START, "fork", 3, 5, 10, 15)], "no line is completed", 0),
    "play off board": ([_line(START, "play", 9, "16", "4")], "not an empty cell", 0),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_each_check_can_fail(name: str) -> None:
    lines, message, winner = CHECKS[name]
    checker = WinChecker(SPEC, winner)
    with pytest.raises(ValueError, match=message):
        for words in lines:
            checker.check(words)


def test_a_win_proof_damaged_anywhere_is_refused_with_a_reason(tmp_path: Path) -> None:
    """Words replaced by other numbers or junk, dropped or doubled, lines cut or swapped: each
    file passes (a change that keeps it true) or is refused with ProofCheckError, never
    another error."""
    path = tmp_path / "w.proof"
    write_win_proof(SPEC, (0,) * 16, path)
    lines = path.read_text().splitlines()
    rng = random.Random(11)
    refused = 0
    for _ in range(150):
        edited = [t.split() for t in lines]
        i = rng.randrange(len(edited))
        j = rng.randrange(len(edited[i]))
        how = rng.randrange(5)
        if how == 0:
            edited[i][j] = str(rng.choice((-1, 0, 1, 2, 15, 16, 99, 3 ** 16, 10 ** 40)))
        elif how == 1:
            edited[i][j] = rng.choice(("x", "", ":", "1:", ":1", "1:2:3", "nan", "0x1f"))
        elif how == 2:
            del edited[i][j]
        elif how == 3:
            edited[i].insert(j, edited[i][j])
        else:
            k = rng.randrange(len(edited))
            edited[i], edited[k] = edited[k], edited[i]
        if _rejected(tmp_path, [" ".join(w) for w in edited]) is not None:
            refused += 1
    assert refused > 100


def test_a_win_proof_past_its_deadline_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "w.proof"
    with pytest.raises(ProofWriteError, match="within the time"):
        write_win_proof(parse_spec("6x5k4"), (0,) * 30, path, deadline=time.monotonic())
    assert list(tmp_path.iterdir()) == []

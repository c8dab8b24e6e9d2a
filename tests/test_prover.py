"""The prover (query/search/prover.py, proving.py) against tests/reference.py's plain search:
every claim that a side cannot win, and every zone such a proof returns, on random positions of
small boards; the proof files it writes checked by query/proof_check.py, and damaged ones
refused."""
from __future__ import annotations

import os
import random
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.proof_check import ProofCheckError, check_proof
from tablebase.query.search import proof_writer, prover
from tablebase.query.search.proof_writer import ProofWriteError, write_proof
from tablebase.query.search.proving import ProofBudget, ProofRefusedError, ProofTable, prove_no_win
from tests.reference import Game, can_force_line, parse, random_positions, shared_game


def _positions(text: str, stones: range, count: int, seed: int) -> list[tuple[int, ...]]:
    """`count` distinct positions of random games of `text`, not over, stones in `stones`."""
    return random_positions(shared_game(text), stones, count, seed)


# The plain search's memo a game, for the module: (board, player, to move) -> a forced line.
_MEMOS: dict[str, dict] = {}


def _cannot_win(game: Game, board: tuple[int, ...], attacker: int) -> bool:
    """The plain search: player index `attacker` cannot win from `board`, the side to move as
    the stones say (tests/reference.py's can_force_line: the negamax's value without its
    depths, which the prover does not claim; a quarter of the negamax's time or less)."""
    to_move = game.stones(board) % 2 + 1
    return not can_force_line(game, board, attacker + 1, to_move,
                              _MEMOS.setdefault(game.spec, {}))


def _wins(game: Game, board: tuple[int, ...]) -> bool:
    """The plain search: the side to move wins `board`."""
    return not _cannot_win(game, board, game.stones(board) % 2)


@pytest.mark.parametrize("text, stones", [("4x4k3", range(6, 10)), ("4x4k4", range(7, 12)),
                                          ("4x3k3", range(2, 7))])
def test_every_claim_agrees_with_the_plain_negamax(text: str, stones: range) -> None:
    """Proved (the side cannot win) and disproved (it wins) as the plain search says, for the side
    to move and for the other side, each run on a fresh table and on one kept between runs."""
    game, spec = shared_game(text), parse_spec(text)
    kept = ProofTable(spec, 1 << 20)
    seen = {1: 0, -1: 0}
    for board in _positions(text, stones, 25, seed=len(text) + stones.start):
        for attacker in (0, 1):
            truth = 1 if _cannot_win(game, board, attacker) else -1
            assert ProofTable(spec, 1 << 16).run(board, attacker) == truth, (board, attacker)
            assert kept.run(board, attacker) == truth, (board, attacker)
            seen[truth] += 1
    assert min(seen.values()) >= 4  # both answers were tested


@pytest.mark.parametrize("text, stones", [("4x4k4", range(8, 12)), ("4x4k3", range(7, 10)),
                                          ("4x3k3", range(3, 7))])
def test_every_zone_holds_in_the_plain_negamax(text: str, stones: range) -> None:
    """A proof's zone Z: the attacker still cannot win when its stones outside Z move to other
    cells outside Z, or turn into the defender's while an empty cell outside Z takes one of
    the attacker's (same stones, same side to move) -- the rule the prover prunes by."""
    game, spec = shared_game(text), parse_spec(text)
    rng, checked = random.Random(7), 0
    for board in _positions(text, stones, 15, seed=3):
        for attacker in (0, 1):
            checked += _zone_holds(game, spec, board, attacker, rng)
    assert checked >= 8


def _zone_holds(game: Game, spec, board: tuple[int, ...], attacker: int,  # type: ignore[no-untyped-def]
                rng: random.Random) -> int:
    """If the prover proves `attacker` cannot win on `board`: the plain search's check of its zone
    on up to six changed positions (how many were checked)."""
    table = ProofTable(spec, 1 << 16)
    if table.run(board, attacker) != 1:
        return 0
    return _zone_checked(game, board, attacker, table.zone, rng)


def _changed_outside(game: Game, board: tuple[int, ...], zone: int, side: int,
                     rng: random.Random) -> Iterator[tuple[int, ...]]:
    """Up to six positions from `board` in which one stone of `side` (1 or 2) outside `zone`
    is moved elsewhere outside it or turned into the other side's; those where the other side
    has made a line (the game over) are left out."""
    other_side = 3 - side
    outside = [c for c in range(game.n) if not zone >> c & 1]
    for _ in range(6):
        other = list(board)
        mine = [c for c in outside if other[c] == side]
        free = [c for c in outside if other[c] == 0]
        if not mine:
            return
        c = rng.choice(mine)
        if free and rng.random() < 0.5:
            other[c], other[rng.choice(free)] = 0, side  # moved elsewhere outside Z
        else:
            other[c] = other_side  # the other side's instead
        after = tuple(other)
        if not game.wins(after, other_side):
            yield after


def _zone_checked(game: Game, board: tuple[int, ...], attacker: int, zone: int,
                  rng: random.Random) -> int:
    """The plain search's check of a proof's zone (the attacker's stones outside it moved or given
    to the defender) on up to six changed positions (how many)."""
    checked = 0
    for after in _changed_outside(game, board, zone, attacker + 1, rng):
        assert not game.wins(after, attacker + 1), (board, zone, after)
        assert _cannot_win(game, after, attacker), (board, attacker, zone, after)
        checked += 1
    return checked


def test_a_reply_that_leaves_a_pairing_holds_in_the_plain_negamax() -> None:
    """The defender's leaf that finds a reply after which a pairing holds: the reply is empty
    and in the zone, the attacker cannot win, and the zone holds (as above)."""
    game, spec = shared_game("4x4k4"), parse_spec("4x4k4")
    table = ProofTable(spec, 1 << 16)
    b, rng, found = table.board, random.Random(2), 0
    for board in _positions("4x4k4", range(8, 12), 30, seed=6):
        attacker = 1 - game.stones(board) % 2  # the defender is to move
        b.load(board)
        pn, _, zone, reason, move, _ = prover.leaf(
            b.par, b.lines, b.cl_off, b.cl_idx, b.ends, b.perms, b.board, b.cnt, b.st, b.bx,
            b.bo, b.pairing, table.ctl, True, attacker)
        if reason != prover.REPLIED:
            continue
        assert pn == 0 and board[move] == 0 and int(zone) >> move & 1, (board, move)
        assert _cannot_win(game, board, attacker), board
        found += 1 + _zone_checked(game, board, attacker, int(zone), rng)
    assert found >= 20


def _win_zone_holds(game: Game, spec, board: tuple[int, ...], attacker: int,  # type: ignore[no-untyped-def]
                    rng: random.Random) -> int:
    """If the prover finds that `attacker` wins on `board`: the plain search's check of the win's
    zone (the defender's stones outside it moved elsewhere outside it, or turned into the
    attacker's) on up to six changed positions (how many were checked)."""
    table = ProofTable(spec, 1 << 16)
    if table.run(board, attacker) != -1:
        return 0
    zone, checked = table.zone, 0
    for after in _changed_outside(game, board, zone, 2 - attacker, rng):
        assert not game.wins(after, 2 - attacker), (board, zone, after)
        assert not _cannot_win(game, after, attacker), (board, attacker, zone, after)
        checked += 1
    return checked


@pytest.mark.parametrize("text, stones", [("4x4k3", range(6, 9)), ("5x4k4", range(10, 13))])
def test_every_win_zone_holds_in_the_plain_negamax(text: str, stones: range) -> None:
    """The zone of a win the prover finds (by which it drops the defender's replies outside a
    refuted reply's zone) holds for the plain search."""
    game, spec = shared_game(text), parse_spec(text)
    rng, checked = random.Random(5), 0
    for board in _positions(text, stones, 15, seed=8):
        for attacker in (0, 1):
            checked += _win_zone_holds(game, spec, board, attacker, rng)
    assert checked >= 8


def test_zones_of_symmetric_positions_hold() -> None:
    """Positions their mirror keeps (one move of each mirrored pair searched): the zone of
    each proof holds for positions that break the symmetry."""
    game, spec = shared_game("4x4k4"), parse_spec("4x4k4")
    rng, checked = random.Random(4), 0
    for _ in range(12):
        board = [0] * 16
        for player in (1, 2, 1, 2):
            c = rng.choice([c for c in range(16) if board[c] == 0 and board[c ^ 3] == 0
                            and c % 4 < 2])
            board[c] = board[(c // 4) * 4 + 3 - c % 4] = player
        if game.terminal_value(tuple(board)) is None and not game.wins(tuple(board), 2):
            for attacker in (0, 1):
                checked += _zone_holds(game, spec, tuple(board), attacker, rng)
                checked += _win_zone_holds(game, spec, tuple(board), attacker, rng)
    assert checked >= 4


def test_small_proofs_are_written_and_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Tic-tac-toe, 4x4k4 and 6x6k5 from the empty board, and random 5x4k4 positions where x
    cannot win: each proof written, checked, and its counts add up."""
    for text in ("3x3k3", "4x4k4", "6x6k5"):
        spec = parse_spec(text)
        proved = prove_no_win(spec, (0,) * spec.cells, ProofBudget(memory=1 << 22))
        assert proved.outcome == "proved" and proved.proved == proved.moves
        path = tmp_path / f"{text}.proof.gz"
        written = write_proof(proved, path)
        checked = check_proof(path)
        assert checked.claim == "x cannot win" and checked.positions == written
        assert checked.root == 0  # the empty board's code
        assert checked.positions >= proved.moves and checked.kinds["moves"] >= 1
    game, spec, done = shared_game("5x4k4"), parse_spec("5x4k4"), 0
    for board in _positions("5x4k4", range(10, 13, 2), 12, seed=1):
        if not _cannot_win(game, board, 0):
            assert prove_no_win(spec, board).outcome == "disproved"
            continue
        write_proof(prove_no_win(spec, board, ProofBudget(memory=1 << 20)), tmp_path / "p")
        check_proof(tmp_path / "p")
        done += 1
    assert done >= 3


def test_a_proof_whose_tables_lost_the_defenders_entries_is_still_written(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A table at its largest may have no slot for a position's entry: the writer then finds a
    reply by proving children anew. Here every entry where the defender is to move is lost."""
    spec = parse_spec("5x5k4")
    proved = prove_no_win(spec, (0,) * 25, ProofBudget(memory=1 << 22, threads=1))
    real = ProofTable.entry

    def forget(self: ProofTable) -> int:
        return -1 if self.board.placed % 2 == 1 else real(self)

    monkeypatch.setattr(ProofTable, "entry", forget)
    path = tmp_path / "lost.proof.gz"
    written = write_proof(proved, path)
    checked = check_proof(path)
    assert checked.positions == written and checked.kinds["reply"] >= 1
    # Proofs made again count against the time: past it, the write fails (and leaves no file).
    with pytest.raises(ProofWriteError, match="within the time"):
        write_proof(proved, tmp_path / "late.proof.gz", deadline=time.monotonic())
    # And where no reply is found again, the write fails and leaves no file at all.
    monkeypatch.setattr(ProofTable, "run", lambda self, board, attacker, nodes=None: 0)
    with pytest.raises(ProofWriteError):
        write_proof(proved, tmp_path / "failed.proof.gz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lost.proof.gz"]


def test_a_proof_written_to_a_pipe_leaves_the_pipe_in_place(tmp_path: Path) -> None:
    """A path that is no regular file (a pipe here, /dev/null or /dev/stdout for a user) is
    written to as it is, never renamed over: the proof comes through it whole."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    proved = prove_no_win(parse_spec("3x3k3"), (0,) * 9, ProofBudget(memory=1 << 20))
    written = write_proof(proved, pipe)
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
    (tmp_path / "copy.proof").write_bytes(received[0])
    assert check_proof(tmp_path / "copy.proof").positions == written


def test_the_writer_reports_its_progress(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """write_proof's callback gets the count written so far, every WRITTEN_EVERY positions."""
    monkeypatch.setattr(proof_writer, "WRITTEN_EVERY", 500)
    proved = prove_no_win(parse_spec("7x7k5"), (0,) * 49, ProofBudget(memory=1 << 24))
    seen: list[int] = []
    total = write_proof(proved, tmp_path / "p.proof", seen.append)
    assert seen == list(range(500, total + 1, 500)) and len(seen) >= 2


def _good(tmp_path) -> list[str]:  # type: ignore[no-untyped-def]
    spec = parse_spec("3x3k3")
    path = tmp_path / "good.proof"
    write_proof(prove_no_win(spec, (0,) * 9, ProofBudget(memory=1 << 20)), path)
    return path.read_text().splitlines()


def _damaged(lines: list[str], rng: random.Random) -> list[list[str]]:
    """Copies of a proof's lines, each damaged one way."""
    body = [i for i, t in enumerate(lines) if t[:1].isdigit()]
    out = [lines[:-1], lines[:4] + lines[5:], ["tablebase proof 9"] + lines[1:]]
    for kind in ("pairing", "reply", "moves", "threats"):
        i = next(i for i in body if lines[i].split()[1] == kind)
        words = lines[i].split()
        if kind == "pairing":
            a, b = words[3].split("-")
            words[3] = f"{a}-{int(b) + 1 if int(b) < 8 else 0}"
        elif kind == "reply":
            words[3] = str((int(words[3]) + 1) % 9)
        elif kind == "moves":
            words.pop(rng.randrange(3, len(words)))
        else:
            words[2] = "0"  # a zone missing the lines
        out.append(lines[:i] + [" ".join(words)] + lines[i + 1:])
    return out


def test_damaged_proofs_are_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A cut-off file, a missing position, a bad header, a wrong pair, reply, zone or a missing
    move: each refused with ProofCheckError naming where."""
    lines = _good(tmp_path)
    for n, bad in enumerate(_damaged(lines, random.Random(2))):
        path = tmp_path / f"bad{n}.proof"
        path.write_text("\n".join(bad) + "\n")
        with pytest.raises(ProofCheckError):
            check_proof(path)
    (tmp_path / "junk.proof.gz").write_bytes(b"not gzip at all")
    with pytest.raises(ProofCheckError, match="cannot be read"):
        check_proof(tmp_path / "junk.proof.gz")


def test_the_prover_refuses_what_it_cannot_prove() -> None:
    """Gravity, misere, +exact and boards past 128 cells are refused; a win is disproved, not
    claimed."""
    for text in ("4x4k4+gravity", "3x3k3+misere", "5x5k4+exact", "12x11k5"):
        with pytest.raises(ProofRefusedError):
            prove_no_win(parse_spec(text), (0,) * parse_spec(text).cells)
    game = shared_game("4x4k3")
    #   x o . .
    #   . x . .     x to move wins: c2 makes the diagonal
    #   o . . .
    #   . . . .
    board = parse(game, "xo../.x../o.../....")
    assert _wins(game, board)
    assert prove_no_win(parse_spec("4x4k3"), board).outcome == "disproved"


@pytest.mark.parametrize("text, stones, least", [("5x4k4", range(10, 13), 3),
                                                 ("4x4k3", range(6, 9), 1)])
def test_continuous_fours_are_wins(text: str, stones: range, least: int) -> None:
    """Where threats.py finds the attacker (to move, neither side completing a line at once) a
    win by continuous fours, the plain search finds a win too; and it finds some."""
    from tablebase.query.search.board import Board
    from tablebase.query.search.threats import count_fours, vcf

    game, spec = shared_game(text), parse_spec(text)
    arrays, found = Board(spec, slots_log2=4), 0
    for board in _positions(text, stones, 40, seed=9):
        arrays.load(board)
        a = arrays.placed % 2
        if count_fours(arrays.cnt, arrays.board, arrays.lines, spec.k, a)[0] or \
                count_fours(arrays.cnt, arrays.board, arrays.lines, spec.k, 1 - a)[0]:
            continue
        before = arrays.board.copy()
        if vcf(arrays.par, arrays.lines, arrays.cl_off, arrays.cl_idx, arrays.ends, arrays.perms,
               arrays.board, arrays.cnt, arrays.st, arrays.bx, arrays.bo, a, 8, 200):
            assert _wins(game, board), board
            found += 1
        assert (arrays.board == before).all()  # the board is left as it was
    assert found >= least


def test_keys_of_the_high_cells_spread_over_the_table() -> None:
    """Keys whose stones all lie on cells 40 to 63 (an 8x8 board's upper rows) take their own
    slots: the table's buckets once ignored those cells, and such keys shared one bucket."""
    import numpy as np

    from tablebase.query.search import prooftable as pt
    slots = 1 << 12
    tk1, tk2, tz = (np.zeros(slots, np.uint64) for _ in range(3))
    tpn, tdn = np.zeros(slots, np.int64), np.zeros(slots, np.int64)
    tmv, tfl = np.zeros(slots, np.int16), np.zeros(slots, np.uint8)
    ctl = np.zeros(pt.CONTROLS, np.int64)
    ctl[pt.ROOM] = 1 << 62
    keys = [(np.uint64(1 << (40 + i % 24)), np.uint64(1 << (40 + i // 24))) for i in range(64)]
    for kx, ko in keys:
        # The zone as a uint64, as the prover passes it: put's compiled version.
        pt.put(tk1, tk2, tpn, tdn, tz, tmv, tfl, ctl, kx, ko, 0, 1 << 40, np.uint64(0), -1, 0)
    assert ctl[pt.FULL] == 0
    assert all(pt.find(tk1, tk2, tfl, kx, ko) >= 0 for kx, ko in keys)
    # From Python the keys come as plain ints (ProofTable.entry): the same slots.
    assert all(pt.find(tk1, tk2, tfl, int(kx), int(ko)) == pt.find(tk1, tk2, tfl, kx, ko)
               for kx, ko in keys if max(kx, ko) < 1 << 63)

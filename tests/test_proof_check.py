"""The proof checker's lookup tables (query/proof_tables.py) against the rules kernel's plain
functions on random boards, and proof files respelled or damaged where the checker reads them
through those tables: each accepted or refused as the plain reading says."""
from __future__ import annotations

import gzip
import random
from functools import cache
from pathlib import Path

import pytest

from tablebase.builder.games.grid import canonical_board, decode, encode, parse_spec, permutations
from tablebase.builder.games.grid.geometry import lines as geometry_lines
from tablebase.query import proof_check
from tablebase.query.cli import main
from tablebase.query.proof_check import ProofCheckError, _Checker, check_proof
from tablebase.query.proof_tables import BoardTables
from tablebase.query.search.proof_writer import write_proof
from tablebase.query.search.proving import ProofBudget, prove_no_win


@pytest.mark.parametrize("text", ["3x3k3", "4x3k3", "5x5k3+stones3+square", "7x7k5", "8x8k5"])
def test_tables_read_a_board_as_the_kernel_does(text: str) -> None:
    """Stones, made lines, open lines, images' codes and lines' counts of random boards, and
    zones turned back by each map, equal the plain per-cell and per-line reading."""
    spec, rng = parse_spec(text), random.Random(7)
    n, perms = spec.cells, permutations(spec).tolist()
    lines = sorted({sum(1 << c for c in set(line)) for line in geometry_lines(spec).tolist()})
    for attacker in (0, 1):
        tables = BoardTables(spec, attacker)
        assert tables.lines == lines
        flag = [1 << (tables.field * i + tables.field - 1) for i in range(len(lines))]
        for _ in range(300):
            board = [rng.choice((0, 0, 0, 1, 2)) for _ in range(n)]
            a, d, made, open_flags, images = tables.read(encode(board))
            assert a == sum(1 << c for c in range(n) if board[c] == attacker + 1)
            assert d == sum(1 << c for c in range(n) if board[c] == 2 - attacker)
            assert bool(made) == any(line & a == line or line & d == line for line in lines)
            assert open_flags == sum(f for f, line in zip(flag, lines) if not line & d)
            expected = []
            for perm in perms:
                image = [0] * n
                for c, target in enumerate(perm):
                    image[target] = board[c]
                expected.append(encode(image))
            assert images == expected
            assert min(images) == canonical_board(spec, board)
            counts = tables.line_counts(d)
            for least in range(7):
                assert tables.at_least(counts, least) == sum(
                    f for f, line in zip(flag, lines) if (line & d).bit_count() >= least)
            zone = rng.getrandbits(n + 5)  # cells past the board are dropped
            for s, perm in enumerate(perms):
                assert tables.turned_back(zone, s) == sum(1 << c for c in range(n)
                                                          if zone >> perm[c] & 1)


@pytest.fixture(scope="module")
def proof_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A 4x4k4 proof from the empty board: pairings, replies and moves, symmetric children."""
    path = tmp_path_factory.mktemp("proof") / "good.proof"
    spec = parse_spec("4x4k4")
    write_proof(prove_no_win(spec, (0,) * 16, ProofBudget(memory=1 << 22)), path)
    return path.read_text().splitlines()


# The checker's tables of one game and attacker, built once for the module: check_proof builds
# them anew for every file (~10 ms of pure Python each, most of the tests below that check
# hundreds of files), and only reads them. The tables themselves are tested above.
_tables = cache(BoardTables)


@pytest.fixture
def tables_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """check_proof's checkers take their tables from `_tables`."""
    monkeypatch.setattr(proof_check, "BoardTables", _tables)


@pytest.fixture(scope="module")
def wide_proofs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One 7x7k5 proof from the empty board (over a thousand positions), written plainly and
    gzipped, both from the one search (the tests only read the files)."""
    folder = tmp_path_factory.mktemp("wide")
    proved = prove_no_win(parse_spec("7x7k5"), (0,) * 49, ProofBudget(memory=1 << 24))
    paths = {name: folder / name for name in ("p.proof", "p.proof.gz")}
    for path in paths.values():
        write_proof(proved, path)
    return paths


def _check(tmp_path, lines: list[str]) -> bool:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.proof"
    path.write_text("\n".join(lines) + "\n")
    try:
        check_proof(path)
    except ProofCheckError:
        return False
    return True


def _edited(lines: list[str], kind: str, edit) -> list[str]:  # type: ignore[no-untyped-def]
    """The lines with the first position of `kind` edited (its words, to new words)."""
    i = next(i for i, t in enumerate(lines) if t[:1].isdigit() and t.split()[1] == kind)
    return lines[:i] + [" ".join(edit(lines[i].split()))] + lines[i + 1:]


def test_pairs_are_read_as_int_reads_them(tmp_path, proof_lines, tables_once) -> None:  # type: ignore[no-untyped-def]
    """Pairs spelled otherwise ("+5-09") are read as the numbers they spell; a pair of one
    cell twice, off the board, negative, overlapping another or missing is refused."""
    assert _check(tmp_path, proof_lines)

    def respell(words: list[str]) -> list[str]:
        return words[:3] + ["+" + w.replace("-", "-0") for w in words[3:]]
    assert _check(tmp_path, _edited(proof_lines, "pairing", respell))
    for bad in (lambda w: w[:3] + [w[3].split("-")[0] * 2] + w[4:],          # one number
                lambda w: w[:3] + ["{0}-{0}".format(w[3].split("-")[0])] + w[4:],
                lambda w: w[:3] + [w[3].split("-")[0] + "-16"] + w[4:],       # off the board
                lambda w: w[:3] + [w[3].split("-")[0] + "--1"] + w[4:],
                lambda w: w[:3] + ["-1-" + w[3].split("-")[1]] + w[4:],
                lambda w: w + [w[3]],                                          # a cell twice
                lambda w: w[:3] + w[4:]):                                      # a pair missing
        assert not _check(tmp_path, _edited(proof_lines, "pairing", bad))


def test_codes_and_zones_are_read_through_the_symmetries(tmp_path, proof_lines, tables_once) -> None:  # type: ignore[no-untyped-def]
    """A position written by a code that is not the smallest of its images, a child named by
    such a code, or a zone missing a cell its child's zone (turned back) uses, is refused."""
    spec = parse_spec("4x4k4")
    i = next(i for i, t in enumerate(proof_lines) if t.split()[1] == "pairing")
    code = int(proof_lines[i].split()[0])
    board = decode(code, 16)
    other = max(encode([board[perm.index(c)] for c in range(16)])
                for perm in permutations(spec).tolist())
    assert other != code
    renamed = [" ".join(str(other) if w == str(code) else w.replace(f":{code}", f":{other}")
                        for w in t.split()) for t in proof_lines]
    assert not _check(tmp_path, renamed)
    # Every cell of a reply's zone is one its proof uses (the writer's zones are tight).
    j = next(i for i, t in enumerate(proof_lines) if t[:1].isdigit() and t.split()[1] == "reply")
    words = proof_lines[j].split()
    zone = int(words[2], 16)
    for c in range(16):
        if zone >> c & 1:
            cut = words[:2] + [format(zone & ~(1 << c), "x")] + words[3:]
            assert not _check(tmp_path, proof_lines[:j] + [" ".join(cut)] + proof_lines[j + 1:])


@pytest.mark.parametrize("text", ["4x4k4", "5x5k3+stones3+square", "8x8k5"])
def test_zone_and_line_checks_by_flags_equal_the_plain_rule(text: str) -> None:
    """The zone holds need (or all) empty cells of each line open for A, and A has no line
    at once, read by count fields: as the plain loop over lines says, on random boards."""
    spec, rng = parse_spec(text), random.Random(3)
    checker = _Checker(spec, 0)
    k, n, lines = spec.k, spec.cells, checker.tables.lines
    outcomes = set()
    for _ in range(400):
        board = [rng.choice((0, 0, 0, 0, 1, 2)) for _ in range(n)]
        a, d, _made, open_flags, _images = checker.tables.read(encode(board))
        empty = ((1 << n) - 1) & ~(a | d)
        opened = [line for line in lines if not line & d]
        zone = (empty & rng.getrandbits(n)) | (rng.getrandbits(n) & rng.getrandbits(n))
        for need in (1, 2):
            plain = all((line & empty & zone).bit_count() >= min(need, (line & empty).bit_count())
                        for line in opened)
            try:
                checker._hits(zone, open_flags, empty, need, 0)
                outcomes.add(("hits", plain, True))
            except ValueError:
                outcomes.add(("hits", plain, False))
        plain = not any((line & a).bit_count() == k - 1 and line & empty for line in opened)
        try:
            checker._no_line_at_once(a, empty, open_flags, 0)
            outcomes.add(("once", plain, True))
        except ValueError:
            outcomes.add(("once", plain, False))
    assert all(plain == passed for _, plain, passed in outcomes)
    assert {(kind, plain) for kind, plain, _ in outcomes} == {
        (kind, plain) for kind in ("hits", "once") for plain in (True, False)}


@pytest.mark.parametrize("name", ["p.proof", "p.proof.gz"])
def test_the_check_reports_the_bytes_it_has_read(wide_proofs: dict[str, Path],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 name: str) -> None:
    """check_proof's callback gets the stored file's bytes read so far, growing, within its
    size."""
    monkeypatch.setattr(proof_check, "READ_EVERY", 200)
    path = wide_proofs[name]
    seen: list[int] = []
    assert check_proof(path, seen.append).positions > 1000
    assert len(seen) >= 3 and seen == sorted(seen) and 0 < seen[-1] <= path.stat().st_size


def _verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str],
             lines: list[str]) -> tuple[int, list[str]]:
    """check-proof's exit status and output lines (stdout, then stderr) on a file of `lines`."""
    path = tmp_path / "v.proof"
    path.write_text("\n".join(lines) + "\n")
    return _verdict_of(path, capsys)


def _verdict_of(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """check-proof's exit status and output lines (stdout, then stderr) on the file `path`."""
    status = main(["check-proof", str(path), "--quiet"])
    out, err = capsys.readouterr()
    return status, (out + err).splitlines()


def _stones(code: int) -> int:
    return sum(1 for v in decode(code, 16) if v)


def test_a_root_with_the_other_side_to_move_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], proof_lines: list[str]) -> None:
    """The claim is that the side to move at the root cannot win. A file cut after a
    defender's reply and rooted there (o to move, "x cannot win"), and a position dead for o
    with x to move claimed as "o cannot win", are refused in one line, exit status 2; the same
    cut after a position with x to move is accepted."""
    body = range(4, len(proof_lines) - 1)
    j = next(i for i in body if proof_lines[i].split()[1] == "reply")
    code = int(proof_lines[j].split()[0])
    assert _stones(code) % 2 == 1  # o to move
    cut = proof_lines[:3] + [f"root {code}"] + proof_lines[4:j + 1] + [f"end {j - 3}"]
    status, said = _verdict(tmp_path, capsys, cut)
    assert status == 2 and len(said) == 1 and "o to move" in said[0], said
    #   x o o .
    #   o . x .     x: 0 6 9 15, o: 1 2 4 8; every line holds an x stone: o cannot win,
    #   o x . .     but x is to move
    #   . . . x
    board = [0] * 16
    for c in (0, 6, 9, 15):
        board[c] = 1
    for c in (1, 2, 4, 8):
        board[c] = 2
    dead = canonical_board(parse_spec("4x4k4"), board)
    flipped = ["tablebase proof 1", "spec 4x4k4", "claim o cannot win", f"root {dead}",
               f"{dead} dead 0", "end 1"]
    status, said = _verdict(tmp_path, capsys, flipped)
    assert status == 2 and len(said) == 1 and "x to move" in said[0], said
    i = next(i for i in body if _stones(int(proof_lines[i].split()[0])) % 2 == 0)
    code = int(proof_lines[i].split()[0])
    cut = proof_lines[:3] + [f"root {code}"] + proof_lines[4:i + 1] + [f"end {i - 3}"]
    status, said = _verdict(tmp_path, capsys, cut)
    assert status == 0 and said[0].startswith("proof checked: 4x4k4, x cannot win"), said


def test_a_root_proved_earlier_in_the_file_is_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], proof_lines: list[str]) -> None:
    """Nothing in the format puts the root last: a root (x to move) proved before other
    positions of the file is found, and the whole file checked; a root the file does not
    prove is still refused."""
    body = range(4, len(proof_lines) - 1)
    i = next(i for i in body if _stones(int(proof_lines[i].split()[0])) % 2 == 0)
    assert i < len(proof_lines) - 2
    code = int(proof_lines[i].split()[0])
    early = proof_lines[:3] + [f"root {code}"] + proof_lines[4:]
    path = tmp_path / "early.proof"
    path.write_text("\n".join(early) + "\n")
    checked = check_proof(path)
    assert checked.root == code and checked.positions == len(body)
    status, said = _verdict(tmp_path, capsys, early)
    assert status == 0 and said[0].startswith("proof checked: 4x4k4, x cannot win"), said
    codes = {int(proof_lines[k].split()[0]) for k in body}
    missing = next(c for c in range(3 ** 16) if sorted(decode(c, 16))[-2:] == [1, 2]
                   and _stones(c) == 2 and c not in codes
                   and canonical_board(parse_spec("4x4k4"), decode(c, 16)) == c)
    status, said = _verdict(tmp_path, capsys, proof_lines[:3] + [f"root {missing}"]
                            + proof_lines[4:])
    assert status == 2 and len(said) == 1 and "not proved in the file" in said[0], said


def test_a_zone_with_cells_past_the_board_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], proof_lines: list[str],
        tables_once: None) -> None:
    """A zone is a set of the board's cells: a zone holding bit 16 or higher on 4x4k4 (or
    written negative, all bits above set) is malformed, on a position of any kind, and refused
    in one line, exit status 2."""
    body = range(4, len(proof_lines) - 1)
    kinds = set()
    for i in body:
        words = proof_lines[i].split()
        kinds.add(words[1])
        zone = int(words[2], 16)
        for spelled in (format(zone | 1 << 16, "x"), format(zone | 1 << 40, "x"),
                        "-" + words[2]):
            bad = proof_lines[:i] + [" ".join(words[:2] + [spelled] + words[3:])] \
                + proof_lines[i + 1:]
            status, said = _verdict(tmp_path, capsys, bad)
            assert status == 2 and len(said) == 1 and "malformed zone" in said[0], said
    assert {"pairing", "reply", "moves"} <= kinds


def test_a_damaged_or_cut_gzip_file_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], proof_lines: list[str],
        tables_once: None) -> None:
    """A .gz proof damaged inside its compressed stream (here its first block given the
    reserved block type, which zlib refuses), cut anywhere, or with any one byte changed, is
    refused in one line with exit status 2, or (a byte the check does not read, such as the
    header's time) accepted; never a traceback."""
    text = ("\n".join(proof_lines) + "\n").encode()
    packed = gzip.compress(text, mtime=0)
    path = tmp_path / "p.proof.gz"
    bad = bytearray(packed)
    bad[10] = 0b111  # the deflate stream's first byte: BFINAL 1, BTYPE 11 (reserved)
    path.write_bytes(bytes(bad))
    with pytest.raises(ProofCheckError, match="cannot be read as a proof file"):
        check_proof(path)
    status, said = _verdict_of(path, capsys)
    assert status == 2 and len(said) == 1, said
    for end in range(len(packed)):
        path.write_bytes(packed[:end])
        with pytest.raises(ProofCheckError):
            check_proof(path)
    for i in range(len(packed)):
        bad = bytearray(packed)
        bad[i] ^= 0x55
        path.write_bytes(bytes(bad))
        try:
            check_proof(path)
        except ProofCheckError as e:
            assert "\n" not in str(e)


@pytest.mark.parametrize("variant", ["+gravity", "+misere", "+exact", "+stones3",
                                     "+stones3+square"])
def test_a_game_off_the_normal_rules_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], proof_lines: list[str],
        variant: str) -> None:
    """The checks read the normal rules only: a proof file naming a game with gravity, misere,
    +exact or moving stones (here the 4x4k4 proof under such a header, which the normal-rules
    checks would pass for +misere and +exact) is refused in one line, exit status 2."""
    status, said = _verdict(tmp_path, capsys,
                            proof_lines[:1] + [f"spec 4x4k4{variant}"] + proof_lines[2:])
    assert status == 2 and len(said) == 1 and "normal rules" in said[0], said

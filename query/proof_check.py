"""Checking a proof file that a side cannot win or that it wins (`tablebase check-proof`), with
nothing of the search: the rules kernel's lines, symmetries and codes, and the checks below,
each on one position at a time (a win's positions in win_check.py).

The file (text; gzip-compressed when its name ends in .gz):

    tablebase proof 1
    spec 8x8k5
    claim x cannot win
    root CODE
    CODE KIND ZONE ...          one line a position, children before parents
    end N                       N: the positions written (a cut-off file lacks it)

A position is named by its canonical code (builder/game: the smallest base-3 code over the
symmetries); its cells and its zone (hex bitmask, bit c for cell c, no bit past the board) are
in the orientation of that code's board. The attacker A is the claim's side, D the other, and
the root has A to move. KIND is one of:

    dead                      no line is open for A (each holds a D stone)
    pairing A-B C-D ...       disjoint pairs of empty cells, both cells of a pair in every
                              line open for A: D answers one cell of a pair with the other
    line T                    D to move completes a line at T
    threats T1 T2             A to move makes no line at once; D completes a line at T1 and
                              at T2: A blocks one at most
    reply R CHILD             D to move answers at R (CHILD: the code after it)
    moves [block T] ...       A to move; every empty cell once: C:CHILD (the move's proof),
                              C/M (covered: C lies outside the zone of the move M's proof),
                              C@T (D then completes a line at T; A's only move is to block T)

The zone Z of a position's proof is a set of cells such that A cannot win from any position
with the same side to move and stones, in which D holds all D's cells (and maybe more) and A's
stones inside Z are some of A's stones inside Z (outside Z, anything). Each kind's zone must
hold: the pairs' cells (pairing); the line and one empty cell of every line open for A (line:
so A has made no line); both lines and two empty cells of every line open for A (threats, and
with a block: A then makes no line in one move); the child's zone and R (reply); the children's
zones (moves). Why C/M is sound: a position of M's zone with A's stone on C instead of M is one
where A holds fewer of the zone's cells (C lies outside it), so M's proof covers it.
"""
from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import reduce
from operator import add, or_
from pathlib import Path

from tablebase.builder.games.grid import Spec, parse_spec
from tablebase.query.errors import QueryError
from tablebase.query.proof_tables import BoardTables
from tablebase.query.win_check import WinChecker

FORMAT = "tablebase proof 1"
_KINDS = ("dead", "pairing", "line", "threats", "reply", "moves")


class ProofCheckError(QueryError, ValueError):
    """A proof file that is damaged, incomplete or wrong (the message says where)."""


def attacker_name(attacker: int) -> str:
    """'x' for player index 0, 'o' for 1."""
    return "xo"[attacker]


@dataclass
class CheckedProof:
    """A proof that checked: its game, claim, root code and counts of each kind of position."""

    spec: Spec
    claim: str
    root: int
    kinds: dict[str, int] = field(default_factory=dict)
    depth: int | None = None  # a win's: the bound the root's proof gives, in plies

    @property
    def positions(self) -> int:
        """Positions in the proof."""
        return sum(self.kinds.values())


# Lines read between two calls of check_proof's progress callback.
READ_EVERY = 1 << 14


def _lines_of(path: Path, read: Callable[[int], None] | None) -> Iterator[str]:
    """The file's lines (gunzipped for a .gz name); read(bytes of the file read so far) every
    READ_EVERY lines."""
    try:
        with open(path, "rb") as raw:
            binary = gzip.GzipFile(fileobj=raw) if path.suffix == ".gz" else raw
            with io.TextIOWrapper(binary, encoding="ascii") as f:
                for number, line in enumerate(f, 1):
                    if read is not None and number % READ_EVERY == 0:
                        read(raw.tell())
                    yield line
    # zlib.error: a gzip file damaged inside its compressed stream (a bad header is an
    # OSError, a cut one an EOFError); each is one line, as any damaged file is.
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as e:
        raise ProofCheckError(f"{path}: cannot be read as a proof file ({e})") from None


def check_proof(path: str | Path, read: Callable[[int], None] | None = None) -> CheckedProof:
    """Check the proof file at `path`; ProofCheckError (one line, where and why) if it is
    damaged, incomplete, or any of its claims fails. `read(bytes)` is called as the check
    goes with how much of the file (as stored, compressed or not) it has read."""
    path = Path(path)
    rows = _lines_of(path, read)
    head = [next(rows, "").rstrip("\n") for _ in range(4)]
    if head[0] != FORMAT:
        raise ProofCheckError(f"{path}: not a proof file (found {head[0][:40]!r}, expected"
                              f" {FORMAT!r})")
    try:
        spec = parse_spec(head[1].removeprefix("spec "))
        claim = head[2].removeprefix("claim ")
        attacker, bound = _claim(claim)
        root = int(head[3].removeprefix("root "))
    except (ValueError, KeyError) as e:
        raise ProofCheckError(f"{path}: a damaged header ({e})") from None
    # The checks read the normal rules only (a stone on any empty cell, k or more in a row
    # wins): under gravity, misere, +exact or moving stones a file they pass proves nothing
    # of the game its header names, so a game other than its board's plain k in a row is
    # refused, as the prover refuses it.
    if spec != Spec(spec.width, spec.height, spec.k):
        raise ProofCheckError(f"{path}: {spec.name}: the check takes games of placed stones"
                              " under normal rules (no gravity, misere, +exact or moving"
                              " stones)")
    checker: _Checker | WinChecker = (_Checker(spec, attacker) if bound is None
                                      else WinChecker(spec, attacker))
    # The claim is that the side to move at the root cannot win, or that it wins (what `solve
    # --proof` proves and what the check prints beside the board): a root with the other side
    # to move proves another statement (a file cut after a defender's reply would pass for the
    # attacker's), so it is refused, before the file is read. A root off the board's codes fails below.
    if 0 <= root < checker.tables.limit:
        a, d, *_ = checker.tables.read(root)
        mover = (a | d).bit_count() % 2
        if mover != attacker:
            raise ProofCheckError(f"{path}: the claim is that {claim}, but the root position"
                                  f" {root} has {attacker_name(mover)} to move (a claim is"
                                  " about the side to move)")
    ended = None
    for number, text in enumerate(rows, 5):
        if ended is not None:
            raise ProofCheckError(f"{path}, line {number}: text after the end")
        words = text.split()
        if words[:1] == ["end"]:
            ended = words
            continue
        try:
            checker.check(words)
        except (IndexError, KeyError):
            raise ProofCheckError(f"{path}, line {number}: a damaged or cut-off line (too few"
                                  " words)") from None
        except ValueError as e:
            raise ProofCheckError(f"{path}, line {number}: {e}") from None
    if ended is None or len(ended) != 2 or ended[1] != str(sum(checker.kinds.values())):
        raise ProofCheckError(f"{path}: the file is cut off or damaged (no end line counting"
                              f" its {sum(checker.kinds.values()):,} positions)")
    # Each line is checked on its own against positions proved before it, so every position
    # the file holds is proved wherever its line stands: the root need not be the last one.
    if not checker.holds(root):
        raise ProofCheckError(f"{path}: the root position {root} is not proved in the file")
    if isinstance(checker, WinChecker):
        depth = checker.depths[root]
        if bound is not None and depth > bound:
            raise ProofCheckError(f"{path}: the claim is a win within {bound} plies, but the"
                                  f" root's proof gives {depth}")
        return CheckedProof(spec, claim, root, dict(checker.kinds), depth)
    return CheckedProof(spec, claim, root, dict(checker.kinds))


def _claim(text: str) -> tuple[int, int | None]:
    """The claim's side and, for a win, its bound in plies: "x cannot win" is (0, None),
    "o wins within 11" is (1, 11); KeyError or ValueError for anything else."""
    words = text.split()
    if words[:1] == ["x"] or words[:1] == ["o"]:
        if words[1:] == ["cannot", "win"]:
            return "xo".index(words[0]), None
        if words[1:3] == ["wins", "within"] and len(words) == 4 and words[3].isdigit():
            return "xo".index(words[0]), int(words[3])
    raise ValueError(f"unknown claim {text!r}, expected 'x cannot win' or 'x wins within N'")


class _Checker:
    """The per-position checks; children come before parents, so a child's zone is known.
    A position is read through lookup tables (proof_tables.py): its stones, its lines' counts
    and its images' codes; a child's images are the parent's plus the stone played."""

    def __init__(self, spec: Spec, attacker: int) -> None:
        self.spec, self.attacker = spec, attacker
        self.tables = BoardTables(spec, attacker)
        self.zones: dict[int, int] = {}
        self.kinds: dict[str, int] = {}

    def holds(self, code: int) -> bool:
        """Whether the position `code` is proved so far."""
        return code in self.zones

    def check(self, words: list[str]) -> None:
        """Check one position's line (split into words); ValueError says what fails."""
        code, kind, zone = int(words[0]), words[1], int(words[2], 16)
        if kind not in _KINDS:
            raise ValueError(f"unknown kind {kind!r}, expected one of {', '.join(_KINDS)}")
        if code in self.zones:
            raise ValueError(f"position {code} is proved twice")
        t, n = self.tables, self.tables.cells
        # A zone is a set of the board's cells. Bits past the board (or a negative number: all
        # bits above set) name no cell; the checks below would drop them and pass the line
        # as the zone it spells on the board, which is not what the line says. The format has
        # no such zone, so the line is malformed and refused, not read as another zone.
        if zone >> n:
            raise ValueError(f"position {code}: a malformed zone {words[2]} (cells past the"
                             f" board's {n})")
        a, d, open_flags, images, empty, stones = t.position(code)
        mover = stones % 2  # 0: x to move
        args = words[3:]
        if kind == "dead":
            if open_flags:
                raise ValueError(f"position {code}: a line is still open for the attacker")
        elif kind == "pairing":
            self._pairing(code, zone, empty, open_flags, args)
        elif kind == "line":
            self._turn(mover, 1 - self.attacker, code)
            tc = int(args[0])
            self._within(zone, self._completed(d, empty, tc, code), code)
            self._hits(zone, open_flags, empty, 1, code)
        elif kind == "threats":
            self._turn(mover, self.attacker, code)
            self._no_line_at_once(a, empty, open_flags, code)
            t1, t2 = int(args[0]), int(args[1])
            if t1 == t2:
                raise ValueError(f"position {code}: two threats at one cell")
            both = self._completed(d, empty, t1, code) | self._completed(d, empty, t2, code)
            self._within(zone, both, code)
            self._hits(zone, open_flags, empty, 2, code)
        elif kind == "reply":
            self._turn(mover, 1 - self.attacker, code)
            r, child = int(args[0]), int(args[1])
            if not empty >> r & 1:
                raise ValueError(f"position {code}: the reply {r} is not an empty cell")
            wide = zone | (1 << r)
            if not any(z | wide == zone
                       for z in self._child_zones(images, 2 - self.attacker, r, child, code)):
                raise ValueError(f"position {code}: the zone misses cells its proof uses")
        else:
            self._moves(images, code, zone, empty, a, d, open_flags, mover, args)
        self.zones[code] = zone
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def _pairing(self, code: int, zone: int, empty: int, open_flags: int,
                 args: list[str]) -> None:
        """Disjoint pairs of empty cells, every line open for A holding one."""
        pair_cells = self.tables.pair_cells
        if not all(map(pair_cells.__contains__, args)):
            args = self._pair_words(code, args)
        used = reduce(or_, map(pair_cells.__getitem__, args), 0)
        if used.bit_count() != 2 * len(args) or used & ~empty:
            raise ValueError(f"position {code}: the pairs are not disjoint pairs of empty cells")
        if open_flags & ~reduce(or_, map(self.tables.pair_lines.__getitem__, args), 0):
            raise ValueError(f"position {code}: an open line holds no pair")
        self._within(zone, used, code)

    def _pair_words(self, code: int, args: list[str]) -> list[str]:
        """Pairs written otherwise than "c1-c2" (c1 != c2, both cells of the board) as that,
        where int() reads them ("+3-04"), else ValueError."""
        words = []
        for text in args:
            c1, c2 = (int(x) for x in text.split("-"))
            if c1 == c2 or not (0 <= c1 < self.tables.cells and 0 <= c2 < self.tables.cells):
                raise ValueError(f"position {code}: pair {text} is not two empty cells")
            words.append(f"{c1}-{c2}")
        return words

    def _moves(self, images: list[int], code: int, zone: int, empty: int, a: int, d: int,
               open_flags: int, mover: int, args: list[str]) -> None:
        """The attacker's node: every empty cell once, each a child, covered, or blocked."""
        self._turn(mover, self.attacker, code)
        block = None
        if args[:1] == ["block"]:
            block = int(args[1])
            args = args[2:]
            self._within(zone, self._completed(d, empty, block, code), code)
            self._hits(zone, open_flags, empty, 2, code)
            self._no_line_at_once(a, empty, open_flags, code)
        children: dict[int, list[int]] = {}
        covered: dict[int, int] = {}
        seen = 0
        for text in args:
            # The first of ":/@" in the word is its separator (others in it make it damaged).
            if ":" in text:
                sep = ":"
            elif "/" in text:
                sep = "/"
            elif "@" in text:
                sep = "@"
            else:
                raise ValueError(f"position {code}: {text!r} is not C:CHILD, C/M or C@T")
            left, right = text.split(sep)
            c = int(left)
            if not empty >> c & 1 or seen >> c & 1:
                raise ValueError(f"position {code}: move {c} is not an empty cell, or twice")
            seen |= 1 << c
            if sep == ":":
                children[c] = [z for z in self._child_zones(images, self.attacker + 1, c,
                                                            int(right), code)
                               if z | zone == zone]
                if not children[c]:
                    raise ValueError(f"position {code}: the zone misses cells its proof uses")
            elif sep == "/":
                covered[c] = int(right)
            elif block is None or int(right) != block or c == block:
                raise ValueError(f"position {code}: move {c} is not answered at a block")
        if seen != empty:
            raise ValueError(f"position {code}: {(empty & ~seen).bit_count()} of the attacker's"
                             " moves are missing")
        by: dict[int, int] = {}  # move -> the cells it covers
        for c, m in covered.items():
            by[m] = by.get(m, 0) | (1 << c)
        for m, cells in by.items():  # one orientation of m's zone must leave out all of them
            if m not in children or all(z & cells for z in children[m]):
                raise ValueError(f"position {code}: a move covered by move {m} is not outside"
                                 " the zone of its proof")
        if block is not None and block not in children:
            raise ValueError(f"position {code}: the block {block} has no proof")

    def _child_zones(self, images: list[int], digit: int, c: int, child: int,
                     code: int) -> list[int]:
        """The zone of `child` (the code after a stone `digit` on the empty cell c of the
        position whose images' codes are `images`) in the position's orientation: one for each
        map sending the position after the move to the child's board (a board its own
        symmetries keep has several, each as good as another)."""
        after = list(map(add, images, self.tables.place[digit][c]))
        least = min(after)
        if least != child:
            raise ValueError(f"position {code}: {child} is not the code of the position after"
                             " the move")
        if child not in self.zones:
            raise ValueError(f"position {code}: its child {child} is not proved before it")
        z = self.zones[child]
        if after.count(least) == 1:  # most boards: no symmetry keeps them
            return [self.tables.turned_back(z, after.index(least))]
        return [self.tables.turned_back(z, s) for s, image in enumerate(after) if image == least]

    def _no_line_at_once(self, a: int, empty: int, open_flags: int, code: int) -> None:
        """No line open for A holds k - 1 of A's stones and an empty cell."""
        t, k = self.tables, self.spec.k
        a_counts, empties = t.line_counts(a), t.line_counts(empty)
        if open_flags & t.at_least(a_counts, k - 1) & ~t.at_least(a_counts, k) \
                & t.at_least(empties, 1):
            raise ValueError(f"position {code}: the attacker can make a line at once")

    def _completed(self, mine: int, empty: int, c: int, code: int) -> int:
        """The first line (in `lines` order) that `mine` (k - 1 stones in it) completes at the
        empty cell c."""
        if 0 <= c < self.tables.cells and empty >> c & 1:
            for line in self.tables.through[c]:
                if (line & mine).bit_count() == self.spec.k - 1:
                    return line
        raise ValueError(f"position {code}: no line is completed at {c}")

    def _hits(self, zone: int, open_flags: int, empty: int, need: int, code: int) -> None:
        """The zone holds `need` empty cells (or all, if fewer) of each line open for A."""
        t = self.tables
        inside, empties = t.line_counts(empty & zone), t.line_counts(empty)
        # inside + adds[0] - empties: a field's flag is set where inside >= empties (no
        # borrow: each field stays between 1 and 2**f - 1).
        enough = t.at_least(inside, need) | ((inside + t.adds[0] - empties) & t.high)
        if open_flags & ~enough:
            raise ValueError(f"position {code}: the zone misses empty cells of an open line")

    def _within(self, zone: int, part: int, code: int) -> None:
        if part & ~zone:
            raise ValueError(f"position {code}: the zone misses cells its proof uses")

    def _turn(self, mover: int, expected: int, code: int) -> None:
        if mover != expected:
            raise ValueError(f"position {code}: {'xo'[mover]} is to move, not"
                             f" {'xo'[expected]}")

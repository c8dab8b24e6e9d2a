"""The position sets of the search bench and tests, made by self-play of a simple player (it
wins where it can, blocks a line the other side would complete, else plays a random move near
the centre and the stones) and kept in tests/search_positions/ as moves from the empty board.

    python tests/search_sets.py [7x7k5|connect4|pons|wide]   # remake the sets (seeded: the
                                                             # same files every time), or one

7x7k5.txt: 9 to 13 stones where the side to move has a forced win in 3 to 9 plies, as the
search proves it within a second (tests check its value and move independently, with the
plain AND/OR search of tests/reference.py). connect4.txt: 7x6 Connect Four positions of 16, 18
and 20 stones, the game not over. connect4_pons.txt: 7x6 positions of 24 to 32 stones in Pascal
Pons' format ("MOVES SCORE": 1-based column digits, his score), each scored by the plain
negamax of tests/reference.py, none decided within two plies. wide.txt: boards past 64 cells
(9x9k5, 10x10k5, 11x11k5) with 12 empty cells, as board text: filled by alternate stones on
random cells, each leaving no line and no cell where its side would complete one (so no
board is decided at once), then kept for a mix of values by the plain negamax over the empty
cells (tests/reference.py's FewEmpty).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HERE = ROOT / "tests" / "search_positions"


def simple_move(spec, board: list[int], rng: random.Random) -> int:  # type: ignore[no-untyped-def]
    """The simple player's move: a win, else a block, else random near the centre and stones."""
    from tablebase.builder.games.grid import legal_moves, outcome
    moves = legal_moves(spec, board)
    ply = sum(1 for v in board if v)
    me = 1 if ply % 2 == 0 else 2
    for player in (me, 3 - me):
        for cell in moves:
            board[cell] = player
            made = outcome(spec, board) is not None and any(board) and _line(spec, board, player)
            board[cell] = 0
            if made:
                return cell
    w, h = spec.width, spec.height

    def weight(cell: int) -> float:
        r, c = divmod(cell, w)
        near = sum(1 for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                   if 0 <= r + dr < h and 0 <= c + dc < w and board[(r + dr) * w + c + dc])
        centre = (w + h) / 2 - abs(r - (h - 1) / 2) - abs(c - (w - 1) / 2)
        return 1 + near * 2 + centre
    return rng.choices(moves, weights=[weight(c) for c in moves])[0]


def _line(spec, board: list[int], player: int) -> bool:  # type: ignore[no-untyped-def]
    from tablebase.builder.games.grid.rules import has_line
    return has_line(spec, board, player)


def self_play(spec, rng: random.Random, stones: int) -> list[int] | None:  # type: ignore[no-untyped-def]
    """The cells of a simple-player game's first `stones` moves (None if it ended before)."""
    from tablebase.builder.games.grid import outcome
    board, cells = [0] * spec.cells, []
    for i in range(stones):
        cell = simple_move(spec, board, rng)
        board[cell] = 1 if i % 2 == 0 else 2
        cells.append(cell)
        if outcome(spec, board) is not None:
            return None
    return cells


def read_set(name: str) -> list[str]:
    """The move lists of a set (one a line; lines starting with # are notes)."""
    lines = (HERE / name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _gomoku(rng: random.Random, wanted: int = 36) -> list[str]:
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import move_name
    from tablebase.query.search.searcher import Budget, Searcher
    spec = parse_spec("7x7k5")
    searcher = Searcher(spec)
    found: list[str] = []
    quick = 0  # wins in 3 are the commonest: at most a quarter of the set
    while len(found) < wanted:
        cells = self_play(spec, rng, rng.randint(9, 13))
        if cells is None:
            continue
        board = [0] * spec.cells
        for i, c in enumerate(cells):
            board[c] = 1 if i % 2 == 0 else 2
        s = searcher.solve(board, Budget(seconds=1.0))
        if s.value is not None and s.value.word == "win" and s.depth is not None \
                and 3 <= s.depth <= 9 and (s.depth > 3 or quick < wanted // 4):
            quick += s.depth == 3
            found.append(" ".join(move_name(spec, c) for c in cells))
    return found


def _connect4(rng: random.Random, per_size: int = 8) -> list[str]:
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import move_name
    from tablebase.query.search.searcher import Budget, Searcher
    spec = parse_spec("7x6k4+gravity")
    searcher = Searcher(spec)
    found: list[str] = []
    for stones in (16, 18, 20):
        made = 0
        while made < per_size:
            cells = self_play(spec, rng, stones)
            if cells is None:
                continue
            board = [0] * spec.cells
            for i, c in enumerate(cells):
                board[c] = 1 if i % 2 == 0 else 2
            if searcher.solve(board, Budget(nodes=64)).depth not in (1, 2):  # not decided at once
                found.append(" ".join(move_name(spec, c) for c in cells))
                made += 1
    return found


def pons_score(cells: int, stones: int, value: int, depth: int) -> int:
    """Pons' score of a value and depth for the side to move (his definition: a win with the
    move made after m stones scores (cells + 1 - m) // 2, a loss the opposite; a draw 0)."""
    if value == 0:
        return 0
    before_last = stones + depth - 1  # stones on the board before the winning move
    return (cells + 1 - before_last) // 2 * value


def _pons(rng: random.Random, wanted: int = 36) -> list[str]:
    from tablebase.builder.games.grid import parse_spec
    from tests.reference import Game
    spec, game = parse_spec("7x6k4+gravity"), Game("7x6k4+gravity")
    found: list[str] = []
    while len(found) < wanted:
        stones = 24 + 2 * (len(found) % 5)
        cells = self_play(spec, rng, stones + len(found) % 2)
        if cells is None:
            continue
        board = [0] * spec.cells
        for i, c in enumerate(cells):
            board[c] = 1 if i % 2 == 0 else 2
        game.solve.cache_clear()
        value, depth = game.solve(tuple(board))
        if depth > 2:
            moves = "".join(str(c % spec.width + 1) for c in cells)
            found.append(f"{moves} {pons_score(spec.cells, len(cells), value, depth)}")
    return found


def quiet_fill(spec_text: str, rng: random.Random, empty: int) -> tuple[int, ...] | None:
    """A board of `spec_text` with `empty` empty cells, filled by alternate stones on random
    cells, each making no line and leaving its side no cell to complete one (None: stuck)."""
    from tests.reference import Game, completing
    game = Game(spec_text)
    board = [0] * game.n
    for i in range(game.n - empty):
        me = 1 if i % 2 == 0 else 2
        cells = [c for c in range(game.n) if board[c] == 0]
        rng.shuffle(cells)
        for c in cells:
            board[c] = me
            if not game.wins(tuple(board), me) and not completing(game, tuple(board), me):
                break
            board[c] = 0
        else:
            return None
    return tuple(board)


def _wide(rng: random.Random, per_value: dict[str, int]) -> list[str]:
    """Boards past 64 cells with 12 empty cells: for each spec, up to per_value[spec] of each
    value (win, draw, loss), from at most 40 fills; written in rounds of one board of each
    value, the cheapest for the plain negamax first (the tests take the first few)."""
    from tablebase.builder.games.grid import parse_spec
    from tablebase.builder.games.grid.notation import board_text
    from tests.reference import FewEmpty, Game
    found: list[str] = []
    for spec_text, wanted in per_value.items():
        game = Game(spec_text)
        kept: dict[int, list[tuple[int, str]]] = {1: [], 0: [], -1: []}
        for _ in range(40):
            board = quiet_fill(spec_text, rng, 12)
            if board is None:
                continue
            few = FewEmpty(game, board)
            value, _ = few.solve(board)
            if len(kept[value]) < wanted:
                text = board_text(parse_spec(spec_text), board)
                kept[value].append((len(few.memo), f"{spec_text} {text}"))
            if min(len(v) for v in kept.values()) >= wanted:
                break
        for boards in kept.values():
            boards.sort()
        for i in range(wanted):
            found += [line for _, line in sorted(b[i] for b in kept.values() if len(b) > i)]
    return found


def main() -> None:
    """Remake the sets."""
    HERE.mkdir(exist_ok=True)
    header = ("# made by tests/search_sets.py (seeded self-play of a simple player); moves from"
              " the empty board\n")
    only = sys.argv[1] if len(sys.argv) > 1 else None
    if only in (None, "7x7k5"):
        (HERE / "7x7k5.txt").write_text(header + "\n".join(_gomoku(random.Random(455))) + "\n")
    if only in (None, "connect4"):
        (HERE / "connect4.txt").write_text(header + "\n".join(_connect4(random.Random(7))) + "\n")
    if only in (None, "pons"):
        (HERE / "connect4_pons.txt").write_text(
            "# made by tests/search_sets.py (seeded self-play of a simple player); Pons' format:"
            " 1-based columns and his score, by the plain negamax of tests/reference.py\n"
            + "\n".join(_pons(random.Random(35))) + "\n")
    if only in (None, "wide"):
        (HERE / "wide.txt").write_text(
            "# made by tests/search_sets.py (seeded random fills, none decided at once); spec"
            " and board text, 12 empty cells\n"
            + "\n".join(_wide(random.Random(81), {"9x9k5": 3, "10x10k5": 1, "11x11k5": 1}))
            + "\n")


if __name__ == "__main__":
    main()

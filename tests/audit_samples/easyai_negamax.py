"""easyAI's Negamax (a solver nobody here wrote) on tic-tac-toe, adapted to the audit's function
interface: `solve9` searches 9 plies (the whole game), `solve4` only 4 (a depth-limited player
that misjudges some positions). Each returns (value, move) for the side to move."""
from __future__ import annotations

from easyAI import AI_Player, Negamax
from easyAI.games.TicTacToe import TicTacToe


def _solve(board: str, to_move: str, depth: int) -> tuple[int, str | None]:
    cells = board.replace("/", "")
    game = TicTacToe([AI_Player(None), AI_Player(None)])
    # easyAI numbers the cells 1..9 row by row from the top, as board text does; x is player 1.
    game.board = [{".": 0, "x": 1, "o": 2}[c] for c in cells]
    game.current_player = 1 if to_move == "x" else 2
    if game.is_over():
        return (-1 if game.lose() else 0), None
    ai = Negamax(depth)
    move = ai(game)
    value = 0 if ai.alpha == 0 else (1 if ai.alpha > 0 else -1)
    cell = int(move) - 1
    return value, "abc"[cell % 3] + str(3 - cell // 3)


def solve9(board: str, to_move: str) -> tuple[int, str | None]:
    """easyAI Negamax(9): a full search."""
    return _solve(board, to_move, 9)


def solve4(board: str, to_move: str) -> tuple[int, str | None]:
    """easyAI Negamax(4): four plies ahead, then easyAI's scoring (0 when nobody has won)."""
    return _solve(board, to_move, 4)

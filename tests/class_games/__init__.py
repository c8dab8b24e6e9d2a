"""Games written as plain Python classes of the game-class protocol (docs/games.md), as anyone
might write them: they import nothing of ours. tests/reference_games.py solves them plainly."""

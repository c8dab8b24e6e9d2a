"""Games whose stones drop (`+gravity`, Connect Four): a stone falls to the lowest empty cell of
its column (game.py). Its rules and kernels share the grid's (../grid/), which take the drop as
one rule among their own; a move may be written as its column letter alone."""

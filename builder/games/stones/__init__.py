"""Games whose stones move (`+stonesN`): each side places N stones, then steps one of its own
each turn; positions repeat, and a draw may be a draw by endless play (rules.py). The compiled
children and parents of its codes are in kernel.py."""

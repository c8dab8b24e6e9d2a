"""Games written as plain Python classes of the user-game protocol, as anyone might write them
(they import nothing of ours), with a plain solver to check the builder against."""

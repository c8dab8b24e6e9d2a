"""Playing from the tables: the interactive game (`game`), graded play (`levels`), the smallest
winning or drawing strategy (`strategy`) and the GTP engine (`gtp_engine`)."""

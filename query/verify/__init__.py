"""`tablebase verify`: a stored table checked against the rules, independently of the builder
(`checks`), with a compiled first pass over whole tiers (`kernel`)."""

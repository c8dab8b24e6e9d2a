"""`tablebase verify`: a stored table checked against the rules, independently of the builder
(`checks`, the driver), with a compiled first pass over whole tiers (`kernel`), a numpy check
that words what it flags (`plain`), and where stones move the movement phase's own compiled
check, a walk by steps (`moving`)."""

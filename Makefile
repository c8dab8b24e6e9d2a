# The two commands: `make run` and `make test`. Everything is installed into .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CORE_STAMP := $(VENV)/.installed-core
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: install install-test run test lint bench bench-peers clean

# The package with its cluster and PostgreSQL extras: what `make run` and the benches need. (The
# venv's own pip installs it: upgrading pip first cost ~4 s of a fresh `make test`.) The package
# alone first: what the kernels need to compile (see test).
install: $(STAMP)

$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	touch $(CORE_STAMP)

$(STAMP): $(CORE_STAMP)
	$(PY) -m pip install --quiet -e '.[cluster,postgres]'
	touch $(STAMP)

# The extras (pytest, Playwright, mypy, ruff, Dask, psycopg, ...): installed by `make test`,
# meanwhile the kernels compile (see test).
install-test: $(TEST_STAMP)

$(TEST_STAMP): $(CORE_STAMP)
	$(PY) -m pip install --quiet -e '.[test,cluster,postgres]'
	touch $(STAMP) $(TEST_STAMP)

run: $(STAMP)
	$(VENV)/bin/tablebase build tictactoe --force
	$(VENV)/bin/tablebase info tictactoe
	$(VENV)/bin/tablebase moves tictactoe

# Lint and import order (under a second), then types (mypy, seconds).
lint: $(TEST_STAMP)
	$(PY) -m ruff check builder db query tests
	$(PY) tests/typecheck.py

# Lint before the suite; the types are one test of it (tests/test_types.py), on both cores. A third
# worker was tried twice: it filled the waits on servers and browsers (511 -> 458 s once; 393 ->
# 302 s in a warm checkout) but made no gain on a clean clone (pytest 393 s with two, 410 s with
# three, minutes apart: each worker pays the session's builds, imports and kernel loads again),
# and in a slow spell it once left wall-clock checks short of time: two it is.
# Byte-compiled first: where PYTHONDONTWRITEBYTECODE is set (as on these machines), each of
# the suite's hundreds of processes would otherwise compile the package's modules again; and
# the kernels compiled once, in three groups side by side (tests/compile_kernels.py), rather
# than by each worker and each process the tests start until one has saved them; the extras
# (the test tools, Dask, psycopg) install meanwhile (pip works on one core: on a fresh clone the
# kernels start once the package alone is in, ~11 s, not after the cluster and PostgreSQL
# extras too, ~20 s), and ruff checks lint and import order.
test: $(CORE_STAMP)
	$(PY) -m compileall -q builder db query tests
	$(PY) tests/compile_kernels.py tables & tables=$$!; \
	    $(PY) tests/compile_kernels.py gravity & gravity=$$!; \
	    $(PY) tests/compile_kernels.py search & search=$$!; \
	    $(MAKE) --no-print-directory install-test && $(PY) -m ruff check builder db query tests \
	    && wait $$tables && wait $$gravity && wait $$search
	$(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

# Byte-compiled first, as installing does (see test): the benches time whole processes.
bench: $(TEST_STAMP)
	$(PY) -m compileall -q builder db query tests
	$(PY) tests/bench.py $(if $(SECTION),--section $(SECTION))

# OpenSpiel comes only with the optional bench extra, installed on first use.
$(VENV)/.installed-bench: $(TEST_STAMP)
	$(PY) -m pip install --quiet -e '.[bench,test,cluster,postgres]'
	touch $(VENV)/.installed-bench

bench-peers: $(VENV)/.installed-bench
	$(PY) tests/bench_peers.py

clean:
	rm -rf $(VENV) tablebase.db tablebase.db-wal tablebase.db-shm *.egg-info

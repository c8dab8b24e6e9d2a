# The two commands: `make run` and `make test`. Everything is installed into .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench bench-peers clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,cluster,postgres]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/tablebase build tictactoe --force
	$(VENV)/bin/tablebase info tictactoe
	$(VENV)/bin/tablebase moves tictactoe

# Lint and import order (under a second), then types (mypy, seconds).
lint: $(STAMP)
	$(PY) -m ruff check builder db query tests
	$(PY) tests/typecheck.py

# Lint first; the types are one test of the suite (tests/test_types.py), on both cores. (A third
# worker filled the waits on servers and browsers, 511 -> 458 s once, but in a slow spell left
# wall-clock checks of the server and the page short of time: two it is.)
# Byte-compiled first: where PYTHONDONTWRITEBYTECODE is set (as on these machines), each of
# the suite's hundreds of processes would otherwise compile the package's modules again; and
# the kernels compiled once, in three groups side by side (tests/compile_kernels.py), rather
# than by each worker and each process the tests start until one has saved them.
test: $(STAMP)
	$(PY) -m ruff check builder db query tests
	$(PY) -m compileall -q builder db query tests
	$(PY) tests/compile_kernels.py tables & tables=$$!; \
	    $(PY) tests/compile_kernels.py gravity & gravity=$$!; \
	    $(PY) tests/compile_kernels.py search && wait $$tables && wait $$gravity
	$(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

# Byte-compiled first, as installing does (see test): the benches time whole processes.
bench: $(STAMP)
	$(PY) -m compileall -q builder db query tests
	$(PY) tests/bench.py $(if $(SECTION),--section $(SECTION))

# OpenSpiel comes only with the optional bench extra, installed on first use.
$(VENV)/.installed-bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench,test,cluster,postgres]'
	touch $(VENV)/.installed-bench

bench-peers: $(VENV)/.installed-bench
	$(PY) tests/bench_peers.py

clean:
	rm -rf $(VENV) tablebase.db tablebase.db-wal tablebase.db-shm *.egg-info

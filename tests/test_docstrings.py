"""Every example in a docstring of the package (`>>>` lines) runs as written and prints what
it shows, each module's in a fresh directory (the examples build the tables they read)."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Folder -> the package it installs as (pyproject.toml maps query/public to `tablebase`).
PACKAGES = {"builder": "tablebase.builder", "db": "tablebase.db", "query": "tablebase.query"}


def _modules() -> list[str]:
    """The dotted names of the package's modules whose source holds a `>>>` example."""
    names = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ">>> " not in path.read_text():
                continue
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            names.append("tablebase" if name == "tablebase.query.public" else name)
    return names


def test_there_are_examples() -> None:
    assert {"tablebase", "tablebase.query.tablebase"} <= set(_modules())


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module, name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0 and results.failed == 0, f"{name}: {results}"

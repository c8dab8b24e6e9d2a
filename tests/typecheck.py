"""mypy on the package as it installs: pyproject.toml maps the owner's folders (builder/, db/,
query/, with query/public/ as `tablebase` itself) into one package, which mypy cannot follow
through the editable install's import hook. This lays the package out as installed, with
links into the checkout, in a folder of the venv, and runs mypy there with pyproject's
settings; `make lint` runs it, and the suite's tests/test_types.py.

    python tests/typecheck.py
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lay_out(where: Path) -> Path:
    """The package `tablebase` under `where`, of links into the checkout; its folder."""
    package = where / "tablebase"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for path in (ROOT / "query" / "public").glob("*.py"):
        (package / path.name).symlink_to(path)
    for folder in ("builder", "db", "query"):
        (package / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return where


def command(where: Path) -> list[str]:
    """The mypy command line for the package laid out under `where` (run there)."""
    return [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(where / ".mypy_cache"), "-p", "tablebase"]


def main() -> int:
    """Run mypy on the laid-out package; its exit status."""
    where = lay_out(Path(sys.prefix) / "typecheck")
    return subprocess.call(command(where), cwd=where)


if __name__ == "__main__":
    sys.exit(main())

"""The package's version, as installed (pyproject.toml is its one source): what
`tablebase.__version__` and `tablebase --version` say and what every table records of the build
that made it. A leaf every folder may read (tests/test_layout.py)."""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def tool_version() -> str:
    """This package's version, as installed (read once: the lookup costs milliseconds, and
    importing importlib.metadata some more, so only a command that needs it pays)."""
    from importlib import metadata

    try:
        return metadata.version("tablebase")
    except metadata.PackageNotFoundError:
        return "0+unknown"

"""The package's version, as installed (pyproject.toml is its one source): what
`tablebase.__version__` and `tablebase --version` say and what every table records of the build
that made it. A leaf every folder may read (tests/test_layout.py)."""
from __future__ import annotations

import os
import sys
from functools import lru_cache

_DIST = "tablebase-"


@lru_cache(maxsize=1)
def tool_version() -> str:
    """This package's version, as installed (read once). Read from its dist-info's METADATA
    where one is found plainly on sys.path: importlib.metadata reads the same file, but
    importing it and its lookup cost some 20 ms, a tenth of a small game's build; it answers
    wherever that is not so."""
    found = _installed_version()
    if found is not None:
        return found
    from importlib import metadata

    try:
        return metadata.version("tablebase")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _installed_version() -> str | None:
    """The Version line of the METADATA of the first sys.path entry that holds this package's
    dist-info (as importlib.metadata looks), or None where the entry holds anything less plain
    (several, an egg-info, a name in other case) or no METADATA reads."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        ours = [n for n in names if n.lower().startswith(("tablebase-", "tablebase.", "tablebase_"))
                and n.lower().endswith(("-info", ".egg"))]
        if not ours:
            continue
        if len(ours) != 1 or not ours[0].startswith(_DIST) or not ours[0].endswith(".dist-info"):
            return None
        try:
            with open(os.path.join(entry or ".", ours[0], "METADATA"), encoding="utf-8") as f:
                for line in f:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip() or None
                    if not line.strip():  # the headers end at the first blank line
                        return None
        except (OSError, UnicodeDecodeError):
            return None
        return None
    return None

"""Compiled code's cache, kept honest: numba saves each compiled function's machine code and
reuses it while the function's own file is unchanged, but not when a file it calls or takes a
constant from changes, so a rule written once and compiled into several kernels would go stale
in all but its own module. This module puts a cache locator in front of numba's for the files
of this package: its stamp is the contents of the function's file and of every module of the
package that file imports, directly or not (read from the source, once a process).

Compiled modules take `njit` from here rather than from numba, so that the locator is in
place before their first function is made (it applies to every `njit(cache=True)` function of
the package created after this module is imported).
"""
from __future__ import annotations

import hashlib
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numba.core import caching

# numba's list of cache locators, tried in order (a private name before numba 0.61).
_IMPL = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")

__all__ = ["njit", "read_only", "source_stamp", "sources"]

# The packages whose compiled functions get this stamp (a test adds one of its own).
PACKAGES = ["tablebase"]


def _ours(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def _module_file(name: str) -> str | None:
    """The source file of the package's module `name`, or None (a name in a module, not a
    module). Read from the modules imported so far, without importing anything: a compiled
    function is created after the imports at the top of its file have run, theirs included."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:i]))
        if module is not None:
            break
    else:
        return None
    rest = parts[i:]
    if not rest:
        found = getattr(module, "__file__", None)
        return found if isinstance(found, str) and found.endswith(".py") else None
    for folder in getattr(module, "__path__", ()):
        base = Path(folder, *rest)
        for candidate in (base / "__init__.py", base.with_suffix(".py")):
            if candidate.is_file():
                return str(candidate)
    return None


# An import statement at any indentation (a deferred import counts): `from a.b import c, d`,
# its names perhaps in parentheses over several lines, and `import a.b, c`. Read with these
# rather than by parsing the file: parsing every file a kernel reaches cost a process's first
# search a third of a second. A line that only looks like an import (in a docstring) adds a
# file to the stamp: its kernels are compiled again a little more often, never too seldom.
_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]*)", re.M)


def _names(listed: str) -> list[str]:
    """The names of an import list ('a, b as c', '(a,\n b)  # why'), without aliases."""
    listed = re.sub(r"#[^\n]*", "", listed).strip("() \t\n")
    return [part.split()[0] for part in listed.replace("\n", " ").split(",") if part.split()]


@lru_cache(maxsize=None)
def _imports(path: str) -> tuple[str, ...]:
    """The files of the package's modules that the source file `path` imports by name."""
    text = Path(path).read_text(encoding="utf-8")
    names: list[str] = []
    for module, listed in _FROM.findall(text):
        # `from a.b import c`: c may be a module of its own or a name in a.b.
        names.append(module)
        names += [f"{module}.{name}" for name in _names(listed)]
    for listed in _IMPORT.findall(text):
        names += _names(listed)
    files = (_module_file(name) for name in names if _ours(name))
    return tuple(sorted({f for f in files if f is not None}))


def sources(path: str) -> set[str]:
    """The source file `path` and every package file it imports, directly or not."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        here = todo.pop()
        if here not in seen:
            seen.add(here)
            todo += _imports(here)
    return seen


@lru_cache(maxsize=None)
def source_stamp(path: str) -> str:
    """A digest of the contents of `sources(path)`."""
    digest = hashlib.sha256()
    for name in sorted(sources(path)):
        digest.update(name.encode() + b"\0" + Path(name).read_bytes() + b"\0")
    return digest.hexdigest()


def read_only(a: np.ndarray, dtype: type | None = None) -> np.ndarray:
    """`a` as a contiguous array of `dtype`, seen read-only (a view: no copy, the caller's array
    stays writable): a kernel's input then has one type whoever calls, as numba compiles, caches
    and loads one machine-code version for a writable argument and another for a read-only one
    (the tier files' arrays are)."""
    view = np.ascontiguousarray(a, dtype=dtype).view()
    view.flags.writeable = False
    return view


class _Locator(caching._CacheLocator):
    """numba's own locator for the file (the same cache folder), with the package's stamp."""

    def __init__(self, inner: Any, py_file: str) -> None:
        self._inner = inner
        self._py_file = py_file

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return str(self._inner.get_cache_path())

    def get_source_stamp(self) -> Any:
        return source_stamp(self._py_file)

    def get_disambiguator(self) -> str:
        return str(self._inner.get_disambiguator())

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _Locator | None:
        if not _ours(getattr(py_func, "__module__", "") or ""):
            return None
        for other in _IMPL._locator_classes:
            if other is not cls:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, py_file)
        return None


def _register() -> None:
    """Put the package's locator first (once, however often this module is reloaded)."""
    classes = _IMPL._locator_classes
    classes[:] = [c for c in classes if c.__name__ != _Locator.__name__
                  or c.__module__ != __name__]
    classes.insert(0, _Locator)


_register()

"""The compiled code's cache (tablebase.compiled, query/public/compiled.py): a kernel's saved
machine code is not reused once a file it imports has changed, and every compiled function of
the package has that guarantee."""
from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import tablebase
from tablebase import compiled

ROOT = Path(__file__).resolve().parents[1]

_RUN = """
import sys
sys.path.insert(0, {folder!r})
from tablebase import compiled
compiled.PACKAGES.append("fakerules")
from fakerules.kernel import answer
print(answer())
"""


def _answer(folder: Path) -> str:
    out = subprocess.run([sys.executable, "-c", _RUN.format(folder=str(folder))], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_a_changed_imported_constant_is_compiled_again(tmp_path: Path) -> None:
    # Plain numba would load the first run's machine code in the second and answer 1 again.
    package = tmp_path / "fakerules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("K = 1\n")
    (package / "kernel.py").write_text(textwrap.dedent("""
        from tablebase.compiled import njit
        from fakerules.rules import K

        @njit(cache=True)
        def answer():
            return K
    """))
    assert _answer(tmp_path) == "1"
    assert list((package / "__pycache__").glob("kernel.answer-*.nbi")), "nothing was cached"
    (package / "rules.py").write_text("K = 22\n")
    assert _answer(tmp_path) == "22"


def test_the_search_kernels_stamp_covers_the_rules_it_calls() -> None:
    from tablebase.query.search import compiled_search as kernel
    names = {Path(p).name for p in compiled.sources(kernel.__file__)}
    assert {"kernel.py", "moves.py", "transposition.py", "proofs.py"} <= names


def _kernels() -> list[tuple[str, Any]]:
    """(module name, compiled function) of every compiled function defined in the package."""
    from numba.core.registry import CPUDispatcher
    found = []
    for package in ("tablebase.builder", "tablebase.db", "tablebase.query"):
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
            name = info.name
            if any(part in name for part in (".server", ".cli", ".public", "__main__")):
                continue  # faces: no compiled code (and the server needs its extras)
            found += [(name, value) for value in vars(importlib.import_module(name)).values()
                      if isinstance(value, CPUDispatcher) and value.__module__ == name]
    return found


def test_every_compiled_function_of_the_package_uses_the_stamp() -> None:
    checked = 0
    for name, kernel in _kernels():
        if kernel._cache.__class__.__name__ != "NullCache":
            checked += 1
            assert isinstance(kernel._cache._impl.locator, compiled._Locator), \
                f"{name}.{kernel.__name__} takes njit from numba, not from compiled.py"
    assert checked > 20
    assert tablebase  # the package imported first, as a user's code does


def test_compiled_modules_take_njit_from_compiled_py() -> None:
    # Imported first, compiled.py covers every module; this keeps it first in each of them.
    for folder in ("builder", "query", "db"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text()
            if path.name != "compiled.py" and "njit" in text:
                assert "from tablebase.compiled import njit" in text, path
                assert "from numba import njit" not in text, path


def test_no_compiled_function_is_specialised_on_a_literal() -> None:
    # numba compiles a callee again for each literal argument (a constant passed as such): a
    # kernel called with `0` and with a variable is two compiles of everything it inlines, and
    # the m,n,k search was compiled twice so (seconds of a user's first answer, each time).
    from tests import compile_kernels
    compile_kernels.tables()  # builds of each kind (layouts, rules, an endgame) and verify
    compile_kernels.search()  # the m,n,k search and scores_many
    compile_kernels.gravity()
    literal = [f"{name}.{kernel.__name__}{sig}" for name, kernel in _kernels()
               for sig in kernel.signatures if any("Literal" in str(t) for t in sig)]
    assert not literal, "compiled for a literal argument: " + "; ".join(literal)

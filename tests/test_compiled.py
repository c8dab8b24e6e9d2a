"""The compiled code's cache (tablebase.compiled, query/public/compiled.py): a kernel's saved
machine code is not reused once a file it imports has changed, and every compiled function of
the package has that guarantee."""
from __future__ import annotations

import ast
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


def _literal_calls(files: list[Path]) -> list[str]:
    """Calls, inside compiled functions, of a compiled function that numba does not inline, with
    an argument numba types as a literal: a number written there, or a module's plain number
    constant (`np.int64(0)`, a typed constant, is none)."""
    def njit_of(node: ast.FunctionDef) -> ast.expr | None:
        for d in node.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            if isinstance(f, ast.Name) and f.id == "njit":
                return d
        return None

    def inlined(d: ast.expr) -> bool:
        return isinstance(d, ast.Call) and any(k.arg == "inline" for k in d.keywords)

    parsed, called = {}, {}
    for path in files:
        tree = ast.parse(path.read_text())
        numbers = set()
        for node in tree.body:
            if isinstance(node, ast.Assign):
                targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) \
                    else [node.targets[0]]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                numbers |= {t.id for t, v in zip(targets, values) if isinstance(t, ast.Name)
                            and isinstance(v, ast.Constant) and isinstance(v.value, (int, float))}
        jitted = [(n, d) for n in tree.body if isinstance(n, ast.FunctionDef)
                  and (d := njit_of(n)) is not None]
        called.update({n.name: not inlined(d) for n, d in jitted})
        parsed[path] = ([n for n, _ in jitted], numbers)
    found = []
    for path, (functions, numbers) in parsed.items():
        for function in functions:
            for call in ast.walk(function):
                name = getattr(call, "func", None)
                name = getattr(name, "id", None) or getattr(name, "attr", None)
                if not isinstance(call, ast.Call) or not called.get(name or "", False):
                    continue
                for arg in call.args:
                    bare = arg.operand if isinstance(arg, ast.UnaryOp) else arg
                    if (isinstance(bare, ast.Constant) and isinstance(bare.value, (int, float))) \
                            or (isinstance(bare, ast.Name) and bare.id in numbers):
                        found.append(f"{path.name}:{call.lineno} {name}({ast.unparse(arg)})")
    return found


def test_no_compiled_call_passes_a_literal() -> None:
    """The check above sees only what this process compiled (the suite's kernels load from
    the cache); this one reads every compiled function's calls."""
    files = [p for folder in ("builder", "db", "query") for p in (ROOT / folder).rglob("*.py")]
    assert _literal_calls(files) == []


def test_the_literal_call_check_sees_one(tmp_path: Path) -> None:
    path = tmp_path / "kernels.py"
    path.write_text("LIMIT = 3\n@njit(cache=True)\ndef f(a, b):\n    return a\n"
                    "@njit(cache=True)\ndef g(a):\n    return f(a, 0) + f(a, LIMIT) + f(a, a)\n")
    assert _literal_calls([path]) == ["kernels.py:7 f(0)", "kernels.py:7 f(LIMIT)"]

"""The house rules, checked with ast over every source file: the import arrows point one way
(down the data flow: rules kernel -> builder -> db -> query -> the faces), only db/ touches a
database driver, nothing imports the folders by their bare names, no module reaches itself
through imports, and no file needs scrolling.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Every folder of the package is an area, and each area may import only from the areas listed
# for it (its own included). The order is the data flow; inside query, the answering core sits
# under the rooms (audit, play, verify), shapes above them, and the faces (cli, server) on top.
# query/public is the top-level `tablebase` package (pyproject.toml), the public API over all.
AREAS: dict[str, set[str]] = {
    # The package's version (query/public/version.py, installed as tablebase.version): the
    # builder stamps every table with it, the faces print it. A leaf: everyone may read it.
    "version": set(),
    # numba's njit with a cache kept honest (query/public/compiled.py, tablebase.compiled):
    # every compiled module takes njit from it. A leaf too.
    "compiled": set(),
    # The games (builder/games/): the Game protocol, the registry, the shared grid geometry and
    # one folder a family. A leaf: stdlib and numpy (numba where a family compiles).
    "builder.games": set(),
    # db knows no rules: what a table's codes are comes from the game that made them
    # (db/records.py's TableCodes), the score byte is its own format (db/scores.py).
    "db": set(),
    "builder": {"builder.games", "db"},
    "query": {"builder.games", "db"},
    # The audit reports progress through the builder's progress interface.
    "query.audit": {"builder.games", "builder.progress", "db", "query", "query.search"},
    "query.play": {"builder.games", "db", "query"},
    # verify re-checks the builder's tables with its memory plan and thread split.
    "query.verify": {"builder.games", "builder.memory", "builder.progress",
                     "builder.kernels", "builder.threads", "db", "query"},
    # search answers positions no table holds, with the tables at its leaves.
    "query.search": {"builder.games", "db", "query"},
    "query.shapes": {"builder.games", "db", "query", "query.audit", "query.play", "query.search",
                     "query.verify"},
    "query.server": {"builder.games", "db", "query", "query.play", "query.search",
                     "query.shapes"},
    # The command line builds (builder.pipeline, builder.cluster) as well as answering.
    "query.cli": {"builder", "builder.games", "db", "query", "query.audit", "query.play",
                  "query.search", "query.verify", "query.shapes", "query.server"},
    "query.public": {"builder", "builder.games", "db", "query", "query.audit", "query.cli",
                     "query.search"},
}
FOLDERS = {"builder/games": "builder.games", "builder/games/grid": "builder.games",
           "builder/games/stones": "builder.games",
           "builder/games/gravity": "builder.games", "builder/games/user": "builder.games",
           "builder/games/morris": "builder.games",
           "builder": "builder", "builder/cluster": "builder",
           "db": "db", "query": "query",
           "query/audit": "query.audit", "query/audit/solvers": "query.audit",
           "query/play": "query.play", "query/search": "query.search",
           "query/verify": "query.verify",
           "query/cli": "query.cli", "query/server": "query.server",
           "query/public": "query.public"}


def _sources() -> list[Path]:
    return sorted(p for folder in ("builder", "db", "query") for p in (ROOT / folder).rglob("*.py"))


def _area_of_file(path: Path) -> str:
    rel = path.relative_to(ROOT)
    if rel.as_posix() == "query/shapes.py":
        return "query.shapes"
    if rel.as_posix() in ("query/public/version.py", "query/public/compiled.py"):
        return rel.stem
    return FOLDERS[rel.parent.as_posix()]


def _area_of_module(module: str) -> str:
    """The area of `tablebase.X.Y...`: the longest area name X.Y... starts with (a module
    named like an area, such as query.shapes or builder.progress, is its own)."""
    name = module.removeprefix("tablebase.")
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in AREAS or prefix in _NAMED:
            return prefix
    if (ROOT / "query" / "public" / f"{parts[0]}.py").exists():
        return "query.public"  # a module of the top-level package (tablebase.command)
    return parts[0]


# Modules that other areas may name on their own (see AREAS).
_NAMED = {"builder.progress", "builder.memory", "builder.kernels", "builder.threads"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names
                      if node.module == "tablebase" or node.module.count(".") == 1}
    return found


def test_every_folder_is_an_area() -> None:
    folders = {p.parent.relative_to(ROOT).as_posix() for p in _sources()}
    assert folders == set(FOLDERS)


def test_import_arrows_point_one_way() -> None:
    wrong = []
    for path in _sources():
        area = _area_of_file(path)
        for module in _imports(path):
            if not module.startswith("tablebase.") or module == "tablebase":
                continue
            target = _area_of_module(module)
            allowed = AREAS[area] | {area, "version", "compiled"}
            base = target.split(".")[0] if target in _NAMED else target
            if target not in allowed and not (target in _NAMED and base in allowed):
                wrong.append(f"{path.relative_to(ROOT)} ({area}) imports {module}")
    assert wrong == []


def test_the_proof_checker_shares_only_the_rules_with_the_search() -> None:
    """check-proof's promise (docs/proofs.md): nothing of the search, the rules kernel only."""
    allowed = {"tablebase.builder.games.grid", "tablebase.builder.games.grid.geometry",
               "tablebase.query.errors", "tablebase.query.proof_tables",
               "tablebase.query.win_check"}
    for name in ("query/proof_check.py", "query/proof_tables.py", "query/win_check.py"):
        used = {m for m in _imports(ROOT / name) if m.startswith("tablebase")}
        assert used <= allowed, f"{name} imports {sorted(used - allowed)}"


def test_nothing_imports_the_bare_folder_names() -> None:
    """Installed, the folders are tablebase.builder, .db and .query: a bare `import db` would
    find another project's module, or none."""
    bare = [f"{p.relative_to(ROOT)} imports {m}" for p in _sources() for m in _imports(p)
            if m.split(".")[0] in ("builder", "db", "query")]
    assert bare == []


def test_only_db_touches_a_database_driver() -> None:
    users = [str(p.relative_to(ROOT)) for p in _sources()
             if not p.relative_to(ROOT).as_posix().startswith("db/")
             and {m.split(".")[0] for m in _imports(p)} & {"sqlite3", "sqlalchemy", "psycopg"}]
    assert users == []


def test_no_module_needs_scrolling() -> None:
    """No source file past ~400 lines (the house rule), the page's JavaScript included: split
    by responsibility instead."""
    scripts = sorted((ROOT / "query" / "server" / "static").glob("*.js"))
    long = [f"{p.relative_to(ROOT)}: {n}" for p in [*_sources(), *scripts]
            if (n := len(p.read_text().splitlines())) > 420]
    assert scripts and long == []


def _module_of(path: Path) -> str:
    """The installed name of a source file (pyproject.toml's package-dir: query/public is
    `tablebase` itself)."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[:2] == ["query", "public"]:
        parts = parts[2:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["tablebase", *parts])


def _imported_modules(path: Path, modules: set[str]) -> set[str]:
    """Our modules that `path` imports, anywhere in it: `from P import N` names the module P.N
    where there is one (a submodule), else P."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return found & modules


def test_no_import_cycles() -> None:
    """No module reaches itself through imports, counting those made inside functions (a
    deferred import hides a cycle from Python, not from the reader): each of our modules and
    the ones it names form a graph with no loop."""
    modules = {_module_of(p): p for p in _sources()}
    graph = {name: _imported_modules(path, set(modules)) - {name}
             for name, path in modules.items()}
    cycles: list[str] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target):], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


# A game family's rules live in its folder under builder/games/ (grid/, gravity/, stones/, morris/,
# user/):
# no module elsewhere asks which family it holds, by a flag (`.gravity`, `.stones`, `.moving`,
# `.jump`, `.square`, `loopy`) or by importing a family's folder (grid/ is the grid games' shared
# part as well as m,n,k's). It asks the game or the table's root instead (drops, positions_repeat,
# cyclic_tier, ...). The one exception is an independent checker, whose worth is that it shares
# no code with the builder's path: verify's check of the stones' movement phase (movement.py)
# knows their stone counts and lines itself and takes only their steps from the family.
_FAMILY_FLAG = re.compile(r"\.(gravity|stones|moving|jump|square)\b|loopy|\bis_morris\b")
_FAMILY_IMPORT = re.compile(
    r"^\s*(from|import) tablebase\.builder\.games\.(gravity|stones|user|morris)\b", re.MULTILINE)
INDEPENDENT_CHECKERS = {"query/verify/movement.py"}


def _outside_games() -> list[tuple[str, str]]:
    found = []
    for folder in ("builder", "db", "query"):
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix in (".py", ".js") and not rel.startswith("builder/games/"):
                found.append((rel, path.read_text()))
    return found


def test_no_module_asks_which_family_it_holds() -> None:
    code = {rel: "\n".join(line for line in text.splitlines()
                           if not line.lstrip().startswith(("from ", "import ")))
            for rel, text in _outside_games()}
    assert sorted(rel for rel, text in code.items() if _FAMILY_FLAG.search(text)) == []


def test_only_an_independent_checker_imports_a_family() -> None:
    assert sorted(rel for rel, text in _outside_games()
                  if _FAMILY_IMPORT.search(text)) == sorted(INDEPENDENT_CHECKERS)


# The builder's tier loop knows a table only through its root and the kernels the root binds
# (builder/games/tier_kernels.py, tier_lookup.py): not even the grid's shared part.
_ANY_FAMILY_IMPORT = re.compile(
    r"^\s*(from|import) tablebase\.builder\.games\.(grid|gravity|stones|user|morris)\b",
    re.MULTILINE)


def test_the_builder_imports_no_family() -> None:
    """The tier loop, the pipeline, the estimate and the cluster know a table through its root
    (TableRoot) and the registry only: no module of builder/ outside builder/games/ imports a
    family's folder."""
    builder = [path for path in (ROOT / "builder").rglob("*.py")
               if (ROOT / "builder" / "games") not in path.parents]
    assert len(builder) > 20  # the walk found the builder's modules
    assert [str(path.relative_to(ROOT)) for path in builder
            if _ANY_FAMILY_IMPORT.search(path.read_text())] == []


def test_the_answers_take_a_tables_root_from_its_game() -> None:
    """What a stored table's codes are over is the family's to say (GridGame.table_root):
    the query layer makes no root of its own."""
    made = re.compile(r"\bRoot(\.from_key|\.whole)?\(")
    assert [rel for rel, text in _outside_games() if rel.startswith("query/")
            and made.search(text)] == []
    assert made.search("root = Root.from_key(spec, key)") and made.search("Root(spec, board)")


def test_the_family_checks_see_a_flag_and_an_import() -> None:
    """The checks above could fail: a flag and a family's import are what they look for."""
    assert _FAMILY_FLAG.search("if spec.gravity:") and _FAMILY_FLAG.search("root.spec.moving")
    assert _FAMILY_IMPORT.search("x = 1\nfrom tablebase.builder.games.stones.rules import f")
    assert _FAMILY_IMPORT.search("from tablebase.builder.games.morris.game import MorrisGame")
    assert _FAMILY_FLAG.search("if is_morris(spec):")
    assert not _FAMILY_FLAG.search("game.drops and game.positions_repeat")
    assert _ANY_FAMILY_IMPORT.search("from tablebase.builder.games.grid.root import Root")
    assert not _ANY_FAMILY_IMPORT.search("from tablebase.builder.games.tier_kernels import OPEN")


def test_every_name_the_tests_and_benches_import_exists() -> None:
    """`make bench` is not run by the suite, and its modules import most names inside their
    functions: a name moved or renamed by a refactor would surface only when a bench section
    runs (bench_moving's `parse_spec` once did). Every `from tablebase... import name` and
    `from tests... import name` in tests/, at any depth, must resolve."""
    import importlib

    missing = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                    and node.module.split(".")[0] in ("tablebase", "tests")):
                continue
            module = importlib.import_module(node.module)
            for alias in node.names:
                if alias.name == "*" or hasattr(module, alias.name):
                    continue
                try:
                    importlib.import_module(f"{node.module}.{alias.name}")
                except ImportError:
                    missing.append(f"{path.name}:{node.lineno}: {node.module}.{alias.name}")
    assert not missing, missing

"""Installed, the project is one package, `tablebase`: in a fresh virtualenv outside the
checkout, `pip install .` gives `import tablebase` and nothing named builder, db or query."""
from __future__ import annotations

import json
import site
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_folder_is_a_listed_package() -> None:
    """pyproject.toml lists the packages by hand (package-dir maps them): none may be missing,
    and none listed that is neither a folder of modules nor one of data."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = {name: ROOT / path for name, path in config["package-dir"].items()}
    listed = set(config["packages"])
    found = set()
    for folder in ("builder", "db", "query"):
        for init in (ROOT / folder).rglob("__init__.py"):
            here = init.parent
            # The package name of a folder: the mapped package whose folder holds it, deepest.
            name, base = max(((n, d) for n, d in dirs.items() if here.is_relative_to(d)),
                             key=lambda item: len(item[1].parts))
            rest = here.relative_to(base).parts
            found.add(".".join((name, *rest)))
    # A folder of data alone (the page's files) is listed too, as its package-data says.
    data = set(config["package-data"]) - found
    assert data == {"tablebase.query.server.static"}
    assert found | data == listed


@pytest.mark.slow
def test_pip_install_gives_one_package(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)  # this environment's pip installs into it
    python = env_dir / "bin" / "python"
    # The dependencies come from this environment (no network needed); the package itself
    # is built and installed from the checkout, not in editable mode. --no-compile: pip's
    # byte-compiling of every installed module (~2 s CPU of the ~7) checks nothing here; the
    # runs below import what they use from source.
    purelib = next(Path(p) for p in site.getsitepackages() if p.endswith("site-packages"))
    target = Path(subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    (target / "deps.pth").write_text(f"{purelib}\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                              "--quiet", "--no-deps", "--no-compile", str(ROOT)],
                             cwd=tmp_path, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr
    code = ("import importlib.util, json, tablebase; "
            "print(json.dumps([tablebase.__version__, tablebase.__file__, "
            "[importlib.util.find_spec(n) is None for n in ('db', 'query', 'builder')], "
            "str(tablebase.open_tablebase.__module__), str(tablebase.build.__module__)]))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout
    version, where, absent, answering, building = json.loads(out)
    assert version == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert str(target) in where and str(ROOT) not in where
    assert absent == [True, True, True]
    assert (answering, building) == ("tablebase.query.tablebase", "tablebase.builder.pipeline")
    assert not any((target / name).exists() for name in ("builder", "db", "query"))
    assert (target / "tablebase" / "query" / "server" / "static" / "index.html").exists()
    run = subprocess.run([env_dir / "bin" / "tablebase", "--version"], capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == f"tablebase {version}"
    run = subprocess.run([python, "-m", "tablebase", "--version"], capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == f"tablebase {version}"


def test_the_version_read_plainly_is_importlib_metadatas(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """tool_version reads the dist-info's METADATA itself where it lies plainly on sys.path, and
    leaves anything less plain (an egg-info first, several) to importlib.metadata."""
    from importlib import metadata

    from tablebase import version

    version.tool_version.cache_clear()
    assert version.tool_version() == metadata.version("tablebase")
    info = tmp_path / "plain" / "tablebase-9.8.7.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tablebase\nVersion: 9.8.7\n\nText\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path / "plain")])
    assert version._installed_version() == "9.8.7" == metadata.version("tablebase")
    (tmp_path / "plain" / "tablebase.egg-info").mkdir()
    assert version._installed_version() is None
    version.tool_version.cache_clear()

"""The package's architecture, checked: the import-linter contracts of ``pyproject.toml`` hold,
no import cycle remains anywhere in ``dpverify``, and no module grows past the size a reader
takes in at once.

import-linter (grimp) finds a package's modules by walking its folder: ``src/dpverify`` links to
the parts in the repository's top-level folders, so the contracts are checked from the
repository root as a contributor runs them, and on a copy assembled in the layout a wheel
installs (the copy ``dpverify mutate`` makes).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dpverify.verify.changes._mutate_targets import assemble_package

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
#: No module is longer than this many lines: split along a real seam before it gets there.  (Counted
#: as ``ruff format`` lays the code out, one argument a line where a call does not fit on one.)
MAX_MODULE_LINES = 750

pytest.importorskip("importlinter", reason="the layers contract needs import-linter (the test extra)")


def _lint_imports(folder: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the ``dpverify`` package copied into ``folder``."""
    script = Path(sys.executable).with_name("lint-imports")
    command = [str(script)] if script.exists() else [shutil.which("lint-imports") or "lint-imports"]
    environment = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(
        [*command, "--no-cache", str(config)], cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def assembled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("layout")
    assemble_package(folder)
    return folder


def test_the_import_contracts_hold_from_the_repository_root() -> None:
    """``lint-imports`` where a contributor types it: every module of the package is seen."""
    run = _lint_imports(ROOT, PYPROJECT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "dpverify imports run down the layers KEPT" in run.stdout
    analysed = int(run.stdout.split("Analyzed ")[1].split(" files")[0])
    walk = os.walk(ROOT / "src" / "dpverify", followlinks=True)
    files = sum(name.endswith(".py") for _, _, names in walk for name in names)
    assert analysed == files > 150


def test_the_import_contracts_hold(assembled: Path) -> None:
    run = _lint_imports(assembled, PYPROJECT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout and "BROKEN" not in run.stdout
    assert "dpverify imports run down the layers KEPT" in run.stdout


def _lint_with(assembled: Path, tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on a copy of the package in which ``module`` also runs ``line``."""
    copy = tmp_path / "layout"
    shutil.copytree(assembled, copy)
    path = copy.joinpath(*module.split(".")).with_suffix(".py")
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    return _lint_imports(copy, PYPROJECT)


def test_an_upward_import_breaks_the_layers_contract(assembled: Path, tmp_path: Path) -> None:
    """The contract is not vacuous: the engine importing the gate is reported, with the import."""
    run = _lint_with(
        assembled, tmp_path, "dpverify.verify.engine._exactness", "from dpverify.verify.gate import _spec_run"
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "dpverify imports run down the layers BROKEN" in run.stdout
    assert "dpverify.verify.engine._exactness -> dpverify.verify.gate._spec_run" in run.stdout


def test_siblings_of_one_layer_do_not_import_each_other(assembled: Path, tmp_path: Path) -> None:
    run = _lint_with(
        assembled, tmp_path, "dpverify.verify.precision._mironov", "from dpverify.verify.privacy import _ratio"
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "dpverify.verify.precision._mironov -> dpverify.verify.privacy._ratio" in run.stdout


def test_importing_the_public_facade_from_inside_is_refused(assembled: Path, tmp_path: Path) -> None:
    """``dpverify.verify`` imports every layer, so a module below importing it closes a cycle."""
    run = _lint_with(assembled, tmp_path, "dpverify.verify.engine._statistics", "from dpverify.verify import reproduce")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "public facade dpverify.verify" in run.stdout and "BROKEN" in run.stdout


def _modules(package: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The dpverify modules ``module`` imports, anywhere in its body (as import-linter counts)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # ``from package import submodule`` imports the submodule, ``from module import name`` the module
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_no_import_cycle_anywhere_in_the_package(assembled: Path) -> None:
    known = _modules(assembled / "dpverify")
    graph = {module: _imports(module, path, known) for module, path in known.items()}
    assert len(known) > 100 and sum(map(len, graph.values())) > 500  # the whole package was read
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_module_is_over_the_size_limit(assembled: Path) -> None:
    sizes = {
        module: len(path.read_text(encoding="utf-8").splitlines())
        for module, path in _modules(assembled / "dpverify").items()
    }
    assert {m: n for m, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_the_tools_name_the_files_git_tracks_not_the_links() -> None:
    """Imported through ``src/dpverify``'s links, a module is still reported at the file git tracks:
    by ``check --base``'s source layout and by SARIF's locations."""
    import dpverify.samplers.bernoulli as imported
    from dpverify.verify.changes._source_layout import SourceLayout
    from dpverify.verify.reports._sarif_locations import Locator

    if not (ROOT / ".git").exists() or Path(imported.__file__).parts[-4:-1] != ("src", "dpverify", "samplers"):
        pytest.skip("needs the git checkout, installed in editable mode (imported through the link)")
    layout = SourceLayout(ROOT)
    assert str(layout.relative_path("dpverify.samplers.bernoulli")) == "samplers/bernoulli.py"
    assert str(layout.locate(imported.__file__)) == "samplers/bernoulli.py"
    assert Locator(ROOT).uri(imported.__file__, "dpverify.samplers.bernoulli") == ("samplers/bernoulli.py", True)

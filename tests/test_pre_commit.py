"""The pre-commit hook (``.pre-commit-hooks.yaml``), run by pre-commit itself on a copy of the
sample repository ``examples/gated-repo``: a staged one-unit bug in the sampler is refused with
the parameters and output where the law changed; a staged change that keeps the law, or staged
files that are not code, pass; an unstaged bug is not what is checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "gated-repo"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
CORRECT, PLANTED = "    if u < b:\n", "    if u <= b:\n"
IDENTITY = ("-c", "user.name=ci", "-c", "user.email=ci@example.invalid")


def _git(directory: Path, *words: str) -> str:
    return subprocess.run(["git", *IDENTITY, *words], cwd=directory, check=True, capture_output=True,
                          text=True).stdout


def _repository(path: Path, files: dict[str, str] | None = None, copy: Path | None = None) -> str:
    if copy is not None:
        shutil.copytree(copy, path, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    path.mkdir(exist_ok=True)
    for name, text in (files or {}).items():
        (path / name).write_text(text, encoding="utf-8")
    _git(path, "init", "-q", "-b", "main")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "first")
    return _git(path, "rev-parse", "HEAD").strip()


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    """The sample repository, with a ``.pre-commit-config.yaml`` that takes the ``dpverify-system``
    hook from a repository holding this checkout's ``.pre-commit-hooks.yaml``, as a user's
    config takes it from dpverify's."""
    hooks = tmp_path / "hooks"
    revision = _repository(hooks, {".pre-commit-hooks.yaml": HOOKS.read_text(encoding="utf-8")})
    config = {"repos": [{"repo": str(hooks), "rev": revision,
                         "hooks": [{"id": "dpverify-system", "args": ["--spec-module", "warner.specs"]}]}]}
    workspace = tmp_path / "repo"
    shutil.copytree(SAMPLE, workspace, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    (workspace / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _repository(workspace)
    return workspace


def _commit(workspace: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` as the commit would (the staged files only)."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "run"], cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def _edit(workspace: Path, old: str, new: str) -> None:
    sampler = workspace / "warner" / "sampler.py"
    text = sampler.read_text(encoding="utf-8")
    assert text.count(old) == 1
    sampler.write_text(text.replace(old, new), encoding="utf-8")


def test_the_hooks_file_declares_both_hooks_on_check_base_head() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"dpverify", "dpverify-system"}
    for hook in hooks.values():
        assert hook["entry"] == "dpverify check --base HEAD" and hook["pass_filenames"] is False
    assert (hooks["dpverify"]["language"], hooks["dpverify-system"]["language"]) == ("python", "system")


def test_a_staged_one_unit_bug_is_refused_with_the_counterexample(hooked: Path, tmp_path: Path) -> None:
    _edit(hooked, CORRECT, PLANTED)
    _git(hooked, "add", "warner/sampler.py")
    done = _commit(hooked, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "VIOLATED warner" in done.stdout and "the laws differ at output 0: old 3/4" in done.stdout


def test_a_staged_change_that_keeps_the_law_passes(hooked: Path, tmp_path: Path) -> None:
    _edit(hooked, CORRECT, "    if not u >= b:\n")
    _git(hooked, "add", "warner/sampler.py")
    done = _commit(hooked, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout


def test_only_the_staged_version_is_checked(hooked: Path, tmp_path: Path) -> None:
    (hooked / "notes.py").write_text("NOTE = 1\n", encoding="utf-8")
    _git(hooked, "add", "notes.py")
    _edit(hooked, CORRECT, PLANTED)  # not staged: pre-commit sets it aside while the hook runs
    done = _commit(hooked, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert PLANTED in (hooked / "warner" / "sampler.py").read_text(encoding="utf-8"), "the unstaged edit is restored"

"""The pre-commit hook (``.pre-commit-hooks.yaml``), run by pre-commit itself on a copy of the
sample repository ``examples/gated-repo``: a staged one-unit bug in the sampler is refused with
the parameters and output where the law changed; a staged change that keeps the law, or staged
files that are not code, pass; an unstaged bug is not what is checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("pre_commit")

from _sample_repository import CORRECT, PLANTED, ROOT, commit_all, edit_sampler, git, sample_repository  # noqa: E402

HOOKS = ROOT / ".pre-commit-hooks.yaml"


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    """The sample repository, with a ``.pre-commit-config.yaml`` that takes the ``dpverify-system``
    hook from a repository holding this checkout's ``.pre-commit-hooks.yaml``, as a user's
    config takes it from dpverify's."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / ".pre-commit-hooks.yaml").write_text(HOOKS.read_text(encoding="utf-8"), encoding="utf-8")
    revision = commit_all(hooks)
    config = {
        "repos": [
            {
                "repo": str(hooks),
                "rev": revision,
                "hooks": [{"id": "dpverify-system", "args": ["--spec-module", "warner.specs"]}],
            }
        ]
    }
    workspace = tmp_path / "repo"
    sample_repository(workspace)
    (workspace / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git(workspace, "add", ".pre-commit-config.yaml")
    git(workspace, "commit", "-q", "-m", "hooks")
    return workspace


def _commit(workspace: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` as the commit would (the staged files only)."""
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_hooks_file_declares_both_hooks_on_check_base_head() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"dpverify", "dpverify-system"}
    for hook in hooks.values():
        assert hook["entry"] == "dpverify check --base HEAD" and hook["pass_filenames"] is False
    assert (hooks["dpverify"]["language"], hooks["dpverify-system"]["language"]) == ("python", "system")


def test_a_staged_one_unit_bug_is_refused_with_the_counterexample(hooked: Path, tmp_path: Path) -> None:
    edit_sampler(hooked, CORRECT, PLANTED)
    git(hooked, "add", "warner/sampler.py")
    done = _commit(hooked, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "VIOLATED warner" in done.stdout and "the laws differ at output 0: old 3/4" in done.stdout


def test_a_staged_change_that_keeps_the_law_passes(hooked: Path, tmp_path: Path) -> None:
    edit_sampler(hooked, CORRECT, "    if not u >= b:\n")
    git(hooked, "add", "warner/sampler.py")
    done = _commit(hooked, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout


def test_only_the_staged_version_is_checked(hooked: Path, tmp_path: Path) -> None:
    (hooked / "notes.py").write_text("NOTE = 1\n", encoding="utf-8")
    git(hooked, "add", "notes.py")
    edit_sampler(hooked, CORRECT, PLANTED)  # not staged: pre-commit sets it aside while the hook runs
    done = _commit(hooked, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert PLANTED in (hooked / "warner" / "sampler.py").read_text(encoding="utf-8"), "the unstaged edit is restored"

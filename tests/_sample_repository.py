"""The sample repository ``examples/gated-repo`` as a git repository of its own, for the tests of
the GitHub Action, the pre-commit hook and SARIF: a copy, committed once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "gated-repo"
#: The sampler's one comparison, and the one-unit slip the tests plant in it.
CORRECT, PLANTED = "    if u < b:\n", "    if u <= b:\n"
_IDENTITY = ("-c", "user.name=ci", "-c", "user.email=ci@example.invalid")


def git(directory: Path, *words: str) -> str:
    return subprocess.run(["git", *_IDENTITY, *words], cwd=directory, check=True, capture_output=True, text=True).stdout


def commit_all(directory: Path) -> str:
    """``directory`` made a git repository with everything in it committed; the commit."""
    git(directory, "init", "-q", "-b", "main")
    git(directory, "add", "-A")
    git(directory, "commit", "-q", "-m", "first")
    return git(directory, "rev-parse", "HEAD").strip()


def sample_repository(path: Path) -> str:
    """A committed copy of the sample at ``path``; the commit."""
    shutil.copytree(SAMPLE, path, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    return commit_all(path)


def edit_sampler(workspace: Path, old: str, new: str) -> int:
    """Replace the sampler's one line ``old`` by ``new``; the line's number."""
    sampler = workspace / "warner" / "sampler.py"
    text = sampler.read_text(encoding="utf-8")
    assert text.count(old) == 1
    sampler.write_text(text.replace(old, new), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1

"""What a contributor runs before committing, and what CI runs after the tests: ``nox``.

The sessions use the environment they are started from (the README's test install, ``pip install
-e '.[test]'``), so they start at once and check the code as it is installed:

- ``nox -s static``: the layers contract (``lint-imports``), the type checker (``mypy``) and the
  linter and formatter (``ruff check``, ``ruff format --check``), each from the repository root
  with its configuration in ``pyproject.toml``;
- ``nox -s fast``: the tests without the ``slow`` marker, on every core;
- ``nox`` alone: both, static first.
"""

from __future__ import annotations

import os
import sys

import nox

nox.options.sessions = ["static", "fast"]
nox.options.default_venv_backend = "none"


def tool(name: str) -> str:
    """``name`` from the environment nox runs in, whether or not it is activated."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.exists(beside) else name


@nox.session(python=False)
def static(session: nox.Session) -> None:
    """The layers contract, the type checker, the linter and the formatter."""
    session.run(tool("lint-imports"), "--no-cache")
    session.run(tool("mypy"))
    session.run(tool("ruff"), "check", ".")
    session.run(tool("ruff"), "format", "--check", ".")


@nox.session(python=False)
def fast(session: nox.Session) -> None:
    """The test suite less its ``slow`` tests."""
    session.run(tool("pytest"), "-n", "auto", "-q", "-m", "not slow", *session.posargs)

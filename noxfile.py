"""What a contributor runs before committing, and what CI runs after the tests: ``nox``.

The sessions use the environment they are started from (the README's test install, ``pip install
-e '.[test]'``), so they start at once and check the code as it is installed:

- ``nox -s static``: the layers contract (``lint-imports``), the type checker (``mypy``) and the
  linter and formatter (``ruff check``, ``ruff format --check``), each from the repository root
  with its configuration in ``pyproject.toml``;
- ``nox -s fast``: the tests without the ``slow`` marker, on every core;
- ``nox -s docs``: the documentation site (``docs/``, Sphinx), built strictly: a warning, a
  broken link or a reference that does not resolve fails it (CI runs it);
- ``nox -s versions``: the engine's, the gate's and the published samplers' tests
  (:data:`ENGINE_TESTS`) on each other CPython of :data:`OTHER_PYTHONS`, found on ``PATH`` or in
  pyenv, each in a virtual environment of its own under ``.nox/`` (CI runs it);
- ``nox -s python3.14``: the same tests on Debian unstable's CPython 3.14, in a root filesystem
  built from Debian's packages (``ci/debian-python-root.sh``; needs root, about 6 minutes the first
  time). Run before a release and whenever the engine's bytecode table changes; CI does not;
- ``nox`` alone: static and fast, static first.

The engine reads bytecode, whose instructions change in every minor version
(``verify/engine/_bytecode.py``), so the versions sessions are what keeps its verdicts the same on
each.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
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


@nox.session(python=False)
def docs(session: nox.Session) -> None:
    """The documentation site, built with warnings as errors, into ``docs/_build/html``."""
    session.run(tool("sphinx-build"), "-W", "--keep-going", "-n", "-b", "html", "docs", "docs/_build/html")


#: The CPython minor versions besides the one CI's main run uses (``.ci/run``: the system's 3.11).
OTHER_PYTHONS = ("3.12", "3.13")
#: The tests whose outcome depends on the bytecode the engine reads: the engine's (enumeration,
#: renewal, procedure summaries, the interpreter's table), the gate's and the published samplers'.
ENGINE_TESTS = (
    "tests/test_bytecode.py",
    "tests/test_enumerate.py",
    "tests/test_bisect.py",
    "tests/test_intervals.py",
    "tests/test_summaries.py",
    "tests/test_procedure_summaries.py",
    "tests/test_random_source.py",
    "tests/test_gate_faults.py",
    "tests/test_hostile_samplers.py",
    "tests/test_source_check.py",
    "tests/test_published_samplers.py",
)
#: What the engine's tests need beyond dpverify's own dependencies.
_TEST_TOOLS = ("pytest-xdist", "jsonschema")  # pytest and Hypothesis are dependencies


def _interpreter(version: str) -> str | None:
    """A CPython ``version`` (``3.12``) that runs: ``python3.12`` on ``PATH`` (a pyenv shim there fails
    unless that version is selected, so it is tried, not trusted), else pyenv's newest 3.12.x."""
    pyenv = glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python"))
    pyenv.sort(key=lambda path: [int(p) for p in path.split("/")[-3].split(".") if p.isdigit()])
    for candidate in (shutil.which(f"python{version}"), *reversed(pyenv)):
        if candidate is not None:
            ran = subprocess.run(
                [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True,
                text=True,
                check=False,
            )
            if ran.returncode == 0 and ran.stdout.strip() == version:
                return candidate
    return None


def _engine_tests(session: nox.Session, python: str) -> None:
    session.run(python, "-m", "pip", "install", "-q", "-e", ".", *_TEST_TOOLS, external=True)
    tests = session.posargs or ENGINE_TESTS
    session.run(python, "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider", *tests, external=True)


@nox.session(python=False)
@nox.parametrize("version", OTHER_PYTHONS)
def versions(session: nox.Session, version: str) -> None:
    """The engine's, gate's and published samplers' tests on another CPython."""
    interpreter = _interpreter(version)
    if interpreter is None:
        session.error(f"no CPython {version} on PATH or in ~/.pyenv/versions: install it (pyenv install {version})")
    environment = os.path.join(".nox", f"cpython-{version}")
    python = os.path.join(environment, "bin", "python")
    if not os.path.exists(python):
        session.run(interpreter, "-m", "venv", environment, external=True)
    _engine_tests(session, python)


@nox.session(python=False, name="python3.14")
def python314(session: nox.Session) -> None:
    """The engine's tests on Debian unstable's CPython 3.14, in a root built from Debian's packages."""
    root = os.environ.get("DPVERIFY_DEBIAN_ROOT", os.path.expanduser("~/.cache/dpverify/debian-sid"))
    session.run("bash", "ci/debian-python-root.sh", root, "python3.14", external=True)
    tests = " ".join(session.posargs or ENGINE_TESTS)
    # the environment lives inside the root, so that the checkout gets no 3.14 build of anything
    script = (
        "set -e; [ -x /root/venv314/bin/python ] || python3.14 -m venv /root/venv314; "
        f"/root/venv314/bin/pip install -q -e . {' '.join(_TEST_TOOLS)}; "
        f"/root/venv314/bin/python -m pytest -n auto -q -p no:cacheprovider {tests}"
    )
    session.run("bash", "ci/in-debian-root.sh", root, ".", "--", "sh", "-c", script, external=True)

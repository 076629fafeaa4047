"""One virtual environment per surveyed library, so that no library's pins ever reach the
environment dpverify is tested in.

``environment(library, root)`` returns the interpreter of ``ROOT/NAME``: a ``venv`` holding the
library's pinned requirements and dpverify with its dependencies, resolved together by pip there
(a library may pin numpy, pandas or SymPy to versions of its own).  dpverify goes in from its
source tree when it runs from one (``pip install --no-deps SOURCE``, again on every survey, so
the audits are this checkout's), else as a copy of the installed package.  An environment whose
requirements are unchanged is reused; one that pip cannot build raises
:class:`EnvironmentFailed` with pip's last lines, and the survey lists the library as skipped.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import dpverify
from dpverify.verify.survey._primitive import Library

__all__ = ["INSTALL_SECONDS", "EnvironmentFailed", "default_root", "environment"]

#: Seconds pip may take to build one library's environment (a first download of a large wheel).
INSTALL_SECONDS = 1800


class EnvironmentFailed(Exception):
    """A library's environment could not be built; the message says why, in pip's words."""


def default_root() -> Path:
    """Where the environments live unless ``--venvs`` says: ``$XDG_CACHE_HOME/dpverify/survey``."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "dpverify" / "survey"


def _source() -> Path | None:
    """dpverify's source tree when it runs from one (an editable install or a clone), else None."""
    root = Path(dpverify.__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "samplers").is_dir() else None


def _dependencies() -> list[str]:
    """dpverify's own requirements (no extras), as the installed distribution declares them."""
    try:
        declared = importlib.metadata.requires("dpverify") or []
    except importlib.metadata.PackageNotFoundError:
        declared = []
    return [r for r in declared if "extra ==" not in r]


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise EnvironmentFailed(f"{what} took more than {INSTALL_SECONDS} s") from None
    if done.returncode != 0:
        tail = " ".join(line.strip() for line in (done.stderr or done.stdout).strip().splitlines()[-3:])
        raise EnvironmentFailed(f"{what} failed (exit {done.returncode}): {tail[-400:]}")


def _python(folder: Path) -> Path:
    return folder / ("Scripts" if os.name == "nt" else "bin") / ("python.exe" if os.name == "nt" else "python")


def environment(library: Library, root: Path) -> Path:
    """The interpreter of library's own environment under ``root``, built or refreshed."""
    folder = root / library.name
    python = _python(folder)
    wanted = {
        "requirements": list(library.requirements),
        "dependencies": _dependencies(),
        "python": sys.version.split()[0],
    }
    stamp = folder / "dpverify-survey.json"
    fresh = not (python.exists() and stamp.exists() and json.loads(stamp.read_text()) == wanted)
    if fresh:
        shutil.rmtree(folder, ignore_errors=True)
        _run([sys.executable, "-m", "venv", str(folder)], f"creating the environment {folder}")
        _run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                *library.requirements,
                *wanted["dependencies"],
            ],
            f"pip install {' '.join(library.requirements)}",
        )
    _install_dpverify(python)
    if fresh:
        stamp.write_text(json.dumps(wanted))
    return python


#: What a build of dpverify reads from its source tree (``pyproject.toml``'s package folders).
_SOURCE_PARTS = ("pyproject.toml", "README.md", "LICENSE", "src", "samplers", "specs", "verify", "proofs", "schemas")


def _install_dpverify(python: Path) -> None:
    source = _source()
    if source is not None:
        # built from a copy: a build writes into its tree, and two surveys may build at once
        with tempfile.TemporaryDirectory(prefix="dpverify-source-") as scratch:
            for part in _SOURCE_PARTS:
                if (source / part).is_dir():
                    shutil.copytree(
                        source / part, Path(scratch) / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
                    )
                elif (source / part).is_file():
                    shutil.copy2(source / part, Path(scratch) / part)
            _run(
                [
                    str(python),
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--no-deps",
                    "--force-reinstall",
                    scratch,
                ],
                f"pip install dpverify from {source}",
            )
        return
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    package = Path(dpverify.__file__).resolve().parent
    if Path(sysconfig.get_paths()["purelib"]) not in package.parents:
        raise EnvironmentFailed(f"dpverify at {package} is neither a source tree nor an installed package")
    target = Path(purelib) / "dpverify"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))

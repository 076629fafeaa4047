"""Each package's ``__init__`` only re-exports, and its ``__all__`` is what it documents."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("package", [f"dpverify.{part}" for part in ("samplers", "specs", "verify", "proofs")])
def test_all_names_resolve_and_are_sorted(package: str) -> None:
    module = importlib.import_module(package)
    assert all(hasattr(module, name) for name in module.__all__)
    assert list(module.__all__) == sorted(module.__all__)


def test_readme_python_api_names_are_exported() -> None:
    section = README.split("## Python API", 1)[1].split("\n## ", 1)[0]
    for package, names in re.findall(r"from ([\w.]+) import ([\w, ]+)", section):
        exported = importlib.import_module(package).__all__
        for name in names.split(","):
            assert name.strip() in exported, f"{package}.{name.strip()} is documented but not exported"


def test_the_samplers_load_nothing_heavier_than_the_standard_library() -> None:
    probe = "import sys, dpverify.samplers; print(sorted({'sympy', 'z3', 'mpmath', 'hypothesis'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_one_top_level_package_holds_every_part() -> None:
    import dpverify

    for part in ("samplers", "specs", "verify", "proofs"):
        module = importlib.import_module(f"dpverify.{part}")
        assert module.__name__ == f"dpverify.{part}"
    assert dpverify.__all__ == ["__version__"] and dpverify.__version__ == metadata.version("dpverify")

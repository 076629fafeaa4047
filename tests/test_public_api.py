"""Each package's ``__init__`` only re-exports, and its ``__all__`` is what it documents."""

from __future__ import annotations

import importlib
import re
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

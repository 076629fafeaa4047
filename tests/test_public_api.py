"""Each package's ``__init__`` only re-exports, and its ``__all__`` is what it documents."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

API_PAGE = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "api.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("package", [f"dpverify.{part}" for part in ("samplers", "specs", "verify", "proofs")])
def test_all_names_resolve_and_are_sorted(package: str) -> None:
    module = importlib.import_module(package)
    assert all(hasattr(module, name) for name in module.__all__)
    assert list(module.__all__) == sorted(module.__all__)


def test_the_api_page_imports_only_exported_names() -> None:
    imports = re.findall(r"from (dpverify[\w.]*) import ([\w, ]+)", API_PAGE)
    assert imports, "the API page shows no import"
    for package, names in imports:
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

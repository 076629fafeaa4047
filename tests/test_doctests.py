"""Every docstring example in the installed package runs and gives the output it shows.

The examples are collected from ``dpverify``'s modules as installed (not from the repository
folders by path), so each module is imported once, under its one real name.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dpverify

PARTS = ("samplers", "specs", "verify", "proofs")


def _modules() -> list[str]:
    # the top of the package (its pytest plugin included), then each part
    names = [
        "dpverify",
        *(
            info.name
            for info in pkgutil.iter_modules(dpverify.__path__, prefix="dpverify.")
            if info.name != "dpverify.__main__"
        ),
    ]
    for part in PARTS:
        package = importlib.import_module(f"dpverify.{part}")
        names.append(package.__name__)
        names += [info.name for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")]
    return sorted(names)


MODULES = _modules()


def test_every_part_is_collected() -> None:
    assert {f"dpverify.{part}" for part in PARTS} <= set(MODULES)
    assert "dpverify.samplers.gtm" in MODULES and "dpverify.verify.cli" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert failures == 0, f"{failures} docstring example(s) failed in {name}"

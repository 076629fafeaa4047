"""A spec module for the report tests (a module, not a test file): a correct sampler, the same
sampler with a one-unit bug, and a broken spec, each checked in well under a second.

``flip`` keeps the input bit when ``randbelow(a + b) < b`` for ``alpha = a/b``, so
``P(keep) = b/(a + b) = 1/(1 + alpha)`` and the ratio of the two outputs' probabilities is
exactly ``alpha``.  ``flip_off_by_one`` writes ``<=``: it keeps with ``(b + 1)/(a + b)``, which at
``alpha = 2/5`` is 6/7 where the spec says 5/7.  ``flip-broken`` declares a
PMF that leaves out the flipped output, so it sums to 5/7, not 1: a broken spec, not a verdict.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

#: The module's name, importable once :func:`spec_module` has written it.
MODULE = "dpverify_report_specs"

SOURCE = """
from dpverify.specs import Case, Input, PureDp, Rational, Spec


def flip(bit, alpha, rng):
    keep = rng.randbelow(alpha.numerator + alpha.denominator) < alpha.denominator
    return bit if keep else 1 - bit


def flip_off_by_one(bit, alpha, rng):
    keep = rng.randbelow(alpha.numerator + alpha.denominator) <= alpha.denominator
    return bit if keep else 1 - bit


def pmf(p, q):
    keep = 1 / (1 + p["alpha"])
    return {q: keep, 1 - q: 1 - keep}


def pmf_without_the_flip(p, q):
    return {q: 1 / (1 + p["alpha"])}


def _spec(name, sampler, *alphas, pmf=pmf):
    return Spec(name, sampler, {"alpha": Rational(0, 1, low_open=True)},
                tuple(Case({"alpha": alpha}) for alpha in alphas),
                lambda p: PureDp(alpha=p["alpha"]), input=Input("bit", lambda p: (0, 1)), pmf=pmf)


FLIP = _spec("flip", flip, "1/3", "2/5")
OFF_BY_ONE = _spec("flip-off-by-one", flip_off_by_one, "2/5")
BROKEN = _spec("flip-broken", flip, "2/5", pmf=pmf_without_the_flip)
SPECS = (FLIP, OFF_BY_ONE, BROKEN)
"""


@contextlib.contextmanager
def spec_module(directory: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Write the module into ``directory``, work there (``check --spec-module`` imports from the
    working directory), and forget the module afterwards; yields its name."""
    (directory / f"{MODULE}.py").write_text(SOURCE)
    monkeypatch.chdir(directory)
    monkeypatch.syspath_prepend(str(directory))
    sys.modules.pop(MODULE, None)
    try:
        yield MODULE
    finally:
        sys.modules.pop(MODULE, None)

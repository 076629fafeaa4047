"""What a survey row may claim about someone else's library.

A row names a real project, and a maintainer or an auditor acts on it, so its verdict is held
to what was established about what the library *releases*, at full precision:

- **A model is not the release.** Enumerating the library's code with ``random()`` on a grid of
  ``2**-k`` (``k`` < 53) studies a coarser generator than the one the library uses: any
  floating-point mechanism shows infinite privacy loss on a coarse enough grid.  Such a row is
  labelled ``model at k bits``, and its verdict can never be ``violated``: a violation of the
  model is ``inconclusive`` against the library, with the model's finding kept as evidence.  At
  ``k`` = 53 the grid is ``random()`` itself, and the verdict stands.
- **A proof is a proof.** A bounded enumeration proves a law only within its unexplored mass
  ``U``; in a table a row is ``proved`` only when ``U`` is at most the spec API's default
  ``max_unexplored`` (10^-6).  A wider ``U`` (Tumult's discrete Gaussian at ``U`` = 0.248)
  establishes nothing a user would call a proof, so the row is ``inconclusive`` and says why.
- **A violation breaks a documented promise.** Each row cites the library's documented contract for
  the value its public call releases (:mod:`~dpverify.verify.survey._contracts`).  A leak in a value
  the library does not document as private (numpy's Laplace draw, Opacus without ``secure_mode``) is
  a ``hazard``, with the path that would release it, never ``violated``; a row with no contract cited
  cannot be violated at all (``inconclusive``).
- **A magnitude that means something.** Each row carries the epsilon at the claimed delta and the
  delta at the claimed epsilon (:mod:`~dpverify.verify.survey._magnitude`), exact or certified.
- **No machine in the document.** The committed document records no path of the machine that
  made it: an environment is ``own`` (built by the survey) or ``this one``.

:func:`judged` applies the first four to one row, :func:`published` all three to a document, so
that a document made before these rules can be brought up to them without running again.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

from dpverify.specs._api import DEFAULT_MAX_UNEXPLORED
from dpverify.verify.survey._contracts import contract_of
from dpverify.verify.survey._magnitude import magnitude_text

__all__ = ["FULL_PRECISION_BITS", "judged", "published"]

#: The bits of ``random()``: a grid this fine is the generator itself, not a model of it.
FULL_PRECISION_BITS = 53


def judged(row: dict[str, Any], library: str) -> dict[str, Any]:
    """``row`` of ``library`` as the rules above let it stand (a new dict; ``row`` is left as it was)."""
    row = copy.deepcopy(row)
    found = row.get("details")
    details: dict[str, Any] = found if isinstance(found, dict) else {}
    bits = details.get("bits")
    if row["method"] in ("exact at k bits", "model at k bits") and isinstance(bits, int) and bits < FULL_PRECISION_BITS:
        row["method"] = "model at k bits"
        if row["verdict"] == "violated":
            row["verdict"] = "inconclusive"
            row["evidence"] = (
                f"a model at {bits} bits, not the release: random() on a 2^-{bits} grid is not the library's "
                f"generator, and any floating-point mechanism fails on a coarse enough grid; the model found: "
                f"{row['evidence']}"
            )
    checked = details.get("check")
    check: dict[str, Any] = checked if isinstance(checked, dict) else {}
    within = check.get("within")
    if row["verdict"] == "proved" and within is not None and Fraction(within) > DEFAULT_MAX_UNEXPLORED:
        row["verdict"] = "inconclusive"
        row["evidence"] = (
            f"no proof: the law was bounded only within U = {check.get('within_decimal', within)}, above the "
            f"default max_unexplored 10^-6; {row['evidence']}"
        )
    _held_to_its_contract(row, library)
    magnitude = magnitude_text(row.get("details"))
    # a model's numbers are the model's, not the library's
    row["magnitude"] = (
        f"- (the model's: {magnitude})" if row["method"] == "model at k bits" and magnitude != "-" else magnitude
    )
    return row


def _held_to_its_contract(row: dict[str, Any], library: str) -> None:
    contract = contract_of(library, row["primitive"])
    if contract is None:
        row.pop("contract", None)
        if row["verdict"] == "violated":
            row["verdict"] = "inconclusive"
            row["evidence"] = (
                f"no documented contract is cited for this row, so nothing it found is a violation; {row['evidence']}"
            )
        return
    row["contract"] = {
        "release": contract.release,
        "promise": contract.promise,
        "source": contract.source,
        "private": contract.private,
    }
    if row["verdict"] == "violated" and not contract.private:
        row["verdict"] = "hazard"
        row["evidence"] = (
            f"the library does not document this value as private ({contract.promise}); the path that would "
            f"release it: {contract.release}; what was found: {row['evidence']}"
        )


def published(document: dict[str, Any]) -> dict[str, Any]:
    """The survey ``document`` with every row :func:`judged` and no path of this machine in it."""
    document = copy.deepcopy(document)
    for library in document.get("libraries", ()):
        library["rows"] = [judged(row, library["name"]) for row in library.get("rows", ())]
        library.pop("interpreter", None)
        if library.get("environment") != "this one":
            library["environment"] = "own"
    return document

"""The survey's worker: audits one library's primitives in the environment it runs in.

``python -m dpverify.verify.survey._worker LIBRARY SEED SAMPLES TIME_LIMIT`` prints one JSON
document (:func:`audit_library`'s) on stdout.  The survey runs it with each library's own
environment's interpreter (:mod:`~dpverify.verify.survey._environments`), or calls
:func:`audit_library` in its own process with ``--here``.  Every failure is a row: an audit that
raises is ``inconclusive`` with the error, a library that does not import is skipped with it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import platform
import sys
import time
import traceback
from typing import Any

from dpverify.verify.survey._libraries import library_module
from dpverify.verify.survey._primitive import Budget, Finding, Library

__all__ = ["audit_library"]


def _version(library: Library) -> str | None:
    try:
        return importlib.metadata.version(library.name)
    except importlib.metadata.PackageNotFoundError:
        return None


def audit_library(name: str, budget: Budget) -> dict[str, Any]:
    """Every primitive of library ``name`` audited here: ``{"status": "audited", "version",
    "rows"}``, or ``{"status": "skipped", "reason"}`` when the library does not import."""
    module = library_module(name)
    library: Library = module.LIBRARY
    here = {"python": platform.python_version()}
    try:
        importlib.import_module(library.module)
    except Exception as error:  # noqa: BLE001 - a library that does not import is skipped, with the reason
        return {
            "status": "skipped",
            "reason": f"import {library.module} failed: {type(error).__name__}: {error}",
            "version": _version(library),
            **here,
        }
    rows = []
    for primitive in module.primitives():
        started = time.monotonic()
        try:
            finding = primitive.audit(budget)
        except Exception as error:  # noqa: BLE001 - an audit that fails is an inconclusive row, never a traceback
            last = traceback.extract_tb(error.__traceback__)[-1]
            finding = Finding(
                "inconclusive",
                f"the audit raised {type(error).__name__}: {error}",
                {"where": f"{last.filename}:{last.lineno}"},
            )
        rows.append(
            {
                "primitive": primitive.name,
                "mechanism": primitive.mechanism,
                "parameters": primitive.parameters,
                "method": primitive.method,
                "randomness": primitive.draws_from,
                "verdict": finding.verdict,
                "evidence": finding.evidence,
                "details": finding.details,
                "seconds": round(time.monotonic() - started, 2),
            }
        )
    return {"status": "audited", "version": _version(library), "rows": rows, **here}


def main(argv: list[str]) -> int:
    name, seed, samples, time_limit = argv
    document = audit_library(name, Budget(int(seed), int(samples), float(time_limit)))
    json.dump(document, sys.stdout, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

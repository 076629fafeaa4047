"""``dpverify survey``: every known library audited in its own environment, into one document
(``dpverify.survey/2``, ``schemas/survey-2.schema.json``) and its Markdown table.  Every row is
held to what a row about someone else's library may claim (:mod:`~dpverify.verify.survey._rules`).

Each library is skipped, with the reason and the extra that installs it, when its environment
cannot be built, when it does not import, or (``here``) when it is not installed where dpverify
runs.  Its worker runs under a time bound of its own; one that ends without a document is a
skipped library with the worker's last words, never a traceback of the survey.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from dpverify.verify.survey._environments import EnvironmentFailed, environment
from dpverify.verify.survey._libraries import EXTRAS, LIBRARIES, SURVEY_SCHEMA, library_module
from dpverify.verify.survey._primitive import Budget, Library
from dpverify.verify.survey._rules import published
from dpverify.verify.survey._worker import audit_library

__all__ = ["SURVEY_SCHEMA", "markdown", "run_survey"]

#: Seconds one library's worker may take beyond its audits' own bounds (imports, set-up).
_WORKER_SLACK = 300


def _install_hint(library: Library) -> str:
    extra = EXTRAS.get(library.name)
    pins = " ".join(library.requirements)
    return (f"pip install 'dpverify[{extra}]'" if extra else f"pip install {pins}") + f" (pins: {pins})"


def _worker_in(python: Path, name: str, budget: Budget, primitives: int) -> dict[str, Any]:
    limit = _WORKER_SLACK + primitives * budget.time_limit * 2
    command = [
        str(python),
        "-m",
        "dpverify.verify.survey._worker",
        name,
        str(budget.seed),
        str(budget.samples),
        str(budget.time_limit),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "skipped", "reason": f"the audits did not finish within {limit:.0f} s"}
    try:
        return cast(dict[str, Any], json.loads(done.stdout))  # the worker prints one JSON object
    except json.JSONDecodeError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "skipped", "reason": f"the worker exited {done.returncode} without a result: {last[:300]}"}


def run_survey(
    names: Sequence[str],
    budget: Budget,
    *,
    here: bool,
    root: Path,
    command: str = "",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The survey document of libraries ``names`` (all known ones when empty)."""
    libraries = []
    for name in names or tuple(LIBRARIES):
        module = library_module(name)
        library: Library = module.LIBRARY
        started = time.monotonic()
        entry: dict[str, Any] = {
            "name": library.name,
            "module": library.module,
            "about": library.about,
            "requirements": list(library.requirements),
            "install": _install_hint(library),
            "environment": "this one" if here else "own",
        }
        if progress is not None:
            progress(f"{name}: {'auditing here' if here else 'building its environment'}")
        if library.needs is not None:
            result: dict[str, Any] = {"status": "skipped", "reason": library.needs}
        elif here:
            result = audit_library(name, budget)
        else:
            try:
                python = environment(library, root)
            except EnvironmentFailed as error:
                result = {"status": "skipped", "reason": str(error)}
            else:
                if progress is not None:
                    progress(f"{name}: auditing in {root / library.name}")
                result = _worker_in(python, name, budget, len(module.primitives()))
        entry.update({"version": None, "rows": [], **result, "seconds": round(time.monotonic() - started, 1)})
        libraries.append(entry)
    return published(
        {
            "schema": SURVEY_SCHEMA,
            "command": command,
            "seed": budget.seed,
            "samples_per_input": budget.samples,
            "time_limit": budget.time_limit,
            "python": sys.version.split()[0],
            "libraries": libraries,
        }
    )


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _method(row: dict[str, Any]) -> str:
    """The method, and for a black box where its draws came from."""
    if row["method"] != "black box":
        return str(row["method"])
    return "black box, seeded" if row.get("randomness") == "seeded" else "black box, OS entropy: bounds only"


def _shortened(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


def _verdict(row: dict[str, Any]) -> str:
    """The verdict as the table shows it: a proof within a tolerance says so, with its ``U``."""
    within = row["details"].get("check", {}).get("within_decimal") if isinstance(row["details"], dict) else None
    shown = f"**{row['verdict']}**"
    return f"{shown} within U = {within}" if row["verdict"] == "proved" and within else shown


def markdown(document: dict[str, Any]) -> str:
    """The document as Markdown: one table of every audited primitive, one of skipped libraries."""
    lines = [
        "# The Python DP ecosystem, audited by dpverify",
        "",
        f"Regenerate with `{document['command'] or 'dpverify survey'}` (seed {document['seed']}, "
        f"{document['samples_per_input']} draws per input for a black box, Python {document['python']}).",
        "",
        "Methods: *exact enumeration* runs the library's code on dpverify's enumerating source, so the law is "
        "exact; *exact at k bits* does the same with `random()` at its full 53 bits; *model at k bits* uses a "
        "grid of 2^-k with k < 53, which is not the library's generator, so its findings are never a violation "
        "of the library; *black box* is statistical, with the false-positive rate bounded non-asymptotically "
        "(the evidence states the bound and the confidence), so a black box that passes is *not refuted*, never "
        "proved; a *seeded* black box's counts are reproduced by the seed, while one that draws from *OS "
        "entropy* (native code, an unseeded generator) gives other counts on every run, and only its certified "
        "bounds are to be quoted. A proof within a tolerance says *within U*: the code's and the ideal "
        "probability differ by at most U at every output, and a row is proved only at U <= 10^-6.",
        "",
        "Each row audits what a public call releases against the contract the library documents for it, cited "
        "by file and line of the installed version (or by docstring). *violated* means a documented promise "
        "fails; a leak in a value the library does not document as private is a *hazard*, with the path that "
        "would release it. The magnitude gives the epsilon that holds at the claimed delta and the delta that "
        "holds at the claimed epsilon: exact for an exact row, certified lower bounds for a black box.",
        "",
        "| library | version | primitive, and the call that releases it | mechanism | parameters | documented "
        "promise (where) | method | verdict | magnitude | evidence | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in document["libraries"]:
        for row in entry["rows"]:
            evidence = _shortened(row["evidence"], 400)
            contract = row.get("contract")
            released = f"{row['primitive']}; released by {contract['release']}" if contract else row["primitive"]
            promise = _shortened(f"{contract['promise']} ({contract['source']})", 400) if contract else "none cited"
            lines.append(
                "| "
                + " | ".join(
                    _cell(x)
                    for x in (
                        entry["name"],
                        entry["version"],
                        released,
                        row["mechanism"],
                        row["parameters"],
                        promise,
                        _method(row),
                        _verdict(row),
                        row.get("magnitude", "-"),
                        evidence,
                        row["seconds"],
                    )
                )
                + " |"
            )
    skipped = [e for e in document["libraries"] if e["status"] == "skipped"]
    if skipped:
        lines += ["", "## Not audited", "", "| library | why | how to install it |", "|---|---|---|"]
        lines += [f"| {_cell(e['name'])} | {_cell(e['reason'])} | `{_cell(e['install'])}` |" for e in skipped]
    return "\n".join(lines) + "\n"

"""The report of ``dpverify mutate``: the reviewed statuses, the ``--json`` document (schema
``dpverify.mutate/2``), its human rendering, and ``--list``.  Its own module: the rendering of a
run, not the run."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from dpverify.verify.changes._mutants import Mutant
from dpverify.verify.changes._mutate import Result
from dpverify.verify.changes._mutate_equivalents import EQUIVALENTS_FILE, Reviewed
from dpverify.verify.changes._mutate_gate_run import GateOptions
from dpverify.verify.changes._mutate_status import EQUIVALENT, KILLED, OTHER, STATUSES, SURVIVED
from dpverify.verify.changes._mutate_targets import Plan

__all__ = [
    "MUTATE_SCHEMA",
    "list_text",
    "report_json",
    "report_text",
    "reviewed_results",
]

#: Version of the JSON document ``dpverify mutate --json`` writes (see the README).
MUTATE_SCHEMA = "dpverify.mutate/2"


def reviewed_results(results: Sequence[Result], reviewed: Reviewed) -> tuple[Result, ...]:
    """Survivors listed in the reviewed file become ``equivalent``, with their reason; a listed
    mutant with another status keeps it and the reason, so the report can show the claim refuted."""
    return tuple(
        replace(r, status=EQUIVALENT if r.status == SURVIVED else r.status, reason=reason)
        if (reason := reviewed.reason(r.mutant.id)) is not None
        else r
        for r in results
    )


def _counts(results: Sequence[Result]) -> dict[str, int]:
    counts = {status: sum(r.status == status for r in results) for status in STATUSES}
    return {"mutants": len(results), **counts}


def report_json(
    work: Plan,
    results: Sequence[Result],
    reviewed: Reviewed,
    options: GateOptions,
    *,
    baseline_seconds: float,
    jobs: int | None,
    specs: Sequence[str] | None = None,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """The ``dpverify mutate --json`` document (schema ``dpverify.mutate/2``); ``jobs`` is None
    when a Dask cluster (at ``scheduler``) decided how many ran at a time."""
    refuted = [r for r in results if r.reason is not None and r.status != EQUIVALENT]
    problems = [r for r in results if r.status in (SURVIVED, *OTHER)]
    by_check: dict[str, int] = {}
    for result in results:
        for check in sorted({k.check for k in result.kills if result.status == KILLED}):
            by_check[check] = by_check.get(check, 0) + 1
    return {
        "schema": MUTATE_SCHEMA,
        "passed": not problems and not refuted and not work.stale,
        "gate": {
            "command": options.command(),
            "seed": options.seed,
            "timeout": options.timeout,
            "baseline_seconds": round(baseline_seconds, 2),
            "jobs": jobs,
            "scheduler": scheduler,
            "specs_per_mutant": "every spec" if specs is None else "the specs that run the mutated function",
            "specs": None if specs is None else list(specs),
        },
        "modules": [
            {
                "module": t.module,
                "file": str(t.file),
                "generated": sum(m.module == t.module for m in work.mutants),
                **_counts([r for r in results if r.mutant.module == t.module]),
            }
            for t in work.targets
        ],
        "totals": {"generated": len(work.mutants), "skipped_in_reviewed_functions": work.skipped, **_counts(results)},
        "killed_by_check": dict(sorted(by_check.items(), key=lambda item: (-item[1], item[0]))),
        "equivalents": {
            "file": reviewed.path,
            "stale": [entry.to_json() for entry in work.stale],
            "refuted": [{"id": r.mutant.id, "status": r.status, "reason": r.reason} for r in refuted],
            "skips": [skip.to_json() for skip in reviewed.skips],
        },
        "mutants": [r.to_json() for r in results],
    }


def report_text(document: dict[str, Any]) -> str:
    """The human report: the table per module, then what needs attention."""
    totals, gate = document["totals"], document["gate"]
    scope = (
        "" if gate["specs"] is None else f"; each mutant runs the specs that run its function, of {len(gate['specs'])}"
    )
    where = f"on the Dask cluster at {gate['scheduler']}" if gate.get("scheduler") else f"{gate['jobs']} at a time"
    lines = [
        f"dpverify mutate: {len(document['modules'])} module(s), {totals['mutants']} of {totals['generated']} "
        f"mutants run ({where}); gate: {gate['command']}{scope} "
        f"(unmodified code: {gate['baseline_seconds']:.1f} s)"
    ]
    width = max([len("total"), *(len(m["module"]) for m in document["modules"])])
    lines.append(f"{'module':<{width}}  mutants  killed  equivalent  survived  other")
    for row in [*document["modules"], {"module": "total", **totals}]:
        other = sum(row[s] for s in OTHER)
        lines.append(
            f"{row['module']:<{width}}  {row['mutants']:>7}  {row[KILLED]:>6}  {row[EQUIVALENT]:>10}  "
            f"{row[SURVIVED]:>8}  {other:>5}"
        )
    if document["killed_by_check"]:
        lines.append("killed by: " + ", ".join(f"{check} {n}" for check, n in document["killed_by_check"].items()))
    mutants = document["mutants"]
    survivors = [m for m in mutants if m["status"] == SURVIVED]
    if survivors:
        lines.append(
            f"\nsurvived ({len(survivors)}): no check saw the change; add a case or a check that does, or "
            f"review it as equivalent in {document['equivalents']['file'] or EQUIVALENTS_FILE}"
        )
        for m in survivors:
            lines += [f"  {m['id']}", f"      {m['description']}", f"      mutated: {m['mutated_line']}"]
            if m["detail"]:
                lines.append(f"      {m['detail']}")
    others = [m for m in mutants if m["status"] in OTHER]
    if others:
        lines.append(f"\ncaught without a verdict ({len(others)}): broken (exit 2), crashed or timed out")
        for m in others:
            lines += [f"  {m['id']}", f"      {m['description']}", f"      {m['status']}: {m['detail']}"]
    equivalents = document["equivalents"]
    for entry in equivalents["stale"]:
        what = entry.get("id") or f"{entry['module']}:{entry['function']}"
        lines.append(
            f"stale entry in {equivalents['file']}: {what} matches no mutant of {entry['module']}; remove or update it"
        )
    for entry in equivalents["refuted"]:
        lines.append(f"listed as equivalent in {equivalents['file']} but {entry['status']}: {entry['id']}")
    counts = [f"{totals[s]} {s}" for s in (SURVIVED, *OTHER) if totals[s]]
    counts += [f"{len(equivalents[k])} {k} entries" for k in ("stale", "refuted") if equivalents[k]]
    verdict = "PASS" if document["passed"] else "FAIL"
    lines.append(
        f"\n{totals[KILLED]} killed, {totals[EQUIVALENT]} reviewed equivalent"
        f"{'; ' + ', '.join(counts) if counts else ''}: {verdict}"
    )
    return "\n".join(lines)


def list_text(work: Plan, chosen: Sequence[Mutant], reviewed: Reviewed) -> Iterator[str]:
    """``dpverify mutate --list``: one line per mutant, then the count."""
    for mutant in chosen:
        listed = " [reviewed equivalent]" if reviewed.reason(mutant.id) is not None else ""
        yield f"{mutant.id}  {mutant.description}{listed}"
    skipped = f"; {work.skipped} more in functions the reviewed file skips" if work.skipped else ""
    yield f"{len(chosen)} of {len(work.mutants)} mutants in {len(work.targets)} module(s){skipped}"

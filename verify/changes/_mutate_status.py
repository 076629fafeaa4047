"""What a gate run says about a mutant in ``dpverify mutate``: its status, and the failing checks
that killed it, read from the gate's JSON.  Its own module: pure reading of a finished run, tested
on synthetic runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpverify.verify.changes._mutate_gate_run import DEFAULT_TIMEOUT, GateRun

__all__ = [
    "BROKEN",
    "CRASHED",
    "EQUIVALENT",
    "KILLED",
    "OTHER",
    "STATUSES",
    "SURVIVED",
    "TIMEOUT",
    "Kill",
    "classify",
]

# What the gate says about a mutant becomes its status:
#
# ``killed``      exit 1 with a verdict: the JSON names each failing case and check
# ``broken``      exit 2: a case could not be checked (an ``error`` outcome) or the gate refused to
#                 run; the mutant was caught, but not by a verdict
# ``crashed``     any other ending: no JSON, a traceback, a signal; the tail of stderr is kept
# ``timeout``     no answer within ``--timeout`` seconds (the whole process group is killed)
# ``survived``    exit 0: no check saw the change
# ``equivalent``  survived, and listed in the reviewed equivalents file with its reason
KILLED, BROKEN, CRASHED, TIMEOUT, SURVIVED, EQUIVALENT = (
    "killed",
    "broken",
    "crashed",
    "timeout",
    "survived",
    "equivalent",
)
STATUSES = (KILLED, EQUIVALENT, SURVIVED, BROKEN, CRASHED, TIMEOUT)
#: Statuses that are neither a kill with a verdict nor a survivor: the "other" column.
OTHER = (BROKEN, CRASHED, TIMEOUT)


@dataclass(frozen=True, slots=True)
class Kill:
    """One failing check in the gate's JSON: the case (``repository`` for a source-tree check)."""

    entry: str
    check: str
    verdict: str
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry, "check": self.check, "verdict": self.verdict, "summary": self.summary}

    def __str__(self) -> str:
        return f"{self.entry}: {self.check} {self.verdict}: {_clip(self.summary, 160)}"


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return _clip(lines[-1]) if lines else "(nothing on stderr)"


def _kills(document: dict[str, Any]) -> list[Kill]:
    """Every check that made the gate fail: for each unmet case, the checks its problems name."""
    kills: list[Kill] = []
    for entry in document.get("entries", []):
        if entry.get("met", True):
            continue
        name, problems = str(entry.get("name")), [str(p) for p in entry.get("problems") or []]
        if entry.get("error"):
            kills.append(Kill(name, "error", "error", _clip(entry["error"])))
            continue
        named = [
            c
            for c in entry.get("checks", [])
            if any(p.startswith((f"{c.get('check')} ", f"expected {c.get('check')} ")) for p in problems)
        ]
        kills += [Kill(name, str(c.get("check")), str(c.get("verdict")), _clip(c.get("summary", ""))) for c in named]
        if not named:
            kills.append(Kill(name, "outcome", str(entry.get("outcome")), _clip("; ".join(problems))))
    for check in document.get("repository", []):
        if check.get("verdict") != "proved":
            kills.append(
                Kill("repository", str(check.get("check")), str(check.get("verdict")), _clip(check.get("summary", "")))
            )
    return kills


def classify(run: GateRun, timeout: int = DEFAULT_TIMEOUT) -> tuple[str, tuple[Kill, ...], str]:
    """``(status, kills, detail)`` for one gate run on a mutant."""
    if run.code is None:
        return TIMEOUT, (), f"no answer within {timeout} s"
    document = run.document
    traceback = "Traceback (most recent call last)" in run.stderr
    if run.code == 0 and document is not None and document.get("passed") is True:
        return SURVIVED, (), ""
    if run.code == 2 and not traceback:
        errors = tuple(k for k in _kills(document) if k.check == "error") if document else ()
        return BROKEN, errors, errors[0].summary if errors else _last_line(run.stderr)
    if run.code == 1 and document is not None:
        kills = _kills(document)
        if kills and all(k.entry == "repository" and k.check == "stale_proofs" for k in kills):
            return SURVIVED, (), "only the stale-proof check failed, which every change of covered code fails"
        if kills:
            return KILLED, tuple(kills), ""
    ending = f"exit code {run.code}" if run.code >= 0 else f"killed by signal {-run.code}"
    return CRASHED, (), f"{ending}{'' if document else ', no JSON'}: {_last_line(run.stderr)}"

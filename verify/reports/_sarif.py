"""``--sarif PATH``: SARIF 2.1.0 logs of ``check``, ``diff`` (``check --base``) and ``mutate``.

Each finding that fails the gate is one SARIF result on the line of code it is about, so GitHub
code scanning (and any SARIF viewer) shows it on the pull request:

- ``check``: a case that missed its expectation (``violated``, ``inconclusive``,
  ``expectation-missed``, ``broken-spec``) points at the spec's sampler function, the function
  its counterexample runs through, with the case's whole report (inputs, output, both exact
  probabilities) as the message; a spec with no sampler points at its declaration; a finding of
  the source tree's checks points at its own file and line;
- ``diff`` and ``check --base``: a spec whose two versions sample different laws
  (``law-changed``), could not be decided (``inconclusive``) or were not compared
  (``uncompared``) points at the first changed line of the first changed function (from ``git
  diff`` against the base revision), else at the new sampler function;
- ``mutate``: a surviving mutant (``mutant-survived``) points at the mutated line; a reviewed
  equivalent that is stale or refuted points at its entry in the equivalents file.

Passing cases are not results: SARIF reports problems, and an empty ``results`` list is the
green run.  The run's ``automationDetails.id`` names the command, so that a workflow uploading
the logs of ``check`` and ``check --base`` keeps them apart.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dpverify import __version__
from dpverify.verify.reports._output import STDOUT, human_stream, write_text
from dpverify.verify.reports._sarif_locations import (
    Locator,
    SourceRegion,
    changed_lines,
    definition_region,
    function_region,
    module_of,
)

__all__ = [
    "RULES",
    "add_sarif_option",
    "SARIF_VERSION",
    "check_results",
    "diff_results",
    "spec_error_result",
    "emit_sarif",
    "mutate_results",
    "sarif_log",
]

SARIF_VERSION = "2.1.0"
#: The ``$schema`` GitHub's documentation gives for SARIF 2.1.0.
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
#: Rule id: (level, short description).  Every result names one.
RULES: dict[str, tuple[str, str]] = {
    "violated": ("error", "A claim the sampler's code does not keep, with the counterexample"),
    "inconclusive": ("warning", "A check that could not be decided: the gate fails until it is"),
    "expectation-missed": ("error", "A case whose outcome is not the one it declares"),
    "broken-spec": ("error", "A spec or case that cannot be checked as written"),
    "source-tree": ("error", "A finding of the source tree's own checks (static rules, entry points, proofs)"),
    "law-changed": ("error", "The new sampler code samples a different law than the old"),
    "uncompared": ("warning", "Sampler code that may have changed and was not compared with its old version"),
    "mutant-survived": ("warning", "A single-site change of the sampler that no check caught"),
    "equivalents-entry": ("error", "A reviewed equivalent mutant that is stale or that the gate refutes"),
}
#: Longest message text; a viewer shows the start, and the JSON and JUnit reports hold the rest.
MESSAGE_CHARS = 4000


def sarif_log(
    command: str,
    results: Sequence[dict[str, Any]],
    locator: Locator,
    *,
    command_line: Sequence[str] | None = None,
    exit_code: int | None = None,
) -> dict[str, Any]:
    """The SARIF 2.1.0 log of one run of ``dpverify COMMAND``."""
    used = sorted({result["ruleId"] for result in results})
    index = {rule: i for i, rule in enumerate(used)}
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if command_line is not None:
        invocation["commandLine"] = " ".join(command_line)
    if exit_code is not None:
        invocation["exitCode"] = exit_code
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "dpverify",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [
                            {
                                "id": rule,
                                "name": _camel(rule),
                                "shortDescription": {"text": RULES[rule][1]},
                                "defaultConfiguration": {"level": RULES[rule][0]},
                            }
                            for rule in used
                        ],
                    }
                },
                "automationDetails": {"id": f"dpverify/{command}/"},
                "originalUriBaseIds": {"%SRCROOT%": {"uri": locator.root.as_uri() + "/"}},
                "invocations": [invocation],
                "results": [{**result, "ruleIndex": index[result["ruleId"]]} for result in results],
            }
        ],
    }


def _camel(rule: str) -> str:
    return "".join(word.capitalize() for word in rule.split("-"))


def _result(
    rule: str,
    text: str,
    locator: Locator,
    region: SourceRegion | None,
    *,
    key: str,
    related: Iterable[tuple[SourceRegion, str]] = (),
    properties: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    if len(text) > MESSAGE_CHARS:
        text = text[: MESSAGE_CHARS - 1] + "…"
    result: dict[str, Any] = {"ruleId": rule, "level": RULES[rule][0], "message": {"text": text}}
    if region is not None:
        result["locations"] = [_location(locator, region)]
    others = [
        {**_location(locator, where), "id": i, "message": {"text": what}} for i, (where, what) in enumerate(related)
    ]
    if others:
        result["relatedLocations"] = others
    # Stable across runs and edits elsewhere: a viewer tracks the finding, not its line.
    result["partialFingerprints"] = {"dpverifyFinding/v1": hashlib.sha256(f"{rule}\0{key}".encode()).hexdigest()[:32]}
    if properties:
        result["properties"] = dict(properties)
    return result


def _location(locator: Locator, region: SourceRegion) -> dict[str, Any]:
    uri, relative = locator.uri(region.file, module_of(region.file))
    artifact: dict[str, Any] = {"uri": uri, **({"uriBaseId": "%SRCROOT%"} if relative else {})}
    return {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": region.start, "endLine": max(region.end, region.start)},
        }
    }


# -- check ------------------------------------------------------------------------------------


def check_results(
    outcomes: Sequence[Any], repository: Sequence[Any], locator: Locator, *, replay: Any = None
) -> list[dict[str, Any]]:
    """One result per case that missed its expectation and per finding of a failed source-tree
    check; ``replay(outcome)``, when given, is the command that reruns a case."""
    from dpverify.verify.engine._results import Verdict
    from dpverify.verify.gate._gate import outcome_lines

    results = []
    for outcome in outcomes:
        if outcome.met:
            continue
        rule = (
            "broken-spec"
            if outcome.error
            else outcome.outcome
            if outcome.outcome in ("violated", "inconclusive")
            else "expectation-missed"
        )
        # The first line is what a viewer shows beside the code: the counterexample, or why not.
        head = outcome.error if outcome.error else outcome.problems[0] if outcome.problems else outcome.outcome
        text = f"{outcome.name}: {head}\n" + "\n".join(outcome_lines(outcome))
        if replay is not None:
            text += f"\nreplay: {replay(outcome)}"
        sampler = function_region(outcome.spec.sampler) if outcome.spec.sampler is not None else None
        declared = spec_declaration(outcome.spec)
        related = [(declared, f"the spec {outcome.spec.name}")] if declared and sampler else []
        results.append(
            _result(
                rule,
                text,
                locator,
                sampler or declared,
                key=outcome.name,
                related=related,
                properties={
                    "spec": outcome.spec.name,
                    "case": outcome.case.describe(),
                    "parameters": {k: str(v) for k, v in outcome.case.parameters.items()},
                    "expect": outcome.case.expect,
                    "outcome": outcome.outcome,
                },
            )
        )
    for check in repository:
        if check.verdict is Verdict.PROVED:
            continue
        findings = [f for f in check.evidence.get("findings", []) if "line" in f and "file" in f]
        for finding in findings:
            where = SourceRegion(os.path.realpath(finding["file"]), int(finding["line"]), int(finding["line"]))
            results.append(
                _result(
                    "source-tree",
                    f"{check.check}: {finding['rule']}: {finding['snippet']}",
                    locator,
                    where,
                    key=f"{check.check}\0{finding['rule']}\0{finding['snippet']}",
                )
            )
        if not findings:
            results.append(
                _result(
                    "source-tree",
                    f"{check.check}: {check.verdict_text}: {check.summary}",
                    locator,
                    None,
                    key=check.check,
                )
            )
    return results


def spec_error_result(message: str, locator: Locator) -> dict[str, Any]:
    """The result of specs that do not load (``SpecError``): no case ran."""
    return _result("broken-spec", f"the specs do not load: {message}", locator, None, key="specs")


def spec_declaration(spec: Any) -> SourceRegion | None:
    """The line declaring ``spec`` in the module whose ``SPECS`` holds it: the first line that
    names it in quotes, else the ``SPECS`` module's first line."""
    for module in list(sys.modules.values()):
        specs = getattr(module, "SPECS", None)
        file = getattr(module, "__file__", None)
        if not file or not isinstance(specs, (list, tuple)) or not any(s is spec for s in specs):
            continue
        try:
            lines = Path(file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return None
        quoted = (f'"{spec.name}"', f"'{spec.name}'")
        line = next((i for i, text in enumerate(lines, 1) if any(q in text for q in quoted)), 1)
        return SourceRegion(os.path.realpath(file), line, line)
    return None


# -- diff and check --base --------------------------------------------------------------------


def diff_results(
    diffs: Sequence[Any],
    locator: Locator,
    *,
    base: Any = None,
    samplers: Mapping[str, Any] | None = None,
    allow_uncompared: bool = False,
) -> list[dict[str, Any]]:
    """One result per spec whose comparison did not prove the same law.  ``base`` (a
    ``BaseRevision``) lets a result point at the first changed line; ``samplers`` maps a
    comparison's name to its new sampler, where no changed function is known."""
    from dpverify.verify.engine._results import Verdict

    results = []
    for diff in diffs:
        verdict = diff.verdict
        if verdict is Verdict.PROVED or (diff.uncompared and allow_uncompared):
            continue
        rule = "uncompared" if diff.uncompared else "law-changed" if verdict is Verdict.VIOLATED else "inconclusive"
        region = _changed_region(diff, base, locator)
        if region is None and samplers and diff.name in samplers:
            region = function_region(samplers[diff.name])
            if region is not None and base is not None:
                region = _first_change(region, base, locator)
        first = diff.first_difference
        properties: dict[str, Any] = {"spec": diff.name, "status": diff.status, "verdict": verdict.value}
        if first is not None:
            properties["first_difference"] = first.to_json()
        results.append(_result(rule, "\n".join(diff.lines()), locator, region, key=diff.name, properties=properties))
    return results


def _changed_region(diff: Any, base: Any, locator: Locator) -> SourceRegion | None:
    """The first changed function of ``diff`` (``relative:qualname``, as ``check --base`` lists
    them), narrowed to its first changed line."""
    if base is None or not diff.changed:
        return None
    for entry in diff.changed:
        relative, _, qualname = entry.split(" (", 1)[0].rpartition(":")
        file = Path(base.root) / relative
        region = definition_region(str(file), qualname) if relative else None
        if region is not None:
            return _first_change(region, base, locator)
    return None


def _first_change(region: SourceRegion, base: Any, locator: Locator) -> SourceRegion:
    root = Path(base.root).resolve()
    try:
        relative = Path(region.file).relative_to(root).as_posix()
    except ValueError:
        return region
    inside = [line for line in changed_lines(root, relative, base.commit) if region.start <= line <= region.end]
    return region.at(inside[0]) if inside else region


# -- mutate -----------------------------------------------------------------------------------


def mutate_results(document: Mapping[str, Any], locator: Locator) -> list[dict[str, Any]]:
    """One result per surviving mutant, at its mutated line, and per stale or refuted entry of the
    reviewed equivalents, at the entry."""
    files = {module["module"]: module["file"] for module in document["modules"]}
    results = []
    for mutant in document["mutants"]:
        if mutant["status"] != "survived" or mutant["module"] not in files:
            continue
        where = SourceRegion(os.path.realpath(files[mutant["module"]]), mutant["line"], mutant["line"])
        text = (
            f"mutant {mutant['id']} survived: no check saw the change {mutant['description']}"
            f"{'; ' + mutant['detail'] if mutant.get('detail') else ''}. Add a case or a check that does, or "
            f"review it as equivalent in {document['equivalents']['file'] or 'mutants/equivalent.toml'}."
        )
        results.append(
            _result(
                "mutant-survived",
                text,
                locator,
                where,
                key=mutant["id"],
                properties={"mutant": mutant["id"], "mutated_line": mutant["mutated_line"]},
            )
        )
    equivalents = document["equivalents"]
    entries = [
        (entry.get("id") or f"{entry['module']}:{entry['function']}", "matches no mutant any more (stale)")
        for entry in equivalents["stale"]
    ]
    entries += [(entry["id"], f"is listed as equivalent but {entry['status']}") for entry in equivalents["refuted"]]
    for what, problem in entries:
        entry_region = _entry_region(equivalents["file"], what)
        results.append(
            _result(
                "equivalents-entry",
                f"reviewed entry {what} {problem}: remove or update it",
                locator,
                entry_region,
                key=what,
            )
        )
    return results


def _entry_region(file: str | None, text: str) -> SourceRegion | None:
    if not file:
        return None
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    line = next((i for i, content in enumerate(lines, 1) if text in content), 1)
    return SourceRegion(os.path.realpath(file), line, line)


# -- the option -------------------------------------------------------------------------------


def add_sarif_option(parser: Any, what: str) -> None:
    parser.add_argument(
        "--sarif",
        metavar="PATH",
        help=f"write {what} as SARIF 2.1.0 to PATH, each on the sampler's file and line, for GitHub "
        'code scanning and other SARIF viewers ("-": stdout, the human report to stderr)',
    )


def emit_sarif(args: Any, command: str, results: Callable[[Locator], list[dict[str, Any]]], exit_code: int) -> None:
    """Write the log of ``dpverify COMMAND``, its ``results(locator)``, where ``--sarif`` says
    (nothing without it)."""
    path = getattr(args, "sarif", None)
    if path is None:
        return
    locator = Locator()
    log = sarif_log(command, results(locator), locator, command_line=getattr(args, "argv", None), exit_code=exit_code)
    text = json.dumps(log, indent=2) + "\n"
    if path == STDOUT:
        sys.stdout.write(text)
        return
    write_text("--sarif", path, text)
    print(f"SARIF written to {path}", file=human_stream(args))

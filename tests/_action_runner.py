"""Runs the steps of the composite GitHub Action (``action.yml``) on this machine, as a runner does.

A ``run`` step gets its ``env`` (with every ``${{ ... }}`` expression evaluated), its
``working-directory``, a ``GITHUB_OUTPUT`` file whose ``name=value`` lines become the step's
outputs, and ``shell: bash``.  A ``uses`` step (upload-artifact, upload-sarif) cannot run here:
it is recorded with its evaluated ``with:`` so that a test can check what it would upload.  Only
the expressions the action needs are understood (``inputs.X``, ``github.action_path``,
``steps.ID.outputs.X``, ``always()``, ``&&``, ``==`` and ``!=`` on quoted strings); any other
fails the run, so the action cannot grow one that this runner silently misreads.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_COMPARISON = re.compile(r"^(.+?)\s*(==|!=)\s*'([^']*)'$")


@dataclass
class ActionRun:
    """What a run of the action did: each run step's exit status and output, the uses steps it
    reached (with their evaluated inputs), and the step outputs."""

    statuses: dict[str, int] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)
    uploads: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(self.statuses.values())


def load_action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def run_action(
    workspace: Path, inputs: dict[str, str], *, tmp: Path, env: dict[str, str] | None = None, timeout: float = 600
) -> ActionRun:
    """Run the action's steps in ``workspace`` with ``inputs`` laid over the declared defaults."""
    action = load_action()
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {sorted(unknown)}"
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()} | inputs
    run = ActionRun()
    failed = False
    for index, step in enumerate(action["runs"]["steps"]):
        name = step.get("id") or f"step{index}"
        context = {
            "inputs": values,
            "github": {"action_path": str(ROOT), "workspace": str(workspace)},
            "steps": run.outputs,
        }
        condition = step.get("if")
        if failed and "always()" not in str(condition):
            continue  # success() is implied unless the condition names a status function
        if condition is not None and not _truthy(_evaluate(condition, context, whole=True)):
            continue
        if "uses" in step:
            run.uploads.append((step["uses"], {k: _evaluate(str(v), context) for k, v in step.get("with", {}).items()}))
            continue
        assert step.get("shell") == "bash", f"step {name}: only bash steps are supported"
        directory = workspace / _evaluate(step.get("working-directory", "."), context)
        output = tmp / f"output-{index}"
        output.write_text("", encoding="utf-8")
        step_env = {
            **os.environ,
            **(env or {}),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_WORKSPACE": str(workspace),
            **{k: _evaluate(str(v), context) for k, v in step.get("env", {}).items()},
        }
        step_env.pop("GITHUB_STEP_SUMMARY", None)
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=directory,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        run.statuses[name] = done.returncode
        run.logs[name] = done.stdout + done.stderr
        run.outputs[name] = dict(
            line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if "=" in line
        )
        failed = failed or done.returncode != 0
    return run


def _evaluate(text: str, context: dict[str, Any], whole: bool = False) -> Any:
    """``text`` with each ``${{ expression }}`` replaced by its value (an ``if:`` may omit the braces)."""
    if whole:
        braced = _EXPRESSION.fullmatch(text.strip())
        return _expression(braced.group(1) if braced else text, context)
    return _EXPRESSION.sub(lambda match: str(_expression(match.group(1), context)), text)


def _expression(text: str, context: dict[str, Any]) -> Any:
    text = text.strip()
    if "&&" in text:
        return all(_truthy(_expression(part, context)) for part in text.split("&&"))
    if text == "always()":
        return "always"
    compared = _COMPARISON.match(text)
    if compared:
        left = str(_expression(compared.group(1), context))
        return (left == compared.group(3)) == (compared.group(2) == "==")
    parts = text.split(".")
    if parts[0] in ("inputs", "github") and len(parts) == 2:
        return context[parts[0]][parts[1]]
    if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
        return context["steps"].get(parts[1], {}).get(parts[3], "")
    raise AssertionError(f"an expression this runner does not understand: {text!r}")


def _truthy(value: Any) -> bool:
    return value == "always" or bool(value)

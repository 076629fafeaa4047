"""A sampler that exits, kills its process, defeats the time bound or tampers with the engine's
hooks never passes and never hangs: each behaviour of tests/data/hostile/hostile_specs.py, on
one path of an otherwise correct randomized-response sampler, through the command line and
through ``pytest --dpverify``.  Every run must exit non-zero, name the spec, print no traceback
and end within twice its time limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _terminal import default_sigint

HOSTILE_DIR = Path(__file__).parent / "data" / "hostile"
#: The case time limit these runs use: long enough for a loaded machine's start (a run that spins is
#: killed at 15 + 3.75 s, which leaves 11 s of the 30 s to start Python and import the engine),
#: short enough to wait for.
TIME_LIMIT = 15
DPVERIFY = [sys.executable, "-m", "dpverify"]

#: Misbehaviours the case itself turns into a verdict: the process lives, and the next spec runs.
IN_CASE = [
    "system-exit",
    "sys-exit-0",
    "disable-bound",
    "close-stdout",
    "redirect-stdout",
    "keyboard-interrupt",
    "generator-exit",
    "recursion",
    "memory-error",
    "settrace",
    "chdir",
    "drop-module",
]
#: Misbehaviours that end the process: the supervisor's verdict.
PROCESS = ["os-exit-0", "sigkill", "thread-os-exit", "ignore-signals-spin"]


def _run(
    behaviour: str, *arguments: str, command: list[str] = DPVERIFY
) -> tuple[subprocess.CompletedProcess[str], float]:
    environment = dict(os.environ, DPVERIFY_TEST_HOSTILE=behaviour, PYTHONPATH=str(HOSTILE_DIR))
    started = time.monotonic()
    done = subprocess.run(
        [*command, *arguments],
        cwd=HOSTILE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=10 * TIME_LIMIT,
    )
    return done, time.monotonic() - started


def _check(behaviour: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    return _run(
        behaviour,
        "check",
        "--spec-module",
        "hostile_specs",
        "--samples",
        "500",
        "--seed",
        "1",
        "--time-limit",
        str(TIME_LIMIT),
        *extra,
    )


def _assert_failed_cleanly(done: subprocess.CompletedProcess[str], seconds: float, name: str = "hostile-rr") -> None:
    both = done.stdout + done.stderr
    assert done.returncode == 1, both
    assert name in both
    assert "Traceback" not in both
    assert seconds < 2 * TIME_LIMIT, f"took {seconds:.1f} s"


def test_the_sampler_without_its_misbehaviour_passes() -> None:
    done, _ = _check("none")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 of 2 cases met their expectation: PASS" in done.stdout


@pytest.mark.parametrize("behaviour", IN_CASE)
def test_a_misbehaviour_inside_a_case_is_its_verdict_and_the_next_spec_runs(behaviour: str) -> None:
    done, seconds = _check(behaviour)
    _assert_failed_cleanly(done, seconds)
    assert "FAIL hostile-rr/alpha=1/3" in done.stdout
    assert "ok   calm-rr/alpha=1/3" in done.stdout
    assert "1 of 2 cases met their expectation" in done.stdout


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("os-exit-0", "the sampler exited the process with status 0 while running spec 'hostile-rr'"),
        ("sigkill", "the sampler's process was killed by SIGKILL while running spec 'hostile-rr'"),
        ("thread-os-exit", "the sampler exited the process with status 0 while running spec 'hostile-rr'"),
        (
            "ignore-signals-spin",
            f"the sampler disabled the time bound: spec 'hostile-rr', case 'alpha=1/3' ran past "
            f"its bound of {TIME_LIMIT} s",
        ),
    ],
)
def test_a_process_that_exits_or_outlives_its_bound_fails_the_gate_with_the_reason(behaviour: str, reason: str) -> None:
    done, seconds = _check(behaviour)
    _assert_failed_cleanly(done, seconds)
    assert f"FAIL supervision: inconclusive: {reason}" in done.stdout


@pytest.mark.parametrize("behaviour", ["system-exit", "os-exit-0", "ignore-signals-spin"])
def test_parallel_workers_fail_the_same_way(behaviour: str) -> None:
    done, seconds = _check(behaviour, "--jobs", "2")
    _assert_failed_cleanly(done, seconds)
    # the case's own verdict line, or the supervisor's naming what the dead worker was running
    assert "FAIL hostile-rr/alpha=1/3" in done.stdout or "spec 'hostile-rr', case 'alpha=1/3'" in done.stdout


@pytest.mark.parametrize("behaviour", ["print", "close-stdout", "os-exit-0", "ignore-signals-spin"])
def test_the_json_on_stdout_is_dpverifys_alone(behaviour: str, tmp_path: Path) -> None:
    done, _ = _check(behaviour, "--json", "-", "--junit", str(tmp_path / "junit.xml"))
    document = json.loads(done.stdout)  # nothing the sampler printed is mixed into it
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parents[1] / "schemas" / "check-3.schema.json").read_text())
    jsonschema.validate(document, schema)  # the supervisor's own document too, when the child died
    assert document["passed"] is (behaviour == "print")
    assert done.returncode == (0 if behaviour == "print" else 1)
    assert "Traceback" not in done.stderr
    assert "<testsuites" in (tmp_path / "junit.xml").read_text()
    if behaviour == "print":
        assert "PASS: a line the sampler prints" in done.stderr  # shown, on stderr


@pytest.mark.parametrize("behaviour", ["system-exit", "os-exit-0", "sigkill"])
def test_audit_and_diff_never_pass_a_sampler_that_exits(behaviour: str, tmp_path: Path) -> None:
    audit, seconds = _run(
        behaviour, "audit", "--spec-module", "hostile_specs", "hostile-rr", "--out", str(tmp_path), "--samples", "500"
    )
    _assert_failed_cleanly(audit, seconds)
    diff, seconds = _run(
        behaviour,
        "diff",
        "hostile_specs:CALM_RR",
        "hostile_specs:HOSTILE_RR",
        "--search-examples",
        "2",
        "--time-limit",
        str(TIME_LIMIT),
    )
    _assert_failed_cleanly(diff, seconds)


def test_usage_errors_and_help_keep_their_exit_codes_under_the_supervisor() -> None:
    usage, _ = _run("none", "check", "--samples", "０")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr and "supervision" not in usage.stdout
    assert _run("none", "--version")[0].returncode == 0


def test_ctrl_c_ends_the_run_with_130_and_kills_the_sampler() -> None:
    environment = dict(os.environ, DPVERIFY_TEST_HOSTILE="ignore-signals-spin", PYTHONPATH=str(HOSTILE_DIR))
    process = subprocess.Popen(
        [*DPVERIFY, "check", "--spec-module", "hostile_specs", "--time-limit", "60"],
        preexec_fn=default_sigint,  # as from a terminal: Ctrl-C at its default
        cwd=HOSTILE_DIR,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert "dpverify check:" in process.stdout.readline()  # the child has started the cases
    time.sleep(1)
    process.send_signal(2)
    _, stderr = process.communicate(timeout=60)  # a hang detector: generous under load
    assert process.returncode == 130
    assert "interrupted" in stderr and "Traceback" not in stderr


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("os-exit-0", "the sampler exited the process with status 0"),
        ("sigkill", "the sampler's process was killed by SIGKILL"),
        ("ignore-signals-spin", "the sampler disabled the time bound"),
        ("system-exit", "the sampler exited the process with status 0 (SystemExit)"),
    ],
)
def test_pytest_dpverify_fails_the_item_and_the_run_goes_on(behaviour: str, reason: str) -> None:
    done, seconds = _run(
        behaviour,
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-q",
        "--dpverify",
        "--dpverify-module",
        "hostile_specs",
        "--dpverify-examples",
        "2",
        "--dpverify-samples",
        "500",
        "--dpverify-time-limit",
        str(TIME_LIMIT),
        "--rootdir",
        ".",
        "-k",
        "not search",
        command=[sys.executable, "-m", "pytest"],
    )
    both = done.stdout + done.stderr
    assert done.returncode == 1, both
    assert "FAILED" in both and "hostile-rr/alpha=1/3" in both
    assert reason in both
    assert "calm-rr/alpha=1/3" not in both.split("short test summary")[-1]  # the calm spec's items passed
    assert seconds < 4 * TIME_LIMIT  # killed at its bound, not hung until the outer timeout (not a timing claim)


@pytest.mark.parametrize(("behaviour", "outcome"), [("none", "proved"), ("unpatch-random", "inconclusive")])
def test_published_code_that_removes_the_random_patch_is_never_proved(
    behaviour: str, outcome: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random

    from dpverify.verify.gate._spec_run import run_case

    monkeypatch.setenv("DPVERIFY_TEST_HOSTILE", behaviour)
    monkeypatch.syspath_prepend(str(HOSTILE_DIR))
    monkeypatch.setattr(random, "random", random.random)  # put back whatever the sampler leaves
    import hostile_specs

    spec = hostile_specs.PUBLISHED_RR
    result = run_case(spec, spec.cases[0], seed=3, samples=500)
    assert result.outcome == outcome
    if behaviour != "none":
        assert result.problems == (
            "the sampler removed dpverify's patch of the random module (random.random was replaced)",
        )


def test_the_plugins_default_time_limit_is_the_gates() -> None:
    from dpverify import pytest_plugin
    from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT

    assert pytest_plugin.DEFAULT_TIME_LIMIT == DEFAULT_TIME_LIMIT

"""Sweeps: local worker processes and a Dask cluster give the one-at-a-time results, in order.

``sweep`` is compared with the serial run (results, order, ``stop``, an exception at its place);
the case time bound is shown to end a never-terminating sampler off the main thread, in a plain
thread and in a Dask worker; ``dpverify check`` and ``dpverify mutate`` give the serial answers
with ``--jobs`` and ``--scheduler``.  The Dask tests share one local cluster of two worker
processes, started once for the module.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import _fuzz
import pytest
from _terminal import default_sigint

from dpverify.samplers import DpverifyError, InvalidArgument, RandomSource
from dpverify.specs import Case, Input, PureDp, Rational, Spec
from dpverify.verify.changes import _mutate, _mutate_gate_run, _mutate_status, _mutate_targets
from dpverify.verify.changes._mutants import mutants_of, verified_source
from dpverify.verify.cli import main
from dpverify.verify.gate import _sweep
from dpverify.verify.gate._spec_run import run_case
from dpverify.verify.gate._sweep import need_scheduler, sweep, sweep_results
from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound

# --- module-level work, so that worker processes can run it ---------------------------------------


def _square_later(x: int, delay: float) -> int:
    time.sleep(delay)
    return x * x


def _fails_at(x: int, bad: int) -> int:
    if x == bad:
        raise ValueError(f"no good: x={x}")
    return x


#: The first tasks sleep longest, so with several workers the later ones finish first.
ARGUMENTS = [(x, 0.04 * max(0, 4 - x)) for x in range(9)]
SQUARES = [x * x for x, _ in ARGUMENTS]


def _flip_pmf(p: dict[str, Any], q: int) -> dict[int, Fraction]:
    keep = 1 / (1 + p["alpha"])
    return {q: keep, 1 - q: 1 - keep}


def _never_returns(bit: int, alpha: Fraction, rng: RandomSource) -> int:
    while not rng.bernoulli(0, 1):  # a rejection loop that never accepts
        pass
    return bit


NEVER = Spec(
    "never",
    _never_returns,
    {"alpha": Rational(0, 1, low_open=True)},
    (Case({"alpha": "1/3"}),),
    lambda p: PureDp(alpha=p["alpha"]),
    input=Input("bit", lambda p: (0, 1)),
    pmf=_flip_pmf,
)


def _never_ending_case(time_limit: int) -> tuple[str, tuple[str, ...], bool]:
    """The never-terminating sampler's case under ``time_limit``, in whatever thread runs this."""
    outcome = run_case(NEVER, NEVER.cases[0], seed=3, samples=100, time_limit=time_limit)
    return outcome.outcome, outcome.problems, threading.current_thread() is threading.main_thread()


# --- local sweeps ------------------------------------------------------------------------------------


def test_a_local_sweep_gives_the_serial_results_in_order() -> None:
    seen: list[tuple[int, int]] = []
    assert sweep(_square_later, ARGUMENTS, jobs=1) == SQUARES
    assert sweep(_square_later, ARGUMENTS, jobs=3, progress=lambda done, total: seen.append((done, total))) == SQUARES
    assert seen == [(done, len(ARGUMENTS)) for done in range(1, len(ARGUMENTS) + 1)]
    assert sweep(_square_later, [], jobs=2) == []


@pytest.mark.parametrize("jobs", [1, 3])
def test_stop_gives_the_serial_prefix(jobs: int) -> None:
    # x = 5 and later finish before x = 2, 3; the sweep still ends at the first x*x >= 9 in order
    assert sweep(_square_later, ARGUMENTS, jobs=jobs, stop=lambda square: square >= 9) == [0, 1, 4, 9]


def test_an_exception_is_raised_at_its_place_in_the_order() -> None:
    results = sweep_results(_fails_at, [(x, 2) for x in range(6)], jobs=2)
    assert [next(results), next(results)] == [0, 1]
    with pytest.raises(ValueError, match="no good: x=2"):
        next(results)
    with pytest.raises(ValueError, match="no good: x=2"):
        sweep(_fails_at, [(x, 2) for x in range(6)], jobs=2)


@pytest.mark.parametrize(
    "address",
    [
        "",
        "localhost",
        "tcp://",
        "host:0",
        "host:65536",
        "ucx://host:1",
        "tcp://host:1/path",
        "-host:1",
        "tcp://[::1:8786",
        8786,
        b"h:1",
    ],
)
def test_a_bad_scheduler_address_is_one_line(address: object) -> None:
    with pytest.raises(
        InvalidArgument, match=r"^scheduler must be a Dask scheduler address .*; got scheduler="
    ) as caught:
        sweep(_fails_at, [(1, 0)], scheduler=address)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_good_scheduler_addresses_are_accepted() -> None:
    pytest.importorskip("distributed")
    for address in (
        "tcp://10.0.0.5:8786",
        "10.0.0.5:8786",
        "tls://scheduler.example.org:8786",
        "tcp://[::1]:8786",
        "localhost:1",
    ):
        assert need_scheduler(address) == address


def test_without_dask_the_scheduler_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    with pytest.raises(DpverifyError, match=r"pip install 'dpverify\[dask\]'"):
        sweep(_fails_at, [(1, 0)], scheduler="tcp://127.0.0.1:8786")
    for command in (["check", "--spec", "bernoulli"], ["mutate", "dpverify.samplers.bernoulli"]):
        assert main([*command, "--scheduler", "tcp://127.0.0.1:8786"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("dpverify: error: --scheduler needs dask.distributed")
        assert "dpverify[dask]" in err


def test_a_bad_scheduler_on_the_command_line_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--spec", "bernoulli", "--scheduler", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler must be a Dask scheduler address" in err and "'nowhere'" in err


# --- the time bound off the main thread --------------------------------------------------------------


def _in_a_thread(work: Any) -> Any:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            box["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(120)  # a guard against a hang, far beyond any bound used here
    assert not thread.is_alive(), "the time bound did not end the thread's work"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_a_never_ending_case_in_a_thread_is_inconclusive() -> None:
    outcome, problems, main_thread = _in_a_thread(lambda: _never_ending_case(1))
    assert not main_thread and outcome == "inconclusive"
    assert any("smoke inconclusive: no output within" in p for p in problems)


class _Outer(BaseException):
    pass


def _busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_thread_bounds_nest_and_leave_nothing_behind() -> None:
    def work() -> list[str]:
        seen = []
        try:
            with time_bound(0.2):
                while True:
                    pass
        except CaseTimeUp as error:
            seen.append(type(error).__name__)
        with time_bound(0.05):
            pass
        _busy(0.2)  # a bound that is over never fires later
        seen.append("after")
        try:
            with time_bound(0.2, lambda: _Outer("outer bound")), time_bound(60):  # the enclosing one is due first
                while True:
                    pass
        except _Outer as error:
            seen.append(str(error))
        try:
            with time_bound(60, lambda: _Outer("outer bound")):
                try:
                    with time_bound(0.2):
                        while True:
                            pass
                except CaseTimeUp:
                    seen.append("inner")
        except _Outer:
            seen.append("wrong bound")
        return seen

    assert _in_a_thread(work) == ["CaseTimeUp", "after", "outer bound", "inner"]


_FIRED_THEN_PROFILED = """
import sys, threading
from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound

def work():
    try:
        with time_bound(0.2):
            while True:
                pass
    except CaseTimeUp:
        print("fired")

thread = threading.Thread(target=work)
thread.start()
thread.join()
sys.setprofile(lambda frame, event, arg: None)
with time_bound(5):
    total = sum(range(1000))
sys.setprofile(None)
print("returned", total)
"""


def test_a_fired_thread_bound_leaves_later_profiled_calls_free() -> None:
    """A thread bound whose exception was raised must not clear it again afterwards: on CPython
    3.11 that leaves the interpreter's pending flag set, and the next call made under a profile
    hook (the audit traces its sampler so) never returns.  Run apart, so a regression is a
    failure with a time-out, not a hung suite."""
    run = subprocess.run([sys.executable, "-c", _FIRED_THEN_PROFILED], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["fired", "returned", "499500"]


def test_the_main_thread_keeps_its_alarm() -> None:
    import signal

    with time_bound(30):
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


# --- the command line, locally -----------------------------------------------------------------------


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    """The check document without what changes from run to run whatever the scheduling: the
    production-source sample (drawn from the OS) keeps only its verdict."""
    document = json.loads(json.dumps(document))
    for entry in document["entries"]:
        entry["checks"] = [
            c if c["check"] != "statistical_production" else {"check": c["check"], "verdict": c["verdict"]}
            for c in entry["checks"]
        ]
    return document


CHEAP = ["--spec", "rational-parsing", "--spec", "bernoulli", "--seed", "3", "--samples", "2000"]


def _report(text: str) -> list[str]:
    """The human report less its first line (how the cases ran), the production sample's line
    (drawn from the OS) and where the JSON went."""
    return [line for line in text.splitlines()[1:] if "production" not in line and not line.startswith("JSON written")]


def _check(tmp_path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, dict[str, Any], list[str]]:
    out = tmp_path / f"check{len(list(tmp_path.iterdir()))}.json"
    code = main(["check", *options, "--json", str(out)])
    return code, _comparable(json.loads(out.read_text())), _report(capsys.readouterr().out)


@pytest.fixture(scope="module")
def serial_check(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], list[str]]:
    out = tmp_path_factory.mktemp("serial") / "check.json"
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(["check", *CHEAP, "--json", str(out)])
    return code, _comparable(json.loads(out.read_text())), _report(text.getvalue())


def test_check_with_jobs_gives_the_serial_document_and_report(
    serial_check: tuple[int, dict[str, Any], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert serial_check[0] == 0 and len(serial_check[1]["entries"]) == 4
    assert _check(tmp_path, capsys, *CHEAP, "--jobs", "2") == serial_check


#: The fuzz's one-spec module (a correct flip and its PMF), then three specs of it, the middle one
#: claiming too much: serially, --fail-fast stops at its first case.
SPEC_MODULE = (
    _fuzz.TINY_SPEC_MODULE
    + """
def spec(name, claim, alphas):
    return Spec(name, flip, {"alpha": Rational(0, 1, low_open=True)}, tuple(Case({"alpha": a}) for a in alphas),
                claim, input=Input("bit", lambda p: (0, 1)), pmf=pmf)

SPECS = (
    spec("first", lambda p: PureDp(alpha=p["alpha"]), ("1/3", "1/2")),
    spec("too-strong", lambda p: PureDp(alpha=Fraction(1, 2)), ("1/5", "1/4")),  # tightest alpha < 1/2: violated
    spec("after", lambda p: PureDp(alpha=p["alpha"]), ("1/7", "2/3", "3/4")),
)
"""
)


@pytest.fixture
def spec_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "parallel_specs.py").write_text(SPEC_MODULE)
    yield "parallel_specs"
    sys.modules.pop("parallel_specs", None)


def test_fail_fast_in_parallel_reports_what_the_serial_run_reports(
    spec_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["--spec-module", spec_module, "--fail-fast", "--seed", "5", "--samples", "500"]
    serial = _check(tmp_path, capsys, *options)
    parallel = _check(tmp_path, capsys, *options, "--jobs", "3")
    assert serial[0] == parallel[0] == 1
    assert [e["name"] for e in serial[1]["entries"]] == ["first/alpha=1/3", "first/alpha=1/2", "too-strong/alpha=1/5"]
    assert parallel[:2] == serial[:2]
    assert parallel[2][:-2] == serial[2][:-2] and parallel[2][-1] == serial[2][-1]
    assert "4 case(s) not run" in serial[2][-2] and "4 case(s) not reported" in parallel[2][-2]


# --- on a Dask cluster -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Dask cluster of two single-threaded worker processes; this module's functions
    travel by value (the workers cannot import a test module)."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        with distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0", silence_logs=40
        ) as local:
            yield local.scheduler_address
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_a_cluster_sweep_gives_the_local_results(cluster: str) -> None:
    assert sweep(_square_later, ARGUMENTS, scheduler=cluster) == SQUARES == sweep(_square_later, ARGUMENTS, jobs=2)
    assert sweep(_square_later, ARGUMENTS, scheduler=cluster, jobs=1) == SQUARES
    assert sweep(_square_later, ARGUMENTS, scheduler=cluster, stop=lambda square: square >= 9) == [0, 1, 4, 9]


def test_a_cluster_task_raises_as_it_would_here(cluster: str) -> None:
    with pytest.raises(ValueError, match="no good: x=2"):
        sweep(_fails_at, [(x, 2) for x in range(6)], scheduler=cluster)


def test_an_unreachable_scheduler_is_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(_sweep, "CONNECT_TIMEOUT", 1)
    with pytest.raises(DpverifyError, match=r"cannot connect to the Dask scheduler at scheduler='tcp://127.0.0.1:1'"):
        sweep(_fails_at, [(1, 0)], scheduler="tcp://127.0.0.1:1")


def test_a_never_ending_case_in_a_dask_worker_is_inconclusive(cluster: str) -> None:
    [(outcome, problems, main_thread)] = sweep(_never_ending_case, [(1,)], scheduler=cluster)
    assert not main_thread and outcome == "inconclusive"
    assert any("smoke inconclusive: no output within" in p for p in problems)


def test_check_on_a_cluster_gives_the_serial_document_and_report(
    cluster: str,
    serial_check: tuple[int, dict[str, Any], list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _check(tmp_path, capsys, *CHEAP, "--scheduler", cluster) == serial_check


def test_reproduce_on_a_cluster_gives_the_local_rows(cluster: str) -> None:
    from dpverify.verify.reports.reproduce._rows import Options
    from dpverify.verify.reports.reproduce._run import reproduce, resolve_papers

    papers = resolve_papers("004")
    local = reproduce(papers, jobs=1, options=Options(measure=False)).to_json()["papers"]
    assert reproduce(papers, scheduler=cluster, options=Options(measure=False)).to_json()["papers"] == local


def test_a_mutant_task_builds_its_own_copy_on_a_worker(cluster: str) -> None:
    target = _mutate_targets.locate("dpverify.samplers._rational")
    mutant = next(m for m in mutants_of(target.module, target.source) if m.id.endswith(":ad90650026"))
    line = next(n for n, text in enumerate(target.source.splitlines(), 1) if text.startswith("MAX_DIGITS = "))
    assert mutant.description == f"line {line}: constant: `MAX_DIGITS = 1000` -> `MAX_DIGITS = 999`"
    options = _mutate_gate_run.GateOptions(seed=0, samples=500, specs=("rational-parsing",), time_limit=60)
    modules = ((target.module, hashlib.sha256(target.source.encode()).hexdigest()),)
    tasks = [
        (_mutate.CopyTask(modules, options),),
        (_mutate.CopyTask(modules, options, (target.module, verified_source(mutant, target.source))),),
    ]

    def verdicts(
        runs: list[tuple[_mutate_gate_run.GateRun, frozenset[tuple[str, str]]]],
    ) -> list[tuple[str, list[str]]]:
        return [
            (status, sorted(str(k) for k in kills))
            for status, kills, _ in (_mutate_status.classify(r) for r, _ in runs)
        ]

    here = verdicts([_mutate.run_in_copy(*task) for task in tasks])
    assert [status for status, _ in here] == ["survived", "killed"]
    assert verdicts(sweep(_mutate.run_in_copy, tasks, scheduler=cluster)) == here
    with pytest.raises(DpverifyError, match="install the same version on every worker"):
        _mutate.run_in_copy(replace(tasks[1][0], version="0.0.0"))
    with pytest.raises(DpverifyError, match="is not the text the mutants were made from"):
        _mutate.run_in_copy(replace(tasks[1][0], modules=((target.module, "0" * 64),)))


MUTANTS = [
    "dpverify.samplers.bernoulli:bernoulli:68349736b4",
    "dpverify.samplers.bernoulli:_probability:bd20d2dd5c",
    "dpverify.samplers.bernoulli:bernoulli_exp:0496e06c09",
]  # the last: no bernoulli case runs it


@pytest.mark.slow
def test_mutate_on_a_cluster_gives_the_local_statuses(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def statuses(*options: str) -> list[tuple[str, str, list[str]]]:
        out = tmp_path / f"mutate{len(options)}.json"
        main(
            [
                "mutate",
                "dpverify.samplers.bernoulli",
                "--spec",
                "bernoulli",
                "--samples",
                "2000",
                *(a for m in MUTANTS for a in ("--only", m)),
                *options,
                "--json",
                str(out),
            ]
        )
        capsys.readouterr()
        document = json.loads(out.read_text())
        assert document["gate"]["scheduler"] == (options[1] if options[0] == "--scheduler" else None)
        return [(m["id"], m["status"], sorted(k["check"] for k in m["kills"])) for m in document["mutants"]]

    local = statuses("--jobs", "2")
    assert [status for _, status, _ in local] == ["killed", "killed", "survived"]
    assert statuses("--scheduler", cluster) == local


_INTERRUPTED_SWEEP = """
import os, sys, time
from dpverify.verify.gate._sweep import sweep

def work(seconds):
    open(os.path.join(sys.argv[1], f"started-{seconds}"), "w").close()
    time.sleep(seconds)
    return seconds

if __name__ == "__main__":
    try:
        sweep(work, [(600,), (0,)], jobs=2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
"""


def test_ctrl_c_stops_a_local_sweep_without_a_worker_traceback(tmp_path: Path) -> None:
    import os
    import signal

    (tmp_path / "interrupted_sweep.py").write_text(_INTERRUPTED_SWEEP)
    # one worker in a long task, the other idle once its task is done: Ctrl-C reaches both
    process = subprocess.Popen(
        [sys.executable, "interrupted_sweep.py", str(tmp_path)],
        preexec_fn=default_sigint,  # as from a terminal: Ctrl-C at its default
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("started-*"))) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(list(tmp_path.glob("started-*"))) == 2, "both tasks should have started"
        time.sleep(0.5)  # the short task's worker is back waiting for work
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=120)  # the long task is stopped, not waited for
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert err == "interrupted\n"

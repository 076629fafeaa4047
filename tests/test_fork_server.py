"""The fork server of ``dpverify mutate``: its children run what fresh interpreters run."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dpverify.verify.changes import _mutate
from dpverify.verify.changes._fork_server import ForkServer, ForkServerUnavailable, preloadable
from dpverify.verify.changes._mutants import mutants_of
from dpverify.verify.changes._mutate_gate_run import GateOptions, _environment, run_gate
from dpverify.verify.changes._mutate_status import KILLED, SURVIVED, classify
from dpverify.verify.changes._mutate_targets import locate

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs os.fork")

PARSING = GateOptions(specs=("rational-parsing",), samples=200, time_limit=60, timeout=120)


def _killed_and_survivor() -> tuple[object, object]:
    """A mutant of the parser the parsing entry kills, and one in a function it never runs."""
    target = locate("dpverify.samplers._rational")
    every = mutants_of(target.module, target.source)
    killed = next(m for m in every if m.function == "_integer_expression" and m.operator == "delete")
    unrun = next(m for m in every if m.function == "shown")
    return killed, unrun


@pytest.fixture(scope="module")
def workspace() -> Iterator[_mutate._Workspace]:
    space = _mutate._Workspace([locate("dpverify.samplers._rational")], compiled=True)
    yield space
    space.close()


@pytest.fixture(scope="module")
def server(workspace: _mutate._Workspace) -> Iterator[ForkServer]:
    modules = _mutate._probe(workspace, list(workspace.targets.values()))
    started = ForkServer(workspace.base, _environment(workspace.base), preloadable(modules, ["dpverify"]), ["dpverify"])
    yield started
    started.close()


def test_only_library_modules_outside_the_forbidden_packages_are_preloaded(tmp_path: Path) -> None:
    import email.message

    import sympy

    library = Path(sympy.__file__).parent.parent
    modules = [
        ("email.message", email.message.__file__),
        ("sys", None),
        ("__main__", str(tmp_path / "m.py")),
        ("sympy.core", sympy.core.__file__),
        ("dpverify.samplers", str(library / "dpverify" / "x.py")),
        ("own", str(tmp_path / "own.py")),
        ("pkg.sub", str(library / "pkg" / "sub.py")),
    ]
    assert preloadable(modules, ["dpverify", "pkg"]) == ("email.message", "sympy.core", "sys")


def test_the_pristine_copy_is_hash_checked_bytecode_and_read_only(workspace: _mutate._Workspace) -> None:
    compiled = next((workspace.base / "dpverify" / "samplers" / "__pycache__").glob("_rational.*.pyc"))
    flags = int.from_bytes(compiled.read_bytes()[4:8], "little")
    assert flags == 0b11  # hash-based, checked against the source on every import
    source = workspace.base / "dpverify" / "samplers" / "_rational.py"
    assert not os.access(source, os.W_OK) or os.geteuid() == 0
    killed, _ = _killed_and_survivor()
    folder = workspace.copy("linked", killed)
    try:
        mutated = folder / "dpverify" / "samplers" / "_rational.py"
        assert mutated.stat().st_ino != source.stat().st_ino and mutated.read_text() != source.read_text()
        other = folder / "dpverify" / "samplers" / "gtm.py"
        assert other.stat().st_ino == (workspace.base / "dpverify" / "samplers" / "gtm.py").stat().st_ino
    finally:
        workspace.remove(folder)


def test_a_child_ends_as_a_fresh_interpreter_does(workspace: _mutate._Workspace, server: ForkServer) -> None:
    killed, _ = _killed_and_survivor()
    for name, mutant, status in (("clean", None, SURVIVED), ("killed", killed, KILLED)):
        folder = workspace.copy(name, mutant)
        try:
            forked = run_gate(folder, PARSING, server=server)
            fresh = run_gate(folder, PARSING)
        finally:
            workspace.remove(folder)
        assert forked.code == fresh.code and forked.document is not None and fresh.document is not None
        assert classify(forked)[0] == classify(fresh)[0] == status
        assert [e["problems"] for e in forked.document["entries"]] == [e["problems"] for e in fresh.document["entries"]]


def test_a_child_imports_dpverify_from_its_own_copy(workspace: _mutate._Workspace, server: ForkServer) -> None:
    folder = workspace.copy("traced")
    trace = workspace.root / "traced.trace"
    try:
        run = run_gate(folder, PARSING, trace=trace, server=server)
        document = json.loads(trace.read_text())
    finally:
        workspace.remove(folder)
    assert run.code == 0
    files = dict(document["modules"])
    assert Path(files["dpverify.samplers._rational"]).is_relative_to(folder)
    assert "sympy" in files and any(name == "_integer_expression" for _, name in document["ran"])


def test_a_preload_that_imports_dpverify_is_taken_back_out(workspace: _mutate._Workspace) -> None:
    with_dpverify = ForkServer(
        workspace.base, _environment(workspace.base), ["dpverify.samplers", "json"], ["dpverify"]
    )
    folder = workspace.copy("after-leak")
    trace = workspace.root / "after-leak.trace"
    try:
        assert run_gate(folder, PARSING, trace=trace, server=with_dpverify).code == 0
        files = dict(json.loads(trace.read_text())["modules"])
        assert Path(files["dpverify.samplers"]).is_relative_to(folder)
    finally:
        workspace.remove(folder)
        with_dpverify.close()


def test_a_run_past_its_time_is_killed_and_the_server_serves_on(
    workspace: _mutate._Workspace, server: ForkServer, tmp_path: Path
) -> None:
    hanging = tmp_path / "hanging"
    shutil.copytree(workspace.base, hanging)
    launch = hanging / "dpverify" / "_launch.py"
    launch.chmod(0o644)
    launch.write_text(
        "import os, time\n\ndef main(argv=None):\n    if os.fork() == 0:\n        time.sleep(600)\n"
        "    time.sleep(600)\n"
    )
    started = time.monotonic()
    assert server.run(hanging, ["check"], tmp_path / "err", str(hanging), timeout=1) is None
    assert time.monotonic() - started < 30
    folder = workspace.copy("after-timeout")
    try:
        assert run_gate(folder, PARSING, server=server).code == 0
    finally:
        workspace.remove(folder)


def test_without_fork_the_runner_uses_fresh_interpreters(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delattr(os, "fork")
    with pytest.raises(ForkServerUnavailable, match="no fork"):
        ForkServer(tmp_path, dict(os.environ), [], ["dpverify"])
    runner = _mutate._LocalRunner([locate("dpverify.samplers._rational")], 1)
    try:
        assert runner._server() is None
        assert runner.runner == "fresh interpreters (no fork server: this platform has no fork)"
    finally:
        runner.close()


def test_measure_gives_the_same_statuses_with_and_without_the_server() -> None:
    killed, unrun = _killed_and_survivor()
    target = locate("dpverify.samplers._rational")
    chosen = [killed, unrun]
    forked = _mutate.measure([target], chosen, PARSING, jobs=2, select_specs=False)
    fresh = _mutate.measure([target], chosen, PARSING, jobs=2, select_specs=False, fork=False)
    assert forked.runner == "fork server" and fresh.runner.startswith("fresh interpreters")
    assert [r.status for r in forked.results] == [r.status for r in fresh.results] == [KILLED, SURVIVED]
    assert [sorted(k.check for k in r.kills) for r in forked.results] == [
        sorted(k.check for k in r.kills) for r in fresh.results
    ]
    assert sys.modules.get("dpverify") is not None  # this process's own dpverify is untouched

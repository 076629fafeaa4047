"""Fuzzed command lines: every subcommand and option, read from the parser (``tests/_fuzz.py``).

Each argv runs ``main`` in-process under a time bound and must end in an exit code (0, 1 or 2;
argparse's SystemExit 0 or 2), print no traceback, and on exit 2 print exactly one
``dpverify: error:`` line of at most 300 characters.  ``check`` runs on a one-case spec module
(or fails fast), ``prove`` is parsed for real but its work is replaced by a stub, so the fuzz
never rewrites the repository's certificates, and ``mutate`` does everything but run the gate
on its mutants (each would take seconds); every file the fuzz writes lands in a temporary
directory (the working directory of the run).

The default suite runs ``QUICK_EXAMPLES`` cases; the ``slow`` variant runs
``DPVERIFY_FUZZ_EXAMPLES`` (default 10,000).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import _fuzz
import pytest
from hypothesis import HealthCheck, given, settings

from dpverify.verify import cli
from dpverify.verify.changes import _mutate, _mutate_status
from dpverify.verify.cli import _prove as cli_prove
from dpverify.verify.gate import _sweep
from dpverify.verify.survey import _survey

_HEALTH = [
    HealthCheck.too_slow,
    HealthCheck.filter_too_much,
    HealthCheck.data_too_large,
    HealthCheck.function_scoped_fixture,
]


def _stub_prove(args: object) -> int:
    """``prove`` after a successful parse: the real one rewrites proofs/ and runs for minutes."""
    return 0


def _stub_measure(targets: object, mutants: Sequence[Any], options: object, **kwargs: object) -> Any:
    """``mutate``'s gate runs: each mutant reported killed at once."""
    return _mutate.Measurement(tuple(_mutate.Result(m, _mutate_status.KILLED) for m in mutants), 0.0)


def _stub_survey(names: Sequence[str], budget: Any, **kwargs: Any) -> dict[str, Any]:
    """``survey``'s environments and audits: an empty document (building environments needs the network)."""
    return {
        "schema": "dpverify.survey/2",
        "command": kwargs.get("command", ""),
        "seed": budget.seed,
        "samples_per_input": budget.samples,
        "time_limit": budget.time_limit,
        "python": "3",
        "libraries": [],
    }


class _InlineExecutor:
    """``--jobs N`` in-process: each task runs at submission.  Forking a pytest-xdist worker (a
    process with I/O threads) in thousands of fuzz cases is what this test must not do; what it
    fuzzes, the parsing and the one-line errors, is the same."""

    def __init__(self, max_workers: int | None = None, **options: Any) -> None:
        self.max_workers = max_workers

    def submit(self, function: Any, *arguments: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        try:
            future.set_result(function(*arguments))
        except Exception as error:  # noqa: BLE001 - delivered as the pool would deliver it
            future.set_exception(error)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        return None


@contextlib.contextmanager
def _sandbox(tmp_path: Path) -> Iterator[list[str]]:
    """Work in ``tmp_path`` (with the tiny spec module), ``prove`` and mutate's gate runs stubbed; yields
    the paths to fuzz."""
    work = tmp_path / "work"
    work.mkdir()
    _fuzz.write_tiny_spec_module(work)
    (work / "a-directory").mkdir()
    saved_cwd, saved_prove, saved_measure, saved_path = os.getcwd(), cli_prove._prove, _mutate.measure, list(sys.path)
    saved_pool, saved_survey = _sweep.ProcessPoolExecutor, _survey.run_survey
    os.chdir(work)
    sys.path.insert(0, str(work))
    cli_prove._prove = _stub_prove  # type: ignore[assignment]
    _mutate.measure = _stub_measure  # type: ignore[assignment]
    _sweep.ProcessPoolExecutor = _InlineExecutor  # type: ignore[assignment,misc]
    _survey.run_survey = _stub_survey  # type: ignore[assignment]
    try:
        yield [
            str(work / "out.json"),
            "out.smt2",
            str(tmp_path / "no-such-dir" / "x.json"),
            "/dev/full",
            str(work / "a-directory"),
            str(work),
        ]
    finally:
        cli_prove._prove = saved_prove  # type: ignore[assignment]
        _mutate.measure = saved_measure  # type: ignore[assignment]
        _sweep.ProcessPoolExecutor = saved_pool  # type: ignore[misc]
        _survey.run_survey = saved_survey  # type: ignore[assignment]
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        sys.modules.pop(_fuzz.TINY_MODULE, None)


def _fuzz_cli(tmp_path: Path, examples: int, bound: float, shard: int | None = None) -> None:
    with _sandbox(tmp_path) as paths:
        parser = cli.build_parser()

        @_fuzz.shard_seed(shard)
        @settings(max_examples=max(examples, 1), deadline=None, suppress_health_check=_HEALTH)
        @given(_fuzz.cli_argv(parser, paths))
        def case(argv: list[str]) -> None:
            run = _fuzz.run_cli(argv, bound)
            hard = _fuzz.judge_cli(run)
            assert not hard, (
                f"dpverify {argv!r}: "
                + "; ".join(f"[{c}] {m}" for c, m in hard)
                + (f"\nstdout: {run.out[-500:]!r}\nstderr: {run.err[-1000:]!r}")
            )

        case()


def test_every_subcommand_and_option_is_read_from_the_parser() -> None:
    found = {
        " ".join(c.path): {s for a in c.options for s in a.option_strings} for c in _fuzz.commands(cli.build_parser())
    }
    assert {
        "check",
        "mutate",
        "pmf gtm",
        "privacy gtm",
        "privacy dgauss",
        "privacy gazeau",
        "prove",
        "attack laplace-float",
    } <= set(found)
    assert "--smtlib" in found["privacy gtm"] and "--spec-module" in found["check"]


def test_fuzzed_command_lines(tmp_path: Path) -> None:
    _fuzz_cli(tmp_path, _fuzz.QUICK_EXAMPLES, _fuzz.QUICK_BOUND_S)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(_fuzz.SLOW_SHARDS))
def test_fuzzed_command_lines_at_scale(tmp_path: Path, shard: int) -> None:
    _fuzz_cli(tmp_path, _fuzz.shard_examples(shard), _fuzz.SLOW_BOUND_S, shard)

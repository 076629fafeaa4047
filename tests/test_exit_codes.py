"""The exit codes, one table for every command (the README's): 0 every expectation met; 1 a gate
that did not pass (a claim violated, a proof stale, two computations of one answer that disagree);
2 bad usage or a broken spec.

Each row runs the command in-process.  Where reaching a code takes minutes or a broken install
(a stale proof, a solver that disagrees, a mutant run), the one function that computes the
verdict is replaced by one returning it, and the row checks how the command maps it to a code.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import mpmath
import pytest
from _report_specs import spec_module

from dpverify.samplers import DpverifyError
from dpverify.verify.changes import _mutate
from dpverify.verify.cli import main
from dpverify.verify.engine._results import CheckResult, Verdict

Setup = Callable[[pytest.MonkeyPatch], None]


def _nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    pass


def _stale_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.proofs import _stale

    monkeypatch.setattr(
        _stale,
        "check_manifest",
        lambda root, current: CheckResult("stale_proofs", Verdict.VIOLATED, "1 stale certificate: gtm.sample changed"),
    )


def _z3_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.verify.privacy import _smt

    monkeypatch.setattr(
        _smt,
        "check_ratio_bound_z3",
        lambda table, neighbours, claim: CheckResult(
            "z3", Verdict.VIOLATED, "sat: a counterexample the exact check did not find"
        ),
    )


def _hockey_stick_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.verify.privacy import _accounting

    monkeypatch.setattr(
        _accounting,
        "dgauss_delta_hockey_stick",
        lambda sigma2, epsilon, sensitivity, dps: (mpmath.mpf("0.9"), mpmath.mpf("0.95")),
    )


def _prove(verdict: Verdict, recheck: Verdict | None = None, cvc5: str | None = "1.2") -> Setup:
    """``prove`` with its solver runs replaced: certificates reach ``verdict``, cvc5 ``recheck``."""

    def setup(monkeypatch: pytest.MonkeyPatch) -> None:
        from dpverify.proofs import _certificates, _manifest, _recheck, _solvers

        monkeypatch.setattr(_certificates, "instance_obligations", lambda *args, **kwargs: [])
        monkeypatch.setattr(_manifest, "write_certificates", lambda *args, **kwargs: None)
        monkeypatch.setattr(_manifest, "prove_result", lambda manifest: CheckResult("prove", verdict, "stub"))
        monkeypatch.setattr(_solvers, "cvc5_version", lambda: cvc5)
        monkeypatch.setattr(
            _recheck,
            "recheck_certificates",
            lambda root, **kwargs: CheckResult("recheck", recheck or Verdict.PROVED, "stub"),
        )

    return setup


def _mutants(*statuses: str, fails: bool = False) -> Setup:
    """``mutate`` with its gate runs replaced: the mutants end with ``statuses``; ``fails``: the gate
    fails on the unmodified code (which ``measure`` reports as an error)."""

    def setup(monkeypatch: pytest.MonkeyPatch) -> None:
        def measure(targets: object, mutants: Sequence[Any], options: object, **kwargs: object) -> Any:
            if fails:
                raise DpverifyError("the gate fails on the unmodified code (exit 1); fix it before measuring mutants.")
            return _mutate.Measurement(tuple(_mutate.Result(m, s) for m, s in zip(mutants, statuses, strict=True)), 0.0)

        monkeypatch.setattr(_mutate, "measure", measure)

    return setup


class _Stdout(io.StringIO):
    """A stdout with a descriptor number, as a terminal's or a pipe's has."""

    def fileno(self) -> int:
        return 1


def _stopped(error: type[BaseException], where: str) -> Setup:
    """The command's work raises ``error`` (Ctrl-C; a reader that closed stdout, as ``| head`` does)."""

    def setup(monkeypatch: pytest.MonkeyPatch) -> None:
        import sys

        from dpverify.verify import cli
        from dpverify.verify.cli import _privacy as cli_privacy
        from dpverify.verify.gate import _gate

        def stop(*args: object, **kwargs: object) -> Any:
            raise error()

        monkeypatch.setattr(*{"gate": (_gate, "run_gate"), "privacy": (cli_privacy, "gtm_privacy")}[where], stop)
        # the broken-pipe recipe points stdout's descriptor at devnull: not the test runner's
        monkeypatch.setattr(cli.os, "dup2", lambda *args: None)
        monkeypatch.setattr(sys, "stdout", _Stdout())

    return setup


GTM = ["--alpha", "1/3", "--n", "3", "--T", "100"]
GAZEAU = [
    "--scale",
    "1.0",
    "--q",
    "0.0",
    "--q-prime",
    "1.0",
    "--bits",
    "12",
    "--lower",
    "-2.0",
    "--upper",
    "2.0",
    "--step",
    "0.25",
]
ACCOUNT = ["account", "--mechanism", "approx", "--epsilon", "0.5", "--delta", "1e-6", "--k", "10"]
MODULE = ["--spec-module", "dpverify_report_specs", "--seed", "1", "--samples", "500"]

ROWS: list[tuple[str, list[str], int, Setup]] = [
    ("check: every case met", ["check", *MODULE, "--spec", "flip"], 0, _nothing),
    ("check: a claim violated", ["check", *MODULE, "--spec", "flip-off-by-one"], 1, _nothing),
    ("check: a proof stale", ["check", "--spec", "bernoulli", "--seed", "1", "--samples", "500"], 1, _stale_proof),
    ("check: a broken spec", ["check", *MODULE, "--spec", "flip-broken"], 2, _nothing),
    ("check: a broken spec beside a violated one", ["check", *MODULE], 2, _nothing),
    ("check: bad usage", ["check", *MODULE, "--samples", "0"], 2, _nothing),
    ("check: an unknown spec", ["check", *MODULE, "--spec", "nope"], 2, _nothing),
    (
        "mutate: every mutant killed",
        ["mutate", "dpverify.samplers.gtm", "--limit", "2"],
        0,
        _mutants("killed", "killed"),
    ),
    ("mutate: a survivor", ["mutate", "dpverify.samplers.gtm", "--limit", "2"], 1, _mutants("killed", "survived")),
    (
        "mutate: a mutant caught only as broken",
        ["mutate", "dpverify.samplers.gtm", "--limit", "1"],
        1,
        _mutants("broken"),
    ),
    ("mutate: the unmodified gate fails", ["mutate", "dpverify.samplers.gtm", "--limit", "1"], 2, _mutants(fails=True)),
    ("mutate: bad usage", ["mutate", "no_such_module_here"], 2, _nothing),
    ("pmf gtm", ["pmf", "gtm", *GTM, "--q", "1"], 0, _nothing),
    ("pmf gtm: bad usage", ["pmf", "gtm", *GTM, "--q", "4"], 2, _nothing),
    ("privacy gtm: the claim holds", ["privacy", "gtm", *GTM, "--claim-alpha", "1/4", "--z3"], 0, _nothing),
    ("privacy gtm: the claim is violated", ["privacy", "gtm", *GTM], 1, _nothing),
    (
        "privacy gtm: Z3 disagrees with the exact check",
        ["privacy", "gtm", *GTM, "--claim-alpha", "1/4", "--z3"],
        1,
        _z3_disagrees,
    ),
    ("privacy gtm: bad usage", ["privacy", "gtm", *GTM, "--claim-alpha", "3/2"], 2, _nothing),
    ("privacy dgauss", ["privacy", "dgauss", "--sigma2", "2", "--epsilon", "1"], 0, _nothing),
    (
        "privacy dgauss: the two deltas disagree",
        ["privacy", "dgauss", "--sigma2", "2", "--epsilon", "1"],
        1,
        _hockey_stick_disagrees,
    ),
    ("privacy dgauss: bad usage", ["privacy", "dgauss", "--sigma2", "0", "--epsilon", "1"], 2, _nothing),
    ("privacy gazeau: Theorem 4.5 holds", ["privacy", "gazeau", *GAZEAU], 0, _nothing),
    ("privacy gazeau: Theorem 4.5 contradicted", ["privacy", "gazeau", *GAZEAU, "--delta-0", "0"], 1, _nothing),
    ("privacy gazeau: bad usage", ["privacy", "gazeau", *GAZEAU, "--bits", "30"], 2, _nothing),
    ("account", [*ACCOUNT, "--delta-prime", "1e-6"], 0, _nothing),
    ("account: every bound vacuous is not a failure", [*ACCOUNT, "--delta-prime", "0.9999999"], 0, _nothing),
    ("account: bad usage", [*ACCOUNT, "--delta-prime", "1"], 2, _nothing),
    ("prove: every certificate as expected", ["prove"], 0, _prove(Verdict.PROVED)),
    ("prove: a certificate violated", ["prove"], 1, _prove(Verdict.VIOLATED)),
    ("prove: a certificate open", ["prove"], 1, _prove(Verdict.INCONCLUSIVE)),
    ("prove: cvc5 disagrees", ["prove", "--recheck"], 1, _prove(Verdict.PROVED, Verdict.VIOLATED)),
    ("prove: cvc5 cannot decide one", ["prove", "--recheck"], 0, _prove(Verdict.PROVED, Verdict.INCONCLUSIVE)),
    ("prove: --recheck without cvc5", ["prove", "--recheck"], 2, _prove(Verdict.PROVED, cvc5=None)),
    (
        "attack laplace-float",
        ["attack", "laplace-float", "--scale", "1", "--q=0", "--q-prime", "1", "--bits", "8", "--samples", "0"],
        0,
        _nothing,
    ),
    (
        "attack laplace-float: bad usage",
        ["attack", "laplace-float", "--scale", "-1", "--q=0", "--q-prime", "1", "--bits", "8"],
        2,
        _nothing,
    ),
    ("check: interrupted", ["check", *MODULE, "--spec", "flip"], 130, _stopped(KeyboardInterrupt, "gate")),
    (
        "check: stdout closed before the verdict",
        ["check", *MODULE, "--spec", "flip"],
        1,
        _stopped(BrokenPipeError, "gate"),
    ),
    ("privacy gtm: stdout closed early", ["privacy", "gtm", *GTM], 0, _stopped(BrokenPipeError, "privacy")),
    ("a bare command", ["privacy"], 2, _nothing),
    ("no command", [], 2, _nothing),
]


@pytest.mark.parametrize(("argv", "code", "setup"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_exit_code(
    argv: list[str],
    code: int,
    setup: Setup,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup(monkeypatch)
    with spec_module(tmp_path, monkeypatch):
        try:
            got = main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            got = exit_.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert got == code, f"stdout: {out[-800:]}\nstderr: {err[-800:]}"
    assert "Traceback" not in out + err
    if code == 2 and err:  # bad usage: one line, or the bare command's usage (a broken spec is in the report)
        assert err.startswith(("dpverify: error:", "usage: dpverify"))


def test_the_docs_have_one_exit_code_table_covering_every_command() -> None:
    header = "| command | 0 | 1 | 2 |"
    root = Path(__file__).resolve().parents[1]
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    holding = [path for path in pages if header in path.read_text(encoding="utf-8")]
    assert [path.relative_to(root).as_posix() for path in holding] == ["docs/reference/exit-codes.md"]
    text = holding[0].read_text(encoding="utf-8")
    assert text.count(header) == 1
    table = text.split(header, 1)[1].split("\n\n", 1)[0]
    from _fuzz import commands

    from dpverify.verify.cli import build_parser

    for command in commands(build_parser()):
        assert f"`{' '.join(command.path)}`" in table, f"dpverify {' '.join(command.path)} is not in the table"

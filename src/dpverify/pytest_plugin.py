"""pytest plugin: a project's dpverify specs as test items, with ``pytest --dpverify``.

Installed with dpverify (entry point ``pytest11``), so every pytest run loads this module:
it imports only pytest and the standard library, and does nothing unless ``--dpverify`` is
given; the engine (SymPy, Z3, mpmath) is imported only then.

With ``--dpverify`` the specs are found like ``dpverify check`` finds them: the ``SPECS`` of
each ``--dpverify-module`` (or of the ``dpverify_modules`` ini lines), else every
``dpverify.specs`` entry point except dpverify's own catalogue (``--dpverify-builtin`` adds
it), so a project's run checks its own specs.  Each spec gives

- ``dpverify::SPEC/CASE`` per listed case: every check the declaration implies, which must
  reach the case's expected verdict (as in ``dpverify check``);
- ``dpverify::SPEC/search``: a Hypothesis search of the parameter domain beyond the cases
  (:func:`dpverify.verify.search_spec`), exact checks only; for a spec none of whose
  cases expects ``proved`` (one documenting an unsafe sampler) a failure found is an xfail.

Select them with ``-k`` (``-k dpverify`` for all, ``-k "SPEC/search"``; ``-k`` matches
substrings, so ``-k "rr/search"`` also selects ``xrr/search``) or ``-m dpverify``.  A failure
is reported without a traceback: the outcome, each problem, and the counterexample (inputs,
output, both exact probabilities); a search failure adds the shrunk parameters and the
command line that replays it.  One seed drives every check of a run (fresh unless
``--dpverify-seed`` is given) and is printed in the header.

How the items join the run: ``pytest_collection_modifyitems`` (run first) appends them under
one ``dpverify`` collector whose parent is the session.  They need no file to collect from,
so they appear whatever paths the run was given, and ``-k``, ``-m`` and ``--deselect``, which
act in that same hook, still apply to them.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import select
import shlex
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from dpverify.specs import Case
    from dpverify.verify.gate._discovery import FoundSpec
    from dpverify.verify.gate._search import SearchResult
    from dpverify.verify.gate._spec_run import CaseOutcome

__all__ = ["DpverifyFailure"]

_SEED = pytest.StashKey[int]()
_FOUND = pytest.StashKey[tuple[int, int]]()  # (specs, items) collected
DEFAULT_SAMPLES = 5000
DEFAULT_EXAMPLES = 25  # the same as dpverify.verify.gate._search.DEFAULT_EXAMPLES, without importing it
DEFAULT_TIME_LIMIT = 120  # the same as dpverify.verify.engine._arguments.DEFAULT_TIME_LIMIT, without importing it
#: How many case time limits a spec's search may take before its process is killed.
SEARCH_TIME_LIMITS = 5


class DpverifyFailure(Exception):
    """A dpverify item's failure: its message is the whole report (no traceback adds to it)."""


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0; got {value}")
    return value


def _positive(text: str) -> int:
    value = _count(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a whole number >= 1; got 0")
    return value


# --- hooks -----------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpverify", "dpverify: check the project's differential-privacy specs")
    group.addoption(
        "--dpverify",
        action="store_true",
        default=False,
        help="collect one item per spec case and one search item per spec (off by default).",
    )
    group.addoption(
        "--dpverify-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="take specs from MODULE's SPECS instead of the dpverify.specs entry points (repeatable).",
    )
    group.addoption(
        "--dpverify-builtin", action="store_true", default=False, help="also check dpverify's own built-in catalogue."
    )
    group.addoption(
        "--dpverify-seed",
        type=_count,
        default=None,
        metavar="N",
        help="seed for the statistical checks and the searches (default: fresh, printed in the header).",
    )
    group.addoption(
        "--dpverify-samples",
        type=_positive,
        default=DEFAULT_SAMPLES,
        metavar="N",
        help=f"samples per statistical check (default {DEFAULT_SAMPLES}).",
    )
    group.addoption(
        "--dpverify-examples",
        type=_positive,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"parameter sets each spec's search checks (default {DEFAULT_EXAMPLES}).",
    )
    group.addoption(
        "--dpverify-time-limit",
        type=_positive,
        default=None,
        metavar="SECONDS",
        help=f"bound on each case's running time (default {DEFAULT_TIME_LIMIT}, as dpverify check); a search may take "
        f"{SEARCH_TIME_LIMITS} times as long.  Each item runs in a process of its own, killed "
        "with SIGKILL if it outlives its bound.",
    )
    group.addoption(
        "--dpverify-allow-empty",
        action="store_true",
        default=False,
        help="pass when --dpverify finds no spec (by default that is one failing item).",
    )
    parser.addini(
        "dpverify_modules",
        type="linelist",
        default=[],
        help="spec modules for --dpverify when no --dpverify-module is given.",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("dpverify"):
        return
    config.addinivalue_line("markers", "dpverify: a dpverify spec case or search (added by --dpverify).")
    seed = config.getoption("dpverify_seed")
    config.stash[_SEED] = secrets.randbelow(2**32) if seed is None else seed


def pytest_report_header(config: pytest.Config) -> str | None:
    if not config.getoption("dpverify"):
        return None
    return (
        f"dpverify: seed {config.stash[_SEED]} (replay with --dpverify-seed {config.stash[_SEED]}), "
        f"{config.getoption('dpverify_samples')} samples per statistical check, "
        f"{config.getoption('dpverify_examples')} search examples per spec"
    )


def pytest_report_collectionfinish(config: pytest.Config) -> str | None:
    if not config.getoption("dpverify") or _FOUND not in config.stash:
        return None
    specs, items = config.stash[_FOUND]
    return f"dpverify: {specs} spec(s), {items} item(s)"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[Any]) -> None:
    if not config.getoption("dpverify"):
        return
    collector = DpverifyCollector.from_parent(session, name="dpverify", nodeid="dpverify")
    # Through the collection hooks, as a file's items are: counted in "collected N items", and an
    # unexpected error is a collection error rather than an internal one.
    report = session.ihook.pytest_make_collect_report(collector=collector)
    session.ihook.pytest_collectreport(report=report)
    if report.passed:
        items.extend(report.result)


# --- the nodes -------------------------------------------------------------------------------


def _modules(config: pytest.Config) -> list[str]:
    return list(config.getoption("dpverify_module") or config.getini("dpverify_modules"))


class DpverifyCollector(pytest.Collector):
    """The ``dpverify`` node: one item per spec case and one search item per spec."""

    def collect(self) -> list[pytest.Item]:
        from dpverify.specs import SpecError

        found: list[FoundSpec] = []
        items: list[pytest.Item] = []
        for source, load in self._sources():
            try:
                found += load()
            except SpecError as error:
                items.append(BrokenItem.from_parent(self, name=f"discovery/{source}", message=str(error)))
        seen: dict[str, str] = {}
        for item in found:
            spec = item.spec
            if spec.name in seen:
                message = (
                    f"spec name {spec.name!r} is declared twice: in {seen[spec.name]} and in {item.origin}; "
                    "spec names must be unique."
                )
                items.append(BrokenItem.from_parent(self, name=f"{spec.name}/duplicate", message=message))
                continue
            seen[spec.name] = item.origin
            items += [
                CaseItem.from_parent(self, name=f"{spec.name}/{case.describe()}", found=item, case=case)
                for case in spec.cases
            ]
            items.append(SearchItem.from_parent(self, name=f"{spec.name}/search", found=item))
        self.config.stash[_FOUND] = (len(seen), len(items))
        if not found and not items and not self.config.getoption("dpverify_allow_empty"):
            where = ", ".join(name for name, _ in self._sources())
            items.append(
                BrokenItem.from_parent(
                    self,
                    name="no-specs",
                    message=(
                        f"--dpverify found no spec (looked in: {where}): nothing would be checked. Name a module with "
                        "--dpverify-module MODULE or the dpverify_modules ini option, install the package whose "
                        "dpverify.specs entry points declare them, or pass --dpverify-allow-empty."
                    ),
                )
            )
        for collected in items:
            collected.add_marker("dpverify")
        return items

    def _sources(self) -> list[tuple[str, Any]]:
        """``(name, load)`` per place specs come from; each fails on its own."""
        from dpverify.verify.gate._discovery import specs_from_entry_points, specs_from_module

        modules = _modules(self.config)
        builtin = self.config.getoption("dpverify_builtin")
        sources: list[tuple[str, Any]] = []
        if modules:
            # A project's own modules, found the way its tests find them.
            root = str(self.config.rootpath)
            if root not in sys.path:
                sys.path.insert(0, root)
            sources += [(name, lambda name=name: specs_from_module(name)) for name in modules]
        if not modules or builtin:

            def points() -> list[FoundSpec]:
                return [
                    f for f in specs_from_entry_points() if (f.builtin and builtin) or (not f.builtin and not modules)
                ]

            sources.append(("entry-points", points))
        return sources


class _DpverifyItem(pytest.Item):
    """A dpverify item: its failures are reports, not tracebacks."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, DpverifyFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"dpverify::{self.name}"

    @property
    def seed(self) -> int:
        return self.config.stash[_SEED]

    @property
    def time_limit(self) -> int:
        given = self.config.getoption("dpverify_time_limit")
        return DEFAULT_TIME_LIMIT if given is None else int(given)


class BrokenItem(_DpverifyItem):
    """Specs that could not be found or read: fails with the one-line reason."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def runtest(self) -> None:
        raise DpverifyFailure(f"dpverify: broken spec: {self.message}")


class CaseItem(_DpverifyItem):
    """One listed case of a spec: every check the declaration implies."""

    def __init__(self, *, found: FoundSpec, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.found, self.case = found, case

    def runtest(self) -> None:
        from dpverify.verify.gate._spec_run import run_case

        def run() -> str | None:
            outcome = run_case(
                self.found.spec,
                self.case,
                seed=self.seed,
                time_limit=self.time_limit,
                samples=self.config.getoption("dpverify_samples"),
                origin=self.found.origin,
            )
            return None if outcome.met else "\n".join(_outcome_lines(outcome))

        what = f"spec {self.found.spec.name!r}, case {self.case.describe()!r}"
        failure = isolated(run, seconds=self.time_limit, what=what)
        if failure is not None:
            raise DpverifyFailure(failure)


class SearchItem(_DpverifyItem):
    """A Hypothesis search of a spec's parameter domain, beyond its cases."""

    def __init__(self, *, found: FoundSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.found = found

    def runtest(self) -> None:
        spec = self.found.spec
        failure = isolated(
            self._search, seconds=SEARCH_TIME_LIMITS * self.time_limit, what=f"the search of spec {spec.name!r}"
        )
        if failure is None:
            return
        if failure.startswith(_XFAIL):
            pytest.xfail(failure.removeprefix(_XFAIL))
        raise DpverifyFailure(failure)

    def _search(self) -> str | None:
        """The search's failure report, or None when it proves (run in the isolated child)."""
        from dpverify.specs import SpecError
        from dpverify.verify.gate._search import search_spec

        try:
            result = search_spec(
                self.found.spec, seed=self.seed, max_examples=self.config.getoption("dpverify_examples")
            )
        except SpecError as error:
            return f"dpverify: broken spec: {error}"
        if result.verdict == "proved":
            return None
        spec = self.found.spec
        if not result.broken and not any(case.expect == "proved" for case in spec.cases):
            # A spec that documents a known failure (an UNSAFE sampler) is expected to fail
            # anywhere; its cases already gate that the failure is still found.
            return f"{_XFAIL}spec {spec.name!r} documents a known failure (no case expects proved): {result.summary()}"
        return "\n".join(self._search_lines(result))

    def _search_lines(self, result: SearchResult) -> list[str]:
        assert result.outcome is not None and result.parameters is not None
        parameters = ", ".join(f"{k}={v}" for k, v in result.parameters.items()) or "(none)"
        what = "breaks the spec" if result.broken else "fails its exact checks"
        return [
            f"dpverify search of spec {self.found.spec.name!r} ({self.found.origin}): a parameter set {what}",
            f"  shrunk parameters: {parameters}",
            f"  seed: {result.seed}; {result.examples} parameter sets checked, shrinking included",
            *_outcome_lines(result.outcome, head=False),
            f"  replay: {self.replay_command()}",
        ]

    def replay_command(self) -> str:
        """The pytest command that reruns this search alone, with this run's choices."""
        config = self.config
        words = ["pytest", "--dpverify"]
        for module in config.getoption("dpverify_module"):
            words += ["--dpverify-module", module]
        if config.getoption("dpverify_builtin"):
            words.append("--dpverify-builtin")
        words += ["--dpverify-seed", str(self.seed)]
        if config.getoption("dpverify_examples") != DEFAULT_EXAMPLES:
            words += ["--dpverify-examples", str(config.getoption("dpverify_examples"))]
        # A spec name needs no quoting; the quotes show where the -k expression ends.
        return f'{shlex.join(words)} -k "{self.found.spec.name}/search"'


# --- the isolated run -----------------------------------------------------------------------

#: The start of a search's report that makes its item an xfail.
_XFAIL = "xfail: "


def isolated(run: Callable[[], str | None], *, seconds: float, what: str) -> str | None:
    """``run()`` (a failure report, or None for a pass) in a forked child process, so that what
    the sampler does to its process (exits, kills it, ignores signals, spins) is a failure of
    this item, never of the pytest run.  The child is killed with SIGKILL once it has run
    ``seconds`` and the supervisor's grace.  Without ``fork`` it runs here."""
    from dpverify import _channel
    from dpverify._supervisor import ended, grace

    if not hasattr(os, "fork"):
        return run()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running pytest's exit handlers
        os.close(read)
        code = 0
        try:
            _channel.isolate()
            report = run()
            payload = json.dumps({"failure": report}).encode("utf-8")
        except BaseException as error:  # noqa: BLE001 - whatever stopped the run is this item's failure
            payload = json.dumps(
                {
                    "failure": f"dpverify: {what}: the run stopped on {type(error).__name__}: "
                    f"{' '.join(str(error).split())[:300]}"
                }
            ).encode("utf-8")
        try:
            with os.fdopen(write, "wb") as out:
                out.write(payload)
        except BaseException:  # noqa: BLE001 - the parent reads nothing, and says so
            code = 1
        os._exit(code)
    os.close(write)
    try:
        data, killed = _read_until(read, time.monotonic() + seconds + grace(seconds), pid)
    except BaseException:  # Ctrl-C: the run is over, and so is the child's
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if killed:
        return (
            f"dpverify: {what}: the sampler disabled the time bound: it ran past {seconds:g} s and "
            f"{grace(seconds):g} s of grace without ending, so its process was killed with SIGKILL"
        )
    try:
        failure: str | None = json.loads(data)["failure"]
        return failure
    except (ValueError, KeyError, TypeError):
        pass
    return f"dpverify: {what}: {ended(code)}; no verdict"


def _read_until(fd: int, deadline: float, pid: int) -> tuple[bytes, bool]:
    """Everything written to ``fd`` until it closes, or ``(what came, True)`` once ``deadline``
    has passed, after killing ``pid``."""
    chunks: list[bytes] = []
    with os.fdopen(fd, "rb", buffering=0) as source:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([source], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                return b"".join(chunks), True
            chunk = source.read(65536)
            if not chunk:
                return b"".join(chunks), False
            chunks.append(chunk)


# --- the report ------------------------------------------------------------------------------


def _outcome_lines(outcome: CaseOutcome, *, head: bool = True) -> list[str]:
    """The spec and case, the outcome, each problem, and each failing check's counterexample."""
    lines = []
    if head:
        lines.append(f"dpverify: spec {outcome.spec.name!r} ({outcome.origin}), case {outcome.case.describe()}")
    if outcome.error is not None:
        return [*lines, f"  broken spec: {outcome.error}"]
    claim = f"; claim: {outcome.claim_text}" if outcome.claim_text else ""
    within = ""
    tolerances = [check.within for check in outcome.checks if check.within is not None]
    if outcome.outcome == "proved" and tolerances:
        from dpverify.verify.engine._results import tolerance_text

        within = f" within U <= {tolerance_text(max(tolerances))} (interval proofs, not exact equality)"
    lines.append(f"  outcome: {outcome.outcome}{within} (expected {outcome.case.expect}){claim}")
    lines += [f"  problem: {problem}" for problem in outcome.problems]
    # Checks that agree (privacy and z3 find the same witness) share one line.
    found: dict[str, list[str]] = {}
    for check in outcome.checks:
        counterexample = _counterexample(check.evidence) if check.verdict.value == "violated" else None
        if counterexample:
            found.setdefault(counterexample, []).append(check.check)
    lines += [f"  counterexample ({', '.join(checks)}): {text}" for text, checks in found.items()]
    return lines


def _counterexample(evidence: dict[str, Any]) -> str | None:
    """The inputs, output and exact probabilities a violated check's evidence names."""
    witness = evidence.get("witness")
    if isinstance(witness, dict) and {"q", "q_prime", "output", "p", "p_prime"} <= witness.keys():
        return (
            f"inputs q={witness['q']!r}, q'={witness['q_prime']!r}, output={witness['output']!r}: "
            f"P(output | q) = {witness['p']}, P(output | q') = {witness['p_prime']}"
        )
    if {"q", "output", "code_p", "spec_p"} <= evidence.keys():
        return (
            f"input q={evidence['q']!r}, output={evidence['output']!r}: "
            f"code P = {evidence['code_p']}, spec P = {evidence['spec_p']}"
        )
    return None

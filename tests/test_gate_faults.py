"""Samplers that never return, or stop returning on a real source, get their exact verdict, and a hang
is reported as what it is: never the case's time bound.

Every spec here is tiny and declared in this file.  The bounds are small (``time_limit=2``: a
quarter of a second is the longest any run here is given); no test asserts a time.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Hashable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dpverify.samplers import RandomSource, SeededRandomSource, SystemRandomSource
from dpverify.samplers._loops import until_accepted
from dpverify.specs import Attempt, Bounded, Case, Integer, SamplesPmf, Spec
from dpverify.verify import CheckResult, Verdict
from dpverify.verify.engine._enumerate import (
    LoopNeverAccepts,
    NeverReturns,
    enumerate_outputs,
)
from dpverify.verify.engine._intervals import check_intervals
from dpverify.verify.gate._real_runs import (
    NoOutput,
    quick_seconds,
    run_seconds,
    watched,
)
from dpverify.verify.gate._spec_run import CaseOutcome, run_case

SEED = 20261123
#: Small enough that a hang costs a fraction of a second, large enough for the exact checks.
TIME_LIMIT = 2


def _uniform_pmf(p: dict[str, Any]) -> dict[int, Fraction]:
    return {k: Fraction(1, p["n"]) for k in range(p["n"])}


def _spec(name: str, sampler: Any, enumeration: Any = None, **more: Any) -> Spec:
    """A uniform sampler on ``{0..n-1}`` as a noise spec, checked against its exact PMF."""
    return Spec(
        name,
        sampler,
        {"n": Integer(2, 10)},
        (Case({"n": 3}),),
        SamplesPmf(),
        pmf=_uniform_pmf,
        enumeration=enumeration,
        **more,
    )


def _run(spec: Spec, **options: Any) -> CaseOutcome:
    return run_case(spec, spec.cases[0], seed=SEED, samples=2_000, time_limit=TIME_LIMIT, **options)


def _texts(outcome: CaseOutcome) -> list[str]:
    return [*outcome.problems, *(c.summary for c in outcome.checks)]


def _check(outcome: CaseOutcome, name: str) -> Any:
    return next(c for c in outcome.checks if c.check == name)


# --- loops that never accept: violated with the exact evidence, never "time bound hit" -----------


def _rejects(n: int, rng: RandomSource) -> int | None:
    rng.randbelow(n)
    return None  # every attempt rejects


_marked_loop = until_accepted(_rejects)


def marked(n: int, rng: RandomSource) -> int:
    """A loop marked with until_accepted, summarised by the bounded walk."""
    return _marked_loop(n, rng)


def written_out(n: int, rng: RandomSource) -> int:
    """The same loop written out, checked as an Attempt."""
    while True:
        z = _rejects(n, rng)
        if z is not None:
            return z


def unmarked(n: int, rng: RandomSource) -> int:
    """A ``while True`` loop nobody marked, as published code writes it: renewed by the walk."""
    while True:
        x = rng.randbelow(n)
        if x >= n:
            return x


NEVER_ACCEPTS = [
    (_spec("marked", marked, Bounded()), "never ends at (3)"),
    (_spec("attempt", written_out, Attempt(_rejects)), "every attempt rejects"),
    (_spec("unmarked", unmarked, Bounded(renewal=True)), "the code never returns"),
]


@pytest.mark.parametrize(("spec", "why"), NEVER_ACCEPTS, ids=[spec.name for spec, _ in NEVER_ACCEPTS])
def test_a_loop_that_never_accepts_is_violated_not_out_of_time(spec: Spec, why: str) -> None:
    outcome = _run(spec)
    intervals = _check(outcome, "intervals")
    assert outcome.outcome == "violated" and not outcome.met
    assert intervals.verdict is Verdict.VIOLATED and why in intervals.summary
    assert not any("time bound hit" in text for text in _texts(outcome))


@pytest.mark.parametrize(("spec", "why"), NEVER_ACCEPTS, ids=[spec.name for spec, _ in NEVER_ACCEPTS])
def test_the_hung_smoke_run_is_reported_beside_the_exact_verdict(spec: Spec, why: str) -> None:
    outcome = _run(replace_expect(spec, "violated"))
    smoke = _check(outcome, "smoke")
    assert smoke.verdict is Verdict.INCONCLUSIVE and smoke.evidence["seed"] == SEED
    assert smoke.summary.startswith(f"no output within {quick_seconds(TIME_LIMIT):.3g} s of real draws")
    assert "found a violation, which decides" in smoke.summary
    # the hang is a finding beside the verdict: the case meets "violated", and nothing sampled again
    assert outcome.outcome == "violated" and not any("smoke" in problem for problem in outcome.problems)
    assert not any(c.check.startswith("statistical") for c in outcome.checks)


def replace_expect(spec: Spec, expect: str) -> Spec:
    return replace(spec, cases=tuple(replace(case, expect=expect) for case in spec.cases))


def _runs_the_sampler(p: dict[str, Any]) -> CheckResult:
    """A declared check that runs the sampler on a seeded source, as the vector specs' ``defaults`` does."""
    marked(p["n"], SeededRandomSource(0))
    return CheckResult("runs_the_sampler", Verdict.PROVED, "returned")


def _quick_claim(p: dict[str, Any]) -> CheckResult:
    return CheckResult("quick_claim", Verdict.PROVED, "a declared check that returns at once")


def test_a_declared_check_that_hangs_does_not_hold_up_an_exact_violation() -> None:
    spec = replace(replace_expect(NEVER_ACCEPTS[0][0], "violated"), checks=(_runs_the_sampler, _quick_claim))
    outcome = _run(spec)
    abandoned, quick = _check(outcome, "_runs_the_sampler"), _check(outcome, "quick_claim")
    assert outcome.outcome == "violated" and _check(outcome, "intervals").verdict is Verdict.VIOLATED
    assert abandoned.verdict is Verdict.INCONCLUSIVE and "not finished within" in abandoned.summary
    assert "intervals" in abandoned.summary and quick.verdict is Verdict.PROVED
    assert not any("time bound hit" in text for text in _texts(outcome))


# --- a hang that no exact check explains: inconclusive, with the reason ---------------------------


def hangs_on_a_real_source(n: int, rng: RandomSource) -> int:
    """Uniform on the enumerated draws; on a real source it never returns."""
    while isinstance(rng, (SeededRandomSource, SystemRandomSource)):
        pass
    return rng.randbelow(n)


def test_a_smoke_hang_beside_an_exact_proof_is_inconclusive_with_its_reason() -> None:
    outcome = _run(_spec("real-hang", hangs_on_a_real_source))
    smoke, exactness = _check(outcome, "smoke"), _check(outcome, "exactness")
    assert exactness.verdict is Verdict.PROVED
    assert outcome.outcome == "inconclusive" and not outcome.met
    # the second chance had the longer bound, and the reason says what a hang here means
    assert smoke.evidence["no_output_within_s"] == run_seconds(TIME_LIMIT)
    assert "the exact checks prove the code's law" in smoke.summary and "not violated" in smoke.summary
    assert not any("time bound hit" in text for text in _texts(outcome))
    assert not any(c.check.startswith("statistical") for c in outcome.checks)


def loops_before_its_first_draw(n: int, rng: RandomSource) -> int:
    """A calibration that never converges: it loops before it draws, on any source."""
    while n > 0:
        n = n + 1 - 1
    return rng.randbelow(n)


def test_a_loop_before_the_first_draw_is_inconclusive_without_the_exact_checks() -> None:
    outcome = _run(_spec("no-draw", loops_before_its_first_draw))
    smoke = _check(outcome, "smoke")
    assert outcome.outcome == "inconclusive" and not outcome.met
    assert smoke.evidence["drew"] is False and smoke.evidence["loops_before_drawing_s"] == run_seconds(TIME_LIMIT)
    assert "before it had taken a single random bit" in smoke.summary and "none was started" in smoke.summary
    assert [c.check for c in outcome.checks] == ["smoke"]  # the exact checks would only have run on too
    assert not any("time bound hit" in text for text in _texts(outcome))


def test_a_run_that_waits_only_for_a_real_source_still_gets_its_exact_checks() -> None:
    outcome = _run(_spec("real-wait", hangs_on_a_real_source))
    smoke = _check(outcome, "smoke")
    assert "loops_before_drawing_s" not in smoke.evidence  # it drew from the probe: the exact checks ran
    assert _check(outcome, "exactness").verdict is Verdict.PROVED


def ignores_its_source_at_the_edge(n: int, rng: RandomSource) -> int:
    """Draws from the source it is given, except at the domain's edge, where it loops on its own."""
    while n == 10:
        pass
    return rng.randbelow(n)


def test_an_edge_run_that_never_reaches_a_draw_is_abandoned_inconclusive() -> None:
    outcome = _run(_spec("edge-loop", ignores_its_source_at_the_edge, accepts=({"n": 10},)))
    accepts = _check(outcome, "accepts")
    assert accepts.verdict is Verdict.INCONCLUSIVE and not outcome.met
    assert f"n=10 neither drew nor returned within {run_seconds(TIME_LIMIT)} s" in accepts.summary, accepts.summary
    assert _check(outcome, "exactness").verdict is Verdict.PROVED
    assert not any("time bound hit" in text for text in _texts(outcome))


def test_a_slow_but_terminating_smoke_run_passes_on_its_second_chance() -> None:
    def slow(n: int, rng: RandomSource) -> int:
        if isinstance(rng, SeededRandomSource):  # busy past the first pass's bound, well within a run's
            end = time.monotonic() + 2 * quick_seconds(None)
            while time.monotonic() < end:
                pass
        return rng.randbelow(n)

    outcome = run_case(_spec("slow", slow), Case({"n": 3}), seed=SEED, samples=20, time_limit=40, statistics=False)
    assert outcome.outcome == "proved" and outcome.met, outcome.problems


def _stops_after(runs: int) -> Any:
    """A uniform sampler that stops returning on a real source after ``runs`` runs there."""
    seen = itertools.count()

    def sampler(n: int, rng: RandomSource | None = None) -> int:
        if isinstance(rng, (SeededRandomSource, SystemRandomSource)) and next(seen) >= runs:
            while True:
                pass
        return (rng or SystemRandomSource()).randbelow(n)

    return sampler


def test_sampling_that_stops_returning_is_inconclusive_and_says_how_far_it_got() -> None:
    outcome = _run(_spec("stops", _stops_after(40)))
    statistical = _check(outcome, "statistical")
    assert _check(outcome, "exactness").verdict is Verdict.PROVED
    assert statistical.verdict is Verdict.INCONCLUSIVE and outcome.outcome == "inconclusive"
    assert statistical.evidence["runs_returned"] == 40 - 1  # the smoke run took one of them
    assert statistical.evidence["seed"] == SEED and "no output in the last" in statistical.summary
    assert not any("time bound hit" in text for text in _texts(outcome))


def test_a_hang_on_the_production_source_alone_is_inconclusive() -> None:
    def production_hangs(n: int, rng: RandomSource | None = None) -> int:
        while rng is None or isinstance(rng, SystemRandomSource):
            pass
        return rng.randbelow(n)

    outcome = _run(_spec("production-hang", production_hangs), production=True)
    assert _check(outcome, "statistical").verdict is Verdict.PROVED
    production = _check(outcome, "statistical_production")
    assert production.verdict is Verdict.INCONCLUSIVE and production.evidence["seed"] is None
    assert "production source" in production.summary and "the exact checks prove" in production.summary
    assert outcome.outcome == "inconclusive"


# --- the engine: a complete renewing walk with no output --------------------------------------------


def _draws_forever(rng: RandomSource) -> Hashable:
    while True:
        if rng.bernoulli(1, 2) and rng.randbelow(3) > 2:
            return "never"


def test_a_complete_renewing_walk_with_no_output_never_returns() -> None:
    with pytest.raises(NeverReturns, match="the code never returns") as raised:
        enumerate_outputs(_draws_forever, renewal=True)
    assert isinstance(raised.value, LoopNeverAccepts) and raised.value.paths >= 1
    result = check_intervals(
        _draws_forever, lambda output, dps: (Fraction(1), Fraction(1)), ("never",), renew_states=True
    )
    assert result.verdict is Verdict.VIOLATED and "never returns" in result.summary


def test_a_loop_that_rarely_accepts_is_not_called_never_ending() -> None:
    def rarely(rng: RandomSource) -> Hashable:
        while True:
            if rng.randbelow(10**9) == 0:
                return 1

    found = enumerate_outputs(rarely, renewal=True, min_mass="1/1000000")  # the accepting draw is cut
    assert found.unexplored == 1 and found.stopped == "budget"
    exact = enumerate_outputs(lambda rng: rng.randbelow(2) if rng.bernoulli(1, 3) else 2, renewal=True)
    assert exact.masses == {0: Fraction(1, 6), 1: Fraction(1, 6), 2: Fraction(2, 3)}


def test_without_renewal_a_walk_with_no_output_reports_its_remainder() -> None:
    found = enumerate_outputs(_draws_forever, max_depth=8)
    assert found.unexplored == 1 and not found.masses


# --- the watchdog ------------------------------------------------------------------------------------


def test_watched_returns_every_output_in_order() -> None:
    counter = itertools.count()
    assert watched(lambda: next(counter), 1000, seconds=1) == list(range(1000))


def test_watched_abandons_a_run_that_gives_no_output() -> None:
    counter = itertools.count()

    def run() -> int:
        value = next(counter)
        while value == 7:
            pass
        return value

    with pytest.raises(NoOutput) as raised:
        watched(run, 100, seconds=0.1)
    assert raised.value.done == 7 and raised.value.seconds == 0.1 and raised.value.silent > 0


def test_the_bounds_are_shares_of_the_case_limit() -> None:
    assert run_seconds(None) == 5 and run_seconds(8) == 1 and quick_seconds(None) == 0.25
    assert quick_seconds(2) == 0.125 and run_seconds(120) == 5


SLOW_IMPORT = "import time\n\nend = time.monotonic() + 0.3\nwhile time.monotonic() < end:\n    pass\nDONE = True\n"


@pytest.mark.parametrize("in_thread", [False, True], ids=["main thread", "other thread"])
def test_a_bound_never_cuts_an_import_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_thread: bool) -> None:
    """A bound that expires while the sampler's first run imports a module waits for the import:
    a module cut off halfway leaves its package broken for the rest of the process (asyncio's
    ``NameError: base_events``).  The bound still ends the block once the import is done."""
    import sys
    import threading

    from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound

    name = f"slow_import_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SLOW_IMPORT)
    monkeypatch.syspath_prepend(str(tmp_path))
    outcome: list[str] = []

    def run() -> None:
        try:
            with time_bound(0.05):
                __import__(name)
                while True:
                    pass
        except CaseTimeUp:
            outcome.append("bounded")

    if in_thread:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(30)
    else:
        run()
    try:
        assert outcome == ["bounded"] and sys.modules[name].DONE is True
    finally:
        sys.modules.pop(name, None)

"""Published samplers verified unmodified: the module-level patch, lazy uniform draws, float_bits,
and the CKS20 reference implementation with its one-token bugs (examples/published)."""

from __future__ import annotations

import importlib.util
import random
import secrets
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument, SeededRandomSource
from dpverify.specs import (
    Case,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    Exhaustive,
    Input,
    Integer,
    PureDp,
    Spec,
    SpecError,
)
from dpverify.verify.cli import main
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._intervals import check_intervals, enclosure_bound
from dpverify.verify.engine._lazy_uniform import LazyUniform
from dpverify.verify.engine._patched_random import patched_random, patched_rng
from dpverify.verify.engine._random_compat import RandomCompat
from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._spec_run import run_case

ROOT = Path(__file__).resolve().parents[1]


def _load_specs():
    name = "examples_published_cks20_specs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "published" / "cks20_specs.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


CKS = _load_specs()


# --- the module-level patch -----------------------------------------------------------------------


def _module_draws() -> tuple:
    from random import choice, randrange  # bound before the call: still redirected

    return (
        randrange(3),
        choice("ab"),
        secrets.randbelow(2),
        random.SystemRandom().randrange(2),
        random.getrandbits(1),
        random.random() * 4 // 1,
    )


def test_patch_redirects_every_kind_of_module_draw_exactly() -> None:
    def sampler(rng):
        with patched_random(rng, float_bits=2):
            return _module_draws()

    found = enumerate_outputs(sampler)
    assert found.exhausted and len(found.masses) == 3 * 2 * 2 * 2 * 2 * 4
    assert set(found.masses.values()) == {Fraction(1, 3 * 2 * 2 * 2 * 2 * 4)}


def test_patch_is_restored_on_exceptions_and_generator_close() -> None:
    originals = (random.SystemRandom, random.random, random.getrandbits, type(random._inst), type(secrets._sysrand))
    with pytest.raises(KeyboardInterrupt), patched_random(SeededRandomSource(1)):
        raise KeyboardInterrupt

    def generator():
        with patched_random(SeededRandomSource(1)):
            yield random.randrange(10)
            yield random.randrange(10)

    running = generator()
    next(running)
    assert patched_rng() is not None
    running.close()
    assert patched_rng() is None
    assert (
        random.SystemRandom,
        random.random,
        random.getrandbits,
        type(random._inst),
        type(secrets._sysrand),
    ) == originals
    assert isinstance(random.SystemRandom(), random.SystemRandom)


def test_isinstance_checks_keep_working_while_patched() -> None:
    with patched_random(SeededRandomSource(2)):
        made = random.SystemRandom()
        assert isinstance(made, RandomCompat) and isinstance(made, random.SystemRandom)
        assert isinstance(made, secrets.SystemRandom) and issubclass(RandomCompat, random.SystemRandom)
    assert not isinstance(random.SystemRandom(), RandomCompat)


def test_threads_see_their_own_source_and_others_fall_through() -> None:
    """Two threads draw under two constant sources at once; a third, unpatched, gets CPython's."""

    class Constant(SeededRandomSource):
        def __init__(self, value: int) -> None:
            super().__init__(0)
            self.value = value

        def randbelow(self, n: int) -> int:
            return self.value % n

    barrier = threading.Barrier(3)
    seen: dict[str, list[int]] = {}

    def patched(name: str, value: int) -> None:
        with patched_random(Constant(value)):
            barrier.wait()
            seen[name] = [random.randrange(1000) for _ in range(200)]
            barrier.wait()

    def plain() -> None:
        barrier.wait()
        seen["plain"] = [random.randrange(1000) for _ in range(200)]
        barrier.wait()

    threads = [
        threading.Thread(target=patched, args=("a", 7)),
        threading.Thread(target=patched, args=("b", 9)),
        threading.Thread(target=plain),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen["a"] == [7] * 200 and seen["b"] == [9] * 200
    assert len(set(seen["plain"])) > 1  # CPython's generator, not a constant source
    assert random.SystemRandom is secrets.SystemRandom and type(random._inst) is random.Random


def test_patch_refuses_a_bad_source_or_precision() -> None:
    with (
        pytest.raises(InvalidArgument, match="source must be a RandomSource"),
        patched_random(random.Random(1)),  # type: ignore[arg-type]
    ):
        pass
    with pytest.raises(InvalidArgument, match="float_bits"), patched_random(SeededRandomSource(1), float_bits=54):
        pass
    assert type(random._inst) is random.Random


# --- lazy uniform draws -----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.lists(st.tuples(st.sampled_from("<>=!lgb+"), st.integers(-3, 43)), max_size=4))
def test_lazy_draw_has_the_uniform_law_whatever_is_asked(n: int, questions: list) -> None:
    """Enumerated lazily, the answers and the final value have exactly the law of randbelow(n)
    drawn at once (the value is materialised at the end)."""

    def ask(x, op, c):
        return {
            "<": lambda: x < c,
            ">": lambda: x > c,
            "=": lambda: x == c,
            "!": lambda: x != c,
            "l": lambda: x <= c,
            "g": lambda: x >= c,
            "b": lambda: bool(x),
            "+": lambda: (x + c) < c + 2,
        }[op]()

    def lazy(rng):
        x = rng.lazy_randbelow(n)
        return tuple(ask(x, op, c) for op, c in questions) + (int(x),)

    def eager(rng):
        x = rng.randbelow(n)
        return tuple(ask(x, op, c) for op, c in questions) + (x,)

    found = enumerate_outputs(lazy)
    assert found.exhausted and found.masses == enumerate_outputs(eager).masses


def test_a_comparison_is_one_two_way_branch() -> None:
    found = enumerate_outputs(lambda rng: RandomCompat(rng).randrange(10**30) < 3)
    assert found.paths == 2 and found.masses == {True: Fraction(3, 10**30), False: 1 - Fraction(3, 10**30)}


def test_lazy_draw_returned_or_used_as_a_number_is_materialised() -> None:
    found = enumerate_outputs(lambda rng: (RandomCompat(rng).randrange(3), Fraction(RandomCompat(rng).randrange(2), 2)))
    assert found.masses == {(a, Fraction(b, 2)): Fraction(1, 6) for a in range(3) for b in range(2)}
    assert all(type(o[0]) is int for o in found.masses)


def test_only_the_enumerating_source_hands_out_lazy_draws() -> None:
    assert type(RandomCompat(SeededRandomSource(1)).randrange(10)) is int
    found = enumerate_outputs(lambda rng: type(RandomCompat(rng).randrange(10)) is LazyUniform)
    assert found.masses == {True: 1}


# --- renewal at repeated program states --------------------------------------------------------------


def _rejection(rng):
    r = RandomCompat(rng)
    while True:
        x = r.randrange(3)
        if x < 2:
            return int(x)


def _accumulating(rng):  # the list grows: no two loop heads are the same state
    r = RandomCompat(rng)
    seen = []
    while True:
        seen.append(0)
        if r.randrange(2) == 0:
            return len(seen)


def _for_loop(rng):  # the iterator on the stack differs between iterations
    r = RandomCompat(rng)
    for _ in range(3):
        if r.getrandbits(1):
            return 1
    return 0


def _through_c(rng):  # max() holds state the frames do not show
    r = RandomCompat(rng)
    best = []
    while not best:
        v = max(range(3), key=lambda i: r.getrandbits(1))
        if v:
            best.append(v)
    return best[0]


def test_renewal_makes_a_rejection_loop_exact() -> None:
    as_run = enumerate_outputs(_rejection, min_mass="1/1000")
    renewed = enumerate_outputs(_rejection, min_mass="1/1000", renewal=True)
    assert as_run.unexplored > 0 and renewed.exhausted
    assert renewed.masses == {0: Fraction(1, 2), 1: Fraction(1, 2)} and renewed.paths < as_run.paths


@pytest.mark.parametrize("sampler", [_accumulating, _for_loop, _through_c])
def test_renewal_never_merges_states_that_differ(sampler) -> None:
    """Where the frames hide a difference (a growing list, a for loop's iterator, C code's state),
    renewal must not fire: the result is the walk as it runs."""
    as_run = enumerate_outputs(sampler, min_mass="1/1000")
    renewed = enumerate_outputs(sampler, min_mass="1/1000", renewal=True)
    assert renewed.masses == as_run.masses and renewed.unexplored == as_run.unexplored


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(1, 8), st.integers(1, 4), st.sampled_from(["1/100", "1/2000"]))
def test_renewed_nested_loops_enclose_the_exact_law(n: int, a: int, b: int, min_mass: str) -> None:
    """An inner rejection loop (x uniform on [0, a)) inside an outer one (accept x with probability
    (x % b + 1) / b): P(x) is proportional to x % b + 1, and every renewed interval contains it."""
    a = min(a, n)

    def sampler(rng):
        r = RandomCompat(rng)
        while True:
            while True:
                x = r.randrange(n)
                if x < a:
                    break
            if r.randrange(b) <= x % b:
                return int(x)

    weights = {x: Fraction(x % b + 1) for x in range(a)}
    total = sum(weights.values())
    found = enumerate_outputs(sampler, min_mass=min_mass, renewal=True)
    assert set(found.masses) <= set(weights)
    for x, weight in weights.items():
        explored = found.masses.get(x, Fraction(0))
        assert explored <= weight / total <= explored + found.unexplored


def test_renewal_is_sound_on_the_cks20_reference() -> None:
    """Renewed lower bounds never exceed the ideal probabilities, and the width shrinks."""
    spec = DiscreteGaussianSpec.create(1)
    sampler = lambda rng: CKS.REFERENCE.sample_dgauss(Fraction(1), rng=RandomCompat(rng))  # noqa: E731
    as_run = enumerate_outputs(sampler, min_mass="1/10000")
    renewed = enumerate_outputs(sampler, min_mass="1/10000", renewal=True)
    assert renewed.unexplored < as_run.unexplored / 4
    for z, mass in renewed.masses.items():
        assert mass <= enclosure_bound(spec.ideal_probability(z, 30)[1], upper=True)


# --- the spec API ----------------------------------------------------------------------------------


def _coin_spec(**overrides):
    def coin(q: int) -> int:
        return q if random.random() < 0.75 else 1 - q

    fields = dict(
        name="float-coin",
        sampler=coin,
        parameters={"k": Integer(1, 1)},
        input=Input("q", values=lambda p: (0, 1), neighbours=1),
        claim=PureDp(alpha=Fraction(1, 3)),
        pmf=lambda p, q: {q: Fraction(3, 4), 1 - q: Fraction(1, 4)},
        randomness="module",
        enumeration=Exhaustive(),
        cases=(Case({"k": 1}, "proved", sample_inputs=()),),
    )
    fields.update(overrides)
    return Spec(**fields)


def test_float_bits_makes_float_code_exact_and_every_check_says_its_precision() -> None:
    outcome = run_case(_coin_spec(float_bits=4), _coin_spec().cases[0], seed=1, samples=100)
    assert outcome.met and outcome.checks
    assert all("2^-4 grid" in c.summary and c.evidence["float_bits"] == 4 for c in outcome.checks)
    full = run_case(_coin_spec(float_bits=2), _coin_spec().cases[0], seed=1, samples=100)
    assert all("float_bits=2" in c.summary for c in full.checks)


def test_float_bits_is_validated() -> None:
    with pytest.raises(SpecError, match="float_bits must be an int in"):
        _coin_spec(float_bits=0)
    with pytest.raises(SpecError, match="float_bits applies only"):
        _coin_spec(float_bits=8, randomness="source")


# --- the CKS20 reference implementation, unmodified ------------------------------------------------


def _judge(sampler, spec, parameter: Fraction, min_mass: str):
    return check_intervals(
        lambda rng: sampler(parameter, rng=RandomCompat(rng)),
        spec.ideal_probability,
        spec.outputs_for_check(),
        min_mass=min_mass,
        renew_states=True,
        procedures=True,
    )


def test_vendored_reference_is_unmodified_and_mutants_change_one_token() -> None:
    text = (ROOT / "examples" / "published" / "cks20" / "discretegauss.py").read_text()
    assert CKS.SOURCE == text and "k=k+1" in text
    assert CKS.REFERENCE.sample_dgauss.__code__.co_filename == "<cks20_discretegauss>"
    with pytest.raises(InvalidArgument, match="occurs 2 times"):
        CKS.mutated("k=k+1", "k=k+2")


def test_reference_dlaplace_proved_and_its_bug_violated() -> None:
    spec = DiscreteLaplaceSpec.create(1)
    proved = _judge(CKS.REFERENCE.sample_dlaplace, spec, Fraction(1), "1/10000")
    assert proved.verdict is Verdict.PROVED
    assert Fraction(proved.evidence["unexplored"]) < Fraction(1, 50)
    bug = _judge(CKS.GEOMETRIC_BY_TWO.sample_dlaplace, spec, Fraction(1), "1/10000")
    assert bug.verdict is Verdict.VIOLATED and bug.evidence["output"] in (-1, 1)


def test_reference_dgauss_proved_and_its_bug_violated() -> None:
    spec = DiscreteGaussianSpec.create(1)
    proved = _judge(CKS.REFERENCE.sample_dgauss, spec, Fraction(1), "1/10000")
    assert proved.verdict is Verdict.PROVED and Fraction(proved.evidence["unexplored"]) < Fraction(1, 5)
    bug = _judge(CKS.BIAS_PLUS_ONE.sample_dgauss, spec, Fraction(1), "1/10000")
    assert bug.verdict is Verdict.VIOLATED and bug.evidence["output"] in bug.evidence["violating_outputs"]


def test_module_level_sampler_cases_meet_their_expectations() -> None:
    for spec in (CKS.MODULE_RR, CKS.MODULE_RR_BUG):
        for case in spec.cases:
            outcome = run_case(spec, case, seed=3, samples=500)
            assert outcome.met, outcome.problems


@pytest.mark.slow
def test_spec_module_through_the_command_line(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    code = main(["check", "--spec-module", "examples.published.cks20_specs", "--seed", "1", "--samples", "2000"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "cks20-bug-bias-plus-one/sigma2=1: expect violated, got violated" in out


# --- procedure summaries: the published code as tightly as our own ---------------------------------


def test_reference_specs_are_proved_within_their_tightened_tolerance() -> None:
    for spec in (CKS.REFERENCE_DGAUSS, CKS.REFERENCE_BERNOULLI_EXP):
        outcome = run_case(spec, spec.cases[0], seed=3, samples=500)
        assert outcome.met, outcome.problems
        intervals = next(c for c in outcome.checks if c.check == "intervals")
        assert intervals.within is not None and intervals.within <= CKS.MAX_UNEXPLORED <= Fraction(1, 10**10)
        assert "summarised" in " ".join(intervals.evidence["procedures"].values())


def test_a_tenth_of_a_percent_off_in_the_acceptance_coin_is_violated() -> None:
    """What a width of 10^-2 called proved: the bias divided by 2.002 sigma2 instead of 2 sigma2."""
    result = _judge(
        CKS.BIAS_TENTH_PERCENT.sample_dgauss, DiscreteGaussianSpec.create(1), Fraction(1), "1/10000000000000"
    )
    assert result.verdict is Verdict.VIOLATED, result.summary


@pytest.mark.parametrize(
    "old, new", [("REFERENCE_DGAUSS", "REWRITE_DGAUSS"), ("REFERENCE_BERNOULLI_EXP", "REWRITE_BERNOULLI_EXP")]
)
def test_diff_proves_the_law_preserving_rewrites_equal(old: str, new: str, capsys: pytest.CaptureFixture[str]) -> None:
    module = "examples_published_cks20_specs"
    code = main(["diff", f"{module}:{old}", f"{module}:{new}", "--max-tv", "1/1000000000", "--search-examples", "0"])
    out = capsys.readouterr().out
    assert code == 0 and "dpverify diff: proved within TV <=" in out, out


def test_diff_tells_a_rewrite_that_changes_the_law_apart() -> None:
    module = "examples_published_cks20_specs"
    assert main(["diff", f"{module}:REFERENCE_DGAUSS", f"{module}:BUG_DGAUSS", "--search-examples", "0"]) == 1

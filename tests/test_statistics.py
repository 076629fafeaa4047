"""The statistical cross-check (DKW/Massart) of the real sampler against the exact PMF.

Every run prints its seed; a failing assertion shows the summary, which carries the seed and
the Python call that replays it.  The false-positive rate is 1e-9 per check, so these tests do
not flake; the power tests choose sizes where rejection is guaranteed up to that rate.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction

import mpmath
import pytest

from dpverify.samplers import InvalidArgument, RandomSource, gtm
from dpverify.specs import GtmSpec
from dpverify.verify import Verdict, code_distribution
from dpverify.verify.engine._statistics import _ln_upper, check_empirical, dkw_threshold

BETA = Fraction(1, 10**9)


def _run(spec: GtmSpec, q: int, **kwargs: object):
    result = check_empirical(spec, q, **kwargs)
    print(f"check_empirical seed={result.evidence['seed']}: {result.verdict.value}: {result.summary}")
    return result


def _cdf_distance(a: Mapping[Hashable, Fraction], b: Mapping[Hashable, Fraction]) -> Fraction:
    """``sup_x |F_a(x) - F_b(x)|`` for two exact PMFs on ordered outputs."""
    total_a = total_b = Fraction(0)
    best = Fraction(0)
    for x in sorted({*a, *b}):
        total_a += a.get(x, Fraction(0))
        total_b += b.get(x, Fraction(0))
        best = max(best, abs(total_a - total_b))
    return best


# --- the real sampler passes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("alpha", "n", "T", "q"),
    [
        ("1/3", 4, 4 * 3**4, 2),  # Theorem 7.1 instance: P_T == gtpmf
        ("1/2", 5, 10, 0),  # T below the support bound: some outputs have probability 0
        ("2/7", 3, 10**100, 3),  # huge T: the CSPRNG draws 333-bit numbers
        ("9/10", 8, 10**6, 4),
    ],
)
def test_real_gtm_sampler_is_consistent_with_its_exact_pmf(alpha: str, n: int, T: int, q: int) -> None:
    spec = GtmSpec.create(alpha, n, T)
    result = _run(spec, q)
    assert result.verdict is Verdict.PROVED, result.summary
    assert result.check == "statistical"
    evidence = result.evidence
    assert f"seed={evidence['seed']}" in result.summary
    assert evidence["sup_distance"] <= evidence["threshold"], result.summary
    assert evidence["detectable_distance"] == 2 * evidence["threshold"]
    assert evidence["samples"] == 20_000
    assert evidence["false_positive_rate"] == "1/1000000000"
    assert "consistent with the exact PMF (DKW, N=20000" in result.summary


def test_same_seed_replays_the_same_result_and_the_replay_line_runs() -> None:
    spec = GtmSpec.create("1/3", 3, 1000)
    first = _run(spec, 1, samples=2000, seed=12345)
    again = check_empirical(spec, 1, samples=2000, seed=12345)
    assert first == again, first.summary
    statements, _, call = first.evidence["replay"].rpartition("; ")
    namespace: dict[str, object] = {}
    exec(statements, namespace)  # noqa: S102 - the replay line is ours, built from the spec
    replayed = eval(call, namespace)  # noqa: S307
    assert replayed == first, first.evidence["replay"]
    assert f"seed={first.evidence['seed']}" in first.summary  # a pass names its seed; the replay is in evidence


def test_different_seeds_draw_different_samples() -> None:
    spec = GtmSpec.create("1/3", 3, 1000)
    sups = {check_empirical(spec, 1, samples=500, seed=s).evidence["sup_distance_exact"] for s in range(4)}
    assert len(sups) > 1


def test_too_few_samples_is_inconclusive_not_proved() -> None:
    spec = GtmSpec.create("1/3", 3, 1000)
    # 2t >= 1 iff N <= 2 ln(2/beta) ~ 42.8: no CDF discrepancy could be detected.
    result = _run(spec, 1, samples=42)
    assert result.verdict is Verdict.INCONCLUSIVE, result.summary
    assert result.reason is not None and "no power" in result.reason
    assert _run(spec, 1, samples=43).verdict is Verdict.PROVED


# --- DKW threshold and the logarithm bound -----------------------------------------------------


@pytest.mark.parametrize(
    "y", [Fraction(1), Fraction(2), Fraction(3, 2), Fraction(2 * 10**9), Fraction(7, 3), Fraction(10**400, 3)]
)
def test_ln_upper_is_a_tight_upper_bound(y: Fraction) -> None:
    with mpmath.workprec(600):
        true = mpmath.log(mpmath.mpf(y.numerator) / y.denominator)
        bound = _ln_upper(y)
        excess = mpmath.mpf(bound.numerator) / bound.denominator - true
        assert excess >= 0, (y, excess)
        assert excess < mpmath.mpf(10) ** -35, (y, excess)


@pytest.mark.parametrize(("samples", "beta"), [(1, Fraction(1, 2)), (20_000, BETA), (10**7, Fraction(1, 10**30))])
def test_dkw_threshold_meets_the_false_positive_budget(samples: int, beta: Fraction) -> None:
    t_squared, t = dkw_threshold(samples, beta)
    with mpmath.workprec(400):
        bound = 2 * mpmath.exp(-2 * samples * mpmath.mpf(t_squared.numerator) / t_squared.denominator)
        beta_mp = mpmath.mpf(beta.numerator) / beta.denominator
        assert bound <= beta_mp  # Massart: P(false rejection) <= 2 exp(-2 N t^2) <= beta
        assert bound > beta_mp * (1 - mpmath.mpf(10) ** -30)  # and not needlessly conservative
        assert mpmath.exp(-2 * samples * mpmath.mpf(t) ** 2) <= 0.5 + 1e-12  # Massart's condition
    assert t == pytest.approx(float(mpmath.sqrt(mpmath.log(2 / mpmath.mpf(float(beta))) / (2 * samples))))


def test_smaller_false_positive_rate_means_larger_threshold() -> None:
    spec = GtmSpec.create("1/3", 3, 1000)
    loose = check_empirical(spec, 0, samples=1000, seed=1, false_positive_rate="1/100")
    strict = check_empirical(spec, 0, samples=1000, seed=1, false_positive_rate=Fraction(1, 10**12))
    assert loose.evidence["threshold"] < strict.evidence["threshold"]
    assert loose.evidence["sup_distance"] == strict.evidence["sup_distance"]  # same seed, same draws


# --- power: wrong samplers are rejected ---------------------------------------------------------


class _WrongAlphaGtm(GtmSpec):
    """Claims ``alpha`` but samples with alpha = 1/2."""

    def run(self, q: int, rng: RandomSource) -> int:
        return gtm.sample(Fraction(1, 2), self.n, q, self.T, rng)


class _ClippedShiftGtm(GtmSpec):
    """Returns ``min(x + 1, n)``: every output stays in range."""

    def run(self, q: int, rng: RandomSource) -> int:
        return min(super().run(q, rng) + 1, self.n)


class _ShiftGtm(GtmSpec):
    """Returns ``x + 1``, so ``n + 1`` occurs although the spec gives it probability 0."""

    def run(self, q: int, rng: RandomSource) -> int:
        return super().run(q, rng) + 1


@pytest.mark.parametrize(
    ("wrong", "q"),
    [
        (_WrongAlphaGtm.create("1/3", 4, 4 * 3**4), 0),
        (_WrongAlphaGtm.create("1/3", 4, 4 * 3**4), 2),
        (_ClippedShiftGtm.create("2/5", 6, 10**40), 3),
    ],
)
def test_a_wrong_sampler_is_rejected_when_its_cdf_gap_exceeds_2t(wrong: GtmSpec, q: int) -> None:
    samples = 20_000
    t_squared, _ = dkw_threshold(samples, BETA)
    true_masses = code_distribution(wrong, q).masses  # the wrong code's exact distribution
    claimed = wrong.pmf(q).as_dict()
    gap = _cdf_distance(true_masses, claimed)
    # Rejection is guaranteed up to beta only if the gap exceeds 2t: check it, exactly.
    assert gap * gap > 4 * t_squared, f"test setup: gap {float(gap)} is not above 2t"
    result = _run(wrong, q, samples=samples)
    assert result.verdict is Verdict.VIOLATED, result.summary
    evidence = result.evidence
    output = evidence["output"]
    assert Fraction(evidence["exact_cdf"]) == sum(p for x, p in claimed.items() if x <= output)
    assert abs(Fraction(evidence["empirical_cdf"]) - Fraction(evidence["exact_cdf"])) > evidence["threshold"]
    assert evidence["sup_distance"] > evidence["threshold"]
    assert "departs from the exact PMF" in result.summary
    assert f"seed={evidence['seed']}" in result.summary


def test_an_output_the_spec_forbids_is_a_certain_violation() -> None:
    wrong = _ShiftGtm.create("1/3", 3, 1000)
    result = _run(wrong, 3, samples=2000)  # P(x = n | q = n) = 3/4: n + 1 appears at once
    assert result.verdict is Verdict.VIOLATED, result.summary
    assert result.evidence["output"] == 4
    assert result.evidence["exact_p"] == "0"
    assert result.evidence["count"] > 0
    assert "probability 0" in result.summary


# --- arguments --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"samples": 0}, "samples=0"),
        ({"samples": -5}, "samples=-5"),
        ({"samples": 1.5}, "samples=1.5"),
        ({"samples": True}, "samples=True"),
        ({"samples": "many"}, "samples='many'"),
        ({"seed": -1}, "seed=-1"),
        ({"seed": 2.0}, "seed=2.0"),
        ({"seed": "x"}, "seed='x'"),
        ({"false_positive_rate": 0}, "false_positive_rate=0"),
        ({"false_positive_rate": 1}, "false_positive_rate=1"),
        ({"false_positive_rate": "3/2"}, "false_positive_rate=3/2"),
        ({"false_positive_rate": 0.001}, "false_positive_rate=0.001"),
        ({"false_positive_rate": "often"}, "false_positive_rate='often'"),
        ({"q": -1}, "q=-1"),
        ({"q": 4}, "q=4"),
        ({"q": True}, "q=True"),
        ({"q": "0"}, "q='0'"),
    ],
)
def test_bad_arguments_raise_invalid_argument(kwargs: dict[str, object], needle: str) -> None:
    spec = GtmSpec.create("1/3", 3, 1000)
    q = kwargs.pop("q", 0)
    with pytest.raises(InvalidArgument) as caught:
        check_empirical(spec, q, **kwargs)  # type: ignore[arg-type]
    message = str(caught.value)
    assert needle in message, message
    assert "\n" not in message


def test_spec_must_be_a_mechanism_spec() -> None:
    with pytest.raises(InvalidArgument, match="spec must be a MechanismSpec"):
        check_empirical("gtm", 0)  # type: ignore[arg-type]

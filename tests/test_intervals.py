"""Bounded enumeration of rejection samplers and interval proofs against irrational ideal PMFs.

The ideal PMFs here are this file's own closed forms, evaluated in mpmath interval arithmetic
(independent of the specs package):

- Bernoulli(exp(-gamma)):  P(True) = e^-gamma (CKS20 Algorithm 1);
- discrete Laplace, scale b:  P(z) = (e^(1/b) - 1)/(e^(1/b) + 1) * e^(-|z|/b) (Algorithm 2);
- discrete Gaussian, sigma2:  P(z) = e^(-z^2/(2 sigma2)) / sum_y e^(-y^2/(2 sigma2))
  (Algorithm 3), the normaliser enclosed by a truncated sum plus a geometric tail bound.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import mpmath
import pytest
from mpmath import iv

from dpverify.samplers import InvalidArgument, RandomSource, discrete_gaussian, discrete_laplace
from dpverify.samplers.bernoulli import _bernoulli_exp_ratio
from dpverify.verify import enumerate_outputs
from dpverify.verify.engine._intervals import check_intervals, enclosure_bound

Ideal = Callable[[Hashable, int], tuple[mpmath.mpf, mpmath.mpf]]


# -- ideal PMFs: rigorous enclosures with mpmath intervals -------------------------------------


@contextmanager
def _digits(dps: int) -> Iterator[None]:
    old = iv.prec
    iv.dps = dps + 10
    try:
        yield
    finally:
        iv.prec = old


def _iv(x: Fraction | int) -> Any:
    x = Fraction(x)
    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


def _ends(x: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    return mpmath.mp.make_mpf(x._mpi_[0]), mpmath.mp.make_mpf(x._mpi_[1])


def bernoulli_exp_ideal(gamma: Fraction) -> Ideal:
    def ideal(output: Hashable, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        with _digits(dps):
            p = iv.exp(-_iv(gamma))
            return _ends(p if output else 1 - p)

    return ideal


def laplace_ideal(b: Fraction) -> Ideal:
    def ideal(z: Hashable, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        assert isinstance(z, int)
        with _digits(dps):
            q = iv.exp(-1 / _iv(b))
            return _ends((1 - q) / (1 + q) * q ** abs(z))

    return ideal


def gaussian_ideal(sigma2: Fraction, cutoff: int = 60) -> Ideal:
    def ideal(z: Hashable, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        assert isinstance(z, int)
        with _digits(dps):
            s = 2 * _iv(sigma2)
            head = sum((iv.exp(-_iv(y * y) / s) for y in range(-cutoff, cutoff + 1)), iv.mpf(0))
            # Terms beyond the cutoff shrink at least geometrically, with ratio r below.
            first = iv.exp(-_iv((cutoff + 1) ** 2) / s)
            r = iv.exp(-_iv(2 * cutoff + 3) / s)
            normaliser = iv.mpf([head.a, (head + 2 * first / (1 - r)).b])
            return _ends(iv.exp(-_iv(z * z) / s) / normaliser)

    return ideal


def _laplace(scale: Fraction) -> Callable[[RandomSource], int]:
    return lambda rng: discrete_laplace._sample_scaled(scale.denominator, scale.numerator, rng)


def _gaussian(sigma2: Fraction) -> Callable[[RandomSource], int]:
    return lambda rng: discrete_gaussian._sample(sigma2.numerator, sigma2.denominator, rng)


def _unexplored(result: Any) -> Fraction:
    return Fraction(result.evidence["unexplored"])


# -- the mass budget of the enumerator ---------------------------------------------------------


def _mixed(rng: RandomSource) -> tuple[int, int]:
    """A finite sampler mixing uniform and biased choices, with paths of different lengths."""
    first = rng.randbelow(3)
    second = rng.bernoulli(1, 7) + rng.bernoulli(2, 5) if first else rng.randbelow(4)
    return first, second


def _geometric(rng: RandomSource) -> int:
    k = 0
    while rng.bernoulli(1, 3):
        k += 1
    return k


@pytest.mark.parametrize("min_mass", [Fraction(1, 10), Fraction(1, 30), Fraction(1, 50), Fraction(1, 100)])
def test_min_mass_gives_exact_intervals_around_the_exhaustive_pmf(min_mass: Fraction) -> None:
    full = enumerate_outputs(_mixed)
    cut = enumerate_outputs(_mixed, min_mass=min_mass)
    assert full.exhausted and sum(cut.masses.values()) + cut.unexplored == 1
    for output, p in full.masses.items():
        assert cut.masses.get(output, 0) <= p <= cut.masses.get(output, 0) + cut.unexplored
    assert cut.stopped == ("exhausted" if cut.unexplored == 0 else "budget")


def test_min_mass_enters_exactly_the_branches_at_least_that_heavy() -> None:
    # Prefix masses: (0, j) 1/12; (i, True) 1/21, then 2/105 and 3/105; (i, False) 2/7, then
    # 4/35 and 6/35.  At 1/30 the node under (i, True) has both branches too light.
    cut = enumerate_outputs(_mixed, min_mass=Fraction(1, 30))
    expected = {(0, j): Fraction(1, 12) for j in range(4)}
    expected |= {(i, s): m for i in (1, 2) for s, m in ((1, Fraction(4, 35)), (0, Fraction(6, 35)))}
    assert cut.masses == expected and cut.unexplored == Fraction(2, 21)


def test_min_mass_prunes_an_unbounded_loop_with_the_exact_remainder() -> None:
    found = enumerate_outputs(_geometric, min_mass=Fraction(1, 1000))
    # P(k) = (1/3)^k (2/3), the mass of the whole path to k: explored while >= 1/1000, i.e.
    # for k <= 5; the rest, (1/3)^6, is the exact remainder.
    assert found.masses == {k: Fraction(2, 3 ** (k + 1)) for k in range(6)}
    assert found.unexplored == Fraction(1, 3**6) and found.stopped == "budget"


def test_joint_records_the_number_of_draws_per_path() -> None:
    found = enumerate_outputs(_geometric, max_depth=6)
    assert found.joint == {(k, k + 1): Fraction(2, 3 ** (k + 1)) for k in range(6)}


def test_pruning_cannot_be_swallowed_by_the_sampler() -> None:
    def defensive(rng: RandomSource) -> int:
        try:
            return _geometric(rng)
        except Exception:  # a sampler's own handler must not catch the cut
            return -1

    assert -1 not in enumerate_outputs(defensive, min_mass=Fraction(1, 100)).masses


def test_min_mass_is_validated() -> None:
    with pytest.raises(ValueError, match="min_mass must be a rational in"):
        enumerate_outputs(_geometric, min_mass=1)


# -- proofs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 2), Fraction(1), Fraction(5, 3)])
def test_bernoulli_exp_is_proved(gamma: Fraction) -> None:
    result = check_intervals(
        lambda rng: _bernoulli_exp_ratio(gamma.numerator, gamma.denominator, rng),
        bernoulli_exp_ideal(gamma),
        (True, False),
        min_mass=Fraction(1, 10**9),
    )
    assert result.verdict.value == "proved", result.summary
    assert _unexplored(result) <= Fraction(1, 10**8)


# (scale, outputs |z| <= R, min_mass, bound on the unexplored mass U reached at that budget)
LAPLACE = [
    (Fraction(1), 10, Fraction(1, 10**7), Fraction(1, 10**3)),
    (Fraction(3, 2), 8, Fraction(1, 10**6), Fraction(5, 100)),
]


@pytest.mark.parametrize(("scale", "R", "min_mass", "U"), LAPLACE)
def test_discrete_laplace_is_proved(scale: Fraction, R: int, min_mass: Fraction, U: Fraction) -> None:
    result = check_intervals(_laplace(scale), laplace_ideal(scale), range(-R, R + 1), min_mass=min_mass)
    assert result.verdict.value == "proved", result.summary
    assert _unexplored(result) <= U


# The discrete Gaussian's rejection loop spreads mass over many light paths, so at 10^-6 the
# proof holds with a wide U (0.27 for sigma2 = 1, 0.15 for 5/2): P_code is within U of ideal.
@pytest.mark.parametrize(("sigma2", "U"), [(Fraction(1), Fraction(3, 10)), (Fraction(5, 2), Fraction(2, 10))])
def test_discrete_gaussian_is_proved(sigma2: Fraction, U: Fraction) -> None:
    result = check_intervals(_gaussian(sigma2), gaussian_ideal(sigma2), range(-6, 7), min_mass=Fraction(1, 10**6))
    assert result.verdict.value == "proved", result.summary
    assert _unexplored(result) <= U


# -- mutants and wrong ideals are refuted ------------------------------------------------------


class OffByOne(RandomSource):
    """Forwards every draw to ``inner``, but answers ``bernoulli(num, den)`` with
    ``inner.bernoulli(num + 1, den)`` when ``0 < num < den`` and ``applies(num, den)``: a
    one-unit error in a Bernoulli threshold, as a big-number division that is off by one
    would make.  The real sampler code runs unchanged on top of it."""

    def __init__(self, inner: RandomSource, applies: Callable[[int, int], bool] = lambda num, den: True) -> None:
        self.inner = inner
        self.applies = applies

    def randbelow(self, n: int) -> int:
        return self.inner.randbelow(n)

    def bernoulli(self, num: int, den: int) -> bool:
        if 0 < num < den and self.applies(num, den):
            num += 1
        return self.inner.bernoulli(num, den)


def _assert_violated_with_evidence(result: Any) -> None:
    assert result.verdict.value == "violated", result.summary
    evidence = result.evidence
    assert isinstance(evidence["output"], int)
    assert Fraction(evidence["gap"]) > 0 and float(evidence["gap_decimal"]) > 0
    assert {"explored", "explored_decimal", "upper_decimal", "ideal_lo_decimal", "ideal_hi_decimal"} <= set(evidence)
    json.dumps(result.to_json())


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2)])
def test_every_threshold_off_by_one_is_caught(scale: Fraction) -> None:
    def mutant(rng: RandomSource) -> int:
        return discrete_laplace._sample_scaled(scale.denominator, scale.numerator, OffByOne(rng))

    result = check_intervals(mutant, laplace_ideal(scale), range(-8, 9), min_mass=Fraction(1, 10**5))
    _assert_violated_with_evidence(result)


def test_one_acceptance_threshold_off_by_one_is_caught() -> None:
    """Only the [DLAP-accept] coins A_k ~ Bernoulli((U/t)/k) = bernoulli(U, t*k) with U = 2,
    t = 3 are off by one (no other coin of scale 3/2 has numerator 2)."""
    scale = Fraction(3, 2)

    def mutant(rng: RandomSource) -> int:
        return discrete_laplace._sample_scaled(2, 3, OffByOne(rng, lambda num, den: num == 2 and den % 3 == 0))

    result = check_intervals(mutant, laplace_ideal(scale), range(-8, 9), min_mass=Fraction(1, 10**6))
    _assert_violated_with_evidence(result)
    assert result.evidence["output"] == 0
    assert "more mass than the ideal" in result.evidence["side"]


def test_gaussian_with_every_threshold_off_by_one_is_caught() -> None:
    def mutant(rng: RandomSource) -> int:
        return discrete_gaussian._sample(5, 2, OffByOne(rng))

    result = check_intervals(mutant, gaussian_ideal(Fraction(5, 2)), range(-6, 7), min_mass=Fraction(1, 10**5))
    _assert_violated_with_evidence(result)


def test_an_ideal_one_percent_off_in_scale_is_refuted() -> None:
    """Code at scale 1, ideal at scale 101/100: P(0) differs by 0.00390, and the explored mass
    of 0 alone exceeds the ideal (U = 0.0026 at this budget, irrelevant at the lower end).
    The reported gap, explored minus ideal, is a lower bound on the true difference."""
    result = check_intervals(
        _laplace(Fraction(1)), laplace_ideal(Fraction(101, 100)), range(-10, 11), min_mass=Fraction(1, 10**6)
    )
    _assert_violated_with_evidence(result)
    assert result.evidence["output"] == 0
    assert 0.0035 < float(result.evidence["gap_decimal"]) < 0.00391


# -- inconclusive, contracts, exact comparisons ------------------------------------------------


def test_a_proof_with_too_much_unexplored_mass_is_inconclusive_on_request() -> None:
    result = check_intervals(
        _laplace(Fraction(1)),
        laplace_ideal(Fraction(1)),
        range(-3, 4),
        min_mass=Fraction(1, 100),
        max_unexplored=Fraction(1, 1000),
    )
    assert result.verdict.value == "inconclusive" and "budget too small" in result.reason
    assert "min_mass" in result.reason


def test_comparisons_are_exact_and_a_straddling_enclosure_is_inconclusive() -> None:
    third = lambda rng: rng.bernoulli(1, 3)  # noqa: E731 - exhausted: E(True) = 1/3, U = 0
    exact = lambda o, dps: (Fraction(1, 3), Fraction(1, 3)) if o else (Fraction(2, 3), Fraction(2, 3))  # noqa: E731
    assert check_intervals(third, exact, (True, False)).verdict.value == "proved"
    tiny = Fraction(1, 10**40)
    straddle = lambda o, dps: (Fraction(1, 3) - tiny, Fraction(1, 3) + tiny) if o else exact(o, dps)  # noqa: E731
    result = check_intervals(third, straddle, (True, False))
    assert result.verdict.value == "inconclusive" and "raise dps" in result.reason
    # mpf(1/3) at 50 digits is a binary rational, not 1/3; a point enclosure there is wrong
    # by about 1e-50, and only an exact comparison sees it (a rounded one calls them equal).
    with mpmath.workdps(50):
        third_mpf = mpmath.mpf(1) / 3
    rounded = lambda o, dps: (third_mpf, third_mpf) if o else exact(o, dps)  # noqa: E731
    assert check_intervals(third, rounded, (True, False)).verdict.value == "violated"


def test_enclosure_ends_are_read_exactly() -> None:
    with mpmath.workdps(60):
        x = mpmath.mpf(2) / 3
    man, exp = x.man_exp
    assert enclosure_bound(x, upper=False) == Fraction(int(man)) * Fraction(2) ** int(exp)
    interval = iv.mpf([Fraction(1, 3).numerator, 1]) / 3  # [1/3, 1/3] rounded outwards
    low, high = enclosure_bound(interval, upper=False), enclosure_bound(interval, upper=True)
    assert low < Fraction(1, 3) < high
    with pytest.raises(InvalidArgument, match="ideal"):
        enclosure_bound(0.5, upper=True)


def test_a_crashing_sampler_is_a_violation() -> None:
    def crashes(rng: RandomSource) -> int:
        return 1 // rng.randbelow(2)

    result = check_intervals(crashes, lambda o, dps: (Fraction(0), Fraction(1)), (1,))
    assert result.verdict.value == "violated" and result.evidence["draws"] == [0]


def test_a_sampler_that_never_returns_is_inconclusive_not_vacuously_proved() -> None:
    def spins(rng: RandomSource) -> int:
        while True:
            rng.randbelow(2)

    result = check_intervals(spins, laplace_ideal(Fraction(1)), range(-3, 4), min_mass=Fraction(1, 10**4))
    assert result.verdict.value == "inconclusive" and "never terminate" in result.summary

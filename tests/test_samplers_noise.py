"""The exact noise samplers' contracts: validation, batch forms, exact integers at any scale."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import InvalidArgument, SeededRandomSource, discrete_gaussian, discrete_laplace
from dpverify.samplers.bernoulli import bernoulli, bernoulli_exp, bernoulli_exp_many, bernoulli_many
from dpverify.verify import enumerate_outputs


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: discrete_laplace.sample(1.5), r"scale must be an exact rational; got scale=1\.5 \(a float\)"),
        (lambda: discrete_laplace.sample(0), r"scale must be a rational > 0; got scale=0"),
        (lambda: discrete_laplace.sample("-1/2"), r"scale must be a rational > 0; got scale=-1/2"),
        (lambda: discrete_laplace.sample_many(1, -1), r"k must be an integer with k >= 0; got k=-1"),
        (lambda: discrete_gaussian.sample(2.0), r"sigma2 must be an exact rational; got sigma2=2\.0 \(a float\)"),
        (lambda: discrete_gaussian.sample("0"), r"sigma2 must be a rational > 0; got sigma2=0"),
        (lambda: discrete_gaussian.sample_many(1, 2.0), r"k must be an exact rational; got k=2\.0 \(a float\)"),
        (lambda: bernoulli("3/2"), r"p must be a rational in \[0, 1\]; got p=3/2"),
        (lambda: bernoulli_exp(-1), r"gamma must be a rational >= 0; got gamma=-1"),
        (lambda: bernoulli_exp(0.5), r"gamma must be an exact rational; got gamma=0\.5 \(a float\)"),
    ],
)
def test_bad_parameters_are_refused_with_one_line(call, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("sigma2", [1, "7/3", 10**6, 10**100])
def test_gaussian_batch_returns_exact_python_ints(sigma2: object) -> None:
    draws = discrete_gaussian.sample_many(sigma2, 200, SeededRandomSource(5))
    assert len(draws) == 200 and all(type(z) is int for z in draws)


def test_gaussian_at_sigma2_10_100_is_not_saturated() -> None:
    draws = discrete_gaussian.sample_many(10**100, 400, SeededRandomSource(11))
    magnitudes = sorted(abs(z) for z in draws)
    median = magnitudes[len(magnitudes) // 2]
    # |Z| has median about 0.674 * sigma = 6.7e49; far outside int64 or float precision.
    assert 10**49 < median < 10**51
    assert len(set(draws)) == len(draws)  # no clipping to a few saturated values


def test_laplace_batch_matches_repeated_single_draws() -> None:
    batch = discrete_laplace.sample_many("3/2", 50, SeededRandomSource(3))
    single_source = SeededRandomSource(3)
    assert batch == [discrete_laplace.sample("3/2", single_source) for _ in range(50)]


def test_empty_batch() -> None:
    assert discrete_gaussian.sample_many(1, 0) == [] and discrete_laplace.sample_many(1, 0) == []


@pytest.mark.parametrize("p", [Fraction(0), Fraction(1, 3), Fraction(1)])
def test_bernoulli_is_exact_under_enumeration(p: Fraction) -> None:
    found = enumerate_outputs(lambda rng: bernoulli(p, rng))
    assert found.masses.get(True, 0) == p and found.exhausted


def test_bernoulli_exp_of_zero_is_certain() -> None:
    found = enumerate_outputs(lambda rng: bernoulli_exp(0, rng))
    assert found.masses == {True: 1} and found.exhausted


def test_bernoulli_batch_forms_match_repeated_single_draws() -> None:
    single = SeededRandomSource(2)
    assert bernoulli_many("1/3", 30, SeededRandomSource(2)) == [bernoulli("1/3", single) for _ in range(30)]
    single = SeededRandomSource(4)
    assert bernoulli_exp_many("5/3", 30, SeededRandomSource(4)) == [bernoulli_exp("5/3", single) for _ in range(30)]
    assert all(bernoulli_exp_many(0, 20)) and not any(bernoulli_many(0, 20))
    assert bernoulli_exp_many("5/3", 0) == []

"""One conformance suite for every RandomSource: production, replayable and enumerating."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from dpverify.samplers import InvalidArgument, RandomSource, SeededRandomSource, SystemRandomSource
from dpverify.verify import enumerate_outputs

SOURCES: dict[str, Callable[[], RandomSource]] = {
    "system": SystemRandomSource,
    "seeded": lambda: SeededRandomSource(20261123),
}


@pytest.fixture(params=sorted(SOURCES))
def source(request: pytest.FixtureRequest) -> RandomSource:
    return SOURCES[request.param]()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 2**64 + 1, 10**100])
def test_randbelow_stays_in_range(source: RandomSource, n: int) -> None:
    assert all(0 <= source.randbelow(n) < n for _ in range(200))


def test_randbelow_one_is_zero(source: RandomSource) -> None:
    assert source.randbelow(1) == 0


def test_certain_bernoulli_outcomes(source: RandomSource) -> None:
    assert not any(source.bernoulli(0, 5) for _ in range(50))
    assert all(source.bernoulli(5, 5) for _ in range(50))


@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "3"])
def test_randbelow_refuses_bad_n(source: RandomSource, bad: object) -> None:
    with pytest.raises(InvalidArgument, match="randbelow"):
        source.randbelow(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("num", "den"), [(-1, 2), (3, 2), (1, 0), (0.5, 1)])
def test_bernoulli_refuses_bad_arguments(source: RandomSource, num: object, den: object) -> None:
    with pytest.raises(InvalidArgument, match="bernoulli"):
        source.bernoulli(num, den)  # type: ignore[arg-type]


def test_seeded_source_replays() -> None:
    first = [SeededRandomSource(7).randbelow(10**30) for _ in range(3)]
    again = SeededRandomSource(7)
    assert [again.randbelow(10**30) for _ in range(3)][0] == first[0]
    assert SeededRandomSource(8).randbelow(10**30) != first[0]


def test_seeded_source_refuses_bad_seed() -> None:
    with pytest.raises(InvalidArgument, match="seed"):
        SeededRandomSource(-1)


# The enumerating source must honour the same contract, as exact distributions.


def test_enumerated_randbelow_is_exactly_uniform() -> None:
    found = enumerate_outputs(lambda rng: rng.randbelow(6))
    assert found.masses == {k: Fraction(1, 6) for k in range(6)} and found.exhausted


def test_enumerated_randbelow_one_is_a_single_path() -> None:
    found = enumerate_outputs(lambda rng: rng.randbelow(1))
    assert found.masses == {0: Fraction(1)} and found.paths == 1


def test_enumerated_bernoulli_branches_two_ways_with_exact_weights() -> None:
    found = enumerate_outputs(lambda rng: rng.bernoulli(2, 7))
    assert found.masses == {True: Fraction(2, 7), False: Fraction(5, 7)}
    assert found.paths == 2


def test_enumerated_certain_bernoulli() -> None:
    assert enumerate_outputs(lambda rng: rng.bernoulli(0, 3)).masses == {False: 1}
    assert enumerate_outputs(lambda rng: rng.bernoulli(3, 3)).masses == {True: 1}


def test_enumerating_source_refuses_bad_arguments_as_a_crash_of_the_code() -> None:
    from dpverify.verify.engine._enumeration import SamplerCrashed

    for sampler, call in ((lambda rng: rng.randbelow(0), "randbelow"), (lambda rng: rng.bernoulli(4, 3), "bernoulli")):
        with pytest.raises(SamplerCrashed, match=call) as crashed:
            enumerate_outputs(sampler)
        assert isinstance(crashed.value.error, InvalidArgument) and crashed.value.draws == []


# The production source turns 64-bit words into draws; pin its boundary cases with fixed words.


@pytest.fixture
def words(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Words the system source will pop, last first (as ``list.pop`` does)."""
    import dpverify.samplers._random_source as module

    queue: list[int] = []
    monkeypatch.setattr(module, "_pop", queue.pop)
    return queue


def test_system_bernoulli_half_splits_exactly_at_the_cut(words: list[int]) -> None:
    source = SystemRandomSource()
    words[:] = [2**63 - 1]
    assert source.bernoulli(1, 2) is True  # U < 1/2
    words[:] = [2**63]
    assert source.bernoulli(1, 2) is False  # U >= 1/2, and 1/2 has no bits left


def test_system_bernoulli_ties_continue_to_the_next_word(words: list[int]) -> None:
    source = SystemRandomSource()
    cut = 2**64 // 3  # 1/3 = 0.0101... in binary: every word of its expansion is this cut
    words[:] = [cut - 1, cut]  # tie on the first word, then below
    assert source.bernoulli(1, 3) is True and words == []
    words[:] = [cut + 1, cut]  # tie, then above
    assert source.bernoulli(1, 3) is False and words == []


def test_system_randbelow_rejects_values_at_or_above_n(words: list[int]) -> None:
    source = SystemRandomSource()
    # n = 5 uses the top 3 bits of a word: 7 and 5 are rejected, 4 is kept.
    words[:] = [4 << 61, 5 << 61, 7 << 61]
    assert source.randbelow(5) == 4 and words == []


# --- a source that breaks its contract is caught at the draw -----------------------------------


class _ReturnsN(RandomSource):
    def randbelow(self, n: int) -> int:
        return n


class _ReturnsFloat(RandomSource):
    def randbelow(self, n: int) -> int:
        return 0.0  # type: ignore[return-value]


class _Raises(RandomSource):
    def randbelow(self, n: int) -> int:
        raise KeyError("gone")


class _BernoulliInt(RandomSource):
    def randbelow(self, n: int) -> int:
        return 0

    def bernoulli(self, num: int, den: int) -> bool:
        return 1  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (_ReturnsN, "_ReturnsN.randbelow(1) returned 1; a RandomSource must return an int in [0, n)"),
        (_ReturnsFloat, "_ReturnsFloat.randbelow(1) returned 0.0"),
        (_Raises, "_Raises.randbelow(1) raised KeyError"),
        (_BernoulliInt, "returned 1; a RandomSource must return a bool"),
    ],
)
def test_a_source_that_breaks_its_contract_stops_the_sampler_at_the_draw(source: type, message: str) -> None:
    from dpverify.samplers import SamplerContractError, discrete_laplace

    # discrete_laplace loops until a draw accepts: a source out of range would loop for ever
    with pytest.raises(SamplerContractError) as raised:
        discrete_laplace.sample(1, source())
    assert message in str(raised.value)


def test_the_package_sources_are_trusted_and_unwrapped() -> None:
    assert not getattr(SystemRandomSource.randbelow, "guarded", False)
    assert not getattr(SeededRandomSource.randbelow, "guarded", False)
    assert getattr(_ReturnsN.randbelow, "guarded", False)

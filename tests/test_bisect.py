"""The galloping search over a single draw against the plain bisection and exhaustive enumeration."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import RandomSource, SamplerContractError, gtm
from dpverify.verify import bisect_outputs, enumerate_outputs
from dpverify.verify.engine._bisect import _bisect_outputs_one_by_one, absent_between, last_where, run_of


def _steps(T: int, ends: list[int], outputs: list[object]) -> Callable[[RandomSource], object]:
    """A step function of the draw: ``outputs[i]`` on the draws up to ``ends[i]``."""

    def sampler(rng: RandomSource) -> object:
        j = rng.randbelow(T)
        return next(y for end, y in zip(ends, outputs, strict=True) if j <= end)

    return sampler


def _gtm(alpha: str, n: int, q: int, T: int) -> Callable[[RandomSource], int]:
    return lambda rng: gtm.sample(alpha, n, q, T, rng)


@pytest.mark.parametrize(
    ("alpha", "n", "q", "T"),
    [
        ("1/3", 5, 2, 10**100),
        ("1/3", 40, 0, 10**100),
        ("1/3", 40, 40, 10**100),
        ("1/2", 60, 17, 10**30),
        ("2/5", 30, 15, 2**64 + 1),
        ("9/10", 50, 25, 10**40),
        ("1/100", 20, 10, 10**60),
        ("99/100", 80, 3, 10**9),
        ("1/7", 12, 6, 7**13 * 8),
        ("1/3", 200, 100, 10**100),
        ("1/3", 8, 4, 3),
        ("1/2", 3, 1, 1),
    ],
)
def test_gtm_search_equals_the_plain_bisection(alpha: str, n: int, q: int, T: int) -> None:
    new, old = bisect_outputs(_gtm(alpha, n, q, T), T), _bisect_outputs_one_by_one(_gtm(alpha, n, q, T), T)
    assert new.masses == old.masses and sum(new.masses.values()) == 1
    assert list(new.masses) == list(old.masses)  # in draw order, as before
    assert new.executions <= old.executions + 26 * len(new.masses) + 2


@pytest.mark.parametrize("T", [1, 2, 5, 64, 333, 1000, 4096])
@pytest.mark.parametrize(("alpha", "n", "q"), [("1/3", 6, 3), ("1/2", 10, 0), ("4/5", 7, 7), ("1/9", 3, 1)])
def test_gtm_search_equals_exhaustive_enumeration(alpha: str, n: int, q: int, T: int) -> None:
    assert bisect_outputs(_gtm(alpha, n, q, T), T).masses == enumerate_outputs(_gtm(alpha, n, q, T)).masses


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=30), st.data())
def test_any_monotone_step_function_is_found_exactly(lengths: list[int], data: st.DataObject) -> None:
    T = sum(lengths)
    ends = [sum(lengths[: i + 1]) - 1 for i in range(len(lengths))]
    outputs = data.draw(st.sampled_from([list(range(len(lengths))), [f"x{i}" for i in range(len(lengths))]]))
    sampler = _steps(T, ends, outputs)
    expected = {y: Fraction(length, T) for y, length in zip(outputs, lengths, strict=True)}
    assert bisect_outputs(sampler, T).masses == expected == _bisect_outputs_one_by_one(sampler, T).masses
    assert bisect_outputs(sampler, T).masses == enumerate_outputs(sampler).masses


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 10**30), min_size=1, max_size=25))
def test_huge_ranges_of_any_lengths(lengths: list[int]) -> None:
    T = sum(lengths)
    ends = [sum(lengths[: i + 1]) - 1 for i in range(len(lengths))]
    sampler = _steps(T, ends, list(range(len(lengths))))
    found = bisect_outputs(sampler, T)
    assert found.masses == {i: Fraction(length, T) for i, length in enumerate(lengths)}
    assert found.masses == _bisect_outputs_one_by_one(sampler, T).masses


_NON_MONOTONE: list[tuple[str, int, Callable[[int], object]]] = [
    ("parity", 64, lambda j: j % 2),
    ("returns to the first output", 1000, lambda j: 0 if j < 300 or j > 700 else 1),
    ("decreasing", 100, lambda j: 100 - j if j % 3 else j),
    ("saw-tooth", 10**20, lambda j: j % 1000 // 100),
    ("one output comes back at the end", 10**6, lambda j: min(j // 1000, 7) if j < 10**6 - 1 else 0),
]


@pytest.mark.parametrize(("name", "T", "output"), _NON_MONOTONE, ids=[c[0] for c in _NON_MONOTONE])
def test_non_monotone_samplers_are_refused_by_both(name: str, T: int, output: Callable[[int], object]) -> None:
    sampler = lambda rng: output(rng.randbelow(T))  # noqa: E731
    with pytest.raises(SamplerContractError, match="not monotone"):
        _bisect_outputs_one_by_one(sampler, T)
    with pytest.raises(SamplerContractError, match="not monotone"):
        bisect_outputs(sampler, T)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60))
def test_a_search_that_returns_found_every_output_it_met(values: list[int]) -> None:
    """Neither search probes every draw, so each misses some non-monotone code (at different draws);
    a monotone table is found exactly, and a returned PMF of any table is a distribution."""
    T = len(values)
    sampler = lambda rng: values[rng.randbelow(T)]  # noqa: E731
    try:
        found = bisect_outputs(sampler, T).masses
    except SamplerContractError:
        assert values != sorted(values)
        return
    assert sum(found.values()) == 1
    if values == sorted(values):
        assert found == {y: Fraction(values.count(y), T) for y in values}


def test_a_second_draw_is_refused() -> None:
    with pytest.raises(SamplerContractError, match="exactly one draw"):
        bisect_outputs(lambda rng: rng.randbelow(8) + rng.randbelow(8), 8)


def test_the_search_runs_few_executions_for_gtm() -> None:
    T = 10**100
    new = bisect_outputs(_gtm("1/3", 200, 100, T), T)
    old = _bisect_outputs_one_by_one(_gtm("1/3", 200, 100, T), T)
    assert new.masses == old.masses
    assert new.executions * 10 < old.executions


# The searches for one event or one output of code monotone in its draw (last_where, run_of, absent_between).


def _runs(lengths: list[int]) -> Callable[[int], int]:
    """A non-decreasing step function: value ``k`` on the ``k``-th run of draws, of the given lengths."""
    edges = [sum(lengths[: i + 1]) for i in range(len(lengths))]
    return lambda j: next(k for k, edge in enumerate(edges) if j < edge)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=2, max_size=12), st.data())
def test_one_output_searches_agree_with_brute_force(lengths: list[int], data: st.DataObject) -> None:
    f, high = _runs(lengths), sum(lengths) - 1
    j = data.draw(st.integers(0, high))
    threshold = f(j)
    assert last_where(lambda i: f(i) <= threshold, 0, high, guard=3) == max(
        i for i in range(high + 1) if f(i) <= threshold
    )
    start, end = run_of(f, j, 0, high, guard=3)
    assert [i for i in range(high + 1) if f(i) == f(j)] == list(range(start, end + 1))
    # a value between two neighbouring outputs is given by no draw, and the search finds where it falls
    if f(0) < threshold - 0.5 < f(high):
        below, above = absent_between(f, threshold - 0.5, 0, high, guard=3)
        assert f(below) < threshold - 0.5 < f(above) and above == below + 1


def test_a_probe_on_the_wrong_side_of_the_boundary_is_refused() -> None:
    outputs = [0] * 10 + [1] + [0] + [1] * 10  # a 1 among the 0s, next to the boundary the search finds
    with pytest.raises(SamplerContractError, match="not monotone in its draw"):
        last_where(lambda i: outputs[i] == 0, 0, len(outputs) - 1, guard=3)
    with pytest.raises(SamplerContractError, match="does not hold at the first draw"):
        last_where(lambda i: outputs[i] == 1, 0, len(outputs) - 1)


def test_an_output_that_some_draw_gives_is_not_absent() -> None:
    f = _runs([3, 1, 4])  # outputs 0, 0, 0, 1, 2, 2, 2, 2
    with pytest.raises(SamplerContractError, match="gives 1: it is not absent"):
        absent_between(f, 1, 0, 7)
    with pytest.raises(SamplerContractError, match="not strictly between"):
        absent_between(f, 5, 0, 7)

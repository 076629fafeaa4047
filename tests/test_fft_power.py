"""The FFT power of a certified PLD (dpverify.verify.privacy._fft_power): its a-priori slack bounds
the real distance to the exact k-fold, the certified bounds it gives contain the exact values, and
a wrong slack or a wrong power is caught."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.specs import GtmSpec
from dpverify.verify import PrivacyLossDistribution as PLD
from dpverify.verify.privacy import _block_scan, _convolution, _fft_power, _pld_certified


def exact_power(weights: list[int], k: int) -> list[int]:
    """``weights^(*k)`` exactly, in units of ``2^-(k bits)``."""
    out = list(weights)
    for _ in range(k - 1):
        out = _convolution.convolve(out, weights)
    return out


def distance(power: _fft_power.FftPower, weights: list[int], bits: int, k: int) -> Fraction:
    """``||mu - f|_window||_1 + f(outside)``: what the slack must bound."""
    exact = exact_power(weights, k)
    scale = 1 << ((k - 1) * bits)  # mu's units to f's
    total = 0
    for i, f in enumerate(exact):
        j = i - power.low
        mu = power.weights[j] * scale if 0 <= j < len(power.weights) else 0
        total += abs(mu - f) if 0 <= j < len(power.weights) else f
    return Fraction(total, 1 << (k * bits))


@pytest.fixture
def always_fft(monkeypatch: pytest.MonkeyPatch) -> list[Fraction]:
    """The FFT power for every certified ``self_compose``; the slack of each one run."""
    monkeypatch.setattr(_pld_certified, "FFT_POINTS", 2)
    slacks: list[Fraction] = []
    run = _fft_power.fft_power

    def counted(*args, **kwargs):
        power = run(*args, **kwargs)
        slacks.append(power.slack)
        return power

    monkeypatch.setattr(_fft_power, "fft_power", counted)
    return slacks


lattices = st.tuples(
    st.integers(40, 64),
    st.integers(2, 9),
    st.lists(st.integers(0, 1 << 30), min_size=2, max_size=48),
)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(lattices, st.sampled_from([None, Fraction(1, 1 << 20)]), st.booleans())
def test_slack_bounds_the_distance_to_the_exact_power(case, tail, dense):
    bits, k, raw = case
    raw[0] = raw[0] or 1
    raw[-1] = raw[-1] or 1
    total = sum(raw)
    weights = [(w << bits) // total + 1 for w in raw]  # mass just over 1, as a rounded-up side
    if dense:
        weights = [w + 1 for w in weights]
    previous = _fft_power.DIRECT_ATOMS
    try:
        _fft_power.DIRECT_ATOMS = 0 if dense else 64  # the FFT spectrum, or the direct one
        power = _fft_power.fft_power(weights, bits, k, tail or _fft_power.TAIL)
    finally:
        _fft_power.DIRECT_ATOMS = previous
    measured = distance(power, weights, bits, k)
    assert measured <= power.slack
    assert power.slack < Fraction(1, 1 << 20)


def test_a_slack_of_zero_or_a_wrong_power_is_caught(monkeypatch):
    weights = [3 << 40, 0, 0, 5 << 40, 1 << 40, 0, 7 << 40]
    bits, k = 44, 6
    power = _fft_power.fft_power(weights, bits, k)
    measured = distance(power, weights, bits, k)
    assert 0 < measured <= power.slack  # real float and rounding error, within the bound
    power.slack = Fraction(0)
    assert not distance(power, weights, bits, k) <= power.slack
    true_power = _fft_power._power
    monkeypatch.setattr(_fft_power, "_power", lambda s, k: true_power(s, k) * (1 + 1e-9))
    mutated = _fft_power.fft_power(weights, bits, k)
    assert not distance(mutated, weights, bits, k) <= mutated.slack


def test_window_tails_are_within_the_chernoff_bound():
    weights = [1 << 23, 1 << 24, 1 << 25, 1 << 23]  # mass 1
    bits, k, tail = 26, 40, Fraction(1, 1 << 30)
    low, high = _fft_power.window(weights, bits, k, tail)
    exact = exact_power(weights, k)
    scale = 1 << (k * bits)
    assert 0 < low <= high < len(exact) - 1  # both tails cut
    assert Fraction(sum(exact[:low]), scale) <= tail
    assert Fraction(sum(exact[high + 1 :]), scale) <= tail


def thm71_pair(q: int, q2: int):
    spec = GtmSpec.create("1/2", 6, 3 * 2**6)
    return spec.pmf(q), spec.pmf(q2)


@pytest.mark.parametrize("k", [8, 30, 64])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 2), Fraction(3)])
def test_theorem_71_bounds_contain_the_exact_delta(always_fft, k, eps):
    P, Q = thm71_pair(0, 1)
    exact = PLD.from_pmfs(P, Q).self_compose(k).delta(eps)
    fft = PLD.from_pmfs(P, Q, method="certified", grid="1/10^3").self_compose(k)
    bound = fft.delta(eps)
    assert bound.low <= exact.low and exact.high <= bound.high
    assert len(always_fft) == 1 and fft._state.excess >= 2 * always_fft[0] > 0  # the slack is in it


def assert_contains(bounds, exact, epsilons):
    """The certified ``bounds`` contain the ``exact`` PLD's delta at each epsilon and its epsilon at 10^-6."""
    for eps in epsilons:
        a, b = exact.delta(eps), bounds.delta(eps)
        assert b.low <= a.low and a.high <= b.high
    a, b = exact.epsilon(Fraction(1, 10**6)), bounds.epsilon(Fraction(1, 10**6))
    assert b.low <= a.low and a.high <= b.high


@pytest.mark.parametrize("k", [10, 50, 200])
def test_randomized_response_bounds_contain_the_exact_values(always_fft, k):
    P = {0: Fraction(3, 4), 1: Fraction(1, 4)}
    Q = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    exact = PLD.from_pmfs(P, Q).self_compose(k)
    fft = PLD.from_pmfs(P, Q, method="certified", grid="1/10^3").self_compose(k)
    assert len(always_fft) == 1 and fft.points > 0
    assert_contains(fft, exact, (Fraction(0), Fraction(1), Fraction(5)))


def test_fft_agrees_with_the_exact_convolutions_and_its_slack_is_tiny(monkeypatch):
    P, Q = (GtmSpec.create("1/2", 10, 10**5).pmf(q) for q in (3, 4))
    one = PLD.from_pmfs(P, Q, grid="1/10^3")
    fft = one.self_compose(100)  # 138601 points: the FFT by default
    monkeypatch.setattr(_pld_certified, "FFT_POINTS", 10**9)
    gmp = one.self_compose(100)
    assert fft._state.side.lattice.offset != gmp._state.side.lattice.offset  # each took its own path
    a, b = fft.delta(1), gmp.delta(1)
    assert a.low <= b.high and b.low <= a.high
    power = _fft_power.fft_power(one._state.side.lattice.weights, one.bits, 100)
    assert power.slack <= (b.high - b.low) / 10**4
    assert a.high - a.low <= (b.high - b.low) * Fraction(1001, 1000)


def test_block_checkpoints_bracket_the_point_by_point_scan():
    rng = np.random.default_rng(7)
    weights = tuple(int(w) for w in rng.integers(0, 1 << 62, size=20000, dtype=np.int64))
    grid, bits = Fraction(1, 300), 64
    side = _pld_certified._Side(_pld_certified._Lattice(-2000, weights, 1 << bits), Fraction(0), True)
    lower = _pld_certified._Side(side.lattice, Fraction(0), False)
    fast_up, _ = _pld_certified._side_scanner(side, grid, bits, 0)
    fast_low, _ = _pld_certified._side_scanner(lower, grid, bits, 0)
    previous = _block_scan.checkpoints
    try:
        _block_scan.checkpoints = lambda *_: None
        slow_up, _ = _pld_certified._side_scanner(side, grid, bits, 0)
        slow_low, _ = _pld_certified._side_scanner(lower, grid, bits, 0)
    finally:
        _block_scan.checkpoints = previous
    assert len(fast_up.js) > 20 and fast_up.js == fast_low.js
    for j in range(0, 18000, 97):
        (a1, t1), (a2, t2) = fast_up.state(j), fast_low.state(j)
        (a3, t3), (a4, t4) = slow_up.state(j), slow_low.state(j)
        assert a1 == a2 == a3 == a4
        assert t1 <= t4 and t3 <= t2  # each lower bound below each upper bound
        assert t2 - t1 <= max(1, t4 >> 40)  # and close


def test_fft_powers_composed_again_contain_the_exact_values(always_fft):
    P, Q = thm71_pair(0, 1)
    exact = PLD.from_pmfs(P, Q).self_compose(40)
    one = PLD.from_pmfs(P, Q, method="certified", grid="1/10^3")
    nested = one.self_compose(5).self_compose(8)  # the second power of a dense, FFT-made side
    joined = one.self_compose(20).compose(one.self_compose(20))
    assert len(always_fft) == 4
    for pld in (nested, joined):
        assert_contains(pld, exact, (Fraction(0), Fraction(1), Fraction(4)))


def test_without_numpy_the_exact_products_and_scans_give_the_bounds(monkeypatch):
    """numpy is an optional extra: without it the certified path is the exact one, still sound."""
    P, Q = thm71_pair(0, 1)
    exact = PLD.from_pmfs(P, Q).self_compose(64).delta(Fraction(1, 2))
    monkeypatch.setattr(_pld_certified, "FFT_POINTS", 1)  # the FFT power would be taken if it were there
    monkeypatch.setattr(_pld_certified, "_fft_power", None)
    monkeypatch.setattr(_pld_certified, "_block_scan", None)
    bound = PLD.from_pmfs(P, Q, method="certified", grid="1/10^3").self_compose(64).delta(Fraction(1, 2))
    assert bound.low <= exact.low and exact.high <= bound.high

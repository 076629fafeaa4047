"""The convolution behind the certified PLD: narrowed slots and slots read through numpy give the
same integers as the schoolbook sum, and certified bounds computed with them contain the exact
``delta`` of small instances (an exact ``Fraction`` convolution is the reference), adversarial
ones included: many tiny masses, and atoms with an infinite privacy loss."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.verify import PrivacyLossDistribution as PLD
from dpverify.verify.privacy import _convolution

pytest.importorskip("numpy")


def schoolbook(a: list[int], b: list[int]) -> list[int]:
    return [sum(a[i] * b[m - i] for i in range(len(a)) if 0 <= m - i < len(b)) for m in range(len(a) + len(b) - 1)]


def without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_convolution, "_np", None)


weights = st.one_of(st.integers(0, 2**64), st.integers(0, 2**130), st.sampled_from([0, 1, 2**64 - 1, 2**64]))


@settings(max_examples=60, deadline=None)
@given(
    a=st.lists(weights, min_size=8, max_size=40),
    b=st.lists(weights, min_size=8, max_size=40),
    shift=st.sampled_from([0, 8, 16, 64, 72, 128, 3]),
    up=st.booleans(),
)
def test_narrow_slots_and_word_reads_equal_the_schoolbook_sum(a: list[int], b: list[int], shift: int, up: bool) -> None:
    """Long enough for the Kronecker product (not the schoolbook branch); quotients of more than 64
    bits take the per-slot reads, the others the 64-bit words."""
    want = schoolbook(a, b)
    assert all(c < 2 ** _convolution.slot_bits(a, b) for c in want)
    got = _convolution.convolve(a, b, shift=shift, round_up=up)
    assert got == [-(-c >> shift) if up else c >> shift for c in want]
    assert _convolution.convolve(a, a, shift=shift, round_up=up) == [
        -(-c >> shift) if up else c >> shift for c in schoolbook(a, a)
    ]


def test_word_reads_equal_the_per_slot_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    rng = random.Random(7)
    cases = [
        ([rng.getrandbits(64) for _ in range(300)], [rng.getrandbits(64) for _ in range(500)]),
        ([rng.getrandbits(20) for _ in range(50)], [rng.getrandbits(90) for _ in range(60)]),
        ([0] * 9 + [1], [2**64] * 12),
    ]
    fast = [_convolution.convolve(a, b, shift=64, round_up=True) for a, b in cases]
    without_numpy(monkeypatch)
    assert fast == [_convolution.convolve(a, b, shift=64, round_up=True) for a, b in cases]


# --- certified bounds against an exact Fraction convolution ------------------------------------


def exact_delta_at_log(P: dict, Q: dict, k: int, r: Fraction) -> Fraction:
    """``delta_k(ln r) = sum over k-tuples of (P^k - r Q^k)^+``, through the PLD ``{P/Q: P-mass}``
    convolved over Fractions (a ratio None: ``Q = 0``, an infinite loss)."""
    one: dict[Fraction | None, Fraction] = {}
    for y, p in P.items():
        if p:
            ratio = None if not Q.get(y) else p / Q[y]
            one[ratio] = one.get(ratio, Fraction(0)) + p
    pld: dict[Fraction | None, Fraction] = {Fraction(1): Fraction(1)}
    for _ in range(k):
        nxt: dict[Fraction | None, Fraction] = {}
        for x, a in pld.items():
            for y, b in one.items():
                z = None if x is None or y is None else x * y
                nxt[z] = nxt.get(z, Fraction(0)) + a * b
        pld = nxt
    return sum(
        (p if ratio is None else p * (1 - r / ratio) for ratio, p in pld.items() if ratio is None or ratio > r),
        Fraction(0),
    )


def tiny_masses(count: int, tiny: Fraction) -> tuple[dict, dict]:
    """``count`` outputs of mass ``tiny`` each under both, with unrelated ratios, beside two heavy ones."""
    P = {i: tiny * (1 + i % 3) for i in range(count)}
    Q = {i: tiny * (1 + (i * 7) % 5) for i in range(count)}
    P["a"], P["b"] = Fraction(1, 3), 1 - Fraction(1, 3) - sum(P.values())
    Q["a"], Q["b"] = 1 - Fraction(2, 5) - sum(Q.values()), Fraction(2, 5)
    return P, Q


ADVERSARIAL = [
    tiny_masses(40, Fraction(1, 10**12)),
    tiny_masses(25, Fraction(1, 2**70)),  # below 2^-64: every fixed-point mass rounds up to one unit
    # infinite losses: outputs that Q never gives
    ({0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}, {0: Fraction(3, 4), 1: Fraction(1, 4)}),
    ({0: Fraction(1, 10**9), 1: 1 - Fraction(1, 10**9)}, {1: Fraction(1)}),
    # a GTM-like pair whose ratios are not powers of one base
    (
        {0: Fraction(1, 2), 1: Fraction(3, 10), 2: Fraction(1, 5)},
        {0: Fraction(1, 5), 1: Fraction(4, 5), 2: Fraction(0)},
    ),
]


@pytest.mark.parametrize("bits", [20, 64])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("case", range(len(ADVERSARIAL)))
def test_certified_bounds_contain_the_exact_delta_of_adversarial_pairs(case: int, k: int, bits: int) -> None:
    P, Q = ADVERSARIAL[case]
    pld = PLD.from_pmfs(P, Q, method="certified", grid=Fraction(1, 200), bits=bits).self_compose(k)
    for r in [Fraction(1), Fraction(3, 2), Fraction(5)]:
        exact = exact_delta_at_log(P, Q, k, r)
        got = pld.delta_at_log(r)
        assert got.low <= exact <= got.high, (r, exact, got)


def small_pmf(size: int) -> st.SearchStrategy[dict]:
    return (
        st.lists(st.integers(0, 9), min_size=size, max_size=size)
        .filter(any)
        .map(lambda ws: {i: Fraction(w, sum(ws)) for i, w in enumerate(ws)})
    )


@settings(max_examples=25, deadline=None)
@given(data=st.data(), k=st.integers(2, 9), r=st.sampled_from([Fraction(1), Fraction(2), Fraction(7, 3)]))
def test_certified_bounds_with_many_compositions_contain_the_exact_delta(
    data: st.DataObject, k: int, r: Fraction
) -> None:
    """Enough rounds for the lattices to pass the schoolbook length, so the Kronecker product, its
    narrowed slots and the word reads all run; with and without numpy the bounds are identical."""
    size = data.draw(st.integers(2, 4))
    P, Q = data.draw(small_pmf(size)), data.draw(small_pmf(size))
    pld = PLD.from_pmfs(P, Q, method="certified", grid=Fraction(1, 300), bits=48).self_compose(k)
    got = pld.delta_at_log(r)
    exact = exact_delta_at_log(P, Q, k, r)
    assert got.low <= exact <= got.high
    with pytest.MonkeyPatch.context() as patch:
        without_numpy(patch)
        again = PLD.from_pmfs(P, Q, method="certified", grid=Fraction(1, 300), bits=48).self_compose(k).delta_at_log(r)
    assert (again.low, again.high) == (got.low, got.high)

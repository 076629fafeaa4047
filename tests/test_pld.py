"""Privacy loss distributions of composed mechanisms (``dpverify.verify.privacy._pld``) against oracles.

Oracles, none of which uses the PLD code:

- brute force: every output tuple of the k-fold product (k <= 3) with exact Fractions, the
  hockey-stick sum ``sum max(0, P^k - e^eps Q^k)`` with a certified ``e^eps`` (an interval), or
  exactly when ``e^eps`` is rational;
- the binomial law: every neighbouring pair of a Theorem 7.1 GTM has losses ``+-ln D`` with masses
  ``1/(1+alpha)`` and ``alpha/(1+alpha)``, so its k-fold PLD is binomial, summed here in closed form;
- Google's dp-accounting PLD (optional), within its discretisation and truncation;
- post-processing: merging outputs never increases ``delta(eps)`` or ``eps(delta)``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import iv

from dpverify.samplers import InvalidArgument
from dpverify.specs import ApproxDp, ExactPmf, GtmSpec, PureDp, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify import (
    Enclosure,
    PrivacyLossDistribution,
    Verdict,
    WorstCase,
    check_composed_claim,
    common_base,
    composed_delta,
    composed_epsilon,
    gtm_table,
)
from dpverify.verify.privacy import _convolution, _pld_enclosure, _pld_lattice

PLD = PrivacyLossDistribution

# --- oracles ------------------------------------------------------------------------------------


def product_pairs(P: dict, Q: dict, k: int) -> dict[tuple[Fraction, Fraction], int]:
    """``{(P^k(y), Q^k(y)): count}`` over every output tuple ``y`` of the k-fold product."""
    outputs = sorted(set(P) | set(Q), key=repr)
    counts: dict[tuple[Fraction, Fraction], int] = {}
    for ys in itertools.product(outputs, repeat=k):
        p = math.prod((P.get(y, Fraction(0)) for y in ys), start=Fraction(1))
        q = math.prod((Q.get(y, Fraction(0)) for y in ys), start=Fraction(1))
        counts[(p, q)] = counts.get((p, q), 0) + 1
    return counts


def rounds_pairs(rounds: list[tuple[dict, dict]]) -> dict[tuple[Fraction, Fraction], int]:
    """The same for the product of different mechanisms, one round each."""
    counts = {(Fraction(1), Fraction(1)): 1}
    for P, Q in rounds:
        step = product_pairs(P, Q, 1)
        counts_next: dict[tuple[Fraction, Fraction], int] = {}
        for (p, q), c in counts.items():
            for (p2, q2), c2 in step.items():
                key = (p * p2, q * q2)
                counts_next[key] = counts_next.get(key, 0) + c * c2
        counts = counts_next
    return counts


def brute_delta_exact(pairs: dict, ratio: Fraction) -> Fraction:
    """``sum max(0, P - ratio * Q)``: delta at ``eps = ln(ratio)``, exactly."""
    return sum((c * (p - ratio * q) for (p, q), c in pairs.items() if p > ratio * q), Fraction(0))


def brute_delta(pairs: dict, eps: Fraction) -> tuple[Fraction, Fraction]:
    """An enclosure of ``sum max(0, P - e^eps Q)`` with a certified ``e^eps`` (terms whose sign the
    interval cannot decide count as ``[0, their upper end]``)."""
    with interval_precision(300):  # wide by about 2^-270 of the total: far below any bound checked
        e = iv.exp(iv_rational(eps))
        low, high = iv.mpf(0), iv.mpf(0)
        for (p, q), c in pairs.items():
            term = c * (iv_rational(p) - e * iv_rational(q))
            if term.a > 0:
                low, high = low + term, high + term
            elif term.b > 0:
                high = high + iv.mpf([0, term.b])
        return _pld_enclosure._lower(low), _pld_enclosure._upper(high)


def rr(b: Fraction) -> tuple[dict, dict]:
    """Randomized response with ratio ``b``: keep with ``b/(1+b)``."""
    return {0: b / (1 + b), 1: 1 / (1 + b)}, {0: 1 / (1 + b), 1: b / (1 + b)}


def gtm_pair(alpha: str, n: int, T: int, q: int, q2: int) -> tuple[dict, dict]:
    spec = GtmSpec.create(alpha, n, T)
    return spec.pmf(q).as_dict(), spec.pmf(q2).as_dict()


def thm71(D: int, n: int) -> GtmSpec:
    return GtmSpec.create(f"1/{D}", n, (D + 1) * D**n)


#: Exact-path pairs: (P, Q, base).  GTM rows of Theorem 7.1 instances (neighbours and two apart),
#: randomized response, and a pair with an infinite loss.
EXACT_PAIRS = [
    (*gtm_pair("1/2", 3, 3 * 2**3, 1, 2), Fraction(2)),
    (*gtm_pair("1/3", 4, 4 * 3**4, 3, 1), Fraction(9)),  # two apart: ratios 9, 1, 1/9
    (*rr(Fraction(3, 2)), Fraction(3, 2)),
    ({0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}, {0: Fraction(1, 2), 1: Fraction(1, 2)}, Fraction(2)),
    ({0: Fraction(1, 3), 1: Fraction(2, 3)}, {0: Fraction(1, 3), 1: Fraction(2, 3)}, None),
]
#: Certified-path pairs: an arbitrary-T GTM and a hand-made pair with an infinite loss.
CERTIFIED_PAIRS = [
    gtm_pair("1/2", 3, 100, 1, 2),
    gtm_pair("1/3", 3, 100, 0, 1),
    ({0: Fraction(1, 2), 1: Fraction(3, 10), 2: Fraction(1, 5)}, {0: Fraction(1, 5), 1: Fraction(4, 5)}),
]
EPSILONS = [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2)]


# --- convolution and the common base -----------------------------------------------------------


@pytest.mark.parametrize("backend", ["python", "gmpy2"])
@settings(max_examples=40)
@given(
    a=st.lists(st.integers(0, 2**80), min_size=1, max_size=30),
    b=st.lists(st.integers(0, 2**80), min_size=1, max_size=30),
)
def test_kronecker_convolution_equals_the_schoolbook_sum(backend: str, a: list[int], b: list[int]) -> None:
    if backend == "gmpy2":
        pytest.importorskip("gmpy2")
    previous = _convolution.set_backend(backend)
    try:
        got = _convolution.convolve(a, b)
        squared = _convolution.convolve(a, a)
        shifted = {
            (shift, up): _convolution.convolve(a, b, shift=shift, round_up=up)
            for shift in (0, 3, 8, 64, 200)
            for up in (False, True)
        }
    finally:
        _convolution.set_backend(previous)
    want = [sum(a[i] * b[m - i] for i in range(len(a)) if 0 <= m - i < len(b)) for m in range(len(a) + len(b) - 1)]
    assert got == want
    assert squared == [
        sum(a[i] * a[m - i] for i in range(len(a)) if 0 <= m - i < len(a)) for m in range(2 * len(a) - 1)
    ]
    for (shift, up), values in shifted.items():
        assert values == [-(-c // 2**shift) if up else c // 2**shift for c in want]


def test_common_base_finds_the_largest_base() -> None:
    assert common_base([Fraction(4), Fraction(8)]) == (Fraction(2), (2, 3))
    assert common_base(["1/8", "4", 1, "1/2"]) == (Fraction(2), (-3, 2, 0, -1))
    assert common_base(["9/4", "27/8"]) == (Fraction(3, 2), (2, 3))
    assert common_base([1, 1]) == (None, (0, 0))
    assert common_base([]) == (None, ())


@pytest.mark.parametrize("ratios", [[2, 3], [6, 12], [4, 6], ["333333/166667", 2], ["3/2", 2]])
def test_common_base_refuses_incommensurable_ratios(ratios: list) -> None:
    assert common_base(ratios) is None


@given(
    c=st.fractions(min_value=Fraction(11, 10), max_value=10, max_denominator=30),
    exponents=st.lists(st.integers(-12, 12), min_size=1, max_size=6),
)
def test_common_base_recovers_powers_of_a_base(c: Fraction, exponents: list[int]) -> None:
    found = common_base([c**j for j in exponents])
    assert found is not None
    base, js = found
    if base is None:
        assert set(exponents) == {0}
        return
    assert [base**j for j in js] == [c**j for j in exponents]
    assert math.gcd(*js) == 1  # else base^gcd would be a larger common base
    g = math.gcd(*exponents)
    assert _pld_lattice._power_of(c**g, base) is not None  # c^g is in the group base generates


# --- the exact path against brute force ---------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("case", range(len(EXACT_PAIRS)))
def test_exact_path_equals_brute_force(case: int, k: int) -> None:
    P, Q, base = EXACT_PAIRS[case]
    pld = PLD.from_pmfs(P, Q).self_compose(k)
    assert pld.exact and pld.base == base
    pairs = product_pairs(P, Q, k)
    for eps in EPSILONS:
        got = pld.delta(eps)
        low, high = brute_delta(pairs, eps)
        assert got.low <= high and low <= got.high, (eps, got, (low, high))
        assert got.gap <= Fraction(1, 10**25) * max(got.high, Fraction(1, 10**50))
    for m in range(0, 3 * k + 2):  # eps = m ln b: an exact rational
        ratio = (base or Fraction(2)) ** m
        got = pld.delta_at_log(ratio)
        assert got.value == brute_delta_exact(pairs, ratio), (m, got)
    if base is not None:
        assert pld.infinity_mass == sum((c * p for (p, q), c in pairs.items() if q == 0 < p), Fraction(0))


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("case", range(len(EXACT_PAIRS)))
def test_exact_epsilon_is_the_log_of_a_rational_where_delta_is_met(case: int, k: int) -> None:
    P, Q, _ = EXACT_PAIRS[case]
    pld = PLD.from_pmfs(P, Q).self_compose(k)
    pairs = product_pairs(P, Q, k)
    at_zero = brute_delta_exact(pairs, Fraction(1))
    inf = pld.infinity_mass
    for target in [
        Fraction(0),
        Fraction(1, 1000),
        Fraction(1, 20),
        Fraction(1, 5),
        Fraction(1, 2),
        at_zero,
        Fraction(1),
    ]:
        got = pld.epsilon(target)
        if inf > target:
            assert got.infinite
            continue
        R = got.log_argument
        assert R is not None and R >= 1
        if target < at_zero:  # eps > 0 and delta(ln R) = target exactly
            assert R > 1 and brute_delta_exact(pairs, R) == target
            assert got.low > 0
        else:
            assert R == 1 and got.value == 0


@pytest.mark.parametrize("P, Q, base", EXACT_PAIRS[:3])
def test_exact_epsilon_agrees_with_delta_on_the_same_object(P: dict, Q: dict, base: Fraction) -> None:
    pld = PLD.from_pmfs(P, Q).self_compose(5)
    for target in [Fraction(1, 10**6), Fraction(1, 100), Fraction(1, 3)]:
        R = pld.epsilon(target).log_argument
        assert pld.delta_at_log(R).value == target


# --- the certified path against brute force -----------------------------------------------------


@pytest.mark.parametrize("grid", [Fraction(1, 100), Fraction(1, 1000)])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("case", range(len(CERTIFIED_PAIRS)))
def test_certified_bounds_bracket_brute_force(case: int, k: int, grid: Fraction) -> None:
    P, Q = CERTIFIED_PAIRS[case]
    pld = PLD.from_pmfs(P, Q, grid=grid).self_compose(k)
    assert not pld.exact
    pairs = product_pairs(P, Q, k)
    for eps in EPSILONS:
        got = pld.delta(eps)
        low, high = brute_delta(pairs, eps)
        assert got.low <= high and low <= got.high, (eps, got, (low, high))  # the oracle is 1e-80 wide
    for target in [Fraction(1, 1000), Fraction(1, 20), Fraction(1, 3)]:
        got = pld.epsilon(target)
        if got.infinite:
            assert pld.infinity_mass > target
            continue
        # eps_low <= eps(delta) <= eps_high: delta(eps_low) >= target (if eps_low > 0) >= delta(eps_high)
        if got.low > 0:
            assert brute_delta(pairs, got.low)[1] >= target
        if got.high is not None:
            assert brute_delta(pairs, got.high)[0] <= target


def small_pmf(size: int) -> st.SearchStrategy[dict]:
    return (
        st.lists(st.integers(0, 7), min_size=size, max_size=size)
        .filter(any)
        .map(lambda ws: {i: Fraction(w, sum(ws)) for i, w in enumerate(ws)})
    )


@settings(max_examples=30)
@given(
    data=st.data(),
    k=st.integers(1, 3),
    method=st.sampled_from(["auto", "certified"]),
    grid=st.sampled_from([Fraction(1, 50), Fraction(1, 700)]),
    bits=st.sampled_from([20, 64]),
)
def test_any_pmf_pair_is_bracketed(data: st.DataObject, k: int, method: str, grid: Fraction, bits: int) -> None:
    size = data.draw(st.integers(2, 4))
    P, Q = data.draw(small_pmf(size)), data.draw(small_pmf(size))
    pld = PLD.from_pmfs(P, Q, method=method, grid=grid, bits=bits).self_compose(k)
    pairs = product_pairs(P, Q, k)
    eps = data.draw(st.sampled_from(EPSILONS))
    got = pld.delta(eps)
    low, high = brute_delta(pairs, eps)
    assert got.low <= high and low <= got.high
    target = data.draw(st.sampled_from([Fraction(1, 100), Fraction(1, 4)]))
    e = pld.epsilon(target)
    if not e.infinite:
        if e.low > 0:
            assert brute_delta(pairs, e.low)[1] >= target
        if e.high is not None:
            assert brute_delta(pairs, e.high)[0] <= target


def test_certified_path_contains_the_exact_value_of_a_theorem_7_1_gtm() -> None:
    spec = thm71(2, 10)
    P, Q = spec.pmf(4).as_dict(), spec.pmf(5).as_dict()
    exact = PLD.from_pmfs(P, Q).self_compose(30)
    certified = PLD.from_pmfs(P, Q, method="certified", grid="1/1000").self_compose(30)
    for eps in [Fraction(0), Fraction(1), Fraction(7)]:
        e, c = exact.delta(eps), certified.delta(eps)
        assert c.low <= e.low and e.high <= c.high
    for target in [Fraction(1, 10**6), Fraction(1, 10)]:
        e, c = exact.epsilon(target), certified.epsilon(target)
        assert c.low <= e.low and e.high <= c.high
        assert c.gap <= 30 * Fraction(1, 1000) * Fraction(101, 100)  # the shift is one grid step per round


@pytest.mark.parametrize("bits", [16, 24])
def test_coarse_fixed_point_stays_sound(bits: int) -> None:
    """Few mass bits: every convolution rounds a lot and cuts wide tails; the excess it tracks must
    keep the lower bound below the exact value, and the upper bound must stay above it."""
    spec = thm71(3, 6)
    P, Q = spec.pmf(2).as_dict(), spec.pmf(3).as_dict()
    exact = PLD.from_pmfs(P, Q).self_compose(40)
    coarse = PLD.from_pmfs(P, Q, method="certified", grid="1/300", bits=bits).self_compose(40)
    for eps in [Fraction(0), Fraction(3), Fraction(10), Fraction(20), Fraction(40)]:
        e, c = exact.delta(eps), coarse.delta(eps)
        assert c.low <= e.low and e.high <= c.high, (eps, e, c)
    for target in [Fraction(1, 10**9), Fraction(1, 10**4), Fraction(1, 3)]:
        e, c = exact.epsilon(target), coarse.epsilon(target)
        assert c.low <= e.low and (c.high is None or e.high <= c.high), (target, e, c)


# --- Theorem 7.1 at scale: the binomial oracle ---------------------------------------------------


def binomial_delta(k: int, a: Fraction, D: int, m: int) -> Fraction:
    """delta(m ln D) for k rounds of losses +ln D (mass a) and -ln D: sum over i ups."""
    total = Fraction(0)
    for i in range(k + 1):
        j = 2 * i - k
        if j > m:
            total += math.comb(k, i) * a**i * (1 - a) ** (k - i) * (1 - Fraction(D) ** (m - j))
    return total


def test_theorem_7_1_gtm_composed_100_times_is_exact() -> None:
    D, n, k = 2, 10, 100
    spec = thm71(D, n)
    table = gtm_table(spec)
    a = Fraction(D, D + 1)  # mass of +ln D: 1/(1+alpha)
    for q, q2 in [(0, 1), (5, 4), (9, 10)]:
        pld = PLD.from_pmfs(table[q], table[q2])
        assert pld.exact and pld.loss_masses() == {1: a, -1: 1 - a}
    pld = PLD.from_pmfs(table[3], table[4]).self_compose(k)
    assert pld.points == 2 * k + 1
    for m in [0, 1, 10, 31, 60, 99, 100]:
        assert pld.delta_at_log(Fraction(D) ** m).value == binomial_delta(k, a, D, m)
    worst = composed_delta(table, spec.neighbours(), k, 1)
    assert worst.exact and len(worst.pairs) == 2 * n
    A, B = worst.bound.affine
    assert worst.bound.contains(A - B * Fraction(27182818284, 10**10)) is False  # e is not 2.7182818284
    with interval_precision(200):
        value = iv_rational(A) - iv.exp(1) * iv_rational(B)
    assert worst.bound.low <= _pld_enclosure._upper(value) and _pld_enclosure._lower(value) <= worst.bound.high
    eps = composed_epsilon(table, spec.neighbours(), k, Fraction(1, 10**6)).bound
    assert eps.log_argument is not None and pld.delta_at_log(eps.log_argument).value == Fraction(1, 10**6)


def test_arbitrary_T_gtm_composed_100_times_has_certified_bounds() -> None:
    spec = GtmSpec.create("1/2", 10, 1000)
    table = gtm_table(spec)
    bounds = {}
    for grid in (Fraction(1, 100), Fraction(1, 400)):
        pld = PLD.from_pmfs(table[4], table[5], grid=grid).self_compose(100)
        assert not pld.exact
        d, e = pld.delta(2), pld.epsilon(Fraction(1, 10**6))
        assert 0 <= d.low <= d.high <= 1 and d.gap < grid / 10  # the gap shrinks with the grid
        assert e.low <= e.high <= e.low + 100 * grid * Fraction(101, 100)  # one grid step per round
        bounds[grid] = d, e
    # both grids enclose the same true values, the finer one more tightly
    (d1, e1), (d2, e2) = bounds.values()
    assert d1.low <= d2.high and d2.low <= d1.high and d2.gap < d1.gap
    assert e1.low <= e2.high and e2.low <= e1.high and e2.gap < e1.gap


@pytest.mark.slow
def test_arbitrary_T_gtm_at_fine_grid() -> None:
    pytest.importorskip("gmpy2", reason="a 10^-4 grid over 100 rounds needs GMP integers (the extra 'fast')")
    spec = GtmSpec.create("1/2", 10, 10**6)
    pld = PLD.from_pmfs(spec.pmf(3), spec.pmf(4), grid="1/10^4").self_compose(100)
    e = pld.epsilon(Fraction(1, 10**6))
    assert e.gap <= Fraction(1, 100) * Fraction(101, 100)
    exact_neighbour = (
        PLD.from_pmfs(*[thm71(2, 10).pmf(q) for q in (3, 4)]).self_compose(100).epsilon(Fraction(1, 10**6))
    )
    assert abs(e.low - exact_neighbour.low) < Fraction(1, 10)  # T = 10^6 is close to the exact T = 3 * 2^10 GTM


# --- composing different mechanisms -------------------------------------------------------------


def test_two_gtms_with_commensurable_bases_compose_exactly() -> None:
    first, second = thm71(2, 3), thm71(4, 3)
    rounds = [(first.pmf(1).as_dict(), first.pmf(2).as_dict()), (second.pmf(1).as_dict(), second.pmf(2).as_dict())]
    pld = PLD.from_pmfs(*rounds[0]).compose(PLD.from_pmfs(*rounds[1]))
    assert pld.exact and pld.base == 2 and pld.compositions == 2
    pairs = rounds_pairs(rounds)
    for m in range(6):
        assert pld.delta_at_log(Fraction(2) ** m).value == brute_delta_exact(pairs, Fraction(2) ** m)
    worst = composed_delta([gtm_table(first), gtm_table(second)], first.neighbours(), 2, 1)
    twice = rounds_pairs(rounds * 2)
    low, high = brute_delta(twice, Fraction(1))
    assert worst.exact and worst.bound.low <= high and low <= worst.bound.high


def test_two_gtms_without_a_common_base_compose_within_bounds() -> None:
    first, second = thm71(2, 3), thm71(3, 3)
    rounds = [(first.pmf(2).as_dict(), first.pmf(1).as_dict()), (second.pmf(2).as_dict(), second.pmf(1).as_dict())]
    pld = PLD.from_pmfs(*rounds[0], grid="1/500").compose(PLD.from_pmfs(*rounds[1]))
    assert not pld.exact and pld.grid == Fraction(1, 500)
    pairs = rounds_pairs(rounds)
    for eps in EPSILONS:
        got, (low, high) = pld.delta(eps), brute_delta(pairs, eps)
        assert got.low <= high and low <= got.high


# --- worst case and claims ----------------------------------------------------------------------


def test_worst_case_is_the_maximum_over_ordered_pairs() -> None:
    spec = GtmSpec.create("1/3", 3, 100)
    table = gtm_table(spec)
    worst = composed_delta(table, spec.neighbours(), 2, "1/2", grid="1/1000")
    assert isinstance(worst, WorstCase) and not worst.exact and worst.grid == Fraction(1, 1000)
    assert {pair for pair, _ in worst.pairs} == {(q, q + 1) for q in range(3)} | {(q + 1, q) for q in range(3)}
    assert worst.bound.high == max(e.high for _, e in worst.pairs)
    assert worst.bound.low == max(e.low for _, e in worst.pairs)
    for (q, q2), e in worst.pairs:
        low, high = brute_delta(product_pairs(table[q].as_dict(), table[q2].as_dict(), 2), Fraction(1, 2))
        assert e.low <= high and low <= e.high


def test_claims_on_a_theorem_7_1_gtm() -> None:
    spec = thm71(2, 10)
    table, pairs, k = gtm_table(spec), spec.neighbours(), 100
    eps = composed_epsilon(table, pairs, k, Fraction(1, 10**6)).bound  # about 51.15
    assert check_composed_claim(table, pairs, k, ApproxDp(52, "1/10^6")).verdict is Verdict.PROVED
    violated = check_composed_claim(table, pairs, k, ApproxDp(51, "1/10^6"))
    assert violated.verdict is Verdict.VIOLATED and eps.low > 51
    assert {"q", "q_prime", "delta", "epsilon_at_claimed_delta"} <= set(violated.evidence)
    assert Fraction(violated.evidence["delta"]["low"]) > Fraction(1, 10**6)
    assert check_composed_claim(table, pairs, k, PureDp(alpha=Fraction(1, 2**100))).verdict is Verdict.PROVED
    pure = check_composed_claim(table, pairs, k, PureDp(alpha=Fraction(1, 2**99)))
    assert pure.verdict is Verdict.VIOLATED
    witness = pure.evidence["witness"]
    assert Fraction(witness["p"]) / Fraction(witness["p_prime"]) == 2**100
    assert check_composed_claim(table, pairs, k, PureDp(epsilon=70)).verdict is Verdict.PROVED  # 100 ln 2 = 69.3
    assert check_composed_claim(table, pairs, k, PureDp(epsilon=69)).verdict is Verdict.VIOLATED


def test_claims_on_the_certified_path() -> None:
    spec = GtmSpec.create("1/3", 3, 100)
    table, pairs = gtm_table(spec), spec.neighbours()
    # k = 1 at eps = 0: delta is the total variation 1/2 exactly, which a grid can only enclose
    tv = max(
        brute_delta_exact(product_pairs(table[q].as_dict(), table[q2].as_dict(), 1), Fraction(1))
        for q, q2 in list(pairs) + [(b, a) for a, b in pairs]
    )
    assert tv == Fraction(1, 2)
    inconclusive = check_composed_claim(table, pairs, 1, ApproxDp(0, tv), grid="1/1000")
    assert inconclusive.verdict is Verdict.INCONCLUSIVE and Fraction(inconclusive.evidence["gap"]) > 0
    assert check_composed_claim(table, pairs, 1, ApproxDp(0, tv + Fraction(1, 100))).verdict is Verdict.PROVED
    assert check_composed_claim(table, pairs, 1, ApproxDp(0, tv - Fraction(1, 100))).verdict is Verdict.VIOLATED
    # an output impossible under a neighbour: infinite loss, never pure DP
    bad = {0: {0: Fraction(1)}, 1: {0: Fraction(1, 2), 1: Fraction(1, 2)}}
    result = check_composed_claim(bad, [(0, 1)], 3, PureDp(epsilon=5))
    assert result.verdict is Verdict.VIOLATED and result.evidence["witness"]["ratio"] == "Infinity"
    assert composed_epsilon(bad, [(0, 1)], 3, Fraction(1, 10)).bound.infinite  # delta >= 1 - (1/2)^3


# --- dp-accounting ------------------------------------------------------------------------------


def test_agrees_with_dp_accounting_within_its_discretisation() -> None:
    pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    grid, k = Fraction(1, 2000), 10
    for upper, lower in [gtm_pair("1/2", 10, 3 * 2**10, 3, 4), gtm_pair("1/2", 10, 1000, 3, 4)]:
        ours = PLD.from_pmfs(upper, lower, grid=grid).self_compose(k)
        logs = [{y: math.log(p) for y, p in pmf.items() if p} for pmf in (lower, upper)]
        theirs = {
            pessimistic: pld_module.from_two_probability_mass_functions(
                logs[0], logs[1], pessimistic_estimate=pessimistic, value_discretization_interval=float(grid)
            ).self_compose(k)
            for pessimistic in (True, False)
        }
        for eps in [0.5, 1.0, 3.0, 8.0]:
            got = ours.delta(Fraction(eps))
            high, low = theirs[True].get_delta_for_epsilon(eps), theirs[False].get_delta_for_epsilon(eps)
            # their pessimistic bound is above the true delta and their optimistic one below it, up to
            # floating point (1e-9) and their tail truncation (1e-15 per composition)
            slack = 1e-9 * max(high, 1e-300) + 1e-12
            assert float(got.low) <= high + slack and low - slack <= float(got.high)
            if not ours.exact:  # the same discretisation: the same bounds, ours certified
                assert abs(float(got.high) - high) <= slack and abs(float(got.low) - low) <= slack
        for delta in [1e-6, 1e-3]:
            e = ours.epsilon(Fraction(delta))
            assert float(e.low) <= theirs[True].get_epsilon_for_delta(delta) + 2 * float(grid)
            assert theirs[False].get_epsilon_for_delta(delta) - 2 * float(grid) <= float(e.high)


# --- post-processing ----------------------------------------------------------------------------


@settings(max_examples=40)
@given(data=st.data())
def test_post_processing_never_increases_epsilon(data: st.DataObject) -> None:
    size = data.draw(st.integers(2, 5))
    if data.draw(st.booleans()):
        D = data.draw(st.sampled_from([2, 3]))
        spec = thm71(D, size - 1)
        q = data.draw(st.integers(0, size - 2))
        P, Q = spec.pmf(q).as_dict(), spec.pmf(q + 1).as_dict()
    else:
        P, Q = data.draw(small_pmf(size)), data.draw(small_pmf(size))
    f = data.draw(st.lists(st.integers(0, size - 1), min_size=size, max_size=size))
    fP, fQ = {}, {}
    for y, z in enumerate(f):
        fP[z] = fP.get(z, Fraction(0)) + P[y]
        fQ[z] = fQ.get(z, Fraction(0)) + Q[y]
    k = data.draw(st.integers(1, 4))
    before = PLD.from_pmfs(P, Q, grid="1/2000").self_compose(k)
    after = PLD.from_pmfs(fP, fQ, grid="1/2000").self_compose(k)
    for target in [Fraction(1, 10**4), Fraction(1, 10)]:
        b, a = before.epsilon(target), after.epsilon(target)
        if b.infinite:
            continue
        assert not a.infinite and (b.high is None or a.low <= b.high), (target, a, b)
    for ratio in [Fraction(1), Fraction(3, 2), Fraction(4)]:
        b, a = before.delta_at_log(ratio), after.delta_at_log(ratio)
        assert a.low <= b.high
        if a.value is not None and b.value is not None:
            assert a.value <= b.value


# --- the big-integer backends -------------------------------------------------------------------


def test_pure_python_backend_gives_the_same_bounds() -> None:
    pytest.importorskip("gmpy2")
    P, Q = gtm_pair("1/2", 5, 300, 2, 3)

    def run() -> tuple:
        pld = PLD.from_pmfs(P, Q, grid="1/1000").self_compose(40)
        exact = PLD.from_pmfs(*gtm_pair("1/3", 5, 4 * 3**5, 2, 3)).self_compose(40)
        return pld.delta(1), pld.epsilon(Fraction(1, 10**5)), exact.delta_at_log(9), exact.epsilon(Fraction(1, 10**5))

    previous = _convolution.set_backend("gmpy2")
    try:
        fast = run()
        _convolution.set_backend("python")
        assert run() == fast
    finally:
        _convolution.set_backend(previous)


# --- arguments ----------------------------------------------------------------------------------

RR = rr(Fraction(3))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: PLD.from_pmfs({0: 0.5, 1: 0.5}, RR[1]), "upper"),
        (lambda: PLD.from_pmfs(RR[0], {0: Fraction(1, 2)}), "lower must sum to 1"),
        (lambda: PLD.from_pmfs(RR[0], {0: Fraction(3, 2), 1: Fraction(-1, 2)}), "probability"),
        (lambda: PLD.from_pmfs(RR[0], [0.5]), "lower"),
        (lambda: PLD.from_pmfs(RR[0], RR[1], method="fast"), "method"),
        (lambda: PLD.from_pmfs(*gtm_pair("1/2", 3, 100, 1, 2), method="exact"), "method='exact'"),
        (lambda: PLD.from_pmfs(RR[0], RR[1], grid="0"), "grid"),
        (lambda: PLD.from_pmfs(RR[0], RR[1], grid=0.001), "grid"),
        (lambda: PLD.from_pmfs(RR[0], RR[1], bits=8), "bits"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).self_compose(0), "k"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).self_compose(10**6), "k"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).delta(-1), "epsilon"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).delta(0.5), "epsilon"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).delta_at_log("1/2"), "ratio"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).epsilon("3/2"), "delta"),
        (lambda: PLD.from_pmfs(RR[0], RR[1]).compose("x"), "other"),
        (lambda: PLD("state"), "state"),
        (lambda: PLD.from_pmfs(*gtm_pair("1/2", 3, 100, 1, 2), grid="1/10^9"), "points"),
        (lambda: PLD.from_pmfs(*gtm_pair("1/2", 3, 100, 1, 2), grid="1/1000").self_compose(5000), "points"),
        (
            lambda: PLD.from_pmfs(*gtm_pair("1/2", 3, 100, 1, 2), grid="1/100").compose(
                PLD.from_pmfs(*gtm_pair("1/2", 3, 100, 1, 2), grid="1/1000")
            ),
            "grid",
        ),
        (lambda: composed_delta({0: RR[0], 1: RR[1]}, [(0, 2)], 1, 0), "q=2"),
        (lambda: composed_delta({0: RR[0], 1: RR[1]}, [], 1, 0), "at least one pair"),
        (lambda: composed_delta({0: RR[0], 1: RR[1]}, "01", 1, 0), "neighbours"),
        (lambda: composed_delta([], [(0, 1)], 1, 0), "table"),
        (lambda: composed_delta({0: RR[0], 1: "x"}, [(0, 1)], 1, 0), "table[1]"),
        (lambda: composed_epsilon({0: RR[0], 1: RR[1]}, [(0, 1)], 1, 2), "delta"),
        (lambda: check_composed_claim({0: RR[0], 1: RR[1]}, [(0, 1)], 1, Zcdp(1)), "claim"),
        (lambda: common_base([0]), "ratios"),
        (lambda: common_base("12"), "ratios"),
        (lambda: Enclosure(Fraction(2), Fraction(1)), "low"),
        (lambda: Enclosure(None, Fraction(1)), "high"),
        (lambda: Enclosure(0.5, 1), "low"),
        (lambda: Enclosure(0, 1, affine=(1,)), "affine"),
        (lambda: WorstCase("x", (0, 1), (), True), "bound"),
    ],
)
def test_bad_arguments_are_refused_with_one_line(call, name: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        call()
    message = str(error.value)
    assert name in message and "\n" not in message and len(message) < 300


def test_exact_pmf_rows_and_dict_rows_agree() -> None:
    spec = thm71(3, 4)
    as_rows = composed_epsilon(gtm_table(spec), spec.neighbours(), 7, "1/1000").bound
    as_dicts = composed_epsilon({q: spec.pmf(q).as_dict() for q in spec.inputs()}, spec.neighbours(), 7, "1/1000").bound
    assert as_rows == as_dicts and as_rows.log_argument is not None
    assert isinstance(spec.pmf(0), ExactPmf)


def test_enclosure_json_round_trips_exact_ends() -> None:
    pld = PLD.from_pmfs(*rr(Fraction(3))).self_compose(3)
    e = pld.delta(1)
    data = e.to_json()
    assert Fraction(data["low"]) == e.low and Fraction(data["high"]) == e.high
    assert [Fraction(x) for x in data["affine"]] == list(e.affine)
    assert pld.epsilon(0).to_json()["log_argument"] == "27"  # eps(0) = 3 ln 3, the largest loss

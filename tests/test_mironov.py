"""Exact reachability for the textbook float Laplace mechanism (verify/precision/_mironov.py).

Oracles: brute force over every draw at small ``k``; the sampler's own draw at ``k = 53``;
mpmath for assumption A (libm ``log`` within one ulp on the draw grid), on which the 53-bit
search rests.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import mpmath
import pytest

import dpverify.verify.precision._mironov as mironov
from dpverify.samplers import InvalidArgument, SeededRandomSource
from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe, sample_unsafe
from dpverify.verify.precision._mironov import NonMonotoneMechanism, mironov_attack, reachable

N53 = 1 << 52  # the middle draw at k = 53 (u = 1/2)
LAST53 = (1 << 53) - 1

# (q, b) pairs: Mironov's (0, 1) and (1, 1); a large q whose additions absorb the noise
# (long preimages); tiny and odd scales; a q at 2^53 where doubles are spaced by 2.
CASES = [(0.0, 1.0), (1.0, 1.0), (1e6, 1.0), (0.1, 3.5), (-2.5, 1e-3), (1.0, 2.0**-20), (2.0**53, 1.0)]


def _boundary_draws(rng: random.Random) -> list[int]:
    """Tiny draws, draws around u = 1/2 and the top, and random ones."""
    draws = list(range(1, 40)) + list(range(N53 - 40, N53 + 41)) + list(range(LAST53 - 40, LAST53 + 1))
    draws += (
        [1 << e for e in range(1, 53)] + [(1 << e) - 1 for e in range(2, 54)] + [(1 << e) + 1 for e in range(1, 53)]
    )
    draws += [rng.randrange(1, LAST53 + 1) for _ in range(150)]
    return draws


@pytest.mark.parametrize(("q", "b"), CASES)
def test_every_drawn_output_is_reachable_at_its_draw(q: float, b: float) -> None:
    rng = random.Random(20261123)
    for j in _boundary_draws(rng):
        y = mechanism_unsafe(q, b, j, 53)
        result = reachable(y, q, b, 53)
        assert result.reachable, (q, b, j, y)
        assert result.draw is not None and result.draw <= j < result.draw + result.count, (q, b, j, result)
        below, above = result.bracket
        assert below == result.draw - 1 and above == result.draw + result.count
        # The certificate: the draws just outside the preimage land strictly on either side of y.
        assert below == 0 or mechanism_unsafe(q, b, below, 53) < y
        assert above == LAST53 + 1 or mechanism_unsafe(q, b, above, 53) > y
        assert result.window[0] <= result.draw and result.window[1] >= result.draw + result.count - 1
        assert result.examined <= 4 * 53 + 4 * mironov.DEFAULT_GUARD + 4  # O(k), never a scan of the preimage


@pytest.mark.parametrize(
    ("k", "q", "q_prime", "b"),
    [
        (12, 0.0, 1.0, 1.0),
        (12, 1e6, 1e6 + 1.0, 1.0),
        (12, 2.0**53, 2.0**53 - 1.0, 1.0),
        (10, 0.1, 0.2, 3.5),
        (10, 0.0, 2.0**-30, 2.0**-20),
    ],
)
def test_agrees_with_brute_force_over_every_draw(k: int, q: float, q_prime: float, b: float) -> None:
    draws = range(1, 1 << k)
    counts = {x: Counter(mechanism_unsafe(x, b, j, k) for j in draws) for x in (q, q_prime)}
    outputs = set(counts[q]) | set(counts[q_prime])
    # Also outputs that neither input produces: the neighbouring doubles of every output.
    candidates = (
        outputs | {math.nextafter(y, math.inf) for y in outputs} | {math.nextafter(y, -math.inf) for y in outputs}
    )
    for x in (q, q_prime):
        first = {}
        for j in draws:
            first.setdefault(mechanism_unsafe(x, b, j, k), j)
        for y in candidates:
            result = reachable(y, x, b, k)
            assert result.reachable == (y in counts[x]), (k, x, b, y)
            assert result.count == counts[x][y], (k, x, b, y)
            assert result.draw == first.get(y), (k, x, b, y)


@pytest.mark.parametrize(("q", "b"), CASES)
def test_the_mechanism_is_non_decreasing_at_16_bits_over_every_draw(q: float, b: float) -> None:
    outputs = [mechanism_unsafe(q, b, j, 16) for j in range(1, 1 << 16)]
    assert all(x <= y for x, y in zip(outputs, outputs[1:], strict=False))


@pytest.mark.parametrize(("q", "b"), CASES)
def test_the_mechanism_is_non_decreasing_on_runs_of_consecutive_53_bit_draws(q: float, b: float) -> None:
    rng = random.Random(7)
    starts = [1, N53 - 2000, LAST53 - 2000, (1 << 51) - 1000, int(N53 / math.e)]
    starts += [rng.randrange(1, LAST53 - 2000) for _ in range(10)]
    for start in starts:
        outputs = [mechanism_unsafe(q, b, j, 53) for j in range(start, start + 2001)]
        bad = [start + i for i, (x, y) in enumerate(zip(outputs, outputs[1:], strict=False)) if y < x]
        assert not bad, f"math.log is not monotone on the draw grid near j={bad[:3]} (q={q}, b={b})"


def _ulps_from_ln(m: int, k: int) -> mpmath.mpf:
    """``|math.log(m h) - ln(m h)| / ulp(ln(m h))`` with ``h = 2^-(k-1)``, the quantity assumption A bounds by 1."""
    x = m / (1 << (k - 1))
    exact = mpmath.log(mpmath.mpf(m) / mpmath.mpf(2) ** (k - 1))
    if exact == 0:
        return mpmath.mpf(0) if math.log(x) == 0.0 else mpmath.inf
    _, exponent = mpmath.frexp(exact)  # |exact| in [2^(e-1), 2^e)
    return abs(mpmath.mpf(math.log(x)) - exact) / mpmath.ldexp(1, exponent - 53)


def test_assumption_a_libm_log_is_within_one_ulp_on_the_draw_grid() -> None:
    """The platform log is faithful on the grid x = m 2^-52: near 0, near 1, near 1/e, at random."""
    rng = random.Random(11)
    ms = (
        list(range(1, 2500))
        + list(range(N53 - 2500, N53 + 1))
        + list(range(int(N53 / math.e) - 1500, int(N53 / math.e) + 1500))
    )
    ms += (
        [1 << e for e in range(53)]
        + [(1 << e) - 1 for e in range(1, 53)]
        + [rng.randrange(1, N53) for _ in range(3000)]
    )
    with mpmath.workdps(60):
        worst = max((_ulps_from_ln(m, 53), m) for m in ms)
    assert worst[0] <= 1, f"math.log(m/2^52) is {float(worst[0]):.3f} ulp from ln at m={worst[1]}: assumption A fails"


def test_lemma_neighbouring_grid_logs_are_more_than_two_ulps_apart() -> None:
    """Step 3 of the proof at its tightest point m ~ N/e, and the bound used for all m."""
    with mpmath.workdps(60):
        n = mpmath.mpf(N53)
        assert n / mpmath.e + mpmath.log(n) < mpmath.mpf(2) ** 51
        for m in (int(N53 / math.e) + d for d in range(-3, 4)):
            gap = mpmath.log(1 + mpmath.mpf(1) / m)
            ulp_bound = mpmath.log(n / m) / mpmath.mpf(2) ** 52
            assert gap > 2 * ulp_bound
            assert gap / ulp_bound > 2.7


def test_a_non_monotone_mechanism_is_refused_not_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    """If libm broke assumption A next to a preimage, the scan must raise instead of answering."""

    def swapped(q: float, b: float, j: int, k: int) -> float:  # two neighbouring draws swapped
        j = {1000: 1001, 1001: 1000}.get(j, j)
        return mechanism_unsafe(q, b, j, k)

    monkeypatch.setattr(mironov, "mechanism_unsafe", swapped)
    y = mechanism_unsafe(0.0, 1.0, 1000, 12)
    with pytest.raises(NonMonotoneMechanism) as raised:
        reachable(y, 0.0, 1.0, 12)
    assert "\n" not in str(raised.value)


def test_output_outside_the_range_and_nan_are_unreachable() -> None:
    top = mechanism_unsafe(0.0, 1.0, LAST53, 53)
    bottom = mechanism_unsafe(0.0, 1.0, 1, 53)
    above = reachable(math.nextafter(top, math.inf), 0.0, 1.0)
    below = reachable(math.nextafter(bottom, -math.inf), 0.0, 1.0)
    assert not above.reachable and above.bracket == (LAST53, LAST53 + 1)
    assert not below.reachable and below.bracket == (0, 1)
    assert not reachable(math.nan, 0.0, 1.0).reachable
    assert reachable(top, 0.0, 1.0).draw == LAST53 and reachable(bottom, 0.0, 1.0).draw == 1


def test_long_preimages_are_counted_exactly() -> None:
    """At q = 1e6 the addition absorbs many draws into one output; the count is exact at 53 bits."""
    result = reachable(1e6 + 0.5, 1e6, 1.0)
    assert result.reachable and result.count > 100_000
    lo, hi = result.draw, result.draw + result.count - 1
    for j in (lo, lo + 1, (lo + hi) // 2, hi - 1, hi):
        assert mechanism_unsafe(1e6, 1.0, j, 53) == 1e6 + 0.5
    assert mechanism_unsafe(1e6, 1.0, lo - 1, 53) < 1e6 + 0.5 < mechanism_unsafe(1e6, 1.0, hi + 1, 53)
    assert result.probability == Fraction(result.count, LAST53)


SEED = 20261123


def test_mironov_attack_reveals_most_outputs_of_0_against_1() -> None:
    """Mironov 2012: most outputs of the float mechanism at q = 0 cannot occur at q' = 1."""
    report = mironov_attack(0.0, 1.0, 1.0, samples=400, seed=SEED)
    print(f"mironov_attack(0.0, 1.0, 1.0, samples=400, seed={SEED}): {report.revealing}/400 revealing")
    assert report.seed == SEED and report.samples == 400 and report.k == 53
    assert report.fraction is not None and report.fraction > 0, f"seed={SEED}"
    assert report.fraction > 0.5, f"seed={SEED}: fraction {report.fraction}"
    assert 0 < report.lower_bound() < float(report.fraction)
    # Each example is the real sampler's output at its recorded draw, and q' cannot produce it.
    for example in report.examples:
        assert mechanism_unsafe(0.0, 1.0, example.j, 53) == example.output
        assert example.count_q >= 1 and example.count_q_prime == 0
        assert not reachable(example.output, 1.0, 1.0).reachable
    for example in report.ambiguous:
        assert reachable(example.output, 1.0, 1.0).count == example.count_q_prime > 0
    # The seed replays: the same draws through the real sampler give the same first output.
    first = sample_unsafe(0.0, 1.0, SeededRandomSource(SEED), 53)
    assert first in {e.output for e in report.examples + report.ambiguous}
    assert mironov_attack(0.0, 1.0, 1.0, samples=400, seed=SEED) == report


def test_mironov_attack_of_an_input_against_itself_reveals_nothing() -> None:
    report = mironov_attack(0.5, 0.5, 2.0, samples=100, seed=3)
    assert report.revealing == 0 and report.fraction == 0 and not report.examples


def test_mironov_attack_with_no_samples() -> None:
    report = mironov_attack(0.0, 1.0, 1.0, samples=0, seed=1)
    assert report.fraction is None and report.lower_bound() == 0.0
    assert report.to_json()["fraction"] is None


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: reachable(0.0, 0.0, 0.0), "scale"),
        (lambda: reachable(0.0, 0.0, -1.0), "scale"),
        (lambda: reachable(0.0, 0.0, math.inf), "scale"),
        (lambda: reachable(0.0, math.nan, 1.0), "q"),
        (lambda: reachable(0.0, "one", 1.0), "q"),
        (lambda: reachable(0.0, True, 1.0), "q"),
        (lambda: reachable(0.0, 2**60 + 1, 1.0), "q"),
        (lambda: reachable("0", 0.0, 1.0), "output"),
        (lambda: reachable(0.0, 0.0, 1.0, 54), "bits"),
        (lambda: reachable(0.0, 0.0, 1.0, 1), "bits"),
        (lambda: reachable(0.0, 0.0, 1.0, guard=0), "guard"),
        (lambda: mironov_attack(0.0, 1.0, 1.0, samples=-1), "samples"),
        (lambda: mironov_attack(0.0, math.inf, 1.0), "q_prime"),
        (lambda: mironov_attack(0.0, 1.0, 1.0, seed=-5), "seed"),
    ],
)
def test_bad_arguments_get_a_one_line_error_naming_them(call, name: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgument) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message and message.startswith(name), message

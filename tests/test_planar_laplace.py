"""The UNSAFE planar Laplace (samplers/planar_laplace_unsafe.py) and its exact report (verify/precision/_planar.py).

Oracles: ``mpmath.lambertw(x, -1)`` for the stdlib ``W_-1``; the radius CDF
``C(r) = 1 - (1 + eps r) e^{-eps r}`` in mpmath for the inverse-CDF radius; brute-force
counting for the report's tables; and a 40-digit rerun of the same draws for the
truncated and rounded release.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument, RandomSource, SeededRandomSource
from dpverify.samplers.planar_laplace_unsafe import (
    BRANCH_POINT,
    lambertw_m1,
    mechanism_unsafe,
    noise_unsafe,
    sample_truncated_rounded_unsafe,
    sample_unsafe,
    truncate_round_unsafe,
)
from dpverify.verify.engine._results import Verdict
from dpverify.verify.precision._planar import planar_report

ULPS = 4  # allowed distance from the correctly rounded W_-1 (measured: at most 2)


def _reference_w(x: float) -> float:
    with mpmath.workdps(40):
        return float(mpmath.lambertw(mpmath.mpf(x), -1).real)


def _assert_close(x: float) -> None:
    w, ref = lambertw_m1(x), _reference_w(x)
    assert abs(w - ref) <= ULPS * math.ulp(ref), (x, w, ref)


# --- W_-1 against mpmath ------------------------------------------------------------------------

EDGE_XS = (
    [BRANCH_POINT + i * math.ulp(BRANCH_POINT) for i in range(1, 20)]  # the branch point's neighbours
    + [BRANCH_POINT + 2.0**-e for e in range(2, 56)]  # approaching -1/e
    + [-(2.0**-e) for e in range(2, 1075)]  # approaching 0, down to the smallest subnormal
    + [-0.5 / math.e, math.nextafter(-0.5 / math.e, 0), math.nextafter(-0.5 / math.e, -1)]  # q = 1/2
    + [-0.25, -0.1, -1e-300]
)


def test_lambertw_m1_matches_mpmath_at_the_edges() -> None:
    for x in EDGE_XS:
        _assert_close(x)


@given(st.floats(min_value=BRANCH_POINT, max_value=-5e-324))
def test_lambertw_m1_matches_mpmath(x: float) -> None:
    _assert_close(x)


@given(st.floats(min_value=-700.0, max_value=-1.0))
def test_lambertw_m1_matches_mpmath_on_a_log_scale(log_minus_x: float) -> None:
    _assert_close(-math.exp(log_minus_x))


def test_lambertw_m1_is_the_lower_branch_and_inverts_w_exp_w() -> None:
    for x in EDGE_XS:
        w = lambertw_m1(x)
        assert w <= -1.0
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(w) * mpmath.exp(w) - x) <= 1e-15 * abs(x) + 1e-17


def test_the_branch_point_maps_to_minus_one() -> None:
    assert BRANCH_POINT == -1.0 / math.e
    with mpmath.workdps(40):
        assert mpmath.mpf(BRANCH_POINT) < -1 / mpmath.e  # the double lies just outside the domain
    assert lambertw_m1(BRANCH_POINT) == -1.0


@pytest.mark.parametrize("x", [0.0, -0.0, 0.1, math.nextafter(BRANCH_POINT, -1), -1.0, math.nan, -math.inf, True])
def test_lambertw_m1_refuses_points_outside_its_domain(x: float) -> None:
    with pytest.raises(InvalidArgument) as info:
        lambertw_m1(x)
    assert str(info.value).startswith("x must be") and "\n" not in str(info.value)


# --- the noise ----------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1.0, 0.1, 3.5])
def test_the_radius_is_the_inverse_cdf_of_the_radial_law(eps: float) -> None:
    k = 7
    for j_radius in range(1 << k):
        dx, dy = noise_unsafe(0, j_radius, k, eps)  # angle 0: the radius lies on the x axis
        assert dy == 0.0 and dx >= 0.0
        with mpmath.workdps(30):
            r = mpmath.mpf(dx)
            cdf = 1 - (1 + eps * r) * mpmath.exp(-eps * r)
            p = Fraction(j_radius, 1 << k)
            # W_-1 has an infinite slope at p = 0: compare in C, where the error is ~1e-16
            assert abs(cdf - mpmath.mpf(p.numerator) / p.denominator) < 1e-14, (j_radius, dx)


def test_the_radius_grows_with_its_draw_and_the_angle_is_the_drawn_one() -> None:
    k, eps = 8, 1.0
    radii = [math.hypot(*noise_unsafe(0, j, k, eps)) for j in range(1 << k)]
    assert radii[0] == 0.0 and all(a < b for a, b in zip(radii, radii[1:], strict=False))
    for j_angle in range(0, 1 << k, 7):
        dx, dy = noise_unsafe(j_angle, 100, k, eps)
        theta = math.atan2(dy, dx) % math.tau
        assert abs(theta - math.tau * j_angle / (1 << k)) < 1e-12


class _Scripted(RandomSource):
    """Returns the listed draws in order and records the bounds it was asked for."""

    def __init__(self, draws: list[int]) -> None:
        self.draws, self.asked = list(draws), []

    def randbelow(self, n: int) -> int:
        self.asked.append(n)
        return self.draws.pop(0)


def test_the_sampler_draws_the_angle_then_the_radius() -> None:
    rng = _Scripted([40, 90])
    point = sample_unsafe(0.5, -2.0, 0.7, rng, k=8)
    assert rng.asked == [256, 256] and not rng.draws
    assert point == mechanism_unsafe(0.5, -2.0, noise_unsafe(40, 90, 8, 0.7))
    # the radius draw 0 is radius 0: the true location itself is released (probability 2^-k)
    assert sample_unsafe(0.5, -2.0, 0.7, _Scripted([3, 0]), k=8) == (0.5, -2.0)


def test_the_radius_follows_its_cdf_on_a_seeded_run() -> None:
    rng, n, eps = SeededRandomSource(20260101), 4000, 2.0
    radii = [math.hypot(*sample_unsafe(0.0, 0.0, eps, rng)) for _ in range(n)]
    # DKW at alpha = 1e-6: sup |F_n - C| <= sqrt(ln(2/alpha) / (2n)) ~ 0.043
    bound = math.sqrt(math.log(2 / 1e-6) / (2 * n))
    radii.sort()
    for i, r in enumerate(radii):
        cdf = 1 - (1 + eps * r) * math.exp(-eps * r)
        assert max(abs((i + 1) / n - cdf), abs(i / n - cdf)) <= bound, (i, r)


def test_truncated_rounded_release_is_on_the_grid_or_none() -> None:
    box, L = (-1.0, 2.0, -1.5, 1.5), 0.5
    rng = SeededRandomSource(7)
    seen = Counter()
    for _ in range(2000):
        out = sample_truncated_rounded_unsafe(0.2, 0.1, 1.0, box, L, rng)
        seen[out is None] += 1
        if out is not None:
            for v in out:
                assert v / L == round(v / L)
            assert box[0] - L / 2 <= out[0] <= box[1] + L / 2 and box[2] - L / 2 <= out[1] <= box[3] + L / 2
    assert seen[True] and seen[False]
    assert truncate_round_unsafe((2.0000001, 0.0), box, L) is None
    assert truncate_round_unsafe((2.0, -1.5), box, L) == (2.0, -1.5)  # the box is closed
    assert truncate_round_unsafe((0.26, -0.24), box, L) == (0.5, -0.0) == (0.5, 0.0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"k": 1}, "bits"),
        ({"k": 54}, "bits"),
        ({"k": 8.0}, "bits"),
        ({"eps": 0.0}, "eps"),
        ({"eps": -1.0}, "eps"),
        ({"eps": math.nan}, "eps"),
        ({"x": math.inf}, "x"),
        ({"y": "1"}, "y"),
        ({"box": (0.0, 1.0, 0.0)}, "box"),
        ({"box": (1.0, 0.0, 0.0, 1.0)}, "box"),
        ({"box": (0.0, 1.0, 0.0, math.inf)}, "ymax"),
        ({"L": 0.0}, "L"),
        ({"L": math.inf}, "L"),
    ],
)
def test_bad_arguments_get_a_one_line_error(kwargs: dict[str, object], name: str) -> None:
    args: dict[str, object] = {"x": 0.0, "y": 0.0, "eps": 1.0, "box": (-1.0, 1.0, -1.0, 1.0), "L": 0.5, "k": 8}
    args.update(kwargs)
    with pytest.raises(InvalidArgument) as info:
        sample_truncated_rounded_unsafe(**args)  # type: ignore[arg-type]
    assert str(info.value).startswith(f"{name} must ") and "\n" not in str(info.value)


# --- the exact report ---------------------------------------------------------------------------


def test_plain_release_has_disjoint_supports_and_infinite_loss() -> None:
    k = 6
    report = planar_report(k=k)
    n = 1 << k
    # brute force: every pair through the sampler's own code, at both locations
    from_a = Counter(mechanism_unsafe(0.0, 0.0, noise_unsafe(d >> k, d % n, k, 1.0)) for d in range(n * n))
    from_b = Counter(mechanism_unsafe(1.0, 0.0, noise_unsafe(d >> k, d % n, k, 1.0)) for d in range(n * n))
    assert report.plain_outputs == (len(from_a), len(from_b)) == (n * n - n + 1,) * 2  # radius 0: n angles, 1 point
    assert report.plain_shared == len(from_a.keys() & from_b.keys()) == 0
    assert report.plain.ratio is None
    # the witness: draw (0, 0) releases the true location a itself, probability n / n^2
    assert report.plain.output == (0.0, 0.0) and report.plain.draw == 0 and report.plain.counts == (n, 0)
    plain, _ = report.checks()
    assert plain.verdict is Verdict.VIOLATED
    assert plain.evidence["witness"]["p"] == f"1/{n}" and plain.evidence["witness"]["ratio"] == "Infinity"


def test_truncated_rounded_loss_is_exact_and_matches_the_40_digit_reference() -> None:
    report = planar_report(k=7, reference=True)
    assert report.differing_draws == (0, 0) and report.ambiguous_draws == 0
    assert report.reference is not None and report.reference.ratio == report.rounded.ratio
    # pinned: at 7 bits per draw a corner cell is reachable from a only (infinite loss)
    assert report.rounded.ratio is None
    assert report.rounded.output == (-5.0, 5.0) and report.rounded.counts == (3, 0)
    _, rounded = report.checks()
    assert rounded.verdict is Verdict.VIOLATED and rounded.evidence["draw"] == {"j_angle": 47, "j_radius": 127}
    json.dumps(report.to_json())
    json.dumps([c.to_json() for c in report.checks()])


def test_truncated_rounded_loss_at_8_bits_is_finite_and_within_eps_d() -> None:
    report = planar_report(k=8)
    assert report.rounded.ratio == Fraction(111, 41)  # ln(111/41) = 0.99596 < eps * d = 1
    _, rounded = report.checks()
    assert rounded.verdict is Verdict.PROVED
    w = rounded.evidence["witness"]
    assert (w["q"], w["q_prime"], w["output"]) == ([1.0, 0.0], [0.0, 0.0], [3.0, 0.0])
    assert Fraction(w["p"]) / Fraction(w["p_prime"]) == Fraction(111, 41)
    # the counts, by brute force through the sampler's own code
    k, n = 8, 256
    count = [
        sum(
            truncate_round_unsafe(mechanism_unsafe(x, 0.0, noise_unsafe(d >> k, d % n, k, 1.0)), report.box, 1.0)
            == (3.0, 0.0)
            for d in range(n * n)
        )
        for x in (1.0, 0.0)
    ]
    assert Fraction(count[0], count[1]) == Fraction(111, 41)


def test_report_refuses_too_many_bits() -> None:
    with pytest.raises(InvalidArgument, match=r"^bits must be an int with 2 <= bits <= 10"):
        planar_report(k=11)

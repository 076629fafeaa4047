"""Gazeau-Miller-Palamidessi Mechanisms 2 and 3 over the float Laplace, and Theorem 4.5's bound.

The sampler's outputs are checked against its grid, its exact PMF against an independent
mpmath oracle (real arithmetic on the same k-bit grid), and the report's exact loss against
both readings of the robustness ratio (5).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument, SeededRandomSource
from dpverify.samplers.gazeau_unsafe import EXCEPTION, GazeauConfig, grid_unsafe, mechanism_unsafe, sample_unsafe
from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe as laplace_unsafe
from dpverify.verify.precision._float_exact import float_pmf
from dpverify.verify.precision._gazeau import (
    computation_error,
    default_delta_0,
    epsilon_prime,
    gazeau_privacy,
    robustness_definition_5,
    robustness_section_5,
    section_5_lipschitz,
)

#: A repaired configuration meeting every condition of Theorem 4.5 (b = 1, eps = 1).
REPAIRED = (1.0, 0.0, 1.0, 16, -2.0, 2.0, 0.25)


# --- the sampler ---------------------------------------------------------------------------


@given(
    scale=st.sampled_from([0.25, 0.5, 1.0, 3.0]),
    q=st.floats(min_value=-3, max_value=3),
    lower=st.sampled_from([-2.0, -1.5, -0.375]),
    cells=st.integers(min_value=1, max_value=40),
    step=st.sampled_from([0.0625, 0.125, 0.1875, 1.0]),
    j=st.integers(min_value=1, max_value=(1 << 12) - 1),
)
def test_output_is_the_cell_midpoint_or_the_exception(
    scale: float, q: float, lower: float, cells: int, step: float, j: int
) -> None:
    config = GazeauConfig.create(scale=scale, bits=12, lower=lower, upper=lower + cells * step, step=step)
    x = laplace_unsafe(q, scale, j, 12)
    y = mechanism_unsafe(q, config, j)
    if not config.lower <= x <= config.upper:
        assert y == EXCEPTION
        return
    assert y in grid_unsafe(config)
    midpoint = Fraction(config.lower) + (Fraction(grid_unsafe(config).index(y)) + Fraction(1, 2)) * Fraction(step)
    # The released double is the exact midpoint up to the roundings of lower + (i + 1/2) * step,
    # and x lies in that cell up to the float location of the cell (a few ulps).
    assert abs(Fraction(y) - midpoint) <= 2 * Fraction(math.ulp(max(abs(lower), abs(config.upper)) + step))
    assert abs(Fraction(x) - midpoint) <= Fraction(step) / 2 + Fraction(1, 2**40)


def test_every_draw_lands_on_the_grid_or_the_exception() -> None:
    config = GazeauConfig.create(scale=1.0, bits=12, lower=-2.0, upper=2.0, step=0.25)
    allowed = set(grid_unsafe(config)) | {EXCEPTION}
    for q in (0.0, 1.0, 0.1, -1.9999):
        assert {mechanism_unsafe(q, config, j) for j in range(1, 1 << 12)} <= allowed
    rng = SeededRandomSource(7)
    assert all(sample_unsafe(0.3, config, rng) in allowed for _ in range(200))


def _oracle_counts(scale: float, q: float, config: GazeauConfig) -> dict[float, int]:
    """Draw counts per output in real arithmetic on the same grid ``u = j / 2^k``.

    ``n`` is the inverse of the Laplace CDF ``F``, so ``q + n(j/2^k)`` lies in ``[a, c)`` iff
    ``2^k F(a - q) <= j < 2^k F(c - q)``: the count is ``ceil(2^k F(c - q)) - ceil(2^k F(a - q))``.
    """
    k = config.bits
    with mpmath.workdps(60):

        def grid_position(x: Fraction) -> mpmath.mpf:
            t = (mpmath.mpf(x.numerator) / x.denominator - mpmath.mpf(q)) / mpmath.mpf(scale)
            cdf = mpmath.exp(t) / 2 if t < 0 else 1 - mpmath.exp(-t) / 2
            return cdf * 2**k

        def ceil(x: Fraction) -> int:
            if x == Fraction(q):  # n(1/2) = 0: the draw j = 2^(k-1) sits exactly on this edge
                return 1 << (k - 1)
            position = grid_position(x)
            assert abs(position - mpmath.nint(position)) > mpmath.mpf(10) ** -40, "a draw on a boundary"
            return int(mpmath.ceil(position))

        lower, step = Fraction(config.lower), Fraction(config.step)
        edges = [ceil(lower + i * step) for i in range(config.cells + 1)]
    counts = {y: edges[i + 1] - edges[i] for i, y in enumerate(grid_unsafe(config))}
    counts[EXCEPTION] = (edges[0] - 1) + ((1 << k) - edges[-1])
    return {y: c for y, c in counts.items() if c}


@pytest.mark.parametrize(
    ("scale", "q", "lower", "upper", "step"),
    [
        (1.0, 0.0, -2.0, 2.0, 0.25),
        (1.0, 1.0, -2.0, 2.0, 0.25),
        (0.5, 0.3, -1.0, 3.0, 0.125),
        (2.0, -0.7, -1.0, 1.0, 0.5),
    ],
)
def test_float_pmf_equals_the_real_arithmetic_pmf_at_14_bits(
    scale: float, q: float, lower: float, upper: float, step: float
) -> None:
    # An independent oracle: the float errors (~1e-15) never move a draw across a cell edge
    # here, so the exact loss below is the k-bit discretisation's, and portable across libms.
    config = GazeauConfig.create(scale=scale, bits=14, lower=lower, upper=upper, step=step)
    pmf = float_pmf(lambda j: mechanism_unsafe(q, config, j), range(1, 1 << 14))
    assert pmf.counts == _oracle_counts(scale, q, config)


# --- the paper's formulas --------------------------------------------------------------------


def test_robustness_readings_by_hand() -> None:
    L, d = Fraction(1, 4), Fraction(1, 64)
    # Definition (5): |S^{+d} \ S^{-d}| / |S^{-d}| = 4d / (L - 2d) = (1/16) / (7/32).
    assert robustness_definition_5(L, d) == Fraction(2, 7)
    # §5: (L + 2d) / (L - 2d) = (9/32) / (7/32).
    assert robustness_section_5(L, d) == Fraction(9, 7)
    assert robustness_definition_5(L, Fraction(1, 8)) is None and robustness_section_5(L, Fraction(1, 8)) is None


@given(
    step=st.fractions(min_value=Fraction(1, 1000), max_value=10),
    share=st.fractions(min_value=0, max_value=Fraction(999, 1000)),
)
def test_section_5_value_is_one_plus_definition_5(step: Fraction, share: Fraction) -> None:
    delta_t = share * step / 2  # any delta_t < L/2
    assert robustness_section_5(step, delta_t) == 1 + robustness_definition_5(step, delta_t)


@pytest.mark.parametrize(
    ("robustness", "expected"),
    [
        (Fraction(2, 7), 1 + math.log1p(2 / 7 * math.exp(17 / 64))),  # 1.3167371156715...
        (Fraction(9, 7), 1 + math.log1p(9 / 7 * math.exp(17 / 64))),  # 1.9846547589016...
        (Fraction(0), 1.0),
    ],
)
def test_epsilon_prime_by_hand(robustness: Fraction, expected: float) -> None:
    # eps = Delta_f = 1, L = 1/4, delta_t = 1/64: eps' = 1 + ln(1 + R e^(17/64)).
    enclosure = epsilon_prime(Fraction(1), Fraction(1), Fraction(1, 4), Fraction(1, 64), robustness)
    assert enclosure is not None
    low, high = enclosure
    assert low <= high and high - low < 1e-25
    assert abs(float(low) - expected) < 1e-14
    assert epsilon_prime(Fraction(1), Fraction(1), Fraction(1, 4), Fraction(1, 8), None) is None


def test_lipschitz_is_a_tight_upper_bound_of_2_b_exp_diam_over_b() -> None:
    with mpmath.workdps(50):
        for scale, diameter in (
            (Fraction(1), Fraction(4)),
            (Fraction(1, 2), Fraction(3)),
            (Fraction(7, 3), Fraction(1)),
        ):
            exact = (
                2
                * mpmath.mpf(scale.numerator)
                / scale.denominator
                * mpmath.exp(
                    mpmath.mpf(diameter.numerator)
                    / diameter.denominator
                    / (mpmath.mpf(scale.numerator) / scale.denominator)
                )
            )
            bound = section_5_lipschitz(scale, diameter)
            value = mpmath.mpf(bound.numerator) / bound.denominator
            assert exact <= value <= exact * (1 + mpmath.mpf(10) ** -28)


def test_default_error_parameters() -> None:
    assert default_delta_0(12) == Fraction(1, 4096)
    config = GazeauConfig.create(scale=1.0, bits=14, lower=-2.0, upper=2.0, step=0.25)
    error = computation_error(config)
    assert error.monotone  # Condition 2 on the grid
    assert 0 < error.noise < Fraction(1, 10**14)  # libm log and one multiplication
    assert error.addition == Fraction(1, 2**52)  # ulp(2)/2
    assert error.rounding == 4 * (Fraction(1, 2**52) + Fraction(1, 2**106))


# --- the report ------------------------------------------------------------------------------


def test_repaired_mechanism_has_finite_loss_below_both_readings() -> None:
    report = gazeau_privacy(*REPAIRED)
    json.dumps(report, allow_nan=False)  # JSON-ready
    assert report["conditions"] == {
        "condition_1": True,
        "condition_2": True,
        "queries_in_range": True,
        "step_exceeds_2_delta_t": True,
        "all_hold": True,
    }
    assert report["mechanism_epsilon"] == 1.0
    assert report["exact_ratio"] == "1260/463"  # e^1.00114
    assert report["witness"] == {"output": -1.875, "j": 4435, "from_input": "q", "counts": [1260, 463]}
    assert report["exact_epsilon"] == pytest.approx(math.log(1260 / 463), abs=1e-15)
    # delta_t = 2 e^4 2^-16 + delta_n = 0.001666...; R_def5 = 4 delta_t / (L - 2 delta_t).
    assert report["delta_t"] == pytest.approx(2 * math.exp(4) / 2**16, rel=1e-9)
    d, L = report["delta_t"], 0.25
    assert report["robustness_definition_5"] == pytest.approx(4 * d / (L - 2 * d), rel=1e-12)
    assert report["robustness_section_5"] == pytest.approx((L + 2 * d) / (L - 2 * d), rel=1e-12)
    for name in ("definition_5", "section_5"):
        r = report[f"robustness_{name}"]
        assert report[f"epsilon_prime_{name}"] == pytest.approx(1 + math.log1p(r * math.exp(L + d)), rel=1e-12)
    assert report["epsilon_prime_definition_5"] == pytest.approx(1.03416126845830, abs=1e-12)
    assert report["epsilon_prime_section_5"] == pytest.approx(1.84196284597211, abs=1e-12)
    assert report["contradicted_readings"] == [] and report["theorem_4_5_contradicted"] is False
    assert report["bounds"]["definition_5"]["verdict"] == report["bounds"]["section_5"]["verdict"] == "holds"


@pytest.mark.parametrize(
    ("args", "ratio"),
    [
        ((1.0, 0.0, 1.0, 12, -2.0, 2.0, 0.25), "130/47"),
        ((0.5, 0.0, 1.0, 16, -2.0, 2.0, 0.25), "389/52"),
        ((2.0, 0.0, 1.0, 14, -1.0, 1.0, 0.5), "1812/1099"),
        ((1.0, 0.3, -0.4, 13, -1.5, 2.5, 0.5), None),
    ],
)
def test_more_repaired_configurations_respect_both_readings(args: tuple, ratio: str | None) -> None:
    report = gazeau_privacy(*args)
    assert report["conditions"]["all_hold"]
    assert report["exact_epsilon"] != "Infinity"
    assert report["exact_epsilon"] <= report["epsilon_prime_definition_5"] < report["epsilon_prime_section_5"]
    assert report["contradicted_readings"] == []
    if ratio is not None:
        assert report["exact_ratio"] == ratio


def test_step_far_below_2_delta_t_gives_infinite_loss() -> None:
    # b = 1, k = 12, [m, M] = [-8, 8]: delta_t = 2 e^16 / 2^12 ~ 4339 >> L = 1/64.  Far in
    # the tail a cell holds 0 or 1 draws, so some output is possible from q and not from q'.
    report = gazeau_privacy(1.0, 0.0, 1.0, 12, -8.0, 8.0, 1 / 64)
    assert report["exact_epsilon"] == "Infinity" and report["exact_ratio"] == "Infinity"
    assert report["witness"] == {"output": -7.6171875, "j": 1, "from_input": "q", "counts": [1, 0]}
    assert report["conditions"]["step_exceeds_2_delta_t"] is False
    assert report["epsilon_prime_definition_5"] == report["epsilon_prime_section_5"] == "Infinity"
    assert {b["verdict"] for b in report["bounds"].values()} == {"vacuous"}


def test_step_just_below_2_delta_t_gives_a_large_loss() -> None:
    # delta_t = 2 e^4 / 2^12 = 0.0267 > L/2 = 1/64: finite but 20% above eps = 1.
    report = gazeau_privacy(1.0, 0.0, 1.0, 12, -2.0, 2.0, 1 / 32)
    assert report["exact_ratio"] == "10/3" and report["exact_epsilon"] > 1.2
    assert report["conditions"]["step_exceeds_2_delta_t"] is False
    assert report["contradicted_readings"] == []  # both bounds are vacuous, not wrong


def test_without_delta_0_only_the_section_5_reading_survives() -> None:
    # delta_0 = 0 drops the k-bit discretisation from delta_t: definition (5) then gives
    # eps' ~ eps, which the exact loss exceeds, while §5's extra 1 in R still covers it.
    report = gazeau_privacy(*REPAIRED, delta_0=0)
    assert report["parameters"]["delta_0"] == "0" and report["parameters"]["delta_0_default"] is False
    assert report["epsilon_prime_definition_5"] < report["exact_epsilon"] < report["epsilon_prime_section_5"]
    assert report["contradicted_readings"] == ["definition_5"]
    assert report["theorem_4_5_contradicted"] is True


def test_queries_outside_the_truncation_set_break_section_5s_lipschitz_constant() -> None:
    # §5 derives k on |n(u)| <= M - m, which covers the draws landing in [m, M] only when the
    # query answer lies in [m, M].  Here q = 1.9, q' = 1.2 lie outside [-1, 1].
    report = gazeau_privacy(0.5, 1.9, 1.2, 12, -1.0, 1.0, 0.125)
    assert report["conditions"]["queries_in_range"] is False and report["conditions"]["all_hold"] is False
    assert report["exact_ratio"] == "7"
    assert report["witness"] == {"output": -0.9375, "j": 26, "from_input": "q_prime", "counts": [1, 7]}
    assert report["contradicted_readings"] == ["definition_5"]
    assert report["theorem_4_5_contradicted"] is False  # its conditions do not hold
    infinite = gazeau_privacy(0.25, 0.0, 0.5, 10, 1.5, 2.5, 0.25)
    assert infinite["exact_epsilon"] == "Infinity"
    assert infinite["contradicted_readings"] == ["definition_5", "section_5"]


def test_overrides_are_used_and_reported() -> None:
    report = gazeau_privacy(*REPAIRED, epsilon="3/2", sensitivity="2", delta_n="1/10^6", delta_0="1/65536")
    p = report["parameters"]
    assert (p["epsilon"], p["sensitivity"], p["delta_n"], p["delta_0"]) == ("3/2", "2", "1/1000000", "1/65536")
    assert report["mechanism_epsilon"] == 2.0  # Delta_f / b
    assert report["conditions"]["condition_1"] is False  # 3/2 < 2: Condition 1 fails
    delta_t = Fraction(report["delta_t_exact"])
    assert delta_t - Fraction(1, 10**6) == pytest.approx(2 * math.exp(4) / 2**16, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bits": 1}, r"bits must be an integer with bits >= 2 and bits <= 24; got bits=1"),
        ({"bits": 25}, r"bits must be an integer with bits >= 2 and bits <= 24; got bits=25"),
        ({"step": 0.3}, r"step must divide upper - lower exactly"),
        ({"step": -0.25}, r"step must be > 0; got step=-0\.25"),
        ({"step": "abc"}, r"step must be a rational such as"),
        ({"lower": 2.0}, r"lower must be < upper; got lower=2\.0, upper=2\.0"),
        ({"scale": 0.0}, r"scale must be > 0; got scale=0\.0"),
        ({"q": math.nan}, r"q must be a finite number; got q=nan"),
        ({"q_prime": 0.0}, r"sensitivity must be > 0 and >= \|q - q_prime\| = 0\.0"),
        ({"sensitivity": "1/2"}, r"sensitivity must be > 0 and >= \|q - q_prime\| = 1\.0; got sensitivity=0\.5"),
        ({"epsilon": 0.5}, r"epsilon must be an exact rational; got epsilon=0\.5 \(a float\)"),
        ({"epsilon": "0"}, r"epsilon must be > 0; got epsilon=0"),
        ({"delta_0": "-1"}, r"delta_0 must be >= 0; got delta_0=-1"),
        ({"delta_n": "-1/2"}, r"delta_n must be >= 0; got delta_n=-1/2"),
    ],
)
def test_bad_input_is_one_line(kwargs: dict, message: str) -> None:
    args = dict(zip(("scale", "q", "q_prime", "bits", "lower", "upper", "step"), REPAIRED, strict=True))
    args["bits"] = 12
    args.update(kwargs)
    with pytest.raises(InvalidArgument, match=message) as raised:
        gazeau_privacy(**args)
    assert "\n" not in str(raised.value)


def test_sampler_config_errors_are_one_line() -> None:
    with pytest.raises(InvalidArgument, match=r"bits must be an integer with 2 <= bits <= 53; got bits=54"):
        GazeauConfig.create(scale=1.0, bits=54, lower=0.0, upper=1.0, step=0.5)
    with pytest.raises(InvalidArgument, match=r"upper must be a finite number; got upper=inf"):
        GazeauConfig.create(scale=1.0, bits=12, lower=0.0, upper=math.inf, step=0.5)
    with pytest.raises(InvalidArgument, match=r"q must be a finite number"):
        sample_unsafe(math.inf, GazeauConfig.create(scale=1.0, bits=12, lower=0.0, upper=1.0, step=0.5))

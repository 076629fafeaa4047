"""The vector noise mechanisms, the mechanisms with their guarantees, the combinators, and
their specs: exact checks on small instances, the claims, the refusals, and broken copies."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import (
    DpverifyError,
    Guarantee,
    InvalidArgument,
    Mechanism,
    RandomSource,
    SeededRandomSource,
    as_fraction,
    mechanisms,
    vector_gaussian,
    vector_laplace,
)
from dpverify.samplers.discrete_laplace import _sample_scaled
from dpverify.specs import (
    ApproxDp,
    Case,
    GtmSpec,
    PureDp,
    VectorGaussianSpec,
    VectorLaplaceSpec,
    Zcdp,
    certified_classic_sigma2,
    guarantee_claims,
    product_pmf,
    pushforward,
)
from dpverify.verify import Verdict, check_intervals, enumerate_outputs, tightest_alpha
from dpverify.verify.gate._mechanism_specs import GTM_COMPOSED
from dpverify.verify.gate._spec_run import run_case
from dpverify.verify.gate._vector_specs import VECTOR_LAPLACE
from dpverify.verify.privacy._mechanisms import (
    check_classic_sigma2,
    check_guarantee,
    check_post_processing,
    check_vector_laplace_claim,
)

SEED = 20260117


def one_line_refusal(call: Any, *names: str) -> str:
    """The call is refused with one line that names each of ``names`` as ``name=``."""
    with pytest.raises(InvalidArgument) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400
    for name in names:
        assert f"{name}=" in message, message
    return message


# --- the classic sigma^2 ------------------------------------------------------------------------


def real_classic(s: Fraction, eps: Fraction, delta: Fraction) -> mpmath.mpf:
    """``2 ln(1.25/delta) s^2/epsilon^2`` at 200 digits, independently of both implementations."""
    with mpmath.workdps(200):
        return (
            2
            * mpmath.log(mpmath.mpf(5 * delta.denominator) / (4 * delta.numerator))
            * mpmath.mpf(s.numerator) ** 2
            / mpmath.mpf(s.denominator) ** 2
            * mpmath.mpf(eps.denominator) ** 2
            / mpmath.mpf(eps.numerator) ** 2
        )


def assert_smallest_grid_point_above(sigma2: Fraction, s: Fraction, eps: Fraction, delta: Fraction) -> None:
    grid = Fraction(1, 2**32)
    assert (sigma2 / grid).denominator == 1
    with mpmath.workdps(200):
        x = real_classic(s, eps, delta)
        above = mpmath.mpf(sigma2.numerator) / sigma2.denominator - x
        below = x - mpmath.mpf((sigma2 - grid).numerator) / (sigma2 - grid).denominator
        # both gaps positive by far more than the 200-digit working error
        assert above > mpmath.mpf(10) ** -150 * (1 + x) and below > mpmath.mpf(10) ** -150 * (1 + x)


DECIMALS = [
    ("1", "0.1", "1e-6"),
    ("1", "0.5", "1e-5"),
    ("2.5", "0.01", "1e-12"),
    ("0.3", "0.999", "0.001"),
    ("1", "1e-9", "0.5"),
    ("10^6", "0.25", "1/10^100"),
    ("1/3", "2/3", "0.999999"),
    ("7", "0.9", "0.05"),
]


@pytest.mark.parametrize(("s", "eps", "delta"), DECIMALS)
def test_classic_sigma2_is_the_smallest_grid_point_above_the_real_value(s: str, eps: str, delta: str) -> None:
    sigma2 = vector_gaussian.classic_sigma2(s, eps, delta)
    assert_smallest_grid_point_above(sigma2, *(as_fraction("value", v) for v in (s, eps, delta)))
    assert certified_classic_sigma2(s, eps, delta) == sigma2


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.fractions(Fraction(1, 1000), 1000, max_denominator=10**6),
    st.fractions(0, 1, max_denominator=10**6).filter(lambda x: 0 < x < 1),
    st.fractions(0, 1, max_denominator=10**9).filter(lambda x: 0 < x < 1),
)
def test_classic_sigma2_against_an_independent_mpmath_value(s: Fraction, eps: Fraction, delta: Fraction) -> None:
    sigma2 = vector_gaussian.classic_sigma2(s, eps, delta)
    assert_smallest_grid_point_above(sigma2, s, eps, delta)
    assert certified_classic_sigma2(s, eps, delta) == sigma2


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.fractions(1, 10**30, max_denominator=10**12), st.integers(8, 300))
def test_the_logarithm_bounds_enclose_ln(y: Fraction, bits: int) -> None:
    low, high = vector_gaussian._ln_scaled(y, bits)
    with mpmath.workdps(bits // 3 + 60):
        exact = mpmath.log(mpmath.mpf(y.numerator) / y.denominator) * mpmath.mpf(2) ** bits
        assert low <= exact <= high
    assert high - low <= 2 * (y.numerator.bit_length() + 1) * (bits + 4)  # a few units per series term


def test_classic_sigma2_refuses_epsilon_outside_the_classic_range() -> None:
    message = one_line_refusal(lambda: vector_gaussian.classic_sigma2(1, 1, "1/2"), "epsilon")
    assert "(0, 1)" in message
    one_line_refusal(lambda: vector_gaussian.classic_sigma2(1, "3/2", "1/2"), "epsilon")
    one_line_refusal(lambda: vector_gaussian.classic_sigma2(1, "1/2", 1), "delta")
    one_line_refusal(lambda: vector_gaussian.classic_sigma2(0, "1/2", "1/2"), "sensitivity")
    one_line_refusal(lambda: vector_gaussian.classic_sigma2(1, 0.5, "1/2"), "epsilon")


def test_the_classic_sigma2_check_catches_a_one_unit_error() -> None:
    assert check_classic_sigma2(vector_gaussian.classic_sigma2, [(1, "1/2", "1/3")]).verdict is Verdict.PROVED
    off = lambda s, e, d: vector_gaussian.classic_sigma2(s, e, d) + Fraction(1, 2**32)  # noqa: E731
    result = check_classic_sigma2(off, [(1, "1/2", "1/3")])
    assert result.verdict is Verdict.VIOLATED and "certified" in result.summary


def test_the_classic_pair_holds_by_the_zcdp_conversion() -> None:
    """CKS20 Corollary 13 at a = 1 + 2l/epsilon, evaluated with mpmath: delta' < delta (the
    docstring's proof, checked numerically over the range's corners and middle)."""
    for eps in ("1/10^6", "1/100", "1/2", "999/1000"):
        for delta in ("1/10^50", "1/10^6", "1/2", "999999/1000000"):
            sigma2 = vector_gaussian.classic_sigma2(1, eps, delta)
            with mpmath.workdps(60):
                e, d = (
                    mpmath.mpf(as_fraction("x", x).numerator) / as_fraction("x", x).denominator for x in (eps, delta)
                )
                rho = 1 / (2 * mpmath.mpf(sigma2.numerator) / sigma2.denominator)
                a = 1 + 2 * mpmath.log(mpmath.mpf(5) / (4 * d)) / e
                log_delta = (a - 1) * (a * rho - e) + a * mpmath.log(1 - 1 / a) - mpmath.log(a - 1)
                assert log_delta - mpmath.log(d) < -0.6


# --- the vector samplers ------------------------------------------------------------------------


def test_vector_laplace_code_against_the_product_of_ideal_enclosures() -> None:
    spec = VectorLaplaceSpec.create("1", "2", "1/3")
    values = (Fraction(-1, 3), Fraction(2, 3))
    result = check_intervals(
        lambda rng: vector_laplace.sample(values, 1, 2, "1/3", rng),
        lambda output, dps: spec.ideal_probability(values, output, dps),
        spec.outputs_for_check(values),
        min_mass=Fraction(1, 10**8),
    )
    assert result.verdict is Verdict.PROVED, result.summary


def test_vector_gaussian_code_against_the_product_of_ideal_enclosures() -> None:
    spec = VectorGaussianSpec.create("1/18", "1/3")
    values = (Fraction(1, 3), Fraction(-1, 3))
    result = check_intervals(
        lambda rng: vector_gaussian.sample_sigma2(values, "1/18", "1/3", rng),
        lambda output, dps: spec.ideal_probability(values, output, dps),
        spec.outputs_for_check(values),
        min_mass=Fraction(1, 10**8),
    )
    assert result.verdict is Verdict.PROVED, result.summary


def test_a_one_dimensional_vector_is_the_discrete_laplace() -> None:
    draws = [vector_laplace.sample(("3/2",), 1, 1, "1/2", SeededRandomSource(7)) for _ in range(3)]
    noise = _sample_scaled(1, 2, SeededRandomSource(7))  # scale b/L = 1/(1/2) = 2
    assert draws[0] == (Fraction(3, 2) + Fraction(noise, 2),)


def test_sample_many_draws_independent_releases_from_one_source() -> None:
    rng = SeededRandomSource(3)
    many = vector_laplace.sample_many((0, 1), 1, 1, 1, 3, rng)
    again = SeededRandomSource(3)
    assert many == [vector_laplace.sample((0, 1), 1, 1, 1, again) for _ in range(3)]
    assert vector_gaussian.sample_sigma2_many((0,), 1, 1, 0) == []


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda: vector_laplace.sample((0, "1/3"), 1, 1, "1/2"), ("values",)),
        (lambda: vector_laplace.sample((), 1, 1), ("values",)),
        (lambda: vector_laplace.sample("12", 1, 1), ("values",)),
        (lambda: vector_laplace.sample((0, 0.5), 1, 1), ("values",)),
        (lambda: vector_laplace.sample((0,), 0, 1), ("sensitivity",)),
        (lambda: vector_laplace.sample((0,), 1, -1), ("epsilon",)),
        (lambda: vector_laplace.sample((0,), 1, 1, 0), ("step",)),
        (lambda: vector_laplace.sample_many((0,), 1, 1, 1, -1), ("k",)),
        (lambda: vector_gaussian.sample((0,), 1, 1, "1/2"), ("epsilon",)),
        (lambda: vector_gaussian.sample_sigma2((0,), 0), ("sigma2",)),
        (lambda: vector_gaussian.sample_sigma2((0, "1/3"), 1, "1/2"), ("values",)),
        (lambda: vector_laplace.sample([0] * (vector_laplace.MAX_DIMS + 1), 1, 1), ("values",)),
    ],
)
def test_bad_input_is_refused_in_one_line(call: Any, names: tuple[str, ...]) -> None:
    one_line_refusal(call, *names)


def test_the_off_grid_refusal_says_to_snap_first() -> None:
    message = one_line_refusal(lambda: vector_laplace.sample((0, "1/3"), 1, 1, "1/2"), "values")
    assert "Snap the query to the grid first" in message and "values[1]=1/3" in message


# --- the claims ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_the_vector_laplace_claim_is_proved_for_all_grid_inputs(dims: int) -> None:
    spec = VectorLaplaceSpec.create("3/2", "2/3", "1/2")
    assert check_vector_laplace_claim(spec, dims).verdict is Verdict.PROVED


def test_a_claim_below_s_over_b_is_refuted_with_a_witness() -> None:
    spec = VectorLaplaceSpec.create(1, 1, 1)
    result = check_vector_laplace_claim(spec, 2, epsilon="99/100")
    assert result.verdict is Verdict.VIOLATED and "model" in result.evidence


def test_the_exact_loss_on_the_grid_is_the_l1_distance_over_b() -> None:
    """On a finite window the ideal log-ratio is the rational (|y - v'|_1 - |y - v|_1)/b; its
    maximum over the window is ||v - v'||_1 / b, as the docstring's proof says."""
    spec = VectorLaplaceSpec.create(2, 1, 1)
    v, w = (0, 0), (1, -1)
    b = spec.sensitivity / spec.epsilon
    losses = {
        (abs(y0 - w[0]) + abs(y1 - w[1]) - abs(y0 - v[0]) - abs(y1 - v[1])) / b
        for y0 in range(-4, 5)
        for y1 in range(-4, 5)
    }
    assert max(losses) == 2 / b == spec.epsilon


def test_the_spec_claims() -> None:
    assert VectorLaplaceSpec.create(1, "1/2").zcdp_claim() == Zcdp("1/8")
    spec = VectorGaussianSpec.create(2, "1/2", 1)
    assert spec.noise().sigma2 == 8 and spec.zcdp_claim() == Zcdp("1/4")
    with pytest.raises(InvalidArgument):
        VectorGaussianSpec.create(2).rho()


# --- guarantees ---------------------------------------------------------------------------------


def test_basic_composition_adds_epsilons_multiplies_alphas_adds_deltas_and_rhos() -> None:
    g = Guarantee.compose(
        Guarantee(epsilon="1/2", delta="1/10", rho="1/8"),
        Guarantee(alpha="1/3", rho=1),
        Guarantee(epsilon=1, alpha="1/2", delta="1/5", rho="1/2"),
    )
    assert g == Guarantee(epsilon=Fraction(3, 2), alpha=Fraction(1, 6), delta=Fraction(3, 10), rho=Fraction(13, 8))
    assert Guarantee.compose(Guarantee(rho=1), Guarantee()).rho is None
    assert Guarantee.compose(Guarantee(delta="3/4"), Guarantee(delta="1/2")).delta == 1
    assert Guarantee.pure("2/3") == Guarantee(epsilon=Fraction(2, 3), rho=Fraction(2, 9))


@pytest.mark.parametrize(
    ("fields", "name"),
    [
        ({"epsilon": -1}, "epsilon"),
        ({"alpha": 0}, "alpha"),
        ({"alpha": "3/2"}, "alpha"),
        ({"delta": 2}, "delta"),
        ({"rho": -1}, "rho"),
        ({"epsilon": 0.5}, "epsilon"),
    ],
)
def test_a_guarantee_refuses_values_outside_its_fields(fields: dict[str, Any], name: str) -> None:
    one_line_refusal(lambda: Guarantee(**fields), name)


def test_gtm_states_what_the_paper_justifies() -> None:
    assert mechanisms.gtm("1/3", 4, 4 * 3**4).guarantee == Guarantee(alpha=Fraction(1, 3))  # Theorem 7.1
    assert mechanisms.gtm("1/3", 4, 2 * 4 * 3**4).guarantee.alpha == Fraction(1, 3)  # a multiple of it
    spec = GtmSpec.create("1/3", 5, 1000)
    assert mechanisms.gtm("1/3", 5, 1000).guarantee.alpha == spec.theorem_6_2_alpha_prime() == Fraction(257, 1743)
    message = one_line_refusal(lambda: mechanisms.gtm("1/2", 5, 10), "T")
    assert "Theorem 7.1" in message


def test_the_stated_guarantee_holds_on_the_exact_table() -> None:
    """Theorem 6.2's alpha' is a lower bound of the code's exact tightest ratio."""
    for alpha, n, T in (("1/3", 5, 1000), ("2/5", 3, 500), ("1/2", 2, 12)):
        spec = GtmSpec.create(alpha, n, T)
        table = {q: spec.pmf(q) for q in spec.inputs()}
        assert tightest_alpha(table, spec.neighbours()).alpha >= mechanisms.gtm(alpha, n, T).guarantee.alpha


def test_noise_mechanisms_state_their_theorems() -> None:
    assert mechanisms.laplace(1, "1/2").guarantee == Guarantee(epsilon=Fraction(1, 2), rho=Fraction(1, 8))
    sigma2 = vector_gaussian.classic_sigma2(2, "1/2", "1/10^5")
    assert mechanisms.gaussian(2, "1/2", "1/10^5").guarantee == Guarantee(
        epsilon=Fraction(1, 2), delta=Fraction(1, 10**5), rho=4 / (2 * sigma2)
    )
    assert mechanisms.discrete_gaussian(1, 2).guarantee == Guarantee(delta=1, rho=Fraction(1, 4))


def test_combinators_compose_guarantees() -> None:
    g = mechanisms.gtm("1/2", 2, 12)
    assert mechanisms.repeat(g, 3).guarantee.alpha == Fraction(1, 8)
    assert mechanisms.postprocess(mechanisms.repeat(g, 3), sum).guarantee.alpha == Fraction(1, 8)
    mixed = mechanisms.compose(g, mechanisms.laplace(1, 1), mechanisms.gaussian(1, "1/2", "1/10"))
    assert mixed.guarantee == Guarantee(epsilon=Fraction(3, 2), alpha=Fraction(1, 2), delta=Fraction(1, 10))
    assert [p.name for p in mixed.parts][0].startswith("gtm(")


def test_combinators_refuse_what_is_not_a_mechanism() -> None:
    g = mechanisms.gtm("1/2", 2, 12)
    one_line_refusal(lambda: mechanisms.repeat(g, 0), "k")
    one_line_refusal(lambda: mechanisms.repeat(g, mechanisms.MAX_REPEAT + 1), "k")
    one_line_refusal(lambda: mechanisms.repeat("g", 2), "mechanism")
    one_line_refusal(lambda: mechanisms.compose(g, 3), "mechanisms[1]")
    one_line_refusal(lambda: mechanisms.compose(), "mechanisms")
    one_line_refusal(lambda: mechanisms.postprocess(g, 3), "f")
    one_line_refusal(lambda: mechanisms.laplace(1, 1, dims=0), "dims")
    one_line_refusal(lambda: mechanisms.laplace(1, 1, dims=2).sample((0,)), "values")
    one_line_refusal(lambda: g.sample_many(0, -1), "k")
    one_line_refusal(lambda: g.sample(0, rng=object()), "rng")
    one_line_refusal(lambda: Mechanism("m", Guarantee(), 3), "_release")


def test_guarantee_claims() -> None:
    assert guarantee_claims(Guarantee(alpha="1/3")) == (PureDp(alpha="1/3"),)
    assert guarantee_claims(Guarantee.pure(1)) == (PureDp(epsilon=1), Zcdp("1/2"))
    assert guarantee_claims(Guarantee(epsilon=1, delta="1/10", rho=2)) == (ApproxDp(1, "1/10"), Zcdp(2))
    assert guarantee_claims(Guarantee(delta=1, rho=2)) == (Zcdp(2),)
    (mixed,) = guarantee_claims(Guarantee(epsilon=1, alpha="1/2"))
    with mpmath.workdps(60):
        bound = mpmath.mpf(mixed.epsilon.numerator) / mixed.epsilon.denominator
        assert 1 + mpmath.log(2) < bound < 1 + mpmath.log(2) + mpmath.mpf(2) ** -100
    one_line_refusal(lambda: guarantee_claims(3), "guarantee")


def test_the_guarantee_check_sees_a_stated_bound_the_spec_does_not_derive() -> None:
    g = lambda: mechanisms.repeat(mechanisms.gtm("1/2", 2, 12), 2)  # noqa: E731
    assert check_guarantee("repeat", g, (PureDp(alpha="1/4"),)).verdict is Verdict.PROVED
    assert check_guarantee("repeat", g, (PureDp(alpha="1/2"),)).verdict is Verdict.VIOLATED
    refused = check_guarantee("gtm", lambda: mechanisms.gtm("1/2", 5, 10), ())
    assert refused.verdict is Verdict.VIOLATED and "refused" in refused.summary


# --- composed mechanisms, exactly ---------------------------------------------------------------


def code_pmf(sampler: Any) -> dict[Any, Fraction]:
    found = enumerate_outputs(sampler)
    assert found.exhausted
    return dict(found.masses)


def test_three_runs_of_a_gtm_have_the_product_law_exactly() -> None:
    g = mechanisms.repeat(mechanisms.gtm("1/2", 1, 6), 3)
    spec = GtmSpec.create("1/2", 1, 6)
    for q in (0, 1):
        assert code_pmf(lambda rng, q=q: g.sample(q, rng)) == product_pmf(*(spec.pmf(q),) * 3).as_dict()
    table = {q: product_pmf(*(spec.pmf(q),) * 3) for q in (0, 1)}
    assert tightest_alpha(table, ((0, 1),)).alpha == Fraction(1, 8) == g.guarantee.alpha


def test_post_processing_has_the_pushforward_law_and_never_raises_the_exact_epsilon() -> None:
    g = mechanisms.postprocess(mechanisms.repeat(mechanisms.gtm("1/2", 1, 6), 3), sum)
    spec = GtmSpec.create("1/2", 1, 6)
    summed = {q: pushforward(product_pmf(*(spec.pmf(q),) * 3), sum) for q in (0, 1)}
    for q in (0, 1):
        assert code_pmf(lambda rng, q=q: g.sample(q, rng)) == summed[q].as_dict()
    product = {q: product_pmf(*(spec.pmf(q),) * 3) for q in (0, 1)}
    assert check_post_processing(summed, product, ((0, 1),)).verdict is Verdict.PROVED
    # a "processing" that looks at the input is no post-processing: the check sees it
    leaky = {0: pushforward(product[0], lambda x: 0), 1: pushforward(product[1], lambda x: 1)}
    assert check_post_processing(leaky, product, ((0, 1),)).verdict is Verdict.VIOLATED


def test_product_and_pushforward_refuse_bad_input() -> None:
    one_line_refusal(lambda: product_pmf(), "pmfs")
    one_line_refusal(lambda: product_pmf([1]), "pmfs[0]")
    one_line_refusal(lambda: pushforward({0: 1}, 3), "f")
    assert product_pmf({0: Fraction(1, 2), 1: Fraction(1, 2)}).total() == 1


# --- broken copies fail their specs -------------------------------------------------------------


def test_a_composed_gtm_with_a_one_unit_error_in_T_fails_its_spec() -> None:
    def broken(alpha: Any, n: Any, T: Any, runs: Any, q: Any, rng: RandomSource) -> Any:
        g, slip = mechanisms.gtm(alpha, n, T), mechanisms.gtm(alpha, n, T + 1)
        return mechanisms.compose(g, mechanisms.repeat(slip, runs - 1)).sample(q, rng)

    spec = replace(GTM_COMPOSED, name="gtm-composed-broken", sampler=broken, batch=None, refuses=())
    outcome = run_case(spec, spec.cases[0], seed=SEED, samples=2000, statistics=False)
    exactness = next(c for c in outcome.checks if c.check == "exactness")
    assert exactness.verdict is Verdict.VIOLATED and {"q", "output", "code_p", "spec_p"} <= set(exactness.evidence)
    assert not outcome.met


def test_a_vector_laplace_with_a_one_unit_error_in_its_scale_fails_its_spec() -> None:
    def broken(values: Any, sensitivity: Any, epsilon: Any, step: Any = 1, rng: Any = None) -> Any:
        scale = Fraction(sensitivity) / (Fraction(epsilon) * Fraction(step))
        return tuple(
            Fraction(step)
            * (Fraction(v) / Fraction(step) + _sample_scaled(scale.denominator, scale.numerator + 1, rng))
            for v in values
        )

    spec = replace(VECTOR_LAPLACE, name="vector-laplace-broken", sampler=broken, batch=None, refuses=())
    outcome = run_case(spec, spec.cases[0], seed=SEED, samples=2000, statistics=False)
    intervals = next(c for c in outcome.checks if c.check == "intervals")
    assert intervals.verdict is Verdict.VIOLATED and "output" in intervals.evidence
    assert not outcome.met


def test_the_catalogue_entries_run_a_three_fold_composition_too() -> None:
    case = Case({"alpha": "1/2", "n": 1, "T": 6, "runs": 3}, "proved")
    spec = replace(GTM_COMPOSED, batch=None, refuses=())
    outcome = run_case(spec, case, seed=SEED, samples=2000, statistics=False)
    assert outcome.met, outcome.problems
    assert any(c.check == "z3" and c.verdict is Verdict.PROVED for c in outcome.checks)


def test_every_error_is_a_dpverify_error() -> None:
    with pytest.raises(DpverifyError):
        mechanisms.gaussian(1, 1, "1/2")


def test_the_defaults_check_sees_a_changed_default() -> None:
    from dpverify.verify.privacy._mechanisms import check_defaults

    same = (
        "step",
        lambda rng: vector_laplace.sample((2,), 1, 1, rng=rng),
        lambda rng: vector_laplace.sample((2,), 1, 1, 1, rng),
    )
    other = (
        "step",
        lambda rng: vector_laplace.sample((2,), 1, 1, rng=rng),
        lambda rng: vector_laplace.sample((2,), 1, 1, 2, rng),
    )
    assert check_defaults([same]).verdict is Verdict.PROVED
    assert check_defaults([other]).verdict is Verdict.VIOLATED
    refused = (
        "step",
        lambda rng: vector_laplace.sample((1,), 1, 1, rng=rng),
        lambda rng: vector_laplace.sample((1,), 1, 1, 2, rng),
    )
    assert check_defaults([refused]).verdict is Verdict.VIOLATED

"""Fuzzed calls of the public API (``tests/_fuzz.py``).

Every callable in the ``__all__`` of ``dpverify.samplers``, ``dpverify.specs`` and
``dpverify.verify`` (and of the sampler modules they export), and the public methods of the
built-in spec classes, is called with arguments drawn from a pool of good and bad values, the
argument count taken from its signature.  A call must return, or raise a ``DpverifyError``
(or the user's own exception, raised by a sampler or RandomSource the fuzz passed in); never a
foreign exception and never run past the time bound.  A returned ``ExactPmf`` (or a table of
them) must sum to exactly 1.

A second fuzz (:func:`_fuzz.method_call`) passes every argument by keyword: to the public
methods of objects the API returns (a spec, its input and cases, a timing channel, a check
result, a ``RandomCompat``, ...), to the constructors of the public dataclasses, and to the
methods of instances built directly from drawn fields, which must be checked where they are
built, as ``create`` checks them.

The default suite runs ``QUICK_EXAMPLES`` calls of each; the ``slow`` variants run
``DPVERIFY_FUZZ_EXAMPLES`` (default 10,000) positional calls and one eighth as many keyword
calls, which cost some 15 times as much each.  The regressions below pin the places
each fuzz once found.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import _fuzz
import pytest
from hypothesis import HealthCheck, given, settings

from dpverify.samplers import InvalidArgument, SeededRandomSource, discrete_gaussian, grid_laplace, gtm, mechanisms
from dpverify.specs import (
    Bound,
    DiscreteLaplaceSpec,
    ExactPmf,
    GridLaplaceSpec,
    GtmSpec,
    PureDp,
    PureDpClaim,
    Spec,
    VectorGaussianSpec,
    VectorLaplaceSpec,
    product_pmf,
    pushforward,
)
from dpverify.verify import (
    CheckResult,
    Enumeration,
    GaussianCalibration,
    RandomCompat,
    Verdict,
    check_ratio_bound_z3,
    dgauss_delta,
    dgauss_delta_hockey_stick,
    dgauss_privacy,
    discover,
    dkw_threshold,
    gazeau_privacy,
    grid_claim_smtlib,
    gtm_table,
    judge_intervals,
    smtlib_obligation,
    timing_channel,
)
from dpverify.verify.engine._random_compat import MAX_RANDOM_BITS
from dpverify.verify.engine._text import short_rational
from dpverify.verify.privacy._timing import DependenceWitness

_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


def _fuzz_api(examples: int, bound: float, shard: int | None = None) -> None:
    _fuzz_api_with(_fuzz.api_call, examples, bound, shard)


def _fuzz_api_with(strategy: Any, examples: int, bound: float, shard: int | None = None) -> None:
    targets, pool, counts = _fuzz.targets(), _fuzz.value_pool(), _fuzz.count_pool()

    @_fuzz.shard_seed(shard)
    @settings(max_examples=max(examples, 1), deadline=None, suppress_health_check=_HEALTH)
    @given(strategy(targets, pool, counts))
    def case(call: _fuzz.ApiCall) -> None:
        result, error, seconds = _fuzz.run_api(call, bound)
        hard = _fuzz.judge_api(call, result, error, seconds, bound)
        assert not hard, f"{call!r}: " + "; ".join(f"[{c}] {m}" for c, m in hard)

    case()


def test_the_targets_cover_the_public_api() -> None:
    names = {t.name for t in _fuzz.targets()}
    assert {
        "GtmSpec(1/3,3,100).create",
        "GtmSpec(1/3,3,100).pmf",
        "GtmSpec(1/3,3,100).ideal_pmf",
        "GtmSpec(1/3,3,100).check_input",
        "DiscreteLaplaceSpec(1/2,2).ideal_probability",
        "DiscreteGaussianSpec(7/3).outputs_for_check",
        "dpverify.verify.gtm_privacy",
        "dpverify.samplers.gtm.sample",
    } <= names


@pytest.mark.parametrize("method", ["pmf", "ideal_pmf"])
@pytest.mark.parametrize("q", [4, -1, 10**100, "1/2", None, 1.0, True])
def test_gtm_pmf_refuses_q_outside_its_domain(method: str, q: object) -> None:
    spec = GtmSpec.create("1/3", 3, 100)
    with pytest.raises(InvalidArgument, match="q"):
        getattr(spec, method)(q)


def test_gtm_pmf_sums_to_one_inside_its_domain() -> None:
    spec = GtmSpec.create("1/3", 3, 100)
    for q in (*spec.inputs(), "2", Fraction(3)):
        assert spec.pmf(q).total() == 1 and spec.ideal_pmf(q).total() == 1


def test_fuzzed_api_calls() -> None:
    _fuzz_api(_fuzz.QUICK_EXAMPLES, _fuzz.QUICK_BOUND_S)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(_fuzz.SLOW_SHARDS))
def test_fuzzed_api_calls_at_scale(shard: int) -> None:
    _fuzz_api(_fuzz.shard_examples(shard), _fuzz.SLOW_BOUND_S, shard)


#: The keyword fuzz's slow run makes one call for this many of the slow examples.
KEYWORD_SHARE = 8


def test_fuzzed_keyword_calls_of_returned_objects_and_records() -> None:
    _fuzz_api_with(_fuzz.method_call, _fuzz.QUICK_EXAMPLES, _fuzz.QUICK_BOUND_S)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(_fuzz.SLOW_SHARDS))
def test_fuzzed_keyword_calls_at_scale(shard: int) -> None:
    # A keyword call builds a spec or a record and often runs it: about 70 ms, some 15 times a
    # positional call, so the slow run takes a share of the examples (all of them with
    # DPVERIFY_FUZZ_EXAMPLES set to KEYWORD_SHARE times the count wanted).
    _fuzz_api_with(_fuzz.method_call, max(1, _fuzz.shard_examples(shard) // KEYWORD_SHARE), _fuzz.SLOW_BOUND_S, shard)


def test_the_keyword_fuzz_reaches_returned_objects_and_every_public_dataclass() -> None:
    methods = set(_fuzz.receiver_methods())
    assert {
        ("Spec(fuzz-flip)", "bind"),
        ("Input(bit)", "pairs"),
        ("TimingChannel", "result"),
        ("RandomCompat(1)", "getrandbits"),
        ("ExactPmf((0,1,2),(1,2,1),4)", "probability"),
        ("VectorLaplaceSpec(1,1)", "outputs_for_check"),
    } <= methods
    assert ("RandomCompat(1)", "gauss") not in methods  # CPython's own, with CPython's errors
    names = {cls.__name__ for cls in _fuzz.public_dataclasses()}
    assert {"GtmSpec", "GridLaplaceSpec", "Enumeration", "TimingChannel", "Spec", "Input", "Account"} <= names


# --- regressions: each once let a foreign exception, a wrong answer or unbounded work through ----


def test_a_pmf_that_is_no_distribution_is_refused_by_product_and_pushforward() -> None:
    with pytest.raises(InvalidArgument, match=r"pmfs\[0\] must sum to exactly 1"):
        product_pmf({0: Fraction(1, 2)})
    with pytest.raises(InvalidArgument, match=r"pmf must sum to exactly 1"):
        pushforward({0: Fraction(1, 2)}, lambda x: x)
    with pytest.raises(InvalidArgument, match=r"pmfs\[0\]'s masses must be in \[0, 1\]"):
        product_pmf({0: 2, 1: -1})
    with pytest.raises(InvalidArgument, match=r"pmfs\[1\]"):
        product_pmf({0: Fraction(1)}, ExactPmf((0, 1), (3, -1), 2))
    with pytest.raises(InvalidArgument, match="f must return hashable"):
        pushforward({0: Fraction(1)}, lambda x: [x])
    assert product_pmf({0: Fraction(1, 3), 1: Fraction(2, 3)}, {0: Fraction(1)}).total() == 1


def test_a_product_with_too_many_outputs_is_refused_up_front() -> None:
    wide = {k: Fraction(1, 100) for k in range(100)}
    with pytest.raises(InvalidArgument, match="pmfs must have at most"):
        product_pmf(wide, wide, wide)


@pytest.mark.parametrize("spec", [VectorLaplaceSpec.create(1, 1), VectorGaussianSpec.create(1)])
def test_vector_outputs_for_check_refuses_a_window_too_large_to_list(spec: object) -> None:
    with pytest.raises(InvalidArgument, match="values must have few enough coordinates"):
        spec.outputs_for_check((0,) * 6)  # type: ignore[attr-defined]
    assert len(spec.outputs_for_check((0, 0))) == len(spec.outputs_for_check((0,))) ** 2  # type: ignore[attr-defined]


@pytest.mark.parametrize("values", [2, "12", None, (), {0: 1}])
def test_vector_index_refuses_what_is_no_vector(values: object) -> None:
    with pytest.raises(InvalidArgument, match="values"):
        VectorLaplaceSpec.create(1, 1).index(values)  # type: ignore[arg-type]


def test_gtm_helpers_refuse_unbounded_work() -> None:
    with pytest.raises(InvalidArgument, match="n must be at most MAX_N"):
        gtm.cdf_vector(Fraction(1, 3), 2**64, 1)
    assert gtm.gtpmf(Fraction(1, 3), 2**64, 1, 0) == Fraction(1, 4)  # a cheap probability past MAX_N


def test_random_compat_refuses_draws_past_its_bit_limit() -> None:
    rng = RandomCompat(SeededRandomSource(1))
    with pytest.raises(InvalidArgument, match="getrandbits k must be an int in"):
        rng.getrandbits(2**64)
    with pytest.raises(InvalidArgument, match="randbytes n must be an int in"):
        rng.randbytes(2**64)
    assert (
        rng.getrandbits(MAX_RANDOM_BITS) < 2**MAX_RANDOM_BITS
        and len(rng.randbytes(MAX_RANDOM_BITS // 8)) == MAX_RANDOM_BITS // 8
    )


def test_gazeau_privacy_refuses_what_it_cannot_compute() -> None:
    with pytest.raises(InvalidArgument, match="bits must be"):
        gazeau_privacy(1, 0, 1, 2**64, -8, 8, "1/4")
    with pytest.raises(InvalidArgument, match=r"\(upper - lower\) / scale must be at most"):
        gazeau_privacy(1, 0, 1, 8, -8, 2**64, "1/4")


def _gtm_table() -> tuple[dict[int, ExactPmf], tuple[tuple[int, int], ...]]:
    spec = GtmSpec.create("1/3", 2, 36)
    return {q: spec.pmf(q) for q in spec.inputs()}, spec.neighbours()


def test_z3_refuses_a_timeout_it_cannot_take() -> None:
    table, neighbours = _gtm_table()
    with pytest.raises(InvalidArgument, match="timeout_ms must be"):
        check_ratio_bound_z3(table, neighbours, PureDpClaim(Fraction(1, 3)), timeout_ms=10**5000)


def test_z3_and_smtlib_refuse_numbers_too_long_for_text() -> None:
    table, neighbours = _gtm_table()
    huge = PureDpClaim(Fraction(1, 3**10_000))
    with pytest.raises(InvalidArgument, match="claim's alpha must have at most"):
        smtlib_obligation(table, neighbours, huge)
    with pytest.raises(InvalidArgument, match="claim's alpha must have at most"):
        check_ratio_bound_z3(table, neighbours, huge)
    fine = 3**9_000
    wide = {0: ExactPmf((0, 1), (1, fine - 1), fine), 1: ExactPmf((0, 1), (fine - 1, 1), fine)}
    with pytest.raises(InvalidArgument, match="table's probabilities must have at most"):
        smtlib_obligation(wide, ((0, 1),), PureDpClaim(Fraction(1, 3)))


def test_errors_and_texts_never_print_a_huge_int() -> None:
    with pytest.raises(InvalidArgument, match="sigma2 must be a rational > 0; got sigma2=a fraction with about"):
        discrete_gaussian.sample(-(10**5000))
    with pytest.raises(InvalidArgument, match="scale must be a rational > 0"):
        grid_laplace.sample(0, -(10**5000), 1)
    assert "about 5000 digits" in mechanisms.laplace(10**5000, 1).name
    assert len(DiscreteLaplaceSpec.create(10**5000).parameters()["scale"]) == 5001  # exact, every digit
    assert "exact: " in short_rational(Fraction(10**5000 + 1, 3))
    assert "about 5000 digits" in PureDp(epsilon=Fraction(1, 10**5000)).describe()
    with pytest.raises(InvalidArgument, match="names must be a list or tuple of strings"):
        discover(names=10**5000)


def test_directly_built_specs_are_checked_like_create() -> None:
    with pytest.raises(InvalidArgument, match="alpha must be a rational in"):
        gtm_table(GtmSpec(Fraction(2), 0, 1))
    with pytest.raises(InvalidArgument, match="step must be a rational > 0"):
        grid_claim_smtlib(GridLaplaceSpec(0, 1, 0, 1))
    with pytest.raises(InvalidArgument, match="n must be"):
        GtmSpec(Fraction(1, 3), 0, 1)
    with pytest.raises(InvalidArgument, match="scale must be a rational > 0"):
        DiscreteLaplaceSpec(Fraction(0))
    with pytest.raises(InvalidArgument, match="epsilon must be a rational > 0"):
        VectorLaplaceSpec(1, 0, 1)  # type: ignore[arg-type]
    assert GtmSpec(Fraction(1, 3), 2, 36) == GtmSpec.create("1/3", 2, 36)


def test_a_directly_built_enumeration_must_be_a_sub_distribution() -> None:
    with pytest.raises(InvalidArgument, match=r"masses\[0\] must be an exact probability"):
        timing_channel(Enumeration({0: Fraction(2)}, Fraction(-1), 0, 0, "x"), outputs=[])
    with pytest.raises(InvalidArgument, match="unexplored must be an exact probability"):
        Enumeration({0: Fraction(1, 2)}, Fraction(-1), 0, 0, "x")
    with pytest.raises(InvalidArgument, match="paths must be an int"):
        Enumeration({0: Fraction(1)}, Fraction(0), -1, 0, "x")


def _spec() -> Spec:
    return _fuzz._tiny_spec()


def test_methods_of_returned_objects_check_their_arguments() -> None:
    spec = _spec()
    with pytest.raises(InvalidArgument, match="case must be a Case or a mapping"):
        spec.bind(case=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="p must be a mapping"):
        spec.sampler_arguments(p=2)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="p must give every declared parameter"):
        spec.claim_for(p={})
    with pytest.raises(InvalidArgument, match="case must be a Case or None"):
        spec.claim_for({"alpha": Fraction(1, 3)}, case=3)  # type: ignore[arg-type]
    assert spec.input is not None
    with pytest.raises(InvalidArgument, match="values must be a tuple or list"):
        spec.input.pairs({"alpha": Fraction(1, 3)}, values=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="values must be ints or Fractions"):
        spec.input.pairs({"alpha": Fraction(1, 3)}, values=("a", "b"))
    assert spec.input.pairs({"alpha": Fraction(1, 3)}, (0, 1)) == ((0, 1),)
    with pytest.raises(InvalidArgument, match="budgets must be a dict"):
        _fuzz._timing().result(budgets=100)
    with pytest.raises(InvalidArgument, match="modules must be a list or tuple of strings"):
        discover(modules=0.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="output must be comparable"):
        ExactPmf((0,), (1,), 1).probability(Decimal("sNaN"))


def test_judge_intervals_reads_max_unexplored_exactly() -> None:
    found = Enumeration({0: Fraction(1, 4), 1: Fraction(1, 4)}, Fraction(1, 2), 2, 2, "exhaustive")

    def ideal(output: object, dps: int) -> tuple[Fraction, Fraction]:
        return Fraction(1, 2), Fraction(1, 2)

    assert judge_intervals(found, ideal, [0, 1], max_unexplored="0.5").verdict.value == "proved"
    with pytest.raises(InvalidArgument, match="max_unexplored must be an exact rational"):
        judge_intervals(found, ideal, [0, 1], max_unexplored=0.5)  # type: ignore[arg-type]


def test_records_built_by_hand_are_checked_where_they_are_built() -> None:
    with pytest.raises(InvalidArgument, match="verdict must be a Verdict"):
        CheckResult("x", "proved", "")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="evidence must be"):
        CheckResult("x", Verdict.PROVED, "", evidence=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="delta_interval must be"):
        GaussianCalibration(*(Fraction(1),) * 5, 1, "m", 0, None, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="name must be a str"):
        Bound(1, "", "", "", "", Fraction(0), True)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="side must be"):
        DependenceWitness(0, 1, Fraction(0), Fraction(0), Fraction(0), Fraction(0), "sideways")


def test_delta_functions_refuse_parameters_that_run_for_minutes() -> None:
    with pytest.raises(InvalidArgument, match="epsilon must be at most"):
        dgauss_delta(2, 10**5000)
    with pytest.raises(InvalidArgument, match="epsilon must be at most"):
        dgauss_delta_hockey_stick(2, 10**5000)
    with pytest.raises(InvalidArgument, match="epsilon must be at most"):
        dgauss_privacy(2, 10**5000)
    with pytest.raises(InvalidArgument, match=r"sigma2 must be in \(0, 10\^300\]"):
        dgauss_delta(10**5000, 1)


def test_dkw_threshold_takes_a_tiny_false_positive_rate_quickly() -> None:
    t_squared, _ = dkw_threshold(10, Fraction(1, 10**5000))
    assert t_squared * 20 >= 5000 * Fraction(23025, 10_000)  # ln(2 * 10^5000) > 5000 ln 10

"""Fuzzed calls of the public API (``tests/_fuzz.py``).

Every callable in the ``__all__`` of ``dpverify.samplers``, ``dpverify.specs`` and
``dpverify.verify`` (and of the sampler modules they export), and the public methods of the
built-in spec classes, is called with arguments drawn from a pool of good and bad values, the
argument count taken from its signature.  A call must return, or raise a ``DpverifyError``
(or the user's own exception, raised by a sampler or RandomSource the fuzz passed in); never a
foreign exception and never run past the time bound.  A returned ``ExactPmf`` (or a table of
them) must sum to exactly 1.

The default suite runs ``QUICK_EXAMPLES`` calls; the ``slow`` variant runs
``DPVERIFY_FUZZ_EXAMPLES`` (default 10,000).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import _fuzz
from dpverify.samplers import InvalidArgument
from dpverify.specs import GtmSpec

_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


def _fuzz_api(examples: int, bound: float, shard: int | None = None) -> None:
    targets, pool, counts = _fuzz.targets(), _fuzz.value_pool(), _fuzz.count_pool()

    @_fuzz.shard_seed(shard)
    @settings(max_examples=max(examples, 1), deadline=None, suppress_health_check=_HEALTH)
    @given(_fuzz.api_call(targets, pool, counts))
    def case(call: _fuzz.ApiCall) -> None:
        result, error, seconds = _fuzz.run_api(call, bound)
        hard = _fuzz.judge_api(call, result, error, seconds, bound)
        assert not hard, f"{call!r}: " + "; ".join(f"[{c}] {m}" for c, m in hard)

    case()


def test_the_targets_cover_the_public_api() -> None:
    names = {t.name for t in _fuzz.targets()}
    assert {"GtmSpec(1/3,3,100).create", "GtmSpec(1/3,3,100).pmf", "GtmSpec(1/3,3,100).ideal_pmf",
            "GtmSpec(1/3,3,100).check_input", "DiscreteLaplaceSpec(1/2,2).ideal_probability",
            "DiscreteGaussianSpec(7/3).outputs_for_check", "dpverify.verify.gtm_privacy",
            "dpverify.samplers.gtm.sample"} <= names


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

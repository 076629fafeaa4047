"""The computed sensitivity of bounded sums (Casacuberta, Shoemate, Vadhan, Wagaman, CCS 2022), with Z3.

Every ``found`` pair is re-derived here once more, by a loop written in the test, so that a test
passes only on a pair that really breaks the declared sensitivity; ``excluded`` cases are chosen
where the bound is reached exactly (it is tight, so the proof is not vacuous).
"""

from __future__ import annotations

import random
import struct
import sys
from fractions import Fraction

import pytest

from dpverify.samplers import InvalidArgument
from dpverify.verify.privacy import _float_sensitivity as fs
from dpverify.verify.privacy._float_sensitivity import (
    Witness,
    check_sum_sensitivity,
    computed_sum,
    largest_difference,
)

TINY = 2.0**-1060  # below 2**-1022 / 9: every sum of at most 9 such values is subnormal, hence exact


def _loop_sum(values: tuple[float, ...]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def _bits(value: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def _check_float_witness(witness: Witness | None, lower: float, upper: float, delta: Fraction) -> Fraction:
    """Re-derive a sequential witness independently; return its excess over ``delta``."""
    assert witness is not None
    assert witness.neighbour == (*witness.dataset, witness.record)
    for value, text in zip(witness.neighbour, witness.neighbour_hex, strict=True):
        assert isinstance(value, float) and lower <= value <= upper
        assert float.fromhex(text) == value
    s, s2 = _loop_sum(tuple(map(float, witness.dataset))), _loop_sum(tuple(map(float, witness.neighbour)))
    assert _bits(s) == _bits(float(witness.sum_dataset)) and _bits(s2) == _bits(float(witness.sum_neighbour))
    assert witness.difference == Fraction(s2) - Fraction(s)
    assert witness.sums_hex == (s.hex(), s2.hex())
    assert abs(witness.difference) > delta
    return abs(witness.difference) - delta


# --- float sums that exceed the declared sensitivity ---------------------------------------------


def test_one_record_added_to_one_can_move_the_sum_by_more_than_the_upper_bound() -> None:
    """[0, 1], n = 1: fl(x + y) - x exceeds y = 1 by rounding up, e.g. x = 1 - 2**-53 (a tie rounded to 2)."""
    result = check_sum_sensitivity(1, 0.0, 1.0)
    assert result.status == "found", result.statement
    assert result.delta == 1 and result.order == "sequential"
    excess = _check_float_witness(result.witness, 0.0, 1.0, Fraction(1))
    # the sum lies in [1, 2], so one rounding moves it by half an ulp there at most
    assert 0 < excess <= Fraction(1, 2**53)
    assert "> delta = 1 " in result.statement


def test_two_records_exceed_it_too_and_only_by_rounding() -> None:
    result = check_sum_sensitivity(2, 0.0, 1.0, timeout_ms=20_000)
    assert result.status == "found", result.statement
    excess = _check_float_witness(result.witness, 0.0, 1.0, Fraction(1))
    # Higham's bound: |S(D') - S(D)| <= 1 + gamma_2 * 3 + gamma_1 * 2, about 1 + 8 * 2**-53
    assert excess <= Fraction(8, 2**53) * (1 + Fraction(1, 2**40))


def test_a_delta_that_is_no_double_is_compared_exactly() -> None:
    result = check_sum_sensitivity(1, 0.0, 1.0, delta=Fraction(1, 3))
    assert result.status == "found" and result.delta == Fraction(1, 3)
    _check_float_witness(result.witness, 0.0, 1.0, Fraction(1, 3))


def test_pairwise_order_exceeds_it() -> None:
    result = check_sum_sensitivity(2, 0.0, 1.0, "pairwise", timeout_ms=20_000)
    assert result.status == "found", result.statement
    w = result.witness
    assert w is not None
    x1, x2, y = map(float, w.neighbour)
    assert _bits(float(w.sum_dataset)) == _bits(x1 + x2)
    assert _bits(float(w.sum_neighbour)) == _bits(x1 + (x2 + y))  # halves (x1,) and (x2, y)
    assert abs(Fraction(x1 + (x2 + y)) - Fraction(x1 + x2)) > 1


def test_numpy_order_exceeds_it_in_numpy_itself() -> None:
    np = pytest.importorskip("numpy")
    result = check_sum_sensitivity(1, 0.0, 1.0, "numpy")
    assert result.status == "found", result.statement
    w = result.witness
    assert w is not None
    s = float(np.sum(np.array(w.dataset, dtype=np.float64)))
    s2 = float(np.sum(np.array(w.neighbour, dtype=np.float64)))
    assert abs(Fraction(s2) - Fraction(s)) > 1 and Fraction(s2) - Fraction(s) == w.difference


# --- cases proved excluded --------------------------------------------------------------------------


def test_subnormal_sums_are_exact_so_the_bound_holds() -> None:
    """All values below 2**-1060: every sum is subnormal, addition is exact, and Z3 proves |S(D')-S(D)| <= Delta."""
    result = check_sum_sensitivity(3, 0.0, TINY)
    assert result.status == "excluded", result.statement
    assert result.witness is None and result.delta == Fraction(TINY)
    assert result.statement.startswith("no dataset of 3 doubles in [0.0, 8.095e-320]")
    # the bound is reached, so the proof is tight: D = (0, 0, 0), y = TINY
    assert computed_sum((0.0, 0.0, 0.0, TINY), "sequential") - computed_sum((0.0,) * 3, "sequential") == TINY


@pytest.mark.parametrize("order", ["sequential", "pairwise", "numpy"])
def test_constant_records_are_excluded_in_every_order(order: str) -> None:
    result = check_sum_sensitivity(3, 1.0, 1.0, order)
    assert result.status == "excluded", result.statement
    assert f"in the {order!r} summation order" in result.statement


def test_integer_sums_without_overflow_are_excluded() -> None:
    """The negative control: int64 sums of values in [0, 1000] never wrap, so the sensitivity 1000 holds."""
    result = check_sum_sensitivity(3, 0, 1000, "integer")
    assert result.status == "excluded", result.statement
    assert result.delta == 1000
    assert result.statement.startswith("no dataset of 3 int64 values in [0, 1000]")


# --- integer overflow ------------------------------------------------------------------------------


def test_integer_overflow_breaks_the_sensitivity() -> None:
    result = check_sum_sensitivity(2, 0, 2**62, "integer")
    assert result.status == "found", result.statement
    w = result.witness
    assert w is not None and all(isinstance(v, int) and 0 <= v <= 2**62 for v in w.neighbour)
    s = (sum(w.dataset) + 2**63) % 2**64 - 2**63  # int64 addition wraps modulo 2**64 in any order
    s2 = (s + w.record + 2**63) % 2**64 - 2**63
    assert (s, s2) == (w.sum_dataset, w.sum_neighbour)
    # the last addition wrapped: the computed sum fell by 2**64 - y
    assert s2 < s and w.difference == s2 - s and abs(w.difference) > 2**62
    assert w.dataset_hex == tuple(hex(int(v)) for v in w.dataset)


@pytest.mark.parametrize(("n", "status"), [(1, "found"), (2, "excluded"), (3, "excluded")])
def test_constant_records_near_two_to_the_62_wrap_only_when_the_last_addition_crosses(n: int, status: str) -> None:
    """Every record 2**62: D' - D is y = 2**62 unless adding y crosses 2**63 (n = 1: 2**62 + 2**62 wraps)."""
    result = check_sum_sensitivity(n, 2**62, 2**62, "integer")
    assert result.status == status, result.statement
    if status == "found":
        assert result.witness is not None and result.witness.difference == -(2**63) - 2**62


# --- largest_difference ----------------------------------------------------------------------------


def test_largest_difference_of_small_integers_is_exactly_the_bound() -> None:
    bounds = largest_difference(3, 0, 1000, "integer")
    assert bounds.exact and bounds.lower_bound == bounds.upper_bound == 1000
    assert bounds.witness.magnitude == 1000
    assert [q.status for q in bounds.queries] == ["excluded"]


def test_largest_difference_of_subnormals_is_exactly_the_bound() -> None:
    bounds = largest_difference(2, 0.0, TINY)
    assert bounds.exact and bounds.lower_bound == Fraction(TINY), bounds.stopped
    assert bounds.stopped == "the bounds meet"


def test_largest_difference_under_overflow_is_certified_from_below() -> None:
    bounds = largest_difference(2, 0, 2**62, "integer", steps=4)
    w = bounds.witness
    assert bounds.lower_bound == w.magnitude > 3 * 2**62
    s = (sum(w.dataset) + 2**63) % 2**64 - 2**63
    s2 = (s + w.record + 2**63) % 2**64 - 2**63
    assert abs(s2 - s) == bounds.lower_bound
    assert bounds.upper_bound is None or bounds.upper_bound >= bounds.lower_bound
    assert len(bounds.queries) <= 4 and bounds.lower_bound <= 2**64 - 1


def test_largest_difference_without_time_returns_the_python_seed() -> None:
    bounds = largest_difference(1, 0.0, 1.0, budget_s=1e-9)
    assert bounds.queries == () and "time budget" in bounds.stopped
    assert bounds.lower_bound == 1 and bounds.upper_bound is None  # D = (0,), y = 1


@pytest.mark.slow
def test_largest_difference_of_one_record_in_the_unit_interval_is_one_plus_two_to_the_minus_53() -> None:
    """The exact maximum for n = 1 on [0, 1]: 1 + 2**-53 is reached, and Z3 proves nothing exceeds it (~10-30 s)."""
    bounds = largest_difference(1, 0.0, 1.0, timeout_ms=60_000, budget_s=120.0)
    assert bounds.exact, (bounds.stopped, bounds.queries)
    assert bounds.lower_bound == 1 + Fraction(1, 2**53) and not bounds.upper_strict
    _check_float_witness(bounds.witness, 0.0, 1.0, Fraction(1))


# --- unknown and the re-check ----------------------------------------------------------------------


def test_a_query_out_of_time_is_unknown() -> None:
    result = check_sum_sensitivity(8, 0.0, 1.0, "pairwise", timeout_ms=1)
    assert result.status == "unknown" and result.witness is None
    assert result.statement.startswith("Z3 returned unknown"), result.statement


def test_the_recheck_refuses_what_python_does_not_confirm() -> None:
    x, y = 1.0 - 2.0**-53, 1.0
    good = fs._recheck([x], y, 0.0, 1.0, "sequential", Fraction(1), (x, 2.0))
    assert good[0] == "found" and good[1] is not None and good[1].difference == 1 + Fraction(1, 2**53)
    wrong_sum = fs._recheck([x], y, 0.0, 1.0, "sequential", Fraction(1), (x, 1.9999999999999998))
    assert wrong_sum[0] == "unknown" and "differ from Python's" in wrong_sum[2]
    too_small = fs._recheck([x], y, 0.0, 1.0, "sequential", 1 + Fraction(1, 2**53), (x, 2.0))
    assert too_small[0] == "unknown" and "when recomputed in Python" in too_small[2]
    reaches = fs._recheck([x], y, 0.0, 1.0, "sequential", 1 + Fraction(1, 2**53), (x, 2.0), strict=False)
    assert reaches[0] == "found"  # the non-strict question of largest_difference's last query
    outside = fs._recheck([1.5], y, 0.0, 1.0, "sequential", Fraction(1), (1.5, 2.5))
    assert outside[0] == "unknown" and "outside [lower, upper]" in outside[2]


# --- the modelled orders against the real ones -----------------------------------------------------


def _random_values(rng: random.Random, k: int) -> list[float]:
    pool = [1.0, -1.0, 2.0**-53, 3 * 2.0**-53, 1 - 2.0**-53, 2.0**52, 0.1, 1e16, -1e16, 0.0, -0.0, TINY]
    return [rng.choice(pool) if rng.random() < 0.7 else rng.uniform(-1, 1) for _ in range(k)]


def test_numpy_order_is_numpys_sum_bit_for_bit() -> None:
    np = pytest.importorskip("numpy")
    rng = random.Random(20220611)
    for k in range(1, 20):
        for _ in range(300):
            values = _random_values(rng, k)
            expected = float(np.sum(np.array(values, dtype=np.float64)))
            assert _bits(float(computed_sum(values, "numpy"))) == _bits(expected), (k, values)
        zeros = [-0.0] * k
        assert _bits(float(computed_sum(zeros, "numpy"))) == _bits(float(np.sum(np.array(zeros))))


def test_sequential_order_is_a_plain_loop_and_python_3_11s_sum() -> None:
    rng = random.Random(7)
    for k in range(1, 10):
        for _ in range(200):
            values = _random_values(rng, k)
            assert _bits(float(computed_sum(values, "sequential"))) == _bits(_loop_sum(tuple(values)))
            if sys.version_info < (3, 12):  # 3.12's sum compensates rounding errors (Neumaier)
                assert _bits(float(computed_sum(values, "sequential"))) == _bits(sum(values))


def test_integer_order_wraps_like_int64() -> None:
    assert computed_sum([2**62, 2**62], "integer") == -(2**63)
    assert computed_sum([-(2**63), -1], "integer") == 2**63 - 1
    assert computed_sum([5, -7, 1000], "integer") == 998


# --- arguments -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "n must be an integer in [1, 8]; got n=0."),
        ({"n": -3}, "n must be an integer in [1, 8]; got n=-3."),
        ({"n": 9}, "n must be an integer in [1, 8]; got n=9."),
        ({"n": True}, "n must be an integer in [1, 8]; got n=True."),
        ({"n": 2.0}, "n must be an integer in [1, 8]; got n=2.0."),
        ({"lower": 2.0, "upper": 1.0}, "lower must be <= upper; got lower=2.0, upper=1.0."),
        ({"lower": float("nan")}, "lower must be a double in [-2**1020, 2**1020] (finite, not NaN; "),
        ({"upper": float("inf")}, "upper must be a double in [-2**1020, 2**1020] (finite, not NaN; "),
        ({"upper": 2.0**1021}, "upper must be a double in [-2**1020, 2**1020]"),
        ({"lower": 2**53 + 1, "upper": 2**54}, "lower must be a double in [-2**1020, 2**1020]"),
        ({"order": "kahan"}, "order must be one of 'sequential', 'pairwise', 'numpy', 'integer'; got order='kahan'."),
        (
            {"order": "integer", "lower": 0.5},
            "lower must be an integer in [-2**63, 2**63 - 1] for order='integer'; got lower=0.5.",
        ),
        (
            {"order": "integer", "lower": 0, "upper": 2**63},
            "upper must be an integer in [-2**63, 2**63 - 1] for order='integer'; got upper=9223372036854775808.",
        ),
        ({"delta": -1}, "delta must be a finite rational >= 0 (an int, float or Fraction) or None; got delta=-1."),
        ({"delta": float("nan")}, "delta must be a finite rational >= 0"),
        ({"timeout_ms": 0}, "timeout_ms must be an integer in [1, 4294967295]; got timeout_ms=0."),
    ],
)
def test_bad_arguments_are_refused_with_one_line(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"n": 2, "lower": 0.0, "upper": 1.0, "order": "sequential", **kwargs}
    with pytest.raises(InvalidArgument) as caught:
        check_sum_sensitivity(**arguments)  # type: ignore[arg-type]
    text = str(caught.value)
    assert "\n" not in text and text.startswith(message), text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 9}, "n must be an integer in [1, 8]; got n=9."),
        ({"steps": 0}, "steps must be an integer in [1, 64]; got steps=0."),
        ({"budget_s": 0.0}, "budget_s must be a finite number of seconds > 0; got budget_s=0.0."),
        ({"budget_s": float("inf")}, "budget_s must be a finite number of seconds > 0; got budget_s=inf."),
        ({"order": None}, "order must be one of 'sequential', 'pairwise', 'numpy', 'integer'; got order=None."),
    ],
)
def test_largest_difference_refuses_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"n": 1, "lower": 0.0, "upper": 1.0, **kwargs}
    with pytest.raises(InvalidArgument) as caught:
        largest_difference(**arguments)  # type: ignore[arg-type]
    assert str(caught.value) == message

"""The production GTM sampler: parameter validation and the inverse transform's boundaries."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import InvalidArgument, SeededRandomSource, gtm
from dpverify.verify.engine._bisect import _FixedDraw


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((0.5, 3, 1, 10), r"alpha must be an exact rational; got alpha=0\.5 \(a float\)"),
        (("1", 3, 1, 10), r"alpha must be a rational in \(0, 1\); got alpha=1"),
        (("0", 3, 1, 10), r"alpha must be a rational in \(0, 1\); got alpha=0"),
        (("abc", 3, 1, 10), r"alpha must be a rational such as \"1/3\" or \"1/10\^6\"; got alpha='abc'"),
        (("1/3", 0, 0, 10), r"n must be an integer with n >= 1 and n <= 100000; got n=0"),
        (("1/3", 3, 4, 10), r"q must be an integer with q >= 0 and q <= 3; got q=4"),
        (("1/3", 3, -1, 10), r"q must be an integer with q >= 0 and q <= 3; got q=-1"),
        (("1/3", 3, 1, 0), r"T must be an integer with T >= 1; got T=0"),
        (("1/3", 3, 1, 10.0), r"T must be an exact rational; got T=10\.0 \(a float\)"),
        (("1/3", 3.0, 1, 10), r"n must be an exact rational; got n=3\.0 \(a float\)"),
        (("1/3", True, 1, 10), r"n must be an exact rational; got n=True \(a bool\)"),
    ],
)
def test_bad_parameters_are_refused_with_one_line(arguments: tuple, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message) as raised:
        gtm.sample(*arguments)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("alpha", [Fraction(1, 3), "1/3", "0.25"])
def test_exact_rational_forms_are_accepted(alpha: object) -> None:
    assert 0 <= gtm.sample(alpha, 4, 2, 100, SeededRandomSource(1)) <= 4


def test_cdf_vector_ends_at_one_and_is_the_running_sum() -> None:
    alpha = Fraction(2, 7)
    cdf = gtm.cdf_vector(alpha, 6, 2)
    assert cdf[-1] == 1
    assert [cdf[0], *(b - a for a, b in zip(cdf, cdf[1:], strict=False))] == [
        gtm.gtpmf(alpha, 6, 2, x) for x in range(7)
    ]


def test_inverse_transform_uses_less_or_equal_at_each_boundary() -> None:
    # alpha = 1/3, n = 2, T = (D+1)*D**n = 36: T*CDF_0 = (27, 33, 36) exactly (Theorem 7.1).
    cdf = gtm.cdf_vector(Fraction(1, 3), 2, 0)
    assert [c * 36 for c in cdf] == [27, 33, 36]
    outputs = {u: gtm.inverse_transform(u, 36, cdf) for u in (1, 27, 28, 33, 34, 36)}
    assert outputs == {1: 0, 27: 0, 28: 1, 33: 1, 34: 2, 36: 2}


def test_sample_draws_u_from_one_to_T() -> None:
    # randbelow(T) = 0 is u = 1/T (smallest output); randbelow(T) = T - 1 is u = 1 (largest).
    assert gtm.sample("1/3", 2, 0, 36, _FixedDraw(36, 0)) == 0
    assert gtm.sample("1/3", 2, 0, 36, _FixedDraw(36, 35)) == 2
    assert gtm.sample("1/3", 2, 0, 36, _FixedDraw(36, 26)) == 0  # u = 27/36 = CDF_0(0)
    assert gtm.sample("1/3", 2, 0, 36, _FixedDraw(36, 27)) == 1

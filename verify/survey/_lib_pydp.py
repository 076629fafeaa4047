"""Google's differential-privacy library through python-dp (OpenMined's bindings, ``pydp``): its
secure numerical mechanisms, three of its Laplace algorithms and its partition selection, as
black boxes (the C++ code draws from its own ``SecureURBG``, so nothing here is exact).

What the library documents, and so what each audit claims (parameters reach the library as the
nearest doubles of the exact rationals below):

- ``LaplaceMechanism(epsilon, sensitivity)``: ``epsilon``-DP.  The noise is a two-sided geometric
  on the grid ``g = 2^ceil(log2(sensitivity / epsilon / 2^40))`` (``2^-40`` here) with rate
  ``g epsilon / (sensitivity + g)``, added to the input rounded to a multiple of ``g``
  (Google, *Secure Noise Generation*, Section 4); on ints the noise is rounded to an integer.
- ``GaussianMechanism(epsilon, delta, l2_sensitivity)``: ``(epsilon, delta)``-DP with ``sigma``
  from the analytic Gaussian (Balle and Wang 2018, Theorem 8) by a bisection that over-shoots
  the tight ``sigma`` by at most ``10^-3`` relative (3.7324 at ``(1, 10^-5, 1)``).  The noise is
  ``g k`` for a binomial ``k`` and ``g = 2^ceil(log2(2 sigma / 2^57))`` (``2^-54`` here), and
  ``k``, up to about ``2^59``, is converted to a double before it is scaled (``SampleBinomial``
  returns a double, ``cc/algorithms/distributions.cc``): a noise value
  of magnitude at least ``2^53 g = 1/2`` loses its low bits, so ``1 + noise`` in ``(0, 1/2)``
  is always a multiple of ``2^-53`` while the noise itself, the release at input 0, is an odd
  multiple of ``2^-54`` about half the time there.  That is Mironov's float-structure leak
  (CCS 2012), through the conversion rather than the addition, and the privacy test looks for it.
- ``Count``, ``BoundedSum``, ``BoundedMean`` (``pydp.algorithms.laplacian``, bounds given, so no
  budget goes to approximate bounds): ``epsilon``-DP under adding or removing one record.
  Count's integer release also gets the distribution test, against the Laplace of scale
  ``1/epsilon`` rounded half away from zero (:func:`rounded_laplace_probability`), each
  probability widened by ``2^-30`` for the grid and its rate.
- ``create_partition_strategy("truncated_geometric", epsilon, delta, 1).should_keep(n)``:
  ``(epsilon, delta)``-DP between ``n`` and ``n + 1`` users (Desfontaines, Voss, Gipson,
  Mandayam 2022, "Differentially private partition selection").
- ``LaplaceMechanism.noised_value_above_threshold``: a uniform double against the Laplace CDF,
  a one-bit release of ``x + Laplace > threshold``, so ``epsilon``-DP.

Each sampler builds its library object in the process that draws: the draws run in forked
processes, and a generator whose buffer was filled before the fork would hand both inputs the
same bytes.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, cast

from mpmath import iv

from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.specs._enclosure import enclose, iv_rational, one_minus_exp_neg
from dpverify.verify.survey._primitive import Library, Primitive, black_box_primitive

__all__ = ["LIBRARY", "PYDP_SPECS", "primitives", "rounded_laplace_probability"]

LIBRARY = Library(
    name="python-dp",
    module="pydp",
    requirements=("python-dp==1.1.5",),
    about="Google's C++ differential-privacy library (secure Laplace and Gaussian noise) behind OpenMined's bindings",
)

_EPSILON = {"epsilon": Rational(0, low_open=True, search=(Fraction(1, 10), 2))}
_EPSILON_DELTA = {**_EPSILON, "delta": Rational(0, 1, low_open=True, high_open=True)}
_NEIGHBOURS = Input("x", values=lambda p: (0, 1), neighbours=1)
#: The partition's user counts: 1 and 2 users, the first step of the truncated geometric.
_USERS = Input("x", values=lambda p: (1, 2), neighbours=1)
#: Slack per output of the rounded Laplace's enclosure: the library samples on a 2^-40 grid with
#: rate g*epsilon/(sensitivity + g), which moves each rounded probability by about 2^-39.
_GRID_SLACK = Fraction(1, 2**30)


@functools.lru_cache(maxsize=8)
def _mechanism(kind: str, *parameters: Fraction) -> Any:
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism, LaplaceMechanism

    floats = [float(v) for v in parameters]  # the bindings take doubles
    return LaplaceMechanism(*floats) if kind == "laplace" else GaussianMechanism(*floats)


def laplace_double(x: int, epsilon: Fraction) -> float:
    """``LaplaceMechanism(epsilon, 1).add_noise(float(x))``."""
    return cast(float, _mechanism("laplace", epsilon, Fraction(1)).add_noise(float(x)))  # pydp is untyped


def laplace_above_threshold(x: int, epsilon: Fraction) -> int:
    """``LaplaceMechanism(epsilon, 1).noised_value_above_threshold(x, 1/2)`` as 0 or 1."""
    return int(_mechanism("laplace", epsilon, Fraction(1)).noised_value_above_threshold(float(x), 0.5))


def gaussian_double(x: int, epsilon: Fraction, delta: Fraction) -> float:
    """``GaussianMechanism(epsilon, delta, 1).add_noise(float(x))``."""
    return cast(float, _mechanism("gaussian", epsilon, delta, Fraction(1)).add_noise(float(x)))  # pydp is untyped


def gaussian_int(x: int, epsilon: Fraction, delta: Fraction) -> int:
    """``GaussianMechanism(epsilon, delta, 1).add_noise(x)`` on an int (the noise rounded)."""
    return cast(int, _mechanism("gaussian", epsilon, delta, Fraction(1)).add_noise(int(x)))  # pydp is untyped


def count(x: int, epsilon: Fraction) -> int:
    """``Count(epsilon).quick_result`` of ``x`` records."""
    from pydp.algorithms.laplacian import Count

    return cast(int, Count(epsilon=float(epsilon), dtype="int").quick_result([1] * x))  # pydp is untyped


def bounded_sum(x: int, epsilon: Fraction) -> float:
    """``BoundedSum(epsilon, bounds [0, 1])`` of two zeros plus ``x`` ones, in doubles."""
    from pydp.algorithms.laplacian import BoundedSum

    summed = BoundedSum(epsilon=float(epsilon), lower_bound=0.0, upper_bound=1.0, dtype="float")
    return cast(float, summed.quick_result([0.0, 0.0] + [1.0] * x))  # pydp is untyped


def bounded_mean(x: int, epsilon: Fraction) -> float:
    """``BoundedMean(epsilon, bounds [0, 1])`` of two zeros plus ``x`` ones, in doubles."""
    from pydp.algorithms.laplacian import BoundedMean

    mean = BoundedMean(epsilon=float(epsilon), lower_bound=0.0, upper_bound=1.0, dtype="float")
    return cast(float, mean.quick_result([0.0, 0.0] + [1.0] * x))  # pydp is untyped


@functools.lru_cache(maxsize=4)
def _strategy(epsilon: Fraction, delta: Fraction) -> Any:
    from pydp.algorithms.partition_selection import create_partition_strategy

    return create_partition_strategy("truncated_geometric", float(epsilon), float(delta), 1)


def truncated_geometric_keep(x: int, epsilon: Fraction, delta: Fraction) -> int:
    """Whether the truncated geometric strategy keeps a partition of ``x`` users, as 0 or 1."""
    return int(_strategy(epsilon, delta).should_keep(x))


def rounded_laplace_probability(scale: Fraction, z: int, dps: int = 30) -> tuple[Any, Any]:
    """A certified enclosure of ``P(round(L) = z)`` for ``L ~ Laplace(scale)`` rounded half away
    from zero (``std::round``)::

        P(0) = 1 - e^(-1/(2 scale)),    P(z) = (e^(-(|z| - 1/2)/scale) - e^(-(|z| + 1/2)/scale)) / 2.
    """
    z = abs(z)
    if z == 0:
        return enclose(lambda: one_minus_exp_neg(1 / (2 * scale)), dps)
    near, far = (z - Fraction(1, 2)) / scale, (z + Fraction(1, 2)) / scale
    return enclose(
        lambda: (iv.exp(-iv_rational(near)) * one_minus_exp_neg(far - near)) / 2,
        dps,
        extra_bits=math.ceil(far).bit_length(),
    )


def _count_ideal(p: dict[str, Any], output: object, dps: int) -> tuple[Any, Any]:
    assert isinstance(output, int)
    low, high = rounded_laplace_probability(1 / p["epsilon"], output, dps)
    slack = float(_GRID_SLACK)
    return max(low - slack, 0), high + slack


def _count_outputs(p: dict[str, Any]) -> list[int]:
    radius = max(3, math.ceil(20 / p["epsilon"]))  # the mass beyond is below e^-19.5
    return list(range(-radius, radius + 1))


def _spec(
    name: str,
    sampler: Any,
    claim: Any,
    description: str,
    case: Case,
    *,
    parameters: dict[str, Rational],
    input_: Input = _NEIGHBOURS,
    **law: Any,
) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters=parameters,
        input=input_,
        claim=claim,
        randomness="none",
        description=description,
        citation="python-dp 1.1.5 (Google differential-privacy C++)",
        cases=(case,),
        **law,
    )


_ONE = {"epsilon": 1}
_GAUSS = {"epsilon": 1, "delta": "1/10^5"}

PYDP_SPECS: dict[str, Spec] = {
    s.name: s
    for s in (
        _spec(
            "pydp-laplace-double",
            laplace_double,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "LaplaceMechanism(epsilon, 1).add_noise on doubles",
            Case(_ONE, "proved", "noise on a 2^-40 grid, the input rounded to it: no float structure"),
            parameters=_EPSILON,
        ),
        _spec(
            "pydp-gaussian-double",
            gaussian_double,
            lambda p: ApproxDp(p["epsilon"], p["delta"]),
            "GaussianMechanism(epsilon, delta, 1).add_noise on doubles",
            Case(_GAUSS, "violated", "1 + noise in (0, 1/2) is a multiple of 2^-53; the noise alone often is not"),
            parameters=_EPSILON_DELTA,
        ),
        _spec(
            "pydp-gaussian-int",
            gaussian_int,
            lambda p: ApproxDp(p["epsilon"], p["delta"]),
            "GaussianMechanism(epsilon, delta, 1).add_noise on ints (noise rounded to an integer)",
            Case(_GAUSS, "proved", "rounding to an integer erases the low bits"),
            parameters=_EPSILON_DELTA,
        ),
        _spec(
            "pydp-count",
            count,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "laplacian.Count(epsilon).quick_result of x records",
            Case(_ONE, "proved", "x plus Laplace(1/epsilon) noise rounded to an integer"),
            parameters=_EPSILON,
            ideal=_count_ideal,
            outputs=_count_outputs,
        ),
        _spec(
            "pydp-bounded-sum",
            bounded_sum,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "laplacian.BoundedSum(epsilon, bounds [0, 1], float) of [0, 0] plus x ones",
            Case(_ONE, "proved", "sensitivity max(|0|, |1|) = 1"),
            parameters=_EPSILON,
        ),
        _spec(
            "pydp-bounded-mean",
            bounded_mean,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "laplacian.BoundedMean(epsilon, bounds [0, 1], float) of [0, 0] plus x ones",
            Case(_ONE, "proved", "noisy normalised sum over noisy count, clamped to the bounds"),
            parameters=_EPSILON,
        ),
        _spec(
            "pydp-laplace-threshold",
            laplace_above_threshold,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "LaplaceMechanism(epsilon, 1).noised_value_above_threshold(x, 1/2)",
            Case(_ONE, "proved", "one bit of x + Laplace(1/epsilon) > 1/2"),
            parameters=_EPSILON,
        ),
        _spec(
            "pydp-partition-truncated-geometric",
            truncated_geometric_keep,
            lambda p: ApproxDp(p["epsilon"], p["delta"]),
            "create_partition_strategy('truncated_geometric', epsilon, delta, 1).should_keep(x)",
            Case(
                {"epsilon": 1, "delta": "1/10"}, "proved", "keeps 1 user with probability delta, 2 with (e + 1) delta"
            ),
            parameters=_EPSILON_DELTA,
            input_=_USERS,
        ),
    )
}


def _row(name: str, primitive: str, mechanism: str, parameters: str) -> Primitive:
    return black_box_primitive(PYDP_SPECS[name], primitive, mechanism, parameters)


def primitives() -> list[Primitive]:
    return [
        _row(
            "pydp-laplace-double",
            "numerical_mechanisms.LaplaceMechanism.add_noise (double)",
            "Laplace",
            "epsilon=1, sensitivity=1, inputs 0.0 and 1.0",
        ),
        _row(
            "pydp-gaussian-double",
            "numerical_mechanisms.GaussianMechanism.add_noise (double)",
            "Gaussian",
            "epsilon=1, delta=10^-5, l2_sensitivity=1 (library sigma 3.7324), inputs 0.0 and 1.0",
        ),
        _row(
            "pydp-gaussian-int",
            "numerical_mechanisms.GaussianMechanism.add_noise (int)",
            "Gaussian",
            "epsilon=1, delta=10^-5, l2_sensitivity=1, inputs 0 and 1",
        ),
        _row("pydp-count", "algorithms.laplacian.Count", "Laplace", "epsilon=1, 0 and 1 records (add/remove one)"),
        _row(
            "pydp-bounded-sum",
            "algorithms.laplacian.BoundedSum (float)",
            "Laplace",
            "epsilon=1, bounds [0, 1], [0, 0] and [0, 0, 1] (add/remove one)",
        ),
        _row(
            "pydp-bounded-mean",
            "algorithms.laplacian.BoundedMean (float)",
            "Laplace",
            "epsilon=1, bounds [0, 1], [0, 0] and [0, 0, 1] (add/remove one)",
        ),
        _row(
            "pydp-laplace-threshold",
            "numerical_mechanisms.LaplaceMechanism.noised_value_above_threshold",
            "Laplace (one bit)",
            "epsilon=1, sensitivity=1, threshold 1/2, inputs 0.0 and 1.0",
        ),
        _row(
            "pydp-partition-truncated-geometric",
            "partition_selection (truncated_geometric).should_keep",
            "partition selection",
            "epsilon=1, delta=1/10, max_partitions_contributed=1, 1 and 2 users",
        ),
    ]

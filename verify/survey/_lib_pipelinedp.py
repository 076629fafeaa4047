"""PipelineDP (OpenMined and Google): the noise its engine adds and its partition selection,
through ``pipeline_dp.dp_computations`` and ``pipeline_dp.partition_selection``, which need
neither Apache Beam nor Spark.  All black boxes.

- ``create_additive_mechanism(MechanismSpec, Sensitivities)``: the Laplace and Gaussian
  mechanisms of every count and sum.  They wrap python-dp's secure mechanisms
  (:mod:`~dpverify.verify.survey._lib_pydp`), but ``AdditiveMechanism.add_noise`` always calls
  them on ``1.0 * value``, so an integer count takes the double path too.  For the Gaussian that
  path leaks the input through the low bits of ``count + noise`` (python-dp's binomial sample is
  converted to a double before it is scaled to its ``2^-54`` grid; see that module), where the
  integer path, which rounds the noise, would not.
- ``create_partition_selection_strategy``: python-dp's strategies; the truncated geometric's
  keep bit, and the Gaussian thresholding's released noisy count (``None`` when dropped).
- ``ExponentialMechanism.apply``: Python over numpy, ``exp(eps * score / (2 sensitivity))``
  weights in doubles and ``numpy.random.default_rng().choice``.  A fresh generator seeded from
  the operating system on every call, so neither a seed nor dpverify's sources reach it, and it
  is a black box too.

Claims are the library's documented ones, with its parameters read as the exact rationals
below (they reach the library as the nearest doubles).  ``pipeline_dp.sampling_utils`` also
draws from ``numpy.random`` (the contribution bounding's sampling of a privacy unit's records):
that is not a noise primitive, and it is not audited here.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, cast

from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.verify.survey._primitive import Library, Primitive, black_box_primitive

__all__ = ["LIBRARY", "PIPELINEDP_SPECS", "primitives"]

LIBRARY = Library(
    name="pipeline-dp",
    module="pipeline_dp",
    requirements=("pipeline-dp==0.3.1", "python-dp==1.1.5"),
    about="OpenMined's DP aggregation pipelines (Beam, Spark, local); its noise is python-dp's",
)

_EPSILON = {"epsilon": Rational(0, low_open=True, search=(Fraction(1, 10), 2))}
_EPSILON_DELTA = {**_EPSILON, "delta": Rational(0, 1, low_open=True, high_open=True)}
_NEIGHBOURS = Input("x", values=lambda p: (0, 1), neighbours=1)
#: Partition sizes: the truncated geometric's first step, and the Gaussian thresholding's
#: threshold at (1, 10^-5) (18.16), where a neighbour's presence matters most.
_SMALL_PARTITION = Input("x", values=lambda p: (1, 2), neighbours=1)
_AT_THRESHOLD = Input("x", values=lambda p: (18, 19), neighbours=1)
#: The exponential mechanism's candidates; the input x scores candidate k as -|k - x|.
_CANDIDATES = (0, 1, 2, 3)


@functools.lru_cache(maxsize=8)
def _additive(kind: str, epsilon: Fraction, delta: Fraction | None) -> Any:
    from pipeline_dp import aggregate_params, budget_accounting, dp_computations

    mechanism = aggregate_params.MechanismType.LAPLACE if kind == "laplace" else aggregate_params.MechanismType.GAUSSIAN
    spec = budget_accounting.MechanismSpec(
        mechanism, _eps=float(epsilon), _delta=None if delta is None else float(delta)
    )
    return dp_computations.create_additive_mechanism(spec, dp_computations.Sensitivities(l0=1, linf=1))


def laplace_count(x: int, epsilon: Fraction) -> float:
    """The Laplace ``AdditiveMechanism`` of a count (l0 = linf = 1) applied to ``x``."""
    return cast(float, _additive("laplace", epsilon, None).add_noise(x))  # pipeline_dp is untyped


def gaussian_count(x: int, epsilon: Fraction, delta: Fraction) -> float:
    """The Gaussian ``AdditiveMechanism`` of a count (l0 = linf = 1) applied to ``x``."""
    return cast(float, _additive("gaussian", epsilon, delta).add_noise(x))  # pipeline_dp is untyped


@functools.lru_cache(maxsize=8)
def _selection(kind: str, epsilon: Fraction, delta: Fraction) -> Any:
    from pipeline_dp import aggregate_params, partition_selection

    strategy = (
        aggregate_params.PartitionSelectionStrategy.TRUNCATED_GEOMETRIC
        if kind == "geometric"
        else aggregate_params.PartitionSelectionStrategy.GAUSSIAN_THRESHOLDING
    )
    return partition_selection.create_partition_selection_strategy(strategy, float(epsilon), float(delta), 1, None)


def truncated_geometric_keep(x: int, epsilon: Fraction, delta: Fraction) -> int:
    """Whether the truncated geometric strategy keeps a partition of ``x`` privacy units, as 0 or 1."""
    return int(_selection("geometric", epsilon, delta).should_keep(x))


def gaussian_thresholding(x: int, epsilon: Fraction, delta: Fraction) -> float | None:
    """The Gaussian thresholding's release for ``x`` privacy units: the noisy count, or None."""
    # pipeline_dp is untyped
    return cast("float | None", _selection("gaussian", epsilon, delta).noised_value_if_should_keep(x))


def exponential(x: int, epsilon: Fraction) -> int:
    """``ExponentialMechanism.apply(epsilon, [0, 1, 2, 3])`` scoring ``k`` as ``-|k - x|``
    (sensitivity 1, not monotonic, so the weights are ``exp(epsilon * score / 2)``)."""
    from pipeline_dp.dp_computations import ExponentialMechanism

    class Distance(ExponentialMechanism.ScoringFunction):  # type: ignore[misc]  # pipeline_dp is untyped
        global_sensitivity = 1.0
        is_monotonic = False

        def score(self, k: int) -> float:
            return -abs(k - x)

    return int(ExponentialMechanism(Distance()).apply(float(epsilon), list(_CANDIDATES)))


def _spec(
    name: str,
    sampler: Any,
    claim: Any,
    description: str,
    case: Case,
    *,
    parameters: dict[str, Rational],
    input_: Input = _NEIGHBOURS,
) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters=parameters,
        input=input_,
        claim=claim,
        randomness="none",
        description=description,
        citation="pipeline-dp 0.3.1, pipeline_dp.dp_computations",
        cases=(case,),
    )


_GAUSS = {"epsilon": 1, "delta": "1/10^5"}

PIPELINEDP_SPECS: dict[str, Spec] = {
    s.name: s
    for s in (
        _spec(
            "pipelinedp-laplace-count",
            laplace_count,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "create_additive_mechanism(LAPLACE, l0=1, linf=1).add_noise(count)",
            Case({"epsilon": 1}, "proved", "python-dp's Laplace on doubles: a 2^-40 grid"),
            parameters=_EPSILON,
        ),
        _spec(
            "pipelinedp-gaussian-count",
            gaussian_count,
            lambda p: ApproxDp(p["epsilon"], p["delta"]),
            "create_additive_mechanism(GAUSSIAN, l0=1, linf=1).add_noise(count)",
            Case(_GAUSS, "violated", "the count goes through python-dp's double Gaussian, whose low bits leak"),
            parameters=_EPSILON_DELTA,
        ),
        _spec(
            "pipelinedp-truncated-geometric",
            truncated_geometric_keep,
            lambda p: ApproxDp(p["epsilon"], p["delta"]),
            "create_partition_selection_strategy(TRUNCATED_GEOMETRIC, epsilon, delta, 1).should_keep(x)",
            Case({"epsilon": 1, "delta": "1/10"}, "proved", "python-dp's optimal partition selection"),
            parameters=_EPSILON_DELTA,
            input_=_SMALL_PARTITION,
        ),
        _spec(
            "pipelinedp-gaussian-thresholding",
            gaussian_thresholding,
            lambda p: ApproxDp(p["epsilon"], p["delta"]),
            "create_partition_selection_strategy(GAUSSIAN_THRESHOLDING, epsilon, delta, 1)"
            ".noised_value_if_should_keep(x)",
            Case(_GAUSS, "proved", "a noisy count released only above the threshold"),
            parameters=_EPSILON_DELTA,
            input_=_AT_THRESHOLD,
        ),
        _spec(
            "pipelinedp-exponential",
            exponential,
            lambda p: PureDp(epsilon=p["epsilon"]),
            "ExponentialMechanism(score -|k - x|, sensitivity 1).apply(epsilon, [0, 1, 2, 3])",
            Case({"epsilon": 1}, "proved", "weights exp(epsilon * score / 2): epsilon-DP"),
            parameters=_EPSILON,
        ),
    )
}


def _row(name: str, primitive: str, mechanism: str, parameters: str) -> Primitive:
    return black_box_primitive(PIPELINEDP_SPECS[name], primitive, mechanism, parameters)


def primitives() -> list[Primitive]:
    return [
        _row(
            "pipelinedp-laplace-count",
            "dp_computations.create_additive_mechanism (LAPLACE).add_noise",
            "Laplace",
            "epsilon=1, l0=linf=1, counts 0 and 1",
        ),
        _row(
            "pipelinedp-gaussian-count",
            "dp_computations.create_additive_mechanism (GAUSSIAN).add_noise",
            "Gaussian",
            "epsilon=1, delta=10^-5, l0=linf=1 (python-dp sigma 3.7324), counts 0 and 1",
        ),
        _row(
            "pipelinedp-truncated-geometric",
            "partition_selection (TRUNCATED_GEOMETRIC).should_keep",
            "partition selection",
            "epsilon=1, delta=1/10, max_partitions_contributed=1, 1 and 2 privacy units",
        ),
        _row(
            "pipelinedp-gaussian-thresholding",
            "partition_selection (GAUSSIAN_THRESHOLDING).noised_value_if_should_keep",
            "Gaussian thresholding",
            "epsilon=1, delta=10^-5, max_partitions_contributed=1, 18 and 19 privacy units (threshold 18.16)",
        ),
        _row(
            "pipelinedp-exponential",
            "dp_computations.ExponentialMechanism.apply",
            "exponential mechanism",
            "epsilon=1, candidates 0..3 scored -|k - x|, sensitivity 1, inputs 0 and 1",
        ),
    ]

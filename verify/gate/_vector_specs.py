"""The gate's entries for the vector noise mechanisms (``vector-laplace``, ``vector-gaussian``,
``vector-gaussian-sigma2``: described in :mod:`dpverify.verify.gate._mechanism_specs`), and the
parameter helpers the mechanism entries share.  Its own module: one family of entries, each a
sampler of :mod:`dpverify.samplers` run against products of one-dimensional ideal enclosures.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

from dpverify.samplers import vector_gaussian, vector_laplace
from dpverify.specs import (
    ApproxDp,
    Bounded,
    Case,
    Input,
    Params,
    PureDp,
    Rational,
    Spec,
    VectorGaussianSpec,
    VectorLaplaceSpec,
)
from dpverify.specs.mechanisms import MAX_DIMS
from dpverify.verify.engine._results import CheckResult

__all__ = ["TOLERANCE", "VECTOR_GAUSSIAN", "VECTOR_GAUSSIAN_SIGMA2", "VECTOR_LAPLACE"]

#: As the catalogue's noise entries: every listed output within this of its ideal probability.
TOLERANCE = Fraction(1, 10**6)
#: A two-coordinate draw leaves about twice one coordinate's tail unexplored, so the budget is half
#: the catalogue's: then the batch form's four coordinates prove within ``2 * TOLERANCE`` too.
_BOUNDED = Bounded(min_mass=Fraction(1, 2 * 10**9), max_unexplored=TOLERANCE)


def _positive(
    low: Fraction | int | str = 0, search: tuple[Fraction | int | str, Fraction | int | str] = (Fraction(1, 2), 2)
) -> Rational:
    return Rational(low, low_open=True, search=search)


def _centre(p: Params) -> tuple[Fraction, ...]:
    """The input the vector entries run: two coordinates on the grid, off the origin."""
    return (p["step"], -2 * p["step"])


def _one_input(p: Params) -> tuple[tuple[Fraction, ...]]:
    # An ideal PMF is stated for one input (``ideal(p, output, dps)`` does not take it), so each
    # vector entry runs one input; its claim is proved for every pair of inputs by its own check.
    return (_centre(p),)


# --- vector Laplace ------------------------------------------------------------------------------


def _laplace(p: Params) -> VectorLaplaceSpec:
    return VectorLaplaceSpec.create(p["sensitivity"], p["epsilon"], p["step"])


def _laplace_claim_proof(p: Params) -> CheckResult:
    from dpverify.verify.privacy._mechanisms import check_vector_laplace_claim

    return check_vector_laplace_claim(_laplace(p), 2)


def _defaults(
    *calls: tuple[str, Callable[[Params, Any], Any], Callable[[Params, Any], Any]],
) -> Callable[[Params], CheckResult]:
    def check(p: Params) -> CheckResult:
        from dpverify.verify.privacy._mechanisms import check_defaults

        return check_defaults((label, partial(f, p), partial(g, p)) for label, f, g in calls)

    check.__name__ = "defaults"
    return check


_LAPLACE_DEFAULTS = _defaults(
    (
        "vector_laplace.sample without step",
        lambda p, rng: vector_laplace.sample((1, -2), p["sensitivity"], p["epsilon"], rng=rng),
        lambda p, rng: vector_laplace.sample((1, -2), p["sensitivity"], p["epsilon"], 1, rng),
    )
)

_VECTOR_REFUSES = (
    {"values": ()},
    {"values": (0,) * (MAX_DIMS + 1)},
    {"values": (0, "1/3")},
    {"values": "01"},
    {"values": (0, 0.5)},
    {"step": 0},
    {"sensitivity": 0},
    {"k": -1},
)

VECTOR_LAPLACE = Spec(
    name="vector-laplace",
    sampler=vector_laplace.sample,
    parameters={"sensitivity": _positive(), "epsilon": _positive(), "step": _positive(search=(Fraction(1, 4), 1))},
    input=Input("values", values=_one_input, neighbours=lambda p: ()),
    claim=lambda p: PureDp(epsilon=p["epsilon"]),
    ideal=lambda p, output, dps: _laplace(p).ideal_probability(_centre(p), output, dps),
    outputs=lambda p: _laplace(p).outputs_for_check(_centre(p)),
    enumeration=_BOUNDED,
    batch=vector_laplace.sample_many,
    refuses=(*_VECTOR_REFUSES, {"epsilon": 0}, {"epsilon": -1}, {"epsilon": 0.5}),
    accepts=({"epsilon": "1/10^6"}, {"step": "1/10^6", "values": (0, "1/10^6")}, {"values": (0,) * MAX_DIMS}),
    checks=(_laplace_claim_proof, _LAPLACE_DEFAULTS),
    citation="CKS20 Algorithm 2 (the noise); Dwork, Roth, the Laplace mechanism (L1 sensitivity)",
    description="the Laplace mechanism on a vector on the grid step*Z, exact discrete Laplace noise per coordinate",
    cases=(
        Case(
            {"sensitivity": 1, "epsilon": 2, "step": 1},
            "proved",
            "two coordinates of exact discrete Laplace noise against the product of the ideal enclosures; "
            "epsilon proved by Z3 for all grid inputs within L1 distance s",
            label="s=1,eps=2,L=1",
        ),
        Case(
            {"sensitivity": "1/2", "epsilon": 3, "step": "1/2"},
            "proved",
            "a grid of step 1/2 and a noise scale of 1/3 grid step (CKS20 Algorithm 2 with t/s = 1/3)",
            label="s=1/2,eps=3,L=1/2",
        ),
    ),
)

# --- vector Gaussian -----------------------------------------------------------------------------


def _classic(p: Params) -> VectorGaussianSpec:
    return VectorGaussianSpec.classic(p["sensitivity"], p["epsilon"], p["delta"], p["step"])


def _sigma2(p: Params) -> VectorGaussianSpec:
    return VectorGaussianSpec.create(p["sigma2"], p["step"], p["sensitivity"])


def _classic_sigma2_check(p: Params) -> CheckResult:
    from dpverify.verify.privacy._mechanisms import check_classic_sigma2

    return check_classic_sigma2(vector_gaussian.classic_sigma2, [(p["sensitivity"], p["epsilon"], p["delta"])])


def _classic_approx_dp_check(p: Params) -> CheckResult:
    """The classic calibration's (epsilon, delta) claim on the discrete mechanism, in the
    gate: CKS20 Theorem 4 per coordinate, zCDP composition over the coordinates and the CKS20
    conversion (:func:`dpverify.verify.check_gaussian_mechanism`)."""
    from dpverify.verify.privacy._gaussian_calibration import check_gaussian_mechanism

    return check_gaussian_mechanism(
        _classic(p).sigma2, p["sensitivity"], p["epsilon"], p["delta"], dims=len(_centre(p))
    )


def _ln_bounds_check(p: Params) -> CheckResult:
    from dpverify.verify.privacy._mechanisms import check_ln_bounds

    return check_ln_bounds(vector_gaussian._ln_scaled)


VECTOR_GAUSSIAN = Spec(
    name="vector-gaussian",
    sampler=vector_gaussian.sample,
    parameters={
        "sensitivity": _positive(),
        "epsilon": Rational(0, 1, low_open=True, high_open=True),
        "delta": Rational(0, 1, low_open=True, high_open=True),
        "step": _positive(search=(Fraction(1, 4), 1)),
    },
    input=Input("values", values=_one_input, neighbours=lambda p: ()),
    # The classic calibration's claim; its rho-zCDP (CKS20 Theorem 4) is what the check converts.
    claim=lambda p: ApproxDp(p["epsilon"], p["delta"]),
    ideal=lambda p, output, dps: _classic(p).ideal_probability(_centre(p), output, dps),
    outputs=lambda p: _classic(p).outputs_for_check(_centre(p)),
    enumeration=_BOUNDED,
    batch=vector_gaussian.sample_many,
    refuses=(
        *_VECTOR_REFUSES,
        {"epsilon": 0},
        {"epsilon": 1},
        {"epsilon": "3/2"},
        {"delta": 0},
        {"delta": 1},
        {"delta": 0.5},
    ),
    accepts=({"epsilon": "999999/1000000", "delta": "1/10^100"},),
    checks=(
        _classic_sigma2_check,
        _classic_approx_dp_check,
        _ln_bounds_check,
        _defaults(
            (
                "vector_gaussian.sample without step",
                lambda p, rng: vector_gaussian.sample((1, -2), p["sensitivity"], p["epsilon"], p["delta"], rng=rng),
                lambda p, rng: vector_gaussian.sample((1, -2), p["sensitivity"], p["epsilon"], p["delta"], 1, rng),
            )
        ),
    ),
    citation="Dwork, Roth, Theorem A.1 (the classic calibration, paper 003); CKS20 Algorithm 3, Theorem 4",
    description="the Gaussian mechanism on a vector with sigma^2 = 2 ln(1.25/delta) s^2/epsilon^2 rounded up to 2^-32",
    cases=(
        Case(
            {"sensitivity": "1/4", "epsilon": "9/10", "delta": "1/2", "step": 1},
            "proved",
            "the classic sigma^2 (about 0.141), from the spec's certified logarithm, in two coordinates; the "
            "sampler's integer-series sigma^2 equals the certified one here and at a fixed bank",
            label="classic",
        ),
    ),
)

VECTOR_GAUSSIAN_SIGMA2 = Spec(
    name="vector-gaussian-sigma2",
    sampler=vector_gaussian.sample_sigma2,
    parameters={"sigma2": _positive(), "step": _positive(search=(Fraction(1, 4), 1)), "sensitivity": _positive()},
    input=Input("values", values=_one_input, neighbours=lambda p: ()),
    claim=lambda p: _sigma2(p).zcdp_claim(),
    ideal=lambda p, output, dps: _sigma2(p).ideal_probability(_centre(p), output, dps),
    outputs=lambda p: _sigma2(p).outputs_for_check(_centre(p)),
    enumeration=_BOUNDED,
    batch=vector_gaussian.sample_sigma2_many,
    refuses=(*_VECTOR_REFUSES[:6], {"sigma2": 0}, {"sigma2": -1}, {"sigma2": 0.5}, {"k": -1}),
    checks=(
        _defaults(
            (
                "vector_gaussian.sample_sigma2 without step",
                lambda p, rng: vector_gaussian.sample_sigma2((1, -2), p["sigma2"], rng=rng),
                lambda p, rng: vector_gaussian.sample_sigma2((1, -2), p["sigma2"], 1, rng),
            )
        ),
    ),
    citation="CKS20 Algorithm 3, Theorem 4; Bun, Steinke 2016, Lemma 2.3",
    description="the discrete Gaussian on a vector with a given sigma2 (e.g. a tight one from CKS20 Theorem 7)",
    cases=(
        Case(
            {"sigma2": "1/32", "step": "1/2", "sensitivity": "1/2"},
            "proved",
            "variance 1/8 in grid units, two coordinates, against the product of the ideal enclosures",
            label="sigma2=1/32,L=1/2",
        ),
    ),
)

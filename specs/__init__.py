"""Specs: for each sampler, its parameter domain, neighbour relation, privacy claim and exact PMFs."""

from dpverify.specs._api import (
    Attempt,
    Bisection,
    Bounded,
    Case,
    Exhaustive,
    Input,
    Params,
    Randomness,
    Spec,
    SpecError,
)
from dpverify.specs._claims import ApproxDp, PureDp, PureDpClaim, SamplesPmf, Zcdp
from dpverify.specs._domains import Integer, Rational
from dpverify.specs._pmf import ExactPmf
from dpverify.specs._spec import MechanismSpec
from dpverify.specs._noise import NoiseSpec
from dpverify.specs.grid_laplace import GridLaplaceSpec
from dpverify.specs.gtm import GtmSpec
from dpverify.specs.mechanisms import (
    VectorGaussianSpec,
    VectorLaplaceSpec,
    certified_classic_sigma2,
    guarantee_claims,
    product_pmf,
    pushforward,
)
from dpverify.specs.noise import (
    BernoulliExpSpec,
    DiscreteGaussianApproxDpClaim,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    PureEpsilonClaim,
    ZcdpClaim,
)

__all__ = [
    "ApproxDp",
    "Attempt",
    "BernoulliExpSpec",
    "Bisection",
    "Bounded",
    "Case",
    "DiscreteGaussianApproxDpClaim",
    "DiscreteGaussianSpec",
    "DiscreteLaplaceSpec",
    "ExactPmf",
    "Exhaustive",
    "GridLaplaceSpec",
    "GtmSpec",
    "Input",
    "Integer",
    "MechanismSpec",
    "NoiseSpec",
    "Params",
    "PureDp",
    "PureDpClaim",
    "PureEpsilonClaim",
    "Randomness",
    "Rational",
    "SamplesPmf",
    "Spec",
    "SpecError",
    "VectorGaussianSpec",
    "VectorLaplaceSpec",
    "Zcdp",
    "ZcdpClaim",
    "certified_classic_sigma2",
    "guarantee_claims",
    "product_pmf",
    "pushforward",
]

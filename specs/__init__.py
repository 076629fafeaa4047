"""Specs: for each sampler, its parameter domain, neighbour relation, privacy claim and exact PMFs."""

from dpverify.specs._claims import PureDpClaim
from dpverify.specs._pmf import ExactPmf
from dpverify.specs._spec import MechanismSpec
from dpverify.specs._noise import NoiseSpec
from dpverify.specs.grid_laplace import GridLaplaceSpec
from dpverify.specs.gtm import GtmSpec
from dpverify.specs.noise import (
    BernoulliExpSpec,
    DiscreteGaussianApproxDpClaim,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    PureEpsilonClaim,
    ZcdpClaim,
)

__all__ = [
    "BernoulliExpSpec",
    "DiscreteGaussianApproxDpClaim",
    "DiscreteGaussianSpec",
    "DiscreteLaplaceSpec",
    "ExactPmf",
    "GridLaplaceSpec",
    "GtmSpec",
    "MechanismSpec",
    "NoiseSpec",
    "PureDpClaim",
    "PureEpsilonClaim",
    "ZcdpClaim",
]

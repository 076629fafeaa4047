"""Specs: for each sampler, its parameter domain, neighbour relation, privacy claim and exact PMFs."""

from specs._claims import PureDpClaim
from specs._pmf import ExactPmf
from specs._spec import MechanismSpec
from specs._noise import NoiseSpec
from specs.grid_laplace import GridLaplaceSpec
from specs.gtm import GtmSpec
from specs.noise import (
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

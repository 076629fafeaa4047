"""Specs: for each sampler, its parameter domain, neighbour relation, privacy claim and exact PMFs."""

from dpverify.specs._accountants import (
    ACCOUNT_SCHEMA,
    MECHANISMS,
    Account,
    Bound,
    account,
    advanced_composition,
    basic_composition,
    drv_composition,
    gaussian_rho,
    kov_composition,
    kov_delta,
    zcdp_bs16_composition,
    zcdp_cks20_composition,
    zcdp_delta,
    zcdp_epsilon,
)
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
from dpverify.specs.noise import (
    BernoulliExpSpec,
    DiscreteGaussianApproxDpClaim,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    PureEpsilonClaim,
    ZcdpClaim,
)

__all__ = [
    "ACCOUNT_SCHEMA",
    "Account",
    "ApproxDp",
    "Attempt",
    "BernoulliExpSpec",
    "Bisection",
    "Bound",
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
    "MECHANISMS",
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
    "Zcdp",
    "ZcdpClaim",
    "account",
    "advanced_composition",
    "basic_composition",
    "drv_composition",
    "gaussian_rho",
    "kov_composition",
    "kov_delta",
    "zcdp_bs16_composition",
    "zcdp_cks20_composition",
    "zcdp_delta",
    "zcdp_epsilon",
]

"""Specs: for each sampler, its parameter domain, neighbour relation, privacy claim and exact PMFs."""

from dpverify.specs._account_objects import ACCOUNT_SCHEMA, MECHANISMS, Account, Bound, gaussian_rho
from dpverify.specs._accountants import (
    account,
    advanced_composition,
    basic_composition,
    drv_composition,
    zcdp_bs16_composition,
    zcdp_cks20_composition,
    zcdp_delta,
    zcdp_epsilon,
)
from dpverify.specs._api import (
    DEFAULT_MAX_UNEXPLORED,
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
from dpverify.specs._noise import NoiseSpec
from dpverify.specs._optimal_composition import kov_composition, kov_delta
from dpverify.specs._pmf import ExactPmf
from dpverify.specs._spec import MechanismSpec
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
    "ACCOUNT_SCHEMA",
    "Account",
    "ApproxDp",
    "Attempt",
    "BernoulliExpSpec",
    "Bisection",
    "Bound",
    "Bounded",
    "Case",
    "DEFAULT_MAX_UNEXPLORED",
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
    "VectorGaussianSpec",
    "VectorLaplaceSpec",
    "Zcdp",
    "ZcdpClaim",
    "account",
    "advanced_composition",
    "basic_composition",
    "certified_classic_sigma2",
    "drv_composition",
    "gaussian_rho",
    "guarantee_claims",
    "kov_composition",
    "kov_delta",
    "product_pmf",
    "pushforward",
    "zcdp_bs16_composition",
    "zcdp_cks20_composition",
    "zcdp_delta",
    "zcdp_epsilon",
]

"""Specs: for each sampler, its parameter domain, neighbour relation, privacy claim and exact PMFs."""

from specs._claims import PureDpClaim
from specs._pmf import ExactPmf
from specs._spec import MechanismSpec
from specs.gtm import GtmSpec

__all__ = ["ExactPmf", "GtmSpec", "MechanismSpec", "PureDpClaim"]

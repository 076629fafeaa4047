"""Production samplers: exact, stdlib only, drawing randomness only through a RandomSource."""

from dpverify.samplers import (
    bernoulli,
    discrete_gaussian,
    discrete_laplace,
    grid_laplace,
    gtm,
    mechanisms,
    vector_gaussian,
    vector_laplace,
)
from dpverify.samplers._errors import DpverifyError, InvalidArgument, SamplerContractError
from dpverify.samplers._random_source import RandomSource, SeededRandomSource, SystemRandomSource, fresh_seed
from dpverify.samplers._rational import as_fraction, as_int, as_open_unit_interval
from dpverify.samplers.mechanisms import Guarantee, Mechanism

__all__ = [
    "DpverifyError",
    "Guarantee",
    "InvalidArgument",
    "Mechanism",
    "RandomSource",
    "SamplerContractError",
    "SeededRandomSource",
    "SystemRandomSource",
    "as_fraction",
    "as_int",
    "as_open_unit_interval",
    "bernoulli",
    "discrete_gaussian",
    "discrete_laplace",
    "fresh_seed",
    "grid_laplace",
    "gtm",
    "mechanisms",
    "vector_gaussian",
    "vector_laplace",
]

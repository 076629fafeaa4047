"""Black boxes dpverify audits out of the box: OpenDP through its Python bindings, and numpy.

Each is a :class:`~dpverify.specs.Spec` with ``randomness="none"`` (it draws its own randomness),
declared through the public spec API like any user's, and found by ``dpverify audit --black-box
NAME``.  The libraries are optional (``pip install 'dpverify[opendp]'`` or ``'dpverify[numpy]'``):
without them the audit is inconclusive and says which module is missing.

The laws are dpverify's own certified enclosures (:mod:`dpverify.specs.noise`), read additively:
``P(o | x) = ideal(o - x)``.

- ``opendp-dlaplace``: ``dp.m.make_laplace`` on ``atom_domain(T=int)`` with
  ``absolute_distance(T=int)``, ``x + Lap_Z(scale)``, claiming ``epsilon = 1/scale`` (OpenDP's
  own ``map(1)``).
- ``opendp-dgauss``: ``dp.m.make_gaussian`` on the same domain, ``x + N_Z(0, scale^2)``, claiming
  ``rho = 1/(2 scale^2)``-zCDP (``map(1)``; Canonne, Kamath, Steinke 2020, Theorem 4).
- ``opendp-dgauss-i32``: the same on ``T="i32"`` (OpenDP 0.16 reads ``T=int`` as ``i32`` too).  OpenDP adds the
  noise in big integers and *saturates* the result to the type's range, so when ``scale`` approaches ``2**31`` a large
  share of the draws sits on ``2**31 - 1`` and ``-2**31``: the sampler no longer samples the
  discrete Gaussian its privacy analysis assumes (saturation itself is post-processing, so the
  privacy test does not see it; the distribution test's atom part does).
- ``numpy-laplace``: the textbook ``x + numpy.random.laplace(0, 1/epsilon)`` in doubles, claiming
  ``epsilon``-DP; Mironov 2012 showed its low bits leak the input.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping
from fractions import Fraction
from typing import Any

from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import PureDp, Zcdp
from dpverify.specs.noise import DiscreteGaussianSpec, DiscreteLaplaceSpec

__all__ = ["BLACK_BOXES", "NUMPY_LAPLACE", "OPENDP_DGAUSS", "OPENDP_DGAUSS_I32", "OPENDP_DLAPLACE"]

_NEIGHBOURS = Input("x", values=lambda p: (0, 1), neighbours=1)


@functools.lru_cache(maxsize=16)
def _opendp_measurement(kind: str, scale: Fraction, atom: str) -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain, metric = dp.atom_domain(T=atom), dp.absolute_distance(T=atom)
    make = dp.m.make_laplace if kind == "laplace" else dp.m.make_gaussian
    return make(domain, metric, scale=float(scale))  # the binding takes a float; the cases' scales are exact in it


def opendp_laplace(x: int, scale: Fraction) -> object:
    """One release of OpenDP's integer Laplace measurement at ``x``."""
    return _opendp_measurement("laplace", scale, "int")(x)


def opendp_gaussian(x: int, scale: Fraction) -> object:
    """One release of OpenDP's integer Gaussian measurement on ``T=int`` at ``x``."""
    return _opendp_measurement("gaussian", scale, "int")(x)


def opendp_gaussian_i32(x: int, scale: Fraction) -> object:
    """One release of OpenDP's integer Gaussian measurement on ``T="i32"`` at ``x``."""
    return _opendp_measurement("gaussian", scale, "i32")(x)


def numpy_laplace(x: int, epsilon: Fraction) -> object:
    """The textbook float Laplace mechanism: ``x + numpy.random.laplace(0, 1/epsilon)`` in doubles."""
    import numpy as np

    return x + np.random.laplace(0.0, 1.0 / float(epsilon))


def _dlaplace_ideal(p: Mapping[str, Any], output: Hashable, dps: int) -> tuple[Any, Any]:
    return DiscreteLaplaceSpec.create(p["scale"]).ideal_probability(output, dps)


def _dgauss_ideal(p: Mapping[str, Any], output: Hashable, dps: int) -> tuple[Any, Any]:
    return DiscreteGaussianSpec.create(p["scale"] ** 2).ideal_probability(output, dps)


_SCALE = {"scale": Rational(0, low_open=True, search=(1, 8))}

OPENDP_DLAPLACE = Spec(
    name="opendp-dlaplace",
    sampler=opendp_laplace,
    parameters=_SCALE,
    input=_NEIGHBOURS,
    claim=lambda p: PureDp(epsilon=1 / p["scale"]),
    ideal=_dlaplace_ideal,
    outputs=lambda p: DiscreteLaplaceSpec.create(p["scale"]).outputs_for_check(),
    randomness="none",
    description="OpenDP's integer Laplace measurement (make_laplace on atom_domain(T=int))",
    citation="OpenDP 0.16, opendp.measurements.make_laplace; CKS20 Algorithm 2",
    cases=(Case({"scale": 2}, "proved", "the discrete Laplace with scale 2 is 1/2-DP", label="scale=2"),),
)


def _opendp_gaussian_spec(name: str, sampler: Any, atom: str, cases: tuple[Case, ...]) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters=_SCALE,
        input=_NEIGHBOURS,
        claim=lambda p: Zcdp(rho=1 / (2 * p["scale"] ** 2)),
        ideal=_dgauss_ideal,
        outputs=lambda p: DiscreteGaussianSpec.create(p["scale"] ** 2).outputs_for_check(),
        randomness="none",
        description=f"OpenDP's integer Gaussian measurement (make_gaussian on atom_domain(T={atom}))",
        citation="OpenDP 0.16, opendp.measurements.make_gaussian; CKS20 Algorithm 3, Theorem 4",
        cases=cases,
    )


OPENDP_DGAUSS = _opendp_gaussian_spec(
    "opendp-dgauss",
    opendp_gaussian,
    "int",
    (Case({"scale": 2}, "proved", "the discrete Gaussian with sigma 2 is 1/8-zCDP", label="scale=2"),),
)

OPENDP_DGAUSS_I32 = _opendp_gaussian_spec(
    "opendp-dgauss-i32",
    opendp_gaussian_i32,
    "'i32'",
    (
        Case(
            {"scale": 2},
            "proved",
            "far from the type's range the i32 Gaussian is the discrete Gaussian",
            label="scale=2",
        ),
        Case(
            {"scale": 2**31},
            "violated",
            "sigma = 2^31: about a third of the draws saturate to the i32 range's ends",
            label="scale=2^31",
        ),
    ),
)

NUMPY_LAPLACE = Spec(
    name="numpy-laplace",
    sampler=numpy_laplace,
    parameters={"epsilon": Rational(0, low_open=True, search=(Fraction(1, 10), 2))},
    input=_NEIGHBOURS,
    claim=lambda p: PureDp(epsilon=p["epsilon"]),
    randomness="none",
    description="the textbook float Laplace mechanism x + numpy.random.laplace(0, 1/epsilon)",
    citation="Mironov, On significance of the least significant bits for differential privacy, CCS 2012",
    cases=(
        Case(
            {"epsilon": "0.1"},
            "violated",
            "the float Laplace's low bits tell the inputs apart (Mironov 2012)",
            label="epsilon=0.1",
        ),
    ),
)

#: The built-in black boxes by name.
BLACK_BOXES: dict[str, Spec] = {s.name: s for s in (OPENDP_DLAPLACE, OPENDP_DGAUSS, OPENDP_DGAUSS_I32, NUMPY_LAPLACE)}

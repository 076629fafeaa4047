"""Tumult Core: its integer noise measurements, run unmodified on dpverify's enumerating source
through its own numpy Generator, and its float Laplace as a black box.

Tumult Core draws every random integer through one module-level ``numpy.random.Generator``
(``tmlt.core.random.rng._core_privacy_prng``, read by ``prng()`` on every draw): its
discrete samplers (``tmlt.core.random.discrete_gaussian``, Canonne, Kamath, Steinke 2020,
Algorithms 1-3 in Python with ``Fraction``) call ``RNGWrapper(prng()).randrange(m)``, which is
``int(prng().integers(0, m))``.  While an execution runs, that attribute is dpverify's
:class:`~dpverify.verify.engine._generator_compat.GeneratorCompat` over the enumerating source
(:func:`~dpverify.verify.engine._generator_compat.patched_generator`), so each ``integers(0, m)`` is
one exact uniform choice and the measurement's output law is enumerated exactly, to a mass budget:
for every output ``o``, ``E(o) <= P(o) <= E(o) + U``.  The law on input 0 is compared with
dpverify's certified enclosure of the ideal (:mod:`dpverify.specs.noise`) by
:func:`~dpverify.verify.engine._intervals.check_intervals`: ``proved`` is a proof *within U*
(every listed output's ideal probability lies in the code's interval; total variation at most
the stated bound), which carries the ideal's privacy to the code up to that distance.  The output is
``int(value) + noise``, so the law at any other input is this one shifted.

``AddLaplaceNoise`` samples doubles by inverting the Laplace CDF in python-flint's ball
arithmetic, drawing 63 bits at a time until the rounding is decided: no grid small enough to
enumerate, so it is audited as a black box (the float-structure privacy test).
"""

from __future__ import annotations

import importlib
import os
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any, cast

from dpverify.verify.survey._primitive import Budget, Finding, Library, Primitive, black_box_audit

__all__ = ["LIBRARY", "primitives"]

LIBRARY = Library(
    name="tmlt-core",
    module="tmlt.core",
    # tmlt-core 0.20.0 on Python 3.11 pins numpy<2, pandas<2 and pyspark 3.4-3.5 (pure Python, large)
    requirements=("tmlt-core==0.20.0",),
    about="Tumult Labs' DP framework (behind Tumult Analytics); its samplers draw from one numpy Generator, "
    "which dpverify replaces by its enumerating source",
)

#: Where Tumult Core keeps the Generator every sampler draws from.
_RNG_MODULE, _RNG_ATTRIBUTE = "tmlt.core.random.rng", "_core_privacy_prng"

#: The most executions one enumeration may make.  Each audit's mass budget (a branch lighter than it is
#: left unexplored, its mass in U) is chosen so that it ends by its budget, not by this, within about a
#: minute of one core: a walk cut by the path count leaves whole subtrees unexplored.
MAX_PATHS = 400_000


def _measurement(name: str, parameter: str, value: Fraction) -> Any:
    from tmlt.core.measurements import noise_mechanisms

    return getattr(noise_mechanisms, name)(**{parameter: value})


def _exact(name: str, parameter: str, value: Fraction, ideal: Any, min_mass: Fraction) -> Callable[[Budget], Finding]:
    """The audit of measurement ``name`` at ``parameter=value`` on input 0 against ``ideal`` (a noise spec)."""

    def audit(budget: Budget) -> Finding:
        import numpy as np

        from dpverify.verify.engine._generator_compat import patched_generator
        from dpverify.verify.engine._intervals import check_intervals

        measurement = _measurement(name, parameter, value)
        zero = np.int64(0)

        def run(source: Any) -> int:
            with patched_generator(_RNG_MODULE, _RNG_ATTRIBUTE, source):
                return cast(int, measurement(zero))  # tmlt is untyped: the noisy integer

        result = check_intervals(
            run, ideal.ideal_probability, ideal.outputs_for_check(), min_mass=min_mass, max_paths=MAX_PATHS
        )
        evidence = f"{name}({parameter}={value}) on input 0, its own code enumerated: {result.summary}"
        return Finding(
            result.verdict.value,
            evidence,
            {
                "check": result.to_json(),
                "min_mass": str(min_mass),
                "max_paths": MAX_PATHS,
                "ideal": type(ideal).__name__,
                "ideal_parameters": ideal.parameters(),
                "generator": f"{_RNG_MODULE}.{_RNG_ATTRIBUTE} replaced by GeneratorCompat",
            },
        )

    return audit


def tmlt_laplace(x: int, scale: Fraction) -> object:
    """One release of ``AddLaplaceNoise(NumpyFloatDomain(), scale)`` at ``float(x)``."""
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain
    from tmlt.core.measurements.noise_mechanisms import AddLaplaceNoise

    _seeded_core_prng()
    return AddLaplaceNoise(NumpyFloatDomain(), scale)(float(x))


#: The process whose Tumult generator is seeded already.
_SEEDED_IN: dict[str, int] = {}


def _seeded_core_prng() -> None:
    """Tumult's module-level generator, once per draw process, replaced by a numpy generator seeded
    from Python's ``random`` (which each draw process seeds from ``--seed``): the library's own
    algorithm on a reproducible stream, so one seed gives one set of counts."""
    if _SEEDED_IN.get("pid") == os.getpid():
        return
    import numpy as np

    setattr(importlib.import_module(_RNG_MODULE), _RNG_ATTRIBUTE, np.random.default_rng(random.getrandbits(63)))
    _SEEDED_IN["pid"] = os.getpid()


def _laplace_spec() -> Any:
    from dpverify.specs import Rational
    from dpverify.specs._api import Case, Input, Spec
    from dpverify.specs._claims import PureDp

    return Spec(
        name="tmlt-laplace",
        sampler=tmlt_laplace,
        parameters={"scale": Rational(0, low_open=True, search=(1, 8))},
        input=Input("x", values=lambda p: (0, 1), neighbours=1),
        claim=lambda p: PureDp(epsilon=1 / p["scale"]),
        randomness="none",
        description="Tumult Core's AddLaplaceNoise on doubles (inverse CDF in python-flint ball arithmetic)",
        citation="tmlt-core 0.20.0, tmlt.core.measurements.noise_mechanisms.AddLaplaceNoise",
        cases=(Case({"scale": 10}, "proved", "the Laplace with scale 10 claims 1/10-DP", label="scale=10"),),
    )


def primitives() -> list[Primitive]:
    from dpverify.specs.noise import DiscreteGaussianSpec, DiscreteLaplaceSpec

    laplace = _laplace_spec()
    return [
        # sigma_squared = 1/2: its coins' denominators stay small (4k), so a budget of 10^-6 leaves U near 1/4
        Primitive(
            "AddDiscreteGaussianNoise (random.discrete_gaussian.sample_dgauss)",
            "discrete Gaussian",
            "sigma_squared=1/2, input 0 (output: input + noise), inputs differ by 1",
            "exact enumeration",
            _exact(
                "AddDiscreteGaussianNoise",
                "sigma_squared",
                Fraction(1, 2),
                DiscreteGaussianSpec.create("1/2"),
                Fraction(1, 10**6),
            ),
        ),
        Primitive(
            "AddGeometricNoise, alpha < 10 (difference of two _sample_geometric_exp_slow)",
            "discrete Laplace",
            "alpha=1, input 0 (output: input + noise), inputs differ by 1",
            "exact enumeration",
            _exact("AddGeometricNoise", "alpha", Fraction(1), DiscreteLaplaceSpec.create(1), Fraction(1, 10**7)),
        ),
        Primitive(
            "AddLaplaceNoise (random.laplace, inverse CDF in arb)",
            "Laplace",
            "scale=10, inputs 0.0 and 1.0",
            "black box",
            black_box_audit(laplace, laplace.cases[0]),
            randomness="seeded",
        ),
    ]

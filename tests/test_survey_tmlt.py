"""The survey's Tumult Core module: its samplers' numpy Generator replaced by the enumerating source,
exact laws of its own code, and verdicts that could fail."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import RandomSource
from dpverify.specs.noise import DiscreteLaplaceSpec
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._generator_compat import GeneratorCompat, patched_generator
from dpverify.verify.survey import _lib_tmlt
from dpverify.verify.survey._primitive import METHODS, Budget


@pytest.fixture()
def tmlt_core() -> object:
    return pytest.importorskip("tmlt.core")


def test_the_module_declares_tumult_core_pinned_and_three_primitives() -> None:
    assert _lib_tmlt.LIBRARY.name == "tmlt-core" and _lib_tmlt.LIBRARY.module == "tmlt.core"
    assert _lib_tmlt.LIBRARY.requirements == ("tmlt-core==0.20.0",)


def _tmlt_draw(function):
    def run(source: RandomSource):
        with patched_generator("tmlt.core.random.rng", "_core_privacy_prng", source):
            return function()

    return run


def test_tumults_own_uniform_and_bernoulli_are_enumerated_exactly_through_its_generator(tmlt_core: object) -> None:
    from tmlt.core.random import discrete_gaussian, rng

    original = rng._core_privacy_prng
    uniform = enumerate_outputs(_tmlt_draw(lambda: discrete_gaussian._sample_uniform(3)))
    assert dict(uniform.masses) == {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}
    coin = enumerate_outputs(_tmlt_draw(lambda: discrete_gaussian._sample_bernoulli(Fraction(2, 7))))
    assert dict(coin.masses) == {1: Fraction(2, 7), 0: Fraction(5, 7)} and coin.unexplored == 0
    assert rng._core_privacy_prng is original and rng.prng() is original


class _Fixed(RandomSource):
    def randbelow(self, n: int) -> int:
        return min(4, n - 1)


def test_the_patched_generator_is_the_adapter_only_inside_the_block(tmlt_core: object) -> None:
    import numpy as np
    from tmlt.core.random import rng

    with pytest.raises(KeyError), patched_generator(rng, "_core_privacy_prng", _Fixed()) as compat:
        assert isinstance(compat, GeneratorCompat) and int(rng.prng().integers(0, 10)) == 4
        raise KeyError("leave")
    assert isinstance(rng.prng(), np.random.Generator)


def test_geometric_noise_is_within_u_of_the_discrete_laplace_and_not_of_another(tmlt_core: object) -> None:
    right = _lib_tmlt._exact(
        "AddGeometricNoise", "alpha", Fraction(1), DiscreteLaplaceSpec.create(1), Fraction(1, 10**4)
    )(Budget(0, 100, 60))
    assert right.verdict == "proved" and "U = " in right.evidence
    assert Fraction(right.details["check"]["evidence"]["unexplored"]) < Fraction(1, 5)
    wrong = _lib_tmlt._exact(
        "AddGeometricNoise", "alpha", Fraction(1), DiscreteLaplaceSpec.create(2), Fraction(1, 10**4)
    )(Budget(0, 100, 60))
    assert wrong.verdict == "violated"


def test_every_primitive_has_a_known_method() -> None:
    primitives = _lib_tmlt.primitives()
    assert [p.method for p in primitives] == ["exact enumeration", "exact enumeration", "black box"]
    assert all(p.method in METHODS for p in primitives)


def test_the_laplace_black_box_is_never_proved(tmlt_core: object) -> None:
    primitives = _lib_tmlt.primitives()
    finding = primitives[2].audit(Budget(seed=1, samples=2000, time_limit=60))
    assert finding.verdict in ("not refuted", "violated", "inconclusive") and "seed=1" in finding.evidence

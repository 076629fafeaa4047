"""The engine's views of a bound spec (:class:`~dpverify.specs.MechanismSpec`, :class:`~dpverify.specs.NoiseSpec`)
and the sources that stop a run at its first draw or set a sampler's own exception apart.  Their
own module: the checks hand these adapters to the engine, which calls the code through them."""

from __future__ import annotations

from collections.abc import Hashable
from contextlib import suppress
from fractions import Fraction
from typing import Any

from dpverify.samplers import RandomSource
from dpverify.specs import ExactPmf, MechanismSpec, NoiseSpec, PureDpClaim
from dpverify.specs._api import Bisection
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.gate._spec_instance import _BoundSpec

__all__: list[str] = []

suspended_driver(__file__)  # its frames hold one call for a whole execution


class _Mechanism(MechanismSpec):
    """The engine's mechanism view of a bound spec (a noise sampler is the input ``0``)."""

    def __init__(self, instance: _BoundSpec) -> None:
        self.instance = instance
        self.name = instance.spec.name
        self.replay_command = instance.replay

    def inputs(self) -> tuple[Hashable, ...]:
        return self.instance.inputs or (0,)

    def neighbours(self) -> tuple[tuple[Hashable, Hashable], ...]:
        return self.instance._claim_table(self.instance.table())[1]

    def pmf(self, q: Hashable) -> ExactPmf:
        return self.instance.table()[q]

    def ideal_pmf(self, q: Hashable) -> ExactPmf:
        return self.pmf(q)

    def run(self, q: Hashable, rng: RandomSource) -> Hashable:
        output: Hashable = self.instance.run(None if self.instance.inputs is None else q, rng)
        return output

    def claim(self) -> PureDpClaim:
        return PureDpClaim(Fraction(1))

    def parameters(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.instance.p.items()}

    def uniform_draw_size(self) -> int | None:
        if not isinstance(self.instance.enumeration, Bisection):
            return None
        probe = _FirstDraw()
        with suppress(_FirstDraw.Seen):
            self.run(self.inputs()[0], probe)
        return probe.size


class _FirstDraw(RandomSource, trusted=True):
    """Records the size of the first ``randbelow`` and stops the run there."""

    class Seen(BaseException):  # not an Exception: a sampler's own "except Exception" must not swallow it
        pass

    size: int | None = None
    drawn = False

    def randbelow(self, n: int) -> int:
        self.size, self.drawn = n, True
        raise self.Seen

    def bernoulli(self, num: int, den: int) -> bool:
        self.drawn = True
        raise self.Seen


class _Noise(NoiseSpec):
    """The engine's noise view of a bound spec with an ideal PMF."""

    def __init__(self, instance: _BoundSpec) -> None:
        self.instance = instance
        self.name = instance.spec.name

    def run(self, rng: RandomSource) -> Hashable:
        output: Hashable = self.instance.run(None, rng)
        return output

    def ideal_pmf_expr(self) -> Any:
        raise NotImplementedError("a declared spec gives enclosures, not a SymPy expression")

    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[Any, Any]:
        return self.instance._enclosure(None)[0](output, dps)

    def parameters(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.instance.p.items()}

    def outputs_for_check(self) -> tuple[Hashable, ...]:
        return self.instance._enclosure(None)[1]


class _SamplerRaised(Exception):
    """The code under test raised while being sampled (set apart from a check refusing the spec)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class _SampledMechanism(_Mechanism):
    def run(self, q: Hashable, rng: RandomSource) -> Hashable:
        try:
            return super().run(q, rng)
        except Exception as error:  # whatever the code raises is a finding
            raise _SamplerRaised(error) from error


class _SampledNoise(_Noise):
    def run(self, rng: RandomSource) -> Hashable:
        try:
            return super().run(rng)
        except Exception as error:
            raise _SamplerRaised(error) from error

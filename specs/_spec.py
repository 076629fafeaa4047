"""What every mechanism spec provides to the verification engine."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable

from dpverify.samplers import RandomSource
from dpverify.specs._claims import PureDpClaim
from dpverify.specs._pmf import ExactPmf


class MechanismSpec(ABC):
    """A sampler paired with the exact statement of what it samples and what it guarantees.

    Subclasses are frozen dataclasses holding validated, exact parameters.
    """

    name: str

    @abstractmethod
    def inputs(self) -> tuple[Hashable, ...]:
        """The input domain (query answers) the claim quantifies over."""

    @abstractmethod
    def neighbours(self) -> tuple[tuple[Hashable, Hashable], ...]:
        """Unordered neighbouring input pairs ``(q, q')``, ``q != q'``; the claim is symmetric."""

    @abstractmethod
    def pmf(self, q: Hashable) -> ExactPmf:
        """The implementation's exact output PMF for input ``q``, from the spec's closed form."""

    @abstractmethod
    def ideal_pmf(self, q: Hashable) -> ExactPmf:
        """The ideal mechanism's exact PMF the implementation approximates."""

    @abstractmethod
    def run(self, q: Hashable, rng: RandomSource) -> Hashable:
        """Run the production sampler once for input ``q`` with randomness from ``rng``."""

    @abstractmethod
    def claim(self) -> PureDpClaim:
        """The privacy the spec claims for the implementation."""

    @abstractmethod
    def parameters(self) -> dict[str, str]:
        """The parameters as exact strings, for reports and counterexamples."""

    def uniform_draw_size(self) -> int | None:
        """``T`` if the sampler makes exactly one draw ``randbelow(T)`` and its output is
        non-decreasing in it (an inverse transform), else None.  Enables bisection."""
        return None

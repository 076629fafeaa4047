"""The built-in catalogue ``dpverify check`` verifies.

Each entry pairs a spec instance with the privacy verdict it must reach.  An entry that is
expected to be violated documents a known failure mode: the gate fails if the engine stops
finding it, just as it fails if a private instance stops proving.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dpverify.specs import (
    BernoulliExpSpec,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    GtmSpec,
    MechanismSpec,
    NoiseSpec,
    PureDpClaim,
)
from dpverify.specs.grid_laplace import GridLaplaceSpec
from dpverify.verify._results import CheckResult, Verdict, fraction_text


class _SpecEntry:
    """What an entry built around a spec reports about it (a mixin for the entries below)."""

    __slots__ = ()
    spec: MechanismSpec | NoiseSpec

    @property
    def mechanism(self) -> str:
        return self.spec.name

    @property
    def parameters(self) -> dict[str, str]:
        return self.spec.parameters()


@dataclass(frozen=True, slots=True)
class CatalogueEntry(_SpecEntry):
    """A spec instance, the claim checked against it, and the verdict the gate expects."""

    name: str
    spec: MechanismSpec
    expect: Verdict
    why: str
    claim_override: PureDpClaim | None = None
    statistical_inputs: tuple[Hashable, ...] = ()

    def claim(self) -> PureDpClaim:
        return self.spec.claim() if self.claim_override is None else self.claim_override

    def claim_json(self) -> dict[str, Any]:
        alpha = self.claim().alpha
        return {"claim": f"alpha <= P(x|q)/P(x|q') <= 1/alpha with alpha={fraction_text(alpha)}",
                "claim_alpha": fraction_text(alpha)}


@dataclass(frozen=True, slots=True)
class NoiseEntry(_SpecEntry):
    """An exact noise sampler whose code must sample its ideal, irrational PMF.

    The gate proves it with exact intervals from a bounded enumeration of the code (over the
    spec's output range, within ``min_mass``), cross-checks the real sampler statistically,
    recomputes the accounting at ``accounting_epsilons`` (discrete Gaussian: Theorem 7 against
    the direct hockey-stick sum), and reports the draw-count timing channel as a finding.
    """

    name: str
    spec: NoiseSpec
    why: str
    min_mass: Fraction = Fraction(1, 10**6)
    accounting_epsilons: tuple[Fraction, ...] = ()
    expect: Verdict = Verdict.PROVED

    def claim_json(self) -> dict[str, Any]:
        return {"claim": "the code samples the ideal PMF", "claim_alpha": None}


def _theorem_6_2_claim(spec: GtmSpec) -> PureDpClaim:
    return PureDpClaim(spec.theorem_6_2_alpha_prime())


def _gtm_entries() -> tuple[CatalogueEntry, ...]:
    thm71_small = GtmSpec.create("1/3", 4, 4 * 3**4)
    thm71_large = GtmSpec.create("1/10", 12, 11 * 10**12)
    below_support = GtmSpec.create("1/2", 5, 10)
    arbitrary = GtmSpec.create("1/3", 5, 1000)
    huge_half = GtmSpec.create("1/2", 3, 10**100)
    huge_general = GtmSpec.create("2/5", 6, 10**100)
    return (
        CatalogueEntry(
            "gtm/thm7.1/D=3,n=4",
            thm71_small,
            Verdict.PROVED,
            "Theorem 7.1: alpha = 1/D with T = (D+1)*D^n samples gtpmf exactly, so alpha-DP holds",
            statistical_inputs=(0, 2),
        ),
        CatalogueEntry(
            "gtm/thm7.1/D=10,n=12",
            thm71_large,
            Verdict.PROVED,
            "Theorem 7.1 with T = 11*10^12, beyond enumeration: the code's PMF comes from bisection",
            statistical_inputs=(6,),
        ),
        CatalogueEntry(
            "gtm/below-support/T=10",
            below_support,
            Verdict.VIOLATED,
            "T = 10 is below the support bound 96: some output is impossible for q and possible "
            "for q', an infinite privacy loss",
            statistical_inputs=(2,),
        ),
        CatalogueEntry(
            "gtm/arbitrary-T/T=1000",
            arbitrary,
            Verdict.VIOLATED,
            "an arbitrary T rounds the CDF, so the ratio drops below alpha (paper §6)",
            statistical_inputs=(2,),
        ),
        CatalogueEntry(
            "gtm/thm6.2/T=1000",
            arbitrary,
            Verdict.PROVED,
            "the same instance keeps Theorem 6.2's degraded alpha'",
            claim_override=_theorem_6_2_claim(arbitrary),
        ),
        CatalogueEntry(
            "gtm/huge-T/alpha=1/2,T=10^100",
            huge_half,
            Verdict.VIOLATED,
            "even T = 10^100 is not exact for alpha = 1/2 when 3*2^n does not divide T: epsilon "
            "exceeds ln 2 by about 10^-100",
            statistical_inputs=(1,),
        ),
        CatalogueEntry(
            "gtm/thm6.2/alpha=2/5,T=10^100",
            huge_general,
            Verdict.PROVED,
            "Theorem 6.2's alpha' holds for a general alpha with T = 10^100",
            claim_override=_theorem_6_2_claim(huge_general),
        ),
    )


def _noise_entries() -> tuple[NoiseEntry, ...]:
    return (
        NoiseEntry(
            "bernoulli-exp/gamma=5/3",
            BernoulliExpSpec.create("5/3"),
            "CKS20 Algorithm 1 beyond gamma = 1: one Bernoulli(exp(-1)) loop, then the fraction",
            min_mass=Fraction(1, 10**9),
        ),
        NoiseEntry(
            "dlaplace/scale=1",
            DiscreteLaplaceSpec.create(1),
            "CKS20 Algorithm 2, the discrete Laplace with integer scale",
            min_mass=Fraction(1, 10**7),
        ),
        NoiseEntry(
            "dlaplace/scale=3/2",
            DiscreteLaplaceSpec.create("3/2"),
            "CKS20 Algorithm 2 with a non-integer scale t/s = 3/2",
            min_mass=Fraction(1, 10**7),
        ),
        NoiseEntry(
            "dgauss/sigma2=1",
            DiscreteGaussianSpec.create(1),
            "CKS20 Algorithm 3; Theorem 7's delta cross-checked by a hockey-stick sum",
            min_mass=Fraction(1, 10**7),
            accounting_epsilons=(Fraction(1, 2), Fraction(1)),
        ),
        NoiseEntry(
            "dgauss/sigma2=5/2",
            DiscreteGaussianSpec.create("5/2"),
            "CKS20 Algorithm 3 with a non-integer variance",
            min_mass=Fraction(1, 10**7),
            accounting_epsilons=(Fraction(1),),
        ),
    )


@dataclass(frozen=True, slots=True)
class CheckEntry:
    """One standalone check with the verdict it must reach: a proof, or a known attack that
    must keep succeeding."""

    name: str
    mechanism: str
    claim: str
    why: str
    expect: Verdict
    run: Callable[[], CheckResult] = field(compare=False)
    parameters: dict[str, str] = field(default_factory=dict, compare=False)

    def claim_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "claim_alpha": None}


def _finite_precision_entries() -> tuple[CheckEntry | NoiseEntry, ...]:
    # Imported here: these pull in the float samplers and the bit-vector prover, which the
    # rest of the catalogue does not need.
    from dpverify.verify._fixed_point import prove_fixed_point_leak
    from dpverify.verify._float_attack import check_float_laplace
    from dpverify.verify._planar import planar_report

    return (
        CheckEntry(
            "laplace-float/k=16,q=0,q'=1",
            "laplace_float",
            "(|q - q'|/b)-DP, as over the reals",
            "the textbook float Laplace (paper 002) is not private in doubles: every one of its "
            "2^16 - 1 executions is enumerated, and an output of q is impossible from q'",
            Verdict.VIOLATED,
            lambda: check_float_laplace(0.0, 1.0, 1.0, 16),
            {"scale": "1", "q": "0", "q_prime": "1", "bits": "16"},
        ),
        CheckEntry(
            "planar-laplace/k=7",
            "planar_laplace_float",
            "eps*d(a,b)-geo-indistinguishable, as over the reals",
            "the float planar Laplace (paper 000 §6) at 7+7 bits: its two true locations share "
            "no output at all",
            Verdict.VIOLATED,
            lambda: planar_report(k=7).checks()[0],
            {"eps": "1", "a": "(0, 0)", "b": "(1, 0)", "bits": "7"},
        ),
        CheckEntry(
            "fixed-point/example-1.1",
            "fixed_point_laplace",
            "the last n bits of r + z*2^n are those of r, so different low bits give disjoint outputs",
            "paper 000 Example 1.1, proved in 32-bit two's-complement bit-vectors (n = 2)",
            Verdict.PROVED,
            lambda: prove_fixed_point_leak(32, 2),
            {"width": "32", "n": "2"},
        ),
        NoiseEntry(
            "grid-laplace/q=7/10,b=2,L=1/2",
            GridLaplaceSpec.create("7/10", 2, "1/2"),
            "the safe repair: snap to a grid, add exact discrete Laplace noise; its code is proved "
            "against the ideal PMF and its (Delta/b)-DP claim is proved by Z3 for all real inputs",
            min_mass=Fraction(1, 10**6),
        ),
    )


Entry = CatalogueEntry | NoiseEntry | CheckEntry


def builtin_catalogue() -> tuple[Entry, ...]:
    """Every built-in entry, in the order the gate reports them."""
    return (*_gtm_entries(), *_noise_entries(), *_finite_precision_entries())

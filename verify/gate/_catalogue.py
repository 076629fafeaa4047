"""The built-in catalogue ``dpverify check`` verifies, declared through the public spec API.

Each spec lists the parameter sets the gate checks with the verdict each must reach.  A case
expected to be violated documents a known failure mode: the gate fails if the engine stops
finding it, just as it fails if a private instance stops proving.  The catalogue is found like
any user's specs: dpverify's own ``pyproject.toml`` registers :data:`SPECS` under the
``dpverify.specs`` entry-point group.

The closed forms come from the spec classes in :mod:`dpverify.specs` (``GtmSpec``,
``DiscreteLaplaceSpec``, ...), which compute them independently of the samplers; the samplers
are only run.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from dpverify.samplers import (
    bernoulli,
    discrete_gaussian,
    discrete_laplace,
    grid_laplace,
    gtm,
    laplace_float_unsafe,
    planar_laplace_unsafe,
)
from dpverify.specs import (
    BernoulliExpSpec,
    Bisection,
    Bounded,
    Case,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    GridLaplaceSpec,
    GtmSpec,
    Input,
    Integer,
    Params,
    PureDp,
    Rational,
    SamplesPmf,
    Spec,
    Zcdp,
)
from dpverify.specs.gtm import MAX_N as GTM_MAX_N
from dpverify.verify.engine._results import CheckResult
from dpverify.verify.gate._mechanism_specs import MECHANISM_SPECS
from dpverify.verify.gate._parsing_spec import PARSING_SPEC
from dpverify.verify.gate._source_specs import SOURCE_SPECS

__all__ = ["SPECS"]


# --- GTM (Amorim, Gaboardi, Rindisbacher) ------------------------------------------------------


@lru_cache(maxsize=64)
def _gtm(alpha: Fraction, n: int, T: int) -> GtmSpec:
    return GtmSpec.create(alpha, n, T)


def _gtm_of(p: Params) -> GtmSpec:
    return _gtm(p["alpha"], p["n"], p["T"])


def _theorem_6_2(alpha: str, n: int, T: int | str) -> PureDp:
    return PureDp(alpha=GtmSpec.create(alpha, n, T).theorem_6_2_alpha_prime())


def _theorem_7_1_instances() -> Any:
    """Hypothesis: Theorem 7.1's instances ``alpha = 1/D``, ``T = (D+1) * D^n``, where the claim
    ``alpha`` holds exactly."""
    from hypothesis import strategies as st

    return st.builds(
        lambda D, n: {"alpha": Fraction(1, D), "n": n, "T": (D + 1) * D**n}, st.integers(2, 12), st.integers(1, 8)
    )


GTM = Spec(
    name="gtm",
    sampler=gtm.sample,
    parameters={
        "alpha": Rational(0, 1, low_open=True, high_open=True),
        "n": Integer(1, GTM_MAX_N, search=(1, 8)),
        "T": Integer(1, search=(1, 10**6)),
    },
    input=Input("q", values=lambda p: range(p["n"] + 1), neighbours=1),
    claim=lambda p: PureDp(alpha=p["alpha"]),
    pmf=lambda p, q: _gtm_of(p).pmf(q),
    enumeration=Bisection(),
    refuses=({"alpha": 0}, {"alpha": 1}, {"alpha": 0.5}, {"n": 0}, {"q": -1}, {"T": 0}, {"n": GTM_MAX_N + 1, "q": 0}),
    accepts=({"n": GTM_MAX_N, "q": GTM_MAX_N}, {"n": 1, "q": 1}, {"T": 1}),
    draw=_theorem_7_1_instances,
    description="the Geometric Truncated Mechanism by inverse transform from a uniform of size T",
    citation="Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers",
    cases=(
        Case(
            {"alpha": "1/3", "n": 4, "T": 4 * 3**4},
            "proved",
            "Theorem 7.1: alpha = 1/D with T = (D+1)*D^n samples gtpmf exactly, so alpha-DP holds",
            label="thm7.1/D=3,n=4",
            sample_inputs=(0, 2),
        ),
        Case(
            {"alpha": "1/10", "n": 12, "T": 11 * 10**12},
            "proved",
            "Theorem 7.1 with T = 11*10^12, beyond enumeration: the code's PMF comes from bisection",
            label="thm7.1/D=10,n=12",
            sample_inputs=(6,),
        ),
        Case(
            {"alpha": "1/2", "n": 5, "T": 10},
            "violated",
            "T = 10 is below the support bound 96: some output is impossible for q and possible "
            "for q', an infinite privacy loss",
            label="below-support/T=10",
            sample_inputs=(2,),
        ),
        Case(
            {"alpha": "1/3", "n": 5, "T": 1000},
            "violated",
            "an arbitrary T rounds the CDF, so the ratio drops below alpha (paper §6)",
            label="arbitrary-T/T=1000",
            sample_inputs=(2,),
        ),
        Case(
            {"alpha": "1/3", "n": 5, "T": 1000},
            "proved",
            "the same instance keeps Theorem 6.2's degraded alpha'",
            label="thm6.2/T=1000",
            claim=_theorem_6_2("1/3", 5, 1000),
            sample_inputs=(),
        ),
        Case(
            {"alpha": "1/2", "n": 3, "T": "10^100"},
            "violated",
            "even T = 10^100 is not exact for alpha = 1/2 when 3*2^n does not divide T: epsilon "
            "exceeds ln 2 by about 10^-100",
            label="huge-T/alpha=1/2,T=10^100",
            sample_inputs=(1,),
        ),
        Case(
            {"alpha": "1/2", "n": 1, "T": 6},
            "proved",
            "Theorem 7.1 at the smallest n: D = 2, T = 3*2",
            label="thm7.1/D=2,n=1",
            sample_inputs=(),
        ),
        Case(
            {"alpha": "1/2", "n": 2, "T": 1},
            "proved",
            "T = 1: the single draw u = 1 gives output n whatever q is, a constant and so private output",
            label="T=1",
            sample_inputs=(),
        ),
        Case(
            {"alpha": "2/5", "n": 6, "T": "10^100"},
            "proved",
            "Theorem 6.2's alpha' holds for a general alpha with T = 10^100",
            label="thm6.2/alpha=2/5,T=10^100",
            claim=_theorem_6_2("2/5", 6, "10^100"),
            sample_inputs=(),
        ),
    ),
)


# --- CKS20 noise samplers ----------------------------------------------------------------------

#: Every noise entry is proved within this distance of its ideal PMF at every output it lists;
#: the loops the samplers mark are summarised (``Bounded``), which is what makes it reachable.
TOLERANCE = Fraction(1, 10**6)


BERNOULLI = Spec(
    name="bernoulli",
    sampler=bernoulli.bernoulli,
    parameters={"p": Rational(0, 1, search=(0, 1))},
    claim=SamplesPmf(),
    pmf=lambda p: {True: p["p"], False: 1 - p["p"]},
    batch=bernoulli.bernoulli_many,
    refuses=({"p": -1}, {"p": "3/2"}, {"p": 0.5}, {"k": -1}),
    citation="the exact coin every sampler's bernoulli(num, den) draw relies on",
    cases=(
        Case({"p": "2/7"}, "proved", "an exact rational coin: one two-way choice", label="p=2/7"),
        Case({"p": 1}, "proved", "a certain coin needs no randomness and is still exact", label="p=1"),
        Case({"p": 0}, "proved", "the impossible coin is a valid parameter too", label="p=0"),
    ),
)


def _noise_spec(cls: type[DiscreteLaplaceSpec] | type[DiscreteGaussianSpec], key: str) -> Any:
    """The ideal-PMF enclosures and output range of a spec class built from ``p[key]``."""

    def build(p: Params) -> DiscreteLaplaceSpec | DiscreteGaussianSpec:
        return cls.create(p[key], p.get("sensitivity", 1))

    return {
        "ideal": lambda p, output, dps: build(p).ideal_probability(output, dps),
        "outputs": lambda p: build(p).outputs_for_check(),
    }


def _dgauss_accounting(epsilon: Fraction) -> Any:
    def check(p: Params) -> CheckResult:
        from dpverify.verify.privacy._accounting import check_dgauss_accounting

        return check_dgauss_accounting(DiscreteGaussianSpec.create(p["sigma2"], p["sensitivity"]), epsilon)

    check.__name__ = f"theorem_7_accounting_at_epsilon_{epsilon}"
    return check


BERNOULLI_EXP = Spec(
    name="bernoulli-exp",
    sampler=bernoulli.bernoulli_exp,
    parameters={"gamma": Rational(0, search=(0, 4))},
    claim=SamplesPmf(),
    ideal=lambda p, output, dps: BernoulliExpSpec.create(p["gamma"]).ideal_probability(output, dps),
    outputs=lambda p: (False, True),
    enumeration=Bounded(min_mass=Fraction(1, 10**9), max_unexplored=TOLERANCE),
    batch=bernoulli.bernoulli_exp_many,
    refuses=({"gamma": -1}, {"gamma": 0.5}, {"k": -1}),
    timing=True,
    citation="CKS20 Algorithm 1",
    cases=(
        Case(
            {"gamma": "5/3"},
            "proved",
            "CKS20 Algorithm 1 beyond gamma = 1: one Bernoulli(exp(-1)) loop, then the fraction",
            label="gamma=5/3",
        ),
        Case(
            {"gamma": "1/2"}, "proved", "CKS20 Algorithm 1 itself, gamma in [0, 1]", label="gamma=1/2", sample_inputs=()
        ),
        Case({"gamma": 0}, "proved", "gamma = 0: exp(0) = 1, a certain coin", label="gamma=0", sample_inputs=()),
    ),
)

DISCRETE_LAPLACE = Spec(
    name="dlaplace",
    sampler=discrete_laplace.sample,
    parameters={
        "scale": Rational(0, low_open=True, search=(Fraction(1, 2), 4)),
        "sensitivity": Integer(1, search=(1, 3)),
    },
    claim=lambda p: PureDp(epsilon=Fraction(p["sensitivity"]) / p["scale"]),
    sensitivity=lambda p: p["sensitivity"],
    **_noise_spec(DiscreteLaplaceSpec, "scale"),
    enumeration=Bounded(min_mass=Fraction(1, 10**9), max_unexplored=TOLERANCE),
    batch=discrete_laplace.sample_many,
    refuses=({"scale": 0}, {"scale": -1}, {"scale": 0.5}, {"k": -1}),
    timing=True,
    citation="CKS20 Algorithm 2",
    cases=(
        Case(
            {"scale": 1, "sensitivity": 1},
            "proved",
            "CKS20 Algorithm 2, the discrete Laplace with integer scale",
            label="scale=1",
        ),
        Case(
            {"scale": "3/2", "sensitivity": 1},
            "proved",
            "CKS20 Algorithm 2 with a non-integer scale t/s = 3/2",
            label="scale=3/2",
        ),
    ),
)

DISCRETE_GAUSSIAN = Spec(
    name="dgauss",
    sampler=discrete_gaussian.sample,
    parameters={
        "sigma2": Rational(0, low_open=True, search=(Fraction(1, 2), 4)),
        "sensitivity": Integer(1, search=(1, 3)),
    },
    claim=lambda p: Zcdp(rho=Fraction(p["sensitivity"] ** 2) / (2 * p["sigma2"])),
    sensitivity=lambda p: p["sensitivity"],
    **_noise_spec(DiscreteGaussianSpec, "sigma2"),
    enumeration=Bounded(min_mass=Fraction(1, 10**9), max_unexplored=TOLERANCE),
    batch=discrete_gaussian.sample_many,
    refuses=({"sigma2": 0}, {"sigma2": -1}, {"sigma2": 0.5}, {"k": -1}),
    checks=(_dgauss_accounting(Fraction(1, 2)), _dgauss_accounting(Fraction(1))),
    timing=True,
    citation="CKS20 Algorithm 3, Theorems 4 and 7",
    cases=(
        Case(
            {"sigma2": 1, "sensitivity": 1},
            "proved",
            "CKS20 Algorithm 3; Theorem 7's delta cross-checked by a hockey-stick sum",
            label="sigma2=1",
        ),
        Case(
            {"sigma2": "5/2", "sensitivity": 1},
            "proved",
            "CKS20 Algorithm 3 with a non-integer variance",
            label="sigma2=5/2",
        ),
        Case(
            {"sigma2": "1/2", "sensitivity": 1},
            "proved",
            "CKS20 Algorithm 3 below sigma = 1, where t = floor(sigma) + 1 = 1",
            label="sigma2=1/2",
        ),
    ),
)


# --- finite precision (Gazeau, Miller, Palamidessi; Mironov) -------------------------------------


def _grid_spec(p: Params) -> GridLaplaceSpec:
    return GridLaplaceSpec.create(p["q"], p["scale"], p["step"], p["sensitivity"])


def _grid_claim_proof(p: Params) -> CheckResult:
    from dpverify.verify.precision._grid import check_grid_laplace_claim

    return check_grid_laplace_claim(_grid_spec(p))


GRID_LAPLACE = Spec(
    name="grid-laplace",
    sampler=grid_laplace.sample,
    parameters={
        "q": Rational(search=(-3, 3)),
        "scale": Rational(0, low_open=True, search=(1, 4)),
        "step": Rational(0, low_open=True, search=(Fraction(1, 4), 1)),
        "sensitivity": Rational(0, low_open=True, search=(1, 2)),
    },
    claim=lambda p: PureDp(epsilon=_grid_spec(p).claim_epsilon()),
    ideal=lambda p, output, dps: _grid_spec(p).ideal_probability(output, dps),
    outputs=lambda p: _grid_spec(p).outputs_for_check(),
    enumeration=Bounded(min_mass=Fraction(1, 10**9), max_unexplored=TOLERANCE),
    batch=grid_laplace.sample_many,
    refuses=({"scale": 0}, {"step": 0}, {"step": -1}, {"q": 0.5}, {"k": -1}),
    checks=(_grid_claim_proof,),
    timing=True,
    citation="Gazeau, Miller, Palamidessi (the repair); CKS20 Algorithm 2 (the noise)",
    cases=(
        Case(
            {"q": "7/10", "scale": 2, "step": "1/2", "sensitivity": 1},
            "proved",
            "the safe repair: snap to a grid, add exact discrete Laplace noise; its code is proved "
            "against the ideal PMF and its (Delta/b)-DP claim is proved by Z3 for all real inputs",
            label="q=7/10,b=2,L=1/2",
        ),
        Case(
            {"q": "3/4", "scale": 2, "step": "1/2", "sensitivity": 1},
            "proved",
            "an input halfway between two grid points snaps up (q/L = 3/2 goes to 2)",
            label="tie/q=3/4,b=2,L=1/2",
            sample_inputs=(),
        ),
    ),
)


def _float_laplace_attack(p: Params) -> CheckResult:
    from dpverify.verify.precision._float_attack import check_float_laplace

    return check_float_laplace(float(p["q"]), float(p["q_prime"]), float(p["scale"]), p["bits"])


LAPLACE_FLOAT = Spec(
    name="laplace-float",
    # The float sampler takes doubles; the spec's parameters are exact and converted here.
    sampler=lambda q, scale, bits, rng: laplace_float_unsafe.sample_unsafe(float(q), float(scale), rng, bits),
    parameters={"q": Rational(), "q_prime": Rational(), "scale": Rational(0, low_open=True), "bits": Integer(2, 24)},
    claim=lambda p: PureDp(epsilon=abs(p["q"] - p["q_prime"]) / p["scale"]),
    checks=(_float_laplace_attack,),
    citation="paper 002's inverse-CDF Laplace; Mironov 2012",
    description="UNSAFE: the textbook floating-point Laplace, every k-bit draw enumerated",
    cases=(
        Case(
            {"q": 0, "q_prime": 1, "scale": 1, "bits": 16},
            "violated",
            "the textbook float Laplace (paper 002) is not private in doubles: every one of its "
            "2^16 - 1 executions is enumerated, and an output of q is impossible from q'",
            label="k=16,q=0,q'=1",
        ),
    ),
)


def _planar_attack(p: Params) -> CheckResult:
    from dpverify.verify.precision._planar import planar_report

    return planar_report(k=p["bits"]).checks()[0]


PLANAR_LAPLACE = Spec(
    name="planar-laplace",
    sampler=lambda bits, rng: planar_laplace_unsafe.sample_unsafe(0.0, 0.0, 1.0, rng, bits),
    parameters={"bits": Integer(2, 12)},
    claim=PureDp(epsilon=1),
    checks=(_planar_attack,),
    citation="paper 000 §6 (the planar Laplace for geo-indistinguishability)",
    description="UNSAFE: the float planar Laplace at eps = 1 between a = (0, 0) and b = (1, 0)",
    cases=(
        Case(
            {"bits": 7},
            "violated",
            "the float planar Laplace (paper 000 §6) at 7+7 bits: its two true locations share no output at all",
            label="k=7",
        ),
    ),
)


def _fixed_point_proof(p: Params) -> CheckResult:
    from dpverify.verify.precision._fixed_point import prove_fixed_point_leak

    return prove_fixed_point_leak(p["width"], p["n"])


def _fixed_point_instances() -> Any:
    """Hypothesis: ``n < width``, the instances the proof takes (the domains alone allow ``n >= width``)."""
    from hypothesis import strategies as st

    return st.integers(4, 64).flatmap(
        lambda width: st.fixed_dictionaries({"width": st.just(width), "n": st.integers(1, min(16, width - 1))})
    )


FIXED_POINT = Spec(
    name="fixed-point",
    sampler=None,
    parameters={"width": Integer(4, 64), "n": Integer(1, 16)},
    claim=SamplesPmf(),
    checks=(_fixed_point_proof,),
    draw=_fixed_point_instances,
    citation="paper 000 Example 1.1",
    description="the last n bits of r + z*2^n are those of r, so different low bits give disjoint "
    "outputs; modelled in two's-complement bit-vectors inside the proof",
    cases=(
        Case(
            {"width": 32, "n": 2},
            "proved",
            "paper 000 Example 1.1, proved in 32-bit two's-complement bit-vectors (n = 2)",
            label="example-1.1",
        ),
    ),
)

#: Every built-in spec, in the order the gate reports them: what every sampler stands on (its
#: parameters' parsing, its randomness) first, so that a broken foundation fails fast.
SPECS: tuple[Spec, ...] = (
    PARSING_SPEC,
    *SOURCE_SPECS,
    GTM,
    BERNOULLI,
    BERNOULLI_EXP,
    DISCRETE_LAPLACE,
    DISCRETE_GAUSSIAN,
    LAPLACE_FLOAT,
    PLANAR_LAPLACE,
    FIXED_POINT,
    GRID_LAPLACE,
    *MECHANISM_SPECS,
)

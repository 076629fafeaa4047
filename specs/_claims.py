"""Privacy claims: frozen statements a check proves or refutes."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown as _shown


@dataclass(frozen=True, slots=True)
class PureDpClaim:
    """Pure DP in ratio form: for all neighbours ``(q, q')`` and every output ``x``,

    ``alpha <= P(x | q) / P(x | q') <= 1/alpha``, i.e. epsilon-DP with ``epsilon = -ln(alpha)``.
    Written multiplication-only, ``alpha*P(x|q') <= P(x|q)`` in both directions, so a zero
    denominator is covered: ``P(x|q) = 0 < P(x|q')`` violates every ``alpha > 0``.
    """

    alpha: Fraction

    def __post_init__(self) -> None:
        alpha = as_fraction("claim alpha", self.alpha)
        if not 0 < alpha <= 1:
            raise InvalidArgument(f"claim alpha must be a rational in (0, 1]; got claim alpha={_shown(alpha)}.")
        object.__setattr__(self, "alpha", alpha)


# --- the claims a spec declares (the public spec API) ----------------------------------------


@dataclass(frozen=True, slots=True)
class PureDp:
    """Pure epsilon-DP: for all neighbours ``(q, q')`` and every output ``x``,
    ``P(x | q) <= e^epsilon * P(x | q')``.

    Give exactly one of ``alpha`` (the ratio form ``alpha = e^-epsilon``, a rational in (0, 1],
    so the bound is checked in exact arithmetic and by Z3) or ``epsilon`` (a rational >= 0; the
    bound ``e^epsilon`` is then irrational and is compared with certified intervals).

    >>> PureDp(alpha="1/3")
    PureDp(alpha=Fraction(1, 3), epsilon=None)
    >>> PureDp(epsilon=2).epsilon
    Fraction(2, 1)
    """

    alpha: Fraction | int | str | None = None
    epsilon: Fraction | int | str | None = None

    def __post_init__(self) -> None:
        if (self.alpha is None) == (self.epsilon is None):
            raise InvalidArgument(
                "PureDp takes exactly one of alpha or epsilon; "
                f"got alpha={_shown(self.alpha)}, epsilon={_shown(self.epsilon)}."
            )
        if self.alpha is not None:
            # PureDpClaim parses an int or str alpha itself (its field is typed as what it holds after)
            object.__setattr__(self, "alpha", PureDpClaim(self.alpha).alpha)  # type: ignore[arg-type]  # parsed there
        else:
            object.__setattr__(self, "epsilon", _at_least_zero("epsilon", self.epsilon))

    def describe(self) -> str:
        if self.alpha is not None:
            return f"alpha <= P(x|q)/P(x|q') <= 1/alpha with alpha={_shown(self.alpha)}"
        return f"epsilon-DP with epsilon={_shown(self.epsilon)}"


@dataclass(frozen=True, slots=True)
class ApproxDp:
    """``(epsilon, delta)``-DP: for all neighbours ``(q, q')`` and every set ``S`` of outputs,
    ``P(S | q) <= e^epsilon * P(S | q') + delta``; equivalently the hockey-stick divergence
    ``sum_x max(0, P(x|q) - e^epsilon P(x|q'))`` is at most ``delta``.

    >>> ApproxDp(epsilon=1, delta="1/10^6").delta
    Fraction(1, 1000000)
    """

    epsilon: Fraction | int | str
    delta: Fraction | int | str

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _at_least_zero("epsilon", self.epsilon))
        delta = as_fraction("delta", self.delta)
        if not 0 <= delta < 1:
            raise InvalidArgument(
                f'delta must be a rational in [0, 1); got delta={_shown(delta)}. Pass it as "num/den".'
            )
        object.__setattr__(self, "delta", delta)

    def describe(self) -> str:
        return f"(epsilon, delta)-DP with epsilon={_shown(self.epsilon)}, delta={_shown(self.delta)}"


@dataclass(frozen=True, slots=True)
class Zcdp:
    """``rho``-zero-concentrated DP (Bun–Steinke 2016): for all neighbours and every Rényi order
    ``a > 1``, ``D_a(P(.|q) || P(.|q')) <= rho * a``.

    >>> Zcdp(rho="1/2")
    Zcdp(rho=Fraction(1, 2))
    """

    rho: Fraction | int | str

    def __post_init__(self) -> None:
        rho = as_fraction("rho", self.rho)
        if rho <= 0:
            raise InvalidArgument(f'rho must be a rational > 0; got rho={_shown(rho)}. Pass it as "num/den".')
        object.__setattr__(self, "rho", rho)

    def describe(self) -> str:
        return f"rho-zCDP with rho={_shown(self.rho)}"


@dataclass(frozen=True, slots=True)
class SamplesPmf:
    """No privacy claim: the claim is only that the code samples the spec's PMF (exact, or
    ideal within certified enclosures).  For building blocks such as a Bernoulli sampler.

    >>> SamplesPmf().describe()
    'the code samples the declared PMF'
    """

    def describe(self) -> str:
        return "the code samples the declared PMF"


Claim = PureDp | ApproxDp | Zcdp | SamplesPmf

#: Every claim type a spec may declare.
CLAIM_TYPES: tuple[type[PureDp], type[ApproxDp], type[Zcdp], type[SamplesPmf]] = (PureDp, ApproxDp, Zcdp, SamplesPmf)


def _at_least_zero(name: str, value: object) -> Fraction:
    number = as_fraction(name, value)
    if number < 0:
        raise InvalidArgument(f'{name} must be a rational >= 0; got {name}={_shown(number)}. Pass it as "num/den".')
    return number

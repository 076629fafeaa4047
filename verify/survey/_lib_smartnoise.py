"""SmartNoise SQL (``snsql``): the noise its private reader adds, from its ``sql._mechanisms`` package.

- ``Laplace.release`` and ``Gaussian.release``: a float measurement of OpenDP (``make_laplace``,
  ``make_gaussian`` on ``atom_domain(T=float)``, OpenDP 0.14), its scale found by OpenDP's
  ``binary_search_param`` for the user's epsilon (and delta, through zCDP) over a clamped sum with
  bounds ``[0, sensitivity]``.  Rust code drawing from the operating system: black boxes, each
  with inputs ``0.0`` and ``1.0`` (sensitivity 1) against the user's own claim: ``epsilon``-DP,
  and ``(epsilon, delta)``-DP.  The black-box distribution test needs a law over listed outputs,
  which a continuous law has not, so only the privacy test runs.
- ``dpsu.policy_laplace``: the differentially private set union (Gopi et al. 2020) that the reader
  runs before a histogram query (with ``epsilon = 1``, ``delta = exp(-10)``, ``max_contrib = 5``).  What
  it releases is the set of keys kept: a key whose weight ``w`` (one per user holding only that key,
  capped at ``gamma``) plus ``rand.laplace(0, 1/epsilon, 1)[0]`` exceeds ``rho``.  The noisy weight itself
  is never released, so it is not audited.  The noise is ``loc - scale * copysign(log(1 - 2|u|), u)``
  for ``u = uniform(-0.5, 0.5) = random() - 1/2`` over a module-level ``random.SystemRandom``, whose
  ``random()`` is ``j / 2^53``: the noise is non-increasing in ``j`` where ``log`` is non-decreasing
  (assumption L), so the key is kept exactly for ``j = 1 .. J_n`` with ``n`` users, and
  :func:`~dpverify.verify.engine._bisect.last_where` finds ``J_n`` among the ``2^53`` draws, checking the
  shape at every draw it reads.  The law of the released bit is then exact at full precision, for
  ``n = 0, 1, 2, ...`` users until the weight is capped, and the claim ``(epsilon, delta)`` is checked
  exactly on every neighbouring pair ``(n, n + 1)``.  At ``j = 0`` (probability ``2^-53``) the code
  takes ``log(0)`` and raises ``ValueError`` when the key is present, and never when it is absent: a
  crash, not a release, reported beside the verdict with the delta it would need if it were observed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable
from fractions import Fraction
from typing import Any, cast

from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.verify.survey._primitive import (
    Finding,
    Library,
    Primitive,
    black_box_audit,
)

__all__ = [
    "LIBRARY",
    "SMARTNOISE_GAUSSIAN",
    "SMARTNOISE_LAPLACE",
    "dpsu_release_finding",
    "primitives",
]

LIBRARY = Library(
    name="smartnoise-sql",
    module="snsql",
    requirements=("smartnoise-sql==1.0.10",),
    about="OpenDP's SQL layer; its reader adds OpenDP's float Laplace and Gaussian, and its set union a float Laplace "
    "of its own",
)

#: The precision of ``random()`` the set union's Laplace is enumerated at: ``2**k`` executions per input.
DPSU_BITS = 16

_NEIGHBOURS = Input("x", values=lambda p: (0, 1), neighbours=1)


@functools.lru_cache(maxsize=8)
def _mechanism(kind: str, epsilon: Fraction, delta: Fraction) -> Any:
    from snsql.sql._mechanisms import Gaussian, Laplace

    # the library takes doubles; the cases' epsilons are exact in them, delta is the nearest double
    if kind == "laplace":
        return Laplace(float(epsilon), sensitivity=1)
    return Gaussian(float(epsilon), delta=float(delta), sensitivity=1)


def smartnoise_laplace(x: int, epsilon: Fraction) -> float:
    """One ``Laplace(epsilon, sensitivity=1).release([x])`` of SmartNoise SQL."""
    return cast(float, _mechanism("laplace", epsilon, Fraction(0)).release([float(x)])[0])  # snsql is untyped


def smartnoise_gaussian(x: int, epsilon: Fraction, delta: Fraction) -> float:
    """One ``Gaussian(epsilon, delta=delta, sensitivity=1).release([x])`` of SmartNoise SQL."""
    return cast(float, _mechanism("gaussian", epsilon, delta).release([float(x)])[0])  # snsql is untyped


_EPSILON = Rational(0, low_open=True, search=(Fraction(1, 4), 4))

SMARTNOISE_LAPLACE = Spec(
    name="smartnoise-laplace",
    sampler=smartnoise_laplace,
    parameters={"epsilon": _EPSILON},
    input=_NEIGHBOURS,
    claim=lambda p: PureDp(epsilon=p["epsilon"]),
    randomness="none",
    description="SmartNoise SQL's Laplace mechanism (OpenDP make_laplace on floats)",
    citation="smartnoise-sql 1.0.10, snsql.sql._mechanisms.laplace.Laplace.release",
    cases=(Case({"epsilon": 1}, "proved", "OpenDP samples the Laplace exactly and rounds once", label="epsilon=1"),),
)

SMARTNOISE_GAUSSIAN = Spec(
    name="smartnoise-gaussian",
    sampler=smartnoise_gaussian,
    parameters={"epsilon": _EPSILON, "delta": Rational(0, 1, low_open=True, high_open=True)},
    input=_NEIGHBOURS,
    claim=lambda p: ApproxDp(epsilon=p["epsilon"], delta=p["delta"]),
    randomness="none",
    description="SmartNoise SQL's Gaussian mechanism (OpenDP make_gaussian on floats)",
    citation="smartnoise-sql 1.0.10, snsql.sql._mechanisms.gaussian.Gaussian.release",
    cases=(
        Case(
            {"epsilon": 1, "delta": "1/100000"},
            "proved",
            "OpenDP samples the Gaussian exactly and rounds once",
            label="epsilon=1, delta=1/100000",
        ),
    ),
)


#: The set union as the reader runs it (``snsql/sql/private_reader.py``, ``run_dpsu``'s defaults).
DPSU_EPSILON, DPSU_MAX_CONTRIB = 1.0, 5
_DRAWS = 1 << 53


class _OneDraw:
    """Stands in for the module's ``random.SystemRandom``: ``random()`` is ``j / 2^53``, once."""

    def __init__(self, j: int) -> None:
        self.j, self.draws = j, 0

    def random(self) -> float:
        self.draws += 1
        return self.j / _DRAWS

    def uniform(self, a: float, b: float) -> float:  # random.Random.uniform, on this random()
        return a + (b - a) * self.random()


def _kept(users: int, j: int) -> bool | str:
    """Whether ``policy_laplace`` keeps the key held by ``users`` users when ``random()`` is ``j / 2^53``
    (``"raised ValueError"`` when the call raises)."""
    import pandas as pd  # type: ignore[import-untyped]  # snsql's dependency, untyped
    from snsql.sql import dpsu
    from snsql.sql._mechanisms import rand

    source, saved = _OneDraw(j), rand.sys_rand
    frame = pd.DataFrame({"user_id": list(range(users)), "group_cols": [("A",)] * users})
    rand.sys_rand = source
    try:
        kept = len(dpsu.policy_laplace(frame, DPSU_EPSILON, math.exp(-10), DPSU_MAX_CONTRIB)) > 0
    except ValueError:  # log(0) at j = 0
        return "raised ValueError"
    finally:
        rand.sys_rand = saved
    if source.draws != (1 if users else 0):
        raise AssertionError(f"policy_laplace read {source.draws} draws with {users} users, not one per key")
    return kept


def _is_kept(users: int, j: int) -> bool:
    return _kept(users, j) is True


def dpsu_release_finding() -> Finding:
    """The exact law, at 53 bits, of whether ``dpsu.policy_laplace`` releases a key held by ``n`` users,
    for every ``n`` up to the weight cap, against its ``(epsilon, delta)`` on each pair ``(n, n + 1)``."""
    from dpverify.verify.engine._bisect import last_where
    from dpverify.verify.survey._magnitude import exact_magnitude

    epsilon, delta = Fraction(DPSU_EPSILON), Fraction(math.exp(-10))
    rho = max(1 / i + math.log(1 / (2 * (1 - (1 - math.exp(-10)) ** (1 / i)))) for i in range(1, DPSU_MAX_CONTRIB + 1))
    most = math.ceil(rho + 3 / DPSU_EPSILON) + 1  # gamma = rho + alpha / epsilon caps the weight
    laws: list[dict[Hashable, Fraction]] = [{"kept": Fraction(0), "not kept": Fraction(1)}]
    crash = Fraction(1, _DRAWS)
    for users in range(1, most + 1):
        if _kept(users, 0) != "raised ValueError":
            return Finding("inconclusive", f"policy_laplace did not raise at random() = 0 with {users} users")
        last = last_where(functools.partial(_is_kept, users), 1, _DRAWS - 1)
        kept = Fraction(last, _DRAWS)
        laws.append({"kept": kept, "not kept": 1 - kept - crash, "raised ValueError": crash})
    released = [{o: m for o, m in law.items() if o != "raised ValueError"} for law in laws]
    pairs = list(zip(released, released[1:], strict=False))
    magnitude = exact_magnitude(pairs, epsilon, delta)
    with_crash = exact_magnitude(list(zip(laws, laws[1:], strict=False)), epsilon, delta)
    holds = Fraction(magnitude["delta_at_claimed_epsilon_high"]) <= delta
    details: dict[str, Any] = {
        "bits": 53,
        "epsilon": str(epsilon),
        "delta": str(delta),
        "max_contrib": DPSU_MAX_CONTRIB,
        "kept": {str(n): str(law["kept"]) for n, law in enumerate(laws)},
        "assumption": "math.log non-decreasing (assumption L), checked at every draw the bisection reads",
        "magnitude": magnitude,
        "if_the_crash_were_observed": with_crash,
    }
    verdict = "proved" if holds else "violated"
    kept_one = laws[1]["kept"]
    needed = float(Fraction(magnitude["delta_at_claimed_epsilon_high"]))
    needed_with_crash = float(Fraction(with_crash["delta_at_claimed_epsilon_high"]))
    evidence = (
        f"the released set's law at 53 bits (bisection under assumption L), n = 0..{most} users of one key: "
        f"kept with probability {kept_one} = {float(kept_one):.12g} at n = 1 (0 at n = 0); "
        f"delta needed at epsilon = 1 over all pairs: {needed:.12g} "
        f"{'<=' if holds else '>'} claimed delta = {float(delta):.12g} (the double exp(-10)); "
        f"hazard: the call raises ValueError with probability 2^-53 when the key is present and never when absent; "
        f"counted as an output it would need delta = {needed_with_crash:.12g}"
    )
    return Finding(verdict, evidence, details)


def primitives() -> list[Primitive]:
    return [
        Primitive(
            "sql._mechanisms.Laplace.release",
            "Laplace",
            "epsilon=1, sensitivity=1 (OpenDP make_laplace on floats), inputs 0.0 and 1.0; claim 1-DP",
            "black box",
            black_box_audit(SMARTNOISE_LAPLACE, SMARTNOISE_LAPLACE.cases[0]),
        ),
        Primitive(
            "sql._mechanisms.Gaussian.release",
            "Gaussian",
            "epsilon=1, delta=1/100000, sensitivity=1 (OpenDP make_gaussian on floats), inputs 0.0 and 1.0; "
            "claim (1, 1/100000)-DP",
            "black box",
            black_box_audit(SMARTNOISE_GAUSSIAN, SMARTNOISE_GAUSSIAN.cases[0]),
        ),
        Primitive(
            "dpsu.policy_laplace (the released set of keys)",
            "Laplace (one bit per key)",
            f"epsilon={DPSU_EPSILON:g}, delta=exp(-10), max_contrib={DPSU_MAX_CONTRIB} (the reader's set union), "
            "one key held by n and n + 1 users",
            "exact at k bits",
            lambda budget: dpsu_release_finding(),
        ),
    ]

"""Cross-check: dpverify's certified bounds beside three accountant libraries, as a Markdown table.

For each instance dpverify gives a certified interval ``[low, high]`` that holds the exact value,
and each library's number is judged by what that library itself claims for it:

* ``upper``: a bound the library states is at or above the truth (an RDP conversion, a pessimistic
  PLD): consistent when ``>= low``;
* ``lower``: stated at or below the truth (dp-accounting's optimistic PLD): consistent when ``<= high``;
* ``interval``: ``[lower, upper]`` stated to hold the truth (prv-accountant's ``eps_lower`` and
  ``eps_upper``): consistent when it meets ``[low, high]``;
* ``estimate``: no direction stated, an error ``e`` stated or taken (autodp's numerical routines):
  consistent when within ``e`` of ``[low, high]``.

Every comparison allows :data:`FLOAT` for the library's binary64 arithmetic (relative on a delta).
A value that fails is a finding: the bench prints both numbers, and exits 1 on one that is not in
:data:`KNOWN_FINDINGS`.

The instances, each queried for ``eps(delta)`` or for ``delta(eps)`` (sensitivity 1 throughout; the
pairs are symmetric, so one ordering suffices):

* **Gaussian, ``k``-fold.**  ``N(0, s2)^k`` against ``N(1, s2)^k`` has the privacy
  loss of the one pair ``N(0, s2/k)``, ``N(1, s2/k)`` (the likelihood ratio depends on the sum of
  the coordinates only), whose ``delta(eps)`` is Balle and Wang's (2018, Theorem 8) closed form,
  enclosed by :func:`dpverify.verify.reports.reproduce._cks20.continuous_delta`; ``eps(delta)`` is
  bracketed by bisection on rationals with certified signs.  Beside it, dpverify's CKS20 conversion
  of ``rho = k/(2 s2)`` (an upper bound, :func:`dpverify.specs.zcdp_epsilon` / ``zcdp_delta``).
* **Laplace, ``k``-fold.**  Scale ``b = 1/eps`` with ``eps = m ln s`` (``s > 1``
  rational) so that the cells ``[z/m, (z+1)/m)`` of the output have rational masses under both
  inputs (``P(X >= z/m) = s^-z / 2``).  Reporting only the cell (post-processing) cannot raise
  ``delta``: the exact PLD of that finite pair gives a certified *lower* bound.  Moving each cell's
  losses, which lie in ``((m-2z-2) ln s, (m-2z) ln s]``, up to the cell's top gives a stochastically
  larger loss, and ``(1 - e^(eps - L))^+`` is non-decreasing in ``L``, so the same PLD with those
  losses (the rest of ``Q`` on an output where ``P = 0``) is a certified *upper* bound, also after
  ``k``-fold composition; so is its PLD with the mass above every loss, summed from the top,
  rounded up to a multiple of ``2^-64`` (mass only moves up), which keeps the integers of a fine
  ``k``-fold small.  Both are exact PLDs (:class:`dpverify.verify.PrivacyLossDistribution`); the
  lower one uses ``m/r`` cells of base ``s^r``, the upper one ``m`` cells of base ``s``.
  Beside them, the optimal composition bound for any ``eps``-DP step (KOV, ``dpverify account``).
* **RDP curves.**  The Gaussian's Renyi divergence at order ``a`` is ``a/(2 s2)`` exactly; the
  Laplace's is Mironov's closed form (2017, Proposition 6), enclosed with ``mpmath.iv`` and itself
  checked between the Renyi divergences of the two cell pairs (exact rationals inside the log).

Not compared: the subsampled Gaussian (dpverify has no accountant for subsampling).

Usage: ``python bench/bench_accountants_crosscheck.py [--quick]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import metadata
from typing import Any

import mpmath
from mpmath import iv

from dpverify.specs import kov_composition, kov_delta, zcdp_delta, zcdp_epsilon
from dpverify.specs._enclosure import enclose, iv_rational
from dpverify.specs._interval_tools import mpf_compare, mpf_fraction
from dpverify.verify import PrivacyLossDistribution
from dpverify.verify.reports.reproduce._cks20 import continuous_delta

#: Slack for a library's binary64 arithmetic: absolute on epsilon, relative on delta and RDP.
FLOAT = 1e-9
#: dp-accounting's PLD discretisation interval.
PLD_INTERVAL = 1e-4
#: prv-accountant's requested errors: epsilon, and delta for delta queries (delta/1000 for epsilon queries).
PRV_EPS_ERROR = 1e-2
PRV_DELTA_ERROR = 1e-10
#: autodp states no error: its AFA is taken to its own search tolerance (``tol=1e-2``, on delta), its
#: analytic Gaussian (a scalar root to ``xtol=2e-12``) to 1e-8; absolute on epsilon, relative on delta.
AUTODP_AFA_ERROR = 1e-2
AUTODP_ERROR = 1e-8


# --- dpverify's certified values --------------------------------------------------------------------------


def gaussian_delta(sigma2: Fraction, k: int, eps: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Enclosure of the exact ``delta(eps)`` of the k-fold Gaussian (one Gaussian of variance s2/k)."""
    return continuous_delta(sigma2 / k, eps, dps=20)


def gaussian_epsilon(
    sigma2: Fraction, k: int, delta: Fraction, rel: Fraction = Fraction(1, 10**10)
) -> tuple[Fraction, Fraction]:
    """``[low, high]`` holding the exact ``eps(delta)``: ``delta(high) <= delta`` and
    ``delta(low) > delta`` (or ``low = 0``) both certified; ``delta(eps)`` is decreasing."""
    if mpf_compare(gaussian_delta(sigma2, k, Fraction(0))[1], delta) <= 0:
        return Fraction(0), Fraction(0)
    low, high = Fraction(0), Fraction(1)
    while True:
        below, above = gaussian_delta(sigma2, k, high)
        if mpf_compare(above, delta) <= 0:
            break
        if mpf_compare(below, delta) > 0:
            low = high
        high *= 2
    while high - low > high * rel:
        middle = (low + high) / 2
        short = Fraction(round(middle * 10**15), 10**15)  # short rationals keep each enclosure cheap
        middle = short if low < short < high else middle
        below, above = gaussian_delta(sigma2, k, middle)
        if mpf_compare(above, delta) <= 0:
            high = middle
        elif mpf_compare(below, delta) > 0:
            low = middle
        else:
            break  # the enclosure straddles delta: as narrow as 20 digits allow
    return low, high


def laplace_pairs(s: Fraction, m: int) -> tuple[tuple[dict, dict], tuple[dict, dict]]:
    """``((P, Q), (P, Q_up))``: Laplace of scale ``1/(m ln s)`` at 0 and at 1, seen through the
    cells ``x < 0``, ``[z/m, (z+1)/m)`` for ``z < m``, ``x >= 1``; then the pair whose cell losses
    are moved up to each cell's top ``(m - 2z) ln s`` (the rest of ``Q`` on ``"slack"``)."""
    t = 1 / s
    P = {"left": Fraction(1, 2), "right": t**m / 2}
    Q = {"left": t**m / 2, "right": Fraction(1, 2)}
    for z in range(m):
        P[z] = t**z * (1 - t) / 2
        Q[z] = t ** (m - 1 - z) * (1 - t) / 2
    up = dict(Q)
    for z in range(m):
        up[z] = P[z] * t ** (m - 2 * z)
    up["slack"] = 1 - sum(up.values())
    return (P, Q), (P, up)


def rounded_up(P: dict, Q: dict, bits: int = 64) -> tuple[dict, dict]:
    """A pair whose PLD dominates ``(P, Q)``'s with masses that are multiples of ``2^-bits``: the
    mass of losses above every threshold, summed from the top, rounded up (so mass only moves to
    higher losses), each loss kept (``Q = P / ratio``); moving mass up lowers ``Q``, whose rest goes
    on ``"slack"``.  Short masses keep a ``k``-fold's exact integers small."""
    order = sorted((y for y in P if P[y]), key=lambda y: P[y] / Q[y], reverse=True)
    unit, total, previous = Fraction(1, 2**bits), Fraction(0), Fraction(0)
    P_up: dict = {}
    Q_up: dict = {}
    for y in order:
        total += P[y]
        cumulative = min(-(-total // unit) * unit, Fraction(1))
        P_up[y], previous = cumulative - previous, cumulative
        Q_up[y] = P_up[y] * Q[y] / P[y]
    Q_up["slack"] = 1 - sum(Q_up.values())
    assert Q_up["slack"] >= 0 and sum(P_up.values()) == 1
    return P_up, Q_up


@cache
def laplace_plds(v: Fraction, m: int, r: int, k: int) -> tuple[PrivacyLossDistribution, PrivacyLossDistribution]:
    """The k-fold PLDs below and above the Laplace's of ``1/b = m ln v``: the exact post-processed
    pair of ``m/r`` cells (base ``v^r``), and the dominating pair of ``m`` cells with its masses
    rounded up (:func:`rounded_up`)."""
    assert m % r == 0, f"r={r} must divide m={m}"
    (P, Q), _ = laplace_pairs(v**r, m // r)
    _, (P_top, Q_top) = laplace_pairs(v, m)
    P_up, Q_up = rounded_up(P_top, Q_top)
    below = PrivacyLossDistribution.from_pmfs(P, Q, method="exact").self_compose(k)
    above = PrivacyLossDistribution.from_pmfs(P_up, Q_up, method="exact").self_compose(k)
    return below, above


def laplace_bracket(v: Fraction, m: int, r: int, k: int, query: str, at: Fraction) -> tuple[Fraction, Fraction]:
    """``[low, high]`` holding the k-fold Laplace's exact ``eps(at)`` or ``delta(at)``."""
    below, above = laplace_plds(v, m, r, k)
    low, high = (below.epsilon(at), above.epsilon(at)) if query == "epsilon" else (below.delta(at), above.delta(at))
    assert low.low is not None and high.high is not None
    return low.low, high.high


def gaussian_rdp(sigma2: Fraction, order: int) -> Fraction:
    """The Gaussian's Renyi divergence ``a/(2 s2)`` of order ``a`` (exact)."""
    return Fraction(order) / (2 * sigma2)


def laplace_rdp(s: Fraction, m: int, order: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Mironov 2017 Proposition 6 at ``1/b = e = m ln s``:
    ``(1/(a-1)) ln(a/(2a-1) e^((a-1)e) + (a-1)/(2a-1) e^(-a e))``, enclosed."""
    a = order

    def compute() -> iv.mpf:
        e = m * iv.log(iv_rational(s))
        inner = iv.mpf(a) / (2 * a - 1) * iv.exp((a - 1) * e) + iv.mpf(a - 1) / (2 * a - 1) * iv.exp(-a * e)
        return iv.log(inner) / (a - 1)

    return enclose(compute, 20)


# --- the libraries ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Value:
    """One library's number and what the library says it is: ``upper``, ``lower``, ``interval``
    (``value`` its estimate, ``low``/``high`` its stated bounds) or ``estimate`` (within ``error``)."""

    library: str
    method: str
    kind: str
    value: float
    low: float | None = None
    high: float | None = None
    error: float = 0.0

    def consistent(self, low: Fraction, high: Fraction, relative: bool = False) -> bool:
        """Whether this agrees with the certified ``[low, high]``, given what is claimed for it;
        ``relative``: the float slack and an estimate's ``error`` scale with the value (deltas, RDP)."""
        scale = float(high) if relative else 1.0
        slack, error = FLOAT * scale, self.error * scale
        lo, hi = float(low) - slack, float(high) + slack
        if self.kind == "upper":
            return self.value >= lo
        if self.kind == "lower":
            return self.value <= hi
        if self.kind == "interval":
            assert self.low is not None and self.high is not None
            return self.low <= hi and self.high >= lo
        if self.kind == "estimate":
            return lo - error <= self.value <= hi + error
        raise AssertionError(f"unknown kind {self.kind}")

    def text(self) -> str:
        if self.kind == "interval":
            return f"[{self.low:.7g}, {self.high:.7g}] (est. {self.value:.7g})"
        return f"{self.value:.7g}" + (f" ± {self.error:.1g}" if self.kind == "estimate" else "")


def _value(library: str, method: str, kind: str, run: Callable[[], Any], error: float = 0.0) -> Value:
    found = run()
    if isinstance(found, tuple):  # (lower, estimate, upper)
        return Value(library, method, kind, float(found[1]), float(found[0]), float(found[2]))
    return Value(library, method, kind, float(found), error=error)


def dp_accounting_values(instance: Instance) -> list[Value]:
    """dp-accounting: its optimistic and pessimistic PLDs (a lower and an upper bound, at most ``k``
    discretisation steps apart) and its RDP accountant (an upper bound)."""
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    gaussian, at = instance.mechanism == "gaussian", float(instance.at)
    make = pld.from_gaussian_mechanism if gaussian else pld.from_laplace_mechanism

    def run_pld(pessimistic: bool) -> float:
        one = make(
            instance.scale,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=PLD_INTERVAL,
            use_connect_dots=pessimistic,
        )
        composed = one.self_compose(instance.k)
        return composed.get_epsilon_for_delta(at) if instance.query == "epsilon" else composed.get_delta_for_epsilon(at)

    def run_rdp() -> float:
        accountant = rdp.RdpAccountant()
        event = dp_accounting.GaussianDpEvent if gaussian else dp_accounting.LaplaceDpEvent
        accountant.compose(event(instance.scale), instance.k)
        return accountant.get_epsilon(at) if instance.query == "epsilon" else accountant.get_delta(at)

    return [
        _value("dp-accounting", "PLD optimistic", "lower", lambda: run_pld(False)),
        _value("dp-accounting", "PLD pessimistic", "upper", lambda: run_pld(True)),
        _value("dp-accounting", "RDP", "upper", run_rdp),
    ]


def prv_values(instance: Instance) -> list[Value]:
    """prv-accountant: ``lower <= truth <= upper`` as Gopi, Lee, Wutschitz (NeurIPS 2021) state."""
    import prv_accountant

    prv = (
        prv_accountant.GaussianMechanism(noise_multiplier=instance.scale)
        if instance.mechanism == "gaussian"
        else prv_accountant.LaplaceMechanism(mu=1 / instance.scale)
    )
    delta_error = float(instance.at) / 1000 if instance.query == "epsilon" else PRV_DELTA_ERROR

    def run() -> tuple[float, float, float]:
        accountant = prv_accountant.PRVAccountant(
            prvs=[prv], max_self_compositions=[instance.k], eps_error=PRV_EPS_ERROR, delta_error=delta_error
        )
        if instance.query == "epsilon":
            return accountant.compute_epsilon(delta=float(instance.at), num_self_compositions=[instance.k])
        return accountant.compute_delta(epsilon=float(instance.at), num_self_compositions=[instance.k])

    return [_value("prv-accountant", "PRV", "interval", run)]


def autodp_values(instance: Instance) -> list[Value]:
    """autodp: its RDP composition's conversion (an upper bound); its characteristic-function
    accountant (AFA, Zhu, Dong, Wang, AISTATS 2022: no error stated, :data:`AUTODP_AFA_ERROR`
    taken); for the Gaussian the exact composition with the analytic Gaussian's ``eps(delta)`` or
    ``delta(eps)`` (a scalar root, :data:`AUTODP_ERROR`)."""
    from autodp import dp_bank, mechanism_zoo, transformer_zoo

    gaussian, at, k, scale = instance.mechanism == "gaussian", float(instance.at), instance.k, instance.scale

    def query(mechanism: Any) -> float:
        with contextlib.redirect_stdout(io.StringIO()):  # the AFA prints every step of its search
            return mechanism.get_approxDP(at) if instance.query == "epsilon" else mechanism.get_approx_delta(at)

    def run_rdp() -> float:
        one = mechanism_zoo.GaussianMechanism(scale) if gaussian else mechanism_zoo.LaplaceMechanism(scale)
        return query(transformer_zoo.Composition()([one], [k]))

    def run_afa() -> float:
        one = (
            mechanism_zoo.GaussianMechanism(scale, phi_off=False, RDP_off=True, approxDP_off=True)
            if gaussian
            else mechanism_zoo.LaplaceMechanism(scale, phi_off=False, RDP_off=True)
        )
        return query(transformer_zoo.ComposeAFA()([one], [k]))

    def run_exact() -> float:
        if instance.query == "epsilon":
            return query(transformer_zoo.ComposeGaussian()([mechanism_zoo.ExactGaussianMechanism(scale)], [k]))
        return math.exp(dp_bank.get_logdelta_ana_gaussian(scale / math.sqrt(k), at))  # ComposeGaussian's sigma

    values = [_value("autodp", "RDP", "upper", run_rdp), _value("autodp", "AFA", "estimate", run_afa, AUTODP_AFA_ERROR)]
    if gaussian:
        values.append(_value("autodp", "exact Gaussian", "estimate", run_exact, AUTODP_ERROR))
    return values


LIBRARIES: dict[str, Callable[[Instance], list[Value]]] = {
    "dp-accounting": dp_accounting_values,
    "prv-accountant": prv_values,
    "autodp": autodp_values,
}


def dp_accounting_rdp(mechanism: str, scale: float, orders: list[int]) -> list[float]:
    """dp-accounting's RDP curve: its accountant's per-order values after one event (``_rdp``, the
    only place it exposes them)."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    accountant = rdp.RdpAccountant(orders=[float(a) for a in orders])
    event = dp_accounting.GaussianDpEvent if mechanism == "gaussian" else dp_accounting.LaplaceDpEvent
    accountant.compose(event(scale), 1)
    return [float(x) for x in accountant._rdp]


def prv_rdp(mechanism: str, scale: float, orders: list[int]) -> list[float]:
    """prv-accountant's ``rdp(alpha)`` of its privacy random variable."""
    import prv_accountant

    prv = (
        prv_accountant.GaussianMechanism(noise_multiplier=scale)
        if mechanism == "gaussian"
        else prv_accountant.LaplaceMechanism(mu=1 / scale)
    )
    return [float(prv.rdp(a)) for a in orders]


def autodp_rdp(mechanism: str, scale: float, orders: list[int]) -> list[float]:
    """autodp's ``rdp_bank`` closed forms."""
    from autodp import rdp_bank

    if mechanism == "gaussian":
        return [float(rdp_bank.RDP_gaussian({"sigma": scale}, a)) for a in orders]
    return [float(rdp_bank.RDP_laplace({"b": scale}, a)) for a in orders]


RDP_LIBRARIES: dict[str, Callable[[str, float, list[int]], list[float]]] = {
    "dp-accounting": dp_accounting_rdp,
    "prv-accountant": prv_rdp,
    "autodp": autodp_rdp,
}

#: Disagreements beyond the stated errors found with these versions, by (library, method, query, mechanism).
_AFA_EPSILON = (
    "autodp 0.2.3.1's ComposeAFA get_approxDP(delta) returns an epsilon <= 0 (-0.045 to -0.0048 here; also for "
    "its README's sigma=5, k=10, delta=1e-6, and with SciPy 1.10.1): converter.cdf_to_approxdp searches "
    "x = e^eps within bounds [0, 1], i.e. eps <= 0"
)
KNOWN_FINDINGS = {
    ("autodp", "AFA", "epsilon", "gaussian"): _AFA_EPSILON,
    ("autodp", "AFA", "epsilon", "laplace"): _AFA_EPSILON,
    ("autodp", "AFA", "delta", "laplace"): (
        "autodp 0.2.3.1's ComposeAFA get_approx_delta(eps) of LaplaceMechanism(b, phi_off=False) is wrong even "
        "for k=1 (b=1, eps=0.5: 0.9256, exact 1 - e^(-1/4) = 0.2212; eps=0.9: -0.145); its log phi_laplace "
        "matches the closed form, so the numerical inversion (converter.phi_to_cdf) is the likely cause: the "
        "Laplace PLD has atoms at +-1/b; its Gaussian delta(eps) agrees"
    ),
}


# --- the instances ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Instance:
    """A k-fold composition queried for ``epsilon`` at ``delta = at`` or for ``delta`` at
    ``epsilon = at``: ``gaussian`` of variance ``sigma2``, or ``laplace`` of ``1/b = m ln s``
    (bracketed with ``m/r`` cells below and ``m`` above)."""

    mechanism: str
    k: int
    query: str
    at: Fraction
    sigma2: Fraction = Fraction(0)
    s: Fraction = Fraction(0)
    m: int = 0
    r: int = 1

    @property
    def scale(self) -> float:
        """The libraries' parameter: the Gaussian's sigma or the Laplace's b (floats)."""
        if self.mechanism == "gaussian":
            return math.sqrt(float(self.sigma2))
        return 1 / (self.m * math.log(float(self.s)))

    @property
    def name(self) -> str:
        noise = (
            f"Gaussian sigma^2={self.sigma2}"
            if self.mechanism == "gaussian"
            else f"Laplace 1/b={self.m} ln({self.s})={1 / self.scale:.6f}"
        )
        given = "delta" if self.query == "epsilon" else "eps"
        return f"{noise}, k={self.k}, {given}={float(self.at):g}"

    def certified(self) -> tuple[Fraction, Fraction]:
        """dpverify's certified ``[low, high]`` holding the exact answer."""
        if self.mechanism == "laplace":
            return laplace_bracket(self.s, self.m, self.r, self.k, self.query, self.at)
        if self.query == "epsilon":
            return gaussian_epsilon(self.sigma2, self.k, self.at)
        low, high = gaussian_delta(self.sigma2, self.k, self.at)
        return mpf_fraction(low), mpf_fraction(high)

    def accountant(self) -> tuple[str, Fraction]:
        """dpverify's accountant for the mechanism (an upper bound): the CKS20 conversion of
        ``rho = k/(2 sigma2)``, or KOV at a rational step epsilon ``>= m ln s``."""
        if self.mechanism == "gaussian":
            rho = Fraction(self.k) / (2 * self.sigma2)
            found = zcdp_epsilon(rho, self.at, dps=20) if self.query == "epsilon" else zcdp_delta(rho, self.at, dps=20)
            return "CKS20", mpf_fraction(found[1])
        _, step = enclose(lambda: self.m * iv.log(iv_rational(self.s)), 20)
        if self.query == "epsilon":
            return "KOV", Fraction(kov_composition(mpf_fraction(step), 0, self.k, self.at).epsilon)
        return "KOV", mpf_fraction(kov_delta(mpf_fraction(step), 0, self.k, self.at)[1])


def _eps(mechanism: str, k: int, delta: str, **noise: Any) -> Instance:
    return Instance(mechanism, k, "epsilon", Fraction(delta), **noise)


def _delta(mechanism: str, k: int, eps: str, **noise: Any) -> Instance:
    return Instance(mechanism, k, "delta", Fraction(eps), **noise)


_FINE = {"s": Fraction(1001, 1000)}
COMPOSITIONS = (
    _eps("gaussian", 1, "1e-5", sigma2=Fraction(1)),
    _eps("gaussian", 10, "1e-6", sigma2=Fraction(4)),
    _eps("gaussian", 100, "1e-6", sigma2=Fraction(25)),
    _eps("gaussian", 1000, "1e-5", sigma2=Fraction(100)),
    _eps("laplace", 100, "1e-6", m=100, r=10, **_FINE),
    _eps("laplace", 20, "1e-6", m=500, r=20, **_FINE),
    _eps("laplace", 10, "1e-5", m=1000, r=100, **_FINE),
    _delta("gaussian", 10, "6", sigma2=Fraction(4)),
    _delta("gaussian", 100, "8", sigma2=Fraction(25)),
    _delta("gaussian", 1000, "15", sigma2=Fraction(100)),
    _delta("laplace", 100, "4", m=100, r=10, **_FINE),
    _delta("laplace", 20, "8", m=500, r=20, **_FINE),
)
QUICK = (COMPOSITIONS[1], COMPOSITIONS[4], COMPOSITIONS[7])

RDP_ORDERS = [2, 4, 8, 16, 32]
RDP_CURVES = (
    Instance("gaussian", 1, "rdp", Fraction(0), sigma2=Fraction(4)),
    Instance("laplace", 1, "rdp", Fraction(0), s=Fraction(51, 50), m=25),
    Instance("laplace", 1, "rdp", Fraction(0), s=Fraction(101, 100), m=100),
)


def certified_rdp(instance: Instance, order: int) -> tuple[Fraction, Fraction]:
    if instance.mechanism == "gaussian":
        exact = gaussian_rdp(instance.sigma2, order)
        return exact, exact
    low, high = laplace_rdp(instance.s, instance.m, order)
    return mpf_fraction(low), mpf_fraction(high)


# --- the tables ----------------------------------------------------------------------------------------------


@dataclass
class Findings:
    """Every value outside dpverify's certified interval beyond its stated error, with both numbers."""

    lines: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    new: int = 0

    def check(
        self, where: str, instance: Instance, value: Value, low: Fraction, high: Fraction, relative: bool = False
    ) -> str:
        if value.consistent(low, high, relative):
            return "yes"
        known = KNOWN_FINDINGS.get((value.library, value.method, instance.query, instance.mechanism))
        self.new += known is None
        if known is not None and known not in self.known:
            self.known.append(known)
        self.lines.append(
            f"{where}: {value.library} {value.method} ({value.kind}) gives {value.text()}, "
            f"dpverify certifies [{float(low):.10g}, {float(high):.10g}]"
            + (f" (known finding {self.known.index(known) + 1})" if known else " (NEW)")
        )
        return "**no**"


def _library(run: Callable[[], Any]) -> Any:
    """``run()``, or None when its library is not installed."""
    try:
        return run()
    except ImportError:
        return None


COLUMNS = [
    ("dp-accounting", "PLD optimistic"),
    ("dp-accounting", "PLD pessimistic"),
    ("dp-accounting", "RDP"),
    ("prv-accountant", "PRV"),
    ("autodp", "RDP"),
    ("autodp", "AFA"),
    ("autodp", "exact Gaussian"),
]


def composition_table(instances: tuple[Instance, ...], findings: Findings) -> list[str]:
    head = (
        "| query | instance | dpverify certified | dpverify accountant (upper) | "
        + " | ".join(f"{library} {method}" for library, method in COLUMNS)
        + " | consistent | dpverify s |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for instance in instances:
        start = time.perf_counter()
        low, high = instance.certified()
        label, upper = instance.accountant()
        seconds = time.perf_counter() - start
        cells: dict[tuple[str, str], str] = {}
        verdicts = []
        for library, run in LIBRARIES.items():
            values = _library(lambda run=run, instance=instance: run(instance))
            for value in values or []:
                verdict = findings.check(instance.name, instance, value, low, high, relative=instance.query == "delta")
                verdicts.append(verdict)
                cells[(library, value.method)] = f"{value.text()}{'' if verdict == 'yes' else ' **(no)**'}"
            if values is None:
                cells.update({column: "not installed" for column in COLUMNS if column[0] == library})
        consistent = "yes" if all(v == "yes" for v in verdicts) else "**no**"
        lines.append(
            f"| {instance.query} | {instance.name} | [{float(low):.10g}, {float(high):.10g}] | "
            f"{label} {float(upper):.7g} | "
            + " | ".join(cells.get(column, "n/a") for column in COLUMNS)
            + f" | {consistent} | {seconds:.2f} |"
        )
    return lines


def rdp_table(findings: Findings) -> list[str]:
    head = "| mechanism | order | dpverify certified RDP | dp-accounting | prv-accountant | autodp | consistent |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for curve in RDP_CURVES:
        label = curve.name.rsplit(", k=", 1)[0]
        values = {
            library: _library(lambda run=run, curve=curve: run(curve.mechanism, curve.scale, RDP_ORDERS))
            for library, run in RDP_LIBRARIES.items()
        }
        for i, order in enumerate(RDP_ORDERS):
            low, high = certified_rdp(curve, order)
            cells, verdicts = [], []
            for library, found in values.items():
                if found is None:
                    cells.append("not installed")
                    continue
                value = Value(library, f"RDP of order {order}", "estimate", found[i])
                verdicts.append(findings.check(label, curve, value, low, high, relative=True))
                cells.append(f"{found[i]:.12g}")
            exact = f"{float(low):.12g}" if low == high else f"[{float(low):.12g}, {float(high):.12g}]"
            consistent = "yes" if all(v == "yes" for v in verdicts) else "**no**"
            lines.append(f"| {label} | {order} | {exact} | " + " | ".join(cells) + f" | {consistent} |")
    return lines


def versions() -> str:
    found = []
    for name in ("dpverify", "dp-accounting", "prv-accountant", "autodp", "numpy", "scipy"):
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three composition instances, no RDP table")
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}; {versions()}")
    print(
        f"float slack {FLOAT:g}; dp-accounting interval {PLD_INTERVAL:g}; prv-accountant eps_error "
        f"{PRV_EPS_ERROR:g}, delta_error delta/1000 (eps queries) or {PRV_DELTA_ERROR:g}; autodp AFA taken to "
        f"{AUTODP_AFA_ERROR:g}, its analytic Gaussian to {AUTODP_ERROR:g} (absolute on eps, relative on delta)\n"
    )
    findings = Findings()
    print("\n".join(composition_table(QUICK if args.quick else COMPOSITIONS, findings)))
    if not args.quick:
        print("\n" + "\n".join(rdp_table(findings)))
    print()
    if not findings.lines:
        print("No disagreement beyond the stated errors.")
        return 0
    print("Findings (disagreements beyond the stated errors):")
    print("\n".join(f"- {line}" for line in findings.lines))
    print("\nKnown findings:\n" + "\n".join(f"{i}. {text}" for i, text in enumerate(findings.known, 1)))
    return 1 if findings.new else 0


if __name__ == "__main__":
    sys.exit(main())

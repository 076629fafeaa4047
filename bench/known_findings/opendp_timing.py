"""OpenDP's integer Laplace (its discrete Laplace sampler, CKS20's algorithm in Rust) timed from Python:
Jin et al., "Are We There Yet? Timing and Floating-Point Attacks on Differential Privacy Systems",
IEEE S&P 2022, Section V (quoted for OpenDP's sampler in divviup/libprio-rs#645; opendp/opendp#321, #1324).

The sampler's loops run in Rust, so its draws cannot be counted from Python; what a caller can observe is
the wall-clock time of the public call.  The audit is a black box on the pair (output, time bucket):

1. ``n`` calls at each of the inputs 0 and 1, in one random interleaved order (machine drift then falls
   on both inputs alike), after a warm-up; each call is timed with ``time.perf_counter_ns``.
2. The time is cut into buckets at the :data:`QUANTILES` of the pooled times of the *first* halves of
   both inputs' calls (the selection halves): a fixed function of the selection halves.  The cuts are
   finest among the fastest calls, which the other work on the machine disturbs least.
3. dpverify's black-box privacy test (``check_black_box_privacy``) runs twice on the same calls, each at
   level ``1e-6 / 2`` (Bonferroni: ``1e-6`` overall): once on the tuples ``(output, bucket)`` (its atom
   family holds every joint event ``{(o, b)}``, its coordinate families the output and the bucket alone),
   once on the outputs alone.  Each chooses one event on the selection halves and bounds it on the
   held-out halves with exact Clopper-Pearson intervals, so ``epsilon >= ln(lower_A / upper_B)``.

Assumption of the timing test: given the machine state, the calls at each input are independent, and the
machine state does not depend on which input is called (the order is random).  Then the held-out halves
are independent of the selection halves and of the bucket edges, and the held-out counts are sums of
independent Bernoulli trials whose mean probabilities are those of one mechanism, "a call at a random
moment of the run", a mixture over machine states that does not depend on the input; a mixture of
epsilon-DP mechanisms is epsilon-DP, so a certified bound above the claim shows some machine state at
which the timed release is not epsilon-DP.  (Hoeffding, 1956: a sum of independent Bernoulli trials is
at most as spread in its tails as the binomial with their mean, so the Clopper-Pearson bounds keep
their level.)
"""

from __future__ import annotations

import bisect
import gc
import random
import time
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

#: The time buckets' edges: these quantiles of the selection halves' pooled times.
QUANTILES = (Fraction(1, 32), Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))
#: Untimed calls before the measured ones (the first calls load and warm the library).
WARM_UP = 2000
#: The overall level; each of the two held-out tests runs at half of it.
ALPHA = Fraction(1, 10**6)


def _timed_calls(release: Callable[[int], Any], n: int, seed: int) -> dict[int, list[tuple[int, int]]]:
    """``n`` timed calls of ``release(x)`` at each ``x`` in (0, 1), interleaved in a random order:
    for each input, its ``(output, nanoseconds)`` in the order they ran."""
    order = [0] * n + [1] * n
    random.Random(seed).shuffle(order)
    for k in range(WARM_UP):
        release(k % 2)
    clock = time.perf_counter_ns
    calls: dict[int, list[tuple[int, int]]] = {0: [], 1: []}
    collecting = gc.isenabled()
    gc.disable()  # no collector pause inside a timed call
    try:
        for x in order:
            start = clock()
            output = release(x)
            end = clock()
            calls[x].append((int(output), end - start))
    finally:
        if collecting:
            gc.enable()
    return calls


def _edges(calls: dict[int, list[tuple[int, int]]]) -> list[int]:
    """The bucket edges: the pooled quantiles of the selection halves' times (the first half of each input's
    calls, as the privacy test splits them)."""
    pooled = sorted(t for runs in calls.values() for _, t in runs[: len(runs) // 2])
    return sorted({pooled[int(q * len(pooled))] for q in QUANTILES})


def _bucket_text(bucket: int, edges: Sequence[int]) -> str:
    low = f"{edges[bucket - 1] / 1000:.1f}" if bucket > 0 else "0"
    high = f"{edges[bucket] / 1000:.1f}" if bucket < len(edges) else "inf"
    return f"[{low}, {high}) us"


def _described(event: dict[str, Any], edges: Sequence[int]) -> str:
    """The chosen event, with a bucket atom's time range spelled out."""
    atom = event.get("atom")
    if event.get("view") == "o" and atom and atom.startswith("("):
        output, bucket = (int(part) for part in atom.strip("()").split(","))
        return f"(o = {output}, time in {_bucket_text(bucket, edges)})"
    text = str(event.get("description"))
    for view, name in (("sum(o)", "output + bucket"), ("|o|_2", "|(output, bucket)|"), ("o[0]", "output")):
        text = text.replace(view, name)
    return text.replace("o[1]", "bucket")


def audit_timing(
    release: Callable[[int], Any], claim_epsilon: Fraction, seed: int, n: int
) -> tuple[dict[str, Any], dict[str, Any], list[int], float]:
    """The privacy test's evidence for (output, time bucket) and for the output alone, the bucket edges
    (ns) and the seconds the calls took."""
    from dpverify.specs._claims import PureDp
    from dpverify.verify.published._blackbox_privacy import check_black_box_privacy

    started = time.monotonic()
    calls = _timed_calls(release, n, seed)
    seconds = time.monotonic() - started
    edges = _edges(calls)

    def pairs(x: int) -> list[Hashable]:
        return [(o, bisect.bisect_right(edges, t)) for o, t in calls[x]]

    claim = PureDp(epsilon=claim_epsilon)
    joint = check_black_box_privacy(pairs(0), pairs(1), (0, 1), claim, alpha=ALPHA / 2, seed=seed)
    alone = check_black_box_privacy(
        [o for o, _ in calls[0]], [o for o, _ in calls[1]], (0, 1), claim, alpha=ALPHA / 2, seed=seed
    )
    return dict(joint.evidence or {}), dict(alone.evidence or {}), edges, seconds


def _bound(evidence: dict[str, Any]) -> Fraction | None:
    value = evidence.get("epsilon_lower_bound")
    return None if value is None else Fraction(value)


def _verdict(joint: Fraction | None, alone: Fraction | None, claim: Fraction) -> str:
    """Re-found when the timed release's certified epsilon exceeds the claim and the output's alone."""
    if joint is not None and joint > claim and (alone is None or joint > alone):
        return "violated"
    return "not refuted"


def _opendp_dlaplace_timing(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``make_laplace(atom_domain(T=int), absolute_distance(T=int), scale=1.0)(x)`` at x = 0 and 1, claimed
    1-DP, timed from Python: (output, time bucket) against the output alone."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    measurement = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    claim = Fraction(1)
    n = max(samples, 20_000)
    joint, alone, edges, seconds = audit_timing(measurement, claim, seed, n)
    eps_joint, eps_alone = _bound(joint), _bound(alone)
    counts = joint.get("held_out_counts") or {}
    half = (joint.get("held_out_sizes") or [0])[0]
    event = _described(joint.get("event") or {}, edges) if joint.get("event") else "none"
    evidence = (
        f"{n} calls at x=0 and at x=1 (interleaved, {seconds:.0f} s); event {event}: "
        f"{counts.get('more_likely', '-')}/{half} held-out at x={joint.get('more_likely_under', '-')} vs "
        f"{counts.get('less_likely', '-')}/{half} at x={joint.get('less_likely_under', '-')}; "
        f"(output, time) eps >= {joint.get('epsilon_lower_bound')}, output alone eps >= "
        f"{alone.get('epsilon_lower_bound')} (claimed 1)"
    )
    return {
        "verdict": _verdict(eps_joint, eps_alone, claim),
        "method": (
            f"timing: black box on (output, perf_counter_ns bucket of {len(QUANTILES) + 1}, edges from the "
            "selection halves) vs the output alone; held-out Clopper-Pearson, confidence 1-1e-6 overall; assumes calls "
            "independent given the machine state"
        ),
        "evidence": evidence[:300],
        "magnitude": (
            f"epsilon of (output, time) >= {joint.get('epsilon_lower_bound')}; of the output alone >= "
            f"{alone.get('epsilon_lower_bound')} (certified lower bounds; claimed 1)"
        ),
    }


AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "jin-timing-opendp-dlaplace": _opendp_dlaplace_timing,
}

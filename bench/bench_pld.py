"""Benchmark: delta(eps) and eps(delta) of the 100-fold composed GTM, exact and certified.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers": the GTM
with ``alpha = 1/2``, ``n = 10``.  Two instances:

- **exact**: the Theorem 7.1 instance ``T = 3 * 2^10``, whose neighbours have ratios exactly
  ``2^{+-1}``: ``dpverify.verify.composed_delta`` runs the exact path, so ``delta_100(eps)`` is
  an exact rational at ``eps = m ln 2`` and ``A - e^eps B`` (rationals ``A, B``) at ``eps = 1``;
- **certified**: an arbitrary ``T`` (default ``10^6``): pessimistic/optimistic bounds on the grid
  ``--grid`` (default ``1/10^4``), with the gap; the certified path is also run on the worst pair
  of the exact instance, whose bounds must contain its exact ``delta(eps)``.

``delta(eps)`` is the worst case over the 20 ordered neighbouring pairs (``composed_delta``);
``eps(delta)`` of the certified instance is that of the worst pair found.  Baselines measured in the same
run (the machine is noisy, so only ratios mean anything):

- **naive exact** (exact instance only): the PLD as a ``{loss exponent: Fraction}`` dict,
  convolved 100 times one after the other, then ``delta(m ln 2)`` summed; it must equal ours;
- **dp-accounting** (optional, skipped when not installed): Google's PLD,
  ``from_two_probability_mass_functions`` (pessimistic, ``value_discretization_interval`` = the
  grid) for each ordered pair, ``self_compose(100)``, ``get_delta_for_epsilon``; its float
  answer must lie within our enclosure widened by its own discretisation, and within ``1e-9``
  relative of our pessimistic bound on the same grid.

- **old path** (certified instance): the certified path as it was before the FFT power:
  ``self_compose`` by exact GMP convolutions (left-to-right powering: squares, and products
  with the one-fold PLD) and the downward scans point by point.  Both are certain but round in
  different places (the FFT power adds its a-priori slack), so their bounds differ slightly:
  they must overlap, and our gap must be at most ``GAP_FACTOR`` times the old one (both gaps
  are printed).

The target is our certified ``delta`` at least as fast as dp-accounting on the same grid (ratio
dp/ours >= 1); whether it is met is printed.

Then the exact ``eps(delta)`` at ``delta = --delta`` (default ``1e-6``) for ``k = 1..--k`` of
the exact instance, written as a series (``--series PATH``: ``.json``, or ``.csv``) and, with
``--plot PATH`` (matplotlib, the extra ``plot``), plotted.  The JSON keeps one entry per method
under ``"series"`` (``{"k": [...], "low": [...], "high": [...]}``), so other bounds (basic,
advanced composition, ...) are added as more entries and plotted by the same code.

Exit code 1 if a baseline disagrees, 2 on bad arguments, 0 otherwise.

Usage: ``python bench/bench_pld.py [--k 100] [--T 1000000] [--grid 1/10^4] [--epsilon 1]
[--delta 1/10^6] [--repeat 1] [--series PATH] [--plot PATH]``
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, TypeVar

from dpverify import specs, verify
from dpverify.samplers import DpverifyError, as_fraction
from dpverify.verify.privacy import _block_scan, _convolution, _pld_certified

R = TypeVar("R")
ALPHA, N = "1/2", 10
#: How much looser than the old path's gap ours may be.
GAP_FACTOR = 1.01


def best_of(repeat: int, run: Callable[[], R]) -> tuple[float, R]:
    """Smallest wall-clock time of ``repeat`` runs of ``run()``, and its result."""
    best: tuple[float, R] | None = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - start
        if best is None or elapsed < best[0]:
            best = (elapsed, result)
    assert best is not None
    return best


@contextlib.contextmanager
def old_path() -> Iterator[None]:
    """The certified path as it was: no FFT power (exact GMP convolutions), scans point by point."""
    points, checkpoints = _pld_certified.FFT_POINTS, _block_scan.checkpoints
    _pld_certified.FFT_POINTS = sys.maxsize
    _block_scan.checkpoints = lambda *_: None  # type: ignore[assignment]
    try:
        yield
    finally:
        _pld_certified.FFT_POINTS, _block_scan.checkpoints = points, checkpoints


def naive_exact_delta(table: dict, pairs: list, k: int, m: int) -> Fraction:
    """The obvious exact computation: per ordered pair, the PLD ``{exponent: Fraction}`` of losses
    ``j ln 2``, convolved ``k`` times one after the other, then ``sum_j p_j (1 - 2^(m-j))^+``."""
    worst = Fraction(0)
    for q, q2 in pairs:
        P, Q = table[q].as_dict(), table[q2].as_dict()
        one: dict[int, Fraction] = {}
        for y, p in P.items():
            if p:
                ratio = p / Q[y]
                j = round(math.log2(ratio))  # ratios are exactly 2^{+-1} here, checked next
                assert Fraction(2) ** j == ratio
                one[j] = one.get(j, Fraction(0)) + p
        pld = {0: Fraction(1)}
        for _ in range(k):
            nxt: dict[int, Fraction] = {}
            for i, a in pld.items():
                for j, b in one.items():
                    nxt[i + j] = nxt.get(i + j, Fraction(0)) + a * b
            pld = nxt
        worst = max(worst, sum((p * (1 - Fraction(2) ** (m - j)) for j, p in pld.items() if j > m), Fraction(0)))
    return worst


def dp_accounting_delta(table: dict, pairs: list, k: int, eps: float, grid: float) -> float | None:
    """dp-accounting's pessimistic PLD, worst case over the ordered pairs; None when not installed."""
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld_module
    except ImportError:
        return None
    worst = 0.0
    for q, q2 in pairs:
        logs = [{y: math.log(p) for y, p in table[x].as_dict().items() if p} for x in (q2, q)]
        pld = pld_module.from_two_probability_mass_functions(
            logs[0], logs[1], pessimistic_estimate=True, value_discretization_interval=grid
        )
        worst = max(worst, float(pld.self_compose(k).get_delta_for_epsilon(eps)))
    return worst


def ordered_pairs(spec: specs.GtmSpec) -> list[tuple[int, int]]:
    return [pair for q, q2 in spec.neighbours() for pair in ((q, q2), (q2, q))]


def epsilon_series(k_max: int, delta: Fraction) -> dict[str, list[Any]]:
    """Exact ``eps_k(delta)`` of the Theorem 7.1 GTM for ``k = 1..k_max`` (worst case over pairs;
    its pairs all share one PLD, so the pair PLD is composed once more per step)."""
    spec = specs.GtmSpec.create(ALPHA, N, 3 * 2**N)
    table = verify.gtm_table(spec)
    pairs = ordered_pairs(spec)
    one = {pair: verify.PrivacyLossDistribution.from_pmfs(table[pair[0]], table[pair[1]]) for pair in pairs}
    current = dict(one)
    out: dict[str, list[Any]] = {"k": [], "low": [], "high": [], "ln_of": []}
    for k in range(1, k_max + 1):
        if k > 1:
            current = {pair: pld.compose(one[pair]) for pair, pld in current.items()}
        bounds = [pld.epsilon(delta) for pld in current.values()]
        worst = max(bounds, key=lambda e: e.high)
        out["k"].append(k)
        out["low"].append(float(worst.low))
        out["high"].append(float(worst.high))
        out["ln_of"].append(str(worst.log_argument))
    return out


def accountant_series(k_max: int, delta: Fraction) -> dict[str, dict[str, list[Any]]]:
    """Each accountant's guarantee ``eps'`` for ``k = 1..k_max`` from the Theorem 7.1 GTM's per-step
    pure ``eps_bar``-DP (``eps_bar >= ln 2``, see :mod:`dpverify.verify.privacy._looseness`); a bound that
    does not apply or is vacuous is left out at that ``k`` (NaN)."""
    from dpverify.verify.privacy._looseness import epsilon_upper_bound

    eps_bar = epsilon_upper_bound(Fraction(1, 2))
    out: dict[str, dict[str, list[Any]]] = {}
    for k in range(1, k_max + 1):
        for bound in specs.account(eps_bar, 0, k, delta, mechanism="pure").bounds:
            values = out.setdefault(bound.name, {"k": [], "low": [], "high": []})
            value = float(bound.epsilon_value()) if bound.guarantee else math.nan
            values["k"].append(k)
            values["low"].append(value)
            values["high"].append(value)
    return out


def write_series(path: str, series: dict[str, dict[str, list[Any]]], meta: dict[str, Any]) -> None:
    """JSON ``{"meta": ..., "series": {name: {"k", "low", "high", ...}}}``, or a long-format CSV
    (``method,k,epsilon_low,epsilon_high``)."""
    if path.endswith(".csv"):
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["method", "k", "epsilon_low", "epsilon_high"])
            for name, values in series.items():
                for k, low, high in zip(values["k"], values["low"], values["high"], strict=True):
                    writer.writerow([name, k, repr(low), repr(high)])
        return
    with open(path, "w") as handle:
        json.dump({"meta": meta, "series": series}, handle, indent=1)


def plot_series(path: str, series: dict[str, dict[str, list[Any]]], title: str, exact: str = "pld_exact") -> None:
    """Left: one line per series (a band where ``low < high``), epsilon against k.  Right, when
    the series ``exact`` is there: each other series divided by it, how loose each bound is."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (axes, ratios) = plt.subplots(1, 2, figsize=(13, 4.8))
    reference = series.get(exact)
    for name, values in series.items():
        style = {"color": "black", "linestyle": "--", "zorder": 5} if name == exact else {}
        (line,) = axes.plot(values["k"], values["high"], label=name, linewidth=1.2, **style)
        if any(low != high for low, high in zip(values["low"], values["high"], strict=True)):
            axes.fill_between(values["k"], values["low"], values["high"], alpha=0.3, color=line.get_color())
        if reference is not None and name != exact:
            by_k = dict(zip(reference["k"], reference["high"], strict=True))
            ratios.plot(
                values["k"],
                [v / by_k[k] for k, v in zip(values["k"], values["high"], strict=True)],
                label=name,
                color=line.get_color(),
            )
    axes.set_xlabel("compositions k")
    axes.set_ylabel("epsilon_k(delta)")
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8)
    axes.grid(alpha=0.3)
    ratios.axhline(1, color="black", linewidth=0.8)
    ratios.set_xlabel("compositions k")
    ratios.set_ylabel(f"bound / exact ({exact})")
    ratios.set_yscale("log")
    ratios.set_title("how loose each accountant is (1 = exact; below 1 would be unsound)", fontsize=10)
    ratios.legend(fontsize=8)
    ratios.grid(alpha=0.3, which="both")
    figure.tight_layout()
    figure.savefig(path, dpi=150)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=100, help="compositions (default 100)")
    parser.add_argument("--T", type=int, default=10**6, help="uniform size of the arbitrary-T GTM (default 10^6)")
    parser.add_argument("--grid", default="1/10^4", help="certified grid width (default 1/10^4)")
    parser.add_argument("--epsilon", default="1", help="epsilon of delta(eps) (default 1)")
    parser.add_argument("--delta", default="1/10^6", help="delta of the eps(delta) series (default 1/10^6)")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs (default 1)")
    parser.add_argument("--series", metavar="PATH", help="write the eps(delta) series (.json or .csv)")
    parser.add_argument("--plot", metavar="PATH", help="plot the series (needs matplotlib)")
    args = parser.parse_args(argv)
    try:
        grid, eps, delta = (
            as_fraction("grid", args.grid),
            as_fraction("epsilon", args.epsilon),
            as_fraction("delta", args.delta),
        )
    except DpverifyError as error:
        parser.error(str(error))
    if args.k < 1 or args.repeat < 1 or args.T < 1 or not 0 < grid <= 1 or not 0 <= delta <= 1 or eps < 0:
        parser.error("need --k >= 1, --repeat >= 1, --T >= 1, 0 < --grid <= 1, 0 <= --delta <= 1, --epsilon >= 0")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib: pip install 'dpverify[plot]'")

    print(
        f"cores: {os.cpu_count()}  python: {platform.python_version()}  big integers: {_convolution.backend()}  "
        f"load average: {load_average()}"
    )
    k, failed = args.k, False

    # --- exact: the Theorem 7.1 instance ---
    spec = specs.GtmSpec.create(ALPHA, N, 3 * 2**N)
    table, pairs = verify.gtm_table(spec), ordered_pairs(spec)
    m = 40
    print(
        f"\nexact: GTM alpha={ALPHA}, n={N}, T=3*2^{N} (Theorem 7.1), k={k}, worst case over {len(pairs)} ordered pairs"
    )
    t_ours, (at_log, at_eps) = best_of(
        args.repeat,
        lambda: (
            max(
                (
                    verify.PrivacyLossDistribution.from_pmfs(table[q], table[q2])
                    .self_compose(k)
                    .delta_at_log(2**m)
                    .value
                    for q, q2 in pairs
                )
            ),
            verify.composed_delta(table, spec.neighbours(), k, eps),
        ),
    )
    print(f"  ours      {t_ours:9.3f} s   delta(ln 2^{m}) = {at_log} (exact, {float(at_log):.12e})")
    A, B = at_eps.bound.affine
    print(
        f"            delta({eps}) = A - e^{eps} B in [{float(at_eps.bound.low):.15e}, {float(at_eps.bound.high):.15e}]"
        f" ({len(str(A.denominator))}-digit denominators)"
    )
    t_naive, naive = best_of(args.repeat, lambda: naive_exact_delta(table, pairs, k, m))
    agree = naive == at_log
    failed |= not agree
    print(
        f"  naive     {t_naive:9.3f} s   ratio naive/ours {t_naive / t_ours:8.3g}x   "
        f"{'equal' if agree else 'DISAGREES: ' + str(naive)}"
    )
    q, q2 = at_eps.pair
    t_cx, cx = best_of(
        args.repeat,
        lambda: (
            verify.PrivacyLossDistribution.from_pmfs(table[q], table[q2], method="certified", grid=grid)
            .self_compose(k)
            .delta(eps)
        ),
    )
    contains = cx.low <= at_eps.bound.low and at_eps.bound.high <= cx.high
    failed |= not contains
    print(
        f"  certified {t_cx:9.3f} s   worst pair {at_eps.pair} on the grid {grid}: delta({eps}) in "
        f"[{float(cx.low):.12e}, {float(cx.high):.12e}] "
        f"({'contains the exact value' if contains else 'DOES NOT CONTAIN THE EXACT VALUE'})"
    )
    t_dp, dp = best_of(args.repeat, lambda: dp_accounting_delta(table, pairs, k, float(eps), float(grid)))
    if dp is None:
        print("  dp-accounting: not installed (pip install 'dpverify[crosscheck]')")
    else:
        # its pessimistic answer is above the exact delta and at most that of the eps shifted by k*grid
        ok = float(at_eps.bound.low) * (1 - 1e-9) <= dp
        failed |= not ok
        print(
            f"  dp-acct   {t_dp:9.3f} s   ratio dp/ours {t_dp / t_ours:8.3g}x   delta = {dp:.15e} "
            f"({'above the exact value, as a pessimistic bound must be' if ok else 'BELOW THE EXACT VALUE'})"
        )

    # --- certified: an arbitrary T ---
    spec_t = specs.GtmSpec.create(ALPHA, N, args.T)
    table_t, pairs_t = verify.gtm_table(spec_t), ordered_pairs(spec_t)
    print(
        f"\ncertified: GTM alpha={ALPHA}, n={N}, T={args.T}, k={k}, grid={grid}, worst case over {len(pairs_t)} pairs"
    )
    t_cert, bound = best_of(args.repeat, lambda: verify.composed_delta(table_t, spec_t.neighbours(), k, eps, grid=grid))
    low, high = bound.bound.low, bound.bound.high
    print(
        f"  ours      {t_cert:9.3f} s   delta({eps}) in [{float(low):.12e}, {float(high):.12e}], "
        f"gap {float(high - low):.3e} ({float((high - low) / high):.2e} of the upper bound), worst pair {bound.pair}"
    )
    with old_path():
        t_old, old = best_of(
            args.repeat, lambda: verify.composed_delta(table_t, spec_t.neighbours(), k, eps, grid=grid)
        )
    old_low, old_high = old.bound.low, old.bound.high
    overlap = low <= old_high and old_low <= high
    tight = high - low <= GAP_FACTOR * (old_high - old_low)
    failed |= not (overlap and tight)
    print(
        f"  old path  {t_old:9.3f} s   ratio old/ours {t_old / t_cert:8.3g}x   delta({eps}) in [{float(old_low):.12e}, "
        f"{float(old_high):.12e}], gap {float(old_high - old_low):.3e}; "
        f"ours/old gap {float((high - low) / (old_high - old_low)):.6f} "
        f"({'overlapping' if overlap else 'DISJOINT'}, {'within' if tight else 'PAST'} the factor {GAP_FACTOR})"
    )
    q, q2 = bound.pair
    t_eps, e = best_of(
        args.repeat,
        lambda: (
            verify.PrivacyLossDistribution.from_pmfs(table_t[q], table_t[q2], grid=grid).self_compose(k).epsilon(delta)
        ),
    )
    print(
        f"  ours      {t_eps:9.3f} s   eps({delta}) of that pair in [{float(e.low):.9f}, {float(e.high):.9f}], "
        f"gap {float(e.high - e.low):.3e} (k*grid = {float(k * grid):.3e})"
    )
    t_dp, dp = best_of(args.repeat, lambda: dp_accounting_delta(table_t, pairs_t, k, float(eps), float(grid)))
    if dp is not None:
        close = abs(dp - float(high)) <= 1e-9 * float(high) + 1e-15 * k
        failed |= not close
        print(
            f"  dp-acct   {t_dp:9.3f} s   ratio dp/ours {t_dp / t_cert:8.3g}x   delta = {dp:.15e} "
            f"({'= our pessimistic bound within 1e-9' if close else 'DIFFERS FROM OUR PESSIMISTIC BOUND'})"
        )
        print(
            f"  target: certified delta at >= 1x dp-accounting's speed: {'met' if t_dp >= t_cert else 'NOT met'} "
            f"({t_dp / t_cert:.3g}x; the old path: {t_dp / t_old:.3g}x)"
        )

    # --- the eps(delta) series ---
    t_series, values = best_of(1, lambda: epsilon_series(k, delta))
    print(
        f"\nseries: exact eps_k({delta}) for k = 1..{k} (Theorem 7.1 GTM) in {t_series:.3f} s; "
        f"eps_1 = {values['low'][0]:.6f}, eps_{k} = {values['low'][-1]:.6f}"
    )
    series = {"pld_exact": values}
    t_accountants, bounds = best_of(1, lambda: accountant_series(k, delta))
    series.update(bounds)
    below = [
        (name, kk)
        for name, v in bounds.items()
        for kk, e, x in zip(v["k"], v["high"], values["low"], strict=True)  # every accountant at every k
        if e < x
    ]
    failed |= bool(below)
    at_k = {name: v["high"][-1] / values["high"][-1] for name, v in bounds.items()}
    print(
        f"accountants: eps' for k = 1..{k} in {t_accountants:.3f} s; bound / exact at k={k}: "
        + ", ".join(f"{name} {r:.4g}" for name, r in at_k.items() if r == r)
        + ("" if not below else f"; BELOW THE EXACT VALUE: {below[:5]}")
    )
    meta = {
        "mechanism": "gtm",
        "alpha": ALPHA,
        "n": N,
        "T": f"3*2^{N}",
        "delta": str(delta),
        "epsilon": "worst case over neighbouring pairs of the k-fold composition",
    }
    if args.series:
        write_series(args.series, series, meta)
        print(f"  written to {args.series}")
    if args.plot:
        plot_series(args.plot, series, f"GTM alpha={ALPHA}, n={N}, T=3*2^{N}: eps_k(delta={delta})")
        print(f"  plotted to {args.plot}")
    print(f"\nload average at the end: {load_average()}")
    return 1 if failed else 0


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())

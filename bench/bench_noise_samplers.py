"""Benchmark: throughput of the exact discrete Gaussian and discrete Laplace samplers.

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Algorithms 1-3.  The paper reports that its basic Python implementation (``fractions.Fraction``
for exact arithmetic, ``random.SystemRandom()`` for randomness) produces over 1000 samples per
second even at ``sigma^2 = 10^100``.

For each point (discrete Gaussian at ``sigma^2`` in {1, 10^6, 10^100}, discrete Laplace at
``scale`` in {1, 10^6}) this times, in the same run (the machine is noisy, so only ratios
mean anything), in samples per second:

- measured: ``dpverify.samplers.discrete_gaussian.sample_many(sigma2, k)`` and
  ``dpverify.samplers.discrete_laplace.sample_many(scale, k)`` with the default
  ``SystemRandomSource``;
- baseline: ``sample_dgauss`` / ``sample_dlaplace`` of the paper's published reference code
  (``examples/published/cks20/discretegauss.py``, vendored unmodified), Algorithms 1-3 over
  ``Fraction`` with one shared ``random.SystemRandom()``;
- OpenDP (optional; skipped cleanly when ``opendp`` is not installed): ``make_gaussian`` /
  ``make_laplace`` over ``vector_domain(atom_domain(T=...))`` called on a vector of 10,000
  zeros, samples/s = 10,000 / time of the call.  The measurement is built once, outside the
  timing.  OpenDP's Gaussian ``scale`` is the standard deviation, so ``scale =
  sqrt(sigma^2)`` as a float; its Laplace ``scale`` is the same ``b`` as ours.

Each throughput is the best of ``--repeat`` runs.  Correct outputs come before speed: every
batch of ours and of the baseline must be Python ints with a sample variance near the
distribution's (at ``sigma^2 = 10^100``: median ``|z|`` near ``0.674 * 10^50``, values above
``2^63``, distinct, with more than 53 significant bits, i.e. neither saturated nor
float-derived); OpenDP's outputs are checked for saturation at its integer type's bounds and
reported, not failed.  Exit code 1 if our outputs (or the baseline's) fail a check, 0
otherwise: the benchmark reports, it does not fail on speed; bad arguments exit 2.

Targets (project issue): at least 10x the paper's baseline at ``sigma^2 = 10^100``, and at
least OpenDP's batched throughput at every point.

Usage: ``python bench/bench_noise_samplers.py [--k 10000] [--baseline-k 2000] [--repeat 3]
[--opendp-type i32|i64] [--no-opendp]``
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpverify.samplers import discrete_gaussian, discrete_laplace

BASELINE_TARGET = 10.0  # x the paper's baseline, at sigma^2 = 10^100
OPENDP_BATCH = 10_000


# ---------------------------------------------------------------------------------------------
# The paper's baseline: CKS20's own reference code (Fraction arithmetic, all randomness from
# rng.randrange of a random.SystemRandom()), vendored unmodified in examples/published/cks20/.
# ---------------------------------------------------------------------------------------------


def _reference() -> Any:
    """The vendored ``discretegauss.py``, imported by path (it is not part of the package)."""
    path = Path(__file__).resolve().parent.parent / "examples" / "published" / "cks20" / "discretegauss.py"
    spec = importlib.util.spec_from_file_location("cks20_discretegauss", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# Points, correctness checks, OpenDP.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    kind: str  # "gaussian" or "laplace"
    parameter: int  # sigma^2 or scale

    @property
    def label(self) -> str:
        name = "sigma^2" if self.kind == "gaussian" else "scale"
        exponent = len(str(self.parameter)) - 1
        value = "1" if self.parameter == 1 else f"10^{exponent}"
        return f"{self.kind} {name}={value}"

    def expected_variance(self) -> float:
        """Variance of the distribution (relative error far below the checks' tolerance).

        Discrete Gaussian: sigma^2 itself (the true variance is below sigma^2 by a relative
        ~2e-7 at sigma^2 = 1 and far less above).  Discrete Laplace with scale b:
        ``2 e^(-1/b) / (1 - e^(-1/b))^2``.
        """
        if self.kind == "gaussian":
            return float(self.parameter)
        q = math.exp(-1 / self.parameter)
        return 2 * q / math.expm1(-1 / self.parameter) ** 2

    def ours(self) -> Callable[[int], list[int]]:
        if self.kind == "gaussian":
            return lambda k: discrete_gaussian.sample_many(self.parameter, k)
        return lambda k: discrete_laplace.sample_many(self.parameter, k)

    def baseline(self) -> Callable[[int], list[int]]:
        rng = random.SystemRandom()
        reference = _reference()
        one = reference.sample_dgauss if self.kind == "gaussian" else reference.sample_dlaplace
        return lambda k: [one(self.parameter, rng) for _ in range(k)]


POINTS = [
    Point("gaussian", 1),
    Point("gaussian", 10**6),
    Point("gaussian", 10**100),
    Point("laplace", 1),
    Point("laplace", 10**6),
]


def check_outputs(point: Point, draws: list[Any], k: int) -> tuple[bool, str]:
    """Are these ``k`` draws real exact integers from roughly the right distribution?

    The variance tolerance ``8 * sqrt(6 / k)`` (relative) is about 8 standard errors of the
    sample variance for a Laplace-tailed law, so a correct sampler essentially never fails it,
    while a wrong scale or a saturated type does; the type and precision checks catch floats.
    """
    problems = []
    if len(draws) != k:
        problems.append(f"{len(draws)} draws instead of {k}")
    not_int = sum(1 for z in draws if type(z) is not int)
    if not_int:
        problems.append(f"{not_int} outputs are not Python ints")
        return False, "; ".join(problems)
    second_moment = Fraction(sum(z * z for z in draws), len(draws))
    ratio = float(second_moment / Fraction(point.expected_variance()))
    tolerance = 8 * math.sqrt(6 / k)
    if not 1 - tolerance <= ratio <= 1 + tolerance:
        problems.append(f"sample variance / expected = {ratio:.3f}, outside 1 +- {tolerance:.2f}")
    summary = f"{k} Python ints, var/expected {ratio:.3f}"
    if point.parameter >= 10**100:
        magnitudes = sorted(abs(z) for z in draws)
        median = magnitudes[len(magnitudes) // 2]
        sigma = math.isqrt(point.parameter)
        beyond_int64 = sum(1 for m in magnitudes if m >= 2**63)
        distinct = len(set(draws))
        # A float converted to int keeps at most 53 significant bits (the rest trailing zeros).
        full_precision = sum(1 for m in magnitudes if m and significant_bits(m) > 53)
        if not sigma // 4 < median < sigma:  # the true median of |Z| is 0.674 sigma
            problems.append(f"median |z| = {median:.3e}, expected about {0.674 * sigma:.3e}")
        if beyond_int64 < k * 9 // 10:
            problems.append(f"only {beyond_int64}/{k} outputs beyond 2^63: saturated?")
        if distinct < k * 99 // 100:
            problems.append(f"only {distinct}/{k} distinct outputs: clipped?")
        if full_precision < k * 9 // 10:
            problems.append(f"only {full_precision}/{k} outputs with > 53 significant bits")
        summary += (
            f", median |z| {median:.3e} (0.674*sigma = {0.674 * sigma:.3e}), "
            f"{beyond_int64}/{k} beyond 2^63, {distinct} distinct, "
            f"{full_precision} with > 53 significant bits"
        )
    if problems:
        return False, summary + ": " + "; ".join(problems)
    return True, summary


def significant_bits(m: int) -> int:
    """Bits of ``m > 0`` between its leading and its lowest set bit, inclusive."""
    return (m >> ((m & -m).bit_length() - 1)).bit_length()


def best_rate(run: Callable[[int], list[Any]], k: int, repeat: int) -> tuple[float, list[Any]]:
    """Best samples/s of ``repeat`` runs of ``run(k)``, and the last batch for the checks."""
    best = math.inf
    draws: list[Any] = []
    for _ in range(repeat):
        start = time.perf_counter()
        draws = run(k)
        best = min(best, time.perf_counter() - start)
    return k / best, draws


@dataclass
class OpenDP:
    dp: Any
    version: str
    int_type: str

    @classmethod
    def load(cls, int_type: str) -> OpenDP | None:
        try:
            import importlib.metadata

            import opendp.prelude as dp
        except ImportError:
            return None
        dp.enable_features("contrib")
        return cls(dp, importlib.metadata.version("opendp"), int_type)

    def bounds(self) -> tuple[int, int]:
        bits = 32 if self.int_type == "i32" else 64
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def measurement(self, point: Point) -> Any:
        dp = self.dp
        domain = dp.vector_domain(dp.atom_domain(T=self.int_type))
        if point.kind == "gaussian":
            scale = math.sqrt(point.parameter)  # OpenDP's scale is the standard deviation
            return dp.m.make_gaussian(domain, dp.l2_distance(T=self.int_type), scale=scale)
        metric = dp.l1_distance(T=self.int_type)
        return dp.m.make_laplace(domain, metric, scale=float(point.parameter))

    def measure(self, point: Point, repeat: int) -> tuple[float | None, str]:
        """Best samples/s of the measurement on 10,000 zeros, and what its outputs look like."""
        try:
            measurement = self.measurement(point)
        except Exception as error:  # OpenDP refusing a parameter is an observation
            return None, f"refused: {type(error).__name__}: {str(error).splitlines()[0]}"
        zeros = [0] * OPENDP_BATCH
        rate, draws = best_rate(lambda _k: measurement(zeros), OPENDP_BATCH, repeat)
        low, high = self.bounds()
        saturated = sum(1 for z in draws if z in (low, high))
        note = f"outputs in [{min(draws)}, {max(draws)}]"
        if saturated:
            note += f"; {saturated}/{len(draws)} saturated at the {self.int_type} bounds"
        return rate, note


def fmt_rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:,.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=10_000, help="draws per timed run of ours (default 10000)")
    parser.add_argument(
        "--baseline-k",
        type=int,
        default=2_000,
        help="draws per timed run of the paper baseline (default 2000)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; the best is kept")
    parser.add_argument(
        "--opendp-type",
        choices=["i32", "i64"],
        default="i32",
        help="OpenDP's integer type (i32 is what T=int maps to; default i32)",
    )
    parser.add_argument("--no-opendp", action="store_true", help="skip OpenDP even if installed")
    args = parser.parse_args(argv)
    if args.k < 100 or args.baseline_k < 100 or args.repeat < 1:
        parser.error("--k and --baseline-k must be >= 100 and --repeat >= 1")

    opendp = None if args.no_opendp else OpenDP.load(args.opendp_type)
    if opendp is not None:
        opendp_state = f"{opendp.version} (T={args.opendp_type})"
    else:
        opendp_state = "skipped" if args.no_opendp else "not installed"
    print(f"cores: {os.cpu_count()}, Python {platform.python_version()}, OpenDP: {opendp_state}")
    print(
        f"ours: sample_many(param, {args.k}); baseline: paper code (Fraction, "
        f"random.SystemRandom) x {args.baseline_k}; OpenDP: one call on {OPENDP_BATCH} zeros; "
        f"best of {args.repeat}"
    )
    print()

    all_correct = True
    rows = []
    for point in POINTS:
        ours, ours_draws = best_rate(point.ours(), args.k, args.repeat)
        ok_ours, sane_ours = check_outputs(point, ours_draws, args.k)
        base, base_draws = best_rate(point.baseline(), args.baseline_k, args.repeat)
        ok_base, sane_base = check_outputs(point, base_draws, args.baseline_k)
        all_correct &= ok_ours and ok_base
        if opendp is None:
            odp, odp_note = None, opendp_state
        else:
            odp, odp_note = opendp.measure(point, args.repeat)
        print(f"{point.label}")
        print(f"  ours:     {'ok ' if ok_ours else 'WRONG'} {sane_ours}")
        print(f"  baseline: {'ok ' if ok_base else 'WRONG'} {sane_base}")
        print(f"  OpenDP:   {odp_note}")
        rows.append((point, ours, base, odp, odp_note))
    print()

    header = ("point", "ours /s", "baseline /s", "x base", "OpenDP /s", "x OpenDP", "target met")
    table = []
    shortfalls = []
    for point, ours, base, odp, _note in rows:
        vs_base = ours / base
        vs_odp = None if odp is None else ours / odp
        met = []
        if point.kind == "gaussian" and point.parameter == 10**100:
            met.append(vs_base >= BASELINE_TARGET)
            if vs_base < BASELINE_TARGET:
                shortfalls.append(
                    f"{point.label}: {vs_base:.1f}x the baseline, short of "
                    f"{BASELINE_TARGET:.0f}x by {BASELINE_TARGET / vs_base:.2f}x"
                )
        if vs_odp is not None:
            met.append(vs_odp >= 1)
            if vs_odp < 1:
                shortfalls.append(
                    f"{point.label}: {vs_odp:.2f}x OpenDP ({fmt_rate(ours)} vs {fmt_rate(odp)} "
                    f"samples/s), short by {1 / vs_odp:.2f}x"
                )
        verdict = "n/a (no OpenDP)" if not met else ("yes" if all(met) else "no") + ("" if opendp else " (no OpenDP)")
        table.append(
            (
                point.label,
                fmt_rate(ours),
                fmt_rate(base),
                f"{vs_base:.1f}x",
                fmt_rate(odp) if opendp is not None else opendp_state,
                "-" if vs_odp is None else f"{vs_odp:.2f}x",
                verdict,
            )
        )
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *table]:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        print("  ".join(cells))
    print()
    for line in shortfalls:
        print(f"short: {line}")
    if not shortfalls:
        print("all targets met" if opendp else "baseline target met; OpenDP not measured")
    if not all_correct:
        print("WRONG OUTPUTS: see the checks above", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

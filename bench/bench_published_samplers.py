"""The CKS20 reference samplers, unmodified: interval width and time, renewed against as they run.

    .venv/bin/python bench/bench_published_samplers.py [--min-mass 1/100000 1/1000000]

For each case (``sample_dlaplace`` at scale 1 and 3/2, ``sample_dgauss`` at sigma2 1 and 1/2,
called with ``rng=RandomCompat(source)``) and each ``min_mass`` it enumerates the whole sampler
twice: as it runs (the baseline: every restart of every ``while True`` loop walked again) and
with ``renewal=True`` (a loop renewed where the execution comes back to a program state).  It
prints the exact unexplored mass ``U`` of each (every output's probability is known within
``U``), the executions, the seconds, and the ratio of the two times, and judges both against the
ideal PMF.  Exits 1 if a verdict is not ``proved``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from fractions import Fraction
from pathlib import Path

from dpverify.specs import DiscreteGaussianSpec, DiscreteLaplaceSpec
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._intervals import decimal_text, judge_intervals
from dpverify.verify.engine._random_compat import RandomCompat

ROOT = Path(__file__).resolve().parents[1]


def _reference():
    spec = importlib.util.spec_from_file_location("cks20_specs", ROOT / "examples" / "published" / "cks20_specs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.REFERENCE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-mass", nargs="+", default=["1/100000", "1/1000000"])
    args = parser.parse_args(argv)
    reference = _reference()
    cases = [("sample_dlaplace", "scale=1", reference.sample_dlaplace, DiscreteLaplaceSpec.create(1), Fraction(1)),
             ("sample_dlaplace", "scale=3/2", reference.sample_dlaplace, DiscreteLaplaceSpec.create("3/2"), Fraction(3, 2)),
             ("sample_dgauss", "sigma2=1", reference.sample_dgauss, DiscreteGaussianSpec.create(1), Fraction(1)),
             ("sample_dgauss", "sigma2=1/2", reference.sample_dgauss, DiscreteGaussianSpec.create("1/2"), Fraction(1, 2))]
    failed = False
    print(f"{'sampler':16} {'case':11} {'min_mass':>9}  {'as run: U':>11} {'paths':>6} {'s':>6}  "
          f"{'renewed: U':>11} {'paths':>6} {'s':>6}  time ratio")
    for name, label, sampler, spec, parameter in cases:
        for min_mass in args.min_mass:
            row = []
            for renewal in (False, True):
                started = time.perf_counter()
                found = enumerate_outputs(lambda rng: sampler(parameter, rng=RandomCompat(rng)), min_mass=min_mass,
                                          renewal=renewal, max_paths=5_000_000)
                seconds = time.perf_counter() - started
                verdict = judge_intervals(found, spec.ideal_probability, spec.outputs_for_check()).verdict.value
                failed |= verdict != "proved"
                row.append((decimal_text(found.unexplored, 3), found.paths, seconds, verdict))
            (u0, p0, s0, v0), (u1, p1, s1, v1) = row
            print(f"{name:16} {label:11} {min_mass:>9}  {u0:>11} {p0:>6} {s0:6.2f}  {u1:>11} {p1:>6} {s1:6.2f}  "
                  f"{s1 / s0:.2f}  ({v0}, {v1})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

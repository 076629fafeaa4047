"""Time to a verdict for single-site slips in the samplers, against the clean gate on the same specs.

    .venv/bin/python bench/bench_gate_faults.py [--slip NAME ...] [--seed 0] [--repeat 1] [--time-limit S]

Each slip changes one site of one file, in a private copy of the package (the installed layout that
``dpverify mutate`` builds, ``assemble_package``; the published examples are copied beside it), and
``dpverify check --spec ...`` runs on the specs whose code goes through that site.  In the same run
the clean copy is checked on the same specs, with the same seed, so the ratio slip/clean compares
two runs on one machine.  Every run is a whole ``python -m dpverify check`` process, timed with
``time.perf_counter`` (best of ``--repeat``).

The target: every slip gets its verdict, exit 1 with at least one case ``violated``, within 2x the
clean gate's time; the clean gate must pass (exit 0).  The script prints one row per slip and
exits 0 when every target is met, 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from dpverify.verify.changes._mutate_targets import assemble_package

ROOT = Path(__file__).resolve().parents[1]
#: Slip time over clean time that meets the target.
TARGET_RATIO = 2.0

LAPLACE_SPECS = (
    "dlaplace",
    "dgauss",
    "grid-laplace",
    "vector-laplace",
    "vector-gaussian",
    "vector-gaussian-sigma2",
    "mechanism-noise",
)


@dataclass(frozen=True)
class Slip:
    """One site changed: ``old`` (which occurs exactly once in ``path``) becomes ``new``."""

    name: str
    what: str
    path: str  # in the copy: dpverify/... for the package, examples/... for the published code
    old: str
    new: str
    specs: tuple[str, ...]
    spec_module: str | None = None


SLIPS = (
    Slip(
        "dlaplace-always-rejects",
        "the discrete Laplace's attempt always rejects (`if True:`)",
        "dpverify/samplers/discrete_laplace.py",
        "if not _bernoulli_exp_ratio(u, t, rng):",
        "if True:",
        LAPLACE_SPECS,
    ),
    Slip(
        "system-bernoulli-inverted",
        "SystemRandomSource.bernoulli compares the wrong way (`x > c`)",
        "dpverify/samplers/_random_source.py",
        "                return x < c",
        "                return x > c",
        ("system-source", "bernoulli", "bernoulli-exp", *LAPLACE_SPECS),
    ),
    Slip(
        "cks20-geometric-never-exits",
        "CKS20's published sample_geometric_exp_fast exits on b==0 (`if b==0:`)",
        "examples/published/cks20/discretegauss.py",
        "        if b==1:\n            break",
        "        if b==0:\n            break",
        ("cks20-reference-dlaplace", "cks20-reference-dgauss"),
        "examples.published.cks20_specs",
    ),
    Slip(
        "gtm-shifted-exponent",
        "the GTM's inner probabilities use alpha**|x - q - 1| for alpha**|x - q|",
        "dpverify/samplers/gtm.py",
        "alpha ** abs(x - q)\n",
        "alpha ** abs(x - q - 1)\n",
        ("gtm", "gtm-composed", "gtm-postprocessed"),
    ),
    Slip(
        "dlaplace-sign-bias",
        "the discrete Laplace's sign coin is 1/3 instead of 1/2",
        "dpverify/samplers/discrete_laplace.py",
        "negative = rng.bernoulli(1, 2)",
        "negative = rng.bernoulli(1, 3)",
        LAPLACE_SPECS,
    ),
)


@dataclass(frozen=True)
class Run:
    seconds: float
    code: int | None
    outcomes: Counter[str]
    caught_by: Counter[str]


def _copy(folder: Path) -> Path:
    """The package in its installed layout, and the published examples beside it."""
    assemble_package(folder)
    shutil.copytree(ROOT / "examples", folder / "examples", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder


def _apply(copy: Path, slip: Slip) -> None:
    file = copy / slip.path
    text = file.read_text(encoding="utf-8")
    if text.count(slip.old) != 1:
        raise SystemExit(
            f"slip {slip.name}: the text to change occurs {text.count(slip.old)} times in {slip.path}, "
            "not once; the samplers changed since this script was written"
        )
    file.write_text(text.replace(slip.old, slip.new), encoding="utf-8")


def _check(copy: Path, slip: Slip, seed: int, time_limit: int | None, out: Path) -> Run:
    """``python -m dpverify check`` on the code in ``copy``, timed as a whole process."""
    command = [sys.executable, "-m", "dpverify", "check", "--no-stale-proofs", "--seed", str(seed), "--json", str(out)]
    if time_limit is not None:
        command += ["--time-limit", str(time_limit)]
    if slip.spec_module is not None:
        command += ["--spec-module", slip.spec_module]
    for name in slip.specs:
        command += ["--spec", name]
    environment = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    environment.pop("PYTHONSAFEPATH", None)
    started = time.perf_counter()
    try:
        code: int | None = subprocess.run(
            command,
            check=False,
            cwd=copy,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=3600,
        ).returncode
    except subprocess.TimeoutExpired:
        code = None
    seconds = time.perf_counter() - started
    outcomes: Counter[str] = Counter()
    caught_by: Counter[str] = Counter()
    try:
        document = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        document = {"entries": []}
    for entry in document.get("entries", []):
        outcomes[entry["outcome"]] += 1
        if entry["outcome"] == "violated":
            caught_by.update(
                {c["check"] for c in entry["checks"] if c["verdict"] == "violated" and c["check"] != "timing_channel"}
            )
    return Run(seconds, code, outcomes, caught_by)


def _best(runs: list[Run]) -> Run:
    return min(runs, key=lambda run: run.seconds)


def _outcomes_text(run: Run) -> str:
    return ", ".join(f"{count} {outcome}" for outcome, count in sorted(run.outcomes.items())) or "no JSON"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--slip", action="append", choices=[s.name for s in SLIPS], help="run only this slip (repeatable; default: all)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the statistical seed of every gate run (default 0)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each gate, the best one counted (default 1)")
    parser.add_argument(
        "--time-limit",
        type=int,
        default=None,
        help="dpverify check --time-limit for every run (default: check's own, 120 s)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.seed < 0:
        parser.error("--repeat must be >= 1 and --seed >= 0")
    slips = [s for s in SLIPS if args.slip is None or s.name in args.slip]
    print(
        f"gate faults: {os.cpu_count()} cores, Python {platform.python_version()}, seed {args.seed}, "
        f"best of {args.repeat}, time limit {args.time_limit or 'default'}",
        flush=True,
    )
    print(
        f"{'slip':28} {'specs':>5} {'clean s':>8} {'slip s':>8} {'ratio':>6}  {'exit':>4}  outcomes; caught by",
        flush=True,
    )
    met_all = True
    with tempfile.TemporaryDirectory(prefix="gate-faults-") as temporary:
        folder = Path(temporary)
        clean = _copy(folder / "clean")
        for slip in slips:
            slipped = _copy(folder / slip.name)
            _apply(slipped, slip)
            clean_runs, slip_runs = [], []
            for index in range(args.repeat):  # alternate, so that drift in the machine's speed hits both
                clean_runs.append(_check(clean, slip, args.seed, args.time_limit, folder / f"clean-{index}.json"))
                slip_runs.append(
                    _check(slipped, slip, args.seed, args.time_limit, folder / f"{slip.name}-{index}.json")
                )
            base, run = _best(clean_runs), _best(slip_runs)
            ratio = run.seconds / base.seconds
            met = base.code == 0 and run.code == 1 and run.outcomes["violated"] > 0 and ratio <= TARGET_RATIO
            met_all &= met
            caught = ", ".join(f"{check} {count}" for check, count in run.caught_by.most_common()) or "-"
            print(
                f"{slip.name:28} {len(slip.specs):>5} {base.seconds:8.1f} {run.seconds:8.1f} {ratio:6.2f}  "
                f"{run.code!s:>4}  {_outcomes_text(run)}; caught by {caught}; "
                f"{'target met' if met else 'TARGET MISSED'}"
                + ("" if base.code == 0 else f" (the clean gate exited {base.code})"),
                flush=True,
            )
            shutil.rmtree(slipped)
    print(
        f"target: exit 1 with a violated case within {TARGET_RATIO:g}x the clean gate's time: "
        f"{'met for every slip' if met_all else 'MISSED'}"
    )
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: the whole default ``dpverify mutate``, and the old way of running it as a baseline.

``dpverify mutate`` runs the gate on every single-site mutant of dpverify's exact sampler
modules (see the README, "Measuring the gate").  Each gate run is now the child of a *fork
server*, an interpreter that imported SymPy, Z3, NumPy and the standard library once
(``verify/changes/_fork_server.py``), in a copy of the package that is hard links to a
byte-compiled pristine copy; before, each was a fresh ``python -m dpverify`` in a fresh copy
(``dpverify mutate --no-fork``, still available).

This script, in one run (the machine is noisy, so the baseline is measured beside it):

1. **measured**: ``dpverify mutate --jobs J --json`` on every default module, timed from the
   command's start to its end (the unmodified gate, spec by spec, included);
2. **baseline**: ``dpverify mutate --no-fork --jobs J`` on a sample of the same mutants (every
   ``--every``-th of those the first run actually ran), timed the same way; the sample's mean
   seconds per mutant in the two runs give the per-mutant speed-up;
3. **same verdicts**: each sampled mutant must have the same status in both runs (a killed
   mutant whose killing checks differ is listed: a gate stops at its first failing case); with
   ``--old-json PATH`` (a ``dpverify mutate --no-fork --json`` document of a whole run) every
   mutant is compared the same way.

Optionally (``--dask``, needs the extra ``dask``), ``dpverify mutate --scheduler`` on the first
``--dask-mutants`` of the sample with a local cluster of 1 and then 2 single-threaded worker
processes: the ratio of the two times is the scaling (2.0 would be linear).

The target: the whole default run in under ``--target`` seconds (900) with ``--jobs 2`` on a
2-core machine.  Exit code 1 if a status differs or the target is missed, 2 on bad arguments.

Usage: ``python bench/bench_mutate.py [--jobs 2] [--every 20] [--target 900] [--old-json PATH]
[--dask] [--dask-mutants 24] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Statuses a mutant gets without a gate run of its own (no spec runs its function).
NOT_RUN = "no spec runs"


def dpverify(arguments: Sequence[str], log: Path) -> float:
    """Run ``dpverify ARGUMENTS`` from the repository root, stderr to ``log``; its wall time."""
    start = time.perf_counter()
    with open(log, "w", encoding="utf-8") as errors:
        code = subprocess.run(
            [sys.executable, "-m", "dpverify", *arguments],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            check=False,
        ).returncode
    seconds = time.perf_counter() - start
    if code not in (0, 1):
        raise SystemExit(f"dpverify {' '.join(arguments[:3])} ... exited {code}; see {log}")
    return seconds


def mutants(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in document["mutants"]}


def ran(mutant: dict[str, Any]) -> bool:
    """Whether the mutant had a gate run of its own (not skipped for want of a spec running it)."""
    return mutant["specs"] != []


def checks(mutant: dict[str, Any]) -> list[str]:
    return sorted({k["check"] for k in mutant["kills"]})


def compare(new: dict[str, dict[str, Any]], old: dict[str, dict[str, Any]], what: str) -> tuple[list[str], list[str]]:
    """``(differences, notes)``: a line per mutant of ``old`` whose status differs in ``new`` (or
    is missing there), and a line per killed mutant whose killing checks share none (a gate stops
    at its first failing case, and which comes first can depend on time)."""
    differences, notes = [], []
    for identifier, before in old.items():
        after = new.get(identifier)
        if after is None:
            differences.append(f"{identifier}: in the {what} run, not in the measured one")
        elif after["status"] != before["status"]:
            differences.append(
                f"{identifier}: {before['status']} {checks(before)} in the {what} run, "
                f"{after['status']} {checks(after)} now"
            )
        elif before["status"] == "killed" and not set(checks(before)) & set(checks(after)):
            notes.append(f"{identifier}: killed by {checks(before)} in the {what} run, by {checks(after)} now")
    return differences, notes


def dask_scaling(identifiers: Sequence[str], folder: Path, jobs: int) -> list[tuple[int, float]]:
    """``(workers, seconds)`` of ``dpverify mutate --scheduler`` on ``identifiers`` with local
    clusters of 1 and 2 single-threaded worker processes."""
    from distributed import LocalCluster

    timings = []
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
            only = [a for identifier in identifiers for a in ("--only", identifier)]
            seconds = dpverify(
                [
                    "mutate",
                    *only,
                    "--scheduler",
                    cluster.scheduler_address,
                    "--json",
                    str(folder / f"dask{workers}.json"),
                ],
                folder / f"dask{workers}.log",
            )
        timings.append((workers, seconds))
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="gate runs at a time (default 2)")
    parser.add_argument("--every", type=int, default=20, help="baseline on every N-th mutant that ran (default 20)")
    parser.add_argument("--target", type=float, default=900.0, help="seconds the whole run may take (default 900)")
    parser.add_argument("--old-json", type=Path, help="a whole --no-fork run's JSON to compare every mutant with")
    parser.add_argument(
        "--dask", action="store_true", help="also measure --scheduler on local clusters of 1 and 2 workers"
    )
    parser.add_argument("--dask-mutants", type=int, default=24, help="mutants for the Dask measurement (default 24)")
    parser.add_argument("--keep", type=Path, help="keep the JSON documents and logs in this folder")
    args = parser.parse_args()
    if args.jobs < 1 or args.every < 1 or args.target <= 0 or args.dask_mutants < 1:
        parser.error("--jobs, --every and --dask-mutants must be at least 1, --target positive")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-mutate-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cores, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; files in {folder}",
        flush=True,
    )

    whole = dpverify(["mutate", "--jobs", str(args.jobs), "--json", str(folder / "new.json")], folder / "new.log")
    document = json.loads((folder / "new.json").read_text(encoding="utf-8"))
    new = mutants(document)
    statuses = Counter(m["status"] for m in new.values())
    slow = sorted(new.values(), key=lambda m: -m["seconds"])[:5]
    print(
        f"measured: dpverify mutate --jobs {args.jobs}: {len(new)} mutants in {whole:.0f} s "
        f"(unmodified gate, spec by spec: {document['gate']['baseline_seconds']:.0f} s of runs); "
        + ", ".join(f"{count} {status}" for status, count in statuses.most_common()),
        flush=True,
    )
    print("  slowest: " + "; ".join(f"{m['id']} {m['seconds']:.0f} s" for m in slow), flush=True)

    sample = [identifier for identifier, m in new.items() if ran(m)][:: args.every]
    only = [a for identifier in sample for a in ("--only", identifier)]
    old_seconds = dpverify(
        ["mutate", "--no-fork", "--jobs", str(args.jobs), *only, "--json", str(folder / "old.json")], folder / "old.log"
    )
    old = mutants(json.loads((folder / "old.json").read_text(encoding="utf-8")))
    per_old = sum(old[i]["seconds"] for i in sample) / len(sample)
    per_new = sum(new[i]["seconds"] for i in sample) / len(sample)
    print(
        f"baseline: dpverify mutate --no-fork on {len(sample)} of them (every {args.every}-th that ran): "
        f"{old_seconds:.0f} s in all; per mutant {per_old:.2f} s before, {per_new:.2f} s now: {per_old / per_new:.2f}x",
        flush=True,
    )
    differences, notes = compare(new, old, "--no-fork")
    if args.old_json is not None:
        whole_old = mutants(json.loads(args.old_json.read_text(encoding="utf-8")))
        more, more_notes = compare(new, whole_old, str(args.old_json))
        differences, notes = differences + more, notes + more_notes
        print(f"compared with {args.old_json}: {len(whole_old)} mutants", flush=True)
    print(f"same statuses: {'yes' if not differences else 'NO'}")
    for line in differences:
        print(f"  {line}")
    for line in notes:
        print(f"  (same status, other killing checks) {line}")

    if args.dask:
        timings = dask_scaling(sample[: args.dask_mutants], folder, args.jobs)
        (_, one), (_, two) = timings
        print(
            f"dask: {min(len(sample), args.dask_mutants)} mutants, 1 worker {one:.0f} s, 2 workers {two:.0f} s: "
            f"{one / two:.2f}x with twice the workers (2.00 = linear)"
        )
    met = whole < args.target
    print(
        f"target: the whole default run under {args.target:.0f} s with --jobs {args.jobs}: {whole:.0f} s, "
        f"{'met' if met else 'NOT met'}"
    )
    return 0 if met and not differences else 1


if __name__ == "__main__":
    sys.exit(main())

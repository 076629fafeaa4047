"""What the supervisor costs the clean gate: ``dpverify check`` (a parent that runs no user code,
the checks in a child) against the same checks run in one process, alternated in one run.

    .venv/bin/python bench/bench_supervisor.py [--repeat 3] [--spec NAME ...] [--target 1.10]

The baseline is ``dpverify._launch.main(ARGV)`` called from Python, which runs the command in
its own process with no supervisor (as ``dpverify mutate``'s fork server runs its gate runs).
Both runs use the same seed, and their exit codes must be equal and 0.  Each pair runs
supervised then in-process, then the next pair the other way round, so a drift of the machine's
speed falls on both; the ratio printed is the median of the per-pair ratios.  Exit 1 if the
median ratio exceeds ``--target`` (default 1.10: the supervisor may cost at most 10 %) or an exit
code differs, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

IN_PROCESS = "import sys; from dpverify._launch import main; sys.exit(main(sys.argv[1:]))"


def _timed(command: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs (default 3)")
    parser.add_argument("--spec", action="append", default=[], help="check only this spec (repeatable; default all)")
    parser.add_argument("--target", type=float, default=1.10, help="largest acceptable median ratio (default 1.10)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1; got --repeat={args.repeat}")
    arguments = ["check", "--seed", "7", *(f"--spec={name}" for name in args.spec)]
    supervised = [sys.executable, "-m", "dpverify", *arguments]
    in_process = [sys.executable, "-c", IN_PROCESS, *arguments]
    load = os.getloadavg()[0]
    print(
        f"bench_supervisor: dpverify {' '.join(arguments)}; {os.cpu_count()} cores, load {load:.1f}; "
        f"{args.repeat} pair(s), order alternating"
    )
    ratios, codes = [], set()
    for index in range(args.repeat):
        order = [supervised, in_process] if index % 2 == 0 else [in_process, supervised]
        timings = {}
        for command in order:
            seconds, code = _timed(command)
            timings[command is supervised] = seconds
            codes.add(code)
        ratio = timings[True] / timings[False]
        ratios.append(ratio)
        print(
            f"  pair {index + 1}: supervised {timings[True]:7.2f} s   in one process {timings[False]:7.2f} s   "
            f"ratio {ratio:.3f}"
        )
    median = statistics.median(ratios)
    print(
        f"median ratio supervised / in one process: {median:.3f} (target <= {args.target:.2f}); "
        f"exit codes {sorted(codes)}"
    )
    if codes != {0}:
        print("FAIL: the gate did not pass in both forms")
        return 1
    return 0 if median <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())

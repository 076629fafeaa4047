"""How long the README's two set-up commands take from a fresh clone, and what each prints last.

    python bench/bench_setup.py [--out bench/results/bench_setup.txt] [--only check|tests]

Each command runs exactly as the README prints it, in a clone of this repository's HEAD of its own
(``git clone``, so only committed files; a fresh ``.venv`` each, pip's cache as it is):

- the main job: ``python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/dpverify check``;
- the tests: ``python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest -n auto``.

The machine is shared and noisy, so the output states what it ran on (CPU, cores, memory), the load
average before and after each command, and, as the baseline measured in the same run, a fixed
pure-Python workload timed just before each command: each command's time is printed in seconds and
as a ratio to that baseline, which moves with the machine's speed and load as the command does.
The documentation quotes the seconds from the output file, with the load beside them.  Exit 1 if a
command fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "check": "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/dpverify check",
    "tests": "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest -n auto",
}


def baseline_seconds() -> float:
    """A fixed CPU-bound workload (exact integer arithmetic, as the engine does), timed once."""
    started = time.perf_counter()
    total = 0
    for k in range(1, 400_000):
        total += (k * k) % 97
    return time.perf_counter() - started


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next(
            (line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line), model
        )
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB memory"
    system = f"{platform.system()} {platform.release()}"
    return f"{model}, {os.cpu_count()} cores{memory}; {system}; Python {platform.python_version()}"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def run(name: str, command: str, head: str) -> tuple[list[str], bool]:
    with tempfile.TemporaryDirectory(prefix=f"dpverify-setup-{name}-") as scratch:
        clone = Path(scratch) / "dpverify"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", head], check=True)
        calibration = baseline_seconds()
        before = load()
        started = time.monotonic()
        done = subprocess.run(["bash", "-c", command], cwd=clone, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        after = load()
    lines = (done.stdout.strip() or done.stderr.strip() or "(no output)").splitlines()
    return [
        f"$ {command}",
        f"  exit status:   {done.returncode}",
        f"  last line:     {lines[-1].strip()}",
        f"  wall time:     {seconds:.0f} s ({seconds / 60:.1f} min); {seconds / calibration:.0f}x the baseline "
        f"({calibration:.3f} s)",
        f"  load average:  {before} before, {after} after (1, 5, 15 min)",
    ], done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "bench_setup.txt"))
    parser.add_argument("--only", choices=sorted(COMMANDS), action="append", help="one command only (repeatable)")
    args = parser.parse_args(argv)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    commit = head.stdout.strip()
    report = [
        "The README's set-up commands, each in a fresh clone with a fresh .venv (bench/bench_setup.py)",
        f"commit {commit[:12]}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"machine: {machine()}",
        "",
    ]
    ok = True
    for name in args.only or list(COMMANDS):
        print(f"{name}: {COMMANDS[name]} ...", flush=True)
        lines, passed = run(name, COMMANDS[name], commit)
        ok = ok and passed
        report += [*lines, ""]
        print("\n".join(lines), flush=True)
    Path(args.out).write_text("\n".join(report))
    print(f"wrote {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

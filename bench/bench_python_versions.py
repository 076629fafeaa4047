"""The engine's verdicts on every CPython it supports: the same verdicts, U within 10x and time within 2x of 3.11's.

    nox -s versions        # builds .nox/cpython-3.12 and .nox/cpython-3.13 (and runs their tests)
    nox -s python3.14      # builds Debian unstable's root and its /root/venv314 (needs root)
    python bench/bench_python_versions.py [--python PATH ...] [--debian-root DIR] [--skip-catalogue]

Each interpreter runs this file with ``--child``, which measures, in that interpreter:

- the CKS20 authors' published ``discretegauss.py``, unmodified (``examples/published/cks20``), the
  cases of ``bench/bench_published_samplers.py``'s first table: ``sample_dlaplace`` at scale 1, 3/2, 10
  and ``sample_dgauss`` at sigma2 1/2, 1, 2, 10, each enumerated with renewal and procedure summaries
  to its target mass and judged against the ideal PMF (verdict, exact unexplored mass ``U``,
  seconds);
- a one-token law-preserving rewrite of ``sample_dgauss`` (proposal scale ``t + 1``) and a bias bug
  (``2*sigma2+1`` for ``2*sigma2``), at sigma2 = 2: expected ``proved`` and ``violated``;
- ``dpverify check`` (the built-in catalogue) as a user runs it: its exit status and wall time.

The parent prints one table, every interpreter side by side, measured in one run, with each case's
U and time as a ratio of the first interpreter's (this one, 3.11 on CI's machine), and exits 1 if
a verdict differs, a U ratio exceeds 10 or a time ratio exceeds 2.  Environments: this
interpreter's, ``.nox/cpython-X.Y`` (``nox -s versions``), ``--python PATH`` for others, and with
``--debian-root`` the Debian root's ``/root/venv314`` (``nox -s python3.14``), run through
``ci/in-debian-root.sh``.  Times are wall-clock on a shared machine: the load average is printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
U_RATIO, TIME_RATIO = 10.0, 2.0


def _module(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _case(name: str, function: Any, spec: Any, parameter: Fraction, mass: Fraction) -> dict[str, Any]:
    from dpverify.verify.engine._enumerate import enumerate_outputs
    from dpverify.verify.engine._intervals import judge_intervals
    from dpverify.verify.engine._random_compat import RandomCompat

    started = time.perf_counter()
    found = enumerate_outputs(
        lambda rng: function(parameter, rng=RandomCompat(rng)),
        max_paths=5_000_000,
        min_mass=mass,
        renewal=True,
        procedures=True,
    )
    seconds = time.perf_counter() - started
    verdict = judge_intervals(found, spec.ideal_probability, spec.outputs_for_check()).verdict.value
    return {"case": name, "verdict": verdict, "U": str(found.unexplored), "seconds": seconds}


def child(catalogue: bool) -> dict[str, Any]:
    """This interpreter's measurements (module docstring)."""
    from dpverify.specs import DiscreteGaussianSpec, DiscreteLaplaceSpec

    published = _module(ROOT / "bench" / "bench_published_samplers.py", "bench_published_samplers")
    specs = _module(ROOT / "examples" / "published" / "cks20_specs.py", "cks20_specs")
    rows = []
    for text in ("1", "3/2", "10"):
        mass = published.TARGETS["sample_dlaplace"][0]
        function = specs.REFERENCE.sample_dlaplace
        rows.append(_case(f"dlaplace scale={text}", function, DiscreteLaplaceSpec.create(text), Fraction(text), mass))
    for text in ("1/2", "1", "2", "10"):
        mass = published.TARGETS["sample_dgauss"][0]
        function = specs.REFERENCE.sample_dgauss
        rows.append(_case(f"dgauss sigma2={text}", function, DiscreteGaussianSpec.create(text), Fraction(text), mass))
    two, mass = DiscreteGaussianSpec.create(2), Fraction(1, 10**10)
    rows.append(_case("dgauss rewrite t+1 sigma2=2", specs.PROPOSAL_PLUS_TWO.sample_dgauss, two, Fraction(2), mass))
    rows.append(_case("dgauss bias bug sigma2=2", specs.BIAS_PLUS_ONE.sample_dgauss, two, Fraction(2), mass))
    if catalogue:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "dpverify", "check"], capture_output=True, text=True, check=False, cwd=ROOT
        )
        verdict = {0: "PASS", 1: "FAIL"}.get(done.returncode, f"exit {done.returncode}")
        rows.append({"case": "dpverify check", "verdict": verdict, "U": None, "seconds": time.perf_counter() - started})
    return {"python": platform.python_version(), "implementation": platform.python_implementation(), "rows": rows}


def _run_child(command: list[str], catalogue: bool) -> dict[str, Any] | str:
    args = [*command, "bench/bench_python_versions.py", "--child", *([] if catalogue else ["--skip-catalogue"])]
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        return f"exit {done.returncode}: {(done.stderr.strip().splitlines() or ['no output'])[-1][:200]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def _interpreters(args: argparse.Namespace) -> list[tuple[str, list[str]]]:
    found = [(f"this ({platform.python_version()})", [sys.executable])]
    for environment in sorted((ROOT / ".nox").glob("cpython-3.*")):
        python = environment / "bin" / "python"
        if python.exists():
            found.append((environment.name, [str(python)]))
    found += [(path, [path]) for path in args.python]
    if args.debian_root:
        wrapper = ["bash", str(ROOT / "ci" / "in-debian-root.sh"), args.debian_root, str(ROOT), "--"]
        found.append(("debian-sid", [*wrapper, "/root/venv314/bin/python"]))
    return found


def _shown_u(u: str | None) -> str:
    return "-" if u is None else f"{float(Fraction(u)):.2g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--python", action="append", default=[], help="another interpreter (repeatable)")
    parser.add_argument("--debian-root", help="a root built by ci/debian-python-root.sh, with /root/venv314")
    parser.add_argument("--skip-catalogue", action="store_true", help="leave out dpverify check (about 1 min each)")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(not args.skip_catalogue)))
        return 0
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    results: list[tuple[str, dict[str, Any] | str]] = []
    for label, command in _interpreters(args):
        print(f"running {label} ...", flush=True)
        results.append((label, _run_child(command, not args.skip_catalogue)))
    measured = [(label, r) for label, r in results if isinstance(r, dict)]
    for label, r in results:
        if isinstance(r, str):
            print(f"{label}: no measurements ({r})")
    if not measured:
        return 1
    base = {row["case"]: row for row in measured[0][1]["rows"]}
    ok = True
    header = f"{'case':30}" + "".join(
        f" | {r['implementation'][:1]}{r['python']:>8} verdict      U      s" for _, r in measured
    )
    print("\n" + header + " | U ratio max, time ratio max")
    for case, first in base.items():
        line, u_ratio, t_ratio = f"{case:30}", 0.0, 0.0
        for _, r in measured:
            row = next((x for x in r["rows"] if x["case"] == case), None)
            if row is None:
                line += f" | {'missing':>33}"
                ok = False
                continue
            ok &= row["verdict"] == first["verdict"]
            if row["U"] is not None and first["U"] is not None:
                u_ratio = max(u_ratio, float(Fraction(row["U"]) / max(Fraction(first["U"]), Fraction(1, 10**30))))
            t_ratio = max(t_ratio, row["seconds"] / first["seconds"])
            line += f" | {row['verdict']:>17} {_shown_u(row['U']):>6} {row['seconds']:6.2f}"
        ok &= u_ratio <= U_RATIO and t_ratio <= TIME_RATIO
        print(f"{line} | {u_ratio:6.2f} {t_ratio:6.2f}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("same verdicts, U within 10x and time within 2x of the first" if ok else "A VERSION DIFFERS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

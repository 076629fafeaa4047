"""Would dpverify have found them?  The field's published implementation bugs, re-found at the affected
versions and cleared at the fixed ones.

    python bench/bench_known_findings.py [--only ID ...] [--venvs DIR] [--seed 0] [--samples 20000]
                                         [--out docs/known-findings.md]

The published record is ``bench/known_findings.json``: one row per finding a Python user can
reach, with its source (paper and section, or issue), the library, the affected and the fixed version,
the public call and the kind of audit that shows it.  Each library version is installed, pinned, in an
environment of its own (the survey's, :mod:`dpverify.verify.survey._environments`, under ``--venvs``,
named by the version and a digest of the row's extra pins),
and this file runs there with ``--child ID VERSION`` to audit that call with the audit :data:`AUDITS`
names for the row:

- ``black box``: the float-structure privacy test on the library's own randomness (a certified lower
  bound on epsilon at the claimed delta, and on delta at the claimed epsilon, at confidence 1 - 10^-6);
- ``exact at 53 bits``: the law of the release over all 2^53 values of ``random()`` by bisection;
- ``timing``: the joint law of (output, number of draws) from the library's own code, walked as it runs,
  against the output's alone (:mod:`dpverify.verify.privacy._timing_privacy`);
- ``sensitivity``: neighbouring datasets whose sum, computed by the library in doubles, differs by more
  than the declared sensitivity, found by Z3 (:mod:`dpverify.verify.privacy._float_sensitivity`) and
  re-run through the library's own aggregation.

A version that does not install here is listed with pip's reason.  A row found at its affected version
then has its standalone reproduction (``reproduction`` in the record: a script that does not import
dpverify) run in the same environment, and its output matched against ``reproduction_expects``.  The table
(``docs/known-findings.md``) gives the verdict at each version, the method, the magnitude, the seconds
and the reproduction, the recall (rows found at their affected version, among those whose affected
version installs) and the false alarms (rows violated at their fixed version).  Exit 1 if the recall is
below 80%, there is a false alarm, or a found row has no reproduction that shows it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "bench" / "known_findings.json"
TARGET_RECALL = Fraction(4, 5)

# --- audits, run in the library's own environment ---------------------------------------------------


def _statistical(verdict: str) -> str:
    """A black box's pass is "not refuted", never proved."""
    return "not refuted" if verdict == "proved" else verdict


def _privacy_check(result: Any) -> Any:
    """The black-box privacy test's result among an audited case's checks, or None if it did not run."""
    return next((c for c in result.checks if c.check == "blackbox_privacy"), None)


def _black_box(name: str, sampler: Callable[..., Any], claim: Any, seed: int, samples: int) -> dict[str, Any]:
    """The privacy test of ``sampler(x)`` at the inputs 0 and 1, on the library's own randomness."""
    from dpverify.specs._api import Case, Input, Spec
    from dpverify.verify.published._blackbox import audit_case

    spec = Spec(
        name=name,
        sampler=lambda x: sampler(x),
        parameters={},
        input=Input("x", values=lambda p: (0, 1), neighbours=1),
        claim=lambda p: claim,
        randomness="none",
        description=name,
        cases=(Case({}, "violated", "a published finding", label="published"),),
    )
    result = audit_case(spec, spec.cases[0], seed=seed, samples=samples, time_limit=600)
    privacy = _privacy_check(result)
    if privacy is None:
        return {"verdict": "inconclusive", "method": "black box", "evidence": "no privacy test ran", "magnitude": "-"}
    evidence = privacy.evidence or {}
    magnitude = (
        f"epsilon >= {evidence.get('epsilon_lower_bound_at_delta', evidence.get('epsilon_lower_bound', '-'))}; "
        f"delta >= {evidence.get('delta_lower_bound_at_epsilon_decimal', '0')} at the claimed epsilon (certified)"
    )
    return {
        "verdict": _statistical(privacy.verdict.value),
        "method": "black box",
        "evidence": privacy.summary[:300],
        "magnitude": magnitude,
    }


def _timing(
    name: str, sampler_at: Callable[[int], Callable[..., Any]], epsilon: Fraction, min_mass: Fraction
) -> dict[str, Any]:
    from dpverify.verify.privacy._timing_privacy import check_timing_privacy

    result = check_timing_privacy(sampler_at, 0, 1, epsilon, min_mass=min_mass)
    pair, alone = result.evidence["output_and_draws"], result.evidence["output"]
    return {
        "verdict": result.verdict.value,
        "method": "timing: exact joint law of (output, draws), walked as it runs",
        "evidence": result.summary[:300],
        "magnitude": f"epsilon of (output, draws) >= {pair['epsilon_lower_bound']}; "
        f"of the output alone >= {alone['epsilon_lower_bound']} (certified lower bounds)",
    }


def _cks20_dlaplace_timing(version: str, seed: int, samples: int) -> dict[str, Any]:
    """CKS20's reference ``sample_dlaplace(1)``, the code Jin et al. time: output x + noise, claimed 1-DP."""
    import importlib.util

    from dpverify.verify.engine._random_compat import RandomCompat

    spec = importlib.util.spec_from_file_location("cks20_specs", ROOT / "examples" / "published" / "cks20_specs.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    sample = module.REFERENCE.sample_dlaplace
    return _timing(
        "cks20-dlaplace",
        lambda x: lambda rng: x + sample(1, rng=RandomCompat(rng)),
        Fraction(1),
        Fraction(1, 10**5),
    )


def _tmlt_geometric_timing(version: str, seed: int, samples: int) -> dict[str, Any]:
    """Tumult Core's ``AddGeometricNoise(alpha=1)``, its own code on dpverify's source: x + noise, claimed 1-DP."""
    import numpy as np
    from tmlt.core.measurements.noise_mechanisms import AddGeometricNoise

    from dpverify.verify.engine._generator_compat import patched_generator

    measurement = AddGeometricNoise(alpha=1)

    def sampler_at(x: int) -> Callable[[Any], Any]:
        def run(source: Any) -> int:
            with patched_generator("tmlt.core.random.rng", "_core_privacy_prng", source):
                return int(measurement(np.int64(x)))

        return run

    return _timing("tmlt-geometric", sampler_at, Fraction(1), Fraction(1, 10**6))


def _numpy_laplace_exact(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``x + numpy.random.laplace(0, 10)`` (Mironov's textbook mechanism) exactly at 53 bits."""
    from dpverify.verify.survey._lib_numpy import laplace_witness

    finding = laplace_witness(Fraction(1, 10))
    # numpy documents no privacy (verify/survey/_contracts.py): a leak in its draw is a hazard of the user's release
    verdict = "hazard" if finding.verdict == "violated" else finding.verdict
    magnitude = finding.details.get("magnitude", {})
    epsilon, delta = magnitude.get("epsilon", "-"), magnitude.get("delta_at_claimed_epsilon", "-")
    return {
        "verdict": verdict,
        "method": "exact at 53 bits (numpy's own C code on chosen doubles; bisection)",
        "evidence": finding.evidence[:300],
        "magnitude": f"epsilon = {epsilon}; delta >= {delta} (exact)",
    }


def _diffprivlib_laplace(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``diffprivlib.mechanisms.Laplace(epsilon=1, sensitivity=1).randomise(x)`` as a black box."""
    from diffprivlib.mechanisms import Laplace

    from dpverify.specs._claims import PureDp

    mechanism = Laplace(epsilon=1, sensitivity=1)
    return _black_box(
        "diffprivlib-laplace", lambda x: float(mechanism.randomise(float(x))), PureDp(epsilon=1), seed, samples
    )


def _opacus_secure_mode(version: str, seed: int, samples: int) -> dict[str, Any]:
    """Opacus's ``DPOptimizer.add_noise()`` with ``secure_mode=True`` on a 0-d float32 gradient, as the survey."""
    from dpverify.verify.published._blackbox import audit_case
    from dpverify.verify.survey._lib_opacus import OPACUS_GAUSSIAN

    case = next(c for c in OPACUS_GAUSSIAN.cases if c.parameters["secure"] == 1 and c.parameters["length"] == 0)
    result = audit_case(OPACUS_GAUSSIAN, case, seed=seed, samples=samples, time_limit=600)
    privacy = next(c for c in result.checks if c.check == "blackbox_privacy")
    evidence = privacy.evidence or {}
    return {
        "verdict": _statistical(privacy.verdict.value),
        "method": "black box (seeded)",
        "evidence": privacy.summary[:300],
        "magnitude": f"rho >= {evidence.get('rho_lower_bound', '-')} (certified; claimed 1/2)",
    }


def _diffprivlib_sum_sensitivity(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``diffprivlib.tools.sum(D, bounds=(0, 1))``: Z3 finds neighbours whose sums, computed in numpy's
    order, differ by more than the declared sensitivity ``upper - lower = 1``; the pair is then run
    through diffprivlib's own ``tools.sum`` at ``epsilon = inf`` (no noise: the computed sum itself)."""
    import warnings

    from diffprivlib.tools import sum as private_sum

    from dpverify.verify.privacy._float_sensitivity import check_sum_sensitivity

    found = check_sum_sensitivity(3, 0.0, 1.0, order="numpy", timeout_ms=60_000)
    if found.status != "found" or found.witness is None:
        return {"verdict": "inconclusive", "method": "sensitivity (Z3, numpy's order)", "evidence": found.statement}
    dataset = [float(v) for v in found.witness.dataset]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diffprivlib warns that epsilon = inf gives no privacy
        before = private_sum(dataset, epsilon=float("inf"), bounds=(0, 1))
        after = private_sum([*dataset, float(found.witness.record)], epsilon=float("inf"), bounds=(0, 1))
    difference = abs(Fraction(float(after)) - Fraction(float(before)))
    verdict = "violated" if difference > 1 else "inconclusive"
    return {
        "verdict": verdict,
        "method": "sensitivity: Z3 over numpy's summation order, re-run through tools.sum",
        "evidence": f"D = {[v.hex() for v in dataset]}, D' adds {float(found.witness.record).hex()}: "
        f"tools.sum gives {float(before)!r} and {float(after)!r}, an exact difference of {difference} > 1",
        "magnitude": f"computed sensitivity >= 1 + {float(difference - 1):.3g} (declared 1), at n = 3",
    }


def _opendp_float_laplace(version: str, seed: int, samples: int) -> dict[str, Any]:
    """OpenDP's float ``make_base_laplace(scale=1)`` (0.4-0.5 API) at 0.0 and 1.0 as a black box, claimed 1-DP."""
    from opendp.meas import make_base_laplace
    from opendp.mod import enable_features

    from dpverify.specs._claims import PureDp

    enable_features("contrib", "floating-point")
    measurement = make_base_laplace(scale=1.0)
    return _black_box("opendp-float-laplace", lambda x: float(measurement(float(x))), PureDp(epsilon=1), seed, samples)


def _opendp_integer_laplace_law(version: str, seed: int, samples: int) -> dict[str, Any]:
    """OpenDP's integer ``make_laplace(scale=3)``: its law against the discrete Laplace's (the bignum division
    bug of opendp#2638 bent it), by the black-box distribution test; then the privacy test."""
    from dpverify.verify.published._blackbox import audit_case
    from dpverify.verify.published._blackbox_specs import OPENDP_DLAPLACE

    case = OPENDP_DLAPLACE.cases[0]
    case = type(case)({"scale": 3}, "proved", "the discrete Laplace at scale 3", label="scale=3")
    # the bias is a few per cent of the mass near 0: 200,000 draws per input resolve a CDF distance of 0.015
    result = audit_case(OPENDP_DLAPLACE, case, seed=seed, samples=max(samples, 200_000), time_limit=600)
    worst = next((c for c in result.checks if c.verdict.value == "violated"), None) or result.checks[0]
    return {
        "verdict": _statistical(worst.verdict.value),
        "method": f"black box ({worst.check}: the law against the ideal, and the privacy test)",
        "evidence": "; ".join(f"{c.check}: {c.summary}" for c in result.checks)[:300],
        "magnitude": "-",
    }


#: The audit of each finding of the record, by its id: ``audit(version, seed, samples)``.  The audits of
#: a library with several findings live in ``bench/known_findings/<library>.py``, whose ``AUDITS`` join these.
AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "jin-timing-cks20-dlaplace": _cks20_dlaplace_timing,
    "jin-timing-tmlt-geometric": _tmlt_geometric_timing,
    "mironov-numpy-laplace": _numpy_laplace_exact,
    "opacus-616-secure-mode": _opacus_secure_mode,
    "casacuberta-diffprivlib-sum": _diffprivlib_sum_sensitivity,
    "haney-diffprivlib-laplace": _diffprivlib_laplace,
    "haney-opendp-laplace": _opendp_float_laplace,
    "opendp-2638-dashu-bias": _opendp_integer_laplace_law,
}


def _library_audits() -> None:
    """Join the ``AUDITS`` of each module of ``bench/known_findings/`` (imported lazily: a module imports
    its library only inside its audits, so every module loads in every environment)."""
    import importlib

    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    for path in sorted((ROOT / "bench" / "known_findings").glob("[a-z]*.py")):
        module = importlib.import_module(f"known_findings.{path.stem}")
        clash = set(module.AUDITS) & set(AUDITS)
        if clash:
            raise RuntimeError(f"{path.name} audits {sorted(clash)} twice")
        AUDITS.update(module.AUDITS)


_library_audits()


def child(finding: str, version: str, seed: int, samples: int) -> dict[str, Any]:
    started = time.monotonic()
    try:
        found = AUDITS[finding](version, seed, samples)
    except ImportError as error:  # the version installs but no longer imports here (a removed dependency's API)
        return {"unavailable": f"does not import here: {type(error).__name__}: {error}"[:300]}
    except Exception as error:  # noqa: BLE001 - an audit that fails is an inconclusive cell, with the error
        found = {"verdict": "inconclusive", "method": "-", "evidence": f"{type(error).__name__}: {error}"[:300]}
    return {**found, "seconds": round(time.monotonic() - started, 2)}


# --- the orchestration: one environment per library version ------------------------------------------


def environment_name(row: dict[str, Any], version: str) -> str:
    """``LIBRARY-VERSION``, and a digest of the row's extra pins when it has any: rows that pin the same
    version differently get environments of their own instead of rebuilding each other's."""
    extra = sorted(row.get("with", ()))
    if not extra:
        return f"{row['library']}-{version}"
    return f"{row['library']}-{version}-{hashlib.sha256(chr(10).join(extra).encode()).hexdigest()[:8]}"


def _environment(row: dict[str, Any], version: str, root: Path) -> Path | str:
    """The interpreter of the row's library at ``version`` (this one for code that is not on PyPI), or
    why it does not install."""
    if row.get("pypi") is False:
        return Path(sys.executable)
    from dpverify.verify.survey._environments import EnvironmentFailed, environment
    from dpverify.verify.survey._primitive import Library

    pins = [f"{row['library']}=={version}", *row.get("with", ())]
    try:
        return environment(Library(environment_name(row, version), row["module"], tuple(pins), row["id"]), root)
    except EnvironmentFailed as error:
        return f"does not install here: {str(error)[-300:]}"


def _audit(python: Path, finding: str, version: str, seed: int, samples: int) -> dict[str, Any]:
    command = [str(python), str(Path(__file__)), "--child", finding, version, str(seed), str(samples)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT, timeout=1800)
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"verdict": "inconclusive", "method": "-", "evidence": f"exit {done.returncode}: {last[:300]}"}


def _reproduce(python: Path, row: dict[str, Any]) -> dict[str, Any]:
    """Run the row's standalone reproduction (no dpverify import) in the library's environment, and say
    whether its output shows the finding (matches the row's ``reproduction_expects``)."""
    command = [str(python), *shlex.split(row["reproduction"])]
    command[1] = str(ROOT / command[1])
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT, timeout=600)
    except subprocess.TimeoutExpired:
        return {"shown": False, "output": "ran past 600 s", "seconds": 600.0}
    seconds = round(time.monotonic() - started, 1)
    match = re.search(row["reproduction_expects"], done.stdout)
    if done.returncode == 0 and match:
        return {"shown": True, "output": match.group(0)[:200], "seconds": seconds}
    tail = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
    return {"shown": False, "output": f"exit {done.returncode}: {tail[:200]}", "seconds": seconds}


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _found(cell: dict[str, Any]) -> bool:
    return cell.get("verdict") in ("violated", "hazard")


def _counted(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The published rows whose affected version installs here (audited, or not audited yet and so
    missed), those of them found, and the false alarms (a fixed version reported violated)."""
    installable = [r for r in rows if r.get("published", True) and ("affected" in r["results"] or r.get("missed"))]
    found = [r for r in installable if "affected" in r["results"] and _found(r["results"]["affected"])]
    alarms = [r for r in rows if "fixed" in r["results"] and _found(r["results"]["fixed"])]
    return installable, found, alarms


def _unreproduced(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows found at their affected version whose standalone reproduction is missing or did not show it."""
    found = [r for r in rows if "affected" in r["results"] and _found(r["results"]["affected"])]
    return [r for r in found if not (r.get("reproduced") or {}).get("shown")]


def _reproduction_cell(row: dict[str, Any]) -> str:
    if not row.get("reproduction"):
        return "-"
    script = row["reproduction"].split()[0]
    link = f"[{Path(script).name}](../{script})" if script.startswith("docs/") else script
    reproduced = row.get("reproduced")
    if reproduced is None:
        return link
    return f"{link}: {'shows it' if reproduced['shown'] else 'does not show it'} ({reproduced['seconds']} s)"


def markdown(rows: list[dict[str, Any]], seed: int, samples: int) -> str:
    installable, found, false_alarms = _counted(rows)
    recall = Fraction(len(found), len(installable)) if installable else Fraction(0)
    unreproduced = _unreproduced(rows)
    lines = [
        "# Would dpverify have found them? The published record, re-found and cleared",
        "",
        f"Regenerate with `python bench/bench_known_findings.py` (seed {seed}, {samples} draws per input for a "
        "black box; each library version in an environment of its own).",
        "",
        f"**Recall: {len(found)} of {len(installable)} findings whose affected version installs here are found "
        f"({float(recall):.0%}). False alarms: {len(false_alarms)} (a fixed version reported violated). "
        f"Found without a standalone reproduction that shows it: {len(unreproduced)}.**",
        "",
        "| finding | source | library | affected | verdict there | fixed | verdict there | public call | method | "
        "magnitude | seconds | reproduction |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        results = row["results"]
        affected, fixed = results.get("affected", {}), results.get("fixed", {})
        lines.append(
            "| "
            + " | ".join(
                _cell(x)
                for x in (
                    row["id"],
                    row["source"],
                    row["library"],
                    row["affected_version"],
                    affected.get("verdict", row.get("affected_status", "-")),
                    row.get("fixed_version") or "none",
                    fixed.get("verdict", row.get("fixed_status", "-")),
                    f"`{row['call']}`",
                    affected.get("method", "-"),
                    affected.get("magnitude", "-"),
                    " / ".join(str(c.get("seconds", "-")) for c in (affected, fixed) if c),
                    _reproduction_cell(row),
                )
            )
            + " |"
        )
    lines += ["", "## Evidence", ""]
    for row in rows:
        for which in ("affected", "fixed"):
            cell = row["results"].get(which)
            if cell:
                version = row[f"{which}_version"]
                lines.append(f"- **{row['id']}**, {row['library']} {version}: {_cell(cell.get('evidence', '-'))}")
            elif row.get(f"{which}_status"):
                lines.append(f"- **{row['id']}**, {which} version: {_cell(row[f'{which}_status'])}")
        if row.get("reproduced"):
            lines.append(f"- **{row['id']}**, `python {row['reproduction']}`: {_cell(row['reproduced']['output'])}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=4, metavar=("ID", "VERSION", "SEED", "SAMPLES"), help=argparse.SUPPRESS)
    parser.add_argument("--only", action="append", default=[], help="only this finding (repeatable)")
    parser.add_argument("--venvs", default=str(Path("~/.cache/dpverify/known-findings").expanduser()))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--out", default=str(ROOT / "docs" / "known-findings.md"))
    args = parser.parse_args(argv)
    if args.child:
        finding, version, seed, samples = args.child
        print(json.dumps(child(finding, version, int(seed), int(samples))))
        return 0
    known = [r["id"] for r in json.loads(RECORD.read_text())]
    unknown = [identifier for identifier in args.only if identifier not in known]
    if unknown:
        parser.error(f"--only {unknown[0]!r} names no finding of {RECORD.name}; the findings: {', '.join(known)}")
    if args.samples < 2:
        parser.error(f"--samples must be an integer >= 2 (draws per input, split in halves); got {args.samples}")
    if args.seed < 0:
        parser.error(f"--seed must be an integer >= 0; got {args.seed}")
    record = [r for r in json.loads(RECORD.read_text()) if not args.only or r["id"] in args.only]
    rows = []
    for row in record:
        row = {**row, "results": {}}
        if row["id"] not in AUDITS:  # listed, and counted against the recall where its version installs
            row["affected_status"] = f"no audit here yet ({row.get('audit_kind') or 'unknown kind'})"
            row["missed"] = str((row.get("installs") or {}).get("affected") or "").startswith("installs")
            rows.append(row)
            continue
        for which in ("affected", "fixed"):
            version = row.get(f"{which}_version")
            if not version:
                continue
            python = _environment(row, version, Path(args.venvs))
            if isinstance(python, str):
                row[f"{which}_status"] = python
                print(f"{row['id']}: {row['library']} {version} ({which}): {python[:200]}", flush=True)
                continue
            print(f"{row['id']}: {row['library']} {version} ({which}) ...", flush=True)
            cell = _audit(python, row["id"], version, args.seed, args.samples)
            if "unavailable" in cell:
                row[f"{which}_status"] = cell["unavailable"]
                print(f"  {cell['unavailable'][:150]}")
                continue
            row["results"][which] = cell
            print(f"  {cell['verdict']}: {cell.get('evidence', '')[:150]}")
            if which == "affected" and _found(cell) and row.get("reproduction"):
                row["reproduced"] = _reproduce(python, row)
                print(f"  reproduction: {row['reproduced']['output'][:150]}")
        rows.append(row)
    text = markdown(rows, args.seed, args.samples)
    Path(args.out).write_text(text)
    print(f"wrote {args.out}")
    installable, found, alarms = _counted(rows)
    ok = not alarms and bool(installable) and Fraction(len(found), len(installable)) >= TARGET_RECALL
    return 0 if ok and not _unreproduced(rows) else 1


_ = math  # kept for the audits' magnitudes

if __name__ == "__main__":
    sys.exit(main())

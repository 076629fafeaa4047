"""The audit's sections gathered once per spec, not per case: the trusted base (section 1), the
certificates covering the code it runs (section 4, from one traced run of each case) and the
mutation rows (section 7); each reads the installation or a file, never a case's verdicts.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import dpverify
from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.specs._api import Case, Spec, SpecError
from dpverify.verify.gate._spec_checks import _Instance
from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound

__all__ = ["read_mutants", "trusted_base"]


# --- section 1: the trusted base -----------------------------------------------------------------


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_commit(root: Path) -> dict[str, Any] | None:
    """The checkout's commit (and whether it has uncommitted changes), None outside a checkout."""
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return {"commit": head.stdout.strip(), "modified": bool(status.stdout.strip()) if status.returncode == 0 else None}


def _z3_version() -> str | None:
    try:
        import z3
    except ImportError:  # pragma: no cover - a dependency
        return None
    return str(z3.get_version_string())


def trusted_base() -> dict[str, Any]:
    """What every verdict of the report stands on: randomness sources, interpreter, libraries."""
    from dpverify.proofs._certificates import repository_root

    root = repository_root()
    getrandom = hasattr(os, "getrandom")
    return {
        "randomness": [
            {
                "name": "SystemRandomSource",
                "role": "production",
                "source": "os.urandom" + (" (the getrandom(2) system call on this platform)" if getrandom else ""),
                "description": "the OS CSPRNG: 64-bit words turned into exact uniform draws by rejection "
                "(randbelow) and an exact binary comparison (bernoulli); this conversion is itself "
                "verified by the gate's system-source entry",
            },
            {
                "name": "SeededRandomSource",
                "role": "replay",
                "source": "SHA-256 in counter mode keyed by the seed",
                "description": "the statistical checks' source: every seed printed here replays the same draws; "
                "verified by the gate's seeded-source entry",
            },
        ],
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "platform": platform.platform(),
        "dpverify": {"version": dpverify.__version__, "location": str(root), "git": _git_commit(root)},
        "packages": {
            "sympy": _version("sympy"),
            "mpmath": _version("mpmath"),
            "z3-solver": _z3_version(),
            "cvc5": _version("cvc5"),
            "matplotlib": _version("matplotlib"),
            "rich": _version("rich"),
        },
    }


# --- section 7: mutation --------------------------------------------------------------------------


#: The largest ``--mutants`` document read (the whole project's score is a few megabytes).
MAX_MUTANTS_BYTES = 256 * 2**20


def read_mutants(path: str) -> dict[str, Any]:
    """A ``dpverify mutate --json`` document, or a one-line error.  Only a regular file of at most
    :data:`MAX_MUTANTS_BYTES` is read: a device such as ``/dev/zero`` never ends."""
    if not os.path.isfile(path):
        raise DpverifyError(
            f"--mutants must be a file (a `dpverify mutate --json` document); got --mutants={shown(path)}."
        )
    if os.path.getsize(path) > MAX_MUTANTS_BYTES:
        raise DpverifyError(
            f"--mutants={shown(path)} is larger than {MAX_MUTANTS_BYTES} bytes; a mutate document "
            "of the whole score is a few megabytes."
        )
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise DpverifyError(f"--mutants={shown(path)} cannot be read: {error.strerror or error}.") from None
    except ValueError as error:
        raise DpverifyError(
            f"--mutants={shown(path)} is not JSON ({error}); give a `dpverify mutate --json` file."
        ) from None
    if (
        not isinstance(document, dict)
        or document.get("schema") != "dpverify.mutate/1"
        or not isinstance(document.get("modules"), list)
        or not isinstance(document.get("mutants"), list)
    ):
        raise DpverifyError(
            f"--mutants={shown(path)} is not a dpverify.mutate/1 document; write one with "
            "`dpverify mutate --json PATH`."
        )
    return document


def _mutation_section(document: dict[str, Any] | None, path: str | None, modules: Sequence[str]) -> dict[str, Any]:
    if document is None:
        return {
            "applicable": False,
            "reason": "no mutation run was given (pass --mutants PATH, a `dpverify mutate --json` document)",
            "file": None,
            "modules": [],
            "mutants": [],
        }
    rows = [row for row in document["modules"] if isinstance(row, dict) and row.get("module") in modules]
    names = {row["module"] for row in rows}
    mutants = [m for m in document["mutants"] if isinstance(m, dict) and m.get("module") in names]
    if not rows:
        return {
            "applicable": False,
            "file": path,
            "modules": [],
            "mutants": [],
            "reason": "the mutation run covers "
            f"{', '.join(str(r.get('module')) for r in document['modules']) or 'no module'}, "
            f"none of the modules this spec's code runs in ({', '.join(modules) or 'none'})",
        }
    score = []
    for row in rows:
        killed, equivalent, mutants_run = row.get("killed", 0), row.get("equivalent", 0), row.get("mutants", 0)
        judged = mutants_run - equivalent
        score.append(
            {
                **row,
                "score": None if judged <= 0 else f"{killed}/{judged}",
                "score_decimal": None if judged <= 0 else round(killed / judged, 4),
            }
        )
    return {
        "applicable": True,
        "reason": None,
        "file": path,
        "passed": document.get("passed"),
        "gate": document.get("gate"),
        "modules": score,
        "mutants": [
            {k: m.get(k) for k in ("id", "module", "function", "line", "description", "status", "detail")}
            for m in mutants
            if m.get("status") != "killed"
        ],
    }


# --- section 4: certificates ----------------------------------------------------------------------


class _RunTimeUp(BaseException):
    """One traced run reached its own bound (the case's may still have time for the next)."""


def _traced(
    spec: Spec, cases: Sequence[Case], seed: int, budgets: Sequence[float | None], per_run: float
) -> tuple[set[str], set[str], list[str]]:
    """The qualified names of the functions the spec's code and closed forms run, their modules,
    and a note for each case whose code was not traced to the end.

    The sampler runs once per case on the seeded source; ``pmf``/``ideal``/``claim``/``outputs`` are
    called once; each run within ``per_run`` seconds and all of a case's runs within
    ``budgets[i]`` (what its time bound left; None: no bound; none left: nothing is run).  A
    profile hook records each Python function entered, as ``module.qualname``: the names a
    certificate's ``covers`` uses.
    """
    called: set[str] = set()
    sampler_modules: set[str] = set()
    current = {"sampler": False}
    untraced: list[str] = []

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__", "?")
            called.add(f"{module}.{frame.f_code.co_qualname}")
            if current["sampler"] and _own_module(module):
                sampler_modules.add(module)

    def traced(function: Callable[[], Any], sampler: bool = False) -> None:
        current["sampler"] = sampler
        previous = sys.getprofile()
        sys.setprofile(hook)
        try:
            function()
        except Exception:  # noqa: BLE001 - tracing is best effort; the checks report failures
            pass
        finally:
            sys.setprofile(previous)
            current["sampler"] = False

    for case, budget in zip(cases, budgets, strict=True):
        try:
            p = spec.bind(case)
            instance = _Instance(spec, p, spec.name, seed=seed, samples=1)
        except Exception:  # noqa: BLE001 - a broken case is reported by its own section
            continue
        runs = _runs(spec, case, p, instance, seed)
        cut: list[str] = []
        done = 0
        if budget is None or budget > 0:
            try:
                with time_bound(budget):
                    for name, function, sampler in runs:
                        try:
                            with time_bound(per_run, _RunTimeUp):
                                traced(function, sampler)
                        except _RunTimeUp:
                            cut.append(name)
                        done += 1
            except CaseTimeUp:
                pass
        if done < len(runs) or cut:
            reasons = [f"{', '.join(cut)} ran past {per_run:.0f} s"] if cut else []
            if done < len(runs):
                left = ", ".join(name for name, _, _ in runs[done:])
                reasons.append(
                    f"{left} not traced: "
                    + (
                        "the case used its whole time bound"
                        if budget is not None and budget <= 0
                        else f"the trace reached the {budget:.1f} s the time bound left"
                    )
                )
            untraced.append(
                f"{case.describe()}: not traced to the end ({'; '.join(reasons)}); a certificate "
                f"covering only functions the rest runs may be missing"
            )
    return called, sampler_modules, untraced


def _runs(spec: Spec, case: Case, p: Any, instance: _Instance, seed: int) -> list[tuple[str, Callable[[], Any], bool]]:
    """The calls that trace one case's code: (what it is, the call, whether it is the sampler)."""
    from dpverify.samplers import SeededRandomSource

    q = None if instance.inputs is None else instance.inputs[0]
    runs: list[tuple[str, Callable[[], Any], bool]] = []
    if spec.sampler is not None:
        runs.append(("the sampler", lambda: instance.run(q, SeededRandomSource(seed)), True))
    # spec.pmf, spec.ideal and spec.outputs are checked not None just before each lambda is made (a Spec
    # is frozen, so they stay so); mypy does not carry the narrowing of an attribute into a lambda
    if spec.pmf is not None:
        runs.append(
            (
                "the pmf",
                lambda: spec.pmf(p) if q is None else spec.pmf(p, q),  # type: ignore[misc]  # not None, see above
                False,
            )
        )
    if spec.ideal is not None and spec.outputs is not None:
        runs.append(
            (
                "the ideal PMF",
                lambda: [spec.ideal(p, o, 30) for o in list(spec.outputs(p))[:3]],  # type: ignore[misc]  # see above
                False,
            )
        )
    runs.append(("the claim", lambda: spec.claim_for(p, case), False))
    return runs


def _own_module(module: str) -> bool:
    """A module of the code under audit: not the standard library, not the engine running it."""
    top = module.partition(".")[0]
    return top not in sys.stdlib_module_names and module not in (
        "dpverify.verify.reports._audit_per_spec",
        "dpverify.verify.gate._spec_instance",
        "dpverify.verify.gate._time_bound",
    )


def _matching_labels(spec: Spec, cases: Sequence[Case]) -> set[str]:
    """``spec/label`` of the audited cases and of every declared case with the same parameters (an
    instance certificate is named after the declared case it certifies)."""
    labels = {f"{spec.name}/{case.describe()}" for case in cases}
    try:
        audited = [spec.bind(case) for case in cases]
        labels |= {f"{spec.name}/{declared.describe()}" for declared in spec.cases if spec.bind(declared) in audited}
    except SpecError:
        pass
    return labels


def _certificates_section(
    spec: Spec, cases: Sequence[Case], called: set[str], untraced: Sequence[str] = ()
) -> dict[str, Any]:
    section = _certificates(spec, cases, called)
    if untraced:  # the rows found stand; what the untraced code would add is unknown
        section["untraced"] = list(untraced)
        if not section["applicable"]:
            section["reason"] = f"inconclusive: {section['reason']}; " + "; ".join(untraced)
    return section


def _certificates(spec: Spec, cases: Sequence[Case], called: set[str]) -> dict[str, Any]:
    # proofs/ builds on verify/; only the application layer reads its manifest, and lazily.
    try:
        from dpverify.proofs._certificates import repository_root
        from dpverify.proofs._manifest import read_manifest
        from dpverify.proofs._stale import check_manifest
    except Exception as error:  # noqa: BLE001 - the proofs need z3, which is a dependency; say so if missing
        return {
            "applicable": False,
            "reason": f"the proofs package cannot be loaded: {error}",
            "manifest": None,
            "stale_check": None,
            "certificates": [],
        }
    root = repository_root()
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return {"applicable": False, "reason": str(error), "manifest": None, "stale_check": None, "certificates": []}
    if manifest is None:
        return {
            "applicable": False,
            "reason": "no proofs/manifest.json beside the installed code",
            "manifest": None,
            "stale_check": None,
            "certificates": [],
        }
    stale = check_manifest(root)
    stale_by: dict[str, list[str]] = {}
    for finding in stale.evidence.get("findings", []):
        if finding.get("certificate"):
            stale_by.setdefault(finding["certificate"], []).append(finding["message"])
    labels = _matching_labels(spec, cases)
    rows, other_instances = [], 0
    for record in manifest.certificates:
        covered = sorted(name for name in record.covers if name in called)
        if not covered and record.name not in labels:
            continue
        if record.kind != "parametric" and record.name not in labels:
            other_instances += 1  # an instance certificate of parameters not audited here
            continue
        rows.append(
            {
                "name": record.name,
                "kind": record.kind,
                "file": record.file,
                "verdict": record.verdict.value,
                "expect": record.expect.value,
                "met": record.verdict is record.expect,
                "statement": record.statement,
                "source": record.source,
                "bounded": record.bounded,
                "covers_run": covered,
                "this_case": record.name in labels,
                "stale": record.name in stale_by,
                "stale_findings": stale_by.get(record.name, []),
            }
        )
    rows.sort(key=lambda r: (not r["this_case"], r["kind"] != "parametric", r["name"]))
    reason = (
        None
        if rows
        else ("no certificate in proofs/manifest.json covers a function this spec's code or closed form runs")
    )
    return {
        "applicable": bool(rows),
        "reason": reason,
        "manifest": str(root / "proofs" / "manifest.json"),
        "solvers": dict(manifest.solvers),
        "stale_check": {"verdict": stale.verdict.value, "summary": stale.summary},
        "certificates": rows,
        "other_instances": other_instances,
    }

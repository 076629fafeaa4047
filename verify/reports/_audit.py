"""``dpverify audit``: everything the engine knows about one spec, gathered into one document.

The document (schema ``dpverify.audit/1``, ``schemas/audit-1.schema.json``) is built only from
the public spec API and the gate's own case runner (:func:`~dpverify.verify.gate._spec_run.run_case`),
so a user's plugin spec is audited exactly as a built-in one.  Its sections, in the order the
report shows them:

1. ``trusted_base`` and ``spec``: the randomness sources the verdicts stand on, the versions of
   Python and of every solver and library involved, the spec, its origin, citation, parameters
   and claim;
2. per case, ``pmfs``: the code's exact PMF next to the spec's closed form (an exhaustive or
   bisected enumeration), or the code's exact intervals around the ideal enclosures (a bounded
   enumeration), truncated to the most likely outputs with the truncation stated;
3. ``privacy``: the tightest privacy of the code with its witness, the spec's closed form, the
   ideal mechanism, and the paper's bounds where an analysis of the sampler is known;
4. ``proofs``: the case's Z3 verdicts and, once per spec (``certificates``), the certificates of
   ``proofs/manifest.json`` covering a function the spec's code or closed form runs, with
   their verdicts and whether they are stale;
5. ``statistics``: the statistical cross-checks with their seeds, false-positive bound and power;
6. ``timing``: the draw-count timing channel, where the spec asks for it;
7. ``mutation`` (once): the rows of a ``dpverify mutate --json`` document for the modules the
   spec's sampler runs in.

Every section is present; one that does not apply says why (``applicable: false``, ``reason``).
Exact rationals are ``"num/den"`` strings; floats appear only as ``*_decimal`` renderings and in
the plots' series, which are pictures, never verdicts.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from mpmath import iv

import dpverify
from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf
from dpverify.specs._api import Attempt, Bisection, Bounded, Case, Exhaustive, Randomness, Spec, SpecError
from dpverify.specs._claims import ApproxDp, Claim, PureDp, SamplesPmf, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.gate._discovery import FoundSpec
from dpverify.verify.engine._intervals import enclosure_bound
from dpverify.verify.privacy._ratio import PrivacyLoss, tightest_alpha
from dpverify.verify.engine._results import CheckResult, Verdict, epsilon_of, fraction_text, json_value
from dpverify.verify.gate._spec_run import ERROR, CaseOutcome, CaseTimeUp, _Instance, run_case, time_bound
from dpverify.verify.engine._text import _decimal as decimal_text

__all__ = ["AUDIT_SCHEMA", "MAX_INPUTS_SHOWN", "MAX_OUTPUTS_SHOWN", "Audit", "CaseAudit", "audit_spec",
           "parameters_case", "read_mutants", "trusted_base"]

AUDIT_SCHEMA = "dpverify.audit/1"
#: A PMF table shows at most this many inputs (the worst neighbouring pair always among them) ...
MAX_INPUTS_SHOWN = 6
#: ... and at most this many outputs per input, the most likely ones, in output order.
MAX_OUTPUTS_SHOWN = 40
#: Points of the delta(epsilon) curve.
DELTA_POINTS = 121
#: Digits of the decimal renderings.
DIGITS = 20
#: Seconds one traced run of a case's code may take (see ``_traced``).
TRACE_LIMIT = 10
#: The checks that come from the SMT solver.
Z3_CHECKS = ("z3", "code_z3")

Progress = Callable[[str], None]


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
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=10, check=False)
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
    root = Path(__file__).resolve().parents[1]
    getrandom = hasattr(os, "getrandom")
    return {
        "randomness": [
            {"name": "SystemRandomSource", "role": "production",
             "source": "os.urandom" + (" (the getrandom(2) system call on this platform)" if getrandom else ""),
             "description": "the OS CSPRNG: 64-bit words turned into exact uniform draws by rejection "
                            "(randbelow) and an exact binary comparison (bernoulli); this conversion is itself "
                            "verified by the gate's system-source entry"},
            {"name": "SeededRandomSource", "role": "replay",
             "source": "SHA-256 in counter mode keyed by the seed",
             "description": "the statistical checks' source: every seed printed here replays the same draws; "
                            "verified by the gate's seeded-source entry"},
        ],
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation(),
                   "executable": sys.executable},
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


# --- parameters from the command line -------------------------------------------------------------


def parameters_case(spec: Spec, pairs: Sequence[tuple[str, str]]) -> Case:
    """The case ``--NAME VALUE ...`` names: every declared parameter exactly once, validated."""
    declared = ", ".join(f"--{name}" for name in spec.parameters) or "(none)"
    given: dict[str, str] = {}
    for name, value in pairs:
        if name not in spec.parameters:
            raise DpverifyError(f"spec {shown(spec.name)} has no parameter --{name}; its parameters are {declared}.")
        if name in given:
            raise DpverifyError(f"--{name} is given twice; give each of {declared} once.")
        given[name] = value
    missing = [f"--{name}" for name in spec.parameters if name not in given]
    if missing:
        raise DpverifyError(f"spec {shown(spec.name)} needs {', '.join(missing)}; its parameters are {declared}.")
    case = Case(given, "proved", "the parameters given on the command line; the claim is expected to hold")
    try:
        spec.bind(case)
    except SpecError as error:  # a value outside the domain is the user's input, not a broken spec
        raise DpverifyError(str(error).split(": ", 2)[-1] if "outside its declared domain" in str(error)
                            else str(error)) from None
    return case


# --- section 7: mutation --------------------------------------------------------------------------


def read_mutants(path: str) -> dict[str, Any]:
    """A ``dpverify mutate --json`` document, or a one-line error."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise DpverifyError(f"--mutants={shown(path)} cannot be read: {error.strerror or error}.") from None
    except ValueError as error:
        raise DpverifyError(f"--mutants={shown(path)} is not JSON ({error}); give a `dpverify mutate --json` file.") from None
    if not isinstance(document, dict) or document.get("schema") != "dpverify.mutate/1" \
            or not isinstance(document.get("modules"), list) or not isinstance(document.get("mutants"), list):
        raise DpverifyError(f"--mutants={shown(path)} is not a dpverify.mutate/1 document; write one with "
                            "`dpverify mutate --json PATH`.")
    return document


def _mutation_section(document: dict[str, Any] | None, path: str | None, modules: Sequence[str]) -> dict[str, Any]:
    if document is None:
        return {"applicable": False, "reason": "no mutation run was given (pass --mutants PATH, a `dpverify "
                "mutate --json` document)", "file": None, "modules": [], "mutants": []}
    rows = [row for row in document["modules"] if isinstance(row, dict) and row.get("module") in modules]
    names = {row["module"] for row in rows}
    mutants = [m for m in document["mutants"] if isinstance(m, dict) and m.get("module") in names]
    if not rows:
        return {"applicable": False, "file": path, "modules": [], "mutants": [],
                "reason": f"the mutation run covers {', '.join(str(r.get('module')) for r in document['modules']) or 'no module'}, "
                          f"none of the modules this spec's code runs in ({', '.join(modules) or 'none'})"}
    score = []
    for row in rows:
        killed, equivalent, mutants_run = row.get("killed", 0), row.get("equivalent", 0), row.get("mutants", 0)
        judged = mutants_run - equivalent
        score.append({**row, "score": None if judged <= 0 else f"{killed}/{judged}",
                      "score_decimal": None if judged <= 0 else round(killed / judged, 4)})
    return {"applicable": True, "reason": None, "file": path, "passed": document.get("passed"),
            "gate": document.get("gate"), "modules": score,
            "mutants": [{k: m.get(k) for k in ("id", "module", "function", "line", "description", "status", "detail")}
                        for m in mutants if m.get("status") != "killed"]}


# --- section 4: certificates ----------------------------------------------------------------------


def _traced(spec: Spec, cases: Sequence[Case], seed: int, limit: int) -> tuple[set[str], set[str]]:
    """The qualified names of the functions the spec's code and closed forms run, and their modules.

    The sampler runs once per case on the seeded source; ``pmf``/``ideal``/``claim``/``outputs`` are
    called once.  A profile hook records each Python function entered, as ``module.qualname``:
    the names a certificate's ``covers`` uses.
    """
    from dpverify.samplers import SeededRandomSource

    called: set[str] = set()
    sampler_modules: set[str] = set()
    current = {"sampler": False}

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
            with time_bound(limit):
                function()
        except (Exception, CaseTimeUp):  # noqa: BLE001 - tracing is best effort; the checks report failures
            pass
        finally:
            sys.setprofile(previous)
            current["sampler"] = False

    for case in cases:
        try:
            p = spec.bind(case)
            instance = _Instance(spec, p, spec.name, seed=seed, samples=1)
        except Exception:  # noqa: BLE001 - a broken case is reported by its own section
            continue
        q = None if instance.inputs is None else instance.inputs[0]
        if spec.sampler is not None:
            traced(lambda: instance.run(q, SeededRandomSource(seed)), sampler=True)
        if spec.pmf is not None:
            traced(lambda: spec.pmf(p) if q is None else spec.pmf(p, q))  # type: ignore[misc]
        if spec.ideal is not None and spec.outputs is not None:
            traced(lambda: [spec.ideal(p, o, 30) for o in list(spec.outputs(p))[:3]])  # type: ignore[misc]
        traced(lambda: spec.claim_for(p, case))
    return called, sampler_modules


def _own_module(module: str) -> bool:
    """A module of the code under audit: not the standard library, not the engine running it."""
    top = module.partition(".")[0]
    return top not in sys.stdlib_module_names and module not in ("dpverify.verify.reports._audit", "dpverify.verify.gate._spec_run")


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


def _certificates_section(spec: Spec, cases: Sequence[Case], called: set[str]) -> dict[str, Any]:
    # proofs/ builds on verify/; only the application layer reads its manifest, and lazily.
    try:
        from dpverify.proofs._certificates import check_manifest, read_manifest, repository_root
    except Exception as error:  # noqa: BLE001 - the proofs need z3, which is a dependency; say so if missing
        return {"applicable": False, "reason": f"the proofs package cannot be loaded: {error}", "manifest": None,
                "stale_check": None, "certificates": []}
    root = repository_root()
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return {"applicable": False, "reason": str(error), "manifest": None, "stale_check": None, "certificates": []}
    if manifest is None:
        return {"applicable": False, "reason": "no proofs/manifest.json beside the installed code", "manifest": None,
                "stale_check": None, "certificates": []}
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
        rows.append({
            "name": record.name, "kind": record.kind, "file": record.file, "verdict": record.verdict.value,
            "expect": record.expect.value, "met": record.verdict is record.expect, "statement": record.statement,
            "source": record.source, "bounded": record.bounded, "covers_run": covered,
            "this_case": record.name in labels, "stale": record.name in stale_by,
            "stale_findings": stale_by.get(record.name, []),
        })
    rows.sort(key=lambda r: (not r["this_case"], r["kind"] != "parametric", r["name"]))
    reason = None if rows else ("no certificate in proofs/manifest.json covers a function this spec's code or "
                                "closed form runs")
    return {"applicable": bool(rows), "reason": reason, "manifest": str(root / "proofs" / "manifest.json"),
            "solvers": dict(manifest.solvers),
            "stale_check": {"verdict": stale.verdict.value, "summary": stale.summary}, "certificates": rows,
            "other_instances": other_instances}


# --- one case -----------------------------------------------------------------------------------


@dataclass
class CaseAudit:
    """One case's sections (``document``) and the series its plots draw (floats, never verdicts)."""

    document: dict[str, Any]
    series: dict[str, Any] = field(default_factory=dict)


@dataclass
class Audit:
    document: dict[str, Any]
    cases: list[CaseAudit]

    @property
    def exit_code(self) -> int:
        return int(self.document["verdict"]["exit_code"])


def _decimal(value: Fraction | None) -> str | None:
    """About 12 significant digits, for the eye; the exact value sits beside it."""
    return None if value is None else decimal_text(value)


def _ln(value: Fraction) -> float:
    return -epsilon_of(value) if value > 0 else -math.inf


def _loss_json(loss: PrivacyLoss) -> dict[str, Any]:
    return {"alpha": fraction_text(loss.alpha), "alpha_decimal": _decimal(loss.alpha),
            "epsilon": None if loss.infinite else round(loss.epsilon, 12), "infinite": loss.infinite,
            "witness": None if loss.witness is None else loss.witness.to_json()}


def _na(reason: str, **extra: Any) -> dict[str, Any]:
    return {"applicable": False, "reason": reason, **extra}


def _claim_json(claim: Claim | None) -> dict[str, Any]:
    if claim is None:
        return {"kind": None, "text": None}
    if isinstance(claim, PureDp):
        epsilon = None if claim.epsilon is None else Fraction(claim.epsilon)
        alpha = None if claim.alpha is None else Fraction(claim.alpha)
        return {"kind": "pure", "text": claim.describe(),
                "alpha": None if alpha is None else fraction_text(alpha),
                "epsilon": fraction_text(epsilon) if epsilon is not None else None,
                "epsilon_decimal": float(epsilon) if epsilon is not None else round(epsilon_of(alpha), 12)}  # type: ignore[arg-type]
    if isinstance(claim, ApproxDp):
        return {"kind": "approx", "text": claim.describe(), "epsilon": fraction_text(Fraction(claim.epsilon)),
                "delta": fraction_text(Fraction(claim.delta)), "epsilon_decimal": float(Fraction(claim.epsilon))}
    if isinstance(claim, Zcdp):
        return {"kind": "zcdp", "text": claim.describe(), "rho": fraction_text(Fraction(claim.rho))}
    return {"kind": "samples", "text": claim.describe()}


def _claim_epsilon(claim: Claim | None) -> float | None:
    """The claimed epsilon as a float, for the plots' bound lines; None where the claim has none."""
    data = _claim_json(claim)
    return data.get("epsilon_decimal") if data["kind"] in ("pure", "approx") else None


class _CaseWork:
    """Gathers one case's sections from its checks and its instance."""

    def __init__(self, found: FoundSpec, case: Case, outcome: CaseOutcome, seed: int, samples: int,
                 replay: str) -> None:
        self.spec, self.case, self.outcome, self.replay = found.spec, case, outcome, replay
        self.p = self.spec.bind(case)
        self.instance = _Instance(self.spec, self.p, f"spec {self.spec.name!r}, case {case.describe()!r}",
                                  seed=seed, samples=samples, origin=found.origin)
        self.claim = self.spec.claim_for(self.p, case)
        self.checks: dict[str, list[CheckResult]] = {}
        for check in outcome.checks:
            self.checks.setdefault(check.check, []).append(check)
        self.series: dict[str, Any] = {}
        self._ideal: dict[Any, dict[Hashable, tuple[Fraction, Fraction]]] = {}

    def first(self, name: str) -> CheckResult | None:
        found = self.checks.get(name)
        return found[0] if found else None

    # --- section 2 ----------------------------------------------------------------------------

    def exact_tables(self) -> tuple[dict[Hashable, ExactPmf], dict[Hashable, ExactPmf] | None, str]:
        """The spec's table, the code's (None if it cannot be had), and where the code's comes from."""
        spec_table = self.instance.table()
        exactness = self.first("exactness")
        if exactness is not None and exactness.verdict is Verdict.PROVED:
            methods = ", ".join(exactness.evidence.get("methods", [])) or "enumeration"
            return spec_table, spec_table, f"the code's exact PMF ({methods}; proved equal to the closed form)"
        if exactness is None:
            return spec_table, None, "the code was not enumerated: " + (
                "its enumeration is bounded, so only intervals are known" if isinstance(
                    self.instance.enumeration, (Bounded, Attempt)) else "it cannot be enumerated")
        code = self.instance.code_table()
        if code is None:
            return spec_table, None, "the code's enumeration did not finish (it crashed or ran past its budget)"
        return spec_table, code, "the code's exact PMF (enumeration or bisection), which differs from the closed form"

    def pmf_section_exact(self) -> dict[str, Any]:
        spec_table, code_table, source = self.exact_tables()
        spec_rows, pairs = self.instance._claim_table(spec_table)
        code_rows = None if code_table is None else self.instance._claim_table(code_table)[0]
        noise = self.instance.inputs is None
        loss = tightest_alpha(code_rows if code_rows is not None else spec_rows, pairs) if pairs else None
        pair = (loss.witness.q, loss.witness.q_prime) if loss is not None and loss.witness else (pairs[0] if pairs else None)
        inputs = [0] if noise else list(spec_table)
        shown_inputs = list(dict.fromkeys([*(pair if pair and not noise else ()), *inputs]))[:MAX_INPUTS_SHOWN]
        shown_inputs = [q for q in inputs if q in shown_inputs]
        tables = []
        for q in shown_inputs:
            spec_pmf = spec_table[q].as_dict()
            code_pmf = None if code_table is None else code_table[q].as_dict()
            outputs = list(dict.fromkeys([*spec_pmf, *(code_pmf or {})]))
            kept = _most_likely(outputs, lambda o: max(spec_pmf.get(o, 0), (code_pmf or {}).get(o, 0)))
            rows = [{"output": json_value(o), "spec": fraction_text(spec_pmf.get(o, Fraction(0))),
                     "code": None if code_pmf is None else fraction_text(code_pmf.get(o, Fraction(0))),
                     "equal": None if code_pmf is None else code_pmf.get(o, 0) == spec_pmf.get(o, 0)} for o in kept]
            rest = sum((spec_pmf.get(o, Fraction(0)) for o in outputs if o not in kept), Fraction(0))
            tables.append({"input": None if noise else json_value(q), "outputs_total": len(outputs),
                           "outputs_shown": len(kept), "mass_not_shown": fraction_text(rest), "rows": rows})
        truncated = []
        if len(inputs) > len(shown_inputs):
            truncated.append(f"{len(shown_inputs)} of {len(inputs)} inputs shown (the worst neighbouring pair "
                             "and the first inputs)")
        if any(t["outputs_shown"] < t["outputs_total"] for t in tables):
            truncated.append(f"at most {MAX_OUTPUTS_SHOWN} outputs per input shown, the most likely ones; the mass "
                             "of the rest is stated per input")
        # series: the worst pair's rows and one input's code-vs-spec comparison
        focus = shown_inputs[0] if noise or pair is None else pair[0]
        self._impl_series_exact(spec_table[focus], None if code_table is None else code_table[focus], focus, noise)
        if pair is not None and loss is not None and not isinstance(self.claim, SamplesPmf):
            self._pair_series_exact(spec_rows if code_rows is None else code_rows, pair, loss)
        return {"applicable": True, "reason": None, "kind": "exact", "source": source,
                "closed_form": "the spec's pmf" + (" (the noise; input q adds q)" if noise else ""),
                "inputs_total": len(inputs), "truncated": "; ".join(truncated) or None, "tables": tables,
                "_loss": loss, "_pairs": pairs, "_spec_rows": spec_rows, "_code_rows": code_rows}

    def _impl_series_exact(self, spec_pmf: ExactPmf, code_pmf: ExactPmf | None, q: Hashable, noise: bool) -> None:
        outputs = list(dict.fromkeys([*spec_pmf.outputs, *(() if code_pmf is None else code_pmf.outputs)]))
        if not all(isinstance(o, (int, Fraction)) and not isinstance(o, bool) for o in outputs):
            labels = [str(o) for o in outputs]
            xs: list[Any] = list(range(len(outputs)))
        else:
            outputs.sort()  # type: ignore[call-arg]
            labels, xs = None, [float(o) for o in outputs]
        self.series["impl"] = {
            "input": None if noise else str(q), "x": xs, "labels": labels,
            "spec": [float(spec_pmf.probability(o)) for o in outputs],
            "code": None if code_pmf is None else [float(code_pmf.probability(o)) for o in outputs],
            "kind": "exact",
        }

    def _pair_series_exact(self, rows: Mapping[Hashable, ExactPmf], pair: tuple[Hashable, Hashable],
                           loss: PrivacyLoss) -> None:
        q, q2 = pair
        a, b = rows[q].as_dict(), rows[q2].as_dict()
        outputs = list(dict.fromkeys([*a, *b]))
        numeric = all(isinstance(o, (int, Fraction)) and not isinstance(o, bool) for o in outputs)
        if numeric:
            outputs.sort()  # type: ignore[call-arg]
        xs = [float(o) for o in outputs] if numeric else list(range(len(outputs)))
        labels = None if numeric else [str(o) for o in outputs]
        pa = [a.get(o, Fraction(0)) for o in outputs]
        pb = [b.get(o, Fraction(0)) for o in outputs]
        losses = [(_ln(x) - _ln(y)) if x and y else (math.inf if x else (-math.inf if y else None))
                  for x, y in zip(pa, pb)]
        self.series["pair"] = {"q": str(q), "q_prime": str(q2), "x": xs, "labels": labels,
                               "p": [float(v) for v in pa], "p_prime": [float(v) for v in pb], "kind": "exact"}
        self.series["loss"] = {"q": str(q), "q_prime": str(q2), "x": xs, "labels": labels, "loss": losses,
                               "low": None, "high": None, "bound": _claim_epsilon(self.claim),
                               "tightest": None if loss.infinite else loss.epsilon}
        self.series["delta"] = _delta_series([float(v) for v in pa], [float(v) for v in pb], self.claim,
                                             None if loss.infinite else loss.epsilon, "the code's exact PMF")

    def pmf_section_intervals(self) -> dict[str, Any]:
        checks = self.checks.get("intervals", [])
        inputs = list(self.instance.inputs) if self.instance.inputs is not None else [None]
        if not checks:
            return _na("the interval enumeration did not run (the case stopped before it)")
        per_input: dict[Any, dict[Hashable, tuple[Fraction, Fraction]]] = {}
        tables = []
        for q, check in zip(inputs, checks):
            rows = check.evidence.get("intervals") or []
            ideal, listed = self.instance._enclosure(q)
            # the evidence holds outputs as JSON (a Fraction as "num/den"): map each back to the output itself
            real = {json.dumps(json_value(o)): o for o in listed}
            enclosures: dict[Hashable, tuple[Fraction, Fraction]] = {}
            code: dict[Hashable, tuple[Fraction, Fraction]] = {}
            table_rows = []
            for row in rows:
                output = real.get(json.dumps(row["output"]), _output_key(row["output"]))
                low, high = Fraction(row["explored"]), Fraction(row["upper"])
                lo, hi = ideal(output, 50)
                i_lo, i_hi = enclosure_bound(lo, upper=False), enclosure_bound(hi, upper=True)
                code[output], enclosures[output] = (low, high), (i_lo, i_hi)
                table_rows.append({"output": json_value(output), "code_low": fraction_text(low),
                                   "code_high": fraction_text(high), "code_low_decimal": _decimal(low),
                                   "code_high_decimal": _decimal(high), "ideal_low_decimal": _decimal(i_lo),
                                   "ideal_high_decimal": _decimal(i_hi), "inside": low <= i_lo and i_hi <= high})
            per_input[q] = code
            ordered = _sorted_outputs(list(code))
            kept = _most_likely(ordered, lambda o: code[o][0])
            tables.append({"input": None if q is None else json_value(q), "outputs_total": len(rows),
                           "outputs_shown": len(kept), "unexplored": check.evidence.get("unexplored_decimal"),
                           "mass_not_shown": None,
                           "rows": [row for output, row in sorted(zip(code, table_rows), key=lambda p: ordered.index(p[0]))
                                    if output in kept]})
            self._ideal[q] = enclosures
            if q == inputs[0]:
                self._impl_series_intervals(code, enclosures, q)
        truncated = []
        if any(t["outputs_shown"] < t["outputs_total"] for t in tables):
            truncated.append(f"at most {MAX_OUTPUTS_SHOWN} outputs per input shown, the most likely ones")
        listed = [c.evidence.get("intervals_listed") for c in checks]
        return {"applicable": True, "reason": None, "kind": "intervals",
                "source": "the code's exact intervals [explored mass, explored + unexplored mass] from a bounded "
                          "enumeration, around the spec's certified enclosures of the ideal PMF",
                "closed_form": "the spec's ideal(p, output, dps) enclosures (mpmath intervals, outward rounding)",
                "inputs_total": len(inputs), "outputs_listed": listed,
                "truncated": "; ".join(truncated) or None, "tables": tables, "_intervals": per_input}

    def _impl_series_intervals(self, code: Mapping[Hashable, tuple[Fraction, Fraction]],
                               ideal: Mapping[Hashable, tuple[Fraction, Fraction]], q: Hashable) -> None:
        outputs = _sorted_outputs(list(code))
        numeric = all(isinstance(o, int) and not isinstance(o, bool) for o in outputs)
        self.series["impl"] = {
            "input": None if q is None else str(q), "x": [float(o) for o in outputs] if numeric else list(range(len(outputs))),
            "labels": None if numeric else [str(o) for o in outputs], "kind": "intervals",
            "spec": [float((ideal[o][0] + ideal[o][1]) / 2) for o in outputs],
            "code_low": [float(code[o][0]) for o in outputs], "code_high": [float(code[o][1]) for o in outputs],
            "code": None,
        }

    # --- section 3 ----------------------------------------------------------------------------

    def privacy_exact(self, pmfs: dict[str, Any]) -> dict[str, Any]:
        claim = _claim_json(self.claim)
        if isinstance(self.claim, SamplesPmf):
            return _na("the spec claims only that the code samples its PMF: there are no neighbouring inputs "
                       "to compare", claim=claim)
        pairs = pmfs["_pairs"]
        spec_loss = tightest_alpha(pmfs["_spec_rows"], pairs)
        code_rows = pmfs["_code_rows"]
        code_loss = None if code_rows is None else tightest_alpha(code_rows, pairs)
        verdicts = [{"check": c.check, "verdict": c.verdict.value, "summary": c.summary}
                    for name in ("privacy", "code_privacy") for c in self.checks.get(name, [])]
        return {"applicable": True, "reason": None, "kind": "exact", "claim": claim,
                "neighbours": len(pairs), "code": None if code_loss is None else _loss_json(code_loss),
                "closed_form": _loss_json(spec_loss), "ideal": None, "paper": _paper(self.spec, self.p, code_loss),
                "verdicts": verdicts, "declared_checks": self._declared()}

    def privacy_intervals(self, pmfs: dict[str, Any]) -> dict[str, Any]:
        claim = _claim_json(self.claim)
        if isinstance(self.claim, SamplesPmf):
            return _na("the spec claims only that the code samples its ideal PMF: there are no neighbouring "
                       "inputs to compare", claim=claim, declared_checks=self._declared())
        code = pmfs["_intervals"]
        if self.instance.inputs is None and not all(isinstance(o, int) and not isinstance(o, bool) for o in code[None]):
            return _na("the outputs are not integers, so they cannot be shifted by a neighbouring input: the claim "
                       "is checked by the spec's declared checks", claim=claim, declared_checks=self._declared())
        if self.instance.inputs is None:  # a noise sampler: q + noise, neighbours |q - q'| <= sensitivity
            shift = self.spec.sensitivity_for(self.p)
            rows = {d: {_shifted(o, d): v for o, v in code[None].items()} for d in range(shift + 1)}
            ideal_rows = {d: {_shifted(o, d): v for o, v in self._ideal[None].items()} for d in range(shift + 1)}
            pairs = [(a, b) for a in rows for b in rows if a < b]
        else:
            rows, ideal_rows = code, self._ideal
            pairs = list(self.spec.input.pairs(self.p, self.instance.inputs))  # type: ignore[union-attr]
        code_loss = _interval_loss(rows, pairs)
        if code_loss["json"]["epsilon_high"] is None:
            return _na("the interval check lists no output that two neighbouring inputs share, so no privacy loss "
                       "is bounded here: the claim is checked by the spec's declared checks", claim=claim,
                       declared_checks=self._declared())
        ideal_loss = None if ideal_rows is None else _interval_loss(ideal_rows, pairs)
        self._pair_series_intervals(rows, pairs, code_loss)
        return {"applicable": True, "reason": None, "kind": "intervals", "claim": claim, "neighbours": len(pairs),
                "code": code_loss["json"], "closed_form": None,
                "ideal": None if ideal_loss is None else ideal_loss["json"],
                "paper": _paper(self.spec, self.p, None),
                "verdicts": [{"check": c.check, "verdict": c.verdict.value, "summary": c.summary}
                             for c in self.checks.get("intervals", [])],
                "declared_checks": self._declared()}

    def _pair_series_intervals(self, rows: Mapping[Any, Mapping[Hashable, tuple[Fraction, Fraction]]],
                               pairs: Sequence[tuple[Any, Any]], loss: dict[str, Any]) -> None:
        if not pairs:
            return
        q, q2 = loss.get("pair") or pairs[0]
        a, b = rows[q], rows[q2]
        outputs = _sorted_outputs([o for o in a if o in b])
        if not outputs or not all(isinstance(o, int) and not isinstance(o, bool) for o in outputs):
            return
        mid = lambda v: float((v[0] + v[1]) / 2)  # noqa: E731
        xs = [float(o) for o in outputs]
        low, high = [], []
        for o in outputs:
            bounds = _loss_bounds(a[o], b[o])
            low.append(bounds[0])
            high.append(bounds[1])
        self.series["pair"] = {"q": str(q), "q_prime": str(q2), "x": xs, "labels": None, "kind": "intervals",
                               "p": [mid(a[o]) for o in outputs], "p_prime": [mid(b[o]) for o in outputs]}
        self.series["loss"] = {"q": str(q), "q_prime": str(q2), "x": xs, "labels": None,
                               "loss": [(lo + hi) / 2 for lo, hi in zip(low, high)], "low": low, "high": high,
                               "bound": _claim_epsilon(self.claim), "tightest": None}
        self.series["delta"] = _delta_series([mid(a[o]) for o in outputs], [mid(b[o]) for o in outputs], self.claim,
                                             None, "the midpoints of the code's exact intervals, listed outputs only")

    def _declared(self) -> list[dict[str, Any]]:
        standard = {"smoke", "exactness", "intervals", "intervals_as_run", "batch", "refuses", "accepts",
                    "statistical", "statistical_production", "privacy", "code_privacy", "z3", "code_z3",
                    "timing_channel", "time_bound"}
        return [{"check": c.check, "verdict": c.verdict.value, "summary": c.summary}
                for c in self.outcome.checks if c.check not in standard]

    # --- sections 4 to 6 ------------------------------------------------------------------------

    def proofs(self) -> dict[str, Any]:
        rows = [{"check": c.check, "verdict": c.verdict.value, "summary": c.summary,
                 "solver": c.evidence.get("solver"), "witness": c.evidence.get("witness"),
                 "distinct_entries": c.evidence.get("distinct_entries")}
                for name in Z3_CHECKS for c in self.checks.get(name, [])]
        rows += [{"check": c["check"], "verdict": c["verdict"], "summary": c["summary"], "solver": None,
                  "witness": None, "distinct_entries": None}
                 for c in self._declared() if _is_solver_check(self.outcome, c["check"])]
        if rows:
            return {"applicable": True, "reason": None, "checks": rows}
        if isinstance(self.claim, SamplesPmf):
            why = "the spec claims no privacy, so no ratio bound is sent to Z3"
        elif self.spec.pmf is None:
            why = ("the case's law is known only through interval enclosures; Z3 decides ratio bounds on exact "
                   "tables (a parametric proof, if any, is among the certificates below)")
        elif isinstance(self.claim, PureDp) and self.claim.alpha is None:
            why = "the claim is in epsilon form, e^epsilon is irrational: it is decided with certified intervals instead"
        else:
            why = "Z3 checks the ratio form of pure DP only; this claim is checked with certified intervals"
        return {"applicable": False, "reason": why, "checks": []}

    def statistics(self) -> dict[str, Any]:
        rows = []
        for name in ("statistical", "statistical_production"):
            for c in self.checks.get(name, []):
                e = c.evidence
                rows.append({"check": c.check, "verdict": c.verdict.value, "summary": c.summary,
                             "input": e.get("q"), "seed": e.get("seed"), "samples": e.get("samples"),
                             "false_positive_rate": e.get("false_positive_rate"), "threshold": e.get("threshold"),
                             "detectable_distance": e.get("detectable_distance"),
                             "sup_distance": e.get("sup_distance", e.get("distance_outside_enclosure")),
                             "replay": e.get("replay")})
        if rows:
            return {"applicable": True, "reason": None, "replay": self.replay, "method": "Dvoretzky-Kiefer-Wolfowitz with Massart's constant: "
                    "P(sup |F_N - F| > t) <= 2 exp(-2 N t^2) = beta, a non-asymptotic false-positive bound; any CDF "
                    "distance above 2t is detected with probability >= 1 - beta (the power)", "checks": rows}
        if self.spec.sampler is None:
            why = "the spec has no Python sampler to run"
        elif self.case.sample_inputs == ():
            why = "the case samples no input (sample_inputs=()): its exact checks say everything sampling could"
        elif self.spec.pmf is None and self.spec.ideal is None:
            why = "the spec declares no PMF to sample against"
        else:
            why = "the case stopped before the statistical check (see the checks)"
        return {"applicable": False, "reason": why, "checks": []}

    def timing(self) -> dict[str, Any]:
        check = self.first("timing_channel")
        if check is None:
            why = ("the spec does not ask for the timing channel (Spec.timing is False)" if not self.spec.timing else
                   "the code cannot be enumerated, so its draw counts are unknown")
            return {"applicable": False, "reason": why}
        e = check.evidence
        return {"applicable": True, "reason": None, "verdict": check.verdict.value, "summary": check.summary,
                "claim": e.get("claim"), "information_lower_bits": e.get("information_lower_bits"),
                "information_explored_bits": e.get("information_explored_bits"),
                "draws_range": e.get("draws_range"), "unexplored_decimal": e.get("unexplored_decimal"),
                "witness": e.get("witness"), "note": "a side-channel finding: it never gates"}


def _is_solver_check(outcome: CaseOutcome, name: str) -> bool:
    return any(c.check == name and ("solver" in c.evidence or "z3" in (c.summary + name).lower())
               for c in outcome.checks)


def _output_key(value: Any) -> Hashable:
    return tuple(_output_key(v) for v in value) if isinstance(value, list) else value


def _shifted(output: Hashable, d: int) -> Hashable:
    return output + d  # type: ignore[operator]


def _sorted_outputs(outputs: list[Hashable]) -> list[Hashable]:
    try:
        return sorted(outputs)  # type: ignore[type-var]
    except TypeError:
        return sorted(outputs, key=repr)


def _most_likely(outputs: list[Hashable], mass: Callable[[Hashable], Any]) -> list[Hashable]:
    """At most :data:`MAX_OUTPUTS_SHOWN` outputs, the most likely, in their original order."""
    if len(outputs) <= MAX_OUTPUTS_SHOWN:
        return outputs
    keep = set(sorted(range(len(outputs)), key=lambda i: mass(outputs[i]), reverse=True)[:MAX_OUTPUTS_SHOWN])
    return [o for i, o in enumerate(outputs) if i in keep]


def _loss_bounds(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> tuple[float, float]:
    """Certified bounds on ``ln(P/P')`` from ``P in a``, ``P' in b`` (floats rounded outward)."""
    with interval_precision(80):
        low = iv.log(iv_rational(a[0])) - iv.log(iv_rational(b[1])) if a[0] > 0 else None
        high = iv.log(iv_rational(a[1])) - iv.log(iv_rational(b[0])) if b[0] > 0 else None
        return (-math.inf if low is None else float(low.a), math.inf if high is None else float(high.b))


def _interval_loss(rows: Mapping[Any, Mapping[Hashable, tuple[Fraction, Fraction]]],
                   pairs: Sequence[tuple[Any, Any]]) -> dict[str, Any]:
    """The largest privacy loss ``|ln P(x|q)/P(x|q')|`` over the pairs and the outputs both list,
    as certified bounds: it lies in ``[max of lower ends, max of upper ends]``."""
    best_low, best_high, at = -math.inf, -math.inf, None
    for q, q2 in pairs:
        for first, second in ((q, q2), (q2, q)):
            a, b = rows[first], rows[second]
            for output in a:
                if output not in b:
                    continue
                low, high = _loss_bounds(a[output], b[output])
                if high > best_high:
                    best_high, at = high, (first, second, output)
                best_low = max(best_low, low)
    pair = None if at is None else (at[0], at[1])
    return {"pair": pair, "json": {
        "epsilon_low": None if math.isinf(best_low) else best_low,
        "epsilon_high": None if math.isinf(best_high) else best_high,
        "at": None if at is None else {"q": json_value(at[0]), "q_prime": json_value(at[1]), "output": json_value(at[2])},
        "over": "the outputs listed by the interval check (the tails beyond them are not bounded here)",
    }}


def _delta_series(p: Sequence[float], p2: Sequence[float], claim: Claim, tightest: float | None,
                  source: str) -> dict[str, Any] | None:
    """delta(eps) = max over both directions of sum_x max(0, P(x) - e^eps P'(x)): a picture in floats."""
    top = max(x for x in (tightest, _claim_epsilon(claim), 0.5) if x is not None and math.isfinite(x)) * 1.5
    grid = [top * i / (DELTA_POINTS - 1) for i in range(DELTA_POINTS)]
    values = []
    for eps in grid:
        factor = math.exp(eps)
        values.append(max(sum(max(0.0, a - factor * b) for a, b in zip(p, p2)),
                          sum(max(0.0, b - factor * a) for a, b in zip(p, p2))))
    claimed = _claim_json(claim)
    point = None
    if claimed["kind"] == "approx":
        point = (claimed["epsilon_decimal"], float(Fraction(claimed["delta"])))
    elif claimed["kind"] == "pure":
        point = (claimed["epsilon_decimal"], 0.0)
    return {"epsilon": grid, "delta": values, "claim": point, "source": source}


# --- the paper's bounds, for samplers whose analysis dpverify knows --------------------------------


def _gtm_paper(p: Mapping[str, Any], code: PrivacyLoss | None) -> list[dict[str, Any]]:
    """Amorim, Gaboardi, Rindisbacher (paper 004): the ideal GTM, §5's support bound, Theorem 6.2's
    alpha' and Theorem 7.1's exact instances."""
    from dpverify.specs import GtmSpec

    if not {"alpha", "n", "T"} <= set(p) or p["n"] > 200:
        return []
    spec = GtmSpec.create(p["alpha"], p["n"], p["T"])
    ideal = tightest_alpha({q: spec.ideal_pmf(q) for q in spec.inputs()}, spec.neighbours())
    alpha_prime = spec.theorem_6_2_alpha_prime()
    rows = [
        {"name": "ideal GTM (gtpmf)", "value": fraction_text(ideal.alpha), "value_decimal": _decimal(ideal.alpha),
         "meaning": "the tightest alpha of the ideal geometric truncated mechanism, computed exactly",
         "holds": None if code is None else code.alpha >= ideal.alpha, "source": "paper 004 §2 (gtpmf)"},
        {"name": "support bound", "value": fraction_text(spec.support_bound()),
         "value_decimal": _decimal(spec.support_bound()),
         "meaning": f"T >= (1+alpha)/((1-alpha) alpha^n) makes every output possible; T = {spec.T}",
         "holds": spec.T >= spec.support_bound(), "source": "paper 004 §5"},
        {"name": "Theorem 6.2 alpha'", "value": fraction_text(alpha_prime), "value_decimal": _decimal(alpha_prime),
         "meaning": "the degraded ratio the rounded code keeps" + (" (vacuous: T <= 1/D)" if alpha_prime <= 0 else ""),
         "holds": None if code is None else code.alpha >= alpha_prime, "source": "paper 004 Theorem 6.2"},
        {"name": "Theorem 7.1 instance", "value": "yes" if spec.is_theorem_7_1_instance() else "no",
         "value_decimal": None,
         "meaning": "alpha = 1/D and T = (D+1) D^n: the code samples gtpmf exactly, so alpha itself holds",
         "holds": None if code is None or not spec.is_theorem_7_1_instance() else code.alpha >= spec.alpha,
         "source": "paper 004 Theorem 7.1"},
    ]
    return rows


#: Analyses of particular samplers' papers, keyed by the sampler's qualified name.
PAPER_ANALYSES: dict[str, Callable[[Mapping[str, Any], PrivacyLoss | None], list[dict[str, Any]]]] = {
    "dpverify.samplers.gtm.sample": _gtm_paper,
}


def _paper(spec: Spec, p: Mapping[str, Any], code: PrivacyLoss | None) -> list[dict[str, Any]]:
    sampler = spec.sampler
    key = f"{getattr(sampler, '__module__', '')}.{getattr(sampler, '__qualname__', '')}"
    analysis = PAPER_ANALYSES.get(key)
    return [] if analysis is None else analysis(p, code)


# --- the whole audit ------------------------------------------------------------------------------


def _case_audit(found: FoundSpec, case: Case, *, seed: int, samples: int, time_limit: int | None,
                progress: Progress, replay: str) -> CaseAudit:
    spec = found.spec
    progress(f"{case.describe()}: running the checks")
    outcome = run_case(spec, case, seed=seed, samples=samples, origin=found.origin, time_limit=time_limit)
    head = {key: value for key, value in outcome.to_json().items()}
    head["label"] = case.describe()
    if outcome.outcome == ERROR:
        reason = f"the spec cannot be checked as written: {outcome.error}"
        return CaseAudit({**head, "pmfs": _na(reason), "privacy": _na(reason), "proofs": _na(reason, checks=[]),
                          "statistics": _na(reason, checks=[]), "timing": _na(reason)})
    work = _CaseWork(found, case, outcome, seed, samples, replay)
    timed_out = any(c.check == "time_bound" or "time_limit_s" in c.evidence for c in outcome.checks)
    progress(f"{case.describe()}: exact tables and privacy")
    pmfs: dict[str, Any]
    privacy: dict[str, Any]
    try:
        with time_bound(time_limit):
            if timed_out:
                raise CaseTimeUp
            if spec.pmf is not None:
                pmfs = work.pmf_section_exact()
                privacy = work.privacy_exact(pmfs)
            elif spec.ideal is not None and work.instance.enumerable:
                pmfs = work.pmf_section_intervals()
                privacy = work.privacy_intervals(pmfs) if pmfs["applicable"] else _na(pmfs["reason"])
            else:
                why = ("the spec declares no pmf or ideal PMF: its claim is checked by its declared checks only"
                       if spec.sampler is not None else "the spec has no Python sampler: its mechanism is modelled "
                       "inside its declared checks")
                pmfs = _na(why)
                privacy = _na(why, claim=_claim_json(work.claim), declared_checks=work._declared())
    except CaseTimeUp:
        why = f"not computed: the case reached its time bound ({time_limit} s)"
        pmfs, privacy = _na(why), _na(why, claim=_claim_json(work.claim), declared_checks=work._declared())
    except Exception as error:  # noqa: BLE001 - the report is still written, and says what stopped it
        why = f"the audit could not compute this section: {type(error).__name__}: {str(error)[:200]}"
        pmfs, privacy = _na(why), _na(why, claim=_claim_json(work.claim), declared_checks=work._declared())
        work.series.clear()
    pmfs = {k: v for k, v in pmfs.items() if not k.startswith("_")}
    document = {**head, "claim": _claim_json(work.claim), "pmfs": pmfs, "privacy": privacy,
                "proofs": work.proofs(), "statistics": work.statistics(), "timing": work.timing()}
    return CaseAudit(document, work.series)


def audit_spec(found: FoundSpec, cases: Sequence[Case], *, seed: int, samples: int, time_limit: int | None,
               mutants: dict[str, Any] | None = None, mutants_path: str | None = None, command: str = "",
               progress: Progress | None = None) -> Audit:
    """Audit ``cases`` of ``found``'s spec: the whole ``dpverify.audit/1`` document and the plots' series."""
    say = progress or (lambda stage: None)
    spec = found.spec
    started = time.monotonic()
    audits = [_case_audit(found, case, seed=seed, samples=samples, time_limit=time_limit, progress=say,
                          replay=command or f"dpverify audit {spec.name} --seed {seed} --samples {samples}")
              for case in cases]
    say("certificates and mutation results")
    # one run of each case's code, bounded: a sampler that hangs has already been judged by its case
    called, sampler_modules = _traced(spec, cases, seed, min(time_limit or TRACE_LIMIT, TRACE_LIMIT))
    certificates = _certificates_section(spec, cases, called)
    own = getattr(spec.sampler, "__module__", None)
    modules = sorted(sampler_modules | ({own} if isinstance(own, str) else set()))
    mutation = _mutation_section(mutants, mutants_path, modules)
    documents = [a.document for a in audits]
    broken = [d for d in documents if d["outcome"] == ERROR]
    unmet = [d for d in documents if not d["met"]]
    exit_code = 2 if broken else 1 if unmet else 0
    if broken:
        summary = f"{len(broken)} of {len(documents)} case(s) cannot be checked: the spec is broken"
    elif unmet:
        summary = f"{len(unmet)} of {len(documents)} case(s) missed their expectation"
    else:
        summary = f"all {len(documents)} case(s) met their expectation"
    sampler = spec.sampler
    document = {
        "schema": AUDIT_SCHEMA,
        "command": command,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.monotonic() - started, 2),
        "verdict": {"passed": exit_code == 0, "exit_code": exit_code, "summary": summary,
                    "cases": len(documents), "met": len(documents) - len(unmet)},
        "trusted_base": trusted_base(),
        "spec": {
            "name": spec.name, "origin": found.origin, "builtin": found.builtin, "description": spec.description,
            "citation": spec.citation,
            "sampler": None if sampler is None else f"{getattr(sampler, '__module__', '?')}.{getattr(sampler, '__qualname__', repr(sampler))}",
            "sampler_modules": modules,
            "parameters": {name: domain.describe() for name, domain in spec.parameters.items()},
            "input": None if spec.input is None else {"name": spec.input.name, "neighbours": spec.input.neighbours
                                                      if isinstance(spec.input.neighbours, (int, str)) else "declared pairs"},
            "randomness": Randomness(spec.randomness).value,
            "enumeration": _enumeration_text(spec),
            "timing": spec.timing,
        },
        "options": {"seed": seed, "samples": samples, "time_limit": time_limit, "mutants": mutants_path},
        "cases": documents,
        "certificates": certificates,
        "mutation": mutation,
    }
    return Audit(document, audits)


def _enumeration_text(spec: Spec) -> str:
    enumeration = spec.enumeration_for()
    if enumeration is None:
        return "none: the code's draws are not enumerated (statistical checks only)"
    if isinstance(enumeration, Exhaustive):
        return f"exhaustive: every random choice, up to {enumeration.max_paths} paths"
    if isinstance(enumeration, Bisection):
        return "bisection of the one uniform draw (every draw enumerated up to 4096)"
    if isinstance(enumeration, Bounded):
        return f"bounded: branches lighter than {fraction_text(Fraction(enumeration.min_mass))} left unexplored, loops summarised"
    return f"attempt: one attempt enumerated to {fraction_text(Fraction(enumeration.min_mass))}, the loop by renewal"

"""One case's audit: its checks run by the gate's case runner, then sections 2 to 6 (PMFs, privacy,
Z3 verdicts, statistics, timing) gathered from them and from the case's instance, with the
series its plots draw; the per-spec sections and the whole document are the callers' work.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

from dpverify.specs import ExactPmf
from dpverify.specs._api import Attempt, Bounded, Case
from dpverify.specs._claims import PureDp, SamplesPmf
from dpverify.verify.engine._intervals import enclosure_bound
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.gate._discovery import FoundSpec
from dpverify.verify.gate._spec_checks import _Instance
from dpverify.verify.gate._spec_run import ERROR, CaseOutcome, run_case
from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound
from dpverify.verify.privacy._ratio import PrivacyLoss, tightest_alpha
from dpverify.verify.reports._audit_privacy import (
    _claim_epsilon,
    _claim_json,
    _decimal,
    _delta_series,
    _interval_loss,
    _ln,
    _loss_bounds,
    _loss_json,
    _paper,
)

__all__ = ["MAX_INPUTS_SHOWN", "MAX_OUTPUTS_SHOWN", "Z3_CHECKS", "CaseAudit", "Progress"]

#: A PMF table shows at most this many inputs (the worst neighbouring pair always among them) ...
MAX_INPUTS_SHOWN = 6
#: ... and at most this many outputs per input, the most likely ones, in output order.
MAX_OUTPUTS_SHOWN = 40
#: The checks that come from the SMT solver.
Z3_CHECKS = ("z3", "code_z3")

Progress = Callable[[str], None]


# --- one case -----------------------------------------------------------------------------------


@dataclass
class CaseAudit:
    """One case's sections (``document``) and the series its plots draw (floats, never verdicts)."""

    document: dict[str, Any]
    series: dict[str, Any] = field(default_factory=dict)


def _na(reason: str, **extra: Any) -> dict[str, Any]:
    return {"applicable": False, "reason": reason, **extra}


class _CaseWork:
    """Gathers one case's sections from its checks and its instance."""

    def __init__(
        self, found: FoundSpec, case: Case, outcome: CaseOutcome, seed: int, samples: int, replay: str
    ) -> None:
        self.spec, self.case, self.outcome, self.replay = found.spec, case, outcome, replay
        self.p = self.spec.bind(case)
        self.instance = _Instance(
            self.spec,
            self.p,
            f"spec {self.spec.name!r}, case {case.describe()!r}",
            seed=seed,
            samples=samples,
            origin=found.origin,
        )
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
            return (
                spec_table,
                None,
                "the code was not enumerated: "
                + (
                    "its enumeration is bounded, so only intervals are known"
                    if isinstance(self.instance.enumeration, (Bounded, Attempt))
                    else "it cannot be enumerated"
                ),
            )
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
        pair = (
            (loss.witness.q, loss.witness.q_prime)
            if loss is not None and loss.witness
            else (pairs[0] if pairs else None)
        )
        inputs = [0] if noise else list(spec_table)
        shown_inputs = list(dict.fromkeys([*(pair if pair and not noise else ()), *inputs]))[:MAX_INPUTS_SHOWN]
        shown_inputs = [q for q in inputs if q in shown_inputs]
        tables: list[dict[str, Any]] = []
        for q in shown_inputs:
            spec_pmf = spec_table[q].as_dict()
            code_pmf = None if code_table is None else code_table[q].as_dict()
            outputs = list(dict.fromkeys([*spec_pmf, *(code_pmf or {})]))
            kept = _most_likely(outputs, functools.partial(_larger_mass, spec_pmf, code_pmf))
            rows = [
                {
                    "output": json_value(o),
                    "spec": fraction_text(spec_pmf.get(o, Fraction(0))),
                    "code": None if code_pmf is None else fraction_text(code_pmf.get(o, Fraction(0))),
                    "equal": None if code_pmf is None else code_pmf.get(o, 0) == spec_pmf.get(o, 0),
                }
                for o in kept
            ]
            rest = sum((spec_pmf.get(o, Fraction(0)) for o in outputs if o not in kept), Fraction(0))
            tables.append(
                {
                    "input": None if noise else json_value(q),
                    "outputs_total": len(outputs),
                    "outputs_shown": len(kept),
                    "mass_not_shown": fraction_text(rest),
                    "rows": rows,
                }
            )
        truncated = []
        if len(inputs) > len(shown_inputs):
            truncated.append(
                f"{len(shown_inputs)} of {len(inputs)} inputs shown (the worst neighbouring pair and the first inputs)"
            )
        if any(t["outputs_shown"] < t["outputs_total"] for t in tables):
            truncated.append(
                f"at most {MAX_OUTPUTS_SHOWN} outputs per input shown, the most likely ones; the mass "
                "of the rest is stated per input"
            )
        # series: the worst pair's rows and one input's code-vs-spec comparison
        focus = shown_inputs[0] if noise or pair is None else pair[0]
        self._impl_series_exact(spec_table[focus], None if code_table is None else code_table[focus], focus, noise)
        if pair is not None and loss is not None and not isinstance(self.claim, SamplesPmf):
            self._pair_series_exact(spec_rows if code_rows is None else code_rows, pair, loss)
        return {
            "applicable": True,
            "reason": None,
            "kind": "exact",
            "source": source,
            "closed_form": "the spec's pmf" + (" (the noise; input q adds q)" if noise else ""),
            "inputs_total": len(inputs),
            "truncated": "; ".join(truncated) or None,
            "tables": tables,
            "_loss": loss,
            "_pairs": pairs,
            "_spec_rows": spec_rows,
            "_code_rows": code_rows,
        }

    def _impl_series_exact(self, spec_pmf: ExactPmf, code_pmf: ExactPmf | None, q: Hashable, noise: bool) -> None:
        outputs = list(dict.fromkeys([*spec_pmf.outputs, *(() if code_pmf is None else code_pmf.outputs)]))
        if not all(isinstance(o, (int, Fraction)) and not isinstance(o, bool) for o in outputs):
            labels = [str(o) for o in outputs]
            xs: list[Any] = list(range(len(outputs)))
        else:
            outputs.sort()  # type: ignore[call-arg]  # ints/Fractions (checked above)
            # every output is an int or a Fraction (checked above)
            labels, xs = None, [float(cast("int | Fraction", o)) for o in outputs]
        self.series["impl"] = {
            "input": None if noise else str(q),
            "x": xs,
            "labels": labels,
            "spec": [float(spec_pmf.probability(o)) for o in outputs],
            "code": None if code_pmf is None else [float(code_pmf.probability(o)) for o in outputs],
            "kind": "exact",
        }

    def _pair_series_exact(
        self, rows: Mapping[Hashable, ExactPmf], pair: tuple[Hashable, Hashable], loss: PrivacyLoss
    ) -> None:
        q, q2 = pair
        a, b = rows[q].as_dict(), rows[q2].as_dict()
        outputs = list(dict.fromkeys([*a, *b]))
        numeric = all(isinstance(o, (int, Fraction)) and not isinstance(o, bool) for o in outputs)
        if numeric:
            outputs.sort()  # type: ignore[call-arg]  # numeric: ints/Fractions
        # numeric: every output is an int or a Fraction
        xs = [float(cast("int | Fraction", o)) for o in outputs] if numeric else list(range(len(outputs)))
        labels = None if numeric else [str(o) for o in outputs]
        pa = [a.get(o, Fraction(0)) for o in outputs]
        pb = [b.get(o, Fraction(0)) for o in outputs]
        losses = [
            (_ln(x) - _ln(y)) if x and y else (math.inf if x else (-math.inf if y else None))
            for x, y in zip(pa, pb, strict=True)
        ]
        self.series["pair"] = {
            "q": str(q),
            "q_prime": str(q2),
            "x": xs,
            "labels": labels,
            "p": [float(v) for v in pa],
            "p_prime": [float(v) for v in pb],
            "kind": "exact",
        }
        self.series["loss"] = {
            "q": str(q),
            "q_prime": str(q2),
            "x": xs,
            "labels": labels,
            "loss": losses,
            "low": None,
            "high": None,
            "bound": _claim_epsilon(self.claim),
            "tightest": None if loss.infinite else loss.epsilon,
        }
        self.series["delta"] = _delta_series(
            [float(v) for v in pa],
            [float(v) for v in pb],
            self.claim,
            None if loss.infinite else loss.epsilon,
            "the code's exact PMF",
        )

    def pmf_section_intervals(self) -> dict[str, Any]:
        checks = self.checks.get("intervals", [])
        inputs = list(self.instance.inputs) if self.instance.inputs is not None else [None]
        if not checks:
            return _na("the interval enumeration did not run (the case stopped before it)")
        per_input: dict[Any, dict[Hashable, tuple[Fraction, Fraction]]] = {}
        tables: list[dict[str, Any]] = []
        # a case stopped in this stage has one check for all its inputs: the inputs it has no check for are left out
        for q, check in zip(inputs, checks, strict=False):
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
                table_rows.append(
                    {
                        "output": json_value(output),
                        "code_low": fraction_text(low),
                        "code_high": fraction_text(high),
                        "code_low_decimal": _decimal(low),
                        "code_high_decimal": _decimal(high),
                        "ideal_low_decimal": _decimal(i_lo),
                        "ideal_high_decimal": _decimal(i_hi),
                        "inside": low <= i_lo and i_hi <= high,
                    }
                )
            per_input[q] = code
            ordered = _sorted_outputs(list(code))
            kept = _most_likely(ordered, functools.partial(_low_end, code))
            tables.append(
                {
                    "input": None if q is None else json_value(q),
                    "outputs_total": len(rows),
                    "outputs_shown": len(kept),
                    "unexplored": check.evidence.get("unexplored_decimal"),
                    "tv_bound": check.evidence.get("tv_bound_decimal"),
                    "mass_not_shown": None,
                    "rows": [
                        row
                        for output, row in sorted(zip(code, table_rows, strict=True), key=lambda p: ordered.index(p[0]))
                        if output in kept
                    ],
                }
            )
            self._ideal[q] = enclosures
            if q == inputs[0]:
                self._impl_series_intervals(code, enclosures, q)
        truncated = []
        if any(t["outputs_shown"] < t["outputs_total"] for t in tables):
            truncated.append(f"at most {MAX_OUTPUTS_SHOWN} outputs per input shown, the most likely ones")
        outputs_listed = [c.evidence.get("intervals_listed") for c in checks]
        return {
            "applicable": True,
            "reason": None,
            "kind": "intervals",
            "source": "the code's exact intervals [explored mass, explored + unexplored mass] from a bounded "
            "enumeration, around the spec's certified enclosures of the ideal PMF",
            "closed_form": "the spec's ideal(p, output, dps) enclosures (mpmath intervals, outward rounding)",
            "inputs_total": len(inputs),
            "outputs_listed": outputs_listed,
            "truncated": "; ".join(truncated) or None,
            "tables": tables,
            "_intervals": per_input,
        }

    def _impl_series_intervals(
        self,
        code: Mapping[Hashable, tuple[Fraction, Fraction]],
        ideal: Mapping[Hashable, tuple[Fraction, Fraction]],
        q: Hashable,
    ) -> None:
        outputs = _sorted_outputs(list(code))
        numeric = all(isinstance(o, int) and not isinstance(o, bool) for o in outputs)
        self.series["impl"] = {
            "input": None if q is None else str(q),
            # numeric: every output is an int
            "x": [float(cast(int, o)) for o in outputs] if numeric else list(range(len(outputs))),
            "labels": None if numeric else [str(o) for o in outputs],
            "kind": "intervals",
            "spec": [float((ideal[o][0] + ideal[o][1]) / 2) for o in outputs],
            "code_low": [float(code[o][0]) for o in outputs],
            "code_high": [float(code[o][1]) for o in outputs],
            "code": None,
        }

    # --- section 3 ----------------------------------------------------------------------------

    def privacy_exact(self, pmfs: dict[str, Any]) -> dict[str, Any]:
        claim = _claim_json(self.claim)
        if isinstance(self.claim, SamplesPmf):
            return _na(
                "the spec claims only that the code samples its PMF: there are no neighbouring inputs to compare",
                claim=claim,
            )
        pairs = pmfs["_pairs"]
        spec_loss = tightest_alpha(pmfs["_spec_rows"], pairs)
        code_rows = pmfs["_code_rows"]
        code_loss = None if code_rows is None else tightest_alpha(code_rows, pairs)
        verdicts = [_verdict_row(c) for name in ("privacy", "code_privacy") for c in self.checks.get(name, [])]
        return {
            "applicable": True,
            "reason": None,
            "kind": "exact",
            "claim": claim,
            "neighbours": len(pairs),
            "code": None if code_loss is None else _loss_json(code_loss),
            "closed_form": _loss_json(spec_loss),
            "ideal": None,
            "paper": _paper(self.spec, self.p, code_loss),
            "verdicts": verdicts,
            "declared_checks": self._declared(),
        }

    def privacy_intervals(self, pmfs: dict[str, Any]) -> dict[str, Any]:
        claim = _claim_json(self.claim)
        if isinstance(self.claim, SamplesPmf):
            return _na(
                "the spec claims only that the code samples its ideal PMF: there are no neighbouring inputs to compare",
                claim=claim,
                declared_checks=self._declared(),
            )
        code = pmfs["_intervals"]
        if self.instance.inputs is None and not all(isinstance(o, int) and not isinstance(o, bool) for o in code[None]):
            return _na(
                "the outputs are not integers, so they cannot be shifted by a neighbouring input: the claim "
                "is checked by the spec's declared checks",
                claim=claim,
                declared_checks=self._declared(),
            )
        pairs: list[tuple[Hashable, Hashable]]
        if self.instance.inputs is None:  # a noise sampler: q + noise, neighbours |q - q'| <= sensitivity
            shift = self.spec.sensitivity_for(self.p)
            rows = {d: {_shifted(o, d): v for o, v in code[None].items()} for d in range(shift + 1)}
            ideal_rows = {d: {_shifted(o, d): v for o, v in self._ideal[None].items()} for d in range(shift + 1)}
            pairs = [(a, b) for a in rows for b in rows if a < b]
        else:
            rows, ideal_rows = code, self._ideal
            # spec.input is set exactly when instance.inputs is (_BoundSpec.__init__), and inputs is set here
            pairs = list(self.spec.input.pairs(self.p, self.instance.inputs))  # type: ignore[union-attr]  # see above
        code_loss = _interval_loss(rows, pairs)
        if code_loss["json"]["epsilon_high"] is None:
            return _na(
                "the interval check lists no output that two neighbouring inputs share, so no privacy loss "
                "is bounded here: the claim is checked by the spec's declared checks",
                claim=claim,
                declared_checks=self._declared(),
            )
        ideal_loss = None if ideal_rows is None else _interval_loss(ideal_rows, pairs)
        self._pair_series_intervals(rows, pairs, code_loss)
        return {
            "applicable": True,
            "reason": None,
            "kind": "intervals",
            "claim": claim,
            "neighbours": len(pairs),
            "code": code_loss["json"],
            "closed_form": None,
            "ideal": None if ideal_loss is None else ideal_loss["json"],
            "paper": _paper(self.spec, self.p, None),
            "verdicts": [_verdict_row(c) for c in self.checks.get("intervals", [])],
            "declared_checks": self._declared(),
        }

    def _pair_series_intervals(
        self,
        rows: Mapping[Any, Mapping[Hashable, tuple[Fraction, Fraction]]],
        pairs: Sequence[tuple[Any, Any]],
        loss: dict[str, Any],
    ) -> None:
        if not pairs:
            return
        q, q2 = loss.get("pair") or pairs[0]
        a, b = rows[q], rows[q2]
        outputs = _sorted_outputs([o for o in a if o in b])
        if not outputs or not all(isinstance(o, int) and not isinstance(o, bool) for o in outputs):
            return

        def mid(v: tuple[Fraction, Fraction]) -> float:
            return float((v[0] + v[1]) / 2)

        xs = [float(cast(int, o)) for o in outputs]  # every output is an int (checked above)
        low, high = [], []
        for o in outputs:
            bounds = _loss_bounds(a[o], b[o])
            low.append(bounds[0])
            high.append(bounds[1])
        self.series["pair"] = {
            "q": str(q),
            "q_prime": str(q2),
            "x": xs,
            "labels": None,
            "kind": "intervals",
            "p": [mid(a[o]) for o in outputs],
            "p_prime": [mid(b[o]) for o in outputs],
        }
        self.series["loss"] = {
            "q": str(q),
            "q_prime": str(q2),
            "x": xs,
            "labels": None,
            "loss": [(lo + hi) / 2 for lo, hi in zip(low, high, strict=True)],
            "low": low,
            "high": high,
            "bound": _claim_epsilon(self.claim),
            "tightest": None,
        }
        self.series["delta"] = _delta_series(
            [mid(a[o]) for o in outputs],
            [mid(b[o]) for o in outputs],
            self.claim,
            None,
            "the midpoints of the code's exact intervals, listed outputs only",
        )

    def _declared(self) -> list[dict[str, Any]]:
        standard = {
            "smoke",
            "exactness",
            "intervals",
            "intervals_as_run",
            "batch",
            "refuses",
            "accepts",
            "statistical",
            "statistical_production",
            "privacy",
            "code_privacy",
            "z3",
            "code_z3",
            "timing_channel",
            "time_bound",
        }
        return [_verdict_row(c) for c in self.outcome.checks if c.check not in standard]

    # --- sections 4 to 6 ------------------------------------------------------------------------

    def proofs(self) -> dict[str, Any]:
        rows = [
            {
                **_verdict_row(c),
                "solver": c.evidence.get("solver"),
                "witness": c.evidence.get("witness"),
                "distinct_entries": c.evidence.get("distinct_entries"),
            }
            for name in Z3_CHECKS
            for c in self.checks.get(name, [])
        ]
        rows += [
            {**c, "solver": None, "witness": None, "distinct_entries": None}
            for c in self._declared()
            if _is_solver_check(self.outcome, c["check"])
        ]
        if rows:
            return {"applicable": True, "reason": None, "checks": rows}
        if isinstance(self.claim, SamplesPmf):
            why = "the spec claims no privacy, so no ratio bound is sent to Z3"
        elif self.spec.pmf is None:
            why = (
                "the case's law is known only through interval enclosures; Z3 decides ratio bounds on exact "
                "tables (a parametric proof, if any, is among the certificates below)"
            )
        elif isinstance(self.claim, PureDp) and self.claim.alpha is None:
            why = (
                "the claim is in epsilon form, e^epsilon is irrational: it is decided with certified intervals instead"
            )
        else:
            why = "Z3 checks the ratio form of pure DP only; this claim is checked with certified intervals"
        return {"applicable": False, "reason": why, "checks": []}

    def statistics(self) -> dict[str, Any]:
        rows = []
        for name in ("statistical", "statistical_production"):
            for c in self.checks.get(name, []):
                e = c.evidence
                rows.append(
                    {
                        **_verdict_row(c),
                        "input": e.get("q"),
                        "seed": e.get("seed"),
                        "samples": e.get("samples"),
                        "false_positive_rate": e.get("false_positive_rate"),
                        "threshold": e.get("threshold"),
                        "detectable_distance": e.get("detectable_distance"),
                        "sup_distance": e.get("sup_distance", e.get("distance_outside_enclosure")),
                        "replay": e.get("replay"),
                    }
                )
        if rows:
            return {
                "applicable": True,
                "reason": None,
                "replay": self.replay,
                "method": "Dvoretzky-Kiefer-Wolfowitz with Massart's constant: "
                "P(sup |F_N - F| > t) <= 2 exp(-2 N t^2) = beta, a non-asymptotic false-positive bound; any CDF "
                "distance above 2t is detected with probability >= 1 - beta (the power)",
                "checks": rows,
            }
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
            why = (
                "the spec does not ask for the timing channel (Spec.timing is False)"
                if not self.spec.timing
                else "the code cannot be enumerated, so its draw counts are unknown"
            )
            return {"applicable": False, "reason": why}
        e = check.evidence
        return {
            "applicable": True,
            "reason": None,
            "verdict": check.verdict.value,
            "summary": check.summary,
            "claim": e.get("claim"),
            "information_lower_bits": e.get("information_lower_bits"),
            "information_explored_bits": e.get("information_explored_bits"),
            "draws_range": e.get("draws_range"),
            "unexplored_decimal": e.get("unexplored_decimal"),
            "witness": e.get("witness"),
            "note": "a side-channel finding: it never gates",
        }


def _verdict_row(check: CheckResult) -> dict[str, Any]:
    """A check's verdict for a report table: its name, verdict and summary, and for a proof within a
    tolerance its ``within`` (exact and rounded up), so a table never shows such a proof as exact."""
    row = {"check": check.check, "verdict": check.verdict.value, "summary": check.summary}
    document = check.to_json()
    if "within" in document:
        row |= {"within": document["within"], "within_decimal": document["within_decimal"]}
    return row


def _is_solver_check(outcome: CaseOutcome, name: str) -> bool:
    return any(
        c.check == name and ("solver" in c.evidence or "z3" in (c.summary + name).lower()) for c in outcome.checks
    )


def _output_key(value: Any) -> Hashable:
    return tuple(_output_key(v) for v in value) if isinstance(value, list) else value


def _shifted(output: Hashable, d: int) -> Hashable:
    return output + d  # type: ignore[operator]  # a noise sampler's outputs are numbers


def _sorted_outputs(outputs: list[Hashable]) -> list[Hashable]:
    try:
        return sorted(outputs)  # type: ignore[type-var]  # unorderable outputs raise TypeError, caught below
    except TypeError:
        return sorted(outputs, key=repr)


def _larger_mass(
    spec_pmf: Mapping[Hashable, Fraction], code_pmf: Mapping[Hashable, Fraction] | None, o: Hashable
) -> Fraction | int:
    return max(spec_pmf.get(o, 0), (code_pmf or {}).get(o, 0))


def _low_end(code: Mapping[Hashable, tuple[Fraction, Fraction]], o: Hashable) -> Fraction:
    return code[o][0]


def _most_likely(outputs: list[Hashable], mass: Callable[[Hashable], Any]) -> list[Hashable]:
    """At most :data:`MAX_OUTPUTS_SHOWN` outputs, the most likely, in their original order."""
    if len(outputs) <= MAX_OUTPUTS_SHOWN:
        return outputs
    keep = set(sorted(range(len(outputs)), key=lambda i: mass(outputs[i]), reverse=True)[:MAX_OUTPUTS_SHOWN])
    return [o for i, o in enumerate(outputs) if i in keep]


def _case_audit(
    found: FoundSpec, case: Case, *, seed: int, samples: int, time_limit: int | None, progress: Progress, replay: str
) -> CaseAudit:
    """One case's sections, all of them within ``time_limit`` seconds: the tables get what the
    checks left of it."""
    spec = found.spec
    progress(f"{case.describe()}: running the checks")
    deadline = None if time_limit is None else time.monotonic() + time_limit
    outcome = run_case(spec, case, seed=seed, samples=samples, origin=found.origin, time_limit=time_limit)
    head = {key: value for key, value in outcome.to_json().items()}
    head["label"] = case.describe()
    if outcome.outcome == ERROR:
        reason = f"the spec cannot be checked as written: {outcome.error}"
        return CaseAudit(
            {
                **head,
                "pmfs": _na(reason),
                "privacy": _na(reason),
                "proofs": _na(reason, checks=[]),
                "statistics": _na(reason, checks=[]),
                "timing": _na(reason),
            }
        )
    work = _CaseWork(found, case, outcome, seed, samples, replay)
    timed_out = any(c.check == "time_bound" or "time_limit_s" in c.evidence for c in outcome.checks)
    progress(f"{case.describe()}: exact tables and privacy")
    pmfs: dict[str, Any]
    privacy: dict[str, Any]
    left = None if deadline is None else deadline - time.monotonic()
    try:
        with time_bound(left if left is None or left > 0 else None):
            if timed_out or (left is not None and left <= 0):
                raise CaseTimeUp
            if spec.pmf is not None:
                pmfs = work.pmf_section_exact()
                privacy = work.privacy_exact(pmfs)
            elif spec.ideal is not None and work.instance.enumerable:
                pmfs = work.pmf_section_intervals()
                privacy = work.privacy_intervals(pmfs) if pmfs["applicable"] else _na(pmfs["reason"])
            else:
                why = (
                    "the spec declares no pmf or ideal PMF: its claim is checked by its declared checks only"
                    if spec.sampler is not None
                    else "the spec has no Python sampler: its mechanism is modelled inside its declared checks"
                )
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
    document = {
        **head,
        "claim": _claim_json(work.claim),
        "pmfs": pmfs,
        "privacy": privacy,
        "proofs": work.proofs(),
        "statistics": work.statistics(),
        "timing": work.timing(),
    }
    return CaseAudit(document, work.series)

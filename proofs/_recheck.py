"""The recheck (``dpverify prove --recheck``): cvc5 run on every certificate the manifest records,
compared with the verdict Z3 gave when it was made.  Its own module: the one command that
needs the second solver and the manifest together.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dpverify.proofs._certificates import MANIFEST_PATH
from dpverify.proofs._manifest import _REGENERATE, CertificateRecord, _certificate_path, _file_sha256, read_manifest
from dpverify.proofs._solvers import _ANSWER_OF, RECHECK_EXTRA, cvc5_status, cvc5_version
from dpverify.samplers._errors import DpverifyError
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = ["recheck_certificates"]


# --- the recheck ---------------------------------------------------------------------------


def recheck_certificates(
    root: Path | str,
    *,
    timeout_ms: int = 60_000,
    report: Callable[[dict[str, Any]], None] | None = None,
) -> CheckResult:
    """Run cvc5 on every certificate and compare with the verdict Z3 gave when it was made.

    ``violated`` when the solvers disagree on some certificate (``unsat`` against ``sat``),
    or a certificate file is not the one recorded; ``inconclusive`` when cvc5 is not
    installed, there is no manifest, or some certificate got ``unknown`` (or a parse error)
    from either solver; ``proved`` when cvc5 confirms every verdict.  ``timeout_ms`` is cvc5's
    limit per certificate; ``report`` is called with each certificate's row (``certificate``,
    ``file``, ``z3``, ``cvc5``, ``outcome``: agree, disagree, modified or open, ``message``).
    """
    root = Path(root)
    version = cvc5_version()
    if version is None:
        return CheckResult(
            "recheck",
            Verdict.INCONCLUSIVE,
            f"cvc5 is not installed, so no certificate was rechecked; install it with "
            f"`pip install '{RECHECK_EXTRA}'` (or `pip install cvc5`)",
            reason="cvc5 not installed",
        )
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return CheckResult("recheck", Verdict.VIOLATED, str(error), evidence={"certificates": []})
    if manifest is None:
        return CheckResult(
            "recheck",
            Verdict.INCONCLUSIVE,
            f"no {MANIFEST_PATH.as_posix()}: nothing to recheck; run `dpverify prove`",
            reason="no manifest",
        )
    rows = []
    for record in manifest.certificates:
        rows.append(_recheck_one(root, record, timeout_ms))
        if report is not None:
            report(rows[-1])
    disagree = [r for r in rows if r["outcome"] in ("disagree", "modified")]
    open_ = [r for r in rows if r["outcome"] == "open"]
    evidence = {"solvers": {"z3": manifest.solvers.get("z3"), "cvc5": version}, "certificates": rows}
    if disagree:
        shown = "; ".join(r["message"] for r in disagree[:3])
        return CheckResult(
            "recheck",
            Verdict.VIOLATED,
            f"{len(disagree)} of {len(rows)} certificates fail the recheck: {shown}",
            evidence=evidence,
        )
    if open_:
        shown = "; ".join(r["message"] for r in open_[:3])
        return CheckResult(
            "recheck",
            Verdict.INCONCLUSIVE,
            f"cvc5 {version} agrees on {len(rows) - len(open_)} of {len(rows)} certificates, "
            f"{len(open_)} open: {shown}",
            reason="unknown",
            evidence=evidence,
        )
    return CheckResult(
        "recheck",
        Verdict.PROVED,
        f"cvc5 {version} agrees with z3 {manifest.solvers.get('z3')} on all {len(rows)} certificates",
        evidence=evidence,
    )


def _recheck_one(root: Path, record: CertificateRecord, timeout_ms: int) -> dict[str, Any]:
    label = f"{record.name} ({record.file})"
    row: dict[str, Any] = {
        "certificate": record.name,
        "file": record.file,
        "recorded": record.verdict.value,
        "z3": _ANSWER_OF.get(record.verdict, "unknown"),
        "cvc5": None,
        "reason": None,
    }
    path = _certificate_path(root, record.file)
    if path is None or not path.is_file() or _file_sha256(path) != record.sha256:
        return {
            **row,
            "outcome": "modified",
            "message": f"{label} is missing or not the file the manifest records; {_REGENERATE}",
        }
    answer, reason = cvc5_status(path.read_text(encoding="utf-8"), timeout_ms=timeout_ms)
    row.update(cvc5=answer, reason=reason)
    expected = _ANSWER_OF.get(record.verdict)
    if answer not in ("sat", "unsat"):
        return {**row, "outcome": "open", "message": f"{label}: cvc5 {answer} ({reason})"}
    if expected is None:
        return {**row, "outcome": "open", "message": f"{label}: z3 recorded {record.verdict.value}, cvc5 says {answer}"}
    if answer != expected:
        return {
            **row,
            "outcome": "disagree",
            "message": f"{label}: z3 recorded {expected} ({record.verdict.value}) but cvc5 says {answer}",
        }
    return {**row, "outcome": "agree", "message": f"{label}: both {answer}"}

"""The stale-proof check (:func:`check_manifest`, run by ``dpverify check``): is every certificate
the manifest records still about the code, the files and (given them) the obligations there are
now?  Its own module: it reads the manifest and fingerprints code, and never runs a solver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpverify.proofs._certificates import CERTIFICATE_DIR, MANIFEST_PATH, Obligation
from dpverify.proofs._fingerprint import FINGERPRINT_SCHEME, FingerprintError, fingerprint
from dpverify.proofs._manifest import (
    _REGENERATE,
    CertificateRecord,
    Manifest,
    _certificate_path,
    _file_sha256,
    _sha256,
    read_manifest,
)
from dpverify.samplers._errors import DpverifyError
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = ["check_manifest"]


# --- the stale-proof check -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Stale:
    certificate: str | None
    file: str | None
    problem: str
    message: str
    function: str | None = None
    recorded: str | None = None
    current: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "certificate": self.certificate,
            "file": self.file,
            "function": self.function,
            "problem": self.problem,
            "message": self.message,
            "recorded": self.recorded,
            "current": self.current,
        }


def check_manifest(root: Path | str, *, current: Sequence[Obligation] | None = None) -> CheckResult:
    """Are the certificates under ``root`` still about the code that is there?

    ``proved`` when every certificate file matches the SHA-256 the manifest records for it,
    every covered function still has the fingerprint it had when the certificate was made,
    and no ``.smt2`` file lies outside the manifest; with ``current`` (the obligations the
    code produces now), also when the manifest has exactly those certificates with those
    texts.  ``violated`` otherwise: each *stale proof* finding names the certificate and the
    changed function or file.  ``inconclusive`` when there is no manifest.
    """
    root = Path(root)
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return CheckResult(
            "stale_proofs",
            Verdict.VIOLATED,
            f"stale proof: {error}",
            evidence={"manifest": MANIFEST_PATH.as_posix(), "findings": []},
        )
    if manifest is None:
        return CheckResult(
            "stale_proofs",
            Verdict.INCONCLUSIVE,
            f"no {MANIFEST_PATH.as_posix()}: no certificate to check; run `dpverify prove`",
            reason="no manifest",
            evidence={"manifest": MANIFEST_PATH.as_posix(), "findings": []},
        )
    findings: list[_Stale] = []
    if manifest.fingerprint != FINGERPRINT_SCHEME:
        findings.append(
            _Stale(
                None,
                None,
                "fingerprint-scheme",
                f"the manifest's fingerprints use {manifest.fingerprint!r}, not {FINGERPRINT_SCHEME!r}; {_REGENERATE}",
            )
        )
    else:
        cache: dict[str, str | None] = {}
        for record in manifest.certificates:
            findings += _stale_record(root, record, cache)
    findings += _orphans(root, manifest)
    if current is not None:
        findings += _changed_obligations(manifest, current)
    evidence = {
        "manifest": MANIFEST_PATH.as_posix(),
        "certificates": len(manifest.certificates),
        "verdicts": {v.value: sum(c.verdict is v for c in manifest.certificates) for v in Verdict},
        "compared_with_current_obligations": current is not None,
        "findings": [f.to_json() for f in findings],
    }
    if not findings:
        functions = {name for c in manifest.certificates for name in c.covers}
        return CheckResult(
            "stale_proofs",
            Verdict.PROVED,
            f"{len(manifest.certificates)} certificates up to date: {len(functions)} covered "
            "functions unchanged, every certificate file as recorded",
            evidence=evidence,
        )
    shown = "; ".join(f.message for f in findings[:3])
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    return CheckResult("stale_proofs", Verdict.VIOLATED, f"stale proof: {shown}{more}", evidence=evidence)


def _stale_record(root: Path, record: CertificateRecord, cache: dict[str, str | None]) -> list[_Stale]:
    found = []
    path = _certificate_path(root, record.file)
    label = f"certificate {record.name!r} ({record.file})"
    if path is None:
        found.append(
            _Stale(
                record.name,
                record.file,
                "certificate-outside",
                f"{label} is not a .smt2 file under {CERTIFICATE_DIR.as_posix()}; {_REGENERATE}",
            )
        )
    elif not path.is_file():
        found.append(
            _Stale(
                record.name,
                record.file,
                "certificate-missing",
                f"{label} is missing; {_REGENERATE}",
                recorded=record.sha256,
            )
        )
    elif (sha := _file_sha256(path)) != record.sha256:
        found.append(
            _Stale(
                record.name,
                record.file,
                "certificate-modified",
                f"{label} was modified after it was made (sha256 {sha[:12]}, recorded "
                f"{record.sha256[:12]}); {_REGENERATE}",
                recorded=record.sha256,
                current=sha,
            )
        )
    for function, recorded in sorted(record.covers.items()):
        if function not in cache:
            try:
                cache[function] = fingerprint(function, root)
            except FingerprintError:
                cache[function] = None
        now = cache[function]
        if now is None:
            found.append(
                _Stale(
                    record.name,
                    record.file,
                    "function-missing",
                    f"{label} covers {function}, which no longer exists; update the covers and {_REGENERATE}",
                    function=function,
                    recorded=recorded,
                )
            )
        elif now != recorded:
            found.append(
                _Stale(
                    record.name,
                    record.file,
                    "function-changed",
                    f"{label} covers {function}, which changed since the certificate was made; {_REGENERATE}",
                    function=function,
                    recorded=recorded,
                    current=now,
                )
            )
    return found


def _orphans(root: Path, manifest: Manifest) -> list[_Stale]:
    known = {(root / c.file).resolve() for c in manifest.certificates}
    return [
        _Stale(
            None,
            path.relative_to(root).as_posix(),
            "certificate-unrecorded",
            f"{path.relative_to(root).as_posix()} is not in the manifest; {_REGENERATE}",
        )
        for path in sorted((root / CERTIFICATE_DIR).rglob("*.smt2"))
        if path.resolve() not in known
    ]


def _changed_obligations(manifest: Manifest, current: Sequence[Obligation]) -> list[_Stale]:
    recorded = {c.name: c for c in manifest.certificates}
    found = []
    for obligation in current:
        record = recorded.pop(obligation.name, None)
        if record is None:
            found.append(
                _Stale(
                    obligation.name,
                    obligation.file,
                    "certificate-absent",
                    f"obligation {obligation.name!r} has no certificate; run `dpverify prove`",
                )
            )
        elif _sha256(obligation.text) != record.sha256 or record.file != obligation.file:
            found.append(
                _Stale(
                    record.name,
                    record.file,
                    "obligation-changed",
                    f"certificate {record.name!r} ({record.file}) no longer matches its "
                    f"obligation, which changed since the certificate was made; {_REGENERATE}",
                    recorded=record.sha256,
                    current=_sha256(obligation.text),
                )
            )
        elif set(obligation.covers) != set(record.covers):
            found.append(
                _Stale(
                    record.name,
                    record.file,
                    "covers-changed",
                    f"certificate {record.name!r} ({record.file}) records other covered "
                    f"functions than its obligation names now; {_REGENERATE}",
                )
            )
    found += [
        _Stale(
            r.name,
            r.file,
            "certificate-obsolete",
            f"certificate {r.name!r} ({r.file}) belongs to no current obligation; {_REGENERATE}",
        )
        for r in recorded.values()
    ]
    return found

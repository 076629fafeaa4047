"""The manifest (schema ``dpverify.manifest/1``): its records, :func:`write_certificates` (``dpverify
prove``), which solves every obligation and writes the certificates and the manifest,
:func:`read_manifest`, and the outcome of a prove read off a manifest.  Its own module: the one
place the files under ``proofs/`` are written and read.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import z3

from dpverify.proofs._certificates import CERTIFICATE_DIR, MANIFEST_PATH, Obligation, theorem_obligation
from dpverify.proofs._fingerprint import FINGERPRINT_SCHEME, fingerprint
from dpverify.proofs._solvers import _VERDICT_OF, cvc5_version, z3_status
from dpverify.proofs._theorem import Theorem
from dpverify.samplers._errors import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = [
    "MANIFEST_SCHEMA",
    "CertificateRecord",
    "Manifest",
    "check_recorded_verdicts",
    "prove_result",
    "read_manifest",
    "write_certificates",
]

MANIFEST_SCHEMA = "dpverify.manifest/1"


# --- the manifest --------------------------------------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True, slots=True)
class CertificateRecord:
    """One certificate as the manifest records it."""

    name: str
    kind: str
    file: str
    sha256: str
    verdict: Verdict
    expect: Verdict
    covers: dict[str, str]
    source: str
    statement: str
    bounded: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "file": self.file,
            "sha256": self.sha256,
            "verdict": self.verdict.value,
            "expect": self.expect.value,
            "covers": dict(self.covers),
            "source": self.source,
            "statement": self.statement,
            "bounded": self.bounded,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CertificateRecord:
        return cls(
            name=str(data["name"]),
            kind=str(data["kind"]),
            file=str(data["file"]),
            sha256=str(data["sha256"]),
            verdict=Verdict(data["verdict"]),
            expect=Verdict(data["expect"]),
            covers={str(k): str(v) for k, v in dict(data["covers"]).items()},
            source=str(data["source"]),
            statement=str(data["statement"]),
            bounded=data.get("bounded"),
            reason=data.get("reason"),
        )


@dataclass(frozen=True, slots=True)
class Manifest:
    """Every certificate, the solver versions, and the fingerprint scheme of ``covers``."""

    solvers: dict[str, str]
    certificates: tuple[CertificateRecord, ...]
    fingerprint: str = FINGERPRINT_SCHEME
    schema: str = MANIFEST_SCHEMA

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "fingerprint": self.fingerprint,
            "solvers": dict(self.solvers),
            "certificates": [c.to_json() for c in self.certificates],
        }

    def text(self) -> str:
        """The manifest file's exact contents (sorted keys, stable order, final newline)."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            solvers={str(k): str(v) for k, v in dict(data["solvers"]).items()},
            certificates=tuple(CertificateRecord.from_json(c) for c in data["certificates"]),
            fingerprint=str(data["fingerprint"]),
            schema=str(data["schema"]),
        )

    def unmet(self) -> tuple[CertificateRecord, ...]:
        """Certificates whose verdict is not the one expected."""
        return tuple(c for c in self.certificates if c.verdict is not c.expect)


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_certificates(
    root: Path | str,
    theorems: Iterable[Theorem] = (),
    instances: Iterable[Obligation] = (),
    *,
    timeout_ms: int = 60_000,
    report: Callable[[CertificateRecord], None] | None = None,
) -> Manifest:
    """Write every obligation as ``proofs/certificates/**.smt2`` under ``root``, run Z3 on each
    script for its verdict, and write ``proofs/manifest.json``; return the manifest.

    ``timeout_ms`` bounds Z3 on each script; ``report`` is called with each record as it is
    solved.  Certificates no obligation produces any more are deleted.  Covered functions are
    fingerprinted from the sources under ``root``; one that does not resolve raises
    :class:`~proofs._fingerprint.FingerprintError` before anything is written.  Running it
    twice on unchanged code writes byte-identical files.
    """
    root = Path(root)
    obligations = [*(theorem_obligation(t) for t in theorems), *instances]
    _check_unique(obligations)
    cache: dict[str, str] = {}
    covers = [{name: _cached_fingerprint(name, root, cache) for name in o.covers} for o in obligations]
    records = []
    for obligation, hashes in zip(obligations, covers, strict=True):
        answer, reason = z3_status(obligation.text, timeout_ms=timeout_ms)
        record = CertificateRecord(
            name=obligation.name,
            kind=obligation.kind,
            file=obligation.file,
            sha256=_sha256(obligation.text),
            verdict=_VERDICT_OF.get(answer, Verdict.INCONCLUSIVE),
            expect=obligation.expect,
            covers=hashes,
            source=obligation.source,
            statement=obligation.statement,
            bounded=obligation.bounded,
            reason=reason,
        )
        if report is not None:
            report(record)
        records.append(record)
    solvers = {"z3": z3.get_version_string()}
    if (version := cvc5_version()) is not None:
        solvers["cvc5"] = version
    else:
        # cvc5 is optional: its absence here must not rewrite the version a tracked manifest
        # records, so keep what the last run with cvc5 installed wrote
        try:
            previous = read_manifest(root)
        except DpverifyError:
            previous = None
        if previous is not None and "cvc5" in previous.solvers:
            solvers["cvc5"] = previous.solvers["cvc5"]
    manifest = Manifest(solvers, tuple(sorted(records, key=lambda r: r.file)))
    written = set()
    for obligation in obligations:
        _atomic_write(root / obligation.file, obligation.text)
        written.add((root / obligation.file).resolve())
    for old in sorted((root / CERTIFICATE_DIR).rglob("*.smt2")):
        if old.resolve() not in written:
            old.unlink()
    _atomic_write(root / MANIFEST_PATH, manifest.text())
    return manifest


def _check_unique(obligations: Sequence[Obligation]) -> None:
    for attribute in ("name", "file"):
        seen: set[str] = set()
        for o in obligations:
            value = getattr(o, attribute)
            if value in seen:
                raise DpverifyError(
                    f"two obligations share the {attribute} {shown(value)}; each certificate needs its own {attribute}."
                )
            seen.add(value)


def _cached_fingerprint(name: str, root: Path, cache: dict[str, str]) -> str:
    if name not in cache:
        cache[name] = fingerprint(name, root)
    return cache[name]


def read_manifest(root: Path | str) -> Manifest | None:
    """The manifest under ``root``, None when there is none; raises DpverifyError when it
    cannot be read or has another schema."""
    path = Path(root) / MANIFEST_PATH
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        manifest = Manifest.from_json(data)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DpverifyError(
            f"{MANIFEST_PATH.as_posix()} cannot be read ({error}); run `dpverify prove` to regenerate it."
        ) from None
    if manifest.schema != MANIFEST_SCHEMA:
        raise DpverifyError(
            f"{MANIFEST_PATH.as_posix()} has schema={shown(manifest.schema)}, not "
            f"{shown(MANIFEST_SCHEMA)}; run `dpverify prove` to regenerate it."
        )
    return manifest


#: The advice of every finding about a recorded certificate (the stale check's and the recheck's).
_REGENERATE = "run `dpverify prove` to regenerate it"


def _certificate_path(root: Path, file: str) -> Path | None:
    """``root/file`` when ``file`` is a ``.smt2`` path inside ``proofs/certificates``, else None
    (a manifest entry must not point the check at an arbitrary file)."""
    relative = Path(file)
    inside = relative.parts[: len(CERTIFICATE_DIR.parts)] == CERTIFICATE_DIR.parts and ".." not in relative.parts
    return root / relative if inside and relative.suffix == ".smt2" and not relative.is_absolute() else None


# --- the outcome of a prove ------------------------------------------------------------------


def prove_result(manifest: Manifest) -> CheckResult:
    """The outcome of ``dpverify prove``: ``proved`` when every certificate reached the verdict
    expected of it (every parametric theorem proved, every catalogue instance its expectation),
    ``violated`` when some reached the opposite one, ``inconclusive`` when some stayed open."""
    unmet = manifest.unmet()
    evidence = {"certificates": [c.to_json() for c in manifest.certificates], "solvers": dict(manifest.solvers)}
    total = len(manifest.certificates)
    if not unmet:
        return CheckResult(
            "prove", Verdict.PROVED, f"all {total} certificates reached their expected verdict", evidence=evidence
        )
    wrong = [c for c in unmet if c.verdict is not Verdict.INCONCLUSIVE]
    shown = "; ".join(
        f"{c.name}: expected {c.expect.value}, got {c.verdict.value}" + (f" ({c.reason})" if c.reason else "")
        for c in unmet[:5]
    )
    verdict = Verdict.VIOLATED if wrong else Verdict.INCONCLUSIVE
    return CheckResult(
        "prove",
        verdict,
        f"{len(unmet)} of {total} certificates missed their expected verdict: {shown}",
        reason=None if wrong else "unknown",
        evidence=evidence,
    )


def check_recorded_verdicts(root: Path | str) -> CheckResult:
    """:func:`prove_result` of the manifest under ``root``, without running a solver (check
    ``"certificates"``): a committed manifest whose theorem is not proved, or whose catalogue
    instance missed its expectation, fails here.  ``inconclusive`` when there is no manifest."""
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return CheckResult("certificates", Verdict.VIOLATED, str(error))
    if manifest is None:
        return CheckResult(
            "certificates",
            Verdict.INCONCLUSIVE,
            f"no {MANIFEST_PATH.as_posix()}: no certificate; run `dpverify prove`",
            reason="no manifest",
        )
    return replace(prove_result(manifest), check="certificates")

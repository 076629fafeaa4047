"""Certificates: every obligation as SMT-LIB 2, a manifest tying each to the code it covers,
a second solver's recheck, and the stale-proof check.

STYLE.md item 4: keep each proof next to the code it proves, and make drift visible.

Layout under the repository root::

    proofs/certificates/<theorem>.smt2              one per parametric theorem
    proofs/certificates/instances/<entry>.smt2      one per small GTM catalogue entry
    proofs/manifest.json                            what each certificate covers and says

A **certificate** is a standalone SMT-LIB 2 script whose assertions are a *negated* claim:
``unsat`` means the claim holds (verdict ``proved``), ``sat`` that it is refuted
(``violated``: an instance documenting a known failure, such as GTM with an arbitrary ``T``,
is still a valid certificate, of the violation), ``unknown`` that the solver gave up
(``inconclusive``).  The recorded verdict is Z3's answer *on the script as written*, read
into a fresh Z3 context, so it depends on the file alone and a second solver rechecks exactly
what was certified.  Scripts are byte-for-byte reproducible (:func:`theorem_smtlib`).

The **manifest** (schema ``dpverify.manifest/1``) records the fingerprint scheme
(:mod:`dpverify.proofs._fingerprint`), the solver versions, and for every certificate its name, kind
(``parametric`` or ``instance``), file, the SHA-256 of the file, the verdict and the verdict
expected, the citation, the bound (for a bounded proof) and ``covers``: the SHA-256 of the
normalised syntax tree of every sampler and spec function it is about.  It is written with
sorted keys and certificates sorted by file, so regenerating unchanged code gives no diff.

:func:`check_manifest` (run by ``dpverify check``) fails with a *stale proof* finding when a
covered function, a certificate file, or (given the current obligations) an obligation has
changed since the certificate was made, naming the certificate and what changed;
:func:`write_certificates` (``dpverify prove``) regenerates them; :func:`recheck_certificates`
(``dpverify prove --recheck``) runs cvc5 on every certificate and fails where the two solvers
disagree.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import z3

from dpverify.proofs._fingerprint import FINGERPRINT_SCHEME, FingerprintError, fingerprint
from dpverify.proofs._theorem import Theorem, theorem_smtlib
from dpverify.samplers._errors import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = [
    "CERTIFICATE_DIR",
    "GTM_COVERS",
    "MANIFEST_PATH",
    "MANIFEST_SCHEMA",
    "CertificateRecord",
    "Manifest",
    "Obligation",
    "check_manifest",
    "check_recorded_verdicts",
    "cvc5_status",
    "instance_obligations",
    "prove_result",
    "read_manifest",
    "recheck_certificates",
    "repository_root",
    "theorem_obligation",
    "theorem_smtlib",
    "write_certificates",
    "z3_status",
]

MANIFEST_SCHEMA = "dpverify.manifest/1"
#: Relative to the repository root.
CERTIFICATE_DIR = Path("proofs") / "certificates"
MANIFEST_PATH = Path("proofs") / "manifest.json"
_INSTANCE_DIR = "instances"
#: The pip extra that installs the second solver.
RECHECK_EXTRA = "dpverify[recheck]"

#: What an instance certificate of GTM is about.  The obligation is built from the spec's
#: table (``pmf`` through ``_offset_tables`` and ``_OffsetCdf``, the inputs, neighbours and
#: claim); it certifies the *sampler* because the gate proves the code samples that table
#: exactly, so the sampler's draw (``sample``), search (``inverse_transform``) and CDF
#: (``cdf_vector``, ``gtpmf``) are covered too: a change to any of them makes the proof stale.
GTM_COVERS: tuple[str, ...] = (
    "dpverify.samplers.gtm.validate",
    "dpverify.samplers.gtm.gtpmf",
    "dpverify.samplers.gtm.cdf_vector", "dpverify.samplers.gtm._cdf_vector",
    "dpverify.samplers.gtm.inverse_transform",
    "dpverify.samplers.gtm.sample",
    "dpverify.specs.gtm._OffsetCdf",
    "dpverify.specs.gtm._offset_tables",
    "dpverify.specs.gtm._outputs",
    "dpverify.specs.gtm.GtmSpec.inputs",
    "dpverify.specs.gtm.GtmSpec.outputs",
    "dpverify.specs.gtm.GtmSpec.neighbours",
    "dpverify.specs.gtm.GtmSpec.pmf",
    "dpverify.specs.gtm.GtmSpec.claim",
)

#: A GTM table has ``(n+1)^2`` entries; above this an instance gets no certificate.
MAX_INSTANCE_TABLE = 10_000

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_VERDICT_OF = {"unsat": Verdict.PROVED, "sat": Verdict.VIOLATED}
_ANSWER_OF = {Verdict.PROVED: "unsat", Verdict.VIOLATED: "sat"}


def repository_root() -> Path:
    """The root the installed (editable) package lives in: the parent of ``proofs/``."""
    return Path(__file__).resolve().parents[1]


# --- obligations ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Obligation:
    """One claim ready to be certified: its SMT-LIB 2 script (the negated claim) and what it
    is about.  ``stem`` names the file (``proofs/certificates/<stem>.smt2``)."""

    name: str
    kind: str  # "parametric" or "instance"
    statement: str
    source: str
    covers: tuple[str, ...]
    text: str
    stem: str
    bounded: str | None = None
    expect: Verdict = Verdict.PROVED

    @property
    def file(self) -> str:
        return (CERTIFICATE_DIR / f"{self.stem}.smt2").as_posix()


def theorem_obligation(theorem: Theorem) -> Obligation:
    """A parametric theorem's certificate: the negated theorem as a standalone SMT-LIB 2.6
    script (:func:`theorem_smtlib`)."""
    if not _SAFE_NAME.match(theorem.name):
        raise DpverifyError(
            f"theorem name={shown(theorem.name)} must be file-system safe (letters, digits, '.', '_', '-'); "
            "it names the certificate file."
        )
    return Obligation(
        name=theorem.name,
        kind="parametric",
        statement=theorem.statement,
        source=theorem.source,
        covers=tuple(theorem.covers),
        text=theorem_smtlib(theorem),
        stem=theorem.name,
        bounded=theorem.bounded,
    )


def instance_obligations(max_table: int = MAX_INSTANCE_TABLE) -> list[Obligation]:
    """The ratio-bound obligation of every GTM catalogue entry with at most ``max_table``
    table entries: :func:`dpverify.verify.privacy._smt.smtlib_obligation` over ``{q: spec.pmf(q)}``, the
    spec's neighbours and the entry's claim, covering :data:`GTM_COVERS`.  Expected verdict:
    the entry's (a known violation is certified as violated)."""
    # Imported here: building the catalogue pulls in the whole engine.
    from dpverify.specs import GtmSpec, PureDpClaim
    from dpverify.verify.gate._catalogue import GTM
    from dpverify.verify.privacy._smt import smtlib_obligation

    found = []
    for case in GTM.cases:
        p = GTM.bind(case)
        spec = GtmSpec.create(p["alpha"], p["n"], p["T"])
        if (spec.n + 1) ** 2 > max_table:
            continue
        claim = PureDpClaim(GTM.claim_for(p, case).alpha)  # type: ignore[union-attr, arg-type]
        name = f"{GTM.name}/{case.describe()}"
        parameters = ", ".join(f"{k}={v}" for k, v in spec.parameters().items())
        table = {q: spec.pmf(q) for q in spec.inputs()}
        header = "".join(f"; {line}\n" for line in (
            f"dpverify certificate: {name} (catalogue instance, expected {case.expect})",
            f"parameters: {parameters}",
            f"why: {case.why}",
        ))
        found.append(Obligation(
            name=name,
            kind="instance",
            statement=f"GTM {parameters}: alpha * P(x|q') <= P(x|q) for all neighbours (q, q') and "
                      f"outputs x, alpha={claim.alpha}",
            source='Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers", section 2',
            covers=GTM_COVERS,
            text=header + smtlib_obligation(table, spec.neighbours(), claim),
            stem=f"{_INSTANCE_DIR}/{_slug(name)}",
            expect=Verdict(case.expect),
        ))
    return found


def _slug(name: str) -> str:
    """``"gtm/thm7.1/D=3,n=4"`` -> ``"gtm-thm7.1-D-3-n-4"``."""
    return re.sub(r"[^A-Za-z0-9._]+", "-", name).strip("-")


# --- solvers -------------------------------------------------------------------------------


def z3_status(text: str, *, timeout_ms: int = 60_000) -> tuple[str, str | None]:
    """Z3 on an SMT-LIB 2 script: ``("unsat"|"sat"|"unknown", reason)``; a script Z3 cannot
    read (say, one that uses integers under a ``set-logic`` without them) is
    ``("unknown", "z3 could not parse the script: ...")``.

    The script is read into a fresh Z3 context.  In the shared context, the terms the
    process built before (the obligation itself, other theorems) keep their internal ids, and
    Z3's heuristics depend on those ids: the same script was measured to take 0.0 s in a
    fresh context and to time out in a used one.  A fresh context makes the answer a function
    of the file alone (for one Z3 version and timeout), as a certificate's verdict must be.
    """
    solver = z3.Solver(ctx=z3.Context())
    solver.set("timeout", timeout_ms)
    try:
        solver.from_string(text)
    except z3.Z3Exception as error:
        return "unknown", f"z3 could not parse the script: {_z3_message(error)}"
    answer = solver.check()
    if answer == z3.unsat:
        return "unsat", None
    if answer == z3.sat:
        return "sat", None
    return "unknown", solver.reason_unknown()


def _z3_message(error: z3.Z3Exception) -> str:
    value = error.value
    text = value.decode() if isinstance(value, bytes) else str(value)
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def cvc5_version() -> str | None:
    """The installed cvc5's version, None when it is not installed."""
    try:
        import cvc5
    except ImportError:
        return None
    return str(getattr(cvc5, "__version__", "unknown"))


def cvc5_status(text: str, *, timeout_ms: int = 60_000) -> tuple[str, str | None]:
    """cvc5 on an SMT-LIB 2 script: ``("unsat"|"sat"|"unknown"|"error", reason)``.

    ``timeout_ms`` is cvc5's ``tlimit-per`` (per ``check-sat``); running out is ``unknown``.
    A script without ``(set-logic ...)`` runs with logic ``ALL``.  The answer is that of the
    last ``check-sat``.  Raises ImportError when cvc5 is not installed.
    """
    import cvc5

    solver = cvc5.Solver(cvc5.TermManager())
    solver.setOption("tlimit-per", str(timeout_ms))
    if not re.search(r"^\s*\(set-logic\b", text, re.MULTILINE):
        solver.setLogic("ALL")
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "certificate")
    symbols = parser.getSymbolManager()
    answer: tuple[str, str | None] = ("error", "the script has no check-sat")
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            output = str(command.invoke(solver, symbols)).strip()
            if output.startswith("(error"):
                return "error", f"cvc5: {output}"
            word = output.split(maxsplit=1)[0] if output else ""
            if word in ("sat", "unsat"):
                answer = (word, None)
            elif word == "unknown":
                answer = ("unknown", output.partition(" ")[2].strip("() ") or "unknown")
    except Exception as error:  # cvc5 raises RuntimeError (and its own types) on a bad script
        return "error", f"cvc5 could not run the script: {error}"
    return answer


# --- the manifest --------------------------------------------------------------------------


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
            "name": self.name, "kind": self.kind, "file": self.file, "sha256": self.sha256,
            "verdict": self.verdict.value, "expect": self.expect.value, "covers": dict(self.covers),
            "source": self.source, "statement": self.statement, "bounded": self.bounded,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CertificateRecord:
        return cls(
            name=str(data["name"]), kind=str(data["kind"]), file=str(data["file"]),
            sha256=str(data["sha256"]), verdict=Verdict(data["verdict"]), expect=Verdict(data["expect"]),
            covers={str(k): str(v) for k, v in dict(data["covers"]).items()},
            source=str(data["source"]), statement=str(data["statement"]),
            bounded=data.get("bounded"), reason=data.get("reason"),
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


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
    for obligation, hashes in zip(obligations, covers):
        answer, reason = z3_status(obligation.text, timeout_ms=timeout_ms)
        record = CertificateRecord(
            name=obligation.name, kind=obligation.kind, file=obligation.file,
            sha256=_sha256(obligation.text), verdict=_VERDICT_OF.get(answer, Verdict.INCONCLUSIVE),
            expect=obligation.expect, covers=hashes, source=obligation.source,
            statement=obligation.statement, bounded=obligation.bounded, reason=reason,
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
                raise DpverifyError(f"two obligations share the {attribute} {shown(value)}; each certificate "
                                    f"needs its own {attribute}.")
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
        raise DpverifyError(f"{MANIFEST_PATH.as_posix()} cannot be read ({error}); run `dpverify prove` "
                            "to regenerate it.") from None
    if manifest.schema != MANIFEST_SCHEMA:
        raise DpverifyError(f"{MANIFEST_PATH.as_posix()} has schema={shown(manifest.schema)}, not "
                            f"{shown(MANIFEST_SCHEMA)}; run `dpverify prove` to regenerate it.")
    return manifest


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
        return {"certificate": self.certificate, "file": self.file, "function": self.function,
                "problem": self.problem, "message": self.message, "recorded": self.recorded,
                "current": self.current}


_REGENERATE = "run `dpverify prove` to regenerate it"


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
        return CheckResult("stale_proofs", Verdict.VIOLATED, f"stale proof: {error}",
                           evidence={"manifest": MANIFEST_PATH.as_posix(), "findings": []})
    if manifest is None:
        return CheckResult("stale_proofs", Verdict.INCONCLUSIVE,
                           f"no {MANIFEST_PATH.as_posix()}: no certificate to check; run `dpverify prove`",
                           reason="no manifest", evidence={"manifest": MANIFEST_PATH.as_posix(), "findings": []})
    findings: list[_Stale] = []
    if manifest.fingerprint != FINGERPRINT_SCHEME:
        findings.append(_Stale(None, None, "fingerprint-scheme",
                               f"the manifest's fingerprints use {manifest.fingerprint!r}, not "
                               f"{FINGERPRINT_SCHEME!r}; {_REGENERATE}"))
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
        return CheckResult("stale_proofs", Verdict.PROVED,
                           f"{len(manifest.certificates)} certificates up to date: {len(functions)} covered "
                           "functions unchanged, every certificate file as recorded", evidence=evidence)
    shown = "; ".join(f.message for f in findings[:3])
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    return CheckResult("stale_proofs", Verdict.VIOLATED, f"stale proof: {shown}{more}", evidence=evidence)


def _certificate_path(root: Path, file: str) -> Path | None:
    """``root/file`` when ``file`` is a ``.smt2`` path inside ``proofs/certificates``, else None
    (a manifest entry must not point the check at an arbitrary file)."""
    relative = Path(file)
    inside = relative.parts[: len(CERTIFICATE_DIR.parts)] == CERTIFICATE_DIR.parts and ".." not in relative.parts
    return root / relative if inside and relative.suffix == ".smt2" and not relative.is_absolute() else None


def _stale_record(root: Path, record: CertificateRecord, cache: dict[str, str | None]) -> list[_Stale]:
    found = []
    path = _certificate_path(root, record.file)
    label = f"certificate {record.name!r} ({record.file})"
    if path is None:
        found.append(_Stale(record.name, record.file, "certificate-outside",
                            f"{label} is not a .smt2 file under {CERTIFICATE_DIR.as_posix()}; {_REGENERATE}"))
    elif not path.is_file():
        found.append(_Stale(record.name, record.file, "certificate-missing",
                            f"{label} is missing; {_REGENERATE}", recorded=record.sha256))
    elif (sha := _file_sha256(path)) != record.sha256:
        found.append(_Stale(record.name, record.file, "certificate-modified",
                            f"{label} was modified after it was made (sha256 {sha[:12]}, recorded "
                            f"{record.sha256[:12]}); {_REGENERATE}", recorded=record.sha256, current=sha))
    for function, recorded in sorted(record.covers.items()):
        if function not in cache:
            try:
                cache[function] = fingerprint(function, root)
            except FingerprintError:
                cache[function] = None
        now = cache[function]
        if now is None:
            found.append(_Stale(record.name, record.file, "function-missing",
                                f"{label} covers {function}, which no longer exists; update the covers "
                                f"and {_REGENERATE}", function=function, recorded=recorded))
        elif now != recorded:
            found.append(_Stale(record.name, record.file, "function-changed",
                                f"{label} covers {function}, which changed since the certificate was "
                                f"made; {_REGENERATE}", function=function, recorded=recorded, current=now))
    return found


def _orphans(root: Path, manifest: Manifest) -> list[_Stale]:
    known = {(root / c.file).resolve() for c in manifest.certificates}
    return [
        _Stale(None, path.relative_to(root).as_posix(), "certificate-unrecorded",
               f"{path.relative_to(root).as_posix()} is not in the manifest; {_REGENERATE}")
        for path in sorted((root / CERTIFICATE_DIR).rglob("*.smt2")) if path.resolve() not in known
    ]


def _changed_obligations(manifest: Manifest, current: Sequence[Obligation]) -> list[_Stale]:
    recorded = {c.name: c for c in manifest.certificates}
    found = []
    for obligation in current:
        record = recorded.pop(obligation.name, None)
        if record is None:
            found.append(_Stale(obligation.name, obligation.file, "certificate-absent",
                                f"obligation {obligation.name!r} has no certificate; run `dpverify prove`"))
        elif _sha256(obligation.text) != record.sha256 or record.file != obligation.file:
            found.append(_Stale(record.name, record.file, "obligation-changed",
                                f"certificate {record.name!r} ({record.file}) no longer matches its "
                                f"obligation, which changed since the certificate was made; {_REGENERATE}",
                                recorded=record.sha256, current=_sha256(obligation.text)))
        elif set(obligation.covers) != set(record.covers):
            found.append(_Stale(record.name, record.file, "covers-changed",
                                f"certificate {record.name!r} ({record.file}) records other covered "
                                f"functions than its obligation names now; {_REGENERATE}"))
    found += [_Stale(r.name, r.file, "certificate-obsolete",
                     f"certificate {r.name!r} ({r.file}) belongs to no current obligation; {_REGENERATE}")
              for r in recorded.values()]
    return found


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
        return CheckResult("recheck", Verdict.INCONCLUSIVE,
                           f"cvc5 is not installed, so no certificate was rechecked; install it with "
                           f"`pip install '{RECHECK_EXTRA}'` (or `pip install cvc5`)",
                           reason="cvc5 not installed")
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return CheckResult("recheck", Verdict.VIOLATED, str(error), evidence={"certificates": []})
    if manifest is None:
        return CheckResult("recheck", Verdict.INCONCLUSIVE,
                           f"no {MANIFEST_PATH.as_posix()}: nothing to recheck; run `dpverify prove`",
                           reason="no manifest")
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
        return CheckResult("recheck", Verdict.VIOLATED,
                           f"{len(disagree)} of {len(rows)} certificates fail the recheck: {shown}",
                           evidence=evidence)
    if open_:
        shown = "; ".join(r["message"] for r in open_[:3])
        return CheckResult("recheck", Verdict.INCONCLUSIVE,
                           f"cvc5 {version} agrees on {len(rows) - len(open_)} of {len(rows)} certificates, "
                           f"{len(open_)} open: {shown}", reason="unknown", evidence=evidence)
    return CheckResult("recheck", Verdict.PROVED,
                       f"cvc5 {version} agrees with z3 {manifest.solvers.get('z3')} on all {len(rows)} "
                       "certificates", evidence=evidence)


def _recheck_one(root: Path, record: CertificateRecord, timeout_ms: int) -> dict[str, Any]:
    label = f"{record.name} ({record.file})"
    row: dict[str, Any] = {"certificate": record.name, "file": record.file, "recorded": record.verdict.value,
                           "z3": _ANSWER_OF.get(record.verdict, "unknown"), "cvc5": None, "reason": None}
    path = _certificate_path(root, record.file)
    if path is None or not path.is_file() or _file_sha256(path) != record.sha256:
        return {**row, "outcome": "modified",
                "message": f"{label} is missing or not the file the manifest records; {_REGENERATE}"}
    answer, reason = cvc5_status(path.read_text(encoding="utf-8"), timeout_ms=timeout_ms)
    row.update(cvc5=answer, reason=reason)
    expected = _ANSWER_OF.get(record.verdict)
    if answer not in ("sat", "unsat"):
        return {**row, "outcome": "open", "message": f"{label}: cvc5 {answer} ({reason})"}
    if expected is None:
        return {**row, "outcome": "open",
                "message": f"{label}: z3 recorded {record.verdict.value}, cvc5 says {answer}"}
    if answer != expected:
        return {**row, "outcome": "disagree",
                "message": f"{label}: z3 recorded {expected} ({record.verdict.value}) but cvc5 says {answer}"}
    return {**row, "outcome": "agree", "message": f"{label}: both {answer}"}


def prove_result(manifest: Manifest) -> CheckResult:
    """The outcome of ``dpverify prove``: ``proved`` when every certificate reached the verdict
    expected of it (every parametric theorem proved, every catalogue instance its expectation),
    ``violated`` when some reached the opposite one, ``inconclusive`` when some stayed open."""
    unmet = manifest.unmet()
    evidence = {"certificates": [c.to_json() for c in manifest.certificates], "solvers": dict(manifest.solvers)}
    total = len(manifest.certificates)
    if not unmet:
        return CheckResult("prove", Verdict.PROVED,
                           f"all {total} certificates reached their expected verdict", evidence=evidence)
    wrong = [c for c in unmet if c.verdict is not Verdict.INCONCLUSIVE]
    shown = "; ".join(f"{c.name}: expected {c.expect.value}, got {c.verdict.value}"
                      + (f" ({c.reason})" if c.reason else "") for c in unmet[:5])
    verdict = Verdict.VIOLATED if wrong else Verdict.INCONCLUSIVE
    return CheckResult("prove", verdict, f"{len(unmet)} of {total} certificates missed their expected verdict: "
                       f"{shown}", reason=None if wrong else "unknown", evidence=evidence)


def check_recorded_verdicts(root: Path | str) -> CheckResult:
    """:func:`prove_result` of the manifest under ``root``, without running a solver (check
    ``"certificates"``): a committed manifest whose theorem is not proved, or whose catalogue
    instance missed its expectation, fails here.  ``inconclusive`` when there is no manifest."""
    try:
        manifest = read_manifest(root)
    except DpverifyError as error:
        return CheckResult("certificates", Verdict.VIOLATED, str(error))
    if manifest is None:
        return CheckResult("certificates", Verdict.INCONCLUSIVE,
                           f"no {MANIFEST_PATH.as_posix()}: no certificate; run `dpverify prove`", reason="no manifest")
    return replace(prove_result(manifest), check="certificates")

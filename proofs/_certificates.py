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

This module holds the layout and the obligations; the solvers are in
:mod:`dpverify.proofs._solvers`, the manifest (written and read) in
:mod:`dpverify.proofs._manifest`, the stale-proof check in :mod:`dpverify.proofs._stale` and
the recheck in :mod:`dpverify.proofs._recheck`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dpverify.proofs._theorem import Theorem, theorem_smtlib
from dpverify.samplers._errors import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._results import Verdict

__all__ = [
    "CERTIFICATE_DIR",
    "GTM_COVERS",
    "MANIFEST_PATH",
    "Obligation",
    "instance_obligations",
    "repository_root",
    "theorem_obligation",
    "theorem_smtlib",
]

#: Relative to the repository root.
CERTIFICATE_DIR = Path("proofs") / "certificates"
MANIFEST_PATH = Path("proofs") / "manifest.json"
_INSTANCE_DIR = "instances"
#: What an instance certificate of GTM is about.  The obligation is built from the spec's
#: table (``pmf`` through ``_offset_tables`` and ``_OffsetCdf``, the inputs, neighbours and
#: claim); it certifies the *sampler* because the gate proves the code samples that table
#: exactly, so the sampler's draw (``sample``), search (``inverse_transform``) and CDF
#: (``cdf_vector``, ``gtpmf``) are covered too: a change to any of them makes the proof stale.
GTM_COVERS: tuple[str, ...] = (
    "dpverify.samplers.gtm.validate",
    "dpverify.samplers.gtm.gtpmf",
    "dpverify.samplers.gtm.cdf_vector",
    "dpverify.samplers.gtm._cdf_vector",
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
    from dpverify.specs import GtmSpec, PureDp, PureDpClaim
    from dpverify.verify.gate._catalogue import GTM
    from dpverify.verify.privacy._smt import smtlib_obligation

    found = []
    for case in GTM.cases:
        p = GTM.bind(case)
        spec = GtmSpec.create(p["alpha"], p["n"], p["T"])
        if (spec.n + 1) ** 2 > max_table:
            continue
        declared = GTM.claim_for(p, case)
        assert isinstance(declared, PureDp) and declared.alpha is not None  # the GTM claims alpha-DP
        claim = PureDpClaim(Fraction(declared.alpha))  # already a Fraction: PureDp stores one
        name = f"{GTM.name}/{case.describe()}"
        parameters = ", ".join(f"{k}={v}" for k, v in spec.parameters().items())
        table = {q: spec.pmf(q) for q in spec.inputs()}
        header = "".join(
            f"; {line}\n"
            for line in (
                f"dpverify certificate: {name} (catalogue instance, expected {case.expect})",
                f"parameters: {parameters}",
                f"why: {case.why}",
            )
        )
        found.append(
            Obligation(
                name=name,
                kind="instance",
                statement=f"GTM {parameters}: alpha * P(x|q') <= P(x|q) for all neighbours (q, q') and "
                f"outputs x, alpha={claim.alpha}",
                source='Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers", '
                "section 2",
                covers=GTM_COVERS,
                text=header + smtlib_obligation(table, spec.neighbours(), claim),
                stem=f"{_INSTANCE_DIR}/{_slug(name)}",
                expect=Verdict(case.expect),
            )
        )
    return found


def _slug(name: str) -> str:
    """``"gtm/thm7.1/D=3,n=4"`` -> ``"gtm-thm7.1-D-3-n-4"``."""
    return re.sub(r"[^A-Za-z0-9._]+", "-", name).strip("-")
